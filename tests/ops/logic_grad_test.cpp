// Gradients of the logic ops (logic_grad.hpp): Select's (numerical checks in float64,
// and TensorFlow's values), and the registry entries of the ops nothing flows through.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <symflow/ops/registry.hpp>
#include <symflow/symflow.hpp>

#include "../gradient_check.hpp"
#include "../test_util.hpp"

namespace symflow_test_ops_logic_grad_test {

namespace ops_logic_grad_test {

using namespace symflow;
using namespace symflow::test;

inline Value f64(std::initializer_list<double> v, Dims dims) {
  return Value::from_vector(std::vector<double>(v), std::move(dims));
}

// d sum(y * grad_y) / dx, evaluated.
inline std::vector<double> grad_of(const Output& y, const Output& x, const Output& grad_y = {}) {
  auto grads =
      gradients(y, {x}, grad_y.valid() ? std::vector<Output>{grad_y} : std::vector<Output>{});
  REQUIRE(grads.size() == 1);
  REQUIRE(grads[0].valid());
  return run_vector<double>(grads[0]);
}

}  // namespace ops_logic_grad_test

using namespace ops_logic_grad_test;

TEST_CASE("ops/logic_grad: Select sends the gradient to t where the condition holds") {
  // TF: for where(c, x, y), c = [[T,F,T],[F,F,T]]: dx = [[1,0,1],[0,0,1]], dy = [[0,1,0],
  // [1,1,0]], none for c; the nodes are gradients/Select_grad/zeros_like,
  // gradients/Select_grad/Select and gradients/Select_grad/Select_1.
  Graph g;
  auto guard = g.as_default();
  auto x = constant<double>({{1, 2, 3}, {4, 5, 6}});
  auto y = constant<double>({{-1, -2, -3}, {-4, -5, -6}});
  auto c = constant<bool>({{true, false, true}, {false, false, true}});
  auto s = where(c, x, y);
  auto grads = gradients(s, {c, x, y});
  REQUIRE(grads.size() == 3);
  CHECK_FALSE(grads[0].valid());
  CHECK(grads[1].name() == "gradients/Select_grad/Select:0");
  CHECK(grads[2].name() == "gradients/Select_grad/Select_1:0");
  CHECK(g.get_operation_by_name("gradients/Select_grad/zeros_like").type() == "ZerosLike");
  CHECK(run_vector<double>(grads[1]) == std::vector<double>{1, 0, 1, 0, 0, 1});
  CHECK(run_vector<double>(grads[2]) == std::vector<double>{0, 1, 0, 1, 1, 0});
}

TEST_CASE("ops/logic_grad: Select numerical checks, elementwise, vector and scalar conditions") {
  Value a = f64({0.5, -1.0, 2.0, 1.5, -0.25, 3.0}, {2, 3});
  Value b = f64({1.0, 2.5, -2.0, 0.75, 4.0, -1.5}, {2, 3});
  check_gradients(
      [](const std::vector<Output>& in) {
        return where(constant<bool>({{true, false, true}, {false, false, true}}), in[0], in[1]);
      },
      {a, b});
  // A vector condition picks rows.
  check_gradients(
      [](const std::vector<Output>& in) {
        return where(constant<bool>({false, true}), in[0], in[1]);
      },
      {a, b});
  // A scalar condition picks a whole tensor.
  check_gradients([](const std::vector<Output>& in) { return where(constant(true), in[0], in[1]); },
                  {a, b});
  // A relu made from a comparison: Greater has no gradient, and needs none.
  check_gradients(
      [](const std::vector<Output>& in) {
        return where(greater(in[0], 0.0), in[0], zeros_like(in[0]));
      },
      {a});
}

TEST_CASE("ops/logic_grad: comparisons stop the gradient (TF's relu-like where)") {
  // TF: d sum(where(x > 1, x, zeros_like(x))) / dx for x = [[2,0,3],[4,5,0],[0,1,0]] is
  // [[1,0,1],[1,1,0],[0,0,0]].
  Graph g;
  auto guard = g.as_default();
  auto x = constant<double>({{2, 0, 3}, {4, 5, 0}, {0, 1, 0}});
  auto r = where(x > 1.0, x, zeros_like(x));
  CHECK(grad_of(reduce_sum(r), x) == std::vector<double>{1, 0, 1, 1, 1, 0, 0, 0, 0});
}

TEST_CASE("ops/logic_grad: registry entries of the comparison and logical ops") {
  for (const char* type : {"Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual",
                           "LogicalAnd", "LogicalOr", "LogicalNot", "Where", "ArgMax", "ArgMin"}) {
    CAPTURE(type);
    const OpEntry* entry = find_op_entry(type);
    REQUIRE(entry);
    CHECK((entry->grad == &not_differentiable));
  }
  const OpEntry* select = find_op_entry("Select");
  REQUIRE(select);
  CHECK((select->grad != nullptr));
  CHECK((select->grad != &not_differentiable));
  // Nothing flows back through a comparison: the gradient of a bool input is none.
  Graph g;
  auto guard = g.as_default();
  auto x = constant<double>({1, 2});
  auto grads = gradients(reduce_sum(where(x > 1.5, x, x)), {x});
  CHECK(run_vector<double>(grads[0]) == std::vector<double>{1, 1});
}

TEST_CASE("ops/logic_grad: clip_by_value passes the gradient inside the bounds only") {
  Value x = f64({-2.0, -0.4, 0.3, 0.9, 1.7, 2.5}, {2, 3});
  check_gradients([](auto in) { return clip_by_value(in[0], -1.0, 1.0); }, {x});
  Graph g;
  auto guard = g.as_default();
  auto t = constant<double>({-2.0, 0.5, 3.0});
  CHECK(grad_of(clip_by_value(t, -1.0, 1.0), t) == std::vector<double>{0.0, 1.0, 0.0});
}

}  // namespace symflow_test_ops_logic_grad_test
