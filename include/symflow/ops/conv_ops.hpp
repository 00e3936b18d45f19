#pragma once
// symflow::nn::conv2d, max_pool, avg_pool (TF1's Conv2D, MaxPool, AvgPool) and the ops
// their gradients are made of (Conv2DBackpropInput, Conv2DBackpropFilter, MaxPoolGrad,
// AvgPoolGrad). NHWC only, as TensorFlow's CPU kernels; the numbers are computed by
// backend/cpu/conv.hpp.
//
// The attrs are TensorFlow 1.x's before 1.14 (no explicit_paddings), like the rest of
// symflow's GraphDefs; padding is "SAME" or "VALID".

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "symflow/backend/cpu/conv.hpp"
#include "symflow/ops/op_builder.hpp"

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

// ---- shape-function helpers -------------------------------------------------------

inline void require_conv_rank(const Shape& s, int rank) {
  if (s.has_rank() && s.rank() != rank)
    throw ValueError("Shape must be rank " + std::to_string(rank) + " but is rank " +
                     std::to_string(s.rank()));
}
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
  require_conv_rank(c.shape(i), 1);
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
  require_conv_rank(c.shape(0), 4);
  require_conv_rank(c.shape(1), 4);
  const ConvAttrs a = conv_attrs(c, "Conv2D");
  return {{c.dtype(0), conv_output_shape(c.shape(0), c.shape(1), a)}};
}

// ---- kernels: attrs and geometry, checked at run time --------------------------------

struct KernelWindow {
  std::int64_t stride_rows = 1, stride_cols = 1, dilation_rows = 1, dilation_cols = 1;
  std::int64_t window_rows = 1, window_cols = 1;  // pooling only
  cpu::Padding padding{};
};

inline cpu::Padding kernel_padding(const KernelContext& ctx) {
  const auto& s = ctx.attr<std::string>("padding");
  cpu::Padding p{};
  if (!cpu::parse_padding(s, p)) ctx.fail("Unknown padding " + s);
  if (ctx.attr<std::string>("data_format") != "NHWC")
    ctx.fail("symflow's CPU kernels support data_format NHWC only");
  return p;
}

inline const std::vector<std::int64_t>& kernel_four(const KernelContext& ctx,
                                                    std::string_view attr) {
  const auto& v = ctx.attr<IntList>(attr).items;
  if (v.size() != 4) ctx.fail("Attr '" + std::string(attr) + "' must have 4 values");
  return v;
}

inline KernelWindow conv_kernel_window(const KernelContext& ctx) {
  KernelWindow w;
  const auto& strides = kernel_four(ctx, "strides");
  const auto& dilations = kernel_four(ctx, "dilations");
  if (strides[0] != 1 || strides[3] != 1)
    throw UnimplementedError(
        "Current implementation does not yet support strides in the batch and depth dimensions.",
        ctx.node_name());
  if (dilations[0] != 1 || dilations[3] != 1)
    ctx.fail(
        "Current implementation does not yet support dilations in the batch and depth "
        "dimensions.");
  if (strides[1] < 1 || strides[2] < 1) ctx.fail("Strides must be > 0");
  if (dilations[1] < 1 || dilations[2] < 1) ctx.fail("Dilation rates must be >= 1");
  w.stride_rows = strides[1];
  w.stride_cols = strides[2];
  w.dilation_rows = dilations[1];
  w.dilation_cols = dilations[2];
  w.padding = kernel_padding(ctx);
  return w;
}

inline void require_4d(const KernelContext& ctx, const Dims& d, std::string_view what) {
  if (d.size() != 4) ctx.fail(std::string(what) + " must be 4-dimensional: " + dims_to_string(d));
}

