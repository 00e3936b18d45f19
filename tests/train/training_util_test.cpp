// The global step: get_or_create_global_step, get_global_step, create_global_step.
#include <doctest/doctest.h>

#include <symflow/symflow.hpp>
#include <symflow/train/train.hpp>

#include "../test_util.hpp"

namespace symflow_test_train_training_util_test {

namespace tf = symflow;

TEST_CASE("train/global_step: created as TensorFlow 1.x creates it") {
  tf::Graph g;
  auto guard = g.as_default();
  CHECK(!tf::train::get_global_step());
  tf::Variable step;
  {
    tf::name_scope ns("outer");  // the name scope does not matter
    step = tf::train::get_or_create_global_step();
  }
  CHECK(step.name() == "global_step:0");
  CHECK(step.dtype() == tf::DType::int64);
  CHECK(step.shape() == tf::Shape{});
  // TensorFlow: global_step/Initializer/zeros, global_step, global_step/Assign, global_step/read
  CHECK(tf::test::nodes(g) ==
        std::vector<std::pair<std::string, std::string>>{{"global_step/Initializer/zeros", "Const"},
                                                         {"global_step", "VariableV2"},
                                                         {"global_step/Assign", "Assign"},
                                                         {"global_step/read", "Identity"}});
  CHECK(tf::test::variable_names(tf::global_variables()) ==
        std::vector<std::string>{"global_step:0"});
  CHECK(tf::trainable_variables().empty());
  CHECK(g.get_collection(tf::GraphKeys::GLOBAL_STEP).size() == 1);
  // Found again rather than made twice.
  CHECK(tf::train::get_or_create_global_step() == step);
  REQUIRE(tf::train::get_global_step());
  CHECK(*tf::train::get_global_step() == step);
  CHECK(*tf::train::get_global_step(g) == step);
  CHECK_THROWS_WITH_AS(tf::train::create_global_step(), "\"global_step\" already exists.",
                       tf::ValueError);
  tf::Session sess(g);
  sess.run(step.initializer());
  CHECK(sess.run(step).scalar<std::int64_t>() == 0);
}

TEST_CASE("train/global_step: a graph given explicitly, and variable scopes") {
  tf::Graph other;
  tf::Variable step = tf::train::create_global_step(other);
  CHECK(step.graph() == other);
  CHECK(other.num_nodes() == 4);
  tf::Graph g;
  auto guard = g.as_default();
  tf::variable_scope vs("vs");
  // TensorFlow: <tf.Variable 'vs/global_step:0' shape=() dtype=int64_ref>
  CHECK(tf::train::get_or_create_global_step().name() == "vs/global_step:0");
}

TEST_CASE("train/global_step: an existing variable named global_step must be an integer scalar") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Variable named(1, {.name = "global_step"});
  // Found by name when the collection is empty (TensorFlow: an int32 one is accepted).
  REQUIRE(tf::train::get_global_step());
  CHECK(tf::train::get_global_step()->name() == "global_step:0");

  tf::Graph g2;
  auto guard2 = g2.as_default();
  tf::Variable bad(1.0f, {.name = "global_step"});
  // TensorFlow's messages.
  CHECK_THROWS_WITH_AS(tf::train::get_global_step(),
                       "Existing \"global_step\" does not have integer type: <dtype: "
                       "'float32_ref'>",
                       tf::TypeError);
  tf::Variable vec(tf::Value{1, 2}, {.collections = {tf::GraphKeys::GLOBAL_STEP}});
  CHECK_THROWS_WITH_AS(tf::train::get_global_step(), "Existing \"global_step\" is not scalar: (2,)",
                       tf::TypeError);
}

}  // namespace symflow_test_train_training_util_test
