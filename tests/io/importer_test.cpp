// import_graph_def (io/importer.hpp): prefixes, input_map, return_elements,
// ordering, and its errors.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <symflow/io/graph_def_json.hpp>
#include <symflow/io/importer.hpp>
#include <symflow/symflow.hpp>

namespace symflow_test_io_importer_test {

namespace tf = symflow;

namespace {

const tf::Value kInput{{1.0f, -2.0f, 0.5f}, {0.0f, 3.0f, -1.0f}};

// placeholder x -> matmul with variable w -> + b -> relu -> softmax "probs".
tf::Graph build_model() {
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder<float>(tf::Shape{-1, 3}, "x");
  tf::Variable w(
      tf::Value{{0.1f, -0.2f, 0.3f, 0.4f}, {0.5f, 0.6f, -0.7f, 0.8f}, {0.9f, 1.0f, 1.1f, -1.2f}},
      {.name = "w"});
  tf::Variable b(tf::Value{0.01f, 0.02f, 0.03f, 0.04f}, {.name = "b"});
  auto logits = tf::add(tf::matmul(x, w, false, false, "matmul"), b, "logits");
  auto r = tf::nn::relu(logits, "relu");
  tf::nn::softmax(r, "probs");
  tf::global_variables_initializer();
  return g;
}

tf::Value run_original(const tf::Graph& g) {
  tf::Session sess(g);
  sess.run(g.get_operation_by_name("init"));
  return sess.run("probs:0", {{"x:0", kInput}});
}

std::vector<std::string> names(const tf::Graph& g) {
  std::vector<std::string> out;
  for (const auto& op : g.get_operations()) out.push_back(op.name());
  return out;
}

tf::NodeDef node(std::string name, std::string op, std::vector<std::string> inputs = {},
                 tf::AttrMap attrs = {}) {
  return tf::NodeDef{std::move(name), std::move(op), std::move(inputs), "", std::move(attrs)};
}

tf::NodeDef const_node(std::string name, float v) {
  return node(std::move(name), "Const", {}, {{"dtype", tf::float32}, {"value", tf::Value(v)}});
}

}  // namespace

TEST_CASE("io/importer: a model through JSON and import runs with identical outputs") {
  tf::Graph original = build_model();
  tf::Value expected = run_original(original);
  std::string json = tf::io::serialize_graph_def(original.as_graph_def(), true);
  tf::GraphDef def = tf::io::parse_graph_def(json, "model.json");

  tf::Graph g;
  auto guard = g.as_default();
  auto returned = tf::import_graph_def(def, {.return_elements = {"probs:0", "init"}});
  REQUIRE(returned.size() == 2);
  CHECK(std::get<tf::Output>(returned[0]).name() == "import/probs:0");
  CHECK(std::get<tf::Operation>(returned[1]).name() == "import/init");
  CHECK(g.num_nodes() == original.num_nodes());
  for (const auto& op : original.get_operations()) {
    auto imported = g.get_operation_by_name("import/" + op.name());
    CHECK(imported.type() == op.type());
    CHECK(imported.num_outputs() == op.num_outputs());
    for (int i = 0; i < op.num_outputs(); ++i) {
      CHECK(imported.output(i).dtype() == op.output(i).dtype());
      CHECK(imported.output(i).shape() == op.output(i).shape());
      CHECK(imported.output(i).is_ref() == op.output(i).is_ref());
    }
  }
  // Colocation follows the prefix.
  CHECK(g.get_operation_by_name("import/w/read").get_attr<tf::StringList>("_class").items ==
        std::vector<std::string>{"loc:@import/w"});
  // The variable handle works; collections are not part of a GraphDef.
  tf::Variable w = tf::Variable::from_op(g.get_operation_by_name("import/w"));
  CHECK(w.initializer().name() == "import/w/Assign");
  CHECK(w.value().name() == "import/w/read:0");
  CHECK(tf::trainable_variables().empty());

  tf::Session sess(g);
  sess.run(std::get<tf::Operation>(returned[1]));
  tf::Value got = sess.run("import/probs:0", {{"import/x:0", kInput}});
  CHECK(got == expected);
  CHECK(sess.run(w.value()) ==
        tf::Value{{0.1f, -0.2f, 0.3f, 0.4f}, {0.5f, 0.6f, -0.7f, 0.8f}, {0.9f, 1.0f, 1.1f, -1.2f}});
}

TEST_CASE("io/importer: prefixes are made unique; name \"\" keeps names and rejects clashes") {
  tf::GraphDef def = build_model().as_graph_def();
  tf::Graph g;
  auto first = tf::detail::import_graph_def_into(g, def, {});
  auto second = tf::detail::import_graph_def_into(g, def, {});
  CHECK(first.prefix == "import/");
  CHECK(second.prefix == "import_1/");
  CHECK(g.get_operation_by_name("import_1/probs").type() == "Softmax");
  auto named = tf::detail::import_graph_def_into(g, def, {.name = "model"});
  CHECK(named.prefix == "model/");
  {
    tf::name_scope outer(g, "outer");
    auto nested = tf::detail::import_graph_def_into(g, def, {});
    CHECK(nested.prefix == "outer/import/");
  }

  tf::Graph plain;
  auto unprefixed = tf::detail::import_graph_def_into(plain, def, {.name = ""});
  CHECK(unprefixed.prefix.empty());
  CHECK(names(plain) == names(build_model()));
  // The imported names are taken: a new op gets a fresh one.
  {
    auto guard = plain.as_default();
    CHECK(tf::constant(1.0f, "x").op().name() == "x_1");
  }
  std::size_t before = plain.num_nodes();
  CHECK_THROWS_WITH_AS(tf::import_graph_def(def, {.name = ""}, plain),
                       doctest::Contains("Node 'x' already exists in the graph"), tf::ValueError);
  CHECK(plain.num_nodes() == before);

  // Each run of an imported graph has its own variables.
  tf::Session sess(g);
  sess.run(g.get_operation_by_name("import/init"));
  sess.run(g.get_operation_by_name("import_1/init"));
  CHECK(sess.run("import/probs:0", {{"import/x:0", kInput}}) ==
        sess.run("import_1/probs:0", {{"import_1/x:0", kInput}}));
}

TEST_CASE("io/importer: input_map replaces tensors of the GraphDef") {
  tf::Graph original = build_model();
  tf::Value expected = run_original(original);
  tf::GraphDef def = original.as_graph_def();

  for (std::string key : {"x:0", "x"}) {
    tf::Graph g;
    auto guard = g.as_default();
    auto c = tf::constant(kInput, "input");
    auto returned =
        tf::import_graph_def(def, {.input_map = {{key, c}}, .return_elements = {"probs:0", "x:0"}});
    auto probs = std::get<tf::Output>(returned.at(0));
    // A mapped tensor comes back as its replacement.
    CHECK(std::get<tf::Output>(returned.at(1)) == c);
    CHECK(g.get_operation_by_name("import/matmul").inputs().at(0) == c);
    // The replaced placeholder is still imported, just unused.
    CHECK(g.get_operation_by_name("import/x").type() == "Placeholder");
    tf::Session sess(g);
    sess.run(g.get_operation_by_name("import/init"));
    CHECK(sess.run(probs) == expected);  // nothing to feed
  }

  tf::Graph g;
  auto guard = g.as_default();
  auto c = tf::constant(kInput, "input");
  CHECK_THROWS_WITH_AS(tf::import_graph_def(def, {.input_map = {{"y:0", c}, {"z", c}}}),
                       doctest::Contains("Attempted to map inputs that were not found in "
                                         "graph_def: [y:0, z:0]"),
                       tf::ValueError);
  CHECK(g.num_nodes() == 1);
  CHECK_THROWS_WITH_AS(tf::import_graph_def(def, {.input_map = {{"x:3", c}}}),
                       doctest::Contains("Attempted to map inputs that were not found in "
                                         "graph_def: [x:3]"),
                       tf::ValueError);
  tf::Graph other;
  auto foreign = [&] {
    auto other_guard = other.as_default();
    return tf::constant(1.0f);
  }();
  CHECK_THROWS_WITH_AS(tf::import_graph_def(def, {.input_map = {{"x:0", foreign}}}),
                       doctest::Contains("must be from the graph the GraphDef is imported into"),
                       tf::ValueError);
}

TEST_CASE("io/importer: return_elements and their errors") {
  tf::GraphDef def = build_model().as_graph_def();
  tf::Graph g;
  auto returned = tf::import_graph_def(def, {.return_elements = {"w", "w:0", "relu:0", "x"}}, g);
  REQUIRE(returned.size() == 4);
  CHECK(std::get<tf::Operation>(returned[0]) == g.get_operation_by_name("import/w"));
  CHECK(std::get<tf::Output>(returned[1]).is_ref());
  CHECK(std::get<tf::Output>(returned[2]).name() == "import/relu:0");
  CHECK(std::get<tf::Operation>(returned[3]).type() == "Placeholder");

  tf::Graph h;
  CHECK_THROWS_WITH_AS(tf::import_graph_def(def, {.return_elements = {"nope"}}, h),
                       doctest::Contains("Requested return node 'nope' not found in graph def"),
                       tf::ValueError);
  CHECK_THROWS_WITH_AS(tf::import_graph_def(def, {.return_elements = {"nope:0"}}, h),
                       doctest::Contains("Requested return tensor 'nope:0' not found"),
                       tf::ValueError);
  CHECK(h.num_nodes() == 0);
  CHECK_THROWS_WITH_AS(tf::import_graph_def(def, {.return_elements = {"relu:4"}}, h),
                       doctest::Contains("Requested return tensor 'relu:4' not found"),
                       tf::ValueError);
  CHECK_THROWS_AS(tf::import_graph_def(def, {.return_elements = {"relu:x"}}, h), tf::ValueError);
}

TEST_CASE("io/importer: nodes in any order are sorted over data and control inputs") {
  tf::Graph original = build_model();
  tf::Value expected = run_original(original);
  tf::GraphDef def = original.as_graph_def();
  std::reverse(def.node.begin(), def.node.end());
  tf::Graph g;
  tf::import_graph_def(def, {}, g);
  CHECK(g.num_nodes() == def.node.size());
  tf::Session sess(g);
  sess.run(g.get_operation_by_name("import/init"));
  CHECK(sess.run("import/probs:0", {{"import/x:0", kInput}}) == expected);

  // A control input counts as a dependency too; the GraphDef order is kept otherwise.
  tf::GraphDef ctrl;
  ctrl.node = {node("after", "NoOp", {"^before"}), const_node("c", 1.0f), node("before", "NoOp")};
  tf::Graph h;
  tf::import_graph_def(ctrl, {.name = ""}, h);
  CHECK(names(h) == std::vector<std::string>{"c", "before", "after"});
  CHECK(h.get_operation_by_name("after").control_inputs().at(0).name() == "before");
}

TEST_CASE("io/importer: unknown ops, missing inputs and cycles leave the graph unchanged") {
  tf::Graph g;
  tf::GraphDef unknown;
  unknown.node = {const_node("a", 1.0f), node("f", "Frobnicate", {"a"})};
  CHECK_THROWS_WITH_AS(tf::import_graph_def(unknown, {}, g),
                       doctest::Contains("Op type not registered 'Frobnicate' in binary"),
                       tf::NotFoundError);
  try {
    tf::import_graph_def(unknown, {}, g);
  } catch (const tf::NotFoundError& e) {
    CHECK(e.node_name() == "f");
  }

  tf::GraphDef missing;
  missing.node = {node("n", "Identity", {"ghost"}, {{"T", tf::float32}})};
  CHECK_THROWS_WITH_AS(tf::import_graph_def(missing, {}, g),
                       doctest::Contains("Node 'n': Unknown input node 'ghost'"), tf::ValueError);
  missing.node = {const_node("a", 1.0f), node("n", "Identity", {"a:1"}, {{"T", tf::float32}})};
  CHECK_THROWS_WITH_AS(tf::import_graph_def(missing, {}, tf::Graph()),
                       doctest::Contains("Node 'n': input 'a:1' refers to output 1 of 'a', which "
                                         "has 1 outputs"),
                       tf::ValueError);
  missing.node = {const_node("a", 1.0f), node("n", "Identity", {"a:-1"}, {{"T", tf::float32}})};
  CHECK_THROWS_WITH_AS(tf::import_graph_def(missing, {}, g),
                       doctest::Contains("malformed input 'a:-1'"), tf::ValueError);

  tf::GraphDef cycle;
  cycle.node = {const_node("c", 1.0f), node("a", "Add", {"c", "b"}, {{"T", tf::float32}}),
                node("b", "Add", {"c", "a"}, {{"T", tf::float32}}),
                node("d", "Identity", {"a"}, {{"T", tf::float32}})};
  CHECK_THROWS_WITH_AS(tf::import_graph_def(cycle, {}, g),
                       doctest::Contains("graph_def contains a cycle through node"),
                       tf::ValueError);
  try {
    tf::import_graph_def(cycle, {}, g);
  } catch (const tf::ValueError& e) {
    CHECK((e.node_name() == "a" || e.node_name() == "b"));  // on the cycle, not d
  }
  tf::GraphDef self;
  self.node = {node("s", "NoOp", {"^s"})};
  CHECK_THROWS_WITH_AS(tf::import_graph_def(self, {}, g),
                       doctest::Contains("cycle through node 's' (s -> s)"), tf::ValueError);

  tf::GraphDef twice;
  twice.node = {const_node("a", 1.0f), const_node("a", 2.0f)};
  CHECK_THROWS_WITH_AS(tf::import_graph_def(twice, {}, g),
                       doctest::Contains("Node 'a' is not unique"), tf::ValueError);
  tf::GraphDef bad_name;
  bad_name.node = {const_node("_a", 1.0f)};
  CHECK_THROWS_WITH_AS(tf::import_graph_def(bad_name, {}, g),
                       doctest::Contains("is not a valid node name"), tf::ValueError);
  CHECK(g.num_nodes() == 0);

  // Shape inference runs: a mismatch is create_op's ValueError naming the node.
  tf::GraphDef shapes;
  shapes.node = {
      node("a", "Const", {}, {{"dtype", tf::float32}, {"value", tf::Value{1.0f, 2.0f}}}),
      node("b", "Const", {}, {{"dtype", tf::float32}, {"value", tf::Value{1.0f, 2.0f, 3.0f}}}),
      node("s", "Add", {"a", "b"}, {{"T", tf::float32}})};
  CHECK_THROWS_WITH_AS(tf::import_graph_def(shapes, {}, tf::Graph()),
                       doctest::Contains("for 'import/s' (op: 'Add')"), tf::ValueError);
  // A node without the attrs its op needs is a typed error, not a crash.
  tf::GraphDef no_attrs;
  no_attrs.node = {node("c", "Const")};
  CHECK_THROWS_AS(tf::import_graph_def(no_attrs, {}, tf::Graph()), tf::Error);
  tf::Graph finalized;
  finalized.finalize();
  CHECK_THROWS_AS(tf::import_graph_def(shapes, {}, finalized), tf::RuntimeError);
}

TEST_CASE("io/importer: devices and control inputs are kept; control_dependencies apply") {
  tf::GraphDef def;
  def.node = {const_node("a", 2.0f), node("g", "NoOp", {"^a"}),
              node("i", "Identity", {"a", "^g"}, {{"T", tf::float32}})};
  def.node[0].device = "/device:CPU:0";
  tf::Graph g;
  auto guard = g.as_default();
  auto before = tf::no_op("before");
  {
    tf::control_dependencies deps({before});
    tf::import_graph_def(def);
  }
  CHECK(g.get_operation_by_name("import/a").device() == "/device:CPU:0");
  CHECK(g.get_operation_by_name("import/i").device().empty());
  auto i = g.get_operation_by_name("import/i");
  CHECK(i.node_def().input == std::vector<std::string>{"import/a", "^import/g"});
  // The source node picked up the enclosing context's dependency, as in TensorFlow.
  auto a_controls = g.get_operation_by_name("import/a").control_inputs();
  CHECK(std::find(a_controls.begin(), a_controls.end(), before) != a_controls.end());
  tf::Session sess(g);
  CHECK(sess.run("import/i:0").scalar<float>() == 2.0f);

  // "^x" in input_map replaces a control input by the mapped tensor's op.
  tf::Graph h;
  auto h_guard = h.as_default();
  auto other = tf::constant(1.0f, "other");
  tf::import_graph_def(def, {.input_map = {{"^g", other}}});
  CHECK(h.get_operation_by_name("import/i").control_inputs() ==
        std::vector<tf::Operation>{other.op()});
}

}  // namespace symflow_test_io_importer_test
