// TensorFlow 1.x's variable and collection API beyond the basics: a scope's initializer
// given as a value or a tensor, get_variable's initializer as a function of nothing,
// get_local_variable, custom getters, a % b, every tf.GraphKeys name and
// add_to_collections. Names, values and messages are TensorFlow's (tf.compat.v1, graph
// mode, ref variables).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <symflow/symflow.hpp>
#include <symflow/variables/get_variable.hpp>
#include <symflow/variables/initializers.hpp>
#include <symflow/variables/variable_scope.hpp>

#include "../test_util.hpp"

namespace symflow_test_variables_conformance_test {

namespace tf = symflow;

namespace {

using symflow::test::variable_names;

std::vector<std::string> node_names(const tf::Graph& g) {
  std::vector<std::string> out;
  for (const auto& op : g.get_operations()) out.push_back(op.name() + ":" + op.type());
  return out;
}

std::vector<std::string> item_names(const std::vector<tf::CollectionValue>& items) {
  std::vector<std::string> out;
  for (const auto& item : items) {
    if (const auto* t = std::get_if<tf::Output>(&item))
      out.push_back(t->name());
    else if (const auto* op = std::get_if<tf::Operation>(&item))
      out.push_back(op->name());
  }
  return out;
}

}  // namespace

// ---- a scope's initializer as a value or a tensor -------------------------------------------

TEST_CASE("variables/conformance: a scope's initializer may be a constant value") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Variable v, ints;
  {
    tf::variable_scope s("s", {.initializer = 3.0f});
    v = tf::get_variable("v");
  }
  {
    tf::variable_scope s("t", {.initializer = {1, 2, 3}});
    ints = tf::get_variable("v");
  }
  CHECK(tf::to_string(v) == "<tf.Variable 's/v:0' shape=() dtype=float32_ref>");
  // The value's dtype wins over the scope's float32, as in TensorFlow.
  CHECK(tf::to_string(ints) == "<tf.Variable 't/v:0' shape=(3,) dtype=int32_ref>");
  CHECK(node_names(g) == std::vector<std::string>{"s/v/initial_value:Const", "s/v:VariableV2",
                                                  "s/v/Assign:Assign", "s/v/read:Identity",
                                                  "t/v/initial_value:Const", "t/v:VariableV2",
                                                  "t/v/Assign:Assign", "t/v/read:Identity"});
  tf::Session sess;
  sess.run(tf::global_variables_initializer());
  CHECK(tf::to_string(sess.run(v)) == "3.0");
  CHECK(tf::to_string(sess.run(ints)) == "[1 2 3]");
}

TEST_CASE("variables/conformance: a scope's initializer may be a tensor") {
  tf::Graph g;
  auto guard = g.as_default();
  auto c = tf::constant({1.0f, 2.0f});
  tf::Variable v;
  {
    tf::variable_scope s("s", {.initializer = c});
    v = tf::get_variable("v");
  }
  CHECK(tf::to_string(v) == "<tf.Variable 's/v:0' shape=(2,) dtype=float32_ref>");
  CHECK(node_names(g) == std::vector<std::string>{"Const:Const", "s/v:VariableV2",
                                                  "s/v/Assign:Assign", "s/v/read:Identity"});
  tf::Session sess;
  sess.run(tf::global_variables_initializer());
  CHECK(tf::to_string(sess.run(v)) == "[1. 2.]");
}

TEST_CASE("variables/conformance: a scope's constant initializer with a shape is a ValueError") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::variable_scope s("s", {.initializer = 3.0f});
  CHECK_THROWS_WITH_AS(tf::get_variable("v", {2}),
                       "If initializer is a constant, do not specify shape.", tf::ValueError);
  CHECK(g.get_operations().empty());
}

