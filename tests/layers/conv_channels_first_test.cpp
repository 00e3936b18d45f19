// symflow::layers::conv2d, max_pooling2d and average_pooling2d with data_format
// "channels_first", checked against tf.compat.v1.layers (TensorFlow 2.21 in TF1 graph mode,
// TF_USE_LEGACY_KERAS=1): the NCHW ops and attrs TensorFlow builds, the values, and the
// messages.
//
// Inputs are integer patterns (tests/ops/conv_test_values.hpp), so every sum is exact:
//   X(i) = ((7 i + 3) mod 11) - 5   (inputs)
//   W(i) = ((5 i + 1) mod 7) - 3    (kernels)

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <symflow/layers/convolutional.hpp>
#include <symflow/layers/pooling.hpp>
#include <symflow/symflow.hpp>

#include "../ops/conv_test_values.hpp"
#include "../test_util.hpp"

namespace symflow_test_layers_conv_channels_first_test {

namespace layers_conv_channels_first_test {

using namespace symflow;
using namespace symflow::test;
using namespace symflow::test::conv_values;

inline std::vector<std::int64_t> ints(const Operation& op, std::string_view attr) {
  return op.get_attr<IntList>(attr).items;
}

template <class E, class F>
std::string message_of(F&& f) {
  auto e = thrown<E>(std::forward<F>(f));
  REQUIRE(e.has_value());
  return e->what();
}

}  // namespace layers_conv_channels_first_test

using namespace layers_conv_channels_first_test;

TEST_CASE("layers/channels_first: conv2d and the pooling layers build NCHW ops") {
  // TF: x = X[2,3,5,6];
  //   y = conv2d(x, 4, [3, 2], strides=[1, 2], padding="same", data_format="channels_first",
  //              kernel W[3,2,3,4], bias [0.5, -1.5, 1, 2])       -> (2, 4, 5, 3)
  //   p = max_pooling2d(y, [2, 2], [1, 2], padding="same", data_format="channels_first")
  //   a = average_pooling2d(y, 2, 1, data_format="channels_first")
  // conv2d/Conv2D: NCHW, strides [1, 1, 1, 2], SAME; conv2d/BiasAdd: NCHW;
  // max_pooling2d/MaxPool: NCHW, ksize [1, 1, 2, 2], strides [1, 1, 1, 2];
  // average_pooling2d/AvgPool: NCHW, ksize [1, 1, 2, 2], strides [1, 1, 1, 1].
  Graph g;
  auto guard = g.as_default();
  auto x = constant(xpat({2, 3, 5, 6}));
  Output y = layers::conv2d(x, 4, {3, 2},
                            {.strides = {1, 2},
                             .padding = "same",
                             .data_format = "channels_first",
                             .kernel_initializer = constant_initializer(wpat({3, 2, 3, 4})),
                             .bias_initializer = constant_initializer(Value::from_vector(
                                 std::vector<float>{0.5f, -1.5f, 1.f, 2.f}, {4}))});
  Output p = layers::max_pooling2d(y, {2, 2}, {1, 2},
                                   {.padding = "same", .data_format = "channels_first"});
  Output a = layers::average_pooling2d(y, {2}, {1}, {.data_format = "Channels_First"});
  CHECK(y.name() == "conv2d/BiasAdd:0");
  CHECK(p.name() == "max_pooling2d/MaxPool:0");
  CHECK(a.name() == "average_pooling2d/AvgPool:0");
  CHECK(y.get_shape() == Shape{2, 4, 5, 3});
  CHECK(p.get_shape() == Shape{2, 4, 5, 2});
  CHECK(a.get_shape() == Shape{2, 4, 4, 2});
  CHECK(global_variables()[0].shape() == Shape{3, 2, 3, 4});
  const Operation conv = g.get_operation_by_name("conv2d/Conv2D");
  CHECK(conv.get_attr<std::string>("data_format") == "NCHW");
  CHECK(ints(conv, "strides") == std::vector<std::int64_t>{1, 1, 1, 2});
  CHECK(conv.get_attr<std::string>("padding") == "SAME");
  CHECK(y.op().get_attr<std::string>("data_format") == "NCHW");
  CHECK(p.op().get_attr<std::string>("data_format") == "NCHW");
  CHECK(ints(p.op(), "ksize") == std::vector<std::int64_t>{1, 1, 2, 2});
  CHECK(ints(p.op(), "strides") == std::vector<std::int64_t>{1, 1, 1, 2});
  CHECK(a.op().get_attr<std::string>("data_format") == "NCHW");
  CHECK(ints(a.op(), "ksize") == std::vector<std::int64_t>{1, 1, 2, 2});
  CHECK(ints(a.op(), "strides") == std::vector<std::int64_t>{1, 1, 1, 1});

  Session sess(g);
  sess.run(global_variables_initializer());
  const auto v = sess.run({y, p, a});
  CHECK(v[0].to_vector<float>() ==
        std::vector<float>{
            25.5,  -32.5, -2.5,  72.5,  -37.5, -70.5, 39.5, 39.5,  -70.5, -37.5, 72.5, 17.5,
            -32.5, 25.5,  50.5,  31.5,  -3.5,  -16.5, -2.5, 37.5,  11.5,  -80.5, 36.5, 32.5,
            -4.5,  -52.5, 42.5,  25.5,  -47.5, 0.5,   -21,  23,    23,    -52,   19,   35,
            7,     -32,   28,    33,    -61,   -12,   18,   3,     -45,   -40,   6,    19,
            37,    -71,   8,     65,    -32,   -41,   27,   62,    -68,   -33,   52,   27,
            -32.5, -2.5,  60.5,  -37.5, -70.5, 39.5,  39.5, -70.5, -37.5, 72.5,  17.5, -37.5,
            25.5,  50.5,  -34.5, -3.5,  -16.5, -7.5,  37.5, 11.5,  -80.5, 36.5,  32.5, -4.5,
            -52.5, 42.5,  16.5,  -47.5, 0.5,   15.5,  23,   23,    -43,   19,    35,   7,
            -32,   28,    33,    -61,   -12,   26,    3,    -45,   28,    6,     19,   32,
            -71,   8,     65,    -32,   -41,   27,    62,   -68,   -22,   52,    27,   -31});
  CHECK(v[1].to_vector<float>() ==
        std::vector<float>{
            72.5, -2.5, 72.5, -70.5, 72.5, 17.5,  72.5, 50.5,  25.5, 50.5, 37.5, 11.5, 37.5, 32.5,
            36.5, 42.5, 25.5, 42.5,  25.5, 0.5,   23,   35,    19,   35,   33,   28,   33,   -12,
            18,   -45,  37,   19,    65,   8,     65,   -41,   62,   27,   52,   27,   -2.5, 60.5,
            39.5, 39.5, 72.5, -37.5, 72.5, -34.5, 50.5, -34.5, 37.5, -7.5, 37.5, -4.5, 42.5, 16.5,
            42.5, 16.5, 0.5,  15.5,  35,   7,     35,   33,    28,   33,   3,    28,   3,    28,
            19,   65,   8,    65,    62,   27,    62,   -22,   52,   -31});
  check_close(v[2].to_vector<float>(),
              std::vector<float>{7,      -35.75, 28.5,   -34.75, 28.5,   14.75,  7,      41.5,
                                 15.75,  7.25,   -2.25,  29.5,   -25.25, 14.75,  -19.75, -14.25,
                                 -7.75,  25,     -14.5,  12.5,   -13.25, -19.25, -1.75,  -28.75,
                                 -17,    -9.5,   -0.25,  -34,    30.5,   -19.75, 27,     18.25,
                                 -35.75, 6.75,   -34.75, -34.75, 14.75,  -32,    41.5,   -1,
                                 7.25,   -23.25, 29.5,   -10.25, 14.75,  21.75,  -14.25, 18.75,
                                 25,     5.5,    12.5,   25.75,  -19.25, 18.75,  -28.75, -0.75,
                                 -9.5,   31,     -34,    14.75,  -19.75, -26,    18.25,  -23.5},
              1e-6);
}

TEST_CASE("layers/channels_first: a dilated conv2d runs NCHW between SpaceToBatchND and back") {
  // TF: conv2d(X[2,3,5,6], 2, [2, 3], dilation_rate=[2, 1], padding="same",
  //     data_format="channels_first", kernel W[2,3,3,2], name="dil") -> (2, 2, 5, 6): the block
  //     and the pairs cover the channels too: dil/Conv2D/SpaceToBatchND/block_shape [1, 2, 1],
  //     paddings [[0, 0], [1, 2], [1, 1]]; dil/Conv2D (NCHW, VALID); crops [[0, 0], [0, 1],
  //     [0, 0]]; dil/BiasAdd (NCHW).
  Graph g;
  auto guard = g.as_default();
  auto x = constant(xpat({2, 3, 5, 6}));
  std::size_t from = g.num_nodes();
  Output y = layers::conv2d(x, 2, {2, 3},
                            {.padding = "same",
                             .data_format = "channels_first",
                             .dilation_rate = {2, 1},
                             .kernel_initializer = constant_initializer(wpat({2, 3, 3, 2})),
                             .name = "dil"});
  std::vector<std::string> built;
  const auto all = nodes(g);
  for (std::size_t i = from; i < all.size(); ++i)
    if (all[i].first.starts_with("dil/Conv2D")) built.push_back(all[i].first + ":" + all[i].second);
  CHECK(built == std::vector<std::string>{
                     "dil/Conv2D/dilation_rate:Const",
                     "dil/Conv2D/filter_shape:Const",
                     "dil/Conv2D/stack:Const",
                     "dil/Conv2D/required_space_to_batch_paddings/input_shape:Const",
                     "dil/Conv2D/required_space_to_batch_paddings/paddings:Const",
                     "dil/Conv2D/required_space_to_batch_paddings/crops:Const",
                     "dil/Conv2D/SpaceToBatchND/block_shape:Const",
                     "dil/Conv2D/SpaceToBatchND/paddings:Const",
                     "dil/Conv2D/SpaceToBatchND:SpaceToBatchND",
                     "dil/Conv2D:Conv2D",
                     "dil/Conv2D/BatchToSpaceND/block_shape:Const",
                     "dil/Conv2D/BatchToSpaceND/crops:Const",
                     "dil/Conv2D/BatchToSpaceND:BatchToSpaceND",
                 });
  CHECK(y.name() == "dil/BiasAdd:0");
  CHECK(y.op().get_attr<std::string>("data_format") == "NCHW");
  CHECK(y.get_shape() == Shape{2, 2, 5, 6});
  const Operation conv = g.get_operation_by_name("dil/Conv2D");
  CHECK(conv.get_attr<std::string>("data_format") == "NCHW");
  CHECK(conv.get_attr<std::string>("padding") == "VALID");
  Session sess(g);
  sess.run(global_variables_initializer());
  CHECK(sess.run(g.get_tensor_by_name("dil/Conv2D/SpaceToBatchND/block_shape:0"))
            .to_vector<std::int32_t>() == std::vector<std::int32_t>{1, 2, 1});
  CHECK(sess.run(g.get_tensor_by_name("dil/Conv2D/SpaceToBatchND/paddings:0"))
            .to_vector<std::int32_t>() == std::vector<std::int32_t>{0, 0, 1, 2, 1, 1});
  CHECK(sess.run(g.get_tensor_by_name("dil/Conv2D/BatchToSpaceND/crops:0"))
            .to_vector<std::int32_t>() == std::vector<std::int32_t>{0, 0, 0, 1, 0, 0});
  CHECK(sess.run(y).to_vector<float>() ==
        std::vector<float>{
            -7,  0,  12,  2,   3,   6,   1,  -34, -7, -2,  3,   21,  -10, 29, -21, -5,  44,  -17,
            -10, -7, -2,  3,   8,   -11, 6,  -23, -8, 18,  0,   -8,  1,   1,  12,  1,   1,   8,
            -38, 18, 21,  2,   5,   -2,  23, -19, 6,  20,  -32, -15, 7,   21, 2,   5,   -14, 16,
            -18, 5,  19,  -33, 3,   -8,  6,  2,   3,  26,  -6,  -30, -10, -2, 3,   8,   -9,  23,
            -10, -5, 44,  -6,  -34, 7,   1,  3,   8,  -9,  29,  -9,  -7,  18, 0,   -7,  -3,  -14,
            9,   1,  1,   1,   -32, 22,  8,  2,   5,  -14, 22,  -21, -8,  20, -32, -29, 18,  10,
            -2,  5,  -14, 22,  -19, 19,  20, -33, 3,  -5,  -2,  14});
}

TEST_CASE("layers/channels_first: the channel dimension is axis 1, and must be known") {
  Graph g;
  auto guard = g.as_default();
  // TF: ValueError "The channel dimension of the inputs should be defined. The input_shape
  // received is (2, None, 5, 6), where axis -3 (0-based) is the channel dimension, which
  // found to be `None`." (symflow's layers print the shape as (2, ?, 5, 6)).
  const std::string m = message_of<ValueError>([&] {
    layers::conv2d(placeholder<float>(Shape{2, -1, 5, 6}), 4, {3},
                   {.data_format = "channels_first"});
  });
  CHECK(contains(m, "The channel dimension of the inputs should be defined."));
  CHECK(contains(m,
                 ", where axis -3 (0-based) is the channel dimension, which found to be "
                 "`None`."));
  // The kernel's in_channels come from axis 1: [3, 3, 2, 4] for [?, 2, 7, 7].
  Output y = layers::conv2d(placeholder<float>(Shape{-1, 2, 7, 7}), 4, {3},
                            {.data_format = "channels_first", .name = "c"});
  CHECK(y.get_shape().to_string() == "(?, 4, 5, 5)");
  CHECK(global_variables()[0].shape() == Shape{3, 3, 2, 4});
  // The pooled dims are the last two: [1, 2, 8, 8] pools to (1, 2, 6, 6), and a window
  // larger than the spatial dims of [1, 8, 8, 2] is the shape function's ValueError.
  CHECK(layers::max_pooling2d(placeholder<float>(Shape{1, 2, 8, 8}), {3}, {1},
                              {.data_format = "channels_first"})
            .get_shape() == Shape{1, 2, 6, 6});
  CHECK(thrown<ValueError>([&] {
    layers::max_pooling2d(placeholder<float>(Shape{1, 8, 8, 2}), {3}, {1},
                          {.data_format = "channels_first"});
  }));
}

}  // namespace symflow_test_layers_conv_channels_first_test
