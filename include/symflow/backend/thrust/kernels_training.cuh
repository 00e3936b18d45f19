#pragma once
// Thrust kernels: the optimizers' update ops (ApplyGradientDescent, ApplyMomentum,
// ApplyAdam, ApplyRMSProp, ApplyCenteredRMSProp, ApplyAdagrad), float32 and float64.
//
// The executor colocates an update with its variables, so the slots it writes hold
// device values. Each update runs as the CPU kernel does
// (backend/cpu/kernels/training.hpp): the same checks and messages under the slots'
// locks, then the same formulas in the same order of operations, per element in a
// functor, and it stores NEW device buffers in
// the slots, as every write in symflow does (a value read before the update keeps what
// it read: "v/read" shares the old buffer). The functors read the old buffers and write
// the new ones directly, so an update costs one pass over its tensors.
// Scalar hyper-parameters (lr, beta1, ...) are read on the host and passed by value.
//
// Parity: with g++ (Thrust OMP/CPP) the results equal the CPU kernel's bit for bit;
// nvcc may contract a * b + c into an FMA, a difference of an ulp or so per step.

#include <array>
#include <cmath>
#include <cstdint>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "symflow/backend/cpu/kernels/math.hpp"
#include "symflow/backend/cpu/kernels/training.hpp"
#include "symflow/backend/thrust/kernel_util.cuh"
#include "symflow/ops/defs/training.hpp"

namespace symflow::thrust_backend {

namespace training_kernels {

namespace sd = symflow::detail;

// The old (read) and new (written) elements of each reference input, on the device.
template <class T>
struct Refs {
  std::array<const T*, 4> old{};
  std::array<T*, 4> fresh{};
};

// run_training_update of the CPU, on device values: checks, then calls
// launch(refs, scalar, tensor, n), where scalar(i) is scalar input i read on the host
// and tensor(i) the device elements of input i; stores the new buffers; forwards var.
template <class Launch>
void run_update(KernelContext& ctx, const sd::TrainingSignature& s, Launch launch) {
  const sd::TrainingRefs refs_in(ctx, s);
  const std::span<VariableSlot* const> slots = refs_in.all();
  {
    sd::SlotLocks locks(refs_in);
    sd::check_training_inputs(ctx, s, slots);
    const DType dtype = slots[0]->value.dtype();
    visit_dtype(dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_floating_point_v<T>) {
        // A variable's value is a device value here; one set on the host (none of the
        // ops colocated with it makes one) is copied over first.
        std::vector<Value> old, fresh;
        for (VariableSlot* slot : slots) {
          old.push_back(slot->value.on_device() ? slot->value : copy_to_device(slot->value));
          fresh.push_back(empty_device_value(slot->value.dtype(), slot->value.dims()));
        }
        Refs<T> refs;
        for (std::size_t k = 0; k < slots.size(); ++k) {
          refs.old[k] = static_cast<const Value&>(old[k]).device_data<T>();
          refs.fresh[k] = fresh[k].device_data<T>();
        }
        auto scalar = [&](std::size_t i) { return host_vector<T>(ctx.input(i))[0]; };
        auto tensor = [&](std::size_t i) { return ctx.input(i).device_data<T>(); };
        const std::int64_t n = slots[0]->value.size();
        launch(refs, scalar, tensor, n);
        for (std::size_t k = 0; k < slots.size(); ++k) slots[k]->value = std::move(fresh[k]);
      } else {
        sd::unsupported_dtype(ctx, dtype);
      }
    });
  }
  ctx.forward_ref(0, 0);
}

template <class F>
void launch_n(std::int64_t n, const F& f) {
  if (n <= 0) return;
  thrust::for_each(policy(), thrust::counting_iterator<std::int64_t>(0),
                   thrust::counting_iterator<std::int64_t>(n), f);
}

// ---- the updates: the CPU's expressions, on locals loaded from the old buffers ----------

template <class T>
struct GradientDescentUpdate {
  const T* var_in;
  const T* delta;
  T* var_out;
  T alpha;
  SYMFLOW_HD void operator()(std::int64_t i) const {
    T var = var_in[i];
    var -= delta[i] * alpha;
    var_out[i] = var;
  }
};

