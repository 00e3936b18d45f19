// Strings in TensorFlow's own files: a V2 checkpoint holding string variables and a
// binary GraphDef of string ops, both written by TensorFlow 2.21's tf.compat.v1
// (tests/data/tf_strings/make_files.py, which prints the values checked here).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <symflow/io/tensor_bundle_tf.hpp>
#include <symflow/symflow.hpp>

#include "../test_util.hpp"

namespace symflow_test_io_tf_strings_test {

namespace tf = symflow;
namespace fs = std::filesystem;

const std::string kDir = std::string(SYMFLOW_SOURCE_DIR) + "/tests/data/tf_strings/";
const std::string kCheckpoint = kDir + "strings";

std::vector<std::string> strings_of(const tf::Value& v) { return v.to_vector<std::string>(); }

TEST_CASE("tf_strings: string variables of a TensorFlow checkpoint read as TensorFlow reads them") {
  tf::train::CheckpointReader reader(kCheckpoint);
  CHECK(reader.get_variable_to_dtype_map().at("words") == tf::string);
  CHECK(reader.get_variable_to_shape_map().at("words") == tf::Dims{4});
  // TF: [b'a', b'bc\x00d', b'', b'\xc3\xa9t\xc3\xa9'], b'hello', 2.5
  const tf::Value words = reader.get_tensor("words");
  CHECK(strings_of(words) ==
        std::vector<std::string>{"a", std::string("bc\0d", 4), "", "\xc3\xa9t\xc3\xa9"});
  CHECK(tf::repr(words) ==
        "array([b'a', b'bc\\x00d', b'', b'\\xc3\\xa9t\\xc3\\xa9'], dtype=object)");
  CHECK(tf::to_string(reader.get_tensor("title")) == "b'hello'");
  CHECK(reader.get_tensor("number").scalar<float>() == 2.5f);
}

TEST_CASE("tf_strings: a damaged string tensor is a DataLossError, at every byte and length") {
  const symflow::test::TempDir dir("tf_strings");
  const std::string data = kCheckpoint + ".data-00000-of-00001";
  std::string bytes;
  {
    std::ifstream in(data, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  REQUIRE(bytes.size() == 32);
  const std::string copy = dir / "strings";
  fs::copy_file(kCheckpoint + ".index", copy + ".index");
  auto write_data = [&](const std::string& b) {
    std::ofstream out(copy + ".data-00000-of-00001", std::ios::binary | std::ios::trunc);
    out << b;
  };
  // "words" is the last tensor (bytes 14 to 31); "title" holds bytes 4 to 13.
  for (std::size_t i = 4; i < bytes.size(); ++i) {
    CAPTURE(i);
    std::string flipped = bytes;
    flipped[i] = static_cast<char>(flipped[i] ^ 0x20);
    write_data(flipped);
    tf::train::CheckpointReader reader(copy);
    CHECK_THROWS_AS(reader.get_tensor(i < 14 ? "title" : "words"), tf::DataLossError);
  }
  for (std::size_t cut = 14; cut < bytes.size(); ++cut) {
    CAPTURE(cut);
    write_data(bytes.substr(0, cut));
    CHECK_THROWS_AS(tf::train::CheckpointReader{copy}, tf::DataLossError);
  }

  // The decoder alone, past the checksum: lengths that promise more than there is.
  const std::string words = bytes.substr(14);
  CHECK(tf::io::tf_bundle::decode_string_tensor(words, 4, std::nullopt, "w").size() == 4);
  CHECK_THROWS_WITH_AS(tf::io::tf_bundle::decode_string_tensor(words, 3, std::nullopt, "w"),
                       "Corrupt string tensor w: the checksum of the lengths does not match",
                       tf::DataLossError);
  CHECK_THROWS_WITH_AS(tf::io::tf_bundle::decode_string_tensor(words + "x", 4, std::nullopt, "w"),
                       "Corrupt string tensor w: 1 bytes follow the last element",
                       tf::DataLossError);
  CHECK_THROWS_AS(
      tf::io::tf_bundle::decode_string_tensor(words.substr(0, 17), 4, std::nullopt, "w"),
      tf::DataLossError);
  CHECK_THROWS_AS(tf::io::tf_bundle::decode_string_tensor("\xff\xff", 1, std::nullopt, "w"),
                  tf::DataLossError);
}

TEST_CASE("tf_strings: a binary GraphDef of string ops from TensorFlow runs with its values") {
  tf::Graph g;
  tf::import_graph_def(tf::read_graph(kDir + "graph.pb"), {.name = ""}, g);
  CHECK(g.get_operation_by_name("text").type() == "StringJoin");
  CHECK(g.get_operation_by_name("long_names").type() == "StaticRegexFullMatch");
  tf::Session sess(g);
  const tf::FeedDict feeds = {
      {g.get_tensor_by_name("x:0"), tf::Value({1.5f, -0.25f})},
      {g.get_tensor_by_name("names:0"), tf::Value::from_vector<std::string>({"ab", "width"}, {2})}};
  // TF: [b'ab=1.50', b'width=-0.25'], [False, True], [7, 11]
  const std::vector<tf::Value> out =
      sess.run({g.get_tensor_by_name("text:0"), g.get_tensor_by_name("lengths:0")}, feeds);
  CHECK(strings_of(out[0]) == std::vector<std::string>{"ab=1.50", "width=-0.25"});
  CHECK(out[1].to_vector<std::int32_t>() == std::vector<std::int32_t>{7, 11});
#if defined(SYMFLOW_HAVE_RE2) && SYMFLOW_HAVE_RE2
  CHECK(sess.run(g.get_tensor_by_name("long_names:0"), feeds).to_vector<bool>() ==
        std::vector<bool>{false, true});
#else
  CHECK_THROWS_AS(sess.run(g.get_tensor_by_name("long_names:0"), feeds), tf::UnimplementedError);
#endif
}

}  // namespace symflow_test_io_tf_strings_test
