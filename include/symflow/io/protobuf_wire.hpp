#pragma once
// Protocol buffers' wire format, read and written without a protobuf library: varints,
// fixed-width little-endian numbers, length-delimited bytes, and the tag (field number
// and wire type) before every field. TensorFlow's binary files (GraphDef, MetaGraphDef,
// SavedModel, the checkpoint index's entries) are made of these; io/protobuf_schema.hpp
// says which field is what. Nothing read is trusted: every length is checked against the
// bytes left, and every defect is a DataLossError naming where it was found.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "symflow/core/errors.hpp"

namespace symflow {

namespace io::wire {

// The low three bits of a tag. Groups (3, 4) are deprecated; a reader skips them.
enum class WireType : std::uint8_t {
  varint = 0,
  fixed64 = 1,
  bytes = 2,
  start_group = 3,
  end_group = 4,
  fixed32 = 5,
};

// The largest field number protobuf allows (2^29 - 1).
inline constexpr std::uint32_t kMaxFieldNumber = (1u << 29) - 1;

// The varint at data[pos], moving pos past it; nullopt when the bytes end first or the
// varint runs past ten bytes (or past 64 bits in its tenth byte).
inline std::optional<std::uint64_t> read_varint(std::string_view data, std::size_t& pos) {
  std::uint64_t value = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (pos >= data.size()) return std::nullopt;
    const auto byte = static_cast<std::uint8_t>(data[pos++]);
    if (shift == 63 && byte > 1) return std::nullopt;
    value |= std::uint64_t{byte & 0x7Fu} << shift;
    if ((byte & 0x80u) == 0) return value;
  }
  return std::nullopt;
}

inline void append_varint(std::string& out, std::uint64_t value) {
  while (value >= 0x80u) {
    out += static_cast<char>((value & 0x7Fu) | 0x80u);
    value >>= 7;
  }
  out += static_cast<char>(value);
}

// Bytes that append_varint(value) writes.
inline std::size_t varint_size(std::uint64_t value) {
  std::size_t n = 1;
  for (; value >= 0x80u; value >>= 7) ++n;
  return n;
}

inline std::uint32_t load_fixed32(const char* p) {
  const auto* b = reinterpret_cast<const unsigned char*>(p);
  return std::uint32_t{b[0]} | std::uint32_t{b[1]} << 8 | std::uint32_t{b[2]} << 16 |
         std::uint32_t{b[3]} << 24;
}

inline std::uint64_t load_fixed64(const char* p) {
  return std::uint64_t{load_fixed32(p)} | std::uint64_t{load_fixed32(p + 4)} << 32;
}

inline void append_fixed32(std::string& out, std::uint32_t value) {
  for (int i = 0; i < 4; ++i) out += static_cast<char>((value >> (8 * i)) & 0xFFu);
}

inline void append_fixed64(std::string& out, std::uint64_t value) {
  for (int i = 0; i < 8; ++i) out += static_cast<char>((value >> (8 * i)) & 0xFFu);
}

// sint32/sint64 encoding: small negative numbers stay short.
inline std::uint64_t zigzag_encode(std::int64_t v) {
  return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
}
inline std::int64_t zigzag_decode(std::uint64_t v) {
  return static_cast<std::int64_t>(v >> 1) ^ -static_cast<std::int64_t>(v & 1u);
}

// Walks the fields of one serialized message in order:
//
//   WireReader r(bytes, "model.pb: GraphDef");
//   while (r.next())
//     if (r.field() == 1) nodes.push_back(parse_node(r.bytes())); else r.skip();
//
// Reading a field as the wrong wire type, a length past the end, a varint too long, a
// field number 0 or an end-group without its start is a DataLossError whose message
// starts with `where` and gives the byte offset.
class WireReader {
 public:
  WireReader(std::string_view data, std::string where) : data_(data), where_(std::move(where)) {}
  // The reader keeps a view of the bytes: a temporary string would be gone before it is read.
  WireReader(std::string&& data, std::string where) = delete;