template <class T>
struct MomentumUpdate {
  const T* var_in;
  const T* accum_in;
  const T* grad;
  T* var_out;
  T* accum_out;
  T lr, momentum;
  bool nesterov;
  SYMFLOW_HD void operator()(std::int64_t i) const {
    T var = var_in[i];
    T accum = accum_in[i];
    accum = accum * momentum + grad[i];
    if (nesterov)
      var -= grad[i] * lr + accum * momentum * lr;
    else
      var -= accum * lr;
    var_out[i] = var;
    accum_out[i] = accum;
  }
};

template <class T>
struct AdamUpdate {
  const T* var_in;
  const T* m_in;
  const T* v_in;
  const T* grad;
  T* var_out;
  T* m_out;
  T* v_out;
  T beta1, beta2, epsilon, alpha;
  bool nesterov;
  SYMFLOW_HD void operator()(std::int64_t i) const {
    const T one(1);
    T var = var_in[i];
    T m = m_in[i];
    T v = v_in[i];
    const T g = grad[i];
    m += (g - m) * (one - beta1);
    v += (g * g - v) * (one - beta2);
    if (nesterov)
      var -= ((g * (one - beta1) + beta1 * m) * alpha) / (std::sqrt(v) + epsilon);
    else
      var -= (m * alpha) / (std::sqrt(v) + epsilon);
    var_out[i] = var;
    m_out[i] = m;
    v_out[i] = v;
  }
};

// RMSProp, and with Centered its centered variant, which also keeps the mean gradient mg
// and divides by the variance estimate ms - mg^2 rather than by ms.
template <class T, bool Centered>
struct RMSPropUpdate {
  const T* var_in;
  const T* mg_in;  // (Centered only)
  const T* ms_in;
  const T* mom_in;
  const T* grad;
  T* var_out;
  T* mg_out;  // (Centered only)
  T* ms_out;
  T* mom_out;
  T lr, momentum, epsilon, one_minus_rho;
  SYMFLOW_HD void operator()(std::int64_t i) const {
    T var = var_in[i];
    T ms = ms_in[i];
    T mom = mom_in[i];
    const T g = grad[i];
    ms += (g * g - ms) * one_minus_rho;
    T denom = ms;
    if constexpr (Centered) {
      T mg = mg_in[i];
      mg += (g - mg) * one_minus_rho;
      mg_out[i] = mg;
      denom = ms - mg * mg;
    }
    mom = mom * momentum + (g * lr) / std::sqrt(denom + epsilon);
    var -= mom;
    var_out[i] = var;
    ms_out[i] = ms;
    mom_out[i] = mom;
  }
};

template <class T>
struct AdagradUpdate {
  const T* var_in;
  const T* accum_in;
  const T* grad;
  T* var_out;
  T* accum_out;
  T lr;
  bool update_slots;
  SYMFLOW_HD void operator()(std::int64_t i) const {
    T var = var_in[i];
    T accum = accum_in[i];
    const T g = grad[i];
    if (update_slots) accum += g * g;
    var -= g * lr * (T(1) / std::sqrt(accum));
    var_out[i] = var;
    accum_out[i] = accum;
  }
};

// ---- kernels ----------------------------------------------------------------------------

// (Named launchers rather than lambdas: each instantiates its functor for one T.)
struct LaunchGradientDescent {
  template <class T, class Scalar, class Tensor>
  void operator()(Refs<T>& r, Scalar scalar, Tensor tensor, std::int64_t n) const {
    launch_n(n, GradientDescentUpdate<T>{r.old[0], tensor(2), r.fresh[0], scalar(1)});
  }
};

inline void apply_gradient_descent_kernel(KernelContext& ctx) {
  run_update(ctx, sd::kGradientDescentSig, LaunchGradientDescent{});
}

struct LaunchMomentum {
  bool nesterov;
  template <class T, class Scalar, class Tensor>
  void operator()(Refs<T>& r, Scalar scalar, Tensor tensor, std::int64_t n) const {
    const T lr = scalar(2), momentum = scalar(4);
    launch_n(n, MomentumUpdate<T>{r.old[0], r.old[1], tensor(3), r.fresh[0], r.fresh[1], lr,
                                  momentum, nesterov});
  }
};

