// State ops: assign, assign_add/sub, scatter_update/add/sub, is_variable_initialized.
#include <doctest/doctest.h>

#include <symflow/symflow.hpp>

namespace symflow_test_ops_state_ops_test {

namespace tf = symflow;

TEST_CASE("ops/state: assign, assign_add and assign_sub return the updated variable") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Variable v(tf::Value{1.0f, 2.0f}, {.name = "v"});
  auto set = tf::assign(v, {10.0f, 20.0f});
  auto add = tf::assign_add(v, {1.0f, 1.0f});
  auto sub = v.assign_sub({0.5f, 0.5f});
  CHECK(set.op().type() == "Assign");
  CHECK(set.op().name() == "Assign");
  CHECK(set.op().node_def().input == std::vector<std::string>{"v", "Assign/value"});
  CHECK(add.op().type() == "AssignAdd");
  CHECK(sub.op().type() == "AssignSub");
  CHECK(set.is_ref());
  CHECK(add.op().get_attr<bool>("use_locking") == false);
  tf::Session sess(g);
  sess.run(v.initializer());
  CHECK(sess.run(set).to_vector<float>() == std::vector<float>{10, 20});
  CHECK(sess.run(add).to_vector<float>() == std::vector<float>{11, 21});
  CHECK(sess.run(sub).to_vector<float>() == std::vector<float>{10.5f, 20.5f});
  CHECK(sess.run(v).to_vector<float>() == std::vector<float>{10.5f, 20.5f});
}

TEST_CASE("ops/state: writing through a tensor that is not a variable is a TypeError") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Variable v(1.0f);
  CHECK_THROWS_WITH_AS(tf::assign(v.value(), 2.0f), doctest::Contains("requires l-value input"),
                       tf::TypeError);
  CHECK_THROWS_AS(tf::assign_add(tf::constant(1.0f), 1.0f), tf::TypeError);
  CHECK_THROWS_AS(tf::scatter_update(tf::constant({1, 2}), {0}, {5}), tf::TypeError);
}

TEST_CASE("ops/state: shape checks at build time and at run time") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Variable v(tf::Value{1.0f, 2.0f});
  CHECK_THROWS_AS(tf::assign(v, {1.0f, 2.0f, 3.0f}), tf::ValueError);
  CHECK_THROWS_AS(tf::assign_add(v, {1.0f}), tf::ValueError);
  tf::Variable loose(tf::placeholder<float>(), {.validate_shape = false, .name = "loose"});
  auto grow = tf::assign(loose, {1.0f, 2.0f, 3.0f}, false);
  auto feed = tf::placeholder<float>();
  auto grow_fed = tf::assign_add(loose, feed);
  tf::Session sess(g);
  CHECK(sess.run(grow).size() == 3);
  CHECK_THROWS_WITH_AS(sess.run(grow_fed, {{feed, {1.0f}}}),
                       doctest::Contains("requires shapes of both tensors to match"),
                       tf::InvalidArgumentError);
  CHECK(sess.run(loose).to_vector<float>() == std::vector<float>{1, 2, 3});
}

TEST_CASE("ops/state: updates of an uninitialized variable fail and name it") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Variable v(tf::Value{1, 2}, {.name = "v"});
  auto add = tf::assign_add(v, {1, 1});
  auto scatter = tf::scatter_add(v, {0}, {5});
  tf::Session sess(g);
  CHECK_THROWS_WITH_AS(sess.run(add), doctest::Contains("uninitialized value v"),
                       tf::FailedPreconditionError);
  CHECK_THROWS_AS(sess.run(scatter), tf::FailedPreconditionError);
}

TEST_CASE("ops/state: scatter_update, scatter_add and scatter_sub by rows") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Variable m(tf::Value{{1, 1}, {2, 2}, {3, 3}}, {.name = "m"});
  auto up = tf::scatter_update(m, {2, 0}, {{30, 31}, {10, 11}});
  auto add = tf::scatter_add(m, {1, 1}, {{1, 1}, {1, 1}});  // repeated rows add up
  auto sub = tf::scatter_sub(m, {0}, {{10, 10}});
  CHECK(up.op().node_def().input ==
        std::vector<std::string>{"m", "ScatterUpdate/indices", "ScatterUpdate/updates"});
  CHECK(up.op().get_attr<tf::DType>("Tindices") == tf::int32);
  tf::Session sess(g);
  sess.run(tf::global_variables_initializer());
  CHECK(tf::to_string(sess.run(up)) == "[[10 11]\n [ 2  2]\n [30 31]]");
  CHECK(tf::to_string(sess.run(add)) == "[[10 11]\n [ 4  4]\n [30 31]]");
  CHECK(tf::to_string(sess.run(sub)) == "[[ 0  1]\n [ 4  4]\n [30 31]]");
}

TEST_CASE("ops/state: scatter errors: shapes at build time, bad indices at run time") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Variable m(tf::Value{{1, 1}, {2, 2}}, {.name = "m"});
  CHECK_THROWS_AS(tf::scatter_update(m, {0}, {{1, 2, 3}}), tf::ValueError);
  CHECK_THROWS_AS(tf::scatter_update(m, tf::constant(1.0f), {{1, 2}}), tf::TypeError);
  auto bad = tf::scatter_update(m, {5}, {{1, 2}});
  tf::Session sess(g);
  sess.run(m.initializer());
  CHECK_THROWS_WITH_AS(sess.run(bad), doctest::Contains("indices[0] = 5 is not in [0, 2)"),
                       tf::InvalidArgumentError);
  CHECK(tf::to_string(sess.run(m)) == "[[1 1]\n [2 2]]");  // untouched
}

}  // namespace symflow_test_ops_state_ops_test
