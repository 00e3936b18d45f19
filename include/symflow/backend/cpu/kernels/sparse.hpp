#pragma once
// The CPU kernels of ScatterNd and SparseToDense (ops/defs/sparse.hpp), and
// kSparseCpuKernels, their entries in the CPU backend's kernel table. Every index is checked before
// anything is written, with TensorFlow's message.

#include <algorithm>
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

// The row-major offset of index `i` of `indices` ([n, rank]) in `shape`, or -1 outside it.
template <class I>
std::int64_t dense_offset(const I* indices, std::int64_t i, const Dims& shape) {
  std::int64_t offset = 0;
  const auto rank = static_cast<std::int64_t>(shape.size());
  for (std::int64_t j = 0; j < rank; ++j) {
    const auto at = static_cast<std::int64_t>(indices[i * rank + j]);
    if (at < 0 || at >= shape[static_cast<std::size_t>(j)]) return -1;
    offset = offset * shape[static_cast<std::size_t>(j)] + at;
  }
  return offset;
}

// "[2,1]": index `i` as TensorFlow's messages print it.
template <class I>
std::string index_text(const I* indices, std::int64_t i, std::int64_t rank) {
  std::string s = "[";
  for (std::int64_t j = 0; j < rank; ++j)
    s += (j ? "," : "") + std::to_string(static_cast<std::int64_t>(indices[i * rank + j]));
  return s + "]";
}

// The offsets of every index, checked as TensorFlow's kernel checks them: in bounds
// always; with validate_indices, also in increasing order without repeats.
template <class I>
std::vector<std::int64_t> dense_offsets(const KernelContext& ctx, const Value& indices,
                                        std::int64_t n, const Dims& shape, bool validate) {
  const I* idx = indices.data<I>();
  const auto rank = static_cast<std::int64_t>(shape.size());
  std::vector<std::int64_t> offsets(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t offset = dense_offset(idx, i, shape);
    const std::string at = "indices[" + std::to_string(i) + "] = " + index_text(idx, i, rank);
    if (offset < 0)
      ctx.fail(validate
                   ? at + " is out of bounds: need 0 <= index < " + dims_to_string(shape)
                   : "Indices are not valid (out of bounds).  Shape: " + dims_to_string(shape));
    if (validate && i > 0) {
      const std::int64_t previous = offsets[static_cast<std::size_t>(i - 1)];
      if (offset == previous) ctx.fail(at + " is repeated");
      if (offset < previous)
        ctx.fail(at +
                 " is out of order. Many sparse ops require sorted indices.\n    Use "
                 "`tf.sparse.reorder` to create a correctly ordered copy.\n\n");
    }
    offsets[static_cast<std::size_t>(i)] = offset;
  }
  return offsets;
}

// output = default_value everywhere, then output[indices[i]] = values[i] (or the scalar).
inline void sparse_to_dense_kernel(KernelContext& ctx) {
  const Value& indices = ctx.input(0);
  const Dims shape = shape_argument(ctx.input(1));
  const Value& values = ctx.input(2);
  const Value& fill = ctx.input(3);
  if (indices.rank() > 2)
    ctx.fail("sparse_indices should be a scalar, vector, or matrix, got shape " +
             dims_to_string(indices.dims()));
  const std::int64_t n = indices.rank() == 0 ? 1 : indices.dims()[0];
  const std::int64_t rank = indices.rank() == 2 ? indices.dims()[1] : 1;
  if (rank != static_cast<std::int64_t>(shape.size()))
    ctx.fail("output_shape has incorrect number of elements: " + std::to_string(shape.size()) +
             " should be: " + std::to_string(rank));
  if (!(values.rank() == 0 || (values.rank() == 1 && values.dims()[0] == n)))
    ctx.fail("sparse_values has incorrect shape " + dims_to_string(values.dims()) +
             ", should be [] or [" + std::to_string(n) + "]");
  if (fill.rank() != 0) ctx.fail("default_value should be a scalar.");
  const bool validate = ctx.attr<bool>("validate_indices");
  const std::vector<std::int64_t> offsets =
      indices.dtype() == DType::int32
          ? dense_offsets<std::int32_t>(ctx, indices, n, shape, validate)
          : dense_offsets<std::int64_t>(ctx, indices, n, shape, validate);
  Value& out = ctx.allocate_output(0, values.dtype(), shape);
  visit_dtype(values.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_arithmetic_v<T>) {
      T* to = out.data<T>();
      std::fill_n(to, out.size(), fill.data<T>()[0]);
      const T* from = values.data<T>();
      for (std::int64_t i = 0; i < n; ++i)
        to[offsets[static_cast<std::size_t>(i)]] = from[values.rank() == 0 ? 0 : i];
    } else {
      ctx.fail("SparseToDense does not support " + std::string(dtype_name(values.dtype())));
    }
  });
}

}  // namespace symflow::detail::sparse

namespace symflow::detail {

inline constexpr auto kSparseCpuKernels = std::to_array<CpuKernel>({
    {&sparse::kScatterNdOp, sparse::scatter_nd_kernel},
    {&sparse::kSparseToDenseOp, sparse::sparse_to_dense_kernel},
});

}  // namespace symflow::detail
