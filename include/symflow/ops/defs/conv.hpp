#pragma once
// The conv and pooling ops' descriptions (TF1's Conv2D, DepthwiseConv2dNative, MaxPool,
// AvgPool and the ops their gradients are made of: Conv2DBackpropInput,
// Conv2DBackpropFilter, DepthwiseConv2dNativeBackpropInput,
// DepthwiseConv2dNativeBackpropFilter, MaxPoolGrad, AvgPoolGrad): the shape functions, the
// helpers they share with the builders, and the OpDefs. No kernel and no graph: the CPU
// kernels are in backend/cpu/kernels/conv.hpp, the graph-building functions in
// ops/conv_ops.hpp.
//
// The attrs are TensorFlow 1.x's before 1.14 (no explicit_paddings), like the rest of
// symflow's GraphDefs; padding is "SAME" or "VALID" (ops/defs/window.hpp).

#include <cstdint>
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

inline std::string padding_error(std::string_view op, std::string_view padding) {
  return "Attr 'padding' of '" + std::string(op) + "' Op passed string '" + std::string(padding) +
         "' not in: \"SAME\", \"VALID\".";
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

inline cpu::Padding padding_of(const InferContext& c, std::string_view op) {
  const auto& s = c.attr<std::string>("padding");
  cpu::Padding p{};
  if (!cpu::parse_padding(s, p)) throw ValueError(padding_error(op, s));
  return p;
}

inline void require_nhwc(const InferContext& c) {
  const auto& f = c.attr<std::string>("data_format");
  if (f != "NHWC")
    throw ValueError("symflow supports data_format NHWC only, got " + f +
                     " (TensorFlow's CPU kernels do too)");
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

struct ConvAttrs {
  std::vector<std::int64_t> strides, dilations;
  cpu::Padding padding{};
};

inline ConvAttrs conv_attrs(const InferContext& c, std::string_view op) {
  require_nhwc(c);
  ConvAttrs a;
  a.strides = four_values(c, op, "strides", "stride attribute");
  a.dilations = four_values(c, op, "dilations", "dilations attribute");
  a.padding = padding_of(c, op);
  return a;
}

// The output shape of a conv with input shape `in` and filter shape `filter`.
inline Shape conv_output_shape(const Shape& in, const Shape& filter, const ConvAttrs& a) {
  const std::int64_t in_depth = dim_or_unknown(in, 3), filter_depth = dim_or_unknown(filter, 2);
  if (in_depth >= 0 && filter_depth > 0 && in_depth % filter_depth != 0)
    throw ValueError("Depth of input (" + std::to_string(in_depth) +
                     ") is not a multiple of input depth of filter (" +
                     std::to_string(filter_depth) + ")");
  // symflow has no grouped convolution: the depths must match exactly.
  if (in_depth >= 0 && filter_depth >= 0 && in_depth != filter_depth)
    throw ValueError("Dimensions must be equal, but are " + std::to_string(in_depth) + " and " +
                     std::to_string(filter_depth));
  const std::int64_t rows = windowed_dim(dim_or_unknown(in, 1), dim_or_unknown(filter, 0),
                                         a.strides[1], a.dilations[1], a.padding);
  const std::int64_t cols = windowed_dim(dim_or_unknown(in, 2), dim_or_unknown(filter, 1),
                                         a.strides[2], a.dilations[2], a.padding);
  return Shape({dim_or_unknown(in, 0), rows, cols, dim_or_unknown(filter, 3)});
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
  conv_attrs(c, "Conv2DBackpropInput");
  Shape fallback(
      {dim_or_unknown(c.shape(2), 0), unknown_dim, unknown_dim, dim_or_unknown(c.shape(1), 2)});
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
  conv_attrs(c, "Conv2DBackpropFilter");
  Shape fallback(
      {unknown_dim, unknown_dim, dim_or_unknown(c.shape(0), 3), dim_or_unknown(c.shape(2), 3)});
  Shape s = shape_from_sizes(c, 1, "Conv2DBackpropFilter", "filter_sizes", fallback);
  return {{c.dtype(0), s}};
}

SYMFLOW_OP_DEF(kConv2DBackpropFilterOp, OpDef{.type = "Conv2DBackpropFilter",
                                              .num_inputs = 3,
                                              .infer = infer_conv2d_backprop_filter});

// ---- DepthwiseConv2dNative (input [N, H, W, C], filter [kh, kw, C, multiplier]) ----------
//
// Each input channel c has `multiplier` filters of its own; output channel c * multiplier + m
// is channel c convolved with filter[:, :, c, m], so the output has C * multiplier channels.
// TensorFlow's shape functions call the op "DepthwiseConv2D" in their attr messages.

inline std::vector<TensorSpec> infer_depthwise_conv2d_native(const InferContext& c) {
  check_allowed(c, 0, "input", is_float);
  check_pair_dtype(c, "DepthwiseConv2dNative", 0, "input", 1, "filter");
  require_rank(c.shape(0), 4);
  require_rank(c.shape(1), 4);
  const ConvAttrs a = conv_attrs(c, "DepthwiseConv2D");
  const Shape& in = c.shape(0);
  const Shape& filter = c.shape(1);
  std::int64_t depth = dim_or_unknown(in, 3);
  const std::int64_t filter_depth = dim_or_unknown(filter, 2);
  if (depth >= 0 && filter_depth >= 0 && depth != filter_depth)
    throw ValueError("Dimensions must be equal, but are " + std::to_string(depth) + " and " +
                     std::to_string(filter_depth));
  if (depth < 0) depth = filter_depth;
  const std::int64_t multiplier = dim_or_unknown(filter, 3);
  const std::int64_t out_depth = depth >= 0 && multiplier >= 0 ? depth * multiplier : unknown_dim;
  const std::int64_t rows = windowed_dim(dim_or_unknown(in, 1), dim_or_unknown(filter, 0),
                                         a.strides[1], a.dilations[1], a.padding);
  const std::int64_t cols = windowed_dim(dim_or_unknown(in, 2), dim_or_unknown(filter, 1),
                                         a.strides[2], a.dilations[2], a.padding);
  return {{c.dtype(0), Shape({dim_or_unknown(in, 0), rows, cols, out_depth})}};
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

struct PoolAttrs {
  std::vector<std::int64_t> ksize, strides;
  cpu::Padding padding{};
};

inline PoolAttrs pool_attrs(const InferContext& c, std::string_view op) {
  require_nhwc(c);
  PoolAttrs a;
  a.ksize = four_values(c, op, "ksize", "ksize attribute");
  a.strides = four_values(c, op, "strides", "stride attribute");
  a.padding = padding_of(c, op);
  return a;
}

// The pooled shape of `in`. MaxPool also windows the depth (TensorFlow's depthwise max
// pooling, which the kernel declines); AvgPool keeps it.
inline Shape pool_output_shape(const Shape& in, const PoolAttrs& a, bool window_depth) {
  const std::int64_t rows =
      windowed_dim(dim_or_unknown(in, 1), a.ksize[1], a.strides[1], 1, a.padding);
  const std::int64_t cols =
      windowed_dim(dim_or_unknown(in, 2), a.ksize[2], a.strides[2], 1, a.padding);
  std::int64_t depth = dim_or_unknown(in, 3);
  if (window_depth && (a.ksize[3] != 1 || a.strides[3] != 1))
    depth = windowed_dim(depth, a.ksize[3], a.strides[3], 1, a.padding);
  return Shape({dim_or_unknown(in, 0), rows, cols, depth});
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
