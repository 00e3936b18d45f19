#pragma once
// The CPU kernels of the data-flow ops (ops/defs/data_flow.hpp): DynamicStitch,
// ParallelDynamicStitch, DynamicPartition and Unique, and kDataFlowCpuKernels, their
// entries in the CPU backend's kernel table. Every index is checked before anything is
// written, with TensorFlow's messages.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "symflow/backend/cpu/kernel_table.hpp"
#include "symflow/backend/kernel_context.hpp"
#include "symflow/core/dtype.hpp"
#include "symflow/core/shape.hpp"
#include "symflow/core/value.hpp"
#include "symflow/ops/defs/data_flow.hpp"

namespace symflow::detail::data_flow {

// Copies `row` elements starting at element src_row * row of `src` to element
// dst_row * row of `dst` (same dtype): strings by assignment, the others as bytes.
inline void copy_row(const Value& src, std::int64_t src_row, Value& dst, std::int64_t dst_row,
                     std::int64_t row) {
  if (row == 0) return;
  if (src.dtype() == DType::string) {
    const std::string* from = src.data<std::string>() + src_row * row;
    std::copy_n(from, row, dst.data<std::string>() + dst_row * row);
    return;
  }
  const std::size_t bytes = static_cast<std::size_t>(row) * dtype_size(src.dtype());
  std::memcpy(
      static_cast<std::byte*>(dst.raw_data()) + static_cast<std::size_t>(dst_row) * bytes,
      static_cast<const std::byte*>(src.raw_data()) + static_cast<std::size_t>(src_row) * bytes,
      bytes);
}

inline bool starts_with(const Dims& dims, const Dims& prefix) {
  return prefix.size() <= dims.size() && std::equal(prefix.begin(), prefix.end(), dims.begin());
}

inline Dims dims_from(const Dims& dims, std::size_t from) {
  return Dims(dims.begin() + static_cast<std::ptrdiff_t>(from), dims.end());
}

// TensorFlow's SliceDebugString: "" for a scalar, "[3]" or "[1,0]" for the element at
// flat position `flat` of a tensor of `dims`.
inline std::string position_string(const Dims& dims, std::int64_t flat) {
  if (dims.empty()) return "";
  Dims at(dims.size());
  for (std::size_t i = dims.size(); i-- > 0;) {
    at[i] = flat % dims[i];
    flat /= dims[i];
  }
  return dims_to_string(at);
}

// ---- DynamicStitch, ParallelDynamicStitch ---------------------------------------------

// merged[indices[m][i...], ...] = data[m][i..., ...], in order, so that the last write of
// a repeated index wins; rows no index names stay zero (empty strings).
inline void dynamic_stitch_kernel(KernelContext& ctx) {
  const std::size_t total = ctx.num_inputs();
  if (total == 0 || total % 2 != 0)
    ctx.fail("Expected as many data inputs as indices inputs (N >= 1), got " + str(total) +
             " inputs");
  const std::size_t n = total / 2;
  std::int64_t max_index = -1;
  for (std::size_t m = 0; m < n; ++m) {
    const Value& indices = ctx.input(m);
    if (indices.dtype() != DType::int32)
      ctx.fail("indices[" + str(m) + "] must be int32, got " +
               std::string(dtype_runtime_name(indices.dtype())));
    if (ctx.input(n + m).dtype() != ctx.input(n).dtype())
      ctx.fail("data[" + str(m) + "] has type " +
               std::string(dtype_runtime_name(ctx.input(n + m).dtype())) + ", but data[0] has " +
               std::string(dtype_runtime_name(ctx.input(n).dtype())));
    for (std::int32_t v : indices.flat<std::int32_t>())
      max_index = std::max<std::int64_t>(max_index, v);
  }
  const std::int64_t first_dim = max_index + 1;
  // Only a negative index can fall outside [0, max + 1).
  for (std::size_t m = 0; m < n; ++m) {
    const auto values = ctx.input(m).flat<std::int32_t>();
    for (std::size_t i = 0; i < values.size(); ++i)
      if (values[i] < 0 || values[i] >= first_dim)
        ctx.fail("indices[" + str(static_cast<std::int64_t>(i)) + "] is out of range");
  }
  const Dims& indices0 = ctx.input(0).dims();
  const Dims& data0 = ctx.input(n).dims();
  for (std::size_t m = 0; m < n; ++m) {
    const Dims& indices = ctx.input(m).dims();
    const Dims& data = ctx.input(n + m).dims();
    if (!starts_with(data, indices))
      ctx.fail("data[" + str(m) + "].shape = " + dims_to_string(data) +
               " does not start with indices[" + str(m) + "].shape = " + dims_to_string(indices));
    if (m > 0 && !(starts_with(data0, indices0) &&
                   dims_from(data0, indices0.size()) == dims_from(data, indices.size())))
      ctx.fail("Need data[0].shape[" + str(indices0.size()) + ":] = data[" + str(m) + "].shape[" +
               str(indices.size()) + ":], got data[0].shape = " + dims_to_string(data0) +
               ", data[" + str(m) + "].shape = " + dims_to_string(data) +
               ", indices[0].shape = " + dims_to_string(indices0) + ", indices[" + str(m) +
               "].shape = " + dims_to_string(indices));
  }
  const Dims extra = dims_from(data0, indices0.size());
  Dims out_dims{first_dim};
  out_dims.insert(out_dims.end(), extra.begin(), extra.end());
  Value& out = ctx.allocate_output(0, ctx.input(n).dtype(), out_dims);  // zero-filled
  const std::int64_t row = num_elements(extra);
  for (std::size_t m = 0; m < n; ++m) {
    const auto values = ctx.input(m).flat<std::int32_t>();
    for (std::size_t i = 0; i < values.size(); ++i)
      copy_row(ctx.input(n + m), static_cast<std::int64_t>(i), out, values[i], row);
  }
}

// ---- DynamicPartition -------------------------------------------------------------------

// outputs[p] = the slices data[js, ...] with partitions[js] == p, in order of js.
inline void dynamic_partition_kernel(KernelContext& ctx) {
  const Value& data = ctx.input(0);
  const Value& partitions = ctx.input(1);
  const auto num = ctx.attr<std::int64_t>("num_partitions");
  if (num < 1) ctx.fail("num_partitions must be at least 1, got " + str(num));
  if (partitions.dtype() != DType::int32)
    ctx.fail("partitions must be int32, got " +
             std::string(dtype_runtime_name(partitions.dtype())));
  if (!starts_with(data.dims(), partitions.dims()))
    ctx.fail("data.shape must start with partitions.shape, got data.shape = " +
             dims_to_string(data.dims()) +
             ", partitions.shape = " + dims_to_string(partitions.dims()));
  const auto p = partitions.flat<std::int32_t>();
  std::vector<std::int64_t> counts(static_cast<std::size_t>(num), 0);
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (p[i] < 0 || p[i] >= num)
      ctx.fail("partitions" + position_string(partitions.dims(), static_cast<std::int64_t>(i)) +
               " = " + str(p[i]) + " is not in [0, " + str(num) + ")");
    ++counts[static_cast<std::size_t>(p[i])];
  }
  const Dims extra = dims_from(data.dims(), partitions.dims().size());
  const std::int64_t row = num_elements(extra);
  std::vector<Value*> outs;
  for (std::int64_t k = 0; k < num; ++k) {
    Dims dims{counts[static_cast<std::size_t>(k)]};
    dims.insert(dims.end(), extra.begin(), extra.end());
    outs.push_back(&ctx.allocate_output_for_overwrite(static_cast<std::size_t>(k), data.dtype(),
                                                      std::move(dims)));
  }
  std::vector<std::int64_t> next(static_cast<std::size_t>(num), 0);
  for (std::size_t i = 0; i < p.size(); ++i) {
    const auto k = static_cast<std::size_t>(p[i]);
    copy_row(data, static_cast<std::int64_t>(i), *outs[k], next[k]++, row);
  }
}

