// compute_gradients and minimize, through symflow::gradients.
#include <doctest/doctest.h>

#include <string>
#include <vector>

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
  CHECK(sess.run(grads_and_vars[0].first.dense()).scalar<float>() == 3.0f);

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

TEST_CASE("train/minimize: GATE_OP builds TensorFlow's gradient tuples, node for node") {
  // TensorFlow 2.21 (tf.compat.v1, ref variables): x @ w1 @ w2, loss = sum(y * y),
  // GradientDescentOptimizer(0.1).minimize(loss). Name, type, inputs, control inputs of
  // the tuples, the nodes after the first one and the updates. (Before it, TF 2.21
  // seeds with a constant shape and takes Sum's gradient with Tile, where symflow has
  // Shape and BroadcastTo: the same values.)
  const std::vector<std::string> want = {
      "gradients/mul_grad/tuple/group_deps NoOp | |gradients/mul_grad/Mul "
      "gradients/mul_grad/Mul_1",
      "gradients/mul_grad/tuple/control_dependency Identity |gradients/mul_grad/Mul:0 "
      "|gradients/mul_grad/tuple/group_deps",
      "gradients/mul_grad/tuple/control_dependency_1 Identity |gradients/mul_grad/Mul_1:0 "
      "|gradients/mul_grad/tuple/group_deps",
      "gradients/AddN AddN |gradients/mul_grad/tuple/control_dependency:0 "
      "gradients/mul_grad/tuple/control_dependency_1:0 |",
      "gradients/MatMul_1_grad/MatMul MatMul |gradients/AddN:0 w2/read:0 |",
      "gradients/MatMul_1_grad/MatMul_1 MatMul |MatMul:0 gradients/AddN:0 |",
      "gradients/MatMul_1_grad/tuple/group_deps NoOp | |gradients/MatMul_1_grad/MatMul "
      "gradients/MatMul_1_grad/MatMul_1",
      "gradients/MatMul_1_grad/tuple/control_dependency Identity "
      "|gradients/MatMul_1_grad/MatMul:0 |gradients/MatMul_1_grad/tuple/group_deps",
      "gradients/MatMul_1_grad/tuple/control_dependency_1 Identity "
      "|gradients/MatMul_1_grad/MatMul_1:0 |gradients/MatMul_1_grad/tuple/group_deps",
      "gradients/MatMul_grad/MatMul MatMul |gradients/MatMul_1_grad/tuple/control_dependency:0 "
      "w1/read:0 |",
      "gradients/MatMul_grad/MatMul_1 MatMul |x:0 "
      "gradients/MatMul_1_grad/tuple/control_dependency:0 |",
      "gradients/MatMul_grad/tuple/group_deps NoOp | |gradients/MatMul_grad/MatMul "
      "gradients/MatMul_grad/MatMul_1",
      "gradients/MatMul_grad/tuple/control_dependency Identity |gradients/MatMul_grad/MatMul:0 "
      "|gradients/MatMul_grad/tuple/group_deps",
      "gradients/MatMul_grad/tuple/control_dependency_1 Identity "
      "|gradients/MatMul_grad/MatMul_1:0 |gradients/MatMul_grad/tuple/group_deps",
      "GradientDescent/learning_rate Const | |",
      "GradientDescent/update_w1/ApplyGradientDescent ApplyGradientDescent |w1:0 "
      "GradientDescent/learning_rate:0 gradients/MatMul_grad/tuple/control_dependency_1:0 |",
      "GradientDescent/update_w2/ApplyGradientDescent ApplyGradientDescent |w2:0 "
      "GradientDescent/learning_rate:0 gradients/MatMul_1_grad/tuple/control_dependency_1:0 |",
      "GradientDescent NoOp | |GradientDescent/update_w1/ApplyGradientDescent "
      "GradientDescent/update_w2/ApplyGradientDescent",
  };
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder(tf::float32, tf::Shape({2, 2}), "x");
  tf::Variable w1(tf::constant({{1.0f, 2.0f}, {3.0f, 4.0f}}), {.name = "w1"});
  tf::Variable w2(tf::constant({{0.5f, -1.0f}, {2.0f, 1.0f}}), {.name = "w2"});
  auto y = tf::matmul(tf::matmul(x, w1), w2);
  auto loss = tf::reduce_sum(y * y);
  tf::train::GradientDescentOptimizer(0.1).minimize(loss);
  std::vector<std::string> got;
  for (const tf::Operation& op : g.get_operations()) {
    const std::string& name = op.name();
    if (name.find("_grad/tuple/") == std::string::npos && !name.starts_with("gradients/MatMul") &&
        name != "gradients/AddN" && !name.starts_with("GradientDescent"))
      continue;
    std::string line = op.name() + " " + op.type() + " |";
    for (const tf::Output& in : op.inputs()) line += (line.back() == '|' ? "" : " ") + in.name();
    line += " |";
    for (const tf::Operation& c : op.control_inputs())
      line += (line.back() == '|' ? "" : " ") + c.name();
    got.push_back(line);
  }
  CHECK(got == want);

  // GATE_NONE builds no tuple; GATE_GRAPH one over all the gradients, none per op.
  tf::Graph plain;
  auto plain_guard = plain.as_default();
  tf::Variable v(tf::constant(2.0f), {.name = "v"});
  tf::Variable u(tf::constant(3.0f), {.name = "u"});
  auto l = v * u;
  tf::train::GradientDescentOptimizer(0.1).minimize(l, {.gate_gradients = tf::train::GATE_NONE});
  CHECK(!plain.state().find("gradients/mul_grad/tuple/group_deps"));
  tf::train::GradientDescentOptimizer(0.1).minimize(l, {.gate_gradients = tf::train::GATE_GRAPH});
  CHECK(!plain.state().find("gradients_1/mul_grad/tuple/group_deps"));
  CHECK(plain.get_operation_by_name("tuple/group_deps").control_inputs().size() == 2);
}

}  // namespace symflow_test_train_minimize_test
