// Loops in while_loop's plain form (PlanFrame::plain): which loops the plan runs without
// dead flags (but a cond's steps inside them), each step's part there, and that such a
// run gives what the run by dead flags gives, also where the loop's Enters are dead (an
// untaken branch, another loop's last iteration) and the run falls back.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <symflow/backend/cpu/cpu_backend.hpp>
#include <symflow/runtime/plan.hpp>
#include <symflow/symflow.hpp>

namespace symflow_test_runtime_plain_loop_test {

namespace tf = symflow;
using Role = tf::PlanFrame::Role;

tf::Plan plan_of(const tf::Graph& g, const tf::Output& fetch,
                 const std::vector<tf::Output>& feeds = {}) {
  std::vector<tf::TensorRef> feed_refs;
  for (const auto& f : feeds) feed_refs.push_back(f.ref());
  return tf::detail::make_plan(g.state(), {fetch.ref()}, {}, feed_refs, nullptr,
                               &tf::cpu::backend());
}

// The frame named `frame` of `plan`.
const tf::PlanFrame& frame_named(const tf::Plan& plan, const std::string& frame) {
  for (const tf::PlanFrame& f : plan.frames)
    if (f.name == frame) return f;
  FAIL("no frame " << frame);
  return plan.frames.front();
}

// The part of node `name` in its plain frame.
Role role_of(const tf::Plan& plan, const tf::Graph& g, const std::string& frame,
             const std::string& name) {
  const tf::PlanFrame& f = frame_named(plan, frame);
  REQUIRE(!f.plain.empty());
  const tf::NodeId id = g.get_operation_by_name(name).id();
  for (std::uint32_t p = f.begin; p < f.end; ++p)
    if (plan.order[plan.active_steps[p]] == id) return f.plain[p - f.begin];
  FAIL("not in frame " << frame << ": " << name);
  return Role::every_time;
}

// Each node of `parts` has its part in the plain frame named `frame`.
void check_roles(const tf::Plan& plan, const tf::Graph& g, const std::string& frame,
                 const std::vector<std::pair<std::string, Role>>& parts) {
  for (const auto& part : parts) {
    // A plain reference: clang 14 cannot capture a structured binding, as CAPTURE does.
    const std::string& name = part.first;
    CAPTURE(name);
    CHECK(role_of(plan, g, frame, name) == part.second);
  }
}

TEST_CASE("runtime/plain_loop: a counter loop is plain, each step in its part") {
  tf::Graph g;
  auto guard = g.as_default();
  auto n = tf::placeholder<std::int32_t>(tf::Shape{}, "n");
  tf::Output r = tf::while_loop([&](const tf::Output& i) { return i < n; },
                                [](const tf::Output& i) { return i + 1; }, tf::constant(0));
  const tf::Plan plan = plan_of(g, r, {n});
  REQUIRE(plan.frames.size() == 1);
  const std::string frame = plan.frames[0].name;
  // The Switch writes the Identity's output, the Merge takes the add, and the run reads
  // the Less in the LoopCond's stead: three steps an iteration does not run.
  check_roles(plan, g, frame,
              {{"while/Enter", Role::enter},
               {"while/Merge", Role::merge},
               {"while/Less", Role::every_time},
               {"while/LoopCond", Role::loop_cond},
               {"while/Switch", Role::switch_},
               {"while/Exit", Role::exit},
               {"while/add", Role::body},
               {"while/Identity", Role::skipped},
               {"while/NextIteration", Role::skipped}});
  const tf::PlanFrame& f = plan.frames[0];
  auto output_of = [&](const std::string& name) -> std::int64_t {
    const tf::NodeId id = g.get_operation_by_name(name).id();
    for (std::uint32_t step = 0; step < plan.order.size(); ++step)
      if (plan.order[step] == id) return plan.steps[step].first_output;
    return -1;
  };
  auto shortcut_of = [&](const std::string& name) -> std::int64_t {
    const tf::NodeId id = g.get_operation_by_name(name).id();
    for (std::uint32_t p = f.begin; p < f.end; ++p)
      if (plan.order[plan.active_steps[p]] == id) return f.shortcut[p - f.begin];
    return -1;
  };
  CHECK(shortcut_of("while/Switch") == output_of("while/Identity"));
  CHECK(shortcut_of("while/Merge") == output_of("while/add"));
  CHECK(f.cond_input_slot == output_of("while/Less"));

  tf::Session s(g);
  for (std::int32_t count : {0, 1, 7, 1000})
    CHECK(s.run(r, {{n, tf::Value(count)}}).scalar<std::int32_t>() == count);
}

TEST_CASE(
    "runtime/plain_loop: a loop with a cond inside is plain, the cond's steps checking; of "
    "two nested loops, the inner one is plain") {
  tf::Graph g;
  auto guard = g.as_default();
  auto [i, total] = tf::while_loop(
      [](const tf::Output& i, const tf::Output&) { return i < 4; },
      [](const tf::Output& i, const tf::Output& s) {
        return std::tuple{i + 1, tf::cond(
                                     i > 1, [&] { return s * 2; }, [&] { return s + 1; })};
      },
      std::tuple{tf::constant(0), tf::constant(1)});
  const tf::Plan with_cond = plan_of(g, total);
  REQUIRE(with_cond.frames.size() == 1);
  const std::string frame = with_cond.frames[0].name;
  CHECK(with_cond.frames[0].checks);
  // The cond's Switch and Merge, and what lies between them, check for dead inputs; the
  // Greater that decides and what follows the Merge do not.
  check_roles(with_cond, g, frame,
              {{"while/cond/Switch", Role::body_checked},
               {"while/cond/mul/Switch", Role::body_checked},
               {"while/cond/mul", Role::body_checked},
               {"while/cond/add", Role::body_checked},
               {"while/cond/Merge", Role::body_checked},
               {"while/Greater", Role::body},
               {"while/NextIteration_1", Role::skipped}});

  // Outer: 3 iterations; inner: j counts to the outer i, adding j to s.
  auto [oi, os] =
      tf::while_loop([](const tf::Output& i, const tf::Output&) { return i < 3; },
                     [](const tf::Output& i, const tf::Output& s) {
                       auto [j, inner] = tf::while_loop(
                           [&](const tf::Output& j, const tf::Output&) { return j <= i; },
                           [](const tf::Output& j, const tf::Output& t) {
                             return std::tuple{j + 1, t + j};
                           },
                           std::tuple{tf::constant(0), s});
                       return std::tuple{i + 1, inner};
                     },
                     std::tuple{tf::constant(0), tf::constant(0)});
  const tf::Plan nested = plan_of(g, os);
  REQUIRE(nested.frames.size() == 2);
  CHECK(nested.frames[0].plain.empty());
  CHECK(!nested.frames[1].plain.empty());
  tf::Session sess(g);
  // s: +0, +0+1, +0+1+2 = 4; total as in ops/while_loop's test of TF's (4, 12).
  CHECK(sess.run(os).scalar<std::int32_t>() == 4);
  CHECK(sess.run(oi).scalar<std::int32_t>() == 3);
  CHECK(sess.run(total).scalar<std::int32_t>() == 12);
}

TEST_CASE("runtime/plain_loop: a cond inside a loop takes the other branch each iteration") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Variable v(tf::constant(10.0f), {.name = "v"});
  auto n = tf::placeholder<std::int32_t>(tf::Shape{}, "n");
  // Even k adds v, odd k subtracts 1; the branch taken changes every iteration.
  auto [k, acc] = tf::while_loop(
      [&](const tf::Output& k, const tf::Output&) { return k < n; },
      [&](const tf::Output& k, const tf::Output& a) {
        return std::tuple{k + 1, tf::cond(
                                     tf::equal(k % tf::constant(2), tf::constant(0)),
                                     [&] { return a + v.value(); }, [&] { return a - 1.0f; })};
      },
      std::tuple{tf::constant(0), tf::constant(0.0f)});
  const tf::Plan plan = plan_of(g, acc, {n});
  REQUIRE(plan.frames.size() == 1);
  CHECK(!plan.frames[0].plain.empty());
  CHECK(plan.frames[0].checks);
  tf::Session s(g);
  s.run(v.initializer());
  for (std::int32_t count : {0, 1, 2, 5, 6, 101}) {
    CAPTURE(count);
    const std::int32_t even = (count + 1) / 2, odd = count / 2;
    auto r = s.run({k, acc}, {{n, tf::Value(count)}});
    CHECK(r[0].scalar<std::int32_t>() == count);
    CHECK(r[1].scalar<float>() == static_cast<float>(10 * even - odd));
  }
  s.run(tf::assign(v, 2.0f));
  CHECK(s.run(acc, {{n, tf::Value(6)}}).scalar<float>() == 3.0f);  // 3 * 2 - 3
}

