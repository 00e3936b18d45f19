#pragma once
// The descriptions of the checkpoint ops of TensorFlow's Saver graphs: SaveV2,
// RestoreV2, and the sharded Saver's ShardedFilename and MergeV2Checkpoints, their shape
// functions and OpDefs. They run on the CPU only
// (backend/cpu/kernels/io.hpp) and write and read TensorFlow's V2 checkpoints; the
// graph-building functions are in ops/io_ops.hpp.

#include <string>
#include <vector>

#include "symflow/core/attr_value.hpp"
#include "symflow/core/dtype.hpp"
#include "symflow/core/errors.hpp"
#include "symflow/core/shape.hpp"
#include "symflow/ops/defs/op_def.hpp"
#include "symflow/ops/defs/shape_fn.hpp"
#include "symflow/ops/defs/string.hpp"

namespace symflow::detail {

// The three string arguments both ops start with: a scalar prefix, and a vector of
// names and one of slice specs ("" for a whole tensor).
inline void check_checkpoint_arguments(const InferContext& c) {
  require_string(c, 0, "prefix");
  require_string(c, 1, "tensor_names");
  require_string(c, 2, "shape_and_slices");
  require_rank(c.shape(0), 0);
  require_rank(c.shape(1), 1);
  require_rank(c.shape(2), 1);
  merge_shapes(c.shape(1), c.shape(2));
}

// SaveV2(prefix, tensor_names, shape_and_slices, tensors...): writes the tensors.
inline std::vector<TensorSpec> infer_save_v2(const InferContext& c) {
  if (c.inputs.size() < 3)
    throw ValueError("SaveV2 takes prefix, tensor_names, shape_and_slices and the tensors");
  check_checkpoint_arguments(c);
  const auto& dtypes = c.attr<TypeList>("dtypes").items;
  if (dtypes.size() != c.inputs.size() - 3)
    throw ValueError("SaveV2 has " + std::to_string(c.inputs.size() - 3) +
                     " tensors but its dtypes attr lists " + std::to_string(dtypes.size()));
  for (std::size_t i = 0; i < dtypes.size(); ++i)
    if (dtypes[i] != c.dtype(3 + i))
      throw TypeError("Input 'tensors' of 'SaveV2' Op has type " +
                      std::string(dtype_name(c.dtype(3 + i))) + " at " + std::to_string(i) +
                      " that does not match the dtypes attr's " +
                      std::string(dtype_name(dtypes[i])));
  const Shape& names = c.shape(1);
  if (names.has_rank() && names.dims()[0] >= 0 &&
      names.dims()[0] != static_cast<std::int64_t>(dtypes.size()))
    throw ValueError("Expected " + std::to_string(dtypes.size()) + " tensor names, got " +
                     std::to_string(names.dims()[0]));
  return {};
}
SYMFLOW_OP_DEF(kSaveV2Op, OpDef{.type = "SaveV2",
                                .num_inputs = -1,
                                .infer = infer_save_v2,
                                .stateful = true,
                                .accepts_strings = true,
                                .accepts_storage_dtypes = true,
                                .host_only = true});

// RestoreV2(prefix, tensor_names, shape_and_slices): one output per name, of the dtypes
// attr's types; their shapes are known only when the file is read.
inline std::vector<TensorSpec> infer_restore_v2(const InferContext& c) {
  check_checkpoint_arguments(c);
  std::vector<TensorSpec> out;
  for (DType d : c.attr<TypeList>("dtypes").items) out.push_back({d, Shape::unknown()});
  return out;
}
SYMFLOW_OP_DEF(kRestoreV2Op, OpDef{.type = "RestoreV2",
                                   .num_inputs = 3,
                                   .infer = infer_restore_v2,
                                   .stateful = true,
                                   .accepts_strings = true,
                                   .accepts_storage_dtypes = true,
                                   .host_only = true});

// ShardedFilename(basename, shard, num_shards): "basename-00000-of-00002".
inline std::vector<TensorSpec> infer_sharded_filename(const InferContext& c) {
  require_string(c, 0, "basename");
  constexpr auto is_int32 = [](DType d) { return d == DType::int32; };
  check_allowed(c, 1, "shard", is_int32);
  check_allowed(c, 2, "num_shards", is_int32);
  for (std::size_t i = 0; i < 3; ++i) require_rank(c.shape(i), 0);
  return {{DType::string, Shape{}}};
}
SYMFLOW_OP_DEF(kShardedFilenameOp, OpDef{.type = "ShardedFilename",
                                         .num_inputs = 3,
                                         .infer = infer_sharded_filename,
                                         .accepts_strings = true,
                                         .host_only = true});

// MergeV2Checkpoints(checkpoint_prefixes, destination_prefix): the checkpoints (one
// shard each, as the sharded Saver writes them) become the shards of one.
inline std::vector<TensorSpec> infer_merge_v2_checkpoints(const InferContext& c) {
  require_string(c, 0, "checkpoint_prefixes");
  require_string(c, 1, "destination_prefix");
  require_rank(c.shape(0), 1);
  require_rank(c.shape(1), 0);
  return {};
}
SYMFLOW_OP_DEF(kMergeV2CheckpointsOp, OpDef{.type = "MergeV2Checkpoints",
                                            .num_inputs = 2,
                                            .infer = infer_merge_v2_checkpoints,
                                            .stateful = true,
                                            .accepts_strings = true,
                                            .host_only = true});

}  // namespace symflow::detail
