// symflow::layers::max_pooling2d and average_pooling2d, checked against
// tf.compat.v1.layers.max_pooling2d and average_pooling2d (TensorFlow 2.21, TF1 graph mode).

#include <doctest/doctest.h>

#include <string>
#include <utility>
#include <vector>

#include <symflow/layers/pooling.hpp>
#include <symflow/symflow.hpp>

#include "../test_util.hpp"

namespace symflow_test_layers_pooling_test {

namespace layers_pool_test {

using namespace symflow;
using namespace symflow::test;

// np.arange(32).reshape(1, 4, 4, 2) / 10 - 1
Value input_value() {
  std::vector<float> v(32);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i) / 10.0f - 1.0f;
  return Value::from_vector(v, {1, 4, 4, 2});
}

template <class E, class F>
std::string message_of(F&& f) {
  auto e = thrown<E>(std::forward<F>(f));
  REQUIRE(e.has_value());
  return e->what();
}

}  // namespace layers_pool_test

using namespace layers_pool_test;

TEST_CASE("layers/pooling2d: node names, attrs and values against TensorFlow") {
  // TF on x [?, 4, 4, 2] = input_value():
  //   max_pooling2d(x, 2, 2)                      max_pooling2d/MaxPool, (?, 2, 2, 2)
  //   average_pooling2d(x, [2, 3], [1, 2], same)  average_pooling2d/AvgPool, (?, 4, 2, 2)
  //   max_pooling2d(x, 3, 1, SAME, name="pool")   pool/MaxPool, (?, 4, 4, 2)
  //   average_pooling2d(x, 2, 2)                  average_pooling2d_1/AvgPool, (?, 2, 2, 2)
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<float>(Shape{-1, 4, 4, 2}, "x");
  std::size_t from = g.num_nodes();
  Output p = layers::max_pooling2d(x, {2}, {2});
  Output p1 = layers::average_pooling2d(x, {2, 3}, {1, 2}, {.padding = "same"});
  Output p2 = layers::max_pooling2d(x, {3}, {1}, {.padding = "SAME", .name = "pool"});
  Output p3 = layers::average_pooling2d(x, {2}, {2});
  CHECK(p.name() == "max_pooling2d/MaxPool:0");
  CHECK(p1.name() == "average_pooling2d/AvgPool:0");
  CHECK(p2.name() == "pool/MaxPool:0");
  CHECK(p3.name() == "average_pooling2d_1/AvgPool:0");
  CHECK(g.num_nodes() == from + 4);  // one node each, no variables
  CHECK(p.get_shape().to_string() == "(?, 2, 2, 2)");
  CHECK(p1.get_shape().to_string() == "(?, 4, 2, 2)");
  CHECK(p2.get_shape().to_string() == "(?, 4, 4, 2)");
  CHECK(p1.op().get_attr<IntList>("ksize").items == std::vector<std::int64_t>{1, 2, 3, 1});
  CHECK(p1.op().get_attr<IntList>("strides").items == std::vector<std::int64_t>{1, 1, 2, 1});
  CHECK(p1.op().get_attr<std::string>("padding") == "SAME");
  CHECK(p.op().get_attr<std::string>("padding") == "VALID");
  CHECK(input_names(p) == std::vector<std::string>{"x:0"});

  Session sess(g);
  FeedDict feeds{{x, input_value()}};
  check_close(sess.run(p, feeds).to_vector<float>(),
              {0.f, 0.10000002f, 0.39999998f, 0.5f, 1.5999999f, 1.7f, 2.f, 2.1f}, 1e-5);
  check_close(sess.run(p1, feeds).to_vector<float>(),
              {-0.4f, -0.29999998f, -0.099999994f, -1.4901161e-08f, 0.4f, 0.5f, 0.70000005f,
               0.79999995f, 1.1999999f, 1.3f, 1.5f, 1.6f, 1.6f, 1.7000002f, 1.9f, 2.f},
              1e-5, false);
  check_close(
      sess.run(p2, feeds).to_vector<float>(),
      {0.f,         0.10000002f, 0.20000005f, 0.29999995f, 0.39999998f, 0.5f, 0.39999998f, 0.5f,
       0.79999995f, 0.9f,        1.f,         1.0999999f,  1.2f,        1.3f, 1.2f,        1.3f,
       1.5999999f,  1.7f,        1.8f,        1.9000001f,  2.f,         2.1f, 2.f,         2.1f,
       1.5999999f,  1.7f,        1.8f,        1.9000001f,  2.f,         2.1f, 2.f,         2.1f},
      1e-5);
  check_close(sess.run(p3, feeds).to_vector<float>(),
              {-0.5f, -0.39999998f, -0.099999994f, -1.4901161e-08f, 1.1f, 1.2f, 1.5f, 1.6f}, 1e-5,
              false);
}

TEST_CASE("layers/pooling2d: bad arguments and inputs give TensorFlow's errors") {
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<float>(Shape{-1, 4, 4, 2}, "x");
  layers::max_pooling2d(x, {2}, {2});
  layers::max_pooling2d(x, {2}, {2}, {.name = "pool"});
  // TF: a rank-3 input, with Keras's name for the second unnamed max_pooling2d.
  CHECK(message_of<ValueError>([] {
          layers::max_pooling2d(placeholder<float>(Shape{4, 4, 2}), {3}, {2});
        }) ==
        "Input 0 of layer \"max_pooling2d_2\" is incompatible with the layer: expected "
        "ndim=4, found ndim=3. Full shape received: (Dimension(4), Dimension(4), "
        "Dimension(2))");
  CHECK(message_of<ValueError>([&] { layers::max_pooling2d(x, {2}, {2}, {.padding = "full"}); }) ==
        "The `padding` argument must be a list/tuple or one of \"valid\", \"same\" (or \"causal\", "
        "only for `Conv1D). Received: full");
  CHECK(message_of<ValueError>([&] {
          layers::max_pooling2d(x, {2, 2, 2}, {2});
        }) == "The `pool_size` argument must be a tuple of 2 integers. Received: [2, 2, 2]");
  CHECK(message_of<ValueError>([&] {
          layers::max_pooling2d(x, {2}, {1, 1, 1});
        }) == "The `strides` argument must be a tuple of 2 integers. Received: [1, 1, 1]");
  CHECK(message_of<ValueError>([&] { layers::average_pooling2d(x, {0}, {1}); }) ==
        "The `pool_size` argument must be a tuple of 2 integers. Received: 0 including {0} that "
        "does not satisfy the requirement `> 0`.");
  // A window larger than the input: the AvgPool shape function's ValueError.
  CHECK(thrown<ValueError>([&] { layers::average_pooling2d(x, {6}, {1}); }));
  // channels_first pools the last two dims (TF: (None, 4, 2, 1)).
  CHECK(layers::max_pooling2d(x, {2}, {2}, {.data_format = "channels_first"})
            .get_shape()
            .to_string() == "(?, 4, 2, 1)");
}

}  // namespace symflow_test_layers_pooling_test
