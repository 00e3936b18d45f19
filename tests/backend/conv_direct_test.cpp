// The direct convolution kernel (backend/cpu/conv_direct.hpp) against a plain
// double-precision sum, over the geometries its tiles have edges in: strides,
// dilations, VALID and SAME padding, rows narrower than a tile, channel counts that
// end inside a channel block and ones that span several blocks; and the same for the
// im2col path that large filters take.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include <symflow/backend/cpu/conv.hpp>
#include <symflow/backend/thread_pool.hpp>

namespace symflow_test_backend_conv_direct_test {

namespace {

using namespace symflow;
using cpu::Conv2DGeometry;
using cpu::Padding;

// The runner interface the CPU kernels take, over a ThreadPool.
struct PoolRunner {
  ThreadPool* pool;
  template <class Fn>
  void parallel_for(std::int64_t n, std::int64_t min_chunk, Fn&& fn) const {
    pool->parallel_for(n, min_chunk, fn);
  }
  template <class Fn>
  void parallel_for_chunks(std::int64_t n, std::int64_t min_chunk, Fn&& fn) const {
    pool->parallel_for_chunks(n, min_chunk, fn);
  }
  std::int64_t num_chunks(std::int64_t n, std::int64_t min_chunk) const {
    return pool->num_chunks(n, min_chunk);
  }
  int num_threads() const { return pool->num_threads(); }
};

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

}  // namespace

}  // namespace symflow_test_backend_conv_direct_test
