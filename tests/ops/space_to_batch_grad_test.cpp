// Gradients of SpaceToBatchND and BatchToSpaceND (each one's gradient is the other, as in
// TensorFlow's array_grad.py), checked against central differences in float64, with the
// node names TensorFlow gives them; and the dilated convolutions built from them.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <symflow/symflow.hpp>
#include <symflow/train/gradients.hpp>

#include "../gradient_check.hpp"
#include "../test_util.hpp"

namespace symflow_test_ops_space_to_batch_grad_test {

namespace ops_space_to_batch_grad_test {

using namespace symflow;
using namespace symflow::test;

// Distinct float64 values of `dims`.
inline Value sample(const Dims& dims, double scale = 1.0) {
  std::vector<double> v(static_cast<std::size_t>(num_elements(dims)));
  for (std::size_t i = 0; i < v.size(); ++i)
    v[i] = scale * (0.25 + 0.5 * static_cast<double>(i) - 0.03 * static_cast<double>(i * i % 7));
  return Value::from_vector(v, dims);
}

}  // namespace ops_space_to_batch_grad_test

using namespace ops_space_to_batch_grad_test;

TEST_CASE("space_to_batch_grad: SpaceToBatchND with padding, numerically") {
  check_gradients(
      [](const std::vector<Output>& x) {
        return space_to_batch_nd(x[0], {2, 2}, {{1, 0}, {1, 1}});
      },
      {sample({2, 3, 4, 2})});
  check_gradients(
      [](const std::vector<Output>& x) {
        return space_to_batch_nd(x[0], {3}, {{1, 2}});
      },
      {sample({2, 3, 2})});
}

TEST_CASE("space_to_batch_grad: BatchToSpaceND with crops, numerically") {
  check_gradients(
      [](const std::vector<Output>& x) {
        return batch_to_space_nd(x[0], {2, 1}, {{1, 2}, {0, 1}});
      },
      {sample({2, 3, 4, 2})});
  check_gradients(
      [](const std::vector<Output>& x) {
        return batch_to_space_nd(x[0], {2}, {{1, 2}});
      },
      {sample({4, 3, 1})});
}

TEST_CASE("space_to_batch_grad: the graph TensorFlow builds") {
  Graph g;
  auto guard = g.as_default();
  Output xp = placeholder(DType::float64, Shape{2, 3, 4, 2}, "xp");
  Output y = space_to_batch_nd(xp, {2, 2}, {{1, 0}, {1, 1}});
  Output z = batch_to_space_nd(xp, {2, 1}, {{1, 2}, {0, 1}});
  CHECK(y.shape() == Shape{8, 2, 3, 2});
  CHECK(z.shape() == Shape{1, 3, 3, 2});
  std::vector<Output> dy = gradients(y, {xp});
  std::vector<Output> dz = gradients(z, {xp});
  REQUIRE(dy[0].valid());
  REQUIRE(dz[0].valid());
  // TF: gradients/SpaceToBatchND_grad/BatchToSpaceND reading the op's own block_shape and
  // paddings, and gradients_1/BatchToSpaceND_grad/SpaceToBatchND.
  CHECK(dy[0].name() == "gradients/SpaceToBatchND_grad/BatchToSpaceND:0");
  CHECK(input_names(dy[0])[1] == "SpaceToBatchND/block_shape:0");
  CHECK(input_names(dy[0])[2] == "SpaceToBatchND/paddings:0");
  CHECK(dy[0].shape() == Shape{2, 3, 4, 2});
  CHECK(dz[0].name() == "gradients_1/BatchToSpaceND_grad/SpaceToBatchND:0");
  CHECK(input_names(dz[0])[2] == "BatchToSpaceND/crops:0");
  CHECK(dz[0].shape() == Shape{2, 3, 4, 2});
}

TEST_CASE("space_to_batch_grad: dilated convolutions, numerically") {
  check_gradients(
      [](const std::vector<Output>& x) { return nn::atrous_conv2d(x[0], x[1], 2, "SAME"); },
      {sample({1, 5, 6, 2}, 0.1), sample({3, 3, 2, 2}, 0.05)});
  check_gradients(
      [](const std::vector<Output>& x) { return nn::atrous_conv2d(x[0], x[1], 2, "VALID"); },
      {sample({2, 5, 6, 1}, 0.1), sample({2, 2, 1, 3}, 0.05)});
  check_gradients(
      [](const std::vector<Output>& x) {
        return nn::depthwise_conv2d(x[0], x[1], {1, 1, 1, 1}, "SAME", {.rate = {2, 3}});
      },
      {sample({1, 5, 6, 2}, 0.1), sample({2, 2, 2, 2}, 0.05)});
}

}  // namespace symflow_test_ops_space_to_batch_grad_test
