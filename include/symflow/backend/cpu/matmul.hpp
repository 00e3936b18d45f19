#pragma once
// Matrix products over row-major host buffers, spread over the session's intra-op
// threads when the product is large enough: by register tiles (detail::gemm::tiled) in
// builds for AVX-512, where they beat Eigen's kernel, and by Eigen's GEMM otherwise and
// for matrix-vector products.
//
// The Eigen path:
// A large product is cut into blocks of output rows (or of output columns when there
// are few rows), one Eigen product per block, each on its own thread; Eigen itself
// stays single-threaded. The cuts are chosen so that the result does not depend on the
// thread count: Eigen computes every element of a block by the same sequence of
// operations as in the whole product as long as a block starts at a multiple of its
// micro-kernel's panel sizes (nr rows, mr columns of the row-major output) and no
// block is a single row or column (that would be Eigen's GEMV path).
// Checked, bit for bit, by tests/backend/parallel_kernels_test.cpp.

#include <Eigen/Core>

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "symflow/backend/cpu/register_tile.hpp"
#include "symflow/backend/kernel_context.hpp"
#include "symflow/core/buffer_pool.hpp"
#include "symflow/core/value.hpp"

namespace symflow::cpu {

template <class T>
using RowMajorMap =
    Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;
template <class T>
using MutableRowMajorMap =
    Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;

// Runs a kernel's parallel_for on the calling thread alone: for callers with no
// session (tests, tools). KernelContext and ThreadPool are the other runners.
struct SerialRunner {
  template <class Fn>
  void parallel_for(std::int64_t n, std::int64_t min_chunk, Fn&& fn) const {
    parallel_for_chunks(
        n, min_chunk, [&](std::int64_t, std::int64_t begin, std::int64_t end) { fn(begin, end); });
  }
  template <class Fn>
  void parallel_for_chunks(std::int64_t n, std::int64_t, Fn&& fn) const {
    if (n > 0) fn(std::int64_t{0}, std::int64_t{0}, n);
  }
  std::int64_t num_chunks(std::int64_t n, std::int64_t) const { return n > 0 ? 1 : 0; }
  int intra_op_threads() const { return 1; }
};

// How many threads a runner's parallel_for may use.
template <class Runner>
int runner_threads(const Runner& r) {
  if constexpr (requires { r.intra_op_threads(); })
    return r.intra_op_threads();
  else
    return r.num_threads();
}

// Block starts of a split product (see the top of this file): rows at multiples of
// Eigen's register-block width nr, columns at multiples of its panel height mr, for
// the SIMD instructions this build targets (e.g. 4 rows and 12 float columns with
// SSE2, 4 and 24 with AVX2, 4 and 48 with AVX-512).
template <class T>
inline constexpr std::int64_t kGemmRowAlign =
    std::max<std::int64_t>(2, Eigen::internal::gebp_traits<T, T>::nr);
template <class T>
inline constexpr std::int64_t kGemmColAlign =
    std::max<std::int64_t>(2, Eigen::internal::gebp_traits<T, T>::mr);
// Multiply-adds below which a block is not worth a thread (a wake-up costs ~10 us).
inline constexpr double kGemmMinBlockWork = double(1 << 20);

namespace detail::gemm {

// The number of elements in the largest chunk when `units` units of `unit` elements
// (the last unit takes the `extra` leftover) are cut as ThreadPool::parallel_for cuts
// them into `chunks` chunks.
inline std::int64_t largest_chunk(std::int64_t units, std::int64_t unit, std::int64_t extra,
                                  std::int64_t chunks) {
  if (chunks < 1) chunks = 1;
  std::int64_t best = 0;
  for (std::int64_t c = 0; c < chunks; ++c) {
    const std::int64_t b = units * c / chunks, e = units * (c + 1) / chunks;
    best = std::max(best, (e - b) * unit + (e == units ? extra : 0));
  }
  return best;
}

// Products go through tiled() rather than Eigen in builds for AVX-512, where Eigen
// 3.4's kernel (48 x 4 floats) reaches 150-170 GFLOPS on the bench machine and the
// register tiles (8 x 32) 190-220; built for AVX2 or SSE2 the tiles are not faster
// (0.82-1.02x Eigen's speed), so Eigen stays.
#if defined(__AVX512F__)
inline constexpr bool kTiled = tiles::kAvailable;
#else
inline constexpr bool kTiled = false;
#endif

// Depth of a block of the product: a tile's slice of packed b (kDepth x kBlock) stays
// in L1 while the tiles of a row block pass over it.
inline constexpr std::int64_t kDepth = 256;
// Tiles per row block: the block's rows of op(a) (128 x kDepth floats) stay in L2 while
// the panels of b pass over them.
inline constexpr std::int64_t kTilesPerRowBlock = 16;
// Products of at most this many rows read b in place (see tiled).
inline constexpr std::int64_t kInPlaceRows = 64;

// Whether gemm takes tiled(): not for a matrix-vector product (m == 1), nor one whose
// n would leave most of a tile's columns empty.
template <class T>
bool use_tiles(std::int64_t m, std::int64_t n) {
  return kTiled && m >= 2 && n >= tiles::kBlock<T> / 2;
}

// out [m, n] = op(a) * op(b) by register tiles. b is packed in panels of kBlock columns
// cut into kDepth-deep slices (zero past column n); a task takes some panels, packs
// them and sweeps row blocks, depth slices, its panels and the tiles of a row block in
// that order. Tasks split the panels (each keeps its own panels in its core's cache),
// or the rows when b is a single panel. Every output is the same sum over k, in order,
// whatever the split. An active `epilogue` (backend/cpu/epilogue.hpp) is applied by the
// tiles of the depth's last slice, to their sums in registers, before they are stored.
template <class T, class Runner, class Epilogue = NoEpilogue>
void tiled(const Runner& runner, const T* a, const T* b, std::int64_t m, std::int64_t k,
           std::int64_t n, bool transpose_a, bool transpose_b, T* out,
           const Epilogue& epilogue = {}) {
  namespace tl = tiles;
  // As narrow a tile as n allows.
  tl::with_tile_width<T>(n, [&]<std::int64_t Bytes, int Vectors>() {
    const std::int64_t block = tl::kBlock<T, Bytes, Vectors>;
    const std::int64_t panels = (n + block - 1) / block;
    // Slice (k0, p) of the packing starts at k0 * panels * block + p * depth * block.
    const symflow::detail::PooledArray<T> packed(static_cast<std::size_t>(k * panels * block));
    // A product of few rows reads each slice of b a few times only: packing b would cost
    // more than it saves (a frozen CNN's late 1x1 convolutions at batch 1: 9 to 36 rows
    // against 128 x 256 weights). Whole panels are read from b in place there; the
    // partial last one, whose columns run past b's rows, is still packed.
    const bool in_place = !transpose_b && m <= kInPlaceRows;
    auto slice_of = [&](std::int64_t k0, std::int64_t p,
                        std::int64_t depth) -> std::pair<const T*, std::int64_t> {
      if (in_place && (p + 1) * block <= n) return {b + k0 * n + p * block, n};
      return {packed.data() + k0 * panels * block + p * depth * block, block};
    };
    auto pack = [&](std::int64_t p0, std::int64_t p1) {
      for (std::int64_t p = p0; p < p1; ++p) {
        if (in_place && (p + 1) * block <= n) continue;
        const std::int64_t c0 = p * block, valid = std::min(block, n - c0);
        for (std::int64_t k0 = 0; k0 < k; k0 += kDepth) {
          const std::int64_t depth = std::min(kDepth, k - k0);
          T* slice = packed.data() + k0 * panels * block + p * depth * block;
          for (std::int64_t d = 0; d < depth; ++d) {
            T* row = slice + d * block;
            if (!transpose_b) {
              std::copy_n(b + (k0 + d) * n + c0, valid, row);
            } else {
              for (std::int64_t c = 0; c < valid; ++c) row[c] = b[(c0 + c) * k + k0 + d];
            }
            std::fill(row + valid, row + block, T(0));
          }
        }
      }
    };
    // op(a)[i, d] is a[i * row_step + d * depth_step].
    const std::int64_t row_step = transpose_a ? 1 : k, depth_step = transpose_a ? m : 1;
    static constexpr std::int64_t kOneTap[1] = {0};
    const std::int64_t row_tiles = (m + tl::kRows - 1) / tl::kRows;
    auto compute = [&](std::int64_t t0, std::int64_t t1, std::int64_t p0, std::int64_t p1) {
      for (std::int64_t rb = t0; rb < t1; rb += kTilesPerRowBlock) {
        const std::int64_t rb_end = std::min(t1, rb + kTilesPerRowBlock);
        for (std::int64_t k0 = 0; k0 < k; k0 += kDepth) {
          const std::int64_t depth = std::min(kDepth, k - k0);
          for (std::int64_t p = p0; p < p1; ++p) {
            const auto [slice, slice_stride] = slice_of(k0, p, depth);
            const std::int64_t c0 = p * block, valid = std::min(block, n - c0);
            for (std::int64_t t = rb; t < rb_end; ++t) {
              const std::int64_t i0 = t * tl::kRows;
              const tl::TileArgs<T> args{a + i0 * row_step + k0 * depth_step,
                                         kOneTap,
                                         1,
                                         depth,
                                         row_step,
                                         depth_step,
                                         slice,
                                         slice_stride};
              // The epilogue goes with the depth's last slice, in the tile's registers.
              const ChannelEpilogue<T>* last = nullptr;
              if constexpr (Epilogue::active)
                if (k0 + depth == k) last = &epilogue;
              tl::tile_of<T, tl::kRows, Bytes, Vectors>(
                  static_cast<int>(std::min<std::int64_t>(tl::kRows, m - i0)), args,
                  out + i0 * n + c0, n, valid, k0 > 0, last, c0);
            }
          }
        }
      }
    };
    auto min_units = [](double unit_work) {
      return std::max<std::int64_t>(1, static_cast<std::int64_t>(kGemmMinBlockWork / unit_work));
    };
    if (panels >= 2) {
      runner.parallel_for(panels, min_units(double(m) * double(k) * double(block)),
                          [&](std::int64_t p0, std::int64_t p1) {
                            pack(p0, p1);
                            compute(0, row_tiles, p0, p1);
                          });
    } else {
      pack(0, panels);
      runner.parallel_for(row_tiles, min_units(double(tl::kRows) * double(k) * double(block)),
                          [&](std::int64_t t0, std::int64_t t1) { compute(t0, t1, 0, panels); });
    }
  });
}

}  // namespace detail::gemm

// out [m, n] = op(a) * op(b) on raw row-major buffers: a is [m, k] ([k, m] when
// transpose_a), b is [k, n] ([n, k] when transpose_b). The result is the same, bit for
// bit, for any number of threads. An active `epilogue` (backend/cpu/epilogue.hpp) runs on
// every block of the output once its sums are done.
template <class T, class Runner, class Epilogue = NoEpilogue>
void gemm(const Runner& runner, const T* a, const T* b, std::int64_t m, std::int64_t k,
          std::int64_t n, bool transpose_a, bool transpose_b, T* out,
          const Epilogue& epilogue = {}) {
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    static_assert(!Epilogue::active, "epilogues are for floating-point products");
    // Integer products wrap around, as TensorFlow's do: computed on the unsigned type of
    // the same width (defined wrap-around, the same bits), never by signed overflow.
    using U = std::make_unsigned_t<T>;
    gemm<U>(runner, reinterpret_cast<const U*>(a), reinterpret_cast<const U*>(b), m, k, n,
            transpose_a, transpose_b, reinterpret_cast<U*>(out));
    return;
  }
  RowMajorMap<T> ma(a, transpose_a ? k : m, transpose_a ? m : k);
  RowMajorMap<T> mb(b, transpose_b ? n : k, transpose_b ? k : n);
  MutableRowMajorMap<T> mo(out, m, n);
  // out[r0:r1, c0:c1] = op(a)[r0:r1, :] * op(b)[:, c0:c1]
  auto block = [&](std::int64_t r0, std::int64_t r1, std::int64_t c0, std::int64_t c1) {
    auto o = mo.block(r0, c0, r1 - r0, c1 - c0);
    const std::int64_t rows = r1 - r0, cols = c1 - c0;
    if (!transpose_a && !transpose_b)
      o.noalias() = ma.middleRows(r0, rows) * mb.middleCols(c0, cols);
    else if (transpose_a && !transpose_b)
      o.noalias() = ma.middleCols(r0, rows).transpose() * mb.middleCols(c0, cols);
    else if (!transpose_a && transpose_b)
      o.noalias() = ma.middleRows(r0, rows) * mb.middleRows(c0, cols).transpose();
    else
      o.noalias() = ma.middleCols(r0, rows).transpose() * mb.middleRows(c0, cols).transpose();
    if constexpr (Epilogue::active) epilogue(out + r0 * n, rows, n, c0, c1);
  };
  if (m == 0 || n == 0) return;
  if (k == 0) {
    mo.setZero();
    if constexpr (Epilogue::active) epilogue(out, m, n, 0, n);
    return;
  }
  if constexpr (detail::gemm::kTiled) {
    if (detail::gemm::use_tiles<T>(m, n)) {
      detail::gemm::tiled<T>(runner, a, b, m, k, n, transpose_a, transpose_b, out, epilogue);
      return;
    }
  }
  const int threads = runner_threads(runner);
  const double work = double(m) * double(n) * double(k);
  // Units of aligned rows / columns; the last unit takes the leftover.
  const std::int64_t row_units = m / kGemmRowAlign<T>, col_units = n / kGemmColAlign<T>;
  if (threads <= 1 || work < 2 * kGemmMinBlockWork || (row_units < 2 && col_units < 2)) {
    block(0, m, 0, n);
    return;
  }
  auto min_units = [&](double unit_work) {
    return std::max<std::int64_t>(1, static_cast<std::int64_t>(kGemmMinBlockWork / unit_work));
  };
  const std::int64_t row_min = min_units(double(kGemmRowAlign<T>) * double(n) * double(k));
  const std::int64_t col_min = min_units(double(kGemmColAlign<T>) * double(m) * double(k));
  // Split the way whose largest block is smaller (rows on a tie: each block then reads
  // contiguous rows of the output).
  auto largest = [&](std::int64_t units, std::int64_t min, std::int64_t align, std::int64_t size) {
    if (units < 2) return size;
    const std::int64_t chunks =
        std::min<std::int64_t>(threads, std::max<std::int64_t>(1, units / min));
    return detail::gemm::largest_chunk(units, align, size - units * align, chunks);
  };
  const double by_rows = double(largest(row_units, row_min, kGemmRowAlign<T>, m)) * double(n);
  const double by_cols = double(largest(col_units, col_min, kGemmColAlign<T>, n)) * double(m);
  // A one-column product (m == 1 or n == 1) is Eigen's GEMV: never split into those.
  if (by_rows <= by_cols && row_units >= 2 && n >= 2) {
    runner.parallel_for(row_units, row_min, [&](std::int64_t u0, std::int64_t u1) {
      block(u0 * kGemmRowAlign<T>, u1 == row_units ? m : u1 * kGemmRowAlign<T>, 0, n);
    });
  } else if (col_units >= 2 && m >= 2) {
    runner.parallel_for(col_units, col_min, [&](std::int64_t u0, std::int64_t u1) {
      block(0, m, u0 * kGemmColAlign<T>, u1 == col_units ? n : u1 * kGemmColAlign<T>);
    });
  } else {
    block(0, m, 0, n);
  }
}

// out = op(a) * op(b), where op transposes when asked. Shapes are checked by the caller.
template <class T, class Runner>
void matmul(const Runner& runner, const Value& a, const Value& b, bool transpose_a,
            bool transpose_b, Value& out) {
  const std::int64_t k = a.dims()[transpose_a ? 0 : 1];
  gemm<T>(runner, a.data<T>(), b.data<T>(), out.dims()[0], k, out.dims()[1], transpose_a,
          transpose_b, out.data<T>());
}

// The same on the calling thread alone.
template <class T>
void matmul(const Value& a, const Value& b, bool transpose_a, bool transpose_b, Value& out) {
  matmul<T>(SerialRunner{}, a, b, transpose_a, transpose_b, out);
}

}  // namespace symflow::cpu
