// Gradients of Switch and Merge (ops/control_grad.hpp), inside a cond and built by hand
// as in an imported graph, against central differences.
#include <doctest/doctest.h>

#include <vector>

#include <symflow/symflow.hpp>

#include "../gradient_check.hpp"

namespace symflow_test_ops_control_grad_test {

namespace tf = symflow;

TEST_CASE("ops/cond: gradients through each branch match central differences") {
  for (bool taken : {true, false}) {
    CAPTURE(taken);
    tf::test::check_gradients(
        [&](const std::vector<tf::Output>& xs) {
          tf::Output pred = tf::constant(taken);
          return tf::cond(
              pred, [&] { return tf::matmul(xs[0], xs[1]) * xs[0]; },
              [&] { return tf::exp(xs[0]) - xs[0] * xs[0]; });
        },
        {tf::Value::from_vector(std::vector<double>{0.5, -1.0, 2.0, 0.25}, {2, 2}),
         tf::Value::from_vector(std::vector<double>{1.5, -0.5, 0.75, 1.0}, {2, 2})});
  }
}

TEST_CASE("ops/switch_ and merge: gradients without a cond pick the live input") {
  // Built by hand (as an imported graph is): Merge's gradient switches on value_index,
  // Switch's gradient merges its two sides.
  for (bool taken : {true, false}) {
    CAPTURE(taken);
    tf::test::check_gradients(
        [&](const std::vector<tf::Output>& xs) {
          auto [f, t] = tf::switch_(xs[0], tf::constant(taken));
          return tf::merge({tf::tanh(f), t * t}).first;
        },
        {tf::Value::from_vector(std::vector<double>{0.5, -1.0, 2.0}, {3})});
  }
}

}  // namespace symflow_test_ops_control_grad_test
