#pragma once
// tf.summary.FileWriter (TensorFlow 1.x) and tf.train.summary_iterator: event files for
// TensorBoard in a log directory. The framing and the Event proto are io/event_file.hpp.
//
//   summary::FileWriter writer("logs/run1", graph);
//   writer.add_summary(sess.run(merged), step);   // the bytes of a summary op
//   writer.close();                               // or let the destructor flush
//
// Events are queued and written when max_queue of them wait, on flush(), close() and
// destruction, and by a background thread every flush_secs, as TensorFlow's
// EventFileWriter does: an event reaches the file within flush_secs even when no other
// event follows it.

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
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
  double flush_secs = 120;  // the longest an event waits: the background thread's period
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
    flusher_ = std::thread([this] { flush_periodically(); });
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
    if (event.wall_time == 0)
      event.wall_time =
          std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
              .count();
    std::string record = io::frame_record(io::serialize_event(event));
    std::lock_guard lock(mutex_);
    if (closed_) return;
    queue_.push_back(std::move(record));
    if (static_cast<int>(queue_.size()) >= options_.max_queue) write_queue();
    throw_failure();
  }

  // Writes the queued events to the file. A write that failed (here or in the background)
  // is a DataLossError naming the file.
  void flush() {
    std::lock_guard lock(mutex_);
    if (closed_) return;
    write_queue();
    throw_failure();
  }

  // Stops the background thread, flushes and closes the file; later events are dropped.
  void close() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    if (flusher_.joinable()) flusher_.join();
    std::lock_guard lock(mutex_);
    if (closed_) return;
    write_queue();
    file_.close();
    closed_ = true;
    throw_failure();
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

  // Writes and flushes the queued records; the caller holds mutex_. A failure is kept
  // for the caller (or the next call, when the background thread wrote).
  void write_queue() {
    for (const std::string& record : queue_)
      file_.write(record.data(), static_cast<std::streamsize>(record.size()));
    queue_.clear();
    file_.flush();
    if (!file_) failure_ = path_.string() + ": could not write the event file";
  }
  void throw_failure() {
    if (failure_.empty()) return;
    std::string message = std::move(failure_);
    failure_.clear();
    throw DataLossError(message);
  }

  // The background thread: writes the queue every flush_secs until close().
  void flush_periodically() {
    const auto period = std::max<std::chrono::steady_clock::duration>(
        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
            std::chrono::duration<double>(options_.flush_secs)),
        std::chrono::milliseconds(1));
    std::unique_lock lock(mutex_);
    while (!stopping_) {
      if (wake_.wait_for(lock, period, [this] { return stopping_; })) break;
      if (!closed_) write_queue();
    }
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
  std::vector<std::string> queue_;  // framed records not yet written
  std::string failure_;             // a write that failed, until reported
  bool closed_ = false;
  bool stopping_ = false;
  std::mutex mutex_;  // guards the file, the queue and the flags
  std::condition_variable wake_;
  std::thread flusher_;
};

// tf.train.summary_iterator(path): every event of an event file, each record's checksums
// checked (a damaged or cut-off record is a DataLossError naming the file and offset).
inline std::vector<io::Event> summary_iterator(const std::filesystem::path& path) {
  return io::read_event_file(path);
}

}  // namespace symflow::summary
