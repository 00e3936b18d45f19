#pragma once
// ThreadPool: the intra-op threads of a session (ConfigProto's
// intra_op_parallelism_threads). A kernel splits its work with parallel_for; the
// calling thread takes a share too, so a pool of N threads starts N - 1 workers.
// Several runs may call parallel_for at once: each call waits only for its own work.
// A thread with nothing to do spins for kSpin (30 us) before it sleeps, so the next
// kernel's chunks, usually microseconds away, find it awake.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace symflow {

class ThreadPool {
 public:
  // 0 or less: one thread per core.
  explicit ThreadPool(int num_threads = 0) {
    if (num_threads <= 0)
      num_threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    num_threads_ = num_threads;
    for (int i = 1; i < num_threads_; ++i) workers_.emplace_back([this] { work(); });
  }
  ~ThreadPool() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    for (auto& t : workers_) t.join();
  }
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int num_threads() const { return num_threads_; }

  // How many chunks parallel_for(n, min_chunk, ...) cuts [0, n) into: a kernel that
  // needs scratch per chunk takes it all before the split, so what a run allocates
  // does not depend on how the chunks happened to overlap in time.
  std::int64_t num_chunks(std::int64_t n, std::int64_t min_chunk) const {
    if (n <= 0) return 0;
    min_chunk = std::max<std::int64_t>(1, min_chunk);
    return std::min<std::int64_t>(num_threads_, std::max<std::int64_t>(1, n / min_chunk));
  }

  // Calls fn(begin, end) on disjoint chunks covering [0, n), each at least `min_chunk`
  // long (but the last), on up to num_threads() threads, and returns when all are done.
  // The first exception a chunk throws is rethrown here, after the others finish.
  template <class Fn>
  void parallel_for(std::int64_t n, std::int64_t min_chunk, Fn&& fn) {
    parallel_for_chunks(
        n, min_chunk, [&](std::int64_t, std::int64_t begin, std::int64_t end) { fn(begin, end); });
  }

  // parallel_for that also passes each chunk's index c in [0, num_chunks(n, min_chunk)):
  // fn(c, begin, end).
  template <class Fn>
  void parallel_for_chunks(std::int64_t n, std::int64_t min_chunk, Fn&& fn) {
    const std::int64_t chunks = num_chunks(n, min_chunk);
    if (chunks == 0) return;
    if (chunks == 1) {
      fn(std::int64_t{0}, std::int64_t{0}, n);
      return;
    }
    Batch batch;
    batch.pending.store(chunks, std::memory_order_relaxed);
    auto chunk_range = [&](std::int64_t c) {
      return std::pair<std::int64_t, std::int64_t>{n * c / chunks, n * (c + 1) / chunks};
    };
    batch.run = [&](std::int64_t c) {
      auto [b, e] = chunk_range(c);
      fn(c, b, e);
    };
    bool wake_sleepers = false;
    {
      std::lock_guard lock(mutex_);
      for (std::int64_t c = 1; c < chunks; ++c) push_task({&batch, c});
      wake_sleepers = sleepers_ > 0;  // spinning workers see the queue by themselves
    }
    if (wake_sleepers) wake_.notify_all();
    run_chunk(batch, 0);
    // Help with whatever is queued (this batch's chunks or another run's), then wait
    // for the chunks other threads took: spinning a while, as they are usually short,
    // and then asleep.
    std::unique_lock lock(mutex_);
    for (;;) {
      if (batch.pending.load(std::memory_order_acquire) == 0) break;
      if (run_queued(lock)) continue;
      lock.unlock();
      const bool done = spin_until([&] {
        return batch.pending.load(std::memory_order_acquire) == 0 ||
               queued_.load(std::memory_order_relaxed) > 0;
      });
      lock.lock();  // also waits out a worker still inside run_chunk's locked part
      // Checked again under the mutex: a chunk may have ended after the spin gave up.
      if (done || batch.pending.load(std::memory_order_acquire) == 0 || !queue_.empty()) continue;
      batch.done.wait(lock);
    }
    lock.unlock();
    if (batch.error) std::rethrow_exception(batch.error);
  }

 private:
  struct Batch {
    std::function<void(std::int64_t)> run;
    // Chunks not finished: counted down under the pool's mutex, read without it by a
    // spinning caller, which then takes the mutex once before `batch` goes away.
    std::atomic<std::int64_t> pending{0};
    std::exception_ptr error;      // guarded by the pool's mutex
    std::condition_variable done;  // waited on under the pool's mutex
  };
  struct Task {
    Batch* batch = nullptr;
    std::int64_t chunk = 0;
  };
  // A FIFO ring that grows only when full: a std::deque would allocate and free a node
  // every few dozen tasks, and a steady Session::run allocates nothing.
  class TaskQueue {
   public:
    bool empty() const { return count_ == 0; }
    std::size_t size() const { return count_; }
    void push(Task t) {
      if (count_ == ring_.size()) {
        std::vector<Task> grown(std::max<std::size_t>(16, ring_.size() * 2));
        for (std::size_t i = 0; i < count_; ++i) grown[i] = ring_[(head_ + i) % ring_.size()];
        ring_ = std::move(grown);
        head_ = 0;
      }
      ring_[(head_ + count_++) % ring_.size()] = t;
    }
    Task pop() {
      Task t = ring_[head_];
      head_ = (head_ + 1) % ring_.size();
      --count_;
      return t;
    }

   private:
    std::vector<Task> ring_;
    std::size_t head_ = 0, count_ = 0;
  };

  void run_chunk(Batch& batch, std::int64_t chunk) {
    std::exception_ptr error;
    try {
      batch.run(chunk);
    } catch (...) {
      error = std::current_exception();
    }
    std::lock_guard lock(mutex_);
    if (error && !batch.error) batch.error = error;
    if (batch.pending.fetch_sub(1, std::memory_order_acq_rel) == 1) batch.done.notify_all();
  }

  // Waits for `ready()` by spinning, up to kSpin; whether it came. A kernel's chunks,
  // and the kernels of one run, follow each other within microseconds, and waking a
  // sleeping thread costs about as long as a small chunk.
  template <class Ready>
  static bool spin_until(Ready ready) {
    const auto deadline = std::chrono::steady_clock::now() + kSpin;
    for (unsigned i = 1;; ++i) {
      if (ready()) return true;
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#elif defined(__aarch64__)
      asm volatile("yield");
#endif
      if (i % 64 == 0 && std::chrono::steady_clock::now() >= deadline) return false;
    }
  }

  void push_task(Task t) {
    queue_.push(t);
    queued_.store(queue_.size(), std::memory_order_relaxed);
  }
  Task pop_task() {
    Task t = queue_.pop();
    queued_.store(queue_.size(), std::memory_order_relaxed);
    return t;
  }

  // Runs the oldest queued chunk, if any, with the mutex (held by `lock`) released
  // meanwhile; whether there was one.
  bool run_queued(std::unique_lock<std::mutex>& lock) {
    if (queue_.empty()) return false;
    const Task task = pop_task();
    lock.unlock();
    run_chunk(*task.batch, task.chunk);
    lock.lock();
    return true;
  }

  void work() {
    std::unique_lock lock(mutex_);
    for (;;) {
      if (run_queued(lock)) continue;
      if (stopping_) return;  // stopping, nothing left
      lock.unlock();
      const bool found = spin_until([&] {
        return queued_.load(std::memory_order_relaxed) > 0 ||
               stopping_.load(std::memory_order_relaxed);
      });
      lock.lock();
      if (found) continue;
      ++sleepers_;
      wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      --sleepers_;
    }
  }

  static constexpr std::chrono::microseconds kSpin{30};

  int num_threads_ = 1;
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_;
  TaskQueue queue_;                     // guarded by mutex_
  std::atomic<std::size_t> queued_{0};  // queue_.size(), for spinning threads
  int sleepers_ = 0;                    // workers waiting on wake_; guarded by mutex_
  std::atomic<bool> stopping_{false};   // set under mutex_
};

}  // namespace symflow
