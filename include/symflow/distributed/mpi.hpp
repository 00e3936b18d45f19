#pragma once
// symflow::distributed on MPI: Horovod's hvd.init(), hvd.rank(), hvd.size(),
// hvd.local_rank() and hvd.shutdown(), and MpiEngine, the CollectiveEngine that runs the
// collective ops (ops/collective_ops.hpp) over MPI. Only programs that link the CMake target
// symflow::mpi (MPI::MPI_CXX) include this header; the core library names no MPI.
//
// Every collective is a nonblocking MPI call (MPI_Iallreduce, MPI_Iallgatherv, MPI_Ibcast)
// polled against a deadline: when the other ranks have not joined it within the timeout
// (60 s by default; Options::timeout, the environment variable SYMFLOW_MPI_TIMEOUT in
// seconds, or set_timeout), it raises DeadlineExceededError naming the op, instead of
// hanging. The ranks are then out of step, so the engine refuses every later collective with
// AbortedError. MPI errors (the communicator returns them rather than aborting) are
// UnavailableError.

// Only MPI's C API is used: leave out the deprecated C++ bindings (and their warnings).
#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1
#endif
#ifndef MPICH_SKIP_MPICXX
#define MPICH_SKIP_MPICXX 1
#endif
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "symflow/backend/collective_engine.hpp"
#include "symflow/core/dtype.hpp"
#include "symflow/core/errors.hpp"

