#pragma once
// The neural-network ops' CPU kernels (ops/defs/nn.hpp describes the ops): tight loops
// over contiguous buffers, float32 and float64 (and the integer types where TensorFlow
// registers them: Relu, Relu6, BiasAdd, SquaredDifference, TopKV2; the FusedBatchNorm ops are
// float32 only, as TensorFlow's); the run-time shape checks the GPU kernels share; and
// kNnCpuKernels, the table that maps each nn OpDef to its kernel.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "symflow/backend/cpu/batch_norm.hpp"
#include "symflow/backend/cpu/elementwise.hpp"
#include "symflow/backend/cpu/epilogue.hpp"
#include "symflow/backend/cpu/kernel_table.hpp"
#include "symflow/backend/cpu/kernels/math.hpp"
#include "symflow/backend/cpu/reduce.hpp"
#include "symflow/backend/kernel_context.hpp"
#include "symflow/ops/defs/nn.hpp"

namespace symflow::detail {

// ---- elementwise unary ops ------------------------------------------------------------

template <class Fn>
void nn_unary_kernel(KernelContext& ctx) {
  visit_dtype(ctx.input(0).dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (Fn::template accepts<T>) {
      if constexpr (std::is_same_v<Fn, ReciprocalFn> && std::is_integral_v<T>) {
        for (T x : ctx.input(0).flat<T>())
          if (x == T{0}) ctx.fail("Integer division by zero");
      }
      cpu::unary<T, T>(ctx, Fn{});
    } else {
      unsupported_dtype(ctx, ctx.input(0).dtype());
    }
  });
}

inline void leaky_relu_kernel(KernelContext& ctx) {
  const Value& in = ctx.input(0);
  visit_dtype(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_float_v<T>) {
      const auto alpha = static_cast<T>(ctx.attr<double>("alpha"));
      cpu::unary<T, T>(ctx, [alpha](T x) { return x > T{0} ? x : alpha * x; });
    } else {
      unsupported_dtype(ctx, in.dtype());
    }
  });
}

// ---- the "XxxGrad" ops: two inputs of one shape, elementwise -----------------------------

// Both inputs have one shape: z[i] = f(x[i], y[i]).
template <class T, class F>
void same_shape_binary(KernelContext& ctx, F f) {
  const Value& a = ctx.input(0);
  const Value& b = ctx.input(1);
  if (a.dims() != b.dims()) cpu::fail_incompatible(ctx, a.dims(), b.dims());
  Value& out = ctx.allocate_output(0, a.dtype(), a.dims());
  const T* x = a.data<T>();
  const T* y = b.data<T>();
  T* z = out.data<T>();
  const std::int64_t n = a.size();
  for (std::int64_t i = 0; i < n; ++i) z[i] = f(x[i], y[i]);
}

template <class Fn>
void grad_binary_kernel(KernelContext& ctx) {
  visit_dtype(ctx.input(0).dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (Fn::template accepts<T>)
      same_shape_binary<T>(ctx, Fn{});
    else
      unsupported_dtype(ctx, ctx.input(0).dtype());
  });
}

inline void leaky_relu_grad_kernel(KernelContext& ctx) {
  visit_dtype(ctx.input(0).dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_float_v<T>) {
      const auto alpha = static_cast<T>(ctx.attr<double>("alpha"));
      same_shape_binary<T>(ctx, [alpha](T g, T x) { return x > T{0} ? g : alpha * g; });
    } else {
      unsupported_dtype(ctx, ctx.input(0).dtype());
    }
  });
}

// ---- softmax family ---------------------------------------------------------------------

// Elements per intra-op chunk for the row-wise kernels below: rows are independent, so
// each is computed the same way whichever thread takes it.
inline constexpr std::int64_t kRowKernelChunk = 8192;
inline std::int64_t min_rows_per_chunk(std::int64_t cols) {
  return std::max<std::int64_t>(1, kRowKernelChunk / std::max<std::int64_t>(1, cols));
}

// Calls row(x_row, y_row, cols) for every row of the last axis.
template <class Row>
void softmax_like_kernel(KernelContext& ctx, Row row) {
  const Value& in = ctx.input(0);
  if (in.rank() < 1) ctx.fail("logits must have >= 1 dimension, got " + dims_to_string(in.dims()));
  visit_dtype(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_float_v<T>) {
      Value& out = ctx.allocate_output(0, in.dtype(), in.dims());
      const std::int64_t cols = in.dims().back();
      const std::int64_t rows = cols ? in.size() / cols : 0;
      const T* x = in.data<T>();
      T* y = out.data<T>();
      ctx.parallel_for(rows, min_rows_per_chunk(cols), [&](std::int64_t r0, std::int64_t r1) {
        for (std::int64_t r = r0; r < r1; ++r) row(x + r * cols, y + r * cols, cols);
      });
    } else {
      unsupported_dtype(ctx, in.dtype());
    }
  });
}

