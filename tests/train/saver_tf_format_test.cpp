// Saver and export_meta_graph writing TensorFlow's files (FileFormat::tensorflow): a V2
// checkpoint and a protobuf MetaGraphDef, binary or text. symflow reads them back here;
// `make interop` has TensorFlow read them (tests/interop/interop.py).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <symflow/symflow.hpp>
#include <symflow/train/meta_graph_json.hpp>

#include "../test_util.hpp"

namespace symflow_test_train_saver_tf_format_test {

namespace tf = symflow;
using symflow::test::TempDir;

TEST_CASE("saver_tf_format: save writes TensorFlow's checkpoint and .meta; both read back") {
  TempDir dir("saver_tf_format");
  const std::string prefix = dir / "model";
  {
    tf::Graph g;
    auto guard = g.as_default();
    auto x = tf::placeholder(tf::float32, tf::Shape({-1, 2}), "x");
    tf::Variable w(tf::constant({{1.0f, -2.0f}, {0.5f, 3.0f}}), {.name = "w"});
    tf::Variable b(tf::constant({0.25f, -1.0f}), {.trainable = false, .name = "b"});
    auto y = tf::nn::relu(tf::matmul(x, w) + b, "y");
    tf::add_to_collection("rates", 0.5);
    tf::Session sess(g);
    sess.run(tf::global_variables_initializer());
    sess.run(tf::assign(w, tf::constant({{2.0f, 0.0f}, {0.0f, 1.0f}})));
    tf::train::Saver saver({.format = tf::train::FileFormat::tensorflow});
    CHECK(saver.save(sess, prefix) == prefix);
  }
  // The checkpoint is TensorFlow's sorted string table, not symflow's JSON index.
  const std::string index = tf::io::read_file(prefix + ".index");
  CHECK(index.substr(index.size() - 8) == std::string("\x57\xfb\x80\x8b\x24\x75\x47\xdb", 8));
  CHECK(tf::train::load_checkpoint(prefix).get_tensor("w").to_vector<float>() ==
        std::vector<float>{2, 0, 0, 1});
  // The .meta is a binary MetaGraphDef whose variables collection holds VariableDefs.
  const std::string meta = tf::io::read_file(prefix + ".meta");
  CHECK(tf::io::looks_like_binary_protobuf(meta));
  tf::train::MetaGraphDef m = tf::train::read_meta_graph_file(prefix + ".meta");
  CHECK(!m.saver_def);  // TensorFlow builds its own Saver over the variables
  const auto& vars = std::get<tf::train::BytesList>(m.collection_def.at("variables")).value;
  REQUIRE(vars.size() == 2);
  CHECK(vars[0].find("w/Assign") != std::string::npos);
  CHECK(std::get<tf::train::FloatList>(m.collection_def.at("rates")).value ==
        std::vector<double>{0.5});

  tf::Graph g;
  tf::Session sess(g);
  auto saver = tf::train::import_meta_graph(m, {.graph = g});
  REQUIRE(saver);
  CHECK(tf::variables_in(tf::GraphKeys::TRAINABLE_VARIABLES, g).size() == 1);
  saver->restore(sess, prefix);
  const tf::Value y = sess.run("y:0", {{"x:0", tf::Value({{1.0f, 2.0f}})}});
  CHECK(y.to_vector<float>() == std::vector<float>{2.25f, 1.0f});
}

TEST_CASE("saver_tf_format: export_meta_graph writes protobuf text; it reads back the same") {
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder(tf::float32, tf::Shape({3}), "x");
  tf::Variable v(tf::constant(1.5f), {.name = "v"});
  auto z = tf::identity(x * v, "z");
  (void)z;
  tf::add_to_collection("steps", std::int64_t{3});
  tf::add_to_collection("names", std::string("a\nb"));
  TempDir dir("saver_tf_format_text");
  auto m = tf::train::export_meta_graph(
      dir / "m.meta.txt", {.as_text = true, .format = tf::train::FileFormat::tensorflow});
  const std::string text = tf::io::read_file(dir / "m.meta.txt");
  CHECK(text.rfind("meta_info_def {\n", 0) == 0);
  CHECK(text.find("collection_def {\n  key: \"names\"\n  value {\n    bytes_list {\n      value: "
                  "\"a\\nb\"") != std::string::npos);
  auto back = tf::train::read_meta_graph_file(dir / "m.meta.txt");
  CHECK(back.graph_def.node.size() == m.graph_def.node.size());
  CHECK(back.collection_def == m.collection_def);
  CHECK(back.meta_info_def.stripped_op_list == m.meta_info_def.stripped_op_list);
  // The binary form holds the same.
  auto binary = tf::train::parse_tf_meta_graph(tf::train::serialize_tf_meta_graph(m), "m.meta");
  CHECK(binary.collection_def == m.collection_def);
  CHECK(tf::to_text(binary.graph_def) == tf::to_text(m.graph_def));
}

TEST_CASE("saver_tf_format: a TensorFlow Saver imported from a .meta saves through its ops") {
  const std::string data = std::string(SYMFLOW_SOURCE_DIR) + "/tests/data/tf_meta/";
  tf::Graph g;
  tf::Session sess(g);
  auto saver = tf::train::import_meta_graph(data + "model.meta.txt", {.graph = g});
  REQUIRE(saver);
  saver->restore(sess, data + "model");
  TempDir dir("saver_tf_format_ops");
  saver->save(sess, dir / "again");
  // TensorFlow's SaveV2 wrote TensorFlow's bytes; the .meta is TensorFlow's too, and
  // keeps the SaverDef naming the ops.
  CHECK(tf::io::read_file(dir / "again.data-00000-of-00001") ==
        tf::io::read_file(data + "model.data-00000-of-00001"));
  auto m = tf::train::read_meta_graph_file(dir / "again.meta");
  REQUIRE(m.saver_def);
  CHECK(m.saver_def->restore_op_name == "save/restore_all");
  CHECK(tf::train::latest_checkpoint(dir.path().string()).value() == dir / "again");
}

TEST_CASE("saver_tf_format: signatures, assets and any lists survive symflow's JSON too") {
  // A SavedModel's MetaGraphDef, written as symflow's JSON and read back.
  auto model = tf::saved_model::read_saved_model(std::string(SYMFLOW_SHARED_DIR) +
                                                 "/fixtures/tf/tf1_half_plus_two_savedmodel");
  const tf::train::MetaGraphDef& m = model.meta_graphs.at(0);
  REQUIRE(m.collection_def.count("saved_model_assets") == 1);
  const auto json = tf::train::meta_graph_to_json(m);
  const tf::train::MetaGraphDef back = tf::train::meta_graph_from_json(json, "m.json");
  CHECK(back.signature_def == m.signature_def);
  CHECK(back.asset_file_def == m.asset_file_def);
  CHECK(back.collection_def == m.collection_def);  // VariableDef bytes as base64
  CHECK(back.saver_def == m.saver_def);
  CHECK(back.meta_info_def.tensorflow_version == "1.14.0");
  // A signature naming a dtype symflow does not know is a DataLossError naming the field.
  auto bad = json;
  bad["signature_def"]["serving_default"]["inputs"]["x"]["dtype"] = "DT_NOPE";
  CHECK_THROWS_WITH_AS(tf::train::meta_graph_from_json(bad, "bad.json"),
                       "bad.json: malformed MetaGraphDef at \"signature_def.serving_default\": a "
                       "TensorInfo has the unknown dtype 'DT_NOPE'",
                       tf::DataLossError);
}

}  // namespace symflow_test_train_saver_tf_format_test
