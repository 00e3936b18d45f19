#pragma once
// write_graph's and read_graph's definitions and the protobuf text reader (io/graph_io.hpp
// declares them): included by that header in a header-only program, and by
// symflow/define_compiled.hpp alone in a program built with SYMFLOW_COMPILED.

#include <cctype>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

#include "symflow/core/attr_value.hpp"
#include "symflow/core/dtype.hpp"
#include "symflow/core/errors.hpp"
#include "symflow/core/shape.hpp"
#include "symflow/core/value.hpp"
#include "symflow/detail/config.hpp"
#include "symflow/graph/graph_def.hpp"
#include "symflow/io/atomic_file.hpp"
#include "symflow/io/graph_def_json.hpp"
#include "symflow/io/graph_def_text.hpp"
#include "symflow/io/graph_io.hpp"
#include "symflow/io/protobuf_binary.hpp"
#include "symflow/io/protobuf_fields.hpp"
#include "symflow/io/protobuf_schema.hpp"
#include "symflow/io/tf_protos.hpp"

namespace symflow {

namespace detail::graph_io {

using TextMessage = io::proto::Message;
using TextField = io::proto::Field;

// A recursive-descent reader for the subset of protobuf's text format that
// graph_def_text.hpp writes (and protobuf's usual variations: '<' '>' brackets,
// optional ':' before a message, ',' or ';' separators, '#' comments).
class TextParser {
 public:
  TextParser(std::string_view text, std::string source) : text_(text), source_(std::move(source)) {}

  TextMessage parse() {
    TextMessage root = parse_fields('\0', 0);
    return root;
  }

  [[noreturn]] void fail(int line, const std::string& what) const {
    throw DataLossError(source_ + ":" + std::to_string(line) + ": " + what);
  }

 private:
  static constexpr int kMaxDepth = 64;

  void skip_space() {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == '\n') {
        ++line_, ++pos_;
      } else if (c == ' ' || c == '\t' || c == '\r' || c == ',' || c == ';') {
        ++pos_;
      } else if (c == '#') {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
      } else {
        break;
      }
    }
  }

  static bool is_ident_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  }
  static bool is_scalar_char(char c) {
    return is_ident_char(c) || c == '-' || c == '+' || c == '.';
  }

  std::string identifier() {
    std::size_t start = pos_;
    while (pos_ < text_.size() && is_ident_char(text_[pos_])) ++pos_;
    if (start == pos_)
      fail(line_, "expected a field name, got '" + std::string(1, text_[pos_]) + "'");
    return std::string(text_.substr(start, pos_ - start));
  }

  std::string quoted() {
    char quote = text_[pos_++];
    std::string out;
    for (;;) {
      if (pos_ >= text_.size() || text_[pos_] == '\n') fail(line_, "unterminated string");
      char c = text_[pos_++];
      if (c == quote) break;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= text_.size()) fail(line_, "unterminated string");
      if (auto error = symflow::detail::read_c_escape(text_, pos_, out)) fail(line_, *error);
    }
    return out;
  }

  // Fields until `close` ('\0' for the end of the text).
  TextMessage parse_fields(char close, int depth) {
    if (depth > kMaxDepth) fail(line_, "messages nested too deeply");
    TextMessage msg;
    for (;;) {
      skip_space();
      if (pos_ >= text_.size()) {
        if (close != '\0') fail(line_, std::string("expected '") + close + "', got end of input");
        return msg;
      }
      if (text_[pos_] == close) {
        ++pos_;
        return msg;
      }
      TextField f;
      f.position = line_;
      f.name = identifier();
      skip_space();
      bool colon = pos_ < text_.size() && text_[pos_] == ':';
      if (colon) ++pos_, skip_space();
      if (pos_ >= text_.size()) fail(line_, "expected a value for field '" + f.name + "'");
      if (text_[pos_] != '[') {
        value(f, colon, depth);
        msg.fields.push_back(std::move(f));
        continue;
      }
      // The short form of a repeated field, `f: [1, 2.5]` or `f [{...}, {...}]`: one
      // field per element, as if each were written out.
      // (skip_space eats the ',' between elements, so a missing one is let pass.)
      ++pos_;
      for (;;) {
        skip_space();
        if (pos_ >= text_.size()) fail(line_, "expected ']', got end of input");
        if (text_[pos_] == ']') {
          ++pos_;
          break;
        }
        TextField item;
        item.name = f.name;
        item.position = line_;
        value(item, colon, depth);
        msg.fields.push_back(std::move(item));
      }
    }
  }

  // The value of `f` at the cursor: a message, a quoted string or a scalar token.
  void value(TextField& f, bool colon, int depth) {
    char c = text_[pos_];
    if (c == '{' || c == '<') {
      ++pos_;
      f.is_message = true;
      f.message = std::make_shared<TextMessage>(parse_fields(c == '{' ? '}' : '>', depth + 1));
    } else if (!colon) {
      fail(line_, "expected ':' or '{' after field '" + f.name + "'");
    } else if (c == '"' || c == '\'') {
      f.is_string = true;
      f.scalar = quoted();
      // Adjacent strings concatenate, as in C.
      for (skip_space(); pos_ < text_.size() && (text_[pos_] == '"' || text_[pos_] == '\'');
           skip_space())
        f.scalar += quoted();
    } else {
      std::size_t start = pos_;
      while (pos_ < text_.size() && is_scalar_char(text_[pos_])) ++pos_;
      if (start == pos_)
        fail(line_, "expected a value for field '" + f.name + "', got '" + std::string(1, c) + "'");
      f.scalar = std::string(text_.substr(start, pos_ - start));
    }
  }

  std::string_view text_;
  std::string source_;
  std::size_t pos_ = 0;
  int line_ = 1;
};

