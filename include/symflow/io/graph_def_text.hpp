#pragma once
// GraphDef in protobuf's text format, byte for byte as TensorFlow prints
// `graph.as_graph_def()`: two-space indents, attrs sorted by key, small tensors as
// `*_val` fields and larger ones as escaped `tensor_content` bytes.

#include <cctype>
#include <cstdio>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>

#include "symflow/detail/float_repr.hpp"
#include "symflow/graph/graph.hpp"
#include "symflow/graph/graph_def.hpp"

namespace symflow {

namespace detail {

// protobuf's CEscape: printable ASCII stays, quotes and backslashes are escaped,
// everything else becomes a three-digit octal escape.
inline std::string c_escape(const void* data, std::size_t n) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  std::string out;
  for (std::size_t i = 0; i < n; ++i) {
    unsigned char c = bytes[i];
    switch (c) {
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\"':
        out += "\\\"";
        break;
      case '\'':
        out += "\\'";
        break;
      case '\\':
        out += "\\\\";
        break;
      default:
        if (c >= 0x20 && c < 0x7f) {
          out += static_cast<char>(c);
        } else {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\%03o", c);
          out += buf;
        }
    }
  }
  return out;
}

// The inverse of c_escape, for every escape protobuf's text format reads (C's, plus
// \ooo octal and \xhh hex): reads the escape whose backslash is just before `pos`,
// appends its byte to `out` and moves `pos` past it. Returns what is wrong instead
// when the escape is malformed; callers raise their own error with it.
inline std::optional<std::string> read_c_escape(std::string_view text, std::size_t& pos,
                                                std::string& out) {
  if (pos >= text.size()) return "a string ends with a lone backslash";
  const char e = text[pos++];
  switch (e) {
    case 'n':
      out += '\n';
      return std::nullopt;
    case 'r':
      out += '\r';
      return std::nullopt;
    case 't':
      out += '\t';
      return std::nullopt;
    case 'a':
      out += '\a';
      return std::nullopt;
    case 'b':
      out += '\b';
      return std::nullopt;
    case 'f':
      out += '\f';
      return std::nullopt;
    case 'v':
      out += '\v';
      return std::nullopt;
    case '\\':
    case '\'':
    case '"':
    case '?':
      out += e;
      return std::nullopt;
    case 'x': {
      int v = 0, n = 0;
      while (n < 2 && pos < text.size() && std::isxdigit(static_cast<unsigned char>(text[pos]))) {
        const char h = text[pos++];
        v = v * 16 + (h <= '9' ? h - '0' : (h | 0x20) - 'a' + 10);
        ++n;
      }
      if (n == 0) return "expected hex digits after \\x";
      out += static_cast<char>(v);
      return std::nullopt;
    }
    default:
      if (e < '0' || e > '7')
        return std::string("unknown escape '\\") + e +
               "'; expected one of \\n \\t \\\\ \\\" \\ooo \\xhh";
      int v = e - '0', n = 1;
      while (n < 3 && pos < text.size() && text[pos] >= '0' && text[pos] <= '7') {
        v = v * 8 + (text[pos++] - '0');
        ++n;
      }
      if (v > 255) return "octal escape out of range";
      out += static_cast<char>(v);
      return std::nullopt;
  }
}

class TextWriter {
 public:
  explicit TextWriter(std::ostream& os) : os_(os) {}

  void open(std::string_view field) { line(std::string(field) + " {"), ++depth_; }
  void close() { --depth_, line("}"); }
  void field(std::string_view name, std::string_view value) {
    line(std::string(name) + ": " + std::string(value));
  }
  void string_field(std::string_view name, const std::string& value) {
    field(name, "\"" + c_escape(value.data(), value.size()) + "\"");
  }

  void shape(const Shape& s) {
    if (!s.has_rank()) {
      field("unknown_rank", "true");
      return;
    }
    for (auto d : s.dims()) {
      open("dim");
      field("size", std::to_string(d));
      close();
    }
  }

