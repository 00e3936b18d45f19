// Training through a while loop: a small LSTM, written as tf.nn.dynamic_rnn writes its
// loop, learns to sum its input sequence, its loss step by step as TensorFlow 2.21's
// (tf.compat.v1, control flow v1) for the same program and initial values.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include <symflow/symflow.hpp>
#include <symflow/train/train.hpp>

#include "../gradient_check.hpp"

namespace symflow_test_train_while_loop_training_test {

namespace tf = symflow;

constexpr std::int64_t kSteps = 5, kBatch = 8, kInput = 1, kHidden = 4;

// scale * sin(0.7 k + phase) for k = 0, 1, ...: values both programs compute alike.
tf::Value det(const tf::Dims& dims, double scale, double phase) {
  std::vector<float> v(static_cast<std::size_t>(tf::num_elements(dims)));
  for (std::size_t k = 0; k < v.size(); ++k)
    v[k] = static_cast<float>(scale * std::sin(static_cast<double>(k) * 0.7 + phase));
  return tf::Value::from_vector(v, dims);
}

struct Lstm {
  tf::Output loss;
  std::vector<tf::Variable> variables;
};

// h_T of a BasicLSTMCell (forget_bias 1) over the sequence, then a dense layer.
Lstm build(tf::Graph& g) {
  const tf::Value xs = det({kSteps, kBatch, kInput}, 1.0, 0.3);
  std::vector<float> sums(kBatch, 0.0f);
  for (std::int64_t t = 0; t < kSteps; ++t)
    for (std::int64_t b = 0; b < kBatch; ++b) sums[b] += xs.data<float>()[t * kBatch + b];
  auto inputs = tf::constant(xs, "inputs");
  auto target = tf::constant(tf::Value::from_vector(sums, {kBatch, 1}), "target");
  tf::Variable kernel(tf::constant(det({kInput + kHidden, 4 * kHidden}, 0.5, 1.1)),
                      {.name = "kernel"});
  tf::Variable bias(tf::zeros({4 * kHidden}), {.name = "bias"});
  tf::Variable w_out(tf::constant(det({kHidden, 1}, 0.5, 2.3)), {.name = "w_out"});
  tf::Variable b_out(tf::zeros({1}), {.name = "b_out"});
  auto body = [&](const tf::Output& t, const tf::Output& c, const tf::Output& h) {
    auto x = tf::gather(inputs, t);
    auto z = tf::matmul(tf::concat({x, h}, 1), kernel) + bias;
    auto gates = tf::split(z, 4, 1);
    auto c_next = c * tf::sigmoid(gates[2] + 1.0f) + tf::sigmoid(gates[0]) * tf::tanh(gates[1]);
    auto h_next = tf::tanh(c_next) * tf::sigmoid(gates[3]);
    return std::tuple{t + 1, c_next, h_next};
  };
  auto zero = tf::zeros({kBatch, kHidden});
  auto [t, c, h] = tf::while_loop(
      [](const tf::Output& t, const tf::Output&, const tf::Output&) { return t < kSteps; }, body,
      std::tuple{tf::constant(0), zero, zero});
  (void)t;
  (void)c;
  auto pred = tf::matmul(h, w_out) + b_out;
  (void)g;
  return {tf::reduce_mean(tf::square(pred - target)), {kernel, bias, w_out, b_out}};
}

TEST_CASE("train/while_loop: an LSTM in a while loop learns to sum, as in TensorFlow") {
  tf::Graph g;
  auto guard = g.as_default();
  Lstm m = build(g);
  tf::train::AdamOptimizer adam({.learning_rate = 0.05});
  tf::Operation train = adam.minimize(m.loss);
  tf::Session s(g);
  s.run(tf::global_variables_initializer());
  // TensorFlow's loss before steps 0, 1, 10, 20, 50 and 100.
  const std::vector<std::pair<int, float>> tf_loss = {
      {0, 3.8981862f}, {1, 3.5375776f}, {10, 1.3889036f}, {20, 0.18456246f}, {50, 0.016313847f}};
  std::size_t next = 0;
  for (int step = 0; step <= 100; ++step) {
    const float loss = s.run(m.loss).scalar<float>();
    if (next < tf_loss.size() && tf_loss[next].first == step) {
      CAPTURE(step);
      CHECK(loss == doctest::Approx(tf_loss[next].second).epsilon(step < 20 ? 1e-4 : 2e-2));
      ++next;
    }
    if (step == 100) CHECK(loss < 1e-4f);  // TensorFlow: 2.6e-05
    s.run(train);
  }
}

TEST_CASE("train/while_loop: a variable read inside a loop gets the central-difference gradient") {
  tf::Graph g;
  auto guard = g.as_default();
  Lstm m = build(g);
  auto grads = tf::gradients(m.loss, {m.variables[0], m.variables[2]});
  for (const tf::Operation& op : g.get_operations())
    tf::test::gradient_checked_ops().insert(std::string(op.type()));
  // The loop reads the variable's value (kernel/read) through a constant Enter.
  CHECK(g.get_operation_by_name("while/MatMul/Enter").inputs().at(0).name() == "kernel/read:0");
  tf::Session s(g);
  s.run(tf::global_variables_initializer());
  for (std::size_t k = 0; k < 2; ++k) {
    tf::Variable& v = m.variables[k == 0 ? 0 : 2];
    const tf::Value start = s.run(v);
    const tf::Value analytic = s.run(grads[k]);
    for (std::int64_t e = 0; e < start.size(); e += 3) {
      auto loss_at = [&](float delta) {
        tf::Value moved = start.clone();
        moved.data<float>()[e] += delta;
        s.run(tf::assign(v, tf::constant(moved)));
        return static_cast<double>(s.run(m.loss).scalar<float>());
      };
      const double numeric = (loss_at(1e-2f) - loss_at(-1e-2f)) / 2e-2;
      s.run(tf::assign(v, tf::constant(start)));
      CAPTURE(k);
      CAPTURE(e);
      CHECK(analytic.data<float>()[e] == doctest::Approx(numeric).epsilon(2e-2).scale(1.0));
    }
  }
}

}  // namespace symflow_test_train_while_loop_training_test
