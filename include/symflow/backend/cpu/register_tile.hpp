#pragma once
// Register tiles: the inner kernel of the direct convolution (conv.hpp) and of the
// products that go through detail::gemm::tiled (matmul.hpp). A tile is Rows output rows x
// kBlock output columns, kept in vector registers while it accumulates
//
//   out[r, c] (+)= sum over taps t, depth d of x[row_offset[t] + r * row_step + d * depth_step]
//                                              * w[(t * depth + d) * w_stride + c]
//
// where w is packed so that the kBlock columns of a (t, d) are contiguous (zero past
// the matrix's last column). A convolution's taps are the filter's (kh, kw) positions
// over padded input rows; a matrix product has one tap and x = op(A).
//
// Each output is one sum in the order of (t, d), whatever tile, task or thread
// computes it, so results are the same bits for any thread count. Built on the
// compiler's vector extensions (GCC, Clang), at the widest vectors the build targets
// (AVX-512, AVX or SSE2's 16 bytes).

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "symflow/backend/cpu/epilogue.hpp"
#include "symflow/backend/cpu/vector_extensions.hpp"

namespace symflow::cpu::detail::tiles {

using simd::kAvailable;
using simd::kLanes;
using simd::kVectorBytes;

// Rows of a full tile, x kVectors vectors of columns. With the two w vectors and a
// broadcast: 19 of AVX-512's 32 vector registers, 15 of the 16 that SSE2 and AVX have.
#if defined(__AVX512F__)
inline constexpr int kRows = 8;
#else
inline constexpr int kRows = 6;
#endif
inline constexpr int kVectors = 2;

// Output columns per tile: Vectors vectors of Bytes each (by default the widest and two).
template <class T, std::int64_t Bytes = kVectorBytes, int Vectors = kVectors>
inline constexpr std::int64_t kBlock = Vectors*(Bytes / static_cast<std::int64_t>(sizeof(T)));

// Calls fn.template operator()<Bytes, Vectors>() with the narrowest tile that spans
// `columns` output columns, down to one vector of half a register: a tile as wide as 32
// floats would compute 8 output channels with three quarters of its lanes empty (a
// MobileNet's first convolutions have 8 and 16). Every output is still the same sum in
// the same order, whatever the width.
template <class T, class Fn>
decltype(auto) with_tile_width(std::int64_t columns, Fn&& fn) {
  if constexpr (kVectorBytes >= 32) {
    if (columns <= kBlock<T, kVectorBytes / 2, 1>)
      return fn.template operator()<kVectorBytes / 2, 1>();
    if (columns <= kBlock<T, kVectorBytes, 1>) return fn.template operator()<kVectorBytes, 1>();
  }
  return fn.template operator()<kVectorBytes, kVectors>();
}

// Where x and w are, and what the tile sums over.
template <class T>
struct TileArgs {
  const T* x;
  const std::int64_t* row_offset;  // one per tap
  std::int64_t taps, depth;
  std::int64_t row_step, depth_step;
  const T* w;
  std::int64_t w_stride;
};

#if SYMFLOW_CPU_VECTOR_EXTENSIONS
// The tile's loops unrolled in full keep its accumulators in registers. (nvcc's front
// end, which only parses this header in the CUDA backend, does not know the pragma.)
#if defined(__CUDACC__)
#define SYMFLOW_UNROLL(n)
#else
#define SYMFLOW_UNROLL_PRAGMA(text) _Pragma(#text)
#define SYMFLOW_UNROLL(n) SYMFLOW_UNROLL_PRAGMA(GCC unroll n)
#endif

using simd::load;
using simd::vec;

// y = act((y - center) * multiplier + offset) on a tile's sums before they are stored:
// cpu::normalize_rows's arithmetic, in vector registers instead of a pass over memory.
// Columns [c0, c0 + valid) of `e`; a partial tile reads its coefficients through a
// zero-padded copy, so that nothing past the arrays is read. Inlined into the tile, so
// that its sums stay in registers.
template <class T, int Rows, std::int64_t Bytes, int Vectors>
[[gnu::always_inline]] inline void apply_epilogue(vec<T, Bytes> (&acc)[Rows][Vectors],
                                                  const ChannelEpilogue<T>& e, std::int64_t c0,
                                                  std::int64_t valid) {
  using V = vec<T, Bytes>;
  constexpr std::int64_t lanes = Bytes / static_cast<std::int64_t>(sizeof(T)),
                         block = kBlock<T, Bytes, Vectors>;
  const T* from[3] = {e.center + c0, e.multiplier + c0, e.offset + c0};
  T padded[3][block];
  if (valid < block) {
    for (int i = 0; i < 3; ++i) {
      std::fill_n(padded[i], block, T{0});
      std::copy_n(from[i], valid, padded[i]);
      from[i] = padded[i];
    }
  }
  V center[Vectors], multiplier[Vectors], offset[Vectors];
  for (int v = 0; v < Vectors; ++v) {
    center[v] = load<T, Bytes>(from[0] + v * lanes);
    multiplier[v] = load<T, Bytes>(from[1] + v * lanes);
    offset[v] = load<T, Bytes>(from[2] + v * lanes);
  }
  auto normalize = [&]<EpilogueActivation A>() {
    for (int r = 0; r < Rows; ++r)
      for (int v = 0; v < Vectors; ++v)
        acc[r][v] = detail::normalize<A>(acc[r][v], center[v], multiplier[v], offset[v]);
  };
  switch (e.activation) {
    case EpilogueActivation::none:
      return normalize.template operator()<EpilogueActivation::none>();
    case EpilogueActivation::relu:
      return normalize.template operator()<EpilogueActivation::relu>();
    case EpilogueActivation::relu6:
      return normalize.template operator()<EpilogueActivation::relu6>();
  }
}

// out[r * out_stride + c] for r < Rows, c < valid_columns; added to what out holds
// when `accumulate`, else written over it. With `epilogue`, its columns from
// `epilogue_column` on are applied to the sums first (the sums must then be whole: the
// last slice of a product's depth).
template <class T, int Rows, std::int64_t Bytes = kVectorBytes, int Vectors = kVectors>
void tile(const TileArgs<T>& a, T* out, std::int64_t out_stride, std::int64_t valid_columns,
          bool accumulate, const ChannelEpilogue<T>* epilogue = nullptr,
          std::int64_t epilogue_column = 0) {
  using V = vec<T, Bytes>;
  constexpr std::int64_t lanes = Bytes / static_cast<std::int64_t>(sizeof(T)),
                         block = kBlock<T, Bytes, Vectors>;
  V acc[Rows][Vectors];
  for (int r = 0; r < Rows; ++r) {
    if (!accumulate) {
      SYMFLOW_UNROLL(4)
      for (int v = 0; v < Vectors; ++v) acc[r][v] = V{};
    } else {
      T sums[block] = {};
      std::copy_n(out + r * out_stride, valid_columns, sums);
      SYMFLOW_UNROLL(4)
      for (int v = 0; v < Vectors; ++v) acc[r][v] = load<T, Bytes>(sums + v * lanes);
    }
  }
  for (std::int64_t t = 0; t < a.taps; ++t) {
    const T* x = a.x + a.row_offset[t];
    const T* w = a.w + t * a.depth * a.w_stride;
    for (std::int64_t d = 0; d < a.depth; ++d, w += a.w_stride, x += a.depth_step) {
      V wv[Vectors];
      SYMFLOW_UNROLL(4)
      for (int v = 0; v < Vectors; ++v) wv[v] = load<T, Bytes>(w + v * lanes);
      SYMFLOW_UNROLL(16)
      for (int r = 0; r < Rows; ++r) {
        const T xv = x[r * a.row_step];
        SYMFLOW_UNROLL(4)
        for (int v = 0; v < Vectors; ++v) acc[r][v] += xv * wv[v];
      }
    }
  }
  if (epilogue)
    apply_epilogue<T, Rows, Bytes, Vectors>(acc, *epilogue, epilogue_column, valid_columns);
  for (int r = 0; r < Rows; ++r) {
    T* o = out + r * out_stride;
    if (valid_columns == block) {
      std::memcpy(o, &acc[r][0], sizeof(acc[r]));
    } else {
      T sums[block];
      std::memcpy(sums, &acc[r][0], sizeof(sums));
      std::copy_n(sums, valid_columns, o);
    }
  }
}

// tile<T, rows> for a run-time rows in [1, kRows]: the last tile of a block computes
// only the rows that are there.
template <class T, int Rows = kRows, std::int64_t Bytes = kVectorBytes, int Vectors = kVectors>
void tile_of(int rows, const TileArgs<T>& a, T* out, std::int64_t out_stride,
             std::int64_t valid_columns, bool accumulate,
             const ChannelEpilogue<T>* epilogue = nullptr, std::int64_t epilogue_column = 0) {
  if constexpr (Rows > 1) {
    if (rows < Rows)
      return tile_of<T, Rows - 1, Bytes, Vectors>(rows, a, out, out_stride, valid_columns,
                                                  accumulate, epilogue, epilogue_column);
  }
  tile<T, Rows, Bytes, Vectors>(a, out, out_stride, valid_columns, accumulate, epilogue,
                                epilogue_column);
}
#undef SYMFLOW_UNROLL
#undef SYMFLOW_UNROLL_PRAGMA
#endif

}  // namespace symflow::cpu::detail::tiles
