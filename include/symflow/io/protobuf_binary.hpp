#pragma once
// Protobuf's binary encoding to and from the message tree of io/protobuf_schema.hpp,
// driven by a MessageDesc: decode() names each known field and skips the others, as
// protobuf does; encode() writes a tree in field-number order, repeated numbers packed
// and proto3's default scalars left out, which is how protobuf serializes a message.

#include <bit>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "symflow/core/errors.hpp"
#include "symflow/io/protobuf_schema.hpp"
#include "symflow/io/protobuf_wire.hpp"

namespace symflow {

namespace io::proto {

namespace detail {

inline constexpr int kMaxDepth = 100;  // protobuf's own recursion limit

template <class T>
std::string shortest_text(T x) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, x);
  (void)ec;
  return std::string(buf, end);
}

// A scalar's token from its wire bits.
inline std::string scalar_text(const FieldDesc& f, std::uint64_t bits) {
  switch (f.kind) {
    case Kind::int32:
      return std::to_string(static_cast<std::int32_t>(bits));
    case Kind::int64:
      return std::to_string(static_cast<std::int64_t>(bits));
    case Kind::uint32:
    case Kind::fixed32:
      return std::to_string(static_cast<std::uint32_t>(bits));
    case Kind::uint64:
    case Kind::fixed64:
      return std::to_string(bits);
    case Kind::sint32:
    case Kind::sint64:
      return std::to_string(io::wire::zigzag_decode(bits));
    case Kind::boolean:
      return bits != 0 ? "true" : "false";
    case Kind::enumeration: {
      const auto number = static_cast<std::int32_t>(bits);
      if (const EnumValue* v = f.enumeration ? f.enumeration->by_number(number) : nullptr)
        return std::string(v->name);
      return std::to_string(number);
    }
    case Kind::float32:
      return shortest_text(std::bit_cast<float>(static_cast<std::uint32_t>(bits)));
    case Kind::float64:
      return shortest_text(std::bit_cast<double>(bits));
    default:
      return {};
  }
}

inline io::wire::WireType wire_type_of(Kind k) {
  switch (k) {
    case Kind::float32:
    case Kind::fixed32:
      return io::wire::WireType::fixed32;
    case Kind::float64:
    case Kind::fixed64:
      return io::wire::WireType::fixed64;
    case Kind::string:
    case Kind::bytes:
    case Kind::message:
      return io::wire::WireType::bytes;
    default:
      return io::wire::WireType::varint;
  }
}

inline void decode_into(Message& out, std::string_view bytes, const MessageDesc& desc,
                        const std::string& where, std::int64_t base, int depth) {
  if (depth > kMaxDepth)
    throw DataLossError(where + ": messages nested more than " + std::to_string(kMaxDepth) +
                        " deep (at byte " + std::to_string(base) + ")");
  io::wire::WireReader r(bytes, where);
  while (r.next()) {
    const FieldDesc* f = desc.by_number(r.field());
    if (!f) {
      r.skip();
      continue;
    }
    const std::int64_t position = base + static_cast<std::int64_t>(r.offset());
    auto add = [&]() -> Field& {
      Field& field = out.fields.emplace_back();
      field.name = std::string(f->name);
      field.position = position;
      return field;
    };
    const io::wire::WireType expected = wire_type_of(f->kind);
    if (f->kind == Kind::message || f->kind == Kind::string || f->kind == Kind::bytes) {
      if (r.wire_type() != expected)
        r.fail(std::string(desc.name) + "." + std::string(f->name) + " has wire type " +
               std::to_string(static_cast<int>(r.wire_type())) + ", expected 2");
      std::string_view payload = r.bytes();
      Field& field = add();
      if (f->kind == Kind::message) {
        field.is_message = true;
        field.message = std::make_shared<Message>();
        const auto payload_base = base + static_cast<std::int64_t>(payload.data() - bytes.data());
        decode_into(*field.message, payload, f->message(), where, payload_base, depth + 1);
      } else {
        field.is_string = true;
        field.scalar = std::string(payload);
      }
      continue;
    }
    if (r.wire_type() != expected && !(f->repeated && r.wire_type() == io::wire::WireType::bytes))
      r.fail(std::string(desc.name) + "." + std::string(f->name) + " has wire type " +
             std::to_string(static_cast<int>(r.wire_type())) + ", expected " +
             std::to_string(static_cast<int>(expected)));
    r.repeated(expected, [&](std::uint64_t bits) { add().scalar = scalar_text(*f, bits); });
  }
}

// A scalar token back to wire bits; the token is one that decode or the text parser made.
inline std::uint64_t scalar_bits(const FieldDesc& f, const Field& field, std::string_view type) {
  const std::string& t = field.scalar;
  auto bad = [&]() -> std::uint64_t {
    throw InvalidArgumentError("Cannot encode " + std::string(type) + "." + std::string(f.name) +
                               ": '" + t + "' is not a valid value");
  };
  auto integer = [&]() -> std::int64_t {
    std::int64_t v = 0;
    auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec != std::errc() || end != t.data() + t.size()) bad();
    return v;
  };
  auto unsigned_integer = [&]() -> std::uint64_t {
    std::uint64_t v = 0;
    auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec != std::errc() || end != t.data() + t.size()) bad();
    return v;
  };
  auto real = [&]() -> double {
    std::string s = t;
    if (s.size() > 1 && (s.back() == 'f' || s.back() == 'F') && s != "inf" && s != "-inf")
      s.pop_back();
    char* end = nullptr;
    double v = std::strtod(s.c_str(), &end);
    if (s.empty() || *end != '\0') bad();
    return v;
  };
  switch (f.kind) {
    case Kind::int32:
    case Kind::int64:
      return static_cast<std::uint64_t>(integer());
    case Kind::uint32:
    case Kind::uint64:
    case Kind::fixed32:
    case Kind::fixed64:
      return unsigned_integer();
    case Kind::sint32:
    case Kind::sint64:
      return io::wire::zigzag_encode(integer());
    case Kind::boolean:
      if (t == "true" || t == "True" || t == "1") return 1;
      if (t == "false" || t == "False" || t == "0") return 0;
      return bad();
    case Kind::enumeration:
      if (const EnumValue* v = f.enumeration ? f.enumeration->by_name(t) : nullptr)
        return static_cast<std::uint64_t>(static_cast<std::int64_t>(v->number));
      return static_cast<std::uint64_t>(integer());
    case Kind::float32: {
      std::string s = t;
      if (s.size() > 1 && (s.back() == 'f' || s.back() == 'F') && s != "inf" && s != "-inf")
        s.pop_back();
      char* end = nullptr;
      float v = std::strtof(s.c_str(), &end);
      if (s.empty() || *end != '\0') bad();
      return std::bit_cast<std::uint32_t>(v);
    }
    case Kind::float64:
      return std::bit_cast<std::uint64_t>(real());
    default:
      return bad();
  }
}

