// MetaGraph export and import: collections of every kind round-trip, the imported
// train op trains, the Saver comes back, and damaged files are DataLossErrors.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <symflow/io/graph_def_json.hpp>
#include <symflow/symflow.hpp>
#include <symflow/train/import_meta_graph.hpp>
#include <symflow/train/meta_graph.hpp>
#include <symflow/train/meta_graph_json.hpp>
#include <symflow/train/saver.hpp>

#include "../test_util.hpp"

namespace symflow_test_train_meta_graph_test {

namespace tf = symflow;
namespace fs = std::filesystem;

namespace {

fs::path fresh_dir(const std::string& name) {
  return tf::test::fresh_dir("meta_graph_test_" + name);
}

const tf::Value kX = {{1.0f, 2.0f}, {2.0f, 1.0f}, {3.0f, -1.0f}};
const tf::Value kY = {{5.0f}, {4.0f}, {1.0f}};

// A small regression model with batch normalisation (UPDATE_OPS), Adam, a global
// step, and one collection of each kind.
void build_model() {
  auto x = tf::placeholder(tf::float32, {-1, 2}, "x");
  auto y = tf::placeholder(tf::float32, {-1, 1}, "y");
  auto w = tf::get_variable("w", {2, 1}, {.initializer = tf::constant_initializer(0.1f)});
  auto b = tf::get_variable("b", {1}, {.initializer = tf::zeros_initializer()});
  auto pred = tf::identity(tf::matmul(x, w) + b, "pred");
  auto loss = tf::reduce_mean(tf::square(pred - y), tf::Axis(), false, "loss");
  auto step = tf::train::get_or_create_global_step();
  auto train = tf::train::AdamOptimizer({.learning_rate = 0.1})
                   .minimize(loss, {.global_step = step, .name = "train"});
  tf::add_to_collection("training_collection", train);
  tf::add_to_collection("training_collection", pred);
  tf::add_to_collection("strings", "first");
  tf::add_to_collection("strings", std::string("second\nline"));
  tf::add_to_collection("ints", std::int64_t{-3});
  tf::add_to_collection("ints", std::int64_t{1} << 60);
  tf::add_to_collection("floats", 0.25);
  tf::add_to_collection("floats", -1e300);
  tf::add_to_collection(tf::GraphKeys::UPDATE_OPS, train);
  tf::global_variables_initializer();
}

}  // namespace

TEST_CASE("export_meta_graph: MetaInfoDef, GraphDef, collections, and only the named ones") {
  tf::Graph g;
  auto guard = g.as_default();
  build_model();
  tf::train::MetaGraphDef m = tf::train::export_meta_graph();
  CHECK(m.graph_def.node.size() == g.num_nodes());
  const auto& ops = m.meta_info_def.stripped_op_list;
  CHECK(std::is_sorted(ops.begin(), ops.end()));
  CHECK(std::count(ops.begin(), ops.end(), "VariableV2") == 1);
  CHECK(std::count(ops.begin(), ops.end(), "ApplyAdam") == 1);
  CHECK_FALSE(m.saver_def.has_value());
  CHECK(std::get<tf::train::NodeList>(m.collection_def.at("training_collection")).value ==
        std::vector<std::string>{"train", "pred:0"});
  CHECK(std::get<tf::train::NodeList>(m.collection_def.at("trainable_variables")).value ==
        std::vector<std::string>{"w", "b"});
  CHECK(std::get<tf::train::BytesList>(m.collection_def.at("strings")).value ==
        std::vector<std::string>{"first", "second\nline"});
  CHECK(std::get<tf::train::Int64List>(m.collection_def.at("ints")).value ==
        std::vector<std::int64_t>{-3, std::int64_t{1} << 60});
  CHECK(std::get<tf::train::FloatList>(m.collection_def.at("floats")).value ==
        std::vector<double>{0.25, -1e300});

  // collection_list names collections; absent names are skipped.
  auto some = tf::train::export_meta_graph(
      "", {.collection_list = std::vector<tf::CollectionKey>{"strings", "no_such_collection"}});
  CHECK(some.collection_def.size() == 1);
  CHECK(some.collection_def.count("strings") == 1);
  auto none =
      tf::train::export_meta_graph("", {.collection_list = std::vector<tf::CollectionKey>{}});
  CHECK(none.collection_def.empty());

  // The JSON form round-trips.
  nlohmann::json j = tf::train::meta_graph_to_json(m);
  CHECK(j.at("format") == "symflow.meta_graph");
  auto back = tf::train::meta_graph_from_json(j, "test");
  CHECK(back.collection_def == m.collection_def);
  CHECK(back.meta_info_def == m.meta_info_def);
  CHECK(back.graph_def.node.size() == m.graph_def.node.size());

  g.add_to_collection("mixed", std::int64_t{1});
  g.add_to_collection("mixed", "one");
  // Skipped with TensorFlow's warning; the rest of the MetaGraph is written.
  const auto exported = tf::train::export_meta_graph();
  CHECK_FALSE(exported.collection_def.contains("mixed"));
  CHECK(exported.graph_def.node.size() == m.graph_def.node.size());
}

TEST_CASE("import_meta_graph in a fresh graph: collections, trainable variables, training") {
  fs::path dir = fresh_dir("round_trip");
  std::string file = (dir / "my_graph.meta").string();
  {
    tf::Graph g;
    auto guard = g.as_default();
    build_model();
    tf::train::export_meta_graph(file);
  }
  tf::Graph g;
  auto guard = g.as_default();
  auto saver = tf::train::import_meta_graph(file);
  REQUIRE(saver.has_value());  // no SaverDef: one over all global variables
  // w, b, global_step, beta1_power, beta2_power, and two Adam slots for each of w and b.
  CHECK(saver->var_list().size() == 9);
  std::vector<std::string> names;
  for (const auto& v : tf::trainable_variables()) names.push_back(v.name());
  CHECK(names == std::vector<std::string>{"w:0", "b:0"});
  auto items = tf::get_collection("training_collection");
  REQUIRE(items.size() == 2);
  auto train = std::get<tf::Operation>(items[0]);
  auto pred = std::get<tf::Output>(items[1]);
  CHECK(train.name() == "train");
  CHECK(pred.name() == "pred:0");
  CHECK(std::get<std::string>(tf::get_collection("strings")[1]) == "second\nline");
  CHECK(std::get<std::int64_t>(tf::get_collection("ints")[1]) == std::int64_t{1} << 60);
  CHECK(std::get<double>(tf::get_collection("floats")[1]) == -1e300);
  CHECK(tf::get_collection(tf::GraphKeys::UPDATE_OPS).size() == 1);
  CHECK(tf::train::get_global_step().has_value());

  tf::Session sess;
  sess.run(tf::global_variables_initializer());
  tf::FeedDict feeds{{"x:0", kX}, {"y:0", kY}};
  float before = sess.run("loss:0", feeds).scalar<float>();
  for (int i = 0; i < 20; ++i) sess.run(train, feeds);
  CHECK(sess.run("loss:0", feeds).scalar<float>() < before);
  CHECK(sess.run("global_step:0").scalar<std::int64_t>() == 20);
}

TEST_CASE("A checkpoint's .meta restores the model and reproduces its outputs exactly") {
  fs::path dir = fresh_dir("restore");
  tf::Value expected;
  {
    tf::Graph g;
    auto guard = g.as_default();
    build_model();
    tf::train::Saver saver({.max_to_keep = 3});
    tf::Session sess;
    sess.run("init");
    tf::FeedDict feeds{{"x:0", kX}, {"y:0", kY}};
    for (int i = 0; i < 7; ++i) sess.run("train", feeds);
    saver.save(sess, (dir / "model.ckpt").string(), *tf::train::get_global_step());
    expected = sess.run("pred:0", {{"x:0", kX}});
  }
  auto latest = tf::train::latest_checkpoint(dir.string());
  REQUIRE(latest == (dir / "model.ckpt-7").string());
  auto m = tf::train::read_meta_graph_file(*latest + ".meta");
  REQUIRE(m.saver_def.has_value());
  CHECK(m.saver_def->max_to_keep == 3);
  CHECK(m.saver_def->var_list.at("w") == "w");

  for (std::string scope : {"", "restored"}) {
    CAPTURE(scope);
    tf::Graph g;
    auto guard = g.as_default();
    auto saver = tf::train::import_meta_graph(*latest + ".meta", {.import_scope = scope});
    REQUIRE(saver.has_value());
    std::string prefix = scope.empty() ? "" : scope + "/";
    tf::Session sess;
    saver->restore(sess, *latest);
    auto pred = std::get<tf::Output>(tf::get_collection("training_collection")[1]);
    CHECK(pred.name() == prefix + "pred:0");
    CHECK(sess.run(pred, {{prefix + "x:0", kX}}) == expected);
    CHECK(sess.run(prefix + "global_step:0").scalar<std::int64_t>() == 7);
  }
}

TEST_CASE("import_meta_graph: missing, damaged and truncated files are typed errors") {
  fs::path dir = fresh_dir("errors");
  std::string file = (dir / "g.meta").string();
  CHECK_THROWS_AS(tf::train::import_meta_graph(file), tf::NotFoundError);
  {
    tf::Graph g;
    auto guard = g.as_default();
    auto v = tf::Variable(tf::Value(1.0f), {.name = "v"});
    tf::add_to_collection("ops", v.initializer());
    tf::train::export_meta_graph(file);
  }
  std::string text = tf::test::read_file(file);
  // Cut at every length: never a crash, always a DataLossError.
  for (std::size_t n = 0; n < text.size(); n += 1) {
    std::ofstream(file, std::ios::binary | std::ios::trunc) << text.substr(0, n);
    tf::Graph g;
    auto guard = g.as_default();
    CHECK_THROWS_AS(tf::train::import_meta_graph(file), tf::DataLossError);
  }
  auto rewrite = [&](const std::string& from, const std::string& to) {
    std::string changed = text;
    auto at = changed.find(from);
    REQUIRE(at != std::string::npos);
    changed.replace(at, from.size(), to);
    // Without its checksum, as files written before it existed: the edit must be caught
    // by the reader's checks, not by the checksum.
    nlohmann::json edited = nlohmann::json::parse(changed);
    edited.erase("checksum");
    std::ofstream(file, std::ios::binary | std::ios::trunc) << edited.dump();
  };
  auto import_fails = [&](const std::string& what) {
    tf::Graph g;
    auto guard = g.as_default();
    CHECK_THROWS_WITH_AS(tf::train::import_meta_graph(file), doctest::Contains(what.c_str()),
                         tf::DataLossError);
  };
  rewrite("symflow.meta_graph", "tensorflow.meta_graph");
  import_fails("expected \"symflow.meta_graph\"");
  rewrite("\"version\":1", "\"version\":99");
  import_fails("MetaGraph format version 99 is not supported");
  rewrite("\"v/Assign\"]", "\"nothing/here\"]");
  import_fails("Collection 'ops' names 'nothing/here'");
  rewrite("\"node_list\"", "\"blob_list\"");
  import_fails("unknown kind 'blob_list'");

  // A graph with no variables gives no Saver.
  tf::Graph g;
  auto guard = g.as_default();
  tf::constant(1.0f, "c");
  tf::train::export_meta_graph(file);
  tf::Graph fresh;
  auto fresh_guard = fresh.as_default();
  CHECK_FALSE(tf::train::import_meta_graph(file).has_value());
  CHECK(fresh.get_operation_by_name("c").type() == "Const");
}

}  // namespace symflow_test_train_meta_graph_test
