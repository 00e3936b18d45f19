#pragma once
// The CPU kernel of ScatterNd (ops/defs/sparse.hpp), and kSparseCpuKernels, its entry in
// the CPU backend's kernel table. Every index is checked before anything is written,
// with TensorFlow's message.

#include <array>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "symflow/backend/cpu/kernel_table.hpp"
#include "symflow/backend/kernel_context.hpp"
#include "symflow/core/dtype.hpp"
#include "symflow/core/shape.hpp"
#include "symflow/core/value.hpp"
#include "symflow/ops/defs/shape_fn.hpp"
#include "symflow/ops/defs/sparse.hpp"

namespace symflow::detail::sparse {

// The flat offsets of the slices that `indices` ([N, K], int32 or int64) name in `shape`.
template <class I>
std::vector<std::int64_t> slice_offsets(const KernelContext& ctx, const Value& indices,
                                        const Dims& shape, std::int64_t n, std::int64_t k,
                                        std::int64_t slice_size) {
  const I* idx = indices.data<I>();
  std::vector<std::int64_t> offsets(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    std::int64_t offset = 0;
    bool inside = true;
    for (std::int64_t j = 0; j < k; ++j) {
      const auto at = static_cast<std::int64_t>(idx[i * k + j]);
      const std::int64_t dim = shape[static_cast<std::size_t>(j)];
      if (at < 0 || at >= dim) inside = false;
      offset = offset * dim + at;
    }
    if (!inside) {
      std::string named = "[";
      for (std::int64_t j = 0; j < k; ++j)
        named += (j ? ", " : "") + std::to_string(static_cast<std::int64_t>(idx[i * k + j]));
      ctx.fail("indices[" + std::to_string(i) + "] = " + named + "] does not index into shape " +
               dims_to_string(shape));
    }
    offsets[static_cast<std::size_t>(i)] = offset * slice_size;
  }
  return offsets;
}

// output = zeros(shape); output[indices[i]] += updates[i] (repeated indices add up).
inline void scatter_nd_kernel(KernelContext& ctx) {
  const Value& indices = ctx.input(0);
  const Value& updates = ctx.input(1);
  const Dims shape = shape_argument(ctx.input(2));
  for (std::int64_t d : shape)
    if (d < 0) ctx.fail("ScatterNd: the shape must not be negative, got " + dims_to_string(shape));
  if (indices.rank() < 1) ctx.fail("Indices shape must have rank at least one.");
  const std::int64_t k = indices.shape().dims().back();
  if (k > static_cast<std::int64_t>(shape.size()))
    ctx.fail("Index innermost dimension length must be <= output rank; saw: " + std::to_string(k) +
             " vs. " + std::to_string(shape.size()));
  const std::int64_t n = k == 0 ? 0 : indices.size() / k;
  std::int64_t slice_size = 1;
  for (std::size_t d = static_cast<std::size_t>(k); d < shape.size(); ++d) slice_size *= shape[d];
  if (updates.size() != n * slice_size)
    ctx.fail("updates has " + std::to_string(updates.size()) + " elements, expected " +
             std::to_string(n * slice_size) + " for indices of shape " +
             dims_to_string(indices.shape().dims()) + " and shape " + dims_to_string(shape));
  const std::vector<std::int64_t> offsets =
      indices.dtype() == DType::int32
          ? slice_offsets<std::int32_t>(ctx, indices, shape, n, k, slice_size)
          : slice_offsets<std::int64_t>(ctx, indices, shape, n, k, slice_size);
  Value& out = ctx.allocate_output(0, updates.dtype(), shape);
  visit_dtype(updates.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
      const T* from = updates.data<T>();
      T* to = out.data<T>();
      for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < slice_size; ++j)
          to[offsets[static_cast<std::size_t>(i)] + j] += from[i * slice_size + j];
    } else {
      ctx.fail("ScatterNd does not support " + std::string(dtype_name(updates.dtype())));
    }
  });
}

}  // namespace symflow::detail::sparse

namespace symflow::detail {

inline constexpr auto kSparseCpuKernels = std::to_array<CpuKernel>({
    {&sparse::kScatterNdOp, sparse::scatter_nd_kernel},
});

}  // namespace symflow::detail
