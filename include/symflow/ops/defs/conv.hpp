#pragma once
// The conv and pooling ops' descriptions (TF1's Conv2D, DepthwiseConv2dNative, MaxPool,
// AvgPool and the ops their gradients are made of: Conv2DBackpropInput,
// Conv2DBackpropFilter, DepthwiseConv2dNativeBackpropInput,
// DepthwiseConv2dNativeBackpropFilter, MaxPoolGrad, AvgPoolGrad): the shape functions, the
// helpers they share with the builders, and the OpDefs. No kernel and no graph: the CPU
// kernels are in backend/cpu/kernels/conv.hpp, the graph-building functions in
// ops/conv_ops.hpp.
//
// The attrs are TensorFlow 1.x's before 1.14, like the rest of symflow's GraphDefs: padding
// is "SAME" or "VALID" (ops/defs/window.hpp), and explicit_paddings appears only where it
// matters: Conv2D, DepthwiseConv2dNative and their backprops also take padding "EXPLICIT",
// with explicit_paddings holding a (before, after) pair per dim in data_format order, and so does
// MaxPool (and MaxPoolGrad, which its gradient builds). Every op here takes data_format "NHWC"
// or "NCHW".

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "symflow/core/attr_value.hpp"
#include "symflow/core/dtype.hpp"
#include "symflow/core/errors.hpp"
#include "symflow/core/shape.hpp"
#include "symflow/core/value.hpp"
#include "symflow/ops/defs/op_def.hpp"
#include "symflow/ops/defs/shape_fn.hpp"
#include "symflow/ops/defs/window.hpp"

