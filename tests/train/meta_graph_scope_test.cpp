// MetaGraph export of one scope and import under another (export_scope / import_scope),
// Savers kept in the SAVERS collection, variables in collections of their own, and
// collections that cannot be written: the names, collections and errors TensorFlow 1.x
// gives for the same graphs (tf.compat.v1 in TensorFlow 2.21).
#include <doctest/doctest.h>

#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <symflow/symflow.hpp>
#include <symflow/train/import_meta_graph.hpp>
#include <symflow/train/meta_graph.hpp>
#include <symflow/train/saver.hpp>

#include "../test_util.hpp"

namespace symflow_test_train_meta_graph_scope {

namespace tf = symflow;
using tf::train::BytesList;
using tf::train::NodeList;

namespace {

// Two scopes with a variable in each: s/a (with s/y = 3a) and u/b.
struct TwoScopes {
  tf::Variable a, b;
  tf::Output y;
};
TwoScopes build_two_scopes() {
  TwoScopes m;
  {
    tf::name_scope s("s");
    m.a = tf::Variable(tf::Value({1.0f, 2.0f}), {.name = "a"});
    m.y = tf::multiply(m.a, 3.0f, "y");
  }
  {
    tf::name_scope u("u");
    m.b = tf::Variable(tf::Value(5.0f), {.name = "b"});
  }
  return m;
}

std::vector<std::string> node_lines(const tf::GraphDef& graph_def) {
  std::vector<std::string> out;
  for (const tf::NodeDef& node : graph_def.node) {
    std::string line = node.name + ":" + node.op + ":";
    for (std::size_t i = 0; i < node.input.size(); ++i) line += (i ? "," : "") + node.input[i];
    out.push_back(line);
  }
  return out;
}

// Everything written to std::cerr while alive.
class CerrCapture {
 public:
  CerrCapture() : old_(std::cerr.rdbuf(text_.rdbuf())) {}
  ~CerrCapture() { std::cerr.rdbuf(old_); }
  CerrCapture(const CerrCapture&) = delete;
  CerrCapture& operator=(const CerrCapture&) = delete;
  std::string text() const { return text_.str(); }