// A 4-element int32/int64 size vector (input_sizes, filter_sizes, ...), a host value (the CPU
// and GPU kernels share it).
inline Dims kernel_sizes(const KernelContext& ctx, const Value& v, std::string_view what) {
  if (v.rank() != 1 || v.size() != 4)
    ctx.fail(std::string(what) + " must be a vector of 4 values, got shape " +
             dims_to_string(v.dims()));
  Dims d = shape_argument(v);
  for (std::int64_t x : d)
    if (x < 0) ctx.fail(std::string(what) + " must not be negative: " + dims_to_string(d));
  return d;
}
inline Dims kernel_sizes(const KernelContext& ctx, std::size_t i, std::string_view what) {
  return kernel_sizes(ctx, ctx.input(i), what);
}

// The conv geometry for input dims `in` and filter dims `f`; fails where TensorFlow's
// kernels do.
inline cpu::Conv2DGeometry kernel_conv_geometry(const KernelContext& ctx, std::string_view label,
                                                const Dims& in, const Dims& f,
                                                const KernelWindow& w) {
  if (in[3] != f[2])
    ctx.fail(std::string(label) + ": input and filter must have the same depth: " +
             std::to_string(in[3]) + " vs " + std::to_string(f[2]));
  const std::int64_t in4[4] = {in[0], in[1], in[2], in[3]};
  const std::int64_t f4[4] = {f[0], f[1], f[2], f[3]};
  cpu::Conv2DGeometry g = cpu::conv2d_geometry(in4, f4, w.stride_rows, w.stride_cols,
                                               w.dilation_rows, w.dilation_cols, w.padding);
  if (g.out_rows < 0 || g.out_cols < 0)
    ctx.fail(std::string(label) + ": computed output size would be negative: input " +
             dims_to_string(in) + ", filter " + dims_to_string(f));
  return g;
}

// out_backprop must have the dims the forward conv would produce.
inline void check_out_backprop(const KernelContext& ctx, std::string_view label,
                               const cpu::Conv2DGeometry& g, const Dims& got) {
  const Dims want{g.batch, g.out_rows, g.out_cols, g.out_depth};
  if (got != want)
    ctx.fail(std::string(label) + ": out_backprop has shape " + dims_to_string(got) +
             " but the input and filter sizes give " + dims_to_string(want));
}

template <class F>
void visit_float(KernelContext& ctx, DType d, F&& f) {
  if (d == DType::float32)
    f(float{});
  else if (d == DType::float64)
    f(double{});
  else
    ctx.fail("No kernel for dtype " + std::string(dtype_name(d)) + " on this op");
}

SYMFLOW_CPU_KERNEL(conv2d_kernel) {
  const Value& in = ctx.input(0);
  const Value& filter = ctx.input(1);
  const KernelWindow w = conv_kernel_window(ctx);
  require_4d(ctx, in.dims(), "input");
  require_4d(ctx, filter.dims(), "filter");
  const cpu::Conv2DGeometry g = kernel_conv_geometry(ctx, "Conv2D", in.dims(), filter.dims(), w);
  visit_float(ctx, in.dtype(), [&](auto zero) {
    using T = decltype(zero);
    Value& out = ctx.allocate_output_for_overwrite(0, in.dtype(),
                                                   {g.batch, g.out_rows, g.out_cols, g.out_depth});
    cpu::conv2d_forward<T>(ctx, g, in.data<T>(), filter.data<T>(), out.data<T>());
  });
}

inline constexpr OpDef kConv2DOp{
    .type = "Conv2D", .num_inputs = 2, .infer = infer_conv2d, .cpu_kernel = conv2d_kernel};

// ---- Conv2DBackpropInput (input_sizes, filter, out_backprop) ---------------------------

inline std::vector<TensorSpec> infer_conv2d_backprop_input(const InferContext& c) {
  check_allowed(c, 1, "filter", is_float);
  check_pair_dtype(c, "Conv2DBackpropInput", 1, "filter", 2, "out_backprop");
  if (c.dtype(0) != DType::int32)
    throw TypeError("Input 'input_sizes' of 'Conv2DBackpropInput' Op has type " +
                    std::string(dtype_name(c.dtype(0))) +
                    " that does not match expected type of int32.");
  require_conv_rank(c.shape(1), 4);
  require_conv_rank(c.shape(2), 4);
  conv_attrs(c, "Conv2DBackpropInput");
  Shape fallback(
      {dim_or_unknown(c.shape(2), 0), unknown_dim, unknown_dim, dim_or_unknown(c.shape(1), 2)});
  Shape s = shape_from_sizes(c, 0, "Conv2DBackpropInput", "input_sizes", fallback);
  return {{c.dtype(1), s}};
}

