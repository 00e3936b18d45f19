#pragma once
// The descriptions of the data-flow ops that route slices by index: DynamicStitch,
// ParallelDynamicStitch, DynamicPartition and Unique (TensorFlow's data_flow_ops.cc and
// array_ops.cc). Their shape functions and OpDefs; the CPU kernels are in
// backend/cpu/kernels/data_flow.hpp, the graph-building functions and gradients in
// ops/data_flow_ops.hpp.
//
// Their outputs' sizes depend on the indices' values, so they run on the host only
// (host_only): the placer keeps them on the CPU, next to the values they read.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "symflow/core/dtype.hpp"
#include "symflow/core/errors.hpp"
#include "symflow/core/shape.hpp"
#include "symflow/ops/defs/op_def.hpp"
#include "symflow/ops/defs/shape_fn.hpp"

namespace symflow::detail::data_flow {

inline std::string str(std::int64_t v) { return std::to_string(v); }

// TensorFlow's InferenceContext::MergePrefix: `s` must start with `prefix` (rank at least
// the prefix's, each leading dim compatible). Unknown ranks pass.
inline void merge_prefix(const Shape& s, const Shape& prefix) {
  if (!s.has_rank() || !prefix.has_rank()) return;
  require_rank_at_least(s, prefix.rank());
  for (int i = 0; i < prefix.rank(); ++i) {
    const std::int64_t a = s[i], b = prefix[i];
    if (a >= 0 && b >= 0 && a != b)
      throw ValueError("Dimensions must be equal, but are " + str(a) + " and " + str(b));
  }
}

// The dims of `s` from `from` on; unknown when the rank of `s` is.
inline Shape suffix_shape(const Shape& s, int from) {
  if (!s.has_rank()) return Shape::unknown();
  return Shape(Dims(s.dims().begin() + from, s.dims().end()));
}

// [first] + rest, unknown when rest's rank is.
inline Shape prepend_dim(std::int64_t first, const Shape& rest) {
  if (!rest.has_rank()) return Shape::unknown();
  Dims d{first};
  d.insert(d.end(), rest.dims().begin(), rest.dims().end());
  return Shape(d);
}

// "int32, int64" for the message about a list input's dtypes.
inline std::string list_types(const InferContext& c, std::size_t first, std::size_t last) {
  std::string s;
  for (std::size_t i = first; i < last; ++i)
    s += (i > first ? ", " : "") + std::string(dtype_name(c.dtype(i)));
  return s;
}

// A list attr's length against its minimum, worded as TensorFlow's op_def_library.
inline std::int64_t list_length(const InferContext& c, std::string_view attr, std::string_view list,
                                std::string_view op) {
  const auto n = c.attr<std::int64_t>(attr);
  if (n < 1)
    throw ValueError("List argument '" + std::string(list) + "' to '" + std::string(op) +
                     "' Op with length " + str(n) + " shorter than minimum length 1.");
  return n;
}

// ---- DynamicStitch, ParallelDynamicStitch ---------------------------------------------

// (indices: N * int32, data: N * T) -> merged: T of shape [max(indices) + 1] + the part of
// each data shape after its indices' shape. The first dim is known only when every
// indices input is a constant.
inline std::vector<TensorSpec> infer_stitch(const InferContext& c, std::string_view op) {
  const auto n = static_cast<std::size_t>(list_length(c, "N", "indices", op));
  if (c.inputs.size() != 2 * n)
    throw ValueError(std::string(op) + " with N=" + str(static_cast<std::int64_t>(n)) + " takes " +
                     str(static_cast<std::int64_t>(2 * n)) + " inputs, got " +
                     str(static_cast<std::int64_t>(c.inputs.size())));
  for (std::size_t i = 0; i < n; ++i)
    if (c.dtype(i) != DType::int32)
      throw TypeError("Tensors in list passed to 'indices' of '" + std::string(op) +
                      "' Op have types [" + list_types(c, 0, n) +
                      "] that do not match expected type int32.");
  for (std::size_t i = n + 1; i < 2 * n; ++i)
    if (c.dtype(i) != c.dtype(n))
      throw TypeError("Tensors in list passed to 'data' of '" + std::string(op) +
                      "' Op have types [" + list_types(c, n, 2 * n) + "] that don't all match.");
  bool all_constant = true;
  std::int64_t max_index = -1;
  Shape extra = Shape::unknown();
  for (std::size_t i = 0; i < n; ++i) {
    const Value* constant = c.constant(i);
    if (!constant) all_constant = false;
    const Shape& indices = c.shape(i);
    if (!indices.has_rank()) continue;
    const Shape& data = c.shape(n + i);
    merge_prefix(data, indices);
    extra = merge_shapes(extra, suffix_shape(data, indices.rank()));
    if (constant)
      for (std::int64_t v : shape_argument(*constant)) max_index = std::max(max_index, v);
  }
  return {{c.dtype(n), prepend_dim(all_constant ? max_index + 1 : unknown_dim, extra)}};
}

inline std::vector<TensorSpec> infer_dynamic_stitch(const InferContext& c) {
  return infer_stitch(c, "DynamicStitch");
}
inline std::vector<TensorSpec> infer_parallel_dynamic_stitch(const InferContext& c) {
  return infer_stitch(c, "ParallelDynamicStitch");
}

SYMFLOW_OP_DEF(kDynamicStitchOp, OpDef{.type = "DynamicStitch",
                                       .num_inputs = -1,
                                       .infer = infer_dynamic_stitch,
                                       .accepts_strings = true,
                                       .host_only = true});
// The same op where duplicate indices may land in any order (symflow's kernel keeps
// DynamicStitch's: the later one wins).
SYMFLOW_OP_DEF(kParallelDynamicStitchOp, OpDef{.type = "ParallelDynamicStitch",
                                               .num_inputs = -1,
                                               .infer = infer_parallel_dynamic_stitch,
                                               .accepts_strings = true,
                                               .host_only = true});

// ---- DynamicPartition -------------------------------------------------------------------

// (data: T, partitions: int32) -> num_partitions outputs, each [?] + the part of data's
// shape after the partitions' shape.
inline std::vector<TensorSpec> infer_dynamic_partition(const InferContext& c) {
  const auto num = c.attr<std::int64_t>("num_partitions");
  if (num < 1)
    throw ValueError("Attr 'num_partitions' of 'DynamicPartition' Op passed " + str(num) +
                     " less than minimum 1.");
  if (c.dtype(1) != DType::int32)
    throw TypeError("Input 'partitions' of 'DynamicPartition' Op has type " +
                    std::string(dtype_name(c.dtype(1))) +
                    " that does not match expected type of int32.");
  const Shape& data = c.shape(0);
  const Shape& partitions = c.shape(1);
  Shape out = Shape::unknown();
  if (partitions.has_rank()) {
    merge_prefix(data, partitions);
    out = prepend_dim(unknown_dim, suffix_shape(data, partitions.rank()));
  }
  return std::vector<TensorSpec>(static_cast<std::size_t>(num), TensorSpec{c.dtype(0), out});
}

SYMFLOW_OP_DEF(kDynamicPartitionOp, OpDef{.type = "DynamicPartition",
                                          .num_inputs = 2,
                                          .infer = infer_dynamic_partition,
                                          .accepts_strings = true,
                                          .host_only = true});

// ---- Unique -----------------------------------------------------------------------------

// (x: T) -> (y: T of shape [?], idx: out_idx of x's shape); x must be a vector.
inline std::vector<TensorSpec> infer_unique(const InferContext& c) {
  const DType out_idx = c.attr<DType>("out_idx");
  if (out_idx != DType::int32 && out_idx != DType::int64)
    throw TypeError("Value passed to parameter 'out_idx' has DataType " +
                    std::string(dtype_name(out_idx)) +
                    " not in list of allowed values: int32, int64");
  std::vector<TensorSpec> out{{c.dtype(0), Shape{unknown_dim}}, {out_idx, c.shape(0)}};
  require_rank(c.shape(0), 1);
  return out;
}

SYMFLOW_OP_DEF(kUniqueOp, OpDef{.type = "Unique",
                                .num_inputs = 1,
                                .infer = infer_unique,
                                .accepts_strings = true,
                                .host_only = true});

}  // namespace symflow::detail::data_flow