TEST_CASE("variables/conformance: set_initializer takes a constant value too") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::variable_scope s("s");
  tf::get_variable_scope().set_initializer(5.0f);
  auto v = tf::get_variable("v");
  CHECK(v.initial_value().name() == "s/v/initial_value:0");
  tf::Session sess;
  sess.run(tf::global_variables_initializer());
  CHECK(tf::to_string(sess.run(v)) == "5.0");
}

// ---- get_variable's initializer as a function of nothing ----------------------------------

TEST_CASE("variables/conformance: an initializer of no arguments builds in <name>/Initializer/") {
  tf::Graph g;
  auto guard = g.as_default();
  auto v = tf::get_variable("v", {.initializer = [] { return tf::constant({1.0f, 2.0f}); }});
  tf::Variable w;
  {
    tf::variable_scope s("s");
    w = tf::get_variable("v", {.initializer = [] { return tf::ones<float>({2, 3}) * 2; }});
  }
  CHECK(tf::to_string(v) == "<tf.Variable 'v:0' shape=(2,) dtype=float32_ref>");
  CHECK(tf::to_string(w) == "<tf.Variable 's/v:0' shape=(2, 3) dtype=float32_ref>");
  CHECK(node_names(g) ==
        std::vector<std::string>{"v/Initializer/Const:Const", "v:VariableV2", "v/Assign:Assign",
                                 "v/read:Identity", "s/v/Initializer/ones:Const",
                                 "s/v/Initializer/mul/y:Const", "s/v/Initializer/mul:Mul",
                                 "s/v:VariableV2", "s/v/Assign:Assign", "s/v/read:Identity"});
  tf::Session sess;
  sess.run(tf::global_variables_initializer());
  CHECK(tf::to_string(sess.run(v)) == "[1. 2.]");
  CHECK(tf::to_string(sess.run(w)) == "[[2. 2. 2.]\n [2. 2. 2.]]");
}

TEST_CASE("variables/conformance: an initializer of no arguments sets the dtype") {
  tf::Graph g;
  auto guard = g.as_default();
  // TensorFlow ignores dtype=int32 here: the function's float32 result decides.
  auto v = tf::get_variable("v", {.dtype = tf::int32, .initializer = [] {
                                    return tf::constant({1.0f, 2.0f});
                                  }});
  CHECK(v.dtype() == tf::float32);
}

TEST_CASE("variables/conformance: an initializer of no arguments with a shape is a TypeError") {
  tf::Graph g;
  auto guard = g.as_default();
  CHECK_THROWS_AS(tf::get_variable("v", {2},
                                   {.initializer =
                                        [] {
                                          return tf::constant({1.0f, 2.0f});
                                        }}),
                  tf::TypeError);
  CHECK_THROWS_WITH(tf::get_variable("w", {2},
                                     {.initializer =
                                          [] {
                                            return tf::constant({1.0f, 2.0f});
                                          }}),
                    doctest::Contains("variable w takes no arguments"));
}

// ---- get_local_variable ---------------------------------------------------------------------

TEST_CASE("variables/conformance: get_local_variable is local and never trainable") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Variable v;
  {
    tf::variable_scope s("s");
    v = tf::get_local_variable("v", {2}, {.initializer = tf::ones_initializer()});
    tf::get_local_variable("w", {}, {.trainable = true, .collections = {"extra"}});
  }
  CHECK(v.name() == "s/v:0");
  CHECK(variable_names(tf::local_variables()) == std::vector<std::string>{"s/v:0", "s/w:0"});
  CHECK(tf::global_variables().empty());
  CHECK(tf::trainable_variables().empty());
  CHECK(variable_names(tf::variables_in("extra")) == std::vector<std::string>{"s/w:0"});
  auto init = tf::local_variables_initializer();
  CHECK(init.name() == "init");
  tf::Session sess;
  sess.run(init);
  CHECK(tf::to_string(sess.run(v)) == "[1. 1.]");
}

