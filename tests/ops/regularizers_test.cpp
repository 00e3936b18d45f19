// symflow::regularizers: Keras's l1 / l2 / l1_l2 and contrib's l1_regularizer /
// l2_regularizer, checked against TensorFlow's values and node names, and their penalties
// in the regularization losses.

#include <doctest/doctest.h>

#include <string>
#include <utility>
#include <vector>

#include <symflow/ops/losses.hpp>
#include <symflow/ops/regularizers.hpp>
#include <symflow/symflow.hpp>

#include "../test_util.hpp"

namespace symflow_test_ops_regularizers_test {

using namespace symflow;
using namespace symflow::test;

// w = [[1, -2], [3, -0.5]] in every TensorFlow run below.
Output weights() { return constant<float>({{1, -2}, {3, -0.5f}}); }

float scalar_of(const Output& t) {
  Session sess(t.graph());
  return sess.run(t).to_vector<float>().at(0);
}

TEST_CASE("regularizers/keras: l1, l2 and l1_l2") {
  // TF 1.x Keras builds 0. + sum(l1 * |w|) (+ sum(l2 * w^2)): with l1 = 0.01, l2 = 0.02,
  // the graph gives 0.065, 0.28499997 and 0.34999996 (Keras 3: 0.065, 0.285, 0.35), as the
  // nodes Abs, mul/x, mul, Const, Sum, add/x, add, then Square, mul_1/x, mul_1, Const_1,
  // Sum_1 and add_1 (add + Sum_1).
  Graph g;
  auto guard = g.as_default();
  Output w = weights();
  Output both = regularizers::l1_l2(0.01, 0.02)(w);
  std::vector<std::string> names;
  for (const auto& [name, type] : nodes(g)) names.push_back(name);
  CHECK(names == std::vector<std::string>{"Const", "Abs", "mul/x", "mul", "Const_1", "Sum", "add/x",
                                          "add", "Square", "mul_1/x", "mul_1", "Const_2", "Sum_1",
                                          "add_1"});
  CHECK(input_names(g.get_operation_by_name("mul")) ==
        std::vector<std::string>{"mul/x:0", "Abs:0"});
  CHECK(input_names(both) == std::vector<std::string>{"add:0", "Sum_1:0"});
  CHECK(both.get_shape() == Shape{});
  Output l1 = regularizers::l1(0.01)(w);
  Output l2 = regularizers::l2(0.02)(w);
  CHECK(scalar_of(l1) == doctest::Approx(0.065f).epsilon(1e-6));
  CHECK(scalar_of(l2) == doctest::Approx(0.28499997f).epsilon(1e-6));
  CHECK(scalar_of(both) == doctest::Approx(0.34999996f).epsilon(1e-6));
  // Keras's defaults are 0.01; both factors 0 give a 0 of w's dtype.
  CHECK(scalar_of(regularizers::l2()(w)) == doctest::Approx(0.1425f).epsilon(1e-5));
  Output none = regularizers::l1_l2(0, 0)(w);
  CHECK(none.op().type() == "Const");
  CHECK(scalar_of(none) == 0.0f);
}

TEST_CASE("regularizers/contrib: l1_regularizer and l2_regularizer") {
  // TF (tf.contrib.layers' graph, rebuilt with tf.nn.l2_loss): scale 0.5:
  // l1_regularizer = 3.25 as l1_regularizer/{scale, Abs, Const, Sum} and the Mul
  // "l1_regularizer"; l2_regularizer = 0.5 * l2_loss(w) = 3.5625 as
  // l2_regularizer/{scale, L2Loss} and the Mul "l2_regularizer".
  Graph g;
  auto guard = g.as_default();
  Output w = weights();
  Output l1 = regularizers::l1_regularizer(0.5)(w);
  Output l2 = regularizers::l2_regularizer(0.5)(w);
  CHECK(nodes(g) == std::vector<std::pair<std::string, std::string>>{
                        {"Const", "Const"},
                        {"l1_regularizer/scale", "Const"},
                        {"l1_regularizer/Abs", "Abs"},
                        {"l1_regularizer/Const", "Const"},
                        {"l1_regularizer/Sum", "Sum"},
                        {"l1_regularizer", "Mul"},
                        {"l2_regularizer/scale", "Const"},
                        {"l2_regularizer/L2Loss", "L2Loss"},
                        {"l2_regularizer", "Mul"},
                    });
  CHECK(input_names(l1) ==
        std::vector<std::string>{"l1_regularizer/scale:0", "l1_regularizer/Sum:0"});
  CHECK(input_names(l2) ==
        std::vector<std::string>{"l2_regularizer/scale:0", "l2_regularizer/L2Loss:0"});
  CHECK(scalar_of(l1) == doctest::Approx(3.25f));
  CHECK(scalar_of(l2) == doctest::Approx(3.5625f));
  // A scope of one's own; a float64 weight gets a float64 scale.
  Output d = regularizers::l2_regularizer(0.5, "decay")(constant<double>({2, 2}));
  CHECK(d.name() == "decay:0");
  CHECK(d.dtype() == DType::float64);
  Session sess(g);
  CHECK(sess.run(d).to_vector<double>()[0] == doctest::Approx(2.0));
}

TEST_CASE("regularizers/contrib: scales") {
  // TF: a negative scale is ValueError "Setting a scale less than 0 on a regularizer:
  // -0.5"; scale 0 returns None (no penalty).
  auto e = thrown<ValueError>([] { regularizers::l1_regularizer(-0.5); });
  REQUIRE(e);
  CHECK(e->message() == "Setting a scale less than 0 on a regularizer: -0.5");
  CHECK(thrown<ValueError>([] { regularizers::l2_regularizer(-1e-3); }));
  Graph g;
  auto guard = g.as_default();
  Output w = weights();
  CHECK_FALSE(regularizers::l2_regularizer(0.0)(w).valid());
  CHECK(g.get_operations().size() == 1);
}

TEST_CASE("regularizers/apply_regularization and the total loss") {
  // TF (contrib's apply_regularization): l2_regularizer(0.5) on [w, v]: AddN
  // "get_regularization_penalty" of get_regularization_penalty/l2_regularizer{,_1}, added to
  // REGULARIZATION_LOSSES: 3.5625 + 0.5 * (1 + 4) / 2 = 4.8125; with a loss of 0.075,
  // get_total_loss() = 4.8875. No weights: "No weights to regularize."; a penalty of rank 1:
  // "regularizer must return a scalar Tensor instead of a Tensor with rank 1."
  Graph g;
  auto guard = g.as_default();
  Output w = weights();
  Output v = constant<float>({1, 2});
  Output penalty = regularizers::apply_regularization(regularizers::l2_regularizer(0.5), {w, v});
  CHECK(penalty.name() == "get_regularization_penalty:0");
  CHECK(penalty.op().type() == "AddN");
  CHECK(input_names(penalty) ==
        std::vector<std::string>{"get_regularization_penalty/l2_regularizer:0",
                                 "get_regularization_penalty/l2_regularizer_1:0"});
  REQUIRE(losses::get_regularization_losses().size() == 1);
  CHECK(scalar_of(penalty) == doctest::Approx(4.8125f));
  CHECK(scalar_of(losses::get_regularization_loss()) == doctest::Approx(4.8125f));
  losses::mean_squared_error(constant<float>({{1, 0}, {0, 1}}),
                             constant<float>({{0.9f, 0.2f}, {0.3f, 0.6f}}));
  CHECK(scalar_of(losses::get_total_loss()) == doctest::Approx(4.8875f));
  CHECK(scalar_of(losses::get_total_loss(false)) == doctest::Approx(0.075f));

  auto none = thrown<ValueError>(
      [] { regularizers::apply_regularization(regularizers::l1_regularizer(0.1)); });
  REQUIRE(none);
  CHECK(none->message() == "No weights to regularize.");
  auto rank = thrown<ValueError>(
      [&] { regularizers::apply_regularization([](const Output& x) { return abs(x); }, {v}); });
  REQUIRE(rank);
  CHECK(rank->message() ==
        "regularizer must return a scalar Tensor instead of a Tensor with rank 1.");
}

TEST_CASE("regularizers/apply_regularization: one weight and a missing penalty") {
  // TF: one penalty is an Identity named "get_regularization_penalty"; a regularizer that
  // returns None (scale 0) counts as a 0.0 Const.
  Graph g;
  auto guard = g.as_default();
  Output w = weights();
  Output one = regularizers::apply_regularization(regularizers::l1_regularizer(0.5), {w});
  CHECK(one.name() == "get_regularization_penalty:0");
  CHECK(one.op().type() == "Identity");
  CHECK(scalar_of(one) == doctest::Approx(3.25f));
  Output zero = regularizers::apply_regularization(regularizers::l1_regularizer(0.0), {w});
  CHECK(input_names(zero) == std::vector<std::string>{"get_regularization_penalty_1/Const:0"});
  CHECK(scalar_of(zero) == 0.0f);
  CHECK(losses::get_regularization_losses().size() == 2);
}

}  // namespace symflow_test_ops_regularizers_test
