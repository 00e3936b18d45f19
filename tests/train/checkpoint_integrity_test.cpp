// A checkpoint is checked, not trusted, all the way through the API a user calls: every
// truncation and every single bit flip of a saved `.index` or `.data-00000-of-00001`, given
// to Saver::restore, is a DataLossError naming the damaged file, or (for a flip the format
// cannot see, such as a padding bit) restores exactly the saved values. Never other values,
// never another exception type. The same holds for TensorFlow's V2 format, as symflow writes
// it and as TensorFlow itself wrote the half_plus_two fixture.
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <symflow/io/checkpoint_bundle.hpp>
#include <symflow/io/checkpoint_paths.hpp>
#include <symflow/symflow.hpp>
#include <symflow/train/checkpoint_utils.hpp>
#include <symflow/train/saver.hpp>

#include "../test_util.hpp"

namespace symflow_test_train_checkpoint_integrity_test {

namespace tf = symflow;
namespace fs = std::filesystem;

namespace {

const std::string kHalfPlusTwo =
    std::string(SYMFLOW_SHARED_DIR) + "/fixtures/tf/tf1_half_plus_two_ckpt/export";

void write_bytes(const std::string& file, const std::string& bytes) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << bytes;
  REQUIRE(out.good());
}

using Outcomes = tf::test::DamageOutcomes;

void check_outcomes(const Outcomes& out) { out.check(); }

// A graph's variables, a Saver over them and a session: restore() is tried again and again,
// and the variables are fetched after each restore that succeeds.
struct Restorer {
  tf::Graph graph;
  std::vector<tf::Variable> variables;
  std::vector<tf::Fetch> fetches;
  std::vector<tf::Value> reference;  // what a restore of the undamaged files gives
  std::string prefix;

  // Restores from `prefix` and sorts the outcome. `file` is the damaged file, which a
  // DataLossError must name; a failed restore changes no variable, so the values only need
  // checking after a restore that succeeds.
  void attempt(tf::train::Saver& saver, tf::Session& sess, const std::string& file,
               const std::string& damage, Outcomes& out) const {
    out.attempt(file, damage, [&] {
      saver.restore(sess, prefix);
      return sess.run(fetches) == reference;
    });
  }
};

// Sets one byte of a file in place. The loops below make thousands of variants, and
// rewriting the whole file each time makes ext4 flush it on every close (its heuristic for a
// file replaced by truncating it), which takes seconds on a busy disk.
void poke(const std::string& file, std::size_t offset, char byte) {
  std::fstream f(file, std::ios::binary | std::ios::in | std::ios::out);
  f.seekp(static_cast<std::streamoff>(offset));
  f.put(byte);
  if (!f) throw std::runtime_error("cannot change byte " + std::to_string(offset) + " of " + file);
}

// Every bit of `file` flipped in turn, then every proper prefix of it (the file shortened
// a byte at a time), each restored. Afterwards the file holds its original bytes again.
void flip_and_cut(Restorer& r, tf::train::Saver& saver, tf::Session& sess, const std::string& file,
                  Outcomes& flips, Outcomes& cuts) {
  const std::string bytes = tf::test::read_file(file);
  for (std::size_t bit = 0; bit < bytes.size() * 8; ++bit) {
    const std::size_t byte = bit / 8;
    poke(file, byte, static_cast<char>(bytes[byte] ^ (1 << (bit % 8))));
    r.attempt(saver, sess, file, "bit " + std::to_string(bit), flips);
    poke(file, byte, bytes[byte]);
  }
  for (std::size_t n = bytes.size(); n-- > 0;) {
    fs::resize_file(file, n);
    r.attempt(saver, sess, file, "cut at " + std::to_string(n), cuts);
  }
  write_bytes(file, bytes);
}

// A model with a variable of every dtype symflow's checkpoint holds, saved by a Saver in
// `format` under `dir`; returns the checkpoint prefix.
std::string save_every_dtype(const fs::path& dir, tf::train::FileFormat format) {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Variable kernel(tf::Value({{0.5f, -1.25f, 3.0f}, {1e-3f, -0.0f, 7.0f}}), {.name = "kernel"});
  tf::Variable scale(tf::Value(2.718281828459045), {.name = "scale"});
  tf::Variable counts(tf::Value({std::int32_t{-7}, std::int32_t{40000}}), {.name = "counts"});
  tf::Variable step(tf::Value(std::int64_t{1} << 40), {.name = "global_step"});
  tf::Variable pixels(tf::Value::from_vector<std::uint8_t>({0, 127, 255}, {3}), {.name = "pixels"});
  tf::Variable mask(tf::Value::from_vector<bool>({true, false, true}, {3}), {.name = "mask"});
  tf::train::Saver saver({.format = format});
  tf::Session sess;
  sess.run(tf::global_variables_initializer());
  return saver.save(sess, (dir / "model.ckpt").string(),
                    {.write_meta_graph = false, .write_state = false});
}

// The same variables, with other initial values, in a fresh graph that restores them.
void build_every_dtype(Restorer& r) {
  auto guard = r.graph.as_default();
  r.variables = {
      tf::Variable(tf::Value::filled<float>({2, 3}, 0.0f), {.name = "kernel"}),
      tf::Variable(tf::Value(0.0), {.name = "scale"}),
      tf::Variable(tf::Value::filled<std::int32_t>({2}, 0), {.name = "counts"}),
      tf::Variable(tf::Value(std::int64_t{0}), {.name = "global_step"}),
      tf::Variable(tf::Value::filled<std::uint8_t>({3}, 0), {.name = "pixels"}),
      tf::Variable(tf::Value::filled<bool>({3}, false), {.name = "mask"}),
  };
  for (const tf::Variable& v : r.variables) r.fetches.emplace_back(v);
}

// `max_identical`: how many index flips the format cannot see (see the callers).
void check_format(tf::train::FileFormat format, const std::string& tag, int max_identical) {
  const fs::path dir = tf::test::fresh_dir("checkpoint_integrity_test_" + tag);
  Restorer r;
  r.prefix = save_every_dtype(dir, format);
  build_every_dtype(r);
  auto guard = r.graph.as_default();
  tf::train::Saver saver(r.variables);
  tf::Session sess;
  saver.restore(sess, r.prefix);
  r.reference = sess.run(r.fetches);
  REQUIRE(r.reference[3].scalar<std::int64_t>() == std::int64_t{1} << 40);
  REQUIRE(r.reference[5] == tf::Value::from_vector<bool>({true, false, true}, {3}));

  Outcomes index_flips, index_cuts, data_flips, data_cuts;
  flip_and_cut(r, saver, sess, tf::io::index_path(r.prefix), index_flips, index_cuts);
  flip_and_cut(r, saver, sess, tf::io::data_path(r.prefix), data_flips, data_cuts);
  check_outcomes(index_flips);
  check_outcomes(index_cuts);
  check_outcomes(data_flips);
  check_outcomes(data_cuts);
  // Every cut loses bytes a tensor needs, and every data bit is covered by a tensor's CRC.
  CHECK(index_cuts.identical == 0);
  CHECK(data_cuts.identical == 0);
  CHECK(data_flips.identical == 0);
  CHECK(index_flips.data_loss > 0);
  CHECK(index_flips.identical <= max_identical);
  // After all that, the undamaged files restore as before.
  saver.restore(sess, r.prefix);
  CHECK(sess.run(r.fetches) == r.reference);
}

}  // namespace

