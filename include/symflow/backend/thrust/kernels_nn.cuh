#pragma once
// Thrust kernels: the softmax family (Softmax, LogSoftmax, SoftmaxCrossEntropyWithLogits,
// SparseSoftmaxCrossEntropyWithLogits), BiasAdd and BiasAddGrad, the FusedBatchNorm ops
// (FusedBatchNorm, V2, V3 and their gradient ops), TopKV2 (on the host) and InTopKV2.
//
// One device thread per row for the row-wise ops, each row computed by the functions the
// CPU kernels of backend/cpu/kernels/nn.hpp call (ops/defs/nn.hpp: row_max, softmax_row,
// softmax_xent_row, ...): on the host systems the results are the CPU's bits; on CUDA
// exp and log may differ from the host's libm by an ulp or two. BiasAdd is exact;
// BiasAddGrad is the device reduction of kernels_reduce.cuh, in the CPU's order (the
// CPU's bits). The FusedBatchNorm ops run the CPU's two passes (backend/cpu/batch_norm.hpp):
// one device thread per channel for its sums, then one per element (the CPU's bits on
// the host systems).
// BiasAdd's only data format is NHWC, as on the CPU (the shape functions reject others).

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "symflow/backend/cpu/batch_norm.hpp"
#include "symflow/backend/cpu/kernels/math.hpp"
#include "symflow/backend/cpu/kernels/nn.hpp"
#include "symflow/backend/thrust/kernel_util.cuh"
#include "symflow/backend/thrust/kernels_reduce.cuh"
#include "symflow/ops/defs/nn.hpp"

namespace symflow::thrust_backend {

namespace nn_kernels {

// ---- Softmax, LogSoftmax ----------------------------------------------------------------------
template <class T, bool Log>
struct SoftmaxRows {
  const T* x;
  T* y;
  std::int64_t cols;
  SYMFLOW_HD void operator()(std::int64_t r) const {
    const T* xr = x + r * cols;
    T* yr = y + r * cols;
    if constexpr (Log)
      symflow::detail::log_softmax_row(xr, yr, cols);
    else
      symflow::detail::softmax_row(xr, symflow::detail::row_max(xr, cols), yr, cols);
  }
};

template <bool Log>
void softmax_kernel(KernelContext& ctx) {
  const Value& in = ctx.input(0);
  if (in.rank() < 1) ctx.fail("logits must have >= 1 dimension, got " + dims_to_string(in.dims()));
  visit_dtype(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (symflow::detail::is_float_v<T>) {
      Value& out = output(ctx, 0, in.dtype(), in.dims());
      const std::int64_t cols = in.dims().back();
      const std::int64_t rows = cols ? in.size() / cols : 0;
      reduce_kernels::launch(rows,
                             SoftmaxRows<T, Log>{in.device_data<T>(), out.device_data<T>(), cols});
    } else {
      symflow::detail::unsupported_dtype(ctx, in.dtype());
    }
  });
}

// ---- SoftmaxCrossEntropyWithLogits -------------------------------------------------------------
template <class T>
struct SoftmaxXentRows {
  const T* x;  // logits [rows, cols]
  const T* p;  // labels [rows, cols]
  T* l;        // loss [rows]
  T* b;        // backprop [rows, cols]
  std::int64_t cols;
  SYMFLOW_HD void operator()(std::int64_t r) const {
    l[r] = symflow::detail::softmax_xent_row(x + r * cols, p + r * cols, b + r * cols, cols);
  }
};

inline void softmax_xent_kernel(KernelContext& ctx) {
  const Value& logits = ctx.input(0);
  const Value& labels = ctx.input(1);
  symflow::detail::check_softmax_xent(ctx, logits, labels);
  visit_dtype(logits.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (symflow::detail::is_float_v<T>) {
      const std::int64_t rows = logits.dims()[0], cols = logits.dims()[1];
      const T* x = logits.device_data<T>();
      const T* p = labels.device_data<T>();
      Value& loss = output(ctx, 0, logits.dtype(), {rows});
      Value& back = output(ctx, 1, logits.dtype(), {rows, cols});
      reduce_kernels::launch(
          rows, SoftmaxXentRows<T>{x, p, loss.device_data<T>(), back.device_data<T>(), cols});
    } else {
      symflow::detail::unsupported_dtype(ctx, logits.dtype());
    }
  });
}

