// graph_util (train/graph_util.hpp): extract_sub_graph and freezing.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <symflow/io/graph_def_json.hpp>
#include <symflow/io/importer.hpp>
#include <symflow/symflow.hpp>
#include <symflow/train/graph_util.hpp>

namespace symflow_test_train_graph_util_test {

namespace tf = symflow;

namespace {

const tf::Value kInput{{1.0f, -2.0f}, {0.5f, 3.0f}};

std::vector<std::string> node_names(const tf::GraphDef& def) {
  std::vector<std::string> out;
  for (const auto& n : def.node) out.push_back(n.name);
  return out;
}

int count_ops(const tf::GraphDef& def, const std::string& op) {
  int n = 0;
  for (const auto& node : def.node) n += node.op == op;
  return n;
}

}  // namespace

TEST_CASE("graph_util: extract_sub_graph keeps exactly the reachable nodes, in order") {
  tf::Graph g;
  auto guard = g.as_default();
  auto a = tf::constant(1.0f, "a");
  auto b = tf::constant(2.0f, "b");
  auto unused = tf::constant(3.0f, "unused");
  auto gate = tf::no_op("gate");
  tf::Output sum;
  {
    tf::control_dependencies deps({gate});
    sum = tf::add(a, b, "sum");
  }
  auto other = tf::multiply(unused, a, "other");
  tf::GraphDef def = g.as_graph_def();

  tf::GraphDef sub = tf::graph_util::extract_sub_graph(def, {"sum"});
  CHECK(node_names(sub) == std::vector<std::string>{"a", "b", "gate", "sum"});
  CHECK(sub.producer == def.producer);
  CHECK(sub.node.back().input == std::vector<std::string>{"a", "b", "^gate"});
  CHECK(node_names(tf::graph_util::extract_sub_graph(def, {"other", "b"})) ==
        std::vector<std::string>{"a", "b", "unused", "other"});
  CHECK(tf::graph_util::extract_sub_graph(def, {}).node.empty());
  CHECK_THROWS_WITH_AS(tf::graph_util::extract_sub_graph(def, {"sum", "nope"}),
                       doctest::Contains("nope is not in graph"), tf::ValueError);
  def.node[3].input.push_back("ghost:1");  // "sum"
  CHECK_THROWS_WITH_AS(tf::graph_util::extract_sub_graph(def, {"sum"}),
                       doctest::Contains("ghost is not in graph"), tf::ValueError);
  (void)other;
}

TEST_CASE("graph_util: a frozen graph has no variables and gives the same outputs") {
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder<float>(tf::Shape{-1, 2}, "x");
  tf::Variable w(tf::Value{{1.0f, -1.0f, 0.5f}, {2.0f, 0.25f, -3.0f}}, {.name = "w"});
  tf::Variable b(tf::Value{0.1f, 0.2f, 0.3f}, {.name = "b"});
  tf::Variable unused(tf::Value{7.0f}, {.name = "unused"});
  auto y = tf::nn::softmax(tf::nn::relu(tf::add(tf::matmul(x, w), b)), "y");
  auto step = w.assign_add(tf::Value{{1.0f, 1.0f, 1.0f}, {1.0f, 1.0f, 1.0f}}, "step");
  tf::Session sess(g);
  sess.run(tf::global_variables_initializer());
  sess.run(step.op());  // the frozen value is the current one, not the initial one
  tf::Value expected = sess.run(y, {{x, kInput}});

  tf::GraphDef frozen =
      tf::graph_util::convert_variables_to_constants(sess, g.as_graph_def(), {"y"});
  CHECK(count_ops(frozen, "VariableV2") == 0);
  CHECK(count_ops(frozen, "Assign") == 0);
  CHECK(count_ops(frozen, "AssignAdd") == 0);
  for (const auto& n : frozen.node) CHECK(n.name != "unused");
  const tf::NodeDef* w_node = nullptr;
  for (const auto& n : frozen.node)
    if (n.name == "w") w_node = &n;
  REQUIRE(w_node != nullptr);
  CHECK(w_node->op == "Const");
  CHECK(std::get<tf::DType>(w_node->attr.at("dtype")) == tf::float32);
  CHECK(std::get<tf::Value>(w_node->attr.at("value")) ==
        tf::Value{{2.0f, 0.0f, 1.5f}, {3.0f, 1.25f, -2.0f}});

  // Later updates of the variable do not reach the frozen copy.
  sess.run(step.op());
  CHECK(std::get<tf::Value>(w_node->attr.at("value")) ==
        tf::Value{{2.0f, 0.0f, 1.5f}, {3.0f, 1.25f, -2.0f}});

  // Through JSON into a fresh graph: no VariableV2, no initialisation, same outputs.
  tf::GraphDef loaded =
      tf::io::parse_graph_def(tf::io::serialize_graph_def(frozen, false), "frozen.json");
  tf::Graph fresh;
  auto returned = tf::import_graph_def(loaded, {.return_elements = {"y:0"}}, fresh);
  for (const auto& op : fresh.get_operations()) CHECK(op.type() != "VariableV2");
  CHECK(fresh.get_operation_by_name("import/w/read").type() == "Identity");
  tf::Session fresh_sess(fresh);
  CHECK(fresh_sess.run(std::get<tf::Output>(returned.at(0)), {{"import/x:0", kInput}}) == expected);
}

TEST_CASE("graph_util: whitelist, blacklist, and uninitialised variables") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Variable a(tf::Value{1.0f}, {.name = "a"});
  tf::Variable b(tf::Value{2.0f}, {.name = "b"});
  auto out = tf::add(a, b, "out");
  tf::Session sess(g);
  // Nothing initialised yet: the session's error comes through.
  CHECK_THROWS_AS(tf::graph_util::convert_variables_to_constants(sess, g.as_graph_def(), {"out"}),
                  tf::FailedPreconditionError);
  sess.run(tf::global_variables_initializer());

  tf::GraphDef only_a =
      tf::graph_util::convert_variables_to_constants(sess, g.as_graph_def(), {"out"}, {"a"});
  CHECK(count_ops(only_a, "VariableV2") == 1);
  CHECK(count_ops(only_a, "Const") == 1);
  tf::GraphDef not_a =
      tf::graph_util::convert_variables_to_constants(sess, g.as_graph_def(), {"out"}, {}, {"a"});
  CHECK(count_ops(not_a, "VariableV2") == 1);
  for (const auto& n : not_a.node)
    if (n.name == "a") CHECK(n.op == "VariableV2");
  tf::GraphDef all =
      tf::graph_util::convert_variables_to_constants(sess, g.as_graph_def(), {"out"});
  CHECK(count_ops(all, "VariableV2") == 0);
  CHECK(node_names(all) == std::vector<std::string>{"a", "a/read", "b", "b/read", "out"});
  CHECK_THROWS_WITH_AS(
      tf::graph_util::convert_variables_to_constants(sess, g.as_graph_def(), {"missing"}),
      doctest::Contains("missing is not in graph"), tf::ValueError);
  (void)out;
}

}  // namespace symflow_test_train_graph_util_test