TEST_CASE("variables/conformance: get_local_variable follows the scope's reuse") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Variable v, w;
  {
    tf::variable_scope s("s");
    v = tf::get_local_variable("v", {2});
  }
  {
    tf::variable_scope s("s", true);
    w = tf::get_local_variable("v", {2});
  }
  CHECK(v == w);
  tf::variable_scope s("s");
  CHECK_THROWS_WITH_AS(tf::get_local_variable("v", {2}),
                       doctest::Contains("Variable s/v already exists, disallowed. Did you mean "
                                         "to set reuse=True or reuse=tf.AUTO_REUSE in VarScope?"),
                       tf::ValueError);
}

// ---- custom getters ----------------------------------------------------------------------

TEST_CASE("variables/conformance: nested scopes' custom getters compose, inner first") {
  tf::Graph g;
  auto guard = g.as_default();
  std::vector<std::string> log;
  tf::CustomGetter freeze_and_rename = [&](const tf::VariableGetter& getter,
                                           const std::string& name, const tf::Shape& shape,
                                           const tf::GetVariableOptions& options) {
    log.push_back("g1 " + name + " " + shape.to_string() + (options.trainable ? " T" : " F"));
    tf::GetVariableOptions frozen = options;
    frozen.trainable = false;
    return getter(name + "_x", shape, frozen);
  };
  tf::CustomGetter logger = [&](const tf::VariableGetter& getter, const std::string& name,
                                const tf::Shape& shape, const tf::GetVariableOptions& options) {
    log.push_back("g2 " + name);
    return getter(name, shape, options);
  };
  tf::Variable v, u;
  {
    tf::variable_scope a("a", {.custom_getter = freeze_and_rename});
    {
      tf::variable_scope b("b", {.custom_getter = logger});
      v = tf::get_variable("v", {2});
    }
    u = tf::get_variable("u", {});
  }
  CHECK(log == std::vector<std::string>{"g2 a/b/v", "g1 a/b/v (2,) T", "g1 a/u () T"});
  CHECK(v.name() == "a/b/v_x:0");
  CHECK(u.name() == "a/u_x:0");
  CHECK(v.initial_value().name() == "a/b/v_x/Initializer/random_uniform:0");
  CHECK(tf::trainable_variables().empty());
  CHECK(variable_names(tf::global_variables()) == std::vector<std::string>{"a/b/v_x:0", "a/u_x:0"});
}

TEST_CASE("variables/conformance: get_variable's custom getter replaces the scope's") {
  tf::Graph g;
  auto guard = g.as_default();
  std::vector<std::string> log;
  auto named = [&](std::string tag) {
    return tf::CustomGetter([&log, tag](const tf::VariableGetter& getter, const std::string& name,
                                        const tf::Shape& shape,
                                        const tf::GetVariableOptions& options) {
      log.push_back(tag + " " + name);
      return getter(name, shape, options);
    });
  };
  tf::variable_scope c("c", {.custom_getter = named("g1")});
  auto w = tf::get_variable("w", {}, {.custom_getter = named("g3")});
  CHECK(log == std::vector<std::string>{"g3 c/w"});
  CHECK(w.name() == "c/w:0");
}

TEST_CASE("variables/conformance: a custom getter sees the scope's defaults and may share") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Variable first;
  // A getter that hands out one variable for every name.
  tf::CustomGetter share = [&](const tf::VariableGetter& getter, const std::string& name,
                               const tf::Shape& shape, const tf::GetVariableOptions& options) {
    CHECK(options.dtype == tf::int32);
    CHECK(options.initializer.value() != nullptr);
    if (!first.valid()) first = getter(name, shape, options);
    return first;
  };
  tf::variable_scope s("s", {.initializer = 7, .custom_getter = share, .dtype = tf::int32});
  auto a = tf::get_variable("a");
  auto b = tf::get_variable("b");
  CHECK(a == b);
  CHECK(variable_names(tf::global_variables()) == std::vector<std::string>{"s/a:0"});
}

