#pragma once
// The description of the optimizers' update ops (ApplyGradientDescent, ApplyMomentum,
// ApplyAdam, ApplyRMSProp, ApplyCenteredRMSProp, ApplyAdagrad, and the sparse forms
// SparseApplyMomentum, SparseApplyAdagrad, SparseApplyRMSProp, SparseApplyCenteredRMSProp,
// which update only the rows of var that `indices` names): each one's signature,
// shape function and OpDef, with the update formulas of TensorFlow's training_ops
// kernels (backend/cpu/kernels/training.hpp runs them). Each writes a variable and its
// slots in place through reference inputs and outputs the variable's reference.
// float32 and float64.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "symflow/core/errors.hpp"
#include "symflow/core/shape.hpp"
#include "symflow/ops/defs/op_def.hpp"
#include "symflow/ops/defs/shape_fn.hpp"

namespace symflow::detail {

// ---- shape functions ------------------------------------------------------------

inline void require_training_ref(const InferContext& c, std::string_view op, std::size_t i,
                                 std::string_view param) {
  if (!c.inputs[i].is_ref)
    throw TypeError("'" + std::string(op) + "' Op requires that input '" + std::string(param) +
                    "' be a mutable tensor (e.g.: a tf.Variable)");
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
      require_rank(c.shape(i), 0);
    else
      shape = merge_shapes(shape, c.shape(i));
  }
  return {{c.dtype(0), shape, true}};
}

// ---- ApplyGradientDescent: var -= alpha * delta --------------------------------------
inline constexpr TrainingSignature kGradientDescentSig{
    "ApplyGradientDescent", {"var", "alpha", "delta"}, 1, 0b10};

inline std::vector<TensorSpec> infer_apply_gradient_descent(const InferContext& c) {
  return infer_training(c, kGradientDescentSig);
}

SYMFLOW_OP_DEF(kApplyGradientDescentOp, OpDef{.type = "ApplyGradientDescent",
                                              .num_inputs = 3,
                                              .infer = infer_apply_gradient_descent,
                                              .stateful = true,
                                              .ref_inputs = 0b1});

// ---- ApplyMomentum --------------------------------------------------------------------
//   accum = accum * momentum + grad
//   var -= accum * lr                                  (use_nesterov: grad * lr + accum * momentum
//   * lr)
inline constexpr TrainingSignature kMomentumSig{
    "ApplyMomentum", {"var", "accum", "lr", "grad", "momentum"}, 2, 0b10100};

inline std::vector<TensorSpec> infer_apply_momentum(const InferContext& c) {
  return infer_training(c, kMomentumSig);
}

SYMFLOW_OP_DEF(kApplyMomentumOp, OpDef{.type = "ApplyMomentum",
                                       .num_inputs = 5,
                                       .infer = infer_apply_momentum,
                                       .stateful = true,
                                       .ref_inputs = 0b11});

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

SYMFLOW_OP_DEF(kApplyAdamOp, OpDef{.type = "ApplyAdam",
                                   .num_inputs = 10,
                                   .infer = infer_apply_adam,
                                   .stateful = true,
                                   .ref_inputs = 0b111});

// ---- ApplyRMSProp -------------------------------------------------------------------
//   ms += (grad^2 - ms) * (1 - rho)
//   mom = mom * momentum + grad * lr / sqrt(ms + epsilon)
//   var -= mom
inline constexpr TrainingSignature kRMSPropSig{
    "ApplyRMSProp", {"var", "ms", "mom", "lr", "rho", "momentum", "epsilon", "grad"}, 3, 0b1111000};

inline std::vector<TensorSpec> infer_apply_rms_prop(const InferContext& c) {
  return infer_training(c, kRMSPropSig);
}

SYMFLOW_OP_DEF(kApplyRMSPropOp, OpDef{.type = "ApplyRMSProp",
                                      .num_inputs = 8,
                                      .infer = infer_apply_rms_prop,
                                      .stateful = true,
                                      .ref_inputs = 0b111});

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

SYMFLOW_OP_DEF(kApplyCenteredRMSPropOp, OpDef{.type = "ApplyCenteredRMSProp",
                                              .num_inputs = 9,
                                              .infer = infer_apply_centered_rms_prop,
                                              .stateful = true,
                                              .ref_inputs = 0b1111});

// ---- ApplyAdagrad -------------------------------------------------------------------
//   accum += grad^2   (when update_slots)
//   var -= grad * lr / sqrt(accum)
inline constexpr TrainingSignature kAdagradSig{
    "ApplyAdagrad", {"var", "accum", "lr", "grad"}, 2, 0b100};

inline std::vector<TensorSpec> infer_apply_adagrad(const InferContext& c) {
  return infer_training(c, kAdagradSig);
}

SYMFLOW_OP_DEF(kApplyAdagradOp, OpDef{.type = "ApplyAdagrad",
                                      .num_inputs = 4,
                                      .infer = infer_apply_adagrad,
                                      .stateful = true,
                                      .ref_inputs = 0b11});

// ---- the sparse updates -----------------------------------------------------------
// The same steps applied to the rows `indices` of var and its slots, row i of grad to row
// indices[i]: grad is [len(indices)] + var.shape[1:]. The optimizers remove duplicate
// indices first (summing their rows), as a repeated index is applied twice. CPU only,
// as in TensorFlow (no GPU kernel yet).

// Where the sparse signature keeps grad and indices (indices right after grad).
inline std::size_t sparse_grad_index(const TrainingSignature& s) {
  for (std::size_t i = 0; i < s.num_inputs(); ++i)
    if (s.input(i) == "grad") return i;
  throw InternalError("No grad input in " + std::string(s.type));
}

