// Gradients of DepthwiseConv2dNative with data_format "NCHW" (its backprop ops carry the
// format), checked numerically in float64 across multipliers, strides and paddings.

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include <symflow/symflow.hpp>
#include <symflow/train/gradients.hpp>

#include "../gradient_check.hpp"
#include "../test_util.hpp"
#include "conv_test_values.hpp"

namespace symflow_test_ops_conv_depthwise_nchw_grad_test {

using namespace symflow;
using namespace symflow::test;

TEST_CASE("nn/depthwise nchw grad: depthwise_conv2d_native numerical gradients") {
  struct Case {
    Dims x, w;
    std::vector<std::int64_t> strides;
    std::string padding;  // "SAME", "VALID" or "" for `pairs`
    std::vector<std::vector<std::int64_t>> pairs;
  };
  const std::vector<Case> cases{
      {{2, 2, 5, 5}, {3, 3, 2, 2}, {1, 1, 1, 1}, "SAME", {}},
      {{1, 3, 7, 6}, {3, 2, 3, 1}, {1, 1, 2, 2}, "VALID", {}},
      {{1, 2, 4, 5}, {2, 3, 2, 3}, {1, 1, 2, 2}, "", {{0, 0}, {0, 0}, {1, 2}, {2, 0}}},
  };
  unsigned seed = 51;
  for (const Case& k : cases) {
    CAPTURE(dims_to_string(k.x));
    CAPTURE(k.padding);
    check_gradients(
        [&](const std::vector<Output>& in) {
          const nn::DepthwiseConv2dNativeOptions nchw{.data_format = "NCHW"};
          return k.padding.empty()
                     ? nn::depthwise_conv2d_native(in[0], in[1], k.strides, k.pairs, nchw)
                     : nn::depthwise_conv2d_native(in[0], in[1], k.strides, k.padding, nchw);
        },
        {conv_values::random_value<double>(k.x, seed),
         conv_values::random_value<double>(k.w, seed + 1)});
    seed += 2;
  }
}

}  // namespace symflow_test_ops_conv_depthwise_nchw_grad_test