// Turns parsed messages (text or binary) into GraphDef parts, with errors naming the
// line or byte offset.
class TextReader : private io::proto::FieldReader {
 public:
  using FieldReader::FieldReader;

  GraphDef graph_def(const TextMessage& root) {
    GraphDef def;
    def.producer = 0;
    for (const TextField& f : root.fields) {
      if (f.name == "node") {
        def.node.push_back(node_def(message(f)));
      } else if (f.name == "versions") {
        for (const TextField& v : message(f).fields)
          if (v.name == "producer")
            def.producer = static_cast<int>(integer(v, -(1LL << 31), (1LL << 31) - 1));
      } else if (f.name != "library" && f.name != "version") {
        fail(f.position,
             "unknown field '" + f.name + "' in GraphDef: expected 'node' or 'versions'");
      }
    }
    return def;
  }

  Shape shape(const TextMessage& m) const {
    Dims dims;
    bool unknown = false;
    for (const TextField& f : m.fields) {
      if (f.name == "unknown_rank") {
        unknown = boolean(f);
      } else if (f.name == "dim") {
        std::int64_t size = 0;
        for (const TextField& d : message(f).fields)
          if (d.name == "size")
            size = integer(d, -1);
          else if (d.name != "name")
            fail(d.position, "unknown field '" + d.name + "' in a dim");
        dims.push_back(size);
      } else {
        fail(f.position,
             "unknown field '" + f.name + "' in a shape: expected 'dim' or 'unknown_rank'");
      }
    }
    if (unknown) return Shape::unknown();
    return Shape(std::move(dims));
  }

 private:
  DType dtype(const TextField& f) const {
    const std::string& t = token(f);
    // A resource handle's type, which the pass-through ops of resource variables in
    // conds and loops (Switch, Enter, Merge, ...) carry in `T`: DType::invalid marks it
    // until io/tf_op_rewrites.hpp gives it its variable's dtype.
    if (t == "DT_RESOURCE") return DType::invalid;
    try {
      return dtype_from_enum_name(t);
    } catch (const ValueError&) {
      fail(f.position, "unknown dtype '" + t +
                           "': expected one of DT_FLOAT, DT_DOUBLE, DT_INT32, DT_INT64, "
                           "DT_UINT8, DT_BOOL, DT_STRING, DT_INT8, DT_INT16, DT_UINT16, "
                           "DT_UINT32, DT_UINT64, DT_HALF, DT_BFLOAT16, DT_COMPLEX64");
    }
  }

