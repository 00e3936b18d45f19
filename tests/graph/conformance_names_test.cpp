// TensorFlow 1.x conformance of graph naming and lookups, and of the error classes they
// raise: Graph.unique_name, name_scope's name checks, a finalized graph, and the
// messages of get_tensor_by_name / get_operation_by_name / as_graph_element. Every
// expectation is what tf.compat.v1 (TensorFlow 2.21, graph mode) does.
#include <doctest/doctest.h>

#include <symflow/symflow.hpp>
#include <type_traits>

namespace symflow_test_graph_conformance_names_test {

namespace tf = symflow;

// Python's exception classes and symflow's: KeyError is a LookupError; none of the
// client-side ones is an OpError.
static_assert(std::is_base_of_v<tf::LookupError, tf::KeyError>);
static_assert(std::is_base_of_v<tf::Error, tf::RuntimeError>);
static_assert(std::is_base_of_v<tf::Error, tf::IOError>);
static_assert(!std::is_base_of_v<tf::OpError, tf::KeyError>);
static_assert(!std::is_base_of_v<tf::OpError, tf::RuntimeError>);
static_assert(!std::is_base_of_v<tf::OpError, tf::IOError>);
static_assert(std::is_base_of_v<tf::OpError, tf::FailedPreconditionError>);

TEST_CASE("graph/conformance/unique_name: peeking reserves nothing") {
  tf::Graph g;
  auto guard = g.as_default();
  CHECK(g.unique_name("foo", false) == "foo");
  CHECK(g.unique_name("foo", false) == "foo");
  CHECK(g.unique_name("foo") == "foo");
  CHECK(g.unique_name("foo", false) == "foo_1");
  CHECK(g.unique_name("foo") == "foo_1");
  // Names are compared without case, and keep the caller's.
  CHECK(g.unique_name("Foo") == "Foo_2");
  {
    tf::name_scope scope("s");
    CHECK(g.unique_name("x", false) == "s/x");
    CHECK(g.unique_name("x") == "s/x");
  }
  auto c = tf::constant(1.0f, "c");
  CHECK(g.unique_name("c", false) == "c_1");
  CHECK(g.unique_name("c") == "c_1");
  // The name reserved above is skipped by the next op.
  CHECK(tf::constant(1.0f, "c").name() == "c_2:0");
  CHECK(c.name() == "c:0");
}

TEST_CASE("graph/conformance/unique_name: a finalized graph still answers") {
  tf::Graph g;
  g.finalize();
  CHECK(g.unique_name("zz") == "zz");
}

TEST_CASE("graph/conformance/name_scope: '_' may start a scope below the root only") {
  tf::Graph g;
  auto guard = g.as_default();
  CHECK_THROWS_WITH_AS(tf::name_scope("_bar"),
                       "'_bar' is not a valid root scope name. A root scope name has to match "
                       "the following pattern: ^[A-Za-z0-9.][A-Za-z0-9_.\\\\/>-]*$",
                       tf::ValueError);
  // A re-entered scope is checked as well.
  CHECK_THROWS_WITH_AS(tf::name_scope("_z/"),
                       "'_z/' is not a valid root scope name. A root scope name has to match "
                       "the following pattern: ^[A-Za-z0-9.][A-Za-z0-9_.\\\\/>-]*$",
                       tf::ValueError);
  CHECK_THROWS_WITH_AS(tf::name_scope("x y"),
                       "'x y' is not a valid root scope name. A root scope name has to match "
                       "the following pattern: ^[A-Za-z0-9.][A-Za-z0-9_.\\\\/>-]*$",
                       tf::ValueError);
  {
    tf::name_scope foo("foo");
    tf::name_scope bar("_bar");
    CHECK(bar.name() == "foo/_bar/");
    CHECK(tf::constant(1.0f, "k").name() == "foo/_bar/k:0");
    tf::name_scope inner("_c");
    CHECK(inner.name() == "foo/_bar/_c/");
  }
  {
    tf::name_scope a("a");
    tf::name_scope dash("-bar");
    CHECK(dash.name() == "a/-bar/");
  }
  {
    tf::name_scope a("a");
    CHECK_THROWS_WITH_AS(tf::name_scope("b:c"),
                         "'b:c' is not a valid scope name. A scope name has to match the "
                         "following pattern: ^[A-Za-z0-9_.\\\\/>-]*$",
                         tf::ValueError);
    CHECK_THROWS_WITH_AS(tf::name_scope("x y"),
                         "'x y' is not a valid scope name. A scope name has to match the "
                         "following pattern: ^[A-Za-z0-9_.\\\\/>-]*$",
                         tf::ValueError);
  }
  // A failed scope leaves the stack as it was.
  CHECK(tf::constant(1.0f, "after").name() == "after:0");
  {
    tf::name_scope dot(".dot");
    CHECK(dot.name() == ".dot/");
  }
  {
    tf::name_scope reentered("a/_z/");
    CHECK(reentered.name() == "a/_z/");
  }
}

TEST_CASE("graph/conformance/finalize: changes raise RuntimeError") {
  tf::Graph g;
  auto guard = g.as_default();
  auto c = tf::constant(1.0f, "c");
  g.add_to_collection("k", std::int64_t{1});
  g.finalize();
  const char* finalized = "Graph is finalized and cannot be modified.";
  CHECK_THROWS_WITH_AS(tf::constant(2.0f), finalized, tf::RuntimeError);
  CHECK_THROWS_WITH_AS(tf::add(c, c), finalized, tf::RuntimeError);
  CHECK_THROWS_WITH_AS(g.add_to_collection("k", std::int64_t{2}), finalized, tf::RuntimeError);
  CHECK_THROWS_WITH_AS(g.add_to_collection("k", 2.0), finalized, tf::RuntimeError);
  CHECK_THROWS_WITH_AS(g.add_to_collection("k", "s"), finalized, tf::RuntimeError);
  CHECK_THROWS_WITH_AS(g.add_to_collection("k", c), finalized, tf::RuntimeError);
  CHECK_THROWS_WITH_AS(g.add_to_collection("k", c.op()), finalized, tf::RuntimeError);
  CHECK_THROWS_WITH_AS(tf::add_to_collection("k", c), finalized, tf::RuntimeError);
  CHECK_THROWS_WITH_AS(g.clear_collection("k"), finalized, tf::RuntimeError);
  // Not an OpError: a finalized graph is the client's mistake, not a failed run.
  bool op_error = false, error = false;
  try {
    (void)tf::constant(3.0f);
  } catch (const tf::OpError&) {
    op_error = true;
  } catch (const tf::Error&) {
    error = true;
  }
  CHECK(error);
  CHECK_FALSE(op_error);
  // Reading stays allowed: get_collection, get_collection_ref and name_scope.
  CHECK(g.get_collection("k").size() == 1);
  CHECK(g.get_collection_ref("k").size() == 1);
  tf::name_scope scope("fin");
  CHECK(scope.name() == "fin/");
  CHECK(g.num_nodes() == 1);
}

TEST_CASE("graph/conformance/lookup: get_tensor_by_name's messages and classes") {
  tf::Graph g;
  auto guard = g.as_default();
  auto c = tf::constant(1.0f, "c");
  auto parts = tf::split(tf::constant(tf::Value{1.0f, 2.0f}), 2, 0, "sp");
  CHECK(g.get_tensor_by_name("c:0") == c);
  CHECK_THROWS_WITH_AS(g.get_tensor_by_name("c"),
                       "The name 'c' refers to an Operation, not a Tensor. Tensor names must be "
                       "of the form \"<op_name>:<output_index>\".",
                       tf::ValueError);
  CHECK_THROWS_WITH_AS(g.get_tensor_by_name("nope"),
                       "The name 'nope' looks like an (invalid) Operation name, not a Tensor. "
                       "Tensor names must be of the form \"<op_name>:<output_index>\".",
                       tf::ValueError);
  CHECK_THROWS_WITH_AS(g.get_tensor_by_name(""),
                       "The name '' looks like an (invalid) Operation name, not a Tensor. "
                       "Tensor names must be of the form \"<op_name>:<output_index>\".",
                       tf::ValueError);
  CHECK_THROWS_WITH_AS(g.get_tensor_by_name("nope:0"),
                       "The name 'nope:0' refers to a Tensor which does not exist. The "
                       "operation, 'nope', does not exist in the graph.",
                       tf::KeyError);
  CHECK_THROWS_WITH_AS(g.get_tensor_by_name(":0"),
                       "The name ':0' refers to a Tensor which does not exist. The operation, "
                       "'', does not exist in the graph.",
                       tf::KeyError);
  CHECK_THROWS_WITH_AS(g.get_tensor_by_name("c:3"),
                       "The name 'c:3' refers to a Tensor which does not exist. The operation, "
                       "'c', exists but only has 1 outputs.",
                       tf::KeyError);
  CHECK_THROWS_WITH_AS(g.get_tensor_by_name("c:-2"),
                       "The name 'c:-2' refers to a Tensor which does not exist. The operation, "
                       "'c', exists but only has 1 outputs.",
                       tf::KeyError);
  CHECK_THROWS_WITH_AS(g.get_tensor_by_name("c:99999999999999999999"),
                       "The name 'c:99999999999999999999' refers to a Tensor which does not "
                       "exist. The operation, 'c', exists but only has 1 outputs.",
                       tf::KeyError);
  // A KeyError is a LookupError, as in Python.
  CHECK_THROWS_AS(g.get_tensor_by_name("c:3"), tf::LookupError);
  for (const char* bad : {"c:x", "c:0x", "c:", "c:0:1", "c:1__0", "c:_1"}) {
    CAPTURE(bad);
    CHECK_THROWS_WITH_AS(g.get_tensor_by_name(bad),
                         ("The name '" + std::string(bad) +
                          "' looks a like a Tensor name, but is not a valid one. Tensor names "
                          "must be of the form \"<op_name>:<output_index>\".")
                             .c_str(),
                         tf::ValueError);
  }
  // The index is read as Python's int() reads it; a negative one counts from the end.
  CHECK(g.get_tensor_by_name("c:+0") == c);
  CHECK(g.get_tensor_by_name("c: 0") == c);
  CHECK(g.get_tensor_by_name("c:00") == c);
  CHECK(g.get_tensor_by_name("c:-1") == c);
  CHECK(g.get_tensor_by_name("sp:-1") == parts[1]);
  CHECK(g.get_tensor_by_name("sp:0_1") == parts[1]);
  CHECK_THROWS_WITH_AS(g.get_tensor_by_name("sp:1_0"),
                       "The name 'sp:1_0' refers to a Tensor which does not exist. The "
                       "operation, 'sp', exists but only has 2 outputs.",
                       tf::KeyError);
}

TEST_CASE("graph/conformance/lookup: get_operation_by_name's messages and classes") {
  tf::Graph g;
  auto guard = g.as_default();
  auto c = tf::constant(1.0f, "c");
  CHECK(g.get_operation_by_name("c") == c.op());
  CHECK_THROWS_WITH_AS(g.get_operation_by_name("c:0"),
                       "Name 'c:0' appears to refer to a Tensor, not a Operation.", tf::ValueError);
  CHECK_THROWS_WITH_AS(g.get_operation_by_name("nope"),
                       "The name 'nope' refers to an Operation not in the graph.", tf::KeyError);
  // Names are matched with their case.
  CHECK_THROWS_WITH_AS(g.get_operation_by_name("C"),
                       "The name 'C' refers to an Operation not in the graph.", tf::KeyError);
  CHECK_THROWS_WITH_AS(g.get_operation_by_name(""),
                       "The name '' refers to an Operation not in the graph.", tf::KeyError);
  // Quoted as Python's repr quotes the name.
  CHECK_THROWS_WITH_AS(g.get_operation_by_name("it's"),
                       "The name \"it's\" refers to an Operation not in the graph.", tf::KeyError);
}

TEST_CASE("graph/conformance/lookup: as_graph_element") {
  tf::Graph g;
  auto guard = g.as_default();
  auto c = tf::constant(1.0f, "c");
  CHECK(std::get<tf::Output>(g.as_graph_element("c:0")) == c);
  CHECK(std::get<tf::Operation>(g.as_graph_element("c")) == c.op());
  CHECK(std::get<tf::Operation>(g.as_graph_element("c", false, true)) == c.op());
  CHECK(std::get<tf::Output>(g.as_graph_element("c:0", true, false)) == c);
  CHECK(std::get<tf::Output>(g.as_graph_element(c)) == c);
  CHECK(std::get<tf::Operation>(g.as_graph_element(c.op())) == c.op());
  CHECK_THROWS_WITH_AS(g.as_graph_element("nope"),
                       "The name 'nope' refers to an Operation not in the graph.", tf::KeyError);
  CHECK_THROWS_WITH_AS(g.as_graph_element("nope:0"),
                       "The name 'nope:0' refers to a Tensor which does not exist. The "
                       "operation, 'nope', does not exist in the graph.",
                       tf::KeyError);
  CHECK_THROWS_WITH_AS(g.as_graph_element("c:0:1"),
                       "The name 'c:0:1' looks a like a Tensor name, but is not a valid one. "
                       "Tensor names must be of the form \"<op_name>:<output_index>\".",
                       tf::ValueError);
  CHECK_THROWS_WITH_AS(g.as_graph_element("c:1"),
                       "The name 'c:1' refers to a Tensor which does not exist. The operation, "
                       "'c', exists but only has 1 outputs.",
                       tf::KeyError);
  for (bool by_name : {true, false}) {
    CAPTURE(by_name);
    auto neither = [&] {
      by_name ? (void)g.as_graph_element("c", false, false)
              : (void)g.as_graph_element(c, false, false);
    };
    CHECK_THROWS_WITH_AS(neither(), "allow_tensor and allow_operation can't both be False.",
                         tf::ValueError);
  }
  CHECK_THROWS_WITH_AS(g.as_graph_element(c, false, true),
                       "Can not convert a SymbolicTensor into a Operation.", tf::TypeError);
  CHECK_THROWS_WITH_AS(g.as_graph_element(c.op(), true, false),
                       "Can not convert a Operation into a Tensor.", tf::TypeError);

  tf::Graph other;
  tf::Output e;
  {
    auto other_guard = other.as_default();
    e = tf::constant(2.0f, "e");
  }
  CHECK_THROWS_WITH_AS(
      g.as_graph_element(e),
      "Tensor Tensor(\"e:0\", shape=(), dtype=float32) is not an element of this graph.",
      tf::ValueError);
  CHECK_THROWS_WITH_AS(g.as_graph_element(e.op()),
                       doctest::Contains("is not an element of this graph."), tf::ValueError);
}

}  // namespace symflow_test_graph_conformance_names_test
