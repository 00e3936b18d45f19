#pragma once
// Typed node attributes (TensorFlow's AttrValue). Keys are strings, as in a NodeDef;
// the map is ordered because GraphDef text lists attrs sorted by key.

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "symflow/core/dtype.hpp"
#include "symflow/core/shape.hpp"
#include "symflow/core/value.hpp"

namespace symflow {

// A list of strings (TensorFlow's `list { s: ... }`), e.g. the `_class` attr.
struct StringList {
  std::vector<std::string> items;
  friend bool operator==(const StringList&, const StringList&) = default;
};
// A list of integers (`list { i: ... }`), e.g. strides.
struct IntList {
  std::vector<std::int64_t> items;
  friend bool operator==(const IntList&, const IntList&) = default;
};

using AttrValue =
    std::variant<DType, Shape, Value, std::int64_t, double, bool, std::string, IntList, StringList>;

using AttrMap = std::map<std::string, AttrValue, std::less<>>;

namespace detail {
template <class T>
constexpr std::string_view attr_kind_name() {
  if constexpr (std::is_same_v<T, DType>) return "type";
  if constexpr (std::is_same_v<T, Shape>) return "shape";
  if constexpr (std::is_same_v<T, Value>) return "tensor";
  if constexpr (std::is_same_v<T, std::int64_t>) return "int";
  if constexpr (std::is_same_v<T, double>) return "float";
  if constexpr (std::is_same_v<T, bool>) return "bool";
  if constexpr (std::is_same_v<T, std::string>) return "string";
  if constexpr (std::is_same_v<T, IntList>) return "list(int)";
  if constexpr (std::is_same_v<T, StringList>) return "list(string)";
  return "?";
}
}  // namespace detail

// The attr `name` of `attrs`, as T; NotFound / InvalidArgument when absent or mistyped.
template <class T>
const T& get_attr(const AttrMap& attrs, std::string_view name, const std::string& node = {}) {
  auto it = attrs.find(name);
  if (it == attrs.end())
    throw NotFoundError("No attr named '" + std::string(name) + "' in NodeDef", node);
  if (const T* v = std::get_if<T>(&it->second)) return *v;
  throw InvalidArgumentError(
      "Attr '" + std::string(name) + "' is not of type " + std::string(detail::attr_kind_name<T>()),
      node);
}

}  // namespace symflow