  // A uint64_val: up to 2^64 - 1, past what integer() reads.
  std::uint64_t unsigned_integer(const TextField& f) const {
    const std::string& t = token(f);
    errno = 0;
    char* end = nullptr;
    const unsigned long long v = std::strtoull(t.c_str(), &end, 10);
    if (t.empty() || t[0] == '-' || *end != '\0' || errno == ERANGE)
      fail(f.position,
           "expected field '" + f.name + "' to be an unsigned integer, got '" + t + "'");
    return v;
  }

  Value tensor(const TextMessage& m, std::int64_t line) const {
    DType type = DType::invalid;
    Dims dims;
    const std::string* content = nullptr;
    std::vector<const TextField*> vals;
    for (const TextField& f : m.fields) {
      if (f.name == "dtype") {
        type = dtype(f);
        if (type == DType::invalid)
          fail(f.position, "a tensor of dtype DT_RESOURCE: a handle is not a value a file holds");
      } else if (f.name == "tensor_shape") {
        Shape s = shape(message(f));
        if (!s.is_fully_defined()) fail(f.position, "a tensor's shape must be fully defined");
        dims = s.dims();
      } else if (f.name == "tensor_content") {
        content = &string(f);
      } else if (f.name == "float_val" || f.name == "double_val" || f.name == "int_val" ||
                 f.name == "int64_val" || f.name == "bool_val" || f.name == "string_val" ||
                 f.name == "half_val" || f.name == "scomplex_val" || f.name == "uint32_val" ||
                 f.name == "uint64_val") {
        vals.push_back(&f);
      } else if (f.name != "version_number") {
        fail(f.position, "unknown field '" + f.name + "' in a tensor");
      }
    }
    if (type == DType::invalid) fail(line, "a tensor needs a 'dtype'");
    // A file's tensor may repeat its last value to any shape, so its size is the file's
    // claim alone: past 2^40 bytes (no host holds that) it is a corrupt or hostile file.
    const auto count = checked_num_elements(dims);
    const auto bytes = count ? checked_nbytes(*count, dtype_size(type)) : std::nullopt;
    if (!bytes || *bytes > (std::int64_t{1} << 40))
      fail(line, "tensor shape " + dims_to_string(dims) + " of " +
                     std::string(dtype_enum_name(type)) + " is too large");
    const auto n = static_cast<std::uint64_t>(*count);
    if (content && type == DType::string)
      fail(line,
           "a DT_STRING tensor keeps its strings in 'string_val', not in "
           "'tensor_content'");
    if (content) {
      if (content->size() != n * dtype_size(type))
        fail(line, "the tensor's 'tensor_content' has " + std::to_string(content->size()) +
                       " bytes, expected " + std::to_string(n * dtype_size(type)) + " for shape " +
                       dims_to_string(dims) + " of " + std::string(dtype_enum_name(type)));
      if (type == DType::bool_)
        for (char c : *content)
          if (c != 0 && c != 1) fail(line, "the bytes of a DT_BOOL tensor must be 0 or 1");
    }
    // A complex number is two values, its real and imaginary parts.
    const std::uint64_t per_element = type == DType::complex64 ? 2 : 1;
    if (!vals.empty() && (vals.size() > n * per_element || vals.size() % per_element != 0))
      fail(line, "the tensor has " + std::to_string(vals.size()) + " values for " +
                     std::to_string(n) + " elements" +
                     (per_element == 2 ? " (two per complex number)" : ""));
    Value v(type, dims);
    if (content) {
      if (!content->empty()) std::memcpy(v.raw_data(), content->data(), content->size());
      return v;
    }
    // Fewer values than elements: the last one repeats (protobuf's TensorProto rule).
    if (type == DType::string) {
      std::string* out = v.data<std::string>();
      for (std::uint64_t i = 0; i < n && !vals.empty(); ++i)
        out[i] = i < vals.size() ? string(*vals[i]) : out[i - 1];
      return v;
    }
    visit_number_dtype(type, [&](auto tag) {
      using T = typename decltype(tag)::type;
      T* out = v.data<T>();
      T last{};
      const std::uint64_t given = vals.size() / per_element;
      for (std::uint64_t i = 0; i < n && !vals.empty(); ++i) {
        if (i < given) {
          const TextField& f = *vals[i * per_element];
          if constexpr (std::is_same_v<T, bool>) {
            last = boolean(f);
          } else if constexpr (std::is_floating_point_v<T>) {
            last = static_cast<T>(real(f, std::is_same_v<T, float>));
          } else if constexpr (std::is_same_v<T, complex64_t>) {
            last = T(static_cast<float>(real(f, true)),
                     static_cast<float>(real(*vals[i * 2 + 1], true)));
          } else if constexpr (std::is_same_v<T, float16_t> || std::is_same_v<T, bfloat16_t>) {
            // half_val holds each number's 16 bits.
            last = T::from_bits(static_cast<std::uint16_t>(integer(f, 0, 65535)));
          } else if constexpr (std::is_same_v<T, std::uint64_t>) {
            last = unsigned_integer(f);
          } else {
            last =
                static_cast<T>(integer(f, static_cast<long long>(std::numeric_limits<T>::lowest()),
                                       static_cast<long long>(std::numeric_limits<T>::max())));
          }
        }
        out[i] = last;
      }
    });
    return v;
  }

