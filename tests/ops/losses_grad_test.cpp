// Numerical gradient checks of weighted losses: symflow::losses are compositions of ops
// with gradients, so their gradients come from those ops. The losses compute in float32
// (as TensorFlow's do), so the checks take larger steps and tolerances than the float64
// op checks.

#include <doctest/doctest.h>

#include <vector>

#include <symflow/ops/losses.hpp>
#include <symflow/symflow.hpp>

#include "../gradient_check.hpp"

namespace symflow_test_ops_losses_grad_test {

using namespace symflow;
using namespace symflow::test;
using losses::Reduction;

// Away from the kinks of |e| (0 and delta), and weights away from 0, so that a step does
// not change which side of a kink (or how many nonzero weights) the check stands on.
const Value kPredictions = Value::from_vector<double>({2.5, 0.2, -0.7, 0.3, 0.6, 1.9}, {2, 3});
const Value kLabels = Value::from_vector<double>({1, 0, 0, 0, 1, 1}, {2, 3});
const Value kRowWeights = Value::from_vector<double>({2, 0.5}, {2, 1});

TEST_CASE("losses/grad: huber_loss with weights, to predictions, labels and weights") {
  for (Reduction r : {Reduction::SUM_BY_NONZERO_WEIGHTS, Reduction::MEAN, Reduction::SUM}) {
    CAPTURE(losses::to_string(r));
    check_gradients(
        [r](const std::vector<Output>& x) {
          return cast(
              losses::huber_loss(x[1], x[0], {.weights = x[2], .delta = 0.5, .reduction = r}),
              DType::float64);
        },
        {kPredictions, kLabels, kRowWeights}, 1e-3, 1e-3);
  }
}

TEST_CASE("losses/grad: log_loss with weights") {
  const Value probabilities = Value::from_vector<double>({0.9, 0.2, 0.35, 0.3, 0.6, 0.75}, {2, 3});
  check_gradients(
      [](const std::vector<Output>& x) {
        return cast(losses::log_loss(x[1], x[0], {.weights = x[2]}), DType::float64);
      },
      {probabilities, kLabels, kRowWeights}, 1e-3, 1e-4);
}

TEST_CASE("losses/grad: softmax_cross_entropy reaches the logits, not the labels") {
  // TF: the labels pass through StopGradient("labels_stop_gradient"): no gradient to them.
  Graph g;
  auto guard = g.as_default();
  Output onehot = placeholder<double>(Shape{2, 3});
  Output logits = placeholder<double>(Shape{2, 3});
  Output loss = losses::softmax_cross_entropy(onehot, logits, {.label_smoothing = 0.1});
  std::vector<Output> grads = gradients(loss, {logits, onehot});
  CHECK(grads[0].valid());
  CHECK_FALSE(grads[1].valid());
  // One-hot float32 labels (rows that sum to 1, as the op's gradient assumes), not
  // differentiated.
  const Value onehot_labels = Value::from_vector<float>({1, 0, 0, 0, 0, 1}, {2, 3});
  check_gradients(
      [](const std::vector<Output>& x) {
        return cast(losses::softmax_cross_entropy(x[1], x[0], {.label_smoothing = 0.1}),
                    DType::float64);
      },
      {kPredictions, onehot_labels}, 1e-3, 1e-3);
}

}  // namespace symflow_test_ops_losses_grad_test
