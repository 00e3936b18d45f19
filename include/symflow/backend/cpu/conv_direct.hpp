#pragma once
// Direct convolution: the forward Conv2D without a patch matrix, for filters whose
// weights stay in cache. im2col copies every input element kh*kw times into patches
// that a general GEMM then reads again; here a register tile of output pixels x
// output channels accumulates straight from the (zero-padded) input rows, so the
// input is copied kh times at most, into a few rows that stay in L1.
//
// Each output element is one sum over (kh, kw, in channel) in that order, whatever
// tile, task or thread computes it: results are the same bits for any thread count.
// Built on the compiler's vector extensions (GCC, Clang), at the widest vectors the
// build targets (AVX-512, AVX or SSE2's 16 bytes).

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "symflow/backend/cpu/matmul.hpp"

namespace symflow::cpu {

namespace detail::direct_conv {

#if defined(__GNUC__) || defined(__clang__)
inline constexpr bool kAvailable = true;
#else
inline constexpr bool kAvailable = false;
#endif

#if defined(__AVX512F__)
inline constexpr std::int64_t kVectorBytes = 64;
#elif defined(__AVX__)
inline constexpr std::int64_t kVectorBytes = 32;
#else
inline constexpr std::int64_t kVectorBytes = 16;
#endif

// A register tile: kPixels output pixels of one row x kVectors vectors of channels.
// With the two filter vectors and a broadcast: 27 of AVX-512's 32 vector registers,
// 15 of the 16 that SSE2 and AVX have.
#if defined(__AVX512F__)
inline constexpr int kPixels = 8;
#else
inline constexpr int kPixels = 6;
#endif
inline constexpr int kVectors = 2;

template <class T>
inline constexpr std::int64_t kLanes = kVectorBytes / static_cast<std::int64_t>(sizeof(T));
// Output channels per tile.
template <class T>
inline constexpr std::int64_t kBlock = kVectors* kLanes<T>;

#if defined(__GNUC__) || defined(__clang__)
// The tile's loops unrolled in full keep its accumulators in registers. (nvcc's front
// end, which only parses this header in the CUDA backend, does not know the pragma.)
#if defined(__CUDACC__)
#define SYMFLOW_UNROLL(n)
#else
#define SYMFLOW_UNROLL_PRAGMA(text) _Pragma(#text)
#define SYMFLOW_UNROLL(n) SYMFLOW_UNROLL_PRAGMA(GCC unroll n)
#endif

template <class T>
struct Vector {
  typedef T type __attribute__((vector_size(kVectorBytes)));
};
template <class T>
using vec = typename Vector<T>::type;

template <class T>
inline vec<T> load(const T* p) {
  vec<T> v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// out[j, c] for j < Pixels, c < valid_channels (the rest of the block is padding)
// = sum over taps t < taps, channels ci < depth of x_t[j * pixel_step + ci] * w_t[ci, c],
// where x_t = rows + row_offset[t] and w_t = filter + t * depth * filter_stride.
template <class T, int Pixels>
void tile(const T* rows, const std::int64_t* row_offset, std::int64_t taps, std::int64_t depth,
          std::int64_t pixel_step, const T* filter, std::int64_t filter_stride, T* out,
          std::int64_t out_stride, std::int64_t valid_channels) {
  using V = vec<T>;
  V acc[Pixels][kVectors] = {};
  for (std::int64_t t = 0; t < taps; ++t) {
    const T* x = rows + row_offset[t];
    const T* w = filter + t * depth * filter_stride;
    for (std::int64_t ci = 0; ci < depth; ++ci, w += filter_stride) {
      V wv[kVectors];
      SYMFLOW_UNROLL(4)
      for (int v = 0; v < kVectors; ++v) wv[v] = load(w + v * kLanes<T>);
      SYMFLOW_UNROLL(16)
      for (int j = 0; j < Pixels; ++j) {
        const T xv = x[j * pixel_step + ci];
        SYMFLOW_UNROLL(4)
        for (int v = 0; v < kVectors; ++v) acc[j][v] += xv * wv[v];
      }
    }
  }
  for (int j = 0; j < Pixels; ++j) {
    T* o = out + j * out_stride;
    if (valid_channels == kBlock<T>) {
      std::memcpy(o, &acc[j][0], sizeof(acc[j]));
    } else {
      T lanes[kBlock<T>];
      std::memcpy(lanes, &acc[j][0], sizeof(lanes));
      std::copy_n(lanes, valid_channels, o);
    }
  }
}

// tile<T, pixels> for a run-time pixels in [1, kPixels]: the last tile of a row
// computes only the pixels that are there.
template <class T, int Pixels = kPixels>
void tile_of(int pixels, const T* rows, const std::int64_t* row_offset, std::int64_t taps,
             std::int64_t depth, std::int64_t pixel_step, const T* filter,
             std::int64_t filter_stride, T* out, std::int64_t out_stride,
             std::int64_t valid_channels) {
  if constexpr (Pixels > 1) {
    if (pixels < Pixels)
      return tile_of<T, Pixels - 1>(pixels, rows, row_offset, taps, depth, pixel_step, filter,
                                    filter_stride, out, out_stride, valid_channels);
  }
  tile<T, Pixels>(rows, row_offset, taps, depth, pixel_step, filter, filter_stride, out, out_stride,
                  valid_channels);
}
#endif

}  // namespace detail::direct_conv

}  // namespace symflow::cpu