inline std::vector<TensorSpec> infer_sparse_training(const InferContext& c,
                                                     const TrainingSignature& s) {
  const std::size_t grad_i = sparse_grad_index(s);
  const std::size_t indices_i = grad_i + 1;
  for (std::size_t i = 0; i < s.num_refs; ++i) require_training_ref(c, s.type, i, s.input(i));
  for (std::size_t i = 1; i < s.num_inputs(); ++i)
    if (i != indices_i && c.dtype(i) != c.dtype(0))
      throw TypeError("Input '" + std::string(s.input(i)) + "' of '" + std::string(s.type) +
                      "' Op has type " + std::string(dtype_name(c.dtype(i))) +
                      " that does not match type " + std::string(dtype_name(c.dtype(0))) +
                      " of argument 'var'.");
  check_allowed(c, 0, "var", accepts_training_dtype);
  check_allowed(c, indices_i, "indices",
                [](DType d) { return d == DType::int32 || d == DType::int64; });
  Shape shape = c.shape(0);
  for (std::size_t i = 1; i < s.num_inputs(); ++i) {
    if (s.is_scalar(i))
      require_rank(c.shape(i), 0);
    else if (i < s.num_refs)
      shape = merge_shapes(shape, c.shape(i));
  }
  // indices is a vector as long as grad's first dimension; grad's other dimensions are
  // var's.
  const Shape& indices = c.shape(indices_i);
  const Shape& grad = c.shape(grad_i);
  require_rank(indices, 1);
  if (grad.has_rank()) {
    require_rank_at_least(grad, 1);
    if (indices.has_rank()) merge_shapes(Shape({indices.dims()[0]}), Shape({grad.dims()[0]}));
    Dims rows = grad.dims();
    rows[0] = -1;
    shape = merge_shapes(shape, Shape(rows));
  }
  return {{c.dtype(0), shape, true}};
}

//   accum[i] = accum[i] * momentum + grad;  var[i] -= accum[i] * lr  (or the Nesterov step)
inline constexpr TrainingSignature kSparseMomentumSig{
    "SparseApplyMomentum", {"var", "accum", "lr", "grad", "indices", "momentum"}, 2, 0b100100};

inline std::vector<TensorSpec> infer_sparse_apply_momentum(const InferContext& c) {
  return infer_sparse_training(c, kSparseMomentumSig);
}

SYMFLOW_OP_DEF(kSparseApplyMomentumOp, OpDef{.type = "SparseApplyMomentum",
                                             .num_inputs = 6,
                                             .infer = infer_sparse_apply_momentum,
                                             .stateful = true,
                                             .ref_inputs = 0b11,
                                             .host_only = true});

//   accum[i] += grad^2 (when update_slots);  var[i] -= lr * grad / sqrt(accum[i])
inline constexpr TrainingSignature kSparseAdagradSig{
    "SparseApplyAdagrad", {"var", "accum", "lr", "grad", "indices"}, 2, 0b100};

inline std::vector<TensorSpec> infer_sparse_apply_adagrad(const InferContext& c) {
  return infer_sparse_training(c, kSparseAdagradSig);
}

SYMFLOW_OP_DEF(kSparseApplyAdagradOp, OpDef{.type = "SparseApplyAdagrad",
                                            .num_inputs = 5,
                                            .infer = infer_sparse_apply_adagrad,
                                            .stateful = true,
                                            .ref_inputs = 0b11,
                                            .host_only = true});

//   ms[i] = ms[i] * rho + grad^2 * (1 - rho)
//   mom[i] = mom[i] * momentum + lr * grad / sqrt(ms[i] + epsilon);  var[i] -= mom[i]
inline constexpr TrainingSignature kSparseRMSPropSig{
    "SparseApplyRMSProp",
    {"var", "ms", "mom", "lr", "rho", "momentum", "epsilon", "grad", "indices"},
    3,
    0b1111000};

inline std::vector<TensorSpec> infer_sparse_apply_rms_prop(const InferContext& c) {
  return infer_sparse_training(c, kSparseRMSPropSig);
}

SYMFLOW_OP_DEF(kSparseApplyRMSPropOp, OpDef{.type = "SparseApplyRMSProp",
                                            .num_inputs = 9,
                                            .infer = infer_sparse_apply_rms_prop,
                                            .stateful = true,
                                            .ref_inputs = 0b111,
                                            .host_only = true});

//   as SparseApplyRMSProp, also mg[i] = mg[i] * rho + grad * (1 - rho), and the square root
//   of ms[i] - mg[i]^2 + epsilon
inline constexpr TrainingSignature kSparseCenteredRMSPropSig{
    "SparseApplyCenteredRMSProp",
    {"var", "mg", "ms", "mom", "lr", "rho", "momentum", "epsilon", "grad", "indices"},
    4,
    0b11110000};

inline std::vector<TensorSpec> infer_sparse_apply_centered_rms_prop(const InferContext& c) {
  return infer_sparse_training(c, kSparseCenteredRMSPropSig);
}

SYMFLOW_OP_DEF(kSparseApplyCenteredRMSPropOp, OpDef{.type = "SparseApplyCenteredRMSProp",
                                                    .num_inputs = 10,
                                                    .infer = infer_sparse_apply_centered_rms_prop,
                                                    .stateful = true,
                                                    .ref_inputs = 0b1111,
                                                    .host_only = true});

}  // namespace symflow::detail