TEST_CASE("train/checkpoint_integrity: every flip and cut of symflow's .index and .data") {
  // The flips that change nothing: the case of a hex letter of the "checksum" value (at most
  // 8), and 7 bits of each of the 8 letters of the key "checksum" (the eighth makes invalid
  // UTF-8): the index then reads as one written before checksums, with an unknown member,
  // which a reader ignores (docs/formats.md), and every other byte is intact.
  check_format(tf::train::FileFormat::symflow, "symflow", 8 + 8 * 7);
}

TEST_CASE("train/checkpoint_integrity: every flip and cut of a TensorFlow-format checkpoint") {
  // The one flip a V2 index cannot see: the continuation bit of the footer's last varint,
  // whose next byte is zero padding, so the number it reads is the same.
  check_format(tf::train::FileFormat::tensorflow, "tensorflow", 1);
}

TEST_CASE("train/checkpoint_integrity: every flip and cut of TensorFlow's half_plus_two") {
  const fs::path dir = tf::test::fresh_dir("checkpoint_integrity_test_half_plus_two");
  Restorer r;
  r.prefix = (dir / "export").string();
  // A copy: the fixture itself is read-only.
  write_bytes(tf::io::index_path(r.prefix), tf::test::read_file(tf::io::index_path(kHalfPlusTwo)));
  write_bytes(tf::io::data_path(r.prefix), tf::test::read_file(tf::io::data_path(kHalfPlusTwo)));
  {
    auto guard = r.graph.as_default();
    // TensorFlow 0.12 named the model's two variables "Variable" and "Variable_1".
    r.variables = {tf::Variable(tf::Value(0.0f)), tf::Variable(tf::Value(0.0f))};
    REQUIRE(r.variables[1].op().name() == "Variable_1");
    for (const tf::Variable& v : r.variables) r.fetches.emplace_back(v);
  }
  auto guard = r.graph.as_default();
  tf::train::Saver saver(r.variables);
  tf::Session sess;
  saver.restore(sess, r.prefix);
  r.reference = sess.run(r.fetches);
  REQUIRE(r.reference == std::vector<tf::Value>{tf::Value(0.5f), tf::Value(2.0f)});

  Outcomes index_flips, index_cuts, data_flips, data_cuts;
  flip_and_cut(r, saver, sess, tf::io::index_path(r.prefix), index_flips, index_cuts);
  flip_and_cut(r, saver, sess, tf::io::data_path(r.prefix), data_flips, data_cuts);
  check_outcomes(index_flips);
  check_outcomes(index_cuts);
  check_outcomes(data_flips);
  check_outcomes(data_cuts);
  CHECK(index_flips.tries == 142 * 8);
  CHECK(index_cuts.identical == 0);
  CHECK(data_cuts.identical == 0);
  CHECK(data_flips.identical == 0);
  CHECK(index_flips.identical <= 1);  // the footer's varint, as above

  // The checkpoint reader API gives the same answer for a damaged index.
  const std::string index = tf::test::read_file(tf::io::index_path(r.prefix));
  std::string damaged = index;
  damaged[damaged.size() / 2] = static_cast<char>(damaged[damaged.size() / 2] ^ 0x10);
  write_bytes(tf::io::index_path(r.prefix), damaged);
  CHECK_THROWS_WITH_AS(tf::train::CheckpointReader{r.prefix},
                       doctest::Contains(tf::io::index_path(r.prefix).c_str()), tf::DataLossError);
  write_bytes(tf::io::index_path(r.prefix), index);
  CHECK(tf::train::CheckpointReader(r.prefix).get_tensor("Variable_1") == tf::Value(2.0f));
}

}  // namespace symflow_test_train_checkpoint_integrity_test
