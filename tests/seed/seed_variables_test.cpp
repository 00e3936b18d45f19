// Seed experiments on variables: their GraphDef (6), and the results of 8, 15, 16.
#include <doctest/doctest.h>

#include <symflow/symflow.hpp>

#include "../test_util.hpp"

namespace symflow_test_seed_seed_variables_test {

namespace tf = symflow;
using symflow::test::normalise_seed_text;
using symflow::test::read_test_data;

TEST_CASE("seed/06: the GraphDef of Variable(2) before and after the initializer") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Variable var(2);
  CHECK(normalise_seed_text(to_text(g.as_graph_def())) ==
        normalise_seed_text(read_test_data("seed/data/06_variable_before_init.seed.txt")));
  auto init = tf::global_variables_initializer();
  std::string with_init = to_text(g.as_graph_def());
  CHECK(normalise_seed_text(with_init) ==
        normalise_seed_text(read_test_data("seed/data/06_variable_after_init_run.seed.txt")));
  tf::Session sess(g);
  sess.run(init);
  CHECK(to_text(g.as_graph_def()) == with_init);  // running does not change the graph
  CHECK(sess.run(var).scalar<std::int32_t>() == 2);
}

TEST_CASE("seed/08: scatter_update replaces rows; the variable read before shows zeros") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Variable a(tf::Value{{0, 0, 0, 0}, {0, 0, 0, 0}});
  auto b = tf::scatter_update(a, {1}, {{1, 0, 4, 0}});
  tf::Session sess(g);
  sess.run(tf::global_variables_initializer());
  CHECK(tf::to_string(sess.run(a)) == "[[0 0 0 0]\n [0 0 0 0]]");
  CHECK(tf::to_string(sess.run(b)) == "[[0 0 0 0]\n [1 0 4 0]]");
  CHECK(tf::to_string(sess.run(a)) == "[[0 0 0 0]\n [1 0 4 0]]");
}

TEST_CASE("seed/15: unfetched updates never run; unordered reads follow symflow's rule") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Variable state(0.0f);
  auto new_val = tf::add(state, tf::constant(1.0f));
  auto update = tf::assign(state, new_val);
  auto update2 = tf::assign(state, 10000);
  tf::Session sess(g);
  sess.run(tf::global_variables_initializer());
  for (float i = 1; i <= 3; ++i)
    CHECK(sess.run({update, state, new_val}) == std::vector<tf::Value>{i, i, i});
  CHECK(sess.run(state).scalar<float>() == 3.0f);  // update2 was never run
  CHECK(update2.op().type() == "Assign");
}

TEST_CASE("seed/16: control_dependencies orders the update before the add (3 and 12)") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Variable a_1(1), b_1(2);
  auto update_1 = tf::assign(a_1, 10);
  auto add = tf::add(a_1, b_1);
  tf::Variable a_2(1), b_2(2);
  auto update_2 = tf::assign(a_2, 10);
  tf::Output add_with_dependencies;
  {
    tf::control_dependencies deps({update_2});
    add_with_dependencies = tf::add(a_2, b_2);
  }
  tf::Session sess(g);
  sess.run(tf::global_variables_initializer());
  auto answers = sess.run({add, add_with_dependencies});
  CHECK(answers[0].scalar<std::int32_t>() == 3);
  CHECK(answers[1].scalar<std::int32_t>() == 12);
  CHECK(update_1.consumers().empty());  // update_op is never run
}

}  // namespace symflow_test_seed_seed_variables_test
