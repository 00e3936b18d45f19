// MaxPool with explicit padding (tf.compat.v1.nn.max_pool's list of (before, after) pairs:
// padding "EXPLICIT" and explicit_paddings), and the MaxPoolGrad its gradient builds, checked
// against TensorFlow 2.21's tf.compat.v1 graph mode: values (a padded cell never wins a
// window: it acts as -inf), attrs, node names and messages.
//
// Inputs are integer patterns (conv_test_values.hpp), so every value is exact:
//   X(i) = ((7 i + 3) mod 11) - 5   (inputs)
//   G(i) = ((3 i + 2) mod 5) - 2    (the gradient fed back, grad_ys)

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include <symflow/symflow.hpp>
#include <symflow/train/gradients.hpp>

#include "../test_util.hpp"
#include "conv_test_values.hpp"

namespace symflow_test_ops_max_pool_explicit_padding_test {

namespace ops_max_pool_explicit_padding_test {

using namespace symflow;
using namespace symflow::test;
using namespace symflow::test::conv_values;

template <class T = float>
Value gpat(const Dims& dims) {
  return pattern<T>(dims, 3, 2, 5, 2);
}

// TF: tf.gradients(max_pool(X[1,4,5,2], [2,3], [2,2], [[0,0],[1,1],[2,1],[0,0]]), x,
// grad_ys=G[1,3,3,2]).
const std::vector<float> kInputGrad{0, -3, 0, 0,  3, 0, 0, 0, 0, 0, -2, 0, -1, 0,
                                    0, -2, 0, 0,  0, 0, 0, 1, 0, 2, 0,  0, 0,  0,
                                    0, 0,  1, -1, 0, 0, 0, 0, 0, 1, 0,  0};

}  // namespace ops_max_pool_explicit_padding_test

using namespace ops_max_pool_explicit_padding_test;

TEST_CASE(
    "nn/max_pool explicit padding: values, attrs and the gradient as TensorFlow builds them") {
  // TF: y = tf.nn.max_pool(X[1,4,5,2], [2,3], [2,2], [[0,0],[1,1],[2,1],[0,0]]): MaxPool:0,
  // shape (1, 3, 3, 2), padding "EXPLICIT", explicit_paddings [0, 0, 1, 1, 2, 1, 0, 0]. The
  // first window holds one input, -2: the padding around it does not count as 0.
  Graph g;
  auto guard = g.as_default();
  auto x = constant(xpat({1, 4, 5, 2}));
  auto y = nn::max_pool(x, {2, 3}, {2, 2}, {{0, 0}, {1, 1}, {2, 1}, {0, 0}});
  CHECK(y.name() == "MaxPool:0");
  CHECK(y.op().type() == "MaxPool");
  CHECK(y.get_shape() == Shape{1, 3, 3, 2});
  CHECK(y.op().get_attr<std::string>("padding") == "EXPLICIT");
  CHECK(ints(y, "explicit_paddings") == std::vector<std::int64_t>{0, 0, 1, 1, 2, 1, 0, 0});
  CHECK(ints(y, "ksize") == std::vector<std::int64_t>{1, 2, 3, 1});
  CHECK(ints(y, "strides") == std::vector<std::int64_t>{1, 2, 2, 1});
  CHECK(run_vector<float>(y) ==
        std::vector<float>{-2, 5, 4, 5, 4, 3, 2, 2, 5, 5, 4, 4, -1, -5, 5, 1, 5, 4});

  // TF: gradients/MaxPool_grad/MaxPoolGrad, with the forward op's padding.
  auto grads = gradients({y}, {x}, {constant(gpat({1, 3, 3, 2}))});
  REQUIRE(grads.size() == 1);
  CHECK(grads[0].name() == "gradients/MaxPool_grad/MaxPoolGrad:0");
  CHECK(grads[0].op().get_attr<std::string>("padding") == "EXPLICIT");
  CHECK(ints(grads[0], "explicit_paddings") == std::vector<std::int64_t>{0, 0, 1, 1, 2, 1, 0, 0});
  CHECK(grads[0].get_shape() == Shape{1, 4, 5, 2});
  CHECK(run_vector<float>(grads[0]) == kInputGrad);

  // A node without explicit padding leaves the attr out (TensorFlow 1.x's GraphDefs).
  CHECK_FALSE(nn::max_pool(x, {2}, {2}, "SAME").op().attrs().count("explicit_paddings"));
}

TEST_CASE("nn/max_pool explicit padding: float64, a batch of two, overlapping windows") {
  // TF: tf.nn.max_pool(X[2,3,4,3] float64, [1,3,2,1], [1,1,1,1], [[0,0],[2,0],[1,1],[0,0]]) ->
  // (2, 3, 5, 3), and its gradient for grad_ys G.
  Graph g;
  auto guard = g.as_default();
  auto x = constant(xpat<double>({2, 3, 4, 3}));
  auto y = nn::max_pool(x, {1, 3, 2, 1}, {1, 1, 1, 1}, {{0, 0}, {2, 0}, {1, 1}, {0, 0}});
  CHECK(y.get_shape() == Shape{2, 3, 5, 3});
  auto grads = gradients({y}, {x}, {constant(gpat<double>({2, 3, 5, 3}))});
  REQUIRE(grads.size() == 1);
  Session sess(g);
  const auto v = sess.run({y, grads[0]});
  CHECK(v[0].to_vector<double>() ==
        std::vector<double>{-2, 5, 1,  -2, 5, 1,  -3, 4, 0, -4, 3, -1, -5, 2, -2, 5,  5, 1,
                            5,  5, 1,  4,  4, 0,  3,  3, 5, 2,  2, 5,  5,  5, 4,  5,  5, 4,
                            4,  4, 3,  3,  5, 5,  2,  5, 5, -3, 4, 0,  -3, 4, 0,  -4, 3, -1,
                            5,  2, -2, 5,  1, -3, 4,  4, 0, 4,  4, 0,  3,  3, 5,  5,  2, 5,
                            5,  1, 4,  4,  4, 3,  4,  4, 3, 3,  5, 5,  5,  5, 5,  5,  4, 4});
  CHECK(v[1].to_vector<double>() ==
        std::vector<double>{-1, 0, 2,  -2, 3, -2, 2, 0, -2, 1, -2, 2,  -2, 0, 0, -4, 0,  0,
                            4,  0, 0,  2,  0, 0,  0, 0, 1,  0, 0,  -1, 0,  0, 0, 0,  -1, 0,
                            -1, 0, 2,  -2, 2, -1, 0, 0, -2, 9, -2, 2,  -2, 0, 0, -4, 0,  0,
                            0,  0, -6, 0,  0, 4,  0, 0, 1,  0, 0,  0,  0,  1, 0, 0,  -1, 0});
}

TEST_CASE("nn/max_pool explicit padding: max_pool_grad takes it; ties go to the first maximum") {
  // TF: gen_nn_ops.max_pool_grad(X, ones[1,3,3,2], G[1,3,3,2], [1,2,3,1], [1,2,2,1],
  // "EXPLICIT", explicit_paddings=[0,0,1,1,2,1,0,0]) gives the gradient above (orig_output is
  // not read); with grad all ones on an all-ones input, each window's gradient goes to its
  // first input.
  Graph g;
  auto guard = g.as_default();
  const std::vector<std::int64_t> pads{0, 0, 1, 1, 2, 1, 0, 0};
  auto ones_out = constant(Value::from_vector(std::vector<float>(18, 1.f), {1, 3, 3, 2}));
  auto dx = nn::max_pool_grad(constant(xpat({1, 4, 5, 2})), ones_out, constant(gpat({1, 3, 3, 2})),
                              {1, 2, 3, 1}, {1, 2, 2, 1}, "EXPLICIT", {}, "NHWC", pads);
  CHECK(dx.name() == "MaxPoolGrad:0");
  CHECK(ints(dx, "explicit_paddings") == pads);
  CHECK(run_vector<float>(dx) == kInputGrad);
  auto ties = nn::max_pool_grad(
      constant(Value::from_vector(std::vector<float>(40, 1.f), {1, 4, 5, 2})), ones_out, ones_out,
      {1, 2, 3, 1}, {1, 2, 2, 1}, "EXPLICIT", {}, "NHWC", pads);
  CHECK(run_vector<float>(ties) == std::vector<float>{2, 2, 0, 0, 1, 1, 0, 0, 0, 0, 2, 2, 0, 0,
                                                      1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                                      0, 0, 2, 2, 0, 0, 1, 1, 0, 0, 0, 0});
  // TF: "Expected orig_output shape to be [1,3,3,2], but got [1,3,4,2]".
  auto bad =
      nn::max_pool_grad(constant(xpat({1, 4, 5, 2})),
                        constant(Value::from_vector(std::vector<float>(24, 1.f), {1, 3, 4, 2})),
                        ones_out, {1, 2, 3, 1}, {1, 2, 2, 1}, "EXPLICIT", {}, "NHWC", pads);
  CHECK(contains(error_of<InvalidArgumentError>([&] { run_vector<float>(bad); }),
                 "Expected orig_output shape to be [1,3,3,2], but got [1,3,4,2]"));
}

TEST_CASE("nn/max_pool explicit padding: NCHW is the NHWC op, transposed") {
  // TF's CPU refuses MaxPool in NCHW ("Default MaxPoolingOp only supports NHWC on device
  // type CPU"); symflow runs it through NHWC copies, pairs in NCHW order.
  Graph g;
  auto guard = g.as_default();
  auto x_nhwc = constant(random_value<double>({2, 6, 7, 3}, 61));
  auto x_nchw = transpose(x_nhwc, {0, 3, 1, 2});
  auto want = transpose(nn::max_pool(x_nhwc, {3, 2}, {2, 1}, {{0, 0}, {2, 1}, {0, 1}, {0, 0}}),
                        {0, 3, 1, 2});
  auto got = nn::max_pool(x_nchw, {3, 2}, {2, 1}, {{0, 0}, {0, 0}, {2, 1}, {0, 1}},
                          {.data_format = "NCHW"});
  CHECK(ints(got, "ksize") == std::vector<std::int64_t>{1, 1, 3, 2});
  CHECK(got.get_shape() == Shape{2, 3, 4, 7});
  CHECK(got.get_shape() == want.get_shape());
  auto grads_want = gradients({want}, {x_nhwc});
  auto grads_got = gradients({got}, {x_nhwc});
  CHECK(g.get_operation_by_name("gradients_1/MaxPool_1_grad/MaxPoolGrad")
            .get_attr<std::string>("data_format") == "NCHW");
  Session sess(g);
  const auto v = sess.run({want, got, grads_want[0], grads_got[0]});
  CHECK(v[1].to_vector<double>() == v[0].to_vector<double>());
  CHECK(v[3].to_vector<double>() == v[2].to_vector<double>());
}

TEST_CASE("nn/max_pool explicit padding: bad paddings are TensorFlow's errors") {
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<float>(Shape{1, 4, 5, 2});
  // Python's checks of the list, before any node.
  CHECK(error_of<ValueError>([&] {
          nn::max_pool(x, {2}, {1}, {{0, 0}, {1, 1}, {1, 0}});
        }) ==
        "When padding is a list, it must be of size 4. Received: padding=[[0, 0], [1, 1], "
        "[1, 0]] of size 3");
  CHECK(error_of<ValueError>([&] {
          nn::max_pool(x, {2}, {1},
                       std::vector<std::vector<std::int64_t>>{{0, 0}, {1, 1}, {1, 0}, {0}});
        }) ==
        "When `padding` is a list, each element of `padding` must be a list/tuple of size 2. "
        "Received: padding=[[0, 0], [1, 1], [1, 0], [0]] with element at index 3 of size 1");
  // The shape function's, with the node.
  std::string m = error_of<ValueError>([&] {
    nn::max_pool(x, {2, 3}, {2}, {{0, 0}, {1, 1}, {1, 0}, {0, 1}});
  });
  CHECK(contains(m, "Nonzero explicit padding in the batch or depth dimensions is not supported"));
  CHECK(contains(m, "with input shapes: [1,4,5,2]."));
  m = error_of<ValueError>([&] {
    nn::max_pool(x, {2, 3}, {2}, {{0, 0}, {-1, 1}, {1, 0}, {0, 0}});
  });
  CHECK(contains(m, "All elements of explicit_paddings must be nonnegative"));
  m = error_of<ValueError>([&] {
    nn::max_pool(placeholder<float>(Shape{1, 1, 1, 2}), {5, 2}, {1},
                 {{0, 0}, {1, 1}, {1, 1}, {0, 0}});
  });
  CHECK(contains(m, "Negative dimension size caused by subtracting 5 from 3"));
  m = error_of<ValueError>([&] {
    nn::max_pool(x, {2}, {1}, "EXPLICIT", {.explicit_paddings = {0, 0, 1, 1, 1, 1}});
  });
  CHECK(contains(m, "explicit_paddings attribute must contain 8 values, but got: 6"));
  m = error_of<ValueError>([&] {
    nn::max_pool(x, {2}, {1}, "SAME", {.explicit_paddings = {0, 0, 1, 1, 1, 1, 0, 0}});
  });
  CHECK(contains(
      m, "explicit_paddings attribute must be empty if the padding attribute is not EXPLICIT"));
  // NCHW: the pairs are in NCHW order, so a pair in slot 1 pads the depth.
  m = error_of<ValueError>([&] {
    nn::max_pool(x, {2}, {1}, {{0, 0}, {1, 1}, {1, 1}, {0, 0}}, {.data_format = "NCHW"});
  });
  CHECK(contains(m, "Nonzero explicit padding in the batch or depth dimensions is not supported"));
  // An unknown padding string names EXPLICIT among MaxPool's choices, not AvgPool's.
  CHECK(error_of<ValueError>([&] { nn::max_pool(x, {2}, {1}, "FOO"); }) ==
        "Attr 'padding' of 'MaxPool' Op passed string 'FOO' not in: \"SAME\", \"VALID\", "
        "\"EXPLICIT\".");
  CHECK(error_of<ValueError>([&] { nn::avg_pool(x, {2}, {1}, "EXPLICIT"); }) ==
        "Attr 'padding' of 'AvgPool' Op passed string 'EXPLICIT' not in: \"SAME\", \"VALID\".");
  // The kernel's: each pad must be smaller than the window, checked top, bottom, left, right.
  auto xc = constant(xpat({1, 4, 5, 2}));
  const std::vector<std::pair<std::vector<std::vector<std::int64_t>>, std::string>> cases{
      {{{0, 0}, {2, 1}, {1, 1}, {0, 0}},
       "Top padding 2 needs to be smaller than the window size 2"},
      {{{0, 0}, {1, 2}, {1, 1}, {0, 0}},
       "Bottom padding 2 needs to be smaller than the window size 2"},
      {{{0, 0}, {1, 1}, {3, 1}, {0, 0}},
       "Left padding 3 needs to be smaller than the window size 3"},
      {{{0, 0}, {1, 1}, {1, 3}, {0, 0}},
       "Right padding 3 needs to be smaller than the window size 3"},
  };
  for (const auto& c : cases) {
    const std::string& want = c.second;
    CAPTURE(want);
    auto y = nn::max_pool(xc, {2, 3}, {2, 2}, c.first);
    CHECK(contains(error_of<InvalidArgumentError>([&] { run_vector<float>(y); }), want));
  }
}

}  // namespace symflow_test_ops_max_pool_explicit_padding_test
