#pragma once
// The CPU kernels of the optimizers' update ops, dense and sparse (ops/defs/training.hpp,
// which gives each one's formulas), the update machinery the CPU and GPU kernels share (locking the
// references, checking the inputs), and kTrainingCpuKernels, their table.
//
// Like every write in symflow, an update stores new buffers: a value read before the
// update runs keeps what it read.

#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <mutex>
#include <span>
#include <string>
#include <type_traits>
#include <utility>

#include <Eigen/Core>

#include "symflow/backend/cpu/kernel_table.hpp"
#include "symflow/backend/cpu/kernels/math.hpp"
#include "symflow/backend/cpu/kernels/state.hpp"
#include "symflow/backend/kernel_context.hpp"
#include "symflow/backend/variable_store.hpp"
#include "symflow/ops/defs/training.hpp"

namespace symflow::detail {

// The variables an update writes: var and its slots (centered RMSProp has the most,
// four). Fixed storage: an update allocates nothing to find them.
struct TrainingRefs {
  static constexpr std::size_t kMax = 4;
  std::array<VariableSlot*, kMax> slots{};
  std::size_t count = 0;

  TrainingRefs(const KernelContext& ctx, const TrainingSignature& s) : count(s.num_refs) {
    if (count > kMax) throw InternalError("Too many references for " + std::string(s.type));
    for (std::size_t i = 0; i < count; ++i) slots[i] = &ctx.ref_input(i);
  }
  std::span<VariableSlot* const> all() const { return {slots.data(), count}; }
};

// Locks each distinct variable once, in address order (so two updates never deadlock).
class SlotLocks {
 public:
  explicit SlotLocks(const TrainingRefs& refs) {
    // At most four: a selection sort over the whole array (unused entries are null and
    // skipped) keeps every index in bounds where the compiler can see it.
    std::array<VariableSlot*, TrainingRefs::kMax> order = refs.slots;
    const std::less<VariableSlot*> before;
    for (std::size_t i = 0; i < order.size(); ++i)
      for (std::size_t j = i + 1; j < order.size(); ++j)
        if (order[j] && (!order[i] || before(order[j], order[i]))) std::swap(order[i], order[j]);
    for (std::size_t i = 0; i < order.size(); ++i)
      if (order[i] && (i == 0 || order[i] != order[i - 1]))
        locks_[i] = std::unique_lock(order[i]->mutex);
  }

 private:
  std::array<std::unique_lock<std::mutex>, TrainingRefs::kMax> locks_;
};

// An update's inputs checked as TensorFlow's kernels check them, with the references' slots
// locked (the CPU and GPU kernels share it).
inline void check_training_inputs(const KernelContext& ctx, const TrainingSignature& s,
                                  std::span<VariableSlot* const> slots) {
  for (VariableSlot* slot : slots) require_initialized(ctx, *slot);
  for (std::size_t i = 1; i < s.num_inputs(); ++i)
    if (s.is_scalar(i) && ctx.input(i).rank() != 0)
      ctx.fail(std::string(s.input(i)) +
               " is not a scalar: " + dims_to_string(ctx.input(i).dims()));
  const Dims& dims = slots[0]->value.dims();
  for (std::size_t i = 1; i < s.num_inputs(); ++i) {
    if (s.is_scalar(i)) continue;
    const Dims& other = i < s.num_refs ? slots[i]->value.dims() : ctx.input(i).dims();
    if (other != dims)
      ctx.fail("var and " + std::string(s.input(i)) + " do not have the same shape" +
               dims_to_string(dims) + " " + dims_to_string(other));
  }
}

// A buffer as an Eigen array, so that the update bodies are vectorized whatever the
// optimisation level (GCC's -O2 leaves a plain loop of unknown length scalar). Each
// statement is elementwise, so the results match a loop over the same formulas. Not
// for updates that take a square root: Eigen's float sqrt is not correctly rounded,
// and those must match the GPU kernels bit for bit.
template <class T>
auto elements(T* p, std::int64_t n) {
  return Eigen::Map<Eigen::Array<std::remove_const_t<T>, Eigen::Dynamic, 1>>(p, n);
}
template <class T>
auto elements(const T* p, std::int64_t n) {
  return Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>(p, n);
}

// Calls write(refs, scalar), refs[k] pointing at the buffer reference k is to hold and
// scalar(i) reading scalar input i as the variable's element type, then stores the
// buffers. In place when the variable alone holds its buffer. A value fetched earlier, or
// read by a run in flight, shares it: then the update writes a copy, and they keep the
// value they saw (every read takes the slot's lock, held by the caller).
template <class Write>
void write_references(KernelContext& ctx, std::span<VariableSlot* const> slots, Write write) {
  const DType dtype = slots[0]->value.dtype();
  visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T>) {
      std::array<Value, TrainingRefs::kMax> fresh;
      std::array<T*, TrainingRefs::kMax> refs{};
      for (std::size_t k = 0; k < slots.size(); ++k) {
        const Value& old = slots[k]->value;
        fresh[k] = old.buffer_owners() == 1 ? old : old.clone();
        refs[k] = fresh[k].template data<T>();
      }
      write(refs, [&](std::size_t i) { return ctx.input(i).data<T>()[0]; });
      for (std::size_t k = 0; k < slots.size(); ++k) slots[k]->value = std::move(fresh[k]);
    } else {
      unsupported_dtype(ctx, dtype);
    }
  });
}

