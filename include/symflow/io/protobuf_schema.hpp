#pragma once
// A protobuf message as symflow's readers see it, and the descriptions that say what its
// fields are. Both of protobuf's encodings become the same tree: the text parser
// (io/graph_io_inl.hpp) builds it from names, the binary decoder (io/protobuf_binary.hpp)
// from field numbers, looked up in a MessageDesc. So each TensorFlow message is described
// once (io/tf_protos.hpp) and read once, from the tree, whichever file it came from.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace symflow {

namespace io::proto {

// A message's fields in the order they were read. A scalar keeps its text: a number
// or an enum name as a token ("3", "-1.5", "DT_FLOAT"), a string or bytes field its
// raw bytes (is_string).
struct Field;
struct Message {
  std::vector<Field> fields;
};
struct Field {
  std::string name;
  // Where the field was found: a line of a text file, a byte offset of a binary one.
  std::int64_t position = 0;
  bool is_message = false;
  bool is_string = false;
  std::string scalar;
  std::shared_ptr<Message> message;
};

// Protobuf's scalar types, as far as the wire and the text tokens differ.
enum class Kind : std::uint8_t {
  int32,
  int64,
  uint32,
  uint64,
  sint32,
  sint64,
  boolean,
  enumeration,
  float32,
  float64,
  fixed32,
  fixed64,
  string,
  bytes,
  message,
};

struct EnumValue {
  std::string_view name;
  int number;
};

struct EnumDesc {
  std::string_view name;
  std::span<const EnumValue> values;

  const EnumValue* by_number(long long number) const {
    for (const EnumValue& v : values)
      if (v.number == number) return &v;
    return nullptr;
  }
  const EnumValue* by_name(std::string_view value_name) const {
    for (const EnumValue& v : values)
      if (v.name == value_name) return &v;
    return nullptr;
  }
};

struct MessageDesc;

struct FieldDesc {
  std::uint32_t number;
  std::string_view name;
  Kind kind;
  bool repeated = false;
  // The nested message's description (kind == message): a function, because messages
  // refer to each other (AttrValue holds a TensorProto, a NameAttrList holds AttrValues).
  const MessageDesc& (*message)() = nullptr;
  const EnumDesc* enumeration = nullptr;  // kind == enumeration
  // A member of a oneof: written even when it holds its type's default (`b: false`),
  // because which member is set is itself the information.
  bool in_oneof = false;
};

struct MessageDesc {
  std::string_view name;  // "tensorflow.GraphDef"
  std::span<const FieldDesc> fields;

  const FieldDesc* by_number(std::uint32_t number) const {
    for (const FieldDesc& f : fields)
      if (f.number == number) return &f;
    return nullptr;
  }
  const FieldDesc* by_name(std::string_view field_name) const {
    for (const FieldDesc& f : fields)
      if (f.name == field_name) return &f;
    return nullptr;
  }
};

// Packed encoding applies to repeated numbers and enums (proto3's default).
constexpr bool is_packable(Kind k) {
  return k != Kind::string && k != Kind::bytes && k != Kind::message;
}

}  // namespace io::proto

}  // namespace symflow
