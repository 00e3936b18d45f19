// The checkpoint bundle (.index + .data-00000-of-00001), CRC32C and atomic file writes.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <symflow/io/atomic_file.hpp>
#include <symflow/io/checkpoint_bundle.hpp>
#include <symflow/io/crc32c.hpp>
#include <symflow/io/graph_def_json.hpp>

namespace symflow_test_io_checkpoint_bundle_test {

// Everything, test cases included, lives in this namespace: unity builds put several
// test files in one translation unit.
namespace symflow_checkpoint_bundle_test {

namespace fs = std::filesystem;
namespace io = symflow::io;
using symflow::DType;
using symflow::Value;
using json = nlohmann::json;

// A fresh directory for one test case, removed afterwards (ctest runs cases in parallel).
class TempDir {
 public:
  explicit TempDir(const std::string& tag)
      : path_(fs::temp_directory_path() /
              ("symflow_ckpt_" + tag + "_" + std::to_string(::getpid()))) {
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ec;
    fs::permissions(path_, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }

  // The names of the files in the directory, sorted.
  std::set<std::string> files() const {
    std::set<std::string> out;
    for (const auto& e : fs::directory_iterator(path_)) out.insert(e.path().filename().string());
    return out;
  }

 private:
  fs::path path_;
};

// Bit-at-a-time CRC32C: the definition the table version must match.
std::uint32_t reference_crc32c(const unsigned char* p, std::size_t n) {
  std::uint32_t c = 0xFFFFFFFFu;
  for (std::size_t i = 0; i < n; ++i) {
    c ^= p[i];
    for (int k = 0; k < 8; ++k) c = (c & 1u) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
  }
  return ~c;
}

// A small bundle of two tensors, for the corruption tests.
std::vector<std::pair<std::string, Value>> two_tensors() {
  return {{"w", Value::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3})},
          {"b", Value::from_vector<std::int32_t>({7, -8}, {2})}};
}

// Opens the bundle and reads every tensor.
void open_and_read_all(const std::string& prefix) {
  io::BundleReader reader(prefix);
  for (const auto& [name, entry] : reader.entries()) (void)reader.read(name);
}

// Replaces the "tensors"/"w" entry's field of a valid index (or a top-level field
// when `tensor_field` is false) and returns the new index text.
std::string with_field(const std::string& index_text, const std::string& key, const json& value,
                       bool tensor_field = true) {
  json j = json::parse(index_text);
  if (tensor_field)
    j["tensors"]["w"][key] = value;
  else
    j[key] = value;
  return j.dump();
}

std::string message_of_data_loss(const std::string& prefix) {
  try {
    open_and_read_all(prefix);
  } catch (const symflow::DataLossError& e) {
    return e.what();
  }
  return "(no DataLossError)";
}

TEST_CASE("io/checkpoint: crc32c matches the known vectors") {
  CHECK(io::crc32c("123456789", 9) == 0xE3069283u);
  CHECK(io::crc32c(std::string_view("123456789")) == 0xE3069283u);
  std::vector<unsigned char> zeros(32, 0), ones(32, 0xFF), up(32), down(32);
  for (int i = 0; i < 32; ++i) {
    up[static_cast<std::size_t>(i)] = static_cast<unsigned char>(i);
    down[static_cast<std::size_t>(i)] = static_cast<unsigned char>(31 - i);
  }
  // RFC 3720, B.4.
  CHECK(io::crc32c(zeros.data(), zeros.size()) == 0x8A9136AAu);
  CHECK(io::crc32c(ones.data(), ones.size()) == 0x62A8AB43u);
  CHECK(io::crc32c(up.data(), up.size()) == 0x46DD794Eu);
  CHECK(io::crc32c(down.data(), down.size()) == 0x113FDB5Cu);
  CHECK(io::crc32c(nullptr, 0) == 0u);
}

TEST_CASE("io/checkpoint: crc32c extends incrementally and matches the bitwise definition") {
  std::vector<unsigned char> bytes(131);
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<unsigned char>(i * 37 + 11);
  const std::uint32_t whole = io::crc32c(bytes.data(), bytes.size());
  CHECK(whole == reference_crc32c(bytes.data(), bytes.size()));
  for (std::size_t split = 0; split <= bytes.size(); ++split) {
    std::uint32_t a = io::crc32c(bytes.data(), split);
    CHECK(io::crc32c(bytes.data() + split, bytes.size() - split, a) == whole);
  }
  // Every length and misaligned start, across the 8-byte fast path and the tail.
  for (std::size_t start = 0; start < 8; ++start)
    for (std::size_t n = 0; start + n <= 40; ++n)
      CHECK(io::crc32c(bytes.data() + start, n) == reference_crc32c(bytes.data() + start, n));
}

TEST_CASE("io/checkpoint: every dtype round-trips bit for bit") {
  TempDir dir("dtypes");
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<std::uint8_t> all_bytes(256);
  for (int i = 0; i < 256; ++i)
    all_bytes[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(i);
  std::vector<std::pair<std::string, Value>> tensors = {
      {"f32", Value::from_vector<float>({1.5f, -0.0f, nan, 3e38f, 1e-45f, -2.0f}, {3, 2})},
      {"f64", Value::from_vector<double>({0.1, -inf, 1e-310, 2.0}, {2, 1, 2})},
      {"i32", Value::from_vector<std::int32_t>({std::numeric_limits<std::int32_t>::min(), -1, 0,
                                                std::numeric_limits<std::int32_t>::max()},
                                               {4})},
      {"i64", Value::from_vector<std::int64_t>({std::numeric_limits<std::int64_t>::min(),
                                                std::numeric_limits<std::int64_t>::max(), 42},
                                               {3, 1})},
      {"u8", Value::from_vector<std::uint8_t>(all_bytes, {16, 16})},
      {"bool", Value::from_vector<bool>({true, false, false, true, true}, {5})},
  };
  const std::string prefix = dir / "model.ckpt";
  io::write_bundle(prefix, tensors);
  io::BundleReader reader(prefix);
  CHECK(reader.entries().size() == tensors.size());
  for (const auto& [key, value] : tensors) {
    const std::string& name = key;  // CAPTURE takes a variable, not a structured binding
    CAPTURE(name);
    REQUIRE(reader.contains(name));
    Value back = reader.read(name);
    CHECK(back.dtype() == value.dtype());
    CHECK(back.dims() == value.dims());
    CHECK(back == value);  // byte-wise: NaN and -0.0 keep their bits
    const io::BundleEntry& e = reader.entries().find(name)->second;
    CHECK(e.dtype == value.dtype());
    CHECK(e.shape == value.dims());
    CHECK(e.shard == 0);
    CHECK(e.size == value.nbytes());
    CHECK(e.crc32c == io::crc32c(value.raw_data(), value.nbytes()));
  }
  // Stored sorted by name, back to back from offset 0.
  std::uint64_t offset = 0;
  for (const auto& [key, e] : reader.entries()) {
    const std::string& name = key;
    CAPTURE(name);
    CHECK(e.offset == offset);
    offset += e.size;
  }
  CHECK(io::file_size(io::data_path(prefix)) == offset);
}

TEST_CASE("io/checkpoint: scalars, empty tensors, a larger tensor and names with '/'") {
  TempDir dir("shapes");
  std::vector<float> big(1000 * 37);
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<float>(i) * 0.25f - 7.0f;
  std::vector<std::pair<std::string, Value>> tensors = {
      {"scalar_f", Value(2.5f)},
      {"scalar_b", Value(true)},
      {"scalar_i64", Value(std::int64_t{-9})},
      {"empty", Value(DType::float32, {0})},
      {"empty_3d", Value(DType::int64, {2, 0, 3})},
      {"dense/kernel", Value::from_vector(big, {1000, 37})},
      {"layer_1/dense/bias/Adam_1", Value::from_vector<double>({1, 2}, {2})},
  };
  const std::string prefix = dir / "ckpt-100";
  io::write_bundle(prefix, tensors);
  io::BundleReader reader(prefix);
  for (const auto& [key, value] : tensors) {
    const std::string& name = key;  // CAPTURE takes a variable, not a structured binding
    CAPTURE(name);
    Value back = reader.read(name);
    CHECK(back.dims() == value.dims());
    CHECK(back == value);
  }
  CHECK(reader.read("scalar_f").rank() == 0);
  CHECK(reader.read("scalar_f").scalar<float>() == 2.5f);
  CHECK(reader.read("empty_3d").size() == 0);
  CHECK(reader.entries().find("empty")->second.size == 0);
  CHECK(reader.read("dense/kernel").at<float>({999, 36}) == big.back());
}

TEST_CASE("io/checkpoint: a bundle of no tensors round-trips") {
  TempDir dir("no_tensors");
  const std::string prefix = dir / "empty";
  io::write_bundle(prefix, {});
  CHECK(io::bundle_exists(prefix));
  io::BundleReader reader(prefix);
  CHECK(reader.entries().empty());
  CHECK(io::file_size(io::data_path(prefix)) == 0);
}

TEST_CASE("io/checkpoint: the bundle is exactly prefix.index and prefix.data-00000-of-00001") {
  TempDir dir("file_set");
  const std::string prefix = dir / "model.ckpt-7";
  CHECK(io::index_path(prefix) == prefix + ".index");
  CHECK(io::data_path(prefix) == prefix + ".data-00000-of-00001");
  CHECK_FALSE(io::bundle_exists(prefix));
  io::write_bundle(prefix, two_tensors());
  CHECK(io::bundle_exists(prefix));
  const std::set<std::string> expected = {"model.ckpt-7.index", "model.ckpt-7.data-00000-of-00001"};
  CHECK(dir.files() == expected);

  // Overwriting the same prefix leaves the same two files, with the new content.
  io::write_bundle(prefix, {{"w", Value::from_vector<float>({9}, {1})}});
  CHECK(dir.files() == expected);
  io::BundleReader reader(prefix);
  CHECK(reader.entries().size() == 1);
  CHECK_FALSE(reader.contains("b"));
  CHECK(reader.read("w").to_vector<float>() == std::vector<float>{9});
}

TEST_CASE("io/checkpoint: the index is JSON with the documented fields") {
  TempDir dir("json");
  const std::string prefix = dir / "m";
  io::write_bundle(prefix, two_tensors());
  json j = json::parse(io::read_file(io::index_path(prefix)));
  CHECK(j["format"] == "symflow.checkpoint");
  CHECK(j["version"] == 1);
  CHECK(j["num_shards"] == 1);
  REQUIRE(j["tensors"].is_object());
  CHECK(j["tensors"].size() == 2);
  const json& b = j["tensors"]["b"];
  const json& w = j["tensors"]["w"];
  CHECK(b["dtype"] == "int32");
  CHECK(b["shape"] == json::array({2}));
  CHECK(b["shard"] == 0);
  CHECK(b["offset"] == 0);  // sorted by name: "b" before "w"
  CHECK(b["size"] == 8);
  CHECK(w["dtype"] == "float32");
  CHECK(w["shape"] == json::array({2, 3}));
  CHECK(w["offset"] == 8);
  CHECK(w["size"] == 24);

  // The data file holds the elements little-endian, and each CRC covers its bytes.
  const std::string data = io::read_file(io::data_path(prefix));
  REQUIRE(data.size() == 32);
  const std::string b_bytes("\x07\x00\x00\x00\xf8\xff\xff\xff", 8);
  CHECK(data.substr(0, 8) == b_bytes);
  CHECK(data.substr(8, 4) == std::string("\x00\x00\x80\x3f", 4));  // 1.0f
  CHECK(b["crc32c"] == io::crc32c(data.substr(0, 8)));
  CHECK(w["crc32c"] == io::crc32c(data.substr(8, 24)));

  // The index's own checksum covers the rest of it; a change that keeps it valid JSON
  // and a valid index (another offset, a renamed tensor) is caught by it.
  const std::string checksum = j["checksum"];
  j.erase("checksum");
  CHECK(checksum == io::json_checksum(j));
  j["checksum"] = checksum;
  j["tensors"]["v"] = j["tensors"]["w"];
  j["tensors"].erase("w");
  io::write_file_atomically(io::index_path(prefix), j.dump(2));
  CHECK_THROWS_WITH_AS(io::BundleReader{prefix},
                       doctest::Contains(("Corrupt checkpoint index " + io::index_path(prefix) +
                                          ": checksum mismatch: the file records " + checksum)
                                             .c_str()),
                       symflow::DataLossError);
}

TEST_CASE("io/checkpoint: a bundle written by hand from the documented format is readable") {
  TempDir dir("by_hand");
  const std::string prefix = dir / "other";
  const std::string data("\x01\x00\x02\x00\x00\x00\x00\x00\x00\x00", 10);
  io::write_file_atomically(io::data_path(prefix), data);
  json index = {{"format", "symflow.checkpoint"},
                {"version", 1},
                {"num_shards", 1},
                {"producer", "another program"},  // unknown fields are ignored
                {"tensors",
                 {{"flags",
                   {{"dtype", "bool"},
                    {"shape", {2}},
                    {"shard", 0},
                    {"offset", 0},
                    {"size", 2},
                    {"crc32c", io::crc32c(data.substr(0, 2))}}},
                  {"n",
                   {{"dtype", "int64"},
                    {"shape", json::array()},
                    {"shard", 0},
                    {"offset", 2},
                    {"size", 8},
                    {"crc32c", io::crc32c(data.substr(2))}}}}}};
  io::write_file_atomically(io::index_path(prefix), index.dump());
  io::BundleReader reader(prefix);
  CHECK(reader.read("flags").to_vector<bool>() == std::vector<bool>{true, false});
  CHECK(reader.read("n").scalar<std::int64_t>() == 2);
}

TEST_CASE("io/checkpoint: a missing key is NotFoundError 'Key <name> not found in checkpoint'") {
  TempDir dir("missing_key");
  const std::string prefix = dir / "m";
  io::write_bundle(prefix, two_tensors());
  io::BundleReader reader(prefix);
  CHECK_FALSE(reader.contains("nope/kernel"));
  CHECK_THROWS_WITH_AS(reader.read("nope/kernel"), "Key nope/kernel not found in checkpoint",
                       symflow::NotFoundError);
}

TEST_CASE("io/checkpoint: a missing bundle is NotFoundError naming the prefix") {
  TempDir dir("missing_bundle");
  const std::string prefix = dir / "never_saved";
  CHECK_FALSE(io::bundle_exists(prefix));
  try {
    io::BundleReader reader(prefix);
    FAIL("expected NotFoundError");
  } catch (const symflow::NotFoundError& e) {
    std::string msg = e.what();
    CHECK(msg.find("Unsuccessful TensorSliceReader constructor: Failed to find any matching "
                   "files for " +
                   prefix) != std::string::npos);
  }
  // An index without its data file: the data file is named.
  io::write_bundle(prefix, two_tensors());
  io::remove_file_if_exists(io::data_path(prefix));
  const std::string expected = io::data_path(prefix) + "; No such file or directory";
  CHECK_THROWS_WITH_AS(io::BundleReader{prefix}, doctest::Contains(expected.c_str()),
                       symflow::NotFoundError);
}

TEST_CASE("io/checkpoint: every truncation of the index is DataLossError") {
  TempDir dir("truncate_index");
  const std::string prefix = dir / "m";
  io::write_bundle(prefix, two_tensors());
  const std::string index = io::read_file(io::index_path(prefix));
  REQUIRE(index.size() > 10);
  for (std::size_t len = 0; len < index.size(); ++len) {
    CAPTURE(len);
    io::write_file_atomically(io::index_path(prefix), index.substr(0, len));
    CHECK_THROWS_AS(open_and_read_all(prefix), symflow::DataLossError);
  }
  io::write_file_atomically(io::index_path(prefix), index);
  CHECK_NOTHROW(open_and_read_all(prefix));
}

TEST_CASE("io/checkpoint: every truncation of the data file is DataLossError") {
  TempDir dir("truncate_data");
  const std::string prefix = dir / "m";
  io::write_bundle(prefix, two_tensors());
  const std::string data = io::read_file(io::data_path(prefix));
  REQUIRE(data.size() == 32);
  for (std::size_t len = 0; len < data.size(); ++len) {
    CAPTURE(len);
    io::write_file_atomically(io::data_path(prefix), data.substr(0, len));
    CHECK_THROWS_AS(open_and_read_all(prefix), symflow::DataLossError);
  }
  io::write_file_atomically(io::data_path(prefix), data.substr(0, 5));
  std::string msg = message_of_data_loss(prefix);
  CHECK(msg.find(io::data_path(prefix)) != std::string::npos);
  CHECK(msg.find("only 5 bytes") != std::string::npos);
}

TEST_CASE("io/checkpoint: a flipped byte is DataLossError when its tensor is read") {
  TempDir dir("flip");
  const std::string prefix = dir / "m";
  io::write_bundle(prefix, two_tensors());
  const std::string data = io::read_file(io::data_path(prefix));
  for (std::size_t i = 0; i < data.size(); ++i) {
    CAPTURE(i);
    std::string bad = data;
    bad[i] = static_cast<char>(bad[i] ^ 0x10);
    io::write_file_atomically(io::data_path(prefix), bad);
    io::BundleReader reader(prefix);  // the index is intact: opening works
    const std::string hit = i < 8 ? "b" : "w", other = i < 8 ? "w" : "b";
    const std::string expected = "Checksum does not match for tensor '" + hit + "'";
    CHECK_THROWS_WITH_AS(reader.read(hit), doctest::Contains(expected.c_str()),
                         symflow::DataLossError);
    CHECK_NOTHROW(reader.read(other));
  }
}

TEST_CASE("io/checkpoint: malformed indexes are DataLossError naming the file and the field") {
  TempDir dir("malformed");
  const std::string prefix = dir / "m";
  io::write_bundle(prefix, two_tensors());
  // Without its checksum, as older indexes are: each field check must catch its case.
  json unsealed = json::parse(io::read_file(io::index_path(prefix)));
  unsealed.erase("checksum");
  const std::string good = unsealed.dump(2);
  const std::string index_file = io::index_path(prefix);
  const std::uint64_t u64max = std::numeric_limits<std::uint64_t>::max();

  struct Case {
    std::string name, text, expected;
  };
  const std::vector<Case> cases = {
      {"not JSON", "checkpoint!", "expected JSON"},
      {"array", "[1, 2]", "expected a JSON object"},
      {"null", "null", "expected a JSON object"},
      {"trailing garbage", good + "}", "expected JSON"},
      {"wrong format", with_field(good, "format", "tf.checkpoint", false),
       "field \"format\": expected \"symflow.checkpoint\""},
      {"no format",
       [&] {
         json j = json::parse(good);
         j.erase("format");
         return j.dump();
       }(),
       "has no field \"format\""},
      {"version 2", with_field(good, "version", 2, false), "unsupported version 2: expected 1"},
      {"version string", with_field(good, "version", "1", false), "unsupported version \"1\""},
      {"version float", with_field(good, "version", 1.5, false), "unsupported version 1.5"},
      {"two shards", with_field(good, "num_shards", 2, false), "\"num_shards\": expected 1"},
      {"tensors array", with_field(good, "tensors", json::array(), false),
       "\"tensors\": expected a JSON object"},
      {"entry not an object", with_field(good, "tensors", {{"w", 3}}, false),
       "tensor 'w' expected a JSON object"},
      {"bad dtype", with_field(good, "dtype", "complex128"),
       "tensor 'w' has unknown dtype \"complex128\": expected one of float32"},
      {"dtype number", with_field(good, "dtype", 1), "tensor 'w' has unknown dtype 1"},
      {"no dtype",
       [&] {
         json j = json::parse(good);
         j["tensors"]["w"].erase("dtype");
         return j.dump();
       }(),
       "tensor 'w' has no field \"dtype\""},
      {"no crc",
       [&] {
         json j = json::parse(good);
         j["tensors"]["w"].erase("crc32c");
         return j.dump();
       }(),
       "tensor 'w' has no field \"crc32c\""},
      {"negative dim", with_field(good, "shape", {2, -3}),
       "expected non-negative integer dimensions, got -3"},
      {"float dim", with_field(good, "shape", {2.0, 3}),
       "expected non-negative integer dimensions"},
      {"shape not array", with_field(good, "shape", 6), "expected an array of dimensions"},
      {"wrong size", with_field(good, "size", 20),
       "tensor 'w' has size 20 but shape [2,3] of float32 needs 24 bytes"},
      {"negative size", with_field(good, "size", -24), "field \"size\": expected an integer"},
      {"negative offset", with_field(good, "offset", -1), "field \"offset\": expected an integer"},
      {"offset beyond the file", with_field(good, "offset", 9), "needs bytes [9, 9+24)"},
      {"offset overflowing", with_field(good, "offset", u64max), "Truncated checkpoint data file"},
      {"elements overflowing", with_field(good, "shape", {u64max / 2, 4}), "overflows int64"},
      {"overflow hidden by a zero",
       with_field(good, "shape", {std::uint64_t{1} << 62, std::uint64_t{1} << 62, 0}),
       "overflows int64"},
      {"bytes overflowing", with_field(good, "shape", {std::uint64_t{1} << 62}),
       "needs more than 2^64 bytes"},
      {"crc too large", with_field(good, "crc32c", std::uint64_t{1} << 32),
       "field \"crc32c\": expected an integer in [0, 4294967295]"},
      {"shard 1", with_field(good, "shard", 1), "field \"shard\": expected an integer in [0, 0]"},
      {"duplicate name",
       R"({"format": "symflow.checkpoint", "version": 1, "num_shards": 1, "tensors": {"w": )" +
           json::parse(good)["tensors"]["w"].dump() + R"(, "b": {}, "w": {}}})",
       "the key \"w\" appears twice in an object"},
      {"empty name", with_field(good, "tensors", {{"", json::object()}}, false),
       "a tensor has an empty name"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    io::write_file_atomically(index_file, c.text);
    std::string msg = message_of_data_loss(prefix);
    CHECK(msg.find(c.expected) != std::string::npos);
    CHECK(msg.find(prefix) != std::string::npos);  // names the index or the data file
  }
}

TEST_CASE("io/checkpoint: a bool byte other than 0 or 1 is DataLossError, even with a good CRC") {
  TempDir dir("bad_bool");
  const std::string prefix = dir / "m";
  io::write_bundle(prefix, {{"flags", Value::from_vector<bool>({true, false}, {2})}});
  const std::string bad("\x01\x02", 2);
  io::write_file_atomically(io::data_path(prefix), bad);
  std::string index = io::read_file(io::index_path(prefix));
  json j = json::parse(index);
  j.erase("checksum");  // an index without one: the byte check must catch this
  j["tensors"]["flags"]["crc32c"] = io::crc32c(bad);
  io::write_file_atomically(io::index_path(prefix), j.dump());
  io::BundleReader reader(prefix);
  CHECK_THROWS_WITH_AS(reader.read("flags"),
                       doctest::Contains("element 1 is byte 2, expected 0 or 1"),
                       symflow::DataLossError);
}

TEST_CASE("io/checkpoint: bad names and values are InvalidArgumentError, nothing written") {
  TempDir dir("bad_args");
  const std::string prefix = dir / "m";
  Value one = Value::from_vector<float>({1}, {1});
  CHECK_THROWS_WITH_AS(io::write_bundle(prefix, {{"w", one}, {"b", one}, {"w", one}}),
                       "Adding duplicate key: w", symflow::InvalidArgumentError);
  CHECK_THROWS_AS(io::write_bundle(prefix, {{"", one}}), symflow::InvalidArgumentError);
  CHECK_THROWS_WITH_AS(io::write_bundle(prefix, {{"none", Value()}}),
                       doctest::Contains("tensor 'none'"), symflow::InvalidArgumentError);
  CHECK_THROWS_WITH_AS(io::write_bundle(prefix, {{std::string("bad\xff", 4), one}}),
                       doctest::Contains("not valid UTF-8"), symflow::InvalidArgumentError);
  CHECK(dir.files().empty());
}

TEST_CASE("io/checkpoint: write_file_atomically replaces the file and leaves no temporaries") {
  TempDir dir("atomic");
  const std::string file = dir / "state";
  io::write_file_atomically(file, "old content");
  CHECK(io::read_file(file) == "old content");
  io::write_file_atomically(file, "new");
  CHECK(io::read_file(file) == "new");
  const std::vector<std::string_view> pieces = {"ab", "", "cde"};
  io::write_file_atomically(file, pieces);
  CHECK(io::read_file(file) == "abcde");
  io::write_file_atomically(file, std::string_view());
  CHECK(io::read_file(file).empty());
  CHECK(dir.files() == std::set<std::string>{"state"});

  // A relative path writes in the current directory.
  const std::string relative = "symflow_ckpt_relative_" + std::to_string(::getpid());
  io::write_file_atomically(relative, "x");
  CHECK(io::read_file(relative) == "x");
  io::remove_file_if_exists(relative);
  CHECK_FALSE(fs::exists(relative));
  CHECK_NOTHROW(io::remove_file_if_exists(relative));
}

TEST_CASE("io/checkpoint: a failed atomic write is a typed error and keeps the old file") {
  TempDir dir("atomic_fail");
  const std::string old_file = dir / "keep";
  io::write_file_atomically(old_file, "old");

  // Into a directory that does not exist.
  const std::string missing = dir / "no_such_dir/file";
  const std::string expected = "Failed to write " + missing + " (creating temporary file";
  CHECK_THROWS_WITH_AS(io::write_file_atomically(missing, "new"),
                       doctest::Contains(expected.c_str()), symflow::NotFoundError);
  CHECK_THROWS_WITH_AS(io::write_file_atomically(missing, "new"),
                       doctest::Contains("; No such file or directory"), symflow::NotFoundError);

  // Over a non-empty directory: the rename fails, the directory and its file stay.
  fs::create_directory(dir.path() / "sub");
  io::write_file_atomically(dir / "sub/inner", "inner");
  CHECK_THROWS_AS(io::write_file_atomically(dir / "sub", "new"), symflow::FailedPreconditionError);
  CHECK(io::read_file(dir / "sub/inner") == "inner");
  CHECK(dir.files() == std::set<std::string>{"keep", "sub"});
  CHECK(io::read_file(old_file) == "old");

  // In a read-only directory (root ignores permissions, so only as another user).
  if (::geteuid() != 0) {
    fs::permissions(dir.path(), fs::perms::owner_read | fs::perms::owner_exec);
    CHECK_THROWS_AS(io::write_file_atomically(old_file, "new"), symflow::PermissionDeniedError);
    fs::permissions(dir.path(), fs::perms::owner_all);
    CHECK(io::read_file(old_file) == "old");
    CHECK(dir.files() == std::set<std::string>{"keep", "sub"});
  }

  CHECK_THROWS_AS(io::write_file_atomically(fs::path(), "x"), symflow::InvalidArgumentError);
}

TEST_CASE("io/checkpoint: read_file of a missing file is NotFoundError naming it") {
  TempDir dir("read_missing");
  const std::string file = dir / "absent";
  const std::string expected = file + "; No such file or directory";
  CHECK_THROWS_WITH_AS(io::read_file(file), expected.c_str(), symflow::NotFoundError);
  CHECK_THROWS_AS(io::file_size(file), symflow::NotFoundError);
  std::string buffer(4, '\0');
  CHECK_THROWS_AS(io::read_file_at(file, 0, buffer.data(), 4), symflow::NotFoundError);
  io::write_file_atomically(file, "abcdef");
  CHECK(io::read_file_at(file, 4, buffer.data(), 4) == 2);  // the file ends first
  CHECK(buffer.substr(0, 2) == "ef");
}

}  // namespace symflow_checkpoint_bundle_test

}  // namespace symflow_test_io_checkpoint_bundle_test
