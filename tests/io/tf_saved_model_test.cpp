// TensorFlow's MetaGraphDefs (`.meta`) and SavedModels, binary and text, from the real
// files in ../shared/fixtures/tf: they read, import, restore and run to the outputs the
// fixtures' README lists.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <symflow/symflow.hpp>

#include "../test_util.hpp"

namespace symflow_test_io_tf_saved_model_test {

namespace tf = symflow;
namespace fs = std::filesystem;

const std::string kFixtures = std::string(SYMFLOW_SHARED_DIR) + "/fixtures/tf/";

std::vector<float> floats(const tf::Value& v) { return v.to_vector<float>(); }

TEST_CASE("tf_saved_model: half_plus_two (TF 1.14) loads, restores and serves its signature") {
  tf::Graph g;
  tf::Session sess(g);
  const std::string dir = kFixtures + "tf1_half_plus_two_savedmodel";
  tf::train::MetaGraphDef m = tf::saved_model::load(sess, {"serve"}, dir);
  CHECK(m.meta_info_def.tags == std::vector<std::string>{"serve"});
  CHECK(m.meta_info_def.tensorflow_version == "1.14.0");
  CHECK(m.graph_def.node.size() == 74);
  CHECK(m.graph_def.producer == 149);

  REQUIRE(m.signature_def.count("serving_default") == 1);
  const tf::train::SignatureDef& sig = m.signature_def.at("serving_default");
  CHECK(sig.method_name == "tensorflow/serving/predict");
  CHECK(sig.inputs.at("x").name == "x:0");
  CHECK(sig.inputs.at("x").dtype == tf::float32);
  CHECK(sig.inputs.at("x").tensor_shape == tf::Shape({-1, 1}));
  CHECK(sig.outputs.at("y").name == "y:0");
  CHECK(m.signature_def.at("regress_x_to_y").inputs.at("inputs").dtype == tf::string);

  tf::Value y = sess.run(sig.outputs.at("y").name,
                         {{sig.inputs.at("x").name, tf::Value({{1.0f}, {2.0f}, {5.0f}})}});
  CHECK(floats(y) == std::vector<float>{2.5f, 3.0f, 4.5f});
  CHECK(floats(sess.run("y2:0", {{"x:0", tf::Value({{1.0f}})}})) == std::vector<float>{3.5f});

  // The Saver's ops and the variables collection came through.
  REQUIRE(m.saver_def);
  CHECK(m.saver_def->restore_op_name == "save/restore_all");
  CHECK(m.saver_def->filename_tensor_name == "save/Const:0");
  CHECK(m.saver_def->sharded);
  CHECK(m.saver_def->version == 2);
  auto vars = tf::variables_in(tf::GraphKeys::GLOBAL_VARIABLES, g);
  REQUIRE(vars.size() == 5);
  CHECK(vars[0].op().name() == "a");
  // The main op ran with the asset's path fed.
  CHECK(tf::saved_model::detail::init_op_name(m) == "group_deps");
}

TEST_CASE("tf_saved_model: a SavedModel's tags must match a saved tag-set") {
  tf::Graph g;
  tf::Session sess(g);
  const std::string dir = kFixtures + "tf1_half_plus_two_savedmodel";
  CHECK_THROWS_WITH_AS(tf::saved_model::load(sess, {"train"}, dir),
                       doctest::Contains("MetaGraphDef associated with tags {'train'} could not "
                                         "be found in SavedModel"),
                       tf::NotFoundError);
  CHECK(g.get_operations().empty());
  CHECK_THROWS_AS(tf::saved_model::load(sess, {"serve"}, kFixtures + "no_such_model"),
                  tf::NotFoundError);
}

TEST_CASE("tf_saved_model: two tags, training ops and a regress signature (TF 1.2.1)") {
  tf::Graph g;
  tf::Session sess(g);
  auto m = tf::saved_model::load(sess, {"serve", "train"}, kFixtures + "tf1_regression_savedmodel");
  const auto& sig = m.signature_def.at("tensorflow/serving/regress");
  CHECK(sig.method_name == "tensorflow/serving/regress");
  tf::Value y =
      sess.run(sig.outputs.at("out").name, {{sig.inputs.at("x").name, tf::Value({1.0f, 2.0f})}});
  const auto out = floats(y);
  REQUIRE(out.size() == 2);
  CHECK(out[0] == doctest::Approx(-0.85786223f));
  CHECK(out[1] == doctest::Approx(-1.71572447f));
}

TEST_CASE("tf_saved_model: the counter's signatures change its variable (TF 1.5)") {
  tf::Graph g;
  tf::Session sess(g);
  auto m = tf::saved_model::load(sess, {"serve"}, kFixtures + "tf1_counter_savedmodel");
  const auto& incr = m.signature_def.at("incr_counter").outputs.begin()->second;
  CHECK(incr.is_ref);
  CHECK(incr.dtype == tf::float32);
  CHECK(m.signature_def.at("incr_counter").inputs.empty());
  const std::string get = m.signature_def.at("get_counter").outputs.begin()->second.name;
  CHECK(sess.run(get).scalar<float>() == 0.0f);
  sess.run(incr.name);
  sess.run(incr.name);
  CHECK(sess.run(get).scalar<float>() == 2.0f);
  const auto& by = m.signature_def.at("incr_counter_by");
  sess.run(by.outputs.begin()->second.name, {{by.inputs.at("delta").name, tf::Value(5.0f)}});
  CHECK(sess.run(get).scalar<float>() == 7.0f);
}

TEST_CASE("tf_saved_model: a SavedModel without variables (TF 1.2)") {
  tf::Graph g;
  tf::Session sess(g);
  auto m =
      tf::saved_model::load(sess, {"serve"}, kFixtures + "tf1_matrix_half_plus_two_savedmodel");
  const auto& sig = m.signature_def.at("serving_default");
  CHECK(sig.inputs.at("x").tensor_shape == tf::Shape({-1, 3, 3}));
  tf::Value x = tf::Value::from_vector(std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7, 8}, {1, 3, 3});
  CHECK(floats(sess.run("y:0", {{"x:0", x}})) ==
        std::vector<float>{2, 2.5f, 3, 3.5f, 4, 4.5f, 5, 5.5f, 6});
}