  void tensor(const Value& v) {
    field("dtype", dtype_enum_name(v.dtype()));
    open("tensor_shape");
    shape(v.shape());
    close();
    if (v.dtype() == DType::string) {  // TensorFlow writes every string, never content
      for (const std::string& x : v.flat<std::string>()) string_field("string_val", x);
      return;
    }
    if (v.size() > 1) {
      string_field_bytes("tensor_content", v.raw_data(), v.nbytes());
      return;
    }
    if (v.size() == 0) return;
    visit_number_dtype(v.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      T x = v.flat<T>()[0];
      if constexpr (std::is_same_v<T, float16_t> || std::is_same_v<T, bfloat16_t>) {
        field("half_val", std::to_string(x.bits));
      } else if constexpr (std::is_same_v<T, complex64_t>) {
        field("scomplex_val", python_float_repr(x.real()));
        field("scomplex_val", python_float_repr(x.imag()));
      } else if constexpr (std::is_same_v<T, std::uint32_t>) {
        field("uint32_val", std::to_string(x));
      } else if constexpr (std::is_same_v<T, std::uint64_t>) {
        field("uint64_val", std::to_string(x));
      } else if constexpr (std::is_same_v<T, float>) {
        field("float_val", python_float_repr(x));
      } else if constexpr (std::is_same_v<T, double>) {
        field("double_val", python_float_repr(x));
      } else if constexpr (std::is_same_v<T, bool>) {
        field("bool_val", x ? "true" : "false");
      } else if constexpr (std::is_same_v<T, std::int64_t>) {
        field("int64_val", std::to_string(x));
      } else {
        field("int_val", std::to_string(static_cast<long long>(x)));
      }
    });
  }

  void attr_value(const AttrValue& value) {
    std::visit(
        [&](const auto& x) {
          using X = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<X, DType>) {
            field("type", attr_dtype_enum_name(x));
          } else if constexpr (std::is_same_v<X, Shape>) {
            open("shape");
            shape(x);
            close();
          } else if constexpr (std::is_same_v<X, Value>) {
            open("tensor");
            tensor(x);
            close();
          } else if constexpr (std::is_same_v<X, std::int64_t>) {
            field("i", std::to_string(x));
          } else if constexpr (std::is_same_v<X, double>) {
            field("f", python_float_repr(static_cast<float>(x)));
          } else if constexpr (std::is_same_v<X, bool>) {
            field("b", x ? "true" : "false");
          } else if constexpr (std::is_same_v<X, std::string>) {
            string_field("s", x);
          } else if constexpr (std::is_same_v<X, IntList>) {
            open("list");
            for (auto i : x.items) field("i", std::to_string(i));
            close();
          } else if constexpr (std::is_same_v<X, StringList>) {
            open("list");
            for (const auto& s : x.items) string_field("s", s);
            close();
          } else if constexpr (std::is_same_v<X, FloatList>) {
            open("list");
            for (double f : x.items) field("f", python_float_repr(static_cast<float>(f)));
            close();
          } else if constexpr (std::is_same_v<X, BoolList>) {
            open("list");
            for (bool b : x.items) field("b", b ? "true" : "false");
            close();
          } else if constexpr (std::is_same_v<X, TypeList>) {
            open("list");
            for (DType t : x.items) field("type", attr_dtype_enum_name(t));
            close();
          } else if constexpr (std::is_same_v<X, ShapeList>) {
            open("list");
            for (const Shape& item : x.items) {
              open("shape");
              shape(item);
              close();
            }
            close();
          }
        },
        value);
  }

  void node_body(const NodeDef& n) {
    string_field("name", n.name);
    string_field("op", n.op);
    for (const auto& in : n.input) string_field("input", in);
    if (!n.device.empty()) string_field("device", n.device);
    for (const auto& [key, value] : n.attr) {
      open("attr");
      string_field("key", key);
      open("value");
      attr_value(value);
      close();
      close();
    }
  }

 private:
  void string_field_bytes(std::string_view name, const void* data, std::size_t n) {
    field(name, "\"" + c_escape(data, n) + "\"");
  }
  void line(const std::string& text) {
    os_ << std::string(2 * static_cast<std::size_t>(depth_), ' ') << text << '\n';
  }

  std::ostream& os_;
  int depth_ = 0;
};

}  // namespace detail

// The text form of a GraphDef, as print(graph.as_graph_def()) shows it.
inline std::string to_text(const GraphDef& def) {
  std::ostringstream os;
  detail::TextWriter w(os);
  for (const NodeDef& n : def.node) {
    w.open("node");
    w.node_body(n);
    w.close();
  }
  w.open("versions");
  w.field("producer", std::to_string(def.producer));
  w.close();
  return os.str();
}

// The text form of one NodeDef (what print(op) shows).
inline std::string to_text(const NodeDef& def) {
  std::ostringstream os;
  detail::TextWriter w(os);
  w.node_body(def);
  return os.str();
}

inline std::ostream& operator<<(std::ostream& os, const GraphDef& def) {
  return os << to_text(def);
}
inline std::ostream& operator<<(std::ostream& os, const Operation& op) {
  return os << to_text(op.node_def());
}

}  // namespace symflow
