#pragma once
// The compiler's vector extensions (GCC, Clang) at the widest vectors the build targets:
// AVX-512's 64 bytes, AVX's 32 or SSE2's 16. Explicit vectors where a loop must be
// vectorised whatever the optimisation level (GCC's -O2 vectorises no loop of unknown
// length) and where two loops must round alike: an expression written once for a scalar
// T and for vec<T> is contracted into an FMA, or not, the same way in both.

#include <cstdint>
#include <cstring>

namespace symflow::cpu::simd {

#if defined(__GNUC__) || defined(__clang__)
#define SYMFLOW_CPU_VECTOR_EXTENSIONS 1
inline constexpr bool kAvailable = true;
#else
#define SYMFLOW_CPU_VECTOR_EXTENSIONS 0
inline constexpr bool kAvailable = false;
#endif

#if defined(__AVX512F__)
inline constexpr std::int64_t kVectorBytes = 64;
#elif defined(__AVX__)
inline constexpr std::int64_t kVectorBytes = 32;
#else
inline constexpr std::int64_t kVectorBytes = 16;
#endif

template <class T>
inline constexpr std::int64_t kLanes = kVectorBytes / static_cast<std::int64_t>(sizeof(T));

#if SYMFLOW_CPU_VECTOR_EXTENSIONS
template <class T, std::int64_t Bytes = kVectorBytes>
struct Vector {
  typedef T type __attribute__((vector_size(Bytes)));
};
// vec<T> fills a register; vec<T, 16> is SSE2's width (half an AVX register, a quarter of
// AVX-512's), for the tail of a short row.
template <class T, std::int64_t Bytes = kVectorBytes>
using vec = typename Vector<T, Bytes>::type;

// Unaligned, through memcpy: compiled to one vector load or store.
template <class T, std::int64_t Bytes = kVectorBytes>
inline vec<T, Bytes> load(const T* p) {
  vec<T, Bytes> v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <class T, class V>
inline void store(T* p, const V& v) {
  std::memcpy(p, &v, sizeof v);
}
#endif

}  // namespace symflow::cpu::simd
