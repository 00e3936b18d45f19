// Gradients of MaxPool with explicit padding (MaxPoolGrad with padding "EXPLICIT"), checked
// numerically in float64 across pads, strides and both data formats.

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include <symflow/symflow.hpp>
#include <symflow/train/gradients.hpp>

#include "../gradient_check.hpp"
#include "../test_util.hpp"
#include "conv_test_values.hpp"

namespace symflow_test_ops_max_pool_explicit_padding_grad_test {

using namespace symflow;
using namespace symflow::test;

TEST_CASE("nn/max_pool explicit padding grad: max_pool numerical gradients") {
  struct Case {
    Dims x;
    std::vector<std::int64_t> ksize, strides;
    std::vector<std::vector<std::int64_t>> padding;
    const char* data_format;
  };
  // Distinct uniform values: no window has a tie.
  const std::vector<Case> cases{
      {{1, 4, 5, 2}, {2, 3}, {2, 2}, {{0, 0}, {1, 1}, {2, 1}, {0, 0}}, "NHWC"},
      {{2, 3, 4, 3}, {3, 2}, {1, 1}, {{0, 0}, {2, 0}, {1, 1}, {0, 0}}, "NHWC"},
      {{1, 2, 5, 4}, {2, 2}, {1, 2}, {{0, 0}, {0, 0}, {1, 0}, {0, 1}}, "NCHW"},
  };
  unsigned seed = 71;
  for (const Case& k : cases) {
    CAPTURE(dims_to_string(k.x));
    CAPTURE(k.data_format);
    check_gradients(
        [&](const std::vector<Output>& in) {
          return nn::max_pool(in[0], k.ksize, k.strides, k.padding, {.data_format = k.data_format});
        },
        {conv_values::random_value<double>(k.x, seed++)});
  }
}

}  // namespace symflow_test_ops_max_pool_explicit_padding_grad_test