// Softmax over the last axis, shifted by the row maximum for stability (the rows'
// arithmetic is ops/defs/nn.hpp's, shared with the Thrust kernels).
inline void softmax_kernel(KernelContext& ctx) {
  softmax_like_kernel(ctx, [](const auto* x, auto* y, std::int64_t cols) {
    softmax_row(x, row_max(x, cols), y, cols);
  });
}

// log(softmax(x)) = (x - max) - log(sum(exp(x - max))).
inline void log_softmax_kernel(KernelContext& ctx) {
  softmax_like_kernel(
      ctx, [](const auto* x, auto* y, std::int64_t cols) { log_softmax_row(x, y, cols); });
}

// ---- cross entropy ------------------------------------------------------------------------

// SoftmaxCrossEntropyWithLogits' shapes, as TensorFlow's kernel checks them (the CPU and
// GPU kernels share it).
inline void check_softmax_xent(const KernelContext& ctx, const Value& logits, const Value& labels) {
  if (logits.rank() != 2)
    ctx.fail("logits must be 2-dimensional, got shape " + dims_to_string(logits.dims()));
  if (logits.dims() != labels.dims())
    ctx.fail("logits and labels must be broadcastable: logits_size=" +
             dims_to_string(logits.dims()) + " labels_size=" + dims_to_string(labels.dims()));
}

inline void softmax_xent_kernel(KernelContext& ctx) {
  const Value& logits = ctx.input(0);
  const Value& labels = ctx.input(1);
  check_softmax_xent(ctx, logits, labels);
  visit_dtype(logits.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_float_v<T>) {
      const std::int64_t rows = logits.dims()[0], cols = logits.dims()[1];
      Value& loss = ctx.allocate_output(0, logits.dtype(), {rows});
      Value& back = ctx.allocate_output(1, logits.dtype(), {rows, cols});
      const T* x = logits.data<T>();
      const T* p = labels.data<T>();
      T* l = loss.data<T>();
      T* b = back.data<T>();
      ctx.parallel_for(rows, min_rows_per_chunk(cols), [&](std::int64_t r0, std::int64_t r1) {
        for (std::int64_t r = r0; r < r1; ++r)
          l[r] = softmax_xent_row(x + r * cols, p + r * cols, b + r * cols, cols);
      });
    } else {
      unsupported_dtype(ctx, logits.dtype());
    }
  });
}

// SparseSoftmaxCrossEntropyWithLogits' shapes, checked before its labels are read (the CPU
// and GPU kernels share it). Returns {rows, cols} of the logits.
inline std::pair<std::int64_t, std::int64_t> check_sparse_xent_shapes(const KernelContext& ctx,
                                                                      const Value& logits,
                                                                      const Value& labels) {
  if (logits.rank() != 2)
    ctx.fail("logits must be 2-D, but got shape " + dims_to_string(logits.dims()));
  if (labels.rank() != 1)
    ctx.fail("labels must be 1-D, but got shape " + dims_to_string(labels.dims()));
  if (logits.dims()[0] != labels.dims()[0])
    ctx.fail("logits and labels must have the same first dimension, got logits shape " +
             dims_to_string(logits.dims()) + " and labels shape " + dims_to_string(labels.dims()));
  const std::int64_t rows = logits.dims()[0], cols = logits.dims()[1];
  if (cols == 0)
    ctx.fail("Must have at least one class, but got logits shape " + dims_to_string(logits.dims()));
  return {rows, cols};
}

// Labels out of range are an error, reported with every label as TensorFlow does.
// label_at(r) reads label r on the host (the CPU reads its buffer, the GPU a host copy).
template <class LabelAt>
void check_sparse_labels(const KernelContext& ctx, std::int64_t rows, std::int64_t cols,
                         LabelAt label_at) {
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::int64_t y = label_at(r);
    if (y < 0 || y >= cols) {
      std::string all;
      for (std::int64_t i = 0; i < rows; ++i) all += (i ? " " : "") + std::to_string(label_at(i));
      ctx.fail("Received a label value of " + std::to_string(y) +
               " which is outside the valid range of [0, " + std::to_string(cols) +
               ").  Label values: " + all);
    }
  }
}