// ---- SparseSoftmaxCrossEntropyWithLogits
// ---------------------------------------------------------
template <class T, class I>
struct SparseSoftmaxXentRows {
  const T* x;  // logits [rows, cols]
  const I* y;  // labels [rows], checked in range on the host
  T* l;
  T* b;
  std::int64_t cols;
  SYMFLOW_HD void operator()(std::int64_t r) const {
    l[r] = symflow::detail::sparse_softmax_xent_row(x + r * cols, static_cast<std::int64_t>(y[r]),
                                                    b + r * cols, cols);
  }
};

template <class T, class I>
void run_sparse_xent(KernelContext& ctx, const Value& logits, const Value& labels,
                     std::int64_t rows, std::int64_t cols) {
  const T* x = logits.device_data<T>();
  const I* y = labels.device_data<I>();
  Value& loss = output(ctx, 0, logits.dtype(), {rows});
  Value& back = output(ctx, 1, logits.dtype(), {rows, cols});
  reduce_kernels::launch(
      rows, SparseSoftmaxXentRows<T, I>{x, y, loss.device_data<T>(), back.device_data<T>(), cols});
}

inline void sparse_softmax_xent_kernel(KernelContext& ctx) {
  const Value& logits = ctx.input(0);
  const Value& labels = ctx.input(1);
  const auto shape = symflow::detail::check_sparse_xent_shapes(ctx, logits, labels);
  const std::int64_t rows = shape.first, cols = shape.second;
  // The labels are read on the host before anything runs.
  std::vector<std::int64_t> label_values;
  if (labels.dtype() == DType::int32) {
    for (std::int32_t v : host_vector<std::int32_t>(labels)) label_values.push_back(v);
  } else {
    label_values = host_vector<std::int64_t>(labels);  // (a TypeError unless int64)
  }
  symflow::detail::check_sparse_labels(
      ctx, rows, cols, [&](std::int64_t r) { return label_values[static_cast<std::size_t>(r)]; });
  visit_dtype(logits.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (symflow::detail::is_float_v<T>) {
      if (labels.dtype() == DType::int32)
        run_sparse_xent<T, std::int32_t>(ctx, logits, labels, rows, cols);
      else
        run_sparse_xent<T, std::int64_t>(ctx, logits, labels, rows, cols);
    } else {
      symflow::detail::unsupported_dtype(ctx, logits.dtype());
    }
  });
}

// ---- BiasAdd, BiasAddGrad
// ------------------------------------------------------------------------
template <class T>
struct AddBias {
  const T* x;
  const T* b;
  T* y;
  std::int64_t channels;
  SYMFLOW_HD void operator()(std::int64_t i) const {
    y[i] = symflow::detail::add_wrapping(x[i], b[i % channels]);
  }
};
// NCHW: the channel of element i is (i / inner) % channels, inner the size of a plane.
template <class T>
struct AddBiasChannelsFirst {
  const T* x;
  const T* b;
  T* y;
  std::int64_t channels, inner;
  SYMFLOW_HD void operator()(std::int64_t i) const {
    y[i] = symflow::detail::add_wrapping(x[i], b[(i / inner) % channels]);
  }
};

inline void bias_add_kernel(KernelContext& ctx) {
  const Value& value = ctx.input(0);
  const Value& bias = ctx.input(1);
  const bool nchw = symflow::detail::kernel_bias_nchw(ctx);
  const std::int64_t channels = symflow::detail::check_bias_add(ctx, value, bias, nchw);
  visit_dtype(value.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (symflow::detail::BiasAddTypes::accepts<T>) {
      const T* x = value.device_data<T>();
      const T* b = bias.device_data<T>();
      Value& out = output(ctx, 0, value.dtype(), value.dims());
      const std::int64_t planes = value.dims()[0] * channels;
      if (nchw)
        reduce_kernels::launch(out.size(),
                               AddBiasChannelsFirst<T>{x, b, out.device_data<T>(), channels,
                                                       planes > 0 ? value.size() / planes : 1});
      else
        reduce_kernels::launch(out.size(), AddBias<T>{x, b, out.device_data<T>(), channels});
    } else {
      symflow::detail::unsupported_dtype(ctx, value.dtype());
    }
  });
}

