// TensorFlow's node naming: defaults by op type, uniquifying, name scopes.
#include <doctest/doctest.h>

#include <symflow/symflow.hpp>

namespace symflow_test_graph_naming_test {

namespace tf = symflow;

TEST_CASE("graph/naming: default names count up per op type") {
  tf::Graph g;
  auto guard = g.as_default();
  CHECK(tf::constant(1.0f).name() == "Const:0");
  CHECK(tf::constant(2.0f).name() == "Const_1:0");
  CHECK(tf::placeholder<float>().name() == "Placeholder:0");
  CHECK(tf::constant(3.0f).name() == "Const_2:0");
}

TEST_CASE("graph/naming: seed experiment 11's names") {
  tf::Graph g;
  auto guard = g.as_default();
  auto b = tf::constant(1.0f);
  auto c = tf::constant(2.0f, "c");
  auto d = tf::add(b, c, "d");
  auto f = tf::placeholder<float>({2, 2});
  CHECK(tf::to_string(b) == "Tensor(\"Const:0\", shape=(), dtype=float32)");
  CHECK(tf::to_string(c) == "Tensor(\"c:0\", shape=(), dtype=float32)");
  CHECK(tf::to_string(d) == "Tensor(\"d:0\", shape=(), dtype=float32)");
  CHECK(d.get_shape().to_string() == "()");
  CHECK(tf::to_string(f) == "Tensor(\"Placeholder:0\", shape=(2, 2), dtype=float32)");
  CHECK(f.get_shape().to_string() == "(2, 2)");
  CHECK(tf::to_string(tf::constant(1.0f)) == "Tensor(\"Const_1:0\", shape=(), dtype=float32)");
  CHECK(tf::constant(1.0f).name() == "Const_2:0");
  CHECK(tf::to_string(tf::add(b, c)) == "Tensor(\"Add:0\", shape=(), dtype=float32)");
  CHECK(tf::add(b, c, "d").name() == "d_1:0");
}

TEST_CASE("graph/naming: user names are uniquified case-insensitively, and _N never collides") {
  tf::Graph g;
  auto guard = g.as_default();
  CHECK(tf::constant(1, "foo").op().name() == "foo");
  CHECK(tf::constant(1, "foo").op().name() == "foo_1");
  CHECK(tf::constant(1, "Foo").op().name() == "Foo_2");
  CHECK(tf::constant(1, "foo_3").op().name() == "foo_3");
  CHECK(tf::constant(1, "foo").op().name() == "foo_4");
}

TEST_CASE("graph/naming: invalid names are a ValueError naming them") {
  tf::Graph g;
  auto guard = g.as_default();
  CHECK_THROWS_WITH_AS(tf::constant(1, "bad name"), "'bad name' is not a valid node name",
                       tf::ValueError);
  CHECK_THROWS_AS(tf::constant(1, "_leading"), tf::ValueError);
  CHECK_THROWS_AS(tf::name_scope("a b"), tf::ValueError);
}

TEST_CASE("graph/name_scope: nesting, re-entry, absolute re-open and reset") {
  tf::Graph g;
  auto guard = g.as_default();
  {
    tf::name_scope conv1("conv1");
    CHECK(conv1.name() == "conv1/");
    CHECK(tf::constant(1.0f, "weights").name() == "conv1/weights:0");
    {
      tf::name_scope inner("inner");
      CHECK(inner.name() == "conv1/inner/");
      CHECK(tf::constant(1.0f).name() == "conv1/inner/Const:0");
    }
    {
      tf::name_scope root("");
      CHECK(root.name().empty());
      CHECK(tf::constant(1.0f, "top").name() == "top:0");
    }
  }
  {
    tf::name_scope again("conv1");
    CHECK(again.name() == "conv1_1/");
    CHECK(tf::constant(1.0f, "weights").name() == "conv1_1/weights:0");
  }
  {
    tf::name_scope reopened("conv1/");
    CHECK(reopened.name() == "conv1/");
    CHECK(tf::constant(1.0f, "weights").name() == "conv1/weights_1:0");
  }
  CHECK(tf::constant(1.0f, "outside").name() == "outside:0");
}

TEST_CASE("graph/name_scope: an op named after the captured scope takes its exact name") {
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::constant(1.0f);
  std::string scope_name;
  {
    tf::name_scope scope("layer");
    scope_name = scope.name();
    auto y = tf::add(x, x);
    auto out = tf::identity(y, scope.name());
    CHECK(out.name() == "layer:0");
    CHECK(y.name() == "layer/Add:0");
  }
  CHECK(scope_name == "layer/");
}

TEST_CASE("graph/name_scope: (name, default_name, values) picks the values' graph") {
  tf::Graph g1, g2;
  auto guard = g1.as_default();
  tf::Output x;
  {
    auto inner = g2.as_default();
    x = tf::constant(1.0f);
  }
  tf::name_scope scope("", "helper", {x});
  CHECK(scope.name() == "helper/");
  auto y = tf::square(x);  // built in x's graph, not the default
  CHECK(y.graph() == g2);
  CHECK(y.name() == "helper/Square:0");
  CHECK(g1.num_nodes() == 0);
}

TEST_CASE("graph/naming: rebuilding in one graph gives _1 names; a reset graph starts over") {
  auto build = [] {
    std::vector<std::string> names;
    for (const char* scope : {"conv1", "conv2"}) {
      tf::name_scope s(scope);
      names.push_back(tf::constant(1.0f, "weights").name());
    }
    return names;
  };
  tf::reset_default_graph();
  CHECK(build() == std::vector<std::string>{"conv1/weights:0", "conv2/weights:0"});
  CHECK(build() == std::vector<std::string>{"conv1_1/weights:0", "conv2_1/weights:0"});
  tf::reset_default_graph();
  CHECK(build() == std::vector<std::string>{"conv1/weights:0", "conv2/weights:0"});
}

}  // namespace symflow_test_graph_naming_test
