#pragma once
// Numbers, booleans and strings read from symflow's JSON files, checked before they become
// C++ values. A field that holds a count, a version or an int64 must be a JSON integer
// (1.9 is not 1) within the range of its C++ type and of its meaning (1e300, -1 and 2^63
// are no max_to_keep). Converting an out-of-range double to an int is undefined
// behaviour, so a reader never calls nlohmann's get<int>() on a value these checks have
// not passed. Every failure is a DataLossError
//   "<where>: field <name>: expected an integer in [0, 2147483647], got 1e+300"
// where `where` names the file.

#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include "symflow/core/errors.hpp"

namespace symflow::io {

// A JSON value for an error message: numbers, booleans, null and short strings as
// written, anything else by its type.
inline std::string describe_json(const nlohmann::json& j) {
  if (j.is_number() || j.is_boolean() || j.is_null()) return j.dump();
  if (j.is_string() && j.get_ref<const std::string&>().size() <= 40) return j.dump();
  return std::string("a JSON ") + j.type_name();
}

// The integer `j` holds when it is a JSON integer in [min, max]; nullopt for a
// fractional or exponent number (1.9, 1e300), any other JSON type, or a value out of range.
template <std::integral Int>
std::optional<Int> json_integer_in(const nlohmann::json& j, Int min, Int max) {
  if (j.is_number_unsigned()) {
    const auto v = j.get<std::uint64_t>();
    if (std::cmp_less(v, min) || std::cmp_greater(v, max)) return std::nullopt;
    return static_cast<Int>(v);
  }
  if (j.is_number_integer()) {
    const auto v = j.get<std::int64_t>();
    if (std::cmp_less(v, min) || std::cmp_greater(v, max)) return std::nullopt;
    return static_cast<Int>(v);
  }
  return std::nullopt;
}

[[noreturn]] inline void throw_json_field_error(std::string_view where, std::string_view field,
                                                const std::string& what) {
  throw DataLossError(std::string(where) + ": field " + std::string(field) + ": " + what);
}

// `j` as an Int in [min, max], or DataLossError naming `where` and `field`.
template <std::integral Int>
Int json_integer(const nlohmann::json& j, Int min, Int max, std::string_view where,
                 std::string_view field) {
  if (auto v = json_integer_in(j, min, max)) return *v;
  throw_json_field_error(where, field,
                         "expected an integer in [" + std::to_string(min) + ", " +
                             std::to_string(max) + "], got " + describe_json(j));
}

// The member `key` of `object` as an Int in [min, max]; `fallback` when it is absent.
template <std::integral Int>
Int json_integer_field(const nlohmann::json& object, const std::string& key, Int fallback, Int min,
                       Int max, std::string_view where, std::string_view field) {
  auto it = object.find(key);
  return it == object.end() ? fallback : json_integer(*it, min, max, where, field);
}

// The member `key` of `object` as a bool; `fallback` when it is absent.
inline bool json_bool_field(const nlohmann::json& object, const std::string& key, bool fallback,
                            std::string_view where, std::string_view field) {
  auto it = object.find(key);
  if (it == object.end()) return fallback;
  if (!it->is_boolean())
    throw_json_field_error(where, field, "expected true or false, got " + describe_json(*it));
  return it->get<bool>();
}

// The member `key` of `object` as a string; `fallback` when it is absent.
inline std::string json_string_field(const nlohmann::json& object, const std::string& key,
                                     const std::string& fallback, std::string_view where,
                                     std::string_view field) {
  auto it = object.find(key);
  if (it == object.end()) return fallback;
  if (!it->is_string())
    throw_json_field_error(where, field, "expected a string, got " + describe_json(*it));
  return it->get<std::string>();
}

}  // namespace symflow::io