inline void append_scalar(std::string& out, Kind kind, std::uint64_t bits) {
  switch (wire_type_of(kind)) {
    case io::wire::WireType::fixed32:
      io::wire::append_fixed32(out, static_cast<std::uint32_t>(bits));
      return;
    case io::wire::WireType::fixed64:
      io::wire::append_fixed64(out, bits);
      return;
    default:
      io::wire::append_varint(out, bits);
  }
}

inline void encode_into(io::wire::WireWriter& w, const Message& m, const MessageDesc& desc,
                        int depth) {
  if (depth > kMaxDepth)
    throw InvalidArgumentError("Cannot encode " + std::string(desc.name) +
                               ": messages nested too deeply");
  for (const Field& field : m.fields)
    if (!desc.by_name(field.name))
      throw InvalidArgumentError("Cannot encode " + std::string(desc.name) + ": it has no field '" +
                                 field.name + "'");
  for (const FieldDesc& f : desc.fields) {
    std::vector<const Field*> present;
    for (const Field& field : m.fields)
      if (field.name == f.name) present.push_back(&field);
    if (present.empty()) continue;
    if (!f.repeated && present.size() > 1)
      throw InvalidArgumentError("Cannot encode " + std::string(desc.name) + ": field '" +
                                 std::string(f.name) + "' appears " +
                                 std::to_string(present.size()) + " times");
    if (f.kind == Kind::message) {
      for (const Field* field : present) {
        if (!field->is_message || !field->message)
          throw InvalidArgumentError("Cannot encode " + std::string(desc.name) + "." +
                                     std::string(f.name) + ": expected a message");
        io::wire::WireWriter nested;
        encode_into(nested, *field->message, f.message(), depth + 1);
        w.message(f.number, nested);
      }
      continue;
    }
    if (f.kind == Kind::string || f.kind == Kind::bytes) {
      for (const Field* field : present) {
        if (field->is_message)
          throw InvalidArgumentError("Cannot encode " + std::string(desc.name) + "." +
                                     std::string(f.name) + ": expected a string");
        if (!f.repeated && !f.in_oneof && field->scalar.empty()) continue;  // proto3 default
        w.bytes(f.number, field->scalar);
      }
      continue;
    }
    for (const Field* field : present)
      if (field->is_message || field->is_string)
        throw InvalidArgumentError("Cannot encode " + std::string(desc.name) + "." +
                                   std::string(f.name) + ": expected a number or an enum name");
    if (f.repeated) {
      std::string packed;
      for (const Field* field : present)
        append_scalar(packed, f.kind, scalar_bits(f, *field, desc.name));
      w.bytes(f.number, packed);
      continue;
    }
    const std::uint64_t bits = scalar_bits(f, *present.front(), desc.name);
    if (bits == 0 && !f.in_oneof) continue;  // proto3 default (0, false, 0.0, first enum)
    w.tag(f.number, wire_type_of(f.kind));
    append_scalar(w.raw(), f.kind, bits);
  }
}

}  // namespace detail

// The fields of `bytes`, a serialized `desc`; `where` starts every error message
// ("model.pb: tensorflow.GraphDef"). Malformed bytes are a DataLossError.
inline Message decode(std::string_view bytes, const MessageDesc& desc, const std::string& where) {
  Message m;
  detail::decode_into(m, bytes, desc, where, 0, 0);
  return m;
}

// The serialized bytes of `m` as a `desc`. A field the description lacks, or a value
// that is not of its field's type, is an InvalidArgumentError.
inline std::string encode(const Message& m, const MessageDesc& desc) {
  io::wire::WireWriter w;
  detail::encode_into(w, m, desc, 0);
  return w.take();
}

}  // namespace io::proto

}  // namespace symflow
