#pragma once
// symflow::distributed on MPI: Horovod's hvd.init(), hvd.rank(), hvd.size(),
// hvd.local_rank() and hvd.shutdown(), and MpiEngine, the CollectiveEngine that runs the
// collective ops (ops/collective_ops.hpp) over MPI. Only programs that link the CMake target
// symflow::mpi (MPI::MPI_CXX) include this header; the core library names no MPI.
//
// Every collective first meets the other ranks with a nonblocking barrier tested against a
// deadline: when they have not joined within the timeout (60 s by default; Options::timeout,
// the environment variable SYMFLOW_MPI_TIMEOUT in seconds, or set_timeout), it raises
// DeadlineExceededError naming the op, instead of hanging. The ranks are then out of step,
// so the engine refuses every later collective with AbortedError. Once all have arrived,
// they exchange what each brings (kind, dtype, byte count, root: a mismatch is
// InvalidArgumentError on every rank) and the data moves with MPI's blocking calls
// (MPI_Allreduce, MPI_Allgatherv, MPI_Bcast: OpenMPI's tuned algorithms, faster than its
// nonblocking ones), through one fusion buffer kept for the job. MPI errors (the
// communicator returns them rather than aborting) are UnavailableError. Not covered: a rank
// that dies or stops inside the blocking call itself (mpirun ends a job whose process dies).

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
        std::erase_if(a.requests, [](MPI_Request& request) {
          int done = 0;
          return MPI_Test(&request, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS || done != 0;
        });
        return a.requests.empty();
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
    const std::size_t bytes = total_bytes(parts);
    if (size_ == 1) return copy_through(parts);
    const Call call{1, static_cast<std::int64_t>(Kind::allreduce), static_cast<std::int64_t>(dtype),
                    static_cast<std::int64_t>(bytes), 0};
    const bool late = meet(call, "an allreduce", node, [&](Abandoned& abandoned) {
      abandoned.buffer = pack(parts);
      post_iallreduce(abandoned.buffer.data(), bytes / element, type, element, abandoned.requests,
                      node);
    });
    if (late) {
      // The ranks that gave up posted their share nonblocking: match it the same way, in a
      // buffer of the engine's own (this wait may be abandoned too).
      std::vector<std::byte> buffer = pack(parts);
      std::vector<MPI_Request> requests;
      post_iallreduce(buffer.data(), bytes / element, type, element, requests, node);
      wait_all(requests, "an allreduce", node, buffer);
      unpack(buffer.data(), parts);
      return left_behind("an allreduce", node);
    }
    if (bytes == 0) return;
    if (parts.size() == 1) {
      // One tensor: MPI sums straight into the output.
      const CollectivePart& part = parts.front();
      allreduce_blocking(part.in == part.out ? MPI_IN_PLACE : part.in, part.out, bytes / element,
                         type, element, node);
      return;
    }
    std::byte* buffer = fusion_buffer(bytes);
    pack_into(buffer, parts);
    allreduce_blocking(MPI_IN_PLACE, buffer, bytes / element, type, element, node);
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
    const auto* first = static_cast<const std::byte*>(mine);
    if (size_ == 1) {
      if (sizes) sizes->assign(1, bytes);
      return std::vector<std::byte>(first, first + bytes);
    }
    const Call call{1, static_cast<std::int64_t>(Kind::allgather), 0,
                    static_cast<std::int64_t>(bytes), 0};
    // A rank that gives up cannot post the data call (it needs every rank's count).
    if (meet(call, "an allgather", node, [](Abandoned&) {})) {
      left_behind("an allgather", node);
      check_usable(node);
    }
    // The meeting gave every rank's byte count.
    std::vector<int> counts(static_cast<std::size_t>(size_)), displacements(counts.size());
    std::size_t total = 0;
    for (std::size_t r = 0; r < counts.size(); ++r) {
      displacements[r] = static_cast<int>(total);
      counts[r] = static_cast<int>(calls_[r].bytes);
      total += static_cast<std::size_t>(calls_[r].bytes);
      // Every rank sees the same counts, so every rank raises this.
      if (total > static_cast<std::size_t>(INT_MAX))
        throw UnimplementedError("An allgather of more than 2 GiB in all is not supported",
                                 std::string(node));
    }
    std::vector<std::byte> received(total);
    if (total > 0)
      check(MPI_Allgatherv(mine, static_cast<int>(bytes), MPI_BYTE, received.data(), counts.data(),
                           displacements.data(), MPI_BYTE, comm_),
            "MPI_Allgatherv", node);
    if (sizes) sizes->assign(counts.begin(), counts.end());
    return received;
  }

  void broadcast(std::span<const CollectivePart> parts, int root, std::string_view node) override {
    std::lock_guard lock(mutex_);
    check_usable(node);
    const std::size_t bytes = total_bytes(parts);
    if (bytes > static_cast<std::size_t>(INT_MAX))
      throw UnimplementedError("A broadcast of more than 2 GiB is not supported",
                               std::string(node));
    if (size_ == 1) return copy_through(parts);
    const Call call{1, static_cast<std::int64_t>(Kind::broadcast), 0,
                    static_cast<std::int64_t>(bytes), root};
    const auto post_ibcast = [&](std::vector<std::byte>& buffer,
                                 std::vector<MPI_Request>& requests) {
      if (rank_ == root) buffer = pack(parts);
      buffer.resize(bytes);
      if (bytes == 0) return;
      requests.emplace_back();
      check(MPI_Ibcast(buffer.data(), static_cast<int>(bytes), MPI_BYTE, root, comm_,
                       &requests.back()),
            "MPI_Ibcast", node);
    };
    const bool late = meet(call, "a broadcast", node, [&](Abandoned& abandoned) {
      post_ibcast(abandoned.buffer, abandoned.requests);
    });
    if (late) {
      std::vector<std::byte> buffer;
      std::vector<MPI_Request> requests;
      post_ibcast(buffer, requests);
      wait_all(requests, "a broadcast", node, buffer);
      unpack(buffer.data(), parts);
      return left_behind("a broadcast", node);
    }
    if (bytes == 0) return;
    if (parts.size() == 1) {
      const CollectivePart& part = parts.front();
      if (rank_ == root && part.in != part.out) std::memcpy(part.out, part.in, bytes);
      check(MPI_Bcast(part.out, static_cast<int>(bytes), MPI_BYTE, root, comm_), "MPI_Bcast", node);
      return;
    }
    std::byte* buffer = fusion_buffer(bytes);
    if (rank_ == root) pack_into(buffer, parts);
    check(MPI_Bcast(buffer, static_cast<int>(bytes), MPI_BYTE, root, comm_), "MPI_Bcast", node);
    unpack(buffer, parts);
  }

 private:
  enum class Kind : std::int64_t { allreduce = 1, allgather = 2, broadcast = 3 };
  // What a rank brings to a collective, exchanged before the data moves. `joined` is 0 from
  // a rank that gave up waiting for the others.
  struct Call {
    std::int64_t joined = 1, kind = 0, dtype = 0, bytes = 0, root = 0;
  };
  static constexpr int kCallWords = sizeof(Call) / sizeof(std::int64_t);

  // The requests of a collective given up at its deadline, and the buffers MPI may still
  // write.
  struct Abandoned {
    std::vector<MPI_Request> requests;
    std::vector<std::byte> buffer;
    std::vector<Call> calls;
  };

  static std::size_t total_bytes(std::span<const CollectivePart> parts) {
    std::size_t total = 0;
    for (const CollectivePart& p : parts) total += p.bytes;
    return total;
  }
  static void pack_into(std::byte* buffer, std::span<const CollectivePart> parts) {
    for (const CollectivePart& p : parts) {
      if (p.bytes) std::memcpy(buffer, p.in, p.bytes);
      buffer += p.bytes;
    }
  }
  static std::vector<std::byte> pack(std::span<const CollectivePart> parts) {
    std::vector<std::byte> buffer(total_bytes(parts));
    pack_into(buffer.data(), parts);
    return buffer;
  }
  static void unpack(const std::byte* buffer, std::span<const CollectivePart> parts) {
    for (const CollectivePart& p : parts) {
      if (p.bytes) std::memcpy(p.out, buffer, p.bytes);
      buffer += p.bytes;
    }
  }
  // One process: every collective is its own input.
  static void copy_through(std::span<const CollectivePart> parts) {
    for (const CollectivePart& p : parts)
      if (p.bytes && p.in != p.out) std::memcpy(p.out, p.in, p.bytes);
  }

  // The job's fusion buffer, grown to `bytes` when smaller (never cleared: every call
  // overwrites what it uses).
  std::byte* fusion_buffer(std::size_t bytes) {
    if (bytes > fusion_capacity_) {
      fusion_.reset();
      fusion_.reset(new std::byte[bytes]);
      fusion_capacity_ = bytes;
    }
    return fusion_.get();
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

  // MPI counts are ints: a buffer past INT_MAX elements goes in several calls.
  static constexpr std::size_t kMaxCount = INT_MAX;

  void allreduce_blocking(const void* in, void* out, std::size_t count, MPI_Datatype type,
                          std::size_t element, std::string_view node) {
    for (std::size_t at = 0; at < count; at += kMaxCount) {
      const std::size_t n = std::min(kMaxCount, count - at);
      const void* send =
          in == MPI_IN_PLACE ? MPI_IN_PLACE : static_cast<const std::byte*>(in) + at * element;
      check(MPI_Allreduce(send, static_cast<std::byte*>(out) + at * element, static_cast<int>(n),
                          type, MPI_SUM, comm_),
            "MPI_Allreduce", node);
    }
  }
  void post_iallreduce(std::byte* data, std::size_t count, MPI_Datatype type, std::size_t element,
                       std::vector<MPI_Request>& requests, std::string_view node) {
    for (std::size_t at = 0; at < count; at += kMaxCount) {
      const std::size_t n = std::min(kMaxCount, count - at);
      requests.emplace_back();
      check(MPI_Iallreduce(MPI_IN_PLACE, data + at * element, static_cast<int>(n), type, MPI_SUM,
                           comm_, &requests.back()),
            "MPI_Iallreduce", node);
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

  // Tests `request` until it completes (true) or the deadline passes (false): a short spin,
  // since the other ranks often arrive within microseconds, then yielding the core for a
  // while, then short sleeps, so that a rank waiting for a slower one (its step, a
  // checkpoint) leaves the core to it on a machine with more processes than cores.
  bool poll(MPI_Request& request, std::chrono::steady_clock::time_point deadline,
            std::string_view node) {
    constexpr int kSpins = 64;
    constexpr auto kYieldFor = std::chrono::microseconds(200);
    const auto start = std::chrono::steady_clock::now();
    for (int polls = 0;; ++polls) {
      int done = 0;
      check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), "MPI_Test", node);
      if (done) return true;
      const auto now = std::chrono::steady_clock::now();
      if (now >= deadline) return false;
      if (polls < kSpins) continue;
      if (now - start < kYieldFor)
        std::this_thread::yield();
      else
        std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
  }

  // Marks the engine out of step at the deadline and raises DeadlineExceededError.
  [[noreturn]] void give_up(std::string_view what, std::string_view node, Abandoned abandoned) {
    abandoned_.push_back(std::move(abandoned));
    const auto seconds = std::chrono::duration<double>(timeout_).count();
    broken_ = std::string(what) + " of " + std::string(node) + " timed out on rank " +
              std::to_string(rank_);
    throw DeadlineExceededError(
        "The other ranks did not join " + std::string(what) + " within " +
            std::to_string(seconds).substr(0, std::to_string(seconds).find('.') + 2) +
            " s (a rank failed, or runs another graph); rank " + std::to_string(rank_) + " of " +
            std::to_string(size_) + " gives up",
        std::string(node));
  }

  // After a collective the others had given up on: its result is whole (their shares were
  // posted), but they refuse every later collective, so this rank does too.
  void left_behind(std::string_view what, std::string_view node) {
    broken_ = "another rank gave up on " + std::string(what) + " of " + std::string(node) +
              " at its timeout";
  }

  // Every collective starts here, before any data moves: a nonblocking barrier tested
  // against the deadline (a rank that never comes makes the others give up instead of
  // hanging), then every rank's Call, so that the data moves with the blocking calls (the
  // fast algorithms) only when every rank runs the same collective in time. A rank that
  // gives up still posts its Call (joined = 0) and, through `post_abandoned`, its share of
  // the data nonblocking: a late rank learns from the Calls that it is late and matches that
  // share with the nonblocking call (true: late), instead of waiting forever in a blocking
  // one. Leaves the Calls in calls_.
  template <class PostAbandoned>
  bool meet(Call call, std::string_view what, std::string_view node,
            PostAbandoned&& post_abandoned) {
    MPI_Request arrival;
    check(MPI_Ibarrier(comm_, &arrival), "MPI_Ibarrier", node);
    calls_.resize(static_cast<std::size_t>(size_));
    if (!poll(arrival, std::chrono::steady_clock::now() + timeout_, node)) {
      Abandoned abandoned{{arrival}, {}, std::vector<Call>(calls_.size())};
      call.joined = 0;
      abandoned.calls[static_cast<std::size_t>(rank_)] = call;
      abandoned.requests.emplace_back();
      const int code = MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, abandoned.calls.data(),
                                      kCallWords, MPI_INT64_T, comm_, &abandoned.requests.back());
      if (code == MPI_SUCCESS) {
        try {
          post_abandoned(abandoned);
        } catch (const Error&) {
          // An MPI error while giving up: the timeout is still the error to report.
        }
      } else {
        abandoned.requests.pop_back();
      }
      give_up(what, node, std::move(abandoned));
    }
    calls_[static_cast<std::size_t>(rank_)] = call;
    MPI_Request exchange;
    check(MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, calls_.data(), kCallWords, MPI_INT64_T,
                         comm_, &exchange),
          "MPI_Iallgather", node);
    // Every rank has arrived, so this completes at once unless a rank died in between.
    if (!poll(exchange, std::chrono::steady_clock::now() + timeout_, node))
      give_up(what, node, Abandoned{{exchange}, {}, std::move(calls_)});
    bool late = false;
    for (std::size_t r = 0; r < calls_.size(); ++r) {
      const Call& theirs = calls_[r];
      late = late || theirs.joined == 0;
      const bool same =
          theirs.kind == call.kind && theirs.dtype == call.dtype && theirs.root == call.root &&
          (call.kind == static_cast<std::int64_t>(Kind::allgather) || theirs.bytes == call.bytes);
      if (same) continue;
      const std::string message =
          "The ranks disagree on this collective: rank " + std::to_string(rank_) + " runs " +
          describe(call) + ", rank " + std::to_string(r) + " " + describe(theirs) +
          " (every rank must run the same collectives, on tensors of the same sizes, in the "
          "same order)";
      // Every rank sees the same Calls and moves no data: still in step, unless some rank
      // gave up and posted its data.
      if (std::any_of(calls_.begin(), calls_.end(), [](const Call& c) { return c.joined == 0; })) {
        broken_ = message;
        throw AbortedError(message, std::string(node));
      }
      throw InvalidArgumentError(message, std::string(node));
    }
    return late;
  }

  static std::string describe(const Call& call) {
    switch (static_cast<Kind>(call.kind)) {
      case Kind::allreduce:
        return "an allreduce of " + std::to_string(call.bytes) + " bytes of " +
               std::string(dtype_name(static_cast<DType>(call.dtype)));
      case Kind::allgather:
        return "an allgather";
      case Kind::broadcast:
        return "a broadcast of " + std::to_string(call.bytes) + " bytes from rank " +
               std::to_string(call.root);
    }
    return "an unknown collective";
  }

  // Waits for the nonblocking `requests` against the deadline; on it, they and `buffer`
  // (which MPI may still write) are kept, and the engine is out of step.
  void wait_all(std::vector<MPI_Request>& requests, std::string_view what, std::string_view node,
                std::vector<std::byte>& buffer) {
    const auto deadline = std::chrono::steady_clock::now() + timeout_;
    for (std::size_t i = 0; i < requests.size(); ++i) {
      if (poll(requests[i], deadline, node)) continue;
      give_up(what, node,
              Abandoned{std::vector<MPI_Request>(requests.begin() + static_cast<std::ptrdiff_t>(i),
                                                 requests.end()),
                        std::move(buffer),
                        {}});
    }
  }

  mutable std::mutex mutex_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1, local_rank_ = 0, local_size_ = 1;
  std::chrono::milliseconds timeout_;
  std::string broken_;  // why the ranks are out of step; empty while they are not
  std::vector<Abandoned> abandoned_;
  std::vector<Call> calls_;  // every rank's Call to the current collective
  // Kept for the job, as Horovod's fusion buffer: packing several tensors for one call
  // neither allocates nor clears memory once it has grown.
  std::unique_ptr<std::byte[]> fusion_;
  std::size_t fusion_capacity_ = 0;
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
