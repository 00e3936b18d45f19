#pragma once
// The functions that build the data-flow ops as TensorFlow 1.x does: tf.dynamic_stitch,
// parallel_dynamic_stitch, tf.dynamic_partition and tf.unique, their gradients (TensorFlow's
// data_flow_grad.py) and the area's registry entries. The ops are described in
// ops/defs/data_flow.hpp and run by backend/cpu/kernels/data_flow.hpp.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "symflow/graph/tensor.hpp"
#include "symflow/ops/array_ops.hpp"
#include "symflow/ops/defs/data_flow.hpp"
#include "symflow/ops/grad_context.hpp"
#include "symflow/ops/op_builder.hpp"
#include "symflow/ops/reduction_ops.hpp"
#include "symflow/ops/shape_ops.hpp"
#include "symflow/ops/tensor_arg.hpp"
#include "symflow/ops/transform_ops.hpp"

namespace symflow {

namespace detail::data_flow {

// DynamicStitch or ParallelDynamicStitch; `python_name` is the function TensorFlow's
// messages name.
inline Output build_stitch(const OpDef& def, std::string_view python_name,
                           const std::vector<TensorArg>& indices,
                           const std::vector<TensorArg>& data, std::string_view name) {
  if (indices.empty())
    throw ValueError("List argument 'indices' to '" + std::string(def.type) +
                     "' Op with length 0 shorter than minimum length 1.");
  if (data.size() != indices.size())
    throw ValueError("List argument 'data' to '" + std::string(python_name) + "' Op with length " +
                     str(static_cast<std::int64_t>(data.size())) + " must match length " +
                     str(static_cast<std::int64_t>(indices.size())) + " of argument 'indices'.");
  std::vector<Output> tensors;
  for (const auto* list : {&indices, &data})
    for (const TensorArg& a : *list)
      if (a.tensor()) tensors.push_back(*a.tensor());
  OpBuilder b(graph_of(tensors), name, def.type);
  std::vector<Output> in;
  for (std::size_t i = 0; i < indices.size(); ++i)
    in.push_back(indices[i].resolve(b, "indices_" + std::to_string(i)));
  for (std::size_t i = 0; i < data.size(); ++i)
    in.push_back(data[i].resolve(b, "data_" + std::to_string(i)));
  return b
      .build(def, in,
             {{"N", static_cast<std::int64_t>(indices.size())}, {"T", in[indices.size()].dtype()}})
      .output(0);
}

}  // namespace detail::data_flow

// tf.dynamic_stitch(indices, data): merged[indices[m][i...], ...] = data[m][i..., ...], the
// later of repeated indices winning; rows that no index names are zeros. Indices are int32.
inline Output dynamic_stitch(const std::vector<TensorArg>& indices,
                             const std::vector<TensorArg>& data, std::string_view name = {}) {
  return detail::data_flow::build_stitch(detail::data_flow::kDynamicStitchOp, "dynamic_stitch",
                                         indices, data, name);
}

// ParallelDynamicStitch: dynamic_stitch where TensorFlow leaves the order of repeated
// indices open (symflow's kernel is DynamicStitch's).
inline Output parallel_dynamic_stitch(const std::vector<TensorArg>& indices,
                                      const std::vector<TensorArg>& data,
                                      std::string_view name = {}) {
  return detail::data_flow::build_stitch(detail::data_flow::kParallelDynamicStitchOp,
                                         "parallel_dynamic_stitch", indices, data, name);
}

// tf.dynamic_partition(data, partitions, num_partitions): output p holds the slices
// data[js, ...] with partitions[js] == p, in order. Partitions are int32.
inline std::vector<Output> dynamic_partition(const Output& data, const TensorArg& partitions,
                                             std::int64_t num_partitions,
                                             std::string_view name = {}) {
  if (num_partitions < 1)
    throw ValueError("Attr 'num_partitions' of 'DynamicPartition' Op passed " +
                     std::to_string(num_partitions) + " less than minimum 1.");
  std::vector<Output> tensors{data};
  if (partitions.tensor()) tensors.push_back(*partitions.tensor());
  detail::OpBuilder b(graph_of(tensors), name, "DynamicPartition");
  Output p = partitions.resolve(b, "partitions");
  return b
      .build(detail::data_flow::kDynamicPartitionOp, {data, p},
             {{"num_partitions", num_partitions}, {"T", data.dtype()}})
      .outputs();
}

// tf.unique's two outputs.
struct UniqueOutputs {
  Output y;    // the distinct elements of x, in order of first occurrence
  Output idx;  // for each element of x, its position in y (int32 or int64)
};

// tf.unique(x, out_idx): the distinct elements of the vector x and where each element of
// x sits among them.
inline UniqueOutputs unique(const Output& x, DType out_idx = DType::int32,
                            std::string_view name = {}) {
  detail::OpBuilder b(graph_of({x}), name, "Unique");
  Operation op =
      b.build(detail::data_flow::kUniqueOp, {x}, {{"T", x.dtype()}, {"out_idx", out_idx}});
  return {op.output(0), op.output(1)};
}

namespace detail::data_flow {

// DynamicStitch and ParallelDynamicStitch: each data input gets the rows of the gradient
// its indices name (all of them, even rows a later duplicate overwrote, as TensorFlow
// does); the indices get none.
inline std::vector<Output> dynamic_stitch_grad(const GradContext& c) {
  const int n = c.op.num_inputs() / 2;
  std::vector<Output> out(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) out.push_back(gather(c.grad(), c.input(i)));
  return out;
}

// DynamicPartition: the outputs' gradients stitched back to the positions their slices
// came from (the positions partitioned as the data were), reshaped as the data.
inline std::vector<Output> dynamic_partition_grad(const GradContext& c) {
  const Output data = c.input(0);
  const Output partitions = c.input(1);
  const auto num = c.op.get_attr<std::int64_t>("num_partitions");
  Output prefix = shape(partitions);
  Output positions = reshape(range(0, reduce_prod(prefix)), prefix);
  std::vector<Output> parts = dynamic_partition(positions, partitions, num);
  std::vector<TensorArg> at(parts.begin(), parts.end()), grads;
  for (int k = 0; k < static_cast<int>(num); ++k)
    grads.emplace_back(c.grads.at(static_cast<std::size_t>(k)).valid() ? c.grad(k)
                                                                       : zeros_like(c.output(k)));
  Output merged = parallel_dynamic_stitch(at, grads);
  return {reshape(merged, shape(data)), Output{}};
}

inline constexpr auto kDataFlowOpEntries = std::to_array<OpEntry>({
    {&kDynamicStitchOp, dynamic_stitch_grad},
    {&kParallelDynamicStitchOp, dynamic_stitch_grad},
    {&kDynamicPartitionOp, dynamic_partition_grad},
    {&kUniqueOp, nullptr},  // TensorFlow registers none: a path through it is a LookupError
});

}  // namespace detail::data_flow

namespace detail {
using data_flow::kDataFlowOpEntries;
}  // namespace detail

}  // namespace symflow
