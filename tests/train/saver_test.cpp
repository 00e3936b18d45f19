// Saver: TensorFlow's file set and state file (oracle: TensorFlow 2.21, compat.v1
// Saver), max_to_keep, restore's checks, and saves killed part-way.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <symflow/io/checkpoint_bundle.hpp>
#include <symflow/symflow.hpp>
#include <symflow/train/checkpoint_state.hpp>
#include <symflow/train/saver.hpp>

#include "../test_util.hpp"

namespace symflow_test_train_saver_test {

namespace tf = symflow;
namespace fs = std::filesystem;

namespace {

fs::path fresh_dir(const std::string& name) { return tf::test::fresh_dir("saver_test_" + name); }

std::vector<std::string> files_in(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::string slurp(const fs::path& p) { return tf::test::read_file(p.string()); }

struct TwoVariables {
  tf::Graph g;
  tf::DefaultGraphGuard guard{g};
  tf::Variable a = tf::get_variable("a", {}, {.initializer = tf::constant_initializer(1.0f)});
  tf::Variable b = tf::get_variable("b", {2, 3}, {.initializer = tf::constant_initializer(2.0f)});
  tf::Variable n = tf::Variable(tf::Value(std::int64_t{5}), {.trainable = false, .name = "n"});
};

}  // namespace

TEST_CASE("Saver.save writes TensorFlow's four files and restore brings the values back") {
  fs::path dir = fresh_dir("files");
  std::string prefix = (dir / "tftcp.model").string();
  {
    TwoVariables m;
    tf::train::Saver saver;
    tf::Session sess;
    sess.run(tf::global_variables_initializer());
    sess.run(m.a.assign(tf::constant(7.5f)));
    CHECK(saver.save(sess, prefix) == prefix);
  }
  CHECK(files_in(dir) == std::vector<std::string>{"checkpoint", "tftcp.model.data-00000-of-00001",
                                                  "tftcp.model.index", "tftcp.model.meta"});
  // TensorFlow's text, with the path relative to the directory.
  CHECK(slurp(dir / "checkpoint") ==
        "model_checkpoint_path: \"tftcp.model\"\nall_model_checkpoint_paths: \"tftcp.model\"\n");

  TwoVariables m;  // the same code, a new graph: nothing initialised
  tf::train::Saver saver;
  tf::Session sess;
  saver.restore(sess, prefix);
  auto values = sess.run({m.a, m.b, m.n});
  CHECK(values[0].scalar<float>() == 7.5f);
  CHECK(values[1] == tf::Value::filled<float>({2, 3}, 2.0f));
  CHECK(values[2].scalar<std::int64_t>() == 5);
  CHECK(sess.is_initialized(m.a.ref()));
}

TEST_CASE("Saver with global_step and max_to_keep keeps the newest checkpoints") {
  fs::path dir = fresh_dir("max_to_keep");
  TwoVariables m;
  tf::train::Saver saver({.max_to_keep = 2});
  tf::Session sess;
  sess.run(tf::global_variables_initializer());
  std::string prefix = (dir / "model.ckpt").string();
  for (int step = 1; step <= 3; ++step) {
    sess.run(m.a.assign(tf::constant(static_cast<float>(step))));
    CHECK(saver.save(sess, prefix, step) == prefix + "-" + std::to_string(step));
  }
  CHECK(files_in(dir) == std::vector<std::string>{"checkpoint", "model.ckpt-2.data-00000-of-00001",
                                                  "model.ckpt-2.index", "model.ckpt-2.meta",
                                                  "model.ckpt-3.data-00000-of-00001",
                                                  "model.ckpt-3.index", "model.ckpt-3.meta"});
  CHECK(slurp(dir / "checkpoint") ==
        "model_checkpoint_path: \"model.ckpt-3\"\n"
        "all_model_checkpoint_paths: \"model.ckpt-2\"\n"
        "all_model_checkpoint_paths: \"model.ckpt-3\"\n");
  CHECK(saver.last_checkpoints() == std::vector<std::string>{prefix + "-2", prefix + "-3"});
  CHECK(tf::train::latest_checkpoint(dir.string()) == (dir / "model.ckpt-3").string());
  CHECK_FALSE(tf::train::latest_checkpoint((dir / "nothing_here").string()).has_value());

  // The step may come from the global step variable.
  auto step = tf::train::get_or_create_global_step();
  sess.run(step.initializer());
  sess.run(tf::assign(step, tf::constant(std::int64_t{42})));
  tf::train::Saver all_vars({.max_to_keep = 0});
  CHECK(all_vars.save(sess, prefix, step) == prefix + "-42");
  // Restoring an older checkpoint sets the older value.
  saver.restore(sess, prefix + "-2");
  CHECK(sess.run(m.a).scalar<float>() == 2.0f);
}

TEST_CASE("max_to_keep 0 deletes nothing and names only the newest checkpoint") {
  fs::path dir = fresh_dir("keep_all");
  TwoVariables m;
  tf::train::Saver saver({.max_to_keep = 0});
  tf::Session sess;
  sess.run(tf::global_variables_initializer());
  for (int step = 0; step < 3; ++step) saver.save(sess, (dir / "m").string(), step);
  CHECK(files_in(dir).size() == 1 + 3 * 3);
  auto state = tf::train::get_checkpoint_state(dir.string());
  REQUIRE(state.has_value());
  // Relative entries come back joined with the directory, as TensorFlow returns them.
  CHECK(state->model_checkpoint_path == (dir / "m-2").string());
  CHECK(state->all_model_checkpoint_paths == std::vector<std::string>{(dir / "m-2").string()});
  CHECK(saver.last_checkpoints().empty());
}

TEST_CASE("Saver var_list: a list, or a map naming what the checkpoint calls each variable") {
  fs::path dir = fresh_dir("var_list");
  std::string prefix = (dir / "ckpt").string();
  {
    TwoVariables m;
    tf::train::Saver saver(tf::train::Saver::VarMap{{"renamed_a", m.a}});
    tf::Session sess;
    sess.run(tf::global_variables_initializer());
    sess.run(m.a.assign(tf::constant(3.0f)));
    saver.save(sess, prefix, {.write_meta_graph = false});
    tf::io::BundleReader reader(prefix);
    CHECK(reader.entries().size() == 1);
    CHECK(reader.contains("renamed_a"));
  }
  CHECK_FALSE(fs::exists(prefix + ".meta"));
  tf::Graph g;
  auto guard = g.as_default();
  auto other = tf::get_variable("other", {}, {.initializer = tf::zeros_initializer()});
  tf::train::Saver saver(tf::train::Saver::VarMap{{"renamed_a", other}});
  tf::Session sess;
  saver.restore(sess, prefix);
  CHECK(sess.run(other).scalar<float>() == 3.0f);

  tf::train::Saver listed(std::vector<tf::Variable>{other});
  CHECK(listed.var_list().count("other") == 1);
  CHECK(listed.as_saver_def().var_list == std::map<std::string, std::string>{{"other", "other"}});
}

TEST_CASE("Saver's errors name what is wrong, and a failed restore changes nothing") {
  fs::path dir = fresh_dir("errors");
  std::string prefix = (dir / "ckpt").string();
  {
    tf::Graph empty;
    auto guard = empty.as_default();
    CHECK_THROWS_WITH_AS(tf::train::Saver(), "No variables to save", tf::ValueError);
    CHECK_NOTHROW(tf::train::Saver({.allow_empty = true}));
  }
  {
    TwoVariables m;
    CHECK_THROWS_WITH_AS(tf::train::Saver(std::vector<tf::Variable>{m.a, m.a}),
                         "At least two variables have the same name: a", tf::ValueError);
    tf::train::Saver saver;
    tf::Session sess;
    // An uninitialised variable cannot be saved (TensorFlow's FailedPrecondition).
    CHECK_THROWS_AS(saver.save(sess, prefix), tf::FailedPreconditionError);
    CHECK_FALSE(tf::train::latest_checkpoint(dir.string()).has_value());
    sess.run(tf::global_variables_initializer());
    CHECK_THROWS_WITH_AS(saver.save(sess, (dir / "no" / "such" / "dir" / "x").string()),
                         doctest::Contains("doesn't exist, can't save"), tf::NotFoundError);
    saver.save(sess, prefix);
    CHECK_THROWS_WITH_AS(saver.restore(sess, (dir / "nothere").string()),
                         doctest::Contains("The passed save_path is not a valid checkpoint"),
                         tf::ValueError);
    tf::Session other_graph_session{tf::Graph()};
    CHECK_THROWS_AS(saver.restore(other_graph_session, prefix), tf::ValueError);
  }
  {
    tf::Graph g;
    auto guard = g.as_default();
    auto c = tf::get_variable("c", {});
    tf::train::Saver saver;
    tf::Session sess;
    CHECK_THROWS_WITH_AS(saver.restore(sess, prefix),
                         doctest::Contains("Key c not found in checkpoint"), tf::NotFoundError);
  }
  {
    tf::Graph g;
    auto guard = g.as_default();
    auto a = tf::get_variable("a", {}, {.dtype = tf::float64});
    tf::train::Saver saver;
    tf::Session sess;
    CHECK_THROWS_WITH_AS(saver.restore(sess, prefix),
                         doctest::Contains("expected dtype float64 does not equal original dtype "
                                           "float32"),
                         tf::InvalidArgumentError);
  }
  {
    // "b" has the wrong shape; "a" is fine, yet it must stay untouched.
    tf::Graph g;
    auto guard = g.as_default();
    auto a = tf::get_variable("a", {}, {.initializer = tf::constant_initializer(-1.0f)});
    auto b = tf::get_variable("b", {3, 2});
    tf::train::Saver saver;
    tf::Session sess;
    sess.run(a.initializer());
    CHECK_THROWS_WITH_AS(saver.restore(sess, prefix),
                         doctest::Contains("lhs shape= [3,2] rhs shape= [2,3]"),
                         tf::InvalidArgumentError);
    CHECK(sess.run(a).scalar<float>() == -1.0f);
    CHECK_FALSE(sess.is_initialized(b.ref()));
  }
  {
    // A damaged data file is a DataLossError, and again nothing changes.
    std::string data = tf::io::data_path(prefix);
    std::string bytes = slurp(data);
    bytes[bytes.size() / 2] = static_cast<char>(bytes[bytes.size() / 2] ^ 0x40);
    std::ofstream(data, std::ios::binary | std::ios::trunc) << bytes;
    TwoVariables m;
    tf::train::Saver saver;
    tf::Session sess;
    CHECK_THROWS_AS(saver.restore(sess, prefix), tf::DataLossError);
    CHECK_FALSE(sess.is_initialized(m.a.ref()));
  }
}

TEST_CASE("The checkpoint state file: TensorFlow's fields, and damage is a DataLossError") {
  fs::path dir = fresh_dir("state");
  CHECK_FALSE(tf::train::get_checkpoint_state(dir.string()).has_value());
  // TensorFlow 2 also writes timestamps; they are accepted.
  std::ofstream(dir / "checkpoint") << "model_checkpoint_path: \"m-9\"\n"
                                       "all_model_checkpoint_paths: \"m-8\"\n"
                                       "all_model_checkpoint_paths: \"m-9\"\n"
                                       "all_model_checkpoint_timestamps: 1795325681.5\n"
                                       "last_preserved_timestamp: 1795325680.1\n";
  auto state = tf::train::get_checkpoint_state(dir.string());
  REQUIRE(state.has_value());
  CHECK(state->model_checkpoint_path == (dir / "m-9").string());
  CHECK(state->all_model_checkpoint_paths ==
        std::vector<std::string>{(dir / "m-8").string(), (dir / "m-9").string()});
  // The state names a checkpoint whose files are gone: there is no latest one.
  CHECK_FALSE(tf::train::latest_checkpoint(dir.string()).has_value());

  tf::train::update_checkpoint_state(dir.string(), (dir / "we\"ird\\name").string(), {});
  CHECK(slurp(dir / "checkpoint") ==
        "model_checkpoint_path: \"we\\\"ird\\\\name\"\n"
        "all_model_checkpoint_paths: \"we\\\"ird\\\\name\"\n");
  CHECK(tf::train::get_checkpoint_state(dir.string())->model_checkpoint_path ==
        (dir / "we\"ird\\name").string());

  for (const char* bad : {"model_checkpoint_path \"x\"\n", "model_checkpoint_path: x\n",
                          "color: \"blue\"\n", "model_checkpoint_path: \"a\\q\"\n"}) {
    std::ofstream(dir / "checkpoint", std::ios::trunc) << bad;
    CHECK_THROWS_AS(tf::train::get_checkpoint_state(dir.string()), tf::DataLossError);
  }
  // A state file that names no checkpoint is TensorFlow's ValueError.
  std::ofstream(dir / "checkpoint", std::ios::trunc) << "all_model_checkpoint_paths: \"x\"\n";
  CHECK_THROWS_WITH_AS(tf::train::get_checkpoint_state(dir.string()),
                       ("Invalid checkpoint state loaded from " + dir.string()).c_str(),
                       tf::ValueError);
}

TEST_CASE("recover_last_checkpoints lets a new Saver count an earlier run's checkpoints") {
  fs::path dir = fresh_dir("recover");
  TwoVariables m;
  tf::Session sess;
  sess.run(tf::global_variables_initializer());
  std::string prefix = (dir / "m").string();
  {
    tf::train::Saver first({.max_to_keep = 5});
    for (int step = 0; step < 3; ++step) first.save(sess, prefix, step);
  }
  tf::train::Saver second({.max_to_keep = 2});
  auto state = tf::train::get_checkpoint_state(dir.string());
  std::vector<std::string> paths;
  for (const auto& p : state->all_model_checkpoint_paths) paths.push_back((dir / p).string());
  paths.push_back((dir / "gone").string());
  second.recover_last_checkpoints(paths);
  CHECK(second.last_checkpoints().size() == 3);
  second.save(sess, prefix, 3);
  CHECK(second.last_checkpoints() == std::vector<std::string>{prefix + "-2", prefix + "-3"});
  CHECK_FALSE(fs::exists(prefix + "-0.index"));
  CHECK_FALSE(fs::exists(prefix + "-1.index"));
}

TEST_CASE("A save killed at any point leaves the previous checkpoint whole and found") {
  // A child process saves checkpoints in a loop, the value of "a" equal to the step;
  // the parent kills it after a random delay, then restores whatever latest_checkpoint
  // names. Each restored checkpoint must be complete and hold its own step's values.
  // 120 kills (about 3 s); the next save then leaves none of the killed writes' temporary
  // files behind.
  fs::path dir = fresh_dir("killed");
  std::mt19937 rng(1234);
  std::uniform_int_distribution<int> delay_us(0, 30000);
  int restored_some = 0;
  for (int round = 0; round < 120; ++round) {
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      try {
        TwoVariables m;
        tf::train::Saver saver({.max_to_keep = 3});
        tf::Session sess;
        sess.run(tf::global_variables_initializer());
        for (int step = round * 1000;; ++step) {
          sess.run(m.a.assign(tf::constant(static_cast<float>(step))));
          sess.run(m.b.assign(tf::fill(tf::Shape{2, 3}, tf::Value(static_cast<float>(step)))));
          saver.save(sess, (dir / "model").string(), step);
        }
      } catch (...) {
      }
      _exit(3);
    }
    // A slow or busy machine must not turn every round into "killed before its first
    // save": wait (up to 20 s) until some checkpoint exists, then kill at a random moment.
    for (int waited_ms = 0; waited_ms < 20000 && !fs::exists(dir / "checkpoint"); ++waited_ms)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    std::this_thread::sleep_for(std::chrono::microseconds(delay_us(rng)));
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    REQUIRE(WIFSIGNALED(status));  // the child never stopped by itself

    auto latest = tf::train::latest_checkpoint(dir.string());
    if (!latest) continue;  // killed before its first save completed
    TwoVariables m;
    tf::train::Saver saver;
    tf::Session sess;
    saver.restore(sess, *latest);  // throws on any damage
    float a = sess.run(m.a).scalar<float>();
    CHECK(*latest == (dir / "model").string() + "-" + std::to_string(static_cast<int>(a)));
    CHECK(sess.run(m.b) == tf::Value::filled<float>({2, 3}, a));
    CHECK(fs::exists(*latest + ".meta"));
    ++restored_some;
  }
  CHECK(restored_some > 0);

  TwoVariables m;
  tf::train::Saver saver({.max_to_keep = 3});
  tf::Session sess;
  sess.run(tf::global_variables_initializer());
  saver.save(sess, (dir / "model").string(), 1000000);
  std::vector<std::string> left;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().filename().string().find(".tmp") != std::string::npos)
      left.push_back(entry.path().filename().string());
  CHECK(left.empty());
}

}  // namespace symflow_test_train_saver_test
