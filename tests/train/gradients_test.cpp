// symflow::gradients: the backward graph's structure and names, path summing, None for
// unconnected xs, stop_gradient, and numerical checks of the math ops' gradients.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <symflow/symflow.hpp>

#include "../gradient_check.hpp"
#include "../node_rows.hpp"
#include "../test_util.hpp"

namespace symflow_test_train_gradients_test {

using namespace symflow;
using symflow::test::check_gradients;
using namespace symflow::test;

namespace {
Value f64(std::initializer_list<double> v, Dims dims) {
  return Value::from_vector(std::vector<double>(v), std::move(dims));
}
}  // namespace

TEST_CASE("gradients: d(x*x + 3x)/dx at x = 2 is 7") {
  Graph g;
  auto guard = g.as_default();
  auto x = constant(2.0, "x");
  auto y = x * x + x * 3.0;
  auto grads = gradients(y, {x});
  REQUIRE(grads.size() == 1);
  Session sess(g);
  CHECK(sess.run(grads[0]).data<double>()[0] == doctest::Approx(7.0));
}

TEST_CASE("gradients: nodes live under gradients/<op>_grad and the seed is a Fill of ones") {
  Graph g;
  auto guard = g.as_default();
  Output a = placeholder(DType::float32, Shape{2}, "a");
  Output b = placeholder(DType::float32, Shape{2}, "b");
  Output c = a * b;
  auto grads = gradients(c, {a, b});
  REQUIRE(grads.size() == 2);
  std::vector<std::string> names;
  for (const Operation& op : g.get_operations()) names.push_back(op.name());
  for (const char* expected : {"gradients/Shape", "gradients/grad_ys_0", "gradients/Fill"})
    CHECK_MESSAGE(std::find(names.begin(), names.end(), expected) != names.end(), expected);
  CHECK(grads[0].name().rfind("gradients/mul_grad/", 0) == 0);
  CHECK(grads[1].name().rfind("gradients/mul_grad/", 0) == 0);
  // A second call opens gradients_1.
  auto again = gradients(c, {a});
  CHECK(again[0].name().rfind("gradients_1/", 0) == 0);
  Session sess(g);
  auto out = sess.run({grads[0], grads[1]}, {{a, {1.0f, 2.0f}}, {b, {3.0f, 4.0f}}});
  CHECK(out[0].flat<float>()[0] == 3.0f);
  CHECK(out[0].flat<float>()[1] == 4.0f);
  CHECK(out[1].flat<float>()[0] == 1.0f);
  CHECK(out[1].flat<float>()[1] == 2.0f);
}

TEST_CASE("gradients: several paths are summed with AddN; unconnected xs get none") {
  Graph g;
  auto guard = g.as_default();
  auto x = constant(3.0, "x");
  auto z = constant(1.0, "z");
  auto y = square(x) + exp(x) + x;  // dy/dx = 2x + e^x + 1
  auto grads = gradients(y, {x, z});
  REQUIRE(grads.size() == 2);
  CHECK_FALSE(grads[1].valid());
  CHECK(grads[0].op().type() == "AddN");
  Session sess(g);
  CHECK(sess.run(grads[0]).data<double>()[0] == doctest::Approx(6.0 + std::exp(3.0) + 1.0));
}

TEST_CASE("gradients: stop_gradient and stop_gradients block the flow") {
  Graph g;
  auto guard = g.as_default();
  auto x = constant(2.0, "x");
  auto y = x * stop_gradient(x);  // d/dx = stop_gradient(x) = 2
  auto grads = gradients(y, {x});
  Session sess(g);
  CHECK(sess.run(grads[0]).data<double>()[0] == doctest::Approx(2.0));
  auto h = x * x;
  auto w = h * x;
  auto blocked = gradients(w, {x}, {}, {.stop_gradients = {h}});  // h treated as constant
  CHECK(sess.run(blocked[0]).data<double>()[0] == doctest::Approx(4.0));
}

TEST_CASE("gradients: grad_ys weight the ys; a variable's gradient flows through its read") {
  Graph g;
  auto guard = g.as_default();
  Variable v(Value{1.0f, 2.0f}, {.name = "v"});
  Output y = v * v;
  auto grads = gradients({y}, {v.ref()}, {constant<float>({10.0f, 100.0f})});
  REQUIRE(grads[0].valid());
  Session sess(g);
  sess.run(global_variables_initializer());
  auto got = sess.run(grads[0]);
  CHECK(got.flat<float>()[0] == 20.0f);
  CHECK(got.flat<float>()[1] == 400.0f);
}

TEST_CASE("gradients: an op without a gradient is a LookupError naming it") {
  Graph g;
  auto guard = g.as_default();
  Variable v(Value{1.0f}, {.name = "v"});
  Output a = assign_add(v, {1.0f});
  auto err = thrown<LookupError>([&] { (void)gradients(a, {v.ref()}); });
  REQUIRE(err);
  CHECK(contains(err->message(),
                 "No gradient defined for operation 'AssignAdd' (op type: AssignAdd)"));
}

TEST_CASE("gradients: integer ys are rejected with a TypeError") {
  Graph g;
  auto guard = g.as_default();
  auto x = constant(std::int32_t{2});
  auto err = thrown<TypeError>([&] { (void)gradients(x * x, {x}); });
  REQUIRE(err);
  CHECK(contains(err->message(), "floating point"));
}

TEST_CASE("gradients/math: binary ops with broadcasting") {
  Value a = f64({0.5, -1.2, 2.0, 0.7, 1.1, -0.3}, {2, 3});
  Value b = f64({1.5, 0.8, -2.5}, {3});
  Value s = f64({1.7}, {});
  check_gradients([](auto x) { return x[0] + x[1]; }, {a, b});
  check_gradients([](auto x) { return x[0] - x[1]; }, {a, b});
  check_gradients([](auto x) { return x[0] * x[1]; }, {a, b});
  check_gradients([](auto x) { return x[0] / x[1]; }, {a, b});
  check_gradients([](auto x) { return x[1] / x[0]; }, {a, s});
  check_gradients([](auto x) { return x[0] * x[1]; }, {s, a});
  // Div (TF's truncating-on-integers division) is real division on floats.
  check_gradients([](auto x) { return detail::binary(detail::kDivOp, x[0], x[1], {}, "Div"); },
                  {a, b});
  check_gradients([](auto x) { return maximum(x[0], x[1]); }, {a, b});
  check_gradients([](auto x) { return minimum(x[0], x[1]); }, {a, b});
  Value pos = f64({0.5, 1.2, 2.0, 0.7, 1.1, 0.3}, {2, 3});
  check_gradients([](auto x) { return pow(x[0], x[1]); }, {pos, b});
}

TEST_CASE("gradients/math: pow's exponent gradient is zero where the base is not positive") {
  Graph g;
  auto guard = g.as_default();
  auto x = constant(-2.0, "x");
  auto y = constant(2.0, "y");
  auto grads = gradients(pow(x, y), {x, y});
  Session sess(g);
  CHECK(sess.run(grads[0]).data<double>()[0] == doctest::Approx(-4.0));
  CHECK(sess.run(grads[1]).data<double>()[0] == 0.0);
}

TEST_CASE("gradients/math: binary ops with unknown static shapes use dynamic reductions") {
  Graph g;
  auto guard = g.as_default();
  Output a = placeholder(DType::float64, Shape::unknown(), "a");
  Output b = placeholder(DType::float64, Shape{unknown_dim}, "b");
  auto grads = gradients(a * b, {a, b});
  Session sess(g);
  auto out =
      sess.run({grads[0], grads[1]}, {{a, f64({1, 2, 3, 4}, {2, 2})}, {b, f64({5, 6}, {2})}});
  CHECK(out[0].dims() == Dims{2, 2});
  CHECK(out[0].data<double>()[0] == 5.0);
  CHECK(out[0].data<double>()[3] == 6.0);
  CHECK(out[1].dims() == Dims{2});
  CHECK(out[1].data<double>()[0] == 4.0);  // 1 + 3
  CHECK(out[1].data<double>()[1] == 6.0);  // 2 + 4
}

TEST_CASE("gradients/math: unary ops") {
  Value p = f64({0.5, 1.2, 2.0, 0.7}, {2, 2});
  Value m = f64({0.5, -1.2, 2.0, -0.7}, {2, 2});
  check_gradients([](auto x) { return negative(x[0]); }, {m});
  check_gradients([](auto x) { return square(x[0]); }, {m});
  check_gradients([](auto x) { return abs(x[0]); }, {m});
  check_gradients([](auto x) { return sqrt(x[0]); }, {p});
  check_gradients([](auto x) { return exp(x[0]); }, {m});
  check_gradients([](auto x) { return log(x[0]); }, {p});
  check_gradients([](auto x) { return identity(x[0]); }, {m});
  check_gradients([](auto x) { return cast(cast(x[0], DType::float32), DType::float64); }, {m},
                  1e-4, 1e-3);
}

TEST_CASE("gradients/math: matmul with every transpose combination") {
  Value a = f64({0.5, -1.2, 2.0, 0.7, 1.1, -0.3}, {2, 3});
  Value b = f64({1.5, 0.8, -2.5, 0.3, 0.9, -1.0}, {3, 2});
  Value at = f64({0.5, 0.7, -1.2, 1.1, 2.0, -0.3}, {3, 2});
  Value bt = f64({1.5, -2.5, 0.9, 0.8, 0.3, -1.0}, {2, 3});
  check_gradients([](auto x) { return matmul(x[0], x[1]); }, {a, b});
  check_gradients([](auto x) { return matmul(x[0], x[1], true, false); }, {at, b});
  check_gradients([](auto x) { return matmul(x[0], x[1], false, true); }, {a, bt});
  check_gradients([](auto x) { return matmul(x[0], x[1], true, true); }, {at, bt});
}

TEST_CASE("gradients/math: reductions, reshape, expand_dims, squeeze, tile, broadcast_to") {
  Value a = f64({0.5, -1.2, 2.0, 0.7, 1.1, -0.3}, {2, 3});
  check_gradients([](auto x) { return reduce_sum(x[0]); }, {a});
  check_gradients([](auto x) { return reduce_sum(x[0], 0); }, {a});
  check_gradients([](auto x) { return reduce_sum(x[0], 1, true); }, {a});
  check_gradients([](auto x) { return reduce_mean(x[0]); }, {a});
  check_gradients([](auto x) { return reduce_mean(x[0], {0}); }, {a});
  check_gradients([](auto x) { return reduce_max(x[0]); }, {a});
  check_gradients([](auto x) { return reduce_max(x[0], 1); }, {a});
  check_gradients([](auto x) { return reduce_min(x[0], 0, true); }, {a});
  check_gradients([](auto x) { return reshape(x[0], {3, 2}); }, {a});
  check_gradients([](auto x) { return expand_dims(x[0], 1); }, {a});
  check_gradients([](auto x) { return squeeze(expand_dims(x[0], 0)); }, {a});
  check_gradients([](auto x) { return tile(x[0], {2, 1}); }, {a});
  check_gradients([](auto x) { return broadcast_to(x[0], {4, 2, 3}); }, {a});
  check_gradients([](auto x) { return add_n({x[0], x[0] * x[0]}); }, {a});
}

TEST_CASE("gradients/math: a tie in reduce_max shares the gradient") {
  Graph g;
  auto guard = g.as_default();
  auto x = constant<double>({1.0, 3.0, 3.0});
  auto grads = gradients(reduce_max(x), {x});
  Session sess(g);
  CHECK(sess.run(grads[0]).to_vector<double>() == std::vector<double>{0.0, 0.5, 0.5});
}

TEST_CASE("gradients/math: reductions over a batch of unknown size") {
  Graph g;
  auto guard = g.as_default();
  Output a = placeholder(DType::float64, Shape{unknown_dim, 2}, "a");
  auto grads = gradients(reduce_mean(a, 1), {a});
  Session sess(g);
  Value got = sess.run(grads[0], {{a, f64({1, 2, 3, 4, 5, 6}, {3, 2})}});
  CHECK(got.dims() == Dims{3, 2});
  for (double v : got.flat<double>()) CHECK(v == 0.5);
}

}  // namespace symflow_test_train_gradients_test

