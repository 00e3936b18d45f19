// tf.get_variable: naming, default initializers, constant initial values, the reuse
// rules and their errors, regularizers, collections and the per-graph store. Names and
// messages are TensorFlow 1.x's (tf.compat.v1 with ref variables).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <symflow/symflow.hpp>
#include <symflow/variables/get_variable.hpp>
#include <symflow/variables/variable_scope.hpp>

#include "../test_util.hpp"

namespace symflow_test_variables_get_variable_test {

namespace tf = symflow;

namespace {

using symflow::test::variable_names;

std::vector<std::string> op_names(const tf::Graph& g) {
  std::vector<std::string> out;
  for (const auto& op : g.get_operations()) out.push_back(op.name());
  return out;
}

std::vector<std::string> tensor_names(const std::vector<tf::CollectionValue>& items) {
  std::vector<std::string> out;
  for (const auto& item : items) out.push_back(std::get<tf::Output>(item).name());
  return out;
}

}  // namespace

TEST_CASE("variables/get_variable: seed experiment 3's names and value") {
  tf::Graph g;
  auto guard = g.as_default();
  auto var = tf::get_variable("var", {1});
  auto var1 = tf::get_variable("var1", {1}, {.initializer = tf::constant_initializer(1.0f)});
  CHECK(tf::to_string(var) == "<tf.Variable 'var:0' shape=(1,) dtype=float32_ref>");
  CHECK(tf::to_string(var1) == "<tf.Variable 'var1:0' shape=(1,) dtype=float32_ref>");
  CHECK(var.initial_value().name() == "var/Initializer/random_uniform:0");
  CHECK(var1.initial_value().name() == "var1/Initializer/Const:0");
  CHECK(var1.initializer().name() == "var1/Assign");
  CHECK(var1.value().name() == "var1/read:0");
  tf::Session sess;
  sess.run(tf::global_variables_initializer());
  CHECK(tf::to_string(sess.run(var1)) == "[1.]");
  // glorot_uniform for shape (1,): limit sqrt(6 / 2)
  float x = sess.run(var).flat<float>()[0];
  CHECK(x >= -1.7320509f);
  CHECK(x <= 1.7320509f);
}

TEST_CASE(
    "variables/get_variable: default initializers are glorot_uniform for floats, zeros else") {
  tf::Graph g;
  auto guard = g.as_default();
  auto w = tf::get_variable("w", {2, 3});
  auto d = tf::get_variable("d", {2}, {.dtype = tf::float64});
  auto i = tf::get_variable("i", {2}, {.dtype = tf::int32});
  auto b = tf::get_variable("bb", {2}, {.dtype = tf::bool_});
  CHECK(w.initial_value().name() == "w/Initializer/random_uniform:0");
  CHECK(d.initial_value().name() == "d/Initializer/random_uniform:0");
  CHECK(d.dtype() == tf::float64);
  CHECK(i.initial_value().name() == "i/Initializer/zeros:0");
  CHECK(b.initial_value().name() == "bb/Initializer/zeros:0");
  CHECK(op_names(g) == std::vector<std::string>{"w/Initializer/random_uniform/shape",
                                                "w/Initializer/random_uniform/min",
                                                "w/Initializer/random_uniform/max",
                                                "w/Initializer/random_uniform/RandomUniform",
                                                "w/Initializer/random_uniform/sub",
                                                "w/Initializer/random_uniform/mul",
                                                "w/Initializer/random_uniform",
                                                "w",
                                                "w/Assign",
                                                "w/read",
                                                "d/Initializer/random_uniform/shape",
                                                "d/Initializer/random_uniform/min",
                                                "d/Initializer/random_uniform/max",
                                                "d/Initializer/random_uniform/RandomUniform",
                                                "d/Initializer/random_uniform/sub",
                                                "d/Initializer/random_uniform/mul",
                                                "d/Initializer/random_uniform",
                                                "d",
                                                "d/Assign",
                                                "d/read",
                                                "i/Initializer/zeros",
                                                "i",
                                                "i/Assign",
                                                "i/read",
                                                "bb/Initializer/zeros",
                                                "bb",
                                                "bb/Assign",
                                                "bb/read"});
  tf::Session sess;
  sess.run(tf::global_variables_initializer());
  CHECK(tf::to_string(sess.run(i)) == "[0 0]");
  CHECK(tf::to_string(sess.run(b)) == "[False False]");
  CHECK(sess.run(w).dims() == tf::Dims{2, 3});
}

TEST_CASE("variables/get_variable: a constant initial value gives the shape and dtype") {
  tf::Graph g;
  auto guard = g.as_default();
  auto b = tf::get_variable("b", {.initializer = 2});
  CHECK(tf::to_string(b) == "<tf.Variable 'b:0' shape=() dtype=int32_ref>");
  CHECK(b.initial_value().name() == "b/initial_value:0");
  auto l = tf::get_variable("l", {.initializer = tf::Value{1.0f, 2.0f, 3.0f}});
  CHECK(tf::to_string(l) == "<tf.Variable 'l:0' shape=(3,) dtype=float32_ref>");
  auto m = tf::get_variable("m", {.initializer = tf::Value{{1, 2}, {3, 4}}});
  CHECK(m.shape() == tf::Shape{2, 2});
  auto t = tf::constant({1, 2, 3});
  auto x = tf::get_variable("x", {.initializer = t});
  CHECK(tf::to_string(x) == "<tf.Variable 'x:0' shape=(3,) dtype=int32_ref>");
  CHECK(x.initial_value() == tf::Output(t));
  auto y = tf::get_variable("y", {.dtype = tf::int32, .initializer = 5});
  CHECK(y.dtype() == tf::int32);
  tf::Session sess;
  sess.run(tf::global_variables_initializer());
  CHECK(sess.run({b, l, x, y}) == std::vector<tf::Value>{tf::Value(2), tf::Value{1.0f, 2.0f, 3.0f},
                                                         tf::Value{1, 2, 3}, tf::Value(5)});
}

TEST_CASE("variables/get_variable: a constant initial value with a shape or another dtype") {
  tf::Graph g;
  auto guard = g.as_default();
  CHECK_THROWS_WITH_AS(tf::get_variable("c1", {2}, {.initializer = 2.0f}),
                       "If initializer is a constant, do not specify shape.", tf::ValueError);
  CHECK_THROWS_WITH_AS(tf::get_variable("c2", {.dtype = tf::int32, .initializer = 2.0f}),
                       "Initializer type '<dtype: 'float32'>' and explicit dtype "
                       "'<dtype: 'int32'>' don't match.",
                       tf::ValueError);
  CHECK(g.num_nodes() == 0);
}

TEST_CASE("variables/get_variable: reuse=false and an existing name is a ValueError") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::variable_scope foo("foo");
  tf::get_variable("v", {1});
  CHECK_THROWS_WITH_AS(tf::get_variable("v", {1}),
                       "Variable foo/v already exists, disallowed. Did you mean to set "
                       "reuse=True or reuse=tf.AUTO_REUSE in VarScope?",
                       tf::ValueError);
}

