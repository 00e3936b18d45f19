#pragma once
// The optimizers' update ops (ApplyGradientDescent, ApplyMomentum, ApplyAdam,
// ApplyRMSProp, ApplyCenteredRMSProp, ApplyAdagrad): each writes a variable and its
// slots in place through reference inputs and outputs the variable's reference, with
// the update formulas of TensorFlow's training_ops kernels. float32 and float64.
//
// Like every write in symflow, an update stores new buffers: a value read before the
// update runs keeps what it read.

#include <algorithm>
#include <array>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <functional>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "symflow/backend/kernel_context.hpp"
#include "symflow/ops/grad_context.hpp"
#include "symflow/ops/math_ops.hpp"
#include "symflow/ops/op_builder.hpp"
#include "symflow/ops/state_ops.hpp"
#include "symflow/ops/tensor_arg.hpp"

namespace symflow {

// The variable an update op writes: a reference tensor, or anything with a ref()
// (a Variable), which passes its reference rather than its value.
class RefArg {
 public:
  RefArg(const Output& ref) : ref_(ref) {}  // NOLINT: implicit on purpose
  template <class V>
  requires requires(const V& v) {
    { v.ref() } -> std::convertible_to<Output>;
  }
  RefArg(const V& variable) : ref_(variable.ref()) {}  // NOLINT: a Variable
  const Output& ref() const { return ref_; }

 private:
  Output ref_;
};

namespace detail {

// ---- shape functions ------------------------------------------------------------

inline void require_training_ref(const InferContext& c, std::string_view op, std::size_t i,
                                 std::string_view param) {
  if (!c.inputs[i].is_ref)
    throw TypeError("'" + std::string(op) + "' Op requires that input '" + std::string(param) +
                    "' be a mutable tensor (e.g.: a tf.Variable)");
}

inline void require_rank0(const InferContext& c, std::size_t i) {
  if (c.shape(i).has_rank() && c.shape(i).rank() != 0)
    throw ValueError("Shape must be rank 0 but is rank " + std::to_string(c.shape(i).rank()));
}

// TensorFlow's InferenceContext::Merge, with its messages.
inline Shape merge_update_shapes(const Shape& a, const Shape& b) {
  if (!a.has_rank()) return b;
  if (!b.has_rank()) return a;
  if (a.rank() != b.rank())
    throw ValueError("Shapes must be equal rank, but are " + std::to_string(a.rank()) + " and " +
                     std::to_string(b.rank()));
  for (std::size_t i = 0; i < a.dims().size(); ++i) {
    std::int64_t x = a.dims()[i], y = b.dims()[i];
    if (x >= 0 && y >= 0 && x != y)
      throw ValueError("Dimension " + std::to_string(i) +
                       " in both shapes must be equal, but are " + std::to_string(x) + " and " +
                       std::to_string(y) + ". Shapes are " + dims_to_string(a.dims()) + " and " +
                       dims_to_string(b.dims()) + ".");
  }
  return a.merge_with(b);
}

inline bool accepts_training_dtype(DType d) { return d == DType::float32 || d == DType::float64; }

// One update op's signature: its input names in order, how many of the first are
// references (var and its slots), and which are scalars (bit i: input i); the others
// share var's shape.
struct TrainingSignature {
  std::string_view type;
  std::array<std::string_view, 10> inputs;
  std::size_t num_refs = 1;
  std::uint32_t scalars = 0;

