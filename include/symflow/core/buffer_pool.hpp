#pragma once
// BufferPool: where host tensors get their memory. A graph run again and again makes
// the same sizes each time, so freed blocks wait here for the next request of their
// size class instead of going back to malloc: a steady Session::run then allocates
// nothing. It also spares large tensors the page faults of memory that glibc
// returned to the OS on free (at 16M floats that costs more than the arithmetic).
//
// Size classes: powers of two up to 64 KiB; above, eight classes per power of two
// (at most 12.5% slack). Each small class keeps up to 64 blocks; large blocks are
// kept up to kMaxLargeBytes in all, and the rest go back to the system.
//
// Each thread also keeps up to kPerThread blocks of each class up to kThreadMax bytes
// for itself, taken and given back without the pool's lock (a run of small ops makes
// and frees a block per op); a thread's blocks go to the shared lists when it ends.

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace symflow::detail {

class BufferPool {
 public:
  static constexpr std::size_t kSmallMax = std::size_t{1} << 16;
  static constexpr std::size_t kMaxCachedPerClass = 64;
  static constexpr std::size_t kMaxLargeBlocks = 64;
  static constexpr std::size_t kMaxLargeBytes = std::size_t{512} << 20;
  static constexpr std::align_val_t kAlignment{64};
  // Blocks of each class up to kThreadMax bytes a thread keeps for itself.
  static constexpr std::size_t kPerThread = 16;
#if defined(__SANITIZE_ADDRESS__)
  static constexpr bool kEnabled = false;  // AddressSanitizer must see every free
#else
  static constexpr bool kEnabled = true;
#endif

  static BufferPool& instance() {
    static BufferPool* pool = new BufferPool;  // never destroyed: blocks outlive statics
    return *pool;
  }

  // How many bytes a request of `bytes` really gets.
  static std::size_t capacity(std::size_t bytes) {
    if (bytes <= kMinBytes) return kMinBytes;
    if (bytes <= kSmallMax) return std::bit_ceil(bytes);
    const std::size_t step = std::bit_floor(bytes) / 8;
    return (bytes + step - 1) / step * step;
  }

  void* allocate(std::size_t bytes) {
    const std::size_t cap = capacity(bytes);
    if (kEnabled && cap <= kThreadMax)
      if (ThreadCache* cache = thread_cache())
        if (void* p = cache->pop(small_class(cap))) return p;
    if (kEnabled) {
      std::lock_guard lock(mutex_);
      if (cap <= kSmallMax) {
        auto& list = small_[small_class(cap)];
        if (!list.empty()) {
          void* p = list.back();
          list.pop_back();
          return p;
        }
      } else {
        for (std::size_t i = 0; i < large_.size(); ++i) {
          if (large_[i].first != cap) continue;
          void* p = large_[i].second;
          large_[i] = large_.back();
          large_.pop_back();
          large_bytes_ -= cap;
          return p;
        }
      }
    }
    return ::operator new(cap, kAlignment);
  }

  void deallocate(void* p, std::size_t bytes) noexcept {
    const std::size_t cap = capacity(bytes);
    if (kEnabled && cap <= kThreadMax)
      if (ThreadCache* cache = thread_cache())
        if (cache->push(small_class(cap), p)) return;
    deallocate_shared(p, cap);
  }

 private:
  static constexpr std::size_t kMinShift = 6;  // 64 bytes
  static constexpr std::size_t kMinBytes = std::size_t{1} << kMinShift;
  static constexpr std::size_t kSmallClasses = 16 - kMinShift + 1;
  static constexpr std::size_t kThreadMax = 4096;
  static constexpr std::size_t kThreadClasses = 12 - kMinShift + 1;

  // A thread's own blocks, by class.
  class ThreadCache {
   public:
    ThreadCache(ThreadCache** self, bool* ended) : self_(self), ended_(ended) {}
    ThreadCache(const ThreadCache&) = delete;
    ThreadCache& operator=(const ThreadCache&) = delete;
    ~ThreadCache() {
      *self_ = nullptr;  // from now on this thread uses the shared lists only
      *ended_ = true;
      for (std::size_t c = 0; c < kThreadClasses; ++c)
        for (std::size_t i = 0; i < count_[c]; ++i)
          instance().deallocate_shared(blocks_[c][i], kMinBytes << c);
    }
    void* pop(std::size_t c) { return count_[c] ? blocks_[c][--count_[c]] : nullptr; }
    bool push(std::size_t c, void* p) {
      if (count_[c] == kPerThread) return false;
      blocks_[c][count_[c]++] = p;
      return true;
    }

   private:
    ThreadCache** self_;
    bool* ended_;
    std::uint8_t count_[kThreadClasses] = {};
    void* blocks_[kThreadClasses][kPerThread];
  };
  // This thread's cache, made on first use; null once the thread has destroyed it (a
  // block freed by a later thread_local's destructor goes to the shared lists).
  static ThreadCache* thread_cache() noexcept {
    // Trivially destructible, so without a guard, and readable to the thread's end.
    thread_local ThreadCache* cache = nullptr;
    thread_local bool ended = false;
    if (cache || ended) return cache;
    thread_local ThreadCache mine(&cache, &ended);
    cache = &mine;
    return cache;
  }

  void deallocate_shared(void* p, std::size_t cap) noexcept {
    if (kEnabled) {
      std::lock_guard lock(mutex_);
      if (cap <= kSmallMax) {
        auto& list = small_[small_class(cap)];
        if (list.size() < kMaxCachedPerClass) {
          list.push_back(p);  // capacity reserved up front: this never allocates
          return;
        }
      } else if (large_.size() < kMaxLargeBlocks && large_bytes_ + cap <= kMaxLargeBytes) {
        large_.emplace_back(cap, p);
        large_bytes_ += cap;
        return;
      }
    }
    ::operator delete(p, kAlignment);
  }

  BufferPool() {
    for (auto& list : small_) list.reserve(kMaxCachedPerClass);
    large_.reserve(kMaxLargeBlocks);
  }
  static std::size_t small_class(std::size_t cap) {
    return static_cast<std::size_t>(std::countr_zero(cap)) - kMinShift;
  }

  std::mutex mutex_;
  std::array<std::vector<void*>, kSmallClasses> small_;
  std::vector<std::pair<std::size_t, void*>> large_;  // (capacity, block)
  std::size_t large_bytes_ = 0;
};

// The largest host buffer, in bytes, that a Value made on this thread may ask for (0: no
// limit). A session with ConfigProto::memory_limit_bytes sets it around each kernel it
// runs, so that an oversized output is a ResourceExhaustedError before the system is asked.
inline std::int64_t& allocation_limit() noexcept {
  thread_local std::int64_t limit = 0;
  return limit;
}

// Sets this thread's allocation_limit() for the scope's life.
class AllocationLimitScope {
 public:
  explicit AllocationLimitScope(std::int64_t limit) noexcept
      : previous_(std::exchange(allocation_limit(), limit)) {}
  ~AllocationLimitScope() { allocation_limit() = previous_; }
  AllocationLimitScope(const AllocationLimitScope&) = delete;
  AllocationLimitScope& operator=(const AllocationLimitScope&) = delete;

 private:
  std::int64_t previous_;
};

// A std allocator on the pool (for allocate_shared: one block holds the reference
// count and the data, so the count is recycled with it).
template <class T>
struct PoolAllocator {
  using value_type = T;
  PoolAllocator() = default;
  template <class U>
  PoolAllocator(const PoolAllocator<U>&) noexcept {}  // NOLINT: rebinding is implicit
  T* allocate(std::size_t n) {
    static_assert(alignof(T) <= 64, "the pool aligns blocks to 64 bytes");
    return static_cast<T*>(BufferPool::instance().allocate(n * sizeof(T)));
  }
  void deallocate(T* p, std::size_t n) noexcept {
    BufferPool::instance().deallocate(p, n * sizeof(T));
  }
  template <class U>
  friend bool operator==(const PoolAllocator&, const PoolAllocator<U>&) {
    return true;
  }
};

// A kernel's scratch array of n elements (trivially copyable T, not initialised),
// from the pool and back to it at scope exit.
template <class T>
class PooledArray {
  static_assert(std::is_trivially_copyable_v<T>, "PooledArray holds raw memory");

 public:
  explicit PooledArray(std::size_t n)
      : bytes_(std::max<std::size_t>(n * sizeof(T), 1)),
        data_(static_cast<T*>(BufferPool::instance().allocate(bytes_))) {}
  ~PooledArray() { BufferPool::instance().deallocate(data_, bytes_); }
  PooledArray(const PooledArray&) = delete;
  PooledArray& operator=(const PooledArray&) = delete;
  T* data() const { return data_; }

 private:
  std::size_t bytes_;
  T* data_;
};

}  // namespace symflow::detail