// Runs an update: checks the inputs as TensorFlow's kernels do, then calls
// body(refs, scalar, tensor, n) on the references' buffers (write_references), where
// tensor(i) gives the elements of input i; then forwards var.
template <class Body>
void run_training_update(KernelContext& ctx, const TrainingSignature& s, Body body) {
  const TrainingRefs refs_in(ctx, s);
  const std::span<VariableSlot* const> slots = refs_in.all();
  {
    SlotLocks locks(refs_in);
    check_training_inputs(ctx, s, slots);
    write_references(ctx, slots, [&](auto& refs, auto scalar) {
      using T = std::decay_t<decltype(scalar(0))>;
      auto tensor = [&](std::size_t i) { return ctx.input(i).data<T>(); };
      body(refs, scalar, tensor, slots[0]->value.size());
    });
  }
  ctx.forward_ref(0, 0);
}

// ---- ApplyGradientDescent: var -= alpha * delta --------------------------------------
inline void apply_gradient_descent_kernel(KernelContext& ctx) {
  run_training_update(ctx, kGradientDescentSig,
                      [](auto& refs, auto scalar, auto tensor, std::int64_t n) {
                        auto var = elements(refs[0], n);
                        const auto delta = elements(tensor(2), n);
                        var -= delta * scalar(1);
                      });
}

// ---- ApplyMomentum --------------------------------------------------------------------
inline void apply_momentum_kernel(KernelContext& ctx) {
  bool nesterov = ctx.attr<bool>("use_nesterov");
  run_training_update(ctx, kMomentumSig, [&](auto& refs, auto scalar, auto tensor, std::int64_t n) {
    auto var = elements(refs[0], n);
    auto accum = elements(refs[1], n);
    const auto lr = scalar(2);
    const auto momentum = scalar(4);
    const auto grad = elements(tensor(3), n);
    accum = accum * momentum + grad;
    if (nesterov)
      var -= grad * lr + accum * momentum * lr;
    else
      var -= accum * lr;
  });
}

// ---- ApplyAdam ----------------------------------------------------------------------
inline void apply_adam_kernel(KernelContext& ctx) {
  bool nesterov = ctx.attr<bool>("use_nesterov");
  run_training_update(ctx, kAdamSig, [&](auto& refs, auto scalar, auto tensor, std::int64_t n) {
    using T = std::decay_t<decltype(scalar(0))>;
    auto* var = refs[0];
    auto* m = refs[1];
    auto* v = refs[2];
    T beta1_power = scalar(3), beta2_power = scalar(4), lr = scalar(5);
    T beta1 = scalar(6), beta2 = scalar(7), epsilon = scalar(8);
    const T* grad = tensor(9);
    const T one(1);
    const T alpha = lr * std::sqrt(one - beta2_power) / (one - beta1_power);
    for (std::int64_t i = 0; i < n; ++i) {
      m[i] += (grad[i] - m[i]) * (one - beta1);
      v[i] += (grad[i] * grad[i] - v[i]) * (one - beta2);
      if (nesterov)
        var[i] -= ((grad[i] * (one - beta1) + beta1 * m[i]) * alpha) / (std::sqrt(v[i]) + epsilon);
      else
        var[i] -= (m[i] * alpha) / (std::sqrt(v[i]) + epsilon);
    }
  });
}

// ---- ApplyRMSProp -------------------------------------------------------------------
inline void apply_rms_prop_kernel(KernelContext& ctx) {
  run_training_update(ctx, kRMSPropSig, [](auto& refs, auto scalar, auto tensor, std::int64_t n) {
    using T = std::decay_t<decltype(scalar(0))>;
    auto* var = refs[0];
    auto* ms = refs[1];
    auto* mom = refs[2];
    T lr = scalar(3), rho = scalar(4), momentum = scalar(5), epsilon = scalar(6);
    const T* grad = tensor(7);
    for (std::int64_t i = 0; i < n; ++i) {
      ms[i] += (grad[i] * grad[i] - ms[i]) * (T(1) - rho);
      mom[i] = mom[i] * momentum + (grad[i] * lr) / std::sqrt(ms[i] + epsilon);
      var[i] -= mom[i];
    }
  });
}

