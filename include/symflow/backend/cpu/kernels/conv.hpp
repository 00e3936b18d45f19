#pragma once
// The conv and pooling ops' CPU kernels (Conv2D, Conv2DBackpropInput,
// Conv2DBackpropFilter, DepthwiseConv2dNative and its two backprops, MaxPool, AvgPool,
// MaxPoolGrad, AvgPoolGrad): their attrs and geometry checked at run time, the numbers
// computed by backend/cpu/conv.hpp and depthwise_conv.hpp over NHWC buffers; and
// kConvCpuKernels, the table that maps each conv OpDef (ops/defs/conv.hpp) to its kernel.
// The GPU kernels share the run-time checks.
//
// data_format "NCHW" (every op here, as graphs trained on GPUs carry it): the kernels copy the
// 4-D tensors to NHWC, run the NHWC code and copy the result back (the GPU kernels do the same
// on the device). Padding "EXPLICIT" (Conv2D, DepthwiseConv2dNative, their backprops, MaxPool
// and MaxPoolGrad) is the geometry's pad_top and pad_left plus a larger output, so both
// backends run it.

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "symflow/backend/cpu/conv.hpp"
#include "symflow/backend/cpu/depthwise_conv.hpp"
#include "symflow/backend/cpu/kernel_table.hpp"
#include "symflow/backend/kernel_context.hpp"
#include "symflow/ops/defs/conv.hpp"

