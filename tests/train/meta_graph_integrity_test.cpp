// A symflow .meta is checked, not trusted: its "checksum" member covers every name and
// value, so any single bit flip or truncation of a saved file is a DataLossError naming the
// file (never a different graph, never another exception type); every number the reader
// takes is an integer where one is expected and in range for its field; files written
// before the checksum existed still read.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <symflow/io/graph_def_json.hpp>
#include <symflow/symflow.hpp>
#include <symflow/train/import_meta_graph.hpp>
#include <symflow/train/meta_graph.hpp>
#include <symflow/train/meta_graph_json.hpp>
#include <symflow/train/saver.hpp>

#include "../test_util.hpp"

namespace symflow_test_train_meta_graph_integrity_test {

namespace tf = symflow;
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

fs::path fresh_dir(const std::string& name) {
  return tf::test::fresh_dir("meta_graph_integrity_test_" + name);
}

// A small linear model trained for a few steps and saved: the .meta holds constants,
// attrs of every kind, a SaverDef and collections of nodes, strings, int64s and floats.
std::string save_trained_model(const fs::path& dir) {
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder(tf::float32, {-1, 2}, "x");
  auto y = tf::placeholder(tf::float32, {-1, 1}, "y");
  auto w = tf::get_variable("w", {2, 1}, {.initializer = tf::constant_initializer(0.1f)});
  auto b = tf::get_variable("b", {1}, {.initializer = tf::zeros_initializer()});
  auto pred = tf::identity(tf::matmul(x, w) + b, "pred");
  auto loss = tf::reduce_mean(tf::square(pred - y), tf::Axis(), false, "loss");
  auto step = tf::train::get_or_create_global_step();
  auto train = tf::train::GradientDescentOptimizer(0.05).minimize(
      loss, {.global_step = step, .name = "train"});
  tf::add_to_collection("training_collection", train);
  tf::add_to_collection("training_collection", pred);
  tf::add_to_collection("strings", "first");
  tf::add_to_collection("ints", std::int64_t{-3});
  tf::add_to_collection("ints", std::int64_t{1} << 60);
  tf::add_to_collection("floats", 0.25);
  auto init = tf::global_variables_initializer();
  tf::train::Saver saver({.max_to_keep = 3});
  tf::Session sess;
  sess.run(init);
  const tf::Value xs = {{1.0f, 2.0f}, {2.0f, 1.0f}};
  const tf::Value ys = {{5.0f}, {4.0f}};
  for (int i = 0; i < 3; ++i) sess.run(train, {{x, xs}, {y, ys}});
  return saver.save(sess, (dir / "model.ckpt").string(), step) + ".meta";
}

// The canonical text of a MetaGraphDef: two are the same graph when these are equal.
std::string canonical(const tf::train::MetaGraphDef& m) {
  return tf::train::meta_graph_to_json(m).dump();
}

// What reading damaged bytes gave, over many tries.
using Outcomes = tf::test::DamageOutcomes;

void read_damaged(const std::string& bytes, const std::string& source, const std::string& reference,
                  const std::string& damage, Outcomes& out) {
  out.attempt(source, damage,
              [&] { return canonical(tf::train::parse_meta_graph(bytes, source)) == reference; });
}

void check_outcomes(const Outcomes& out) { out.check(); }

void write_text(const std::string& file, const std::string& text) {
  std::ofstream(file, std::ios::binary | std::ios::trunc) << text;
}

}  // namespace