// ---- ApplyCenteredRMSProp -------------------------------------------------------------
inline void apply_centered_rms_prop_kernel(KernelContext& ctx) {
  run_training_update(
      ctx, kCenteredRMSPropSig, [](auto& refs, auto scalar, auto tensor, std::int64_t n) {
        using T = std::decay_t<decltype(scalar(0))>;
        auto* var = refs[0];
        auto* mg = refs[1];
        auto* ms = refs[2];
        auto* mom = refs[3];
        T lr = scalar(4), rho = scalar(5), momentum = scalar(6), epsilon = scalar(7);
        const T* grad = tensor(8);
        const T one_minus_rho = T(1) - rho;
        for (std::int64_t i = 0; i < n; ++i) {
          ms[i] += (grad[i] * grad[i] - ms[i]) * one_minus_rho;
          mg[i] += (grad[i] - mg[i]) * one_minus_rho;
          T denom = (ms[i] - mg[i] * mg[i]) + epsilon;
          mom[i] = mom[i] * momentum + (grad[i] * lr) / std::sqrt(denom);
          var[i] -= mom[i];
        }
      });
}

// ---- ApplyAdagrad -------------------------------------------------------------------
inline void apply_adagrad_kernel(KernelContext& ctx) {
  bool update_slots = ctx.attr<bool>("update_slots");
  run_training_update(ctx, kAdagradSig, [&](auto& refs, auto scalar, auto tensor, std::int64_t n) {
    using T = std::decay_t<decltype(scalar(0))>;
    auto* var = refs[0];
    auto* accum = refs[1];
    T lr = scalar(2);
    const T* grad = tensor(3);
    for (std::int64_t i = 0; i < n; ++i) {
      if (update_slots) accum[i] += grad[i] * grad[i];
      var[i] -= grad[i] * lr * (T(1) / std::sqrt(accum[i]));
    }
  });
}

// ---- the sparse updates -------------------------------------------------------------

// Runs a sparse update: checks the inputs as TensorFlow's kernels do (var at least a
// vector, the slots var's shape, grad [len(indices)] + var.shape[1:], every index a row of
// var), then calls body(refs, scalar, grad_row, row, n) for each index in order, where
// refs[k] points at reference k's new values, grad_row at grad's row i and row is the
// row of var it updates (n elements each); then stores the new buffers and forwards var.
template <class Body>
void run_sparse_training_update(KernelContext& ctx, const TrainingSignature& s, Body body) {
  const std::size_t grad_i = sparse_grad_index(s);
  const TrainingRefs refs_in(ctx, s);
  const std::span<VariableSlot* const> slots = refs_in.all();
  {
    SlotLocks locks(refs_in);
    for (VariableSlot* slot : slots) require_initialized(ctx, *slot);
    const Dims& dims = slots[0]->value.dims();
    for (std::size_t k = 1; k < slots.size(); ++k)
      if (slots[k]->value.dims() != dims)
        ctx.fail("var and " + std::string(s.input(k)) + " do not have the same shape" +
                 dims_to_string(dims) + " " + dims_to_string(slots[k]->value.dims()));
    if (dims.empty()) ctx.fail("var must be at least 1 dimensional");
    for (std::size_t i = s.num_refs; i < s.num_inputs(); ++i)
      if (s.is_scalar(i) && ctx.input(i).rank() != 0)
        ctx.fail(std::string(s.input(i)) +
                 " is not a scalar: " + dims_to_string(ctx.input(i).dims()));
    const Value& grad = ctx.input(grad_i);
    const Value& indices = ctx.input(grad_i + 1);
    if (indices.rank() != 1) ctx.fail("indices must be one-dimensional");
    if (grad.rank() != static_cast<std::int64_t>(dims.size()))
      ctx.fail("var and grad do not have the same shape" + dims_to_string(dims) + " " +
               dims_to_string(grad.dims()));
    for (std::size_t d = 1; d < dims.size(); ++d)
      if (grad.dims()[d] != dims[d])
        ctx.fail("var and grad must match in dimension " + std::to_string(d));
    const Dims rows = shape_argument(indices);
    if (grad.dims()[0] != static_cast<std::int64_t>(rows.size()))
      ctx.fail("grad must be the same size as indices in the first dimension.");
    for (std::size_t i = 0; i < rows.size(); ++i)
      if (rows[i] < 0 || rows[i] >= dims[0])
        ctx.fail("Index " + std::to_string(rows[i]) + " at offset " + std::to_string(i) +
                 " in indices is out of range");
    const std::int64_t row_size = dims[0] == 0 ? 0 : slots[0]->value.size() / dims[0];
    write_references(ctx, slots, [&](auto& refs, auto scalar) {
      using T = std::decay_t<decltype(scalar(0))>;
      const T* grad_data = grad.data<T>();
      for (std::size_t i = 0; i < rows.size(); ++i)
        body(refs, scalar, grad_data + static_cast<std::int64_t>(i) * row_size, rows[i] * row_size,
             row_size);
    });
  }
  ctx.forward_ref(0, 0);
}