inline void apply_momentum_kernel(KernelContext& ctx) {
  run_update(ctx, sd::kMomentumSig, LaunchMomentum{ctx.attr<bool>("use_nesterov")});
}

struct LaunchAdam {
  bool nesterov;
  template <class T, class Scalar, class Tensor>
  void operator()(Refs<T>& r, Scalar scalar, Tensor tensor, std::int64_t n) const {
    const T beta1_power = scalar(3), beta2_power = scalar(4), lr = scalar(5);
    const T beta1 = scalar(6), beta2 = scalar(7), epsilon = scalar(8);
    const T one(1);
    const T alpha = lr * std::sqrt(one - beta2_power) / (one - beta1_power);  // on the host
    launch_n(n, AdamUpdate<T>{r.old[0], r.old[1], r.old[2], tensor(9), r.fresh[0], r.fresh[1],
                              r.fresh[2], beta1, beta2, epsilon, alpha, nesterov});
  }
};

inline void apply_adam_kernel(KernelContext& ctx) {
  run_update(ctx, sd::kAdamSig, LaunchAdam{ctx.attr<bool>("use_nesterov")});
}

// ApplyRMSProp's inputs are (var, ms, mom, lr, rho, momentum, epsilon, grad);
// ApplyCenteredRMSProp's have mg after var, so every later one is one further on.
template <bool Centered>
struct LaunchRMSProp {
  template <class T, class Scalar, class Tensor>
  void operator()(Refs<T>& r, Scalar scalar, Tensor tensor, std::int64_t n) const {
    constexpr std::size_t k = Centered ? 1 : 0;
    const T lr = scalar(3 + k), rho = scalar(4 + k), momentum = scalar(5 + k);
    const T epsilon = scalar(6 + k);
    launch_n(n, RMSPropUpdate<T, Centered>{r.old[0], Centered ? r.old[1] : nullptr, r.old[1 + k],
                                           r.old[2 + k], tensor(7 + k), r.fresh[0],
                                           Centered ? r.fresh[1] : nullptr, r.fresh[1 + k],
                                           r.fresh[2 + k], lr, momentum, epsilon, T(1) - rho});
  }
};

inline void apply_rms_prop_kernel(KernelContext& ctx) {
  run_update(ctx, sd::kRMSPropSig, LaunchRMSProp<false>{});
}

inline void apply_centered_rms_prop_kernel(KernelContext& ctx) {
  run_update(ctx, sd::kCenteredRMSPropSig, LaunchRMSProp<true>{});
}

struct LaunchAdagrad {
  bool update_slots;
  template <class T, class Scalar, class Tensor>
  void operator()(Refs<T>& r, Scalar scalar, Tensor tensor, std::int64_t n) const {
    launch_n(n, AdagradUpdate<T>{r.old[0], r.old[1], tensor(3), r.fresh[0], r.fresh[1], scalar(2),
                                 update_slots});
  }
};

inline void apply_adagrad_kernel(KernelContext& ctx) {
  run_update(ctx, sd::kAdagradSig, LaunchAdagrad{ctx.attr<bool>("update_slots")});
}

}  // namespace training_kernels

inline constexpr auto kTrainingKernels = std::to_array<KernelEntry>({
    {&symflow::detail::kApplyGradientDescentOp, training_kernels::apply_gradient_descent_kernel},
    {&symflow::detail::kApplyMomentumOp, training_kernels::apply_momentum_kernel},
    {&symflow::detail::kApplyAdamOp, training_kernels::apply_adam_kernel},
    {&symflow::detail::kApplyRMSPropOp, training_kernels::apply_rms_prop_kernel},
    {&symflow::detail::kApplyCenteredRMSPropOp, training_kernels::apply_centered_rms_prop_kernel},
    {&symflow::detail::kApplyAdagradOp, training_kernels::apply_adagrad_kernel},
});

}  // namespace symflow::thrust_backend