TEST_CASE("train/meta_graph_integrity: a saved .meta carries a checksum that its reader checks") {
  const fs::path dir = fresh_dir("checksum");
  const std::string file = save_trained_model(dir);
  const std::string text = tf::test::read_file(file);
  json j = json::parse(text);
  REQUIRE(j.contains("checksum"));
  const std::string checksum = j.at("checksum").get<std::string>();
  CHECK(checksum.starts_with("crc32c:"));
  CHECK(checksum.size() == 15);
  // The checksum is the CRC32C of the compact dump without it.
  j.erase("checksum");
  CHECK(tf::io::json_checksum(j) == checksum);
  char hex[9];
  std::snprintf(hex, sizeof hex, "%08x", static_cast<unsigned>(tf::io::crc32c(j.dump())));
  CHECK(checksum == std::string("crc32c:") + hex);

  const tf::train::MetaGraphDef original = tf::train::read_meta_graph_file(file);
  REQUIRE(original.saver_def.has_value());
  CHECK(original.saver_def->max_to_keep == 3);

  // A file written before the checksum existed (no member) reads as the same graph.
  write_text(file, j.dump());
  CHECK(canonical(tf::train::read_meta_graph_file(file)) == canonical(original));
  // Indented (as_text) files carry the same checksum: whitespace is not covered.
  write_text(file, tf::train::serialize_meta_graph_json(original, true));
  CHECK(json::parse(tf::test::read_file(file)).at("checksum") == checksum);
  CHECK(canonical(tf::train::read_meta_graph_file(file)) == canonical(original));
  {
    tf::Graph g;
    auto guard = g.as_default();
    auto saver = tf::train::import_meta_graph(file);
    REQUIRE(saver.has_value());
    CHECK(g.get_operation_by_name("pred").type() == "Identity");
  }

  // A change that leaves valid JSON and a valid graph: the checksum catches it.
  std::string changed = text;
  const std::size_t at = changed.find("\"max_to_keep\":3");
  REQUIRE(at != std::string::npos);
  changed.replace(at, 15, "\"max_to_keep\":4");
  write_text(file, changed);
  json content = json::parse(changed);
  content.erase("checksum");
  CHECK_THROWS_WITH_AS(tf::train::read_meta_graph_file(file),
                       ("Cannot parse file " + file + ": " + file + ": checksum mismatch: " +
                        "the file records " + checksum + " but its content has " +
                        tf::io::json_checksum(content) + "; the file is damaged")
                           .c_str(),
                       tf::DataLossError);
  // So is damage to the checksum itself, or a member that is not a checksum.
  for (const std::string& bad :
       std::vector<std::string>{"\"crc32c:0000000g\"", "\"crc32c:123\"", "\"md5:12345678\"", "7"}) {
    CAPTURE(bad);
    std::string damaged = text;
    damaged.replace(damaged.find("\"" + checksum + "\""), checksum.size() + 2, bad);
    write_text(file, damaged);
    CHECK_THROWS_WITH_AS(tf::train::read_meta_graph_file(file),
                         doctest::Contains((file +
                                            ": field \"checksum\": expected "
                                            "\"crc32c:<8 hex digits>\", got " +
                                            bad)
                                               .c_str()),
                         tf::DataLossError);
  }
  // Bytes that are not JSON at all.
  write_text(file, "{\"format\": \"symflow.meta_graph\", ");
  CHECK_THROWS_WITH_AS(tf::train::read_meta_graph_file(file),
                       ("Cannot parse file " + file + ": " + file +
                        ": not valid JSON; expected a MetaGraphDef written by export_meta_graph "
                        "or Saver::save, or TensorFlow's binary or text MetaGraphDef")
                           .c_str(),
                       tf::DataLossError);
}

