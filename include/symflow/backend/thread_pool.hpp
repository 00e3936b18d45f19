#pragma once
// ThreadPool: the intra-op threads of a session (ConfigProto's
// intra_op_parallelism_threads). A kernel splits its work with parallel_for; the
// calling thread takes a share too, so a pool of N threads starts N - 1 workers.
// Several runs may call parallel_for at once: each call waits only for its own work.

#include <algorithm>
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
    batch.pending = chunks;
    auto chunk_range = [&](std::int64_t c) {
      return std::pair<std::int64_t, std::int64_t>{n * c / chunks, n * (c + 1) / chunks};
    };
    batch.run = [&](std::int64_t c) {
      auto [b, e] = chunk_range(c);
      fn(c, b, e);
    };
    {
      std::lock_guard lock(mutex_);
      for (std::int64_t c = 1; c < chunks; ++c) queue_.push({&batch, c});
    }
    wake_.notify_all();
    run_chunk(batch, 0);
    // Help with whatever is queued (this batch's chunks or another run's) until done.
    // `pending` is only read and written under the mutex, so `batch` outlives the
    // last notify.
    std::unique_lock lock(mutex_);
    while (batch.pending > 0) {
      if (queue_.empty()) {
        batch.done.wait(lock);
        continue;
      }
      Task task = queue_.pop();
      lock.unlock();
      run_chunk(*task.batch, task.chunk);
      lock.lock();
    }
    lock.unlock();
    if (batch.error) std::rethrow_exception(batch.error);
  }

 private:
  struct Batch {
    std::function<void(std::int64_t)> run;
    std::int64_t pending = 0;  // guarded by the pool's mutex
    std::exception_ptr error;
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
    if (--batch.pending == 0) batch.done.notify_all();
  }

  void work() {
    for (;;) {
      Task task;
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
        if (queue_.empty()) return;  // stopping, nothing left
        task = queue_.pop();
      }
      run_chunk(*task.batch, task.chunk);
    }
  }

  int num_threads_ = 1;
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_;
  TaskQueue queue_;
  bool stopping_ = false;
};

}  // namespace symflow
