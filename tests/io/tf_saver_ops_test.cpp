// TensorFlow's V2 checkpoints written by symflow (io::write_tf_bundle), and the checkpoint
// ops of TensorFlow's Saver graphs (SaveV2, RestoreV2): a graph TensorFlow 2.21's
// tf.compat.v1 wrote with its Saver (tests/data/tf_saver/make_files.py) restores its
// variables from TensorFlow's checkpoint by running the Saver's own restore op, and saves
// them by running its save op, and TensorFlow's values come out.
#include <doctest/doctest.h>

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <symflow/io/checkpoint_bundle.hpp>
#include <symflow/symflow.hpp>

#include "../test_util.hpp"

namespace symflow_test_io_tf_saver_ops_test {

namespace tf = symflow;
namespace fs = std::filesystem;

const std::string kDir = std::string(SYMFLOW_SOURCE_DIR) + "/tests/data/tf_saver/";

using symflow::test::TempDir;

tf::Value strings(std::vector<std::string> s) {
  const auto n = static_cast<std::int64_t>(s.size());
  return tf::Value::from_vector(s, {n});
}

TEST_CASE("tf_saver: write_tf_bundle writes a TensorFlow checkpoint that reads back") {
  TempDir dir("tf_saver_bundle");
  const std::string prefix = dir / "ckpt";
  const std::vector<std::pair<std::string, tf::Value>> tensors = {
      {"w", tf::Value({{1.5f, -2.0f}, {0.25f, 8.0f}})},
      {"b/bias", tf::Value(3.0)},
      {"step", tf::Value(std::int64_t{42})},
      {"mask", tf::Value({true, false, true})},
      {"names", strings({"a", std::string("b\0c", 3), "", "\xc3\xa9"})},
      {"title", tf::Value("hello")},
      {"empty", tf::Value(tf::DType::int32, {0, 3})},
  };
  tf::io::write_tf_bundle(prefix, tensors);
  CHECK(fs::exists(prefix + ".index"));
  CHECK(fs::exists(prefix + ".data-00000-of-00001"));
  tf::io::BundleReader reader(prefix);
  CHECK(reader.is_tensorflow_format());
  CHECK(reader.entries().size() == tensors.size());
  for (const auto& [name_key, value] : tensors) {
    const auto& name = name_key;  // clang 14: no structured binding in CAPTURE
    CAPTURE(name);
    CHECK(reader.read(name) == value);
  }
  // Names sort bytewise, as TensorFlow's table needs; a duplicate is refused.
  CHECK(reader.entries().begin()->first == "b/bias");
  CHECK_THROWS_WITH_AS(
      tf::io::write_tf_bundle(dir / "dup", {{"a", tf::Value(1)}, {"a", tf::Value(2)}}),
      "Adding duplicate key: a", tf::InvalidArgumentError);
}

TEST_CASE("tf_saver: SaveV2 and RestoreV2 round-trip every dtype, and say what is wrong") {
  TempDir dir("tf_saver_ops");
  tf::Graph g;
  auto guard = g.as_default();
  auto prefix = tf::placeholder<std::string>(tf::Shape{}, "prefix");
  auto names = tf::constant({"f", "s", "i"});
  auto slices = tf::constant({"", "", ""});
  auto save = tf::save_v2(
      prefix, names, slices,
      {tf::constant({1.5f, 2.5f}), tf::constant({"x", "yz"}), tf::constant(std::int64_t{7})});
  auto restored =
      tf::restore_v2(prefix, names, slices, {tf::float32, tf::string, tf::int64}, "restore");
  CHECK(save.type() == "SaveV2");
  CHECK(restored.size() == 3);
  CHECK(restored[1].dtype() == tf::string);
  CHECK_FALSE(restored[0].shape().has_rank());
  const std::string path = dir / "sub/ckpt";  // SaveV2 makes the folder, as TensorFlow's does
  tf::Session sess(g);
  sess.run(save, {{prefix, tf::Value(path)}});
  const auto out = sess.run(std::vector<tf::Fetch>(restored.begin(), restored.end()),
                            {{prefix, tf::Value(path)}});
  CHECK(out[0] == tf::Value({1.5f, 2.5f}));
  CHECK(out[1] == strings({"x", "yz"}));
  CHECK(out[2] == tf::Value(std::int64_t{7}));

  auto wrong_type = tf::restore_v2(prefix, tf::constant({"f"}), tf::constant({""}), {tf::int32});
  CHECK_THROWS_WITH_AS(sess.run(wrong_type[0], {{prefix, tf::Value(path)}}),
                       doctest::Contains("tensor_name = f; expected dtype int32 does not equal "
                                         "original dtype float"),
                       tf::InvalidArgumentError);
  auto missing = tf::restore_v2(prefix, tf::constant({"nope"}), tf::constant({""}), {tf::float32});
  CHECK_THROWS_WITH_AS(sess.run(missing[0], {{prefix, tf::Value(path)}}),
                       doctest::Contains("Key nope not found in checkpoint"), tf::NotFoundError);
  // A slice spec reads part of a tensor saved whole, as TensorFlow's RestoreV2 does.
  auto sliced = tf::restore_v2(prefix, tf::constant({"f"}), tf::constant({"2 1,1"}), {tf::float32});
  CHECK(sess.run(sliced[0], {{prefix, tf::Value(path)}}) == tf::Value({2.5f}));
  auto bad_shape =
      tf::restore_v2(prefix, tf::constant({"f"}), tf::constant({"3 0,1"}), {tf::float32});
  CHECK_THROWS_WITH_AS(sess.run(bad_shape[0], {{prefix, tf::Value(path)}}),
                       doctest::Contains("tensor_name = f; shape in shape_and_slice spec [3] "
                                         "does not match the shape stored in checkpoint: [2]"),
                       tf::InvalidArgumentError);
  auto bad_spec =
      tf::restore_v2(prefix, tf::constant({"f"}), tf::constant({"2 0,1:-"}), {tf::float32});
  CHECK_THROWS_WITH_AS(sess.run(bad_spec[0], {{prefix, tf::Value(path)}}),
                       doctest::Contains("Bad shape_and_slice specification '2 0,1:-': its slice "
                                         "has 2 extents for 1 dims"),
                       tf::InvalidArgumentError);
  CHECK_THROWS_WITH_AS(
      sess.run(out.empty() ? restored[0] : restored[0], {{prefix, tf::Value(dir / "absent")}}),
      doctest::Contains("Failed to find any matching files for"), tf::NotFoundError);
  // The graph checks what it can before anything runs.
  CHECK_THROWS_AS(tf::save_v2(prefix, names, slices, {tf::constant(1.0f)}), tf::ValueError);
  CHECK_THROWS_AS(tf::restore_v2(tf::constant(1.0f), names, slices, {tf::float32}), tf::TypeError);
  CHECK_THROWS_WITH_AS(tf::sharded_filename(prefix, tf::constant(std::int64_t{0}), tf::constant(1)),
                       doctest::Contains("Value passed to parameter 'shard' has DataType int64 "
                                         "not in list of allowed values: int32"),
                       tf::TypeError);
  auto shard_name = tf::sharded_filename(prefix, tf::constant(1), tf::constant(3));
  CHECK(sess.run(shard_name, {{prefix, tf::Value("p")}}).scalar<std::string>() ==
        "p-00001-of-00003");
}

TEST_CASE("tf_saver: TensorFlow's Saver graph restores and saves through its own ops") {
  tf::Graph g;
  tf::import_graph_def(tf::read_graph(kDir + "graph.pb"), {.name = ""}, g);
  CHECK(g.get_operation_by_name("save/RestoreV2").type() == "RestoreV2");
  CHECK(g.get_operation_by_name("save/SaveV2").type() == "SaveV2");
  tf::Session sess(g);
  const tf::Output filename = g.get_tensor_by_name("save/Const:0");
  const tf::Output y = g.get_tensor_by_name("y:0");
  const tf::Output x = g.get_tensor_by_name("x:0");
  // saver.restore(sess, "model"): run saver_def.restore_op_name with the prefix fed to
  // saver_def.filename_tensor_name. TF: w = [3, 4], b = -2, y(x = [1, 2]) = [1, 6].
  sess.run(g.get_operation_by_name("save/restore_all"), {{filename, tf::Value(kDir + "model")}});
  CHECK(sess.run(y, {{x, tf::Value({1.0f, 2.0f})}}) == tf::Value({1.0f, 6.0f}));
  CHECK(sess.run(g.get_tensor_by_name("label:0")).scalar<std::string>() == "trained");

  // saver.save(sess, path): run saver_def.save_tensor_name; the checkpoint is
  // TensorFlow's, with the three variables under their names.
  TempDir dir("tf_saver_graph");
  const std::string path = dir / "again";
  const tf::Value written =
      sess.run(g.get_tensor_by_name("save/control_dependency:0"), {{filename, tf::Value(path)}});
  CHECK(written.scalar<std::string>() == path);
  tf::io::BundleReader reader(path);
  CHECK(reader.is_tensorflow_format());
  CHECK(reader.read("w") == tf::Value({3.0f, 4.0f}));
  CHECK(reader.read("b") == tf::Value(-2.0f));
  CHECK(reader.read("label") == tf::Value("trained"));
  // The same bytes as TensorFlow's own checkpoint of these values, index and data alike.
  CHECK(tf::io::read_file(path + ".data-00000-of-00001") ==
        tf::io::read_file(kDir + "model.data-00000-of-00001"));
  CHECK(tf::io::read_file(path + ".index") == tf::io::read_file(kDir + "model.index"));
}

TEST_CASE("tf_saver: a sharded Saver graph merges its shard into TensorFlow's checkpoint") {
  tf::Graph g;
  tf::import_graph_def(tf::read_graph(kDir + "sharded_graph.pb"), {.name = ""}, g);
  CHECK(g.get_operation_by_name("save/ShardedFilename").type() == "ShardedFilename");
  CHECK(g.get_operation_by_name("save/MergeV2Checkpoints").type() == "MergeV2Checkpoints");
  CHECK(g.get_operation_by_name("save/Select").type() == "Select");  // of two strings
  tf::Session sess(g);
  const tf::Output filename = g.get_tensor_by_name("save/Const:0");
  // TF: w = [5, 6], b = 1, y(x = [1, 2]) = [6, 13].
  sess.run(g.get_operation_by_name("save/restore_all"), {{filename, tf::Value(kDir + "sharded")}});
  CHECK(sess.run(g.get_tensor_by_name("y:0"),
                 {{g.get_tensor_by_name("x:0"), tf::Value({1.0f, 2.0f})}}) ==
        tf::Value({6.0f, 13.0f}));
  TempDir dir("tf_saver_sharded");
  const std::string path = dir / "merged";
  CHECK(sess.run(g.get_tensor_by_name("save/Identity:0"), {{filename, tf::Value(path)}})
            .scalar<std::string>() == path);
  // The shard went to path_temp/part-00000-of-00001 first; merged, only TensorFlow's
  // files are left, and the temporary folder is gone.
  CHECK(fs::exists(path + ".index"));
  CHECK(fs::exists(path + ".data-00000-of-00001"));
  CHECK_FALSE(fs::exists(path + "_temp"));
  CHECK(tf::io::read_file(path + ".data-00000-of-00001") ==
        tf::io::read_file(kDir + "sharded.data-00000-of-00001"));
  CHECK(tf::io::read_file(path + ".index") == tf::io::read_file(kDir + "sharded.index"));

  // Two one-shard checkpoints merge into two shards; a name in both is refused.
  tf::io::write_tf_bundle(dir / "a", {{"x", tf::Value(1.0f)}});
  tf::io::write_tf_bundle(dir / "b", {{"y", tf::Value("two")}});
  tf::io::merge_tf_bundles({dir / "a", dir / "b"}, dir / "both");
  tf::io::BundleReader both(dir / "both");
  CHECK(both.num_shards() == 2);
  CHECK(both.read("x") == tf::Value(1.0f));
  CHECK(both.read("y") == tf::Value("two"));
  CHECK_FALSE(fs::exists(dir / "a.index"));
  tf::io::write_tf_bundle(dir / "c", {{"x", tf::Value(1.0f)}});
  tf::io::write_tf_bundle(dir / "d", {{"x", tf::Value(2.0f)}});
  CHECK_THROWS_WITH_AS(tf::io::merge_tf_bundles({dir / "c", dir / "d"}, dir / "cd"),
                       doctest::Contains("Duplicate tensor keyed by x"), tf::InvalidArgumentError);
  CHECK(fs::exists(dir / "c.index"));  // nothing moved
  // A source whose data file went missing is named.
  tf::io::write_tf_bundle(dir / "e", {});
  fs::remove(dir / "e.data-00000-of-00001");
  CHECK_THROWS_WITH_AS(tf::io::merge_tf_bundles({dir / "e"}, dir / "ee"),
                       doctest::Contains("e.data-00000-of-00001"), tf::NotFoundError);
}

TEST_CASE(
    "tf_saver: shape_and_slice specs parse as TensorFlow writes them, and say what is wrong") {
  const auto spec = tf::io::tf_bundle::parse_shape_and_slice("5 3 3,2:-");
  CHECK(spec.shape == tf::Dims{5, 3});
  CHECK(spec.start == tf::Dims{3, 0});
  CHECK(spec.length == tf::Dims{2, 3});
  CHECK(spec.slice[1].length == std::nullopt);  // "-" stays a full extent: keys tell it apart
  CHECK(tf::io::tf_bundle::slice_spec_string(spec) == "5 3 3,2:-");
  // TensorFlow's own spelling of a full extent, "0,-1", is one too.
  CHECK(tf::io::tf_bundle::parse_shape_and_slice("4 0,-1").slice[0].length == std::nullopt);
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"5", "at least one dim and a slice"},
      {"5 x -", "the dim 'x' is not an integer"},
      {"-5 -", "the dim -5 is negative"},
      {"5 1", "the extent '1' is neither '-' nor 'start,length'"},
      {"5 1,0", "needs a start >= 0 and a length > 0"},
      {"5 -1,2", "needs a start >= 0 and a length > 0"},
      {"5 3,x", "the length 'x' is not an integer"},
      {"5 3 -", "its slice has 1 extents for 2 dims"},
      {"5 4,2", "extent 0 [4, 4+2) is outside the dim of 5"},
  };
  for (const auto& [text_key, message] : bad) {
    const auto& text = text_key;  // clang 14: no structured binding in CAPTURE
    CAPTURE(text);
    CHECK_THROWS_WITH_AS(tf::io::tf_bundle::parse_shape_and_slice(text),
                         doctest::Contains(message.c_str()), tf::InvalidArgumentError);
  }
}

