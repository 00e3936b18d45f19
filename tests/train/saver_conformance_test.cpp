// Saver, the checkpoint state file, MetaGraph files and graph_util against TensorFlow
// 2.21's tf.compat.v1 (graph mode): padded step numbers, the state file's joined paths,
// max_to_keep 0, restore's shape errors and reshape, empty Savers, file name collisions,
// import_meta_graph's file errors, stripped_op_list and remove_training_nodes.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <symflow/symflow.hpp>
#include <symflow/train/checkpoint_state.hpp>
#include <symflow/train/graph_util.hpp>
#include <symflow/train/import_meta_graph.hpp>
#include <symflow/train/saver.hpp>

#include "../test_util.hpp"

namespace symflow_test_train_saver_conformance_test {

namespace tf = symflow;
namespace fs = std::filesystem;

namespace {

// A fresh directory for one test case, named relative to the working directory.
std::string fresh_dir(const std::string& name) {
  std::string dir = "saver_conformance_" + name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

struct Model {
  tf::Graph g;
  tf::DefaultGraphGuard guard{g};
  tf::Variable a = tf::get_variable("a", {}, {.initializer = tf::constant_initializer(1.0f)});
  tf::Variable b = tf::Variable(tf::Value{{1.0f, 2.0f, 3.0f}, {4.0f, 5.0f, 6.0f}}, {.name = "b"});
  tf::Session sess;
  Model() { sess.run(tf::global_variables_initializer()); }
};

tf::NodeDef node(std::string name, std::string op, std::vector<std::string> inputs = {}) {
  tf::NodeDef n;
  n.name = std::move(name);
  n.op = std::move(op);
  n.input = std::move(inputs);
  return n;
}

// "name op input,input" per node, to compare with TensorFlow's listing.
std::vector<std::string> rows(const tf::GraphDef& def) {
  std::vector<std::string> out;
  for (const tf::NodeDef& n : def.node) {
    std::string row = n.name + " " + n.op;
    for (std::size_t i = 0; i < n.input.size(); ++i) row += (i ? "," : " ") + n.input[i];
    out.push_back(row);
  }
  return out;
}

}  // namespace

TEST_CASE("Saver conformance: pad_step_number writes the step with eight digits") {
  const std::string dir = fresh_dir("pad");
  Model m;
  tf::train::Saver padded({.pad_step_number = true});
  CHECK(padded.save(m.sess, dir + "/m", 3) == dir + "/m-00000003");
  CHECK(files_in(dir) == std::vector<std::string>{"checkpoint", "m-00000003.data-00000-of-00001",
                                                  "m-00000003.index", "m-00000003.meta"});
  // Python's "{:08d}": the sign is one of the eight characters; longer steps stay whole.
  CHECK(padded.save(m.sess, dir + "/m", -5) == dir + "/m--0000005");
  CHECK(padded.save(m.sess, dir + "/m", 1234567890123) == dir + "/m-1234567890123");
  auto step = tf::train::get_or_create_global_step();
  m.sess.run(step.initializer());
  m.sess.run(tf::assign(step, tf::constant(std::int64_t{42})));
  CHECK(padded.save(m.sess, dir + "/m", step.value()) == dir + "/m-00000042");
  tf::train::Saver plain;
  CHECK(plain.save(m.sess, dir + "/m", 3) == dir + "/m-3");
}

TEST_CASE("Saver conformance: get_checkpoint_state joins relative paths with the directory") {
  const std::string dir = fresh_dir("state");
  std::ofstream(dir + "/checkpoint") << "model_checkpoint_path: \"m-9\"\n"
                                        "all_model_checkpoint_paths: \"m-8\"\n"
                                        "all_model_checkpoint_paths: \"/abs/m-9\"\n";
  auto state = tf::train::get_checkpoint_state(dir);
  REQUIRE(state.has_value());
  CHECK(state->model_checkpoint_path == dir + "/m-9");
  CHECK(state->all_model_checkpoint_paths == std::vector<std::string>{dir + "/m-8", "/abs/m-9"});

  // A file naming no checkpoint is TensorFlow's ValueError, an empty one included.
  for (const char* text :
       {"", "all_model_checkpoint_paths: \"m-8\"\n", "model_checkpoint_path: \"\"\n"}) {
    std::ofstream(dir + "/checkpoint", std::ios::trunc) << text;
    CHECK_THROWS_WITH_AS(tf::train::get_checkpoint_state(dir),
                         ("Invalid checkpoint state loaded from " + dir).c_str(), tf::ValueError);
  }
  CHECK_FALSE(tf::train::get_checkpoint_state(dir + "/nope").has_value());
}

TEST_CASE("Saver conformance: max_to_keep 0 keeps every file and tracks no checkpoint") {
  const std::string dir = fresh_dir("keep_all");
  Model m;
  tf::train::Saver saver({.max_to_keep = 0});
  for (int step = 0; step < 3; ++step) saver.save(m.sess, dir + "/k", step);
  CHECK(files_in(dir) ==
        std::vector<std::string>{"checkpoint", "k-0.data-00000-of-00001", "k-0.index", "k-0.meta",
                                 "k-1.data-00000-of-00001", "k-1.index", "k-1.meta",
                                 "k-2.data-00000-of-00001", "k-2.index", "k-2.meta"});
  CHECK(saver.last_checkpoints().empty());
  auto state = tf::train::get_checkpoint_state(dir);
  REQUIRE(state.has_value());
  CHECK(state->model_checkpoint_path == dir + "/k-2");
  CHECK(state->all_model_checkpoint_paths == std::vector<std::string>{dir + "/k-2"});
}

TEST_CASE("Saver conformance: restoring another shape, and reshape") {
  const std::string dir = fresh_dir("shape");
  {
    Model m;
    tf::train::Saver().save(m.sess, dir + "/p");
  }
  tf::Graph g;
  auto guard = g.as_default();
  auto a = tf::get_variable("a", {3, 2});
  tf::Session sess;
  CHECK_THROWS_WITH_AS(tf::train::Saver(std::vector<tf::Variable>{a}).restore(sess, dir + "/p"),
                       doctest::Contains("Assign requires shapes of both tensors to match. "
                                         "lhs shape= [3,2] rhs shape= []"),
                       tf::InvalidArgumentError);
  CHECK_THROWS_WITH_AS(
      tf::train::Saver(tf::train::Saver::VarMap{{"b", a}}).restore(sess, dir + "/p"),
      doctest::Contains("Assign requires shapes of both tensors to match. "
                        "lhs shape= [3,2] rhs shape= [2,3]"),
      tf::InvalidArgumentError);
  CHECK_FALSE(sess.is_initialized(a.ref()));

  tf::train::Saver reshaping(tf::train::Saver::VarMap{{"b", a}}, {.reshape = true});
  reshaping.restore(sess, dir + "/p");
  CHECK(sess.run(a) == tf::Value{{1.0f, 2.0f}, {3.0f, 4.0f}, {5.0f, 6.0f}});

  auto c = tf::get_variable("c", {4});
  CHECK_THROWS_WITH_AS(
      tf::train::Saver(tf::train::Saver::VarMap{{"b", c}}, {.reshape = true})
          .restore(sess, dir + "/p"),
      doctest::Contains(
          "Input to reshape is a tensor with 6 values, but the requested shape has 4"),
      tf::InvalidArgumentError);
  CHECK_FALSE(sess.is_initialized(c.ref()));
}

TEST_CASE("Saver conformance: one variable under two names is a ValueError") {
  tf::Graph g;
  auto guard = g.as_default();
  auto a = tf::get_variable("a", {});
  CHECK_THROWS_WITH_AS(tf::train::Saver(tf::train::Saver::VarMap{{"y", a}, {"x", a}}),
                       "The same saveable will be restored with two names: y", tf::ValueError);
  CHECK_THROWS_WITH_AS(tf::train::Saver(std::vector<tf::Variable>{a, a}),
                       "At least two variables have the same name: a", tf::ValueError);
}

TEST_CASE("Saver conformance: an empty Saver writes only the MetaGraph and returns no path") {
  const std::string dir = fresh_dir("empty");
  tf::Graph g;
  auto guard = g.as_default();
  tf::train::Saver saver({.allow_empty = true});
  tf::Session sess;
  CHECK(saver.save(sess, dir + "/e") == "");
  CHECK(files_in(dir) == std::vector<std::string>{"e.meta"});
  CHECK(saver.last_checkpoints().empty());
  // Restoring is a no-op, even from a path that names nothing.
  CHECK_NOTHROW(saver.restore(sess, dir + "/nothing"));
}

TEST_CASE("Saver conformance: a save path that is the state file is a ValueError") {
  const std::string dir = fresh_dir("collide");
  Model m;
  tf::train::Saver saver;
  CHECK_THROWS_WITH_AS(
      saver.save(m.sess, dir + "/checkpoint"),
      ("'latest_filename' collides with 'save_path': 'checkpoint' and '" + dir + "/checkpoint'")
          .c_str(),
      tf::ValueError);
  CHECK_THROWS_WITH_AS(
      saver.save(m.sess, dir + "/x", {.latest_filename = "x"}),
      ("'latest_filename' collides with 'save_path': 'x' and '" + dir + "/x'").c_str(),
      tf::ValueError);
  CHECK_THROWS_WITH_AS(saver.save(m.sess, dir + "/p", {.latest_filename = "sub/state"}),
                       "'latest_filename' must not contain path components", tf::ValueError);
  CHECK(files_in(dir).empty());
  // With a step the checkpoint's name differs from the state file's: allowed.
  CHECK(saver.save(m.sess, dir + "/checkpoint", 1) == dir + "/checkpoint-1");
  CHECK(files_in(dir) == std::vector<std::string>{"checkpoint", "checkpoint-1.data-00000-of-00001",
                                                  "checkpoint-1.index", "checkpoint-1.meta"});
}

TEST_CASE("Saver conformance: import_meta_graph's missing and unparsable files") {
  const std::string dir = fresh_dir("meta_errors");
  tf::Graph g;
  auto guard = g.as_default();
  CHECK_THROWS_WITH_AS(tf::train::import_meta_graph(dir + "/nothere.meta"),
                       ("File does not exist. Received: " + dir + "/nothere.meta.").c_str(),
                       tf::NotFoundError);
  std::ofstream(dir + "/bad.meta") << "garbage {{{";
  CHECK_THROWS_WITH_AS(tf::train::import_meta_graph(dir + "/bad.meta"),
                       doctest::Contains(("Cannot parse file " + dir + "/bad.meta: ").c_str()),
                       tf::DataLossError);
}

TEST_CASE("Saver conformance: stripped_op_list names every op type of the graph") {
  {
    Model m;
    tf::train::Saver saver;
    auto meta = saver.export_meta_graph();
    // symflow's Saver adds no ops (docs/decisions.md): the types are those of
    // TensorFlow's graph before its Saver, which adds PlaceholderWithDefault, RestoreV2
    // and SaveV2.
    CHECK(meta.meta_info_def.stripped_op_list ==
          std::vector<std::string>{"Assign", "Const", "Identity", "NoOp", "VariableV2"});
  }
  // A graph TensorFlow wrote holds its Saver's ops, and they are listed.
  tf::Graph g;
  auto saver = tf::train::import_meta_graph(
      std::string(SYMFLOW_SOURCE_DIR) + "/tests/data/tf_meta/model.meta.txt", {.graph = g});
  REQUIRE(saver.has_value());
  auto meta = saver->export_meta_graph();
  CHECK(meta.meta_info_def.stripped_op_list == std::vector<std::string>{"AddV2",
                                                                        "ApplyGradientDescent",
                                                                        "Assign",
                                                                        "Const",
                                                                        "Fill",
                                                                        "Identity",
                                                                        "MatMul",
                                                                        "Mul",
                                                                        "NoOp",
                                                                        "Placeholder",
                                                                        "PlaceholderWithDefault",
                                                                        "Relu",
                                                                        "ReluGrad",
                                                                        "Reshape",
                                                                        "RestoreV2",
                                                                        "SaveV2",
                                                                        "Shape",
                                                                        "Square",
                                                                        "Sum",
                                                                        "Tile",
                                                                        "VariableV2"});
  std::set<std::string> types;
  for (const tf::NodeDef& n : g.as_graph_def().node) types.insert(n.op);
  CHECK(std::vector<std::string>(types.begin(), types.end()) ==
        meta.meta_info_def.stripped_op_list);
}

TEST_CASE("Saver conformance: remove_training_nodes drops CheckNumerics and splices Identity") {
  tf::GraphDef def;
  def.node = {node("x", "Placeholder"),
              node("id1", "Identity", {"x"}),
              node("id2", "Identity", {"id1"}),
              node("chk", "CheckNumerics", {"id2"}),
              node("y", "Mul", {"chk", "id2"}),
              node("sg", "StopGradient", {"y"}),
              node("split", "Split", {"x"}),
              node("id_split", "Identity", {"split:1"}),
              node("use_split", "Neg", {"id_split", "id1:0"}),
              node("ctl_in", "Identity", {"x", "^y"}),
              node("ctl_target", "Identity", {"x"}),
              node("after", "NoOp", {"^ctl_target", "^chk"}),
              node("colo", "Identity", {"x"}),
              node("c", "Const"),
              node("keep", "Identity", {"sg"}),
              node("z", "AddV2", {"keep", "ctl_in", "colo", "sg"})};
  def.node[13].attr.emplace("_class", tf::StringList{{"loc:@colo"}});

  // TensorFlow's results, its quirks included: the Mul loses its CheckNumerics input,
  // and "id1:0" is not taken for "id1".
  CHECK(rows(tf::graph_util::remove_training_nodes(def)) ==
        std::vector<std::string>{"x Placeholder", "y Mul x", "split Split x",
                                 "use_split Neg split:1,id1:0", "ctl_in Identity x,^y",
                                 "ctl_target Identity x", "after NoOp ^ctl_target",
                                 "colo Identity x", "c Const", "z AddV2 y,ctl_in,colo,y"});
  CHECK(rows(tf::graph_util::remove_training_nodes(def, {"keep", "chk"})) ==
        std::vector<std::string>{"x Placeholder", "chk CheckNumerics x", "y Mul chk,x",
                                 "split Split x", "use_split Neg split:1,id1:0",
                                 "ctl_in Identity x,^y", "ctl_target Identity x",
                                 "after NoOp ^ctl_target,^chk", "colo Identity x", "c Const",
                                 "keep Identity y", "z AddV2 keep,ctl_in,colo,y"});

  tf::GraphDef bad;
  bad.node = {node("lonely", "Identity")};
  CHECK_THROWS_WITH_AS(tf::graph_util::remove_training_nodes(bad),
                       doctest::Contains("'lonely' (Identity) has no input"), tf::ValueError);
  bad.node = {node("p", "Identity", {"q"}), node("q", "Identity", {"p"}),
              node("out", "Neg", {"p"})};
  CHECK_THROWS_WITH_AS(tf::graph_util::remove_training_nodes(bad),
                       doctest::Contains("form a cycle"), tf::ValueError);
}

}  // namespace symflow_test_train_saver_conformance_test