// ---- SparseApplyMomentum ----------------------------------------------------------------
inline void sparse_apply_momentum_kernel(KernelContext& ctx) {
  const bool nesterov = ctx.attr<bool>("use_nesterov");
  run_sparse_training_update(
      ctx, kSparseMomentumSig,
      [&](auto& refs, auto scalar, const auto* grad, std::int64_t row, std::int64_t n) {
        auto var = elements(refs[0] + row, n);
        auto accum = elements(refs[1] + row, n);
        const auto lr = scalar(2);
        const auto momentum = scalar(5);
        const auto g = elements(grad, n);
        accum = accum * momentum + g;
        if (nesterov)
          var -= g * lr + accum * momentum * lr;
        else
          var -= accum * lr;
      });
}

// ---- SparseApplyAdagrad -----------------------------------------------------------------
inline void sparse_apply_adagrad_kernel(KernelContext& ctx) {
  const bool update_slots = ctx.attr<bool>("update_slots");
  run_sparse_training_update(
      ctx, kSparseAdagradSig,
      [&](auto& refs, auto scalar, const auto* grad, std::int64_t row, std::int64_t n) {
        using T = std::decay_t<decltype(scalar(0))>;
        T* var = refs[0] + row;
        T* accum = refs[1] + row;
        const T lr = scalar(2);
        for (std::int64_t i = 0; i < n; ++i) {
          if (update_slots) accum[i] += grad[i] * grad[i];
          var[i] -= grad[i] * lr * (T(1) / std::sqrt(accum[i]));
        }
      });
}

// ---- SparseApplyRMSProp -----------------------------------------------------------------
inline void sparse_apply_rms_prop_kernel(KernelContext& ctx) {
  run_sparse_training_update(
      ctx, kSparseRMSPropSig,
      [](auto& refs, auto scalar, const auto* grad, std::int64_t row, std::int64_t n) {
        using T = std::decay_t<decltype(scalar(0))>;
        T* var = refs[0] + row;
        T* ms = refs[1] + row;
        T* mom = refs[2] + row;
        const T lr = scalar(3), rho = scalar(4), momentum = scalar(5), epsilon = scalar(6);
        for (std::int64_t i = 0; i < n; ++i) {
          ms[i] = ms[i] * rho + grad[i] * grad[i] * (T(1) - rho);
          mom[i] = mom[i] * momentum + (T(1) / std::sqrt(ms[i] + epsilon)) * lr * grad[i];
          var[i] -= mom[i];
        }
      });
}

// ---- SparseApplyCenteredRMSProp ---------------------------------------------------------
inline void sparse_apply_centered_rms_prop_kernel(KernelContext& ctx) {
  run_sparse_training_update(
      ctx, kSparseCenteredRMSPropSig,
      [](auto& refs, auto scalar, const auto* grad, std::int64_t row, std::int64_t n) {
        using T = std::decay_t<decltype(scalar(0))>;
        T* var = refs[0] + row;
        T* mg = refs[1] + row;
        T* ms = refs[2] + row;
        T* mom = refs[3] + row;
        const T lr = scalar(4), rho = scalar(5), momentum = scalar(6), epsilon = scalar(7);
        for (std::int64_t i = 0; i < n; ++i) {
          ms[i] = ms[i] * rho + grad[i] * grad[i] * (T(1) - rho);
          mg[i] = mg[i] * rho + grad[i] * (T(1) - rho);
          const T denom = (ms[i] - mg[i] * mg[i]) + epsilon;
          mom[i] = mom[i] * momentum + (T(1) / std::sqrt(denom)) * lr * grad[i];
          var[i] -= mom[i];
        }
      });
}

inline constexpr auto kTrainingCpuKernels = std::to_array<CpuKernel>({
    {&kApplyGradientDescentOp, apply_gradient_descent_kernel},
    {&kApplyMomentumOp, apply_momentum_kernel},
    {&kApplyAdamOp, apply_adam_kernel},
    {&kApplyRMSPropOp, apply_rms_prop_kernel},
    {&kApplyCenteredRMSPropOp, apply_centered_rms_prop_kernel},
    {&kApplyAdagradOp, apply_adagrad_kernel},
    {&kSparseApplyMomentumOp, sparse_apply_momentum_kernel},
    {&kSparseApplyAdagradOp, sparse_apply_adagrad_kernel},
    {&kSparseApplyRMSPropOp, sparse_apply_rms_prop_kernel},
    {&kSparseApplyCenteredRMSPropOp, sparse_apply_centered_rms_prop_kernel},
});

}  // namespace symflow::detail
