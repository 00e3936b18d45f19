// TF1 course, lesson 3: a multilayer perceptron built with tf.layers.dense, trained with
// Adam on the sparse softmax cross-entropy, and measured with tf.metrics.accuracy.
//
// Three classes of points in [-1, 1)^2: inside the circle r^2 < 0.3 (class 0), else right
// of the y axis (class 1) or left of it (class 2); no straight line separates them, so
// the model needs its hidden layers. The kernels start from glorot_uniform_initializer
// with fixed op seeds, which give TensorFlow's numbers.
//
// tf.metrics.accuracy returns (value, update_op): update_op adds a batch to running
// totals kept in local variables, value reads them. local_variables_initializer resets.
//
// Checked against TensorFlow: the same program in Python (tf.compat.v1, graph mode,
// tf.layers, the same data and seeds) prints the same numbers to 4 decimals.
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <vector>

#include <symflow/symflow.hpp>

namespace tf = symflow;

namespace {

// A 32-bit linear congruential generator: uniform numbers in [0, 1) with 24 bits.
struct Lcg {
  std::uint32_t state;
  double uniform() {
    state = state * 1664525u + 1013904223u;
    return static_cast<double>(state >> 8) / 16777216.0;
  }
};

// n labelled points: features [n, 2] and class ids [n].
std::pair<tf::Value, tf::Value> make_points(Lcg& rng, int n) {
  std::vector<float> xs;
  std::vector<std::int32_t> ys;
  for (int i = 0; i < n; ++i) {
    double x1 = rng.uniform() * 2.0 - 1.0, x2 = rng.uniform() * 2.0 - 1.0;
    xs.push_back(static_cast<float>(x1));
    xs.push_back(static_cast<float>(x2));
    ys.push_back(x1 * x1 + x2 * x2 < 0.3 ? 0 : (x1 > 0 ? 1 : 2));
  }
  return {tf::Value::from_vector(xs, {n, 2}), tf::Value::from_vector(ys, {n})};
}

}  // namespace

int main() {
  Lcg rng{2024};
  auto [train_x, train_y] = make_points(rng, 300);
  std::vector<std::pair<tf::Value, tf::Value>> test_batches{make_points(rng, 50),
                                                            make_points(rng, 50)};

  auto X = tf::placeholder<float>({-1, 2}, "X");
  auto Y = tf::placeholder<std::int32_t>({-1}, "Y");

  // hidden = tf.layers.dense(X, 16, activation=tf.nn.relu, kernel_initializer=...)
  auto h1 = tf::layers::dense(
      X, 16, {.activation = tf::nn::relu, .kernel_initializer = tf::glorot_uniform_initializer(1)});
  auto h2 = tf::layers::dense(
      h1, 16,
      {.activation = tf::nn::relu, .kernel_initializer = tf::glorot_uniform_initializer(2)});
  auto logits = tf::layers::dense(
      h2, 3, {.kernel_initializer = tf::glorot_uniform_initializer(3), .name = "logits"});

  auto loss = tf::losses::sparse_softmax_cross_entropy(Y, logits);
  auto train_op = tf::train::AdamOptimizer(0.01).minimize(loss);

  // acc, acc_op = tf.metrics.accuracy(labels=Y, predictions=tf.argmax(logits, 1))
  auto predictions = tf::argmax(logits, 1);
  auto [acc, acc_op] = tf::metrics::accuracy(Y, predictions);

  tf::Session sess;
  sess.run(tf::global_variables_initializer());
  for (int step = 1; step <= 300; ++step) {
    auto out = sess.run({loss, train_op}, {{X, train_x}, {Y, train_y}});
    if (step % 50 == 0) std::printf("step %3d  loss %.4f\n", step, out[0].scalar<float>());
  }

  // Streaming accuracy over the training set, then (after a reset) over the test set,
  // fed in two batches of 50: the running totals live in local variables.
  sess.run(tf::local_variables_initializer());
  sess.run(acc_op, {{X, train_x}, {Y, train_y}});
  std::printf("train accuracy %.4f\n", sess.run(acc).scalar<float>());

  sess.run(tf::local_variables_initializer());
  int seen = 0;
  for (const auto& [bx, by] : test_batches) {
    sess.run(acc_op, {{X, bx}, {Y, by}});
    seen += 50;
    std::printf("test accuracy after %d points %.4f\n", seen, sess.run(acc).scalar<float>());
  }

  // Trainable variables the layers made, in creation order.
  for (const auto& v : tf::trainable_variables())
    std::cout << v.name() << " " << v.get_shape() << "\n";
}
