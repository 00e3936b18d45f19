// Session::run: fetches, feeds, pruning, errors, the default session.
#include <doctest/doctest.h>

#include <cstddef>
#include <string>
#include <vector>

#include <symflow/backend/cpu/cpu_backend.hpp>
#include <symflow/runtime/plan.hpp>
#include <symflow/symflow.hpp>

namespace symflow_test_runtime_session_test {

namespace tf = symflow;

TEST_CASE("runtime/session: fetch one tensor, a list, an operation, or by name") {
  tf::Graph g;
  auto guard = g.as_default();
  auto a = tf::constant(1.0f);
  auto b = tf::constant(2.0f);
  auto c = tf::add(a, b, "c");
  auto noop = tf::no_op("noop");
  tf::Session sess(g);
  CHECK(sess.run(c).scalar<float>() == 3.0f);
  auto values = sess.run({a, b, c});
  REQUIRE(values.size() == 3);
  CHECK(tf::to_string(values) == "[1.0, 2.0, 3.0]");
  auto mixed = sess.run({c, noop});
  CHECK(mixed[0].scalar<float>() == 3.0f);
  CHECK(mixed[1].is_none());
  CHECK(sess.run("c:0").scalar<float>() == 3.0f);
  CHECK(sess.run("noop").is_none());
  // TF 1.x: ValueError "Fetch argument 'nothing:0' cannot be interpreted as a Tensor. (The
  // name 'nothing:0' refers to a Tensor which does not exist. ...)".
  CHECK_THROWS_WITH_AS(sess.run("nothing:0"),
                       doctest::Contains("Fetch argument 'nothing:0' cannot be interpreted as a "
                                         "Tensor. (The name 'nothing:0' refers to a Tensor which "
                                         "does not exist."),
                       tf::ValueError);
}

TEST_CASE("runtime/session: feeds replace placeholders and any other tensor") {
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder<float>({3}, "x");
  auto doubled = x * 2;
  auto y = doubled + 1;
  tf::Session sess(g);
  CHECK(sess.run(y, {{x, {1, 2, 3}}}).to_vector<float>() == std::vector<float>{3, 5, 7});
  // Feeding an intermediate tensor cuts its producers out: x need not be fed.
  CHECK(sess.run(y, {{doubled, {10, 20, 30}}}).to_vector<float>() ==
        std::vector<float>{11, 21, 31});
  // Feeding by name.
  CHECK(sess.run(y, {{"x:0", tf::Value{0.0f, 0.0f, 1.0f}}}).to_vector<float>() ==
        std::vector<float>{1, 1, 3});
  // A fetched tensor that is fed comes back as fed.
  CHECK(sess.run(x, {{x, {4, 5, 6}}}).to_vector<float>() == std::vector<float>{4, 5, 6});
}

TEST_CASE("runtime/session: only the subgraph the fetches need runs") {
  tf::Graph g;
  auto guard = g.as_default();
  auto unfed = tf::placeholder<float>({}, "unfed");
  auto needs_unfed = tf::square(unfed);
  auto a = tf::constant(3.0f);
  auto b = tf::square(a);
  tf::Session sess(g);
  CHECK(sess.run(b).scalar<float>() == 9.0f);  // the unfed branch is pruned
  CHECK_THROWS_AS(sess.run(needs_unfed), tf::InvalidArgumentError);
  // The same tensor fetched twice comes from one evaluation.
  auto both = sess.run({b, b});
  CHECK(both[0].shares_buffer_with(both[1]));
}

TEST_CASE("runtime/session: targets run after their control inputs") {
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder<float>({}, "x");
  auto check = tf::square(x);
  auto after = tf::group({check.op()}, "after");
  tf::Session sess(g);
  CHECK_THROWS_WITH_AS(sess.run(after), doctest::Contains("placeholder tensor 'x'"),
                       tf::InvalidArgumentError);
  CHECK_NOTHROW(sess.run(after, {{x, 2.0f}}));
}

TEST_CASE("runtime/errors: a missing feed names the placeholder, its dtype and shape") {
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder<float>({3});
  auto y = tf::square(x);
  tf::Session sess(g);
  try {
    sess.run(y);
    FAIL("expected InvalidArgumentError");
  } catch (const tf::InvalidArgumentError& e) {
    CHECK(e.message() ==
          "You must feed a value for placeholder tensor 'Placeholder' with dtype float and "
          "shape [3]");
    CHECK(e.node_name() == "Placeholder");
    CHECK(e.code() == tf::ErrorCode::invalid_argument);
  }
  // The session stays usable.
  CHECK(sess.run(y, {{x, {1, 2, 3}}}).to_vector<float>() == std::vector<float>{1, 4, 9});
}

TEST_CASE("runtime/errors: feeds of the wrong shape or dtype are rejected before running") {
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder<float>({3});
  auto y = tf::square(x);
  tf::Session sess(g);
  CHECK_THROWS_WITH_AS(sess.run(y, {{x, 37.0f}}),
                       "Cannot feed value of shape () for Tensor 'Placeholder:0', which has "
                       "shape '(3,)'",
                       tf::ValueError);
  // Numbers convert as TensorFlow's Python client converts them (interactive_session_test);
  // strings do not.
  CHECK_THROWS_WITH_AS(
      sess.run(y, {{tf::Output(x), tf::Value::from_vector<std::string>({"a", "b", "c"}, {3})}}),
      "Cannot feed value of dtype string for Tensor 'Placeholder:0', which has dtype float32",
      tf::TypeError);
  CHECK_THROWS_WITH_AS(sess.run(y, {{x, {1, 2, 3}}, {x, {1, 2, 3}}}),
                       doctest::Contains("fed twice"), tf::ValueError);
  CHECK_THROWS_AS(sess.run(y, {{tf::Output(x), tf::Value()}}), tf::ValueError);
}

TEST_CASE("runtime/errors: fetching a tensor of another graph is a ValueError") {
  tf::Graph g1, g2;
  tf::Output other;
  {
    auto guard = g2.as_default();
    other = tf::constant(1.0f);
  }
  // TF: the session's graph is empty, and that is what TensorFlow reports first.
  tf::Session empty(g1);
  CHECK_THROWS_WITH_AS(empty.run(other),
                       "The Session graph is empty. Add operations to the graph before calling "
                       "run().",
                       tf::RuntimeError);
  CHECK_THROWS_AS(empty.run(other.op()), tf::RuntimeError);
  {
    auto guard = g1.as_default();
    tf::constant(2.0f);
  }
  tf::Session sess(g1);
  CHECK_THROWS_WITH_AS(sess.run(other), doctest::Contains("is not an element of this graph"),
                       tf::ValueError);
  CHECK_THROWS_AS(sess.run(other.op()), tf::ValueError);
}

TEST_CASE("runtime/errors: a closed session refuses to run") {
  tf::Graph g;
  auto guard = g.as_default();
  auto a = tf::constant(1.0f);
  tf::Session sess(g);
  CHECK_FALSE(sess.closed());
  sess.close();
  CHECK(sess.closed());
  CHECK_THROWS_WITH_AS(sess.run(a), "Attempted to use a closed Session.",
                       tf::FailedPreconditionError);
}

TEST_CASE("runtime/errors: a kernel failure names the node; the session stays usable") {
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder<float>();
  auto y = tf::placeholder<float>();
  auto sum = tf::add(x, y, "sum");
  tf::Session sess(g);
  try {
    sess.run(sum, {{x, {1, 2, 3}}, {y, {1, 2}}});
    FAIL("expected InvalidArgumentError");
  } catch (const tf::InvalidArgumentError& e) {
    CHECK(e.message() == "Incompatible shapes: [3] vs. [2]");
    CHECK(e.node_name() == "sum");
  }
  CHECK(sess.run(sum, {{x, {1, 2}}, {y, {1, 2}}}).to_vector<float>() == std::vector<float>{2, 4});
}

TEST_CASE("runtime/default_session: eval() uses the innermost default session") {
  tf::Graph g;
  auto guard = g.as_default();
  auto a = tf::constant(1.0f);
  auto c = tf::add(a, a);
  CHECK_THROWS_WITH_AS(c.eval(), doctest::Contains("No default session is registered"),
                       tf::ValueError);
  tf::Session sess(g);
  CHECK(c.eval(sess).scalar<float>() == 2.0f);
  {
    auto as_default = sess.as_default();
    CHECK(c.eval().scalar<float>() == 2.0f);
    auto x = tf::placeholder<float>();
    CHECK(tf::square(x).eval({{x, 3.0f}}).scalar<float>() == 9.0f);
  }
  CHECK_THROWS_AS(c.eval(), tf::ValueError);
}

TEST_CASE("runtime/plans: one plan per (fetches, feeds, targets) signature") {
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder<float>();
  auto y = tf::square(x);
  auto z = y + 1;
  tf::Session sess(g);
  for (int i = 0; i < 3; ++i) sess.run(z, {{x, static_cast<float>(i)}});
  CHECK(sess.num_cached_plans() == 1);
  sess.run(y, {{x, 1.0f}});
  CHECK(sess.num_cached_plans() == 2);
  // Nodes added after a plan was cached do not disturb it.
  auto w = z * 2;
  CHECK(sess.run(z, {{x, 2.0f}}).scalar<float>() == 5.0f);
  CHECK(sess.run(w, {{x, 2.0f}}).scalar<float>() == 10.0f);
}

TEST_CASE("runtime/session: two sessions on one graph, and config options") {
  tf::Graph g;
  auto guard = g.as_default();
  auto a = tf::constant(2.0f);
  tf::ConfigProto config;
  config.allow_soft_placement = true;
  config.gpu_options.allow_growth = true;
  tf::Session s1(g, config), s2(g);
  CHECK(s1.config().allow_soft_placement);
  CHECK(s1.config().gpu_options.allow_growth);
  CHECK_FALSE(s2.config().allow_soft_placement);
  CHECK(s1.run(a) == s2.run(a));
  CHECK(s1.graph() == g);
}

TEST_CASE("runtime/session: a small network end to end") {
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder<float>(tf::Shape{-1, 2}, "x");
  auto w = tf::constant<float>({{1, -1}, {2, 0.5f}}, "w");
  auto bias = tf::constant<float>({0.5f, -0.5f}, "b");
  auto logits = tf::matmul(x, w) + bias;
  auto probs = tf::nn::softmax(logits);
  auto total = tf::reduce_sum(probs, 1);
  CHECK(logits.get_shape().to_string() == "(?, 2)");
  tf::Session sess(g);
  auto out = sess.run({logits, total}, {{x, {{1, 0}, {0, 1}, {1, 1}}}});
  CHECK(out[0].to_vector<float>() == std::vector<float>{1.5f, -1.5f, 2.5f, 0.0f, 3.5f, -1.0f});
  for (float s : out[1].flat<float>()) CHECK(s == doctest::Approx(1.0f));
}

TEST_CASE(
    "runtime/session: a node whose outputs are all fed does not run, even as a control input") {
  tf::Graph g;
  auto guard = g.as_default();
  auto p = tf::placeholder<float>({}, "p");
  auto after = tf::group({p.op()}, "after");
  tf::Session sess(g);
  CHECK_NOTHROW(sess.run(after, {{p, 1.0f}}));
  CHECK_THROWS_AS(sess.run(after), tf::InvalidArgumentError);
}

TEST_CASE("runtime/session: fetched values never alias the graph's constants") {
  tf::Graph g;
  auto guard = g.as_default();
  auto c = tf::constant<float>({1, 2, 3});
  tf::Session sess(g);
  tf::Value first = sess.run(c);
  first.data<float>()[0] = 100.0f;  // the caller owns what it fetched
  CHECK(sess.run(c).to_vector<float>() == std::vector<float>{1, 2, 3});
  // One tensor fetched twice still comes back as one buffer.
  auto both = sess.run({c, c});
  CHECK(both[0].shares_buffer_with(both[1]));
}

TEST_CASE("runtime/plans: a plan keeps each Const's value for its runs to output") {
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder<float>({2}, "x");
  auto c = tf::constant<float>({10, 20}, "c");
  auto y = tf::add(x, c, "y");
  const tf::Plan plan = tf::detail::make_plan(g.state(), {y.ref()}, {}, {x.ref()});
  REQUIRE(plan.constants.size() == plan.order.size());
  int constants = 0;
  for (std::size_t step = 0; step < plan.order.size(); ++step) {
    const bool is_const = plan.order[step] == c.op().id();
    CHECK(plan.constants[step].is_none() == !is_const);
    if (is_const) {
      CHECK(plan.constants[step].to_vector<float>() == std::vector<float>{10, 20});
      ++constants;
    }
  }
  CHECK(constants == 1);
  tf::Session sess(g);
  for (int run = 0; run < 3; ++run)
    CHECK(sess.run(y, {{x, tf::Value{1.0f, 2.0f}}}).to_vector<float>() ==
          std::vector<float>{11, 22});
}

TEST_CASE("runtime/plans: a plan resolves each step once and keeps a copy of its node") {
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder<float>({2}, "x");
  auto c = tf::constant<float>({10, 20}, "c");
  auto y = tf::add(x, c, "y");
  auto z = tf::multiply(y, c, "z");
  auto step_of = [](const tf::Plan& plan, const tf::Operation& op) {
    for (std::size_t s = 0; s < plan.order.size(); ++s)
      if (plan.order[s] == op.id()) return s;
    FAIL("not in the plan: " << op.name());
    return std::size_t{0};
  };
  using Kind = tf::PlanStep::Kind;
  using Mode = tf::InputMode;
  const tf::Plan fetched = tf::detail::make_plan(g.state(), {z.ref(), c.ref()}, {}, {x.ref()},
                                                 nullptr, &tf::cpu::backend());
  REQUIRE(fetched.steps.size() == fetched.order.size());
  REQUIRE(fetched.nodes.size() == fetched.order.size());
  CHECK(fetched.kernels_resolved);
  for (std::size_t s = 0; s < fetched.order.size(); ++s) {
    CHECK(fetched.nodes[s].name == g.state().node(fetched.order[s]).name);
    CHECK(static_cast<bool>(fetched.steps[s].kernel));
  }
  CHECK(fetched.feed_specs.at(0).name == "x:0");
  CHECK(fetched.fetch_names == std::vector<std::string>{"z:0", "c:0"});
  // c is fetched, so its step outputs its value; y and z have it among their arguments
  // from the start; y moves the fed x in (its last reader), and its kernel writes y
  // straight into z's argument (z is y's one reader).
  const tf::PlanStep& cs = fetched.steps[step_of(fetched, c.op())];
  CHECK(cs.kind == Kind::constant);
  const tf::PlanStep& ys = fetched.steps[step_of(fetched, y.op())];
  CHECK(fetched.input_modes[ys.first_input] == Mode::move);
  CHECK(fetched.input_modes[ys.first_input + 1] == Mode::constant);
  const tf::PlanStep& zs = fetched.steps[step_of(fetched, z.op())];
  CHECK(fetched.input_modes[zs.first_input] == Mode::direct);
  CHECK(ys.output_argument == zs.first_input);
  CHECK(fetched.input_modes[zs.first_input + 1] == Mode::constant);
  CHECK(zs.output_argument == tf::PlanStep::kNoArgument);  // z is fetched
  // Unfetched, nothing reads c's slot: its step does nothing in a run.
  const tf::Plan plan =
      tf::detail::make_plan(g.state(), {z.ref()}, {}, {x.ref()}, nullptr, &tf::cpu::backend());
  CHECK(plan.steps[step_of(plan, c.op())].kind == Kind::skip);
  // Without backends, kernels are left to the run, and every input goes through its slot.
  const tf::Plan bare = tf::detail::make_plan(g.state(), {z.ref()}, {}, {x.ref()});
  CHECK_FALSE(bare.kernels_resolved);
  CHECK(bare.steps[step_of(bare, c.op())].kind == Kind::constant);
  for (tf::InputMode m : bare.input_modes) CHECK(m != Mode::constant);

  tf::Session sess(g);
  for (int run = 0; run < 3; ++run) {
    auto got = sess.run({z, c}, {{x, tf::Value{1.0f, 2.0f}}});
    CHECK(got[0].to_vector<float>() == std::vector<float>{110, 440});
    CHECK(got[1].to_vector<float>() == std::vector<float>{10, 20});
    got[1].data<float>()[0] = -1;  // the caller's copy
    CHECK(sess.run(z, {{x, tf::Value{0.0f, 0.0f}}}).to_vector<float>() ==
          std::vector<float>{100, 400});
  }
}

TEST_CASE("session/fetch: two views of one constant keep their own shapes") {
  tf::Graph g;
  auto guard = g.as_default();
  auto c = tf::constant(tf::Value{1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f}, "c");
  auto rows = tf::reshape(c, tf::Dims{2, 3}, "rows");
  auto cols = tf::reshape(c, tf::Dims{3, 2}, "cols");
  tf::Session sess(g);
  auto both = sess.run({rows, cols});
  CHECK(both[0].dims() == tf::Dims{2, 3});
  CHECK(both[1].dims() == tf::Dims{3, 2});
  CHECK(both[1].to_vector<float>() == std::vector<float>{1, 2, 3, 4, 5, 6});
  // The copy is the caller's: writing it leaves the graph's constant alone.
  both[0].data<float>()[0] = 9.0f;
  CHECK(sess.run(c).to_vector<float>().front() == 1.0f);
}

}  // namespace symflow_test_runtime_session_test
