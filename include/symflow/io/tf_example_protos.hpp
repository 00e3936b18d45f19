#pragma once
// tf.train.Example, the record ParseExample reads: its messages described once
// (tensorflow/core/example/example.proto and feature.proto), and the reader the
// ParseExample kernel uses (backend/cpu/kernels/parsing.hpp).
//
// The descriptions serve io::proto::encode and decode like the other TensorFlow
// messages (io/tf_protos.hpp). The kernel does not decode into that tree: it reads the
// bytes in place, with the field numbers of these descriptions, and accepts what
// TensorFlow's fast Example parser (core/util/example_proto_fast_parsing.cc) accepts,
// which differs from a full protobuf parse:
//   * a feature's values are read only when its key is asked for, so a damaged value
//     of another key is never seen;
//   * a map entry must hold exactly its key and its value;
//   * a Feature's kind is its first field, and what follows that list is ignored; a
//     list's first packed run is all of it (TensorFlow's writers emit one);
//   * a length that claims more bytes than there are ends at the record's end, so a
//     record cut between two entries still parses (protobuf's limits work so).
// No read goes past the bytes that are there.

#include <algorithm>
#include <bit>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "symflow/io/protobuf_schema.hpp"
#include "symflow/io/protobuf_wire.hpp"

namespace symflow {

namespace io::tf_example {

using proto::FieldDesc;
using proto::Kind;
using proto::MessageDesc;

inline const MessageDesc& example();
inline const MessageDesc& features();
inline const MessageDesc& feature_entry();
inline const MessageDesc& feature();
inline const MessageDesc& bytes_list();
inline const MessageDesc& float_list();
inline const MessageDesc& int64_list();

// example.proto
inline constexpr FieldDesc kExampleFields[] = {
    {1, "features", Kind::message, false, &features},
};
// feature.proto; `feature` is a map<string, Feature>, on the wire a repeated entry.
inline constexpr FieldDesc kFeaturesFields[] = {
    {1, "feature", Kind::message, true, &feature_entry},
};
inline constexpr FieldDesc kFeatureEntryFields[] = {
    {1, "key", Kind::string},
    {2, "value", Kind::message, false, &feature},
};
// Every field is a member of the oneof `kind`.
inline constexpr FieldDesc kFeatureFields[] = {
    {1, "bytes_list", Kind::message, false, &bytes_list, nullptr, true},
    {2, "float_list", Kind::message, false, &float_list, nullptr, true},
    {3, "int64_list", Kind::message, false, &int64_list, nullptr, true},
};
inline constexpr FieldDesc kBytesListFields[] = {{1, "value", Kind::bytes, true}};
inline constexpr FieldDesc kFloatListFields[] = {{1, "value", Kind::float32, true}};  // packed
inline constexpr FieldDesc kInt64ListFields[] = {{1, "value", Kind::int64, true}};    // packed

inline const MessageDesc& example() {
  static constexpr MessageDesc d{"tensorflow.Example", kExampleFields};
  return d;
}
inline const MessageDesc& features() {
  static constexpr MessageDesc d{"tensorflow.Features", kFeaturesFields};
  return d;
}
inline const MessageDesc& feature_entry() {
  static constexpr MessageDesc d{"tensorflow.Features.FeatureEntry", kFeatureEntryFields};
  return d;
}
inline const MessageDesc& feature() {
  static constexpr MessageDesc d{"tensorflow.Feature", kFeatureFields};
  return d;
}
inline const MessageDesc& bytes_list() {
  static constexpr MessageDesc d{"tensorflow.BytesList", kBytesListFields};
  return d;
}
inline const MessageDesc& float_list() {
  static constexpr MessageDesc d{"tensorflow.FloatList", kFloatListFields};
  return d;
}
inline const MessageDesc& int64_list() {
  static constexpr MessageDesc d{"tensorflow.Int64List", kInt64ListFields};
  return d;
}

// One entry of an Example's feature map, as views into the serialized bytes: the key
// and the serialized Feature (empty when the entry's Feature is).
struct FeatureEntry {
  std::string_view key;
  std::string_view feature;
};

// Which list a Feature holds, told by its first field: none for an empty Feature (it
// counts as absent), unsupported for a first field that is no list.
enum class FeatureKind : std::uint8_t { none, bytes, floats, int64s, unsupported };

namespace detail {

// The one-byte tag of field `f` with wire type `type` (every field here is below 16).
constexpr std::uint8_t tag_of(const FieldDesc& f, io::wire::WireType type) {
  return static_cast<std::uint8_t>(f.number << 3 | static_cast<std::uint8_t>(type));
}
inline constexpr auto kLengthDelimited = io::wire::WireType::bytes;
inline constexpr std::uint8_t kFeaturesTag = tag_of(kExampleFields[0], kLengthDelimited);
inline constexpr std::uint8_t kEntryTag = tag_of(kFeaturesFields[0], kLengthDelimited);
inline constexpr std::uint8_t kKeyTag = tag_of(kFeatureEntryFields[0], kLengthDelimited);
inline constexpr std::uint8_t kValueTag = tag_of(kFeatureEntryFields[1], kLengthDelimited);
inline constexpr std::uint8_t kBytesListTag = tag_of(kFeatureFields[0], kLengthDelimited);
inline constexpr std::uint8_t kFloatListTag = tag_of(kFeatureFields[1], kLengthDelimited);
inline constexpr std::uint8_t kInt64ListTag = tag_of(kFeatureFields[2], kLengthDelimited);
// A list's values: packed (one length-delimited run) or one field per value.
inline constexpr std::uint8_t kPackedTag = tag_of(kFloatListFields[0], kLengthDelimited);
inline constexpr std::uint8_t kBytesValueTag = tag_of(kBytesListFields[0], kLengthDelimited);
inline constexpr std::uint8_t kFloatValueTag =
    tag_of(kFloatListFields[0], io::wire::WireType::fixed32);
inline constexpr std::uint8_t kInt64ValueTag =
    tag_of(kInt64ListFields[0], io::wire::WireType::varint);

// Bytes read under protobuf's nested limits: a length opens a limit that the reads
// inside it may not pass. A limit never reaches past the one around it, and the outermost
// is the data's end, so a length that claims too much ends there (as protobuf's
// CodedInputStream over an array has it).
class Cursor {
 public:
  explicit Cursor(std::string_view data) : data_(data), limit_(data.size()) {}

