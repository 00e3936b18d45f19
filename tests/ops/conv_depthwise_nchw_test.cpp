// DepthwiseConv2dNative and its backprops with data_format "NCHW", the gradient that carries
// it, and tf.compat.v1.nn.depthwise_conv2d with a list padding (explicit pads, with and
// without a rate) and in NCHW with a rate, checked against TensorFlow 2.21's tf.compat.v1 graph
// mode: values, attrs, node names and messages. TensorFlow's CPU (oneDNN) runs the three ops in
// NCHW with SAME and VALID padding; with explicit padding its reference kernels refuse NCHW
// backprops
// ("Depthwise convolution on CPU is only supported for NHWC format"), so those values are
// its NHWC ops' on transposed data, transposed back.
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

namespace symflow_test_ops_conv_depthwise_nchw_test {

namespace ops_conv_depthwise_nchw_test {

using namespace symflow;
using namespace symflow::test;
using namespace symflow::test::conv_values;

inline std::vector<float> floats(std::initializer_list<int> v) {
  return std::vector<float>(v.begin(), v.end());
}

}  // namespace ops_conv_depthwise_nchw_test

using namespace ops_conv_depthwise_nchw_test;

TEST_CASE("nn/depthwise nchw: values, attrs and the gradient's ops as TensorFlow builds them") {
  // TF: y = tf.nn.depthwise_conv2d_native(X[2,3,5,6], W[3,3,3,2], [1,1,2,2], "SAME",
  //                                       data_format="NCHW")            -> (2, 6, 3, 3)
  //     dx, dw = tf.gradients(y, [x, w], grad_ys=G[2,6,3,3])
  Graph g;
  auto guard = g.as_default();
  auto x = constant(xpat({2, 3, 5, 6}));
  auto w = constant(wpat({3, 3, 3, 2}));
  auto y = nn::depthwise_conv2d_native(x, w, {1, 1, 2, 2}, "SAME", {.data_format = "NCHW"});
  CHECK(y.name() == "DepthwiseConv2dNative:0");
  CHECK(y.get_shape() == Shape{2, 6, 3, 3});
  CHECK(y.op().get_attr<std::string>("data_format") == "NCHW");
  CHECK(ints(y, "strides") == std::vector<std::int64_t>{1, 1, 2, 2});

  auto grads = gradients({y}, {x, w}, {constant(gpat({2, 6, 3, 3}))});
  REQUIRE(grads.size() == 2);
  CHECK(grads[0].name() ==
        "gradients/DepthwiseConv2dNative_grad/DepthwiseConv2dNativeBackpropInput:0");
  CHECK(grads[1].name() ==
        "gradients/DepthwiseConv2dNative_grad/DepthwiseConv2dNativeBackpropFilter:0");
  for (const Output& d : grads) CHECK(d.op().get_attr<std::string>("data_format") == "NCHW");
  CHECK(grads[0].get_shape() == Shape{2, 3, 5, 6});
  CHECK(grads[1].get_shape() == Shape{3, 3, 3, 2});

  Session sess(g);
  const auto v = sess.run({y, grads[0], grads[1]});
  CHECK(v[0].to_vector<float>() ==
        floats({-16, 11,  -2,  -2,  -8,  -16, -12, -10, 13,  -13, -13, 4,   2,   -6,  35, 18,
                -7,  -33, -9,  -14, -2,  3,   -7,  -10, -7,  18,  -8,  11,  13,  -18, -3, 19,
                2,   -10, -12, 2,   -12, 18,  -11, -6,  -7,  10,  -8,  -14, -12, -11, -8, 1,
                -2,  -5,  -4,  20,  -13, 25,  11,  -6,  22,  -8,  -3,  -9,  -10, 14,  6,  -13,
                -2,  -9,  -6,  30,  14,  -7,  -32, 22,  -14, -8,  15,  -7,  -6,  -3,  18, -12,
                -12, 13,  -29, 19,  19,  -3,  -5,  -12, 8,   -4,  18,  -7,  -33, -7,  3,  31,
                -14, -9,  1,   -8,  17,  19,  -5,  -19, -11, -13, 20,  1}));
  CHECK(v[1].to_vector<float>() ==
        floats({4,  -6,  4,   2,  -9,  5,  7,  4,  -19, 6,  11,  -12, 5,   -2, -10, 1,   7,   -6,
                2,  5,   -9,  -3, 11,  4,  6,  2,  -9,  5,  8,   -2,  -2,  -2, 7,   4,   -12, 0,
                -4, -8,  6,   4,  -11, -4, 0,  -4, 10,  2,  -9,  -2,  5,   3,  -10, 5,   3,   -8,
                2,  4,   -12, 0,  4,   -4, -6, 4,  1,   -8, 2,   5,   -12, 7,  11,  -13, 7,   7,
                5,  -7,  4,   6,  -10, 4,  -3, -3, 9,   2,  -20, 7,   1,   -8, 2,   5,   3,   -7,
                -8, 1,   7,   -6, 4,   2,  -3, -3, 11,  4,  -19, 6,   -7,  5,  8,   -2,  -10, 1,
                7,  -12, 6,   5,  -9,  -3, 4,  -6, 4,   2,  -9,  5,   4,   2,  -9,  -2,  7,   4,
                3,  5,   3,   -8, 6,   4,  -4, 0,  4,   -4, 10,  2,   -8,  -4, 12,  3,   -10, 5,
                -2, -2,  7,   4,  -12, 0,  2,  6,  -10, 4,  1,   -8,  5,   2,  -20, 7,   11,  -13,
                -2, 5,   3,   -7, 4,   6,  4,  7,  -7,  -3, 9,   2,   -6,  4,  1,   -8,  2,   5}));
  CHECK(
      v[2].to_vector<float>() ==
      floats({5,   -4, 4,   2,  6,  -17, -28, 22, -10, 5,   -9,  5,   8,   -2,  10, -1,  -10, 15,
              17,  4,  4,   20, 20, 4,   -1,  4,  11,  -10, 28,  -36, -10, -10, 26, -30, 1,   8,
              -22, 4,  -17, 6,  2,  4,   -8,  22, 5,   10,  -12, 7,   -2,  8,   17, -14, 10,  0}));
}

TEST_CASE("nn/depthwise nchw: explicit padding in NCHW order") {
  // TF: y = tf.nn.depthwise_conv2d_native(X[1,2,4,5], W[2,3,2,2], [1,1,1,1],
  //     [[0,0],[0,0],[1,2],[0,3]], data_format="NCHW") -> (1, 4, 6, 6), explicit_paddings
  //     [0, 0, 0, 0, 1, 2, 0, 3]; TF's CPU runs it. The gradients (grad_ys G[1,4,6,6]) keep
  //     the padding; their values are TF's NHWC gradients, transposed.
  Graph g;
  auto guard = g.as_default();
  auto x = constant(xpat({1, 2, 4, 5}));
  auto w = constant(wpat({2, 3, 2, 2}));
  auto y = nn::depthwise_conv2d_native(x, w, {1, 1, 1, 1}, {{0, 0}, {0, 0}, {1, 2}, {0, 3}},
                                       {.data_format = "NCHW"});
  CHECK(y.get_shape() == Shape{1, 4, 6, 6});
  CHECK(ints(y, "explicit_paddings") == std::vector<std::int64_t>{0, 0, 0, 0, 1, 2, 0, 3});
  auto grads = gradients({y}, {x, w}, {constant(gpat({1, 4, 6, 6}))});
  REQUIRE(grads.size() == 2);
  for (const Output& d : grads) {
    CHECK(d.op().get_attr<std::string>("padding") == "EXPLICIT");
    CHECK(ints(d, "explicit_paddings") == std::vector<std::int64_t>{0, 0, 0, 0, 1, 2, 0, 3});
    CHECK(d.op().get_attr<std::string>("data_format") == "NCHW");
  }
  Session sess(g);
  const auto v = sess.run({y, grads[0], grads[1]});
  CHECK(
      v[0].to_vector<float>() ==
      floats({1,   11,  -1,  -2,  8,   0, -12, -27, 24,  -13, -18, 0, 23,  -3,  -7, 16,  4,   0,
              25,  -12, -27, 12,  4,   0, -20, 21,  -4,  -3,  2,   0, 0,   0,   0,  0,   0,   0,
              -7,  5,   -5,  -4,  0,   0, 3,   13,  12,  4,   12,  0, -13, -14, 7,  -10, -15, 0,
              15,  3,   13,  -2,  -9,  0, 8,   -5,  -7,  7,   -3,  0, 0,   0,   0,  0,   0,   0,
              -2,  17,  -8,  -13, -2,  0, -9,  -23, 18,  4,   -5,  0, 20,  6,   14, -15, -7,  0,
              16,  -9,  -23, 10,  13,  0, -3,  -3,  8,   0,   -4,  0, 0,   0,   0,  0,   0,   0,
              -13, 7,   5,   17,  3,   0, 6,   -5,  -16, -13, 8,   0, -16, -5,  6,  2,   12,  0,
              6,   6,   -5,  -16, -17, 0, -7,  -5,  8,   8,   4,   0, 0,   0,   0,  0,   0,   0}));
  CHECK(
      v[1].to_vector<float>() ==
      floats({7,  1, 1, 3,   -10, -9, 2, 3,   -10, 7,  10, 3,   -10, 7,  -1, -6, -11, 7,  -1, 1,
              -8, 1, 2, -14, 15,  10, 5, -14, 15,  -1, -2, -11, 15,  -1, -2, -9, 3,   -1, -2, 2}));
  CHECK(v[2].to_vector<float>() == floats({31, -35, 2,  11, 4,   21, 2,  5, -24, 16,  11,  -10,
                                           2,  31,  -2, 2,  -18, 4,  -1, 2, 16,  -24, -23, 11}));
}

TEST_CASE("nn/depthwise nchw: the same numbers as NHWC, transposed") {
  // Each op on NCHW data equals the NHWC op on the transposed data, transposed back: the
  // forward op with VALID, SAME and explicit pads, and both backprops.
  Graph g;
  auto guard = g.as_default();
  auto x_nhwc = constant(random_value<double>({2, 7, 6, 3}, 41));
  auto x_nchw = transpose(x_nhwc, {0, 3, 1, 2});
  auto w = constant(random_value<double>({3, 2, 3, 2}, 42));
  auto to_nchw = [](const Output& t) { return transpose(t, {0, 3, 1, 2}); };
  const nn::DepthwiseConv2dNativeOptions nchw{.data_format = "NCHW"};
  auto dy_nhwc = constant(random_value<double>({2, 3, 3, 6}, 43));
  auto dy_nchw = transpose(dy_nhwc, {0, 3, 1, 2});
  const nn::DepthwiseConv2dNativeOptions explicit_nhwc{
      .explicit_paddings = {0, 0, 1, 0, 0, 1, 0, 0}};
  const nn::DepthwiseConv2dNativeOptions explicit_nchw{
      .data_format = "NCHW", .explicit_paddings = {0, 0, 0, 0, 1, 0, 0, 1}};
  const Output input_sizes = constant(detail::int32_vector({2, 7, 6, 3}));
  const Output input_sizes_nchw = constant(detail::int32_vector({2, 3, 7, 6}));
  const Output filter_sizes = constant(detail::int32_vector({3, 2, 3, 2}));
  const std::vector<std::pair<Output, Output>> pairs{
      {to_nchw(nn::depthwise_conv2d_native(x_nhwc, w, {1, 2, 2, 1}, "VALID")),
       nn::depthwise_conv2d_native(x_nchw, w, {1, 1, 2, 2}, "VALID", nchw)},
      {to_nchw(nn::depthwise_conv2d_native(x_nhwc, w, {1, 1, 1, 1}, "SAME")),
       nn::depthwise_conv2d_native(x_nchw, w, {1, 1, 1, 1}, "SAME", nchw)},
      {to_nchw(
           nn::depthwise_conv2d_native(x_nhwc, w, {1, 2, 2, 1}, {{0, 0}, {1, 0}, {0, 1}, {0, 0}})),
       nn::depthwise_conv2d_native(x_nchw, w, {1, 1, 2, 2}, {{0, 0}, {0, 0}, {1, 0}, {0, 1}},
                                   nchw)},
      {to_nchw(nn::depthwise_conv2d_native_backprop_input(input_sizes, w, dy_nhwc, {1, 2, 2, 1},
                                                          "EXPLICIT", explicit_nhwc)),
       nn::depthwise_conv2d_native_backprop_input(input_sizes_nchw, w, dy_nchw, {1, 1, 2, 2},
                                                  "EXPLICIT", explicit_nchw)},
      {nn::depthwise_conv2d_native_backprop_filter(x_nhwc, filter_sizes, dy_nhwc, {1, 2, 2, 1},
                                                   "EXPLICIT", explicit_nhwc),
       nn::depthwise_conv2d_native_backprop_filter(x_nchw, filter_sizes, dy_nchw, {1, 1, 2, 2},
                                                   "EXPLICIT", explicit_nchw)},
  };
  Session sess(g);
  for (const auto& pair : pairs) {
    const Output& want = pair.first;  // clang 14: no structured binding in CAPTURE
    const Output& got = pair.second;
    CAPTURE(got.op().type());
    CHECK(got.get_shape() == want.get_shape());
    const auto v = sess.run({want, got});
    REQUIRE(v[0].dims() == v[1].dims());
    check_close(v[1].to_vector<double>(), v[0].to_vector<double>(), 1e-12);
  }
}

TEST_CASE("nn/depthwise_conv2d: a list padding, as TensorFlow builds and computes it") {
  // TF: tf.nn.depthwise_conv2d(X[1,5,6,2], W[2,2,2,2], [1,1,1,1], [[0,0],[1,0],[2,1],[0,0]]):
  // depthwise/Shape, depthwise/dilation_rate and depthwise (padding "EXPLICIT"), (1, 5, 8, 4).
  Graph g;
  auto guard = g.as_default();
  auto x = constant(xpat({1, 5, 6, 2}));
  auto w = constant(wpat({2, 2, 2, 2}));
  auto y = nn::depthwise_conv2d(x, w, {1, 1, 1, 1}, {{0, 0}, {1, 0}, {2, 1}, {0, 0}});
  CHECK(y.name() == "depthwise:0");
  CHECK(y.op().type() == "DepthwiseConv2dNative");
  CHECK(y.get_shape() == Shape{1, 5, 8, 4});
  CHECK(y.op().get_attr<std::string>("padding") == "EXPLICIT");
  CHECK(ints(y, "explicit_paddings") == std::vector<std::int64_t>{0, 0, 1, 0, 2, 1, 0, 0});
  CHECK(run_vector<float>(y) ==
        floats({0,  0,  0,   0,  -4,  0,   -10, 15, -4,  -2,  1,   -24, 11,  1,  3,   9,   4,  4,
                -6, 9,  -14, -4, 7,   -24, 1,   -1, 9,   9,   6,   2,   2,   6,  0,   0,   0,  0,
                16, -4, -2,  -7, 10,  1,   -4,  10, -23, 8,   1,   -21, 10,  4,  6,   3,   10, -11,
                0,  16, -23, -4, -17, 18,  -10, 4,  -7,  -13, 0,   0,   0,   0,  -13, 10,  6,  -11,
                10, 10, 4,   0,  10,  -5,  -2,  13, -23, 2,   3,   -18, 10,  -2, 8,   6,   32, -17,
                2,  -3, 19,  -1, 4,   -8,  0,   0,  0,   0,   -9,  2,   -8,  18, -23, 8,   1,  -21,
                10, 4,  6,   3,  10,  -11, 0,   16, -23, -4,  -17, 18,  -23, 14, -1,  -24, -7, 16,
                4,  8,  0,   0,  0,   0,   17,  -6, 0,   -8,  10,  -5,  -2,  13, -23, 2,   3,  -18,
                10, -2, 8,   6,  32,  -17, 2,   -3, 10,  1,   -4,  10,  -11, 0,  -7,  -9}));

  // TF: rate [2, 2]: the spatial pairs become SpaceToBatchND's base paddings ([[1, 0], [2, 1]],
  // extended to [[1, 0], [2, 2]], crops [[0, 0], [0, 1]]) and the op runs "VALID".
  auto dilated =
      nn::depthwise_conv2d(x, w, {1, 1, 1, 1}, {{0, 0}, {1, 0}, {2, 1}, {0, 0}}, {.rate = {2, 2}});
  std::vector<std::string> built;
  for (const auto& [name, type] : nodes(g))
    if (name.starts_with("depthwise_1")) built.push_back(name + ":" + type);
  CHECK(built ==
        std::vector<std::string>{
            "depthwise_1/Shape:Const", "depthwise_1/dilation_rate:Const",
            "depthwise_1/required_space_to_batch_paddings/input_shape:Const",
            "depthwise_1/required_space_to_batch_paddings/base_paddings:Const",
            "depthwise_1/required_space_to_batch_paddings/paddings:Const",
            "depthwise_1/required_space_to_batch_paddings/crops:Const",
            "depthwise_1/SpaceToBatchND/block_shape:Const",
            "depthwise_1/SpaceToBatchND/paddings:Const",
            "depthwise_1/SpaceToBatchND:SpaceToBatchND", "depthwise_1:DepthwiseConv2dNative",
            "depthwise_1/BatchToSpaceND/block_shape:Const",
            "depthwise_1/BatchToSpaceND/crops:Const", "depthwise_1/BatchToSpaceND:BatchToSpaceND"});
  CHECK(g.get_operation_by_name("depthwise_1").get_attr<std::string>("padding") == "VALID");
  CHECK(run_vector<std::int32_t>(
            g.get_tensor_by_name("depthwise_1/required_space_to_batch_paddings/base_paddings:0")) ==
        std::vector<std::int32_t>{1, 0, 2, 1});
  CHECK(run_vector<std::int32_t>(g.get_tensor_by_name("depthwise_1/SpaceToBatchND/paddings:0")) ==
        std::vector<std::int32_t>{1, 0, 2, 2});
  CHECK(run_vector<std::int32_t>(g.get_tensor_by_name("depthwise_1/BatchToSpaceND/crops:0")) ==
        std::vector<std::int32_t>{0, 0, 0, 1});
  CHECK(dilated.name() == "depthwise_1/BatchToSpaceND:0");
  CHECK(dilated.get_shape() == Shape{1, 4, 7, 4});
  CHECK(run_vector<float>(dilated) ==
        floats({10,  0,   -2, 3,   -6,  0,  -8, 12, 15,  5,  7,   -15, -3,  -3, -2, -15,
                -10, 0,   0,  18,  5,   3,  -9, 18, -15, -5, -2,  -6,  8,   -4, 6,  -19,
                5,   2,   0,  6,   -13, 3,  2,  13, 20,  -1, 7,   -18, -13, 6,  1,  -5,
                9,   -9,  6,  19,  8,   -1, -3, 11, -21, 10, -8,  10,  9,   -6, 8,  -20,
                -13, 12,  -1, -8,  -13, -3, 4,  16, 20,  -7, -13, 18,  -13, 0,  3,  -24,
                4,   -17, -3, -17, 5,   2,  0,  6,  -20, 8,  -6,  9,   20,  -1, 7,  -18,
                -13, 6,   1,  -5,  9,   -9, 6,  19, -13, 9,  -11, 21,  11,  11, -3, -1}));

  // TF: NCHW, pairs in NCHW order: depthwise_2:0, (1, 4, 5, 8).
  auto nchw = nn::depthwise_conv2d(transpose(x, {0, 3, 1, 2}), w, {1, 1, 1, 1},
                                   {{0, 0}, {0, 0}, {1, 0}, {2, 1}}, {.data_format = "NCHW"});
  CHECK(nchw.name() == "depthwise_2:0");
  CHECK(nchw.get_shape() == Shape{1, 4, 5, 8});
  CHECK(run_vector<float>(nchw) ==
        floats({0,  -4,  -4,  11,  4,   -14, 1,   6,  0,   16,  10, -23, 10,  10, -23, -10, 0,  -13,
                10, 10,  -23, 10,  32,  19,  0,   -9, -23, 10,  10, -23, -23, -7, 0,   17,  10, -23,
                10, 32,  10,  -11, 0,   0,   -2,  1,  4,   -4,  -1, 2,   0,   -4, 1,   8,   4,  -11,
                -4, 4,   0,   10,  10,  -5,  2,   -2, -17, -1,  0,  2,   8,   4,  -11, -4,  14, 16,
                0,  -6,  -5,  2,   -2,  -17, 1,   0,  0,   -10, 1,  3,   -6,  7,  9,   2,   0,  -2,
                -4, 1,   6,   0,   -17, -7,  0,   6,  4,   -2,  3,  8,   2,   4,  0,   -8,  1,  6,
                0,  -17, -1,  4,   0,   0,   -2,  3,  8,   2,   -4, -7,  0,   15, -24, 9,   9,  -24,
                9,  6,   0,   -7,  10,  -21, 3,   16, 18,  -13, 0,  -11, 0,   13, -18, 6,   -3, -8,
                0,  18,  -21, 3,   16,  18,  -24, 8,  0,   -8,  13, -18, 6,   -3, 10,  -9}));

  // TF: a bad pair is Python's ValueError, raised after the scope's first Consts.
  CHECK(error_of<ValueError>([&] {
          nn::depthwise_conv2d(
              x, w, {1, 1, 1, 1},
              std::vector<std::vector<std::int64_t>>{{0, 0}, {1, 0}, {2, 1, 3}, {0, 0}},
              {.rate = {2, 2}});
        }) ==
        "When `padding` is a list, each element of `padding` must be a list/tuple of size 2. "
        "Received: padding=[[0, 0], [1, 0], [2, 1, 3], [0, 0]] with element at index 2 of size 3");
  CHECK(error_of<ValueError>([&] {
          nn::depthwise_conv2d(x, w, {1, 1, 1, 1}, {{0, 0}, {1, 0}, {2, 1}});
        }) ==
        "When padding is a list, it must be of size 4. Received: padding=[[0, 0], [1, 0], "
        "[2, 1]] of size 3");
}

TEST_CASE("nn/depthwise_conv2d: NCHW with a rate, SAME and a list padding") {
  // TF: tf.nn.depthwise_conv2d(X[1,2,5,6], W[2,2,2,2], [1,1,1,1], "SAME", rate=[2,2],
  // data_format="NCHW") -> depthwise/BatchToSpaceND:0, (1, 4, 5, 6): the block and the pairs
  // cover the channels too (block_shape [1, 2, 2], paddings [[0, 0], [1, 2], [1, 1]], crops
  // [[0, 0], [0, 1], [0, 0]]); and with [[0,0],[0,0],[1,0],[2,1]], rate=[1,2]: (1, 4, 5, 7),
  // base_paddings [[1, 0], [2, 1]], block_shape [1, 1, 2], paddings [[0, 0], [1, 0], [2, 2]].
  Graph g;
  auto guard = g.as_default();
  auto x = constant(xpat({1, 2, 5, 6}));
  auto w = constant(wpat({2, 2, 2, 2}));
  auto same =
      nn::depthwise_conv2d(x, w, {1, 1, 1, 1}, "SAME", {.rate = {2, 2}, .data_format = "NCHW"});
  auto pairs = nn::depthwise_conv2d(x, w, {1, 1, 1, 1}, {{0, 0}, {0, 0}, {1, 0}, {2, 1}},
                                    {.rate = {1, 2}, .data_format = "NCHW"});
  CHECK(same.name() == "depthwise/BatchToSpaceND:0");
  CHECK(same.get_shape() == Shape{1, 4, 5, 6});
  CHECK(pairs.name() == "depthwise_1/BatchToSpaceND:0");
  CHECK(pairs.get_shape() == Shape{1, 4, 5, 7});
  CHECK(g.get_operation_by_name("depthwise").get_attr<std::string>("data_format") == "NCHW");
  const auto ints32 = [&](const char* name) {
    return run_vector<std::int32_t>(g.get_tensor_by_name(name));
  };
  CHECK(ints32("depthwise/SpaceToBatchND/block_shape:0") == std::vector<std::int32_t>{1, 2, 2});
  CHECK(ints32("depthwise/SpaceToBatchND/paddings:0") ==
        std::vector<std::int32_t>{0, 0, 1, 2, 1, 1});
  CHECK(ints32("depthwise/BatchToSpaceND/crops:0") == std::vector<std::int32_t>{0, 0, 0, 1, 0, 0});
  CHECK(ints32("depthwise/required_space_to_batch_paddings/paddings:0") ==
        std::vector<std::int32_t>{1, 2, 1, 1});
  CHECK(ints32("depthwise_1/required_space_to_batch_paddings/base_paddings:0") ==
        std::vector<std::int32_t>{1, 0, 2, 1});
  CHECK(ints32("depthwise_1/SpaceToBatchND/block_shape:0") == std::vector<std::int32_t>{1, 1, 2});
  CHECK(ints32("depthwise_1/SpaceToBatchND/paddings:0") ==
        std::vector<std::int32_t>{0, 0, 1, 0, 2, 2});
  CHECK(run_vector<float>(same) ==
        floats({6,   -14, -1,  1,   -19, 6,   -13, 10, 10,  -23, 10,  -8, -11, 10,  10,
                -23, 32,  -10, -9,  10,  -23, 10,  10, -12, 3,   9,   -4, 16,  -19, 4,
                0,   -4,  3,   -1,  -5,  2,   10,  1,  10,  8,   -5,  12, 6,   -11, -2,
                -4,  -17, 4,   2,   10,  8,   -5,  4,  -4,  -2,  -1,  1,  -19, 16,  -6,
                -8,  3,   4,   -6,  6,   -3,  -4,  8,  -17, 2,   -1,  4,  0,   1,   -2,
                6,   3,   4,   4,   -17, 2,   -1,  -4, 4,   0,   4,   0,  -4,  3,   -1,
                12,  9,   -24, 9,   9,   -9,  16,  6,  18,  -3,  -24, -8, -8,  -21, 13,
                3,   -18, 0,   -10, 18,  -3,  -24, 10, 8,   0,   4,   -6, 6,   7,   1}));
  CHECK(run_vector<float>(pairs) ==
        floats({-4,  10, -4,  9,   11, -9,  12,  -2,  -9, -13, -2,  -13, -13, -2,  22, -7,  20,  20,
                -13, 20, -4,  -9,  -5, -2,  -13, -13, 20, -6,  -7,  -3,  20,  -13, 20, -13, -8,  0,
                0,   -2, 5,   1,   -3, 4,   -4,  10,  -8, 12,  10,  -14, 14,  -8,  6,  -9,  0,   -2,
                -15, 6,  10,  2,   12, 10,  -14, 6,   -2, 6,   -2,  0,   -2,  -15, 16, -10, 2,   10,
                -3,  9,  -12, 0,   -5, 6,   -8,  2,   -1, -4,  4,   2,   10,  -4,  6,  -8,  0,   -3,
                2,   -8, 0,   -1,  -4, 4,   12,  2,   -4, 4,   -8,  0,   -3,  -6,  2,  -3,  -15, 9,
                9,   9,  9,   -15, -7, 22,  6,   -15, -3, 9,   -14, -9,  -2,  12,  13, 3,   -18, -6,
                22,  -4, -15, -3,  9,  -23, 2,   -2,  -6, 13,  3,   -18, 16,  10}));
}

TEST_CASE("nn/depthwise nchw: bad formats, strides and shapes are TensorFlow's errors") {
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<float>(Shape{1, 3, 4, 5});
  // TF: ValueError "Attr 'data_format' of 'DepthwiseConv2dNative' Op passed string 'NCWH' not
  // in: "NHWC", "NCHW"."
  CHECK(error_of<ValueError>([&] {
          nn::depthwise_conv2d_native(x, placeholder<float>(Shape{2, 2, 3, 2}), {1, 1, 1, 1},
                                      "VALID", {.data_format = "NCWH"});
        }) ==
        "Attr 'data_format' of 'DepthwiseConv2dNative' Op passed string 'NCWH' not in: \"NHWC\", "
        "\"NCHW\".");
  // TF: "Dimensions must be equal, but are 3 and 2" (the depth is dim 1 in NCHW).
  std::string m = error_of<ValueError>([&] {
    nn::depthwise_conv2d_native(x, placeholder<float>(Shape{2, 2, 2, 2}), {1, 1, 1, 1}, "VALID",
                                {.data_format = "NCHW"});
  });
  CHECK(contains(m, "Dimensions must be equal, but are 3 and 2"));
  // TF: the pairs are in NCHW order, so a pair in slot 1 pads the depth.
  m = error_of<ValueError>([&] {
    nn::depthwise_conv2d_native(x, placeholder<float>(Shape{2, 2, 3, 2}), {1, 1, 2, 2},
                                {{0, 0}, {1, 0}, {1, 0}, {2, 1}}, {.data_format = "NCHW"});
  });
  CHECK(contains(m, "Nonzero explicit padding in the batch or depth dimensions is not supported"));
  // TF's kernel refuses a stride along the channels, dim 1 in NCHW (TF 2.21's oneDNN kernel
  // says it as UnimplementedError, its reference kernel as InvalidArgument; symflow follows
  // the reference kernels), and unequal row and column strides.
  auto xs = constant(xpat({1, 3, 4, 5}));
  auto ws = constant(wpat({2, 2, 3, 2}));
  auto depth_strided =
      nn::depthwise_conv2d_native(xs, ws, {1, 2, 1, 1}, "VALID", {.data_format = "NCHW"});
  CHECK(depth_strided.get_shape() == Shape{1, 6, 3, 4});
  m = error_of<InvalidArgumentError>([&] { run_vector<float>(depth_strided); });
  CHECK(contains(m,
                 "Current implementation does not yet support strides in the batch and depth "
                 "dimensions."));
  auto uneven = nn::depthwise_conv2d_native(xs, ws, {1, 1, 2, 1}, "VALID", {.data_format = "NCHW"});
  CHECK(uneven.get_shape() == Shape{1, 6, 2, 4});
  m = error_of<InvalidArgumentError>([&] { run_vector<float>(uneven); });
  CHECK(contains(m, "only supports equal length strides in the row and column dimensions."));
  // The backprops' kernels check out_backprop against the NCHW geometry.
  auto dx = nn::depthwise_conv2d_native_backprop_input(
      constant(detail::int32_vector({1, 3, 4, 5})), ws, constant(xpat({1, 6, 3, 3})), {1, 1, 1, 1},
      "VALID", {.data_format = "NCHW"});
  m = error_of<InvalidArgumentError>([&] { run_vector<float>(dx); });
  CHECK(contains(m,
                 "DepthwiseConv2DBackpropInput: Number of cols of out_backprop doesn't match "
                 "computed: actual = 3, computed = 4"));
}

}  // namespace symflow_test_ops_conv_depthwise_nchw_test