SYMFLOW_CPU_KERNEL(conv2d_backprop_input_kernel) {
  constexpr std::string_view label = "Conv2DBackpropInput";
  const Dims sizes = kernel_sizes(ctx, 0, "input_sizes");
  const Value& filter = ctx.input(1);
  const Value& dy = ctx.input(2);
  const KernelWindow w = conv_kernel_window(ctx);
  require_4d(ctx, filter.dims(), "filter");
  require_4d(ctx, dy.dims(), "out_backprop");
  const cpu::Conv2DGeometry g = kernel_conv_geometry(ctx, label, sizes, filter.dims(), w);
  check_out_backprop(ctx, label, g, dy.dims());
  visit_float(ctx, filter.dtype(), [&](auto zero) {
    using T = decltype(zero);
    Value& out = ctx.allocate_output(0, filter.dtype(), sizes);
    cpu::conv2d_backprop_input<T>(ctx, g, filter.data<T>(), dy.data<T>(), out.data<T>());
  });
}

inline constexpr OpDef kConv2DBackpropInputOp{.type = "Conv2DBackpropInput",
                                              .num_inputs = 3,
                                              .infer = infer_conv2d_backprop_input,
                                              .cpu_kernel = conv2d_backprop_input_kernel};

// ---- Conv2DBackpropFilter (input, filter_sizes, out_backprop) ---------------------------

inline std::vector<TensorSpec> infer_conv2d_backprop_filter(const InferContext& c) {
  check_allowed(c, 0, "input", is_float);
  check_pair_dtype(c, "Conv2DBackpropFilter", 0, "input", 2, "out_backprop");
  if (c.dtype(1) != DType::int32)
    throw TypeError("Input 'filter_sizes' of 'Conv2DBackpropFilter' Op has type " +
                    std::string(dtype_name(c.dtype(1))) +
                    " that does not match expected type of int32.");
  require_conv_rank(c.shape(0), 4);
  require_conv_rank(c.shape(2), 4);
  conv_attrs(c, "Conv2DBackpropFilter");
  Shape fallback(
      {unknown_dim, unknown_dim, dim_or_unknown(c.shape(0), 3), dim_or_unknown(c.shape(2), 3)});
  Shape s = shape_from_sizes(c, 1, "Conv2DBackpropFilter", "filter_sizes", fallback);
  return {{c.dtype(0), s}};
}

SYMFLOW_CPU_KERNEL(conv2d_backprop_filter_kernel) {
  constexpr std::string_view label = "Conv2DBackpropFilter";
  const Value& in = ctx.input(0);
  const Dims sizes = kernel_sizes(ctx, 1, "filter_sizes");
  const Value& dy = ctx.input(2);
  const KernelWindow w = conv_kernel_window(ctx);
  require_4d(ctx, in.dims(), "input");
  require_4d(ctx, dy.dims(), "out_backprop");
  const cpu::Conv2DGeometry g = kernel_conv_geometry(ctx, label, in.dims(), sizes, w);
  check_out_backprop(ctx, label, g, dy.dims());
  visit_float(ctx, in.dtype(), [&](auto zero) {
    using T = decltype(zero);
    Value& out = ctx.allocate_output(0, in.dtype(), sizes);
    cpu::conv2d_backprop_filter<T>(ctx, g, in.data<T>(), dy.data<T>(), out.data<T>());
  });
}

