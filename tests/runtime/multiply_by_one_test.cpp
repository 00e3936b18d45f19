// A Mul by a Const scalar 1 (a frozen dropout scale) runs as its other input passed on
// (runtime/multiply_by_one.hpp): chosen by the plan for float Muls only, with the value of
// x * 1, whichever side the one is on.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include <symflow/backend/cpu/cpu_backend.hpp>
#include <symflow/runtime/multiply_by_one.hpp>
#include <symflow/runtime/plan.hpp>
#include <symflow/symflow.hpp>

namespace symflow_test_runtime_multiply_by_one_test {

namespace tf = symflow;

namespace {

// The kernel of `op`'s step in the plan a CPU session makes for `fetch` with `x` fed.
tf::KernelFn planned_kernel(const tf::Graph& g, const tf::Output& fetch, const tf::Output& x,
                            const tf::Operation& op, bool fusing = true) {
  const tf::Backend& cpu = tf::cpu::backend();
  const tf::Plan plan =
      tf::detail::make_plan(g.state(), {std::optional<tf::TensorRef>(fetch.ref())}, {}, {x.ref()},
                            fusing ? cpu.fused_kernel() : nullptr, &cpu);
  for (std::size_t s = 0; s < plan.order.size(); ++s)
    if (plan.order[s] == op.id()) return plan.steps[s].kernel;
  FAIL("not in the plan: " << op.name());
  return nullptr;
}

}  // namespace

TEST_CASE("runtime/multiply_by_one: x * 1 and 1 * x pass x on, with x's values") {
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder<float>(tf::Shape{-1, 3}, "x");
  auto one = tf::identity(tf::constant(1.0f));  // a frozen variable's read
  tf::Output right = tf::multiply(x, tf::constant(1.0f));
  tf::Output left = tf::multiply(one, x);
  tf::Output two = tf::multiply(x, tf::constant(2.0f));
  // Each Mul between ops that do not fuse, so that no fused cluster takes it.
  tf::Output y = tf::concat({right, left, two}, 0);
  CHECK((planned_kernel(g, y, x, right.op()) == &tf::detail::pass_on_input<0>));
  CHECK((planned_kernel(g, y, x, left.op()) == &tf::detail::pass_on_input<1>));
  const tf::KernelFn mul = tf::cpu::backend().kernel(*two.op().node().def);
  CHECK((planned_kernel(g, y, x, two.op()) == mul));
  CHECK((planned_kernel(g, y, x, right.op(), false) == mul));  // fusion off: the op as it is

  const float inf = std::numeric_limits<float>::infinity();
  const tf::Value fed =
      tf::Value::from_vector<float>({-0.0f, 1.5f, inf, -2.0f, 3.0f, -inf}, {2, 3});
  tf::Session sess(g);
  const auto out = sess.run({right, left, y}, {{x, fed}});
  CHECK(out[0] == fed);  // the same bits: -0 stays -0
  CHECK(out[1] == fed);
  CHECK(std::signbit(out[0].data<float>()[0]));
  CHECK(out[2].dims() == tf::Dims{6, 3});
  CHECK(out[2].data<float>()[7] == 1.5f);   // left's 1.5 ...
  CHECK(out[2].data<float>()[13] == 3.0f);  // ... and two's
}

TEST_CASE("runtime/multiply_by_one: other scalars, shapes and dtypes multiply") {
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder<float>(tf::Shape{2}, "x");
  auto xi = tf::placeholder<std::int32_t>(tf::Shape{2}, "xi");
  tf::Output ones = tf::multiply(x, tf::constant({1.0f, 1.0f}));  // not a scalar
  tf::Output ints = tf::multiply(xi, tf::constant(1));
  const tf::KernelFn mul = tf::cpu::backend().kernel(*ones.op().node().def);
  CHECK((planned_kernel(g, ones, x, ones.op()) == mul));
  CHECK((planned_kernel(g, ints, xi, ints.op()) == mul));
  tf::Session sess(g);
  CHECK(sess.run(ones, {{x, tf::Value::from_vector<float>({2, 3}, {2})}}) ==
        tf::Value::from_vector<float>({2, 3}, {2}));
  CHECK(sess.run(ints, {{xi, tf::Value::from_vector<std::int32_t>({4, 5}, {2})}}) ==
        tf::Value::from_vector<std::int32_t>({4, 5}, {2}));
}

}  // namespace symflow_test_runtime_multiply_by_one_test
