#pragma once
// The CPU kernels of the collective ops (ops/defs/collective.hpp) and kCollectiveCpuKernels,
// their table. They move no bytes themselves: each hands its tensors to the installed
// CollectiveEngine (backend/collective_engine.hpp), which symflow::distributed::init()
// installs on MPI. Without one they raise FailedPreconditionError.

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "symflow/backend/collective_engine.hpp"
#include "symflow/backend/cpu/kernel_table.hpp"
#include "symflow/backend/kernel_context.hpp"
#include "symflow/core/errors.hpp"
#include "symflow/ops/defs/collective.hpp"

namespace symflow::detail {

inline std::shared_ptr<CollectiveEngine> require_collective_engine(const KernelContext& ctx,
                                                                   std::string_view op) {
  std::shared_ptr<CollectiveEngine> engine = collective_engine();
  if (!engine)
    throw FailedPreconditionError(
        std::string(op) +
            " needs a collective engine and none is installed: call "
            "symflow::distributed::init() first (link symflow::mpi, launch with mpirun)",
        ctx.node_name());
  return engine;
}

// MpiAllreduce: every input summed over the ranks, all of them in one transfer. With several
// inputs the outputs are views into one block, each at a 64-byte boundary: the inputs are
// copied in and the engine sums the block in place, so the sums need no copy out of a
// fusion buffer (the gaps are zeroed, since they are summed too).
inline void mpi_allreduce_kernel(KernelContext& ctx) {
  auto engine = require_collective_engine(ctx, "MpiAllreduce");
  const DType dtype = ctx.input(0).dtype();
  for (std::size_t i = 0; i < ctx.num_inputs(); ++i)
    if (ctx.input(i).dtype() != dtype)
      ctx.fail("MpiAllreduce's input " + std::to_string(i) + " is " +
               std::string(dtype_name(ctx.input(i).dtype())) + ", input 0 " +
               std::string(dtype_name(dtype)));
  if (engine->size() == 1) {
    // The sum over one process: each input is its output, as Identity forwards it.
    for (std::size_t i = 0; i < ctx.num_inputs(); ++i) ctx.set_output(i, ctx.input(i));
    return;
  }
  if (ctx.num_inputs() == 1) {
    const Value& in = ctx.input(0);
    Value& out = ctx.allocate_output_for_overwrite(0, dtype, in.dims());
    const CollectivePart part{in.raw_data(), out.raw_data(), in.nbytes()};
    engine->allreduce_sum({&part, 1}, dtype, ctx.node_name());
    return;
  }
  constexpr std::size_t kAlign = 64;
  const auto padded = [](std::size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; };
  std::size_t total = 0;
  for (std::size_t i = 0; i < ctx.num_inputs(); ++i) total += padded(ctx.input(i).nbytes());
  std::shared_ptr<void> block = allocate_aligned_for_overwrite(total);
  auto* at = static_cast<std::byte*>(block.get());
  for (std::size_t i = 0; i < ctx.num_inputs(); ++i) {
    const Value& in = ctx.input(i);
    const std::size_t bytes = in.nbytes();
    if (bytes > 0) std::memcpy(at, in.raw_data(), bytes);
    std::memset(at + bytes, 0, padded(bytes) - bytes);
    ctx.set_output(i, Value::wrap(dtype, in.dims(), at, block));
    at += padded(bytes);
  }
  const CollectivePart part{block.get(), block.get(), total};
  engine->allreduce_sum({&part, 1}, dtype, ctx.node_name());
}

// MpiAllgather: each rank sends a header (its rank and dims) before its bytes, so that
// the receivers learn every rank's first dimension and check the others against theirs.
inline void mpi_allgather_kernel(KernelContext& ctx) {
  auto engine = require_collective_engine(ctx, "MpiAllgather");
  const Value& in = ctx.input(0);
  if (in.rank() == 0) ctx.fail("MpiAllgather needs a tensor of rank 1 or more, got a scalar");
  std::vector<std::int64_t> header{static_cast<std::int64_t>(in.rank())};
  header.insert(header.end(), in.dims().begin(), in.dims().end());
  const std::size_t header_bytes = header.size() * sizeof(std::int64_t);
  std::vector<std::byte> mine(header_bytes + in.nbytes());
  std::memcpy(mine.data(), header.data(), header_bytes);
  if (in.nbytes() > 0) std::memcpy(mine.data() + header_bytes, in.raw_data(), in.nbytes());

  std::vector<std::size_t> sizes;
  const std::vector<std::byte> all =
      engine->allgather(mine.data(), mine.size(), &sizes, ctx.node_name());

  // Every rank's first dimension, and a check of the others.
  std::int64_t rows = 0;
  std::size_t at = 0;
  for (std::size_t r = 0; r < sizes.size(); ++r) {
    std::vector<std::int64_t> theirs(header.size());
    if (sizes[r] < header_bytes) {
      ctx.fail("MpiAllgather: rank " + std::to_string(r) + " gave a tensor of another rank than " +
               "this rank's " + dims_to_string(in.dims()));
    }
    std::memcpy(theirs.data(), all.data() + at, header_bytes);
    if (!std::equal(theirs.begin(), theirs.begin() + 1, header.begin()) ||
        !std::equal(theirs.begin() + 2, theirs.end(), header.begin() + 2)) {
      Dims their_dims(theirs.begin() + 1, theirs.end());
      ctx.fail("MpiAllgather: rank " + std::to_string(r) + " gave a tensor of shape " +
               dims_to_string(their_dims) + ", which differs from this rank's " +
               dims_to_string(in.dims()) + " past the first dimension");
    }
    rows += theirs[1];
    at += sizes[r];
  }
  Dims out_dims = in.dims();
  out_dims[0] = rows;
  Value& out = ctx.allocate_output_for_overwrite(0, in.dtype(), out_dims);
  auto* dst = static_cast<std::byte*>(out.raw_data());
  at = 0;
  for (std::size_t size : sizes) {
    const std::size_t data_bytes = size - header_bytes;
    if (data_bytes > 0) std::memcpy(dst, all.data() + at + header_bytes, data_bytes);
    dst += data_bytes;
    at += size;
  }
}

// MpiBroadcast: root's inputs on every rank, all of them in one transfer.
inline void mpi_broadcast_kernel(KernelContext& ctx) {
  auto engine = require_collective_engine(ctx, "MpiBroadcast");
  const std::int64_t root = ctx.attr<std::int64_t>("root_rank");
  if (root < 0 || root >= engine->size())
    ctx.fail("MpiBroadcast's root_rank " + std::to_string(root) + " is not a rank of the " +
             std::to_string(engine->size()) + " processes");
  if (engine->size() == 1) {
    for (std::size_t i = 0; i < ctx.num_inputs(); ++i) ctx.set_output(i, ctx.input(i));
    return;
  }
  std::vector<CollectivePart> parts(ctx.num_inputs());
  for (std::size_t i = 0; i < ctx.num_inputs(); ++i) {
    const Value& in = ctx.input(i);
    Value& out = ctx.allocate_output_for_overwrite(i, in.dtype(), in.dims());
    parts[i] = CollectivePart{in.raw_data(), out.raw_data(), in.nbytes()};
  }
  engine->broadcast(parts, static_cast<int>(root), ctx.node_name());
}

inline void mpi_size_kernel(KernelContext& ctx) {
  ctx.set_output(
      0, Value(static_cast<std::int32_t>(require_collective_engine(ctx, "MpiSize")->size())));
}
inline void mpi_rank_kernel(KernelContext& ctx) {
  ctx.set_output(
      0, Value(static_cast<std::int32_t>(require_collective_engine(ctx, "MpiRank")->rank())));
}

inline constexpr auto kCollectiveCpuKernels = std::to_array<CpuKernel>({
    {&kMpiAllreduceOp, mpi_allreduce_kernel},
    {&kMpiAllgatherOp, mpi_allgather_kernel},
    {&kMpiBroadcastOp, mpi_broadcast_kernel},
    {&kMpiSizeOp, mpi_size_kernel},
    {&kMpiRankOp, mpi_rank_kernel},
});

}  // namespace symflow::detail
