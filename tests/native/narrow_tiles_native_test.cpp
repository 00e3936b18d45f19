// Register tiles narrower than a register pair (backend/cpu/register_tile.hpp,
// with_tile_width) compiled for this machine: at AVX-512, 8 output channels take one vector
// of 8 floats and 16 take one of 16, where the default build's tiles are always two
// SSE vectors. The direct convolution and the tiled product, at channel counts on each
// side of each width, against double-precision sums, and the same bits on 1 and 3 threads.
// Header-only numerics, no Session (see fused_pairs_native_test.cpp for why).
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

#include "../backend/kernel_test_support.hpp"

namespace symflow_test_native_narrow_tiles_native_test {

namespace tf = symflow;
namespace cpu = symflow::cpu;
using symflow_test_kernel_support::PoolRunner;
using symflow_test_kernel_support::random_floats;

namespace {

// The channel counts around each tile width this build has.
std::vector<std::int64_t> widths_to_try() {
  namespace tl = cpu::detail::tiles;
  std::vector<std::int64_t> out = {1, 3};
  for (std::int64_t w : {tl::kBlock<float, tl::kVectorBytes / 2, 1>,
                         tl::kBlock<float, tl::kVectorBytes, 1>, tl::kBlock<float>})
    for (std::int64_t d : {w - 1, w, w + 1}) out.push_back(d);
  return out;
}

}  // namespace

TEST_CASE("native/narrow_tiles: direct convolutions of few channels match plain sums") {
  tf::ThreadPool one(1), three(3);
  for (const std::int64_t channels : widths_to_try()) {
    for (const std::int64_t stride : {1, 2}) {
      CAPTURE(channels);
      CAPTURE(stride);
      const std::int64_t in[4] = {2, 11, 13, 3}, filter[4] = {3, 3, 3, channels};
      const cpu::Conv2DGeometry g =
          cpu::conv2d_geometry(in, filter, stride, stride, 1, 1, cpu::Padding::same);
      REQUIRE(cpu::detail::use_direct_conv<float>(g));
      const auto x = random_floats(static_cast<std::size_t>(2 * 11 * 13 * 3), 1);
      const auto w = random_floats(static_cast<std::size_t>(27 * channels), 2);
      const auto size = static_cast<std::size_t>(g.out_pixels() * channels);
      std::vector<float> a(size, -99.0f), b(size, -99.0f);
      cpu::conv2d_forward<float>(PoolRunner{&one}, g, x.data(), w.data(), a.data());
      cpu::conv2d_forward<float>(PoolRunner{&three}, g, x.data(), w.data(), b.data());
      CHECK(a == b);
      double worst = 0;
      for (std::int64_t n = 0; n < g.batch; ++n)
        for (std::int64_t oh = 0; oh < g.out_rows; ++oh)
          for (std::int64_t ow = 0; ow < g.out_cols; ++ow)
            for (std::int64_t co = 0; co < channels; ++co) {
              double sum = 0;
              for (std::int64_t kh = 0; kh < 3; ++kh)
                for (std::int64_t kw = 0; kw < 3; ++kw) {
                  const std::int64_t ih = oh * stride - g.pad_top + kh;
                  const std::int64_t iw = ow * stride - g.pad_left + kw;
                  if (ih < 0 || ih >= g.in_rows || iw < 0 || iw >= g.in_cols) continue;
                  for (std::int64_t ci = 0; ci < 3; ++ci)
                    sum +=
                        double(x[static_cast<std::size_t>(((n * 11 + ih) * 13 + iw) * 3 + ci)]) *
                        double(
                            w[static_cast<std::size_t>(((kh * 3 + kw) * 3 + ci) * channels + co)]);
                }
              const auto at = static_cast<std::size_t>(
                  ((n * g.out_rows + oh) * g.out_cols + ow) * channels + co);
              worst = std::max(worst, std::abs(double(a[at]) - sum));
            }
      CHECK(worst <= 1e-5);
    }
  }
}

TEST_CASE("native/narrow_tiles: products of few columns match plain sums") {
  tf::ThreadPool one(1), three(3);
  for (const std::int64_t n : widths_to_try()) {
    for (const std::int64_t m : {5, 70}) {
      CAPTURE(n);
      CAPTURE(m);
      const std::int64_t k = 300;  // past one depth slice
      const auto a = random_floats(static_cast<std::size_t>(m * k), 3);
      const auto b = random_floats(static_cast<std::size_t>(k * n), 4);
      std::vector<float> x(static_cast<std::size_t>(m * n), -99.0f), y(x);
      cpu::detail::gemm::tiled<float>(PoolRunner{&one}, a.data(), b.data(), m, k, n, false, false,
                                      x.data());
      cpu::detail::gemm::tiled<float>(PoolRunner{&three}, a.data(), b.data(), m, k, n, false, false,
                                      y.data());
      CHECK(x == y);
      double worst = 0;
      for (std::int64_t i = 0; i < m; ++i)
        for (std::int64_t j = 0; j < n; ++j) {
          double sum = 0;
          for (std::int64_t d = 0; d < k; ++d)
            sum += double(a[static_cast<std::size_t>(i * k + d)]) *
                   double(b[static_cast<std::size_t>(d * n + j)]);
          worst = std::max(worst, std::abs(double(x[static_cast<std::size_t>(i * n + j)]) - sum));
        }
      CHECK(worst <= 1e-4);
    }
  }
}

}  // namespace symflow_test_native_narrow_tiles_native_test