namespace symflow::distributed {

// How long a collective waits for the other ranks by default.
inline constexpr std::chrono::milliseconds kDefaultTimeout{60'000};

struct Options {
  // How long a collective waits for the other ranks; unset: SYMFLOW_MPI_TIMEOUT (seconds)
  // when set, else kDefaultTimeout.
  std::optional<std::chrono::milliseconds> timeout = std::nullopt;
};

class MpiEngine final : public CollectiveEngine {
 public:
  // Runs the collectives on a duplicate of `comm` (so they never match the program's own
  // messages on `comm`), which returns errors instead of aborting.
  MpiEngine(MPI_Comm comm, std::chrono::milliseconds timeout) : timeout_(timeout) {
    check(MPI_Comm_dup(comm, &comm_), "MPI_Comm_dup", {});
    MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
    MPI_Comm local;
    check(MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &local),
          "MPI_Comm_split_type", {});
    MPI_Comm_rank(local, &local_rank_);
    MPI_Comm_size(local, &local_size_);
    MPI_Comm_free(&local);
  }
  MpiEngine(const MpiEngine&) = delete;
  MpiEngine& operator=(const MpiEngine&) = delete;
  ~MpiEngine() override {
    if (settle_abandoned()) MPI_Comm_free(&comm_);
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int local_rank() const { return local_rank_; }
  int local_size() const { return local_size_; }

  std::chrono::milliseconds timeout() const override {
    std::lock_guard lock(mutex_);
    return timeout_;
  }
  void set_timeout(std::chrono::milliseconds timeout) override {
    std::lock_guard lock(mutex_);
    timeout_ = timeout;
  }

  // Whether every collective this engine gave up on has since completed (the late ranks
  // joined them): only then may MPI be finalized without hanging.
  bool settle_abandoned() {
    std::lock_guard lock(mutex_);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    while (!abandoned_.empty()) {
      std::erase_if(abandoned_, [](Abandoned& a) {
        int done = 0;
        return MPI_Test(&a.request, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS || done != 0;
      });
      if (abandoned_.empty() || std::chrono::steady_clock::now() > deadline) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return abandoned_.empty();
  }

  void allreduce_sum(std::span<const CollectivePart> parts, DType dtype,
                     std::string_view node) override {
    std::lock_guard lock(mutex_);
    check_usable(node);
    const MPI_Datatype type = mpi_sum_type(dtype, node);
    const std::size_t element = dtype_size(dtype);
    std::vector<std::byte> buffer = pack(parts);
    // MPI counts are ints: a buffer past INT_MAX elements goes in several calls.
    const std::size_t count = buffer.size() / element;
    constexpr std::size_t kMaxCount = INT_MAX;
    for (std::size_t at = 0; at < count || (count == 0 && at == 0); at += kMaxCount) {
      const std::size_t n = std::min(kMaxCount, count - at);
      MPI_Request request;
      check(MPI_Iallreduce(MPI_IN_PLACE, buffer.data() + at * element, static_cast<int>(n), type,
                           MPI_SUM, comm_, &request),
            "MPI_Iallreduce", node);
      wait(request, "an allreduce", node, std::move(buffer), {});
      if (count == 0) break;
    }
    unpack(buffer, parts);
  }

  std::vector<std::byte> allgather(const void* mine, std::size_t bytes,
                                   std::vector<std::size_t>* sizes,
                                   std::string_view node) override {
    std::lock_guard lock(mutex_);
    check_usable(node);
    if (bytes > static_cast<std::size_t>(INT_MAX))
      throw UnimplementedError("An allgather of more than 2 GiB per rank is not supported",
                               std::string(node));
    // Every rank's byte count first, then the bytes.
    std::vector<std::byte> counts_buffer(sizeof(int) * static_cast<std::size_t>(size_));
    const int my_count = static_cast<int>(bytes);
    std::memcpy(counts_buffer.data() + sizeof(int) * static_cast<std::size_t>(rank_), &my_count,
                sizeof(int));
    MPI_Request request;
    check(MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, counts_buffer.data(), 1, MPI_INT,
                         comm_, &request),
          "MPI_Iallgather", node);
    wait(request, "an allgather", node, std::move(counts_buffer), {});
    std::vector<int> counts(static_cast<std::size_t>(size_)), displacements(counts.size());
    std::memcpy(counts.data(), counts_buffer.data(), counts_buffer.size());
    std::size_t total = 0;
    for (std::size_t r = 0; r < counts.size(); ++r) {
      if (total > static_cast<std::size_t>(INT_MAX))
        throw UnimplementedError("An allgather of more than 2 GiB in all is not supported",
                                 std::string(node));
      displacements[r] = static_cast<int>(total);
      total += static_cast<std::size_t>(counts[r]);
    }
    std::vector<std::byte> send(static_cast<const std::byte*>(mine),
                                static_cast<const std::byte*>(mine) + bytes);
    std::vector<std::byte> received(total);
    check(MPI_Iallgatherv(send.data(), my_count, MPI_BYTE, received.data(), counts.data(),
                          displacements.data(), MPI_BYTE, comm_, &request),
          "MPI_Iallgatherv", node);
    wait(request, "an allgather", node, std::move(received), std::move(send));
    if (sizes) sizes->assign(counts.begin(), counts.end());
    return received;
  }

  void broadcast(std::span<const CollectivePart> parts, int root, std::string_view node) override {
    std::lock_guard lock(mutex_);
    check_usable(node);
    std::vector<std::byte> buffer =
        rank_ == root ? pack(parts) : std::vector<std::byte>(total_bytes(parts));
    if (buffer.size() > static_cast<std::size_t>(INT_MAX))
      throw UnimplementedError("A broadcast of more than 2 GiB is not supported",
                               std::string(node));
    MPI_Request request;
    check(
        MPI_Ibcast(buffer.data(), static_cast<int>(buffer.size()), MPI_BYTE, root, comm_, &request),
        "MPI_Ibcast", node);
    wait(request, "a broadcast", node, std::move(buffer), {});
    unpack(buffer, parts);
  }

 private:
  // A collective given up at its deadline, and the buffers MPI may still write.
  struct Abandoned {
    MPI_Request request;
    std::vector<std::byte> buffer, other;
  };

  static std::size_t total_bytes(std::span<const CollectivePart> parts) {
    std::size_t total = 0;
    for (const CollectivePart& p : parts) total += p.bytes;
    return total;
  }
  // The fusion buffer: every part's bytes, one after the other.
  static std::vector<std::byte> pack(std::span<const CollectivePart> parts) {
    std::vector<std::byte> buffer(total_bytes(parts));
    std::size_t at = 0;
    for (const CollectivePart& p : parts) {
      if (p.bytes) std::memcpy(buffer.data() + at, p.in, p.bytes);
      at += p.bytes;
    }
    return buffer;
  }
  static void unpack(const std::vector<std::byte>& buffer, std::span<const CollectivePart> parts) {
    std::size_t at = 0;
    for (const CollectivePart& p : parts) {
      if (p.bytes) std::memcpy(p.out, buffer.data() + at, p.bytes);
      at += p.bytes;
    }
  }

  static MPI_Datatype mpi_sum_type(DType dtype, std::string_view node) {
    switch (dtype) {
      case DType::float32:
        return MPI_FLOAT;
      case DType::float64:
        return MPI_DOUBLE;
      case DType::int32:
        return MPI_INT32_T;
      case DType::int64:
        return MPI_INT64_T;
      default:
        throw InvalidArgumentError("An allreduce cannot sum " + std::string(dtype_name(dtype)),
                                   std::string(node));
    }
  }

  void check_usable(std::string_view node) const {
    if (!broken_.empty())
      throw AbortedError("The ranks are out of step since " + broken_ +
                             "; no further collective can run in this job (restart it from its "
                             "last checkpoint)",
                         std::string(node));
  }

  void check(int code, std::string_view call, std::string_view node) {
    if (code == MPI_SUCCESS) return;
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(code, text, &length);
    const std::string what =
        std::string(call) + " failed: " + std::string(text, static_cast<std::size_t>(length));
    broken_ = what;
    throw UnavailableError(what, std::string(node));
  }

  // Polls `request` until it completes or the deadline passes. On the deadline the
  // request and the buffers it uses are kept (MPI may still write them) and the engine is
  // marked out of step. `buffer` comes back through the reference on success.
  void wait(MPI_Request& request, std::string_view what, std::string_view node,
            std::vector<std::byte>&& buffer, std::vector<std::byte>&& other) {
    const auto start = std::chrono::steady_clock::now();
    const auto deadline = start + timeout_;
    for (int polls = 0;; ++polls) {
      int done = 0;
      check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), "MPI_Test", node);
      if (done) return;
      if (std::chrono::steady_clock::now() >= deadline) break;
      // Spin first (a step's allreduce usually completes within microseconds), then yield
      // the core to the other ranks' processes.
      if (polls > 1000) std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    const auto seconds = std::chrono::duration<double>(timeout_).count();
    broken_ = std::string(what) + " of " + std::string(node) + " timed out on rank " +
              std::to_string(rank_);
    abandoned_.push_back(Abandoned{request, std::move(buffer), std::move(other)});
    throw DeadlineExceededError(
        "The other ranks did not join " + std::string(what) + " within " +
            std::to_string(seconds).substr(0, std::to_string(seconds).find('.') + 2) +
            " s (a rank failed, or runs another graph); rank " + std::to_string(rank_) + " of " +
            std::to_string(size_) + " gives up",
        std::string(node));
  }

  mutable std::mutex mutex_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1, local_rank_ = 0, local_size_ = 1;
  std::chrono::milliseconds timeout_;
  std::string broken_;  // why the ranks are out of step; empty while they are not
  std::vector<Abandoned> abandoned_;
};

namespace detail {
struct MpiState {
  std::mutex mutex;
  std::shared_ptr<MpiEngine> engine;
  bool owns_mpi = false;  // init() called MPI_Init_thread, so shutdown() finalizes
};
inline MpiState& mpi_state() {
  static MpiState state;
  return state;
}
inline std::chrono::milliseconds timeout_from_environment() {
  if (const char* text = std::getenv("SYMFLOW_MPI_TIMEOUT")) {
    char* end = nullptr;
    const double seconds = std::strtod(text, &end);
    if (end == text || *end != '\0' || !(seconds > 0))
      throw ValueError("SYMFLOW_MPI_TIMEOUT must be a positive number of seconds, got \"" +
                       std::string(text) + "\"");
    return std::chrono::milliseconds(static_cast<std::int64_t>(seconds * 1000));
  }
  return kDefaultTimeout;
}
inline MpiEngine& initialized_engine(std::string_view function) {
  auto& state = mpi_state();
  std::lock_guard lock(state.mutex);
  if (!state.engine)
    throw ValueError("symflow::distributed::" + std::string(function) +
                     ": not initialized; call symflow::distributed::init() first");
  return *state.engine;
}
}  // namespace detail

// hvd.init(): starts MPI (unless the program did) and installs the engine that runs the
// collective ops. A second call does nothing.
inline void init(const Options& options = {}) {
  auto& state = detail::mpi_state();
  std::lock_guard lock(state.mutex);
  if (state.engine) return;
  const std::chrono::milliseconds timeout =
      options.timeout ? *options.timeout : detail::timeout_from_environment();
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    // Kernels may run on the session's inter-op threads; the engine serializes its calls.
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided);
    state.owns_mpi = true;
    if (provided < MPI_THREAD_SERIALIZED)
      throw UnavailableError("The MPI library gives thread level " + std::to_string(provided) +
                             "; symflow needs MPI_THREAD_SERIALIZED at least");
  }
  state.engine = std::make_shared<MpiEngine>(MPI_COMM_WORLD, timeout);
  install_collective_engine(state.engine);
}

