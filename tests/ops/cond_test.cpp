// tf.cond, Switch and Merge, checked against TensorFlow 2.21's tf.compat.v1 graph mode
// with control flow v1 (tf.disable_control_flow_v2()): the values each branch gives, the
// nodes cond builds, side effects that happen only in the taken branch, nesting, the
// gradients' values, and TensorFlow's errors (numerical gradient checks:
// control_grad_test.cpp).
#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <symflow/symflow.hpp>

namespace symflow_test_ops_cond_test {

namespace tf = symflow;

// "name op input, input, ..." for each node whose name starts with `prefix`.
std::set<std::string> nodes_of(const tf::Graph& g, const std::string& prefix) {
  std::set<std::string> out;
  for (const tf::NodeDef& n : g.as_graph_def().node) {
    if (n.name.rfind(prefix, 0) != 0) continue;
    std::string line = n.name + " " + n.op;
    for (std::size_t i = 0; i < n.input.size(); ++i) line += (i ? ", " : " ") + n.input[i];
    out.insert(line);
  }
  return out;
}

float run_float(tf::Session& s, const tf::Output& y, tf::FeedDict feeds) {
  return s.run(y, feeds).scalar<float>();
}

TEST_CASE("ops/cond: only the branch pred names runs, with TensorFlow's values") {
  // TF: y = tf.cond(p, lambda: x * 2.0, lambda: x - 1.0); x = 3 -> 6.0 (True), 2.0 (False)
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder<float>(tf::Shape{}, "x");
  auto p = tf::placeholder<bool>(tf::Shape{}, "p");
  tf::Output y = tf::cond(
      p, [&] { return x * 2.0f; }, [&] { return x - 1.0f; });
  CHECK(tf::to_string(y) == "Tensor(\"cond/Merge:0\", shape=(), dtype=float32)");
  tf::Session s(g);
  CHECK(run_float(s, y, {{x, tf::Value(3.0f)}, {p, tf::Value(true)}}) == 6.0f);
  CHECK(run_float(s, y, {{x, tf::Value(3.0f)}, {p, tf::Value(false)}}) == 2.0f);
  // The untaken branch's tensors are dead: fetching one is TensorFlow's error.
  try {
    s.run(g.get_tensor_by_name("cond/mul:0"), {{x, tf::Value(3.0f)}, {p, tf::Value(false)}});
    FAIL("a dead tensor was fetched");
  } catch (const tf::InvalidArgumentError& e) {
    CHECK(std::string(e.what()).find("Retval[0] does not have value") != std::string::npos);
  }
  // Merge's value_index says which branch gave the value (0: false).
  auto both = s.run({y, g.get_tensor_by_name("cond/Merge:1")},
                    {{x, tf::Value(3.0f)}, {p, tf::Value(false)}});
  CHECK(both[1].scalar<std::int32_t>() == 0);
  // Branches that return a Const made in them: the Merge reads the live one (each Const's
  // value is among the Merge's arguments from the first run on; its dead flag is not).
  tf::Output c = tf::cond(
      p, [] { return tf::constant(1.5f); }, [] { return tf::constant(-4.0f); });
  CHECK(run_float(s, c, {{p, tf::Value(true)}}) == 1.5f);
  CHECK(run_float(s, c, {{p, tf::Value(false)}}) == -4.0f);
  CHECK(run_float(s, c, {{p, tf::Value(true)}}) == 1.5f);
}

TEST_CASE("ops/cond: the nodes are TensorFlow's, nested conds included") {
  // TF: tf.cond(p, lambda: tf.cond(q, lambda: x * 3.0, lambda: x - 1.0),
  //             lambda: tf.square(x))
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder<float>(tf::Shape{}, "x");
  auto p = tf::placeholder<bool>(tf::Shape{}, "p");
  auto q = tf::placeholder<bool>(tf::Shape{}, "q");
  tf::Output y = tf::cond(
      p,
      [&] {
        return tf::cond(
            q, [&] { return x * 3.0f; }, [&] { return x - 1.0f; });
      },
      [&] { return tf::square(x); });
  CHECK(y.name() == "cond/Merge:0");
  const std::set<std::string> tf_nodes = {
      "cond/Switch Switch p, p",
      "cond/switch_t Identity cond/Switch:1",
      "cond/switch_f Identity cond/Switch",
      "cond/pred_id Identity p",
      "cond/cond/Switch Switch cond/cond/Switch/Switch:1, cond/cond/Switch/Switch:1",
      "cond/cond/Switch/Switch Switch q, cond/pred_id",
      "cond/cond/switch_t Identity cond/cond/Switch:1",
      "cond/cond/switch_f Identity cond/cond/Switch",
      "cond/cond/pred_id Identity cond/cond/Switch/Switch:1",
      "cond/cond/mul/y Const ^cond/cond/switch_t",
      "cond/cond/mul Mul cond/cond/mul/Switch_1:1, cond/cond/mul/y",
      "cond/cond/mul/Switch Switch x, cond/pred_id",
      "cond/cond/mul/Switch_1 Switch cond/cond/mul/Switch:1, cond/cond/pred_id",
      "cond/cond/sub/y Const ^cond/cond/switch_f",
      "cond/cond/sub Sub cond/cond/sub/Switch, cond/cond/sub/y",
      "cond/cond/sub/Switch Switch cond/cond/mul/Switch:1, cond/cond/pred_id",
      "cond/cond/Merge Merge cond/cond/sub, cond/cond/mul",
      "cond/Square Square cond/Square/Switch",
      "cond/Square/Switch Switch x, cond/pred_id",
      "cond/Merge Merge cond/Square, cond/cond/Merge",
  };
  CHECK(nodes_of(g, "cond") == tf_nodes);
  // A branch's Switch is colocated with the tensor it passes on.
  CHECK(g.get_operation_by_name("cond/Square/Switch").get_attr<tf::StringList>("_class").items ==
        std::vector<std::string>{"loc:@x"});
  CHECK(g.get_operation_by_name("cond/Merge").get_attr<std::int64_t>("N") == 2);

  // TF, x = 3, (p, q) -> (y, dy/dx): TT (9, 3), TF (2, 1), FT (9, 6), FF (9, 6).
  tf::Output dy = tf::gradients(y, {x})[0];
  tf::Session s(g);
  const float expected[4][2] = {{9, 3}, {2, 1}, {9, 6}, {9, 6}};
  for (int c = 0; c < 4; ++c) {
    const bool pv = c < 2, qv = c % 2 == 0;
    CAPTURE(pv);
    CAPTURE(qv);
    auto r = s.run({y, dy}, {{x, tf::Value(3.0f)}, {p, tf::Value(pv)}, {q, tf::Value(qv)}});
    CHECK(r[0].scalar<float>() == expected[c][0]);
    CHECK(r[1].scalar<float>() == expected[c][1]);
  }
}

TEST_CASE("ops/cond: an assign in a branch runs only when the branch is taken") {
  // TF (use_resource=False): v = 0; upd = tf.cond(p, lambda: tf.assign(v, 1.0),
  // lambda: tf.assign_add(v, 2.0)) is a RefMerge of float32_ref; runs with p = True,
  // False, False give 1, 3, 5.
  tf::Graph g;
  auto guard = g.as_default();
  auto p = tf::placeholder<bool>(tf::Shape{}, "p");
  tf::Variable v(tf::Value(0.0f), {.name = "v"});
  tf::Output upd = tf::cond(
      p, [&] { return tf::assign(v, 1.0f); }, [&] { return tf::assign_add(v, 2.0f); });
  CHECK(tf::to_string(upd) == "Tensor(\"cond/Merge:0\", shape=(), dtype=float32_ref)");
  CHECK(upd.op().type() == "RefMerge");
  CHECK(g.get_operation_by_name("cond/Assign/Switch").type() == "RefSwitch");
  CHECK(
      nodes_of(g, "cond/Assign") ==
      std::set<std::string>{"cond/Assign Assign cond/Assign/Switch:1, cond/Assign/value",
                            "cond/Assign/Switch RefSwitch v, cond/pred_id",
                            "cond/Assign/value Const ^cond/switch_t",
                            "cond/AssignAdd AssignAdd cond/AssignAdd/Switch, cond/AssignAdd/value",
                            "cond/AssignAdd/Switch RefSwitch v, cond/pred_id",
                            "cond/AssignAdd/value Const ^cond/switch_f"});
  tf::Session s(g);
  s.run(v.initializer());
  CHECK(run_float(s, upd, {{p, tf::Value(true)}}) == 1.0f);
  CHECK(s.run(v.value()).scalar<float>() == 1.0f);
  CHECK(run_float(s, upd, {{p, tf::Value(false)}}) == 3.0f);
  CHECK(run_float(s, upd, {{p, tf::Value(false)}}) == 5.0f);
  CHECK(s.run(v.value()).scalar<float>() == 5.0f);
}

TEST_CASE("ops/cond: branches return operations, tuples, pairs and vectors") {
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder<float>(tf::Shape{}, "x");
  auto p = tf::placeholder<bool>(tf::Shape{}, "p");
  // TF: tf.cond(p, tf.no_op, tf.no_op) is cond/Merge:0 of bool, the pivots after the ops.
  tf::Output ops = tf::cond(
      p, [] { return tf::no_op(); }, [] { return tf::no_op(); });
  CHECK(ops.dtype() == tf::DType::bool_);
  CHECK(
      nodes_of(g, "cond/") ==
      std::set<std::string>{"cond/Switch Switch p, p", "cond/switch_t Identity cond/Switch:1",
                            "cond/switch_f Identity cond/Switch", "cond/pred_id Identity p",
                            "cond/NoOp NoOp ^cond/switch_t",
                            "cond/control_dependency Identity cond/switch_t, ^cond/NoOp",
                            "cond/NoOp_1 NoOp ^cond/switch_f",
                            "cond/control_dependency_1 Identity cond/switch_f, ^cond/NoOp_1",
                            "cond/Merge Merge cond/control_dependency_1, cond/control_dependency"});
  // TF: tf.cond(p, lambda: (tf.identity(x), x), lambda: (x, x * 2.0)): an outside tensor
  // returned as it is goes through a Switch of its branch.
  auto [a, b] = tf::cond(
      p, [&] { return std::make_tuple(tf::identity(x), tf::Output(x)); },
      [&] { return std::make_tuple(tf::Output(x), x * 2.0f); });
  CHECK(a.name() == "cond_1/Merge:0");
  CHECK(b.name() == "cond_1/Merge_1:0");
  CHECK(nodes_of(g, "cond_1/Merge") ==
        std::set<std::string>{"cond_1/Merge Merge cond_1/mul/Switch, cond_1/Identity",
                              "cond_1/Merge_1 Merge cond_1/mul, cond_1/Identity/Switch:1"});
  tf::Tensor<float> typed = tf::cond(
      p, [&] { return tf::Tensor<float>(x + 1.0f); }, [&] { return x; });
  std::vector<tf::Output> listed = tf::cond(
      p,
      [&] {
        return std::vector<tf::Output>{x, x * x};
      },
      [&] {
        return std::vector<tf::Output>{x * 0.0f, x};
      });
  REQUIRE(listed.size() == 2);
  auto pair = tf::cond(
      p, [&] { return std::make_pair(x, tf::no_op()); },
      [&] { return std::make_pair(x, tf::no_op()); });

  tf::Session s(g);
  for (bool pv : {true, false}) {
    CAPTURE(pv);
    auto r = s.run({ops, a, b, typed, listed[0], listed[1], pair.first},
                   {{x, tf::Value(3.0f)}, {p, tf::Value(pv)}});
    CHECK(r[0].scalar<bool>() == pv);
    CHECK(r[1].scalar<float>() == 3.0f);
    CHECK(r[2].scalar<float>() == (pv ? 3.0f : 6.0f));
    CHECK(r[3].scalar<float>() == (pv ? 4.0f : 3.0f));
    CHECK(r[4].scalar<float>() == (pv ? 3.0f : 0.0f));
    CHECK(r[5].scalar<float>() == (pv ? 9.0f : 3.0f));
    CHECK(r[6].scalar<float>() == 3.0f);
  }
}

TEST_CASE("ops/cond: a bad predicate or branches that disagree are TensorFlow's errors") {
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder<float>(tf::Shape{}, "x");
  auto p = tf::placeholder<bool>(tf::Shape{}, "p");
  auto lx = [&] { return tf::Output(x); };
  // TF: TypeError: Input 'pred' of 'Switch' Op has type float32 that does not match
  // expected type of bool.
  try {
    tf::cond(x, lx, lx);
    FAIL("a float predicate was accepted");
  } catch (const tf::TypeError& e) {
    CHECK(std::string(e.what()).find(
              "Input 'pred' of 'Switch' Op has type float32 that does not match expected type "
              "of bool.") != std::string::npos);
  }
  // TF: ValueError: Shape must be rank 0 but is rank 1 for '{{node k4/Switch}} ...'
  auto many = tf::placeholder<bool>(tf::Shape{2}, "many");
  try {
    tf::cond(many, lx, lx, "k4");
    FAIL("a vector predicate was accepted");
  } catch (const tf::ValueError& e) {
    CHECK(std::string(e.what()).find("Shape must be rank 0 but is rank 1") != std::string::npos);
    CHECK(std::string(e.what()).find("k4/Switch") != std::string::npos);
  }
  // TF: ValueError: Outputs of 'true_fn' and 'false_fn' must have the same type(s).
  // Received float32 from 'true_fn' and int32 from 'false_fn'.
  try {
    tf::cond(p, lx, [] { return tf::constant(1); });
    FAIL("branches of two dtypes were accepted");
  } catch (const tf::ValueError& e) {
    CHECK(std::string(e.what()) ==
          "Outputs of 'true_fn' and 'false_fn' must have the same type(s). Received float32 "
          "from 'true_fn' and int32 from 'false_fn'.");
  }
  // TF: ValueError: The two structures don't have the same nested structure.
  try {
    tf::cond(
        p, [&] { return std::vector<tf::Output>{x}; },
        [&] {
          return std::vector<tf::Output>{x, x};
        });
    FAIL("branches of two lengths were accepted");
  } catch (const tf::ValueError& e) {
    CHECK(std::string(e.what()).find("The two structures don't have the same nested structure") !=
          std::string::npos);
  }
}

TEST_CASE("ops/case_: the first predicate that holds picks the action, as TensorFlow nests it") {
  // TF: tf.case([(x < 0, lambda: x * 2), (x < 5, lambda: x + 1)], default=lambda: x - 3)
  // is case/cond/Merge:0; x = -1, 2, 7 -> -2, 3, 4.
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder<float>(tf::Shape{}, "x");
  tf::Output r =
      tf::case_({{x < 0.0f, [&] { return x * 2.0f; }}, {x < 5.0f, [&] { return x + 1.0f; }}},
                [&] { return x - 3.0f; });
  CHECK(r.name() == "case/cond/Merge:0");
  const std::set<std::string> nodes = nodes_of(g, "case/");
  CHECK(nodes.count("case/cond/Switch Switch Less, Less"));
  CHECK(nodes.count("case/cond/cond/Switch/Switch Switch Less_1, case/cond/pred_id"));
  CHECK(nodes.count(
      "case/cond/cond/sub/Switch Switch case/cond/cond/add/Switch, case/cond/cond/pred_id"));
  CHECK(nodes.count("case/cond/Merge Merge case/cond/cond/Merge, case/cond/mul"));
  tf::Session s(g);
  CHECK(run_float(s, r, {{x, tf::Value(-1.0f)}}) == -2.0f);
  CHECK(run_float(s, r, {{x, tf::Value(2.0f)}}) == 3.0f);
  CHECK(run_float(s, r, {{x, tf::Value(7.0f)}}) == 4.0f);
  CHECK_THROWS_AS(tf::case_({{x, [&] { return tf::Output(x); }}}, [&] { return tf::Output(x); }),
                  tf::TypeError);
}

}  // namespace symflow_test_ops_cond_test
