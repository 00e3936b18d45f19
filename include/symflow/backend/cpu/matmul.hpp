#pragma once
// Matrix products on Eigen's GEMM, over row-major host buffers, spread over the
// session's intra-op threads when the product is large enough.
//
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

#include "symflow/backend/kernel_context.hpp"
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

}  // namespace detail::gemm

// out [m, n] = op(a) * op(b) on raw row-major buffers: a is [m, k] ([k, m] when
// transpose_a), b is [k, n] ([n, k] when transpose_b). The result is the same, bit for
// bit, for any number of threads.
template <class T, class Runner>
void gemm(const Runner& runner, const T* a, const T* b, std::int64_t m, std::int64_t k,
          std::int64_t n, bool transpose_a, bool transpose_b, T* out) {
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
  };
  if (m == 0 || n == 0) return;
  if (k == 0) {
    mo.setZero();
    return;
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
