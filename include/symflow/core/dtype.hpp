#pragma once
// Element types. The enumerators use TensorFlow's Python names (tf.float32); the
// GraphDef names (DT_FLOAT) and the names in run-time messages ("float") are
// derived from them.

#include <complex>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "symflow/core/errors.hpp"
#include "symflow/core/float16.hpp"

namespace symflow {

// `string` holds byte strings (std::string elements), as TensorFlow's tf.string does: no
// arithmetic, host memory only, and no entry in visit_dtype (kernels that move bytes
// cannot take it by accident; ops opt in with OpDef::accepts_strings).
// `resource` is TensorFlow's handle to a run's TensorArray or stack: stored as a string
// (the resource's name in the run, backend/step_resources.hpp), host memory only, and
// taken only by the ops that say so (OpDef::accepts_resources).
// The storage dtypes (int8 to complex64, after `resource`) are TensorFlow's other number
// types: symflow keeps, moves, casts, prints and saves them, but computes in none of them
// (docs/dtypes.md): like strings, they are taken only by the ops that opt in
// (OpDef::accepts_storage_dtypes), and visit_dtype does not visit them.
enum class DType : std::uint8_t {
  invalid,
  float32,
  float64,
  int32,
  int64,
  uint8,
  bool_,
  string,
  resource,
  int8,
  int16,
  uint16,
  uint32,
  uint64,
  float16,
  bfloat16,
  complex64
};

inline constexpr DType float32 = DType::float32;
inline constexpr DType float64 = DType::float64;
inline constexpr DType int32 = DType::int32;
inline constexpr DType int64 = DType::int64;
inline constexpr DType uint8 = DType::uint8;
inline constexpr DType bool_ = DType::bool_;
inline constexpr DType string = DType::string;
inline constexpr DType int8 = DType::int8;
inline constexpr DType int16 = DType::int16;
inline constexpr DType uint16 = DType::uint16;
inline constexpr DType uint32 = DType::uint32;
inline constexpr DType uint64 = DType::uint64;
inline constexpr DType float16 = DType::float16;
inline constexpr DType half = DType::float16;  // tf.half
inline constexpr DType bfloat16 = DType::bfloat16;
inline constexpr DType complex64 = DType::complex64;

// tf.complex64's element.
using complex64_t = std::complex<float>;

// The C++ element type of each DType, and back.
template <class T>
struct dtype_of;
template <>
struct dtype_of<float> : std::integral_constant<DType, DType::float32> {};
template <>
struct dtype_of<double> : std::integral_constant<DType, DType::float64> {};
template <>
struct dtype_of<std::int32_t> : std::integral_constant<DType, DType::int32> {};
template <>
struct dtype_of<std::int64_t> : std::integral_constant<DType, DType::int64> {};
template <>
struct dtype_of<std::uint8_t> : std::integral_constant<DType, DType::uint8> {};
template <>
struct dtype_of<bool> : std::integral_constant<DType, DType::bool_> {};
template <>
struct dtype_of<std::string> : std::integral_constant<DType, DType::string> {};
template <>
struct dtype_of<std::int8_t> : std::integral_constant<DType, DType::int8> {};
template <>
struct dtype_of<std::int16_t> : std::integral_constant<DType, DType::int16> {};
template <>
struct dtype_of<std::uint16_t> : std::integral_constant<DType, DType::uint16> {};
template <>
struct dtype_of<std::uint32_t> : std::integral_constant<DType, DType::uint32> {};
template <>
struct dtype_of<std::uint64_t> : std::integral_constant<DType, DType::uint64> {};
template <>
struct dtype_of<float16_t> : std::integral_constant<DType, DType::float16> {};
template <>
struct dtype_of<bfloat16_t> : std::integral_constant<DType, DType::bfloat16> {};
template <>
struct dtype_of<complex64_t> : std::integral_constant<DType, DType::complex64> {};

template <class T>
concept Element = requires {
  dtype_of<std::remove_cv_t<T>>::value;
};

template <Element T>
inline constexpr DType dtype_v = dtype_of<std::remove_cv_t<T>>::value;

// Python name: "float32".
constexpr std::string_view dtype_name(DType d) {
  switch (d) {
    case DType::float32:
      return "float32";
    case DType::float64:
      return "float64";
    case DType::int32:
      return "int32";
    case DType::int64:
      return "int64";
    case DType::uint8:
      return "uint8";
    case DType::bool_:
      return "bool";
    case DType::string:
      return "string";
    case DType::resource:
      return "resource";
    case DType::int8:
      return "int8";
    case DType::int16:
      return "int16";
    case DType::uint16:
      return "uint16";
    case DType::uint32:
      return "uint32";
    case DType::uint64:
      return "uint64";
    case DType::float16:
      return "float16";
    case DType::bfloat16:
      return "bfloat16";
    case DType::complex64:
      return "complex64";
    case DType::invalid:
      break;
  }
  return "invalid";
}

// std::cout << dtype prints what Python's print(tf.float32) prints: <dtype: 'float32'>.
inline std::ostream& operator<<(std::ostream& os, DType d) {
  return os << "<dtype: '" << dtype_name(d) << "'>";
}

// GraphDef enum name: "DT_FLOAT".
constexpr std::string_view dtype_enum_name(DType d) {
  switch (d) {
    case DType::float32:
      return "DT_FLOAT";
    case DType::float64:
      return "DT_DOUBLE";
    case DType::int32:
      return "DT_INT32";
    case DType::int64:
      return "DT_INT64";
    case DType::uint8:
      return "DT_UINT8";
    case DType::bool_:
      return "DT_BOOL";
    case DType::string:
      return "DT_STRING";
    case DType::resource:
      return "DT_RESOURCE";
    case DType::int8:
      return "DT_INT8";
    case DType::int16:
      return "DT_INT16";
    case DType::uint16:
      return "DT_UINT16";
    case DType::uint32:
      return "DT_UINT32";
    case DType::uint64:
      return "DT_UINT64";
    case DType::float16:
      return "DT_HALF";
    case DType::bfloat16:
      return "DT_BFLOAT16";
    case DType::complex64:
      return "DT_COMPLEX64";
    case DType::invalid:
      break;
  }
  return "DT_INVALID";
}

// The runtime's name, used in its error messages (DataTypeString): "float".
constexpr std::string_view dtype_runtime_name(DType d) {
  switch (d) {
    case DType::float32:
      return "float";
    case DType::float64:
      return "double";
    case DType::int32:
      return "int32";
    case DType::int64:
      return "int64";
    case DType::uint8:
      return "uint8";
    case DType::bool_:
      return "bool";
    case DType::string:
      return "string";
    case DType::resource:
      return "resource";
    case DType::int8:
      return "int8";
    case DType::int16:
      return "int16";
    case DType::uint16:
      return "uint16";
    case DType::uint32:
      return "uint32";
    case DType::uint64:
      return "uint64";
    case DType::float16:
      return "half";
    case DType::bfloat16:
      return "bfloat16";
    case DType::complex64:
      return "complex64";
    case DType::invalid:
      break;
  }
  return "INVALID";
}

constexpr std::size_t dtype_size(DType d) {
  switch (d) {
    case DType::float32:
      return 4;
    case DType::float64:
      return 8;
    case DType::int32:
      return 4;
    case DType::int64:
      return 8;
    case DType::uint8:
      return 1;
    case DType::bool_:
      return 1;
    case DType::string:
    case DType::resource:
      return sizeof(std::string);
    case DType::int8:
      return 1;
    case DType::int16:
      return 2;
    case DType::uint16:
      return 2;
    case DType::uint32:
      return 4;
    case DType::uint64:
      return 8;
    case DType::float16:
      return 2;
    case DType::bfloat16:
      return 2;
    case DType::complex64:
      return 8;
    case DType::invalid:
      break;
  }
  return 0;
}

// Every valid DType, in enum order.
inline constexpr DType kAllDTypes[] = {
    DType::float32, DType::float64, DType::int32,   DType::int64,    DType::uint8,
    DType::bool_,   DType::string,  DType::int8,    DType::int16,    DType::uint16,
    DType::uint32,  DType::uint64,  DType::float16, DType::bfloat16, DType::complex64};

// The dtypes symflow stores, moves, casts, prints and saves but computes in none of
// (int8 to complex64): only the ops with OpDef::accepts_storage_dtypes take them.
constexpr bool is_storage_dtype(DType d) { return d >= DType::int8 && d <= DType::complex64; }

// Whether a value of `d` holds std::string objects (strings, resource handles): copied
// element by element, never byte by byte.
constexpr bool stores_strings(DType d) { return d == DType::string || d == DType::resource; }

constexpr bool is_floating(DType d) { return d == DType::float32 || d == DType::float64; }
constexpr bool is_integer(DType d) {
  return d == DType::int32 || d == DType::int64 || d == DType::uint8;
}

inline DType dtype_from_enum_name(std::string_view name) {
  for (DType d : kAllDTypes)
    if (dtype_enum_name(d) == name) return d;
  throw ValueError(
      "Unknown data type '" + std::string(name) +
      "': expected one of DT_FLOAT, DT_DOUBLE, DT_INT32, DT_INT64, DT_UINT8, DT_BOOL, "
      "DT_STRING, DT_INT8, DT_INT16, DT_UINT16, DT_UINT32, DT_UINT64, DT_HALF, DT_BFLOAT16, "
      "DT_COMPLEX64");
}

// TensorFlow's DataType enum numbers (types.proto), as binary files store them.
constexpr int dtype_tf_number(DType d) {
  switch (d) {
    case DType::float32:
      return 1;
    case DType::float64:
      return 2;
    case DType::int32:
      return 3;
    case DType::uint8:
      return 4;
    case DType::int64:
      return 9;
    case DType::bool_:
      return 10;
    case DType::string:
      return 7;
    case DType::resource:
      return 20;
    case DType::int8:
      return 6;
    case DType::int16:
      return 5;
    case DType::uint16:
      return 17;
    case DType::uint32:
      return 22;
    case DType::uint64:
      return 23;
    case DType::float16:
      return 19;
    case DType::bfloat16:
      return 14;
    case DType::complex64:
      return 8;
    case DType::invalid:
      break;
  }
  return 0;
}

// TensorFlow's enum name of a DataType number, including the types symflow does not
// have ("DT_STRING", "DT_FLOAT_REF"), so that a reader can say what it found.
inline std::string tf_dtype_number_name(long long number) {
  static constexpr std::string_view kNames[] = {
      "DT_INVALID",    "DT_FLOAT",  "DT_DOUBLE",    "DT_INT32",   "DT_UINT8",   "DT_INT16",
      "DT_INT8",       "DT_STRING", "DT_COMPLEX64", "DT_INT64",   "DT_BOOL",    "DT_QINT8",
      "DT_QUINT8",     "DT_QINT32", "DT_BFLOAT16",  "DT_QINT16",  "DT_QUINT16", "DT_UINT16",
      "DT_COMPLEX128", "DT_HALF",   "DT_RESOURCE",  "DT_VARIANT", "DT_UINT32",  "DT_UINT64"};
  constexpr long long kCount = static_cast<long long>(std::size(kNames));
  if (number >= 0 && number < kCount) return std::string(kNames[number]);
  if (number > 100 && number < 100 + kCount) return std::string(kNames[number - 100]) + "_REF";
  return "DataType " + std::to_string(number);
}

// The DType of a DataType number; a reference type (number + 100) gives its base type
// and sets *is_ref. std::nullopt for a type symflow does not have.
inline std::optional<DType> dtype_from_tf_number(long long number, bool* is_ref = nullptr) {
  if (is_ref) *is_ref = number > 100;
  if (number > 100) number -= 100;
  for (DType d : kAllDTypes)
    if (dtype_tf_number(d) == number) return d;
  return std::nullopt;
}

template <class T>
struct type_tag {
  using type = T;
};

// Calls f(type_tag<T>{}) with the C++ type of d: the one place a DType becomes a type.
template <class F>
decltype(auto) visit_dtype(DType d, F&& f) {
  switch (d) {
    case DType::float32:
      return f(type_tag<float>{});
    case DType::float64:
      return f(type_tag<double>{});
    case DType::int32:
      return f(type_tag<std::int32_t>{});
    case DType::int64:
      return f(type_tag<std::int64_t>{});
    case DType::uint8:
      return f(type_tag<std::uint8_t>{});
    case DType::bool_:
      return f(type_tag<bool>{});
    case DType::invalid:
      break;
    default:
      throw TypeError(
          "Expected a number or bool dtype that symflow computes in (float32, float64, int32, "
          "int64, uint8, bool), got " +
          std::string(dtype_name(d)));
  }
  throw TypeError("Invalid dtype: expected one of float32, float64, int32, int64, uint8, bool");
}

// visit_dtype over every number and bool dtype, the storage dtypes too (std::int8_t, ...,
// float16_t, bfloat16_t, complex64_t): for conversion and printing, which handle them all.
template <class F>
decltype(auto) visit_number_dtype(DType d, F&& f) {
  switch (d) {
    case DType::int8:
      return f(type_tag<std::int8_t>{});
    case DType::int16:
      return f(type_tag<std::int16_t>{});
    case DType::uint16:
      return f(type_tag<std::uint16_t>{});
    case DType::uint32:
      return f(type_tag<std::uint32_t>{});
    case DType::uint64:
      return f(type_tag<std::uint64_t>{});
    case DType::float16:
      return f(type_tag<float16_t>{});
    case DType::bfloat16:
      return f(type_tag<bfloat16_t>{});
    case DType::complex64:
      return f(type_tag<complex64_t>{});
    default:
      return visit_dtype(d, std::forward<F>(f));
  }
}

// visit_dtype with strings too (std::string): for code that handles elements by
// assignment and comparison only, never as bytes or numbers.
template <class F>
decltype(auto) visit_any_dtype(DType d, F&& f) {
  if (d == DType::string) return f(type_tag<std::string>{});
  return visit_dtype(d, std::forward<F>(f));
}

}  // namespace symflow