namespace symflow_test_train_gradients_test {

TEST_CASE("gradients: aggregation_method TREE and ACCUMULATE_N chain two-input AddNs, as TF") {
  for (AggregationMethod method :
       {AggregationMethod::EXPERIMENTAL_TREE, AggregationMethod::EXPERIMENTAL_ACCUMULATE_N}) {
    Graph g;
    auto guard = g.as_default();
    auto x = placeholder(DType::float32, Shape({2}), "x");
    // One product per statement: the operands of + have no set order of evaluation.
    auto square = x * x;
    auto times_three = x * 3.0f;
    auto y = square + times_three + sin(x);
    const std::size_t first = g.num_nodes();
    Output grad = gradients(y, {x}, {}, {.aggregation_method = method})[0];
    CHECK(grad.name() == "gradients/x_gradient_sum/AddN_2:0");
    std::vector<std::string> sums;
    for (const std::string& row : symflow::test::rows_since(g, first))
      if (row.find(" AddN ") != std::string::npos) sums.push_back(row);
    // TF 2.21's graph (its first product is named mul_grad/Mul there too).
    symflow::test::check_rows(
        sums,
        {"gradients/x_gradient_sum/AddN AddN [gradients/Sin_grad/mul,gradients/mul_grad/Mul] ",
         "gradients/x_gradient_sum/AddN_1 AddN "
         "[gradients/x_gradient_sum/AddN,gradients/mul_grad/Mul_1] ",
         "gradients/x_gradient_sum/AddN_2 AddN "
         "[gradients/x_gradient_sum/AddN_1,gradients/mul_1_grad/Mul] "});
    Session sess(g);
    auto out = sess.run(grad, {{x, Value{1.0f, 2.0f}}}).to_vector<float>();
    CHECK(out[0] == doctest::Approx(5.540302276611328f));
    CHECK(out[1] == doctest::Approx(6.583853244781494f));
  }
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder(DType::float32, Shape({2}), "x");
  CHECK_THROWS_WITH_AS(
      gradients(x * x, {x}, {}, {.aggregation_method = static_cast<AggregationMethod>(7)}),
      "Invalid `aggregation_method` specified 7. Accepted values are [0, 1, 2].", ValueError);
}

}  // namespace symflow_test_train_gradients_test
