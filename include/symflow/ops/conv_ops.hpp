#pragma once
// symflow::nn::conv2d, atrous_conv2d, depthwise_conv2d(_native), max_pool, avg_pool (TF1's
// Conv2D, DepthwiseConv2dNative, MaxPool, AvgPool; the dilated ones wrapped in
// SpaceToBatchND and BatchToSpaceND as TF1 builds them) and the ops their gradients are made of
// (Conv2DBackpropInput, Conv2DBackpropFilter, DepthwiseConv2dNativeBackpropInput,
// DepthwiseConv2dNativeBackpropFilter, MaxPoolGrad, AvgPoolGrad): the functions that build
// them. Every one takes data_format "NHWC" or "NCHW".
// The ops' descriptions are in ops/defs/conv.hpp, their CPU kernels in
// backend/cpu/kernels/conv.hpp (the numbers are computed by backend/cpu/conv.hpp and
// depthwise_conv.hpp).
//
// The attrs are TensorFlow 1.x's before 1.14, like the rest of symflow's GraphDefs; padding
// is "SAME" or "VALID", and for conv2d, depthwise_conv2d(_native), their backprops, max_pool
// and max_pool_grad also explicit (before, after) pairs: padding "EXPLICIT" with an
// explicit_paddings attr, which other nodes leave out.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "symflow/ops/defs/conv.hpp"
#include "symflow/ops/op_builder.hpp"
#include "symflow/ops/shape_ops.hpp"
#include "symflow/ops/transform_ops.hpp"