inline void sparse_softmax_xent_kernel(KernelContext& ctx) {
  const Value& logits = ctx.input(0);
  const Value& labels = ctx.input(1);
  const auto shape = check_sparse_xent_shapes(ctx, logits, labels);
  const std::int64_t rows = shape.first, cols = shape.second;
  auto label_at = [&](std::int64_t r) -> std::int64_t {
    if (labels.dtype() == DType::int32) return labels.data<std::int32_t>()[r];
    return labels.data<std::int64_t>()[r];
  };
  check_sparse_labels(ctx, rows, cols, label_at);
  visit_dtype(logits.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_float_v<T>) {
      Value& loss = ctx.allocate_output(0, logits.dtype(), {rows});
      Value& back = ctx.allocate_output(1, logits.dtype(), {rows, cols});
      const T* x = logits.data<T>();
      T* l = loss.data<T>();
      T* b = back.data<T>();
      ctx.parallel_for(rows, min_rows_per_chunk(cols), [&](std::int64_t r0, std::int64_t r1) {
        for (std::int64_t r = r0; r < r1; ++r)
          l[r] = sparse_softmax_xent_row(x + r * cols, label_at(r), b + r * cols, cols);
      });
    } else {
      unsupported_dtype(ctx, logits.dtype());
    }
  });
}

// ---- L2Loss: sum(t^2) / 2 --------------------------------------------------------------
inline void l2_loss_kernel(KernelContext& ctx) {
  const Value& in = ctx.input(0);
  visit_dtype(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_float_v<T>) {
      const T* x = in.data<T>();
      double sum = 0;  // float32 sums in double: a long sum keeps its precision
      for (std::int64_t i = 0, n = in.size(); i < n; ++i)
        sum += static_cast<double>(x[i]) * static_cast<double>(x[i]);
      ctx.set_output(0, Value(static_cast<T>(sum / 2)));
    } else {
      unsupported_dtype(ctx, in.dtype());
    }
  });
}

// ---- BiasAdd and BiasAddGrad (NHWC: the bias runs along the last axis; NCHW: along axis 1) --
// Whether the kernel's data_format is NCHW (the CPU and GPU kernels share it).
inline bool kernel_bias_nchw(const KernelContext& ctx) {
  const auto& format = ctx.attr<std::string>("data_format");
  if (format != "NHWC" && format != "NCHW") ctx.fail("Unknown data_format " + format);
  return format == "NCHW";
}

// BiasAdd's shapes (the CPU and GPU kernels share it). Returns the channels. As TensorFlow's
// kernel: rank 2 is enough for NCHW too (where the shape function wants 3), and the message
// says "last dimension" whatever the format.
inline std::int64_t check_bias_add(const KernelContext& ctx, const Value& value, const Value& bias,
                                   bool nchw = false) {
  if (value.rank() < 2)
    ctx.fail("Input tensor must be at least 2D: " + dims_to_string(value.dims()));
  if (bias.rank() != 1) ctx.fail("Biases must be 1D: " + dims_to_string(bias.dims()));
  const std::int64_t channels = value.dims()[bias_axis(nchw, value.dims().size())];
  if (bias.dims()[0] != channels)
    ctx.fail("Must provide as many biases as the last dimension of the input tensor: " +
             dims_to_string(bias.dims()) + " vs. " + dims_to_string(value.dims()));
  return channels;
}

inline void bias_add_kernel(KernelContext& ctx) {
  const Value& value = ctx.input(0);
  const Value& bias = ctx.input(1);
  const bool nchw = kernel_bias_nchw(ctx);
  const std::int64_t channels = check_bias_add(ctx, value, bias, nchw);
  visit_dtype(value.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (BiasAddTypes::accepts<T>) {
      const T* x = value.data<T>();
      const T* b = bias.data<T>();
      const std::int64_t size = value.size(), batch = value.dims()[0];
      // In place where the value's buffer is the kernel's alone (x then equals y; `value`
      // reads as None after).
      Value& out = ctx.forward_input_or_allocate_output({0}, 0, value.dtype(), value.dims());
      T* y = out.data<T>();
      if (nchw) {
        // [batch, channels, inner]: each channel's plane gets its bias.
        const std::int64_t planes = batch * channels;
        const std::int64_t inner = planes > 0 ? size / planes : 0;
        ctx.parallel_for(planes, cpu::kReduceMinChunk / std::max<std::int64_t>(1, inner),
                         [&](std::int64_t p0, std::int64_t p1) {
                           for (std::int64_t p = p0; p < p1; ++p) {
                             const T bc = b[p % channels];
                             for (std::int64_t i = p * inner; i < (p + 1) * inner; ++i)
                               y[i] = add_wrapping(x[i], bc);
                           }
                         });
        return;
      }
      const std::int64_t rows = channels ? size / channels : 0;
      ctx.parallel_for(rows, cpu::kReduceMinChunk / std::max<std::int64_t>(1, channels),
                       [&](std::int64_t r0, std::int64_t r1) {
                         for (std::int64_t r = r0; r < r1; ++r) {
                           if constexpr (std::is_floating_point_v<T>) {
                             // Vectorised whatever the optimisation level (GCC's -O2 does
                             // not vectorise a loop whose pointers may alias).
                             using Row = Eigen::Array<T, Eigen::Dynamic, 1>;
                             Eigen::Map<Row>(y + r * channels, channels) =
                                 Eigen::Map<const Row>(x + r * channels, channels) +
                                 Eigen::Map<const Row>(b, channels);
                           } else {
                             for (std::int64_t j = 0; j < channels; ++j)
                               y[r * channels + j] = add_wrapping(x[r * channels + j], b[j]);
                           }
                         }
                       });
    } else {
      unsupported_dtype(ctx, value.dtype());
    }
  });
}