  AttrValue attr_value(const TextMessage& m, std::int64_t line) const {
    if (m.fields.size() != 1)
      fail(line,
           "expected an attr value with exactly one field, got " + std::to_string(m.fields.size()));
    const TextField& f = m.fields[0];
    if (f.name == "type") return dtype(f);
    if (f.name == "shape") return shape(message(f));
    if (f.name == "tensor") return tensor(message(f), f.position);
    if (f.name == "i") return integer(f);
    if (f.name == "f") return real(f, true);
    if (f.name == "b") return boolean(f);
    if (f.name == "s") return string(f);
    if (f.name == "list") return list_value(message(f));
    fail(f.position, "unknown attr kind '" + f.name +
                         "': expected one of type, shape, tensor, i, f, b, s, list");
  }

  // One kind per list; an empty `list {}` has no kind and reads as an empty list of ints.
  AttrValue list_value(const TextMessage& list) const {
    if (list.fields.empty()) return IntList{};
    const std::string& kind = list.fields.front().name;
    for (const TextField& item : list.fields)
      if (item.name != kind)
        fail(item.position, "a list mixes '" + kind + "' with '" + item.name + "'");
    auto each = [&](auto read, auto out) {
      for (const TextField& item : list.fields) out.items.push_back(read(item));
      return AttrValue(std::move(out));
    };
    if (kind == "s") return each([&](const TextField& x) { return string(x); }, StringList{});
    if (kind == "i") return each([&](const TextField& x) { return integer(x); }, IntList{});
    if (kind == "f") return each([&](const TextField& x) { return real(x, true); }, FloatList{});
    if (kind == "b") return each([&](const TextField& x) { return boolean(x); }, BoolList{});
    if (kind == "type") return each([&](const TextField& x) { return dtype(x); }, TypeList{});
    if (kind == "shape")
      return each([&](const TextField& x) { return shape(message(x)); }, ShapeList{});
    fail(list.fields.front().position,
         "unsupported list kind '" + kind + "': expected s, i, f, b, type or shape");
  }

  NodeDef node_def(const TextMessage& m) const {
    NodeDef n;
    for (const TextField& f : m.fields) {
      if (f.name == "name") {
        n.name = string(f);
      } else if (f.name == "op") {
        n.op = string(f);
      } else if (f.name == "input") {
        n.input.push_back(string(f));
      } else if (f.name == "device") {
        n.device = string(f);
      } else if (f.name == "attr") {
        const TextField* key = nullptr;
        const TextField* value = nullptr;
        for (const TextField& kv : message(f).fields) {
          if (kv.name == "key")
            key = &kv;
          else if (kv.name == "value")
            value = &kv;
          else
            fail(kv.position, "unknown field '" + kv.name + "' in an attr entry");
        }
        if (!key || !value) fail(f.position, "an attr entry needs a 'key' and a 'value'");
        n.attr.insert_or_assign(string(*key), attr_value(message(*value), value->position));
      } else if (!f.name.starts_with("experimental_")) {
        // TensorFlow's parser skips experimental_debug_info and experimental_type too.
        fail(f.position,
             "unknown field '" + f.name + "' in a node: expected name, op, input, device or attr");
      }
    }
    if (n.name.empty() || n.op.empty()) {
      std::int64_t line = m.fields.empty() ? 0 : m.fields.front().position;
      fail(line, "a node needs a 'name' and an 'op'");
    }
    return n;
  }
};

}  // namespace detail::graph_io

