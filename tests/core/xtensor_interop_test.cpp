// Values and xtensor arrays: views without copies, copies, and adopting an xarray's buffer.
#include <doctest/doctest.h>

#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>
#include <xtensor/xarray.hpp>
#include <xtensor/xmanipulation.hpp>
#include <xtensor/xmath.hpp>
#include <xtensor/xview.hpp>

#include "symflow/core/dtype.hpp"
#include "symflow/core/errors.hpp"
#include "symflow/core/value.hpp"
#include "symflow/core/xtensor_interop.hpp"

namespace symflow_test_core_xtensor_interop_test {

namespace symflow_xtensor_interop_test {

using symflow::Dims;
using symflow::DType;
using symflow::Value;

template <class S>
std::vector<std::size_t> shape_vector(const S& shape) {
  return {shape.begin(), shape.end()};
}

}  // namespace symflow_xtensor_interop_test

using namespace symflow_xtensor_interop_test;  // NOLINT(google-build-using-namespace)

TEST_CASE("core/xtensor_interop: as_xtensor views the value's buffer without copying") {
  Value v{{1.0f, 2.0f, 3.0f}, {4.0f, 5.0f, 6.0f}};
  auto view = symflow::as_xtensor<float>(v);
  CHECK(view.data() == v.raw_data());
  CHECK(shape_vector(view.shape()) == std::vector<std::size_t>{2, 3});
  CHECK(view(1, 2) == 6.0f);
  CHECK(view(0, 1) == v.at<float>({0, 1}));
  view(0, 1) = 42.0f;  // a write through the view is a write to the value
  CHECK(v.at<float>({0, 1}) == 42.0f);
  view += 1.0f;
  CHECK(v.to_vector<float>() == std::vector<float>{2, 43, 4, 5, 6, 7});
  // A copy of the value shares the buffer, so it sees the writes too.
  Value copy = v;
  CHECK(symflow::as_xtensor<float>(copy)(1, 0) == 5.0f);
}

TEST_CASE("core/xtensor_interop: the const overload is a read-only view") {
  const Value v{{1, 2}, {3, 4}};
  auto view = symflow::as_xtensor<std::int32_t>(v);
  CHECK(view.data() == v.raw_data());
  CHECK(view(1, 0) == 3);
  static_assert(std::is_const_v<std::remove_pointer_t<decltype(view.data())>>);
  CHECK(xt::sum(view)() == 10);
}

TEST_CASE("core/xtensor_interop: a wrong element type is a TypeError") {
  Value v{1.0f, 2.0f};
  CHECK_THROWS_WITH_AS(symflow::as_xtensor<double>(v), "Value holds float32, not float64",
                       symflow::TypeError);
  CHECK_THROWS_WITH_AS(symflow::to_xarray<std::int32_t>(v), "Value holds float32, not int32",
                       symflow::TypeError);
}

TEST_CASE("core/xtensor_interop: scalars and empty values have xtensor shapes too") {
  Value s(2.5);
  auto sv = symflow::as_xtensor<double>(s);
  CHECK(sv.dimension() == 0);
  CHECK(sv() == 2.5);
  Value e(DType::int64, {0, 3});
  auto ev = symflow::as_xtensor<std::int64_t>(e);
  CHECK(shape_vector(ev.shape()) == std::vector<std::size_t>{0, 3});
  CHECK(ev.size() == 0);
}

TEST_CASE("core/xtensor_interop: to_xarray copies") {
  Value v{{1, 2, 3}, {4, 5, 6}};
  xt::xarray<std::int32_t> a = symflow::to_xarray<std::int32_t>(v);
  CHECK(a.data() != v.raw_data());
  CHECK(shape_vector(a.shape()) == std::vector<std::size_t>{2, 3});
  CHECK(a(1, 2) == 6);
  CHECK(a(0, 1) == 2);
  a(0, 0) = 100;
  CHECK(v.at<std::int32_t>({0, 0}) == 1);  // the value is untouched
  xt::xarray<bool> b = symflow::to_xarray<bool>(Value{true, false});
  CHECK(b(0));
  CHECK_FALSE(b(1));
}

TEST_CASE("core/xtensor_interop: from_xarray(xarray&&) takes the buffer without copying") {
  xt::xarray<float> a = {{1.0f, 2.0f}, {3.0f, 4.0f}, {5.0f, 6.0f}};
  const float* buffer = a.data();
  Value v = symflow::from_xarray(std::move(a));
  CHECK(v.raw_data() == buffer);
  CHECK(v.dtype() == DType::float32);
  CHECK(v.dims() == Dims{3, 2});
  CHECK(v.to_vector<float>() == std::vector<float>{1, 2, 3, 4, 5, 6});
  // The value owns the array now: copies keep it alive after v is gone.
  Value copy = v;
  v = Value();
  CHECK(copy.raw_data() == buffer);
  CHECK(copy.at<float>({2, 1}) == 6.0f);
}

TEST_CASE("core/xtensor_interop: from_xarray copies lvalues and evaluates expressions") {
  xt::xarray<double> a = {1.0, 2.0, 3.0};
  Value v = symflow::from_xarray(a);
  CHECK(v.raw_data() != a.data());
  CHECK(v.dtype() == DType::float64);
  CHECK(v.dims() == Dims{3});
  CHECK(a.size() == 3);  // a is untouched
  a(0) = -1.0;
  CHECK(v.at<double>({0}) == 1.0);

  xt::xarray<double> b = {10.0, 20.0, 30.0};
  Value sum = symflow::from_xarray(a + b);
  CHECK(sum.to_vector<double>() == std::vector<double>{9, 22, 33});
  Value mask = symflow::from_xarray(b > 15.0);
  CHECK(mask.dtype() == DType::bool_);
  CHECK(mask.to_vector<bool>() == std::vector<bool>{false, true, true});
  xt::xarray<std::int64_t> m = {{1, 2, 3}, {4, 5, 6}};
  Value column = symflow::from_xarray(xt::view(m, xt::all(), 1));
  CHECK(column.dtype() == DType::int64);
  CHECK(column.dims() == Dims{2});
  CHECK(column.to_vector<std::int64_t>() == std::vector<std::int64_t>{2, 5});
}

TEST_CASE("core/xtensor_interop: column-major arrays become row-major values") {
  xt::xarray<float, xt::layout_type::column_major> c = {{1.0f, 2.0f, 3.0f}, {4.0f, 5.0f, 6.0f}};
  Value v = symflow::from_xarray(std::move(c));  // not an XArray<float>: copied, reordered
  CHECK(v.dims() == Dims{2, 3});
  CHECK(v.to_vector<float>() == std::vector<float>{1, 2, 3, 4, 5, 6});
  Value t = symflow::from_xarray(xt::transpose(symflow::to_xarray<float>(v)));
  CHECK(t.dims() == Dims{3, 2});
  CHECK(t.to_vector<float>() == std::vector<float>{1, 4, 2, 5, 3, 6});
}

TEST_CASE("core/xtensor_interop: round trips preserve values, shapes and dtypes") {
  Value v{{{1, 2}, {3, 4}}, {{5, 6}, {7, 8}}};
  Value back = symflow::from_xarray(symflow::to_xarray<std::int32_t>(v));
  CHECK(back == v);
  CHECK_FALSE(back.shares_buffer_with(v));
  Value scalar = symflow::from_xarray(symflow::to_xarray<float>(Value(1.5f)));
  CHECK(scalar.dims() == Dims{});
  CHECK(scalar.scalar<float>() == 1.5f);
  Value u8 = symflow::from_xarray(symflow::to_xarray<std::uint8_t>(Value{std::uint8_t{255}}));
  CHECK(u8.dtype() == DType::uint8);
  CHECK(u8.at<std::uint8_t>({0}) == 255);
  Value empty = symflow::from_xarray(symflow::to_xarray<double>(Value(DType::float64, {2, 0})));
  CHECK(empty.dims() == Dims{2, 0});
}

}  // namespace symflow_test_core_xtensor_interop_test
