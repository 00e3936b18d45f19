// The Variable handle: its subgraph, names, collections, state across runs and
// sessions, and its errors.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <symflow/symflow.hpp>

namespace symflow_test_variables_variable_test {

namespace tf = symflow;

TEST_CASE("variables/variable: the subgraph, the handle and its printed form") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Variable v(tf::Value{1.0f, 2.0f}, {.name = "w"});
  CHECK(v.name() == "w:0");
  CHECK(v.op().name() == "w");
  CHECK(v.op().type() == "VariableV2");
  CHECK(v.dtype() == tf::float32);
  CHECK(v.shape() == tf::Shape{2});
  CHECK(v.initializer().name() == "w/Assign");
  CHECK(v.value().name() == "w/read:0");
  CHECK(v.initial_value().name() == "w/initial_value:0");
  CHECK(v.ref().is_ref());
  CHECK_FALSE(v.value().is_ref());
  CHECK(v.graph() == g);
  CHECK(tf::to_string(v) == "<tf.Variable 'w:0' shape=(2,) dtype=float32_ref>");
  CHECK(tf::to_string(v.ref()) == "Tensor(\"w:0\", shape=(2,), dtype=float32_ref)");
  CHECK(v.initializer().get_attr<tf::StringList>("_class").items ==
        std::vector<std::string>{"loc:@w"});
  CHECK(tf::Variable::from_op(v.op()) == v);
  CHECK_THROWS_AS(tf::Variable::from_op(v.initializer()), tf::TypeError);
}

TEST_CASE("variables/variable: a tensor initial value is used as is; dtype converts values") {
  tf::Graph g;
  auto guard = g.as_default();
  auto z = tf::zeros({2, 3});
  tf::Variable v(z, {.name = "v"});
  CHECK(v.initial_value() == z);
  CHECK(v.initializer().node_def().input == std::vector<std::string>{"v", "zeros"});
  tf::Variable d(3, {.name = "d", .dtype = tf::float64});
  CHECK(d.dtype() == tf::float64);
  CHECK_THROWS_WITH_AS(tf::Variable(z, {.dtype = tf::int32}),
                       doctest::Contains("Tensor conversion requested dtype int32"),
                       tf::ValueError);
  auto unknown = tf::placeholder<float>();
  CHECK_THROWS_WITH_AS(tf::Variable{unknown}, doctest::Contains("must have a shape specified"),
                       tf::ValueError);
  tf::Variable loose(unknown, {.validate_shape = false});
  CHECK_FALSE(loose.shape().has_rank());
}

TEST_CASE("variables/variable: collections by default, when not trainable, and when given") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Variable a(1, {.name = "a"});
  tf::Variable b(1, {.trainable = false, .name = "b"});
  tf::Variable c(
      1, {.trainable = false, .collections = {tf::GraphKeys::LOCAL_VARIABLES}, .name = "c"});
  tf::Variable m(1,
                 {.collections = {tf::GraphKeys::GLOBAL_VARIABLES, tf::GraphKeys::MODEL_VARIABLES},
                  .name = "m"});
  auto names = [](const std::vector<tf::Variable>& vs) {
    std::vector<std::string> out;
    for (const auto& v : vs) out.push_back(v.op().name());
    return out;
  };
  CHECK(names(tf::global_variables()) == std::vector<std::string>{"a", "b", "m"});
  CHECK(names(tf::trainable_variables()) == std::vector<std::string>{"a", "m"});
  CHECK(names(tf::local_variables()) == std::vector<std::string>{"c"});
  CHECK(names(tf::model_variables()) == std::vector<std::string>{"m"});
  CHECK(tf::trainable_variables().size() ==
        tf::get_collection(tf::GraphKeys::TRAINABLE_VARIABLES).size());
  g.add_to_collection(tf::GraphKeys::GLOBAL_VARIABLES, tf::constant(1));
  CHECK_THROWS_AS(tf::global_variables(), tf::TypeError);
}

