// The kernels built on register tiles (backend/cpu/register_tile.hpp) against plain
// double-precision sums, at every edge a tile has: the direct convolution over
// strides, dilations, VALID and SAME padding, rows narrower than a tile, channel counts
// that end inside a channel block and ones that span several blocks (and the im2col
// path that large filters take); the tiled matrix product over transposes, depths
// that end inside a slice, and row and column counts off the tile sizes. Both run on
// 1 and 3 threads and must give the same bits.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include <symflow/backend/cpu/conv.hpp>
#include <symflow/backend/cpu/matmul.hpp>
#include <symflow/backend/thread_pool.hpp>

#include "kernel_test_support.hpp"

namespace symflow_test_backend_register_tile_test {

namespace {

using namespace symflow;
using cpu::Conv2DGeometry;
using cpu::Padding;
using symflow_test_kernel_support::PoolRunner;

struct Case {
  std::int64_t input[4], filter[4];
  std::int64_t stride_rows, stride_cols, dilation_rows, dilation_cols;
  Padding padding;
};

template <class T>
std::vector<T> reference(const Conv2DGeometry& g, const std::vector<T>& x,
                         const std::vector<T>& w) {
  std::vector<T> out(static_cast<std::size_t>(g.out_pixels() * g.out_depth));
  for (std::int64_t n = 0; n < g.batch; ++n)
    for (std::int64_t oh = 0; oh < g.out_rows; ++oh)
      for (std::int64_t ow = 0; ow < g.out_cols; ++ow)
        for (std::int64_t co = 0; co < g.out_depth; ++co) {
          double sum = 0;
          for (std::int64_t kh = 0; kh < g.filter_rows; ++kh)
            for (std::int64_t kw = 0; kw < g.filter_cols; ++kw) {
              const std::int64_t ih = oh * g.stride_rows - g.pad_top + kh * g.dilation_rows;
              const std::int64_t iw = ow * g.stride_cols - g.pad_left + kw * g.dilation_cols;
              if (ih < 0 || ih >= g.in_rows || iw < 0 || iw >= g.in_cols) continue;
              for (std::int64_t ci = 0; ci < g.in_depth; ++ci)
                sum += double(x[static_cast<std::size_t>(
                           ((n * g.in_rows + ih) * g.in_cols + iw) * g.in_depth + ci)]) *
                       double(w[static_cast<std::size_t>(
                           ((kh * g.filter_cols + kw) * g.in_depth + ci) * g.out_depth + co)]);
            }
          out[static_cast<std::size_t>(((n * g.out_rows + oh) * g.out_cols + ow) * g.out_depth +
                                       co)] = T(sum);
        }
  return out;
}

// conv2d_forward on 1 and 3 threads: the same bits, and within `tolerance` of the
// reference relative to the largest output; returns whether it took the direct kernel.
template <class T>
bool check_case(const Case& c, double tolerance) {
  const Conv2DGeometry g = cpu::conv2d_geometry(c.input, c.filter, c.stride_rows, c.stride_cols,
                                                c.dilation_rows, c.dilation_cols, c.padding);
  REQUIRE(g.out_rows > 0);
  REQUIRE(g.out_cols > 0);
  std::mt19937 gen(7);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<T> x(static_cast<std::size_t>(g.batch * g.in_image_size()));
  std::vector<T> w(static_cast<std::size_t>(g.patch_size() * g.out_depth));
  for (T& v : x) v = T(dist(gen));
  for (T& v : w) v = T(dist(gen));
  const std::size_t outputs = static_cast<std::size_t>(g.out_pixels() * g.out_depth);
  std::vector<T> one(outputs, T(-99)), three(outputs, T(-99));
  ThreadPool pool1(1), pool3(3);
  cpu::conv2d_forward<T>(PoolRunner{&pool1}, g, x.data(), w.data(), one.data());
  cpu::conv2d_forward<T>(PoolRunner{&pool3}, g, x.data(), w.data(), three.data());
  const std::vector<T> expected = reference(g, x, w);
  double largest = 0, worst = 0;
  for (std::size_t i = 0; i < outputs; ++i) {
    largest = std::max(largest, std::abs(double(expected[i])));
    worst = std::max(worst, std::abs(double(one[i]) - double(expected[i])));
  }
  CHECK(worst <= tolerance * std::max(1.0, largest));
  CHECK(std::memcmp(one.data(), three.data(), outputs * sizeof(T)) == 0);
  return cpu::detail::use_direct_conv<T>(g);
}

TEST_CASE("Conv2D forward, direct kernel: matches a plain sum at every tile edge") {
  const Case cases[] = {
      {{2, 9, 9, 4}, {3, 3, 4, 5}, 1, 1, 1, 1, Padding::same},     // narrow channel tail
      {{3, 13, 29, 6}, {3, 3, 6, 33}, 1, 1, 1, 1, Padding::same},  // 33 channels: blocks + 1
      {{2, 33, 31, 5}, {5, 4, 5, 7}, 2, 3, 1, 1, Padding::valid},  // strides
      {{2, 30, 29, 6}, {3, 3, 6, 9}, 1, 1, 2, 2, Padding::same},   // dilations
      {{1, 5, 3, 3}, {3, 3, 3, 70}, 2, 2, 1, 1, Padding::same},    // rows of 2 pixels
      {{2, 7, 1, 2}, {7, 1, 2, 4}, 1, 1, 1, 1, Padding::same},     // one column
      {{1, 6, 40, 1}, {1, 5, 1, 1}, 1, 1, 1, 1, Padding::valid},   // one channel in and out
      {{2, 8, 8, 16}, {3, 3, 16, 32}, 1, 1, 1, 1, Padding::same},  // the bench's shape
  };
  for (const Case& c : cases) {
    INFO("input " << c.input[0] << "x" << c.input[1] << "x" << c.input[2] << "x" << c.input[3]
                  << " filter " << c.filter[0] << "x" << c.filter[1] << "x" << c.filter[2] << "x"
                  << c.filter[3]);
    CHECK(check_case<float>(c, 1e-5));
    CHECK(check_case<double>(c, 1e-12));
  }
}

TEST_CASE("Conv2D forward: a filter too large for the direct kernel goes through im2col") {
  // 3x3x1024: one channel block of the filter is beyond 256 KiB at any vector width.
  const Case c{{1, 3, 4, 1024}, {3, 3, 1024, 8}, 1, 1, 1, 1, Padding::same};
  CHECK_FALSE(check_case<float>(c, 1e-5));
}

// detail::gemm::tiled (which gemm takes in AVX-512 builds; tested here at whatever
// width this build has) against a double-precision product.
template <class T>
void check_tiled(std::int64_t m, std::int64_t k, std::int64_t n, bool transpose_a, bool transpose_b,
                 double tolerance) {
  INFO(m << "x" << k << "x" << n << " transpose_a " << transpose_a << " transpose_b "
         << transpose_b);
  std::mt19937 gen(static_cast<unsigned>(m * 31 + k * 7 + n));
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<T> a(static_cast<std::size_t>(m * k)), b(static_cast<std::size_t>(k * n));
  for (T& v : a) v = T(dist(gen));
  for (T& v : b) v = T(dist(gen));
  auto at = [&](std::int64_t i, std::int64_t d) {
    return double(a[static_cast<std::size_t>(transpose_a ? d * m + i : i * k + d)]);
  };
  auto bt = [&](std::int64_t d, std::int64_t j) {
    return double(b[static_cast<std::size_t>(transpose_b ? j * k + d : d * n + j)]);
  };
  std::vector<T> one(static_cast<std::size_t>(m * n), T(-99)), three(one.size(), T(-99));
  ThreadPool pool1(1), pool3(3);
  cpu::detail::gemm::tiled<T>(PoolRunner{&pool1}, a.data(), b.data(), m, k, n, transpose_a,
                              transpose_b, one.data());
  cpu::detail::gemm::tiled<T>(PoolRunner{&pool3}, a.data(), b.data(), m, k, n, transpose_a,
                              transpose_b, three.data());
  double worst = 0;
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (std::int64_t d = 0; d < k; ++d) sum += at(i, d) * bt(d, j);
      worst = std::max(worst, std::abs(double(one[static_cast<std::size_t>(i * n + j)]) - sum));
    }
  CHECK(worst <= tolerance * std::max<double>(1.0, double(k)));
  CHECK(std::memcmp(one.data(), three.data(), one.size() * sizeof(T)) == 0);
}

TEST_CASE("Matrix product by register tiles: matches a plain sum at every tile edge") {
  const std::int64_t block = cpu::detail::tiles::kBlock<float>;
  const std::int64_t rows = cpu::detail::tiles::kRows;
  const std::int64_t depth = cpu::detail::gemm::kDepth;
  const std::int64_t shapes[][3] = {
      {2, 3, block / 2},                 // the smallest product gemm sends here
      {rows, depth, block},              // whole tiles, one slice
      {rows + 1, depth + 1, block + 1},  // one past each
      {3 * rows - 1, 2 * depth - 1, 3 * block - 1},
      {64, 784, 256},  // the MLP's first layer
      {97, 300, 70},   // several row blocks' worth of tiles
      {1, 50, 40},     // a single row
  };
  for (const auto& s : shapes)
    for (bool ta : {false, true})
      for (bool tb : {false, true}) {
        check_tiled<float>(s[0], s[1], s[2], ta, tb, 1e-6);
        check_tiled<double>(s[0], s[1], s[2], ta, tb, 1e-14);
      }
}

TEST_CASE("Matrix product by register tiles: products spread over the threads by rows") {
  // One panel of columns: the rows are what the tasks split.
  check_tiled<float>(1000, 200, cpu::detail::tiles::kBlock<float> - 3, false, false, 1e-6);
  check_tiled<float>(1000, 200, cpu::detail::tiles::kBlock<float>, true, true, 1e-6);
}

}  // namespace

}  // namespace symflow_test_backend_register_tile_test