TEST_CASE("tf_saver: partitioned tensors are written as TensorFlow writes them, and merge") {
  TempDir dir("tf_saver_partitioned");
  namespace io = tf::io;
  const auto slice = [](const char* spec) { return io::tf_bundle::parse_shape_and_slice(spec); };
  // [4, 3] int32 "p" holding 0..11, saved as its columns [0, 2) and [2, 3).
  const tf::Value left({{0, 1}, {3, 4}, {6, 7}, {9, 10}});
  const tf::Value right({{2}, {5}, {8}, {11}});
  io::write_tf_bundle_as_given(dir / "p", {{"p", right, slice("4 3 -:2,1")},
                                           {"q", tf::Value(7.5), {}},
                                           {"p", left, slice("4 3 -:0,2")}});
  io::BundleReader reader(dir / "p");
  REQUIRE(reader.entries().size() == 2);
  const io::BundleEntry& p = reader.entries().at("p");
  CHECK(p.shape == tf::Dims{4, 3});
  CHECK(p.slices.size() == 2);
  CHECK(reader.slice_entries().size() == 2);
  CHECK(reader.read("p") == tf::Value({{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {9, 10, 11}}));
  CHECK(reader.read_slice("p", {1, 1}, {2, 2}) == tf::Value({{4, 5}, {7, 8}}));
  CHECK(reader.read("q") == tf::Value(7.5));
  // The data file holds the tensors in the order given, as TensorFlow's SaveV2 writes them.
  CHECK(reader.slice_entries().at(io::tf_bundle::slice_key("p", slice("4 3 -:2,1").slice)).offset ==
        0);
  CHECK(reader.entries().at("q").offset == right.nbytes());
  CHECK(tf::train::list_variables(dir / "p") ==
        std::vector<std::pair<std::string, tf::Dims>>{{"p", {4, 3}}, {"q", {}}});

  // What the spec and the value say must agree, and the slices of one tensor too.
  const auto refused = [&](std::vector<io::TensorToSave> tensors, const char* message) {
    CAPTURE(message);
    CHECK_THROWS_WITH_AS(io::write_tf_bundle_as_given(dir / "bad", tensors),
                         doctest::Contains(message), tf::InvalidArgumentError);
  };
  refused({{"p", left, slice("4 3 -:0,1")}},
          "Cannot save the slice '4 3 -:0,1' of 'p': the value has shape [4,2], the slice [4,1]");
  refused({{"p", left, slice("4 3 -:0,2")}, {"p", right, slice("4 3 -:1,1")}},
          "it overlaps another slice of it");
  refused({{"p", left, slice("4 3 -:0,2")},
           {"p", tf::Value({{2.0}, {5.0}, {8.0}, {11.0}}), slice("4 3 -:2,1")}},
          "as float64 [4,3]: another slice of it is int32 [4,3]");
  refused({{"p", left, slice("4 3 -:0,2")}, {"p", right, slice("4 4 -:2,1")}},
          "another slice of it is int32 [4,3]");
  refused({{"p", tf::Value(1), {}}, {"p", right, slice("4 3 -:2,1")}}, "is also saved whole");
  refused({{"p", right, slice("4 3 -:2,1")}, {"p", tf::Value(1), {}}}, "Adding duplicate key: p");
  CHECK_FALSE(fs::exists(dir / "bad.index"));

  // Two checkpoints, each with one slice of "p", merge into one that holds all of it.
  io::write_tf_bundle_as_given(dir / "a", {{"p", left, slice("4 3 -:0,2")}});
  io::write_tf_bundle_as_given(dir / "b",
                               {{"p", right, slice("4 3 -:2,1")}, {"r", tf::Value(1), {}}});
  CHECK_THROWS_WITH_AS(io::BundleReader(dir / "a").read("p"),
                       doctest::Contains("its slices hold 8 of its 12 elements"),
                       tf::DataLossError);
  io::merge_tf_bundles({dir / "a", dir / "b"}, dir / "ab");
  io::BundleReader merged(dir / "ab");
  CHECK(merged.num_shards() == 2);
  CHECK(merged.read("p") == tf::Value({{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {9, 10, 11}}));
  CHECK(merged.read("r") == tf::Value(1));
  io::write_tf_bundle_as_given(dir / "c", {{"p", left, slice("4 3 -:0,2")}});
  io::write_tf_bundle_as_given(
      dir / "d", {{"p", tf::Value({{1, 2}, {3, 4}, {5, 6}, {7, 8}}), slice("4 4 -:2,2")}});
  CHECK_THROWS_WITH_AS(io::merge_tf_bundles({dir / "c", dir / "d"}, dir / "cd"),
                       doctest::Contains("The partitioned tensor 'p' of"),
                       tf::InvalidArgumentError);
}

TEST_CASE("tf_saver: a partitioned variable restores and saves through TensorFlow's Saver ops") {
  // tests/data/tf_partitioned/make_files.py: "w" [5, 3] split by fixed_size_partitioner(2)
  // into w/part_0 [3, 3] and w/part_1 [2, 3]; TF saved w = arange(15) * 0.5 - 3 reshaped,
  // b = [1, 2, 3], and computed y(x = [[1, 0, 2, 0, -1]]) = [[-5, -3, -1]].
  const std::string data = std::string(SYMFLOW_SOURCE_DIR) + "/tests/data/tf_partitioned/";
  tf::Graph g;
  tf::import_graph_def(tf::read_graph(data + "graph.pb"), {.name = ""}, g);
  const tf::Value specs =
      tf::Value::from_vector(std::vector<std::string>{"", "5 3 0,3:0,3", "5 3 3,2:0,3"}, {3});
  tf::Session sess(g);
  CHECK(sess.run(g.get_tensor_by_name("save/SaveV2/shape_and_slices:0")) == specs);
  const tf::Output filename = g.get_tensor_by_name("save/Const:0");
  sess.run(g.get_operation_by_name("save/restore_all"), {{filename, tf::Value(data + "model")}});
  std::vector<float> w(15);
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(i) * 0.5f - 3.0f;
  CHECK(sess.run(g.get_tensor_by_name("w/part_0:0")) ==
        tf::Value::from_vector(std::vector<float>(w.begin(), w.begin() + 9), {3, 3}));
  CHECK(sess.run(g.get_tensor_by_name("w/part_1:0")) ==
        tf::Value::from_vector(std::vector<float>(w.begin() + 9, w.end()), {2, 3}));
  CHECK(sess.run(g.get_tensor_by_name("y:0"),
                 {{g.get_tensor_by_name("x:0"), tf::Value({{1.0f, 0.0f, 2.0f, 0.0f, -1.0f}})}}) ==
        tf::Value({{-5.0f, -3.0f, -1.0f}}));

  // Saved again by the graph's SaveV2: TensorFlow's bytes, index and data alike.
  TempDir dir("tf_saver_partitioned_graph");
  const std::string path = dir / "again";
  sess.run(g.get_tensor_by_name("save/control_dependency:0"), {{filename, tf::Value(path)}});
  CHECK(tf::io::read_file(path + ".data-00000-of-00001") ==
        tf::io::read_file(data + "model.data-00000-of-00001"));
  CHECK(tf::io::read_file(path + ".index") == tf::io::read_file(data + "model.index"));
  CHECK(tf::train::load_checkpoint(path).get_tensor("w") == tf::Value::from_vector(w, {5, 3}));
}

}  // namespace symflow_test_io_tf_saver_ops_test
