#pragma once
// Streaming (non-temporal) stores, for results too large to stay in the caches. A
// normal store first reads the line it writes into the cache (write-allocate): for a
// 16M-float result that is 64 MB of reads nobody asked for, and it pushes the inputs
// out of the last-level cache as well. A streaming store skips both: the line goes
// straight to memory. On x86-64 the baseline (SSE2) has them; elsewhere
// kHasStreamingStores is false and callers store as usual.
//
// Streaming stores are weakly ordered: a thread that made them calls streaming_fence()
// before it tells another thread that the data is ready.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>

#if defined(__SSE2__) && !defined(__CUDA_ARCH__)
#include <emmintrin.h>
#define SYMFLOW_STREAMING_STORES 1
#endif

namespace symflow::cpu {

#ifdef SYMFLOW_STREAMING_STORES
inline constexpr bool kHasStreamingStores = true;
#else
inline constexpr bool kHasStreamingStores = false;
#endif

// Whether stream_copy streams to `p`: its stores need 16-byte alignment.
inline bool streamable(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

// dst[0, n) = src[0, n), the 16-byte pieces with streaming stores and the tail (under
// 16 bytes) with plain ones. dst must be streamable.
template <class T>
inline void stream_copy(const T* src, T* dst, std::int64_t n) {
  const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(T);
#ifdef SYMFLOW_STREAMING_STORES
  const std::size_t vectors = bytes / 16;
  const auto* from = reinterpret_cast<const char*>(src);
  auto* to = reinterpret_cast<char*>(dst);
  for (std::size_t i = 0; i < vectors; ++i)
    _mm_stream_si128(reinterpret_cast<__m128i*>(to + 16 * i),
                     _mm_loadu_si128(reinterpret_cast<const __m128i*>(from + 16 * i)));
  std::memcpy(to + 16 * vectors, from + 16 * vectors, bytes - 16 * vectors);
#else
  std::memcpy(dst, src, bytes);
#endif
}

// Orders this thread's streaming stores before its later stores.
inline void streaming_fence() {
#ifdef SYMFLOW_STREAMING_STORES
  _mm_sfence();
#endif
}

namespace streaming_detail {

// "32768K", "1M" or "512" (as Linux's sysfs writes cache sizes) in bytes; 0 if unreadable.
inline std::size_t parse_cache_size(const std::string& text) {
  std::size_t value = 0, i = 0;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i)
    value = value * 10 + static_cast<std::size_t>(text[i] - '0');
  if (i == 0) return 0;
  if (i < text.size() && (text[i] == 'K' || text[i] == 'k')) return value << 10;
  if (i < text.size() && (text[i] == 'M' || text[i] == 'm')) return value << 20;
  if (i < text.size() && (text[i] == 'G' || text[i] == 'g')) return value << 30;
  return value;
}

}  // namespace streaming_detail

// The size of the last-level cache that this machine's first core uses, as Linux's
// sysfs reports it (glibc's sysconf can report the whole package's, ten times more on a
// virtual machine cut from a large EPYC); 32 MiB where the system does not say.
inline std::size_t last_level_cache_bytes() {
  static const std::size_t bytes = [] {
    int best_level = 0;
    std::size_t best = 0;
    for (int index = 0; index < 16; ++index) {
      const std::string dir =
          "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
      std::ifstream level_file(dir + "level"), size_file(dir + "size");
      int level = 0;
      std::string size;
      if (!(level_file >> level) || !(size_file >> size)) continue;
      const std::size_t b = streaming_detail::parse_cache_size(size);
      if (b == 0 || level < best_level) continue;
      best = level > best_level ? b : std::max(best, b);
      best_level = level;
    }
    return best > 0 ? best : std::size_t{32} << 20;
  }();
  return bytes;
}

}  // namespace symflow::cpu