namespace symflow {

// The helpers live in their own namespace: detail is shared by every op header.
namespace detail::conv {

inline std::string int_list_text(const std::vector<std::int64_t>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

// `explicit_ok`: the op takes "EXPLICIT" too (takes_explicit_padding), and says so.
inline std::string padding_error(std::string_view op, std::string_view padding,
                                 bool explicit_ok = false) {
  return "Attr 'padding' of '" + std::string(op) + "' Op passed string '" + std::string(padding) +
         "' not in: \"SAME\", \"VALID\"" + (explicit_ok ? ", \"EXPLICIT\"" : "") + ".";
}

// Conv2D, DepthwiseConv2dNative, their backprops, MaxPool and MaxPoolGrad take padding
// "EXPLICIT" (the pads are in explicit_paddings). "DepthwiseConv2D" is how TensorFlow's shape
// function names DepthwiseConv2dNative.
inline bool takes_explicit_padding(std::string_view op) {
  return op == "Conv2D" || op == "Conv2DBackpropInput" || op == "Conv2DBackpropFilter" ||
         op == "DepthwiseConv2dNative" || op == "DepthwiseConv2D" ||
         op == "DepthwiseConv2dNativeBackpropInput" ||
         op == "DepthwiseConv2dNativeBackpropFilter" || op == "MaxPool" || op == "MaxPoolGrad";
}

// Where a data_format keeps the batch, the spatial dims and the channels of a 4-D tensor.
struct Layout {
  int rows = 1, cols = 2, depth = 3;
  bool nchw = false;
  // dims (batch, rows, cols, depth) in this layout's order.
  std::array<std::int64_t, 4> order(std::int64_t batch, std::int64_t r, std::int64_t c,
                                    std::int64_t d) const {
    if (nchw) return {batch, d, r, c};
    return {batch, r, c, d};
  }
};

// The layout data_format names: "NHWC" or "NCHW"; nullopt otherwise.
inline std::optional<Layout> layout_of(std::string_view data_format) {
  if (data_format == "NHWC") return Layout{};
  if (data_format == "NCHW") return Layout{2, 3, 1, true};
  return std::nullopt;
}

// TensorFlow's op_def_library message for a data_format outside the op's list (MaxPool's
// also has NCHW_VECT_C, which symflow does not run).
inline std::string data_format_error(std::string_view op, std::string_view data_format) {
  return "Attr 'data_format' of '" + std::string(op) + "' Op passed string '" +
         std::string(data_format) + "' not in: \"NHWC\", \"NCHW\"" +
         (op == "MaxPool" ? ", \"NCHW_VECT_C\"" : "") + ".";
}

// The explicit (before, after) pads of rows and cols.
struct ExplicitPads {
  std::int64_t top = 0, bottom = 0, left = 0, right = 0;
};

// explicit_paddings checked against padding as TensorFlow's shape functions check it (8
// non-negative values for "EXPLICIT", none otherwise, and no batch or depth padding); the
// rows' and cols' pairs. `fail` throws with the message.
template <class Fail>
ExplicitPads check_explicit_paddings(const std::vector<std::int64_t>& pads, bool is_explicit,
                                     const Layout& layout, Fail&& fail) {
  if (!is_explicit) {
    if (!pads.empty())
      fail("explicit_paddings attribute must be empty if the padding attribute is not EXPLICIT");
    return {};
  }
  if (pads.size() != 8)
    fail("explicit_paddings attribute must contain 8 values, but got: " +
         std::to_string(pads.size()));
  for (std::int64_t p : pads) {
    if (p < 0) fail("All elements of explicit_paddings must be nonnegative");
    // symflow's own bound, so padded sizes cannot overflow (TensorFlow has none).
    if (p > std::numeric_limits<std::int32_t>::max())
      fail("explicit_paddings value " + std::to_string(p) + " does not fit in int32");
  }
  const auto at = [&](int dim, int side) { return pads[static_cast<std::size_t>(2 * dim + side)]; };
  if (at(0, 0) || at(0, 1) || at(layout.depth, 0) || at(layout.depth, 1))
    fail("Nonzero explicit padding in the batch or depth dimensions is not supported");
  return {at(layout.rows, 0), at(layout.rows, 1), at(layout.cols, 0), at(layout.cols, 1)};
}

// An attr list that a GraphDef may leave out when empty (explicit_paddings).
inline const std::vector<std::int64_t>& optional_int_list(const AttrMap& attrs,
                                                          std::string_view name) {
  static const std::vector<std::int64_t> kEmpty;
  const auto it = attrs.find(name);
  return it == attrs.end() ? kEmpty : get_attr<IntList>(attrs, name).items;
}

// ---- shape-function helpers -------------------------------------------------------

// Dim i of a shape that may have unknown rank.
inline std::int64_t dim_or_unknown(const Shape& s, int i) {
  return s.has_rank() ? s.dim(i) : unknown_dim;
}

// A 4-element list attr (strides, ksize, dilations) as the shape functions check it.
inline const std::vector<std::int64_t>& four_values(const InferContext& c, std::string_view op,
                                                    std::string_view attr,
                                                    std::string_view attr_text) {
  const auto& v = c.attr<IntList>(attr).items;
  if (v.size() != 4)
    throw ValueError(std::string(op) + " requires the " + std::string(attr_text) +
                     " to contain 4 values, but got: " + std::to_string(v.size()));
  return v;
}

// The padding attr; `is_explicit` is set for "EXPLICIT", which only `op`s that take it accept.
inline cpu::Padding padding_of(const InferContext& c, std::string_view op, bool& is_explicit) {
  const auto& s = c.attr<std::string>("padding");
  const bool explicit_ok = takes_explicit_padding(op);
  is_explicit = explicit_ok && s == "EXPLICIT";
  cpu::Padding p = cpu::Padding::valid;
  if (!is_explicit && !cpu::parse_padding(s, p))
    throw ValueError(padding_error(op, s, explicit_ok));
  return p;
}

// The data_format attr: "NHWC" or "NCHW".
inline Layout layout_attr(const InferContext& c, std::string_view op) {
  const auto& f = c.attr<std::string>("data_format");
  const std::optional<Layout> layout = layout_of(f);
  if (!layout) throw ValueError(data_format_error(op, f));
  return *layout;
}

// One static output dim of a window; unknown when the input dim is.
inline std::int64_t windowed_dim(std::int64_t in, std::int64_t window, std::int64_t stride,
                                 std::int64_t dilation, cpu::Padding padding) {
  if (stride <= 0) throw ValueError("Stride must be > 0, but got " + std::to_string(stride));
  if (dilation < 1)
    throw ValueError("Dilation rate must be >= 1, but got " + std::to_string(dilation));
  if (in < 0) return unknown_dim;
  if (window < 0) return padding == cpu::Padding::same ? (in + stride - 1) / stride : unknown_dim;
  const cpu::WindowedDim d = cpu::windowed_output(in, window, stride, dilation, padding);
  if (d.size < 0)
    throw ValueError("Negative dimension size caused by subtracting " +
                     std::to_string((window - 1) * dilation + 1) + " from " + std::to_string(in));
  return d.size;
}

inline bool is_float(DType d) { return d == DType::float32 || d == DType::float64; }

// TypeError unless inputs `a` and `b` share a dtype (TensorFlow's message names both).
inline void check_pair_dtype(const InferContext& c, std::string_view op, std::size_t a,
                             std::string_view a_name, std::size_t b, std::string_view b_name) {
  if (c.dtype(b) != c.dtype(a))
    throw TypeError("Input '" + std::string(b_name) + "' of '" + std::string(op) +
                    "' Op has type " + std::string(dtype_name(c.dtype(b))) +
                    " that does not match type " + std::string(dtype_name(c.dtype(a))) +
                    " of argument '" + std::string(a_name) + "'.");
}

// The static shape a 4-element size vector (input_sizes, filter_sizes,
// orig_input_shape) gives when it is a constant; `fallback` otherwise.
inline Shape shape_from_sizes(const InferContext& c, std::size_t i, std::string_view op,
                              std::string_view arg, Shape fallback) {
  require_rank(c.shape(i), 1);
  if (c.shape(i).has_rank() && c.shape(i).dim(0) >= 0 && c.shape(i).dim(0) != 4)
    throw ValueError(std::string(op) + " requires " + std::string(arg) +
                     " to contain 4 values, but got: " + std::to_string(c.shape(i).dim(0)));
  if (const Value* v = c.constant(i)) return Shape(shape_argument(*v));
  return fallback;
}

// ---- Conv2D -----------------------------------------------------------------------

// One static output dim of a window with explicit pads; unknown when the input dim is.
inline std::int64_t explicit_windowed_dim(std::int64_t in, std::int64_t window, std::int64_t stride,
                                          std::int64_t dilation, std::int64_t before,
                                          std::int64_t after) {
  if (stride <= 0) throw ValueError("Stride must be > 0, but got " + std::to_string(stride));
  if (dilation < 1)
    throw ValueError("Dilation rate must be >= 1, but got " + std::to_string(dilation));
  if (in < 0 || window < 0) return unknown_dim;
  const std::int64_t padded = in + before + after;
  const std::int64_t effective = (window - 1) * dilation + 1;
  if (padded < effective)
    throw ValueError("Negative dimension size caused by subtracting " + std::to_string(effective) +
                     " from " + std::to_string(padded));
  return (padded - effective) / stride + 1;
}

// Strides and dilations as (rows, cols) of the layout; the padding, SAME/VALID or explicit.
struct ConvAttrs {
  std::vector<std::int64_t> strides, dilations;
  cpu::Padding padding{};
  Layout layout;
  bool is_explicit = false;
  ExplicitPads pads;

  std::int64_t out_dim(bool rows, std::int64_t in, std::int64_t window) const {
    const int i = rows ? layout.rows : layout.cols;
    if (is_explicit)
      return explicit_windowed_dim(in, window, strides[i], dilations[i],
                                   rows ? pads.top : pads.left, rows ? pads.bottom : pads.right);
    return windowed_dim(in, window, strides[i], dilations[i], padding);
  }
};

// `op` names the op in the messages; `format_op`, when given, in the data_format one (the
// depthwise shape function's name is not the op's).
inline ConvAttrs conv_attrs(const InferContext& c, std::string_view op,
                            std::string_view format_op = {}) {
  ConvAttrs a;
  a.layout = layout_attr(c, format_op.empty() ? op : format_op);
  a.strides = four_values(c, op, "strides", "stride attribute");
  a.dilations = four_values(c, op, "dilations", "dilations attribute");
  a.padding = padding_of(c, op, a.is_explicit);
  a.pads = check_explicit_paddings(optional_int_list(c.attrs, "explicit_paddings"), a.is_explicit,
                                   a.layout, [](const std::string& m) { throw ValueError(m); });
  return a;
}

// The output shape of a conv with input shape `in` (in a.layout) and filter shape `filter`.
inline Shape conv_output_shape(const Shape& in, const Shape& filter, const ConvAttrs& a) {
  const Layout& l = a.layout;
  const std::int64_t in_depth = dim_or_unknown(in, l.depth),
                     filter_depth = dim_or_unknown(filter, 2);
  if (in_depth >= 0 && filter_depth > 0 && in_depth % filter_depth != 0)
    throw ValueError("Depth of input (" + std::to_string(in_depth) +
                     ") is not a multiple of input depth of filter (" +
                     std::to_string(filter_depth) + ")");
  // symflow has no grouped convolution: the depths must match exactly.
  if (in_depth >= 0 && filter_depth >= 0 && in_depth != filter_depth)
    throw ValueError("Dimensions must be equal, but are " + std::to_string(in_depth) + " and " +
                     std::to_string(filter_depth));
  const std::int64_t rows = a.out_dim(true, dim_or_unknown(in, l.rows), dim_or_unknown(filter, 0));
  const std::int64_t cols = a.out_dim(false, dim_or_unknown(in, l.cols), dim_or_unknown(filter, 1));
  const auto d = l.order(dim_or_unknown(in, 0), rows, cols, dim_or_unknown(filter, 3));
  return Shape(Dims(d.begin(), d.end()));
}

inline std::vector<TensorSpec> infer_conv2d(const InferContext& c) {
  check_allowed(c, 0, "input", is_float);
  check_pair_dtype(c, "Conv2D", 0, "input", 1, "filter");
  require_rank(c.shape(0), 4);
  require_rank(c.shape(1), 4);
  const ConvAttrs a = conv_attrs(c, "Conv2D");
  return {{c.dtype(0), conv_output_shape(c.shape(0), c.shape(1), a)}};
}

SYMFLOW_OP_DEF(kConv2DOp, OpDef{.type = "Conv2D", .num_inputs = 2, .infer = infer_conv2d});

// ---- Conv2DBackpropInput (input_sizes, filter, out_backprop) ---------------------------

inline std::vector<TensorSpec> infer_conv2d_backprop_input(const InferContext& c) {
  check_allowed(c, 1, "filter", is_float);
  check_pair_dtype(c, "Conv2DBackpropInput", 1, "filter", 2, "out_backprop");
  if (c.dtype(0) != DType::int32)
    throw TypeError("Input 'input_sizes' of 'Conv2DBackpropInput' Op has type " +
                    std::string(dtype_name(c.dtype(0))) +
                    " that does not match expected type of int32.");
  require_rank(c.shape(1), 4);
  require_rank(c.shape(2), 4);
  const Layout l = conv_attrs(c, "Conv2DBackpropInput").layout;
  const auto d = l.order(dim_or_unknown(c.shape(2), 0), unknown_dim, unknown_dim,
                         dim_or_unknown(c.shape(1), 2));
  Shape fallback(Dims(d.begin(), d.end()));
  Shape s = shape_from_sizes(c, 0, "Conv2DBackpropInput", "input_sizes", fallback);
  return {{c.dtype(1), s}};
}

SYMFLOW_OP_DEF(kConv2DBackpropInputOp, OpDef{.type = "Conv2DBackpropInput",
                                             .num_inputs = 3,
                                             .infer = infer_conv2d_backprop_input});

// ---- Conv2DBackpropFilter (input, filter_sizes, out_backprop) ---------------------------

inline std::vector<TensorSpec> infer_conv2d_backprop_filter(const InferContext& c) {
  check_allowed(c, 0, "input", is_float);
  check_pair_dtype(c, "Conv2DBackpropFilter", 0, "input", 2, "out_backprop");
  if (c.dtype(1) != DType::int32)
    throw TypeError("Input 'filter_sizes' of 'Conv2DBackpropFilter' Op has type " +
                    std::string(dtype_name(c.dtype(1))) +
                    " that does not match expected type of int32.");
  require_rank(c.shape(0), 4);
  require_rank(c.shape(2), 4);
  const Layout l = conv_attrs(c, "Conv2DBackpropFilter").layout;
  Shape fallback({unknown_dim, unknown_dim, dim_or_unknown(c.shape(0), l.depth),
                  dim_or_unknown(c.shape(2), l.depth)});
  Shape s = shape_from_sizes(c, 1, "Conv2DBackpropFilter", "filter_sizes", fallback);
  return {{c.dtype(0), s}};
}

SYMFLOW_OP_DEF(kConv2DBackpropFilterOp, OpDef{.type = "Conv2DBackpropFilter",
                                              .num_inputs = 3,
                                              .infer = infer_conv2d_backprop_filter});

// ---- DepthwiseConv2dNative (input [N, H, W, C] or NCHW, filter [kh, kw, C, multiplier]) --
//
// Each input channel c has `multiplier` filters of its own; output channel c * multiplier + m
// is channel c convolved with filter[:, :, c, m], so the output has C * multiplier channels.
// TensorFlow's shape functions call the op "DepthwiseConv2D" in their attr messages.

inline std::vector<TensorSpec> infer_depthwise_conv2d_native(const InferContext& c) {
  check_allowed(c, 0, "input", is_float);
  check_pair_dtype(c, "DepthwiseConv2dNative", 0, "input", 1, "filter");
  require_rank(c.shape(0), 4);
  require_rank(c.shape(1), 4);
  const ConvAttrs a = conv_attrs(c, "DepthwiseConv2D", "DepthwiseConv2dNative");
  const Layout& l = a.layout;
  const Shape& in = c.shape(0);
  const Shape& filter = c.shape(1);
  std::int64_t depth = dim_or_unknown(in, l.depth);
  const std::int64_t filter_depth = dim_or_unknown(filter, 2);
  if (depth >= 0 && filter_depth >= 0 && depth != filter_depth)
    throw ValueError("Dimensions must be equal, but are " + std::to_string(depth) + " and " +
                     std::to_string(filter_depth));
  if (depth < 0) depth = filter_depth;
  const std::int64_t multiplier = dim_or_unknown(filter, 3);
  const std::int64_t out_depth = depth >= 0 && multiplier >= 0 ? depth * multiplier : unknown_dim;
  const std::int64_t rows = a.out_dim(true, dim_or_unknown(in, l.rows), dim_or_unknown(filter, 0));
  const std::int64_t cols = a.out_dim(false, dim_or_unknown(in, l.cols), dim_or_unknown(filter, 1));
  const auto d = l.order(dim_or_unknown(in, 0), rows, cols, out_depth);
  return {{c.dtype(0), Shape(Dims(d.begin(), d.end()))}};
}

SYMFLOW_OP_DEF(kDepthwiseConv2dNativeOp, OpDef{.type = "DepthwiseConv2dNative",
                                               .num_inputs = 2,
                                               .infer = infer_depthwise_conv2d_native});

// The shape a depthwise backprop's size vector (input_sizes, filter_sizes) gives: its value
// when it is a constant, else four unknown dims. Unlike Conv2D's, TensorFlow's shape
// functions take nothing from the other inputs, and want exactly 4 values.
inline Shape depthwise_sizes_shape(const InferContext& c, std::size_t i) {
  require_rank(c.shape(i), 1);
  if (const Value* v = c.constant(i)) {
    Shape s(shape_argument(*v));
    require_rank(s, 4);
    return s;
  }
  const std::int64_t count = dim_or_unknown(c.shape(i), 0);
  if (count >= 0 && count != 4)
    throw ValueError("Shape must be rank 4 but is rank " + std::to_string(count));
  return Shape::unknown_dims(4);
}

inline void require_int32_sizes(const InferContext& c, std::size_t i, std::string_view op,
                                std::string_view arg) {
  if (c.dtype(i) != DType::int32)
    throw TypeError("Input '" + std::string(arg) + "' of '" + std::string(op) + "' Op has type " +
                    std::string(dtype_name(c.dtype(i))) +
                    " that does not match expected type of int32.");
}

// ---- DepthwiseConv2dNativeBackpropInput (input_sizes, filter, out_backprop) -------------

inline std::vector<TensorSpec> infer_depthwise_backprop_input(const InferContext& c) {
  constexpr std::string_view op = "DepthwiseConv2dNativeBackpropInput";
  check_allowed(c, 1, "filter", is_float);
  check_pair_dtype(c, op, 1, "filter", 2, "out_backprop");
  require_int32_sizes(c, 0, op, "input_sizes");
  conv_attrs(c, op);
  return {{c.dtype(1), depthwise_sizes_shape(c, 0)}};
}

SYMFLOW_OP_DEF(kDepthwiseConv2dNativeBackpropInputOp,
               OpDef{.type = "DepthwiseConv2dNativeBackpropInput",
                     .num_inputs = 3,
                     .infer = infer_depthwise_backprop_input});

// ---- DepthwiseConv2dNativeBackpropFilter (input, filter_sizes, out_backprop) ------------

inline std::vector<TensorSpec> infer_depthwise_backprop_filter(const InferContext& c) {
  constexpr std::string_view op = "DepthwiseConv2dNativeBackpropFilter";
  check_allowed(c, 0, "input", is_float);
  check_pair_dtype(c, op, 0, "input", 2, "out_backprop");
  require_int32_sizes(c, 1, op, "filter_sizes");
  conv_attrs(c, op);
  return {{c.dtype(0), depthwise_sizes_shape(c, 1)}};
}

SYMFLOW_OP_DEF(kDepthwiseConv2dNativeBackpropFilterOp,
               OpDef{.type = "DepthwiseConv2dNativeBackpropFilter",
                     .num_inputs = 3,
                     .infer = infer_depthwise_backprop_filter});

// ---- pooling --------------------------------------------------------------------------

// ksize and strides in data_format order; the padding, SAME/VALID or explicit (MaxPool).
struct PoolAttrs {
  std::vector<std::int64_t> ksize, strides;
  cpu::Padding padding{};
  Layout layout;
  bool is_explicit = false;
  ExplicitPads pads;

  // The pooled size of the rows (or cols) of size `in`.
  std::int64_t out_dim(bool rows, std::int64_t in) const {
    const int i = rows ? layout.rows : layout.cols;
    if (is_explicit)
      return explicit_windowed_dim(in, ksize[i], strides[i], 1, rows ? pads.top : pads.left,
                                   rows ? pads.bottom : pads.right);
    return windowed_dim(in, ksize[i], strides[i], 1, padding);
  }
};

inline PoolAttrs pool_attrs(const InferContext& c, std::string_view op) {
  PoolAttrs a;
  a.layout = layout_attr(c, op);
  a.ksize = four_values(c, op, "ksize", "ksize attribute");
  a.strides = four_values(c, op, "strides", "stride attribute");
  a.padding = padding_of(c, op, a.is_explicit);
  a.pads = check_explicit_paddings(optional_int_list(c.attrs, "explicit_paddings"), a.is_explicit,
                                   a.layout, [](const std::string& m) { throw ValueError(m); });
  return a;
}

// The pooled shape of `in` (in a.layout). MaxPool also windows the depth (TensorFlow's
// depthwise max pooling, which the kernel declines); AvgPool keeps it.
inline Shape pool_output_shape(const Shape& in, const PoolAttrs& a, bool window_depth) {
  const Layout& l = a.layout;
  const std::int64_t rows = a.out_dim(true, dim_or_unknown(in, l.rows));
  const std::int64_t cols = a.out_dim(false, dim_or_unknown(in, l.cols));
  std::int64_t depth = dim_or_unknown(in, l.depth);
  if (window_depth && (a.ksize[l.depth] != 1 || a.strides[l.depth] != 1))
    depth = windowed_dim(depth, a.ksize[l.depth], a.strides[l.depth], 1, a.padding);
  const auto d = l.order(dim_or_unknown(in, 0), rows, cols, depth);
  return Shape(Dims(d.begin(), d.end()));
}

inline std::vector<TensorSpec> infer_max_pool(const InferContext& c) {
  check_allowed(c, 0, "input", is_float);
  require_rank(c.shape(0), 4);
  return {{c.dtype(0), pool_output_shape(c.shape(0), pool_attrs(c, "MaxPool"), true)}};
}

inline std::vector<TensorSpec> infer_avg_pool(const InferContext& c) {
  check_allowed(c, 0, "value", is_float);
  require_rank(c.shape(0), 4);
  return {{c.dtype(0), pool_output_shape(c.shape(0), pool_attrs(c, "AvgPool"), false)}};
}

SYMFLOW_OP_DEF(kMaxPoolOp, OpDef{.type = "MaxPool", .num_inputs = 1, .infer = infer_max_pool});
SYMFLOW_OP_DEF(kAvgPoolOp, OpDef{.type = "AvgPool", .num_inputs = 1, .infer = infer_avg_pool});

// ---- MaxPoolGrad (orig_input, orig_output, grad) ------------------------------------------

inline std::vector<TensorSpec> infer_max_pool_grad(const InferContext& c) {
  check_allowed(c, 0, "orig_input", is_float);
  check_pair_dtype(c, "MaxPoolGrad", 0, "orig_input", 1, "orig_output");
  check_pair_dtype(c, "MaxPoolGrad", 0, "orig_input", 2, "grad");
  for (std::size_t i = 0; i < 3; ++i) require_rank(c.shape(i), 4);
  pool_attrs(c, "MaxPoolGrad");
  return {{c.dtype(0), c.shape(0).has_rank() ? c.shape(0) : Shape::unknown_dims(4)}};
}

SYMFLOW_OP_DEF(kMaxPoolGradOp,
               OpDef{.type = "MaxPoolGrad", .num_inputs = 3, .infer = infer_max_pool_grad});

// ---- AvgPoolGrad (orig_input_shape, grad) -------------------------------------------------

inline std::vector<TensorSpec> infer_avg_pool_grad(const InferContext& c) {
  check_allowed(c, 1, "grad", is_float);
  if (c.dtype(0) != DType::int32)
    throw TypeError("Input 'orig_input_shape' of 'AvgPoolGrad' Op has type " +
                    std::string(dtype_name(c.dtype(0))) +
                    " that does not match expected type of int32.");
  require_rank(c.shape(1), 4);
  pool_attrs(c, "AvgPoolGrad");
  Shape s = shape_from_sizes(c, 0, "AvgPoolGrad", "orig_input_shape", Shape::unknown_dims(4));
  return {{c.dtype(1), s}};
}

SYMFLOW_OP_DEF(kAvgPoolGradOp,
               OpDef{.type = "AvgPoolGrad", .num_inputs = 2, .infer = infer_avg_pool_grad});

}  // namespace detail::conv

namespace detail {
using conv::kAvgPoolGradOp;
using conv::kAvgPoolOp;
using conv::kConv2DBackpropFilterOp;
using conv::kConv2DBackpropInputOp;
using conv::kConv2DOp;
using conv::kDepthwiseConv2dNativeBackpropFilterOp;
using conv::kDepthwiseConv2dNativeBackpropInputOp;
using conv::kDepthwiseConv2dNativeOp;
using conv::kMaxPoolGradOp;
using conv::kMaxPoolOp;
}  // namespace detail

}  // namespace symflow