inline constexpr OpDef kConv2DBackpropFilterOp{.type = "Conv2DBackpropFilter",
                                               .num_inputs = 3,
                                               .infer = infer_conv2d_backprop_filter,
                                               .cpu_kernel = conv2d_backprop_filter_kernel};

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
  require_conv_rank(c.shape(0), 4);
  return {{c.dtype(0), pool_output_shape(c.shape(0), pool_attrs(c, "MaxPool"), true)}};
}

inline std::vector<TensorSpec> infer_avg_pool(const InferContext& c) {
  check_allowed(c, 0, "value", is_float);
  require_conv_rank(c.shape(0), 4);
  return {{c.dtype(0), pool_output_shape(c.shape(0), pool_attrs(c, "AvgPool"), false)}};
}

// The pooling geometry of input dims `in`; pooling over batch or depth is declined, as
// TensorFlow's CPU kernels decline it (they pool depth alone, which symflow does not).
inline cpu::Pool2DGeometry kernel_pool_geometry(const KernelContext& ctx, const Dims& in) {
  const auto& ksize = kernel_four(ctx, "ksize");
  const auto& strides = kernel_four(ctx, "strides");
  const cpu::Padding padding = kernel_padding(ctx);
  if (ksize[0] != 1 || strides[0] != 1)
    throw UnimplementedError("Pooling is not yet supported on the batch dimension.",
                             ctx.node_name());
  if (ksize[3] != 1 || strides[3] != 1)
    throw UnimplementedError(
        "MaxPooling supports exactly one of pooling across depth or pooling across width/height.",
        ctx.node_name());
  if (ksize[1] < 1 || ksize[2] < 1)
    ctx.fail("Sliding window ksize must be positive: " + int_list_text(ksize));
  if (strides[1] < 1 || strides[2] < 1) ctx.fail("Sliding window strides must be positive");
  require_4d(ctx, in, "input");
  const std::int64_t in4[4] = {in[0], in[1], in[2], in[3]};
  cpu::Pool2DGeometry g =
      cpu::pool2d_geometry(in4, ksize[1], ksize[2], strides[1], strides[2], padding);
  if (g.out_rows < 0 || g.out_cols < 0)
    ctx.fail("Computed output size would be negative: input " + dims_to_string(in) + ", ksize " +
             int_list_text(ksize));
  return g;
}

inline Dims pool_out_dims(const cpu::Pool2DGeometry& g) {
  return {g.batch, g.out_rows, g.out_cols, g.depth};
}

// A pooling gradient's input `what` must have the pool's output shape (the CPU and GPU
// kernels share the check).
inline void require_pool_out_shape(const KernelContext& ctx, const cpu::Pool2DGeometry& g,
                                   const Dims& got, std::string_view what) {
  const Dims want = pool_out_dims(g);
  if (got != want)
    ctx.fail("Expected " + std::string(what) + " shape to be " + dims_to_string(want) +
             ", but got " + dims_to_string(got));
}

SYMFLOW_CPU_KERNEL(max_pool_kernel) {
  const Value& in = ctx.input(0);
  const cpu::Pool2DGeometry g = kernel_pool_geometry(ctx, in.dims());
  visit_float(ctx, in.dtype(), [&](auto zero) {
    using T = decltype(zero);
    Value& out = ctx.allocate_output(0, in.dtype(), pool_out_dims(g));
    cpu::max_pool_forward<T>(ctx, g, in.data<T>(), out.data<T>());
  });
}

SYMFLOW_CPU_KERNEL(avg_pool_kernel) {
  const Value& in = ctx.input(0);
  const cpu::Pool2DGeometry g = kernel_pool_geometry(ctx, in.dims());
  visit_float(ctx, in.dtype(), [&](auto zero) {
    using T = decltype(zero);
    Value& out = ctx.allocate_output(0, in.dtype(), pool_out_dims(g));
    cpu::avg_pool_forward<T>(ctx, g, in.data<T>(), out.data<T>());
  });
}

inline constexpr OpDef kMaxPoolOp{
    .type = "MaxPool", .num_inputs = 1, .infer = infer_max_pool, .cpu_kernel = max_pool_kernel};