 private:
  std::ostringstream text_;
  std::streambuf* old_;
};

}  // namespace

TEST_CASE("meta_graph_scope: export_scope keeps the scope's nodes, stripped, as TensorFlow") {
  tf::Graph g;
  auto guard = g.as_default();
  TwoScopes m = build_two_scopes();
  tf::add_to_collection("outs", m.y);
  tf::add_to_collection("outs", m.b.value());
  tf::add_to_collection("strs", "hello");
  tf::add_to_collection("strs", "s_x");
  tf::add_to_collection("ints", std::int64_t{3});
  tf::add_to_collection("only_u", m.b.value());
  tf::get_collection_ref("empty");

  auto meta = tf::train::export_meta_graph({}, {.export_scope = "s"});
  // TensorFlow's node names, ops and inputs for export_scope="s".
  CHECK(node_lines(meta.graph_def) ==
        std::vector<std::string>{
            "a/initial_value:Const:", "a:VariableV2:", "a/Assign:Assign:a,a/initial_value",
            "a/read:Identity:a", "y/y:Const:", "y:Mul:a/read,y/y"});
  const tf::NodeDef& assign = meta.graph_def.node[2];
  CHECK(std::get<tf::StringList>(assign.attr.at("_class")).items ==
        std::vector<std::string>{"loc:@a"});
  CHECK(meta.meta_info_def.stripped_op_list ==
        std::vector<std::string>{"Assign", "Const", "Identity", "Mul", "VariableV2"});
  // Items outside the scope are left out ("hello" too: a string is matched as a name),
  // numbers stay, and collections left empty are not written.
  CHECK(std::get<NodeList>(meta.collection_def.at("outs")).value ==
        std::vector<std::string>{"y:0"});
  CHECK(std::get<BytesList>(meta.collection_def.at("strs")).value ==
        std::vector<std::string>{"s_x"});
  CHECK(std::get<tf::train::Int64List>(meta.collection_def.at("ints")).value ==
        std::vector<std::int64_t>{3});
  CHECK(std::get<NodeList>(meta.collection_def.at("variables")).value ==
        std::vector<std::string>{"a"});
  CHECK_FALSE(meta.collection_def.contains("only_u"));
  CHECK_FALSE(meta.collection_def.contains("empty"));
  CHECK_FALSE(meta.collection_def.contains("unbound_inputs"));

  // TensorFlow's own file: the VariableDef bytes TensorFlow writes for "s".
  auto tf_meta = tf::train::export_meta_graph(
      {}, {.export_scope = "s", .format = tf::train::FileFormat::tensorflow});
  CHECK(std::get<BytesList>(tf_meta.collection_def.at("variables")).value ==
        std::vector<std::string>{std::string("\n\003a:0\022\010a/Assign\032\010a/read:0"
                                             "2\021a/initial_value:08\001")});

  // "s/" is matched as a prefix as given: it drops "sx", which "s" keeps.
  tf::constant(1.0f, "sx");
  auto plain = tf::train::export_meta_graph({}, {.export_scope = "s"});
  CHECK(plain.graph_def.node.back().name == "sx");
  auto slash = tf::train::export_meta_graph({}, {.export_scope = "s/"});
  CHECK(slash.graph_def.node.size() == 6);
}

TEST_CASE("meta_graph_scope: a scope imported under another runs with restored values") {
  tf::test::TempDir dir("meta_graph_scope");
  const std::string prefix = (dir.path() / "model").string();
  tf::train::MetaGraphDef meta;
  {
    tf::Graph g;
    auto guard = g.as_default();
    TwoScopes m = build_two_scopes();
    tf::add_to_collection("outs", m.y);
    tf::train::Saver saver(tf::train::Saver::VarMap{{"s/a", m.a}, {"u/b", m.b}});
    tf::Session sess;
    sess.run(tf::global_variables_initializer());
    sess.run(m.a.assign(tf::Value({4.0f, 5.0f})));
    saver.save(sess, prefix, {.write_meta_graph = false});
    meta = saver.export_meta_graph({}, {.export_scope = "s"});
  }
  // The SaverDef's variables move with the scope; u/b, outside it, is left out.
  REQUIRE(meta.saver_def.has_value());
  CHECK(meta.saver_def->var_list == std::map<std::string, std::string>{{"s/a", "a"}});

  tf::Graph g;
  auto guard = g.as_default();
  auto saver = tf::train::import_meta_graph(meta, {.import_scope = "t"});
  std::vector<std::string> names;
  for (const tf::Operation& op : g.get_operations()) names.push_back(op.name());
  CHECK(names == std::vector<std::string>{"t/a/initial_value", "t/a", "t/a/Assign", "t/a/read",
                                          "t/y/y", "t/y"});
  std::vector<std::string> variables;
  for (const tf::Variable& v : tf::global_variables()) variables.push_back(v.name());
  CHECK(variables == std::vector<std::string>{"t/a:0"});
  auto outs = tf::get_collection("outs");
  REQUIRE(outs.size() == 1);
  CHECK(std::get<tf::Output>(outs[0]).name() == "t/y:0");

  tf::Session sess;
  sess.run(tf::global_variables_initializer());
  CHECK(sess.run("t/y:0") == tf::Value({3.0f, 6.0f}));  // TensorFlow's value
  REQUIRE(saver.has_value());
  saver->restore(sess, prefix);
  CHECK(sess.run("t/y:0") == tf::Value({12.0f, 15.0f}));
}

TEST_CASE("meta_graph_scope: an input from outside the scope is unbound, and import refuses it") {
  tf::Graph g;
  auto guard = g.as_default();
  TwoScopes m = build_two_scopes();
  {
    tf::name_scope s("s");  // "s_1": still under the prefix "s"
    tf::multiply(m.y, m.b, "z");
    tf::control_dependencies deps({m.b.initializer()});
    tf::identity(m.y, "w");
  }
  auto meta = tf::train::export_meta_graph({}, {.export_scope = "s"});
  auto lines = node_lines(meta.graph_def);
  REQUIRE(lines.size() == 8);
  CHECK(lines[6] == "s_1/z:Mul:y,$unbound_inputs_u/b/read");
  CHECK(lines[7] == "s_1/w:Identity:y,^$unbound_inputs_u/b/Assign");
  // The control input is not listed, as in TensorFlow.
  CHECK(std::get<BytesList>(meta.collection_def.at("unbound_inputs")).value ==
        std::vector<std::string>{"$unbound_inputs_u/b/read"});
  // Not written when the collections asked for leave it out.
  auto only_variables = tf::train::export_meta_graph(
      {}, {.collection_list = std::vector<tf::CollectionKey>{"variables"}, .export_scope = "s"});
  CHECK(only_variables.collection_def.size() == 1);

  tf::Graph fresh;
  CHECK_THROWS_WITH_AS(tf::train::import_meta_graph(meta, {.import_scope = "t", .graph = fresh}),
                       "Graph contains unbound inputs: $unbound_inputs_u/b/read. Must provide "
                       "these inputs through input_map.",
                       tf::ValueError);
  CHECK(fresh.num_nodes() == 0);
}

TEST_CASE("meta_graph_scope: Savers in the SAVERS collection round-trip as TensorFlow's") {
  tf::Graph g;
  auto guard = g.as_default();
  TwoScopes m = build_two_scopes();
  // As in TensorFlow, a Saver does not add itself to the collection.
  tf::train::Saver saver_a({m.a}, {.max_to_keep = 2});
  tf::train::Saver saver_b({m.b});
  CHECK(tf::get_collection(tf::GraphKeys::SAVERS).empty());
  tf::add_to_collection(tf::GraphKeys::SAVERS, saver_a);
  tf::add_to_collection(tf::GraphKeys::SAVERS, saver_b);
  auto savers = tf::train::savers_in();
  REQUIRE(savers.size() == 2);
  CHECK(savers[0].var_list().at("s/a") == m.a);
  CHECK(savers[0].as_saver_def().max_to_keep == 2);

  auto meta = tf::train::export_meta_graph();
  const auto& written = std::get<BytesList>(meta.collection_def.at("savers")).value;
  REQUIRE(written.size() == 2);
  CHECK(tf::train::parse_saver_def(written[0]).var_list.at("s/a") == "s/a");

  SUBCASE("imported under a scope") {
    tf::Graph fresh;
    tf::train::import_meta_graph(meta, {.import_scope = "t", .graph = fresh});
    auto imported = tf::train::savers_in(tf::GraphKeys::SAVERS, fresh);
    REQUIRE(imported.size() == 2);
    CHECK(imported[0].var_list().at("s/a").name() == "t/s/a:0");
    CHECK(imported[1].var_list().at("u/b").name() == "t/u/b:0");
    CHECK(imported[0].as_saver_def().max_to_keep == 2);
  }
  SUBCASE("exported with a scope: only the Saver inside it, stripped") {
    auto scoped = tf::train::export_meta_graph({}, {.export_scope = "s"});
    const auto& kept = std::get<BytesList>(scoped.collection_def.at("savers")).value;
    REQUIRE(kept.size() == 1);
    CHECK(tf::train::parse_saver_def(kept[0]).var_list ==
          std::map<std::string, std::string>{{"s/a", "a"}});
  }
}

TEST_CASE("meta_graph_scope: a SaverDef's bytes are TensorFlow's, and bad bytes are refused") {
  tf::train::SaverDef def;
  def.filename_tensor_name = "save/Const:0";
  def.save_tensor_name = "save/control_dependency:0";
  def.restore_op_name = "save/restore_all";
  def.max_to_keep = 2;
  def.keep_checkpoint_every_n_hours = 1.5;
  // saver_pb2.SaverDef(...).SerializeToString() for the same fields.
  const std::string tf_bytes(
      "\n\x0csave/Const:0\x12\x19save/control_dependency:0\x1a\x10save/restore_all \x02"
      "5\x00\x00\xc0?8\x02",
      68);
  CHECK(tf::train::serialize_saver_def(def) == tf_bytes);
  CHECK(tf::train::parse_saver_def(tf_bytes) == def);

  // A TensorFlow Saver in the collection names its ops; the scope moves them.
  tf::Graph g;
  auto guard = g.as_default();
  tf::constant(std::string("x"), "save/Const");
  tf::identity(tf::constant(std::string("x")), "save/control_dependency");
  tf::no_op("save/restore_all");
  g.add_to_collection(tf::GraphKeys::SAVERS, tf_bytes);
  tf::Graph fresh;
  tf::train::import_meta_graph(tf::train::export_meta_graph(),
                               {.import_scope = "t", .graph = fresh});
  auto savers = tf::train::savers_in(tf::GraphKeys::SAVERS, fresh);
  REQUIRE(savers.size() == 1);
  CHECK(savers[0].runs_graph_ops());
  CHECK(savers[0].as_saver_def().restore_op_name == "t/save/restore_all");

  CHECK_THROWS_AS(tf::train::parse_saver_def("\xff\xff\xff"), tf::DataLossError);
  tf::add_to_collection("not_savers", tf::no_op("op"));
  CHECK_THROWS_WITH_AS(tf::train::savers_in("not_savers"),
                       "Collection 'not_savers' holds an item that is not a Saver", tf::TypeError);
}

TEST_CASE("meta_graph_scope: a variable in a collection is the variable, written as v:0") {
  tf::Graph g;
  auto guard = g.as_default();
  TwoScopes m = build_two_scopes();
  g.add_to_collection("myvars", m.a);  // the member takes the variable, not its value
  tf::add_to_collection("myvars", m.b);
  auto items = tf::get_collection("myvars");
  REQUIRE(items.size() == 2);
  CHECK(m.a == items[0]);  // TensorFlow: get_collection("myvars")[0] is a
  CHECK_FALSE(m.a == items[1]);
  CHECK(std::get<tf::Operation>(items[0]).name() == "s/a");

  // TensorFlow writes a tf.Variable of a custom collection as its tensor's name.
  auto meta = tf::train::export_meta_graph();
  CHECK(std::get<NodeList>(meta.collection_def.at("myvars")).value ==
        std::vector<std::string>{"s/a:0", "u/b:0"});
  auto scoped = tf::train::export_meta_graph({}, {.export_scope = "s"});
  CHECK(std::get<NodeList>(scoped.collection_def.at("myvars")).value ==
        std::vector<std::string>{"a:0"});
  // The standard variables collections keep symflow's op names.
  CHECK(std::get<NodeList>(meta.collection_def.at("variables")).value ==
        std::vector<std::string>{"s/a", "u/b"});

  tf::Graph fresh;
  tf::train::import_meta_graph(scoped, {.import_scope = "t", .graph = fresh});
  auto vars = tf::variables_in("myvars", fresh);
  REQUIRE(vars.size() == 1);
  CHECK(vars[0].name() == "t/a:0");

  tf::add_to_collection("mixed_vars", m.a);
  tf::add_to_collection("mixed_vars", "text");
  CHECK_THROWS_WITH_AS(tf::variables_in("mixed_vars", g),
                       "Collection 'mixed_vars' holds an item that is not a variable",
                       tf::TypeError);
}

TEST_CASE("meta_graph_scope: a collection mixing kinds is skipped with TensorFlow's warning") {
  tf::Graph g;
  auto guard = g.as_default();
  TwoScopes m = build_two_scopes();
  tf::add_to_collection("mixed", m.y.op());
  tf::add_to_collection("mixed", "s/str");
  tf::add_to_collection("outs", m.y);
  CerrCapture cerr;
  auto meta = tf::train::export_meta_graph();
  CHECK_FALSE(meta.collection_def.contains("mixed"));
  CHECK(meta.collection_def.contains("outs"));
  CHECK(meta.graph_def.node.size() == 10);
  const std::string warning = cerr.text();
  CHECK(warning.starts_with(
      "WARNING: Issue encountered when serializing mixed.\nType is unsupported, or the types "
      "of the items don't match field type in CollectionDef. Note this is a warning and "
      "probably safe to ignore.\n"));
  CHECK(warning.find("Collection 'mixed'") != std::string::npos);
}

}  // namespace symflow_test_train_meta_graph_scope
