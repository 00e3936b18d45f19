#pragma once
// tf.summary.FileWriter (TensorFlow 1.x) and tf.train.summary_iterator: event files for
// TensorBoard in a log directory. The framing and the Event proto are io/event_file.hpp.
//
//   summary::FileWriter writer("logs/run1", graph);
//   writer.add_summary(sess.run(merged), step);   // the bytes of a summary op
//   writer.close();                               // or let the destructor flush
//
// Events are queued and written when max_queue of them wait, when flush_secs have passed
// since the last write (checked as events are added: there is no background thread), and
// on flush(), close() and destruction.

#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "symflow/core/errors.hpp"
#include "symflow/core/value.hpp"
#include "symflow/graph/graph.hpp"
#include "symflow/io/event_file.hpp"
#include "symflow/io/graph_io.hpp"
#include "symflow/io/summary_protos.hpp"

namespace symflow::summary {

struct FileWriterOptions {
  int max_queue = 10;       // events held before they are written
  double flush_secs = 120;  // the longest an event waits (checked when one is added)
  std::string filename_suffix = {};
};

class FileWriter {
 public:
  // Creates `logdir` when missing and starts the file
  // "events.out.tfevents.<seconds, 10 digits>.<hostname><suffix>" with the event
  // file_version "brain.Event:2". With a graph, its GraphDef is the next event. A logdir
  // that cannot be made or written is a NotFoundError, PermissionDeniedError or
  // FailedPreconditionError naming it.
  explicit FileWriter(const std::filesystem::path& logdir,
                      const std::optional<Graph>& graph = std::nullopt,
                      FileWriterOptions options = {})
      : logdir_(logdir), options_(std::move(options)) {
    prepare_logdir();
    const auto now =
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    const auto seconds = static_cast<std::int64_t>(now);
    char stamp[32];
    std::snprintf(stamp, sizeof stamp, "%010lld", static_cast<long long>(seconds));
    path_ = logdir_ / ("events.out.tfevents." + std::string(stamp) + "." + hostname() +
                       options_.filename_suffix);
    file_.open(path_, std::ios::binary | std::ios::trunc);
    if (!file_) throw PermissionDeniedError(path_.string() + "; Permission denied");
    io::Event version;
    version.wall_time = static_cast<double>(seconds);
    version.file_version = "brain.Event:2";
    version.source_writer = "symflow";
    queue_.push_back(io::frame_record(io::serialize_event(version)));
    flush();
    if (graph) add_graph(*graph);
  }
  ~FileWriter() {
    try {
      close();
    } catch (...) {  // NOLINT(bugprone-empty-catch): a destructor must not throw
    }
  }
  FileWriter(const FileWriter&) = delete;
  FileWriter& operator=(const FileWriter&) = delete;

  // The log directory and the event file's path.
  const std::filesystem::path& get_logdir() const { return logdir_; }
  const std::filesystem::path& path() const { return path_; }

  // A serialized Summary (what a summary op's tensor holds) as an event at
  // `global_step`. Bytes that are not a Summary are an InvalidArgumentError.
  void add_summary(std::string_view serialized_summary,
                   std::optional<std::int64_t> global_step = std::nullopt) {
    try {
      (void)io::summary_proto::parse_summary(serialized_summary, "add_summary");
    } catch (const DataLossError& e) {
      throw InvalidArgumentError(std::string("add_summary needs a serialized Summary: ") +
                                 e.what());
    }
    io::Event e;
    e.summary = std::string(serialized_summary);
    e.step = global_step.value_or(0);
    add_event(std::move(e));
  }
  // The same from a fetched summary tensor: a string scalar.
  void add_summary(const Value& summary, std::optional<std::int64_t> global_step = std::nullopt) {
    if (summary.dtype() != DType::string || summary.rank() != 0)
      throw InvalidArgumentError("add_summary needs a string scalar (a summary op's value), got " +
                                 std::string(dtype_name(summary.dtype())) + " of shape " +
                                 dims_to_string(summary.dims()));
    add_summary(std::string_view(summary.scalar<std::string>()), global_step);
  }

  // The graph's binary GraphDef as an event (what TensorBoard's Graphs tab shows).
  void add_graph(const Graph& graph, std::optional<std::int64_t> global_step = std::nullopt) {
    io::Event e;
    e.graph_def = io::serialize_graph_def_binary(graph.as_graph_def());
    e.step = global_step.value_or(0);
    add_event(std::move(e));
  }

  // Any event; its wall_time is now when it has none. Events added after close() are
  // dropped, as TensorFlow's writer drops them.
  void add_event(io::Event event) {
    if (closed_) return;
    if (event.wall_time == 0)
      event.wall_time =
          std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
              .count();
    queue_.push_back(io::frame_record(io::serialize_event(event)));
    const bool waited_long = std::chrono::steady_clock::now() - last_flush_ >=
                             std::chrono::duration<double>(options_.flush_secs);
    if (static_cast<int>(queue_.size()) >= options_.max_queue || waited_long) flush();
  }

  // Writes the queued events to the file.
  void flush() {
    if (closed_) return;
    for (const std::string& record : queue_)
      file_.write(record.data(), static_cast<std::streamsize>(record.size()));
    queue_.clear();
    file_.flush();
    last_flush_ = std::chrono::steady_clock::now();
    if (!file_) throw DataLossError(path_.string() + ": could not write the event file");
  }

  // Flushes and closes the file; later events are dropped.
  void close() {
    if (closed_) return;
    flush();
    file_.close();
    closed_ = true;
  }

 private:
  void prepare_logdir() {
    std::error_code ec;
    if (std::filesystem::exists(logdir_, ec) && !std::filesystem::is_directory(logdir_, ec))
      throw FailedPreconditionError(logdir_.string() + " is not a directory");
    std::filesystem::create_directories(logdir_, ec);
    if (!ec) return;
    if (ec == std::errc::permission_denied)
      throw PermissionDeniedError(logdir_.string() + "; Permission denied");
    if (ec == std::errc::not_a_directory)
      throw FailedPreconditionError(logdir_.string() + " is not a directory");
    throw NotFoundError(logdir_.string() + "; " + ec.message());
  }

  static std::string hostname() {
    char name[256] = {};
    if (gethostname(name, sizeof name - 1) != 0) return "localhost";
    return name;
  }

  std::filesystem::path logdir_;
  FileWriterOptions options_;
  std::filesystem::path path_;
  std::ofstream file_;
  std::vector<std::string> queue_;
  std::chrono::steady_clock::time_point last_flush_ = std::chrono::steady_clock::now();
  bool closed_ = false;
};

// tf.train.summary_iterator(path): every event of an event file, each record's checksums
// checked (a damaged or cut-off record is a DataLossError naming the file and offset).
inline std::vector<io::Event> summary_iterator(const std::filesystem::path& path) {
  return io::read_event_file(path);
}

}  // namespace symflow::summary