TEST_CASE("train/meta_graph_integrity: every bit flip and every truncation of a .meta is caught") {
  const fs::path dir = fresh_dir("flips");
  const std::string file = save_trained_model(dir);
  const std::string text = tf::test::read_file(file);
  const std::string reference = canonical(tf::train::read_meta_graph_file(file));
  REQUIRE(text.size() > 4096);

  // Every bit of the first KiB (the checksum, the header, the first node and its attrs),
  // then a deterministic sample of 3,000 bits of the rest: every flip of the whole file
  // (about 107,000) takes minutes, and each flip costs a parse.
  constexpr std::size_t kWhole = 1024;
  std::vector<std::size_t> bits;
  for (std::size_t bit = 0; bit < kWhole * 8; ++bit) bits.push_back(bit);
  const std::size_t rest = text.size() * 8 - kWhole * 8;
  std::uint64_t state = 0x9E3779B97F4A7C15u;  // splitmix64: the same sample every run
  for (int i = 0; i < 3000; ++i) {
    state += 0x9E3779B97F4A7C15u;
    std::uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    bits.push_back(kWhole * 8 + (z ^ (z >> 31)) % rest);
  }
  Outcomes flips;
  std::string damaged = text;
  for (std::size_t bit : bits) {
    const std::size_t byte = bit / 8;
    const auto mask = static_cast<char>(1u << (bit % 8));
    damaged[byte] ^= mask;
    read_damaged(damaged, file, reference, "bit " + std::to_string(bit), flips);
    damaged[byte] ^= mask;
  }
  check_outcomes(flips);
  CHECK(flips.tries == static_cast<int>(kWhole * 8 + 3000));
  CHECK(flips.data_loss > 0);

  // Cut at every length: no proper prefix of the file is a MetaGraphDef.
  Outcomes cuts;
  for (std::size_t n = 0; n < text.size(); ++n)
    read_damaged(text.substr(0, n), file, reference, "cut at " + std::to_string(n), cuts);
  check_outcomes(cuts);
  CHECK(cuts.identical == 0);

  // The same through the file: the first bytes decide the encoding, so their flips also
  // reach TensorFlow's binary and text readers.
  Outcomes through_file;
  for (std::size_t bit = 0; bit < 16; ++bit) {
    damaged = text;
    damaged[bit / 8] ^= static_cast<char>(1u << (bit % 8));
    write_text(file, damaged);
    ++through_file.tries;
    try {
      (void)tf::train::read_meta_graph_file(file);
      ++through_file.accepted_different;
    } catch (const tf::DataLossError& e) {
      if (e.message().starts_with("Cannot parse file " + file))
        ++through_file.data_loss;
      else
        ++through_file.unnamed_data_loss;
    } catch (const std::exception&) {
      ++through_file.other_error;
    }
  }
  check_outcomes(through_file);
}