TEST_CASE(
    "variables/get_variable: reuse=true returns the variable, and a missing one is an error") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Variable v;
  {
    tf::variable_scope foo("foo");
    v = tf::get_variable("v", {1});
  }
  tf::variable_scope foo("foo", true);
  CHECK(tf::get_variable("v", {1}) == v);
  CHECK(tf::get_variable("v") == v);  // no shape: any shape will do
  CHECK_THROWS_WITH_AS(tf::get_variable("w", {1}),
                       "Variable foo/w does not exist, or was not created with "
                       "tf.get_variable(). Did you mean to set reuse=tf.AUTO_REUSE in VarScope?",
                       tf::ValueError);
}

TEST_CASE("variables/get_variable: sharing with another shape or dtype is a ValueError") {
  tf::Graph g;
  auto guard = g.as_default();
  {
    tf::variable_scope foo("foo");
    tf::get_variable("v", {1});
    tf::get_variable("s", {});
  }
  tf::variable_scope foo("foo", true);
  CHECK_THROWS_WITH_AS(tf::get_variable("v", {2}),
                       "Trying to share variable foo/v, but specified shape (2,) and found "
                       "shape (1,).",
                       tf::ValueError);
  CHECK_THROWS_WITH_AS(tf::get_variable("s", {2, 3}),
                       "Trying to share variable foo/s, but specified shape (2, 3) and found "
                       "shape ().",
                       tf::ValueError);
  CHECK(tf::get_variable("v", tf::Shape::unknown_dims(1)).name() == "foo/v:0");
  CHECK_THROWS_WITH_AS(tf::get_variable("v", {1}, {.dtype = tf::int32}),
                       "Trying to share variable foo/v, but specified dtype int32 and found "
                       "dtype float32_ref.",
                       tf::ValueError);
  CHECK_THROWS_WITH_AS(tf::get_variable<double>("v", {1}),
                       "Trying to share variable foo/v, but specified dtype float64 and found "
                       "dtype float32_ref.",
                       tf::ValueError);
}