inline void bias_add_grad_kernel(KernelContext& ctx) {
  const Value& g = ctx.input(0);
  const bool nchw = kernel_bias_nchw(ctx);
  if (g.rank() < 2) ctx.fail("Input tensor must be at least 2D: " + dims_to_string(g.dims()));
  visit_dtype(g.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (BiasAddTypes::accepts<T>) {
      // The sum over every axis but the channels': cpu::reduce adds each channel's values in
      // row order, split over threads by channels (bit-identical to one thread).
      AxisMask mask(static_cast<std::size_t>(g.rank()), true);
      mask[bias_axis(nchw, mask.size())] = false;
      ctx.set_output(0, cpu::reduce<T>(ctx, g, mask, false, T{0}, AddWrappingFn{}));
    } else {
      unsupported_dtype(ctx, g.dtype());
    }
  });
}

// ---- FusedBatchNorm, V2, V3 and their gradient ops ---------------------------------------
// The run-time checks, in the order and words of TensorFlow's kernels (the CPU and GPU
// kernels share them); the arithmetic is backend/cpu/batch_norm.hpp's.
namespace batch_norm {

inline Format kernel_format(const KernelContext& ctx, bool five_d) {
  const auto& name = ctx.attr<std::string>("data_format");
  const std::optional<Format> f = format_of(name, five_d);
  if (!f) ctx.fail("Invalid data format: " + name);
  return *f;
}

inline void require_kernel_rank(const KernelContext& ctx, const Value& v, int rank,
                                std::string_view what) {
  if (v.rank() != rank)
    ctx.fail(std::string(what) + " must be " + std::to_string(rank) + "-dimensional" +
             dims_to_string(v.dims()));
}

inline void require_channel_count(const KernelContext& ctx, const Value& v, std::string_view what,
                                  std::int64_t channels, std::string_view when = {}) {
  if (v.size() != channels)
    ctx.fail(std::string(when) + std::string(what) +
             " must have the same number of elements as the channels of x, got " +
             std::to_string(v.size()) + " and " + std::to_string(channels));
}

inline cpu::batch_norm::ForwardAttrs forward_attrs(const KernelContext& ctx) {
  return {.epsilon = ctx.attr<double>("epsilon"),
          .exponential_avg_factor = ctx.attr<double>("exponential_avg_factor"),
          .is_training = ctx.attr<bool>("is_training")};
}

// FusedBatchNorm's inputs (x, scale, offset, mean, variance); returns x's layout. Mean
// and variance need one value per channel only where they are read.
inline cpu::batch_norm::Layout check_forward(const KernelContext& ctx, bool five_d,
                                             const cpu::batch_norm::ForwardAttrs& attrs) {
  const Format f = kernel_format(ctx, five_d);
  const Value& x = ctx.input(0);
  require_kernel_rank(ctx, x, f.rank, "input");
  require_kernel_rank(ctx, ctx.input(1), 1, "scale");
  require_kernel_rank(ctx, ctx.input(2), 1, "offset");
  require_kernel_rank(ctx, ctx.input(3), 1, "estimated_mean");
  require_kernel_rank(ctx, ctx.input(4), 1, "estimated_variance");
  const std::int64_t channels = x.dims()[static_cast<std::size_t>(f.channel_axis())];
  require_channel_count(ctx, ctx.input(1), "scale", channels);
  require_channel_count(ctx, ctx.input(2), "offset", channels);
  if (!attrs.is_training || attrs.exponential_avg_factor != 1.0) {
    const std::string_view when =
        attrs.is_training ? "When exponential_avg_factor != 1, " : "When is_training=false, ";
    require_channel_count(ctx, ctx.input(3), "mean", channels, when);
    require_channel_count(ctx, ctx.input(4), "variance", channels, when);
  }
  return cpu::batch_norm::layout_of(x.dims(), f.channels_last);
}

// FusedBatchNormGrad's inputs (y_backprop, x, scale, reserve_space_1, reserve_space_2;
// V3's reserve_space_3 is not read); returns x's layout.
inline cpu::batch_norm::Layout check_grad(const KernelContext& ctx, bool five_d) {
  const Format f = kernel_format(ctx, five_d);
  const Value& dy = ctx.input(0);
  const Value& x = ctx.input(1);
  require_kernel_rank(ctx, dy, f.rank, "input");
  require_kernel_rank(ctx, x, f.rank, "input");
  require_kernel_rank(ctx, ctx.input(2), 1, "scale");
  require_kernel_rank(ctx, ctx.input(3), 1, "saved mean");
  require_kernel_rank(ctx, ctx.input(4), 1, "saved variance");
  if (x.dims() != dy.dims())
    ctx.fail("x and y_backprop must have same shape, but x has shape " + dims_to_string(x.dims()) +
             " and y_backprop has shape " + dims_to_string(dy.dims()));
  const std::int64_t channels = x.dims()[static_cast<std::size_t>(f.channel_axis())];
  require_channel_count(ctx, ctx.input(2), "scale", channels);
  require_channel_count(ctx, ctx.input(3), "reserve_space_1", channels);
  require_channel_count(ctx, ctx.input(4), "reserve_space_2", channels);
  return cpu::batch_norm::layout_of(x.dims(), f.channels_last);
}

// The shape functions admit float32 only; a node imported with another dtype fails here.
inline void require_float32_input(KernelContext& ctx) {
  if (ctx.input(0).dtype() != DType::float32) unsupported_dtype(ctx, ctx.input(0).dtype());
}

// Elements per intra-op chunk of the per-element pass, and channels per chunk of the
// per-channel pass (a channel's sums take `per_channel` steps).
inline constexpr std::int64_t kElementChunk = 8192;
inline std::int64_t channels_per_chunk(std::int64_t per_channel) {
  return std::max<std::int64_t>(1, kElementChunk / std::max<std::int64_t>(1, per_channel));
}

// FusedBatchNorm (Version 1), V2 and V3: y, batch_mean, batch_variance, reserve_space_1,
// reserve_space_2, and V3's reserve_space_3, a zero scalar as TensorFlow's CPU kernel
// gives it.
template <int Version>
void forward_kernel(KernelContext& ctx) {
  const cpu::batch_norm::ForwardAttrs attrs = forward_attrs(ctx);
  const cpu::batch_norm::Layout layout = check_forward(ctx, Version == 3, attrs);
  require_float32_input(ctx);
  const Value& x = ctx.input(0);
  const std::int64_t channels = layout.channels;
  Value& y = ctx.allocate_output_for_overwrite(0, DType::float32, x.dims());
  for (std::size_t i = 1; i < 5; ++i)
    ctx.allocate_output_for_overwrite(i, DType::float32, {channels});
  if constexpr (Version == 3) ctx.allocate_output(5, DType::float32, {});
  std::vector<double> coefficients(
      static_cast<std::size_t>(channels * cpu::batch_norm::kForwardCoefficients));
  const cpu::batch_norm::ForwardChannel<float> channel{x.data<float>(),
                                                       ctx.input(1).data<float>(),
                                                       ctx.input(2).data<float>(),
                                                       ctx.input(3).data<float>(),
                                                       ctx.input(4).data<float>(),
                                                       ctx.output(1).data<float>(),
                                                       ctx.output(2).data<float>(),
                                                       ctx.output(3).data<float>(),
                                                       ctx.output(4).data<float>(),
                                                       coefficients.data(),
                                                       layout,
                                                       attrs};
  ctx.parallel_for(channels, channels_per_chunk(layout.per_channel()),
                   [&](std::int64_t c0, std::int64_t c1) {
                     for (std::int64_t c = c0; c < c1; ++c) channel(c);
                   });
  using Element = cpu::batch_norm::ForwardElement<float>;
  if (layout.inner == 1 && channels > 0) {
    // Channels last: rows of channels, each normalised by the function a convolution's
    // epilogue calls (backend/cpu/epilogue.hpp), so that the two give the same bits.
    std::vector<float> center(static_cast<std::size_t>(channels)), multiplier(center),
        offset(center);
    for (std::size_t c = 0; c < center.size(); ++c) {
      const double* k = coefficients.data() + c * cpu::batch_norm::kForwardCoefficients;
      center[c] = static_cast<float>(k[0]);
      multiplier[c] = static_cast<float>(k[1]);
      offset[c] = static_cast<float>(k[2]);
    }
    const float* in = x.data<float>();
    float* out = y.data<float>();
    ctx.parallel_for(layout.outer, std::max<std::int64_t>(1, kElementChunk / channels),
                     [&](std::int64_t r0, std::int64_t r1) {
                       cpu::normalize_rows(in + r0 * channels, channels, out + r0 * channels,
                                           channels, r1 - r0, center.data(), multiplier.data(),
                                           offset.data(), channels);
                     });
    return;
  }
  const Element element{x.data<float>(), coefficients.data(), y.data<float>(), layout};
  ctx.parallel_for(x.size(), kElementChunk, [&](std::int64_t e0, std::int64_t e1) {
    for (std::int64_t e = e0; e < e1; ++e) element(e);
  });
}

// FusedBatchNormGrad (Version 1), V2 and V3: x_backprop, scale_backprop, offset_backprop,
// and two empty vectors, as TensorFlow's CPU kernel gives them.
template <int Version>
void grad_kernel(KernelContext& ctx) {
  const cpu::batch_norm::Layout layout = check_grad(ctx, Version == 3);
  require_float32_input(ctx);
  const Value& dy = ctx.input(0);
  const Value& x = ctx.input(1);
  const double epsilon = ctx.attr<double>("epsilon");
  const bool is_training = ctx.attr<bool>("is_training");
  const std::int64_t channels = layout.channels;
  Value& dx = ctx.allocate_output_for_overwrite(0, DType::float32, x.dims());
  ctx.allocate_output_for_overwrite(1, DType::float32, {channels});
  ctx.allocate_output_for_overwrite(2, DType::float32, {channels});
  ctx.allocate_output(3, DType::float32, {0});
  ctx.allocate_output(4, DType::float32, {0});
  std::vector<double> coefficients(
      static_cast<std::size_t>(channels * cpu::batch_norm::kBackwardCoefficients));
  const cpu::batch_norm::BackwardChannel<float> channel{dy.data<float>(),
                                                        x.data<float>(),
                                                        ctx.input(2).data<float>(),
                                                        ctx.input(3).data<float>(),
                                                        ctx.input(4).data<float>(),
                                                        ctx.output(1).data<float>(),
                                                        ctx.output(2).data<float>(),
                                                        coefficients.data(),
                                                        layout,
                                                        epsilon,
                                                        is_training};
  ctx.parallel_for(channels, channels_per_chunk(layout.per_channel()),
                   [&](std::int64_t c0, std::int64_t c1) {
                     for (std::int64_t c = c0; c < c1; ++c) channel(c);
                   });
  const cpu::batch_norm::BackwardElement<float> element{
      dy.data<float>(), x.data<float>(), coefficients.data(),
      dx.data<float>(), layout,          is_training};
  ctx.parallel_for(x.size(), kElementChunk, [&](std::int64_t e0, std::int64_t e1) {
    for (std::int64_t e = e0; e < e1; ++e) element(e);
  });
}

}  // namespace batch_norm

