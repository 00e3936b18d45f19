#pragma once
// The conv and pooling ops' CPU kernels (Conv2D, Conv2DBackpropInput,
// Conv2DBackpropFilter, DepthwiseConv2dNative and its two backprops, MaxPool, AvgPool,
// MaxPoolGrad, AvgPoolGrad): their attrs and geometry checked at run time, the numbers
// computed by backend/cpu/conv.hpp and depthwise_conv.hpp (NHWC only, as TensorFlow's CPU
// kernels); and kConvCpuKernels, the table that maps each conv OpDef (ops/defs/conv.hpp) to
// its kernel. The GPU kernels share the run-time checks.

#include <algorithm>
#include <array>
#include <cstdint>
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

inline void conv2d_kernel(KernelContext& ctx) {
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

inline void conv2d_backprop_input_kernel(KernelContext& ctx) {
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

inline void conv2d_backprop_filter_kernel(KernelContext& ctx) {
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

// ---- DepthwiseConv2dNative and its backprops --------------------------------------------
//
// The checks and messages of TensorFlow's depthwise kernels, which differ from Conv2D's: equal
// row and column strides, InvalidArgument for batch and depth strides, and no dilations.
// TensorFlow's backprop kernels ignore `dilations` (and compute the undilated gradient);
// symflow's refuse them as its forward kernel does.

inline KernelWindow depthwise_kernel_window(const KernelContext& ctx) {
  const auto& strides = kernel_four(ctx, "strides");
  if (strides[0] != 1 || strides[3] != 1)
    ctx.fail(
        "Current implementation does not yet support strides in the batch and depth "
        "dimensions.");
  if (strides[1] != strides[2])
    ctx.fail(
        "Current implementation only supports equal length strides in the row and column "
        "dimensions.");
  if (strides[1] < 1) ctx.fail("Strides must be > 0");
  const auto& padding = ctx.attr<std::string>("padding");
  KernelWindow w;
  if (!cpu::parse_padding(padding, w.padding)) ctx.fail("Unknown padding " + padding);
  if (ctx.attr<std::string>("data_format") != "NHWC")
    throw UnimplementedError("Depthwise convolution on CPU is only supported for NHWC format",
                             ctx.node_name());
  const auto& dilations = kernel_four(ctx, "dilations");
  if (std::any_of(dilations.begin(), dilations.end(), [](std::int64_t d) { return d != 1; })) {
    std::string text;
    for (std::int64_t d : dilations) text += (text.empty() ? "" : " ") + std::to_string(d);
    throw UnimplementedError(
        "Current kernel implementation does not support dilations, received [" + text + "]",
        ctx.node_name());
  }
  w.stride_rows = strides[1];
  w.stride_cols = strides[2];
  return w;
}

inline cpu::DepthwiseConv2DGeometry depthwise_geometry(const Dims& in, const Dims& f,
                                                       const KernelWindow& w) {
  const std::int64_t in4[4] = {in[0], in[1], in[2], in[3]};
  const std::int64_t f4[4] = {f[0], f[1], f[2], f[3]};
  return cpu::depthwise_conv2d_geometry(in4, f4, w.stride_rows, w.stride_cols, w.dilation_rows,
                                        w.dilation_cols, w.padding);
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
  const Value& in = ctx.input(0);
  const Value& filter = ctx.input(1);
  const KernelWindow w = depthwise_kernel_window(ctx);
  const cpu::DepthwiseConv2DGeometry g =
      kernel_depthwise_geometry(ctx, in.dims(), filter.dims(), w);
  visit_float(ctx, in.dtype(), [&](auto zero) {
    using T = decltype(zero);
    Value& out = ctx.allocate_output_for_overwrite(
        0, in.dtype(), {g.batch, g.out_rows, g.out_cols, g.out_depth()});
    cpu::depthwise_conv2d_forward<T>(ctx, g, in.data<T>(), filter.data<T>(), out.data<T>());
  });
}

inline void depthwise_conv2d_native_backprop_input_kernel(KernelContext& ctx) {
  const Dims sizes =
      depthwise_sizes(ctx, ctx.input(0), kDepthwiseInputLabel, "input_sizes", "input");
  const Value& filter = ctx.input(1);
  const Value& dy = ctx.input(2);
  const KernelWindow w = depthwise_kernel_window(ctx);
  const cpu::DepthwiseConv2DGeometry g = kernel_depthwise_backprop_geometry(
      ctx, kDepthwiseInputLabel, sizes, filter.dims(), dy.dims(), w);
  visit_float(ctx, filter.dtype(), [&](auto zero) {
    using T = decltype(zero);
    Value& out = ctx.allocate_output_for_overwrite(0, filter.dtype(), sizes);
    cpu::depthwise_conv2d_backprop_input<T>(ctx, g, filter.data<T>(), dy.data<T>(), out.data<T>());
  });
}

inline void depthwise_conv2d_native_backprop_filter_kernel(KernelContext& ctx) {
  const Value& in = ctx.input(0);
  const Dims sizes =
      depthwise_sizes(ctx, ctx.input(1), kDepthwiseFilterLabel, "filter_sizes", "filter");
  const Value& dy = ctx.input(2);
  const KernelWindow w = depthwise_kernel_window(ctx);
  const cpu::DepthwiseConv2DGeometry g = kernel_depthwise_backprop_geometry(
      ctx, kDepthwiseFilterLabel, in.dims(), sizes, dy.dims(), w);
  visit_float(ctx, in.dtype(), [&](auto zero) {
    using T = decltype(zero);
    Value& out = ctx.allocate_output_for_overwrite(0, in.dtype(), sizes);
    cpu::depthwise_conv2d_backprop_filter<T>(ctx, g, in.data<T>(), dy.data<T>(), out.data<T>());
  });
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

inline void max_pool_kernel(KernelContext& ctx) {
  const Value& in = ctx.input(0);
  const cpu::Pool2DGeometry g = kernel_pool_geometry(ctx, in.dims());
  visit_float(ctx, in.dtype(), [&](auto zero) {
    using T = decltype(zero);
    Value& out = ctx.allocate_output(0, in.dtype(), pool_out_dims(g));
    cpu::max_pool_forward<T>(ctx, g, in.data<T>(), out.data<T>());
  });
}

inline void avg_pool_kernel(KernelContext& ctx) {
  const Value& in = ctx.input(0);
  const cpu::Pool2DGeometry g = kernel_pool_geometry(ctx, in.dims());
  visit_float(ctx, in.dtype(), [&](auto zero) {
    using T = decltype(zero);
    Value& out = ctx.allocate_output(0, in.dtype(), pool_out_dims(g));
    cpu::avg_pool_forward<T>(ctx, g, in.data<T>(), out.data<T>());
  });
}

inline void max_pool_grad_kernel(KernelContext& ctx) {
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

inline void avg_pool_grad_kernel(KernelContext& ctx) {
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