inline void bias_add_grad_kernel(KernelContext& ctx) {
  const Value& g = ctx.input(0);
  const bool nchw = symflow::detail::kernel_bias_nchw(ctx);
  if (g.rank() < 2) ctx.fail("Input tensor must be at least 2D: " + dims_to_string(g.dims()));
  visit_dtype(g.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (symflow::detail::BiasAddTypes::accepts<T>) {
      // The sum over every axis but the channels', as the CPU's (cpu::reduce).
      AxisMask mask(static_cast<std::size_t>(g.rank()), true);
      mask[symflow::detail::bias_axis(nchw, mask.size())] = false;
      ctx.set_output(
          0, reduce_kernels::reduce<T>(ctx, g, mask, false, T{0}, reduce_kernels::SumCombine{}));
    } else {
      symflow::detail::unsupported_dtype(ctx, g.dtype());
    }
  });
}

// ---- FusedBatchNorm, V2, V3 and their gradient ops ----------------------------------------
template <int Version>
void fused_batch_norm_kernel(KernelContext& ctx) {
  namespace bn = symflow::detail::batch_norm;
  const cpu::batch_norm::ForwardAttrs attrs = bn::forward_attrs(ctx);
  const cpu::batch_norm::Layout layout = bn::check_forward(ctx, Version == 3, attrs);
  bn::require_float32_input(ctx);
  const Value& x = ctx.input(0);
  const std::int64_t channels = layout.channels;
  Value& y = output(ctx, 0, DType::float32, x.dims());
  for (std::size_t i = 1; i < 5; ++i) output(ctx, i, DType::float32, {channels});
  if constexpr (Version == 3) ctx.allocate_output(5, DType::float32, {});
  Value coefficients =
      empty_device_value(DType::float64, {channels * cpu::batch_norm::kForwardCoefficients});
  reduce_kernels::launch(
      channels,
      cpu::batch_norm::ForwardChannel<float>{
          in_raw<float>(ctx, 0), in_raw<float>(ctx, 1), in_raw<float>(ctx, 2),
          in_raw<float>(ctx, 3), in_raw<float>(ctx, 4), ctx.output(1).device_data<float>(),
          ctx.output(2).device_data<float>(), ctx.output(3).device_data<float>(),
          ctx.output(4).device_data<float>(), coefficients.device_data<double>(), layout, attrs});
  reduce_kernels::launch(x.size(), cpu::batch_norm::ForwardElement<float>{
                                       in_raw<float>(ctx, 0), coefficients.device_data<double>(),
                                       y.device_data<float>(), layout});
}

template <int Version>
void fused_batch_norm_grad_kernel(KernelContext& ctx) {
  namespace bn = symflow::detail::batch_norm;
  const cpu::batch_norm::Layout layout = bn::check_grad(ctx, Version == 3);
  bn::require_float32_input(ctx);
  const double epsilon = ctx.attr<double>("epsilon");
  const bool is_training = ctx.attr<bool>("is_training");
  const std::int64_t channels = layout.channels;
  Value& dx = output(ctx, 0, DType::float32, ctx.input(1).dims());
  output(ctx, 1, DType::float32, {channels});
  output(ctx, 2, DType::float32, {channels});
  ctx.allocate_output(3, DType::float32, {0});
  ctx.allocate_output(4, DType::float32, {0});
  Value coefficients =
      empty_device_value(DType::float64, {channels * cpu::batch_norm::kBackwardCoefficients});
  reduce_kernels::launch(channels,
                         cpu::batch_norm::BackwardChannel<float>{
                             in_raw<float>(ctx, 0), in_raw<float>(ctx, 1), in_raw<float>(ctx, 2),
                             in_raw<float>(ctx, 3), in_raw<float>(ctx, 4),
                             ctx.output(1).device_data<float>(), ctx.output(2).device_data<float>(),
                             coefficients.device_data<double>(), layout, epsilon, is_training});
  reduce_kernels::launch(ctx.input(1).size(), cpu::batch_norm::BackwardElement<float>{
                                                  in_raw<float>(ctx, 0), in_raw<float>(ctx, 1),
                                                  coefficients.device_data<double>(),
                                                  dx.device_data<float>(), layout, is_training});
}

