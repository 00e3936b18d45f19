#pragma once
// The contract between the collective ops' kernels (MpiAllreduce, MpiAllgather, MpiBroadcast,
// MpiSize, MpiRank: backend/cpu/kernels/collective.hpp) and whatever moves their bytes
// between processes. The core library names no transport: symflow::distributed::init()
// (distributed/mpi.hpp, target symflow::mpi) installs an engine on MPI, and a test may
// install one of its own. Without an engine the kernels raise FailedPreconditionError.
//
// Every rank must call the same collectives in the same order; each call blocks until all
// ranks have joined it or the engine's timeout passes (DeadlineExceededError, after which
// the engine refuses further calls with AbortedError: the ranks are out of step).

#include <chrono>
#include <cstddef>
#include <memory>
#include <mutex>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "symflow/core/dtype.hpp"

namespace symflow {

// One tensor of a fused collective: its bytes are read from `in` and the result written
// to `out` (they may be the same). The engine writes `out` only before it returns: a
// collective abandoned at its timeout works on buffers of the engine's own, and never writes
// into a tensor afterwards.
struct CollectivePart {
  const void* in = nullptr;
  void* out = nullptr;
  std::size_t bytes = 0;
};

class CollectiveEngine {
 public:
  virtual ~CollectiveEngine() = default;

  // This process's place among the ranks, and how many there are.
  virtual int rank() const = 0;
  virtual int size() const = 0;

  // Each part's `out` gets the elementwise sum of its `in` over every rank, all parts in
  // one transfer. dtype (of every part): float32, float64, int32 or int64. `node` names
  // the op in error messages.
  virtual void allreduce_sum(std::span<const CollectivePart> parts, DType dtype,
                             std::string_view node) = 0;
  // Every rank's `mine`, concatenated in rank order; the ranks may give different sizes.
  // sizes (when not null) gets each rank's byte count.
  virtual std::vector<std::byte> allgather(const void* mine, std::size_t bytes,
                                           std::vector<std::size_t>* sizes,
                                           std::string_view node) = 0;
  // Each part's `out` gets root's `in`, all parts in one transfer; every rank gives parts
  // of root's sizes.
  virtual void broadcast(std::span<const CollectivePart> parts, int root,
                         std::string_view node) = 0;

  // How long a collective waits for the other ranks before it fails.
  virtual std::chrono::milliseconds timeout() const = 0;
  virtual void set_timeout(std::chrono::milliseconds timeout) = 0;
};

namespace detail {
struct CollectiveEngineSlot {
  std::mutex mutex;
  std::shared_ptr<CollectiveEngine> engine;
};
// One slot per program (an inline function's static is shared by every source).
inline CollectiveEngineSlot& collective_engine_slot() {
  static CollectiveEngineSlot slot;
  return slot;
}
}  // namespace detail

// The engine the collective kernels use from now on (null: none); returns the previous one.
inline std::shared_ptr<CollectiveEngine> install_collective_engine(
    std::shared_ptr<CollectiveEngine> engine) {
  auto& slot = detail::collective_engine_slot();
  std::lock_guard lock(slot.mutex);
  std::swap(slot.engine, engine);
  return engine;
}

// The installed engine, or null.
inline std::shared_ptr<CollectiveEngine> collective_engine() {
  auto& slot = detail::collective_engine_slot();
  std::lock_guard lock(slot.mutex);
  return slot.engine;
}

}  // namespace symflow
