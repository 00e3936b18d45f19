// TensorFlow's own V2 checkpoints: the sorted-table index, the bundle's protobufs and
// data shards, read by io::BundleReader, Saver::restore and train/checkpoint_utils.hpp.
// Oracle: the values and CRCs listed in /work/shared/fixtures/tf/README.md (files written
// by TF 0.12 to 2.14), plus tables this file writes by hand for what no fixture has
// (several blocks and shards, big-endian data, partitioned tensors, damaged headers).
#include <doctest/doctest.h>

#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <symflow/io/atomic_file.hpp>
#include <symflow/io/checkpoint_bundle.hpp>
#include <symflow/io/crc32c.hpp>
#include <symflow/io/protobuf_wire.hpp>
#include <symflow/io/sorted_table.hpp>
#include <symflow/io/sorted_table_writer.hpp>
#include <symflow/io/tensor_bundle_tf.hpp>
#include <symflow/symflow.hpp>
#include <symflow/train/checkpoint_state.hpp>
#include <symflow/train/checkpoint_utils.hpp>
#include <symflow/train/saver.hpp>

namespace symflow_test_io_tf_checkpoint_test {

namespace fs = std::filesystem;
namespace io = symflow::io;
namespace tf = symflow;
using symflow::Dims;
using symflow::DType;
using symflow::Value;

const std::string kFixtures = std::string(SYMFLOW_SHARED_DIR) + "/fixtures/tf/";
const std::string kHalfPlusTwoCkpt = kFixtures + "tf1_half_plus_two_ckpt/export";
const std::string kHalfPlusTwoSnappy =
    kFixtures + "tf1_half_plus_two_savedmodel/variables/variables";
const std::string kCounter = kFixtures + "tf1_counter_savedmodel/variables/variables";
const std::string kRegression = kFixtures + "tf1_regression_savedmodel/variables/variables";
const std::string kMnistDir = kFixtures + "tf1_mnist_mlp_ckpt/checkpoint";
const std::string kMnist = kMnistDir + "/train.ckpt";
const std::string kTf2 = kFixtures + "tf2_half_plus_two_savedmodel/variables/variables";

#if defined(SYMFLOW_HAVE_SNAPPY) && SYMFLOW_HAVE_SNAPPY
constexpr bool kHaveSnappy = true;
#else
constexpr bool kHaveSnappy = false;
#endif

// A fresh directory for one test case, removed afterwards (ctest runs cases in parallel).
class TempDir {
 public:
  explicit TempDir(const std::string& tag)
      : path_(fs::temp_directory_path() /
              ("symflow_tfckpt_" + tag + "_" + std::to_string(::getpid()))) {
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// Sets one byte of a file in place. The damage loops make thousands of variants:
// write_file_atomically's fsyncs, or even rewriting a truncated file (which ext4 flushes),
// would cost seconds.
void poke(const std::string& path, std::size_t offset, char byte) {
  std::fstream f(path, std::ios::binary | std::ios::in | std::ios::out);
  f.seekp(static_cast<std::streamoff>(offset));
  f.put(byte);
  REQUIRE(f.good());
}

// Copies the fixture bundle at `prefix` (index and single data shard) into `dir`;
// returns the copy's prefix.
std::string copy_bundle(const std::string& prefix, const TempDir& dir) {
  const std::string copy = dir / fs::path(prefix).filename().string();
  fs::copy_file(io::index_path(prefix), io::index_path(copy));
  fs::copy_file(io::data_path(prefix), io::data_path(copy));
  return copy;
}

float scalar_f(const Value& v) { return v.scalar<float>(); }

double sum_of(const Value& v) {
  double s = 0;
  const auto* p = static_cast<const double*>(v.raw_data());
  for (std::size_t i = 0; i < v.nbytes() / sizeof(double); ++i) s += p[i];
  return s;
}

// What a reader makes of a bundle: each entry's dtype, shape and bytes (or the type of
// error reading it gives), or the error opening it gives.
std::string outcome(const std::string& prefix) {
  std::string out;
  io::BundleReader reader(prefix);
  for (const auto& [name, e] : reader.entries()) {
    out += name + " " + io::bundle_dtype_name(e) + " " + tf::dims_to_string(e.shape) + " = ";
    try {
      Value v = reader.read(name);
      if (v.dtype() == tf::string) {
        for (const std::string& x : v.flat<std::string>()) out += "'" + x + "'";
      } else {
        out.append(static_cast<const char*>(v.raw_data()), v.nbytes());
      }
    } catch (const tf::UnimplementedError&) {
      out += "unimplemented";
    }
    out += "\n";
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// A writer of TensorFlow tables, for the cases no fixture has. Blocks hold
// `per_block` entries each, with a restart every `restart_interval` entries.
// ---------------------------------------------------------------------------------------

using KV = std::pair<std::string, std::string>;

// In the order given, sorted or not (io::write_sorted_table would refuse unsorted keys).
std::string table_of(const std::vector<KV>& entries, std::size_t per_block = 1000,
                     std::size_t restart_interval = 16) {
  std::vector<io::TableEntry> table;
  for (const auto& [key, value] : entries) table.push_back({key, value});
  return symflow::detail::sorted_table::assemble(
      table, {.entries_per_block = per_block, .restart_interval = restart_interval});
}

std::string header_proto(std::int64_t num_shards, int endianness = 0, int min_consumer = 0) {
  io::wire::WireWriter version;
  version.varint(1, 1);
  if (min_consumer) version.varint(2, static_cast<std::uint64_t>(min_consumer));
  io::wire::WireWriter w;
  w.int64(1, num_shards);
  if (endianness) w.varint(2, static_cast<std::uint64_t>(endianness));
  w.message(3, version);
  return w.take();
}

struct Extent {
  std::int64_t start;
  std::int64_t length;  // -1: the full dimension (no length field)
};

std::string entry_proto(int dtype, const std::vector<std::int64_t>& shape, int shard,
                        std::uint64_t offset, std::string_view bytes,
                        const std::vector<std::vector<Extent>>& slices = {}) {
  io::wire::WireWriter w;
  w.varint(1, static_cast<std::uint64_t>(dtype));
  io::wire::WireWriter s;
  for (std::int64_t d : shape) {
    io::wire::WireWriter dim;
    dim.int64(1, d);
    s.message(2, dim);
  }
  w.message(2, s);
  if (slices.empty()) {
    if (shard) w.varint(3, static_cast<std::uint64_t>(shard));
    if (offset) w.varint(4, offset);
    w.varint(5, bytes.size());
    w.fixed32(6, io::masked_crc32c(io::crc32c(bytes)));
  }
  for (const auto& slice : slices) {
    io::wire::WireWriter sp;
    for (const Extent& e : slice) {
      io::wire::WireWriter ep;
      if (e.start) ep.int64(1, e.start);
      if (e.length >= 0) ep.int64(2, e.length);
      sp.message(1, ep);
    }
    w.message(7, sp);
  }
  return w.take();
}

template <class T>
std::string bytes_of(const std::vector<T>& values) {
  return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
}

std::string big_endian(std::string bytes, std::size_t element) {
  for (std::size_t i = 0; i < bytes.size(); i += element)
    std::reverse(bytes.begin() + static_cast<std::ptrdiff_t>(i),
                 bytes.begin() + static_cast<std::ptrdiff_t>(i + element));
  return bytes;
}

// ---------------------------------------------------------------------------------------

TEST_CASE("tf_checkpoint: masked CRC32C is TensorFlow's (float 0.5 stores 0x1f273806)") {
  const float half = 0.5f;
  CHECK(io::crc32c(&half, 4) == 0x26973e52u);
  CHECK(io::masked_crc32c(0x26973e52u) == 0x1f273806u);
  CHECK(io::unmask_crc32c(0x1f273806u) == 0x26973e52u);
  for (std::uint32_t c : {0u, 1u, 0xFFFFFFFFu, 0x12345678u, 0xE3069283u})
    CHECK(io::unmask_crc32c(io::masked_crc32c(c)) == c);
}

TEST_CASE("tf_checkpoint: slice keys use TensorFlow's OrderedCode numbers") {
  namespace oc = io::tf_bundle::ordered_code;
  auto signed_code = [](std::int64_t v) {
    std::string s;
    oc::write_signed_num_increasing(s, v);
    return s;
  };
  // The examples of ordered_code.cc's comment, and the one- and two-byte edges.
  CHECK(signed_code(0x424242) == std::string("\xf0\x42\x42\x42", 4));
  CHECK(signed_code(-0x800) == std::string("\x38\x00", 2));
  CHECK(signed_code(0) == "\x80");
  CHECK(signed_code(-1) == "\x7f");
  CHECK(signed_code(63) == "\xbf");
  CHECK(signed_code(64) == "\xc0\x40");
  CHECK(signed_code(-64) == "\x40");
  CHECK(signed_code(-65) == "\x3f\xbf");
  std::string n;
  oc::write_num_increasing(n, 0);
  oc::write_num_increasing(n, 2);
  oc::write_num_increasing(n, 0x1234);
  CHECK(n == std::string("\x00\x01\x02\x02\x12\x34", 6));
  std::string s;
  oc::write_string(s, std::string("a\0b\xff", 4));
  CHECK(s == std::string("a\x00\xff"
                         "b\xff\x00\x00\x01",
                         8));
  // Orders as the numbers do.
  std::string prev = signed_code(-(std::int64_t{1} << 62));
  for (std::int64_t v : {-100000LL, -65LL, -64LL, -1LL, 0LL, 63LL, 64LL, 100000LL, 1LL << 40}) {
    CHECK(prev < signed_code(v));
    prev = signed_code(v);
  }
}

TEST_CASE("tf_checkpoint: TF 0.12's half_plus_two checkpoint reads Variable 0.5, Variable_1 2") {
  io::BundleReader reader(kHalfPlusTwoCkpt);
  CHECK(reader.is_tensorflow_format());
  CHECK(reader.num_shards() == 1);
  REQUIRE(reader.entries().size() == 2);
  const io::BundleEntry& v = reader.entries().at("Variable");
  CHECK(v.dtype == DType::float32);
  CHECK(io::bundle_dtype_name(v) == "DT_FLOAT");
  CHECK(v.shape.empty());
  CHECK(v.offset == 0);
  CHECK(v.size == 4);
  CHECK(io::masked_crc32c(v.crc32c) == 0x1f273806u);
  CHECK(reader.entries().at("Variable_1").offset == 4);
  CHECK(io::masked_crc32c(reader.entries().at("Variable_1").crc32c) == 0x4f78fd10u);
  CHECK(scalar_f(reader.read("Variable")) == 0.5f);
  CHECK(scalar_f(reader.read("Variable_1")) == 2.0f);
  CHECK_THROWS_WITH_AS(reader.read("Variable_2"), "Key Variable_2 not found in checkpoint",
                       tf::NotFoundError);
}

TEST_CASE("tf_checkpoint: TF 1.14's SavedModel variables have a Snappy-compressed block") {
  if constexpr (kHaveSnappy) {
    io::BundleReader reader(kHalfPlusTwoSnappy);
    const std::map<std::string, float> expected = {
        {"a", 0.5f}, {"a2", 0.5f}, {"b", 2.0f}, {"c", 3.0f}, {"c2", 3.0f}};
    REQUIRE(reader.entries().size() == expected.size());
    std::uint64_t offset = 0;
    for (const auto& [name_key, value] : expected) {
      const auto& name = name_key;  // clang 14: no structured binding in CAPTURE
      CAPTURE(name);
      CHECK(reader.entries().at(name).offset == offset);
      CHECK(reader.entries().at(name).dtype == DType::float32);
      CHECK(scalar_f(reader.read(name)) == value);
      offset += 4;
    }
  } else {
    CHECK_THROWS_WITH_AS(io::BundleReader{kHalfPlusTwoSnappy},
                         doctest::Contains("symflow was built without Snappy"),
                         tf::UnimplementedError);
  }
}

TEST_CASE("tf_checkpoint: the counter and regression SavedModels' variables") {
  io::BundleReader counter(kCounter);
  REQUIRE(counter.entries().size() == 1);
  CHECK(io::masked_crc32c(counter.entries().at("counter").crc32c) == 0x3a117ba6u);
  CHECK(scalar_f(counter.read("counter")) == 0.0f);

  io::BundleReader regression(kRegression);
  REQUIRE(regression.entries().size() == 2);
  CHECK(regression.entries().at("b").shape == Dims{1});
  CHECK(regression.entries().at("w").shape == Dims{1});
  CHECK(io::masked_crc32c(regression.entries().at("w").crc32c) == 0x1b530575u);
  CHECK(regression.read("b").data<float>()[0] == 0.0f);
  CHECK(regression.read("w").data<float>()[0] == -0.8578622341156006f);
}

TEST_CASE("tf_checkpoint: TF 1.15's MNIST checkpoint by its directory, with list_variables") {
  // The directory's `checkpoint` state file names train.ckpt, as tf.train does.
  CHECK(tf::train::latest_checkpoint(kMnistDir) == (fs::path(kMnistDir) / "train.ckpt").string());
  const auto vars = tf::train::list_variables(kMnistDir);
  const std::vector<std::pair<std::string, Dims>> expected_shapes = {
      {"dense/bias", {128}},          {"dense/kernel", {784, 128}}, {"dense_1/bias", {128}},
      {"dense_1/kernel", {128, 128}}, {"dense_2/bias", {10}},       {"dense_2/kernel", {128, 10}}};
  CHECK(vars == expected_shapes);

  tf::train::CheckpointReader reader = tf::train::load_checkpoint(kMnistDir);
  CHECK(reader.prefix() == (fs::path(kMnistDir) / "train.ckpt").string());
  for (const auto& [name, dtype] : reader.get_variable_to_dtype_map())
    CHECK(dtype == DType::float64);
  CHECK(reader.get_variable_to_dtype_map().size() == 6);
  CHECK(reader.get_variable_to_tf_dtype_map().at("dense/kernel") == "DT_DOUBLE");
  CHECK(reader.get_variable_to_shape_map().at("dense_1/kernel") == Dims{128, 128});

  const std::map<std::string, std::pair<double, double>> first_two = {
      {"dense/bias", {-0.0393377768, -0.313362166}},
      {"dense/kernel", {-0.033015855, -0.0267968276}},
      {"dense_1/bias", {-0.398873416, -0.174600885}},
      {"dense_1/kernel", {0.144756589, -0.0851354792}},
      {"dense_2/bias", {-0.443414855, -0.409111509}},
      {"dense_2/kernel", {0.262162394, 0.549430467}}};
  const std::map<std::string, double> sums = {{"dense/bias", -4.283342551},
                                              {"dense/kernel", -824.5089161},
                                              {"dense_1/bias", -0.6336007943},
                                              {"dense_1/kernel", -313.8882846},
                                              {"dense_2/kernel", 4.550677838}};
  std::uint64_t offset = 0;
  for (const auto& [name_key, shape] : expected_shapes) {
    const auto& name = name_key;  // clang 14: no structured binding in CAPTURE
    CAPTURE(name);
    const io::BundleEntry& e = reader.bundle().entries().at(name);
    CHECK(e.offset == offset);
    offset += e.size;
    Value v = reader.get_tensor(name);
    CHECK(v.dtype() == DType::float64);
    CHECK(v.dims() == shape);
    const auto* p = static_cast<const double*>(v.raw_data());
    CHECK(p[0] == doctest::Approx(first_two.at(name).first).epsilon(1e-8));
    CHECK(p[1] == doctest::Approx(first_two.at(name).second).epsilon(1e-8));
    if (name == "dense_2/bias")
      CHECK(std::abs(sum_of(v)) < 1e-12);  // README: about 5e-16
    else
      CHECK(std::abs(sum_of(v) - sums.at(name)) <= 1e-6 * std::abs(sums.at(name)));
  }
  CHECK(offset == 946256);  // the data file: no padding between tensors
  CHECK(tf::train::load_variable(kMnist, "dense_2/bias:0").dims() == Dims{10});
}

TEST_CASE("tf_checkpoint: TF 2.14's object-graph string reads as TensorFlow reads it") {
  if constexpr (!kHaveSnappy) return;  // its index block is Snappy-compressed
  tf::train::CheckpointReader reader(kTf2);
  const auto shapes = reader.get_variable_to_shape_map();
  REQUIRE(shapes.size() == 4);
  CHECK(shapes.at("_CHECKPOINTABLE_OBJECT_GRAPH").empty());
  const auto tf_dtypes = reader.get_variable_to_tf_dtype_map();
  CHECK(tf_dtypes.at("_CHECKPOINTABLE_OBJECT_GRAPH") == "DT_STRING");
  CHECK(tf_dtypes.at("a/.ATTRIBUTES/VARIABLE_VALUE") == "DT_FLOAT");
  CHECK(reader.get_variable_to_dtype_map().size() == 4);
  CHECK(reader.get_variable_to_dtype_map().at("_CHECKPOINTABLE_OBJECT_GRAPH") == tf::string);
  CHECK(reader.has_tensor("_CHECKPOINTABLE_OBJECT_GRAPH"));
  const io::BundleEntry& graph = reader.bundle().entries().at("_CHECKPOINTABLE_OBJECT_GRAPH");
  CHECK(graph.offset == 12);
  CHECK(graph.size == 619);  // a 2-byte length, its 4-byte checksum, 613 bytes
  CHECK(io::masked_crc32c(graph.crc32c) == 0x47b7d190u);
  // TF: len(tf.train.load_checkpoint(...).get_tensor("_CHECKPOINTABLE_OBJECT_GRAPH")) == 613,
  // starting b'\n\x98\x01\n\x05\x12\x01a\x08\x01' (a serialized TrackableObjectGraph).
  const tf::Value object_graph = reader.get_tensor("_CHECKPOINTABLE_OBJECT_GRAPH");
  CHECK(object_graph.dtype() == tf::string);
  CHECK(object_graph.rank() == 0);
  const std::string bytes = object_graph.scalar<std::string>();
  CHECK(bytes.size() == 613);
  CHECK(bytes.substr(0, 10) == std::string("\n\x98\x01\n\x05\x12\x01"
                                           "a\x08\x01",
                                           10));
  CHECK(scalar_f(reader.get_tensor("a/.ATTRIBUTES/VARIABLE_VALUE")) == 0.5f);
  CHECK(scalar_f(reader.get_tensor("b/.ATTRIBUTES/VARIABLE_VALUE")) == 2.0f);
  CHECK(scalar_f(reader.get_tensor("c/.ATTRIBUTES/VARIABLE_VALUE")) == 3.0f);
}

TEST_CASE("tf_checkpoint: checkpoint_utils give TensorFlow's errors") {
  TempDir dir("utils_errors");
  const std::string missing = dir / "nothing";
  const std::string expected =
      "Unsuccessful TensorSliceReader constructor: Failed to find any matching files for " +
      missing;
  CHECK_THROWS_WITH_AS(tf::train::load_checkpoint(missing), doctest::Contains(expected.c_str()),
                       tf::NotFoundError);
  CHECK_THROWS_WITH_AS(tf::train::list_variables(dir.path().string()),
                       doctest::Contains("Couldn't find 'checkpoint' file or checkpoints"),
                       tf::ValueError);
  tf::train::CheckpointReader reader(kHalfPlusTwoCkpt);
  CHECK(reader.has_tensor("Variable"));
  CHECK_FALSE(reader.has_tensor("Variable_2"));
  CHECK_THROWS_WITH_AS(reader.get_tensor("nope"), "Key nope not found in checkpoint",
                       tf::NotFoundError);
}

TEST_CASE("tf_checkpoint: the state file as TensorFlow 2 writes it, timestamps included") {
  TempDir dir("state");
  const std::string prefix = copy_bundle(kHalfPlusTwoCkpt, dir);
  io::write_file_atomically(dir / "checkpoint",
                            "model_checkpoint_path: \"export\"\n"
                            "all_model_checkpoint_paths: \"old\"\n"
                            "all_model_checkpoint_paths: \"export\"\n"
                            "all_model_checkpoint_timestamps: 1700000000.25\n"
                            "all_model_checkpoint_timestamps: 1700000100.5\n"
                            "last_preserved_timestamp: 1699999999.0\n");
  auto state = tf::train::get_checkpoint_state(dir.path().string());
  REQUIRE(state);
  // Relative entries come back joined with the directory, as TensorFlow returns them.
  CHECK(state->model_checkpoint_path == (dir.path() / "export").string());
  CHECK(state->all_model_checkpoint_paths ==
        std::vector<std::string>{(dir.path() / "old").string(), (dir.path() / "export").string()});
  CHECK(tf::train::latest_checkpoint(dir.path().string()) == prefix);
  CHECK(tf::train::list_variables(dir.path().string()).size() == 2);
  // An absolute path is kept as it is.
  io::write_file_atomically(dir / "checkpoint", "model_checkpoint_path: \"" + prefix + "\"\n");
  CHECK(tf::train::latest_checkpoint(dir.path().string()) == prefix);
}

TEST_CASE("tf_checkpoint: Saver::restore fills a graph's variables from a TF checkpoint") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Variable w(tf::Value(0.0f));  // "Variable", as TF 0.12 named it
  tf::Variable b(tf::Value(0.0f));  // "Variable_1"
  REQUIRE(w.op().name() == "Variable");
  REQUIRE(b.op().name() == "Variable_1");
  auto x = tf::placeholder<float>({3}, "x");
  auto y = w * x + b;
  tf::train::Saver saver;
  tf::Session sess;
  saver.restore(sess, kHalfPlusTwoCkpt);
  CHECK(sess.run(w).scalar<float>() == 0.5f);
  CHECK(sess.run(b).scalar<float>() == 2.0f);
  CHECK(sess.run(y, {{x, {1.0f, 2.0f, 5.0f}}}) == Value({2.5f, 3.0f, 4.5f}));

  // A float64 variable of another shape: the checkpoint's dtype and shape are checked.
  tf::Graph g2;
  auto guard2 = g2.as_default();
  auto kernel = tf::get_variable("dense/kernel", {784, 128}, {.dtype = DType::float64});
  auto wrong = tf::get_variable("dense/bias", {128}, {.dtype = DType::float32});
  tf::Session sess2;
  tf::train::Saver good(std::vector<tf::Variable>{kernel});
  good.restore(sess2, kMnist);
  CHECK(std::abs(sum_of(sess2.run(kernel)) + 824.5089161) < 1e-6 * 824.5089161);
  tf::train::Saver bad(std::vector<tf::Variable>{wrong});
  CHECK_THROWS_WITH_AS(bad.restore(sess2, kMnist), doctest::Contains("original dtype float64"),
                       tf::InvalidArgumentError);
}

TEST_CASE("tf_checkpoint: every truncation of each fixture's index is DataLossError") {
  std::vector<std::string> fixtures = {kHalfPlusTwoCkpt, kCounter, kRegression, kMnist};
  if (kHaveSnappy) fixtures.insert(fixtures.end(), {kHalfPlusTwoSnappy, kTf2});
  for (const std::string& fixture : fixtures) {
    CAPTURE(fixture);
    TempDir sub("truncate_" + std::to_string(&fixture - fixtures.data()));
    const std::string prefix = copy_bundle(fixture, sub);
    const std::string index = io::read_file(io::index_path(prefix));
    for (std::size_t len = index.size(); len-- > 0;) {  // shortened step by step
      CAPTURE(len);
      fs::resize_file(io::index_path(prefix), len);
      CHECK_THROWS_AS(outcome(prefix), tf::DataLossError);
    }
  }
}

TEST_CASE("tf_checkpoint: every bit flipped in a fixture's index is caught or changes nothing") {
  std::vector<std::string> fixtures = {kHalfPlusTwoCkpt, kCounter, kRegression, kMnist};
  if (kHaveSnappy) fixtures.insert(fixtures.end(), {kHalfPlusTwoSnappy, kTf2});
  for (const std::string& fixture : fixtures) {
    CAPTURE(fixture);
    TempDir dir("flip_" + std::to_string(&fixture - fixtures.data()));
    const std::string prefix = copy_bundle(fixture, dir);
    const std::string good = outcome(prefix);
    const std::string index = io::read_file(io::index_path(prefix));
    // Every bit: a detected flip fails before any tensor is read, so this stays cheap.
    int caught = 0, unchanged = 0;
    for (std::size_t i = 0; i < index.size(); ++i) {
      for (int bit = 0; bit < 8; ++bit) {
        CAPTURE(i);
        CAPTURE(bit);
        poke(io::index_path(prefix), i, static_cast<char>(index[i] ^ (1 << bit)));
        // Any other exception escapes and fails the test case.
        std::string got;
        try {
          got = outcome(prefix);
        } catch (const tf::DataLossError&) {
          ++caught;
        }
        poke(io::index_path(prefix), i, index[i]);
        if (got.empty()) continue;
        CHECK(got == good);
        ++unchanged;
      }
    }
    // Block CRCs, the handles' bounds and the zero padding catch every flip but one: the
    // continuation bit of the footer's last varint, which then reads the zero padding
    // byte after it as its (zero) high bits, the same number.
    CHECK(unchanged <= 1);
    CHECK(caught > 0);
  }
}

TEST_CASE("tf_checkpoint: damaged, short or missing data files") {
  TempDir dir("data");
  const std::string prefix = copy_bundle(kHalfPlusTwoCkpt, dir);
  const std::string data = io::read_file(io::data_path(prefix));
  REQUIRE(data.size() == 8);
  for (std::size_t i = 0; i < data.size(); ++i) {
    CAPTURE(i);
    std::string bad = data;
    bad[i] = static_cast<char>(bad[i] ^ 0x01);
    io::write_file_atomically(io::data_path(prefix), bad);
    io::BundleReader reader(prefix);  // the index is intact: opening works
    const std::string hit = i < 4 ? "Variable" : "Variable_1";
    const std::string other = i < 4 ? "Variable_1" : "Variable";
    const std::string expected = "Checksum does not match for tensor '" + hit + "'";
    CHECK_THROWS_WITH_AS(reader.read(hit), doctest::Contains(expected.c_str()), tf::DataLossError);
    CHECK_NOTHROW(reader.read(other));
  }
  io::write_file_atomically(io::data_path(prefix), data.substr(0, 6));
  CHECK_THROWS_WITH_AS(io::BundleReader{prefix}, doctest::Contains("only 6 bytes"),
                       tf::DataLossError);
  fs::remove(io::data_path(prefix));
  const std::string expected = io::data_path(prefix) + "; No such file or directory";
  CHECK_THROWS_WITH_AS(io::BundleReader{prefix}, doctest::Contains(expected.c_str()),
                       tf::NotFoundError);
  CHECK_THROWS_WITH_AS(io::BundleReader{prefix}, doctest::Contains("data shard 0 of 1"),
                       tf::NotFoundError);
}

TEST_CASE("tf_checkpoint: several blocks and shards, shared key prefixes, other dtypes") {
  TempDir dir("written");
  const std::string prefix = dir / "model";
  // 40 float tensors "layer_00/w" .. in two shards, 7 entries a block, restarts every 3.
  std::vector<KV> entries = {{"", header_proto(2)}};
  std::string shard0, shard1;
  for (int i = 0; i < 40; ++i) {
    const std::string name = std::string("layer_") + (i < 10 ? "0" : "") + std::to_string(i) + "/w";
    const std::string bytes = bytes_of(std::vector<float>{float(i), float(i) + 0.5f});
    std::string& shard = i % 2 ? shard1 : shard0;
    entries.emplace_back(name, entry_proto(1, {2}, i % 2, shard.size(), bytes));
    shard += bytes;
  }
  // DT_COMPLEX128: listed, its size checked, not readable; an empty int64 tensor.
  entries.emplace_back("m_c128", entry_proto(18, {3}, 0, shard0.size(), std::string(48, '\1')));
  shard0 += std::string(48, '\1');
  entries.emplace_back("n_empty", entry_proto(9, {0, 4}, 0, shard0.size(), ""));
  std::sort(entries.begin(), entries.end());
  io::write_file_atomically(prefix + ".index", table_of(entries, 7, 3));
  io::write_file_atomically(prefix + ".data-00000-of-00002", shard0);
  io::write_file_atomically(prefix + ".data-00001-of-00002", shard1);

  io::BundleReader reader(prefix);
  CHECK(reader.num_shards() == 2);
  CHECK(reader.entries().size() == 42);
  CHECK(reader.data_file(1) == prefix + ".data-00001-of-00002");
  for (int i = 0; i < 40; ++i) {
    const std::string name = std::string("layer_") + (i < 10 ? "0" : "") + std::to_string(i) + "/w";
    CAPTURE(name);
    CHECK(reader.entries().at(name).shard == i % 2);
    CHECK(reader.read(name) == Value({float(i), float(i) + 0.5f}));
  }
  CHECK(io::bundle_dtype_name(reader.entries().at("m_c128")) == "DT_COMPLEX128");
  CHECK_THROWS_WITH_AS(reader.read("m_c128"), doctest::Contains("DT_COMPLEX128"),
                       tf::UnimplementedError);
  CHECK(reader.read("n_empty").dims() == Dims{0, 4});

  // A missing second shard is named.
  fs::remove(prefix + ".data-00001-of-00002");
  const std::string expected = prefix + ".data-00001-of-00002; No such file";
  CHECK_THROWS_WITH_AS(io::BundleReader{prefix}, doctest::Contains(expected.c_str()),
                       tf::NotFoundError);
}

TEST_CASE("tf_checkpoint: big-endian data is swapped, partitioned tensors are assembled") {
  TempDir dir("big_sliced");
  const std::string prefix = dir / "model";
  // A [4,3] float32 tensor "p" saved as two row slices and a [2,1] int64 "q", big-endian.
  std::vector<float> full(12);
  for (int i = 0; i < 12; ++i) full[static_cast<std::size_t>(i)] = float(i) * 1.5f;
  const std::string top =
      big_endian(bytes_of(std::vector<float>(full.begin(), full.begin() + 3)), 4);
  const std::string rest =
      big_endian(bytes_of(std::vector<float>(full.begin() + 3, full.end())), 4);
  const std::string q = big_endian(bytes_of(std::vector<std::int64_t>{-2, 1LL << 40}), 8);
  const std::vector<Extent> top_slice = {{0, 1}, {0, -1}}, rest_slice = {{1, 3}, {0, -1}};
  io::tf_bundle::Slice top_key = {{0, 1}, {0, std::nullopt}};
  io::tf_bundle::Slice rest_key = {{1, 3}, {0, std::nullopt}};
  std::vector<KV> entries = {
      {"", header_proto(1, /*endianness=*/1)},
      {"p", entry_proto(1, {4, 3}, 0, 0, "", {top_slice, rest_slice})},
      {"q", entry_proto(9, {2, 1}, 0, 0, q)},
      {io::tf_bundle::slice_key("p", top_key), entry_proto(1, {1, 3}, 0, q.size(), top)},
      {io::tf_bundle::slice_key("p", rest_key),
       entry_proto(1, {3, 3}, 0, q.size() + top.size(), rest)},
  };
  std::sort(entries.begin(), entries.end());
  io::write_file_atomically(prefix + ".index", table_of(entries));
  io::write_file_atomically(prefix + ".data-00000-of-00001", q + top + rest);

  tf::train::CheckpointReader reader(prefix);
  // The slices' own entries are not listed.
  CHECK(tf::train::list_variables(prefix) ==
        std::vector<std::pair<std::string, Dims>>{{"p", {4, 3}}, {"q", {2, 1}}});
  Value qv = reader.get_tensor("q");
  CHECK(qv.dims() == Dims{2, 1});
  CHECK(qv.data<std::int64_t>()[0] == -2);
  CHECK(qv.data<std::int64_t>()[1] == std::int64_t{1} << 40);
  Value p = reader.get_tensor("p");
  REQUIRE(p.dims() == Dims{4, 3});
  CHECK(std::memcmp(p.raw_data(), full.data(), 48) == 0);

  // Column slices too: [4,3] as columns [0,2) and [2,3).
  const std::string left = bytes_of(std::vector<float>{0, 1, 3, 4, 6, 7, 9, 10});
  const std::string right = bytes_of(std::vector<float>{2, 5, 8, 11});
  std::vector<KV> cols = {
      {"", header_proto(1)},
      {"c", entry_proto(1, {4, 3}, 0, 0, "", {{{0, -1}, {0, 2}}, {{0, -1}, {2, 1}}})},
      {io::tf_bundle::slice_key("c", {{0, std::nullopt}, {0, 2}}),
       entry_proto(1, {4, 2}, 0, 0, left)},
      {io::tf_bundle::slice_key("c", {{0, std::nullopt}, {2, 1}}),
       entry_proto(1, {4, 1}, 0, left.size(), right)},
  };
  std::sort(cols.begin(), cols.end());
  io::write_file_atomically(prefix + ".index", table_of(cols));
  io::write_file_atomically(prefix + ".data-00000-of-00001", left + right);
  Value c = io::BundleReader(prefix).read("c");
  std::vector<float> expected(12);
  for (int i = 0; i < 12; ++i) expected[static_cast<std::size_t>(i)] = float(i);
  CHECK(std::memcmp(c.raw_data(), expected.data(), 48) == 0);

  // Slices that overlap, or lack their entry, or lie outside the tensor, are corrupt.
  auto with_slices = [&](const std::vector<std::vector<Extent>>& slices) {
    std::vector<KV> e = cols;
    for (KV& kv : e)
      if (kv.first == "c") kv.second = entry_proto(1, {4, 3}, 0, 0, "", slices);
    io::write_file_atomically(prefix + ".index", table_of(e));
  };
  // Slices that leave a gap are a checkpoint shard's part (a sharded save spreads a
  // tensor's slices over its devices' shards): it opens, reads what it holds, and
  // refuses what it does not.
  with_slices({{{0, -1}, {0, 2}}});
  io::BundleReader part(prefix);
  CHECK(part.read_slice("c", {1, 0}, {2, 2}) == tf::Value({{3.0f, 4.0f}, {6.0f, 7.0f}}));
  CHECK_THROWS_WITH_AS(part.read("c"), doctest::Contains("its slices hold 8 of its 12 elements"),
                       tf::DataLossError);
  CHECK_THROWS_WITH_AS(part.read_slice("c", {0, 1}, {1, 2}),
                       doctest::Contains("its slices hold 1 of its 2 elements"), tf::DataLossError);
  with_slices({{{0, -1}, {0, 2}}, {{0, -1}, {2, 1}}, {{0, -1}, {2, 1}}});
  CHECK_THROWS_WITH_AS(io::BundleReader{prefix}, doctest::Contains("overlaps"), tf::DataLossError);
  with_slices({{{0, -1}, {0, 2}}, {{0, 2}, {2, 1}}, {{2, 2}, {2, 1}}});
  CHECK_THROWS_WITH_AS(io::BundleReader{prefix}, doctest::Contains("has no entry in the index"),
                       tf::DataLossError);
  with_slices({{{0, -1}, {0, 2}}, {{0, -1}, {2, 2}}});
  CHECK_THROWS_WITH_AS(io::BundleReader{prefix}, doctest::Contains("outside the dimension"),
                       tf::DataLossError);
}

TEST_CASE("tf_checkpoint: malformed tables and headers are DataLossError naming the index") {
  TempDir dir("malformed");
  const std::string prefix = dir / "m";
  const std::string index_file = prefix + ".index";
  const std::string bytes = bytes_of(std::vector<float>{1, 2});
  io::write_file_atomically(prefix + ".data-00000-of-00001", bytes);
  const KV header = {"", header_proto(1)};
  const KV good = {"w", entry_proto(1, {2}, 0, 0, bytes)};

  struct Case {
    std::string name, index, expected;
  };
  std::string unsorted = table_of({header, good, {"a", entry_proto(1, {2}, 0, 0, bytes)}});
  std::string padded = table_of({header, good});
  padded[padded.size() - 10] = 1;  // a footer padding byte
  const std::vector<Case> cases = {
      // Neither JSON nor a table: the JSON reader's message says both.
      {"empty", "", "nor is it a TensorFlow table"},
      {"no magic", std::string(60, '\0'), "nor is it a TensorFlow table"},
      {"keys out of order", unsorted, "increasing order"},
      {"nonzero padding", padded, "padding byte"},
      {"no header", table_of({good}), "no header entry"},
      {"no entries", table_of({}), "no header entry"},
      {"zero shards", table_of({{"", header_proto(0)}, good}), "num_shards is 0"},
      {"endianness 2", table_of({{"", header_proto(1, 2)}, good}), "endianness 2"},
      {"size mismatch", table_of({header, {"w", entry_proto(1, {3}, 0, 0, bytes)}}),
       "has size 8 but shape [3] of DT_FLOAT needs 12 bytes"},
      {"shard out of range", table_of({header, {"w", entry_proto(1, {2}, 3, 0, bytes)}}),
       "is in shard 3 but the checkpoint has 1"},
      {"beyond the data", table_of({header, {"w", entry_proto(1, {2}, 0, 4, bytes)}}),
       "only 8 bytes"},
      {"reference dtype", table_of({header, {"w", entry_proto(101, {2}, 0, 0, bytes)}}),
       "DT_FLOAT_REF"},
      {"no dtype", table_of({header, {"w", entry_proto(0, {2}, 0, 0, bytes)}}), "DT_INVALID"},
      {"negative dim", table_of({header, {"w", entry_proto(1, {-1}, 0, 0, bytes)}}),
       "dimension -1"},
      {"bad proto", table_of({header, {"w", "\x0a\x10"}}), "tensor 'w'"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    io::write_file_atomically(index_file, c.index);
    try {
      (void)outcome(prefix);
      FAIL("no error");
    } catch (const tf::DataLossError& e) {
      const std::string msg = e.what();
      CAPTURE(msg);
      CHECK(msg.find(c.expected) != std::string::npos);
      CHECK(msg.find(prefix) != std::string::npos);
    }
  }
  // The table reader alone: a file shorter than a footer, a footer without the magic.
  CHECK_THROWS_WITH_AS(io::read_sorted_table(std::string("\x57\xfb\x80\x8b\x24\x75\x47\xdb"), "T"),
                       doctest::Contains("fewer than the 48"), tf::DataLossError);
  CHECK_THROWS_WITH_AS(io::read_sorted_table(std::string(60, '\0'), "T"),
                       doctest::Contains("T: the file does not end with the table magic"),
                       tf::DataLossError);
  // A checkpoint for a newer reader is refused as such.
  io::write_file_atomically(index_file, table_of({{"", header_proto(1, 0, 2)}, good}));
  CHECK_THROWS_WITH_AS(io::BundleReader{prefix}, doctest::Contains("min_consumer 2"),
                       tf::UnimplementedError);
  // The well-formed table reads.
  io::write_file_atomically(index_file, table_of({header, good}));
  CHECK(io::BundleReader(prefix).read("w") == Value({1.0f, 2.0f}));
}

}  // namespace symflow_test_io_tf_checkpoint_test
