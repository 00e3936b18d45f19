#pragma once
// Thrust kernels: the softmax family (Softmax, LogSoftmax, SoftmaxCrossEntropyWithLogits,
// SparseSoftmaxCrossEntropyWithLogits), BiasAdd and BiasAddGrad.
//
// One device thread per row for the row-wise ops, computing the row exactly as the CPU
// kernels of backend/cpu/kernels/nn.hpp do (shift by the row maximum, sum the
// exponentials in order, ...): on the host systems the results are the CPU's bits; on
// CUDA exp and log may differ from the host's libm by an ulp or two. BiasAdd is exact;
// BiasAddGrad is the device reduction of kernels_reduce.cuh, in the CPU's order (the
// CPU's bits).
// The only data format is NHWC, as on the CPU (the shape functions reject others).

#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "symflow/backend/cpu/kernels/math.hpp"
#include "symflow/backend/cpu/kernels/nn.hpp"
#include "symflow/backend/thrust/kernel_util.cuh"
#include "symflow/backend/thrust/kernels_reduce.cuh"
#include "symflow/ops/defs/nn.hpp"

namespace symflow::thrust_backend {

namespace nn_kernels {

// The row's largest element, as std::max_element finds it (the first of the largest;
// a NaN is kept only when it comes first).
template <class T>
SYMFLOW_HD T row_max(const T* x, std::int64_t cols) {
  T m = x[0];
  for (std::int64_t j = 1; j < cols; ++j)
    if (m < x[j]) m = x[j];
  return m;
}

// y = softmax of the row x shifted by its maximum m, in the CPU's order; returns the sum of
// the exponentials (for a log-sum-exp).
template <class T>
SYMFLOW_HD T softmax_row(const T* x, T m, T* y, std::int64_t cols) {
  T sum = 0;
  for (std::int64_t j = 0; j < cols; ++j) sum += (y[j] = std::exp(x[j] - m));
  const T inv = T{1} / sum;
  for (std::int64_t j = 0; j < cols; ++j) y[j] *= inv;
  return sum;
}

// ---- Softmax, LogSoftmax ----------------------------------------------------------------------
template <class T, bool Log>
struct SoftmaxRows {
  const T* x;
  T* y;
  std::int64_t cols;
  SYMFLOW_HD void operator()(std::int64_t r) const {
    const T* xr = x + r * cols;
    T* yr = y + r * cols;
    const T m = row_max(xr, cols);
    if constexpr (Log) {
      T sum = 0;
      for (std::int64_t j = 0; j < cols; ++j) sum += std::exp(xr[j] - m);
      const T lse = std::log(sum);
      for (std::int64_t j = 0; j < cols; ++j) yr[j] = xr[j] - m - lse;
    } else {
      softmax_row(xr, m, yr, cols);
    }
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
    const T* xr = x + r * cols;
    const T* pr = p + r * cols;
    T* br = b + r * cols;
    if (cols == 0) {
      l[r] = 0;
      return;
    }
    const T m = row_max(xr, cols);
    T sum = 0;
    for (std::int64_t j = 0; j < cols; ++j) sum += (br[j] = std::exp(xr[j] - m));
    const T lse = std::log(sum), inv = T{1} / sum;
    T acc = 0;
    for (std::int64_t j = 0; j < cols; ++j) {
      acc += pr[j] * (lse - (xr[j] - m));
      br[j] = br[j] * inv - pr[j];
    }
    l[r] = acc;
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
    const T* xr = x + r * cols;
    T* br = b + r * cols;
    const T m = row_max(xr, cols);
    const T lse = std::log(softmax_row(xr, m, br, cols));
    const auto label = static_cast<std::int64_t>(y[r]);
    l[r] = lse - (xr[label] - m);
    br[label] -= T{1};
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
    y[i] = reduce_kernels::wrap_add(x[i], b[i % channels]);
  }
};

inline void bias_add_kernel(KernelContext& ctx) {
  const Value& value = ctx.input(0);
  const Value& bias = ctx.input(1);
  const std::int64_t channels = symflow::detail::check_bias_add(ctx, value, bias);
  visit_dtype(value.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (symflow::detail::BiasAddTypes::accepts<T>) {
      const T* x = value.device_data<T>();
      const T* b = bias.device_data<T>();
      Value& out = output(ctx, 0, value.dtype(), value.dims());
      reduce_kernels::launch(out.size(), AddBias<T>{x, b, out.device_data<T>(), channels});
    } else {
      symflow::detail::unsupported_dtype(ctx, value.dtype());
    }
  });
}

inline void bias_add_grad_kernel(KernelContext& ctx) {
  const Value& g = ctx.input(0);
  if (g.rank() < 2) ctx.fail("Input tensor must be at least 2D: " + dims_to_string(g.dims()));
  visit_dtype(g.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (symflow::detail::BiasAddTypes::accepts<T>) {
      // The sum over every axis but the last, as the CPU's (cpu::reduce).
      AxisMask mask(static_cast<std::size_t>(g.rank()), true);
      mask.back() = false;
      ctx.set_output(
          0, reduce_kernels::reduce<T>(ctx, g, mask, false, T{0}, reduce_kernels::SumCombine{}));
    } else {
      symflow::detail::unsupported_dtype(ctx, g.dtype());
    }
  });
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
});

}  // namespace symflow::thrust_backend
