// TF1 course, lesson 1: linear regression with placeholders, Variables and
// GradientDescentOptimizer.
//
// The classic first TensorFlow 1.x program: fit y = W*x + b to noisy samples of
// y = 3x + 2 by full-batch gradient descent on the mean squared error. The data come
// from a small fixed-seed generator written below, so every run sees the same numbers.
//
// Checked against TensorFlow: the same program in Python (tf.compat.v1, graph mode,
// the same data) prints the same losses, W and b to the 4 decimals shown here.
#include <cstdint>
#include <cstdio>
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

}  // namespace

int main() {
  // 100 samples of x in [-1, 1) and y = 3x + 2 + noise in [-0.1, 0.1).
  const int n = 100;
  Lcg rng{42};
  std::vector<float> xs, ys;
  for (int i = 0; i < n; ++i) {
    double x = rng.uniform() * 2.0 - 1.0;
    double noise = (rng.uniform() - 0.5) * 0.2;
    xs.push_back(static_cast<float>(x));
    ys.push_back(static_cast<float>(3.0 * x + 2.0 + noise));
  }

  // X = tf.placeholder(tf.float32, [None]); Y = tf.placeholder(tf.float32, [None])
  auto X = tf::placeholder<float>({-1}, "X");
  auto Y = tf::placeholder<float>({-1}, "Y");

  // W = tf.Variable(0.0, name='weight'); b = tf.Variable(0.0, name='bias')
  tf::Variable W(tf::Value(0.0f), {.name = "weight"});
  tf::Variable b(tf::Value(0.0f), {.name = "bias"});

  // pred = W * X + b; loss = tf.reduce_mean(tf.square(pred - Y))
  auto pred = W * X + b;
  auto loss = tf::reduce_mean(tf::square(pred - Y));
  auto train_op = tf::train::GradientDescentOptimizer(0.1).minimize(loss);

  tf::Session sess;
  sess.run(tf::global_variables_initializer());
  tf::FeedDict feed{{X, tf::Value::from_vector(xs, {n})}, {Y, tf::Value::from_vector(ys, {n})}};
  for (int step = 1; step <= 200; ++step) {
    sess.run(train_op, feed);
    if (step % 25 == 0)
      std::printf("step %3d  loss %.4f\n", step, sess.run(loss, feed).scalar<float>());
  }
  std::printf("W = %.4f, b = %.4f\n", sess.run(W).scalar<float>(), sess.run(b).scalar<float>());

  // Prediction for a new input: feed only X.
  std::printf("prediction at x = 0.5: %.4f\n", sess.run(pred, {{X, {0.5f}}}).to_vector<float>()[0]);
}
