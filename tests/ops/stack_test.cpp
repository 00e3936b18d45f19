// The stack ops that a while loop's gradient keeps its forward values on: a stack lives
// for one run, pops what was pushed last first, and says so when it is empty or full.
#include <doctest/doctest.h>

#include <symflow/ops/stack_ops.hpp>
#include <symflow/symflow.hpp>

namespace tf = symflow;

TEST_CASE("stack: values pushed in one run pop last first") {
  tf::Graph g;
  auto guard = g.as_default();
  auto stack = tf::detail::stack_v2(g, tf::float32, "acc");
  auto a = tf::constant(1.0f);
  auto b = tf::constant({2.0f, 3.0f});
  auto push_a = tf::detail::stack_push(stack, a);
  tf::Output pop_first, pop_second;
  {
    tf::control_dependencies after_a({push_a});
    auto push_b = tf::detail::stack_push(stack, b);
    tf::control_dependencies after_b({push_b});
    pop_first = tf::detail::stack_pop(stack, tf::float32);
  }
  {
    tf::control_dependencies after_first({pop_first});
    pop_second = tf::detail::stack_pop(stack, tf::float32);
  }
  CHECK(stack.dtype() == tf::DType::resource);
  CHECK(stack.op().type() == "StackV2");
  CHECK(pop_first.op().get_attr<tf::DType>("elem_type") == tf::float32);
  tf::Session s(g);
  for (int run = 0; run < 2; ++run) {  // each run has a stack of its own
    auto out = s.run({pop_first, pop_second});
    CHECK(out[0] == tf::Value({2.0f, 3.0f}));
    CHECK(out[1] == tf::Value(1.0f));
  }
}

TEST_CASE("stack: popping an empty stack or pushing past max_size is an error naming the node") {
  tf::Graph g;
  auto guard = g.as_default();
  auto stack = tf::detail::stack_v2(g, tf::float32, "acc", "Stack", 1);
  auto pop = tf::detail::stack_pop(stack, tf::float32, "pop");
  tf::Session s(g);
  CHECK_THROWS_WITH_AS(s.run(pop), doctest::Contains("is empty when calling Pop()"),
                       tf::InvalidArgumentError);
  auto push = tf::detail::stack_push(stack, tf::constant(1.0f), false, "push1");
  tf::Output push2;
  {
    tf::control_dependencies after({push});
    push2 = tf::detail::stack_push(stack, tf::constant(2.0f), false, "push2");
  }
  try {
    s.run(push2);
    FAIL("pushing past max_size did not fail");
  } catch (const tf::InvalidArgumentError& e) {
    CHECK(std::string(e.what()).find("overflowed its max_size (1)") != std::string::npos);
    CHECK(e.node_name() == "push2");
  }
}

TEST_CASE("stack: a resource handle goes only to the ops that take one") {
  tf::Graph g;
  auto guard = g.as_default();
  auto stack = tf::detail::stack_v2(g, tf::float32, "acc");
  CHECK_THROWS_WITH_AS(tf::square(stack), doctest::Contains("DataType resource not in list"),
                       tf::TypeError);
  CHECK_THROWS_WITH_AS(tf::shape(stack), doctest::Contains("is a resource handle"), tf::TypeError);
}