inline bool is_initialized() {
  auto& state = detail::mpi_state();
  std::lock_guard lock(state.mutex);
  return state.engine != nullptr;
}

// hvd.rank(), hvd.size(), hvd.local_rank(), hvd.local_size(): this process among all of
// them, and among those on its machine. ValueError before init().
inline int rank() { return detail::initialized_engine("rank").rank(); }
inline int size() { return detail::initialized_engine("size").size(); }
inline int local_rank() { return detail::initialized_engine("local_rank").local_rank(); }
inline int local_size() { return detail::initialized_engine("local_size").local_size(); }

// How long each collective waits for the other ranks from now on.
inline void set_timeout(std::chrono::milliseconds timeout) {
  detail::initialized_engine("set_timeout").set_timeout(timeout);
}

// hvd.shutdown(): removes the engine (the collective ops fail again) and finalizes MPI when
// init() started it. A job whose ranks fell out of step at a timeout cannot finalize (MPI
// would wait for the collectives they never joined), so it aborts the job instead.
inline void shutdown() {
  auto& state = detail::mpi_state();
  std::lock_guard lock(state.mutex);
  if (!state.engine) return;
  install_collective_engine(nullptr);
  const bool settled = state.engine->settle_abandoned();
  if (!settled) MPI_Abort(MPI_COMM_WORLD, 1);
  state.engine.reset();
  if (state.owns_mpi) {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
    state.owns_mpi = false;
  }
}

}  // namespace symflow::distributed
