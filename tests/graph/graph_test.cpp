// Graph, Operation and Output handles; default graphs; lookups; control
// dependencies; devices.
#include <doctest/doctest.h>

#include <symflow/symflow.hpp>

namespace symflow_test_graph_graph_test {

namespace tf = symflow;

TEST_CASE("graph/default: a per-thread stack of default graphs") {
  tf::reset_default_graph();
  tf::Graph base = tf::get_default_graph();
  CHECK(tf::get_default_graph() == base);
  tf::Graph g;
  {
    auto guard = g.as_default();
    CHECK(tf::get_default_graph() == g);
    CHECK(tf::constant(1.0f).graph() == g);
    CHECK_THROWS_AS(tf::reset_default_graph(), tf::FailedPreconditionError);
  }
  CHECK(tf::get_default_graph() == base);
  CHECK(g.num_nodes() == 1);
  tf::reset_default_graph();
  CHECK_FALSE(tf::get_default_graph() == base);
  CHECK(tf::get_default_graph().num_nodes() == 0);
}

TEST_CASE("graph/default: operators build in their operands' graph, never an unrelated default") {
  tf::Graph g1, g2;
  tf::Tensor<float> a;
  {
    auto guard = g1.as_default();
    a = tf::constant(2.0f);
  }
  auto guard = g2.as_default();
  auto b = a * 3;
  CHECK(b.graph() == g1);
  CHECK(g2.num_nodes() == 0);
}

TEST_CASE("graph/errors: inputs from two graphs are a ValueError naming the tensor") {
  tf::Graph g1, g2;
  tf::Tensor<float> a, b;
  {
    auto guard = g1.as_default();
    a = tf::constant(1.0f);
  }
  {
    auto guard = g2.as_default();
    b = tf::constant(1.0f);
  }
  CHECK_THROWS_WITH_AS(a + b, doctest::Contains("must be from the same graph"), tf::ValueError);
}

TEST_CASE("graph/lookup: tensors and operations by name (seed experiment 18)") {
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::constant(3.0f);
  auto final_op = tf::square(x, "final_op");
  CHECK(g.get_tensor_by_name("final_op:0") == g.get_operation_by_name("final_op").outputs()[0]);
  CHECK(g.get_tensor_by_name("final_op:0").op() == final_op.op());
  CHECK(g.get_operations().size() == 2);
  CHECK(g.get_operations()[1].name() == "final_op");

  CHECK_THROWS_WITH_AS(g.get_tensor_by_name("final_op"),
                       doctest::Contains("refers to an Operation, not a Tensor"), tf::ValueError);
  CHECK_THROWS_WITH_AS(g.get_tensor_by_name("missing:0"), doctest::Contains("'missing'"),
                       tf::KeyError);
  CHECK_THROWS_WITH_AS(g.get_tensor_by_name("final_op:1"), doctest::Contains("only has 1 outputs"),
                       tf::KeyError);
  CHECK_THROWS_WITH_AS(g.get_operation_by_name("nope"),
                       "The name 'nope' refers to an Operation not in the graph.", tf::KeyError);
  CHECK_THROWS_AS(g.get_operation_by_name("final_op:0"), tf::ValueError);
}

TEST_CASE("graph/handles: Operation and Output expose the node") {
  tf::Graph g;
  auto guard = g.as_default();
  auto a = tf::placeholder<float>({2, 3}, "a");
  auto b = tf::placeholder<float>({3, 4}, "b");
  auto m = tf::matmul(a, b, false, false, "m");
  tf::Operation op = m.op();
  CHECK(op.name() == "m");
  CHECK(op.type() == "MatMul");
  CHECK(op.num_inputs() == 2);
  CHECK(op.inputs()[0] == a);
  CHECK(op.inputs()[1] == b);
  CHECK(op.num_outputs() == 1);
  CHECK(op.output(0) == m);
  CHECK_THROWS_AS(op.output(1), tf::ValueError);
  CHECK(op.get_attr<bool>("transpose_a") == false);
  CHECK(op.get_attr<tf::DType>("T") == tf::float32);
  CHECK_THROWS_WITH_AS(op.get_attr<bool>("T"), doctest::Contains("not of type bool"),
                       tf::InvalidArgumentError);
  CHECK_THROWS_AS(op.get_attr<bool>("nope"), tf::NotFoundError);
  CHECK(op.graph() == g);
  CHECK(m.index() == 0);
  CHECK(m.dtype() == tf::float32);
  CHECK(m.get_shape() == tf::Shape{2, 4});

  auto consumers = a.consumers();
  REQUIRE(consumers.size() == 1);
  CHECK(consumers[0] == op);
  CHECK(m.consumers().empty());

  tf::NodeDef def = op.node_def();
  CHECK(def.input == std::vector<std::string>{"a", "b"});
  CHECK(def.op == "MatMul");
}

TEST_CASE("graph/shapes: set_shape refines a static shape and rejects contradictions") {
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder<float>(tf::Shape{-1, 3});
  CHECK(x.get_shape().to_string() == "(?, 3)");
  x.set_shape({8, 3});
  CHECK(x.get_shape().to_string() == "(8, 3)");
  CHECK_THROWS_WITH_AS(x.set_shape({8, 4}), doctest::Contains("not compatible with (8, 4)"),
                       tf::ValueError);
  auto u = tf::placeholder<float>();
  CHECK(u.get_shape().to_string() == "<unknown>");
  u.set_shape({2});
  CHECK(u.get_shape().to_string() == "(2,)");
}

TEST_CASE("graph/types: Output::as<T> checks the element type") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Output x = tf::placeholder(tf::int32);
  CHECK(x.as<std::int32_t>().dtype() == tf::int32);
  CHECK_THROWS_WITH_AS(x.as<float>(), "Tensor Placeholder:0 has dtype int32, expected float32",
                       tf::TypeError);
}