// ---- TopKV2, InTopKV2 ------------------------------------------------------------------------

// TopKV2's run-time checks, in TensorFlow's order and words (the Thrust kernel shares
// them); returns k.
inline std::int64_t check_top_k(const KernelContext& ctx, const Value& input, const Value& k) {
  if (k.rank() != 0) ctx.fail("k must be scalar, got shape " + dims_to_string(k.dims()));
  const std::int64_t count = constant_int_elements(k).at(0);
  if (count < 0) ctx.fail("Need k >= 0, got " + std::to_string(count));
  if (input.rank() < 1) ctx.fail("input must be >= 1-D, got shape " + dims_to_string(input.dims()));
  if (input.dims().back() < count)
    ctx.fail("input must have at least k columns. Had " + std::to_string(input.dims().back()) +
             ", needed " + std::to_string(count));
  return count;
}

// The positions of one row's k largest entries, as TensorFlow's CPU kernel picks and
// orders them, so that ties, NaNs and the unsorted order agree: k == 1 takes the first
// largest (a NaN at the end of the row: position 0); k == cols sorts every position (larger first,
// equal entries by position); otherwise a heap of the k best positions (TensorFlow's gtl::TopN, on
// the same standard heap functions: filled in order, heaped when the (k+1)-th arrives, then each
// better position replaces the worst), read in sorted order or in heap order.
template <class T>
void top_k_positions(const T* x, std::int64_t cols, std::int64_t k, bool sorted,
                     std::vector<std::int64_t>& out) {
  out.clear();
  if (k == 1) {
    // The largest as Eigen's maximum reduction finds it: a NaN is taken when it comes
    // and dropped by any later entry, so a row ending in NaN finds no position (0).
    T m = std::numeric_limits<T>::lowest();
    for (std::int64_t c = 0; c < cols; ++c)
      if (!(x[c] < m)) m = x[c];
    std::int64_t at = 0;
    for (std::int64_t c = 0; c < cols; ++c)
      if (x[c] == m) {
        at = c;
        break;
      }
    out.push_back(at);
    return;
  }
  const auto by_value = [x](std::int64_t a, std::int64_t b) { return x[b] < x[a]; };
  if (k == cols) {
    out.resize(static_cast<std::size_t>(cols));
    for (std::int64_t c = 0; c < cols; ++c) out[static_cast<std::size_t>(c)] = c;
    std::sort(out.begin(), out.end(), by_value);
    // Runs of equal entries, by position.
    for (auto run = out.begin(); run != out.end();) {
      auto run_end = run + 1;
      while (run_end != out.end() && x[*run] == x[*run_end]) ++run_end;
      std::sort(run, run_end);
      run = run_end;
    }
    return;
  }
  // "a is better than b": larger, or equal and earlier. The heap's front is the worst kept.
  const auto better = [x](std::int64_t a, std::int64_t b) {
    if (x[b] < x[a]) return true;
    if (x[b] > x[a]) return false;
    return a < b;
  };
  const auto limit = static_cast<std::size_t>(k);
  bool heap = false;
  for (std::int64_t c = 0; c < cols; ++c) {
    if (!heap) {
      out.push_back(c);
      if (out.size() == limit + 1) {
        std::make_heap(out.begin(), out.end(), better);
        std::pop_heap(out.begin(), out.end(), better);
        heap = true;
      }
    } else if (better(c, out.front())) {
      // The worst kept position leaves the heap of k and c takes its place.
      std::pop_heap(out.begin(), out.begin() + k, better);
      out[limit - 1] = c;
      std::push_heap(out.begin(), out.begin() + k, better);
    }
  }
  if (heap) out.pop_back();  // the dropped position
  if (sorted) {
    if (heap)
      std::sort_heap(out.begin(), out.end(), better);
    else
      std::sort(out.begin(), out.end(), better);
  }
}