namespace symflow {

namespace detail::conv {

// tf.nn's window arguments: one value for both spatial dims, two (rows, cols) or all
// four (in data_format order: `nchw` puts the spatial ones last); ValueError otherwise, as
// the Python wrappers say it.
inline std::vector<std::int64_t> nhwc_window_arg(const std::vector<std::int64_t>& v,
                                                 std::string_view what, bool nchw = false) {
  switch (v.size()) {
    case 1:
      if (nchw) return {1, 1, v[0], v[0]};
      return {1, v[0], v[0], 1};
    case 2:
      if (nchw) return {1, 1, v[0], v[1]};
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

// explicit_paddings is written only where it is not empty (padding "EXPLICIT").
inline AttrMap conv_attr_map(DType t, const std::vector<std::int64_t>& strides,
                             std::string_view padding, const std::vector<std::int64_t>& dilations,
                             std::string_view data_format = "NHWC",
                             const std::vector<std::int64_t>& explicit_paddings = {}) {
  AttrMap attrs{{"T", t},
                {"data_format", std::string(data_format)},
                {"dilations", IntList{dilations}},
                {"padding", std::string(padding)},
                {"strides", IntList{strides}},
                {"use_cudnn_on_gpu", true}};
  if (!explicit_paddings.empty()) attrs.emplace("explicit_paddings", IntList{explicit_paddings});
  return attrs;
}

inline AttrMap pool_attr_map(DType t, const std::vector<std::int64_t>& ksize,
                             const std::vector<std::int64_t>& strides, std::string_view padding,
                             std::string_view data_format = "NHWC",
                             const std::vector<std::int64_t>& explicit_paddings = {}) {
  AttrMap attrs{{"T", t},
                {"data_format", std::string(data_format)},
                {"ksize", IntList{ksize}},
                {"padding", std::string(padding)},
                {"strides", IntList{strides}}};
  if (!explicit_paddings.empty()) attrs.emplace("explicit_paddings", IntList{explicit_paddings});
  return attrs;
}

// The data_format argument, checked before the node exists (TensorFlow's op_def_library
// rejects it there); whether it is NCHW.
inline bool check_format_arg(std::string_view op, std::string_view data_format) {
  const std::optional<Layout> layout = layout_of(data_format);
  if (!layout) throw ValueError(data_format_error(op, data_format));
  return layout->nchw;
}

// The text Python gives a list of int lists: "[[0, 0], [1, 2]]".
inline std::string nested_list_text(const std::vector<std::vector<std::int64_t>>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + int_list_text(v[i]);
  return s + "]";
}

// tf.nn.conv2d's list padding: 4 (before, after) pairs in data_format order, flattened into
// explicit_paddings; TensorFlow's ValueErrors for another count or pair size.
inline std::vector<std::int64_t> explicit_paddings_arg(
    const std::vector<std::vector<std::int64_t>>& padding) {
  if (padding.size() != 4)
    throw ValueError("When padding is a list, it must be of size 4. Received: padding=" +
                     nested_list_text(padding) + " of size " + std::to_string(padding.size()));
  std::vector<std::int64_t> flat;
  for (std::size_t i = 0; i < padding.size(); ++i) {
    if (padding[i].size() != 2)
      throw ValueError(
          "When `padding` is a list, each element of `padding` must be a list/tuple of size 2. "
          "Received: padding=" +
          nested_list_text(padding) + " with element at index " + std::to_string(i) + " of size " +
          std::to_string(padding[i].size()));
    flat.insert(flat.end(), padding[i].begin(), padding[i].end());
  }
  return flat;
}

// DepthwiseConv2dNative and its backprops: TF 1.x's attrs (no use_cudnn_on_gpu), and
// explicit_paddings where it is not empty.
inline AttrMap depthwise_attr_map(DType t, const std::vector<std::int64_t>& strides,
                                  std::string_view padding,
                                  const std::vector<std::int64_t>& dilations,
                                  std::string_view data_format,
                                  const std::vector<std::int64_t>& explicit_paddings = {}) {
  AttrMap attrs{{"T", t},
                {"data_format", std::string(data_format)},
                {"dilations", IntList{dilations}},
                {"padding", std::string(padding)},
                {"strides", IntList{strides}}};
  if (!explicit_paddings.empty()) attrs.emplace("explicit_paddings", IntList{explicit_paddings});
  return attrs;
}

// numpy's text of an int vector, as TensorFlow's Python messages print one: "[0 1]".
inline std::string numpy_text(const std::vector<std::int64_t>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? " " : "") + std::to_string(v[i]);
  return s + "]";
}

// The padding argument, checked before the node exists (TensorFlow's op_def_library
// rejects it there, with no node in the message).
inline void check_padding_arg(std::string_view op, std::string_view padding) {
  cpu::Padding p{};
  const bool explicit_ok = takes_explicit_padding(op);
  if (explicit_ok && padding == "EXPLICIT") return;
  if (!cpu::parse_padding(padding, p)) throw ValueError(padding_error(op, padding, explicit_ok));
}

// An int32 [n, 2] matrix of (before, after) pairs; a padding or crop outside int32 is a
// ValueError naming it (TensorFlow's NumPy arithmetic would wrap it).
inline Value int32_pairs(const std::vector<std::pair<std::int64_t, std::int64_t>>& pairs) {
  std::vector<std::int32_t> v;
  for (const auto& [before, after] : pairs) {
    v.push_back(checked_int32(before, "a padding or crop of a dilated convolution"));
    v.push_back(checked_int32(after, "a padding or crop of a dilated convolution"));
  }
  return Value::from_vector(v, Dims{static_cast<std::int64_t>(pairs.size()), 2});
}

// TensorFlow's with_space_to_batch for a 2-D window op dilated by `rate` (not all 1s) on an
// NHWC input (`nchw`: NCHW, where the block and the pairs also cover the channels, with 1 and
// (0, 0), as TensorFlow adjusts them), built in the caller's name scope `scope_name` after its
// "dilation_rate" Const: the input zero-padded and cut into rate[0] * rate[1] interleaved
// batches (SpaceToBatchND), `op(batched, "VALID", name)` run on them undilated and named after
// the scope, and the result put back together and cropped (BatchToSpaceND). For "SAME" the
// padding is the dilated filter's (filter_spatial - 1) * rate split as evenly as possible
// ("stack"); for "EXPLICIT" the spatial pairs of `explicit_paddings` (8 values, in the input's
// layout); either way it is then extended at the end until the padded size divides by the
// rate (required_space_to_batch_paddings). `filter_shape_const`: whether the filter's shape
// becomes a Const "filter_shape" here (tf.nn.convolution) or already is one (depthwise).
// The spatial dims of the input and the filter must be known.
template <class BuildOp>
Output with_space_to_batch(Graph& g, std::string_view scope_name, const Output& input,
                           const Shape& filter_shape, bool filter_shape_const,
                           const std::vector<std::int64_t>& rate, std::string_view padding,
                           BuildOp op, const std::vector<std::int64_t>& explicit_paddings = {},
                           bool nchw = false) {
  const Shape& in = input.get_shape();
  const std::size_t first = nchw ? 2 : 1;                        // the first spatial dim
  if (in.has_rank() && in.rank() < static_cast<int>(first) + 2)  // SpaceToBatchND's message
    throw ValueError("Shape must be at least rank " + std::to_string(first + 2) + " but is rank " +
                     std::to_string(in.rank()));
  if (!in.has_rank() || in.dims()[first] < 0 || in.dims()[first + 1] < 0)
    throw UnimplementedError(
        "a dilated convolution of an input of shape " + python_shape(in) +
        ": TensorFlow computes its paddings with ops then; symflow needs the spatial dims known");
  const Dims spatial{in.dims()[first], in.dims()[first + 1]};
  std::vector<std::pair<std::int64_t, std::int64_t>> base(2, {0, 0});
  if (padding == "SAME") {
    if (!filter_shape.has_rank() || filter_shape.dims()[0] < 0 || filter_shape.dims()[1] < 0)
      throw UnimplementedError("a dilated SAME convolution needs the filter's spatial dims known");
    if (filter_shape_const) make_const(g, int32_vector(filter_shape.dims()), "filter_shape");
    for (std::size_t i = 0; i < 2; ++i) {
      const std::int64_t extra = (filter_shape.dims()[i] - 1) * rate[i];
      base[i] = {extra / 2, extra - extra / 2};
    }
    make_const(g, int32_pairs(base), "stack");
  } else if (padding == "EXPLICIT" && explicit_paddings.size() == 8) {
    const std::size_t at = 2 * first;  // the rows' pair
    base = {{explicit_paddings[at], explicit_paddings[at + 1]},
            {explicit_paddings[at + 2], explicit_paddings[at + 3]}};
  } else if (padding != "VALID") {
    throw ValueError("`padding` must be one of 'SAME' or 'VALID'. Received: padding=" +
                     std::string(padding));
  }
  std::vector<std::pair<std::int64_t, std::int64_t>> paddings, crops;
  for (std::size_t i = 0; i < 2; ++i) {
    const std::int64_t full = spatial[i] + base[i].first + base[i].second;
    const std::int64_t extra = (rate[i] - full % rate[i]) % rate[i];
    paddings.emplace_back(base[i].first, base[i].second + extra);
    crops.emplace_back(0, extra);
  }
  {
    // Constants all: TensorFlow folds required_space_to_batch_paddings when the shapes
    // are known.
    name_scope required(g, "required_space_to_batch_paddings");
    make_const(g, int32_vector(spatial), "input_shape");
    if (padding != "SAME") make_const(g, int32_pairs(base), "base_paddings");
    make_const(g, int32_pairs(paddings), "paddings");
    make_const(g, int32_pairs(crops), "crops");
  }
  Dims block_dims(rate.begin(), rate.end());
  if (nchw) {
    block_dims.insert(block_dims.begin(), 1);
    paddings.insert(paddings.begin(), {0, 0});
    crops.insert(crops.begin(), {0, 0});
  }
  const Value block = int32_vector(block_dims);
  const Output batched = space_to_batch_nd(input, block, int32_pairs(paddings));
  const Output result = op(batched, std::string_view("VALID"), scope_name);
  return batch_to_space_nd(result, block, int32_pairs(crops));
}

}  // namespace detail::conv

namespace nn {

// tf.nn.conv2d's keyword arguments beyond strides and padding.
struct Conv2DOptions {
  std::vector<std::int64_t> dilations = {1, 1, 1, 1};  // 1, 2 or 4 values, like strides
  std::string_view data_format = "NHWC";               // or "NCHW"
  // With padding "EXPLICIT": 8 values, a (before, after) pair per dim in data_format order
  // (the conv2d overload that takes the pairs fills it).
  std::vector<std::int64_t> explicit_paddings = {};
  std::string_view name = {};
};

// tf.nn.conv2d(input, filter, strides, padding): input [batch, rows, cols, in_depth]
// (NCHW: [batch, in_depth, rows, cols]), filter [filter_rows, filter_cols, in_depth,
// out_depth]; strides (and dilations) have 1, 2 or 4 values; padding "SAME" or "VALID" (or
// "EXPLICIT" with options.explicit_paddings).
inline Output conv2d(const Output& input, const Output& filter,
                     const std::vector<std::int64_t>& strides, std::string_view padding,
                     const Conv2DOptions& options = {}) {
  detail::OpBuilder b(graph_of({input, filter}), options.name, "Conv2D");
  const bool nchw = detail::conv::check_format_arg("Conv2D", options.data_format);
  const auto s = detail::conv::nhwc_window_arg(strides, "strides", nchw);
  const auto d = detail::conv::nhwc_window_arg(options.dilations, "dilations", nchw);
  detail::conv::check_padding_arg("Conv2D", padding);
  return b
      .build(detail::conv::kConv2DOp, {input, filter},
             detail::conv::conv_attr_map(input.dtype(), s, padding, d, options.data_format,
                                         options.explicit_paddings))
      .output(0);
}
// tf.nn.conv2d(input, filter, strides, padding=[[0, 0], [top, bottom], [left, right], [0, 0]]):
// explicit padding, 4 (before, after) pairs in data_format order (NCHW: [[0, 0], [0, 0],
// [top, bottom], [left, right]]); the node has padding "EXPLICIT" and the pairs, flattened,
// as explicit_paddings. Batch and depth pairs must be 0.
inline Output conv2d(const Output& input, const Output& filter,
                     const std::vector<std::int64_t>& strides,
                     const std::vector<std::vector<std::int64_t>>& padding,
                     const Conv2DOptions& options = {}) {
  Conv2DOptions o = options;
  o.explicit_paddings = detail::conv::explicit_paddings_arg(padding);
  return conv2d(input, filter, strides, "EXPLICIT", o);
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
template <Element T>
Tensor<T> conv2d(const Tensor<T>& input, const Tensor<T>& filter,
                 const std::vector<std::int64_t>& strides,
                 const std::vector<std::vector<std::int64_t>>& padding,
                 const Conv2DOptions& options = {}) {
  return Tensor<T>(conv2d(Output(input), Output(filter), strides, padding, options));
}

// tf.nn.conv2d_backprop_input(input_sizes, filter, out_backprop, strides, padding):
// the gradient of conv2d with respect to its input, of shape input_sizes (int32 [4]).
inline Output conv2d_backprop_input(const Output& input_sizes, const Output& filter,
                                    const Output& out_backprop,
                                    const std::vector<std::int64_t>& strides,
                                    std::string_view padding, const Conv2DOptions& options = {}) {
  detail::OpBuilder b(graph_of({input_sizes, filter, out_backprop}), options.name,
                      "Conv2DBackpropInput");
  const bool nchw = detail::conv::check_format_arg("Conv2DBackpropInput", options.data_format);
  const auto s = detail::conv::nhwc_window_arg(strides, "strides", nchw);
  const auto d = detail::conv::nhwc_window_arg(options.dilations, "dilations", nchw);
  detail::conv::check_padding_arg("Conv2DBackpropInput", padding);
  return b
      .build(detail::conv::kConv2DBackpropInputOp, {input_sizes, filter, out_backprop},
             detail::conv::conv_attr_map(filter.dtype(), s, padding, d, options.data_format,
                                         options.explicit_paddings))
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
  const bool nchw = detail::conv::check_format_arg("Conv2DBackpropFilter", options.data_format);
  const auto s = detail::conv::nhwc_window_arg(strides, "strides", nchw);
  const auto d = detail::conv::nhwc_window_arg(options.dilations, "dilations", nchw);
  detail::conv::check_padding_arg("Conv2DBackpropFilter", padding);
  return b
      .build(detail::conv::kConv2DBackpropFilterOp, {input, filter_sizes, out_backprop},
             detail::conv::conv_attr_map(input.dtype(), s, padding, d, options.data_format,
                                         options.explicit_paddings))
      .output(0);
}

// tf.compat.v1.nn.depthwise_conv2d_native's keyword arguments beyond strides and padding.
struct DepthwiseConv2dNativeOptions {
  std::vector<std::int64_t> dilations = {1, 1, 1, 1};  // 4 values; the kernels take only 1s
  std::string_view data_format = "NHWC";               // or "NCHW"
  std::string_view name = {};
  // With padding "EXPLICIT": 8 values, a (before, after) pair per dim in data_format order
  // (the overload that takes the pairs fills it).
  std::vector<std::int64_t> explicit_paddings = {};
};

// tf.compat.v1.nn.depthwise_conv2d_native(input, filter, strides, padding): input
// [batch, rows, cols, in_depth] (NCHW: [batch, in_depth, rows, cols]), filter [filter_rows,
// filter_cols, in_depth, multiplier]; the output has in_depth * multiplier channels, channel
// c * multiplier + m being input channel c convolved with filter[:, :, c, m]. strides has 4
// values in data_format order, the row and column strides equal as TensorFlow's kernels
// require; padding "SAME" or "VALID".
inline Output depthwise_conv2d_native(const Output& input, const Output& filter,
                                      const std::vector<std::int64_t>& strides,
                                      std::string_view padding,
                                      const DepthwiseConv2dNativeOptions& options = {}) {
  detail::OpBuilder b(graph_of({input, filter}), options.name, "DepthwiseConv2dNative");
  detail::conv::check_format_arg("DepthwiseConv2dNative", options.data_format);
  detail::conv::check_padding_arg("DepthwiseConv2dNative", padding);
  return b
      .build(detail::conv::kDepthwiseConv2dNativeOp, {input, filter},
             detail::conv::depthwise_attr_map(input.dtype(), strides, padding, options.dilations,
                                              options.data_format, options.explicit_paddings))
      .output(0);
}
// tf.compat.v1.nn.depthwise_conv2d_native(input, filter, strides, padding=[[0, 0], [top,
// bottom], [left, right], [0, 0]]): explicit padding, as conv2d's list (padding "EXPLICIT",
// the pairs flattened into explicit_paddings).
inline Output depthwise_conv2d_native(const Output& input, const Output& filter,
                                      const std::vector<std::int64_t>& strides,
                                      const std::vector<std::vector<std::int64_t>>& padding,
                                      const DepthwiseConv2dNativeOptions& options = {}) {
  DepthwiseConv2dNativeOptions o = options;
  o.explicit_paddings = detail::conv::explicit_paddings_arg(padding);
  return depthwise_conv2d_native(input, filter, strides, "EXPLICIT", o);
}
template <Element T>
Tensor<T> depthwise_conv2d_native(const Tensor<T>& input, const Tensor<T>& filter,
                                  const std::vector<std::int64_t>& strides,
                                  std::string_view padding,
                                  const DepthwiseConv2dNativeOptions& options = {}) {
  return Tensor<T>(
      depthwise_conv2d_native(Output(input), Output(filter), strides, padding, options));
}

// tf.compat.v1.nn.depthwise_conv2d's keyword arguments beyond strides and padding.
struct DepthwiseConv2dOptions {
  std::vector<std::int64_t> rate = {1, 1};  // the dilation rate (rows, cols)
  std::string_view data_format = "NHWC";
  std::string_view name = {};
};

}  // namespace nn

namespace detail::conv {

// tf.compat.v1.nn.depthwise_conv2d's graph (nn::depthwise_conv2d) for padding "SAME" or
// "VALID", or for the explicit (before, after) pairs `pairs` when it is not null.
inline Output depthwise_conv2d_graph(const Output& input, const Output& filter,
                                     const std::vector<std::int64_t>& strides,
                                     std::string_view padding,
                                     const std::vector<std::vector<std::int64_t>>* pairs,
                                     const nn::DepthwiseConv2dOptions& options) {
  Graph g = graph_of({input, filter});
  name_scope scope(g, options.name.empty() ? "depthwise" : options.name);
  const Shape filter_shape = filter.get_shape();
  if (filter_shape.is_fully_defined())
    make_const(g, int32_vector(filter_shape.dims()), "Shape");
  else
    symflow::shape(filter);
  make_const(g, int32_vector(options.rate), "dilation_rate");
  bool dilated = false;
  for (std::int64_t r : options.rate) {
    if (r < 1)
      throw ValueError("`dilation_rate` must be positive. Received: dilation_rate=" +
                       numpy_text(options.rate));
    dilated = dilated || r != 1;
  }
  const std::vector<std::int64_t> explicit_paddings =
      pairs ? explicit_paddings_arg(*pairs) : std::vector<std::int64_t>{};
  auto native = [&](const Output& x, std::string_view pad, std::string_view op_name) {
    check_format_arg("DepthwiseConv2dNative", options.data_format);
    check_padding_arg("DepthwiseConv2dNative", pad);
    return g
        .create_op(
            kDepthwiseConv2dNativeOp, {x, filter},
            depthwise_attr_map(input.dtype(), strides, pad, {1, 1, 1, 1}, options.data_format,
                               pad == "EXPLICIT" ? explicit_paddings : std::vector<std::int64_t>{}),
            std::string(op_name))
        .output(0);
  };
  if (!dilated) return native(input, pairs ? "EXPLICIT" : padding, scope.name());
  return with_space_to_batch(g, scope.name(), input, filter_shape, false, options.rate,
                             pairs ? "EXPLICIT" : padding, native, explicit_paddings,
                             check_format_arg("DepthwiseConv2dNative", options.data_format));
}

}  // namespace detail::conv

namespace nn {

// tf.compat.v1.nn.depthwise_conv2d(input, filter, strides, padding): the graph TensorFlow
// builds: in a name scope "depthwise" (or options.name), the filter's shape ("Shape", a
// Const when it is fully known) and the rate ("dilation_rate") as TensorFlow's
// with_space_to_batch reads them, then one DepthwiseConv2dNative named after the scope;
// with a rate above 1 in either dim, that op runs "VALID" between SpaceToBatchND and
// BatchToSpaceND (detail::conv::with_space_to_batch; the input's spatial dims must be known).
// As in TensorFlow, strides are passed to the op unchanged then (TensorFlow only warns that
// they should be 1).
inline Output depthwise_conv2d(const Output& input, const Output& filter,
                               const std::vector<std::int64_t>& strides, std::string_view padding,
                               const DepthwiseConv2dOptions& options = {}) {
  return detail::conv::depthwise_conv2d_graph(input, filter, strides, padding, nullptr, options);
}
// tf.compat.v1.nn.depthwise_conv2d(input, filter, strides, padding=[[0, 0], [top, bottom],
// [left, right], [0, 0]]): explicit padding, 4 (before, after) pairs in data_format order.
// Rate 1: one DepthwiseConv2dNative with padding "EXPLICIT"; a higher rate: the spatial pairs
// are SpaceToBatchND's base paddings and the op runs "VALID" (TensorFlow ignores the batch
// and depth pairs there).
inline Output depthwise_conv2d(const Output& input, const Output& filter,
                               const std::vector<std::int64_t>& strides,
                               const std::vector<std::vector<std::int64_t>>& padding,
                               const DepthwiseConv2dOptions& options = {}) {
  return detail::conv::depthwise_conv2d_graph(input, filter, strides, {}, &padding, options);
}

template <Element T>
Tensor<T> depthwise_conv2d(const Tensor<T>& input, const Tensor<T>& filter,
                           const std::vector<std::int64_t>& strides, std::string_view padding,
                           const DepthwiseConv2dOptions& options = {}) {
  return Tensor<T>(depthwise_conv2d(Output(input), Output(filter), strides, padding, options));
}
template <Element T>
Tensor<T> depthwise_conv2d(const Tensor<T>& input, const Tensor<T>& filter,
                           const std::vector<std::int64_t>& strides,
                           const std::vector<std::vector<std::int64_t>>& padding,
                           const DepthwiseConv2dOptions& options = {}) {
  return Tensor<T>(depthwise_conv2d(Output(input), Output(filter), strides, padding, options));
}

// tf.compat.v1.nn.depthwise_conv2d_native_backprop_input(input_sizes, filter, out_backprop,
// strides, padding): the gradient of depthwise_conv2d_native with respect to its input, of
// shape input_sizes (int32 [4]).
inline Output depthwise_conv2d_native_backprop_input(
    const Output& input_sizes, const Output& filter, const Output& out_backprop,
    const std::vector<std::int64_t>& strides, std::string_view padding,
    const DepthwiseConv2dNativeOptions& options = {}) {
  detail::OpBuilder b(graph_of({input_sizes, filter, out_backprop}), options.name,
                      "DepthwiseConv2dNativeBackpropInput");
  detail::conv::check_format_arg("DepthwiseConv2dNativeBackpropInput", options.data_format);
  detail::conv::check_padding_arg("DepthwiseConv2dNativeBackpropInput", padding);
  return b
      .build(detail::conv::kDepthwiseConv2dNativeBackpropInputOp,
             {input_sizes, filter, out_backprop},
             detail::conv::depthwise_attr_map(filter.dtype(), strides, padding, options.dilations,
                                              options.data_format, options.explicit_paddings))
      .output(0);
}

// tf.compat.v1.nn.depthwise_conv2d_native_backprop_filter(input, filter_sizes,
// out_backprop, strides, padding): the gradient of depthwise_conv2d_native with respect to
// its filter, of shape filter_sizes (int32 [4]).
inline Output depthwise_conv2d_native_backprop_filter(
    const Output& input, const Output& filter_sizes, const Output& out_backprop,
    const std::vector<std::int64_t>& strides, std::string_view padding,
    const DepthwiseConv2dNativeOptions& options = {}) {
  detail::OpBuilder b(graph_of({input, filter_sizes, out_backprop}), options.name,
                      "DepthwiseConv2dNativeBackpropFilter");
  detail::conv::check_format_arg("DepthwiseConv2dNativeBackpropFilter", options.data_format);
  detail::conv::check_padding_arg("DepthwiseConv2dNativeBackpropFilter", padding);
  return b
      .build(detail::conv::kDepthwiseConv2dNativeBackpropFilterOp,
             {input, filter_sizes, out_backprop},
             detail::conv::depthwise_attr_map(input.dtype(), strides, padding, options.dilations,
                                              options.data_format, options.explicit_paddings))
      .output(0);
}

// tf.nn.max_pool's and tf.nn.avg_pool's keyword arguments beyond ksize, strides, padding.
struct PoolOptions {
  std::string_view data_format = "NHWC";  // or "NCHW"
  std::string_view name = {};
  // max_pool with padding "EXPLICIT": 8 values, a (before, after) pair per dim in data_format
  // order (the overload that takes the pairs fills it). AvgPool has no such attr.
  std::vector<std::int64_t> explicit_paddings = {};
};

// tf.nn.max_pool(value, ksize, strides, padding): the maximum of each window;
// ksize and strides have 1, 2 or 4 values (4: in data_format order).
inline Output max_pool(const Output& value, const std::vector<std::int64_t>& ksize,
                       const std::vector<std::int64_t>& strides, std::string_view padding,
                       const PoolOptions& options) {
  detail::OpBuilder b(graph_of({value}), options.name, "MaxPool");
  const bool nchw = detail::conv::check_format_arg("MaxPool", options.data_format);
  const auto k = detail::conv::nhwc_window_arg(ksize, "ksize", nchw);
  const auto s = detail::conv::nhwc_window_arg(strides, "strides", nchw);
  for (std::int64_t x : k)
    if (x == 0)
      throw ValueError("`ksize` cannot be zero. Received: ksize=" + detail::conv::int_list_text(k));
  detail::conv::check_padding_arg("MaxPool", padding);
  return b
      .build(detail::conv::kMaxPoolOp, {value},
             detail::conv::pool_attr_map(value.dtype(), k, s, padding, options.data_format,
                                         options.explicit_paddings))
      .output(0);
}
// tf.nn.max_pool(value, ksize, strides, padding=[[0, 0], [top, bottom], [left, right], [0,
// 0]]): explicit padding, 4 (before, after) pairs in data_format order, as conv2d takes them
// (padding "EXPLICIT", the pairs flattened into explicit_paddings). The padded cells never
// win a window, and each pad must be smaller than the window (the kernel checks).
inline Output max_pool(const Output& value, const std::vector<std::int64_t>& ksize,
                       const std::vector<std::int64_t>& strides,
                       const std::vector<std::vector<std::int64_t>>& padding,
                       const PoolOptions& options = {}) {
  PoolOptions o = options;
  o.explicit_paddings = detail::conv::explicit_paddings_arg(padding);
  return max_pool(value, ksize, strides, "EXPLICIT", o);
}
inline Output max_pool(const Output& value, const std::vector<std::int64_t>& ksize,
                       const std::vector<std::int64_t>& strides, std::string_view padding,
                       std::string_view name = {}) {
  return max_pool(value, ksize, strides, padding, PoolOptions{.name = name});
}
template <Element T>
Tensor<T> max_pool(const Tensor<T>& value, const std::vector<std::int64_t>& ksize,
                   const std::vector<std::int64_t>& strides, std::string_view padding,
                   std::string_view name = {}) {
  return Tensor<T>(max_pool(Output(value), ksize, strides, padding, name));
}
template <Element T>
Tensor<T> max_pool(const Tensor<T>& value, const std::vector<std::int64_t>& ksize,
                   const std::vector<std::int64_t>& strides, std::string_view padding,
                   const PoolOptions& options) {
  return Tensor<T>(max_pool(Output(value), ksize, strides, padding, options));
}
template <Element T>
Tensor<T> max_pool(const Tensor<T>& value, const std::vector<std::int64_t>& ksize,
                   const std::vector<std::int64_t>& strides,
                   const std::vector<std::vector<std::int64_t>>& padding,
                   const PoolOptions& options = {}) {
  return Tensor<T>(max_pool(Output(value), ksize, strides, padding, options));
}

// tf.nn.avg_pool(value, ksize, strides, padding): the mean of each window, over the
// inputs it covers (SAME padding does not count).
inline Output avg_pool(const Output& value, const std::vector<std::int64_t>& ksize,
                       const std::vector<std::int64_t>& strides, std::string_view padding,
                       const PoolOptions& options) {
  detail::OpBuilder b(graph_of({value}), options.name, "AvgPool");
  if (!options.explicit_paddings.empty())
    throw ValueError("avg_pool takes no explicit_paddings: AvgPool has padding SAME or VALID");
  const bool nchw = detail::conv::check_format_arg("AvgPool", options.data_format);
  const auto k = detail::conv::nhwc_window_arg(ksize, "ksize", nchw);
  const auto s = detail::conv::nhwc_window_arg(strides, "strides", nchw);
  detail::conv::check_padding_arg("AvgPool", padding);
  return b
      .build(detail::conv::kAvgPoolOp, {value},
             detail::conv::pool_attr_map(value.dtype(), k, s, padding, options.data_format))
      .output(0);
}
inline Output avg_pool(const Output& value, const std::vector<std::int64_t>& ksize,
                       const std::vector<std::int64_t>& strides, std::string_view padding,
                       std::string_view name = {}) {
  return avg_pool(value, ksize, strides, padding, PoolOptions{.name = name});
}
template <Element T>
Tensor<T> avg_pool(const Tensor<T>& value, const std::vector<std::int64_t>& ksize,
                   const std::vector<std::int64_t>& strides, std::string_view padding,
                   std::string_view name = {}) {
  return Tensor<T>(avg_pool(Output(value), ksize, strides, padding, name));
}
template <Element T>
Tensor<T> avg_pool(const Tensor<T>& value, const std::vector<std::int64_t>& ksize,
                   const std::vector<std::int64_t>& strides, std::string_view padding,
                   const PoolOptions& options) {
  return Tensor<T>(avg_pool(Output(value), ksize, strides, padding, options));
}

// gen_nn_ops.max_pool_grad: the gradient `grad` of max_pool(orig_input) routed back to
// each window's maximum (padding "EXPLICIT": with the forward op's explicit_paddings).
inline Output max_pool_grad(const Output& orig_input, const Output& orig_output, const Output& grad,
                            const std::vector<std::int64_t>& ksize,
                            const std::vector<std::int64_t>& strides, std::string_view padding,
                            std::string_view name = {}, std::string_view data_format = "NHWC",
                            const std::vector<std::int64_t>& explicit_paddings = {}) {
  detail::OpBuilder b(graph_of({orig_input, orig_output, grad}), name, "MaxPoolGrad");
  const bool nchw = detail::conv::check_format_arg("MaxPoolGrad", data_format);
  const auto k = detail::conv::nhwc_window_arg(ksize, "ksize", nchw);
  const auto s = detail::conv::nhwc_window_arg(strides, "strides", nchw);
  detail::conv::check_padding_arg("MaxPoolGrad", padding);
  return b
      .build(detail::conv::kMaxPoolGradOp, {orig_input, orig_output, grad},
             detail::conv::pool_attr_map(orig_input.dtype(), k, s, padding, data_format,
                                         explicit_paddings))
      .output(0);
}

// gen_nn_ops.avg_pool_grad: the gradient `grad` of avg_pool spread over each window of
// an input of shape orig_input_shape (int32 [4]).
inline Output avg_pool_grad(const Output& orig_input_shape, const Output& grad,
                            const std::vector<std::int64_t>& ksize,
                            const std::vector<std::int64_t>& strides, std::string_view padding,
                            std::string_view name = {}, std::string_view data_format = "NHWC") {
  detail::OpBuilder b(graph_of({orig_input_shape, grad}), name, "AvgPoolGrad");
  const bool nchw = detail::conv::check_format_arg("AvgPoolGrad", data_format);
  const auto k = detail::conv::nhwc_window_arg(ksize, "ksize", nchw);
  const auto s = detail::conv::nhwc_window_arg(strides, "strides", nchw);
  detail::conv::check_padding_arg("AvgPoolGrad", padding);
  return b
      .build(detail::conv::kAvgPoolGradOp, {orig_input_shape, grad},
             detail::conv::pool_attr_map(grad.dtype(), k, s, padding, data_format))
      .output(0);
}

}  // namespace nn

namespace detail::conv {

// tf.nn.convolution's 2-D graph (data_format "NHWC" or "NCHW") with a dilation `rate` and
// unit strides, in a name scope `name` (or `default_name`): one Conv2D named after the scope
// when rate is all 1s, else the Conv2D inside with_space_to_batch, with TensorFlow's argument
// checks.
inline Output dilated_conv2d(const Output& input, const Output& filter,
                             const std::vector<std::int64_t>& rate, std::string_view padding,
                             std::string_view name, std::string_view default_name,
                             std::string_view data_format = "NHWC") {
  Graph g = graph_of({input, filter});
  name_scope scope(g, name.empty() ? default_name : name);
  const bool nchw = check_format_arg("Conv2D", data_format);
  const nn::Conv2DOptions conv_options{.data_format = data_format};
  bool ones = true;
  for (std::int64_t r : rate) ones = ones && r == 1;
  if (ones) {
    nn::Conv2DOptions named = conv_options;
    named.name = scope.name();
    return nn::conv2d(input, filter, {1, 1, 1, 1}, padding, named);
  }
  const Shape& in = input.get_shape();
  const Shape& fs = filter.get_shape();
  if (in.has_rank() && in.rank() < 4)
    throw ValueError(
        "`input.shape.rank` must be >= than `num_spatial_dims + 2`. Received: input.shape=" +
        python_shape(in) + " of rank " + std::to_string(in.rank()) + " and num_spatial_dims=2");
  const std::int64_t channels = in.has_rank() ? in.dims()[nchw ? 1 : 3] : -1;
  const std::int64_t filter_in = fs.has_rank() && fs.rank() == 4 ? fs.dims()[2] : -1;
  if (channels > 0 && filter_in > 0 && channels % filter_in != 0)
    throw ValueError(
        "The number of input channels is not divisible by the corresponding number of output "
        "filters. Received: input.shape=" +
        python_shape(in) + " with " + std::to_string(channels) + " channels and filters.shape=" +
        python_shape(fs) + " with " + std::to_string(filter_in) + " output filters.");
  make_const(g, int32_vector(Dims(rate.begin(), rate.end())), "dilation_rate");
  for (std::int64_t r : rate)
    if (r < 1)
      throw ValueError("all values of `dilation_rate` must be positive. Received: dilation_rate=" +
                       numpy_text(rate));
  return with_space_to_batch(
      g, scope.name(), input, fs, true, rate, padding,
      [&](const Output& batched, std::string_view pad, std::string_view op_name) {
        nn::Conv2DOptions named = conv_options;
        named.name = op_name;
        return nn::conv2d(batched, filter, {1, 1, 1, 1}, pad, named);
      },
      {}, nchw);
}

}  // namespace detail::conv

namespace nn {

// tf.nn.atrous_conv2d(value, filters, rate, padding): a 2-D convolution of the NHWC
// `value` with `filters` [rows, cols, in_depth, out_depth] whose taps are `rate` apart
// (unit strides). As TensorFlow 1.x builds it, through tf.nn.convolution, in a name
// scope "convolution" (or `name`): rate 1 is one Conv2D named after the scope; a rate
// above 1 is SpaceToBatchND -> Conv2D ("VALID", named after the scope) ->
// BatchToSpaceND, with the paddings and crops as Consts (the input's spatial dims must
// be known).
inline Output atrous_conv2d(const Output& value, const Output& filters, std::int64_t rate,
                            std::string_view padding, std::string_view name = {}) {
  return detail::conv::dilated_conv2d(value, filters, {rate, rate}, padding, name, "convolution");
}
template <Element T>
Tensor<T> atrous_conv2d(const Tensor<T>& value, const Tensor<T>& filters, std::int64_t rate,
                        std::string_view padding, std::string_view name = {}) {
  return Tensor<T>(atrous_conv2d(Output(value), Output(filters), rate, padding, name));
}

}  // namespace nn
}  // namespace symflow
