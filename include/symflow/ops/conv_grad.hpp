#pragma once
// Gradients of conv2d, depthwise_conv2d_native and the pooling ops (conv_ops.hpp), built
// from the backprop ops as TensorFlow's nn_grad.py builds them.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "symflow/ops/conv_ops.hpp"
#include "symflow/ops/grad_context.hpp"
#include "symflow/ops/shape_ops.hpp"

namespace symflow::detail {

namespace conv {

// x's shape as an int32 vector: a Const when it is fully known at build time (as
// TensorFlow folds tf.shape then), else a Shape op.
inline Output shape_vector_of(const GradContext& c, const Output& x) {
  const Shape s = x.get_shape();
  if (s.is_fully_defined()) {
    Graph g = c.graph();
    return make_const(g, int32_vector(s.dims()), "Shape").output(0);
  }
  return shape(x);
}

// Conv2D -> (Conv2DBackpropInput, Conv2DBackpropFilter), with the forward op's attrs
// (copied: building nodes may move the graph's node storage).
inline std::vector<Output> conv2d_grad(const GradContext& c) {
  const std::vector<std::int64_t> strides = c.op.get_attr<IntList>("strides").items;
  const std::string padding = c.op.get_attr<std::string>("padding");
  const std::string data_format = c.op.get_attr<std::string>("data_format");
  const nn::Conv2DOptions options{
      .dilations = c.op.get_attr<IntList>("dilations").items,
      .data_format = data_format,
      .explicit_paddings = optional_int_list(c.op.attrs(), "explicit_paddings")};
  const Output x = c.input(0), w = c.input(1);
  const Output x_shape = shape_vector_of(c, x);
  const Output w_shape = shape_vector_of(c, w);
  return {nn::conv2d_backprop_input(x_shape, w, c.grad(0), strides, padding, options),
          nn::conv2d_backprop_filter(x, w_shape, c.grad(0), strides, padding, options)};
}

// DepthwiseConv2dNative -> (DepthwiseConv2dNativeBackpropInput, ...BackpropFilter), with the
// forward op's attrs; each size is made just before the op that reads it, as nn_grad.py
// makes them ("Shape" for the input's, "Shape_1" for the filter's).
// (The attrs are copied: building nodes may move the graph's node storage.)
inline std::vector<Output> depthwise_conv2d_native_grad(const GradContext& c) {
  const std::vector<std::int64_t> strides = c.op.get_attr<IntList>("strides").items;
  const std::string padding = c.op.get_attr<std::string>("padding");
  const std::string data_format = c.op.get_attr<std::string>("data_format");
  const nn::DepthwiseConv2dNativeOptions options{
      .dilations = c.op.get_attr<IntList>("dilations").items,
      .data_format = data_format,
      .explicit_paddings = optional_int_list(c.op.attrs(), "explicit_paddings")};
  const Output x = c.input(0), w = c.input(1);
  Output dx = nn::depthwise_conv2d_native_backprop_input(shape_vector_of(c, x), w, c.grad(0),
                                                         strides, padding, options);
  Output dw = nn::depthwise_conv2d_native_backprop_filter(x, shape_vector_of(c, w), c.grad(0),
                                                          strides, padding, options);
  return {dx, dw};
}

inline std::vector<Output> max_pool_grad(const GradContext& c) {
  const std::string data_format = c.op.get_attr<std::string>("data_format");
  const std::vector<std::int64_t> explicit_paddings =
      optional_int_list(c.op.attrs(), "explicit_paddings");
  return {
      nn::max_pool_grad(c.input(0), c.output(0), c.grad(0), c.op.get_attr<IntList>("ksize").items,
                        c.op.get_attr<IntList>("strides").items,
                        c.op.get_attr<std::string>("padding"), {}, data_format, explicit_paddings)};
}

inline std::vector<Output> avg_pool_grad(const GradContext& c) {
  const std::string data_format = c.op.get_attr<std::string>("data_format");
  return {nn::avg_pool_grad(shape_vector_of(c, c.input(0)), c.grad(0),
                            c.op.get_attr<IntList>("ksize").items,
                            c.op.get_attr<IntList>("strides").items,
                            c.op.get_attr<std::string>("padding"), {}, data_format)};
}

}  // namespace conv

inline constexpr auto kConvOpEntries = std::to_array<OpEntry>({
    {&kConv2DOp, conv::conv2d_grad},
    {&kDepthwiseConv2dNativeOp, conv::depthwise_conv2d_native_grad},
    {&kMaxPoolOp, conv::max_pool_grad},
    {&kAvgPoolOp, conv::avg_pool_grad},
    // TensorFlow defines second-order gradients for these; symflow does not (yet).
    {&kConv2DBackpropInputOp, nullptr},
    {&kConv2DBackpropFilterOp, nullptr},
    {&kDepthwiseConv2dNativeBackpropInputOp, nullptr},
    {&kDepthwiseConv2dNativeBackpropFilterOp, nullptr},
    {&kMaxPoolGradOp, nullptr},
    {&kAvgPoolGradOp, nullptr},
});

}  // namespace symflow::detail