// TopKV2 on host values: (values, indices) of `input`'s rows, indices of `index_type`.
inline void top_k_host(KernelContext& ctx, const Value& input, std::int64_t k, bool sorted,
                       DType index_type, Value& values, Value& indices) {
  const std::int64_t cols = input.dims().back();
  const std::int64_t rows = cols ? input.size() / cols : 0;
  if (k == 0 || rows == 0) return;
  visit_dtype(input.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_number_v<T> && !std::is_same_v<T, std::string>) {
      const T* x = input.data<T>();
      T* v = values.data<T>();
      auto write = [&](auto* index_out) {
        ctx.parallel_for(rows, min_rows_per_chunk(cols), [&](std::int64_t r0, std::int64_t r1) {
          std::vector<std::int64_t> positions;
          for (std::int64_t r = r0; r < r1; ++r) {
            top_k_positions(x + r * cols, cols, k, sorted, positions);
            for (std::int64_t i = 0; i < k; ++i) {
              const std::int64_t c = positions[static_cast<std::size_t>(i)];
              v[r * k + i] = x[r * cols + c];
              index_out[r * k + i] = static_cast<std::remove_pointer_t<decltype(index_out)>>(c);
            }
          }
        });
      };
      if (index_type == DType::int64)
        write(indices.data<std::int64_t>());
      else
        write(indices.data<std::int32_t>());
    } else {
      unsupported_dtype(ctx, input.dtype());
    }
  });
}