TEST_CASE("variables/get_variable: a reused constant-initialized variable checks the scope dtype") {
  // As in TensorFlow: with no dtype given, the check uses the scope's (float32).
  tf::Graph g;
  auto guard = g.as_default();
  auto c3 = tf::get_variable("c3", {.initializer = 2});
  tf::variable_scope root("", true);
  CHECK_THROWS_WITH_AS(tf::get_variable("c3", {.initializer = 2}),
                       "Trying to share variable c3, but specified dtype float32 and found "
                       "dtype int32_ref.",
                       tf::ValueError);
  CHECK(tf::get_variable("c3", {.dtype = tf::int32}) == c3);
  CHECK(tf::get_variable<int>("c3", {}) == c3);
}

TEST_CASE("variables/get_variable: a shape is needed unless the initial value is a constant") {
  tf::Graph g;
  auto guard = g.as_default();
  CHECK_THROWS_WITH_AS(tf::get_variable("nos"),
                       "Variable nos did not get an initializer, so its `shape` argument must "
                       "be specified.",
                       tf::ValueError);
  const char* invalid =
      "The initializer passed is not valid. It should be a callable with no arguments and the "
      "shape should not be provided or an instance of `tf.keras.initializers.*' and `shape` "
      "should be fully defined.";
  CHECK_THROWS_WITH_AS(tf::get_variable("nos2", {.initializer = tf::zeros_initializer()}), invalid,
                       tf::ValueError);
  CHECK_THROWS_WITH_AS(tf::get_variable("nos3", {-1, 3}), invalid, tf::ValueError);
  CHECK(g.num_nodes() == 0);
}

TEST_CASE("variables/get_variable: an invalid name is a ValueError") {
  tf::Graph g;
  auto guard = g.as_default();
  CHECK_THROWS_WITH_AS(tf::get_variable("a b", {1}),
                       "'a b' is not a valid root scope name. A root scope name has to match "
                       "the following pattern: ^[A-Za-z0-9.][A-Za-z0-9_.\\\\/>-]*$",
                       tf::ValueError);
}

TEST_CASE("variables/get_variable: AUTO_REUSE creates once, then returns the same variable") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Variable a, b;
  {
    tf::variable_scope scope("test", tf::reuse::auto_reuse);
    a = tf::get_variable("weights", {1}, {.trainable = false});
    b = tf::get_variable("weights", {1});
  }
  CHECK(a == b);
  CHECK(a.name() == "test/weights:0");
  CHECK(tf::trainable_variables().empty());
  CHECK(variable_names(tf::global_variables()) == std::vector<std::string>{"test/weights:0"});
  CHECK(g.num_nodes() == 10);  // 7 for glorot_uniform, VariableV2, Assign, read: built once
}

TEST_CASE("variables/get_variable: tf.Variable does not count, and keeps its name") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Variable tv(1.0f, {.name = "tv"});
  auto v = tf::get_variable("tv", {1});
  CHECK(v.name() == "tv_1:0");
  tf::variable_scope root("", true);
  CHECK(tf::get_variable("tv", {1}) == v);
  CHECK_THROWS_WITH_AS(tf::get_variable("Variable", {1}),
                       "Variable Variable does not exist, or was not created with "
                       "tf.get_variable(). Did you mean to set reuse=tf.AUTO_REUSE in VarScope?",
                       tf::ValueError);
}

TEST_CASE("variables/get_variable: trainable and collections choose the collections") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::get_variable("w", {1});
  tf::get_variable("frozen", {1}, {.trainable = false});
  tf::get_variable("l", {1}, {.trainable = false, .collections = {tf::GraphKeys::LOCAL_VARIABLES}});
  tf::get_variable("m", {1}, {.collections = {"mine"}});
  CHECK(variable_names(tf::global_variables()) == std::vector<std::string>{"w:0", "frozen:0"});
  CHECK(variable_names(tf::local_variables()) == std::vector<std::string>{"l:0"});
  CHECK(variable_names(tf::trainable_variables()) == std::vector<std::string>{"w:0", "m:0"});
  CHECK(variable_names(tf::variables_in("mine")) == std::vector<std::string>{"m:0"});
}

