// Gradients of the reduction ops (reduction_grad.hpp): Prod, Cumsum and Cumprod
// (numerical checks in float64, and TensorFlow's values where zeros make the formula
// matter), and the registry entries of Any and All, which nothing flows through.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <symflow/ops/registry.hpp>
#include <symflow/symflow.hpp>

#include "../gradient_check.hpp"
#include "../test_util.hpp"

namespace symflow_test_ops_reduction_grad_test {

namespace ops_reduction_grad_test {

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

}  // namespace ops_reduction_grad_test

using namespace ops_reduction_grad_test;

TEST_CASE("ops/reduction_grad: Prod with zeros in the input, as TensorFlow computes it") {
  // TF, for x = [[2,0,3],[4,5,0],[0,1,0]] (float64): d reduce_prod(x)/dx = 0 everywhere;
  // over axis 0: [[0,5,0],[0,0,0],[8,0,0]]; over axis 1 (and -1): [[0,6,0],[0,0,20],
  // [0,0,0]]; over axis 1 with keepdims and grad_ys [[1],[2],[3]]: [[0,6,0],[0,0,40],
  // [0,0,0]]. For [[2,0,3],[4,5,1]]: d reduce_prod / dx = [[0,120,0],[0,0,0]]. For
  // x3 = [[[1,2],[3,0]],[[5,6],[7,8]]] over axes [0, 2] (either order):
  // [[[60,30],[0,168]],[[12,10],[0,0]]].
  Graph g;
  auto guard = g.as_default();
  auto x = constant<double>({{2, 0, 3}, {4, 5, 0}, {0, 1, 0}});
  CHECK(grad_of(reduce_prod(x), x) == std::vector<double>(9, 0.0));
  CHECK(grad_of(reduce_prod(x, 0), x) == std::vector<double>{0, 5, 0, 0, 0, 0, 8, 0, 0});
  CHECK(grad_of(reduce_prod(x, 1), x) == std::vector<double>{0, 6, 0, 0, 0, 20, 0, 0, 0});
  CHECK(grad_of(reduce_prod(x, -1), x) == std::vector<double>{0, 6, 0, 0, 0, 20, 0, 0, 0});
  CHECK(grad_of(reduce_prod(x, 1, true), x, constant<double>({{1}, {2}, {3}})) ==
        std::vector<double>{0, 6, 0, 0, 0, 40, 0, 0, 0});
  auto x1 = constant<double>({{2, 0, 3}, {4, 5, 1}});
  CHECK(grad_of(reduce_prod(x1), x1) == std::vector<double>{0, 120, 0, 0, 0, 0});
  auto x3 = constant<double>({{{1, 2}, {3, 0}}, {{5, 6}, {7, 8}}});
  const std::vector<double> want3{60, 30, 0, 168, 12, 10, 0, 0};
  CHECK(grad_of(reduce_prod(x3, {0, 2}), x3) == want3);
  CHECK(grad_of(reduce_prod(x3, {2, 0}), x3) == want3);
  // An empty axis list reduces nothing: the gradient passes through.
  CHECK(grad_of(reduce_prod(x1, Axis(Dims{})), x1) == std::vector<double>(6, 1.0));
}

TEST_CASE("ops/reduction_grad: Prod numerical checks") {
  Value x = f64({0.5, -1.25, 2.0, 1.5, -0.75, 3.0}, {2, 3});
  Value z = f64({0.5, 0.0, 2.0, 1.5, -0.75, 0.0}, {2, 3});  // zeros, one per row
  Value x3 = f64({1.1, -0.9, 0.7, 1.3, -1.2, 0.8, 0.6, 1.4, 0.9, -1.0, 1.2, 0.5}, {2, 3, 2});
  for (const Value& v : {x, z}) {
    check_gradients([](const std::vector<Output>& in) { return reduce_prod(in[0]); }, {v});
    check_gradients([](const std::vector<Output>& in) { return reduce_prod(in[0], 0); }, {v});
    check_gradients([](const std::vector<Output>& in) { return reduce_prod(in[0], -1, true); },
                    {v});
  }
  check_gradients([](const std::vector<Output>& in) { return reduce_prod(in[0], {0, 2}); }, {x3});
  check_gradients(
      [](const std::vector<Output>& in) {
        return reduce_prod(in[0], {2, 1}, true);
      },
      {x3});
  check_gradients([](const std::vector<Output>& in) { return reduce_prod(in[0], 1); }, {x3});
}

TEST_CASE("ops/reduction_grad: Cumsum and Cumprod") {
  // TF: d cumsum(x, 1, exclusive) / dx with grad_ys [[1,2,3],[4,5,6],[7,8,9]] is
  // [[5,3,0],[11,6,0],[17,9,0]]; cumprod([1,2,3], exclusive, reverse) = [6,3,1] with
  // gradient [0,3,3].
  Graph g;
  auto guard = g.as_default();
  auto x = constant<double>({{2, 0, 3}, {4, 5, 0}, {0, 1, 0}});
  auto gy = constant<double>({{1, 2, 3}, {4, 5, 6}, {7, 8, 9}});
  auto cs = cumsum(x, 1, true);
  CHECK(grad_of(cs, x, gy) == std::vector<double>{5, 3, 0, 11, 6, 0, 17, 9, 0});
  auto grads = gradients(cs, {x});
  CHECK(grads[0].op().type() == "Cumsum");
  CHECK(grads[0].op().get_attr<bool>("reverse") == true);
  CHECK(grads[0].op().get_attr<bool>("exclusive") == true);
  auto y = constant<double>({1, 2, 3});
  auto cp = cumprod(y, 0, true, true);
  CHECK(run_vector<double>(cp) == std::vector<double>{6, 3, 1});
  CHECK(grad_of(cp, y) == std::vector<double>{0, 3, 3});

  Value v = f64({0.5, -1.25, 2.0, 1.5, -0.75, 3.0}, {2, 3});
  for (bool exclusive : {false, true})
    for (bool reverse : {false, true})
      for (int axis : {0, 1, -1}) {
        CAPTURE(exclusive);
        CAPTURE(reverse);
        CAPTURE(axis);
        check_gradients(
            [&](const std::vector<Output>& in) { return cumsum(in[0], axis, exclusive, reverse); },
            {v});
        check_gradients(
            [&](const std::vector<Output>& in) { return cumprod(in[0], axis, exclusive, reverse); },
            {v});
      }
}

TEST_CASE("ops/reduction_grad: registry entries of the reduction ops") {
  for (const char* type : {"Any", "All"}) {
    CAPTURE(type);
    const OpEntry* entry = find_op_entry(type);
    REQUIRE(entry);
    CHECK((entry->grad == &not_differentiable));
  }
  for (const char* type : {"Prod", "Cumsum", "Cumprod"}) {
    CAPTURE(type);
    const OpEntry* entry = find_op_entry(type);
    REQUIRE(entry);
    CHECK((entry->grad != nullptr));
    CHECK((entry->grad != &not_differentiable));
  }
}

}  // namespace symflow_test_ops_reduction_grad_test
