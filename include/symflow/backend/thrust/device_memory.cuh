#pragma once
// The device's memory pool: one per process, as TensorFlow's GPU allocator. The
// first session that asks for the device configures it from its GPUOptions; later
// sessions share it as it is.
//
// Modes (GPUOptions, runtime/options.hpp):
// - growth (allow_growth, or the defaults): the pool starts empty and takes blocks
//   from the device on demand. A freed block is not given back: it stays cached in a
//   bucket of its size (powers of two from 256 bytes up to 1 MiB, then multiples of
//   1 MiB) for the next request of that bucket, so a steady training loop makes no
//   device allocation after its first step. With per_process_gpu_memory_fraction > 0
//   the blocks held (in use + cached) never pass fraction x the device's memory: the
//   cache is given back to the device before a request over the limit fails.
//   Unlike TensorFlow, which reserves nearly all of the device up front when
//   allow_growth is off, the defaults (allow_growth off, fraction 0) grow with no limit.
// - arena (allow_growth off, fraction > 0): configure() reserves fraction x the
//   device's memory as one block and every tensor is carved out of it (best fit over
//   free ranges kept by offset, 256-byte aligned, neighbours merged when freed). The
//   arena never grows.
// A request the pool cannot serve is a ResourceExhaustedError naming its size, the
// bytes in use and the limit.
//
// The device's memory is cudaMemGetInfo's total under CUDA; on the host systems
// (Thrust-OMP / Thrust-CPP) it is the machine's physical memory.
//
// Sizes in Stats and in errors count whole blocks (a request rounded up to its bucket,
// or to 256 bytes in the arena). Scratch memory that Thrust algorithms or cuBLAS take
// for themselves does not go through the pool.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <set>
#include <sstream>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#if __has_include(<unistd.h>)
#include <unistd.h>
#endif

#include <thrust/device_free.h>
#include <thrust/device_malloc.h>

#include "symflow/backend/gpu_options.hpp"
#include "symflow/backend/thrust/system.cuh"
#include "symflow/core/errors.hpp"

namespace symflow::thrust_backend {

class DeviceMemoryPool {
 public:
  struct Stats {
    std::size_t bytes_in_use = 0;            // held by live values
    std::size_t peak_bytes_in_use = 0;       // the most bytes_in_use has been
    std::size_t bytes_limit = 0;             // 0: no limit
    std::size_t bytes_reserved = 0;          // held from the device: in use + cached, or the arena
    std::size_t num_device_allocations = 0;  // successful device_malloc calls
  };

  // Every block starts on this boundary (the arena's blocks, and the smallest bucket).
  static constexpr std::size_t kAlignment = 256;
  // Buckets are powers of two up to this, multiples of it above.
  static constexpr std::size_t kLargeBucket = std::size_t{1} << 20;

  // The process's pool. It is made with `new` and never deleted, on purpose: values
  // held by static objects may be freed after every static destructor has run, and
  // giving memory back to the CUDA runtime while it shuts down is an error. The
  // operating system reclaims everything at exit.
  static DeviceMemoryPool& instance() {
    static DeviceMemoryPool* const pool = new DeviceMemoryPool(0);
    return *pool;
  }

  // A pool of its own, configured with `options`, for tests: the process's pool is
  // configured once, by the first session. `device_total_bytes` stands for the
  // device's memory when the fraction is applied (0: the real device's). Its blocks
  // keep its state alive, so it may go out of scope before them.
  static DeviceMemoryPool make_for_testing(const GPUOptions& options,
                                           std::size_t device_total_bytes) {
    DeviceMemoryPool pool(device_total_bytes);
    pool.configure(options);
    return pool;
  }

  DeviceMemoryPool(const DeviceMemoryPool&) = delete;
  DeviceMemoryPool& operator=(const DeviceMemoryPool&) = delete;
  DeviceMemoryPool(DeviceMemoryPool&&) noexcept = default;
  DeviceMemoryPool& operator=(DeviceMemoryPool&&) noexcept = default;
  ~DeviceMemoryPool() = default;

  // The first call sets the options; later calls keep them (one pool per process),
  // as does an allocation made before any call (it fixes the defaults). Every call
  // checks its options: a fraction outside [0, 1] is an InvalidArgumentError. In
  // arena mode the first call reserves the arena; when the device cannot give it,
  // that is a ResourceExhaustedError and the pool stays unconfigured.
  void configure(const GPUOptions& options) {
    const double fraction = options.per_process_gpu_memory_fraction;
    if (!(fraction >= 0.0 && fraction <= 1.0)) {
      std::ostringstream message;
      message << "GPUOptions.per_process_gpu_memory_fraction must be in [0, 1], got " << fraction;
      throw InvalidArgumentError(message.str());
    }
    std::lock_guard lock(impl_->mutex);
    impl_->configure_locked(options);
  }