  bool at_limit() const { return pos_ == limit_; }
  std::size_t left() const { return limit_ - pos_; }

  // Consumes `byte` when it is next.
  bool take(std::uint8_t byte) {
    if (left() == 0 || static_cast<std::uint8_t>(data_[pos_]) != byte) return false;
    ++pos_;
    return true;
  }
  std::optional<std::uint8_t> peek() const {
    if (left() == 0) return std::nullopt;
    return static_cast<std::uint8_t>(data_[pos_]);
  }
  bool varint(std::uint64_t& out) {
    const auto v = io::wire::read_varint(data_.substr(0, limit_), pos_);
    if (!v) return false;
    out = *v;
    return true;
  }
  // A length, as protobuf reads one: a varint cut to 32 bits.
  bool length(std::uint32_t& out) {
    std::uint64_t v = 0;
    if (!varint(v)) return false;
    out = static_cast<std::uint32_t>(v);
    return true;
  }
  bool bytes(std::size_t n, std::string_view& out) {
    if (n > left()) return false;
    out = data_.substr(pos_, n);
    pos_ += n;
    return true;
  }
  // Moves past up to `n` bytes, fewer where the data ends first.
  void skip_at_most(std::size_t n) { pos_ += std::min(n, left()); }

  // Opens a limit `n` bytes on (never past the current one); returns the one to restore.
  std::size_t push_limit(std::uint32_t n) {
    const std::size_t old = limit_;
    if (n < limit_ - pos_) limit_ = pos_ + n;
    return old;
  }
  void pop_limit(std::size_t old) { limit_ = old; }