  constexpr std::size_t num_inputs() const {
    std::size_t n = 0;
    while (n < inputs.size() && !inputs[n].empty()) ++n;
    return n;
  }
  constexpr bool is_scalar(std::size_t i) const { return ((scalars >> i) & 1u) != 0; }
  std::string_view input(std::size_t i) const { return inputs.at(i); }
};

inline std::vector<TensorSpec> infer_training(const InferContext& c, const TrainingSignature& s) {
  for (std::size_t i = 0; i < s.num_refs; ++i) require_training_ref(c, s.type, i, s.input(i));
  for (std::size_t i = 1; i < s.num_inputs(); ++i)
    if (c.dtype(i) != c.dtype(0))
      throw TypeError("Input '" + std::string(s.input(i)) + "' of '" + std::string(s.type) +
                      "' Op has type " + std::string(dtype_name(c.dtype(i))) +
                      " that does not match type " + std::string(dtype_name(c.dtype(0))) +
                      " of argument 'var'.");
  check_allowed(c, 0, "var", accepts_training_dtype);
  Shape shape = c.shape(0);
  for (std::size_t i = 1; i < s.num_inputs(); ++i) {
    if (s.is_scalar(i))
      require_rank0(c, i);
    else
      shape = merge_update_shapes(shape, c.shape(i));
  }
  return {{c.dtype(0), shape, true}};
}

// ---- kernels ------------------------------------------------------------------------

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

// Runs an update: checks the inputs as TensorFlow's kernels do, then calls
// body(refs, scalar, tensor, n) on fresh copies of the references' buffers, where
// refs[k] points at reference k's new values, scalar(i) is scalar input i and
// tensor(i) the elements of input i; then stores the new buffers and forwards var.
template <class Body>
void run_training_update(KernelContext& ctx, const TrainingSignature& s, Body body) {
  const TrainingRefs refs_in(ctx, s);
  const std::span<VariableSlot* const> slots = refs_in.all();
  {
    SlotLocks locks(refs_in);
    check_training_inputs(ctx, s, slots);
    DType dtype = slots[0]->value.dtype();
    visit_dtype(dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_floating_point_v<T>) {
        // In place when the variable alone holds its buffer. A value fetched earlier,
        // or read by a run in flight, shares it: then the update writes a copy, and
        // they keep the value they saw (every read takes the slot's lock, held here).
        std::array<Value, TrainingRefs::kMax> fresh;
        std::array<T*, TrainingRefs::kMax> refs{};
        for (std::size_t k = 0; k < slots.size(); ++k) {
          const Value& old = slots[k]->value;
          fresh[k] = old.buffer_owners() == 1 ? old : old.clone();
          refs[k] = fresh[k].template data<T>();
        }
        auto scalar = [&](std::size_t i) { return ctx.input(i).data<T>()[0]; };
        auto tensor = [&](std::size_t i) { return ctx.input(i).data<T>(); };
        body(refs, scalar, tensor, slots[0]->value.size());
        for (std::size_t k = 0; k < slots.size(); ++k) slots[k]->value = std::move(fresh[k]);
      } else {
        unsupported_dtype(ctx, dtype);
      }
    });
  }
  ctx.forward_ref(0, 0);
}

// ---- ApplyGradientDescent: var -= alpha * delta --------------------------------------
inline constexpr TrainingSignature kGradientDescentSig{
    "ApplyGradientDescent", {"var", "alpha", "delta"}, 1, 0b10};

inline std::vector<TensorSpec> infer_apply_gradient_descent(const InferContext& c) {
  return infer_training(c, kGradientDescentSig);
}

SYMFLOW_CPU_KERNEL(apply_gradient_descent_kernel) {
  run_training_update(ctx, kGradientDescentSig,
                      [](auto& refs, auto scalar, auto tensor, std::int64_t n) {
                        auto var = elements(refs[0], n);
                        const auto delta = elements(tensor(2), n);
                        var -= delta * scalar(1);
                      });
}

inline constexpr OpDef kApplyGradientDescentOp{.type = "ApplyGradientDescent",
                                               .num_inputs = 3,
                                               .infer = infer_apply_gradient_descent,
                                               .cpu_kernel = apply_gradient_descent_kernel,
                                               .stateful = true,
                                               .ref_inputs = 0b1};

// ---- ApplyMomentum --------------------------------------------------------------------
//   accum = accum * momentum + grad
//   var -= accum * lr                                  (use_nesterov: grad * lr + accum * momentum
//   * lr)
inline constexpr TrainingSignature kMomentumSig{
    "ApplyMomentum", {"var", "accum", "lr", "grad", "momentum"}, 2, 0b10100};

inline std::vector<TensorSpec> infer_apply_momentum(const InferContext& c) {
  return infer_training(c, kMomentumSig);
}

