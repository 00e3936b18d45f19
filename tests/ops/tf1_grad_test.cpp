// Gradients of the ops of tf1_ops_test.cpp: AddV2 (Add's), FloorMod (x - floor(x / y) * y),
// PlaceholderWithDefault (Identity's) and SelectV2 (Select's, summed over broadcast axes),
// numerically checked in float64 and against TensorFlow 2.21's values and node names;
// FloorDiv lets nothing through, and Mod has no gradient at all.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <symflow/ops/registry.hpp>
#include <symflow/symflow.hpp>

#include "../gradient_check.hpp"
#include "../test_util.hpp"

namespace symflow_test_ops_tf1_grad_test {

namespace tf1_grad_test {

using namespace symflow;
using namespace symflow::test;

inline Value f64(std::initializer_list<double> v, Dims dims) {
  return Value::from_vector(std::vector<double>(v), std::move(dims));
}

}  // namespace tf1_grad_test

using namespace tf1_grad_test;

TEST_CASE("ops/tf1_grad: AddV2 differentiates as Add, summing over broadcast axes") {
  // TF: for AddV2(x [2, 3], y [3]), dx is the incoming ones and dy = [2, 2, 2].
  Graph g;
  auto guard = g.as_default();
  auto x = constant<float>({{1, 2, 3}, {4, 5, 6}});
  auto y = constant<float>({10, 20, 30});
  Output z = raw_ops::add_v2(x, y);
  auto grads = gradients(z, {x, y});
  REQUIRE(grads.size() == 2);
  CHECK(run_vector<float>(grads[0]) == std::vector<float>{1, 1, 1, 1, 1, 1});
  CHECK(run_vector<float>(grads[1]) == std::vector<float>{2, 2, 2});

  check_gradients([](const std::vector<Output>& in) { return raw_ops::add_v2(in[0], in[1]); },
                  {f64({0.5, -1.0, 2.0, 1.5, -0.25, 3.0}, {2, 3}), f64({1.0, 2.5, -2.0}, {3})});
  check_gradients([](const std::vector<Output>& in) { return raw_ops::add_v2(in[0], in[1]); },
                  {f64({0.5}, {}), f64({1.0, 2.5, -2.0, 4.0}, {2, 2})});
}

TEST_CASE("ops/tf1_grad: FloorMod's gradient is 1 for x and -floor(x / y) for y") {
  // TF: x = [[7, -7.5], [3, -1]], y = [2, -2]: dx = [[1, 1], [1, 1]], dy = [-4, -3]; the
  // nodes gradients/FloorMod_grad/FloorDiv, .../Neg and .../mul, then Sum and Reshape.
  Graph g;
  auto guard = g.as_default();
  auto x = constant<float>({{7, -7.5f}, {3, -1}});
  auto y = constant<float>({2, -2});
  Output z = floormod(x, y);
  auto grads = gradients(z, {x, y});
  REQUIRE(grads.size() == 2);
  CHECK(run_vector<float>(grads[0]) == std::vector<float>{1, 1, 1, 1});
  CHECK(run_vector<float>(grads[1]) == std::vector<float>{-4, -3});
  CHECK(g.get_operation_by_name("gradients/FloorMod_grad/FloorDiv").type() == "FloorDiv");
  CHECK(g.get_operation_by_name("gradients/FloorMod_grad/Neg").type() == "Neg");
  CHECK(g.get_operation_by_name("gradients/FloorMod_grad/mul").type() == "Mul");

  // Away from the jumps of the remainder (x a multiple of y), on both signs of y.
  check_gradients([](const std::vector<Output>& in) { return floormod(in[0], in[1]); },
                  {f64({7.3, -7.6, 2.2, -0.9, 5.1, 0.4}, {2, 3}), f64({2.0, -2.5, 1.5}, {3})});
}

TEST_CASE("ops/tf1_grad: FloorDiv lets no gradient through, and Mod has none") {
  // TF: gradients(floordiv(x, y), [x, y]) is [None, None]; through raw_ops.Mod it raises
  // LookupError "No gradient defined for operation 'Mod' (op type: Mod)".
  Graph g;
  auto guard = g.as_default();
  auto x = constant<float>({7, -7, 7.5f});
  auto y = constant<float>({2, 2, -2});
  auto grads = gradients(floordiv(x, y), {x, y});
  REQUIRE(grads.size() == 2);
  CHECK_FALSE(grads[0].valid());
  CHECK_FALSE(grads[1].valid());
  auto e = thrown<LookupError>([&] { gradients(raw_ops::mod(x, y), {x, y}); });
  REQUIRE(e.has_value());
  CHECK(contains(e->message(), "No gradient defined for operation 'Mod' (op type: Mod)"));
}

TEST_CASE("ops/tf1_grad: PlaceholderWithDefault passes the gradient on to its default") {
  // TF: d sum(placeholder_with_default(c, [None, 3]) * 3) / dc = 3 everywhere.
  Graph g;
  auto guard = g.as_default();
  auto c = constant<float>({{1, 2, 3}, {4, 5, 6}});
  Output p = placeholder_with_default(c, Shape{-1, 3});
  auto grads = gradients(reduce_sum(p * 3.0f), {c});
  REQUIRE(grads.size() == 1);
  CHECK(run_vector<float>(grads[0]) == std::vector<float>{3, 3, 3, 3, 3, 3});

  check_gradients(
      [](const std::vector<Output>& in) {
        return square(placeholder_with_default(in[0], Shape{-1, 2}));
      },
      {f64({0.5, -1.0, 2.0, 1.5}, {2, 2})});
}

TEST_CASE("ops/tf1_grad: SelectV2 splits the gradient by the condition, summed to each branch") {
  // TF: c = [[T, F, T], [F, T, T]], x [1, 3], y [2, 1]: dx = [[1, 1, 2]], dy = [[1], [1]],
  // none for c; the nodes gradients/SelectV2_grad/zeros (a scalar Const),
  // .../SelectV2 and .../SelectV2_1. With x, y and c of one shape no Sum is built:
  // dx = [1, 0], dy = [0, 1] for c = [T, F].
  Graph g;
  auto guard = g.as_default();
  auto c = constant<bool>({{true, false, true}, {false, true, true}});
  auto x = constant<float>({{1, 2, 3}});
  auto y = constant<float>({{10}, {20}});
  Output z = where_v2(c, x, y);
  auto grads = gradients(z, {c, x, y});
  REQUIRE(grads.size() == 3);
  CHECK_FALSE(grads[0].valid());
  CHECK(run_vector<float>(grads[1]) == std::vector<float>{1, 1, 2});
  CHECK(run_vector<float>(grads[2]) == std::vector<float>{1, 1});
  CHECK(grads[1].get_shape() == Shape{1, 3});
  CHECK(grads[2].get_shape() == Shape{2, 1});
  Operation zeros = g.get_operation_by_name("gradients/SelectV2_grad/zeros");
  CHECK(zeros.type() == "Const");
  CHECK(zeros.output(0).get_shape() == Shape{});
  CHECK(g.get_operation_by_name("gradients/SelectV2_grad/SelectV2").type() == "SelectV2");
  CHECK(g.get_operation_by_name("gradients/SelectV2_grad/SelectV2_1").type() == "SelectV2");

  auto x2 = constant<float>({1, 2});
  auto y2 = constant<float>({3, 4});
  auto g2 = gradients(where_v2(constant<bool>({true, false}), x2, y2), {x2, y2});
  REQUIRE(g2.size() == 2);
  CHECK(g2[0].name() == "gradients_1/SelectV2_1_grad/SelectV2:0");
  CHECK(g2[1].name() == "gradients_1/SelectV2_1_grad/SelectV2_1:0");
  CHECK(run_vector<float>(g2[0]) == std::vector<float>{1, 0});
  CHECK(run_vector<float>(g2[1]) == std::vector<float>{0, 1});

  // Numerically: branches broadcast against each other and against the condition.
  check_gradients(
      [](const std::vector<Output>& in) {
        return where_v2(constant<bool>({{true, false, true}, {false, true, true}}), in[0], in[1]);
      },
      {f64({0.5, -1.0, 2.0}, {1, 3}), f64({1.0, 2.5}, {2, 1})});
  check_gradients(
      [](const std::vector<Output>& in) {
        return where_v2(constant<bool>({{true}, {false}}), in[0], in[1]);
      },
      {f64({0.5, -1.0, 2.0}, {3}), f64({1.5}, {})});
}

}  // namespace symflow_test_ops_tf1_grad_test