TEST_CASE(
    "runtime/plain_loop: a plain loop in an untaken branch is dead, in the taken one "
    "runs, run after run") {
  tf::Graph g;
  auto guard = g.as_default();
  auto p = tf::placeholder<bool>(tf::Shape{}, "p");
  auto x = tf::placeholder<float>(tf::Shape{2}, "x");
  tf::Output chosen = tf::cond(
      p,
      [&] {
        return tf::while_loop([](const tf::Output& v) { return tf::reduce_max(v) < 50.0f; },
                              [](const tf::Output& v) { return v * 3.0f; }, x + 1.0f);
      },
      [&] { return x * 0.5f; });
  const tf::Plan plan = plan_of(g, chosen, {p, x});
  REQUIRE(plan.frames.size() == 1);
  CHECK(!plan.frames[0].plain.empty());
  tf::Session s(g);
  const tf::Value xv = tf::Value::from_vector(std::vector<float>{2.0f, 0.5f}, {2});
  for (bool taken : {true, false, false, true, true, false}) {
    CAPTURE(taken);
    const tf::Value c = s.run(chosen, {{p, tf::Value(taken)}, {x, xv}});
    // Taken: [3, 1.5] times 3 until its largest element reaches 50 (three times).
    CHECK(c.data<float>()[0] == (taken ? 81.0f : 1.0f));
    CHECK(c.data<float>()[1] == (taken ? 40.5f : 0.25f));
  }
}