  // `bytes` of device memory, returned to the pool when the last owner lets go.
  std::shared_ptr<void> allocate(std::size_t bytes) {
    Impl& s = *impl_;
    std::size_t size = 0;
    std::byte* p = nullptr;
    {
      std::lock_guard lock(s.mutex);
      if (!s.configured) s.configure_locked(GPUOptions{});
      if (s.arena_mode) {
        size = bytes <= kMaxRequest ? round_up(bytes == 0 ? 1 : bytes, kAlignment) : 0;
        p = size == 0 ? nullptr : s.arena_take(size);
      } else {
        size = bytes <= kMaxRequest ? bucket_size(bytes) : 0;
        p = size == 0 ? nullptr : s.growth_take(size);
      }
      if (!p) throw s.out_of_memory(bytes);
      s.stats.bytes_in_use += size;
      if (s.stats.bytes_in_use > s.stats.peak_bytes_in_use)
        s.stats.peak_bytes_in_use = s.stats.bytes_in_use;
    }
    // Should the control block's allocation fail, shared_ptr calls the deleter.
    return std::shared_ptr<void>(static_cast<void*>(p), GiveBack{impl_, size});
  }

  // Gives the cached blocks back to the device (growth mode; the arena keeps its block).
  void release_cache() {
    std::lock_guard lock(impl_->mutex);
    impl_->release_cache_locked();
  }

  Stats stats() const {
    std::lock_guard lock(impl_->mutex);
    return impl_->stats;
  }

  // The options in force (the defaults until configured).
  GPUOptions options() const {
    std::lock_guard lock(impl_->mutex);
    return impl_->options;
  }

  // The bucket a request of `bytes` is served from in growth mode.
  static constexpr std::size_t bucket_size(std::size_t bytes) {
    if (bytes > kLargeBucket) return round_up(bytes, kLargeBucket);
    std::size_t size = kAlignment;
    while (size < bytes) size *= 2;
    return size;
  }

 private:
  // Larger requests fail at once (their rounding would overflow).
  static constexpr std::size_t kMaxRequest =
      std::numeric_limits<std::size_t>::max() / 2 - kLargeBucket;

  static constexpr std::size_t round_up(std::size_t n, std::size_t multiple) {
    return (n + multiple - 1) / multiple * multiple;
  }

  // The device's memory in bytes; 0 when it cannot be found.
  static std::size_t query_device_total() {
#if defined(SYMFLOW_THRUST_CUDA)
    std::size_t free_bytes = 0, total_bytes = 0;
    if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) {
      (void)cudaGetLastError();  // clear the error state
      return 0;
    }
    return total_bytes;
#elif defined(_SC_PHYS_PAGES) && defined(_SC_PAGE_SIZE)
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long page_size = sysconf(_SC_PAGE_SIZE);
    if (pages <= 0 || page_size <= 0) return 0;
    return static_cast<std::size_t>(pages) * static_cast<std::size_t>(page_size);
#else
    return 0;
#endif
  }

  // A block from the device, or null when it has no room (other device errors throw).
  static std::byte* device_alloc(std::size_t n) {
    try {
      // CUDA throws bad_alloc when it is out of memory; the host systems return null.
      return thrust::raw_pointer_cast(thrust::device_malloc<std::byte>(n));
    } catch (const std::bad_alloc&) {
      return nullptr;
    }
  }
  static void device_release(std::byte* p) noexcept {
    try {
      thrust::device_free(thrust::device_pointer_cast(p));
    } catch (...) {  // a broken CUDA context at exit: nothing left to do with the block
    }
  }

  struct Impl {
    std::mutex mutex;
    bool configured = false;
    GPUOptions options;
    std::size_t device_total = 0;  // 0: not known yet
    bool limited = false;          // fraction > 0
    std::size_t limit = 0;
    Stats stats;

    // Arena mode.
    bool arena_mode = false;
    std::byte* arena = nullptr;
    std::size_t arena_size = 0;
    std::map<std::size_t, std::size_t> free_by_offset;           // offset -> size
    std::set<std::pair<std::size_t, std::size_t>> free_by_size;  // (size, offset)

    // Growth mode: cached blocks by bucket size.
    std::unordered_map<std::size_t, std::vector<std::byte*>> cache;

    explicit Impl(std::size_t total) : device_total(total) {}
    Impl(const Impl&) = delete;
    Impl& operator=(const Impl&) = delete;

    // Only pools from make_for_testing get here (after their last block came back).
    ~Impl() {
      for (auto& [size, blocks] : cache)
        for (std::byte* p : blocks) device_release(p);
      if (arena) device_release(arena);
    }

    std::size_t total() {
      if (device_total == 0) device_total = query_device_total();
      return device_total;
    }

