// Gradients of the debugging ops: CheckNumerics passes the gradient on through a
// CheckNumerics of its own (with TensorFlow's message), Print passes it to its input;
// IsNan, IsInf, IsFinite and Assert have none. Numerical checks in float64 and
// TensorFlow 2.21's graphs and messages.

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include <symflow/ops/check_ops.hpp>
#include <symflow/ops/logging_ops.hpp>
#include <symflow/ops/registry.hpp>
#include <symflow/symflow.hpp>

#include "../gradient_check.hpp"
#include "../test_util.hpp"

namespace symflow_test_ops_debugging_grad_test {

namespace ops_debugging_grad_test {

using namespace symflow;
using namespace symflow::test;

inline Value f64(std::initializer_list<double> v, Dims dims) {
  return Value::from_vector(std::vector<double>(v), std::move(dims));
}

}  // namespace ops_debugging_grad_test

using namespace ops_debugging_grad_test;

TEST_CASE("ops/debugging_grad: CheckNumerics and Print pass the gradient, numerically") {
  check_gradients(
      [](const std::vector<Output>& x) { return log(check_numerics(x[0] * x[0], "sq")); },
      {f64({1.5, -0.5, 2.0}, {3})});
  check_gradients(
      [](const std::vector<Output>& x) {
        return Print(exp(x[0]), {x[1], "data gets no gradient"}, "", 0) * x[1];
      },
      {f64({0.5, -1.0}, {2}), f64({2.0, 3.0}, {2})});
}

TEST_CASE("ops/debugging_grad: CheckNumerics' gradient is checked with TensorFlow's message") {
  Graph g;
  auto guard = g.as_default();
  auto x = constant<float>({1, 2}, Shape{2}, "x");
  auto cn = check_numerics(log(x), "m");
  auto grads = gradients(cn, {x});
  REQUIRE(grads.size() == 1);
  // TF: gradients/CheckNumerics_grad/CheckNumerics reads the incoming gradient, with the
  // message "Not a number (NaN) or infinity (Inf) values detected in gradient. b'm'" (the
  // forward op's message as Python 3 prints bytes).
  Operation check = g.get_operation_by_name("gradients/CheckNumerics_grad/CheckNumerics");
  CHECK(check.get_attr<std::string>("message") ==
        "Not a number (NaN) or infinity (Inf) values detected in gradient. b'm'");
  CHECK(run_vector<float>(grads[0]) == std::vector<float>{1.0f, 0.5f});  // TF: [1, 0.5]

  // sqrt(check_numerics(p)) at p = 0: the gradient reaching CheckNumerics is inf.
  auto p = placeholder<float>(Shape{}, "p");
  auto loss = sqrt(check_numerics(p, "sq"));
  auto gp = gradients(loss, {p});
  Session sess(g);
  auto e = thrown<InvalidArgumentError>([&] { sess.run(gp[0], {{p, Value(0.0f)}}); });
  REQUIRE(e);
  CHECK(e->message() ==
        "Not a number (NaN) or infinity (Inf) values detected in gradient. b'sq' : Tensor had "
        "Inf values");
  CHECK(e->node_name() == "gradients_1/CheckNumerics_1_grad/CheckNumerics");
}

TEST_CASE("ops/debugging_grad: IsNan, IsInf, IsFinite and Assert are not differentiable") {
  for (std::string_view type : {"IsNan", "IsInf", "IsFinite", "Assert"}) {
    const OpEntry* entry = find_op_entry(type);
    REQUIRE(entry);
    const bool none_flows = entry->grad == &not_differentiable;
    CHECK(none_flows);
  }
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<double>(Shape{2}, "x");
  auto y = cast(is_nan(x), DType::float64) + x;
  auto grads = gradients(y, {x});
  REQUIRE(grads[0].valid());
  Session sess(g);
  CHECK(sess.run(grads[0], {{x, f64({1, 2}, {2})}}).to_vector<double>() ==
        std::vector<double>{1, 1});
}

}  // namespace symflow_test_ops_debugging_grad_test