TEST_CASE("train/meta_graph_integrity: numbers must be integers in range for their field") {
  const fs::path dir = fresh_dir("numbers");
  const std::string file = save_trained_model(dir);
  const json original = json::parse(tf::test::read_file(file));

  // Each damaged document is written with a valid checksum, so that the number check,
  // not the checksum, has to catch it.
  struct Case {
    std::string name;
    json::json_pointer field;
    json value;
    std::string message;
  };
  const std::string int32 = "[0, 2147483647]";
  const std::string int64 = "[-9223372036854775808, 9223372036854775807]";
  const std::vector<Case> cases = {
      {"version 1.9", json::json_pointer("/version"), 1.9,
       "field \"version\": expected an integer in " + int32 + ", got 1.9"},
      {"version 1e300", json::json_pointer("/version"), 1e300,
       "field \"version\": expected an integer in " + int32 + ", got 1e+300"},
      {"version -1", json::json_pointer("/version"), -1,
       "field \"version\": expected an integer in " + int32 + ", got -1"},
      {"version 2^63", json::json_pointer("/version"), std::uint64_t{1} << 63,
       "field \"version\": expected an integer in " + int32 + ", got 9223372036854775808"},
      {"version string", json::json_pointer("/version"), "1",
       "field \"version\": expected an integer in " + int32 + ", got \"1\""},
      {"version true", json::json_pointer("/version"), true,
       "field \"version\": expected an integer in " + int32 + ", got true"},
      {"max_to_keep -5", json::json_pointer("/saver_def/max_to_keep"), -5,
       "field \"saver_def.max_to_keep\": expected an integer in " + int32 + ", got -5"},
      {"max_to_keep 1e300", json::json_pointer("/saver_def/max_to_keep"), 1e300,
       "field \"saver_def.max_to_keep\": expected an integer in " + int32 + ", got 1e+300"},
      {"max_to_keep 2^31", json::json_pointer("/saver_def/max_to_keep"), std::int64_t{1} << 31,
       "field \"saver_def.max_to_keep\": expected an integer in " + int32 + ", got 2147483648"},
      {"max_to_keep 2.5", json::json_pointer("/saver_def/max_to_keep"), 2.5,
       "field \"saver_def.max_to_keep\": expected an integer in " + int32 + ", got 2.5"},
      {"max_to_keep false", json::json_pointer("/saver_def/max_to_keep"), false,
       "field \"saver_def.max_to_keep\": expected an integer in " + int32 + ", got false"},
      {"saver version 3", json::json_pointer("/saver_def/version"), 3,
       "field \"saver_def.version\": expected an integer in [0, 2], got 3"},
      {"saver version 2.0", json::json_pointer("/saver_def/version"), 2.0,
       "field \"saver_def.version\": expected an integer in [0, 2], got 2.0"},
      {"sharded 1", json::json_pointer("/saver_def/sharded"), 1,
       "field \"saver_def.sharded\": expected true or false, got 1"},
      {"int64 2^63", json::json_pointer("/collection_def/ints/int64_list/value/1"),
       std::uint64_t{1} << 63,
       "field \"collection_def.ints.int64_list.value[1]\": expected an integer in " + int64 +
           ", got 9223372036854775808"},
      {"int64 1e300", json::json_pointer("/collection_def/ints/int64_list/value/0"), 1e300,
       "field \"collection_def.ints.int64_list.value[0]\": expected an integer in " + int64 +
           ", got 1e+300"},
      {"int64 1.5", json::json_pointer("/collection_def/ints/int64_list/value/0"), 1.5,
       "field \"collection_def.ints.int64_list.value[0]\": expected an integer in " + int64 +
           ", got 1.5"},
      {"int64 string", json::json_pointer("/collection_def/ints/int64_list/value/0"), "-3",
       "field \"collection_def.ints.int64_list.value[0]\": expected an integer in " + int64 +
           ", got \"-3\""},
      {"hours true", json::json_pointer("/saver_def/keep_checkpoint_every_n_hours"), true,
       "at \"saver_def\": expected a number or one of \"NaN\", \"Infinity\", \"-Infinity\", got "
       "true"},
      {"float true", json::json_pointer("/collection_def/floats/float_list/value/0"), true,
       "at \"collection_def.floats\": expected a number or one of \"NaN\", \"Infinity\", "
       "\"-Infinity\", got true"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    json damaged = original;
    damaged.erase("checksum");
    REQUIRE(damaged.contains(c.field));
    damaged[c.field] = c.value;
    tf::io::add_json_checksum(damaged);
    write_text(file, damaged.dump());
    CHECK_THROWS_WITH_AS(tf::train::read_meta_graph_file(file),
                         doctest::Contains(("Cannot parse file " + file + ": " + file).c_str()),
                         tf::DataLossError);
    CHECK_THROWS_WITH_AS(tf::train::read_meta_graph_file(file),
                         doctest::Contains(c.message.c_str()), tf::DataLossError);
  }

  // The values these fields may hold still read: the edges of each range.
  json edges = original;
  edges.erase("checksum");
  edges["saver_def"]["max_to_keep"] = 0;
  edges["saver_def"]["version"] = 1;
  edges["collection_def"]["ints"]["int64_list"]["value"] = json::array(
      {std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()});
  tf::io::add_json_checksum(edges);
  write_text(file, edges.dump());
  const tf::train::MetaGraphDef m = tf::train::read_meta_graph_file(file);
  CHECK(m.saver_def->max_to_keep == 0);
  CHECK(m.saver_def->version == 1);
  CHECK(std::get<tf::train::Int64List>(m.collection_def.at("ints")).value ==
        std::vector<std::int64_t>{std::numeric_limits<std::int64_t>::min(),
                                  std::numeric_limits<std::int64_t>::max()});
}

TEST_CASE("train/meta_graph_integrity: the fuzz corpus's JSON .meta regressions are caught") {
  // fuzz/corpus/meta_graph holds these inputs so that the fuzz target replays them too.
  const fs::path corpus = fs::path(SYMFLOW_SOURCE_DIR) / "fuzz/corpus/meta_graph";
  const std::string int32 = "expected an integer in [0, 2147483647], got ";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"039495e9cafff281dbd634e780ba486c870a4b8d", "field \"version\": " + int32 + "1.9"},
      {"c8d133dc0364686ddfce8307d091465b28eadd66",
       "field \"saver_def.max_to_keep\": " + int32 + "1e+300"},
      {"169c09c3184d17831180a7ad03b08610005160bf",
       "field \"collection_def.ints.int64_list.value[0]\": expected an integer in "
       "[-9223372036854775808, 9223372036854775807], got 1e+300"},
      {"c3884cd3b90bff185fd728148a01fff7ea4403aa", "checksum mismatch: the file records"},
      {"57e326bf78590f1f11d7ca0e6b333ed2dcc6f8d9",  // no checksum: an older file
       "field \"saver_def.max_to_keep\": " + int32 + "-5"},
  };
  for (const auto& [name_key, message] : cases) {
    const auto& name = name_key;  // clang 14: no structured binding inside CAPTURE
    CAPTURE(name);
    const std::string bytes = tf::test::read_file((corpus / name).string());
    CHECK_THROWS_WITH_AS(tf::train::parse_meta_graph(bytes, name),
                         doctest::Contains(("Cannot parse file " + name + ": " + name).c_str()),
                         tf::DataLossError);
    CHECK_THROWS_WITH_AS(tf::train::parse_meta_graph_json(bytes, name),
                         doctest::Contains(message.c_str()), tf::DataLossError);
  }
}

