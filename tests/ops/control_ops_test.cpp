// NoOp and group: operations that exist for their control edges, checked against
// TensorFlow 1.x graph mode: tf.no_op() is "NoOp", tf.group(a, b) is the NoOp
// "group_deps" with control inputs [a, b].

#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <vector>

#include <symflow/symflow.hpp>

namespace symflow_test_ops_control_ops_test {

namespace ops_control_test {

using namespace symflow;

std::vector<std::string> control_names(const Operation& op) {
  std::vector<std::string> out;
  for (const Operation& c : op.control_inputs()) out.push_back(c.name());
  return out;
}

}  // namespace ops_control_test

using namespace ops_control_test;

TEST_CASE("ops/no_op: a node with no inputs and no outputs") {
  Graph g;
  auto guard = g.as_default();
  Operation a = no_op();
  Operation b = no_op();
  Operation c = no_op("init");
  CHECK(a.name() == "NoOp");
  CHECK(b.name() == "NoOp_1");
  CHECK(c.name() == "init");
  CHECK(a.type() == "NoOp");
  CHECK(a.num_inputs() == 0);
  CHECK(a.num_outputs() == 0);
  CHECK(a.control_inputs().empty());
  CHECK(a.attrs().empty());

  Session sess(g);
  std::vector<Value> out = sess.run(std::vector<Fetch>{a});
  REQUIRE(out.size() == 1);
  CHECK(out[0].is_none());
}

TEST_CASE("ops/group: a NoOp named group_deps after all of its inputs") {
  // TF: a = no_op(name='b'); b = no_op(name='a'); g = group(a, b) ->
  //     g.name == 'group_deps', control inputs ['b', 'a']
  Graph g;
  auto guard = g.as_default();
  Operation first = no_op("b");
  Operation second = no_op("a");
  Operation grp = group({first, second});
  CHECK(grp.name() == "group_deps");
  CHECK(grp.type() == "NoOp");
  CHECK(grp.num_inputs() == 0);
  CHECK(control_names(grp) == std::vector<std::string>{"b", "a"});
  CHECK(group({first}).name() == "group_deps_1");
  CHECK(group({}, "nothing").control_inputs().empty());
  Operation named = group({first, second}, "train");
  CHECK(named.name() == "train");
  CHECK(control_names(named) == std::vector<std::string>{"b", "a"});
  Operation direct = no_op("after", {second});
  CHECK(control_names(direct) == std::vector<std::string>{"a"});
}

TEST_CASE("ops/group: running it runs its control inputs") {
  // A Placeholder as a control input proves the control edge runs: unfed, it fails.
  Graph g;
  auto guard = g.as_default();
  auto p = placeholder<float>(Shape{}, "p");
  Operation grp = group({p.op()});
  Session sess(g);
  std::optional<InvalidArgumentError> error;
  try {
    sess.run(grp);
  } catch (const InvalidArgumentError& e) {
    error = e;
  }
  REQUIRE(error);
  CHECK(error->node_name() == "p");
  Operation fine = group({constant(1.0f).op(), no_op()});
  Session sess2(g);
  std::vector<Value> out = sess2.run(std::vector<Fetch>{fine});
  REQUIRE(out.size() == 1);
  CHECK(out[0].is_none());
}

TEST_CASE("ops/no_op: control_dependencies apply to it, and it lives in its inputs' graph") {
  Graph g;
  auto guard = g.as_default();
  Operation a = no_op("a");
  Operation inside;
  {
    control_dependencies deps(std::vector<Operation>{a});
    inside = no_op();
  }
  CHECK(control_names(inside) == std::vector<std::string>{"a"});

  Graph other;
  auto guard2 = other.as_default();
  Operation grp = group({a});  // built in a's graph, not the default one
  CHECK(grp.graph() == g);
  CHECK(other.num_nodes() == 0);
}

}  // namespace symflow_test_ops_control_ops_test