inline void top_k_kernel(KernelContext& ctx) {
  const Value& input = ctx.input(0);
  const std::int64_t k = check_top_k(ctx, input, ctx.input(1));
  const DType index_type = ctx.attr<DType>("index_type");
  Dims dims = input.dims();
  dims.back() = k;
  Value& values = ctx.allocate_output(0, input.dtype(), dims);
  Value& indices = ctx.allocate_output(1, index_type, dims);
  top_k_host(ctx, input, k, ctx.attr<bool>("sorted"), index_type, values, indices);
}

// InTopKV2's run-time checks (the Thrust kernel shares them).
inline void check_in_top_k(const KernelContext& ctx, const Value& predictions, const Value& targets,
                           const Value& k) {
  if (k.rank() != 0) ctx.fail("k must be 0-D, got shape " + dims_to_string(k.dims()));
  if (predictions.rank() != 2) ctx.fail("predictions must be 2-dimensional");
  if (targets.rank() != 1) ctx.fail("targets must be 1-dimensional");
  if (predictions.dims()[0] != targets.dims()[0])
    ctx.fail("First dimension of predictions " + std::to_string(predictions.dims()[0]) +
             " must match length of targets " + std::to_string(targets.dims()[0]));
}

inline void in_top_k_kernel(KernelContext& ctx) {
  const Value& predictions = ctx.input(0);
  const Value& targets = ctx.input(1);
  check_in_top_k(ctx, predictions, targets, ctx.input(2));
  const std::int64_t k = constant_int_elements(ctx.input(2)).at(0);
  const std::int64_t rows = predictions.dims()[0], classes = predictions.dims()[1];
  Value& out = ctx.allocate_output(0, DType::bool_, {rows});
  const float* p = predictions.data<float>();
  bool* in = out.data<bool>();
  auto run = [&](const auto* target) {
    for (std::int64_t r = 0; r < rows; ++r)
      in[r] = in_top_k_row(p + r * classes, classes, static_cast<std::int64_t>(target[r]), k);
  };
  if (targets.dtype() == DType::int64)
    run(targets.data<std::int64_t>());
  else
    run(targets.data<std::int32_t>());
}

