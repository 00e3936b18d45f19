// Conv2D with explicit padding (tf.nn.conv2d's list of (before, after) pairs: padding
// "EXPLICIT" and explicit_paddings), and the backprop ops its gradient builds, checked
// against TensorFlow 2.21's tf.compat.v1 graph mode: values, the attrs TensorFlow writes,
// and its messages for bad paddings.
//
// Inputs are integer patterns (conv_test_values.hpp), so every sum is exact:
//   X(i) = ((7 i + 3) mod 11) - 5   (inputs)
//   W(i) = ((5 i + 1) mod 7) - 3    (filters)
//   G(i) = ((3 i + 2) mod 5) - 2    (the gradient fed back, grad_ys)

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include <symflow/symflow.hpp>
#include <symflow/train/gradients.hpp>

#include "../test_util.hpp"
#include "conv_test_values.hpp"

namespace symflow_test_ops_conv_explicit_padding_test {

namespace ops_conv_explicit_padding_test {

using namespace symflow;
using namespace symflow::test;
using namespace symflow::test::conv_values;

// TF: tf.gradients(conv2d(X[1,4,5,2], W[2,3,2,3], [1,2,1,1], [[0,0],[1,2],[0,3],[0,0]]),
// [x, w], grad_ys=G[1,3,6,3]).
const std::vector<float> kInputGrad{
    -4, -5, 15, 15, 2,   0,   -12, -13, -11, -11, 8, -5, 2,   -6, -13, -7, -11, 10, 11, 12,
    7,  8,  3,  2,  -12, -13, -11, -11, 10,  11,  6, -3, -11, -6, -11, 10, 11,  12, 13, -6};
const std::vector<float> kFilterGrad{-7, 3,  8,   15,  -19, -3,  7,   9,   -9, -8,  9,  6,
                                     -7, -1, -5,  4,   9,   -11, -3,  3,   4,  -14, -8, -7,
                                     6,  3,  -10, -12, 13,  13,  -11, -11, 9,  16,  -5, -1};

// The ValueError `f` throws (it must throw one).
template <class F>
std::string value_error(F&& f) {
  auto e = thrown<ValueError>(f);
  REQUIRE(e);
  return std::string(e->message());
}

}  // namespace ops_conv_explicit_padding_test

using namespace ops_conv_explicit_padding_test;

TEST_CASE("nn/conv explicit padding: conv2d values and attrs as TensorFlow builds them") {
  // TF: y = tf.nn.conv2d(X[1,4,5,2], W[2,3,2,3], [1,2,1,1], [[0,0],[1,2],[0,3],[0,0]]):
  // shape (1, 3, 6, 3), padding "EXPLICIT", explicit_paddings [0, 0, 1, 2, 0, 3, 0, 0].
  Graph g;
  auto guard = g.as_default();
  auto x = constant(xpat({1, 4, 5, 2}));
  auto w = constant(wpat({2, 3, 2, 3}));
  auto y = nn::conv2d(x, w, {1, 2, 1, 1}, {{0, 0}, {1, 2}, {0, 3}, {0, 0}});
  CHECK(y.name() == "Conv2D:0");
  CHECK(y.op().type() == "Conv2D");
  CHECK(y.get_shape() == Shape{1, 3, 6, 3});
  CHECK(y.op().get_attr<std::string>("padding") == "EXPLICIT");
  CHECK(ints(y, "explicit_paddings") == std::vector<std::int64_t>{0, 0, 1, 2, 0, 3, 0, 0});
  CHECK(ints(y, "strides") == std::vector<std::int64_t>{1, 2, 1, 1});
  CHECK(y.op().get_attr<std::string>("data_format") == "NHWC");
  const std::vector<float> want{-1,  10, -14, 1,  -15, 11, -19, 15,  14, 7,   14,  -14, 13, -17,
                                -5,  0,  0,   0,  13,  -4, 28,  -20, 20, -24, 2,   -33, 23, -5,
                                21,  5,  1,   13, 4,   0,  0,   0,   18, 11,  -10, 5,   5,  12,
                                -19, 10, -10, -2, -17, 17, 4,   12,  -8, 0,   0,   0};
  CHECK(run_vector<float>(y) == want);

  // A node without explicit padding leaves the attr out (TensorFlow 1.x's GraphDefs).
  auto same = nn::conv2d(x, w, {1, 1, 1, 1}, "SAME");
  CHECK_FALSE(same.op().attrs().count("explicit_paddings"));
}

TEST_CASE("nn/conv explicit padding: float64 and dilations") {
  // TF: tf.nn.conv2d(X[2,5,4,1], W[2,2,1,2], [1,1,1,1], [[0,0],[2,0],[1,1],[0,0]],
  // dilations=[1,2,1,1]): shape (2, 5, 5, 2).
  Graph g;
  auto guard = g.as_default();
  auto y = nn::conv2d(constant(xpat<double>({2, 5, 4, 1})), constant(wpat<double>({2, 2, 1, 2})),
                      {1, 1, 1, 1}, {{0, 0}, {2, 0}, {1, 1}, {0, 0}}, {.dilations = {1, 2, 1, 1}});
  CHECK(y.get_shape() == Shape{2, 5, 5, 2});
  const std::vector<double> want{
      0,  4,  6,   -14, -15, 8,   -3,  8,  9,  -6,  0,  -8,  -12, 8,   0,   8,  12, -14, -9,  6,
      -2, 4,  12,  -3,  6,   0,   -11, 14, 12, -13, 4,  -14, -23, 20,  -7,  12, 20, -29, -18, 17,
      -1, 1,  -3,  10,  24,  -31, -15, 16, 7,  -8,  0,  10,  15,  -14, -6,  8,  6,  -14, -15, 10,
      0,  -2, -3,  8,   9,   -14, -12, 8,  0,  0,   -5, 13,  24,  -31, -15, 16, 12, -3,  5,   5,
      1,  -5, -11, 14,  16,  -27, -23, 20, -3, 2,   -4, 10,  20,  -29, -19, 18, -3, 10,  22,  -23};
  CHECK(run_vector<double>(y) == want);
}

TEST_CASE("nn/conv explicit padding: the gradient's backprop ops keep the padding") {
  // TF: tf.gradients(y, [x, w], grad_ys=G) for the first case builds
  // gradients/Conv2D_grad/Conv2DBackpropInput and ...Filter with padding "EXPLICIT" and
  // explicit_paddings [0, 0, 1, 2, 0, 3, 0, 0] (and one ShapeN for both sizes, where symflow
  // has a Const each).
  Graph g;
  auto guard = g.as_default();
  auto x = constant(xpat({1, 4, 5, 2}));
  auto w = constant(wpat({2, 3, 2, 3}));
  auto y = nn::conv2d(x, w, {1, 2, 1, 1}, {{0, 0}, {1, 2}, {0, 3}, {0, 0}});
  auto grads = gradients({y}, {x, w}, {constant(gpat({1, 3, 6, 3}))});
  REQUIRE(grads.size() == 2);
  CHECK(grads[0].name() == "gradients/Conv2D_grad/Conv2DBackpropInput:0");
  CHECK(grads[1].name() == "gradients/Conv2D_grad/Conv2DBackpropFilter:0");
  for (const Output& d : grads) {
    CHECK(d.op().get_attr<std::string>("padding") == "EXPLICIT");
    CHECK(ints(d, "explicit_paddings") == std::vector<std::int64_t>{0, 0, 1, 2, 0, 3, 0, 0});
  }
  CHECK(grads[0].get_shape() == Shape{1, 4, 5, 2});
  CHECK(grads[1].get_shape() == Shape{2, 3, 2, 3});
  Session sess(g);
  const auto values = sess.run({grads[0], grads[1]});
  CHECK(values[0].to_vector<float>() == kInputGrad);
  CHECK(values[1].to_vector<float>() == kFilterGrad);
}

TEST_CASE("nn/conv explicit padding: the backprop builders take it through the options") {
  // gen_nn_ops.conv2d_backprop_input(sizes, w, G, strides, "EXPLICIT", explicit_paddings=...)
  // gives TF's gradient values above.
  Graph g;
  auto guard = g.as_default();
  const nn::Conv2DOptions options{.explicit_paddings = {0, 0, 1, 2, 0, 3, 0, 0}};
  auto w = constant(wpat({2, 3, 2, 3}));
  auto dy = constant(gpat({1, 3, 6, 3}));
  auto dx = nn::conv2d_backprop_input(constant(detail::int32_vector({1, 4, 5, 2})), w, dy,
                                      {1, 2, 1, 1}, "EXPLICIT", options);
  auto dw = nn::conv2d_backprop_filter(constant(xpat({1, 4, 5, 2})),
                                       constant(detail::int32_vector({2, 3, 2, 3})), dy,
                                       {1, 2, 1, 1}, "EXPLICIT", options);
  CHECK(dx.get_shape() == Shape{1, 4, 5, 2});
  CHECK(ints(dx, "explicit_paddings") == std::vector<std::int64_t>{0, 0, 1, 2, 0, 3, 0, 0});
  CHECK(run_vector<float>(dx) == kInputGrad);
  CHECK(run_vector<float>(dw) == kFilterGrad);
}

TEST_CASE("nn/conv explicit padding: bad paddings are TensorFlow's errors") {
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<float>(Shape{1, 4, 5, 2});
  auto w = placeholder<float>(Shape{2, 2, 2, 3});
  // Python's checks of the list, before any node.
  CHECK(value_error([&] {
          nn::conv2d(x, w, {1, 1, 1, 1}, {{0, 0}, {1, 2}, {3, 4}});
        }) ==
        "When padding is a list, it must be of size 4. Received: padding=[[0, 0], [1, 2], [3, "
        "4]] of size 3");
  CHECK(value_error([&] {
          nn::conv2d(x, w, {1, 1, 1, 1},
                     std::vector<std::vector<std::int64_t>>{{0, 0}, {1, 2, 3}, {3, 4}, {0, 0}});
        }) ==
        "When `padding` is a list, each element of `padding` must be a list/tuple of size 2. "
        "Received: padding=[[0, 0], [1, 2, 3], [3, 4], [0, 0]] with element at index 1 of size "
        "3");
  // The shape function's, with the node.
  std::string m = value_error([&] {
    nn::conv2d(x, w, {1, 1, 1, 1}, {{1, 0}, {1, 2}, {3, 4}, {0, 0}});
  });
  CHECK(contains(m, "Nonzero explicit padding in the batch or depth dimensions is not supported"));
  CHECK(contains(m, "with input shapes: [1,4,5,2], [2,2,2,3]."));
  m = value_error([&] { nn::conv2d(x, w, {1, 1, 1, 1}, {{0, 0}, {1, 2}, {3, 4}, {0, 1}}); });
  CHECK(contains(m, "Nonzero explicit padding in the batch or depth dimensions is not supported"));
  m = value_error([&] { nn::conv2d(x, w, {1, 1, 1, 1}, {{0, 0}, {-1, 2}, {3, 4}, {0, 0}}); });
  CHECK(contains(m, "All elements of explicit_paddings must be nonnegative"));
  // symflow's own bound (TensorFlow has none): a pad past int32 is refused, not overflowed.
  m = value_error([&] {
    nn::conv2d(x, w, {1, 1, 1, 1}, {{0, 0}, {std::int64_t{1} << 40, 0}, {0, 0}, {0, 0}});
  });
  CHECK(contains(m, "explicit_paddings value 1099511627776 does not fit in int32"));
  m = value_error([&] {
    nn::conv2d(placeholder<float>(Shape{1, 1, 1, 2}), placeholder<float>(Shape{5, 5, 2, 3}),
               {1, 1, 1, 1}, {{0, 0}, {1, 1}, {1, 1}, {0, 0}});
  });
  CHECK(contains(m, "Negative dimension size caused by subtracting 5 from 3"));
  // gen_nn_ops' spelling: padding "EXPLICIT" with explicit_paddings of another length, or
  // explicit_paddings with another padding.
  m = value_error([&] {
    nn::conv2d(x, w, {1, 1, 1, 1}, "EXPLICIT", {.explicit_paddings = {0, 0, 1, 2, 3, 4}});
  });
  CHECK(contains(m, "explicit_paddings attribute must contain 8 values, but got: 6"));
  m = value_error([&] { nn::conv2d(x, w, {1, 1, 1, 1}, "EXPLICIT"); });
  CHECK(contains(m, "explicit_paddings attribute must contain 8 values, but got: 0"));
  m = value_error([&] {
    nn::conv2d(x, w, {1, 1, 1, 1}, "SAME", {.explicit_paddings = {0, 0, 1, 2, 3, 4, 0, 0}});
  });
  CHECK(contains(
      m, "explicit_paddings attribute must be empty if the padding attribute is not EXPLICIT"));
  // An unknown padding string names EXPLICIT among the choices, as TensorFlow 2.21 does.
  CHECK(value_error([&] {
          nn::conv2d(x, w, {1, 1, 1, 1}, "FOO");
        }) ==
        "Attr 'padding' of 'Conv2D' Op passed string 'FOO' not in: \"SAME\", \"VALID\", "
        "\"EXPLICIT\".");
  // AvgPool has no explicit padding (MaxPool has, as in TensorFlow): its message lists SAME
  // and VALID only.
  CHECK(value_error([&] { nn::avg_pool(x, {2}, {2}, "EXPLICIT"); }) ==
        "Attr 'padding' of 'AvgPool' Op passed string 'EXPLICIT' not in: \"SAME\", \"VALID\".");
}

TEST_CASE("nn/conv explicit padding: the pads SAME would choose give SAME's values") {
  // TF's SAME pads a 2x2 filter at stride 1 by 0 before and 1 after.
  Graph g;
  auto guard = g.as_default();
  auto x = constant(xpat({2, 4, 5, 3}));
  auto w = constant(wpat({2, 2, 3, 2}));
  auto same = nn::conv2d(x, w, {1, 1, 1, 1}, "SAME");
  auto explicit_pads = nn::conv2d(x, w, {1, 1, 1, 1}, {{0, 0}, {0, 1}, {0, 1}, {0, 0}});
  CHECK(explicit_pads.get_shape() == same.get_shape());
  CHECK(run_vector<float>(explicit_pads) == run_vector<float>(same));
}

TEST_CASE("nn/conv explicit padding: depthwise_conv2d_native and its gradient") {
  // TF: y = tf.nn.depthwise_conv2d_native(X[1,4,5,2], W[2,3,2,2], [1,2,2,1],
  // [[0,0],[1,2],[0,3],[0,0]]): shape (1, 3, 3, 4); tf.gradients(y, [x, w], grad_ys=G)
  // builds the backprops with the same explicit_paddings.
  Graph g;
  auto guard = g.as_default();
  auto x = constant(xpat({1, 4, 5, 2}));
  auto w = constant(wpat({2, 3, 2, 2}));
  auto y = nn::depthwise_conv2d_native(x, w, {1, 2, 2, 1}, {{0, 0}, {1, 2}, {0, 3}, {0, 0}});
  CHECK(y.get_shape() == Shape{1, 3, 3, 4});
  CHECK(y.op().get_attr<std::string>("padding") == "EXPLICIT");
  CHECK(ints(y, "explicit_paddings") == std::vector<std::int64_t>{0, 0, 1, 2, 0, 3, 0, 0});
  auto grads = gradients({y}, {x, w}, {constant(gpat({1, 3, 3, 4}))});
  REQUIRE(grads.size() == 2);
  CHECK(grads[0].name() ==
        "gradients/DepthwiseConv2dNative_grad/DepthwiseConv2dNativeBackpropInput:0");
  CHECK(grads[1].name() ==
        "gradients/DepthwiseConv2dNative_grad/DepthwiseConv2dNativeBackpropFilter:0");
  for (const Output& d : grads)
    CHECK(ints(d, "explicit_paddings") == std::vector<std::int64_t>{0, 0, 1, 2, 0, 3, 0, 0});
  Session sess(g);
  const auto v = sess.run({y, grads[0], grads[1]});
  CHECK(v[0].to_vector<float>() ==
        std::vector<float>{-3, -9, -1,  9, 4,  6,  -24, 1, -2, 0, 10, -15, -40, 13, -34, 1, 21, -2,
                           20, 1,  -14, 9, -7, 10, 11,  6, -6, 6, -1, 9,   5,   3,  0,   0, -4, 4});
  CHECK(v[1].to_vector<float>() == std::vector<float>{0,  -5, 2,  -5, 8,  9,  2,  8,  -2,  -11,
                                                      -5, 2,  -5, 0,  9,  -5, 8,  -4, -11, -3,
                                                      2,  -4, 2,  -6, -2, 14, -3, 7,  -2,  -6,
                                                      -4, -3, -6, -2, 14, 1,  7,  4,  -6,  8});
  CHECK(v[2].to_vector<float>() == std::vector<float>{1,   -1, -7, 2, 12, -11, 10, -18,
                                                      1,   6,  7,  7, 2,  16,  15, -4,
                                                      -18, 4,  1,  6, 7,  -13, 1,  1});
  // TF 2.21 lists EXPLICIT among the paddings DepthwiseConv2dNative takes.
  CHECK(value_error([&] {
          nn::depthwise_conv2d_native(x, w, {1, 1, 1, 1}, "FOO");
        }) ==
        "Attr 'padding' of 'DepthwiseConv2dNative' Op passed string 'FOO' not in: \"SAME\", "
        "\"VALID\", \"EXPLICIT\".");
}

}  // namespace symflow_test_ops_conv_explicit_padding_test
