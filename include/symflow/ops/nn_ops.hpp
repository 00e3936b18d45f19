#pragma once
// symflow::nn: the functions that build the neural-network ops that are one node each
// (activations and their "XxxGrad" ops, softmax, log-softmax, the cross-entropy ops,
// L2Loss, BiasAdd, TopKV2, InTopKV2), the small elementwise ops the composite functions
// of nn_impl.hpp are built from (Floor, Log1p, Rsqrt, Reciprocal, SquaredDifference), and
// the fused batch normalisation ops as tf.raw_ops builds them (FusedBatchNorm, V2, V3
// and their gradient ops; tf.compat.v1.nn.fused_batch_norm is in nn_impl.hpp). The ops'
// descriptions are in ops/defs/nn.hpp, their CPU kernels in backend/cpu/kernels/nn.hpp.

#include <array>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "symflow/ops/defs/nn.hpp"
#include "symflow/ops/math_ops.hpp"
#include "symflow/ops/op_builder.hpp"
#include "symflow/ops/tensor_arg.hpp"

namespace symflow {

// ---- the functions ------------------------------------------------------------------------

#define SYMFLOW_NN_UNARY_FUNCTION(fn, op_def, default_name)         \
  inline Output fn(const Output& x, std::string_view name = {}) {   \
    return detail::unary(op_def, x, name, default_name);            \
  }                                                                 \
  template <Element T>                                              \
  Tensor<T> fn(const Tensor<T>& x, std::string_view name = {}) {    \
    return Tensor<T>(detail::unary(op_def, x, name, default_name)); \
  }

// tf.sigmoid, tf.tanh, tf.floor, tf.log1p, tf.rsqrt, tf.reciprocal.
SYMFLOW_NN_UNARY_FUNCTION(sigmoid, detail::kSigmoidOp, "Sigmoid")
SYMFLOW_NN_UNARY_FUNCTION(tanh, detail::kTanhOp, "Tanh")
SYMFLOW_NN_UNARY_FUNCTION(floor, detail::kFloorOp, "Floor")
SYMFLOW_NN_UNARY_FUNCTION(log1p, detail::kLog1pOp, "Log1p")
SYMFLOW_NN_UNARY_FUNCTION(rsqrt, detail::kRsqrtOp, "Rsqrt")
SYMFLOW_NN_UNARY_FUNCTION(reciprocal, detail::kReciprocalOp, "Reciprocal")

// tf.squared_difference(x, y): (x - y)^2 with broadcasting.
inline Output squared_difference(const Output& x, const Output& y, std::string_view name = {}) {
  return detail::binary(detail::kSquaredDifferenceOp, x, y, name, "SquaredDifference");
}
template <Element T>
Tensor<T> squared_difference(const Tensor<T>& x, const Tensor<T>& y, std::string_view name = {}) {
  return Tensor<T>(squared_difference(Output(x), Output(y), name));
}

namespace nn {

// tf.nn.relu, tf.nn.relu6, tf.nn.elu, tf.nn.sigmoid, tf.nn.tanh.
SYMFLOW_NN_UNARY_FUNCTION(relu, detail::kReluOp, "Relu")
SYMFLOW_NN_UNARY_FUNCTION(relu6, detail::kRelu6Op, "Relu6")
SYMFLOW_NN_UNARY_FUNCTION(elu, detail::kEluOp, "Elu")
using symflow::sigmoid;
using symflow::tanh;

// tf.nn.softmax(logits) and tf.nn.log_softmax(logits): over the last axis.
SYMFLOW_NN_UNARY_FUNCTION(softmax, detail::kSoftmaxOp, "Softmax")
SYMFLOW_NN_UNARY_FUNCTION(log_softmax, detail::kLogSoftmaxOp, "LogSoftmax")

// tf.nn.l2_loss(t): sum(t ** 2) / 2, a scalar.
SYMFLOW_NN_UNARY_FUNCTION(l2_loss, detail::kL2LossOp, "L2Loss")

// tf.nn.leaky_relu(features, alpha=0.2). Integer features are cast to float32 first, as
// TensorFlow does. The attr holds alpha rounded to float, as TensorFlow's float attrs.
inline Output leaky_relu(const Output& features, double alpha = 0.2, std::string_view name = {}) {
  detail::OpBuilder b(graph_of({features}), name, "LeakyRelu");
  Output x = features;
  if (x.dtype() == DType::int32 || x.dtype() == DType::int64 || x.dtype() == DType::uint8)
    x = cast(x, DType::float32);
  return b
      .build(detail::kLeakyReluOp, {x},
             {{"T", x.dtype()}, {"alpha", static_cast<double>(static_cast<float>(alpha))}})
      .output(0);
}
template <std::floating_point T>
Tensor<T> leaky_relu(const Tensor<T>& features, double alpha = 0.2, std::string_view name = {}) {
  return Tensor<T>(leaky_relu(Output(features), alpha, name));
}

// tf.nn.bias_add's keyword arguments.
struct BiasAddOptions {
  std::string_view data_format = "NHWC";  // "NCHW": the bias runs along axis 1
  std::string_view name = {};
};

// tf.nn.bias_add(value, bias, data_format="NHWC"): value + bias along the last axis (NCHW:
// along axis 1, for a value of rank 3 or more). A bias of another dtype is a ValueError, as
// TensorFlow's conversion of it.
inline Output bias_add(const Output& value, const Output& bias, const BiasAddOptions& options) {
  if (bias.dtype() != value.dtype())
    throw ValueError("bias: Tensor conversion requested dtype " +
                     std::string(dtype_name(value.dtype())) + " for Tensor with dtype " +
                     std::string(dtype_name(bias.dtype())) + ": " + to_string(bias));
  detail::OpBuilder b(graph_of({value, bias}), options.name, "BiasAdd");
  detail::bias_nchw("BiasAdd", std::string(options.data_format));
  return b
      .build(detail::kBiasAddOp, {value, bias},
             {{"T", value.dtype()}, {"data_format", std::string(options.data_format)}})
      .output(0);
}
inline Output bias_add(const Output& value, const Output& bias, std::string_view name = {}) {
  return bias_add(value, bias, BiasAddOptions{.name = name});
}
template <Element T>
Tensor<T> bias_add(const Tensor<T>& value, const Tensor<T>& bias, std::string_view name = {}) {
  return Tensor<T>(bias_add(Output(value), Output(bias), name));
}
template <Element T>
Tensor<T> bias_add(const Tensor<T>& value, const Tensor<T>& bias, const BiasAddOptions& options) {
  return Tensor<T>(bias_add(Output(value), Output(bias), options));
}

// tf.nn.top_k's two outputs.
struct TopKResult {
  Output values;   // the k largest entries of each row, of the input's dtype
  Output indices;  // their positions along the last axis, int32
};

// tf.nn.top_k(input, k=1, sorted=True): the k largest entries along the last axis, as one
// TopKV2 node (k an int32 scalar, a Const "TopKV2/k" when given as a number). Equal
// entries come lower index first. With sorted false the entries are the same, in
// TensorFlow's heap order. k outside [0, n] is a ValueError when k and n are known, an
// InvalidArgumentError when it runs otherwise.
inline TopKResult top_k(const Output& input, const TensorArg& k = 1, bool sorted = true,
                        std::string_view name = {}) {
  detail::OpBuilder b(graph_of({input}), name, "TopKV2");
  const Output k_tensor = k.resolve(b, "k");
  const Operation op = b.build(detail::kTopKV2Op, {input, k_tensor},
                               {{"T", input.dtype()},
                                {"Tk", k_tensor.dtype()},
                                {"sorted", sorted},
                                {"index_type", DType::int32}});
  return {op.output(0), op.output(1)};
}

// tf.nn.in_top_k(predictions, targets, k): for each row of the float32 predictions
// [batch, classes], whether the class targets[i] (int32 or int64) is among the k
// largest, ties counting for it; false for a target out of range or a row with a
// non-finite prediction. One InTopKV2 node "in_top_k/InTopKV2" (`name`: "name/name");
// k is converted to the targets' dtype. Not differentiable.
inline Output in_top_k(const Output& predictions, const Output& targets, const TensorArg& k,
                       std::string_view name = {}) {
  const Graph g = graph_of({predictions, targets});
  name_scope scope(g, name.empty() ? "in_top_k" : name);
  detail::OpBuilder b(g, name, "InTopKV2");
  const bool index_targets = targets.dtype() == DType::int32 || targets.dtype() == DType::int64;
  const Output k_tensor = k.resolve(b, "k", index_targets ? targets.dtype() : DType::invalid);
  return b.build(detail::kInTopKV2Op, {predictions, targets, k_tensor}, {{"T", targets.dtype()}})
      .output(0);
}

}  // namespace nn

#undef SYMFLOW_NN_UNARY_FUNCTION

namespace detail {

// Builders of the gradient ops (TensorFlow's gen_nn_ops / gen_math_ops wrappers), used by
// the gradient functions in nn_grad.hpp.
inline Output grad_op(const OpDef& def, const Output& a, const Output& b,
                      std::string_view name = {}) {
  return binary(def, a, b, name, def.type);
}
inline Output leaky_relu_grad(const Output& gradients, const Output& features, double alpha,
                              std::string_view name = {}) {
  OpBuilder b(graph_of({gradients, features}), name, "LeakyReluGrad");
  return b
      .build(kLeakyReluGradOp, {gradients, features},
             {{"T", gradients.dtype()}, {"alpha", static_cast<double>(static_cast<float>(alpha))}})
      .output(0);
}
inline Output bias_add_grad(const Output& out_backprop, std::string_view name = {},
                            std::string_view data_format = "NHWC") {
  OpBuilder b(graph_of({out_backprop}), name, "BiasAddGrad");
  return b
      .build(kBiasAddGradOp, {out_backprop},
             {{"T", out_backprop.dtype()}, {"data_format", std::string(data_format)}})
      .output(0);
}

}  // namespace detail

// ---- FusedBatchNorm, V2, V3 and their gradient ops ----------------------------------------

namespace raw_ops {

// The attrs of tf.raw_ops.FusedBatchNorm, FusedBatchNormV2 and FusedBatchNormV3, at the
// ops' defaults. data_format is "NHWC" or "NCHW", and for V3 also "NDHWC" or "NCDHW"
// (5-D x).
struct FusedBatchNormAttrs {
  double epsilon = 1e-4;
  double exponential_avg_factor = 1.0;
  std::string_view data_format = "NHWC";
  bool is_training = true;
  std::string_view name = {};
};

// The forward ops' outputs. In training, batch_mean and batch_variance are the batch's
// moments (the variance Bessel-corrected), blended into the given mean and variance when
// exponential_avg_factor != 1; reserve_space_1 and reserve_space_2 are the batch mean and
// biased variance the gradient reads. In inference all four are the given mean and
// variance. reserve_space_3 is V3's only (a zero scalar on the CPU; invalid for V1, V2).
struct FusedBatchNormOutputs {
  Output y, batch_mean, batch_variance, reserve_space_1, reserve_space_2, reserve_space_3;
};

// The attrs of tf.raw_ops.FusedBatchNormGrad, V2 and V3, at the ops' defaults.
struct FusedBatchNormGradAttrs {
  double epsilon = 1e-4;
  std::string_view data_format = "NHWC";
  bool is_training = true;
  std::string_view name = {};
};

// The gradient ops' outputs: the gradients of x, scale and offset, and two outputs that
// hold nothing (empty vectors): TensorFlow's reserve_space_3 and _4 (V1, V2), or _4 and
// _5 (V3).
struct FusedBatchNormGradOutputs {
  Output x_backprop, scale_backprop, offset_backprop;
  std::array<Output, 2> reserve_spaces;
};

}  // namespace raw_ops

namespace detail::batch_norm {

// Float attrs hold float values, as TensorFlow's.
inline double float_attr(double v) { return static_cast<double>(static_cast<float>(v)); }

// The data_format argument, checked before the node exists (TensorFlow's op_def_library
// rejects it there, with no node in the message).
inline void check_format_arg(const OpVersion& v, std::string_view data_format) {
  if (!format_of(data_format, v.five_d))
    throw ValueError(format_error(v.type, data_format, v.five_d));
}

template <int Version>
raw_ops::FusedBatchNormOutputs build_forward(const OpDef& def, const Output& x, const Output& scale,
                                             const Output& offset, const Output& mean,
                                             const Output& variance,
                                             const raw_ops::FusedBatchNormAttrs& a) {
  const OpVersion& v = kForwardVersions[Version - 1];
  OpBuilder b(graph_of({x, scale, offset, mean, variance}), a.name, v.type);
  check_format_arg(v, a.data_format);
  AttrMap attrs{{"T", x.dtype()},
                {"epsilon", float_attr(a.epsilon)},
                {"exponential_avg_factor", float_attr(a.exponential_avg_factor)},
                {"data_format", std::string(a.data_format)},
                {"is_training", a.is_training}};
  if constexpr (Version > 1) attrs.emplace("U", scale.dtype());
  const Operation op = b.build(def, {x, scale, offset, mean, variance}, std::move(attrs));
  return {op.output(0), op.output(1), op.output(2),
          op.output(3), op.output(4), Version == 3 ? op.output(5) : Output{}};
}

template <int Version>
raw_ops::FusedBatchNormGradOutputs build_grad(const OpDef& def, std::vector<Output> inputs,
                                              const raw_ops::FusedBatchNormGradAttrs& a) {
  const OpVersion& v = kGradVersions[Version - 1];
  OpBuilder b(graph_of(inputs), a.name, v.type);
  check_format_arg(v, a.data_format);
  AttrMap attrs{{"T", inputs[0].dtype()},
                {"epsilon", float_attr(a.epsilon)},
                {"data_format", std::string(a.data_format)},
                {"is_training", a.is_training}};
  if constexpr (Version > 1) attrs.emplace("U", inputs[3].dtype());
  const Operation op = b.build(def, inputs, std::move(attrs));
  return {op.output(0), op.output(1), op.output(2), {op.output(3), op.output(4)}};
}

}  // namespace detail::batch_norm

namespace raw_ops {

// tf.raw_ops.FusedBatchNorm(x, scale, offset, mean, variance): float32 only. mean and
// variance are read in inference (is_training false) and when exponential_avg_factor != 1;
// otherwise they may be empty vectors.
inline FusedBatchNormOutputs fused_batch_norm(const Output& x, const Output& scale,
                                              const Output& offset, const Output& mean,
                                              const Output& variance,
                                              const FusedBatchNormAttrs& attrs = {}) {
  return detail::batch_norm::build_forward<1>(detail::kFusedBatchNormOp, x, scale, offset, mean,
                                              variance, attrs);
}
// tf.raw_ops.FusedBatchNormV2: as FusedBatchNorm, with attr U for the vectors' dtype.
inline FusedBatchNormOutputs fused_batch_norm_v2(const Output& x, const Output& scale,
                                                 const Output& offset, const Output& mean,
                                                 const Output& variance,
                                                 const FusedBatchNormAttrs& attrs = {}) {
  return detail::batch_norm::build_forward<2>(detail::kFusedBatchNormV2Op, x, scale, offset, mean,
                                              variance, attrs);
}
// tf.raw_ops.FusedBatchNormV3: as V2, with reserve_space_3 and the 5-D data formats.
inline FusedBatchNormOutputs fused_batch_norm_v3(const Output& x, const Output& scale,
                                                 const Output& offset, const Output& mean,
                                                 const Output& variance,
                                                 const FusedBatchNormAttrs& attrs = {}) {
  return detail::batch_norm::build_forward<3>(detail::kFusedBatchNormV3Op, x, scale, offset, mean,
                                              variance, attrs);
}

// tf.raw_ops.FusedBatchNormGrad(y_backprop, x, scale, reserve_space_1, reserve_space_2):
// the gradients of FusedBatchNorm's y with respect to x, scale and offset, given the
// forward op's reserve spaces (training) or the population mean and variance (inference).
inline FusedBatchNormGradOutputs fused_batch_norm_grad(const Output& y_backprop, const Output& x,
                                                       const Output& scale,
                                                       const Output& reserve_space_1,
                                                       const Output& reserve_space_2,
                                                       const FusedBatchNormGradAttrs& attrs = {}) {
  return detail::batch_norm::build_grad<1>(detail::kFusedBatchNormGradOp,
                                           {y_backprop, x, scale, reserve_space_1, reserve_space_2},
                                           attrs);
}
// tf.raw_ops.FusedBatchNormGradV2: as FusedBatchNormGrad, with attr U.
inline FusedBatchNormGradOutputs fused_batch_norm_grad_v2(
    const Output& y_backprop, const Output& x, const Output& scale, const Output& reserve_space_1,
    const Output& reserve_space_2, const FusedBatchNormGradAttrs& attrs = {}) {
  return detail::batch_norm::build_grad<2>(detail::kFusedBatchNormGradV2Op,
                                           {y_backprop, x, scale, reserve_space_1, reserve_space_2},
                                           attrs);
}
// tf.raw_ops.FusedBatchNormGradV3: as V2, with FusedBatchNormV3's reserve_space_3 (not read
// on the CPU) and the 5-D data formats.
inline FusedBatchNormGradOutputs fused_batch_norm_grad_v3(
    const Output& y_backprop, const Output& x, const Output& scale, const Output& reserve_space_1,
    const Output& reserve_space_2, const Output& reserve_space_3,
    const FusedBatchNormGradAttrs& attrs = {}) {
  return detail::batch_norm::build_grad<3>(
      detail::kFusedBatchNormGradV3Op,
      {y_backprop, x, scale, reserve_space_1, reserve_space_2, reserve_space_3}, attrs);
}

}  // namespace raw_ops

}  // namespace symflow
