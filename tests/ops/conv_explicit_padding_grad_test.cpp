// Gradients of Conv2D with explicit padding (Conv2DBackpropInput and Conv2DBackpropFilter
// with padding "EXPLICIT"), checked numerically in float64 across pads, strides, dilations
// and both data formats.

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include <symflow/symflow.hpp>
#include <symflow/train/gradients.hpp>

#include "../gradient_check.hpp"
#include "../test_util.hpp"
#include "conv_test_values.hpp"

namespace symflow_test_ops_conv_explicit_padding_grad_test {

using namespace symflow;
using namespace symflow::test;

TEST_CASE("nn/conv explicit padding grad: conv2d numerical gradients") {
  struct Case {
    Dims x, w;
    std::vector<std::int64_t> strides;
    std::vector<std::vector<std::int64_t>> padding;
    std::vector<std::int64_t> dilations;
    const char* data_format;
  };
  const std::vector<Case> cases{
      {{1, 4, 5, 2},
       {2, 3, 2, 3},
       {1, 2, 1, 1},
       {{0, 0}, {1, 2}, {0, 3}, {0, 0}},
       {1, 1, 1, 1},
       "NHWC"},
      {{2, 3, 3, 1},
       {3, 3, 1, 2},
       {1, 1, 1, 1},
       {{0, 0}, {3, 0}, {0, 2}, {0, 0}},
       {1, 1, 1, 1},
       "NHWC"},
      {{1, 5, 4, 2},
       {2, 2, 2, 2},
       {1, 2, 2, 1},
       {{0, 0}, {1, 1}, {2, 1}, {0, 0}},
       {1, 2, 1, 1},
       "NHWC"},
      {{1, 2, 4, 5},
       {2, 3, 2, 3},
       {1, 1, 2, 1},
       {{0, 0}, {0, 0}, {1, 2}, {0, 3}},
       {1, 1, 1, 1},
       "NCHW"},
  };
  unsigned seed = 11;
  for (const Case& k : cases) {
    CAPTURE(dims_to_string(k.x));
    CAPTURE(k.data_format);
    check_gradients(
        [&](const std::vector<Output>& in) {
          return nn::conv2d(in[0], in[1], k.strides, k.padding,
                            {.dilations = k.dilations, .data_format = k.data_format});
        },
        {conv_values::random_value<double>(k.x, seed),
         conv_values::random_value<double>(k.w, seed + 1)});
    seed += 2;
  }
}

TEST_CASE("nn/conv explicit padding grad: depthwise_conv2d_native numerical gradients") {
  struct Case {
    Dims x, w;
    std::vector<std::int64_t> strides;
    std::vector<std::vector<std::int64_t>> padding;
  };
  const std::vector<Case> cases{
      {{1, 4, 5, 2}, {2, 3, 2, 2}, {1, 2, 2, 1}, {{0, 0}, {1, 2}, {0, 3}, {0, 0}}},
      {{2, 3, 3, 3}, {3, 2, 3, 1}, {1, 1, 1, 1}, {{0, 0}, {0, 2}, {2, 0}, {0, 0}}},
  };
  unsigned seed = 41;
  for (const Case& k : cases) {
    CAPTURE(dims_to_string(k.x));
    check_gradients(
        [&](const std::vector<Output>& in) {
          return nn::depthwise_conv2d_native(in[0], in[1], k.strides, k.padding);
        },
        {conv_values::random_value<double>(k.x, seed),
         conv_values::random_value<double>(k.w, seed + 1)});
    seed += 2;
  }
}

}  // namespace symflow_test_ops_conv_explicit_padding_grad_test