TEST_CASE("variables/conformance: a custom getter that returns no variable is a ValueError") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::CustomGetter broken = [](const tf::VariableGetter&, const std::string&, const tf::Shape&,
                               const tf::GetVariableOptions&) { return tf::Variable(); };
  // (TensorFlow's get_variable hands back the getter's None; a Variable cannot be none.)
  CHECK_THROWS_WITH_AS(tf::get_variable("v", {}, {.custom_getter = broken}),
                       "The custom getter of variable v returned no variable", tf::ValueError);
  // Errors of the getter it calls come through unchanged.
  tf::CustomGetter bad_name = [](const tf::VariableGetter& getter, const std::string&,
                                 const tf::Shape& shape, const tf::GetVariableOptions& options) {
    return getter("-bad", shape, options);
  };
  CHECK_THROWS_WITH_AS(tf::get_variable("v", {}, {.custom_getter = bad_name}),
                       doctest::Contains("'-bad' is not a valid root scope name"), tf::ValueError);
}

// ---- a % b ------------------------------------------------------------------------------------

TEST_CASE("variables/conformance: a % b builds FloorMod named mod") {
  tf::Graph g;
  auto guard = g.as_default();
  auto a = tf::constant({7, -7, 7, -7});
  auto b = tf::constant({3, 3, -3, -3});
  auto ab = a % b;
  auto a3 = a % 3;
  auto tenb = 10 % b;
  CHECK(node_names(g) == std::vector<std::string>{"Const:Const", "Const_1:Const", "mod:FloorMod",
                                                  "mod_1/y:Const", "mod_1:FloorMod",
                                                  "mod_2/x:Const", "mod_2:FloorMod"});
  tf::Session sess;
  CHECK(tf::to_string(sess.run(ab)) == "[ 1  2 -2 -1]");
  CHECK(tf::to_string(sess.run(a3)) == "[1 2 1 2]");
  CHECK(tf::to_string(sess.run(tenb)) == "[ 1  1 -2 -2]");
}

TEST_CASE("variables/conformance: a % b on floats and on untyped handles") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Output a = tf::constant({7.5f, -7.5f});
  auto by_float = a % 2.0;
  auto by_int = a % 2;
  CHECK(by_float.op().type() == "FloorMod");
  CHECK(by_int.name() == "mod_1:0");
  tf::Session sess;
  CHECK(tf::to_string(sess.run(by_float)) == "[1.5 0.5]");
  CHECK(tf::to_string(sess.run(by_int)) == "[1.5 0.5]");
}

TEST_CASE("variables/conformance: a % b rejects mixed types and fails on integer zero") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Output a = tf::constant({7, 1});
  CHECK_THROWS_WITH_AS(a % 2.5,
                       doctest::Contains("Expected int32 passed to parameter 'y' of op "
                                         "'FloorMod', got 2.5 of type 'float' instead."),
                       tf::TypeError);
  tf::Output f = tf::constant({1.0f, 2.0f});
  const std::size_t before = g.num_nodes();
  CHECK_THROWS_WITH_AS(a % f,
                       doctest::Contains("Input 'y' of 'FloorMod' Op has type float32 that does "
                                         "not match type int32 of argument 'x'."),
                       tf::TypeError);
  CHECK(g.num_nodes() == before);
  auto zero = a % tf::constant({0, 2});
  tf::Session sess;
  CHECK_THROWS_WITH_AS(sess.run(zero), doctest::Contains("Integer division by zero"),
                       tf::InvalidArgumentError);
}

// ---- GraphKeys and collections --------------------------------------------------------------

