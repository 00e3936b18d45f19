#pragma once
// GraphDef as JSON: symflow's own, lossless serialisation of a graph (docs/formats.md,
// "GraphDef JSON"). Close to protobuf's JSON mapping of GraphDef, but every attr value
// carries its kind, doubles round-trip bit for bit (NaN and the infinities as strings),
// and tensors are base64 of their little-endian row-major bytes. Malformed input is a
// DataLossError naming the source, the node, the attr and what was expected.

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "symflow/core/attr_value.hpp"
#include "symflow/core/dtype.hpp"
#include "symflow/core/errors.hpp"
#include "symflow/core/shape.hpp"
#include "symflow/core/value.hpp"
#include "symflow/graph/graph_def.hpp"
#include "symflow/io/json_checksum.hpp"

namespace symflow {

namespace io {
// The value of the top-level "format" field.
inline constexpr std::string_view kGraphDefJsonFormat = "symflow.graph_def";
}  // namespace io

namespace detail::graph_json {

inline constexpr char kBase64Alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// RFC 4648 base64 with '=' padding.
inline std::string base64_encode(const void* data, std::size_t n) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  std::string out;
  out.reserve((n + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 3 <= n; i += 3) {
    std::uint32_t v = (std::uint32_t{bytes[i]} << 16) | (std::uint32_t{bytes[i + 1]} << 8) |
                      std::uint32_t{bytes[i + 2]};
    out += kBase64Alphabet[(v >> 18) & 63];
    out += kBase64Alphabet[(v >> 12) & 63];
    out += kBase64Alphabet[(v >> 6) & 63];
    out += kBase64Alphabet[v & 63];
  }
  if (n - i == 1) {
    std::uint32_t v = std::uint32_t{bytes[i]} << 16;
    out += kBase64Alphabet[(v >> 18) & 63];
    out += kBase64Alphabet[(v >> 12) & 63];
    out += "==";
  } else if (n - i == 2) {
    std::uint32_t v = (std::uint32_t{bytes[i]} << 16) | (std::uint32_t{bytes[i + 1]} << 8);
    out += kBase64Alphabet[(v >> 18) & 63];
    out += kBase64Alphabet[(v >> 12) & 63];
    out += kBase64Alphabet[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

inline int base64_digit(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

// Strict decoding: a multiple of four characters, padding only at the end. nullopt-like
// failure is reported through `ok` so that callers can name the attr in their error.
inline std::string base64_decode(std::string_view text, bool& ok) {
  ok = false;
  std::string out;
  if (text.size() % 4 != 0) return out;
  out.reserve(text.size() / 4 * 3);
  for (std::size_t i = 0; i < text.size(); i += 4) {
    bool last = i + 4 == text.size();
    int pad = 0;
    if (last && text[i + 3] == '=') pad = text[i + 2] == '=' ? 2 : 1;
    std::uint32_t v = 0;
    for (std::size_t k = 0; k < 4; ++k) {
      int d = 0;
      if (k >= 4 - static_cast<std::size_t>(pad)) {
        d = 0;  // padding
      } else {
        d = base64_digit(text[i + k]);
        if (d < 0) return out;
      }
      v = (v << 6) | static_cast<std::uint32_t>(d);
    }
    out += static_cast<char>((v >> 16) & 0xff);
    if (pad < 2) out += static_cast<char>((v >> 8) & 0xff);
    if (pad < 1) out += static_cast<char>(v & 0xff);
  }
  ok = true;
  return out;
}

// Whether `s` is well-formed UTF-8 (JSON strings must be; other bytes go as base64).
inline bool is_valid_utf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    auto c = static_cast<unsigned char>(s[i]);
    std::size_t len = 0;
    std::uint32_t cp = 0;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xe0) == 0xc0) {
      len = 2, cp = c & 0x1f;
    } else if ((c & 0xf0) == 0xe0) {
      len = 3, cp = c & 0x0f;
    } else if ((c & 0xf8) == 0xf0) {
      len = 4, cp = c & 0x07;
    } else {
      return false;
    }
    if (i + len > s.size()) return false;
    for (std::size_t k = 1; k < len; ++k) {
      auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3f);
    }
    // Overlong forms, surrogates and code points beyond U+10FFFF are not UTF-8.
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
        (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
      return false;
    i += len;
  }
  return true;
}

[[noreturn]] inline void fail(std::string_view where, const std::string& what) {
  throw DataLossError(std::string(where) + ": " + what);
}

inline std::string type_name(const nlohmann::json& j) { return j.type_name(); }

inline const nlohmann::json& require_object(const nlohmann::json& j, std::string_view where,
                                            std::string_view what) {
  if (!j.is_object())
    fail(where, "expected " + std::string(what) + " to be a JSON object, got " + type_name(j));
  return j;
}

inline std::string get_string(const nlohmann::json& j, std::string_view where,
                              std::string_view what) {
  if (!j.is_string())
    fail(where, "expected " + std::string(what) + " to be a string, got " + type_name(j));
  return j.get<std::string>();
}

inline std::int64_t get_int64(const nlohmann::json& j, std::string_view where,
                              std::string_view what) {
  if (j.is_number_integer()) {
    if (j.is_number_unsigned() &&
        j.get<std::uint64_t>() >
            static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      fail(where, "expected " + std::string(what) + " to fit in an int64, got " + j.dump());
    return j.get<std::int64_t>();
  }
  fail(where, "expected " + std::string(what) + " to be an integer, got " +
                  (j.is_number_float() ? "a fractional number " + j.dump() : type_name(j)));
}

// `attr`: a type attr, where DT_RESOURCE is kept as DType::invalid (attr_dtype_enum_name).
inline DType get_dtype(const nlohmann::json& j, std::string_view where, std::string_view what,
                       bool attr = false) {
  std::string name = get_string(j, where, what);
  if (attr && name == "DT_RESOURCE") return DType::invalid;
  try {
    return dtype_from_enum_name(name);
  } catch (const ValueError&) {
    fail(where, "unknown dtype '" + name + "' in " + std::string(what) +
                    ": expected one of DT_FLOAT, DT_DOUBLE, DT_INT32, DT_INT64, DT_UINT8, DT_BOOL");
  }
}

inline nlohmann::json double_to_json(double x) {
  if (std::isnan(x)) return "NaN";
  if (std::isinf(x)) return x > 0 ? "Infinity" : "-Infinity";
  return x;
}

inline double double_from_json(const nlohmann::json& j, std::string_view where) {
  if (j.is_number()) return j.get<double>();
  if (j.is_string()) {
    const auto& s = j.get_ref<const std::string&>();
    if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
    if (s == "Infinity") return std::numeric_limits<double>::infinity();
    if (s == "-Infinity") return -std::numeric_limits<double>::infinity();
    fail(where, "expected a number or one of \"NaN\", \"Infinity\", \"-Infinity\" for 'f', got \"" +
                    s + "\"");
  }
  fail(where, "expected a number for 'f', got " + type_name(j));
}

// A string field: "s" when it is UTF-8, else "s_base64" (bytes are allowed in attrs).
inline nlohmann::json bytes_to_json(const std::string& s) {
  if (is_valid_utf8(s)) return s;
  return base64_encode(s.data(), s.size());
}

inline std::string bytes_from_json(const nlohmann::json& j, bool base64, std::string_view where,
                                   std::string_view what) {
  std::string s = get_string(j, where, what);
  if (!base64) return s;
  bool ok = false;
  std::string bytes = base64_decode(s, ok);
  if (!ok) fail(where, "expected " + std::string(what) + " to be base64, got \"" + s + "\"");
  return bytes;
}

inline Shape shape_from_json(const nlohmann::json& j, std::string_view where) {
  require_object(j, where, "'shape'");
  bool unknown_rank = false;
  const nlohmann::json* dims = nullptr;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& key = it.key();
    const nlohmann::json& value = it.value();
    if (key == "unknown_rank") {
      if (!value.is_boolean())
        fail(where, "expected 'shape.unknown_rank' to be a boolean, got " + type_name(value));
      unknown_rank = value.get<bool>();
    } else if (key == "dim") {
      if (!value.is_array())
        fail(where, "expected 'shape.dim' to be an array of integers, got " + type_name(value));
      dims = &value;
    } else {
      fail(where, "unknown field '" + key + "' in 'shape': expected 'dim' or 'unknown_rank'");
    }
  }
  if (unknown_rank) {
    if (dims && !dims->empty()) fail(where, "a shape with 'unknown_rank': true cannot have dims");
    return Shape::unknown();
  }
  Dims out;
  if (dims) {
    for (const auto& d : *dims) {
      std::int64_t size = get_int64(d, where, "a dim of 'shape'");
      if (size < -1) fail(where, "expected shape dims >= -1, got " + std::to_string(size));
      out.push_back(size);
    }
  }
  return Shape(std::move(out));
}

inline nlohmann::json shape_to_json(const Shape& s) {
  nlohmann::json j = nlohmann::json::object();
  if (!s.has_rank()) {
    j["unknown_rank"] = true;
  } else {
    j["dim"] = s.dims();
  }
  return j;
}

}  // namespace detail::graph_json

namespace io {

// {"dtype": "DT_FLOAT", "shape": [2, 3], "content": "<base64>"}; a string tensor is
// {"dtype": "DT_STRING", "shape": [2], "strings": ["<base64>", ...]} (each string's bytes
// as base64, since JSON text cannot hold arbitrary bytes); an empty Value (None) is
// {"dtype": "DT_INVALID"}.
inline nlohmann::json value_to_json(const Value& v) {
  namespace gj = detail::graph_json;
  nlohmann::json j = nlohmann::json::object();
  if (v.is_none()) {
    j["dtype"] = "DT_INVALID";
    return j;
  }
  j["dtype"] = std::string(dtype_enum_name(v.dtype()));
  j["shape"] = v.dims();
  if (v.dtype() == DType::string) {
    nlohmann::json strings = nlohmann::json::array();
    for (const std::string& x : v.flat<std::string>())
      strings.push_back(gj::base64_encode(x.data(), x.size()));
    j["strings"] = std::move(strings);
    return j;
  }
  // The in-memory bytes, which are little-endian on every platform symflow supports.
  static_assert(std::endian::native == std::endian::little,
                "symflow's tensor encodings assume a little-endian host");
  j["content"] = gj::base64_encode(v.raw_data(), v.nbytes());
  return j;
}

}  // namespace io

namespace detail::graph_json {
// A DT_STRING tensor's "strings": one base64 text per element, as many as the shape holds.
inline Value strings_from_json(const nlohmann::json& j, Dims dims, std::string_view where) {
  if (j.contains("content"))
    fail(where, "a DT_STRING tensor keeps its elements in 'strings', not in 'content'");
  std::uint64_t n = 1;
  for (auto d : dims) {
    if (d != 0 && n > (std::uint64_t{1} << 40) / static_cast<std::uint64_t>(d))
      fail(where, "the tensor's shape " + dims_to_string(dims) + " is too large");
    n *= static_cast<std::uint64_t>(d);
  }
  const nlohmann::json empty = nlohmann::json::array();
  const nlohmann::json& strings = j.contains("strings") ? j.at("strings") : empty;
  if (!strings.is_array())
    fail(where, "expected the tensor's 'strings' to be an array, got " + type_name(strings));
  if (strings.size() != n)
    fail(where, "the tensor's 'strings' has " + std::to_string(strings.size()) +
                    " elements, expected " + std::to_string(n) + " for shape " +
                    dims_to_string(dims));
  Value v(DType::string, std::move(dims));
  std::string* out = v.data<std::string>();
  for (std::size_t i = 0; i < strings.size(); ++i) {
    bool ok = false;
    out[i] = base64_decode(get_string(strings[i], where, "a string of the tensor"), ok);
    if (!ok) fail(where, "expected each of the tensor's 'strings' to be base64");
  }
  return v;
}
}  // namespace detail::graph_json

namespace io {

inline Value value_from_json(const nlohmann::json& j, std::string_view where) {
  namespace gj = detail::graph_json;
  try {
    gj::require_object(j, where, "a tensor");
    for (auto it = j.begin(); it != j.end(); ++it)
      if (it.key() != "dtype" && it.key() != "shape" && it.key() != "content" &&
          it.key() != "strings")
        gj::fail(where, "unknown field '" + it.key() +
                            "' in a tensor: expected 'dtype', 'shape' and 'content' (or "
                            "'strings')");
    if (!j.contains("dtype")) gj::fail(where, "a tensor needs a 'dtype' field");
    if (j.at("dtype") == "DT_INVALID") {
      if (j.size() != 1) gj::fail(where, "a DT_INVALID tensor cannot have a shape or content");
      return Value();
    }
    DType dtype = gj::get_dtype(j.at("dtype"), where, "the tensor's 'dtype'");
    Dims dims;
    if (j.contains("shape")) {
      const auto& shape = j.at("shape");
      if (!shape.is_array())
        gj::fail(where, "expected the tensor's 'shape' to be an array of sizes, got " +
                            gj::type_name(shape));
      for (const auto& d : shape) {
        std::int64_t size = gj::get_int64(d, where, "a size in the tensor's 'shape'");
        if (size < 0)
          gj::fail(where, "expected the tensor's sizes to be >= 0, got " + std::to_string(size));
        dims.push_back(size);
      }
    }
    if (dtype == DType::string) return gj::strings_from_json(j, std::move(dims), where);
    std::string content;
    if (j.contains("content")) {
      bool ok = false;
      std::string text = gj::get_string(j.at("content"), where, "the tensor's 'content'");
      content = gj::base64_decode(text, ok);
      if (!ok) gj::fail(where, "expected the tensor's 'content' to be base64");
    }
    // The size the shape needs, without overflowing on absurd shapes.
    const std::uint64_t item = dtype_size(dtype);
    std::uint64_t expected = item;
    bool overflow = false;
    for (auto d : dims) {
      auto ud = static_cast<std::uint64_t>(d);
      if (ud != 0 && expected > std::numeric_limits<std::uint64_t>::max() / ud) overflow = true;
      expected *= ud;
    }
    if (overflow || expected != content.size())
      gj::fail(
          where,
          "the tensor's 'content' has " + std::to_string(content.size()) + " bytes, expected " +
              (overflow ? std::string("a representable size") : std::to_string(expected)) +
              " for shape " + dims_to_string(dims) + " of " + std::string(dtype_enum_name(dtype)));
    if (dtype == DType::bool_)
      for (char c : content)
        if (c != 0 && c != 1)
          gj::fail(where, "expected the bytes of a DT_BOOL tensor to be 0 or 1, got " +
                              std::to_string(static_cast<unsigned char>(c)));
    Value v(dtype, std::move(dims));
    if (!content.empty()) std::memcpy(v.raw_data(), content.data(), content.size());
    return v;
  } catch (const nlohmann::json::exception& e) {
    gj::fail(where, std::string("malformed tensor: ") + e.what());
  }
}

inline nlohmann::json attr_value_to_json(const AttrValue& value) {
  namespace gj = detail::graph_json;
  return std::visit(
      [](const auto& x) -> nlohmann::json {
        using X = std::decay_t<decltype(x)>;
        nlohmann::json j = nlohmann::json::object();
        if constexpr (std::is_same_v<X, DType>) {
          j["type"] = std::string(attr_dtype_enum_name(x));
        } else if constexpr (std::is_same_v<X, Shape>) {
          j["shape"] = gj::shape_to_json(x);
        } else if constexpr (std::is_same_v<X, Value>) {
          j["tensor"] = value_to_json(x);
        } else if constexpr (std::is_same_v<X, std::int64_t>) {
          j["i"] = x;
        } else if constexpr (std::is_same_v<X, double>) {
          j["f"] = gj::double_to_json(x);
        } else if constexpr (std::is_same_v<X, bool>) {
          j["b"] = x;
        } else if constexpr (std::is_same_v<X, std::string>) {
          j[gj::is_valid_utf8(x) ? "s" : "s_base64"] = gj::bytes_to_json(x);
        } else if constexpr (std::is_same_v<X, IntList>) {
          j["list"]["i"] = x.items;
        } else if constexpr (std::is_same_v<X, StringList>) {
          bool utf8 = true;
          for (const auto& s : x.items) utf8 = utf8 && gj::is_valid_utf8(s);
          nlohmann::json items = nlohmann::json::array();
          for (const auto& s : x.items)
            items.push_back(utf8 ? s : gj::base64_encode(s.data(), s.size()));
          j["list"][utf8 ? "s" : "s_base64"] = std::move(items);
        } else if constexpr (std::is_same_v<X, FloatList>) {
          nlohmann::json items = nlohmann::json::array();
          for (double f : x.items) items.push_back(gj::double_to_json(f));
          j["list"]["f"] = std::move(items);
        } else if constexpr (std::is_same_v<X, BoolList>) {
          nlohmann::json items = nlohmann::json::array();
          for (bool b : x.items) items.push_back(b);
          j["list"]["b"] = std::move(items);
        } else if constexpr (std::is_same_v<X, TypeList>) {
          nlohmann::json items = nlohmann::json::array();
          for (DType t : x.items) items.push_back(std::string(attr_dtype_enum_name(t)));
          j["list"]["type"] = std::move(items);
        } else if constexpr (std::is_same_v<X, ShapeList>) {
          nlohmann::json items = nlohmann::json::array();
          for (const Shape& item : x.items) items.push_back(gj::shape_to_json(item));
          j["list"]["shape"] = std::move(items);
        }
        return j;
      },
      value);
}

inline AttrValue attr_value_from_json(const nlohmann::json& j, std::string_view where) {
  namespace gj = detail::graph_json;
  constexpr std::string_view kinds =
      "one of 'type', 'shape', 'tensor', 'i', 'f', 'b', 's', 's_base64', 'list'";
  try {
    if (!j.is_object() || j.size() != 1)
      gj::fail(where,
               "expected an attr value: an object with exactly one field, " + std::string(kinds) +
                   ", got " +
                   (j.is_object() ? std::to_string(j.size()) + " fields" : gj::type_name(j)));
    const std::string& kind = j.begin().key();
    const nlohmann::json& body = j.begin().value();
    if (kind == "type") return gj::get_dtype(body, where, "'type'", true);
    if (kind == "shape") return gj::shape_from_json(body, where);
    if (kind == "tensor") return value_from_json(body, where);
    if (kind == "i") {
      // protobuf's JSON writes int64 as a string; accept that too.
      if (body.is_string()) {
        const auto& s = body.get_ref<const std::string&>();
        std::size_t used = 0;
        std::int64_t v = 0;
        try {
          v = std::stoll(s, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used == 0 || used != s.size())
          gj::fail(where, "expected 'i' to be an integer, got \"" + s + "\"");
        return v;
      }
      return gj::get_int64(body, where, "'i'");
    }
    if (kind == "f") return gj::double_from_json(body, where);
    if (kind == "b") {
      if (!body.is_boolean())
        gj::fail(where, "expected 'b' to be a boolean, got " + gj::type_name(body));
      return body.get<bool>();
    }
    if (kind == "s" || kind == "s_base64")
      return gj::bytes_from_json(body, kind == "s_base64", where, "'" + kind + "'");
    if (kind == "list") {
      if (!body.is_object() || body.size() != 1)
        gj::fail(where,
                 "expected 'list' to be an object with exactly one field, 'i', 's', "
                 "'s_base64', 'f', 'b', 'type' or 'shape'");
      const std::string& list_kind = body.begin().key();
      const nlohmann::json& items = body.begin().value();
      if (!items.is_array())
        gj::fail(where,
                 "expected 'list." + list_kind + "' to be an array, got " + gj::type_name(items));
      if (list_kind == "i") {
        IntList out;
        for (const auto& item : items)
          out.items.push_back(gj::get_int64(item, where, "'list.i' items"));
        return out;
      }
      if (list_kind == "s" || list_kind == "s_base64") {
        StringList out;
        for (const auto& item : items)
          out.items.push_back(gj::bytes_from_json(item, list_kind == "s_base64", where,
                                                  "'list." + list_kind + "' items"));
        return out;
      }
      if (list_kind == "f") {
        FloatList out;
        for (const auto& item : items) out.items.push_back(gj::double_from_json(item, where));
        return out;
      }
      if (list_kind == "b") {
        BoolList out;
        for (const auto& item : items) {
          if (!item.is_boolean())
            gj::fail(where, "expected 'list.b' items to be booleans, got " + gj::type_name(item));
          out.items.push_back(item.get<bool>());
        }
        return out;
      }
      if (list_kind == "type") {
        TypeList out;
        for (const auto& item : items)
          out.items.push_back(gj::get_dtype(item, where, "'list.type' items", true));
        return out;
      }
      if (list_kind == "shape") {
        ShapeList out;
        for (const auto& item : items) out.items.push_back(gj::shape_from_json(item, where));
        return out;
      }
      gj::fail(where, "unknown list kind '" + list_kind +
                          "': expected 'i', 's', 's_base64', 'f', 'b', 'type' or 'shape'");
    }
    gj::fail(where, "unknown attr kind '" + kind + "': expected " + std::string(kinds));
  } catch (const nlohmann::json::exception& e) {
    gj::fail(where, std::string("malformed attr value: ") + e.what());
  }
}

inline nlohmann::json graph_def_to_json(const GraphDef& def) {
  nlohmann::json j = nlohmann::json::object();
  j["format"] = std::string(kGraphDefJsonFormat);
  j["versions"] = {{"producer", def.producer}};
  nlohmann::json nodes = nlohmann::json::array();
  for (const NodeDef& n : def.node) {
    nlohmann::json node = nlohmann::json::object();
    node["name"] = n.name;
    node["op"] = n.op;
    if (!n.input.empty()) node["input"] = n.input;
    if (!n.device.empty()) node["device"] = n.device;
    if (!n.attr.empty()) {
      nlohmann::json attrs = nlohmann::json::object();
      for (const auto& [key, value] : n.attr) attrs[key] = attr_value_to_json(value);
      node["attr"] = std::move(attrs);
    }
    nodes.push_back(std::move(node));
  }
  j["node"] = std::move(nodes);
  return j;
}

// `source_name` (a file name, "MetaGraphDef ...") starts every error message.
inline GraphDef graph_def_from_json(const nlohmann::json& j, std::string_view source_name) {
  namespace gj = detail::graph_json;
  const std::string source(source_name);
  try {
    gj::require_object(j, source, "a GraphDef");
    GraphDef def;
    def.producer = 0;  // protobuf's default when "versions" is absent
    for (auto it = j.begin(); it != j.end(); ++it) {
      const std::string& key = it.key();
      const nlohmann::json& value = it.value();
      if (key == "format") {
        std::string format = gj::get_string(value, source, "'format'");
        if (format != kGraphDefJsonFormat)
          gj::fail(source, "expected 'format' to be \"" + std::string(kGraphDefJsonFormat) +
                               "\", got \"" + format + "\"");
      } else if (key == "versions") {
        gj::require_object(value, source, "'versions'");
        if (value.contains("producer")) {
          std::int64_t producer =
              gj::get_int64(value.at("producer"), source, "'versions.producer'");
          if (producer < std::numeric_limits<int>::min() ||
              producer > std::numeric_limits<int>::max())
            gj::fail(source,
                     "'versions.producer' " + std::to_string(producer) + " is out of range");
          def.producer = static_cast<int>(producer);
        }
      } else if (key == "node") {
        if (!value.is_array())
          gj::fail(source, "expected 'node' to be an array of nodes, got " + gj::type_name(value));
        std::size_t index = 0;
        for (const auto& node : value) {
          std::string where = source + ": node #" + std::to_string(index++);
          gj::require_object(node, where, "a node");
          NodeDef n;
          if (!node.contains("name")) gj::fail(where, "a node needs a 'name'");
          n.name = gj::get_string(node.at("name"), where, "'name'");
          if (n.name.empty()) gj::fail(where, "expected a non-empty 'name'");
          where = source + ": node '" + n.name + "'";
          for (auto field_it = node.begin(); field_it != node.end(); ++field_it) {
            const std::string& field = field_it.key();
            const nlohmann::json& body = field_it.value();
            if (field == "name") {
              continue;
            } else if (field == "op") {
              n.op = gj::get_string(body, where, "'op'");
            } else if (field == "input") {
              if (!body.is_array())
                gj::fail(where,
                         "expected 'input' to be an array of strings, got " + gj::type_name(body));
              for (const auto& in : body) n.input.push_back(gj::get_string(in, where, "an input"));
            } else if (field == "device") {
              n.device = gj::get_string(body, where, "'device'");
            } else if (field == "attr") {
              gj::require_object(body, where, "'attr'");
              for (auto attr_it = body.begin(); attr_it != body.end(); ++attr_it)
                n.attr.emplace(
                    attr_it.key(),
                    attr_value_from_json(attr_it.value(), where + " attr '" + attr_it.key() + "'"));
            } else {
              gj::fail(where, "unknown field '" + field +
                                  "': expected 'name', 'op', 'input', 'device' or 'attr'");
            }
          }
          if (n.op.empty()) gj::fail(where, "a node needs a non-empty 'op'");
          def.node.push_back(std::move(n));
        }
      }
      // Other top-level fields (library, ...) are not part of symflow's GraphDef.
    }
    return def;
  } catch (const nlohmann::json::exception& e) {
    gj::fail(source, std::string("malformed GraphDef JSON: ") + e.what());
  }
}

inline GraphDef graph_def_from_json(const nlohmann::json& j) {
  return graph_def_from_json(j, "GraphDef JSON");
}

// The JSON text of a GraphDef: indented by two spaces when `pretty`, else one line; with
// a "checksum" member (see kJsonChecksumKey) when `with_checksum`, as files should be.
inline std::string serialize_graph_def(const GraphDef& def, bool pretty,
                                       bool with_checksum = false) {
  try {
    nlohmann::json j = graph_def_to_json(def);
    if (with_checksum) add_json_checksum(j);
    return j.dump(pretty ? 2 : -1);
  } catch (const nlohmann::json::exception& e) {
    // Names, ops, inputs and devices must be UTF-8 (attr strings fall back to base64).
    throw InvalidArgumentError(std::string("Cannot serialise a GraphDef as JSON: ") + e.what());
  }
}

inline GraphDef parse_graph_def(std::string_view json_text, std::string_view source_name) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(json_text.begin(), json_text.end());
  } catch (const nlohmann::json::exception& e) {
    throw DataLossError(std::string(source_name) + ": invalid JSON: " + e.what());
  }
  verify_json_checksum(j, source_name);
  return graph_def_from_json(j, source_name);
}

}  // namespace io
}  // namespace symflow