// ---- TopKV2, InTopKV2 ------------------------------------------------------------------------
// TopKV2 runs on the host, as the CPU's kernel (backend/cpu/kernels/nn.hpp): TensorFlow's
// order of ties and of sorted=false comes from std::sort and the standard heap functions,
// which device code does not have. The input is copied over and the results back.
inline void top_k_kernel(KernelContext& ctx) {
  const std::int64_t k = symflow::detail::check_top_k(ctx, ctx.input(0), host_value(ctx.input(1)));
  const Value input = host_value(ctx.input(0));
  const DType index_type = ctx.attr<DType>("index_type");
  Dims dims = input.dims();
  dims.back() = k;
  Value values(input.dtype(), dims);
  Value indices(index_type, dims);
  symflow::detail::top_k_host(ctx, input, k, ctx.attr<bool>("sorted"), index_type, values, indices);
  ctx.set_output(0, copy_to_device(values));
  ctx.set_output(1, copy_to_device(indices));
}

// One device thread per row of InTopKV2, by the CPU's row function (ops/defs/nn.hpp).
template <class I>
struct InTopKRows {
  const float* predictions;
  const I* targets;
  bool* out;
  std::int64_t classes;
  std::int64_t k;
  SYMFLOW_HD void operator()(std::int64_t r) const {
    out[r] = symflow::detail::in_top_k_row(predictions + r * classes, classes,
                                           static_cast<std::int64_t>(targets[r]), k);
  }
};

inline void in_top_k_kernel(KernelContext& ctx) {
  const Value& predictions = ctx.input(0);
  const Value& targets = ctx.input(1);
  const Value k_value = host_value(ctx.input(2));
  symflow::detail::check_in_top_k(ctx, predictions, targets, k_value);
  const std::int64_t k = symflow::detail::constant_int_elements(k_value).at(0);
  const std::int64_t rows = predictions.dims()[0], classes = predictions.dims()[1];
  Value& out = output(ctx, 0, DType::bool_, {rows});
  const float* p = predictions.device_data<float>();
  if (targets.dtype() == DType::int64)
    reduce_kernels::launch(rows, InTopKRows<std::int64_t>{p, targets.device_data<std::int64_t>(),
                                                          out.device_data<bool>(), classes, k});
  else
    reduce_kernels::launch(rows, InTopKRows<std::int32_t>{p, targets.device_data<std::int32_t>(),
                                                          out.device_data<bool>(), classes, k});
}

}  // namespace nn_kernels

inline constexpr auto kNnKernels = std::to_array<KernelEntry>({
    {&symflow::detail::kSoftmaxOp, nn_kernels::softmax_kernel<false>},
    {&symflow::detail::kLogSoftmaxOp, nn_kernels::softmax_kernel<true>},
    {&symflow::detail::kSoftmaxCrossEntropyWithLogitsOp, nn_kernels::softmax_xent_kernel},
    {&symflow::detail::kSparseSoftmaxCrossEntropyWithLogitsOp,
     nn_kernels::sparse_softmax_xent_kernel},
    {&symflow::detail::kBiasAddOp, nn_kernels::bias_add_kernel},
    {&symflow::detail::kBiasAddGradOp, nn_kernels::bias_add_grad_kernel},
    {&symflow::detail::kTopKV2Op, nn_kernels::top_k_kernel},
    {&symflow::detail::kInTopKV2Op, nn_kernels::in_top_k_kernel},
    {&symflow::detail::kFusedBatchNormOp, nn_kernels::fused_batch_norm_kernel<1>},
    {&symflow::detail::kFusedBatchNormV2Op, nn_kernels::fused_batch_norm_kernel<2>},
    {&symflow::detail::kFusedBatchNormV3Op, nn_kernels::fused_batch_norm_kernel<3>},
    {&symflow::detail::kFusedBatchNormGradOp, nn_kernels::fused_batch_norm_grad_kernel<1>},
    {&symflow::detail::kFusedBatchNormGradV2Op, nn_kernels::fused_batch_norm_grad_kernel<2>},
    {&symflow::detail::kFusedBatchNormGradV3Op, nn_kernels::fused_batch_norm_grad_kernel<3>},
});

}  // namespace symflow::thrust_backend
