#pragma once
// The CPU kernels of SaveV2, RestoreV2, ShardedFilename and MergeV2Checkpoints
// (ops/defs/io.hpp), and kIoCpuKernels, the table that maps their OpDefs to them. They write and
// read TensorFlow's V2 checkpoints through io/checkpoint_bundle.hpp, which holds no graph (the one
// include of io/ that the backend makes; tests/architecture).

#include <array>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "symflow/backend/cpu/kernel_table.hpp"
#include "symflow/backend/kernel_context.hpp"
#include "symflow/io/checkpoint_bundle.hpp"
#include "symflow/ops/defs/io.hpp"

namespace symflow::detail {

// The prefix, names and slice specs both ops start with, checked as TensorFlow's
// kernels check them. An empty spec is a whole tensor.
struct CheckpointArguments {
  std::string prefix;
  std::vector<std::string> names;
  std::vector<std::optional<io::tf_bundle::ShapeAndSlice>> slices;
};
inline CheckpointArguments checkpoint_arguments(const KernelContext& ctx, std::string_view op,
                                                std::size_t count) {
  const Value& prefix = ctx.input(0);
  const Value& names = ctx.input(1);
  const Value& slices = ctx.input(2);
  if (prefix.size() != 1)
    ctx.fail("Input prefix should have a single element, got " + std::to_string(prefix.size()) +
             " in " + std::string(op));
  if (names.rank() != 1 || static_cast<std::size_t>(names.size()) != count)
    ctx.fail("Input tensor_names should be a vector of " + std::to_string(count) +
             " names, got shape " + dims_to_string(names.dims()));
  if (slices.dims() != names.dims())
    ctx.fail("Expected " + std::to_string(count) +
             " elements in shapes_and_slices, but got shape " + dims_to_string(slices.dims()));
  CheckpointArguments args{prefix.scalar<std::string>(), names.to_vector<std::string>(), {}};
  for (const std::string& spec : slices.flat<std::string>()) {
    if (spec.empty()) {
      args.slices.emplace_back();
      continue;
    }
    try {
      args.slices.emplace_back(io::tf_bundle::parse_shape_and_slice(spec));
    } catch (const InvalidArgumentError& e) {
      ctx.fail(std::string(op) + ": " + e.what());
    }
  }
  return args;
}

inline void save_v2_kernel(KernelContext& ctx) {
  const std::size_t count = ctx.num_inputs() - 3;
  CheckpointArguments args = checkpoint_arguments(ctx, "SaveV2", count);
  std::vector<io::TensorToSave> tensors;
  for (std::size_t i = 0; i < count; ++i)
    tensors.push_back({args.names[i], ctx.input(3 + i), args.slices[i]});
  // As TensorFlow's BundleWriter, create the prefix's directory.
  const std::filesystem::path dir = std::filesystem::path(args.prefix).parent_path();
  std::error_code ec;
  if (!dir.empty()) std::filesystem::create_directories(dir, ec);
  try {
    io::write_tf_bundle_as_given(args.prefix, tensors);
  } catch (const InvalidArgumentError& e) {
    ctx.fail(e.what());
  }
}

inline void restore_v2_kernel(KernelContext& ctx) {
  const auto& dtypes = ctx.attr<TypeList>("dtypes").items;
  CheckpointArguments args = checkpoint_arguments(ctx, "RestoreV2", dtypes.size());
  const io::BundleReader reader(args.prefix);
  for (std::size_t i = 0; i < dtypes.size(); ++i) {
    if (!reader.contains(args.names[i]))
      throw NotFoundError("Key " + args.names[i] + " not found in checkpoint", ctx.node_name());
    const io::BundleEntry& entry = reader.entries().find(args.names[i])->second;
    if (entry.dtype == DType::invalid) (void)reader.read(args.names[i]);  // its typed error
    if (entry.dtype != dtypes[i])
      ctx.fail("tensor_name = " + args.names[i] + "; expected dtype " +
               std::string(dtype_runtime_name(dtypes[i])) + " does not equal original dtype " +
               std::string(dtype_runtime_name(entry.dtype)));
    if (!args.slices[i]) {
      ctx.set_output(i, reader.read(args.names[i]));
      continue;
    }
    const io::tf_bundle::ShapeAndSlice& spec = *args.slices[i];
    if (spec.shape != entry.shape)
      ctx.fail("tensor_name = " + args.names[i] + "; shape in shape_and_slice spec " +
               dims_to_string(spec.shape) +
               " does not match the shape stored in checkpoint: " + dims_to_string(entry.shape));
    ctx.set_output(i, reader.read_slice(args.names[i], spec.start, spec.length));
  }
}

inline void sharded_filename_kernel(KernelContext& ctx) {
  char suffix[64];
  std::snprintf(suffix, sizeof suffix, "-%05d-of-%05d", ctx.input(1).scalar<std::int32_t>(),
                ctx.input(2).scalar<std::int32_t>());
  ctx.set_output(0, Value(ctx.input(0).scalar<std::string>() + suffix));
}

inline void merge_v2_checkpoints_kernel(KernelContext& ctx) {
  const std::vector<std::string> sources = ctx.input(0).to_vector<std::string>();
  const std::string destination = ctx.input(1).scalar<std::string>();
  std::vector<std::string> present;
  for (const std::string& source : sources) {
    if (io::bundle_exists(source))
      present.push_back(source);
    else if (!ctx.attr<bool>("allow_missing_files"))
      throw NotFoundError("Failed to find any matching files for " + source + " (no index file " +
                              io::index_path(source) + ")",
                          ctx.node_name());
  }
  io::merge_tf_bundles(present, destination);
  if (ctx.attr<bool>("delete_old_dirs")) {
    for (const std::string& source : present) {
      const std::filesystem::path dir = std::filesystem::path(source).parent_path();
      std::error_code ec;  // as TensorFlow's, a folder that is not empty stays
      if (!dir.empty() && dir != std::filesystem::path(destination).parent_path())
        std::filesystem::remove(dir, ec);
    }
  }
}

inline constexpr auto kIoCpuKernels = std::to_array<CpuKernel>({
    {&kSaveV2Op, save_v2_kernel},
    {&kRestoreV2Op, restore_v2_kernel},
    {&kShardedFilenameOp, sharded_filename_kernel},
    {&kMergeV2CheckpointsOp, merge_v2_checkpoints_kernel},
});

}  // namespace symflow::detail
