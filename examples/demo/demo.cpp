// The main example: build a small graph once, then run it with different feeds.
//
// One affine layer with a softmax on top scores a batch of 2-feature inputs. It
// shows the TensorFlow 1.x workflow in C++: placeholders and constants, ops that
// build nodes, and a Session that runs only what is fetched.
#include <iostream>

#include <symflow/symflow.hpp>

namespace tf = symflow;

int main() {
  // Build: nothing is computed here, only graph nodes are created.
  auto x = tf::placeholder<float>(tf::Shape{-1, 2}, "x");
  auto w = tf::constant<float>({{0.5f, -1.0f, 2.0f}, {1.5f, 0.25f, -0.5f}}, "weights");
  auto b = tf::constant<float>({0.1f, 0.2f, 0.3f}, "bias");
  auto logits = tf::add(tf::matmul(x, w), b, "logits");
  auto probs = tf::nn::softmax(logits, "probs");
  auto mean_logit = tf::reduce_mean(logits, {}, false, "mean_logit");

  std::cout << "graph: " << tf::get_default_graph().num_nodes() << " nodes\n";
  std::cout << x << "\n" << logits << "\n" << probs << "\n";

  // Run: feed a batch, fetch several tensors from one evaluation.
  tf::Session sess;
  auto out = sess.run({logits, probs, mean_logit}, {{x, {{1, 2}, {0, 1}, {-1, 0.5f}}}});
  std::cout << "logits:\n" << out[0] << "\n";
  std::cout << "probs:\n" << out[1] << "\n";
  std::cout << "mean logit: " << out[2] << "\n";

  // Another batch of another size reuses the same graph.
  std::cout << "probs for [[0, 0]]: " << sess.run(probs, {{x, {{0, 0}}}}) << "\n";

  // Forgetting a feed is an error that names the placeholder.
  try {
    sess.run(probs);
  } catch (const tf::InvalidArgumentError& e) {
    std::cout << "error: " << e.message() << "\n";
  }
}