// ---- Unique -----------------------------------------------------------------------------

// Hashes a float so that 0.0 and -0.0, which compare equal, land together.
template <class T>
struct ElementHash {
  std::size_t operator()(const T& x) const {
    if constexpr (std::is_floating_point_v<T>) {
      if (x == T(0)) return 0;
    }
    return std::hash<T>{}(x);
  }
};

// Each element's position among the distinct values in order of first occurrence
// (`idx`), and where each distinct value first occurs (`first`). Elements compare with
// ==, as TensorFlow's hash map does: -0.0 joins 0.0, and every NaN is a value of its own.
template <class T, class Key = T>
void unique_positions(const T* x, std::int64_t n, std::vector<std::int64_t>& idx,
                      std::vector<std::int64_t>& first) {
  std::unordered_map<Key, std::int64_t, ElementHash<Key>> seen;
  seen.reserve(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    const Key key(x[i]);
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(x[i])) {  // never equal to anything, not even itself
        idx[static_cast<std::size_t>(i)] = static_cast<std::int64_t>(first.size());
        first.push_back(i);
        continue;
      }
    }
    auto [it, added] = seen.try_emplace(key, static_cast<std::int64_t>(first.size()));
    if (added) first.push_back(i);
    idx[static_cast<std::size_t>(i)] = it->second;
  }
}

