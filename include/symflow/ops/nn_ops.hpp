#pragma once
// symflow::nn: the functions that build the neural-network ops that are one node each
// (activations and their "XxxGrad" ops, softmax, log-softmax, the cross-entropy ops,
// L2Loss, BiasAdd), and the small elementwise ops the composite functions of nn_impl.hpp
// are built from (Floor, Log1p, Rsqrt, Reciprocal, SquaredDifference). The ops'
// descriptions are in ops/defs/nn.hpp, their CPU kernels in backend/cpu/kernels/nn.hpp.

#include <string>
#include <string_view>

#include "symflow/ops/defs/nn.hpp"
#include "symflow/ops/math_ops.hpp"
#include "symflow/ops/op_builder.hpp"

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

// tf.nn.bias_add(value, bias, data_format="NHWC"): value + bias along the last axis.
// A bias of another dtype is a ValueError, as TensorFlow's conversion of it.
inline Output bias_add(const Output& value, const Output& bias, std::string_view name = {}) {
  if (bias.dtype() != value.dtype())
    throw ValueError("bias: Tensor conversion requested dtype " +
                     std::string(dtype_name(value.dtype())) + " for Tensor with dtype " +
                     std::string(dtype_name(bias.dtype())) + ": " + to_string(bias));
  detail::OpBuilder b(graph_of({value, bias}), name, "BiasAdd");
  return b
      .build(detail::kBiasAddOp, {value, bias},
             {{"T", value.dtype()}, {"data_format", std::string("NHWC")}})
      .output(0);
}
template <Element T>
Tensor<T> bias_add(const Tensor<T>& value, const Tensor<T>& bias, std::string_view name = {}) {
  return Tensor<T>(bias_add(Output(value), Output(bias), name));
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
inline Output bias_add_grad(const Output& out_backprop, std::string_view name = {}) {
  OpBuilder b(graph_of({out_backprop}), name, "BiasAddGrad");
  return b
      .build(kBiasAddGradOp, {out_backprop},
             {{"T", out_backprop.dtype()}, {"data_format", std::string("NHWC")}})
      .output(0);
}

}  // namespace detail
}  // namespace symflow
