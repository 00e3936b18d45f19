#pragma once
// symflow::nn: neural-network ops.

#include <algorithm>
#include <cmath>

#include "symflow/ops/op_builder.hpp"

namespace symflow {

namespace detail {

inline std::vector<TensorSpec> infer_softmax(const InferContext& c) {
  check_allowed(c, 0, "logits", [](DType d) { return is_floating(d); });
  if (c.shape(0).has_rank() && c.shape(0).rank() < 1)
    throw ValueError("Shape must be at least rank 1 but is rank 0");
  return {c.inputs[0]};
}

// Softmax over the last axis, shifted by the row maximum for stability.
inline void softmax_kernel(KernelContext& ctx) {
  const Value& in = ctx.input(0);
  if (in.rank() < 1) ctx.fail("logits must have >= 1 dimension, got " + dims_to_string(in.dims()));
  visit_dtype(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T>) {
      Value& out = ctx.allocate_output(0, in.dtype(), in.dims());
      const std::int64_t cols = in.dims().back();
      const std::int64_t rows = cols ? in.size() / cols : 0;
      const T* x = in.data<T>();
      T* y = out.data<T>();
      for (std::int64_t r = 0; r < rows; ++r) {
        const T* xr = x + r * cols;
        T* yr = y + r * cols;
        T m = *std::max_element(xr, xr + cols);
        T sum = 0;
        for (std::int64_t j = 0; j < cols; ++j) sum += (yr[j] = std::exp(xr[j] - m));
        for (std::int64_t j = 0; j < cols; ++j) yr[j] /= sum;
      }
    } else {
      ctx.fail("Softmax needs float32 or float64 logits");
    }
  });
}

inline constexpr OpDef kSoftmaxOp{
    .type = "Softmax", .num_inputs = 1, .infer = infer_softmax, .cpu_kernel = softmax_kernel};

}  // namespace detail

namespace nn {

// tf.nn.softmax(logits): over the last axis.
inline Output softmax(const Output& logits, std::string_view name = {}) {
  detail::OpBuilder b(graph_of({logits}), name, "Softmax");
  return b.build(detail::kSoftmaxOp, {logits}, {{"T", logits.dtype()}}).output(0);
}
template <Element T>
Tensor<T> softmax(const Tensor<T>& logits, std::string_view name = {}) {
  return Tensor<T>(softmax(Output(logits), name));
}

}  // namespace nn
}  // namespace symflow
