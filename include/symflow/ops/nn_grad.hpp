#pragma once
// Gradients of the neural-network ops (nn_ops.hpp), each TensorFlow's nn_grad.py /
// math_grad.py formula. Including this header also brings the composite functions
// (nn_impl.hpp).

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "symflow/ops/grad_context.hpp"
#include "symflow/ops/math_grad.hpp"
#include "symflow/ops/nn_impl.hpp"
#include "symflow/ops/nn_ops.hpp"
#include "symflow/ops/operators.hpp"
#include "symflow/ops/shape_ops.hpp"
#include "symflow/ops/transform_ops.hpp"

namespace symflow::detail {

// ---- activations: the "XxxGrad" op of the op's input or output -----------------------------
inline std::vector<Output> relu_grad(const GradContext& c) {
  return {grad_op(kReluGradOp, c.grad(), c.output(0))};
}
inline std::vector<Output> relu6_grad(const GradContext& c) {
  return {grad_op(kRelu6GradOp, c.grad(), c.input(0))};
}
inline std::vector<Output> leaky_relu_grad_fn(const GradContext& c) {
  return {leaky_relu_grad(c.grad(), c.input(0), c.op.get_attr<double>("alpha"))};
}
inline std::vector<Output> elu_grad(const GradContext& c) {
  return {grad_op(kEluGradOp, c.grad(), c.output(0))};
}
inline std::vector<Output> sigmoid_grad(const GradContext& c) {
  return {grad_op(kSigmoidGradOp, c.output(0), c.grad())};
}
inline std::vector<Output> tanh_grad(const GradContext& c) {
  return {grad_op(kTanhGradOp, c.output(0), c.grad())};
}
inline std::vector<Output> rsqrt_grad(const GradContext& c) {
  return {grad_op(kRsqrtGradOp, c.output(0), c.grad())};
}
inline std::vector<Output> reciprocal_grad(const GradContext& c) {
  return {grad_op(kReciprocalGradOp, c.output(0), c.grad())};
}
// d log1p(x) = g / (1 + x).
inline std::vector<Output> log1p_grad(const GradContext& c) {
  const Output x = c.input(0);
  return {c.grad() * reciprocal(scalar_like(x, 1.0) + x)};
}

// ---- second order: the gradients of the "XxxGrad" ops ------------------------------------
// ReluGrad(g, x) = g * (x > 0): linear in g, piecewise constant in x.
inline std::vector<Output> relu_grad_grad(const GradContext& c) {
  const Output x = c.input(1);
  return {grad_op(kReluGradOp, c.grad(), x), zeros_like(x)};
}
inline std::vector<Output> relu6_grad_grad(const GradContext& c) {
  const Output x = c.input(1);
  return {grad_op(kRelu6GradOp, c.grad(), x), zeros_like(x)};
}
inline std::vector<Output> leaky_relu_grad_grad(const GradContext& c) {
  const Output x = c.input(1);
  return {leaky_relu_grad(c.grad(), x, c.op.get_attr<double>("alpha")), zeros_like(x)};
}
// SigmoidGrad(y, dy) = dy * y * (1 - y).
inline std::vector<Output> sigmoid_grad_grad(const GradContext& c) {
  const Output a = c.input(0), b = c.input(1);
  Output gb = c.grad() * b;
  return {gb - scalar_like(a, 2.0) * gb * a, grad_op(kSigmoidGradOp, a, c.grad())};
}
// TanhGrad(y, dy) = dy * (1 - y^2).
inline std::vector<Output> tanh_grad_grad(const GradContext& c) {
  const Output a = c.input(0), b = c.input(1);
  return {c.grad() * scalar_like(a, -2.0) * b * a, grad_op(kTanhGradOp, a, c.grad())};
}
// RsqrtGrad(y, dy) = -dy * y^3 / 2.
inline std::vector<Output> rsqrt_grad_grad(const GradContext& c) {
  const Output a = c.input(0), b = c.input(1);
  return {scalar_like(a, -1.5) * c.grad() * b * square(a), grad_op(kRsqrtGradOp, a, c.grad())};
}
// ReciprocalGrad(y, dy) = -dy * y^2.
inline std::vector<Output> reciprocal_grad_grad(const GradContext& c) {
  const Output a = c.input(0), b = c.input(1);
  return {c.grad() * scalar_like(a, -2.0) * b * a, grad_op(kReciprocalGradOp, a, c.grad())};
}

// ---- SquaredDifference: 2 (x - y) g, summed back over broadcast axes ----------------------
inline std::vector<Output> squared_difference_grad(const GradContext& c) {
  const Output x = c.input(0), y = c.input(1);
  Output x_grad = (scalar_like(x, 2.0) * c.grad()) * (x - y);
  return {sum_to_shape_of(x_grad, x), negative(sum_to_shape_of(x_grad, y))};
}

// ---- softmax family ------------------------------------------------------------------------
// d softmax: (g - sum(g * s, -1)) * s.
inline std::vector<Output> softmax_grad(const GradContext& c) {
  const Output s = c.output(0);
  Output sum_channels = reduce_sum(c.grad() * s, -1, true);
  return {(c.grad() - sum_channels) * s};
}
// d log_softmax: g - sum(g, -1) * exp(y).
inline std::vector<Output> log_softmax_grad(const GradContext& c) {
  Output softmax = exp(c.output(0));
  return {c.grad() - reduce_sum(c.grad(), -1, true) * softmax};
}

// A gradient the driver filled with zeros (nothing reached that output).
inline bool is_zeros(const Output& grad) { return grad.op().type() == "ZerosLike"; }

// Loss gradient: backprop scaled by the loss's gradient per row; the labels get
// -log_softmax(logits) scaled the same way. When the backprop output (softmax - labels)
// itself is used, as in a second derivative, its gradient gg adds
// (gg - sum(gg * s, -1)) * s to the logits' and -gg to the labels' (TensorFlow leaves
// the labels' term out).
inline std::vector<Output> softmax_xent_grad(const GradContext& c) {
  const Output logits = c.input(0);
  Output logits_grad = expand_dims(c.grad(0), -1) * c.output(1);
  Output labels_grad = expand_dims(c.grad(0), -1) * -nn::log_softmax(logits);
  if (!is_zeros(c.grad(1))) {
    Output softmax = nn::softmax(logits);
    const Output gg = c.grad(1);
    logits_grad = logits_grad + (gg - reduce_sum(gg * softmax, -1, true)) * softmax;
    labels_grad = labels_grad - gg;
  }
  return {logits_grad, labels_grad};
}
// The labels are indices: no gradient. TensorFlow wraps the backprop in PreventGradient
// (no second derivative); symflow uses it as is.
inline std::vector<Output> sparse_softmax_xent_grad(const GradContext& c) {
  return {expand_dims(c.grad(0), -1) * c.output(1), Output{}};
}

// ---- L2Loss, BiasAdd ---------------------------------------------------------------------
inline std::vector<Output> l2_loss_grad(const GradContext& c) { return {c.input(0) * c.grad()}; }

inline std::vector<Output> bias_add_grad_fn(const GradContext& c) {
  // A copy: building nodes may move the graph's node storage.
  const std::string format = c.op.get_attr<std::string>("data_format");
  return {c.grad(), bias_add_grad(c.grad(), {}, format)};
}

// BiasAddGrad sums over all axes but the channels' (the last, or axis 1 for NCHW): its
// gradient repeats g along them.
inline std::vector<Output> bias_add_grad_grad(const GradContext& c) {
  const Output x = c.input(0);
  const Shape& s = x.get_shape();
  if (!s.is_fully_defined())
    throw LookupError("The gradient of BiasAddGrad '" + c.op.name() +
                      "' needs a fully defined input shape");
  const std::size_t axis =
      bias_axis(c.op.get_attr<std::string>("data_format") == "NCHW", s.dims().size());
  Dims ones(s.dims().size(), 1);
  ones[axis] = s.dims()[axis];
  Dims multiples = s.dims();
  multiples[axis] = 1;
  return {tile(reshape(c.grad(), ones), multiples)};
}

// ---- FusedBatchNorm, V2, V3: TensorFlow's _BaseFusedBatchNormGrad --------------------------
// Only y's gradient flows back (TensorFlow ignores those of the batch moments and reserve
// spaces), to x, scale and offset; mean and variance get none. Training reads the forward
// op's reserve spaces; inference (is_training false) the population mean and variance,
// with x and the gradient moved to the channels-last format first and the result moved
// back (Transpose nodes), as TensorFlow builds it: its CPU kernel takes channels-last data
// only in inference (symflow's takes either).
template <int Version>
std::vector<Output> fused_batch_norm_grad_fn(const GradContext& c) {
  const Operation& op = c.op;
  // A copy: the nodes built below may move the op's attrs.
  const std::string format = op.get_attr<std::string>("data_format");
  raw_ops::FusedBatchNormGradAttrs attrs{.epsilon = op.get_attr<double>("epsilon"),
                                         .data_format = format,
                                         .is_training = op.get_attr<bool>("is_training")};
  Output x = c.input(0), grad_y = c.grad(0);
  const Output scale = c.input(1);
  auto build_grad = [&](const Output& reserve_space_1, const Output& reserve_space_2) {
    if constexpr (Version == 1)
      return raw_ops::fused_batch_norm_grad(grad_y, x, scale, reserve_space_1, reserve_space_2,
                                            attrs);
    else if constexpr (Version == 2)
      return raw_ops::fused_batch_norm_grad_v2(grad_y, x, scale, reserve_space_1, reserve_space_2,
                                               attrs);
    else
      return raw_ops::fused_batch_norm_grad_v3(grad_y, x, scale, reserve_space_1, reserve_space_2,
                                               op.output(5), attrs);
  };
  if (attrs.is_training) {
    const raw_ops::FusedBatchNormGradOutputs g = build_grad(op.output(3), op.output(4));
    return {g.x_backprop, g.scale_backprop, g.offset_backprop, Output{}, Output{}};
  }
  const bool nchw = format == "NCHW", ncdhw = format == "NCDHW";
  if (nchw || ncdhw) {
    const Dims to_last = nchw ? Dims{0, 2, 3, 1} : Dims{0, 2, 3, 4, 1};
    x = transpose(x, int32_vector(to_last));
    grad_y = transpose(grad_y, int32_vector(to_last));
  }
  attrs.data_format = format == "NCHW" || format == "NHWC" ? "NHWC" : "NDHWC";
  const raw_ops::FusedBatchNormGradOutputs g = build_grad(c.input(3), c.input(4));
  Output dx = g.x_backprop;
  if (nchw) dx = transpose(dx, int32_vector(Dims{0, 3, 1, 2}));
  if (ncdhw) dx = transpose(dx, int32_vector(Dims{0, 4, 1, 2, 3}));
  return {dx, g.scale_backprop, g.offset_backprop, Output{}, Output{}};
}

// ---- TopKV2: the values' gradient back to the positions they came from ----------------------
// TensorFlow scatters the gradient of each row's k values into a zero row at their
// indices (ScatterNd over the flattened input); symflow sums it in with
// UnsortedSegmentSum, the same thing since a row's indices are distinct. The shapes
// are read in the graph, so the input's may be unknown. k gets no gradient.
inline std::vector<Output> top_k_grad(const GradContext& c) {
  const Output input = c.input(0), indices = c.output(1);
  Graph g = c.graph();
  auto int32_vector_const = [&](std::int32_t v) {
    return make_const(g, int32_vector(Dims{v}), "Const").output(0);
  };
  // The last element of a shape vector, as a scalar.
  auto last_dim = [&](const Output& shape_vector) {
    return strided_slice(shape_vector, int32_vector_const(-1), int32_vector_const(0),
                         int32_vector_const(1), {.end_mask = 1, .shrink_axis_mask = 1});
  };
  const Output in_shape = shape(input);
  const Output k = last_dim(shape(indices));
  const Output rows_2d =
      reshape(indices, stack({make_const(g, Value(std::int32_t{-1}), "Const").output(0), k}));
  const Output in_last_dim = last_dim(in_shape);
  const Output rows = strided_slice(shape(rows_2d), int32_vector_const(0), int32_vector_const(1),
                                    int32_vector_const(1), {.shrink_axis_mask = 1});
  // Each row's indices, offset by the row's start in the flattened input.
  Output row_starts = expand_dims(range(0, rows * in_last_dim, in_last_dim), -1);
  if (indices.dtype() != DType::int32) row_starts = cast(row_starts, indices.dtype());
  const Output flat_indices = reshape(rows_2d + row_starts, Dims{-1});
  const Output flat_grad = reshape(c.grad(0), Dims{-1});
  const Output scattered = unsorted_segment_sum(flat_grad, flat_indices, reduce_prod(in_shape));
  return {reshape(scattered, in_shape), Output{}};
}

inline constexpr auto kNnOpEntries = std::to_array<OpEntry>({
    {&kReluOp, relu_grad},
    {&kRelu6Op, relu6_grad},
    {&kLeakyReluOp, leaky_relu_grad_fn},
    {&kEluOp, elu_grad},
    {&kSigmoidOp, sigmoid_grad},
    {&kTanhOp, tanh_grad},
    {&kFloorOp, not_differentiable},  // TensorFlow's Floor gradient is None
    {&kLog1pOp, log1p_grad},
    {&kRsqrtOp, rsqrt_grad},
    {&kReciprocalOp, reciprocal_grad},
    {&kReluGradOp, relu_grad_grad},
    {&kRelu6GradOp, relu6_grad_grad},
    {&kLeakyReluGradOp, leaky_relu_grad_grad},
    {&kEluGradOp, nullptr},  // TensorFlow's needs Select
    {&kSigmoidGradOp, sigmoid_grad_grad},
    {&kTanhGradOp, tanh_grad_grad},
    {&kRsqrtGradOp, rsqrt_grad_grad},
    {&kReciprocalGradOp, reciprocal_grad_grad},
    {&kSquaredDifferenceOp, squared_difference_grad},
    {&kSoftmaxOp, softmax_grad},
    {&kLogSoftmaxOp, log_softmax_grad},
    {&kSoftmaxCrossEntropyWithLogitsOp, softmax_xent_grad},
    {&kSparseSoftmaxCrossEntropyWithLogitsOp, sparse_softmax_xent_grad},
    {&kL2LossOp, l2_loss_grad},
    {&kBiasAddOp, bias_add_grad_fn},
    {&kBiasAddGradOp, bias_add_grad_grad},
    {&kTopKV2Op, top_k_grad},
    {&kInTopKV2Op, not_differentiable},  // a bool of each row, as TensorFlow's
    {&kFusedBatchNormOp, fused_batch_norm_grad_fn<1>},
    {&kFusedBatchNormV2Op, fused_batch_norm_grad_fn<2>},
    {&kFusedBatchNormV3Op, fused_batch_norm_grad_fn<3>},
    // TensorFlow defines second-order gradients for these; symflow does not (yet).
    {&kFusedBatchNormGradOp, nullptr},
    {&kFusedBatchNormGradV2Op, nullptr},
    {&kFusedBatchNormGradV3Op, nullptr},
});

}  // namespace symflow::detail