namespace io {

SYMFLOW_INLINE proto::Message parse_text_message(std::string_view text,
                                                 std::string_view source_name) {
  return detail::graph_io::TextParser(text, std::string(source_name)).parse();
}

SYMFLOW_INLINE GraphDef graph_def_from_message(const proto::Message& message,
                                               std::string_view source_name, bool binary) {
  return detail::graph_io::TextReader(std::string(source_name), binary).graph_def(message);
}

SYMFLOW_INLINE Shape shape_from_message(const proto::Message& message, std::string_view source_name,
                                        bool binary) {
  return detail::graph_io::TextReader(std::string(source_name), binary).shape(message);
}

SYMFLOW_INLINE proto::Message graph_def_to_message(const GraphDef& graph_def) {
  return parse_text_message(to_text(graph_def), "GraphDef");
}

// A GraphDef from protobuf's text format (what to_text and write_graph(as_text) write).
SYMFLOW_INLINE GraphDef parse_graph_def_text(std::string_view text, std::string_view source_name) {
  return graph_def_from_message(parse_text_message(text, source_name), source_name, false);
}

// A GraphDef from protobuf's binary encoding (a TensorFlow `.pb`).
SYMFLOW_INLINE GraphDef parse_graph_def_binary(std::string_view bytes,
                                               std::string_view source_name) {
  return graph_def_from_message(
      proto::decode(bytes, tf_proto::graph_def(), std::string(source_name)), source_name, true);
}

// The binary encoding of `graph_def`: the message its text form describes, so that both
// forms hold the same fields.
SYMFLOW_INLINE std::string serialize_graph_def_binary(const GraphDef& graph_def) {
  return proto::encode(graph_def_to_message(graph_def), tf_proto::graph_def());
}

// Text and JSON are printable; protobuf's binary encoding has a length or a tag below
// 0x20 in every message, so a control byte other than whitespace means binary.
SYMFLOW_INLINE bool looks_like_binary_protobuf(std::string_view bytes) {
  for (char c : bytes) {
    const auto b = static_cast<unsigned char>(c);
    if ((b < 0x20 && b != '\t' && b != '\n' && b != '\r' && b != '\v' && b != '\f') || b == 0x7f)
      return true;
  }
  return false;
}

}  // namespace io

SYMFLOW_INLINE std::string write_graph(const GraphDef& graph_def, const std::string& logdir,
                                       const std::string& name, GraphFormat format) {
  std::filesystem::path dir(logdir);
  std::error_code ec;
  if (!dir.empty()) {
    std::filesystem::create_directories(dir, ec);
    if (ec)
      throw FailedPreconditionError("Failed to create directory " + logdir + "; " + ec.message());
  }
  std::filesystem::path path = dir / name;
  std::string bytes = format == GraphFormat::text ? to_text(graph_def)
                      : format == GraphFormat::binary
                          ? io::serialize_graph_def_binary(graph_def)
                          : io::serialize_graph_def(graph_def, true, /*with_checksum=*/true);
  io::write_file_atomically(path, std::string_view(bytes));
  return path.string();
}

SYMFLOW_INLINE GraphDef read_graph(const std::string& path) {
  std::string bytes = io::read_file(path);
  if (io::looks_like_binary_protobuf(bytes)) return io::parse_graph_def_binary(bytes, path);
  auto first = bytes.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && bytes[first] == '{') return io::parse_graph_def(bytes, path);
  return io::parse_graph_def_text(bytes, path);
}

}  // namespace symflow