TEST_CASE("train/meta_graph_integrity: the checkpoint state file's timestamps must be numbers") {
  const fs::path dir = fresh_dir("state");
  const std::string file = (dir / "checkpoint").string();
  const std::string head = "model_checkpoint_path: \"model.ckpt-3\"\n";
  // TensorFlow 2's timestamps (seconds, with a fraction) are read and ignored.
  write_text(file, head + "all_model_checkpoint_timestamps: 1795325681.5\n" +
                       "last_preserved_timestamp: 1795325680\n");
  auto state = tf::train::get_checkpoint_state(dir.string());
  REQUIRE(state.has_value());
  CHECK(state->model_checkpoint_path == (dir / "model.ckpt-3").string());
  for (const std::string& bad : std::vector<std::string>{"nan", "1e999", "12abc", "\"1\"", ""}) {
    CAPTURE(bad);
    write_text(file, head + "last_preserved_timestamp: " + bad + "\n");
    CHECK_THROWS_WITH_AS(tf::train::get_checkpoint_state(dir.string()),
                         (file + ":2: field last_preserved_timestamp: expected a number of " +
                          "seconds, got '" + bad + "'")
                             .c_str(),
                         tf::DataLossError);
  }
}

TEST_CASE("train/meta_graph_integrity: a GraphDef JSON written with a checksum is checked") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::constant(tf::Value({1.0f, 2.0f}), "c");
  const tf::GraphDef def = g.as_graph_def();
  const std::string plain = tf::io::serialize_graph_def(def, false);
  const std::string sealed = tf::io::serialize_graph_def(def, false, true);
  CHECK_FALSE(json::parse(plain).contains("checksum"));
  REQUIRE(json::parse(sealed).contains("checksum"));
  CHECK(tf::to_text(tf::io::parse_graph_def(sealed, "g.json")) == tf::to_text(def));
  CHECK(tf::to_text(tf::io::parse_graph_def(plain, "g.json")) == tf::to_text(def));
  // The constant's name changed, the JSON still valid: the checksum catches it.
  std::string renamed = sealed;
  renamed.replace(renamed.find("\"name\":\"c\""), 10, "\"name\":\"d\"");
  CHECK_THROWS_WITH_AS(tf::io::parse_graph_def(renamed, "g.json"),
                       doctest::Contains("g.json: checksum mismatch"), tf::DataLossError);
  // A producer that is not an integer is named with its field, checksum or not.
  json producer = json::parse(plain);
  producer["versions"]["producer"] = 1.5;
  CHECK_THROWS_WITH_AS(tf::io::parse_graph_def(producer.dump(), "g.json"),
                       doctest::Contains("'versions.producer' to be an integer"),
                       tf::DataLossError);
}

}  // namespace symflow_test_train_meta_graph_integrity_test