TEST_CASE("tf_saved_model: the text SavedModel (TF 0.12) reads; its variables initialise") {
  const std::string dir = kFixtures + "tf1_half_plus_two_pbtxt";
  tf::train::SavedModel model = tf::saved_model::read_saved_model(dir);
  CHECK(model.saved_model_schema_version == 1);
  REQUIRE(model.meta_graphs.size() == 1);
  const auto& m = model.meta_graphs[0];
  CHECK(m.meta_info_def.stripped_op_list.size() == 15);
  CHECK(m.meta_info_def.tensorflow_version == "0.12.head");
  CHECK(m.graph_def.node.size() == 60);
  CHECK(m.saver_def->max_to_keep == 5);
  CHECK(m.saver_def->keep_checkpoint_every_n_hours == 10000.0);
  CHECK(m.signature_def.at("tensorflow/serving/regress").outputs.at("outputs").name ==
        "Identity:0");
  auto assets = tf::saved_model::detail::asset_files(m);
  REQUIRE(assets.size() == 1);
  CHECK(assets[0].tensor_info.name == "Const:0");
  CHECK(assets[0].filename == "foo.txt");

  // The folder has no variables/ (the fixture keeps only the text file).
  tf::Graph g;
  tf::Session sess(g);
  CHECK_THROWS_WITH_AS(tf::saved_model::load(sess, {"serve"}, dir),
                       doctest::Contains("has variables but no checkpoint of them"),
                       tf::NotFoundError);
  // Imported by hand, its variables start from their initial values.
  tf::Graph g2;
  tf::Session sess2(g2);
  auto saver = tf::train::import_meta_graph(m, {.graph = g2});
  REQUIRE(saver);
  CHECK(saver->runs_graph_ops());
  for (const tf::Variable& v : tf::variables_in(tf::GraphKeys::GLOBAL_VARIABLES, g2))
    sess2.run(v.initializer());
  CHECK(floats(sess2.run("y:0", {{"x:0", tf::Value({{1.0f}, {2.0f}, {5.0f}})}})) ==
        std::vector<float>{2.5f, 3.0f, 4.5f});
}

TEST_CASE("tf_saved_model: a TF2 SavedModel is refused by name; its variables still load") {
  tf::Graph g;
  tf::Session sess(g);
  const std::string dir = kFixtures + "tf2_half_plus_two_savedmodel";
  CHECK_THROWS_WITH_AS(tf::saved_model::load(sess, {"serve"}, dir),
                       doctest::Contains("StatefulPartitionedCall"), tf::UnimplementedError);
  CHECK(g.get_operations().empty());
  auto reader = tf::train::load_checkpoint(dir + "/variables/variables");
  CHECK(reader.get_tensor("a/.ATTRIBUTES/VARIABLE_VALUE").scalar<float>() == 0.5f);
}