SYMFLOW_CPU_KERNEL(apply_momentum_kernel) {
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

inline constexpr OpDef kApplyMomentumOp{.type = "ApplyMomentum",
                                        .num_inputs = 5,
                                        .infer = infer_apply_momentum,
                                        .cpu_kernel = apply_momentum_kernel,
                                        .stateful = true,
                                        .ref_inputs = 0b11};

// ---- ApplyAdam ----------------------------------------------------------------------
//   alpha = lr * sqrt(1 - beta2_power) / (1 - beta1_power)
//   m += (grad - m) * (1 - beta1)
//   v += (grad^2 - v) * (1 - beta2)
//   var -= m * alpha / (sqrt(v) + epsilon)
//   (use_nesterov: var -= (grad * (1 - beta1) + beta1 * m) * alpha / (sqrt(v) + epsilon))
inline constexpr TrainingSignature kAdamSig{
    "ApplyAdam",
    {"var", "m", "v", "beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon", "grad"},
    3,
    0b111111000};

inline std::vector<TensorSpec> infer_apply_adam(const InferContext& c) {
  return infer_training(c, kAdamSig);
}

SYMFLOW_CPU_KERNEL(apply_adam_kernel) {
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

inline constexpr OpDef kApplyAdamOp{.type = "ApplyAdam",
                                    .num_inputs = 10,
                                    .infer = infer_apply_adam,
                                    .cpu_kernel = apply_adam_kernel,
                                    .stateful = true,
                                    .ref_inputs = 0b111};

// ---- ApplyRMSProp -------------------------------------------------------------------
//   ms += (grad^2 - ms) * (1 - rho)
//   mom = mom * momentum + grad * lr / sqrt(ms + epsilon)
//   var -= mom
inline constexpr TrainingSignature kRMSPropSig{
    "ApplyRMSProp", {"var", "ms", "mom", "lr", "rho", "momentum", "epsilon", "grad"}, 3, 0b1111000};

inline std::vector<TensorSpec> infer_apply_rms_prop(const InferContext& c) {
  return infer_training(c, kRMSPropSig);
}

SYMFLOW_CPU_KERNEL(apply_rms_prop_kernel) {
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

inline constexpr OpDef kApplyRMSPropOp{.type = "ApplyRMSProp",
                                       .num_inputs = 8,
                                       .infer = infer_apply_rms_prop,
                                       .cpu_kernel = apply_rms_prop_kernel,
                                       .stateful = true,
                                       .ref_inputs = 0b111};

// ---- ApplyCenteredRMSProp -------------------------------------------------------------
//   ms += (grad^2 - ms) * (1 - rho);  mg += (grad - mg) * (1 - rho)
//   mom = mom * momentum + grad * lr / sqrt(ms - mg^2 + epsilon)
//   var -= mom
inline constexpr TrainingSignature kCenteredRMSPropSig{
    "ApplyCenteredRMSProp",
    {"var", "mg", "ms", "mom", "lr", "rho", "momentum", "epsilon", "grad"},
    4,
    0b11110000};

inline std::vector<TensorSpec> infer_apply_centered_rms_prop(const InferContext& c) {
  return infer_training(c, kCenteredRMSPropSig);
}

SYMFLOW_CPU_KERNEL(apply_centered_rms_prop_kernel) {
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

inline constexpr OpDef kApplyCenteredRMSPropOp{.type = "ApplyCenteredRMSProp",
                                               .num_inputs = 9,
                                               .infer = infer_apply_centered_rms_prop,
                                               .cpu_kernel = apply_centered_rms_prop_kernel,
                                               .stateful = true,
                                               .ref_inputs = 0b1111};

// ---- ApplyAdagrad -------------------------------------------------------------------
//   accum += grad^2   (when update_slots)
//   var -= grad * lr / sqrt(accum)
inline constexpr TrainingSignature kAdagradSig{
    "ApplyAdagrad", {"var", "accum", "lr", "grad"}, 2, 0b100};

inline std::vector<TensorSpec> infer_apply_adagrad(const InferContext& c) {
  return infer_training(c, kAdagradSig);
}

SYMFLOW_CPU_KERNEL(apply_adagrad_kernel) {
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

inline constexpr OpDef kApplyAdagradOp{.type = "ApplyAdagrad",
                                       .num_inputs = 4,
                                       .infer = infer_apply_adagrad,
                                       .cpu_kernel = apply_adagrad_kernel,
                                       .stateful = true,
                                       .ref_inputs = 0b11};

// Builds an update op: the references as they are, every other argument as a tensor
// (a number becomes a Const "<op>/<arg>" of var's dtype, as TensorFlow converts it).
inline Output build_training_op(const OpDef& def, const TrainingSignature& s,
                                const std::vector<Output>& refs, const std::vector<TensorArg>& args,
                                AttrMap attrs, std::string_view name) {
  std::vector<Output> tensors;
  for (const TensorArg& a : args)
    if (a.tensor()) tensors.push_back(*a.tensor());
  tensors.insert(tensors.end(), refs.begin(), refs.end());
  OpBuilder b(graph_of(tensors), name, def.type);
  DType dtype = refs.front().dtype();
  std::vector<Output> inputs = refs;
  for (std::size_t k = 0; k < args.size(); ++k)
    inputs.push_back(args[k].resolve(b, s.input(refs.size() + k), dtype));
  attrs.emplace("T", dtype);
  return b.build(def, inputs, std::move(attrs)).output(0);
}

inline constexpr auto kTrainingOpEntries = std::to_array<OpEntry>({
    {&kApplyGradientDescentOp, nullptr},
    {&kApplyMomentumOp, nullptr},
    {&kApplyAdamOp, nullptr},
    {&kApplyRMSPropOp, nullptr},
    {&kApplyCenteredRMSPropOp, nullptr},
    {&kApplyAdagradOp, nullptr},
});

}  // namespace detail

// The raw update ops, as TensorFlow's training_ops module builds them. `var` and the
// slots are variables (or reference tensors); they are written in place and the
// result is var's reference.

// var -= alpha * delta.
inline Output apply_gradient_descent(const RefArg& var, const TensorArg& alpha,
                                     const TensorArg& delta, bool use_locking = false,
                                     std::string_view name = {}) {
  return detail::build_training_op(detail::kApplyGradientDescentOp, detail::kGradientDescentSig,
                                   {var.ref()}, {alpha, delta}, {{"use_locking", use_locking}},
                                   name);
}

// accum = accum * momentum + grad; var -= lr * accum (or the Nesterov step).
inline Output apply_momentum(const RefArg& var, const RefArg& accum, const TensorArg& lr,
                             const TensorArg& grad, const TensorArg& momentum,
                             bool use_locking = false, bool use_nesterov = false,
                             std::string_view name = {}) {
  return detail::build_training_op(
      detail::kApplyMomentumOp, detail::kMomentumSig, {var.ref(), accum.ref()},
      {lr, grad, momentum}, {{"use_locking", use_locking}, {"use_nesterov", use_nesterov}}, name);
}

// Adam's step on var with moments m and v (see kApplyAdamOp for the formula).
inline Output apply_adam(const RefArg& var, const RefArg& m, const RefArg& v,
                         const TensorArg& beta1_power, const TensorArg& beta2_power,
                         const TensorArg& lr, const TensorArg& beta1, const TensorArg& beta2,
                         const TensorArg& epsilon, const TensorArg& grad, bool use_locking = false,
                         bool use_nesterov = false, std::string_view name = {}) {
  return detail::build_training_op(
      detail::kApplyAdamOp, detail::kAdamSig, {var.ref(), m.ref(), v.ref()},
      {beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad},
      {{"use_locking", use_locking}, {"use_nesterov", use_nesterov}}, name);
}

// RMSProp's step with mean square ms and momentum mom.
inline Output apply_rms_prop(const RefArg& var, const RefArg& ms, const RefArg& mom,
                             const TensorArg& lr, const TensorArg& rho, const TensorArg& momentum,
                             const TensorArg& epsilon, const TensorArg& grad,
                             bool use_locking = false, std::string_view name = {}) {
  return detail::build_training_op(
      detail::kApplyRMSPropOp, detail::kRMSPropSig, {var.ref(), ms.ref(), mom.ref()},
      {lr, rho, momentum, epsilon, grad}, {{"use_locking", use_locking}}, name);
}

// Centered RMSProp: also keeps the mean gradient mg and divides by its variance.
inline Output apply_centered_rms_prop(const RefArg& var, const RefArg& mg, const RefArg& ms,
                                      const RefArg& mom, const TensorArg& lr, const TensorArg& rho,
                                      const TensorArg& momentum, const TensorArg& epsilon,
                                      const TensorArg& grad, bool use_locking = false,
                                      std::string_view name = {}) {
  return detail::build_training_op(detail::kApplyCenteredRMSPropOp, detail::kCenteredRMSPropSig,
                                   {var.ref(), mg.ref(), ms.ref(), mom.ref()},
                                   {lr, rho, momentum, epsilon, grad},
                                   {{"use_locking", use_locking}}, name);
}

// accum += grad^2; var -= lr * grad / sqrt(accum).
inline Output apply_adagrad(const RefArg& var, const RefArg& accum, const TensorArg& lr,
                            const TensorArg& grad, bool use_locking = false,
                            bool update_slots = true, std::string_view name = {}) {
  return detail::build_training_op(
      detail::kApplyAdagradOp, detail::kAdagradSig, {var.ref(), accum.ref()}, {lr, grad},
      {{"use_locking", use_locking}, {"update_slots", update_slots}}, name);
}

}  // namespace symflow
