#pragma once
// The optimizers' update ops (ApplyGradientDescent, ApplyMomentum, ApplyAdam,
// ApplyRMSProp, ApplyCenteredRMSProp, ApplyAdagrad, and the sparse ones SparseApplyMomentum,
// SparseApplyAdagrad, SparseApplyRMSProp, SparseApplyCenteredRMSProp), the graph-building side: the
// functions that build them and their registry entries. The ops are described in
// ops/defs/training.hpp; each writes a variable and its slots in place through
// reference inputs and outputs the variable's reference.

#include <array>
#include <concepts>
#include <string_view>
#include <utility>
#include <vector>

#include "symflow/ops/defs/training.hpp"
#include "symflow/ops/grad_context.hpp"
#include "symflow/ops/op_builder.hpp"
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
  for (std::size_t k = 0; k < args.size(); ++k) {
    const std::string_view arg_name = s.input(refs.size() + k);
    inputs.push_back(args[k].resolve(b, arg_name, arg_name == "indices" ? DType::invalid : dtype));
  }
  attrs.emplace("T", dtype);
  // A sparse update's indices (the input after grad) set its Tindices.
  for (std::size_t k = 0; k + 1 < inputs.size(); ++k)
    if (s.input(k) == "grad" && s.input(k + 1) == "indices")
      attrs.emplace("Tindices", inputs[k + 1].dtype());
  return b.build(def, inputs, std::move(attrs)).output(0);
}

inline constexpr auto kTrainingOpEntries = std::to_array<OpEntry>({
    {&kApplyGradientDescentOp, nullptr},
    {&kApplyMomentumOp, nullptr},
    {&kApplyAdamOp, nullptr},
    {&kApplyRMSPropOp, nullptr},
    {&kApplyCenteredRMSPropOp, nullptr},
    {&kApplyAdagradOp, nullptr},
    {&kSparseApplyMomentumOp, nullptr},
    {&kSparseApplyAdagradOp, nullptr},
    {&kSparseApplyRMSPropOp, nullptr},
    {&kSparseApplyCenteredRMSPropOp, nullptr},
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

// The sparse updates: the same steps on the rows `indices` of var and its slots, row i
// of grad going to row indices[i] (a repeated index is applied once per occurrence).

inline Output sparse_apply_momentum(const RefArg& var, const RefArg& accum, const TensorArg& lr,
                                    const TensorArg& grad, const TensorArg& indices,
                                    const TensorArg& momentum, bool use_locking = false,
                                    bool use_nesterov = false, std::string_view name = {}) {
  return detail::build_training_op(detail::kSparseApplyMomentumOp, detail::kSparseMomentumSig,
                                   {var.ref(), accum.ref()}, {lr, grad, indices, momentum},
                                   {{"use_locking", use_locking}, {"use_nesterov", use_nesterov}},
                                   name);
}

inline Output sparse_apply_adagrad(const RefArg& var, const RefArg& accum, const TensorArg& lr,
                                   const TensorArg& grad, const TensorArg& indices,
                                   bool use_locking = false, bool update_slots = true,
                                   std::string_view name = {}) {
  return detail::build_training_op(
      detail::kSparseApplyAdagradOp, detail::kSparseAdagradSig, {var.ref(), accum.ref()},
      {lr, grad, indices}, {{"use_locking", use_locking}, {"update_slots", update_slots}}, name);
}

inline Output sparse_apply_rms_prop(const RefArg& var, const RefArg& ms, const RefArg& mom,
                                    const TensorArg& lr, const TensorArg& rho,
                                    const TensorArg& momentum, const TensorArg& epsilon,
                                    const TensorArg& grad, const TensorArg& indices,
                                    bool use_locking = false, std::string_view name = {}) {
  return detail::build_training_op(
      detail::kSparseApplyRMSPropOp, detail::kSparseRMSPropSig, {var.ref(), ms.ref(), mom.ref()},
      {lr, rho, momentum, epsilon, grad, indices}, {{"use_locking", use_locking}}, name);
}

inline Output sparse_apply_centered_rms_prop(const RefArg& var, const RefArg& mg, const RefArg& ms,
                                             const RefArg& mom, const TensorArg& lr,
                                             const TensorArg& rho, const TensorArg& momentum,
                                             const TensorArg& epsilon, const TensorArg& grad,
                                             const TensorArg& indices, bool use_locking = false,
                                             std::string_view name = {}) {
  return detail::build_training_op(
      detail::kSparseApplyCenteredRMSPropOp, detail::kSparseCenteredRMSPropSig,
      {var.ref(), mg.ref(), ms.ref(), mom.ref()}, {lr, rho, momentum, epsilon, grad, indices},
      {{"use_locking", use_locking}}, name);
}

}  // namespace symflow
