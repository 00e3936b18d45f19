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

// A list of floats (`list { f: ... }`), kept as double like a scalar `f`.
struct FloatList {
  std::vector<double> items;
  friend bool operator==(const FloatList&, const FloatList&) = default;
};
// A list of bools (`list { b: ... }`).
struct BoolList {
  std::vector<bool> items;
  friend bool operator==(const BoolList&, const BoolList&) = default;
};
// A list of dtypes (`list { type: ... }`), e.g. RestoreV2's `dtypes`.
struct TypeList {
  std::vector<DType> items;
  friend bool operator==(const TypeList&, const TypeList&) = default;
};
// A list of shapes (`list { shape { ... } }`), e.g. `_output_shapes`.
struct ShapeList {
  std::vector<Shape> items;
  friend bool operator==(const ShapeList&, const ShapeList&) = default;
};

using AttrValue = std::variant<DType, Shape, Value, std::int64_t, double, bool, std::string,
                               IntList, StringList, FloatList, BoolList, TypeList, ShapeList>;

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
  if constexpr (std::is_same_v<T, FloatList>) return "list(float)";
  if constexpr (std::is_same_v<T, BoolList>) return "list(bool)";
  if constexpr (std::is_same_v<T, TypeList>) return "list(type)";
  if constexpr (std::is_same_v<T, ShapeList>) return "list(shape)";
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