TEST_CASE("runtime/plain_loop: a body that returns a tensor from outside the loop") {
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder<float>(tf::Shape{}, "x");
  auto [i, v, w] = tf::while_loop(
      [](const tf::Output& i, const tf::Output&, const tf::Output&) { return i < 3; },
      [&](const tf::Output& i, const tf::Output&, const tf::Output& w) {
        return std::tuple{i + 1, tf::Output(x), w + x * 2.0f};
      },
      std::tuple{tf::constant(0), tf::constant(5.0f), tf::constant(1.0f)});
  // v's NextIteration reads only x's Enter, a loop invariant: as in TensorFlow, the body's
  // pivot is its control input, so it is part of the body, dead in the last iteration.
  const tf::Plan plan = plan_of(g, v, {x});
  REQUIRE(plan.frames.size() == 1);
  REQUIRE(!plan.frames[0].plain.empty());
  const std::string frame = plan.frames[0].name;
  bool pivot_control = false;
  for (const tf::NodeDef& n : g.as_graph_def().node)
    if (n.name == "while/NextIteration_1") {
      CHECK(n.input.front() == "while/mul/Enter");
      for (const std::string& in : n.input) pivot_control |= in == "^while/Identity";
    }
  CHECK(pivot_control);
  CHECK(role_of(plan, g, frame, "while/mul/Enter") == Role::enter);
  CHECK(role_of(plan, g, frame, "while/NextIteration_1") == Role::body);
  tf::Session s(g);
  auto r = s.run({i, v, w}, {{x, tf::Value(0.5f)}});
  CHECK(r[0].scalar<std::int32_t>() == 3);
  CHECK(r[1].scalar<float>() == 0.5f);
  CHECK(r[2].scalar<float>() == 4.0f);  // 1 + 3 * (0.5 * 2)
}

TEST_CASE("runtime/plain_loop: a gradient's forward and backward loops are plain") {
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder<float>(tf::Shape{}, "x");
  auto [i, y] = tf::while_loop([](const tf::Output& i, const tf::Output&) { return i < 3; },
                               [](const tf::Output& i, const tf::Output& y) {
                                 return std::tuple{i + 1, y * y};
                               },
                               std::tuple{tf::constant(0), tf::Output(x)});
  const tf::Output dx = tf::gradients({y}, {x})[0];
  const tf::Plan plan = plan_of(g, dx, {x});
  REQUIRE(plan.frames.size() == 2);
  const tf::PlanFrame& forward = frame_named(plan, "while/while_context");
  CHECK(!forward.plain.empty());
  // The backward loop's ControlTrigger (b_sync) runs in every iteration, as it would on
  // dead inputs.
  for (const tf::PlanFrame& f : plan.frames) {
    CAPTURE(f.name);
    CHECK(!f.plain.empty());
  }
  std::string sync;
  for (const tf::NodeDef& n : g.as_graph_def().node)
    if (n.op == "ControlTrigger") sync = n.name;
  REQUIRE(sync.ends_with("b_sync"));
  for (const tf::PlanFrame& f : plan.frames)
    if (f.name != forward.name) CHECK(role_of(plan, g, f.name, sync) == Role::every_time);
  tf::Session s(g);
  // y = x^8, dy/dx = 8 x^7: at 1.5, 136.6875.
  auto r = s.run({y, dx}, {{x, tf::Value(1.5f)}});
  CHECK(r[0].scalar<float>() == doctest::Approx(25.62890625));
  CHECK(r[1].scalar<float>() == doctest::Approx(136.6875));
}

}  // namespace symflow_test_runtime_plain_loop_test
