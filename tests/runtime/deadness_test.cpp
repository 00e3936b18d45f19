// Dead tensors in the executor (runtime/deadness.hpp): which steps check for them, that
// the ops after a cond keep the fast path and fusion, and that runs on several threads
// give what a run on one gives.
#include <doctest/doctest.h>

#include <optional>
#include <vector>

#include <symflow/backend/cpu/cpu_backend.hpp>
#include <symflow/backend/cpu/fused_kernel.hpp>
#include <symflow/runtime/plan.hpp>
#include <symflow/symflow.hpp>

namespace symflow_test_runtime_deadness_test {

namespace tf = symflow;

tf::Plan plan_of(const tf::Graph& g, const tf::Output& fetch,
                 const std::vector<tf::Output>& feeds) {
  std::vector<tf::TensorRef> feed_refs;
  for (const auto& f : feeds) feed_refs.push_back(f.ref());
  return tf::detail::make_plan(g.state(), {fetch.ref()}, {}, feed_refs, &tf::cpu::run_fused,
                               &tf::cpu::backend());
}

tf::PlanStep::Kind kind_of(const tf::Plan& plan, const tf::Graph& g, const std::string& name) {
  const tf::NodeId id = g.get_operation_by_name(name).id();
  for (std::size_t s = 0; s < plan.order.size(); ++s)
    if (plan.order[s] == id) return plan.steps[s].kind;
  FAIL("not in the plan: " << name);
  return tf::PlanStep::Kind::skip;
}

TEST_CASE("runtime/deadness: only the steps inside a cond check; the ops after it fuse") {
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder<float>(tf::Shape{8192}, "x");  // big enough to fuse
  auto p = tf::placeholder<bool>(tf::Shape{}, "p");
  tf::Output y = tf::cond(
      p, [&] { return x * 2.0f; }, [&] { return x - 1.0f; });
  tf::Output z = tf::exp(y * 3.0f + 1.0f, "z");
  tf::Plan plan = plan_of(g, z, {x, p});
  CHECK(plan.dead_tensors);
  using Kind = tf::PlanStep::Kind;
  CHECK(kind_of(plan, g, "cond/Switch") == Kind::kernel);  // its inputs are never dead
  CHECK(kind_of(plan, g, "cond/mul") == Kind::guarded);
  CHECK(kind_of(plan, g, "cond/mul/y") == Kind::guarded);  // after the pivot
  CHECK(kind_of(plan, g, "cond/Merge") == Kind::guarded);
  // A Merge of the two sides of one predicate is alive whenever the cond runs.
  CHECK(kind_of(plan, g, "mul") == Kind::fused);
  CHECK(kind_of(plan, g, "z") == Kind::fused);

  // Without a Switch nothing is guarded.
  tf::Plan plain = plan_of(g, tf::exp(x * 3.0f), {x});
  CHECK_FALSE(plain.dead_tensors);
  for (const tf::PlanStep& s : plain.steps) CHECK(s.kind != Kind::guarded);
}

TEST_CASE("runtime/deadness: a Merge it cannot prove alive keeps the ops after it checking") {
  // Two Switches on different predicates: both sides may be dead at once.
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder<float>(tf::Shape{}, "x");
  auto p = tf::placeholder<bool>(tf::Shape{}, "p");
  auto q = tf::placeholder<bool>(tf::Shape{}, "q");
  tf::Output m = tf::merge({tf::switch_(x, p).second, tf::switch_(x, q).second}, "m").first;
  tf::Output after = tf::square(m, "after");
  tf::Plan plan = plan_of(g, after, {x, p, q});
  CHECK(kind_of(plan, g, "after") == tf::PlanStep::Kind::guarded);
  tf::Session s(g);
  CHECK(s.run(after, {{x, tf::Value(3.0f)}, {p, tf::Value(false)}, {q, tf::Value(true)}})
            .scalar<float>() == 9.0f);
  try {
    s.run(after, {{x, tf::Value(3.0f)}, {p, tf::Value(false)}, {q, tf::Value(false)}});
    FAIL("a dead tensor was fetched");
  } catch (const tf::InvalidArgumentError& e) {
    CHECK(std::string(e.what()).find("Retval[0] does not have value") != std::string::npos);
  }
  // A dead op is dead for the ops it orders by a control edge too: `late` reads only x,
  // which is fed, and is dead exactly when `after` is.
  tf::Output late;
  {
    tf::control_dependencies deps({after.op()});
    late = tf::identity(x, "late");
  }
  CHECK(s.run(late, {{x, tf::Value(3.0f)}, {p, tf::Value(false)}, {q, tf::Value(true)}})
            .scalar<float>() == 3.0f);
  CHECK_THROWS_AS(s.run(late, {{x, tf::Value(3.0f)}, {p, tf::Value(false)}, {q, tf::Value(false)}}),
                  tf::InvalidArgumentError);
}

TEST_CASE("runtime/deadness: a Switch that ran is alive for its control edges") {
  // The inner Switch may meet a dead input (it is guarded); when it runs it leaves one side
  // dead, but an op ordered after it by a control edge still runs, as in TensorFlow.
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder<float>(tf::Shape{}, "x");
  auto p = tf::placeholder<bool>(tf::Shape{}, "p");
  auto q = tf::placeholder<bool>(tf::Shape{}, "q");
  tf::Output inner = tf::switch_(tf::switch_(x, p).second, q).first;
  tf::Output after;
  {
    tf::control_dependencies deps({inner.op()});
    after = tf::identity(x, "after");
  }
  tf::Session s(g);
  // p true, q true: the inner Switch ran and left output 0 dead; `after` runs.
  CHECK(s.run(after, {{x, tf::Value(3.0f)}, {p, tf::Value(true)}, {q, tf::Value(true)}})
            .scalar<float>() == 3.0f);
  // p false: the inner Switch itself is dead, and so is `after`.
  CHECK_THROWS_AS(s.run(after, {{x, tf::Value(3.0f)}, {p, tf::Value(false)}, {q, tf::Value(true)}}),
                  tf::InvalidArgumentError);
}

TEST_CASE("runtime/deadness: conds on two inter-op threads give the one-thread results") {
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder<float>(tf::Shape{8192}, "x");  // steps worth a thread
  auto p = tf::placeholder<bool>(tf::Shape{}, "p");
  std::vector<tf::Output> ys;
  for (int i = 0; i < 6; ++i)
    ys.push_back(tf::cond(
        p, [&] { return tf::exp(x * static_cast<float>(i)); },
        [&] { return tf::tanh(x) + static_cast<float>(i); }));
  tf::Output total = tf::add_n(ys);
  tf::ConfigProto one, two;
  one.inter_op_parallelism_threads = 1;
  two.inter_op_parallelism_threads = 2;
  tf::Session s1(g, one), s2(g, two);
  tf::Value xv = tf::Value::filled<float>({8192}, 0.25f);
  for (bool pv : {true, false, true}) {
    tf::Value a = s1.run(total, {{x, xv}, {p, tf::Value(pv)}});
    for (int r = 0; r < 5; ++r) {
      tf::Value b = s2.run(total, {{x, xv}, {p, tf::Value(pv)}});
      REQUIRE(b.size() == a.size());
      for (std::int64_t i = 0; i < a.size(); ++i) CHECK(b.data<float>()[i] == a.data<float>()[i]);
    }
  }
}

}  // namespace symflow_test_runtime_deadness_test
