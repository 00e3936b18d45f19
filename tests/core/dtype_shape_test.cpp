// DType names and sizes, static Shapes, and broadcasting.
#include <doctest/doctest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "symflow/core/dtype.hpp"
#include "symflow/core/errors.hpp"
#include "symflow/core/shape.hpp"

namespace symflow_test_core_dtype_shape_test {

namespace symflow_dtype_shape_test {

using symflow::Dims;
using symflow::DType;
using symflow::Shape;

struct DTypeRow {
  DType dtype;
  std::string_view python, graph_def, runtime;
  std::size_t size;
};

// TensorFlow's own names: tf.float32.name, DataType enum names, DataTypeString.
constexpr DTypeRow kDTypes[] = {
    {DType::float32, "float32", "DT_FLOAT", "float", 4},
    {DType::float64, "float64", "DT_DOUBLE", "double", 8},
    {DType::int32, "int32", "DT_INT32", "int32", 4},
    {DType::int64, "int64", "DT_INT64", "int64", 8},
    {DType::uint8, "uint8", "DT_UINT8", "uint8", 1},
    {DType::bool_, "bool", "DT_BOOL", "bool", 1},
};

std::string shape_str(const std::optional<Shape>& s) { return s ? s->to_string() : "nullopt"; }

std::string dims_str(const std::optional<Dims>& d) {
  return d ? symflow::dims_to_string(*d) : "nullopt";
}

}  // namespace symflow_dtype_shape_test

using namespace symflow_dtype_shape_test;  // NOLINT(google-build-using-namespace)

TEST_CASE("core/dtype: Python, GraphDef and runtime names") {
  for (const auto& row : kDTypes) {
    CAPTURE(row.python);
    CHECK(symflow::dtype_name(row.dtype) == row.python);
    CHECK(symflow::dtype_enum_name(row.dtype) == row.graph_def);
    CHECK(symflow::dtype_runtime_name(row.dtype) == row.runtime);
  }
  CHECK(symflow::dtype_name(DType::invalid) == "invalid");
  CHECK(symflow::dtype_enum_name(DType::invalid) == "DT_INVALID");
  CHECK(symflow::dtype_runtime_name(DType::invalid) == "INVALID");
  // Strings: tf.string, DT_STRING, and "string" in the runtime's messages.
  CHECK(symflow::dtype_name(DType::string) == "string");
  CHECK(symflow::dtype_enum_name(DType::string) == "DT_STRING");
  CHECK(symflow::dtype_runtime_name(DType::string) == "string");
  CHECK(symflow::dtype_tf_number(DType::string) == 7);
  CHECK(symflow::dtype_from_tf_number(7) == DType::string);
  // The TensorFlow-style constants are the enumerators.
  CHECK(symflow::float32 == DType::float32);
  CHECK(symflow::bool_ == DType::bool_);
  static_assert(symflow::dtype_name(symflow::int64) == "int64", "usable in constant expressions");
}

TEST_CASE("core/dtype: sizes match the C++ element types") {
  for (const auto& row : kDTypes) {
    CAPTURE(row.python);
    CHECK(symflow::dtype_size(row.dtype) == row.size);
    std::size_t cpp_size = symflow::visit_dtype(
        row.dtype, [](auto tag) { return sizeof(typename decltype(tag)::type); });
    CHECK(cpp_size == row.size);
  }
  CHECK(symflow::dtype_size(DType::invalid) == 0);
  // A string value holds std::string objects; visit_dtype, for numbers, refuses it.
  CHECK(symflow::dtype_size(DType::string) == sizeof(std::string));
  CHECK_THROWS_AS(symflow::visit_dtype(DType::string, [](auto) { return 0; }), symflow::TypeError);
  CHECK(symflow::visit_any_dtype(DType::string, [](auto tag) {
    return std::is_same_v<typename decltype(tag)::type, std::string>;
  }));
}

TEST_CASE("core/dtype: dtype_v maps C++ types to dtypes, Element rejects others") {
  CHECK(symflow::dtype_v<float> == DType::float32);
  CHECK(symflow::dtype_v<double> == DType::float64);
  CHECK(symflow::dtype_v<std::int32_t> == DType::int32);
  CHECK(symflow::dtype_v<std::int64_t> == DType::int64);
  CHECK(symflow::dtype_v<std::uint8_t> == DType::uint8);
  CHECK(symflow::dtype_v<bool> == DType::bool_);
  CHECK(symflow::dtype_v<const float> == DType::float32);
  CHECK(symflow::Element<float>);
  CHECK(symflow::Element<const bool>);
  CHECK_FALSE(symflow::Element<char>);
  CHECK_FALSE(symflow::Element<long double>);
  CHECK(
      symflow::Element<unsigned>);  // uint32, a storage dtype (tests/core/storage_dtypes_test.cpp)
  CHECK(symflow::Element<std::string>);
  CHECK(symflow::dtype_v<std::string> == DType::string);
}

TEST_CASE("core/dtype: floating and integer categories") {
  CHECK(symflow::is_floating(DType::float32));
  CHECK(symflow::is_floating(DType::float64));
  CHECK_FALSE(symflow::is_floating(DType::int32));
  CHECK(symflow::is_integer(DType::int32));
  CHECK(symflow::is_integer(DType::int64));
  CHECK(symflow::is_integer(DType::uint8));
  CHECK_FALSE(symflow::is_integer(DType::bool_));
  CHECK_FALSE(symflow::is_integer(DType::float32));
  CHECK_FALSE(symflow::is_floating(DType::invalid));
}

TEST_CASE("core/dtype: dtype_from_enum_name round-trips and rejects unknown names") {
  for (const auto& row : kDTypes) {
    CAPTURE(row.graph_def);
    CHECK(symflow::dtype_from_enum_name(row.graph_def) == row.dtype);
  }
  CHECK(symflow::dtype_from_enum_name("DT_STRING") == DType::string);
  CHECK(symflow::dtype_from_enum_name("DT_HALF") == DType::float16);
  CHECK_THROWS_AS(symflow::dtype_from_enum_name("DT_COMPLEX128"), symflow::ValueError);
  CHECK_THROWS_WITH_AS(symflow::dtype_from_enum_name("DT_COMPLEX128"),
                       "Unknown data type 'DT_COMPLEX128': expected one of DT_FLOAT, DT_DOUBLE, "
                       "DT_INT32, DT_INT64, DT_UINT8, DT_BOOL, DT_STRING, DT_INT8, DT_INT16, "
                       "DT_UINT16, DT_UINT32, DT_UINT64, DT_HALF, DT_BFLOAT16, DT_COMPLEX64",
                       symflow::ValueError);
  // Python names and the runtime's names are not GraphDef names; nor is DT_INVALID.
  CHECK_THROWS_AS(symflow::dtype_from_enum_name("float32"), symflow::ValueError);
  CHECK_THROWS_AS(symflow::dtype_from_enum_name("dt_float"), symflow::ValueError);
  CHECK_THROWS_AS(symflow::dtype_from_enum_name("DT_INVALID"), symflow::ValueError);
  CHECK_THROWS_AS(symflow::dtype_from_enum_name(""), symflow::ValueError);
}

TEST_CASE("core/dtype: visit_dtype calls back with the C++ type") {
  auto name_of = [](DType d) {
    return symflow::visit_dtype(d, [](auto tag) -> std::string {
      using T = typename decltype(tag)::type;
      return std::string(symflow::dtype_name(symflow::dtype_v<T>));
    });
  };
  for (const auto& row : kDTypes) CHECK(name_of(row.dtype) == row.python);
  bool is_bool = symflow::visit_dtype(
      DType::bool_, [](auto tag) { return std::is_same_v<typename decltype(tag)::type, bool>; });
  CHECK(is_bool);
  CHECK_THROWS_WITH_AS(name_of(DType::invalid),
                       "Invalid dtype: expected one of float32, float64, int32, int64, uint8, bool",
                       symflow::TypeError);
}

TEST_CASE("core/shape: to_string is TensorShape's TF1 repr") {
  CHECK(Shape().to_string() == "()");
  CHECK(Shape{}.to_string() == "()");
  CHECK(Shape{3}.to_string() == "(3,)");
  CHECK(Shape{2, 2}.to_string() == "(2, 2)");
  CHECK(Shape{-1, 3}.to_string() == "(?, 3)");
  CHECK(Shape{-1}.to_string() == "(?,)");
  CHECK(Shape{0, 5, 1}.to_string() == "(0, 5, 1)");
  CHECK(Shape::unknown().to_string() == "<unknown>");
  CHECK(Shape::unknown_dims(2).to_string() == "(?, ?)");
  CHECK(Shape(Dims{7, 1}).to_string() == "(7, 1)");
}

TEST_CASE("core/shape: dims_to_string is the runtime's [2,3] form") {
  CHECK(symflow::dims_to_string({2, 3}) == "[2,3]");
  CHECK(symflow::dims_to_string({}) == "[]");
  CHECK(symflow::dims_to_string({5}) == "[5]");
  CHECK(symflow::dims_to_string({-1, 3}) == "[?,3]");
}

TEST_CASE("core/shape: rank, dims and full definition") {
  Shape s{2, -1, 4};
  CHECK(s.has_rank());
  CHECK(s.rank() == 3);
  CHECK(s.dim(0) == 2);
  CHECK(s[1] == symflow::unknown_dim);
  CHECK(s[2] == 4);
  CHECK(s.dims() == Dims{2, -1, 4});
  CHECK_FALSE(s.is_fully_defined());
  CHECK(Shape{2, 4}.is_fully_defined());
  CHECK(Shape{}.is_fully_defined());
  CHECK(Shape{}.rank() == 0);
  CHECK_THROWS_AS(s.dim(3), std::out_of_range);

  Shape u = Shape::unknown();
  CHECK_FALSE(u.has_rank());
  CHECK_FALSE(u.is_fully_defined());
  CHECK_THROWS_WITH_AS(u.rank(), "Shape <unknown> has unknown rank", symflow::ValueError);
  CHECK(Shape::unknown_dims(0) == Shape{});
}

TEST_CASE("core/shape: num_elements") {
  CHECK(Shape{2, 3}.num_elements() == 6);
  CHECK(Shape{}.num_elements() == 1);
  CHECK(Shape{0, 5}.num_elements() == 0);
  CHECK(Shape{-1, 3}.num_elements() == -1);
  CHECK(Shape::unknown().num_elements() == -1);
  CHECK(symflow::num_elements(Dims{2, 3, 4}) == 24);
  CHECK(symflow::num_elements(Dims{}) == 1);
  CHECK(symflow::num_elements(Dims{7, 0}) == 0);
}

TEST_CASE("core/shape: is_compatible_with") {
  CHECK(Shape{2, 3}.is_compatible_with(Shape{2, 3}));
  CHECK(Shape{-1, 3}.is_compatible_with(Shape{5, 3}));
  CHECK(Shape{5, 3}.is_compatible_with(Shape{-1, -1}));
  CHECK_FALSE(Shape{2, 3}.is_compatible_with(Shape{3, 2}));
  CHECK_FALSE(Shape{2, 3}.is_compatible_with(Shape{2, 3, 1}));
  CHECK_FALSE(Shape{}.is_compatible_with(Shape{1}));
  CHECK_FALSE(Shape{-1}.is_compatible_with(Shape{-1, -1}));
  CHECK(Shape::unknown().is_compatible_with(Shape{2, 3}));
  CHECK(Shape{2, 3}.is_compatible_with(Shape::unknown()));
  CHECK(Shape{}.is_compatible_with(Shape::unknown()));
  // Against the concrete dims of a value.
  CHECK(Shape{-1, 3}.is_compatible_with(Dims{4, 3}));
  CHECK_FALSE(Shape{3}.is_compatible_with(Dims{}));
}

TEST_CASE("core/shape: merge_with") {
  CHECK(Shape{-1, 3}.merge_with(Shape{2, -1}) == Shape{2, 3});
  CHECK(Shape{2, 3}.merge_with(Shape{2, 3}) == Shape{2, 3});
  CHECK(Shape::unknown().merge_with(Shape{2}) == Shape{2});
  CHECK(Shape{2}.merge_with(Shape::unknown()) == Shape{2});
  CHECK(Shape::unknown().merge_with(Shape::unknown()) == Shape::unknown());
  CHECK(Shape{-1, -1}.merge_with(Shape{-1, 4}) == Shape{-1, 4});
  // TensorFlow's message, both shapes in TensorShape form.
  CHECK_THROWS_WITH_AS(Shape({2, 3}).merge_with(Shape{3}),
                       "Shapes (2, 3) and (3,) are not compatible", symflow::ValueError);
  CHECK_THROWS_WITH_AS(Shape({2, 3}).merge_with(Shape{2, 4}),
                       "Shapes (2, 3) and (2, 4) are not compatible", symflow::ValueError);
  CHECK_THROWS_WITH_AS(Shape{}.merge_with(Shape{-1}), "Shapes () and (?,) are not compatible",
                       symflow::ValueError);
}

TEST_CASE("core/shape: equality distinguishes unknown rank and unknown dims") {
  CHECK(Shape{2, 3} == Shape(Dims{2, 3}));
  CHECK(Shape::unknown() == Shape::unknown());
  CHECK(Shape::unknown() != Shape{});
  CHECK(Shape{-1} != Shape{1});
  CHECK(Shape{2, 3} != Shape{3, 2});
  CHECK(Shape() == Shape{});
}

TEST_CASE("core/shape: broadcast_shapes follows TensorFlow's static broadcasting") {
  CHECK(shape_str(symflow::broadcast_shapes(Shape{2, 1, 3}, Shape{4, 1})) == "(2, 4, 3)");
  CHECK(shape_str(symflow::broadcast_shapes(Shape{5}, Shape{})) == "(5,)");
  CHECK(shape_str(symflow::broadcast_shapes(Shape{}, Shape{})) == "()");
  CHECK(shape_str(symflow::broadcast_shapes(Shape{0}, Shape{1})) == "(0,)");
  CHECK(shape_str(symflow::broadcast_shapes(Shape{3, 1}, Shape{1, 4})) == "(3, 4)");
  // Unknown dims: a known dim > 1 wins; against 1 or 0 the result stays unknown (checked
  // against TF 2.21's graph-mode shape inference of placeholder + placeholder).
  CHECK(shape_str(symflow::broadcast_shapes(Shape{-1}, Shape{1})) == "(?,)");
  CHECK(shape_str(symflow::broadcast_shapes(Shape{1}, Shape{-1})) == "(?,)");
  CHECK(shape_str(symflow::broadcast_shapes(Shape{-1}, Shape{3})) == "(3,)");
  CHECK(shape_str(symflow::broadcast_shapes(Shape{-1}, Shape{-1})) == "(?,)");
  CHECK(shape_str(symflow::broadcast_shapes(Shape{0}, Shape{-1})) == "(?,)");
  CHECK(shape_str(symflow::broadcast_shapes(Shape{-1, 1}, Shape{3})) == "(?, 3)");
  CHECK(shape_str(symflow::broadcast_shapes(Shape{3}, Shape{-1, -1})) == "(?, 3)");
  // Unknown rank.
  CHECK(shape_str(symflow::broadcast_shapes(Shape::unknown(), Shape{3})) == "<unknown>");
  CHECK(shape_str(symflow::broadcast_shapes(Shape{3}, Shape::unknown())) == "<unknown>");
  // Failures.
  CHECK(shape_str(symflow::broadcast_shapes(Shape{2}, Shape{3})) == "nullopt");
  CHECK(shape_str(symflow::broadcast_shapes(Shape{2, 3}, Shape{4, 3})) == "nullopt");
  CHECK(shape_str(symflow::broadcast_shapes(Shape{0}, Shape{2})) == "nullopt");
}

TEST_CASE("core/shape: broadcast_dims follows NumPy on concrete dims") {
  CHECK(dims_str(symflow::broadcast_dims({2, 1, 3}, {4, 1})) == "[2,4,3]");
  CHECK(dims_str(symflow::broadcast_dims({}, {})) == "[]");
  CHECK(dims_str(symflow::broadcast_dims({}, {2, 2})) == "[2,2]");
  CHECK(dims_str(symflow::broadcast_dims({3, 1}, {1, 4})) == "[3,4]");
  CHECK(dims_str(symflow::broadcast_dims({0}, {1})) == "[0]");
  CHECK(dims_str(symflow::broadcast_dims({1}, {0})) == "[0]");
  CHECK(dims_str(symflow::broadcast_dims({5, 1, 1}, {1, 6, 1})) == "[5,6,1]");
  CHECK(dims_str(symflow::broadcast_dims({0}, {3})) == "nullopt");
  CHECK(dims_str(symflow::broadcast_dims({2}, {3})) == "nullopt");
  CHECK(dims_str(symflow::broadcast_dims({2, 3}, {3, 3})) == "nullopt");
}

}  // namespace symflow_test_core_dtype_shape_test
