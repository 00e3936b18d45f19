// Gradients of conv2d, max_pool and avg_pool: the graph symflow::gradients builds
// (node names and types as tf.gradients builds them in TensorFlow 1.x) and float64
// numerical checks across paddings, strides and dilations.

#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <symflow/ops/registry.hpp>
#include <symflow/symflow.hpp>
#include <symflow/train/gradients.hpp>

#include "../gradient_check.hpp"
#include "../test_util.hpp"
#include "conv_test_values.hpp"

namespace symflow_test_ops_conv_grad_test {

namespace ops_conv_grad_test {

using namespace symflow;
using namespace symflow::test;

// Uniform in [-1, 1): distinct values, so no max-pool window has a tie.
inline Value random_input(const Dims& dims, unsigned seed) {
  return conv_values::random_value<double>(dims, seed);
}

}  // namespace ops_conv_grad_test

using namespace ops_conv_grad_test;

TEST_CASE("nn/conv grad: the gradient graph has TensorFlow's nodes") {
  // TF: gradients(reduce_sum(avg_pool(max_pool(conv2d(x, w)))), [x, w]) builds
  //   gradients/AvgPool_grad/Shape (Const), gradients/AvgPool_grad/AvgPoolGrad,
  //   gradients/MaxPool_grad/MaxPoolGrad (Conv2D:0, MaxPool:0, AvgPoolGrad:0),
  //   gradients/Conv2D_grad/Conv2DBackpropInput (sizes, Placeholder_1:0, MaxPoolGrad:0),
  //   gradients/Conv2D_grad/Conv2DBackpropFilter (Placeholder:0, sizes, MaxPoolGrad:0).
  // (TF takes both sizes from one ShapeN node; symflow uses a Const per size here.)
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<float>(Shape{2, 8, 8, 3});
  auto w = placeholder<float>(Shape{3, 3, 3, 4});
  auto c = nn::conv2d(x, w, {1, 1, 1, 1}, "SAME");
  auto m = nn::max_pool(c, {1, 2, 2, 1}, {1, 2, 2, 1}, "SAME");
  auto a = nn::avg_pool(m, {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID");
  auto grads = gradients(reduce_sum(a), {x, w});
  REQUIRE(grads.size() == 2);
  CHECK(grads[0].name() == "gradients/Conv2D_grad/Conv2DBackpropInput:0");
  CHECK(grads[1].name() == "gradients/Conv2D_grad/Conv2DBackpropFilter:0");
  CHECK(grads[0].get_shape() == Shape{2, 8, 8, 3});
  CHECK(grads[1].get_shape() == Shape{3, 3, 3, 4});

  auto avg_grad = g.get_operation_by_name("gradients/AvgPool_grad/AvgPoolGrad");
  CHECK(avg_grad.type() == "AvgPoolGrad");
  CHECK(input_names(avg_grad)[0] == "gradients/AvgPool_grad/Shape:0");
  CHECK(avg_grad.inputs()[0].op().type() == "Const");
  CHECK(avg_grad.get_attr<IntList>("ksize").items == std::vector<std::int64_t>{1, 2, 2, 1});
  CHECK(avg_grad.get_attr<std::string>("padding") == "VALID");
  CHECK(avg_grad.output(0).get_shape() == Shape{2, 4, 4, 4});
  auto max_grad = g.get_operation_by_name("gradients/MaxPool_grad/MaxPoolGrad");
  CHECK(max_grad.type() == "MaxPoolGrad");
  CHECK(input_names(max_grad) ==
        std::vector<std::string>{"Conv2D:0", "MaxPool:0", "gradients/AvgPool_grad/AvgPoolGrad:0"});
  CHECK(max_grad.get_attr<std::string>("padding") == "SAME");
  auto dx = grads[0].op();
  CHECK(dx.type() == "Conv2DBackpropInput");
  CHECK(input_names(dx)[1] == "Placeholder_1:0");
  CHECK(input_names(dx)[2] == "gradients/MaxPool_grad/MaxPoolGrad:0");
  CHECK(dx.get_attr<IntList>("strides").items == std::vector<std::int64_t>{1, 1, 1, 1});
  CHECK(dx.get_attr<IntList>("dilations").items == std::vector<std::int64_t>{1, 1, 1, 1});
  CHECK(dx.get_attr<std::string>("padding") == "SAME");
  auto dw = grads[1].op();
  CHECK(input_names(dw)[0] == "Placeholder:0");
  CHECK(input_names(dw)[2] == "gradients/MaxPool_grad/MaxPoolGrad:0");

  // Values: d sum / d x of this chain, on ones, runs and has the input's shape.
  Session sess(g);
  auto out = sess.run({grads[0], grads[1]}, {{x, Value::filled<float>({2, 8, 8, 3}, 1.0f)},
                                             {w, Value::filled<float>({3, 3, 3, 4}, 0.5f)}});
  CHECK(out[0].dims() == Dims{2, 8, 8, 3});
  CHECK(out[1].dims() == Dims{3, 3, 3, 4});
}

TEST_CASE("nn/conv grad: unknown batch uses Shape ops") {
  // TF (batch unknown): gradients/c2_grad/... sizes come from the run-time shape, and
  // the gradients keep the inputs' static shapes: (?, 8, 8, 3) and (3, 3, 3, 4).
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<float>(Shape{-1, 8, 8, 3});
  auto w = placeholder<float>(Shape{3, 3, 3, 4});
  auto c = nn::conv2d(x, w, {1, 1, 1, 1}, "SAME", "c2");
  auto a = nn::avg_pool(c, {2}, {2}, "VALID", "a2");
  auto grads = gradients(reduce_sum(a), {x, w});
  CHECK(grads[0].get_shape().to_string() == "(?, 8, 8, 3)");
  CHECK(grads[1].get_shape() == Shape{3, 3, 3, 4});
  CHECK(g.get_operation_by_name("gradients/a2_grad/Shape").type() == "Shape");
  CHECK(input_names(grads[0].op())[0] == "gradients/c2_grad/Shape:0");
  CHECK(grads[0].op().inputs()[0].op().type() == "Shape");
  Session sess(g);
  Value dx = sess.run(grads[0], {{x, Value::filled<float>({5, 8, 8, 3}, 1.0f)},
                                 {w, Value::filled<float>({3, 3, 3, 4}, 1.0f)}});
  CHECK(dx.dims() == Dims{5, 8, 8, 3});
}

TEST_CASE("nn/conv grad: the backprop ops have no gradient of their own") {
  for (std::string_view type :
       {"Conv2DBackpropInput", "Conv2DBackpropFilter", "MaxPoolGrad", "AvgPoolGrad"}) {
    CAPTURE(type);
    const OpEntry* e = find_op_entry(type);
    REQUIRE(e != nullptr);
    CHECK(static_cast<bool>(e->grad == nullptr));
  }
  for (std::string_view type : {"Conv2D", "MaxPool", "AvgPool"}) {
    CAPTURE(type);
    const OpEntry* e = find_op_entry(type);
    REQUIRE(e != nullptr);
    CHECK(static_cast<bool>(e->grad != nullptr));
  }
}

TEST_CASE("nn/conv grad: conv2d numerical gradients") {
  struct Case {
    Dims x, w;
    std::vector<std::int64_t> strides;
    const char* padding;
    std::vector<std::int64_t> dilations;
  };
  const std::vector<Case> cases{
      {{2, 5, 5, 2}, {3, 3, 2, 3}, {1, 1, 1, 1}, "SAME", {1, 1, 1, 1}},
      {{2, 5, 5, 2}, {3, 3, 2, 3}, {1, 1, 1, 1}, "VALID", {1, 1, 1, 1}},
      {{1, 7, 6, 2}, {3, 2, 2, 2}, {1, 2, 2, 1}, "SAME", {1, 1, 1, 1}},
      {{2, 7, 6, 1}, {2, 3, 1, 2}, {1, 2, 3, 1}, "VALID", {1, 1, 1, 1}},
      {{1, 6, 6, 2}, {2, 2, 2, 2}, {1, 1, 1, 1}, "SAME", {1, 2, 2, 1}},
      {{1, 7, 7, 1}, {2, 3, 1, 2}, {1, 2, 1, 1}, "VALID", {1, 2, 2, 1}},
      {{2, 3, 4, 3}, {1, 1, 3, 2}, {1, 1, 1, 1}, "VALID", {1, 1, 1, 1}},
  };
  unsigned seed = 1;
  for (const Case& k : cases) {
    CAPTURE(dims_to_string(k.x));
    CAPTURE(dims_to_string(k.w));
    CAPTURE(k.padding);
    check_gradients(
        [&](const std::vector<Output>& in) {
          return nn::conv2d(in[0], in[1], k.strides, k.padding, {.dilations = k.dilations});
        },
        {random_input(k.x, seed), random_input(k.w, seed + 1)});
    seed += 2;
  }
}

TEST_CASE("nn/conv grad: max_pool and avg_pool numerical gradients") {
  struct Case {
    Dims x;
    std::vector<std::int64_t> ksize, strides;
    const char* padding;
  };
  const std::vector<Case> cases{
      {{2, 5, 5, 2}, {1, 3, 3, 1}, {1, 2, 2, 1}, "SAME"},
      {{2, 5, 5, 2}, {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID"},
      {{1, 4, 5, 3}, {1, 2, 2, 1}, {1, 1, 1, 1}, "SAME"},
      {{1, 6, 5, 1}, {1, 3, 2, 1}, {1, 2, 1, 1}, "VALID"},
      {{1, 3, 3, 2}, {1, 4, 4, 1}, {1, 1, 1, 1}, "SAME"},
  };
  unsigned seed = 50;
  for (const Case& k : cases) {
    CAPTURE(dims_to_string(k.x));
    CAPTURE(k.padding);
    check_gradients(
        [&](const std::vector<Output>& in) {
          return nn::max_pool(in[0], k.ksize, k.strides, k.padding);
        },
        {random_input(k.x, seed++)});
    check_gradients(
        [&](const std::vector<Output>& in) {
          return nn::avg_pool(in[0], k.ksize, k.strides, k.padding);
        },
        {random_input(k.x, seed++)});
  }
}

TEST_CASE("nn/conv grad: a small CNN, end to end") {
  // conv 3x3 SAME -> max_pool 2x2 -> conv 2x2 VALID stride 2 -> avg_pool SAME.
  check_gradients(
      [](const std::vector<Output>& in) {
        auto h = nn::conv2d(in[0], in[1], {1}, "SAME");
        h = nn::max_pool(h, {2}, {2}, "SAME");
        h = nn::conv2d(h, in[2], {2}, "VALID");
        return nn::avg_pool(h, {2}, {1}, "SAME");
      },
      {random_input({2, 8, 8, 1}, 7), random_input({3, 3, 1, 3}, 8),
       random_input({2, 2, 3, 2}, 9)});
}

}  // namespace symflow_test_ops_conv_grad_test