  // Moves to the next field; false at the end of the message.
  bool next() {
    if (pending_) skip();
    if (pos_ >= data_.size()) return false;
    field_start_ = pos_;
    auto tag = read_varint(data_, pos_);
    if (!tag) fail("a field's tag is cut off or longer than ten bytes");
    const auto type = static_cast<std::uint8_t>(*tag & 7u);
    const std::uint64_t number = *tag >> 3;
    if (number == 0 || number > kMaxFieldNumber)
      fail("field number " + std::to_string(number) + " is out of range (1 to 2^29 - 1)");
    if (type > 5)
      fail("wire type " + std::to_string(type) + " of field " + std::to_string(number) +
           " is not one protobuf defines");
    field_ = static_cast<std::uint32_t>(number);
    type_ = static_cast<WireType>(type);
    pending_ = true;
    return true;
  }

  std::uint32_t field() const { return field_; }
  WireType wire_type() const { return type_; }
  // Offset of the current field's tag in the message's bytes.
  std::size_t offset() const { return field_start_; }
  const std::string& where() const { return where_; }

  std::uint64_t varint() {
    expect(WireType::varint, "a varint");
    auto v = read_varint(data_, pos_);
    if (!v) fail("the varint of field " + std::to_string(field_) + " is cut off or too long");
    pending_ = false;
    return *v;
  }
  // int32 and enums travel as sign-extended 64-bit varints.
  std::int64_t int64() { return static_cast<std::int64_t>(varint()); }
  std::int32_t int32() {
    const std::int64_t v = int64();
    if (v < INT32_MIN || v > INT32_MAX)
      fail("field " + std::to_string(field_) + " holds " + std::to_string(v) +
           ", which is not an int32");
    return static_cast<std::int32_t>(v);
  }
  bool boolean() { return varint() != 0; }

  std::uint32_t fixed32() {
    expect(WireType::fixed32, "a fixed32");
    return load_fixed32(take(4));
  }
  std::uint64_t fixed64() {
    expect(WireType::fixed64, "a fixed64");
    return load_fixed64(take(8));
  }
  float float32() { return std::bit_cast<float>(fixed32()); }
  double float64() { return std::bit_cast<double>(fixed64()); }

  // A string, bytes or a nested message: a view into the reader's data.
  std::string_view bytes() {
    expect(WireType::bytes, "length-delimited bytes");
    return read_length_delimited();
  }

  // A repeated scalar field, packed (one bytes field) or not (one value per field):
  // calls `each` with every element's raw varint / fixed bits.
  template <class Each>
  void repeated(WireType element_type, Each&& each) {
    if (type_ == element_type) {
      each(element_type == WireType::varint    ? varint()
           : element_type == WireType::fixed32 ? std::uint64_t{fixed32()}
                                               : fixed64());
      return;
    }
    std::string_view packed = bytes();
    std::size_t p = 0;
    while (p < packed.size()) {
      if (element_type == WireType::varint) {
        auto v = read_varint(packed, p);
        if (!v) fail("a packed varint of field " + std::to_string(field_) + " is cut off");
        each(*v);
      } else {
        const std::size_t width = element_type == WireType::fixed32 ? 4 : 8;
        if (packed.size() - p < width)
          fail("packed field " + std::to_string(field_) + " has " + std::to_string(packed.size()) +
               " bytes, not a multiple of " + std::to_string(width));
        each(width == 4 ? std::uint64_t{load_fixed32(packed.data() + p)}
                        : load_fixed64(packed.data() + p));
        p += width;
      }
    }
  }

  // Skips the current field's value (what a reader does with a field it does not know).
  void skip() {
    pending_ = false;
    switch (type_) {
      case WireType::varint:
        if (!read_varint(data_, pos_)) fail("a varint is cut off");
        return;
      case WireType::fixed64:
        take(8);
        return;
      case WireType::fixed32:
        take(4);
        return;
      case WireType::bytes:
        (void)read_length_delimited();
        return;
      case WireType::start_group:
        skip_group(field_, 0);
        return;
      case WireType::end_group:
        fail("an end-group tag of field " + std::to_string(field_) + " without its start");
    }
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw DataLossError(where_ + ": " + what + " (at byte " + std::to_string(field_start_) + ")");
  }

