// Gradients of the symflow::nn ops, checked against central differences in float64
// (tests/gradient_check.hpp), plus the structure TensorFlow gives the backward graph.

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include <symflow/symflow.hpp>
#include <symflow/train/gradients.hpp>

#include "../gradient_check.hpp"
#include "../test_util.hpp"

namespace symflow_test_ops_nn_grad_test {

namespace ops_nn_grad_test {

using namespace symflow;
using namespace symflow::test;

Value f64(std::vector<double> v, Dims dims) { return Value::from_vector(v, std::move(dims)); }

// Values away from the kinks of relu, relu6, abs (0 and 6).
const Value kX = f64({-2, -0.5, 0.3, 1.5, 3, 7}, {2, 3});
const Value kX6 = f64({-1, 0.5, 3, 5.5, 6.5, 8}, {2, 3});
const Value kPositive = f64({0.2, 0.5, 1.3, 2, 3.5, 9}, {2, 3});

// The gradient of sum(f(x)) with respect to x: checked itself, it exercises the
// gradient of the "XxxGrad" op that f's gradient builds.
Output first_derivative(const Output& y, const Output& x) {
  return gradients(reduce_sum(y), {x})[0];
}

}  // namespace ops_nn_grad_test

using namespace ops_nn_grad_test;

TEST_CASE("nn/grad: activations") {
  check_gradients([](const auto& x) { return nn::relu(x[0]); }, {kX});
  check_gradients([](const auto& x) { return nn::relu6(x[0]); }, {kX6});
  check_gradients([](const auto& x) { return nn::leaky_relu(x[0], 0.3); }, {kX});
  check_gradients([](const auto& x) { return nn::elu(x[0]); }, {kX});
  check_gradients([](const auto& x) { return nn::sigmoid(x[0]); }, {kX});
  check_gradients([](const auto& x) { return nn::tanh(x[0]); }, {kX});
  check_gradients([](const auto& x) { return log1p(x[0]); }, {kPositive});
  check_gradients([](const auto& x) { return rsqrt(x[0]); }, {kPositive});
  check_gradients([](const auto& x) { return reciprocal(x[0]); }, {kX});
}

TEST_CASE("nn/grad: second derivatives through the XxxGrad ops") {
  check_gradients([](const auto& x) { return first_derivative(square(nn::relu(x[0])), x[0]); },
                  {kX});
  check_gradients([](const auto& x) { return first_derivative(square(nn::relu6(x[0])), x[0]); },
                  {kX6});
  check_gradients(
      [](const auto& x) { return first_derivative(square(nn::leaky_relu(x[0], 0.3)), x[0]); },
      {kX});
  check_gradients([](const auto& x) { return first_derivative(nn::sigmoid(x[0]), x[0]); }, {kX});
  check_gradients([](const auto& x) { return first_derivative(nn::tanh(x[0]), x[0]); }, {kX});
  check_gradients([](const auto& x) { return first_derivative(rsqrt(x[0]), x[0]); }, {kPositive});
  check_gradients([](const auto& x) { return first_derivative(reciprocal(x[0]), x[0]); }, {kX});
  // Each first derivative is the op TensorFlow uses.
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<double>(Shape{3});
  CHECK(first_derivative(nn::relu(x), x).op().type() == "ReluGrad");
  CHECK(first_derivative(nn::relu6(x), x).op().type() == "Relu6Grad");
  CHECK(first_derivative(nn::leaky_relu(x), x).op().type() == "LeakyReluGrad");
  CHECK(first_derivative(nn::elu(x), x).op().type() == "EluGrad");
  CHECK(first_derivative(nn::sigmoid(x), x).op().type() == "SigmoidGrad");
  CHECK(first_derivative(nn::tanh(x), x).op().type() == "TanhGrad");
  CHECK(first_derivative(rsqrt(x), x).op().type() == "RsqrtGrad");
  CHECK(first_derivative(reciprocal(x), x).op().type() == "ReciprocalGrad");
  auto t = first_derivative(nn::tanh(x, "act"), x);
  CHECK(t.name().ends_with("/act_grad/TanhGrad:0"));
}

TEST_CASE("nn/grad: floor has no gradient, as in TensorFlow") {
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<double>(Shape{3});
  CHECK_FALSE(gradients(reduce_sum(floor(x)), {x})[0].valid());
  // Through dropout, whose mask is a Floor, x still gets a gradient: mask / keep_prob.
  auto d = nn::dropout(x, 0.5, {.seed = 4});
  auto gx = gradients(reduce_sum(d), {x})[0];
  REQUIRE(gx.valid());
  Session sess(g);
  auto both = sess.run({d, gx}, {{x, Value::from_vector<double>({1, 1, 1}, {3})}});
  CHECK(both[0].to_vector<double>() == both[1].to_vector<double>());
}

TEST_CASE("nn/grad: squared_difference with broadcasting") {
  check_gradients([](const auto& x) { return squared_difference(x[0], x[1]); },
                  {kX, f64({0.5, -1, 2}, {3})});
  check_gradients([](const auto& x) { return squared_difference(x[0], x[1]); },
                  {f64({1, -2}, {2, 1}), f64({0.5, -1, 2}, {1, 3})});
}

TEST_CASE("nn/grad: softmax, log_softmax") {
  const Value logits = f64({1, 2, 3, -1, 0.5, 0, 2, -3}, {2, 4});
  check_gradients([](const auto& x) { return nn::softmax(x[0]); }, {logits});
  check_gradients([](const auto& x) { return nn::log_softmax(x[0]); }, {logits});
  check_gradients([](const auto& x) { return nn::softmax(x[0]); },
                  {f64({1, 2, 3, -1, 0.5, 0, 2, -3}, {2, 2, 2})});
}

TEST_CASE("nn/grad: softmax cross entropy, logits and labels") {
  const Value logits = f64({1, 2, 3, 1, -1, 0.5}, {2, 3});
  const Value labels = f64({0.1, 0.2, 0.7, 0.3, 0.3, 0.4}, {2, 3});
  check_gradients(
      [](const auto& x) { return nn::softmax_cross_entropy_with_logits_v2(x[1], x[0]); },
      {logits, labels});
  // Rank 3, flattened and reshaped back.
  check_gradients(
      [](const auto& x) { return nn::softmax_cross_entropy_with_logits_v2(x[1], x[0]); },
      {f64({1, 2, 3, 1, -1, 0.5, 0, 0, 2, 1, 1, 1}, {2, 2, 3}),
       f64({0.1, 0.2, 0.7, 0.3, 0.3, 0.4, 1, 0, 0, 0.2, 0.2, 0.6}, {2, 2, 3})});
  // Second order: the gradient uses the op's backprop output.
  check_gradients(
      [](const auto& x) {
        return first_derivative(nn::softmax_cross_entropy_with_logits_v2(x[1], x[0]), x[0]);
      },
      {logits, labels});
  // TF1's first version: no gradient into the labels.
  Graph g;
  auto guard = g.as_default();
  auto pl = placeholder<double>(Shape{2, 3});
  auto pz = placeholder<double>(Shape{2, 3});
  auto grads = gradients(nn::softmax_cross_entropy_with_logits(pz, pl), {pl, pz});
  CHECK(grads[0].valid());
  CHECK_FALSE(grads[1].valid());
  auto grads2 = gradients(nn::softmax_cross_entropy_with_logits_v2(pz, pl), {pl, pz});
  CHECK(grads2[1].valid());
}

TEST_CASE("nn/grad: sparse softmax cross entropy") {
  check_gradients(
      [](const auto& x) { return nn::sparse_softmax_cross_entropy_with_logits(x[1], x[0]); },
      {f64({1, 2, 3, 1, -1, 0.5}, {2, 3}), Value::from_vector<std::int32_t>({2, 0}, {2})});
  check_gradients(
      [](const auto& x) { return nn::sparse_softmax_cross_entropy_with_logits(x[1], x[0]); },
      {f64({1, 2, 3, 1, -1, 0.5, 0, 0, 2, 1, 1, 1}, {2, 2, 3}),
       Value::from_vector<std::int64_t>({2, 0, 1, 1}, {2, 2})});
}

TEST_CASE("nn/grad: sigmoid cross entropy has TensorFlow's nodes and gradient at logits 0") {
  // TF 2.21: gradients(reduce_sum(sigmoid_cross_entropy_with_logits(z, x)), x) at
  // x = [0, 0, 2], z = [1, 0, 0.3]: loss [0.6931472, 0.6931472, 1.526928], gradient
  // [-0.5, 0.5, 0.5807971] (sigmoid(x) - z, also at x = 0).
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<float>(Shape{3}, "x");
  auto z = placeholder<float>(Shape{3}, "z");
  auto loss = nn::sigmoid_cross_entropy_with_logits(z, x);
  std::vector<std::string> built;
  for (const Operation& op : g.get_operations())
    if (op.name() != "x" && op.name() != "z") built.push_back(op.name() + " " + op.type());
  // TF folds zeros_like of a static shape into a Const; the rest is TF's graph.
  CHECK(built == std::vector<std::string>{"logistic_loss/zeros_like ZerosLike",
                                          "logistic_loss/GreaterEqual GreaterEqual",
                                          "logistic_loss/Select Select", "logistic_loss/Neg Neg",
                                          "logistic_loss/Select_1 Select", "logistic_loss/mul Mul",
                                          "logistic_loss/sub Sub", "logistic_loss/Exp Exp",
                                          "logistic_loss/Log1p Log1p", "logistic_loss Add"});
  auto dx = gradients(reduce_sum(loss), {x})[0];
  Session sess(g);
  const FeedDict feeds{{x, Value({0.0f, 0.0f, 2.0f})}, {z, Value({1.0f, 0.0f, 0.3f})}};
  const auto out = sess.run({loss, dx}, feeds);
  check_close(out[0].to_vector<float>(), {0.6931472f, 0.6931472f, 1.526928f}, 2e-6, false);
  check_close(out[1].to_vector<float>(), {-0.5f, 0.5f, 0.5807971f}, 2e-6, false);
}

TEST_CASE("nn/grad: sigmoid cross entropy, l2_loss, bias_add") {
  check_gradients([](const auto& x) { return nn::sigmoid_cross_entropy_with_logits(x[1], x[0]); },
                  {kX, f64({0, 1, 0.5, 1, 0.2, 0}, {2, 3})});
  check_gradients([](const auto& x) { return nn::l2_loss(x[0]); }, {kX});
  // The bias is broadcast over every axis but the last.
  check_gradients([](const auto& x) { return nn::bias_add(x[0], x[1]); },
                  {f64({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, {2, 3, 2}), f64({0.5, -1}, {2})});
  check_gradients([](const auto& x) { return nn::bias_add(x[0], x[1]); },
                  {kX, f64({0.5, -1, 2}, {3})});
  // The bias gradient is BiasAddGrad, and its own gradient (BiasAddGrad's) checks out.
  check_gradients(
      [](const auto& x) {
        return gradients(reduce_sum(square(nn::bias_add(x[0], x[1]))), {x[1]})[0];
      },
      {kX, f64({0.5, -1, 2}, {3})});
  Graph g;
  auto guard = g.as_default();
  auto v = placeholder<double>(Shape{-1, 3});
  auto b = placeholder<double>(Shape{3});
  auto gb = gradients(reduce_sum(nn::bias_add(v, b)), {b})[0];
  CHECK(gb.op().type() == "BiasAddGrad");
  CHECK(gb.op().get_attr<std::string>("data_format") == "NHWC");
  CHECK(gb.get_shape() == Shape{3});
}

TEST_CASE("nn/grad: moments and batch_normalization") {
  const Value x = f64({1, 2, 4, 3, -1, 0.5, 2, 2.5, -3}, {3, 3});
  check_gradients([](const auto& in) { return nn::moments(in[0], {0}).first; }, {x});
  check_gradients([](const auto& in) { return nn::moments(in[0], {0}).second; }, {x});
  check_gradients([](const auto& in) { return nn::moments(in[0], {0, 1}, true).second; }, {x});
  // With respect to x, mean, variance, offset and scale.
  check_gradients(
      [](const auto& in) {
        return nn::batch_normalization(in[0], in[1], in[2], in[3], in[4], 1e-3);
      },
      {x, f64({0.5, 1, -1}, {3}), f64({1, 2, 0.5}, {3}), f64({0.1, 0, -0.2}, {3}),
       f64({2, 1, 0.5}, {3})});
  // Normalising with the batch's own moments: the gradient flows through them too.
  check_gradients(
      [](const auto& in) {
        auto [m, v] = nn::moments(in[0], {0});
        return nn::batch_normalization(in[0], m, v, Output{}, Output{}, 1e-3);
      },
      {x}, 1e-5);
}

}  // namespace symflow_test_ops_nn_grad_test
