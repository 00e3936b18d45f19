// Variable::initialized_value(), checked against TensorFlow 2.21's tf.compat.v1 graph mode
// (control flow v1, ref variables): a cond on IsVariableInitialized, so that variables
// initialised from one another get their values in one initializer run, in any order.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <symflow/symflow.hpp>

#include "../test_util.hpp"

namespace symflow_test_variables_initialized_value_test {

using namespace symflow;
using namespace symflow::test;

// "name op input, input, ..." for the nodes in [from, to) of the GraphDef.
std::vector<std::string> node_lines(const Graph& g, std::size_t from, std::size_t to) {
  std::vector<std::string> out;
  const GraphDef def = g.as_graph_def();
  for (std::size_t i = from; i < to && i < def.node.size(); ++i) {
    const NodeDef& n = def.node[i];
    std::string line = n.name + " " + n.op;
    for (std::size_t k = 0; k < n.input.size(); ++k) line += (k ? ", " : " ") + n.input[k];
    out.push_back(line);
  }
  return out;
}

TEST_CASE("initialized_value: a chain of variables, each from the one before") {
  Graph g;
  auto guard = g.as_default();
  Variable a(5.0f, {.name = "a"});
  const std::size_t first = g.num_nodes();
  Output twice = a.initialized_value() * 2.0f;
  const std::size_t after_first = g.num_nodes();
  Variable b(twice, {.name = "b"});
  const std::size_t before_second = g.num_nodes();
  Output plus_one = b.initialized_value() + 1.0f;
  const std::size_t after_second = g.num_nodes();
  Variable c(plus_one, {.name = "c"});

  // TF: the first cond at the top level, its false branch a's initial value; the second,
  //     "cond_1" on IsVariableInitialized_1, returns b's initial value ("mul") while b is
  //     uninitialised. (TF's switch lists the RefSwitch after the Identity that reads it.)
  CHECK(node_lines(g, first, after_first) ==
        std::vector<std::string>{
            "IsVariableInitialized IsVariableInitialized a",
            "cond/Switch Switch IsVariableInitialized, IsVariableInitialized",
            "cond/switch_t Identity cond/Switch:1", "cond/switch_f Identity cond/Switch",
            "cond/pred_id Identity IsVariableInitialized",
            "cond/read/Switch RefSwitch a, cond/pred_id", "cond/read Identity cond/read/Switch:1",
            "cond/Switch_1 Switch a/initial_value, cond/pred_id",
            "cond/Merge Merge cond/Switch_1, cond/read", "mul/y Const",
            "mul Mul cond/Merge, mul/y"});
  CHECK(node_lines(g, before_second, after_second) ==
        std::vector<std::string>{
            "IsVariableInitialized_1 IsVariableInitialized b",
            "cond_1/Switch Switch IsVariableInitialized_1, IsVariableInitialized_1",
            "cond_1/switch_t Identity cond_1/Switch:1", "cond_1/switch_f Identity cond_1/Switch",
            "cond_1/pred_id Identity IsVariableInitialized_1",
            "cond_1/read/Switch RefSwitch b, cond_1/pred_id",
            "cond_1/read Identity cond_1/read/Switch:1",
            "cond_1/Switch_1 Switch mul, cond_1/pred_id",
            "cond_1/Merge Merge cond_1/Switch_1, cond_1/read", "add/y Const",
            "add Add cond_1/Merge, add/y"});
  CHECK(a.initialized_value().dtype() == DType::float32);

  // TF: one global_variables_initializer run gives 5, 10, 11; so does an initializer that
  //     lists them backwards; c's initializer alone gives 11 and leaves a and b
  //     uninitialised.
  {
    Session sess(g);
    sess.run(global_variables_initializer());
    CHECK(sess.run(a).scalar<float>() == 5.0f);
    CHECK(sess.run(b).scalar<float>() == 10.0f);
    CHECK(sess.run(c).scalar<float>() == 11.0f);
  }
  {
    Session sess(g);
    sess.run(variables_initializer({c, b, a}));
    CHECK(sess.run(a).scalar<float>() == 5.0f);
    CHECK(sess.run(b).scalar<float>() == 10.0f);
    CHECK(sess.run(c).scalar<float>() == 11.0f);
  }
  {
    Session sess(g);
    sess.run(c.initializer());
    CHECK(sess.run(c).scalar<float>() == 11.0f);
    CHECK(sess.run(report_uninitialized_variables()).to_vector<std::string>() ==
          std::vector<std::string>{"a", "b"});
    // Once a holds another value, b initialised again reads it through the cond.
    sess.run(a.initializer());
    sess.run(a.assign(7.0f));
    sess.run(b.initializer());
    CHECK(sess.run(b).scalar<float>() == 14.0f);
  }
}

TEST_CASE("initialized_value: bad handles and dtypes") {
  Graph g;
  auto guard = g.as_default();
  Variable v(Value::from_vector<float>({1, 2}, {2}), {.name = "v"});
  // TF 2.21 (its AddV2 is symflow's Add): the cond's value is float32, so an int32 tensor
  // added to it is refused; symflow's message then names the node as TF 1.x did.
  auto type_error = thrown<TypeError>([&] { (void)(constant(1) + v.initialized_value()); });
  REQUIRE(type_error);
  CHECK(std::string(type_error->what()) ==
        "Input 'y' of 'Add' Op has type float32 that does not match type int32 of argument "
        "'x'. for 'add' (op: 'Add') with input shapes: [], [2].");
  auto empty = thrown<ValueError>([] { (void)Variable().initialized_value(); });
  REQUIRE(empty);
  CHECK(std::string(empty->what()) == "initialized_value: the variable handle is empty");
}

}  // namespace symflow_test_variables_initialized_value_test