inline constexpr auto kNnCpuKernels = std::to_array<CpuKernel>({
    {&kReluOp, nn_unary_kernel<ReluFn>, elementwise_of<ReluFn, 1>()},
    {&kRelu6Op, nn_unary_kernel<Relu6Fn>, elementwise_of<Relu6Fn, 1>()},
    {&kEluOp, nn_unary_kernel<EluFn>, elementwise_of<EluFn, 1>()},
    {&kSigmoidOp, nn_unary_kernel<SigmoidFn>, elementwise_of<SigmoidFn, 1>()},
    {&kTanhOp, nn_unary_kernel<TanhFn>, elementwise_of<TanhFn, 1>()},
    {&kFloorOp, nn_unary_kernel<FloorFn>, elementwise_of<FloorFn, 1>()},
    {&kLog1pOp, nn_unary_kernel<Log1pFn>, elementwise_of<Log1pFn, 1>()},
    {&kRsqrtOp, nn_unary_kernel<RsqrtFn>, elementwise_of<RsqrtFn, 1>()},
    {&kReciprocalOp, nn_unary_kernel<ReciprocalFn>, elementwise_of<ReciprocalFn, 1>()},
    {&kLeakyReluOp, leaky_relu_kernel},
    {&kReluGradOp, grad_binary_kernel<ReluGradFn>, elementwise_of<ReluGradFn, 2, false>()},
    {&kRelu6GradOp, grad_binary_kernel<Relu6GradFn>, elementwise_of<Relu6GradFn, 2, false>()},
    {&kEluGradOp, grad_binary_kernel<EluGradFn>, elementwise_of<EluGradFn, 2, false>()},
    {&kSigmoidGradOp, grad_binary_kernel<SigmoidGradFn>, elementwise_of<SigmoidGradFn, 2, false>()},
    {&kTanhGradOp, grad_binary_kernel<TanhGradFn>, elementwise_of<TanhGradFn, 2, false>()},
    {&kRsqrtGradOp, grad_binary_kernel<RsqrtGradFn>, elementwise_of<RsqrtGradFn, 2, false>()},
    {&kReciprocalGradOp, grad_binary_kernel<ReciprocalGradFn>,
     elementwise_of<ReciprocalGradFn, 2, false>()},
    {&kLeakyReluGradOp, leaky_relu_grad_kernel},
    {&kSquaredDifferenceOp, binary_kernel<SquaredDifferenceFn>,
     elementwise_of<SquaredDifferenceFn, 2>()},
    {&kSoftmaxOp, softmax_kernel},
    {&kLogSoftmaxOp, log_softmax_kernel},
    {&kSoftmaxCrossEntropyWithLogitsOp, softmax_xent_kernel},
    {&kSparseSoftmaxCrossEntropyWithLogitsOp, sparse_softmax_xent_kernel},
    {&kL2LossOp, l2_loss_kernel},
    {&kBiasAddOp, bias_add_kernel},
    {&kBiasAddGradOp, bias_add_grad_kernel},
    {&kTopKV2Op, top_k_kernel},
    {&kInTopKV2Op, in_top_k_kernel},
    {&kFusedBatchNormOp, batch_norm::forward_kernel<1>},
    {&kFusedBatchNormV2Op, batch_norm::forward_kernel<2>},
    {&kFusedBatchNormV3Op, batch_norm::forward_kernel<3>},
    {&kFusedBatchNormGradOp, batch_norm::grad_kernel<1>},
    {&kFusedBatchNormGradV2Op, batch_norm::grad_kernel<2>},
    {&kFusedBatchNormGradV3Op, batch_norm::grad_kernel<3>},
});

}  // namespace symflow::detail
