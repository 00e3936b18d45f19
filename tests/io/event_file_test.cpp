// TensorBoard event files: summary::FileWriter and summary::summary_iterator
// (io/summary_writer.hpp, io/event_file.hpp). The fixture
// tests/data/tf_events/events.out.tfevents.1795752432.vm.fixture was written by
// TensorFlow 2.21's tf.summary.FileWriter (see its README); the error offsets come from
// TensorFlow's tf.train.summary_iterator reading the same damaged bytes.

#include <doctest/doctest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include <symflow/io/event_file.hpp>
#include <symflow/io/summary_writer.hpp>
#include <symflow/ops/summary_ops.hpp>
#include <symflow/symflow.hpp>

#include "../test_util.hpp"

namespace symflow_test_io_event_file_test {

using namespace symflow;
using namespace symflow::test;

const char* const kFixture = "data/tf_events/events.out.tfevents.1795752432.vm.fixture";

inline std::filesystem::path only_file(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) files.push_back(entry.path());
  REQUIRE(files.size() == 1);
  return files[0];
}

TEST_CASE("io/event_file: a file TensorFlow wrote reads back") {
  const std::string bytes = read_test_data(kFixture);
  const auto events = io::parse_events(bytes, "fixture");
  // TF's summary_iterator: the version event, then "loss" at steps 0, 1, 2 = 0, 0.5, 1.
  REQUIRE(events.size() == 4);
  CHECK(events[0].wall_time == 1795752432.0);
  CHECK(events[0].file_version == "brain.Event:2");
  CHECK(events[0].source_writer == "tensorflow.core.util.events_writer");
  const std::vector<float> losses{0.0f, 0.5f, 1.0f};
  for (std::size_t i = 1; i < 4; ++i) {
    CHECK(events[i].step == static_cast<std::int64_t>(i - 1));
    CHECK_FALSE(events[i].file_version);
    REQUIRE(events[i].values.size() == 1);
    CHECK(events[i].values[0].tag == "loss");
    CHECK(events[i].values[0].simple_value == losses[i - 1]);
  }
  CHECK(events[1].wall_time == doctest::Approx(1795752432.2443004));
  // Serialized and framed again, every event gives TensorFlow's bytes back.
  std::string again;
  for (const io::Event& e : events) again += io::frame_record(io::serialize_event(e));
  CHECK(again == bytes);
  // summary_iterator reads it from disk too.
  CHECK(summary::summary_iterator(std::string(SYMFLOW_SOURCE_DIR) + "/tests/" + kFixture).size() ==
        4);
}

TEST_CASE("io/event_file: damaged records are DataLossErrors at TensorFlow's offsets") {
  const std::string bytes = read_test_data(kFixture);
  auto error_of = [](const std::string& damaged) {
    auto e = thrown<DataLossError>([&] { io::parse_events(damaged, "f"); });
    REQUIRE(e);
    return e->message();
  };
  // TF: "truncated record at 160", "truncated record at 118", "corrupted record at 12",
  // "corrupted record at 0" (twice), "corrupted record at 90" and "at 172" (data), "at 78"
  // (a header).
  CHECK(error_of(bytes.substr(0, bytes.size() - 3)) == "f: truncated record at 160");
  CHECK(error_of(bytes.substr(0, bytes.size() - 60)) == "f: truncated record at 118");
  auto flipped = [&](std::size_t at) {
    std::string b = bytes;
    b[at] = static_cast<char>(b[at] ^ 1);
    return b;
  };
  CHECK(error_of(flipped(70)) == "f: corrupted record at 12");
  CHECK(error_of(flipped(1)) == "f: corrupted record at 0");
  CHECK(error_of(flipped(9)) == "f: corrupted record at 0");
  CHECK(error_of(flipped(100)) == "f: corrupted record at 90");
  CHECK(error_of(flipped(200)) == "f: corrupted record at 172");
  CHECK(error_of(flipped(80)) == "f: corrupted record at 78");
  // TF ends cleanly inside a header (85 bytes: one event); symflow calls it truncated.
  CHECK(error_of(bytes.substr(0, 85)) == "f: truncated record at 78");
}

TEST_CASE("io/event_file: every flipped byte and every cut is caught, never a crash") {
  const std::string bytes = read_test_data(kFixture);
  const auto records = io::split_records(bytes, "f");
  std::vector<std::size_t> boundaries;
  for (const auto& r : records) boundaries.push_back(r.offset);
  int flips = 0, cuts = 0, clean_ends = 0;
  for (std::size_t at = 0; at < bytes.size(); ++at) {
    for (unsigned char mask : {0x01, 0x80, 0xff}) {
      std::string b = bytes;
      b[at] = static_cast<char>(static_cast<unsigned char>(b[at]) ^ mask);
      flips += thrown<DataLossError>([&] { io::parse_events(b, "f"); }).has_value();
    }
  }
  for (std::size_t size = 1; size < bytes.size(); ++size) {
    const std::string cut = bytes.substr(0, size);
    if (std::find(boundaries.begin(), boundaries.end(), size) != boundaries.end()) {
      // Cut between two records: the events before it, as TensorFlow reads them.
      clean_ends += io::parse_events(cut, "f").size() ==
                    static_cast<std::size_t>(std::find(boundaries.begin(), boundaries.end(), size) -
                                             boundaries.begin());
    } else {
      cuts += thrown<DataLossError>([&] { io::parse_events(cut, "f"); }).has_value();
    }
  }
  CHECK(flips == static_cast<int>(3 * bytes.size()));
  CHECK(clean_ends == 3);
  CHECK(cuts == static_cast<int>(bytes.size()) - 1 - 3);
}