 private:
  std::string_view data_;
  std::size_t limit_;
  std::size_t pos_ = 0;
};

// A length-delimited string field's payload (its tag already read).
inline bool read_string(Cursor& c, std::string_view& out) {
  std::uint32_t n = 0;
  return c.length(n) && c.bytes(n, out);
}

// A field the Example does not know: skipped as TensorFlow skips it (a length past the
// end skips to the end; groups are refused).
inline bool skip_field(Cursor& c) {
  std::uint64_t tag = 0, ignored = 0;
  if (!c.varint(tag)) return false;
  std::string_view view;
  switch (tag & 7u) {
    case 0:
      return c.varint(ignored);
    case 1:
      return c.bytes(8, view);
    case 2: {
      std::uint32_t n = 0;
      if (!c.length(n)) return false;
      c.skip_at_most(n);
      return true;
    }
    case 5:
      return c.bytes(4, view);
    default:
      return false;
  }
}

inline bool read_entry(Cursor& c, FeatureEntry& entry) {
  std::uint32_t n = 0;
  if (!c.length(n)) return false;
  const std::size_t outer = c.push_limit(n);
  // Exactly a key and a value, in either order.
  for (int field = 0; field < 2; ++field) {
    std::uint64_t tag = 0;
    if (c.at_limit() || !c.varint(tag)) return false;
    if (tag == kKeyTag) {
      if (!read_string(c, entry.key)) return false;
    } else if (tag == kValueTag) {
      if (!read_string(c, entry.feature)) return false;
    } else {
      return false;
    }
  }
  if (!c.at_limit()) return false;
  c.pop_limit(outer);
  return true;
}

inline bool read_features(Cursor& c, std::vector<FeatureEntry>& entries) {
  std::uint32_t n = 0;
  if (!c.length(n)) return false;
  const std::size_t outer = c.push_limit(n);
  while (!c.at_limit()) {
    FeatureEntry entry;
    if (!c.take(kEntryTag) || !read_entry(c, entry)) return false;
    entries.push_back(entry);
  }
  c.pop_limit(outer);
  return true;
}

// Opens the list of `feature` (its kind byte already checked): a cursor limited to it.
inline bool open_list(std::string_view feature, Cursor& c) {
  c = Cursor(feature.substr(1));
  std::uint32_t n = 0;
  if (!c.length(n)) return false;
  c.push_limit(n);
  return true;
}

// A packed run's payload bytes: its length, limited to the list's.
inline bool open_packed_run(Cursor& c, std::uint32_t& n) {
  return c.take(kPackedTag) && c.length(n);
}

}  // namespace detail

// The feature map's entries of `serialized`, in the order they are on the wire (a key
// may come twice: the last one counts, as in protobuf's maps). Concatenated Examples
// are one Example, as protobuf merges them. nullopt when the bytes are no Example.
inline std::optional<std::vector<FeatureEntry>> example_entries(std::string_view serialized) {
  std::vector<FeatureEntry> entries;
  detail::Cursor c(serialized);
  while (!c.at_limit()) {
    if (c.take(detail::kFeaturesTag)) {
      if (!detail::read_features(c, entries)) return std::nullopt;
    } else if (!detail::skip_field(c)) {
      return std::nullopt;
    }
  }
  return entries;
}

inline FeatureKind feature_kind(std::string_view feature) {
  if (feature.empty()) return FeatureKind::none;
  switch (static_cast<std::uint8_t>(feature[0])) {
    case detail::kBytesListTag:
      return FeatureKind::bytes;
    case detail::kFloatListTag:
      return FeatureKind::floats;
    case detail::kInt64ListTag:
      return FeatureKind::int64s;
    default:
      return FeatureKind::unsupported;
  }
}

// The values of a Feature of kind bytes / floats / int64s, appended to `out`; false when
// its bytes are damaged. Reading stops at `max_values + 1` values for bytes (a fixed-size
// output that overflows is an error before any more is copied), as TensorFlow's does.
inline bool read_bytes_list(std::string_view feature, std::vector<std::string>& out,
                            std::size_t max_values = SIZE_MAX) {
  detail::Cursor c{std::string_view{}};
  if (feature_kind(feature) != FeatureKind::bytes || !detail::open_list(feature, c)) return false;
  std::size_t count = 0;
  while (!c.at_limit()) {
    std::string_view value;
    if (!c.take(detail::kBytesValueTag) || !detail::read_string(c, value)) return false;
    if (++count > max_values) return false;
    out.emplace_back(value);
  }
  return true;
}

inline bool read_float_list(std::string_view feature, std::vector<float>& out) {
  detail::Cursor c{std::string_view{}};
  if (feature_kind(feature) != FeatureKind::floats || !detail::open_list(feature, c)) return false;
  if (c.at_limit()) return true;
  const auto store = [&](std::string_view four) {
    out.push_back(std::bit_cast<float>(io::wire::load_fixed32(four.data())));
  };
  if (c.peek() == detail::kPackedTag) {
    std::uint32_t n = 0;
    if (!detail::open_packed_run(c, n)) return false;
    // Whole floats only: a run's last partial float is dropped, as TensorFlow drops it.
    std::string_view run;
    if (!c.bytes(n / 4 * 4, run)) return false;
    out.reserve(out.size() + run.size() / 4);
    for (std::size_t at = 0; at < run.size(); at += 4) store(run.substr(at, 4));
    return true;
  }
  while (!c.at_limit()) {
    std::string_view four;
    if (!c.take(detail::kFloatValueTag) || !c.bytes(4, four)) return false;
    store(four);
  }
  return true;
}

inline bool read_int64_list(std::string_view feature, std::vector<std::int64_t>& out) {
  detail::Cursor c{std::string_view{}};
  if (feature_kind(feature) != FeatureKind::int64s || !detail::open_list(feature, c)) return false;
  if (c.at_limit()) return true;
  std::uint64_t v = 0;
  if (c.peek() == detail::kPackedTag) {
    std::uint32_t n = 0;
    if (!detail::open_packed_run(c, n)) return false;
    c.push_limit(n);
    while (!c.at_limit()) {
      if (!c.varint(v)) return false;
      out.push_back(static_cast<std::int64_t>(v));
    }
    return true;
  }
  while (!c.at_limit()) {
    if (!c.take(detail::kInt64ValueTag) || !c.varint(v)) return false;
    out.push_back(static_cast<std::int64_t>(v));
  }
  return true;
}

// TensorFlow's message for bytes that are no Example. It quotes them; a long record only
// by its first 1000 bytes, so that a damaged batch does not make a message of megabytes.
inline std::string unparsable_example_message(std::string_view serialized) {
  constexpr std::size_t kQuoted = 1000;
  std::string quoted(serialized.substr(0, kQuoted));
  if (serialized.size() > kQuoted)
    quoted += "... (" + std::to_string(serialized.size()) + " bytes in all)";
  return "Could not parse example input, value: '" + quoted + "'";
}

}  // namespace io::tf_example

}  // namespace symflow
