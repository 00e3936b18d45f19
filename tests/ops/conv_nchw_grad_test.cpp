// Gradients of the NCHW ops (Conv2D and its backprops, MaxPool, AvgPool, BiasAdd and the
// gradient ops they build, all with data_format "NCHW"), checked numerically in float64.

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include <symflow/symflow.hpp>
#include <symflow/train/gradients.hpp>

#include "../gradient_check.hpp"
#include "../test_util.hpp"
#include "conv_test_values.hpp"

namespace symflow_test_ops_conv_nchw_grad_test {

using namespace symflow;
using namespace symflow::test;

TEST_CASE("nn/conv nchw grad: conv2d numerical gradients") {
  struct Case {
    Dims x, w;
    std::vector<std::int64_t> strides;
    const char* padding;
    std::vector<std::int64_t> dilations;
  };
  const std::vector<Case> cases{
      {{2, 2, 5, 5}, {3, 3, 2, 3}, {1, 1, 1, 1}, "SAME", {1, 1, 1, 1}},
      {{1, 2, 7, 6}, {3, 2, 2, 2}, {1, 1, 2, 2}, "VALID", {1, 1, 1, 1}},
      {{1, 1, 6, 6}, {2, 2, 1, 2}, {1, 1, 1, 1}, "SAME", {1, 1, 2, 2}},
  };
  unsigned seed = 21;
  for (const Case& k : cases) {
    CAPTURE(dims_to_string(k.x));
    CAPTURE(k.padding);
    check_gradients(
        [&](const std::vector<Output>& in) {
          return nn::conv2d(in[0], in[1], k.strides, k.padding,
                            {.dilations = k.dilations, .data_format = "NCHW"});
        },
        {conv_values::random_value<double>(k.x, seed),
         conv_values::random_value<double>(k.w, seed + 1)});
    seed += 2;
  }
}

TEST_CASE("nn/conv nchw grad: max_pool, avg_pool and bias_add numerical gradients") {
  // Distinct uniform values: no max-pool window has a tie.
  const Value x = conv_values::random_value<double>({2, 3, 5, 4}, 31);
  const Value bias = conv_values::random_value<double>({3}, 32);
  const nn::PoolOptions nchw{.data_format = "NCHW"};
  check_gradients(
      [&](const std::vector<Output>& in) {
        return nn::max_pool(in[0], {2, 2}, {2, 1}, "SAME", nchw);
      },
      {x});
  check_gradients(
      [&](const std::vector<Output>& in) {
        return nn::avg_pool(in[0], {3, 2}, {1, 2}, "SAME", nchw);
      },
      {x});
  check_gradients(
      [&](const std::vector<Output>& in) {
        return nn::bias_add(in[0], in[1], {.data_format = "NCHW"});
      },
      {x, bias});
  // A rank-3 value: the bias runs along axis 1 there too.
  check_gradients(
      [&](const std::vector<Output>& in) {
        return nn::bias_add(in[0], in[1], {.data_format = "NCHW"});
      },
      {conv_values::random_value<double>({2, 3, 4}, 33), bias});
  // BiasAddGrad's own gradient: g repeated along every axis but the channels' (axis 1).
  check_gradients(
      [&](const std::vector<Output>& in) {
        return symflow::detail::bias_add_grad(in[0], {}, "NCHW");
      },
      {x});
}

}  // namespace symflow_test_ops_conv_nchw_grad_test
