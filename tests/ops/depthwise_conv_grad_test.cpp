// Gradients of depthwise_conv2d_native: the graph symflow::gradients builds (node names,
// types and inputs as tf.compat.v1.gradients builds them in TensorFlow 2.21 graph mode),
// values against tf.gradients, and float64 numerical checks across paddings, strides and
// multipliers. (A *_grad_test.cpp file: the gradients.coverage test runs these, and needs
// DepthwiseConv2dNative checked numerically.)
//
// The TF values use the integer patterns of depthwise_conv_test.cpp, so they are exact:
//   X(i) = ((7 i + 3) mod 11) - 5   (inputs, and the loss weights)
//   W(i) = ((5 i + 1) mod 7) - 3    (filters)

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

namespace symflow_test_ops_depthwise_conv_grad_test {

namespace ops_depthwise_conv_grad_test {

using namespace symflow;
using namespace symflow::test;

inline Value random_input(const Dims& dims, unsigned seed) {
  return conv_values::random_value<double>(dims, seed);
}

inline Value pattern(const Dims& dims, std::size_t a, std::size_t b, std::size_t m, int off) {
  std::vector<double> v(static_cast<std::size_t>(num_elements(dims)));
  for (std::size_t i = 0; i < v.size(); ++i)
    v[i] = static_cast<double>(static_cast<int>((i * a + b) % m) - off);
  return Value::from_vector(v, dims);
}
inline Value xpat(const Dims& dims) { return pattern(dims, 7, 3, 11, 5); }
inline Value wpat(const Dims& dims) { return pattern(dims, 5, 1, 7, 3); }

}  // namespace ops_depthwise_conv_grad_test

using namespace ops_depthwise_conv_grad_test;

TEST_CASE("nn/depthwise conv grad: the gradient graph has TensorFlow's nodes") {
  // TF: gradients(reduce_sum(depthwise_conv2d_native(x, w)), [x, w]) builds
  //   gradients/DepthwiseConv2dNative_grad/Shape (Const [1,5,5,2]),
  //   .../DepthwiseConv2dNativeBackpropInput (Shape, w, Sum_grad's gradient),
  //   .../Shape_1 (Const [3,3,2,2]),
  //   .../DepthwiseConv2dNativeBackpropFilter (x, Shape_1, Sum_grad's gradient),
  // with the forward op's strides, padding, dilations and data_format.
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<float>(Shape{1, 5, 5, 2}, "x");
  auto w = placeholder<float>(Shape{3, 3, 2, 2}, "w");
  auto y = nn::depthwise_conv2d_native(x, w, {1, 2, 2, 1}, "SAME");
  auto grads = gradients(reduce_sum(y), {x, w});
  REQUIRE(grads.size() == 2);
  CHECK(grads[0].name() ==
        "gradients/DepthwiseConv2dNative_grad/DepthwiseConv2dNativeBackpropInput:0");
  CHECK(grads[1].name() ==
        "gradients/DepthwiseConv2dNative_grad/DepthwiseConv2dNativeBackpropFilter:0");
  CHECK(grads[0].get_shape() == Shape{1, 5, 5, 2});
  CHECK(grads[1].get_shape() == Shape{3, 3, 2, 2});
  std::vector<std::string> scope;
  for (const Operation& op : g.get_operations())
    if (op.name().starts_with("gradients/DepthwiseConv2dNative_grad/"))
      scope.push_back(op.name() + " " + op.type());
  CHECK(scope == std::vector<std::string>{
                     "gradients/DepthwiseConv2dNative_grad/Shape Const",
                     "gradients/DepthwiseConv2dNative_grad/DepthwiseConv2dNativeBackpropInput "
                     "DepthwiseConv2dNativeBackpropInput",
                     "gradients/DepthwiseConv2dNative_grad/Shape_1 Const",
                     "gradients/DepthwiseConv2dNative_grad/DepthwiseConv2dNativeBackpropFilter "
                     "DepthwiseConv2dNativeBackpropFilter"});
  auto dx = grads[0].op();
  CHECK(input_names(dx)[0] == "gradients/DepthwiseConv2dNative_grad/Shape:0");
  CHECK(input_names(dx)[1] == "w:0");
  CHECK(input_names(dx)[2] == input_names(grads[1].op())[2]);
  CHECK(dx.get_attr<IntList>("strides").items == std::vector<std::int64_t>{1, 2, 2, 1});
  CHECK(dx.get_attr<IntList>("dilations").items == std::vector<std::int64_t>{1, 1, 1, 1});
  CHECK(dx.get_attr<std::string>("padding") == "SAME");
  CHECK(dx.get_attr<std::string>("data_format") == "NHWC");
  auto dw = grads[1].op();
  CHECK(input_names(dw)[0] == "x:0");
  CHECK(input_names(dw)[1] == "gradients/DepthwiseConv2dNative_grad/Shape_1:0");
  Session sess(g);
  CHECK(sess.run(dx.inputs()[0]).to_vector<std::int32_t>() ==
        std::vector<std::int32_t>{1, 5, 5, 2});
  CHECK(sess.run(dw.inputs()[1]).to_vector<std::int32_t>() ==
        std::vector<std::int32_t>{3, 3, 2, 2});
}

TEST_CASE("nn/depthwise conv grad: unknown batch uses Shape ops") {
  // TF (x [?,8,8,3], depthwise_conv2d named "dw"): gradients/dw_grad/Shape is a Shape op of x,
  // Shape_1 a Const; the gradients keep the inputs' static shapes, (?, 8, 8, 3) and
  // (3, 3, 3, 2).
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<float>(Shape{-1, 8, 8, 3});
  auto w = placeholder<float>(Shape{3, 3, 3, 2});
  auto y = nn::depthwise_conv2d(x, w, {1, 1, 1, 1}, "SAME", {.name = "dw"});
  auto grads = gradients(reduce_sum(y), {x, w});
  CHECK(grads[0].name() == "gradients/dw_grad/DepthwiseConv2dNativeBackpropInput:0");
  CHECK(grads[0].get_shape().to_string() == "(?, 8, 8, 3)");
  CHECK(grads[1].get_shape() == Shape{3, 3, 3, 2});
  CHECK(g.get_operation_by_name("gradients/dw_grad/Shape").type() == "Shape");
  CHECK(g.get_operation_by_name("gradients/dw_grad/Shape_1").type() == "Const");
  CHECK(input_names(g.get_operation_by_name("gradients/dw_grad/Shape")) ==
        std::vector<std::string>{"Placeholder:0"});
  Session sess(g);
  auto out = sess.run({grads[0], grads[1]}, {{x, Value::filled<float>({5, 8, 8, 3}, 1.0f)},
                                             {w, Value::filled<float>({3, 3, 3, 2}, 1.0f)}});
  CHECK(out[0].dims() == Dims{5, 8, 8, 3});
  CHECK(out[1].dims() == Dims{3, 3, 3, 2});
  // Interior inputs are read by all 9 taps of both of their channel's 2 filters.
  CHECK(out[0].data<float>()[((0 * 8 + 4) * 8 + 4) * 3] == 18.0f);
}

TEST_CASE("nn/depthwise conv grad: the backprop ops have no gradient of their own") {
  for (std::string_view type :
       {"DepthwiseConv2dNativeBackpropInput", "DepthwiseConv2dNativeBackpropFilter"}) {
    CAPTURE(type);
    const OpEntry* e = find_op_entry(type);
    REQUIRE(e != nullptr);
    CHECK(static_cast<bool>(e->grad == nullptr));
  }
  const OpEntry* e = find_op_entry("DepthwiseConv2dNative");
  REQUIRE(e != nullptr);
  CHECK(static_cast<bool>(e->grad != nullptr));
}

TEST_CASE("nn/depthwise conv grad: values against tf.gradients") {
  // TF: y = tf.compat.v1.nn.depthwise_conv2d(X(x), W(w), strides, padding) in float64,
  // dx, dw = tf.gradients(reduce_sum(y * W(y's shape)), [x, w]).
  struct Case {
    Dims x, w;
    std::vector<std::int64_t> strides;
    const char* padding;
    std::vector<double> dx, dw;
  };
  const std::vector<Case> cases{
      {{1, 5, 5, 2},
       {3, 3, 2, 2},
       {1, 2, 2, 1},
       "SAME",
       {-5, -5, -12, -4, -5, -4, 2, -9, 2,  -3, 7,   -4, 10,  -10, 7,  -2, 3,
        1,  -7, 0,   2,  12, 2,  9, 2,  13, 2,  -10, 2,  -7,  -7,  -5, 3,  -12,
        7,  -3, 10,  6,  7,  6,  2, -6, 2,  1,  -5,  -5, -12, -4,  -5, -4},
       {10, -5, -17, -8, -8,  15, -20, 8,  14, -15, 10, -9, -10, -21, -16, 11, -31, 1,
        27, 8,  13,  9,  -12, 15, -13, 14, 22, 10,  17, -2, -6,  -20, -9,  18, -7,  9}},
      {{2, 4, 5, 3},
       {2, 3, 3, 1},
       {1, 1, 1, 1},
       "VALID",
       {4,   9,   1,  4,   -18, 4,   1,   -3, 10, 0,  12,  12,  0,  4,  9,  -4, -6, -6,  -10, 6,
        -16, -16, 10, -28, -6,  -6,  -16, 0,  -4, -6, 7,   7,   9,  11, 3,  13, 14, -24, 14,  13,
        3,   11,  9,  7,   7,   -3,  -2,  0,  -8, -3, -3,  -14, 5,  -8, -8, 3,  -5, -3,  -3,  -2,
        0,   -6,  3,  -2,  3,   3,   -5,  7,  1,  -2, 2,   -13, 0,  0,  -6, -6, 5,  -10, 4,   4,
        1,   11,  -1, 7,   9,   -14, 9,   6,  -6, 5,  5,   -10, 5,  4,  1,  9,  -1, 7,   7,   -14,
        9,   1,   -6, 5,   -10, -1,  3,   -6, -2, 2,  -13, -2,  -2, 1,  2,  -2, 3,  3,   -1,  3},
       {-12, 27, 26, 23, 30, 1, 25, -11, -24, -24, -24, -11, -22, 1, 30, -31, 26, 27}},
  };
  for (const Case& k : cases) {
    CAPTURE(dims_to_string(k.x));
    Graph g;
    auto guard = g.as_default();
    auto x = constant(xpat(k.x));
    auto w = constant(wpat(k.w));
    auto y = nn::depthwise_conv2d(x, w, k.strides, k.padding);
    auto weights = constant(wpat(y.get_shape().dims()));
    auto grads = gradients(reduce_sum(multiply(y, weights)), {x, w});
    Session sess(g);
    auto out = sess.run({grads[0], grads[1]});
    CHECK(out[0].to_vector<double>() == k.dx);
    CHECK(out[1].to_vector<double>() == k.dw);
  }
}

TEST_CASE("nn/depthwise conv grad: depthwise_conv2d_native numerical gradients") {
  struct Case {
    Dims x, w;
    std::vector<std::int64_t> strides;
    const char* padding;
  };
  const std::vector<Case> cases{
      {{2, 5, 5, 2}, {3, 3, 2, 1}, {1, 1, 1, 1}, "SAME"},
      {{2, 5, 5, 2}, {3, 3, 2, 2}, {1, 1, 1, 1}, "VALID"},
      {{1, 7, 6, 3}, {3, 2, 3, 2}, {1, 2, 2, 1}, "SAME"},
      {{2, 7, 6, 1}, {2, 3, 1, 3}, {1, 2, 2, 1}, "VALID"},
      {{1, 4, 4, 3}, {1, 1, 3, 2}, {1, 1, 1, 1}, "VALID"},
      {{1, 3, 3, 2}, {5, 5, 2, 1}, {1, 1, 1, 1}, "SAME"},
  };
  unsigned seed = 1;
  for (const Case& k : cases) {
    CAPTURE(dims_to_string(k.x));
    CAPTURE(dims_to_string(k.w));
    CAPTURE(k.padding);
    check_gradients(
        [&](const std::vector<Output>& in) {
          return nn::depthwise_conv2d_native(in[0], in[1], k.strides, k.padding);
        },
        {random_input(k.x, seed), random_input(k.w, seed + 1)});
    seed += 2;
  }
}

TEST_CASE("nn/depthwise conv grad: a MobileNet-style block, end to end") {
  // depthwise 3x3 SAME stride 2 -> pointwise conv2d 1x1 -> depthwise 3x3 VALID -> avg_pool.
  check_gradients(
      [](const std::vector<Output>& in) {
        auto h = nn::depthwise_conv2d(in[0], in[1], {1, 2, 2, 1}, "SAME");
        h = nn::conv2d(h, in[2], {1}, "VALID");
        h = nn::depthwise_conv2d_native(h, in[3], {1, 1, 1, 1}, "VALID");
        return nn::avg_pool(h, {2}, {1}, "SAME");
      },
      {random_input({2, 9, 9, 3}, 7), random_input({3, 3, 3, 1}, 8), random_input({1, 1, 3, 4}, 9),
       random_input({3, 3, 4, 2}, 10)});
}

}  // namespace symflow_test_ops_depthwise_conv_grad_test