TEST_CASE("variables/get_variable: the regularizer's result goes to REGULARIZATION_LOSSES") {
  tf::Graph g;
  auto guard = g.as_default();
  auto c = tf::constant(1.0f);
  tf::Variable w;
  {
    tf::control_dependencies deps({c});
    tf::name_scope ns("ns");
    w = tf::get_variable("w", {2}, {.regularizer = [](const tf::Output& v) {
                           return tf::reduce_sum(v, {}, false, "l1");
                         }});
  }
  CHECK(tensor_names(tf::get_collection(tf::GraphKeys::REGULARIZATION_LOSSES)) ==
        std::vector<std::string>{"w/Regularizer/l1:0"});
  // Built outside the name scope and the control dependencies, colocated with w.
  auto l1 = g.get_operation_by_name("w/Regularizer/l1");
  CHECK(l1.inputs()[0].name() == "w/read:0");
  CHECK(l1.inputs()[1].name() == "w/Regularizer/Const:0");
  CHECK(l1.control_inputs().empty());
  CHECK(w.initializer().control_inputs().empty());
  CHECK(w.initial_value().op().control_inputs().empty());
  for (const char* name : {"w/Regularizer/l1", "w/Regularizer/Const"})
    CHECK(g.get_operation_by_name(name).get_attr<tf::StringList>("_class") ==
          tf::StringList{{"loc:@w"}});
  CHECK(w.op().name() == "w");

  // Reusing the variable does not run the regularizer again; an empty result adds nothing.
  {
    tf::variable_scope root("", true);
    tf::get_variable("w", {2}, {.regularizer = [](const tf::Output& v) { return tf::square(v); }});
  }
  tf::get_variable("u", {2}, {.regularizer = [](const tf::Output&) { return tf::Output(); }});
  CHECK(tf::get_collection(tf::GraphKeys::REGULARIZATION_LOSSES).size() == 1);

  tf::Session sess;
  sess.run(tf::global_variables_initializer());
  auto values = sess.run({w, g.get_tensor_by_name("w/Regularizer/l1:0")});
  CHECK(values[1].flat<float>()[0] ==
        doctest::Approx(values[0].flat<float>()[0] + values[0].flat<float>()[1]));
}

TEST_CASE("variables/get_variable: the store belongs to the graph") {
  tf::reset_default_graph();
  auto w = tf::get_variable("w", {1});
  CHECK_THROWS_AS(tf::get_variable("w", {1}), tf::ValueError);
  tf::reset_default_graph();
  auto w2 = tf::get_variable("w", {1});  // a new graph, a new store
  CHECK(w2.name() == "w:0");
  CHECK_FALSE(w2.graph() == w.graph());
  tf::Graph other;
  {
    auto guard = other.as_default();
    CHECK(tf::get_variable("w", {1}).graph() == other);
    tf::variable_scope root("", true);
    CHECK(tf::get_variable("w", {1}).graph() == other);
  }
  tf::reset_default_graph();
}

TEST_CASE("variables/get_variable: the typed form sets the dtype") {
  tf::Graph g;
  auto guard = g.as_default();
  auto f = tf::get_variable<float>("f", {2}, {.initializer = tf::zeros_initializer()});
  auto i = tf::get_variable<std::int64_t>("i", {2, 2});
  auto s = tf::get_variable<int>("s", {});
  CHECK(tf::to_string(f) == "<tf.Variable 'f:0' shape=(2,) dtype=float32_ref>");
  CHECK(tf::to_string(i) == "<tf.Variable 'i:0' shape=(2, 2) dtype=int64_ref>");
  CHECK(tf::to_string(s) == "<tf.Variable 's:0' shape=() dtype=int32_ref>");
  tf::Tensor<float> typed = f;
  CHECK(typed.name() == "f/read:0");
  CHECK_THROWS_AS(tf::get_variable<float>("g", {2}, {.dtype = tf::int32}), tf::ValueError);
}

TEST_CASE("variables/get_variable: an initializer may be any callable of shape and dtype") {
  tf::Graph g;
  auto guard = g.as_default();
  auto v = tf::get_variable("v", {2}, {.initializer = [](const tf::Shape& shape, tf::DType dtype) {
                              return tf::constant(tf::Value(7.0f).astype(dtype), shape);
                            }});
  CHECK(v.initial_value().name() == "v/Initializer/Const:0");
  tf::Session sess;
  sess.run(tf::global_variables_initializer());
  CHECK(tf::to_string(sess.run(v)) == "[7. 7.]");
  CHECK_THROWS_AS(tf::get_variable(
                      "bad", {2},
                      {.initializer = [](const tf::Shape& shape,
                                         tf::DType) { return tf::constant(tf::Value(7), shape); }}),
                  tf::ValueError);
}

}  // namespace symflow_test_variables_get_variable_test