 private:
  static constexpr int kMaxGroupDepth = 64;

  void expect(WireType type, const char* what) {
    if (!pending_ || type_ != type)
      fail("field " + std::to_string(field_) + " has wire type " +
           std::to_string(static_cast<int>(type_)) + ", expected " + what);
  }

  std::string_view read_length_delimited() {
    auto n = read_varint(data_, pos_);
    if (!n) fail("the length of field " + std::to_string(field_) + " is cut off");
    if (*n > data_.size() - pos_)
      fail("field " + std::to_string(field_) + " claims " + std::to_string(*n) +
           " bytes, but only " + std::to_string(data_.size() - pos_) + " are left");
    std::string_view out = data_.substr(pos_, static_cast<std::size_t>(*n));
    pos_ += static_cast<std::size_t>(*n);
    pending_ = false;
    return out;
  }

  const char* take(std::size_t n) {
    if (data_.size() - pos_ < n)
      fail("field " + std::to_string(field_) + " needs " + std::to_string(n) + " bytes, but only " +
           std::to_string(data_.size() - pos_) + " are left");
    const char* p = data_.data() + pos_;
    pos_ += n;
    pending_ = false;
    return p;
  }

  void skip_group(std::uint32_t number, int depth) {
    if (depth > kMaxGroupDepth) fail("groups nested too deeply");
    for (;;) {
      if (!next()) fail("group " + std::to_string(number) + " has no end");
      if (type_ == WireType::end_group) {
        pending_ = false;
        if (field_ != number)
          fail("group " + std::to_string(number) + " ends with the tag of field " +
               std::to_string(field_));
        return;
      }
      if (type_ == WireType::start_group) {
        pending_ = false;
        skip_group(field_, depth + 1);
      } else {
        skip();
      }
    }
  }

  std::string_view data_;
  std::string where_;
  std::size_t pos_ = 0;
  std::size_t field_start_ = 0;
  std::uint32_t field_ = 0;
  WireType type_ = WireType::varint;
  bool pending_ = false;  // next() read a tag whose value is not consumed yet
};

// Appends fields to a message's bytes. Fields are written in the order called; a
// nested message is serialized first, then written as bytes.
class WireWriter {
 public:
  void tag(std::uint32_t field, WireType type) {
    append_varint(out_, std::uint64_t{field} << 3 | static_cast<std::uint8_t>(type));
  }
  void varint(std::uint32_t field, std::uint64_t value) {
    tag(field, WireType::varint);
    append_varint(out_, value);
  }
  // int32, int64 and enums: negative values take ten bytes, as protobuf writes them.
  void int64(std::uint32_t field, std::int64_t value) {
    varint(field, static_cast<std::uint64_t>(value));
  }
  void boolean(std::uint32_t field, bool value) { varint(field, value ? 1 : 0); }
  void fixed32(std::uint32_t field, std::uint32_t value) {
    tag(field, WireType::fixed32);
    append_fixed32(out_, value);
  }
  void fixed64(std::uint32_t field, std::uint64_t value) {
    tag(field, WireType::fixed64);
    append_fixed64(out_, value);
  }
  void float32(std::uint32_t field, float value) {
    fixed32(field, std::bit_cast<std::uint32_t>(value));
  }
  void float64(std::uint32_t field, double value) {
    fixed64(field, std::bit_cast<std::uint64_t>(value));
  }
  void bytes(std::uint32_t field, std::string_view value) {
    tag(field, WireType::bytes);
    append_varint(out_, value.size());
    out_.append(value);
  }
  void message(std::uint32_t field, const WireWriter& nested) { bytes(field, nested.out_); }

  // A packed repeated field: the payload's elements already encoded by the caller.
  std::string& raw() { return out_; }
  const std::string& data() const { return out_; }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

}  // namespace io::wire

}  // namespace symflow