    void configure_locked(const GPUOptions& o) {
      if (configured) return;
      const double fraction = o.per_process_gpu_memory_fraction;
      std::size_t new_limit = 0;
      if (fraction > 0.0) {
        const std::size_t device = total();
        if (device == 0)
          throw InternalError(
              "Cannot find the device's memory size to apply per_process_gpu_memory_fraction");
        new_limit = static_cast<std::size_t>(fraction * static_cast<double>(device));
        new_limit -= new_limit % kAlignment;
      }
      if (!o.allow_growth && fraction > 0.0) {
        std::byte* block = new_limit > 0 ? device_alloc(new_limit) : nullptr;
        if (new_limit > 0 && !block) {
          std::ostringstream message;
          message << "OOM when reserving the memory pool of " << new_limit << " bytes ("
                  << "per_process_gpu_memory_fraction " << fraction << " of " << total()
                  << " bytes) on " << kDevice;
          throw ResourceExhaustedError(message.str());
        }
        if (block) {
          try {
            free_by_offset.emplace(0, new_limit);
            free_by_size.emplace(new_limit, 0);
          } catch (...) {
            free_by_offset.clear();
            free_by_size.clear();
            device_release(block);
            throw;
          }
          ++stats.num_device_allocations;
        }
        arena = block;
        arena_size = new_limit;
        arena_mode = true;
        stats.bytes_reserved = new_limit;
      }
      limited = fraction > 0.0;
      limit = new_limit;
      stats.bytes_limit = new_limit;
      options = o;
      configured = true;
    }

    ResourceExhaustedError out_of_memory(std::size_t bytes) {
      std::ostringstream message;
      message << "OOM when allocating tensor of " << bytes << " bytes on " << kDevice << ": "
              << stats.bytes_in_use << " bytes in use, limit " << (limited ? limit : total())
              << " bytes";
      return ResourceExhaustedError(message.str());
    }

    // --- arena mode ---

    void add_free(std::size_t offset, std::size_t size) {
      auto it = free_by_offset.emplace(offset, size).first;
      try {
        free_by_size.emplace(size, offset);
      } catch (...) {
        free_by_offset.erase(it);
        throw;
      }
    }

    // The best-fitting free range of at least `size` bytes, or null.
    std::byte* arena_take(std::size_t size) {
      auto best = free_by_size.lower_bound({size, 0});
      if (best == free_by_size.end()) return nullptr;
      const auto [range, offset] = *best;
      if (range > size) add_free(offset + size, range - size);
      free_by_size.erase(best);
      free_by_offset.erase(offset);
      return arena + offset;
    }

    void arena_give_back(std::byte* p, std::size_t size) {
      std::size_t offset = static_cast<std::size_t>(p - arena);
      auto after = free_by_offset.lower_bound(offset);
      if (after != free_by_offset.begin()) {
        auto before = std::prev(after);
        if (before->first + before->second == offset) {
          offset = before->first;
          size += before->second;
          free_by_size.erase({before->second, before->first});
          free_by_offset.erase(before);
        }
      }
      if (after != free_by_offset.end() && after->first == offset + size) {
        size += after->second;
        free_by_size.erase({after->second, after->first});
        free_by_offset.erase(after);
      }
      add_free(offset, size);
    }

    // --- growth mode ---

    std::byte* growth_take(std::size_t size) {
      auto cached = cache.find(size);
      if (cached != cache.end() && !cached->second.empty()) {
        std::byte* p = cached->second.back();
        cached->second.pop_back();
        return p;
      }
      if (limited && size > limit - std::min(limit, stats.bytes_reserved)) {
        release_cache_locked();
        if (size > limit - std::min(limit, stats.bytes_reserved)) return nullptr;
      }
      std::byte* p = device_alloc(size);
      if (!p) {  // the device is full (other processes, or no limit): try without the cache
        release_cache_locked();
        p = device_alloc(size);
        if (!p) return nullptr;
      }
      ++stats.num_device_allocations;
      stats.bytes_reserved += size;
      return p;
    }

    void release_cache_locked() {
      for (auto& [size, blocks] : cache) {
        for (std::byte* p : blocks) {
          device_release(p);
          stats.bytes_reserved -= size;
        }
      }
      cache.clear();
    }

    void give_back(std::byte* p, std::size_t size) noexcept {
      try {
        std::lock_guard lock(mutex);
        stats.bytes_in_use -= size;
        if (arena_mode) {
          arena_give_back(p,
                          size);  // should a merge fail for want of host memory, the range is lost
          return;
        }
        try {
          cache[size].push_back(p);
        } catch (...) {  // no host memory to cache it: give it back to the device
          device_release(p);
          stats.bytes_reserved -= size;
        }
      } catch (...) {
      }
    }
  };

  // The deleter of every block: back to its pool, which it keeps alive.
  struct GiveBack {
    std::shared_ptr<Impl> impl;
    std::size_t size = 0;
    void operator()(void* p) const noexcept { impl->give_back(static_cast<std::byte*>(p), size); }
  };

  static constexpr const char* kDevice = "/job:localhost/replica:0/task:0/device:GPU:0";

  explicit DeviceMemoryPool(std::size_t device_total_bytes)
      : impl_(std::make_shared<Impl>(device_total_bytes)) {}

  std::shared_ptr<Impl> impl_;
};

}  // namespace symflow::thrust_backend