inline void unique_kernel(KernelContext& ctx) {
  const Value& x = ctx.input(0);
  if (x.rank() != 1) ctx.fail("unique expects a 1D vector.");
  const DType out_idx = ctx.attr<DType>("out_idx");
  if (out_idx != DType::int32 && out_idx != DType::int64)
    ctx.fail("out_idx must be int32 or int64, got " + std::string(dtype_runtime_name(out_idx)));
  const std::int64_t n = x.size();
  if (n > std::numeric_limits<std::int32_t>::max())
    ctx.fail("unique does not support input tensors larger than " +
             str(std::numeric_limits<std::int32_t>::max()) + " elements");
  std::vector<std::int64_t> idx(static_cast<std::size_t>(n)), first;
  if (x.dtype() == DType::string) {
    unique_positions<std::string, std::string_view>(x.data<std::string>(), n, idx, first);
  } else {
    visit_dtype(x.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      unique_positions<T>(x.data<T>(), n, idx, first);
    });
  }
  Value& y =
      ctx.allocate_output_for_overwrite(0, x.dtype(), {static_cast<std::int64_t>(first.size())});
  for (std::size_t k = 0; k < first.size(); ++k)
    copy_row(x, first[k], y, static_cast<std::int64_t>(k), 1);
  Value& positions = ctx.allocate_output_for_overwrite(1, out_idx, {n});
  if (out_idx == DType::int32) {
    std::int32_t* to = positions.data<std::int32_t>();
    for (std::size_t i = 0; i < idx.size(); ++i) to[i] = static_cast<std::int32_t>(idx[i]);
  } else {
    std::copy(idx.begin(), idx.end(), positions.data<std::int64_t>());
  }
}

}  // namespace symflow::detail::data_flow

namespace symflow::detail {

inline constexpr auto kDataFlowCpuKernels = std::to_array<CpuKernel>({
    {&data_flow::kDynamicStitchOp, data_flow::dynamic_stitch_kernel},
    {&data_flow::kParallelDynamicStitchOp, data_flow::dynamic_stitch_kernel},
    {&data_flow::kDynamicPartitionOp, data_flow::dynamic_partition_kernel},
    {&data_flow::kUniqueOp, data_flow::unique_kernel},
});

}  // namespace symflow::detail
