// GraphDefs written by real TensorFlow (../shared/fixtures/tf): read, imported and run,
// with the outputs the fixtures' README lists.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <xtensor/xnpy.hpp>

#include <symflow/core/xtensor_interop.hpp>
#include <symflow/symflow.hpp>

namespace symflow_test_io_tf_graph_def_test {

namespace tf = symflow;

std::string fixture(const std::string& relative) {
  return std::string(SYMFLOW_SHARED_DIR) + "/fixtures/tf/" + relative;
}

// Reads a GraphDef file and imports it, names unchanged, into a new graph.
tf::Graph load(const std::string& relative) {
  tf::GraphDef def = tf::read_graph(fixture(relative));
  tf::Graph g;
  tf::import_graph_def(def, {.name = ""}, g);
  return g;
}

TEST_CASE("io/tf files: the three small binary GraphDefs of TensorFlow 0.x and 1.x run") {
  SUBCASE("multiplication.pb, producer 9: an empty `shape {}` means unknown") {
    tf::GraphDef def = tf::read_graph(fixture("tf1_small_graphdefs/multiplication.pb"));
    CHECK(def.producer == 9);
    REQUIRE(def.node.size() == 3);
    CHECK(def.node[2].op == "Mul");
    tf::Graph g;
    tf::import_graph_def(def, {.name = ""}, g);
    CHECK_FALSE(g.get_tensor_by_name("a:0").shape().has_rank());
    tf::Session sess(g);
    CHECK(sess.run("c:0", {{"a:0", tf::Value(2.0f)}, {"b:0", tf::Value(3.0f)}}).scalar<float>() ==
          6.0f);
    tf::Value v = sess.run("c:0", {{"a:0", tf::Value{1.0f, 2.0f}}, {"b:0", tf::Value{3.0f, 4.0f}}});
    CHECK(v.flat<float>()[1] == 8.0f);
  }
  SUBCASE("addition.pb: int32 placeholders of unknown rank") {
    tf::Graph g = load("tf1_small_graphdefs/addition.pb");
    tf::Session sess(g);
    CHECK(sess.run("z:0", {{"x:0", tf::Value(2)}, {"y:0", tf::Value(3)}}).scalar<std::int32_t>() ==
          5);
  }
  SUBCASE("add_1x100.pb: [1, 100] floats") {
    tf::Graph g = load("tf1_small_graphdefs/add_1x100.pb");
    tf::Value in(tf::float32, {1, 100});
    for (int i = 0; i < 100; ++i) in.flat<float>()[i] = static_cast<float>(i);
    tf::Session sess(g);
    tf::Value out = sess.run("result:0", {{"input_a:0", in}, {"input_b:0", in}});
    REQUIRE(out.dims() == tf::Dims{1, 100});
    for (int i = 0; i < 100; ++i) CHECK(out.flat<float>()[i] == 2.0f * static_cast<float>(i));
  }
}

TEST_CASE("io/tf files: a frozen TF2 Keras model (producer 716) gives its outputs") {
  tf::Graph g = load("tf2_frozen_dense_graphdef/model.pb");
  tf::Session sess(g);
  tf::Value ones(tf::float32, {10, 5});
  for (auto& x : ones.flat<float>()) x = 1.0f;
  tf::Value out = sess.run("Identity:0", {{"x:0", ones}});
  REQUIRE(out.dims() == tf::Dims{10, 1});
  for (float y : out.flat<float>()) CHECK(y == doctest::Approx(0.56563216f).epsilon(1e-5));
  tf::Value one_row = sess.run("Identity:0", {{"x:0", tf::Value{{1.0f, 2.0f, 3.0f, 4.0f, 5.0f}}}});
  CHECK(one_row.flat<float>()[0] == doctest::Approx(0.89990014f).epsilon(1e-5));
}

TEST_CASE("io/tf files: the frozen SRU network (549 nodes, no versions) gives its output") {
  tf::GraphDef def = tf::read_graph(fixture("tf1_frozen_sru_graphdef/graph.pb"));
  CHECK(def.node.size() == 549);
  CHECK(def.producer == 0);
  tf::Graph g;
  tf::import_graph_def(def, {.name = ""}, g);
  const float input[5][12] = {
      {-0.4809832f, -0.3770838f, 0.1743573f, 0.7720509f, -0.4064746f, 0.0116595f, 0.0051413f,
       0.9135732f, 0.7197526f, -0.0400658f, 0.1180671f, -0.6829428f},
      {-0.4810135f, -0.3772099f, 0.1745346f, 0.7719303f, -0.4066443f, 0.0114614f, 0.0051195f,
       0.9135003f, 0.7196983f, -0.0400035f, 0.1178188f, -0.6830465f},
      {-0.4809143f, -0.3773398f, 0.1746384f, 0.7719052f, -0.4067171f, 0.0111654f, 0.0054433f,
       0.9134697f, 0.7192584f, -0.0399981f, 0.1177435f, -0.6835230f},
      {-0.4808300f, -0.3774327f, 0.1748246f, 0.7718700f, -0.4070232f, 0.0109549f, 0.0059128f,
       0.9133330f, 0.7188759f, -0.0398740f, 0.1181437f, -0.6838635f},
      {-0.4807833f, -0.3775733f, 0.1748378f, 0.7718275f, -0.4073670f, 0.0107582f, 0.0062978f,
       0.9131795f, 0.7187147f, -0.0394935f, 0.1184392f, -0.6840039f}};
  tf::Value x(tf::float32, {1, 5, 12});
  for (int t = 0; t < 5; ++t)
    for (int i = 0; i < 12; ++i) x.flat<float>()[t * 12 + i] = input[t][i];
  tf::Session sess(g);
  tf::Value out = sess.run("output_node0:0", {{"input_4:0", x}});
  REQUIRE(out.dims() == tf::Dims{1, 4});
  const float expected[4] = {-0.40978357f, -0.30286169f, 0.01525860f, 0.69051516f};
  for (int i = 0; i < 4; ++i)
    CHECK(out.flat<float>()[i] == doctest::Approx(expected[i]).epsilon(1e-5));
}

// A text GraphDef of TF 2.x (producer 2129) fed with its .npy inputs, against TensorFlow's
// own result.
void check_text_graph_def(const std::string& folder, const std::vector<std::string>& inputs) {
  tf::Graph g = load("tf2_text_graphdefs/" + folder + "/model.pbtxt");
  tf::FeedDict feeds;
  for (const std::string& name : inputs)
    feeds.emplace_back(name + ":0", tf::from_xarray(xt::load_npy<float>(fixture(
                                        "tf2_text_graphdefs/" + folder + "/" + name + ".npy"))));
  tf::Session sess(g);
  tf::Value out = sess.run("Identity:0", feeds);
  tf::Value expected = tf::from_xarray(
      xt::load_npy<float>(fixture("tf2_text_graphdefs/" + folder + "/tf_result.npy")));
  REQUIRE(out.dims() == expected.dims());
  float worst = 0.0f;
  for (std::size_t i = 0; i < out.flat<float>().size(); ++i)
    worst = std::max(worst, std::abs(out.flat<float>()[i] - expected.flat<float>()[i]));
  CHECK(worst <= 1e-5f);
}

TEST_CASE("io/tf files: TF 2.x text GraphDefs (AddV2 with broadcasting, Conv2D) match TF") {
  check_text_graph_def("add_1x4x4x4_f32", {"placeholder_0", "placeholder_1"});
  check_text_graph_def("conv2d_1x1_1x32x32x8_f32", {"placeholder_0"});
}

TEST_CASE("io/tf files: a binary GraphDef written by symflow reads back as TensorFlow's did") {
  // TensorFlow's file, read, written again by symflow and read back: the same graph.
  tf::GraphDef original = tf::read_graph(fixture("tf2_frozen_dense_graphdef/model.pb"));
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / "symflow_test_tf_graph_def_roundtrip";
  std::string path = tf::write_graph(original, dir.string(), "model.pb", /*as_text=*/false);
  tf::GraphDef again = tf::read_graph(path);
  CHECK(tf::to_text(again) == tf::to_text(original));
  std::filesystem::remove_all(dir);
}

TEST_CASE("io/tf files: attrs left out at their default (strip_default_attrs) are put back") {
  tf::GraphDef def;
  {
    tf::Graph g;
    auto guard = g.as_default();
    auto x = tf::placeholder<float>(tf::Shape{2, 2}, "x");
    tf::reduce_sum(tf::matmul(x, x, false, false, "mm"), 1, false, "total");
    def = g.as_graph_def();
  }
  for (tf::NodeDef& n : def.node) {
    n.attr.erase("transpose_a");
    n.attr.erase("transpose_b");
    n.attr.erase("keep_dims");
    n.attr.erase("Tidx");
  }
  tf::Graph g;
  tf::import_graph_def(def, {.name = ""}, g);
  CHECK(g.get_operation_by_name("mm").get_attr<bool>("transpose_a") == false);
  CHECK(g.get_operation_by_name("total").get_attr<tf::DType>("Tidx") == tf::int32);
  tf::Session sess(g);
  tf::Value out = sess.run("total:0", {{"x:0", tf::Value{{1.0f, 2.0f}, {3.0f, 4.0f}}}});
  CHECK(out.flat<float>()[0] == 17.0f);  // [[7, 10], [15, 22]] summed by row
  CHECK(out.flat<float>()[1] == 37.0f);
}

TEST_CASE("io/tf files: a graph whose ops symflow lacks names every missing op type at once") {
  tf::GraphDef def;
  def.node.push_back(tf::NodeDef{"a", "Frob", {}, "", {}});
  def.node.push_back(tf::NodeDef{"b", "Twiddle", {}, "", {}});
  def.node.push_back(tf::NodeDef{"c", "Frob", {}, "", {}});
  tf::Graph g;
  CHECK_THROWS_WITH_AS(tf::import_graph_def(def, {}, g),
                       doctest::Contains("uses 2 op types that symflow lacks: Frob (2 nodes, 'a') "
                                         "Twiddle (1 node, 'b')"),
                       tf::NotFoundError);
  CHECK(g.num_nodes() == 0);
}

}  // namespace symflow_test_io_tf_graph_def_test