TEST_CASE("variables/variable: built outside any control_dependencies context") {
  tf::Graph g;
  auto guard = g.as_default();
  auto dep = tf::no_op("dep");
  tf::control_dependencies deps({dep});
  tf::Variable v(1.0f);
  CHECK(v.initializer().control_inputs().empty());
  CHECK(v.op().control_inputs().empty());
}

TEST_CASE("variables/session: uninitialized reads fail cleanly and the session stays usable") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Variable v(5.0f, {.name = "v"});
  auto doubled = v * 2.0f;
  tf::Session sess(g);
  try {
    sess.run(doubled);
    FAIL("expected FailedPreconditionError");
  } catch (const tf::FailedPreconditionError& e) {
    CHECK(e.message() == "Attempting to use uninitialized value v");
    CHECK(e.node_name() == "v/read");
  }
  CHECK(tf::report_uninitialized_variables(sess) == std::vector<std::string>{"v"});
  CHECK_FALSE(sess.run(tf::is_variable_initialized(v)).scalar<bool>());
  sess.run(v.initializer());
  CHECK(sess.run(tf::is_variable_initialized(v)).scalar<bool>());
  CHECK(sess.run(doubled).scalar<float>() == 10.0f);
  CHECK(tf::report_uninitialized_variables(sess).empty());
}

TEST_CASE("variables/session: values persist across runs; each session has its own") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Variable counter(0, {.name = "counter"});
  auto increment = counter.assign_add(1);
  tf::Session s1(g), s2(g);
  s1.run(counter.initializer());
  s2.run(counter.initializer());
  for (int i = 0; i < 3; ++i) s1.run(increment);
  s2.run(increment);
  CHECK(s1.run(counter).scalar<std::int32_t>() == 3);
  CHECK(s2.run(counter).scalar<std::int32_t>() == 1);
  // A fetched value is the caller's: writing into it leaves the variable alone.
  tf::Value fetched = s1.run(counter);
  fetched.data<std::int32_t>()[0] = 100;
  CHECK(s1.run(counter).scalar<std::int32_t>() == 3);
  // Closing a session drops its state.
  s1.close();
  CHECK_THROWS_AS(s1.run(counter), tf::FailedPreconditionError);
}

TEST_CASE("variables/initializers: global, local and explicit initializer groups") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Variable a(1, {.name = "a"});
  tf::Variable l(2, {.collections = {tf::GraphKeys::LOCAL_VARIABLES}, .name = "l"});
  auto global_init = tf::global_variables_initializer();
  CHECK(global_init.name() == "init");
  CHECK(global_init.node_def().input == std::vector<std::string>{"^a/Assign"});
  auto local_init = tf::local_variables_initializer();
  CHECK(local_init.name() == "init_1");
  CHECK(local_init.node_def().input == std::vector<std::string>{"^l/Assign"});
  auto only_a = tf::variables_initializer({a}, "init_a");
  tf::Session sess(g);
  sess.run(only_a);
  CHECK(tf::report_uninitialized_variables(sess) == std::vector<std::string>{"l"});
  sess.run(local_init);
  CHECK(tf::report_uninitialized_variables(sess).empty());
}

TEST_CASE("variables/count: parameter counts with thousands separators") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Variable w(tf::zeros({784, 256}), {.name = "w"});
  tf::Variable b(tf::zeros({256}), {.name = "b"});
  tf::Variable frozen(tf::zeros({1000}), {.trainable = false, .name = "frozen"});
  CHECK(tf::count_params(tf::trainable_variables()) == 784 * 256 + 256);
  CHECK(tf::with_thousands_separators(1234567) == "1,234,567");
  CHECK(tf::with_thousands_separators(999) == "999");
  CHECK(tf::with_thousands_separators(-1000) == "-1,000");
  std::ostringstream out;
  tf::print_num_of_total_parameters(out, true);
  CHECK(out.str() == "w:0 (784, 256)=200704, b:0 256, \nTotal 2 variables, 200,960 params\n");
}

