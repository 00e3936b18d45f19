// Gradients of DivNoNan, Cos and Sin (values and node names against tf.gradients in
// TensorFlow 2.21 graph mode, and numerical checks in float64 through
// tests/gradient_check.hpp), the None gradients of Ceil and Round, and the Sum and Mean
// gradients over axes computed in the graph.

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include <symflow/symflow.hpp>
#include <symflow/train/gradients.hpp>

#include "../gradient_check.hpp"
#include "../test_util.hpp"

namespace symflow_test_ops_math_extras_grad_test {

namespace ops_math_extras_grad_test {

using namespace symflow;
using namespace symflow::test;

Value f64(std::vector<double> v, Dims dims) { return Value::from_vector(v, std::move(dims)); }

}  // namespace ops_math_extras_grad_test

using namespace ops_math_extras_grad_test;

TEST_CASE("math_extras/grad: div_no_nan against TensorFlow, nothing flowing where y == 0") {
  // TF: x = [[1, -6], [0, 9]], y = [3, 0] (float64), d = div_no_nan(x, y, name="safe"),
  //     tf.gradients(reduce_sum(d * [[1, 2], [3, 4]]), [x, y]) = [[1/3, 0], [1, 0]] and
  //     [-1/9, 0], built as gradients/safe_grad/div_no_nan, Neg, div_no_nan_1, div_no_nan_2,
  //     mul, then the Sum and Reshape that bring y's gradient back to [2].
  Graph g;
  auto guard = g.as_default();
  auto x = constant<double>({{1, -6}, {0, 9}});
  auto y = constant<double>({3, 0});
  Output d = div_no_nan(x, y, "safe");
  Output loss = reduce_sum(d * constant<double>({{1, 2}, {3, 4}}));
  auto grads = gradients(loss, {x, y});
  REQUIRE(grads.size() == 2);
  CHECK(grads[0].name() == "gradients/safe_grad/div_no_nan:0");
  CHECK(grads[0].get_shape() == Shape{2, 2});
  CHECK(grads[1].get_shape() == Shape{2});
  CHECK(g.get_operation_by_name("gradients/safe_grad/Neg").type() == "Neg");
  CHECK(g.get_operation_by_name("gradients/safe_grad/div_no_nan_1").type() == "DivNoNan");
  CHECK(g.get_operation_by_name("gradients/safe_grad/div_no_nan_2").type() == "DivNoNan");
  CHECK(g.get_operation_by_name("gradients/safe_grad/mul").type() == "Mul");
  Session sess(g);
  check_close(sess.run(grads[0]).to_vector<double>(), {1.0 / 3.0, 0, 1, 0}, 1e-15);
  check_close(sess.run(grads[1]).to_vector<double>(), {-1.0 / 9.0, 0}, 1e-15);
}

TEST_CASE("math_extras/grad: div_no_nan numerically") {
  // Nonzero divisors (the function is smooth there), same shapes and broadcast both ways.
  check_gradients([](const auto& v) { return div_no_nan(v[0], v[1]); },
                  {f64({1.5, -2.0, 0.25, 3.0}, {2, 2}), f64({0.7, -1.3, 2.1, 1.9}, {2, 2})});
  check_gradients([](const auto& v) { return div_no_nan(v[0], v[1]); },
                  {f64({1.5, -2.0, 0.25, 3.0, 0.5, -0.75}, {2, 3}), f64({0.7, -1.3, 2.1}, {3})});
  check_gradients([](const auto& v) { return div_no_nan(v[0], v[1]); },
                  {f64({0.4}, {}), f64({0.9, -1.1, 1.6, 2.2}, {2, 2})});
  // The input's dims known only when it runs.
  check_gradients(
      [](const auto& v) {
        Output unknown = placeholder_with_default(v[1], Shape{-1});
        return div_no_nan(v[0], unknown);
      },
      {f64({1.5, -2.0, 0.25, 3.0, 0.5, -0.75}, {2, 3}), f64({0.7, -1.3, 2.1}, {3})});
}

TEST_CASE("math_extras/grad: cos and sin against TensorFlow and numerically") {
  // TF: x = [-1.5, 0.25, 3] (float64), tf.gradients(reduce_sum(cos(x) * [1, 2, 3]), x) =
  //     [0.9974949866040544, -0.4948079185090459, -0.4233600241796016] from Cos_grad/Neg,
  //     Cos_grad/Sin, Cos_grad/mul; for sin, [0.0707372016677029, 1.9378248434212895,
  //     -2.9699774898013365] from Sin_grad/Cos, Sin_grad/mul.
  Graph g;
  auto guard = g.as_default();
  auto x = constant<double>({-1.5, 0.25, 3.0});
  auto w = constant<double>({1, 2, 3});
  Output gc = gradients(reduce_sum(cos(x) * w), {x})[0];
  Output gs = gradients(reduce_sum(sin(x) * w), {x})[0];
  CHECK(gc.name() == "gradients/Cos_grad/mul:0");
  CHECK(g.get_operation_by_name("gradients/Cos_grad/Neg").type() == "Neg");
  CHECK(g.get_operation_by_name("gradients/Cos_grad/Sin").type() == "Sin");
  CHECK(gs.name() == "gradients_1/Sin_grad/mul:0");
  CHECK(g.get_operation_by_name("gradients_1/Sin_grad/Cos").type() == "Cos");
  Session sess(g);
  check_close(sess.run(gc).to_vector<double>(),
              {0.9974949866040544, -0.4948079185090459, -0.4233600241796016}, 1e-15);
  check_close(sess.run(gs).to_vector<double>(),
              {0.0707372016677029, 1.9378248434212895, -2.9699774898013365}, 1e-15);

  const Value points = f64({-2.5, -0.4, 0.3, 1.2, 2.8, 4.0}, {2, 3});
  check_gradients([](const auto& v) { return cos(v[0]); }, {points});
  check_gradients([](const auto& v) { return sin(v[0]); }, {points});
  check_gradients([](const auto& v) { return sin(cos(v[0])); }, {points});
}

TEST_CASE("math_extras/grad: ceil and round have a None gradient, as in TensorFlow") {
  // TF: tf.gradients(tf.ceil(x), x) == [None], the same for tf.round (and tf.floor).
  Graph g;
  auto guard = g.as_default();
  Output x = placeholder(DType::float32, Shape{3}, "x");
  CHECK_FALSE(gradients(ceil(x), {x})[0].valid());
  CHECK_FALSE(gradients(round(x), {x})[0].valid());
  // Through a sum the other terms still flow: d(x + ceil(x))/dx = 1.
  Output g1 = gradients(reduce_sum(x + ceil(x)), {x})[0];
  REQUIRE(g1.valid());
  Session sess(g);
  CHECK(sess.run(g1, {{x, Value{0.5f, 1.5f, -2.0f}}}).to_vector<float>() ==
        std::vector<float>{1, 1, 1});
}

TEST_CASE("math_extras/grad: sum and mean over axes computed when the graph runs") {
  // TF: x = [[1, 2, 3], [4, 5, 6]] (float64), axes = placeholder_with_default([-1], [None]),
  //     tf.gradients(reduce_sum(reduce_sum(x, axes) * [7, 8]), x) = [[7, 7, 7], [8, 8, 8]];
  //     the same through reduce_mean = [[7/3, 7/3, 7/3], [8/3, 8/3, 8/3]].
  Graph g;
  auto guard = g.as_default();
  auto x = constant<double>({{1, 2, 3}, {4, 5, 6}});
  Output axes = placeholder_with_default(constant<std::int32_t>({-1}), Shape{-1});
  auto w = constant<double>({7, 8});
  // The products have no known rank: their sums reduce over Range(0, Rank, 1), as
  // TensorFlow's reduce_sum does then.
  auto sum_all = [](const Output& t) { return reduce_sum(t, Axis(range(0, rank(t), 1))); };
  Output gs = gradients(sum_all(reduce_sum(x, Axis(axes)) * w), {x})[0];
  Output gm = gradients(sum_all(reduce_mean(x, Axis(axes)) * w), {x})[0];
  REQUIRE(gs.valid());
  REQUIRE(gm.valid());
  // The kept-dims shape comes from TensorFlow's reduced_shape: a DynamicStitch.
  CHECK(g.get_operation_by_name("gradients/Sum_grad/DynamicStitch").type() == "DynamicStitch");
  Session sess(g);
  CHECK(sess.run(gs).to_vector<double>() == std::vector<double>{7, 7, 7, 8, 8, 8});
  check_close(sess.run(gm).to_vector<double>(),
              {7.0 / 3, 7.0 / 3, 7.0 / 3, 8.0 / 3, 8.0 / 3, 8.0 / 3}, 1e-15);

  // Numerically: computed axes (negative, several, none), a Range over the rank, and an
  // input of unknown rank. The results, of unknown rank, are flattened for the check's sum.
  auto flat = [](const Output& t) { return reshape(t, {-1}); };
  const Value cube = f64({0.5, -1.5, 2.5, 3.25, 3, -3, 0.75, 0.25, -0.5, 1, 2, 4}, {2, 2, 3});
  for (std::vector<std::int32_t> list :
       {std::vector<std::int32_t>{-1}, {0, 2}, {1}, {}, {0, 1, 2}}) {
    CAPTURE(list.size());
    auto computed = [list] {
      return placeholder_with_default(
          constant(Value::from_vector(list, {std::int64_t(list.size())})), Shape{-1});
    };
    check_gradients([&](const auto& v) { return flat(reduce_sum(v[0], Axis(computed()))); },
                    {cube});
    check_gradients([&](const auto& v) { return flat(reduce_mean(v[0], Axis(computed()))); },
                    {cube});
  }
  check_gradients(
      [&](const auto& v) { return flat(reduce_sum(v[0], Axis(range(0, rank(v[0]), 1)))); }, {cube});
  check_gradients(
      [&](const auto& v) {
        Output unknown = placeholder_with_default(v[0], Shape::unknown());
        return flat(reduce_mean(unknown, Axis(range(1, rank(unknown), 1))));
      },
      {cube});
}

}  // namespace symflow_test_ops_math_extras_grad_test
