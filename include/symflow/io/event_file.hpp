#pragma once
// TensorBoard's event files: TFRecord framing around serialized Event protos
// (TensorFlow's core/util/event.proto), written and read without a protobuf library.
//
// A record is
//   uint64 length | uint32 masked CRC32C of those 8 bytes | data | uint32 masked CRC32C of data
// (little-endian; masked_crc32c is TensorFlow's rotation plus constant). The reader checks
// every checksum and every length and, as TensorFlow's RecordReader, says where a record
// went wrong: "corrupted record at N" (a checksum that does not match; N is the record's
// offset for its header, the data's offset for its data) and "truncated record at N" (the
// file ends inside the record at N), each a DataLossError that starts with the file's
// name. A file that ends between two records ends cleanly. (TensorFlow's reader also ends
// cleanly when the file ends inside a record's 12-byte header; this one reports it as
// truncated, so that no cut goes unnoticed.) The user-facing writer is
// io/summary_writer.hpp.

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "symflow/core/errors.hpp"
#include "symflow/io/crc32c.hpp"
#include "symflow/io/protobuf_wire.hpp"
#include "symflow/io/summary_protos.hpp"

namespace symflow::io {

// Bytes before a record's data: its length and the length's checksum.
inline constexpr std::size_t kRecordHeaderSize = 12;
inline constexpr std::size_t kRecordFooterSize = 4;

// One record's framing around `data`.
inline std::string frame_record(std::string_view data) {
  std::string out;
  out.reserve(data.size() + kRecordHeaderSize + kRecordFooterSize);
  wire::append_fixed64(out, data.size());
  wire::append_fixed32(out, masked_crc32c(crc32c(std::string_view(out.data(), 8))));
  out.append(data);
  wire::append_fixed32(out, masked_crc32c(crc32c(data)));
  return out;
}

// One record of a file: its data, and the offset of its header.
struct Record {
  std::string_view data;
  std::size_t offset = 0;
};

// Every record of `bytes` (the contents of the file `name`), checked.
inline std::vector<Record> split_records(std::string_view bytes, const std::string& name) {
  std::vector<Record> records;
  std::size_t at = 0;
  const auto lost = [&](const char* what, std::size_t offset) {
    throw DataLossError(name + ": " + what + " record at " + std::to_string(offset));
  };
  while (at < bytes.size()) {
    const std::size_t left = bytes.size() - at;
    if (left < kRecordHeaderSize) lost("truncated", at);
    const std::uint64_t length = wire::load_fixed64(bytes.data() + at);
    if (wire::load_fixed32(bytes.data() + at + 8) != masked_crc32c(crc32c(bytes.substr(at, 8))))
      lost("corrupted", at);
    const std::size_t data_at = at + kRecordHeaderSize;
    if (length > left - kRecordHeaderSize || left - kRecordHeaderSize - length < kRecordFooterSize)
      lost("truncated", at);
    const std::string_view data = bytes.substr(data_at, static_cast<std::size_t>(length));
    if (wire::load_fixed32(data.data() + data.size()) != masked_crc32c(crc32c(data)))
      lost("corrupted", data_at);
    records.push_back({data, at});
    at = data_at + data.size() + kRecordFooterSize;
  }
  return records;
}

// Field numbers of Event.
inline constexpr std::uint32_t kEventWallTime = 1;
inline constexpr std::uint32_t kEventStep = 2;
inline constexpr std::uint32_t kEventFileVersion = 3;
inline constexpr std::uint32_t kEventGraphDef = 4;
inline constexpr std::uint32_t kEventSummary = 5;
inline constexpr std::uint32_t kEventSourceMetadata = 10;
inline constexpr std::uint32_t kSourceMetadataWriter = 1;

// A Summary.Value of an event, decoded: its tag, and its simple value, histogram, image
// or audio.
struct SummaryValue {
  std::string tag;
  std::optional<float> simple_value;
  std::optional<summary_proto::Histogram> histo;
  std::optional<summary_proto::Image> image;
  std::optional<summary_proto::Audio> audio;
};

// The fields of an Event that symflow writes and reads. Of the `what` oneof, at most one
// of file_version, graph_def and summary is set; the others (log messages, session logs,
// run metadata, meta graphs) are skipped when read.
struct Event {
  double wall_time = 0;
  std::int64_t step = 0;
  std::optional<std::string> file_version;
  std::optional<std::string> graph_def;  // a binary GraphDef
  std::optional<std::string> summary;    // a serialized Summary
  std::string source_writer;             // source_metadata.writer
  std::vector<SummaryValue> values;      // `summary` decoded (when read)
};

// An Event's bytes, as TensorFlow's SerializeToString orders them (a zero wall_time and
// step left out, the oneof member always written).
inline std::string serialize_event(const Event& e) {
  using summary_proto::append_bytes_field;
  using summary_proto::append_tag;
  std::string out;
  summary_proto::append_double_field(out, kEventWallTime, e.wall_time);
  if (e.step != 0) {
    append_tag(out, kEventStep, wire::WireType::varint);
    wire::append_varint(out, static_cast<std::uint64_t>(e.step));
  }
  if (e.file_version) append_bytes_field(out, kEventFileVersion, *e.file_version);
  if (e.graph_def) append_bytes_field(out, kEventGraphDef, *e.graph_def);
  if (e.summary) append_bytes_field(out, kEventSummary, *e.summary);
  if (!e.source_writer.empty()) {
    std::string metadata;
    append_bytes_field(metadata, kSourceMetadataWriter, e.source_writer);
    append_bytes_field(out, kEventSourceMetadata, metadata);
  }
  return out;
}

// An Event from its bytes; a DataLossError starting with `where` when they are not one.
inline Event parse_event(std::string_view bytes, const std::string& where) {
  Event e;
  wire::WireReader r(bytes, where + ": Event");
  while (r.next()) {
    switch (r.field()) {
      case kEventWallTime:
        e.wall_time = r.float64();
        break;
      case kEventStep:
        e.step = r.int64();
        break;
      case kEventFileVersion:
        e.file_version = std::string(r.bytes());
        break;
      case kEventGraphDef:
        e.graph_def = std::string(r.bytes());
        break;
      case kEventSummary: {
        e.summary = std::string(r.bytes());
        e.values.clear();
        for (auto& v : summary_proto::parse_summary(*e.summary, where))
          e.values.push_back({std::move(v.tag), v.simple_value, std::move(v.histo),
                              std::move(v.image), std::move(v.audio)});
        break;
      }
      case kEventSourceMetadata: {
        wire::WireReader m(r.bytes(), where + ": SourceMetadata");
        while (m.next())
          if (m.field() == kSourceMetadataWriter)
            e.source_writer = std::string(m.bytes());
          else
            m.skip();
        break;
      }
      default:
        r.skip();
    }
  }
  return e;
}

// Every Event of an event file's contents (`name` names it in errors).
inline std::vector<Event> parse_events(std::string_view bytes, const std::string& name) {
  std::vector<Event> events;
  for (const Record& record : split_records(bytes, name))
    events.push_back(
        parse_event(record.data, name + ": record at " + std::to_string(record.offset)));
  return events;
}

// Every Event of the file at `path`: a NotFoundError when it cannot be read.
inline std::vector<Event> read_event_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw NotFoundError(path.string() + "; No such file or directory");
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return parse_events(bytes, path.string());
}

}  // namespace symflow::io
