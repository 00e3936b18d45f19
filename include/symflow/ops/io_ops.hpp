#pragma once
// The functions that build the checkpoint ops of TensorFlow's Saver graphs (SaveV2,
// RestoreV2, ShardedFilename, MergeV2Checkpoints), as tf.raw_ops builds them. The ops' descriptions
// are in ops/defs/io.hpp, their CPU kernels in backend/cpu/kernels/io.hpp. They write and read
// TensorFlow's V2 checkpoints; nothing flows back through them.

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "symflow/graph/tensor.hpp"
#include "symflow/ops/defs/io.hpp"
#include "symflow/ops/grad_context.hpp"
#include "symflow/ops/op_builder.hpp"

namespace symflow {

// SaveV2(prefix, tensor_names, shape_and_slices, tensors): writes `tensors` under
// `tensor_names` to the checkpoint `prefix` when it runs. Every shape_and_slices entry
// must be "" (whole tensors).
inline Operation save_v2(const Output& prefix, const Output& tensor_names,
                         const Output& shape_and_slices, const std::vector<Output>& tensors,
                         std::string_view name = {}) {
  std::vector<Output> inputs = {prefix, tensor_names, shape_and_slices};
  inputs.insert(inputs.end(), tensors.begin(), tensors.end());
  detail::OpBuilder b(graph_of(inputs), name, "SaveV2");
  TypeList dtypes;
  for (const Output& t : tensors) dtypes.items.push_back(t.dtype());
  return b.build(detail::kSaveV2Op, inputs, {{"dtypes", dtypes}});
}

// RestoreV2(prefix, tensor_names, shape_and_slices): the tensors `tensor_names` of the
// checkpoint `prefix`, of `dtypes`, read when it runs.
inline std::vector<Output> restore_v2(const Output& prefix, const Output& tensor_names,
                                      const Output& shape_and_slices,
                                      const std::vector<DType>& dtypes,
                                      std::string_view name = {}) {
  detail::OpBuilder b(graph_of({prefix, tensor_names, shape_and_slices}), name, "RestoreV2");
  const Operation op = b.build(detail::kRestoreV2Op, {prefix, tensor_names, shape_and_slices},
                               {{"dtypes", TypeList{dtypes}}});
  std::vector<Output> out;
  for (std::size_t i = 0; i < dtypes.size(); ++i) out.push_back(op.output(static_cast<int>(i)));
  return out;
}

// ShardedFilename(basename, shard, num_shards): "basename-00000-of-00002".
inline Tensor<std::string> sharded_filename(const Output& basename, const Output& shard,
                                            const Output& num_shards, std::string_view name = {}) {
  detail::OpBuilder b(graph_of({basename, shard, num_shards}), name, "ShardedFilename");
  return Tensor<std::string>(
      b.build(detail::kShardedFilenameOp, {basename, shard, num_shards}, {}).output(0));
}

// MergeV2Checkpoints(checkpoint_prefixes, destination_prefix): the one-shard checkpoints
// become the shards of `destination_prefix`; with `delete_old_dirs` their folders go too
// (when empty), and with `allow_missing_files` a missing one is skipped.
inline Operation merge_v2_checkpoints(const Output& checkpoint_prefixes,
                                      const Output& destination_prefix, bool delete_old_dirs = true,
                                      bool allow_missing_files = false,
                                      std::string_view name = {}) {
  detail::OpBuilder b(graph_of({checkpoint_prefixes, destination_prefix}), name,
                      "MergeV2Checkpoints");
  return b.build(
      detail::kMergeV2CheckpointsOp, {checkpoint_prefixes, destination_prefix},
      {{"delete_old_dirs", delete_old_dirs}, {"allow_missing_files", allow_missing_files}});
}

namespace detail {
// The registry's entries of the checkpoint ops (ops/registry.hpp): nothing flows back.
inline constexpr auto kIoOpEntries = std::to_array<OpEntry>({
    {&kSaveV2Op, nullptr},
    {&kRestoreV2Op, not_differentiable},
    {&kShardedFilenameOp, not_differentiable},
    {&kMergeV2CheckpointsOp, nullptr},
});
}  // namespace detail

}  // namespace symflow