TEST_CASE("tf_saved_model: a TF 0.12 .meta (old Variable op) imports and restores") {
  const std::string dir = kFixtures + "tf1_half_plus_two_ckpt/";
  tf::train::MetaGraphDef m = tf::train::read_meta_graph_file(dir + "export.meta");
  CHECK(m.meta_info_def.tensorflow_version == "0.12.head");
  CHECK(m.graph_def.node.size() == 27);
  CHECK(m.collection_def.count("serving_signatures") == 1);
  tf::Graph g;
  tf::Session sess(g);
  auto saver = tf::train::import_meta_graph(m, {.graph = g});
  REQUIRE(saver);
  CHECK(saver->runs_graph_ops());
  CHECK(g.get_operation_by_name("Variable").type() == "VariableV2");
  saver->restore(sess, dir + "export");
  CHECK(floats(sess.run("Add:0", {{"Placeholder:0", tf::Value({1.0f, 2.0f, 5.0f})}})) ==
        std::vector<float>{2.5f, 3.0f, 4.5f});
}

TEST_CASE("tf_saved_model: the TF 1.15 MNIST .meta (resource variables) classifies and trains") {
  const std::string ckpt = kFixtures + "tf1_mnist_mlp_ckpt/checkpoint/";
  // The digits and TensorFlow's own outputs for them (tests/data/tf_mnist/make_files.py).
  auto inputs =
      tf::train::load_checkpoint(std::string(SYMFLOW_SOURCE_DIR) + "/tests/data/tf_mnist/inputs");
  const tf::Value images = inputs.get_tensor("images");
  const std::vector<double> expected = inputs.get_tensor("tf_prediction").to_vector<double>();

  tf::Graph g;
  tf::Session sess(g);
  tf::train::MetaGraphDef m = tf::train::read_meta_graph_file(ckpt + "train.ckpt.meta");
  CHECK(m.meta_info_def.tensorflow_version == "1.15.0");
  auto saver = tf::train::import_meta_graph(m, {.graph = g});
  REQUIRE(saver);
  CHECK(saver->runs_graph_ops());
  // The handles became variables; the variables collection names them.
  auto vars = tf::variables_in(tf::GraphKeys::TRAINABLE_VARIABLES, g);
  REQUIRE(vars.size() == 6);
  CHECK(vars[0].op().name() == "dense/kernel");
  CHECK(vars[0].value().name() == "dense/kernel/Read/ReadVariableOp:0");
  CHECK(g.get_collection("train_op").size() == 1);

  saver->restore(sess, tf::train::latest_checkpoint(ckpt).value());
  const std::vector<double> p = sess.run("prediction:0", {{"input:0", images}}).to_vector<double>();
  REQUIRE(p.size() == 100);
  for (int k = 0; k < 10; ++k) {
    CAPTURE(k);
    auto row = p.begin() + k * 10;
    CHECK(std::max_element(row, row + 10) - row == k);
    for (int j = 0; j < 10; ++j)
      CHECK(row[j] == doctest::Approx(expected[k * 10 + j]).epsilon(1e-9));
  }

  // The graph's own training op, one step: TensorFlow's bias after it.
  tf::Value labels(tf::float64, {10, 10});
  for (int k = 0; k < 10; ++k) labels.data<double>()[k * 11] = 1.0;
  sess.run({tf::Fetch("GradientDescent")}, {{"input:0", images}, {"label:0", labels}});
  const auto bias = sess.run("dense_2/bias/Read/ReadVariableOp:0").to_vector<double>();
  const auto tf_bias = inputs.get_tensor("tf_bias_after_step").to_vector<double>();
  REQUIRE(bias.size() == tf_bias.size());
  for (std::size_t i = 0; i < bias.size(); ++i)
    CHECK(bias[i] == doctest::Approx(tf_bias[i]).epsilon(1e-9));
}