TEST_CASE("variables/conformance: GraphKeys has every name of tf.GraphKeys") {
  using K = tf::GraphKeys;
  // dir(tf.GraphKeys) in TensorFlow 2.21's tf.compat.v1, its public names.
  CHECK(K::ACTIVATIONS == "activations");
  CHECK(K::ASSET_FILEPATHS == "asset_filepaths");
  CHECK(K::BIASES == "biases");
  CHECK(K::CONCATENATED_VARIABLES == "concatenated_variables");
  CHECK(K::COND_CONTEXT == "cond_context");
  CHECK(K::EVAL_STEP == "eval_step");
  CHECK(K::GLOBAL_STEP == "global_step");
  CHECK(K::GLOBAL_VARIABLES == "variables");
  CHECK(K::INIT_OP == "init_op");
  CHECK(K::LOCAL_INIT_OP == "local_init_op");
  CHECK(K::LOCAL_RESOURCES == "local_resources");
  CHECK(K::LOCAL_VARIABLES == "local_variables");
  CHECK(K::LOSSES == "losses");
  CHECK(K::METRIC_VARIABLES == "metric_variables");
  CHECK(K::MODEL_VARIABLES == "model_variables");
  CHECK(K::MOVING_AVERAGE_VARIABLES == "moving_average_variables");
  CHECK(K::QUEUE_RUNNERS == "queue_runners");
  CHECK(K::READY_FOR_LOCAL_INIT_OP == "ready_for_local_init_op");
  CHECK(K::READY_OP == "ready_op");
  CHECK(K::REGULARIZATION_LOSSES == "regularization_losses");
  CHECK(K::RESOURCES == "resources");
  CHECK(K::SAVEABLE_OBJECTS == "saveable_objects");
  CHECK(K::SAVERS == "savers");
  CHECK(K::SUMMARIES == "summaries");
  CHECK(K::SUMMARY_OP == "summary_op");
  CHECK(K::TABLE_INITIALIZERS == "table_initializer");
  CHECK(K::TRAINABLE_RESOURCE_VARIABLES == "trainable_resource_variables");
  CHECK(K::TRAINABLE_VARIABLES == "trainable_variables");
  CHECK(K::TRAIN_OP == "train_op");
  CHECK(K::UPDATE_OPS == "update_ops");
  CHECK(K::VARIABLES == "variables");
  CHECK(K::WEIGHTS == "weights");
  CHECK(K::WHILE_CONTEXT == "while_context");
}

TEST_CASE("variables/conformance: add_to_collections adds to each key once") {
  tf::Graph g;
  auto guard = g.as_default();
  auto c = tf::constant(2.0f, "c");
  tf::add_to_collections({"k1", "k2", "k1"}, c);
  tf::add_to_collections("k3", c);
  tf::add_to_collections({tf::GraphKeys::SUMMARY_OP}, c);
  CHECK(item_names(tf::get_collection("k1")) == std::vector<std::string>{"c:0"});
  CHECK(item_names(tf::get_collection("k2")) == std::vector<std::string>{"c:0"});
  CHECK(item_names(tf::get_collection("k3")) == std::vector<std::string>{"c:0"});
  CHECK(item_names(tf::get_collection("summary_op")) == std::vector<std::string>{"c:0"});
  // A finalized graph refuses it, and no collection is filled.
  g.finalize();
  CHECK_THROWS_WITH_AS(tf::add_to_collections({"k4", "k5"}, c),
                       "Graph is finalized and cannot be modified.", tf::RuntimeError);
  CHECK(tf::get_collection("k4").empty());
}

TEST_CASE("variables/conformance: add_to_collection stores a variable, not its read") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Variable v(1.0f, {.name = "v"});
  tf::add_to_collection("vars", v);
  tf::add_to_collections({"more", "vars2"}, v);
  CHECK(variable_names(tf::variables_in("vars")) == std::vector<std::string>{"v:0"});
  CHECK(variable_names(tf::variables_in("vars2")) == std::vector<std::string>{"v:0"});
  CHECK(item_names(tf::get_collection("more")) == std::vector<std::string>{"v"});
  CHECK(g.get_all_collection_keys() ==
        std::vector<std::string>{"more", "trainable_variables", "variables", "vars", "vars2"});
  g.finalize();
  CHECK_THROWS_WITH_AS(tf::add_to_collection("vars", v),
                       "Graph is finalized and cannot be modified.", tf::RuntimeError);
}

}  // namespace symflow_test_variables_conformance_test
