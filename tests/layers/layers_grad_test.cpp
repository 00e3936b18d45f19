// Gradients through tf.layers' graphs (layers::dense, conv2d, max_pooling2d,
// average_pooling2d, flatten, dropout): symflow::gradients of a weighted sum of a small
// network's output with respect to its input and to every variable's value, against
// central differences in float64.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <symflow/layers/convolutional.hpp>
#include <symflow/layers/core.hpp>
#include <symflow/layers/pooling.hpp>
#include <symflow/symflow.hpp>
#include <symflow/train/gradients.hpp>

#include "../gradient_check.hpp"
#include "../test_util.hpp"

namespace symflow_test_layers_layers_grad_test {

namespace layers_grad_test {

using namespace symflow;
using namespace symflow::test;

// Checks d loss / d t for each tensor t of `wrt` (a placeholder, or a variable's read
// tensor, fed so that no variable needs initializing) against central differences,
// where loss = sum(y * w) for fixed weights w.
void check_through(const Output& y, const std::vector<Output>& wrt,
                   const std::vector<Value>& values, double tolerance = 1e-6, double step = 1e-6) {
  Graph g = y.graph();
  for (const Operation& op : g.get_operations()) gradient_checked_ops().insert(op.type());
  FeedDict feeds;
  for (std::size_t i = 0; i < wrt.size(); ++i) feeds.push_back({wrt[i], values[i]});
  Session sess(g);
  Value y_value = sess.run(y, feeds);
  Output weights = constant(sequence_value(y_value.dims(), 777), "weights");
  Output loss = reduce_sum(multiply(y, weights));
  std::vector<std::size_t> all(wrt.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  check_against_differences(sess, loss, feeds, all, tolerance, step);
}

Output read_of(const Graph& g, const std::string& variable) {
  return g.get_tensor_by_name(variable + "/read:0");
}

}  // namespace layers_grad_test

using namespace layers_grad_test;

TEST_CASE("layers grad: conv2d, pooling, flatten and dense") {
  // conv2d (same, tanh) -> max_pooling2d -> conv2d (valid, strides 1) ->
  // average_pooling2d -> flatten -> dense (sigmoid) -> dense.
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<double>(Shape{-1, 6, 6, 2}, "x");
  Output h = layers::conv2d(x, 3, {3}, {.padding = "same", .activation = nn::tanh});
  h = layers::max_pooling2d(h, {2}, {2});
  h = layers::conv2d(h, 4, {2});
  h = layers::average_pooling2d(h, {2}, {1});
  h = layers::flatten(h);
  h = layers::dense(h, 5, {.activation = nn::sigmoid});
  Output y = layers::dense(h, 2);
  CHECK(y.get_shape().to_string() == "(?, 2)");
  check_through(
      y,
      {x, read_of(g, "conv2d/kernel"), read_of(g, "conv2d/bias"), read_of(g, "conv2d_1/kernel"),
       read_of(g, "conv2d_1/bias"), read_of(g, "dense/kernel"), read_of(g, "dense/bias"),
       read_of(g, "dense_1/kernel"), read_of(g, "dense_1/bias")},
      {sequence_value({2, 6, 6, 2}, 1), sequence_value({3, 3, 2, 3}, 2), sequence_value({3}, 3),
       sequence_value({2, 2, 3, 4}, 4), sequence_value({4}, 5), sequence_value({4, 5}, 6),
       sequence_value({5}, 7), sequence_value({5, 2}, 8), sequence_value({2}, 9)});
}

TEST_CASE("layers grad: dense on rank 3 (Tensordot), flatten of an unknown shape, dropout") {
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<double>(Shape{-1, 3, 4}, "x");
  Output h = layers::dense(x, 3, {.activation = nn::relu});  // through Tensordot's Transpose
  h = layers::dropout(h, 0.5, false);                        // an Identity
  auto shaped = placeholder<double>(Shape{-1, -1, 3}, "shaped");
  Output y = layers::flatten(h + shaped);  // [Shape(h)[0], -1]
  check_through(y, {x, shaped, read_of(g, "dense/kernel"), read_of(g, "dense/bias")},
                {sequence_value({2, 3, 4}, 11), sequence_value({2, 3, 3}, 12),
                 sequence_value({4, 3}, 13), sequence_value({3}, 14)});

  // In training, each run draws a new mask, so the check is against the mask of the same
  // run: d sum(dropped * w) / dz = w / (1 - rate) where kept, else 0.
  auto z = placeholder<double>(Shape{4, 5}, "z");
  Output dropped = layers::dropout(z, 0.4, true, {.seed = 7});
  Value w = sequence_value({4, 5}, 16);
  Output grad = gradients(reduce_sum(multiply(dropped, constant(w))), {z})[0];
  Session sess(g);
  Value zv = sequence_value({4, 5}, 15);
  std::vector<Value> both = sess.run(std::vector<Fetch>{dropped, grad}, {{z, zv}});
  std::size_t kept = 0;
  for (std::int64_t e = 0; e < zv.size(); ++e) {
    const bool on = both[0].data<double>()[e] != 0;
    kept += on ? 1 : 0;
    CHECK(both[1].data<double>()[e] == doctest::Approx(on ? w.data<double>()[e] / 0.6 : 0.0));
  }
  CHECK(kept > 0);
  CHECK(kept < 20);
}

}  // namespace symflow_test_layers_layers_grad_test
