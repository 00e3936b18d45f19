// TF1 course, lesson 2: logistic regression, a linear classifier trained with the
// sigmoid cross-entropy loss.
//
// Points (x1, x2) in [-1, 1)^2 are labelled 1 above the line x1 + 2*x2 = 0.2, else 0.
// The model's logit is X.W + b; tf.losses.sigmoid_cross_entropy averages the logistic
// loss, and accuracy compares (logit > 0) with the label.
//
// Checked against TensorFlow: the same program in Python (tf.compat.v1, graph mode,
// the same data) prints the same losses, accuracies and weights to 4 decimals.
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
  const int n = 200;
  Lcg rng{7};
  std::vector<float> points, labels;
  for (int i = 0; i < n; ++i) {
    double x1 = rng.uniform() * 2.0 - 1.0;
    double x2 = rng.uniform() * 2.0 - 1.0;
    points.push_back(static_cast<float>(x1));
    points.push_back(static_cast<float>(x2));
    labels.push_back(x1 + 2.0 * x2 > 0.2 ? 1.0f : 0.0f);
  }

  auto X = tf::placeholder<float>({-1, 2}, "X");
  auto Y = tf::placeholder<float>({-1, 1}, "Y");

  // W = tf.Variable(tf.zeros([2, 1])); b = tf.Variable(tf.zeros([1]))
  tf::Variable W(tf::zeros({2, 1}, tf::float32), {.name = "W"});
  tf::Variable b(tf::zeros({1}, tf::float32), {.name = "b"});
  auto logits = tf::matmul(X, W) + b;

  // loss = tf.losses.sigmoid_cross_entropy(multi_class_labels=Y, logits=logits)
  auto loss = tf::losses::sigmoid_cross_entropy(Y, logits);
  auto train_op = tf::train::GradientDescentOptimizer(1.0).minimize(loss);

  // accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.cast(logits > 0, tf.float32), Y), tf.float32))
  auto predicted = tf::cast(tf::greater(logits, 0.0f), tf::float32);
  auto accuracy = tf::reduce_mean(tf::cast(tf::equal(predicted, Y), tf::float32));

  tf::Session sess;
  sess.run(tf::global_variables_initializer());
  tf::FeedDict feed{{X, tf::Value::from_vector(points, {n, 2})},
                    {Y, tf::Value::from_vector(labels, {n, 1})}};
  for (int step = 1; step <= 500; ++step) {
    sess.run(train_op, feed);
    if (step % 100 == 0) {
      auto out = sess.run({loss, accuracy}, feed);
      std::printf("step %3d  loss %.4f  accuracy %.4f\n", step, out[0].scalar<float>(),
                  out[1].scalar<float>());
    }
  }
  auto w = sess.run(W).to_vector<float>();
  std::printf("W = [%.4f, %.4f], b = %.4f\n", w[0], w[1], sess.run(b).to_vector<float>()[0]);
  // The learned boundary W1*x1 + W2*x2 + b = 0 should be close to x1 + 2*x2 = 0.2.
  std::printf("W2 / W1 = %.4f, -b / W1 = %.4f\n", w[1] / w[0],
              -sess.run(b).to_vector<float>()[0] / w[0]);

  // P(label 1) for two new points, one on each side of the line.
  auto probs = sess.run(tf::sigmoid(logits), {{X, {{0.5f, 0.5f}, {-0.5f, -0.2f}}}});
  std::printf("P(1 | (0.5, 0.5)) = %.4f, P(1 | (-0.5, -0.2)) = %.4f\n", probs.to_vector<float>()[0],
              probs.to_vector<float>()[1]);
}
