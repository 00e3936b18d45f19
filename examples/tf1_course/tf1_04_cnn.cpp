// TF1 course, lesson 4: a small convolutional network with tf.layers (conv2d,
// max_pooling2d, flatten, dense) that tells horizontal bars from vertical ones.
//
// Each 8x8 one-channel image holds one bright row (class 0) or one bright column
// (class 1) over a little noise. conv2d (4 filters of 3x3, relu, "same" padding) keeps
// the 8x8 size, max_pooling2d halves it to 4x4, flatten makes 64 features per image and
// dense maps them to 2 logits. Kernels start from glorot_uniform_initializer with fixed
// op seeds, which give TensorFlow's numbers.
//
// Checked against TensorFlow: the same program in Python (tf.compat.v1, graph mode,
// tf.layers, the same images and seeds) prints the same numbers to 4 decimals. Shapes
// print with None for the unknown batch size, as TensorFlow 2's TensorShape does
// (TensorFlow 1.x wrote "?").
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

// n images [n, 8, 8, 1], alternating horizontal (label 0) and vertical (label 1) bars.
std::pair<tf::Value, tf::Value> make_images(Lcg& rng, int n) {
  std::vector<float> pixels;
  std::vector<std::int32_t> labels;
  for (int i = 0; i < n; ++i) {
    const int label = i % 2;
    const int line = static_cast<int>(rng.uniform() * 8);
    for (int r = 0; r < 8; ++r)
      for (int c = 0; c < 8; ++c) {
        const bool on = (label == 0 ? r : c) == line;
        pixels.push_back(static_cast<float>((on ? 1.0 : 0.0) + rng.uniform() * 0.3));
      }
    labels.push_back(label);
  }
  return {tf::Value::from_vector(pixels, {n, 8, 8, 1}), tf::Value::from_vector(labels, {n})};
}

}  // namespace

int main() {
  Lcg rng{99};
  auto [train_x, train_y] = make_images(rng, 40);
  auto [test_x, test_y] = make_images(rng, 20);

  auto X = tf::placeholder<float>({-1, 8, 8, 1}, "X");
  auto Y = tf::placeholder<std::int32_t>({-1}, "Y");

  auto conv = tf::layers::conv2d(X, 4, {3, 3},
                                 {.padding = "same",
                                  .activation = tf::nn::relu,
                                  .kernel_initializer = tf::glorot_uniform_initializer(1)});
  auto pool = tf::layers::max_pooling2d(conv, {2, 2}, {2, 2});
  auto flat = tf::layers::flatten(pool);
  auto logits =
      tf::layers::dense(flat, 2, {.kernel_initializer = tf::glorot_uniform_initializer(2)});
  std::cout << "shapes: conv " << conv.get_shape() << ", pool " << pool.get_shape() << ", flat "
            << flat.get_shape() << ", logits " << logits.get_shape() << "\n";

  auto loss = tf::losses::sparse_softmax_cross_entropy(Y, logits);
  auto train_op = tf::train::AdamOptimizer(0.01).minimize(loss);
  auto correct = tf::equal(tf::cast(tf::argmax(logits, 1), tf::int32), Y);
  auto accuracy = tf::reduce_mean(tf::cast(correct, tf::float32));

  tf::Session sess;
  sess.run(tf::global_variables_initializer());
  for (int step = 1; step <= 60; ++step) {
    auto out = sess.run({loss, train_op}, {{X, train_x}, {Y, train_y}});
    if (step % 10 == 0) std::printf("step %2d  loss %.4f\n", step, out[0].scalar<float>());
  }
  std::printf("test accuracy %.4f\n",
              sess.run(accuracy, {{X, test_x}, {Y, test_y}}).scalar<float>());

  // Class probabilities of the first two test images (a horizontal, then a vertical bar).
  auto probs = sess.run(tf::nn::softmax(logits), {{X, test_x}}).to_vector<float>();
  for (int i = 0; i < 2; ++i)
    std::printf("image %d: P(horizontal) %.4f  P(vertical) %.4f\n", i, probs[2 * i],
                probs[2 * i + 1]);
}
