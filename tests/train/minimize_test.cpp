// compute_gradients and minimize, through symflow::gradients.
#include <doctest/doctest.h>

#include <symflow/symflow.hpp>
#include <symflow/train/train.hpp>

#include "../test_util.hpp"

namespace symflow_test_train_minimize_test {

namespace tf = symflow;

namespace {

// y = 3x + 2 on five points; fits W and b from zeros. Returns W, b, loss, global step.
std::vector<double> fit_line(tf::train::Optimizer& opt, int steps) {
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::constant(tf::Value({{0.0f}, {1.0f}, {2.0f}, {3.0f}, {4.0f}}), "x");
  auto y = tf::constant(tf::Value({{2.0f}, {5.0f}, {8.0f}, {11.0f}, {14.0f}}), "y");
  tf::Variable W(tf::zeros({1, 1}), {.name = "W"});
  tf::Variable b(tf::zeros({1}), {.name = "b"});
  auto pred = tf::matmul(x, W) + b;
  auto loss = tf::reduce_mean(tf::square(pred - y));
  tf::Variable step = tf::train::get_or_create_global_step();
  tf::Operation train = opt.minimize(loss, {.global_step = step});
  CHECK(train.name() == opt.get_name());
  tf::Session sess(g);
  sess.run(tf::global_variables_initializer());
  for (int i = 0; i < steps; ++i) sess.run(train);
  return {sess.run(W).to_vector<float>().at(0), sess.run(b).to_vector<float>().at(0),
          sess.run(loss).scalar<float>(),
          static_cast<double>(sess.run(step).scalar<std::int64_t>())};
}

}  // namespace

TEST_CASE("train/minimize: GradientDescent fits a line") {
  tf::train::GradientDescentOptimizer opt(0.05);
  auto got = fit_line(opt, 500);
  // TensorFlow after 500 steps: W 3.000001, b 1.9999976, loss 2.3e-12
  CHECK(got[0] == doctest::Approx(3.0).epsilon(1e-3));
  CHECK(got[1] == doctest::Approx(2.0).epsilon(1e-3));
  CHECK(got[2] < 1e-6);
  CHECK(got[3] == 500);
}

TEST_CASE("train/minimize: Adam fits a line") {
  tf::train::AdamOptimizer opt({.learning_rate = 0.1});
  auto got = fit_line(opt, 500);
  // TensorFlow after 500 steps: W 2.9999878, b 2.0000312, loss 3.4e-10
  CHECK(got[0] == doctest::Approx(3.0).epsilon(1e-3));
  CHECK(got[1] == doctest::Approx(2.0).epsilon(1e-3));
  CHECK(got[2] < 1e-6);
  CHECK(got[3] == 500);
}

TEST_CASE("train/minimize: Momentum, RMSProp and Adagrad reduce the loss") {
  tf::train::MomentumOptimizer momentum(0.01, 0.9);
  tf::train::RMSPropOptimizer rmsprop(0.01);
  tf::train::AdagradOptimizer adagrad(0.5);
  for (tf::train::Optimizer* opt :
       std::initializer_list<tf::train::Optimizer*>{&momentum, &rmsprop, &adagrad}) {
    CAPTURE(opt->get_name());
    auto got = fit_line(*opt, 1000);
    CHECK(got[2] < 1e-3);
  }
}

TEST_CASE("train/minimize: compute_gradients pairs each variable with its gradient") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Variable w(1.0f, {.name = "w"});
  tf::Variable u(2.0f, {.name = "u"});
  auto loss = w * tf::constant(3.0f);
  tf::train::GradientDescentOptimizer opt(0.1);
  auto grads_and_vars = opt.compute_gradients(loss);
  REQUIRE(grads_and_vars.size() == 2);
  CHECK(grads_and_vars[0].second == w);
  CHECK(grads_and_vars[0].first.valid());
  CHECK(grads_and_vars[1].second == u);
  CHECK(!grads_and_vars[1].first.valid());  // TensorFlow: None
  tf::Session sess(g);
  sess.run(tf::global_variables_initializer());
  CHECK(sess.run(grads_and_vars[0].first).scalar<float>() == 3.0f);

  tf::Operation train = opt.minimize(loss, {.var_list = {w}});
  CHECK(train.name() == "GradientDescent");
  CHECK(train.type() == "NoOp");
  sess.run(train);
  CHECK(sess.run(w).scalar<float>() == doctest::Approx(0.7f));
  CHECK(sess.run(u).scalar<float>() == 2.0f);

  // TensorFlow's messages.
  CHECK_THROWS_WITH_AS(
      opt.minimize(loss, {.var_list = {u}}),
      "No gradients provided for any variable, check your graph for ops that do not support "
      "gradients, between variables [\"<tf.Variable 'u:0' shape=() dtype=float32_ref>\"] and "
      "loss Tensor(\"mul:0\", shape=(), dtype=float32).",
      tf::ValueError);
  CHECK_THROWS_WITH_AS(opt.compute_gradients(tf::constant(1, "iloss")),
                       "Invalid type tf.int32 for iloss:0, expected: [tf.float32, tf.float64, "
                       "tf.float16, tf.bfloat16].",
                       tf::ValueError);
}

TEST_CASE("train/minimize: no trainable variables is a ValueError") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Variable frozen(1.0f, {.trainable = false});
  auto loss = frozen * tf::constant(2.0f);
  tf::train::AdamOptimizer opt;
  CHECK_THROWS_WITH_AS(opt.minimize(loss), "No variables to optimize.", tf::ValueError);
}

}  // namespace symflow_test_train_minimize_test
