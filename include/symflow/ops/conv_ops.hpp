#pragma once
// symflow::nn::conv2d, max_pool, avg_pool (TF1's Conv2D, MaxPool, AvgPool) and the ops
// their gradients are made of (Conv2DBackpropInput, Conv2DBackpropFilter, MaxPoolGrad,
// AvgPoolGrad): the functions that build them. NHWC only, as TensorFlow's CPU kernels.
// The ops' descriptions are in ops/defs/conv.hpp, their CPU kernels in
// backend/cpu/kernels/conv.hpp (the numbers are computed by backend/cpu/conv.hpp).
//
// The attrs are TensorFlow 1.x's before 1.14 (no explicit_paddings), like the rest of
// symflow's GraphDefs; padding is "SAME" or "VALID".

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "symflow/ops/defs/conv.hpp"
#include "symflow/ops/op_builder.hpp"

namespace symflow {

namespace detail::conv {

// tf.nn's window arguments: one value for both spatial dims, two (rows, cols) or all
// four (NHWC); ValueError otherwise, as the Python wrappers say it.
inline std::vector<std::int64_t> nhwc_window_arg(const std::vector<std::int64_t>& v,
                                                 std::string_view what) {
  switch (v.size()) {
    case 1:
      return {1, v[0], v[0], 1};
    case 2:
      return {1, v[0], v[1], 1};
    case 4:
      return v;
    default:
      throw ValueError(std::string(what) +
                       " should be of length 1, 2 or 4. Received: " + std::string(what) + "=" +
                       int_list_text(v) + " of length " + std::to_string(v.size()));
  }
}

// ---- builders ----------------------------------------------------------------------------

inline AttrMap conv_attr_map(DType t, const std::vector<std::int64_t>& strides,
                             std::string_view padding, const std::vector<std::int64_t>& dilations) {
  return {{"T", t},
          {"data_format", std::string("NHWC")},
          {"dilations", IntList{dilations}},
          {"padding", std::string(padding)},
          {"strides", IntList{strides}},
          {"use_cudnn_on_gpu", true}};
}

inline AttrMap pool_attr_map(DType t, const std::vector<std::int64_t>& ksize,
                             const std::vector<std::int64_t>& strides, std::string_view padding) {
  return {{"T", t},
          {"data_format", std::string("NHWC")},
          {"ksize", IntList{ksize}},
          {"padding", std::string(padding)},
          {"strides", IntList{strides}}};
}

// The padding argument, checked before the node exists (TensorFlow's op_def_library
// rejects it there, with no node in the message).
inline void check_padding_arg(std::string_view op, std::string_view padding) {
  cpu::Padding p{};
  if (!cpu::parse_padding(padding, p)) throw ValueError(padding_error(op, padding));
}

}  // namespace detail::conv

namespace nn {

// tf.nn.conv2d's keyword arguments beyond strides and padding.
struct Conv2DOptions {
  std::vector<std::int64_t> dilations = {1, 1, 1, 1};  // 1, 2 or 4 values, like strides
  std::string_view name = {};
};

// tf.nn.conv2d(input, filter, strides, padding): input [batch, rows, cols, in_depth],
// filter [filter_rows, filter_cols, in_depth, out_depth]; strides (and dilations) have
// 1, 2 or 4 values; padding "SAME" or "VALID".
inline Output conv2d(const Output& input, const Output& filter,
                     const std::vector<std::int64_t>& strides, std::string_view padding,
                     const Conv2DOptions& options = {}) {
  detail::OpBuilder b(graph_of({input, filter}), options.name, "Conv2D");
  const auto s = detail::conv::nhwc_window_arg(strides, "strides");
  const auto d = detail::conv::nhwc_window_arg(options.dilations, "dilations");
  detail::conv::check_padding_arg("Conv2D", padding);
  return b
      .build(detail::conv::kConv2DOp, {input, filter},
             detail::conv::conv_attr_map(input.dtype(), s, padding, d))
      .output(0);
}
inline Output conv2d(const Output& input, const Output& filter,
                     const std::vector<std::int64_t>& strides, std::string_view padding,
                     std::string_view name) {
  return conv2d(input, filter, strides, padding, Conv2DOptions{.name = name});
}
template <Element T>
Tensor<T> conv2d(const Tensor<T>& input, const Tensor<T>& filter,
                 const std::vector<std::int64_t>& strides, std::string_view padding,
                 const Conv2DOptions& options = {}) {
  return Tensor<T>(conv2d(Output(input), Output(filter), strides, padding, options));
}
template <Element T>
Tensor<T> conv2d(const Tensor<T>& input, const Tensor<T>& filter,
                 const std::vector<std::int64_t>& strides, std::string_view padding,
                 std::string_view name) {
  return Tensor<T>(conv2d(Output(input), Output(filter), strides, padding, name));
}

// tf.nn.conv2d_backprop_input(input_sizes, filter, out_backprop, strides, padding):
// the gradient of conv2d with respect to its input, of shape input_sizes (int32 [4]).
inline Output conv2d_backprop_input(const Output& input_sizes, const Output& filter,
                                    const Output& out_backprop,
                                    const std::vector<std::int64_t>& strides,
                                    std::string_view padding, const Conv2DOptions& options = {}) {
  detail::OpBuilder b(graph_of({input_sizes, filter, out_backprop}), options.name,
                      "Conv2DBackpropInput");
  const auto s = detail::conv::nhwc_window_arg(strides, "strides");
  const auto d = detail::conv::nhwc_window_arg(options.dilations, "dilations");
  detail::conv::check_padding_arg("Conv2DBackpropInput", padding);
  return b
      .build(detail::conv::kConv2DBackpropInputOp, {input_sizes, filter, out_backprop},
             detail::conv::conv_attr_map(filter.dtype(), s, padding, d))
      .output(0);
}

// tf.nn.conv2d_backprop_filter(input, filter_sizes, out_backprop, strides, padding):
// the gradient of conv2d with respect to its filter, of shape filter_sizes (int32 [4]).
inline Output conv2d_backprop_filter(const Output& input, const Output& filter_sizes,
                                     const Output& out_backprop,
                                     const std::vector<std::int64_t>& strides,
                                     std::string_view padding, const Conv2DOptions& options = {}) {
  detail::OpBuilder b(graph_of({input, filter_sizes, out_backprop}), options.name,
                      "Conv2DBackpropFilter");
  const auto s = detail::conv::nhwc_window_arg(strides, "strides");
  const auto d = detail::conv::nhwc_window_arg(options.dilations, "dilations");
  detail::conv::check_padding_arg("Conv2DBackpropFilter", padding);
  return b
      .build(detail::conv::kConv2DBackpropFilterOp, {input, filter_sizes, out_backprop},
             detail::conv::conv_attr_map(input.dtype(), s, padding, d))
      .output(0);
}

// tf.nn.max_pool(value, ksize, strides, padding): the maximum of each window;
// ksize and strides have 1, 2 or 4 values.
inline Output max_pool(const Output& value, const std::vector<std::int64_t>& ksize,
                       const std::vector<std::int64_t>& strides, std::string_view padding,
                       std::string_view name = {}) {
  detail::OpBuilder b(graph_of({value}), name, "MaxPool");
  const auto k = detail::conv::nhwc_window_arg(ksize, "ksize");
  const auto s = detail::conv::nhwc_window_arg(strides, "strides");
  for (std::int64_t x : k)
    if (x == 0)
      throw ValueError("`ksize` cannot be zero. Received: ksize=" + detail::conv::int_list_text(k));
  detail::conv::check_padding_arg("MaxPool", padding);
  return b
      .build(detail::conv::kMaxPoolOp, {value},
             detail::conv::pool_attr_map(value.dtype(), k, s, padding))
      .output(0);
}
template <Element T>
Tensor<T> max_pool(const Tensor<T>& value, const std::vector<std::int64_t>& ksize,
                   const std::vector<std::int64_t>& strides, std::string_view padding,
                   std::string_view name = {}) {
  return Tensor<T>(max_pool(Output(value), ksize, strides, padding, name));
}

// tf.nn.avg_pool(value, ksize, strides, padding): the mean of each window, over the
// inputs it covers (SAME padding does not count).
inline Output avg_pool(const Output& value, const std::vector<std::int64_t>& ksize,
                       const std::vector<std::int64_t>& strides, std::string_view padding,
                       std::string_view name = {}) {
  detail::OpBuilder b(graph_of({value}), name, "AvgPool");
  const auto k = detail::conv::nhwc_window_arg(ksize, "ksize");
  const auto s = detail::conv::nhwc_window_arg(strides, "strides");
  detail::conv::check_padding_arg("AvgPool", padding);
  return b
      .build(detail::conv::kAvgPoolOp, {value},
             detail::conv::pool_attr_map(value.dtype(), k, s, padding))
      .output(0);
}
template <Element T>
Tensor<T> avg_pool(const Tensor<T>& value, const std::vector<std::int64_t>& ksize,
                   const std::vector<std::int64_t>& strides, std::string_view padding,
                   std::string_view name = {}) {
  return Tensor<T>(avg_pool(Output(value), ksize, strides, padding, name));
}

// gen_nn_ops.max_pool_grad: the gradient `grad` of max_pool(orig_input) routed back to
// each window's maximum.
inline Output max_pool_grad(const Output& orig_input, const Output& orig_output, const Output& grad,
                            const std::vector<std::int64_t>& ksize,
                            const std::vector<std::int64_t>& strides, std::string_view padding,
                            std::string_view name = {}) {
  detail::OpBuilder b(graph_of({orig_input, orig_output, grad}), name, "MaxPoolGrad");
  const auto k = detail::conv::nhwc_window_arg(ksize, "ksize");
  const auto s = detail::conv::nhwc_window_arg(strides, "strides");
  detail::conv::check_padding_arg("MaxPoolGrad", padding);
  return b
      .build(detail::conv::kMaxPoolGradOp, {orig_input, orig_output, grad},
             detail::conv::pool_attr_map(orig_input.dtype(), k, s, padding))
      .output(0);
}

// gen_nn_ops.avg_pool_grad: the gradient `grad` of avg_pool spread over each window of
// an input of shape orig_input_shape (int32 [4]).
inline Output avg_pool_grad(const Output& orig_input_shape, const Output& grad,
                            const std::vector<std::int64_t>& ksize,
                            const std::vector<std::int64_t>& strides, std::string_view padding,
                            std::string_view name = {}) {
  detail::OpBuilder b(graph_of({orig_input_shape, grad}), name, "AvgPoolGrad");
  const auto k = detail::conv::nhwc_window_arg(ksize, "ksize");
  const auto s = detail::conv::nhwc_window_arg(strides, "strides");
  detail::conv::check_padding_arg("AvgPoolGrad", padding);
  return b
      .build(detail::conv::kAvgPoolGradOp, {orig_input_shape, grad},
             detail::conv::pool_attr_map(grad.dtype(), k, s, padding))
      .output(0);
}

}  // namespace nn
}  // namespace symflow