inline constexpr OpDef kAvgPoolOp{
    .type = "AvgPool", .num_inputs = 1, .infer = infer_avg_pool, .cpu_kernel = avg_pool_kernel};

// ---- MaxPoolGrad (orig_input, orig_output, grad) ------------------------------------------

inline std::vector<TensorSpec> infer_max_pool_grad(const InferContext& c) {
  check_allowed(c, 0, "orig_input", is_float);
  check_pair_dtype(c, "MaxPoolGrad", 0, "orig_input", 1, "orig_output");
  check_pair_dtype(c, "MaxPoolGrad", 0, "orig_input", 2, "grad");
  for (std::size_t i = 0; i < 3; ++i) require_conv_rank(c.shape(i), 4);
  pool_attrs(c, "MaxPoolGrad");
  return {{c.dtype(0), c.shape(0).has_rank() ? c.shape(0) : Shape::unknown_dims(4)}};
}

SYMFLOW_CPU_KERNEL(max_pool_grad_kernel) {
  const Value& in = ctx.input(0);
  const Value& out = ctx.input(1);
  const Value& dy = ctx.input(2);
  const cpu::Pool2DGeometry g = kernel_pool_geometry(ctx, in.dims());
  require_pool_out_shape(ctx, g, out.dims(), "orig_output");
  require_pool_out_shape(ctx, g, dy.dims(), "grad");
  visit_float(ctx, in.dtype(), [&](auto zero) {
    using T = decltype(zero);
    Value& dx = ctx.allocate_output(0, in.dtype(), in.dims());
    cpu::max_pool_backward<T>(ctx, g, in.data<T>(), dy.data<T>(), dx.data<T>());
  });
}

inline constexpr OpDef kMaxPoolGradOp{.type = "MaxPoolGrad",
                                      .num_inputs = 3,
                                      .infer = infer_max_pool_grad,
                                      .cpu_kernel = max_pool_grad_kernel};

// ---- AvgPoolGrad (orig_input_shape, grad) -------------------------------------------------

inline std::vector<TensorSpec> infer_avg_pool_grad(const InferContext& c) {
  check_allowed(c, 1, "grad", is_float);
  if (c.dtype(0) != DType::int32)
    throw TypeError("Input 'orig_input_shape' of 'AvgPoolGrad' Op has type " +
                    std::string(dtype_name(c.dtype(0))) +
                    " that does not match expected type of int32.");
  require_conv_rank(c.shape(1), 4);
  pool_attrs(c, "AvgPoolGrad");
  Shape s = shape_from_sizes(c, 0, "AvgPoolGrad", "orig_input_shape", Shape::unknown_dims(4));
  return {{c.dtype(1), s}};
}

SYMFLOW_CPU_KERNEL(avg_pool_grad_kernel) {
  const Dims sizes = kernel_sizes(ctx, 0, "orig_input_shape");
  const Value& dy = ctx.input(1);
  const cpu::Pool2DGeometry g = kernel_pool_geometry(ctx, sizes);
  require_pool_out_shape(ctx, g, dy.dims(), "grad");
  visit_float(ctx, dy.dtype(), [&](auto zero) {
    using T = decltype(zero);
    Value& dx = ctx.allocate_output(0, dy.dtype(), sizes);
    cpu::avg_pool_backward<T>(ctx, g, dy.data<T>(), dx.data<T>());
  });
}

inline constexpr OpDef kAvgPoolGradOp{.type = "AvgPoolGrad",
                                      .num_inputs = 2,
                                      .infer = infer_avg_pool_grad,
                                      .cpu_kernel = avg_pool_grad_kernel};

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

namespace detail {
using conv::kAvgPoolGradOp;
using conv::kAvgPoolOp;
using conv::kConv2DBackpropFilterOp;
using conv::kConv2DBackpropInputOp;
using conv::kConv2DOp;
using conv::kMaxPoolGradOp;
using conv::kMaxPoolOp;
}  // namespace detail

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