TEST_CASE("tf_saved_model: a text MetaGraphDef with strip_default_attrs restores and trains") {
  // tests/data/tf_meta/make_files.py: TensorFlow 2.21's export_meta_graph(as_text=True).
  const std::string data = std::string(SYMFLOW_SOURCE_DIR) + "/tests/data/tf_meta/";
  tf::train::MetaGraphDef m = tf::train::read_meta_graph_file(data + "model.meta.txt");
  CHECK(std::get<tf::train::FloatList>(m.collection_def.at("rates")).value ==
        std::vector<double>{0.5, 2.0});
  CHECK(std::get<tf::train::Int64List>(m.collection_def.at("steps")).value ==
        std::vector<std::int64_t>{7});
  tf::Graph g;
  tf::Session sess(g);
  auto saver = tf::train::import_meta_graph(m, {.graph = g});
  REQUIRE(saver);
  CHECK(saver->runs_graph_ops());
  CHECK(g.get_collection("rates").size() == 2);
  saver->restore(sess, data + "model");
  const tf::Value x({{1.0f, 2.0f}, {-1.0f, 0.5f}});
  CHECK(floats(sess.run("y:0", {{"x:0", x}})) == std::vector<float>{2.25f, 3.0f, 0.0f, 2.5f});
  // TensorFlow: w after one step = [[0.55, -2.1], [-0.4, 1.55]] (float32).
  sess.run({tf::Fetch("train")}, {{"x:0", x}});
  const auto w = floats(sess.run("w:0"));
  const std::vector<float> tf_w = {0.5499999523162842f, -2.0999999046325684f, -0.40000003576278687f,
                                   1.5499999523162842f};
  CHECK(w == tf_w);
}

TEST_CASE("tf_saved_model: protobuf text's short repeated form, [a, b]") {
  const tf::GraphDef def = tf::io::parse_graph_def_text(
      "node [{ name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } }\n"
      "        attr { key: 'shape' value { shape { dim [{ size: -1 }, { size: 3 }] } } } },\n"
      "      { name: 'n' op: 'Const' attr { key: 'dtype' value { type: DT_INT32 } }\n"
      "        attr { key: 'value' value { tensor { dtype: DT_INT32 tensor_shape { dim {size: 3}}\n"
      "        int_val: [4, 5, 6] } } } }]\n"
      "node { name: 'l' op: 'NoOp' attr { key: 'sizes' value { list { i: [1, 2] } } } }\n",
      "short.pbtxt");
  REQUIRE(def.node.size() == 3);
  CHECK(std::get<tf::Shape>(def.node[0].attr.at("shape")) == tf::Shape({-1, 3}));
  CHECK(std::get<tf::Value>(def.node[1].attr.at("value")).to_vector<std::int32_t>() ==
        std::vector<std::int32_t>{4, 5, 6});
  CHECK(std::get<tf::IntList>(def.node[2].attr.at("sizes")).items ==
        std::vector<std::int64_t>{1, 2});
  CHECK_THROWS_WITH_AS(tf::io::parse_graph_def_text("node [{ name: 'a' op: 'NoOp' }", "cut.pbtxt"),
                       doctest::Contains("cut.pbtxt:1: expected ']'"), tf::DataLossError);
  CHECK_THROWS_AS(tf::io::parse_graph_def_text("node: [1, 2]", "scalar.pbtxt"), tf::DataLossError);
}

TEST_CASE("tf_saved_model: MetaGraphDef and SavedModel files cut or with a byte flipped") {
  // Every prefix, and every byte changed, of two real files: a DataLossError or a
  // MetaGraphDef, never another exception or a crash.
  for (const std::string& file :
       {kFixtures + "tf1_half_plus_two_ckpt/export.meta",
        kFixtures + "tf1_matrix_half_plus_two_savedmodel/saved_model.pb"}) {
    CAPTURE(file);
    const std::string bytes = tf::io::read_file(file);
    const bool saved_model = file.ends_with("saved_model.pb");
    auto read = [&](const std::string& b) {
      if (saved_model)
        (void)tf::train::parse_saved_model(b, file);
      else
        (void)tf::train::parse_tf_meta_graph(b, file);
    };
    int data_loss = 0;
    for (std::size_t n = 0; n < bytes.size(); ++n) {
      try {
        read(bytes.substr(0, n));
      } catch (const tf::DataLossError&) {
        ++data_loss;
      }
      std::string flipped = bytes;
      flipped[n] = static_cast<char>(flipped[n] ^ 0x5a);
      try {
        read(flipped);
      } catch (const tf::DataLossError&) {
        ++data_loss;
      }
    }
    CHECK(data_loss > 0);
    // Empty, the file parses as a message without a graph: still an error.
    CHECK_THROWS_AS(read(""), tf::DataLossError);
  }
}

}  // namespace symflow_test_io_tf_saved_model_test