TEST_CASE("graph/control_dependencies: only ops built inside get the edges") {
  tf::Graph g;
  auto guard = g.as_default();
  auto a = tf::constant(1.0f, "a");
  auto before = tf::no_op("before");
  tf::Output inside, nested, cleared;
  {
    tf::control_dependencies deps({before});
    inside = tf::square(a, "inside");
    {
      auto other = tf::no_op("other");
      tf::control_dependencies more({other});
      nested = tf::square(a, "nested");
      {
        tf::control_dependencies none(nullptr);
        cleared = tf::square(a, "cleared");
      }
    }
  }
  auto outside = tf::square(a, "outside");
  auto names = [](const tf::Output& t) {
    std::vector<std::string> out;
    for (const auto& op : t.op().control_inputs()) out.push_back(op.name());
    return out;
  };
  CHECK(names(inside) == std::vector<std::string>{"before"});
  CHECK(names(nested) == std::vector<std::string>{"before", "other"});
  CHECK(names(cleared).empty());
  CHECK(names(outside).empty());
  CHECK(inside.op().node_def().input == std::vector<std::string>{"a", "^before"});
}

TEST_CASE("graph/control_dependencies: an input built inside the context already carries them") {
  tf::Graph g;
  auto guard = g.as_default();
  auto a = tf::constant(1.0f);
  auto dep = tf::no_op("dep");
  tf::control_dependencies deps({dep});
  auto b = tf::square(a);  // gets ^dep
  auto c = tf::square(b);  // its input b was built inside: no duplicate edge
  CHECK(b.op().control_inputs().size() == 1);
  CHECK(c.op().control_inputs().empty());
}

TEST_CASE("graph/device: the device guard is recorded on ops and in the GraphDef") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Output x;
  {
    tf::device d("/cpu:0");
    x = tf::constant(1.0f);
  }
  auto y = tf::constant(2.0f);
  CHECK(x.op().device() == "/device:CPU:0");
  CHECK(y.op().device().empty());
  CHECK(tf::to_text(g.as_graph_def()).find("device: \"/device:CPU:0\"") != std::string::npos);
}

TEST_CASE("graph/finalize: a finalized graph refuses new ops") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::constant(1.0f);
  g.finalize();
  CHECK(g.finalized());
  CHECK_THROWS_WITH_AS(tf::constant(2.0f), "Graph is finalized and cannot be modified.",
                       tf::RuntimeError);
}

TEST_CASE("graph/shape_inference: a mismatch is an error when the node is built") {
  tf::Graph g;
  auto guard = g.as_default();
  auto a = tf::placeholder<float>({2, 3});
  auto b = tf::placeholder<float>({4, 5});
  CHECK_THROWS_WITH_AS(tf::matmul(a, b),
                       "Dimensions must be equal, but are 3 and 4 for 'MatMul' (op: 'MatMul') "
                       "with input shapes: [2,3], [4,5].",
                       tf::ValueError);
}

}  // namespace symflow_test_graph_graph_test
