// A convolution's epilogue (backend/cpu/epilogue.hpp) compiled for this machine
// (-march=native, the benchmarks' flags), where the products run by AVX-512 register
// tiles and g++ may contract a multiply and an add into one FMA: the fused output must
// still equal, bit for bit, the convolution followed by the batch norm kernel's
// normalize_rows over the whole output and by Relu6's std::min(std::max(y, 0), 6).
// Header-only numerics, no Session (see fused_pairs_native_test.cpp for why).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include <symflow/backend/cpu/conv.hpp>
#include <symflow/backend/cpu/depthwise_conv.hpp>
#include <symflow/backend/cpu/epilogue.hpp>
#include <symflow/backend/thread_pool.hpp>

#include "../backend/kernel_test_support.hpp"

namespace symflow_test_native_conv_epilogue_native_test {

namespace tf = symflow;
using symflow_test_kernel_support::PoolRunner;
using symflow_test_kernel_support::random_floats;
namespace cpu = symflow::cpu;

namespace {

// Per-channel coefficients and what the unfused ops do to a whole NHWC output.
struct Coefficients {
  std::vector<float> center, multiplier, offset;
  explicit Coefficients(std::int64_t channels)
      : center(random_floats(static_cast<std::size_t>(channels), 1, -0.3f, 0.3f)),
        multiplier(random_floats(static_cast<std::size_t>(channels), 2, 0.5f, 1.5f)),
        offset(random_floats(static_cast<std::size_t>(channels), 3, -0.2f, 0.2f)) {}
  cpu::ChannelEpilogue<float> epilogue(cpu::EpilogueActivation a) const {
    return {center.data(), multiplier.data(), offset.data(), a};
  }
  void unfused(std::vector<float>& out, std::int64_t channels, bool relu6) const {
    const std::int64_t rows = static_cast<std::int64_t>(out.size()) / channels;
    cpu::normalize_rows(out.data(), channels, out.data(), channels, rows, center.data(),
                        multiplier.data(), offset.data(), channels);
    if (relu6)
      for (float& y : out) y = std::min(std::max(y, 0.0f), 6.0f);
  }
};

}  // namespace

TEST_CASE("native/conv_epilogue: Conv2D with an epilogue equals the ops one by one") {
  struct Case {
    std::int64_t in[4], filter[4], stride;
  };
  // Pointwise (the tiled product, several panels), 3x3 direct, and a deep 3x3 (im2col).
  const std::vector<Case> cases = {{{4, 12, 12, 64}, {1, 1, 64, 200}, 1},
                                   {{2, 17, 17, 3}, {3, 3, 3, 8}, 2},
                                   {{1, 10, 10, 160}, {3, 3, 160, 40}, 1}};
  tf::ThreadPool pool(3);
  for (const Case& c : cases) {
    CAPTURE(c.filter[3]);
    const cpu::Conv2DGeometry g =
        cpu::conv2d_geometry(c.in, c.filter, c.stride, c.stride, 1, 1, cpu::Padding::same);
    const auto x = random_floats(static_cast<std::size_t>(c.in[0] * c.in[1] * c.in[2] * c.in[3]), 4,
                                 -2.0f, 2.0f);
    const auto w = random_floats(
        static_cast<std::size_t>(c.filter[0] * c.filter[1] * c.filter[2] * c.filter[3]), 5, -0.5f,
        0.5f);
    const Coefficients k(g.out_depth);
    const auto size = static_cast<std::size_t>(g.out_pixels() * g.out_depth);
    std::vector<float> plain(size), fused(size), threaded(size);
    cpu::conv2d_forward<float>(cpu::SerialRunner{}, g, x.data(), w.data(), plain.data());
    k.unfused(plain, g.out_depth, true);
    cpu::conv2d_forward<float>(cpu::SerialRunner{}, g, x.data(), w.data(), fused.data(),
                               k.epilogue(cpu::EpilogueActivation::relu6));
    cpu::conv2d_forward<float>(PoolRunner{&pool}, g, x.data(), w.data(), threaded.data(),
                               k.epilogue(cpu::EpilogueActivation::relu6));
    CHECK(fused == plain);
    CHECK(threaded == plain);
    CHECK(std::count(plain.begin(), plain.end(), 0.0f) > 0);
  }
}

TEST_CASE("native/conv_epilogue: a product of few rows reads b in place, with the same bits") {
  // The first rows of a 72-row product (b packed) against the same rows alone (9 and 64
  // rows: b read in place), with a partial last panel (200 columns) and a depth past one
  // slice (300).
  const std::int64_t k = 300, n = 200;
  const auto a = random_floats(static_cast<std::size_t>(72 * k), 8, -1.0f, 1.0f);
  const auto b = random_floats(static_cast<std::size_t>(k * n), 9, -1.0f, 1.0f);
  std::vector<float> all(static_cast<std::size_t>(72 * n));
  cpu::gemm<float>(cpu::SerialRunner{}, a.data(), b.data(), 72, k, n, false, false, all.data());
  for (const std::int64_t m : {9, 64}) {
    CAPTURE(m);
    std::vector<float> few(static_cast<std::size_t>(m * n));
    cpu::gemm<float>(cpu::SerialRunner{}, a.data(), b.data(), m, k, n, false, false, few.data());
    CHECK(std::equal(few.begin(), few.end(), all.begin()));
  }
}

TEST_CASE("native/conv_epilogue: depthwise convolutions with an epilogue equal the ops") {
  // Depths the fast path sweeps as one run (8, 16) or a block of channels at a time (32,
  // 128), one it does not serve (24), a multiplier (the general path), 3x3 filters (their
  // taps held in registers, 6 of them on the edge rows) and 5x5 (25 taps, read each time).
  tf::ThreadPool pool(2);
  for (const std::int64_t depth : {8, 16, 24, 32, 128}) {
    for (const std::int64_t multiplier : {1, 2}) {
      for (const std::int64_t stride : {1, 2}) {
        for (const std::int64_t size : {3, 5}) {
          for (const bool relu6 : {false, true}) {
            CAPTURE(depth);
            CAPTURE(multiplier);
            CAPTURE(stride);
            CAPTURE(size);
            CAPTURE(relu6);
            const std::int64_t in[4] = {3, 14, 13, depth},
                               filter[4] = {size, size, depth, multiplier};
            const cpu::DepthwiseConv2DGeometry g = cpu::depthwise_conv2d_geometry(
                in, filter, stride, stride, 1, 1,
                stride == 1 ? cpu::Padding::same : cpu::Padding::valid);
            const auto x =
                random_floats(static_cast<std::size_t>(3 * 14 * 13 * depth), 6, -2.0f, 2.0f);
            const auto w = random_floats(static_cast<std::size_t>(size * size * depth * multiplier),
                                         7, -0.5f, 0.5f);
            const Coefficients k(g.out_depth());
            const auto elements =
                static_cast<std::size_t>(g.batch * g.out_rows * g.out_cols * g.out_depth());
            std::vector<float> plain(elements), fused(elements), serial(elements);
            cpu::depthwise_conv2d_forward<float>(cpu::SerialRunner{}, g, x.data(), w.data(),
                                                 plain.data());
            k.unfused(plain, g.out_depth(), relu6);
            const auto activation =
                relu6 ? cpu::EpilogueActivation::relu6 : cpu::EpilogueActivation::none;
            cpu::depthwise_conv2d_forward<float>(PoolRunner{&pool}, g, x.data(), w.data(),
                                                 fused.data(), k.epilogue(activation));
            cpu::depthwise_conv2d_forward<float>(cpu::SerialRunner{}, g, x.data(), w.data(),
                                                 serial.data(), k.epilogue(activation));
            CHECK(fused == plain);
            CHECK(serial == plain);
            if (relu6) CHECK(std::count(plain.begin(), plain.end(), 0.0f) > 0);
          }
        }
      }
    }
  }
}

}  // namespace symflow_test_native_conv_epilogue_native_test