namespace symflow {

namespace detail::conv {

// ---- kernels: attrs and geometry, checked at run time --------------------------------

struct KernelWindow {
  std::int64_t stride_rows = 1, stride_cols = 1, dilation_rows = 1, dilation_cols = 1;
  std::int64_t window_rows = 1, window_cols = 1;  // pooling only
  cpu::Padding padding{};
  Layout layout;             // the tensors' data_format
  bool is_explicit = false;  // padding "EXPLICIT": `pads` says how much
  ExplicitPads pads;
};

// The data_format attr (the CPU and GPU kernels share it).
inline Layout kernel_layout(const KernelContext& ctx) {
  const auto& f = ctx.attr<std::string>("data_format");
  const std::optional<Layout> layout = layout_of(f);
  if (!layout) ctx.fail("Unknown data_format " + f);
  return *layout;
}

inline cpu::Padding kernel_padding(const KernelContext& ctx) {
  const auto& s = ctx.attr<std::string>("padding");
  cpu::Padding p{};
  if (!cpu::parse_padding(s, p)) ctx.fail("Unknown padding " + s);
  return p;
}

inline const std::vector<std::int64_t>& kernel_four(const KernelContext& ctx,
                                                    std::string_view attr) {
  const auto& v = ctx.attr<IntList>(attr).items;
  if (v.size() != 4) ctx.fail("Attr '" + std::string(attr) + "' must have 4 values");
  return v;
}

// Conv2D's and its backprops' attrs; strides and dilations read in the data_format's order.
inline KernelWindow conv_kernel_window(const KernelContext& ctx) {
  KernelWindow w;
  w.layout = kernel_layout(ctx);
  const int r = w.layout.rows, c = w.layout.cols, d = w.layout.depth;
  const auto& strides = kernel_four(ctx, "strides");
  const auto& dilations = kernel_four(ctx, "dilations");
  if (strides[0] != 1 || strides[d] != 1)
    throw UnimplementedError(
        "Current implementation does not yet support strides in the batch and depth dimensions.",
        ctx.node_name());
  if (dilations[0] != 1 || dilations[d] != 1)
    ctx.fail(
        "Current implementation does not yet support dilations in the batch and depth "
        "dimensions.");
  if (strides[r] < 1 || strides[c] < 1) ctx.fail("Strides must be > 0");
  if (dilations[r] < 1 || dilations[c] < 1) ctx.fail("Dilation rates must be >= 1");
  w.stride_rows = strides[r];
  w.stride_cols = strides[c];
  w.dilation_rows = dilations[r];
  w.dilation_cols = dilations[c];
  w.is_explicit = ctx.attr<std::string>("padding") == "EXPLICIT";
  if (w.is_explicit)
    w.pads = check_explicit_paddings(ctx.attr<IntList>("explicit_paddings").items, true, w.layout,
                                     [&](const std::string& m) { ctx.fail(m); });
  else
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

// The conv geometry for NHWC input dims `in` and filter dims `f`; fails where TensorFlow's
// kernels do. Explicit pads: the VALID geometry of the padded input, then the real input
// with the leading pads (the trailing ones are what the windows read past its end).
inline cpu::Conv2DGeometry kernel_conv_geometry(const KernelContext& ctx, std::string_view label,
                                                const Dims& in, const Dims& f,
                                                const KernelWindow& w) {
  if (in[3] != f[2])
    ctx.fail(std::string(label) + ": input and filter must have the same depth: " +
             std::to_string(in[3]) + " vs " + std::to_string(f[2]));
  const std::int64_t in4[4] = {in[0], in[1], in[2], in[3]};
  const std::int64_t f4[4] = {f[0], f[1], f[2], f[3]};
  cpu::Conv2DGeometry g;
  if (w.is_explicit) {
    const std::int64_t padded[4] = {in[0], in[1] + w.pads.top + w.pads.bottom,
                                    in[2] + w.pads.left + w.pads.right, in[3]};
    g = cpu::conv2d_geometry(padded, f4, w.stride_rows, w.stride_cols, w.dilation_rows,
                             w.dilation_cols, cpu::Padding::valid);
    g.in_rows = in[1];
    g.in_cols = in[2];
    g.pad_top = w.pads.top;
    g.pad_left = w.pads.left;
  } else {
    g = cpu::conv2d_geometry(in4, f4, w.stride_rows, w.stride_cols, w.dilation_rows,
                             w.dilation_cols, w.padding);
  }
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

// ---- NCHW through NHWC copies ---------------------------------------------------------

inline Dims nhwc_of_nchw(const Dims& d) { return {d[0], d[2], d[3], d[1]}; }
inline Dims nchw_of_nhwc(const Dims& d) { return {d[0], d[3], d[1], d[2]}; }

// A copy of the 4-D host tensor `v` with its axes in `perm` order (out dim i = v dim perm[i]).
inline Value permuted4(KernelContext& ctx, const Value& v, const std::array<int, 4>& perm) {
  const Dims& d = v.dims();
  const Dims out_dims{d[perm[0]], d[perm[1]], d[perm[2]], d[perm[3]]};
  Value out = Value::for_overwrite(v.dtype(), out_dims);
  visit_float(ctx, v.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const std::array<std::int64_t, 4> in_stride{d[1] * d[2] * d[3], d[2] * d[3], d[3], 1};
    const std::array<std::int64_t, 4> s{in_stride[perm[0]], in_stride[perm[1]], in_stride[perm[2]],
                                        in_stride[perm[3]]};
    const T* src = v.data<T>();
    T* dst = out.data<T>();
    for (std::int64_t a = 0; a < out_dims[0]; ++a)
      for (std::int64_t b = 0; b < out_dims[1]; ++b)
        for (std::int64_t c = 0; c < out_dims[2]; ++c) {
          const T* row = src + a * s[0] + b * s[1] + c * s[2];
          for (std::int64_t e = 0; e < out_dims[3]; ++e) *dst++ = row[e * s[3]];
        }
  });
  return out;
}
inline Value to_nhwc(KernelContext& ctx, const Value& nchw) {
  return permuted4(ctx, nchw, {0, 2, 3, 1});
}
inline Value to_nchw(KernelContext& ctx, const Value& nhwc) {
  return permuted4(ctx, nhwc, {0, 3, 1, 2});
}

// Runs `compute(out)` into an NHWC output of dims `nhwc` and sets output 0: directly, or
// for NCHW through an NHWC buffer copied back. `zeroed`: compute adds into its output.
template <class Compute>
void with_layout_output(KernelContext& ctx, const Layout& layout, DType dtype, const Dims& nhwc,
                        bool zeroed, Compute&& compute) {
  if (!layout.nchw) {
    compute(zeroed ? ctx.allocate_output(0, dtype, nhwc)
                   : ctx.allocate_output_for_overwrite(0, dtype, nhwc));
    return;
  }
  Value buffer = zeroed ? Value(dtype, nhwc) : Value::for_overwrite(dtype, nhwc);
  compute(buffer);
  ctx.set_output(0, to_nchw(ctx, buffer));
}

// A 4-D input in NHWC: itself, or its NHWC copy for NCHW.
inline Value nhwc_input(KernelContext& ctx, const Value& v, const Layout& layout,
                        std::string_view what) {
  require_4d(ctx, v.dims(), what);
  return layout.nchw ? to_nhwc(ctx, v) : v;
}

inline void conv2d_kernel(KernelContext& ctx) {
  const KernelWindow w = conv_kernel_window(ctx);
  const Value in = nhwc_input(ctx, ctx.input(0), w.layout, "input");
  const Value& filter = ctx.input(1);
  require_4d(ctx, filter.dims(), "filter");
  const cpu::Conv2DGeometry g = kernel_conv_geometry(ctx, "Conv2D", in.dims(), filter.dims(), w);
  visit_float(ctx, in.dtype(), [&](auto zero) {
    using T = decltype(zero);
    with_layout_output(ctx, w.layout, in.dtype(), {g.batch, g.out_rows, g.out_cols, g.out_depth},
                       false, [&](Value& out) {
                         cpu::conv2d_forward<T>(ctx, g, in.data<T>(), filter.data<T>(),
                                                out.data<T>());
                       });
  });
}

inline void conv2d_backprop_input_kernel(KernelContext& ctx) {
  constexpr std::string_view label = "Conv2DBackpropInput";
  const KernelWindow w = conv_kernel_window(ctx);
  const Dims given = kernel_sizes(ctx, 0, "input_sizes");
  const Dims sizes = w.layout.nchw ? nhwc_of_nchw(given) : given;
  const Value& filter = ctx.input(1);
  require_4d(ctx, filter.dims(), "filter");
  const Value dy = nhwc_input(ctx, ctx.input(2), w.layout, "out_backprop");
  const cpu::Conv2DGeometry g = kernel_conv_geometry(ctx, label, sizes, filter.dims(), w);
  check_out_backprop(ctx, label, g, dy.dims());
  visit_float(ctx, filter.dtype(), [&](auto zero) {
    using T = decltype(zero);
    with_layout_output(ctx, w.layout, filter.dtype(), sizes, true, [&](Value& out) {
      cpu::conv2d_backprop_input<T>(ctx, g, filter.data<T>(), dy.data<T>(), out.data<T>());
    });
  });
}

inline void conv2d_backprop_filter_kernel(KernelContext& ctx) {
  constexpr std::string_view label = "Conv2DBackpropFilter";
  const KernelWindow w = conv_kernel_window(ctx);
  const Value in = nhwc_input(ctx, ctx.input(0), w.layout, "input");
  const Dims sizes = kernel_sizes(ctx, 1, "filter_sizes");
  const Value dy = nhwc_input(ctx, ctx.input(2), w.layout, "out_backprop");
  const cpu::Conv2DGeometry g = kernel_conv_geometry(ctx, label, in.dims(), sizes, w);
  check_out_backprop(ctx, label, g, dy.dims());
  visit_float(ctx, in.dtype(), [&](auto zero) {
    using T = decltype(zero);
    // The filter is HWIO in either data_format.
    Value& out = ctx.allocate_output(0, in.dtype(), sizes);
    cpu::conv2d_backprop_filter<T>(ctx, g, in.data<T>(), dy.data<T>(), out.data<T>());
  });
}

// ---- DepthwiseConv2dNative and its backprops --------------------------------------------
//
// The checks and messages of TensorFlow's depthwise kernels, which differ from Conv2D's: equal
// row and column strides, InvalidArgument for batch and depth strides, and no dilations.
// TensorFlow's backprop kernels ignore `dilations` (and compute the undilated gradient);
// symflow's refuse them as its forward kernel does. Strides are read in the data_format's
// order; NCHW runs through NHWC copies (TensorFlow 2.21's oneDNN CPU kernels run NCHW too;
// its reference ones refuse it).

inline KernelWindow depthwise_kernel_window(const KernelContext& ctx) {
  KernelWindow w;
  w.layout = kernel_layout(ctx);
  const int r = w.layout.rows, c = w.layout.cols, d = w.layout.depth;
  const auto& strides = kernel_four(ctx, "strides");
  if (strides[0] != 1 || strides[d] != 1)
    ctx.fail(
        "Current implementation does not yet support strides in the batch and depth "
        "dimensions.");
  if (strides[r] != strides[c])
    ctx.fail(
        "Current implementation only supports equal length strides in the row and column "
        "dimensions.");
  if (strides[r] < 1) ctx.fail("Strides must be > 0");
  const auto& padding = ctx.attr<std::string>("padding");
  w.is_explicit = padding == "EXPLICIT";
  if (w.is_explicit)
    w.pads = check_explicit_paddings(ctx.attr<IntList>("explicit_paddings").items, true, w.layout,
                                     [&](const std::string& m) { ctx.fail(m); });
  else if (!cpu::parse_padding(padding, w.padding))
    ctx.fail("Unknown padding " + padding);
  const auto& dilations = kernel_four(ctx, "dilations");
  if (std::any_of(dilations.begin(), dilations.end(), [](std::int64_t d) { return d != 1; })) {
    std::string text;
    for (std::int64_t d : dilations) text += (text.empty() ? "" : " ") + std::to_string(d);
    throw UnimplementedError(
        "Current kernel implementation does not support dilations, received [" + text + "]",
        ctx.node_name());
  }
  w.stride_rows = strides[r];
  w.stride_cols = strides[c];
  return w;
}

// A depthwise op's 4-D tensor in NHWC: itself, or its NHWC copy for NCHW (`rank_error`: the
// message for another rank, which the NHWC geometry would give).
inline Value depthwise_nhwc(KernelContext& ctx, const Value& v, const Layout& layout,
                            const std::string& rank_error) {
  if (!layout.nchw) return v;
  if (v.rank() != 4) ctx.fail(rank_error);
  return to_nhwc(ctx, v);
}

// Explicit pads as for Conv2D (kernel_conv_geometry): the padded input's VALID geometry.
inline cpu::DepthwiseConv2DGeometry depthwise_geometry(const Dims& in, const Dims& f,
                                                       const KernelWindow& w) {
  const std::int64_t f4[4] = {f[0], f[1], f[2], f[3]};
  if (!w.is_explicit) {
    const std::int64_t in4[4] = {in[0], in[1], in[2], in[3]};
    return cpu::depthwise_conv2d_geometry(in4, f4, w.stride_rows, w.stride_cols, w.dilation_rows,
                                          w.dilation_cols, w.padding);
  }
  const std::int64_t padded[4] = {in[0], in[1] + w.pads.top + w.pads.bottom,
                                  in[2] + w.pads.left + w.pads.right, in[3]};
  cpu::DepthwiseConv2DGeometry g =
      cpu::depthwise_conv2d_geometry(padded, f4, w.stride_rows, w.stride_cols, w.dilation_rows,
                                     w.dilation_cols, cpu::Padding::valid);
  g.in_rows = in[1];
  g.in_cols = in[2];
  g.pad_top = w.pads.top;
  g.pad_left = w.pads.left;
  return g;
}

inline cpu::DepthwiseConv2DGeometry kernel_depthwise_geometry(const KernelContext& ctx,
                                                              const Dims& in, const Dims& f,
                                                              const KernelWindow& w) {
  if (in.size() != 4) ctx.fail("input must be 4-dimensional" + dims_to_string(in));
  if (f.size() != 4) ctx.fail("filter must be 4-dimensional: " + dims_to_string(f));
  if (in[3] != f[2])
    ctx.fail("input and filter must have the same depth: " + std::to_string(in[3]) + " vs " +
             std::to_string(f[2]));
  cpu::DepthwiseConv2DGeometry g = depthwise_geometry(in, f, w);
  if (g.out_rows < 0 || g.out_cols < 0)
    ctx.fail("Computed output size would be negative: input " + dims_to_string(in) + ", filter " +
             dims_to_string(f));
  return g;
}

// A backprop's size vector (input_sizes, filter_sizes), a host value (the CPU and GPU
// kernels share it): TensorFlow calls a wrong count "<what> must be 4-dimensional".
inline Dims depthwise_sizes(const KernelContext& ctx, const Value& v, std::string_view label,
                            std::string_view arg, std::string_view what) {
  if (v.rank() != 1 || v.size() != 4)
    ctx.fail(std::string(label) + ": " + std::string(what) + " must be 4-dimensional");
  Dims d = shape_argument(v);
  for (std::size_t i = 0; i < d.size(); ++i)
    if (d[i] < 0)
      ctx.fail("Dimension " + std::to_string(i) + " of " + std::string(arg) + " must be >= 0");
  return d;
}

// The geometry of a backprop from the input's, filter's and out_backprop's dims, with
// TensorFlow's checks and messages ("DepthwiseConv2DBackpropInput: ...").
inline cpu::DepthwiseConv2DGeometry kernel_depthwise_backprop_geometry(
    const KernelContext& ctx, std::string_view label, const Dims& in, const Dims& f, const Dims& dy,
    const KernelWindow& w) {
  const std::string prefix = std::string(label) + ": ";
  if (in.size() != 4) ctx.fail(prefix + "input must be 4-dimensional");
  if (f.size() != 4) ctx.fail(prefix + "filter must be 4-dimensional");
  if (dy.size() != 4) ctx.fail(prefix + "out_backprop must be 4-dimensional");
  if (in[0] != dy[0]) ctx.fail(prefix + "input and out_backprop must have the same batch size");
  if (in[3] != f[2]) ctx.fail(prefix + "input and filter must have the same in_depth");
  if (f[2] * f[3] != dy[3]) ctx.fail(prefix + "depth_multiplier * in_depth not equal to out_depth");
  const cpu::DepthwiseConv2DGeometry g = depthwise_geometry(in, f, w);
  if (g.out_rows < 0 || g.out_cols < 0)
    ctx.fail(prefix + "Computed output size would be negative: input " + dims_to_string(in) +
             ", filter " + dims_to_string(f));
  if (g.out_rows != dy[1])
    ctx.fail(prefix + "Number of rows of out_backprop doesn't match computed: actual = " +
             std::to_string(dy[1]) + ", computed = " + std::to_string(g.out_rows));
  if (g.out_cols != dy[2])
    ctx.fail(prefix + "Number of cols of out_backprop doesn't match computed: actual = " +
             std::to_string(dy[2]) + ", computed = " + std::to_string(g.out_cols));
  return g;
}

inline constexpr std::string_view kDepthwiseInputLabel = "DepthwiseConv2DBackpropInput";
inline constexpr std::string_view kDepthwiseFilterLabel = "DepthwiseConv2DBackpropFilter";

inline void depthwise_conv2d_native_kernel(KernelContext& ctx) {
  const KernelWindow w = depthwise_kernel_window(ctx);
  const Value in =
      depthwise_nhwc(ctx, ctx.input(0), w.layout,
                     "input must be 4-dimensional" + dims_to_string(ctx.input(0).dims()));
  const Value& filter = ctx.input(1);
  const cpu::DepthwiseConv2DGeometry g =
      kernel_depthwise_geometry(ctx, in.dims(), filter.dims(), w);
  visit_float(ctx, in.dtype(), [&](auto zero) {
    using T = decltype(zero);
    with_layout_output(ctx, w.layout, in.dtype(), {g.batch, g.out_rows, g.out_cols, g.out_depth()},
                       false, [&](Value& out) {
                         cpu::depthwise_conv2d_forward<T>(ctx, g, in.data<T>(), filter.data<T>(),
                                                          out.data<T>());
                       });
  });
}

inline void depthwise_conv2d_native_backprop_input_kernel(KernelContext& ctx) {
  const Dims given =
      depthwise_sizes(ctx, ctx.input(0), kDepthwiseInputLabel, "input_sizes", "input");
  const KernelWindow w = depthwise_kernel_window(ctx);
  const Dims sizes = w.layout.nchw ? nhwc_of_nchw(given) : given;
  const Value& filter = ctx.input(1);
  const Value dy =
      depthwise_nhwc(ctx, ctx.input(2), w.layout,
                     std::string(kDepthwiseInputLabel) + ": out_backprop must be 4-dimensional");
  const cpu::DepthwiseConv2DGeometry g = kernel_depthwise_backprop_geometry(
      ctx, kDepthwiseInputLabel, sizes, filter.dims(), dy.dims(), w);
  visit_float(ctx, filter.dtype(), [&](auto zero) {
    using T = decltype(zero);
    with_layout_output(ctx, w.layout, filter.dtype(), sizes, false, [&](Value& out) {
      cpu::depthwise_conv2d_backprop_input<T>(ctx, g, filter.data<T>(), dy.data<T>(),
                                              out.data<T>());
    });
  });
}

inline void depthwise_conv2d_native_backprop_filter_kernel(KernelContext& ctx) {
  const Dims sizes =
      depthwise_sizes(ctx, ctx.input(1), kDepthwiseFilterLabel, "filter_sizes", "filter");
  const KernelWindow w = depthwise_kernel_window(ctx);
  const Value in =
      depthwise_nhwc(ctx, ctx.input(0), w.layout,
                     std::string(kDepthwiseFilterLabel) + ": input must be 4-dimensional");
  const Value dy =
      depthwise_nhwc(ctx, ctx.input(2), w.layout,
                     std::string(kDepthwiseFilterLabel) + ": out_backprop must be 4-dimensional");
  const cpu::DepthwiseConv2DGeometry g = kernel_depthwise_backprop_geometry(
      ctx, kDepthwiseFilterLabel, in.dims(), sizes, dy.dims(), w);
  visit_float(ctx, in.dtype(), [&](auto zero) {
    using T = decltype(zero);
    Value& out = ctx.allocate_output_for_overwrite(0, in.dtype(), sizes);
    cpu::depthwise_conv2d_backprop_filter<T>(ctx, g, in.data<T>(), dy.data<T>(), out.data<T>());
  });
}

// The pooling geometry of NHWC input dims `in`; pooling over batch or depth is declined, as
// TensorFlow's CPU kernels decline it (they pool depth alone, which symflow does not).
// ksize and strides are read in the data_format's order. Explicit pads (MaxPool, MaxPoolGrad)
// must each be smaller than the window, as TensorFlow requires, so that every window holds
// an input; the padded cells never count (for max pooling they act as -inf).
inline cpu::Pool2DGeometry kernel_pool_geometry(const KernelContext& ctx, const Dims& in) {
  const Layout l = kernel_layout(ctx);
  const auto& ksize = kernel_four(ctx, "ksize");
  const auto& strides = kernel_four(ctx, "strides");
  const bool is_explicit = ctx.attr<std::string>("padding") == "EXPLICIT";
  const cpu::Padding padding = is_explicit ? cpu::Padding::valid : kernel_padding(ctx);
  if (ksize[0] != 1 || strides[0] != 1)
    throw UnimplementedError("Pooling is not yet supported on the batch dimension.",
                             ctx.node_name());
  if (ksize[l.depth] != 1 || strides[l.depth] != 1)
    throw UnimplementedError(
        "MaxPooling supports exactly one of pooling across depth or pooling across width/height.",
        ctx.node_name());
  if (ksize[l.rows] < 1 || ksize[l.cols] < 1)
    ctx.fail("Sliding window ksize must be positive: " + int_list_text(ksize));
  if (strides[l.rows] < 1 || strides[l.cols] < 1)
    ctx.fail("Sliding window strides must be positive");
  require_4d(ctx, in, "input");
  ExplicitPads pads;
  if (is_explicit) {
    pads = check_explicit_paddings(ctx.attr<IntList>("explicit_paddings").items, true, l,
                                   [&](const std::string& m) { ctx.fail(m); });
    const auto check = [&](std::string_view side, std::int64_t pad, std::int64_t window) {
      if (pad >= window)
        ctx.fail(std::string(side) + " padding " + std::to_string(pad) +
                 " needs to be smaller than the window size " + std::to_string(window));
    };
    check("Top", pads.top, ksize[l.rows]);
    check("Bottom", pads.bottom, ksize[l.rows]);
    check("Left", pads.left, ksize[l.cols]);
    check("Right", pads.right, ksize[l.cols]);
  }
  // Explicit pads: the padded input's VALID geometry, then the real input with the leading
  // pads (as for Conv2D, kernel_conv_geometry).
  const std::int64_t in4[4] = {in[0], in[1] + pads.top + pads.bottom,
                               in[2] + pads.left + pads.right, in[3]};
  cpu::Pool2DGeometry g = cpu::pool2d_geometry(in4, ksize[l.rows], ksize[l.cols], strides[l.rows],
                                               strides[l.cols], padding);
  if (is_explicit) {
    g.in_rows = in[1];
    g.in_cols = in[2];
    g.pad_top = pads.top;
    g.pad_left = pads.left;
  }
  if (g.out_rows < 0 || g.out_cols < 0)
    ctx.fail("Computed output size would be negative: input " + dims_to_string(in) + ", ksize " +
             int_list_text(ksize));
  return g;
}

inline Dims pool_out_dims(const cpu::Pool2DGeometry& g) {
  return {g.batch, g.out_rows, g.out_cols, g.depth};
}

// A pooling gradient's input `what` must have the pool's output shape, in the op's layout
// (the CPU and GPU kernels share the check).
inline void require_pool_out_shape(const KernelContext& ctx, const cpu::Pool2DGeometry& g,
                                   const Dims& got, std::string_view what,
                                   const Layout& layout = {}) {
  const Dims want = layout.nchw ? nchw_of_nhwc(pool_out_dims(g)) : pool_out_dims(g);
  if (got != want)
    ctx.fail("Expected " + std::string(what) + " shape to be " + dims_to_string(want) +
             ", but got " + dims_to_string(got));
}

// A pooling input: NHWC as it is, or its NHWC copy (a 4-D check first, for the copy).
inline Value pool_input(KernelContext& ctx, const Value& v, const Layout& layout) {
  if (layout.nchw && v.rank() != 4) require_4d(ctx, v.dims(), "input");
  return layout.nchw ? to_nhwc(ctx, v) : v;
}

inline void max_pool_kernel(KernelContext& ctx) {
  const Layout layout = kernel_layout(ctx);
  const Value in = pool_input(ctx, ctx.input(0), layout);
  const cpu::Pool2DGeometry g = kernel_pool_geometry(ctx, in.dims());
  visit_float(ctx, in.dtype(), [&](auto zero) {
    using T = decltype(zero);
    with_layout_output(ctx, layout, in.dtype(), pool_out_dims(g), true, [&](Value& out) {
      cpu::max_pool_forward<T>(ctx, g, in.data<T>(), out.data<T>());
    });
  });
}

inline void avg_pool_kernel(KernelContext& ctx) {
  const Layout layout = kernel_layout(ctx);
  const Value in = pool_input(ctx, ctx.input(0), layout);
  const cpu::Pool2DGeometry g = kernel_pool_geometry(ctx, in.dims());
  visit_float(ctx, in.dtype(), [&](auto zero) {
    using T = decltype(zero);
    with_layout_output(ctx, layout, in.dtype(), pool_out_dims(g), true, [&](Value& out) {
      cpu::avg_pool_forward<T>(ctx, g, in.data<T>(), out.data<T>());
    });
  });
}

inline void max_pool_grad_kernel(KernelContext& ctx) {
  const Layout layout = kernel_layout(ctx);
  const Value in = pool_input(ctx, ctx.input(0), layout);
  const Value& orig_out = ctx.input(1);
  const Value& grad = ctx.input(2);
  const cpu::Pool2DGeometry g = kernel_pool_geometry(ctx, in.dims());
  require_pool_out_shape(ctx, g, orig_out.dims(), "orig_output", layout);
  require_pool_out_shape(ctx, g, grad.dims(), "grad", layout);
  const Value dy = layout.nchw ? to_nhwc(ctx, grad) : grad;
  visit_float(ctx, in.dtype(), [&](auto zero) {
    using T = decltype(zero);
    with_layout_output(ctx, layout, in.dtype(), in.dims(), true, [&](Value& dx) {
      cpu::max_pool_backward<T>(ctx, g, in.data<T>(), dy.data<T>(), dx.data<T>());
    });
  });
}

inline void avg_pool_grad_kernel(KernelContext& ctx) {
  const Layout layout = kernel_layout(ctx);
  const Dims given = kernel_sizes(ctx, 0, "orig_input_shape");
  const Dims sizes = layout.nchw ? nhwc_of_nchw(given) : given;
  const Value& grad = ctx.input(1);
  const cpu::Pool2DGeometry g = kernel_pool_geometry(ctx, sizes);
  require_pool_out_shape(ctx, g, grad.dims(), "grad", layout);
  const Value dy = layout.nchw ? to_nhwc(ctx, grad) : grad;
  visit_float(ctx, dy.dtype(), [&](auto zero) {
    using T = decltype(zero);
    with_layout_output(ctx, layout, dy.dtype(), sizes, true, [&](Value& dx) {
      cpu::avg_pool_backward<T>(ctx, g, dy.data<T>(), dx.data<T>());
    });
  });
}

}  // namespace detail::conv

namespace detail {

inline constexpr auto kConvCpuKernels = std::to_array<CpuKernel>({
    {&conv::kConv2DOp, conv::conv2d_kernel},
    {&conv::kConv2DBackpropInputOp, conv::conv2d_backprop_input_kernel},
    {&conv::kConv2DBackpropFilterOp, conv::conv2d_backprop_filter_kernel},
    {&conv::kDepthwiseConv2dNativeOp, conv::depthwise_conv2d_native_kernel},
    {&conv::kDepthwiseConv2dNativeBackpropInputOp,
     conv::depthwise_conv2d_native_backprop_input_kernel},
    {&conv::kDepthwiseConv2dNativeBackpropFilterOp,
     conv::depthwise_conv2d_native_backprop_filter_kernel},
    {&conv::kMaxPoolOp, conv::max_pool_kernel},
    {&conv::kAvgPoolOp, conv::avg_pool_kernel},
    {&conv::kMaxPoolGradOp, conv::max_pool_grad_kernel},
    {&conv::kAvgPoolGradOp, conv::avg_pool_grad_kernel},
});

}  // namespace detail
}  // namespace symflow