TEST_CASE("variables/variable: initialized_value() is the initial value until initialised") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Variable a(5.0f, {.name = "a"});
  auto dep = tf::no_op("dep");
  tf::Output twice;
  {
    tf::control_dependencies deps({dep});
    twice = a.initialized_value() * 2.0f;
  }
  const tf::Operation merge = twice.op().inputs()[0].op();
  CHECK(merge.name() == "cond/Merge");
  CHECK(merge.control_inputs().empty());
  tf::Variable b(twice, {.name = "b"});
  tf::Session sess(g);
  sess.run(b.initializer());  // a is not initialised: b starts from a's initial value
  CHECK(sess.run(b).scalar<float>() == 10.0f);
  sess.run(a.initializer());
  sess.run(a.assign(7.0f));
  sess.run(b.initializer());  // now from a's value
  CHECK(sess.run(b).scalar<float>() == 14.0f);
}

// "name op input, input, ..." for every node whose name starts with `prefix`.
std::vector<std::string> nodes_under(const tf::Graph& g, const std::string& prefix) {
  std::vector<std::string> out;
  for (const tf::NodeDef& n : g.as_graph_def().node) {
    if (n.name.rfind(prefix, 0) != 0) continue;
    std::string line = n.name + " " + n.op;
    for (std::size_t i = 0; i < n.input.size(); ++i) line += (i ? ", " : " ") + n.input[i];
    out.push_back(line);
  }
  return out;
}

TEST_CASE("variables/variable: initialized_value() is TensorFlow's cond, built outside a loop") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Variable a(5.0f, {.name = "a"});
  tf::Output x;
  {
    tf::name_scope outer("outer");
    x = a.initialized_value();
  }
  // TensorFlow 2.21, tf.compat.v1 with control flow v1, in this order.
  const std::vector<std::string> tf_nodes = {
      "outer/IsVariableInitialized IsVariableInitialized a",
      "outer/cond/Switch Switch outer/IsVariableInitialized, outer/IsVariableInitialized",
      "outer/cond/switch_t Identity outer/cond/Switch:1",
      "outer/cond/switch_f Identity outer/cond/Switch",
      "outer/cond/pred_id Identity outer/IsVariableInitialized",
      "outer/cond/read Identity outer/cond/read/Switch:1",
      "outer/cond/read/Switch RefSwitch a, outer/cond/pred_id",
      "outer/cond/Switch_1 Switch a/initial_value, outer/cond/pred_id",
      "outer/cond/Merge Merge outer/cond/Switch_1, outer/cond/read",
  };
  std::vector<std::string> got = nodes_under(g, "outer/");
  std::vector<std::string> want = tf_nodes;
  std::sort(got.begin(), got.end());
  std::sort(want.begin(), want.end());
  CHECK(got == want);
  CHECK(x.dtype() == tf::DType::float32);

  // In a loop's body, TensorFlow builds it outside the loop and enters its value.
  auto i = tf::placeholder<std::int32_t>(tf::Shape{}, "i");
  tf::Output r = tf::while_loop(
      [](const tf::Output& k) { return k < 12; },
      [&](const tf::Output& k) { return k + tf::cast(a.initialized_value(), tf::DType::int32); },
      i);
  const std::vector<std::string> loop_nodes = nodes_under(g, "while/");
  auto has = [&](const std::string& line) {
    return std::find(loop_nodes.begin(), loop_nodes.end(), line) != loop_nodes.end();
  };
  CHECK(has("while/IsVariableInitialized IsVariableInitialized a"));
  CHECK(has("while/cond/Merge Merge while/cond/Switch_1, while/cond/read"));
  CHECK(has("while/Cast/Enter Enter while/cond/Merge"));
  CHECK(has("while/Cast Cast while/Cast/Enter, ^while/Identity"));
  tf::Session sess(g);
  CHECK(sess.run(r, {{i, tf::Value(0)}}).scalar<std::int32_t>() == 15);  // 0, 5, 10, 15
  sess.run(a.initializer());
  sess.run(a.assign(4.0f));
  CHECK(sess.run(r, {{i, tf::Value(0)}}).scalar<std::int32_t>() == 12);  // 0, 4, 8, 12
}

}  // namespace symflow_test_variables_variable_test
