// Training end to end on a small slice of Fashion-MNIST (Debian's dataset-fashion-mnist):
// the loss of an MLP and of a small CNN falls within a few optimizer steps.

#include <doctest/doctest.h>

#include <string>

#include <symflow/data/idx.hpp>
#include <symflow/symflow.hpp>
#include <symflow/train/train.hpp>

namespace symflow_test_train_fashion_slice_test {

using namespace symflow;

namespace {

const std::string kFashion = "/usr/share/datasets/fashion-mnist";

Output dense_layer(const Output& x, std::int64_t units, const std::string& name) {
  variable_scope scope(name);
  const std::int64_t in = x.get_shape().dims().back();
  auto w = get_variable("kernel", Shape{in, units}, {.initializer = glorot_uniform_initializer()});
  auto b = get_variable("bias", Shape{units}, {.initializer = zeros_initializer()});
  return add(matmul(x, w), b);
}

// The mean loss before and after `steps` full-batch steps of `train_op`.
std::pair<double, double> train_slice(const Output& loss, const Operation& train_op,
                                      const Output& images, const Output& labels,
                                      const data::Dataset& d, int steps) {
  Session sess;
  sess.run(global_variables_initializer());
  FeedDict feeds{{images, d.images}, {labels, d.labels}};
  const double before = sess.run(loss, feeds).data<float>()[0];
  for (int i = 0; i < steps; ++i) sess.run(train_op, feeds);
  return {before, sess.run(loss, feeds).data<float>()[0]};
}

}  // namespace

TEST_CASE("train/fashion_mnist: an MLP's loss falls on 256 images in 30 Adam steps") {
  auto d = data::load_idx_dataset(kFashion + "/train-images-idx3-ubyte.gz",
                                  kFashion + "/train-labels-idx1-ubyte.gz", 256);
  Graph g;
  auto guard = g.as_default();
  set_random_seed(1);
  auto images = placeholder<float>(Shape{-1, 784}, "images");
  auto labels = placeholder<std::int32_t>(Shape{-1}, "labels");
  auto logits = dense_layer(nn::relu(dense_layer(images, 64, "dense")), 10, "dense_1");
  auto loss = reduce_mean(nn::sparse_softmax_cross_entropy_with_logits(labels, logits));
  auto train_op = train::AdamOptimizer({.learning_rate = 1e-3}).minimize(loss);
  // Named locals, no structured binding: clang 14 cannot capture one in CAPTURE's lambda.
  const auto start_and_end = train_slice(loss, train_op, images, labels, d, 30);
  const double before = start_and_end.first;
  const double after = start_and_end.second;
  CAPTURE(before);
  CAPTURE(after);
  CHECK(before > 1.5);  // about ln(10) for an untrained classifier
  CHECK(after < 0.6 * before);
}

TEST_CASE("train/fashion_mnist: a small CNN's loss falls on 64 images in 10 steps") {
  auto d = data::load_idx_dataset(kFashion + "/train-images-idx3-ubyte.gz",
                                  kFashion + "/train-labels-idx1-ubyte.gz", 64);
  Graph g;
  auto guard = g.as_default();
  set_random_seed(2);
  auto images = placeholder<float>(Shape{-1, 784}, "images");
  auto labels = placeholder<std::int32_t>(Shape{-1}, "labels");
  auto x = reshape(images, {-1, 28, 28, 1});
  Output conv;
  {
    variable_scope scope("conv2d");
    auto w =
        get_variable("kernel", Shape{3, 3, 1, 8}, {.initializer = glorot_uniform_initializer()});
    auto b = get_variable("bias", Shape{8}, {.initializer = zeros_initializer()});
    conv = nn::relu(nn::bias_add(nn::conv2d(x, w, {1, 1, 1, 1}, "SAME"), b));
  }
  auto pooled = nn::max_pool(conv, {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID");
  auto logits = dense_layer(reshape(pooled, {-1, 14 * 14 * 8}), 10, "dense");
  auto loss = reduce_mean(nn::sparse_softmax_cross_entropy_with_logits(labels, logits));
  auto train_op = train::AdamOptimizer({.learning_rate = 3e-3}).minimize(loss);
  // Named locals, no structured binding: clang 14 cannot capture one in CAPTURE's lambda.
  const auto start_and_end = train_slice(loss, train_op, images, labels, d, 10);
  const double before = start_and_end.first;
  const double after = start_and_end.second;
  CAPTURE(before);
  CAPTURE(after);
  CHECK(after < 0.7 * before);
}

}  // namespace symflow_test_train_fashion_slice_test