TEST_CASE("io/event_file: FileWriter writes what summary_iterator reads back") {
  TempDir dir("event_file_writer");
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<float>(Shape::unknown(), "x");
  auto loss = summary::scalar("loss", x);
  auto weights = summary::histogram("weights", constant<float>({1.0f, -2.0f, 0.0f, 3.5f, 3.5f}));
  auto merged = summary::merge_all();
  REQUIRE(merged);
  const auto logdir = dir.path() / "run1";
  std::filesystem::path file;
  {
    summary::FileWriter writer(logdir, g, {.filename_suffix = ".v2"});
    file = writer.path();
    Session sess(g);
    for (std::int64_t step = 0; step < 3; ++step)
      writer.add_summary(sess.run(*merged, {{x, Value(0.5f * static_cast<float>(step))}}), step);
    writer.add_summary(sess.run(loss, {{x, Value(7.0f)}}).scalar<std::string>(), 10);
  }  // the destructor flushes
  CHECK(only_file(logdir) == file);
  CHECK(std::regex_match(file.filename().string(),
                         std::regex(R"(events\.out\.tfevents\.\d{10}\..+\.v2)")));
  const auto events = summary::summary_iterator(file);
  REQUIRE(events.size() == 6);
  CHECK(events[0].file_version == "brain.Event:2");
  CHECK(file.filename().string().find(
            std::to_string(static_cast<std::int64_t>(events[0].wall_time))) != std::string::npos);
  REQUIRE(events[1].graph_def);
  const GraphDef graph_def = io::parse_graph_def_binary(*events[1].graph_def, "event");
  CHECK(graph_def.node.size() == g.as_graph_def().node.size());
  CHECK(*events[1].graph_def == io::serialize_graph_def_binary(g.as_graph_def()));
  for (std::int64_t step = 0; step < 3; ++step) {
    const io::Event& e = events[static_cast<std::size_t>(2 + step)];
    CHECK(e.step == step);
    CHECK(e.wall_time >= events[0].wall_time);
    REQUIRE(e.values.size() == 2);
    CHECK(e.values[0].tag == "loss");
    CHECK(e.values[0].simple_value == 0.5f * static_cast<float>(step));
    CHECK(e.values[1].tag == "weights");
    REQUIRE(e.values[1].histo);
    CHECK(e.values[1].histo->sum_squares == 29.5);
  }
  CHECK(events[5].step == 10);
  CHECK(events[5].values[0].simple_value == 7.0f);
}

TEST_CASE("io/event_file: FileWriter queues max_queue events, and flush and close") {
  TempDir dir("event_file_queue");
  summary::FileWriter writer(dir.path(), std::nullopt, {.max_queue = 2});
  std::string one;
  io::summary_proto::append_simple_value(one, "a", 1.0f);
  CHECK(summary::summary_iterator(writer.path()).size() == 1);  // the version, at once
  writer.add_summary(one, 1);
  CHECK(summary::summary_iterator(writer.path()).size() == 1);
  writer.add_summary(one, 2);
  CHECK(summary::summary_iterator(writer.path()).size() == 3);
  writer.add_summary(one, 3);
  writer.flush();
  CHECK(summary::summary_iterator(writer.path()).size() == 4);
  writer.close();
  writer.add_summary(one, 4);  // dropped after close, as TensorFlow drops it
  writer.flush();
  CHECK(summary::summary_iterator(writer.path()).size() == 4);
}

TEST_CASE("io/event_file: FileWriter's errors") {
  TempDir dir("event_file_errors");
  // TF: NotFoundError "/proc/nonexistent; No such file or directory", and
  // FailedPreconditionError "<file> is not a directory".
  auto nf = thrown<NotFoundError>([] { summary::FileWriter("/proc/nonexistent/x"); });
  REQUIRE(nf);
  CHECK(contains(nf->message(), "/proc/nonexistent"));
  CHECK(contains(nf->message(), "No such file or directory"));
  const std::string a_file = dir / "afile";
  std::ofstream(a_file) << "x";
  auto fp = thrown<FailedPreconditionError>([&] { summary::FileWriter w(a_file); });
  REQUIRE(fp);
  CHECK(fp->message() == a_file + " is not a directory");

  summary::FileWriter writer(dir / "logs");
  auto bad = thrown<InvalidArgumentError>([&] { writer.add_summary(std::string("abc"), 1); });
  REQUIRE(bad);
  CHECK(contains(bad->message(), "add_summary needs a serialized Summary"));
  auto not_string = thrown<InvalidArgumentError>([&] { writer.add_summary(Value(1.5f), 1); });
  REQUIRE(not_string);
  CHECK(contains(not_string->message(), "string scalar"));
  auto missing = thrown<NotFoundError>([&] { summary::summary_iterator(dir / "none"); });
  REQUIRE(missing);
  CHECK(contains(missing->message(), "none"));
}

}  // namespace symflow_test_io_event_file_test
