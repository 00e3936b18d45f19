// summary::FileWriter's queue and background flush (io/summary_writer.hpp), as
// TensorFlow's EventFileWriter behaves: an event reaches the file within flush_secs with
// no flush call, none is lost on close or destruction, and image and audio summaries
// (ops/summary_ops.hpp) read back from the file.

#include <doctest/doctest.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <symflow/io/event_file.hpp>
#include <symflow/io/summary_writer.hpp>
#include <symflow/ops/summary_ops.hpp>
#include <symflow/symflow.hpp>

#include "../test_util.hpp"

namespace symflow_test_io_summary_writer_test {

using namespace symflow;
using namespace symflow::test;
using namespace std::chrono_literals;

inline std::string one_scalar(float value) {
  std::string summary;
  io::summary_proto::append_simple_value(summary, "loss", value);
  return summary;
}

// How many events the file holds now, polled until there are `want` or `limit` passes.
inline std::size_t wait_for_events(const std::filesystem::path& file, std::size_t want,
                                   std::chrono::milliseconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  std::size_t count = summary::summary_iterator(file).size();
  while (count < want && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(10ms);
    count = summary::summary_iterator(file).size();
  }
  return count;
}

TEST_CASE("io/summary_writer: the background thread writes an event within flush_secs") {
  TempDir dir("summary_writer_flush");
  summary::FileWriter writer(dir / "fast", std::nullopt, {.flush_secs = 0.2});
  writer.add_summary(one_scalar(1.5f), 7);
  // Below max_queue (10) and with no flush call: only the background thread writes it.
  REQUIRE(wait_for_events(writer.path(), 2, 5000ms) == 2);
  const auto events = summary::summary_iterator(writer.path());
  CHECK(events[1].step == 7);
  CHECK(events[1].values[0].simple_value == 1.5f);
  // Again later: the thread keeps running after its first write.
  writer.add_summary(one_scalar(2.5f), 8);
  CHECK(wait_for_events(writer.path(), 3, 5000ms) == 3);
}

TEST_CASE("io/summary_writer: with the default flush_secs an event waits in the queue") {
  TempDir dir("summary_writer_wait");
  summary::FileWriter writer(dir / "slow");
  writer.add_summary(one_scalar(1.0f), 1);
  std::this_thread::sleep_for(300ms);
  CHECK(summary::summary_iterator(writer.path()).size() == 1);  // the version event only
  writer.flush();
  CHECK(summary::summary_iterator(writer.path()).size() == 2);
}

TEST_CASE("io/summary_writer: no event is lost, from several threads, on destruction") {
  TempDir dir("summary_writer_all");
  std::filesystem::path file;
  {
    summary::FileWriter writer(dir / "busy", std::nullopt, {.max_queue = 7, .flush_secs = 0.005});
    file = writer.path();
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&writer, t] {
        for (int i = 0; i < 250; ++i)
          writer.add_summary(one_scalar(static_cast<float>(i)), t * 1000 + i);
      });
    for (std::thread& thread : threads) thread.join();
  }  // the destructor stops the thread and writes the rest
  const auto events = summary::summary_iterator(file);
  REQUIRE(events.size() == 1001);
  std::vector<int> seen(4, 0);
  for (std::size_t i = 1; i < events.size(); ++i) {
    const auto thread = static_cast<std::size_t>(events[i].step / 1000);
    REQUIRE(thread < 4);
    CHECK(events[i].step % 1000 == seen[thread]);  // each thread's events in its order
    ++seen[thread];
  }
  CHECK(seen == std::vector<int>{250, 250, 250, 250});
}

TEST_CASE("io/summary_writer: close writes the queue, and a later close or flush does nothing") {
  TempDir dir("summary_writer_close");
  summary::FileWriter writer(dir / "run", std::nullopt, {.max_queue = 100});
  for (int i = 0; i < 25; ++i) writer.add_summary(one_scalar(0.0f), i);
  CHECK(summary::summary_iterator(writer.path()).size() == 1);
  writer.close();
  CHECK(summary::summary_iterator(writer.path()).size() == 26);
  writer.close();
  writer.flush();
  writer.add_summary(one_scalar(0.0f), 99);  // dropped, as TensorFlow drops it
  CHECK(summary::summary_iterator(writer.path()).size() == 26);
}

TEST_CASE("io/summary_writer: an unusable logdir is a typed error naming it") {
  TempDir dir("summary_writer_bad");
  const std::string a_file = dir / "afile";
  std::ofstream(a_file) << "x";
  const std::string below_file = a_file + "/logs";
  auto e = thrown<FailedPreconditionError>([&] { summary::FileWriter w(below_file); });
  REQUIRE(e);
  CHECK(contains(e->message(), below_file));
}

TEST_CASE("io/summary_writer: image and audio summaries read back from the event file") {
#if !(defined(SYMFLOW_HAVE_PNG) && SYMFLOW_HAVE_PNG)
  return;  // image summaries need libpng
#endif
  TempDir dir("summary_writer_media");
  Graph g;
  auto guard = g.as_default();
  auto pictures = summary::image("pictures", zeros<float>(Shape{2, 3, 5, 3}));
  auto clip = summary::audio("clip", zeros<float>(Shape{1, 100}), 8000.0f);
  auto merged = summary::merge_all();
  REQUIRE(merged);
  std::filesystem::path file;
  {
    summary::FileWriter writer(dir / "media", g);
    file = writer.path();
    Session sess(g);
    writer.add_summary(sess.run(*merged), 3);
  }
  const auto events = summary::summary_iterator(file);
  REQUIRE(events.size() == 3);
  const auto& values = events[2].values;
  REQUIRE(values.size() == 3);
  CHECK(values[0].tag == "pictures/image/0");
  CHECK(values[1].tag == "pictures/image/1");
  REQUIRE(values[1].image);
  CHECK(values[1].image->height == 3);
  CHECK(values[1].image->width == 5);
  CHECK(values[1].image->colorspace == 3);
  CHECK(values[2].tag == "clip/audio/0");
  REQUIRE(values[2].audio);
  CHECK(values[2].audio->length_frames == 100);
  CHECK(values[2].audio->encoded_audio_string.substr(0, 4) == "RIFF");
}

}  // namespace symflow_test_io_summary_writer_test
