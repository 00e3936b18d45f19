// TensorFlow 1.x graphs whose resource variables pass through control flow v1: the
// handles go through Switch (tf.cond) and Enter (tf.while_loop), whose `T` reads
// DT_RESOURCE. They import as the ref variables symflow runs resource variables as
// (io/tf_op_rewrites.hpp), restore, and give TensorFlow's values
// (tests/data/tf_resource_flow/make_files.py, TF 2.21).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <symflow/io/graph_def_json.hpp>
#include <symflow/io/graph_def_text.hpp>
#include <symflow/io/graph_io.hpp>
#include <symflow/io/tf_op_rewrites.hpp>
#include <symflow/symflow.hpp>

#include "../test_util.hpp"

namespace symflow_test_io_tf_resource_flow_test {

namespace tf = symflow;

const std::string kDir = std::string(SYMFLOW_SOURCE_DIR) + "/tests/data/tf_resource_flow/";

TEST_CASE("tf_resource_flow: handles through Switch and Enter take their variable's dtype") {
  tf::train::MetaGraphDef m = tf::train::read_meta_graph_file(kDir + "model.meta");
  tf::Graph g;
  tf::Session sess(g);
  auto saver = tf::train::import_meta_graph(m, {.graph = g});
  REQUIRE(saver);
  // The cond's Switch of w's handle forwards the variable itself, a float32 reference.
  const tf::Operation sw = g.get_operation_by_name("cond/MatMul/ReadVariableOp/Switch");
  CHECK(sw.type() == "Switch");
  CHECK(sw.get_attr<tf::DType>("T") == tf::float32);
  CHECK(g.get_operation_by_name("w").type() == "VariableV2");
  saver->restore(sess, kDir + "model");
  const tf::Value x({{1.0f, 2.0f, 3.0f}});
  // TF: y = x @ w + b with flag, x @ w * 2 without; acc = 3 * sum(w) = 45.
  CHECK(sess.run("y:0", {{"x:0", x}, {"flag:0", tf::Value(true)}}) == tf::Value({{16.5f, 21.5f}}));
  CHECK(sess.run("y:0", {{"x:0", x}, {"flag:0", tf::Value(false)}}) == tf::Value({{32.0f, 44.0f}}));
  CHECK(sess.run("acc:0").scalar<float>() == 45.0f);
}

TEST_CASE("tf_resource_flow: DT_RESOURCE attrs write back as they were read, in every format") {
  const tf::GraphDef def = tf::train::read_meta_graph_file(kDir + "model.meta").graph_def;
  const std::string text = tf::to_text(def);
  CHECK(text.find("type: DT_RESOURCE") != std::string::npos);
  CHECK(tf::to_text(tf::io::parse_graph_def_text(text, "again.pbtxt")) == text);
  CHECK(tf::to_text(tf::io::parse_graph_def_binary(tf::io::serialize_graph_def_binary(def),
                                                   "again.pb")) == text);
  CHECK(tf::to_text(tf::io::parse_graph_def(tf::io::serialize_graph_def(def, false),
                                            "again.json")) == text);
}

TEST_CASE("tf_resource_flow: a DT_RESOURCE attr with no variable behind it is named") {
  // A Switch whose handle comes from a placeholder (as a function's argument would):
  // nothing tells its variable's dtype.
  tf::GraphDef def = tf::io::parse_graph_def_text(R"(
    node { name: "h" op: "Placeholder" attr { key: "dtype" value { type: DT_RESOURCE } } }
    node { name: "p" op: "Placeholder" attr { key: "dtype" value { type: DT_BOOL } } }
    node { name: "s" op: "Switch" input: "h" input: "p"
           attr { key: "T" value { type: DT_RESOURCE } } }
  )",
                                                  "handles.pbtxt");
  CHECK(tf::io::has_tf_ops_to_rewrite(def));
  tf::Graph g;
  CHECK_THROWS_WITH_AS(tf::import_graph_def(def, {.name = ""}, g),
                       doctest::Contains("Node 'h' (Placeholder) has a DT_RESOURCE attr whose "
                                         "handle symflow cannot follow back to a resource "
                                         "variable"),
                       tf::UnimplementedError);
}

TEST_CASE("tf_resource_flow: a constant of dtype DT_RESOURCE is a DataLossError") {
  CHECK_THROWS_WITH_AS(
      tf::io::parse_graph_def_text(
          R"(node { name: "c" op: "Const" attr { key: "value" value { tensor { dtype: DT_RESOURCE } } } })",
          "const.pbtxt"),
      doctest::Contains("a tensor of dtype DT_RESOURCE: a handle is not a value a file holds"),
      tf::DataLossError);
}

}  // namespace symflow_test_io_tf_resource_flow_test
