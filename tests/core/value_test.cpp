// Value: construction, element access, sharing and copying, equality.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include "symflow/core/dtype.hpp"
#include "symflow/core/errors.hpp"
#include "symflow/core/shape.hpp"
#include "symflow/core/value.hpp"

namespace symflow_test_core_value_test {

namespace symflow_value_test {

using symflow::Dims;
using symflow::DType;
using symflow::Value;

}  // namespace symflow_value_test

using namespace symflow_value_test;  // NOLINT(google-build-using-namespace)

TEST_CASE("core/value: a default Value is None") {
  Value v;
  CHECK(v.is_none());
  CHECK(v.dtype() == DType::invalid);
  CHECK(v.size() == 0);
  CHECK(v.nbytes() == 0);
  CHECK(v.rank() == 0);
  CHECK(v.raw_data() == nullptr);
  CHECK(v == Value());
  CHECK_FALSE(v.shares_buffer_with(Value()));
  CHECK_THROWS_WITH_AS(v.data<float>(), "Value holds invalid, not float32", symflow::TypeError);
}

TEST_CASE("core/value: scalars take the dtype of their C++ type") {
  Value f(3.0f);
  CHECK(f.dtype() == DType::float32);
  CHECK(f.dims() == Dims{});
  CHECK(f.rank() == 0);
  CHECK(f.size() == 1);
  CHECK(f.nbytes() == 4);
  CHECK(f.scalar<float>() == 3.0f);
  CHECK(f.shape() == symflow::Shape{});

  CHECK(Value(2.5).dtype() == DType::float64);
  CHECK(Value(2.5).scalar<double>() == 2.5);
  CHECK(Value(7).dtype() == DType::int32);
  CHECK(Value(std::int64_t{1} << 40).scalar<std::int64_t>() == std::int64_t{1} << 40);
  CHECK(Value(std::uint8_t{200}).dtype() == DType::uint8);
  CHECK(Value(true).dtype() == DType::bool_);
  CHECK(Value(true).scalar<bool>());
  Value implicit = 1.5f;  // implicit, like a Python literal
  CHECK(implicit.scalar<float>() == 1.5f);
}

TEST_CASE("core/value: nested initializer lists give shape and dtype") {
  Value v{1.0f, 2.0f, 3.0f};
  CHECK(v.dtype() == DType::float32);
  CHECK(v.dims() == Dims{3});
  CHECK(v.to_vector<float>() == std::vector<float>{1, 2, 3});

  Value m{{1, 2, 3}, {4, 5, 6}};
  CHECK(m.dtype() == DType::int32);
  CHECK(m.dims() == Dims{2, 3});
  CHECK(m.to_vector<std::int32_t>() == std::vector<std::int32_t>{1, 2, 3, 4, 5, 6});

  Value t{{{1.0, 2.0}}, {{3.0, 4.0}}, {{5.0, 6.0}}};
  CHECK(t.dtype() == DType::float64);
  CHECK(t.dims() == Dims{3, 1, 2});
  CHECK(t.at<double>({2, 0, 1}) == 6.0);

  Value b{{true, false}, {false, true}};
  CHECK(b.dtype() == DType::bool_);
  CHECK(b.to_vector<bool>() == std::vector<bool>{true, false, false, true});

  // Braces make a list: {1.0f} is a vector of one element, (1.0f) a scalar.
  CHECK(Value{1.0f}.dims() == Dims{1});
  CHECK(Value(1.0f).dims() == Dims{});
}

TEST_CASE("core/value: empty lists keep the rank of their type") {
  Value v(std::initializer_list<float>{});
  CHECK(v.dims() == Dims{0});
  CHECK(v.dtype() == DType::float32);
  CHECK(v.size() == 0);
  CHECK_FALSE(v.is_none());
  Value m(std::initializer_list<std::initializer_list<std::int32_t>>{});
  CHECK(m.dims() == Dims{0, 0});
  Value rows(std::initializer_list<std::initializer_list<std::int32_t>>{{}, {}});
  CHECK(rows.dims() == Dims{2, 0});
}

TEST_CASE("core/value: ragged lists are a ValueError naming the depth") {
  CHECK_THROWS_WITH_AS((Value{{1, 2}, {3}}),
                       "Nested list is ragged: expected 2 elements at depth 1, got 1",
                       symflow::ValueError);
  CHECK_THROWS_WITH_AS((Value{{1, 2}, {3, 4}, {5, 6, 7}}),
                       "Nested list is ragged: expected 2 elements at depth 1, got 3",
                       symflow::ValueError);
  CHECK_THROWS_WITH_AS((Value{{{1.0f, 2.0f}, {3.0f, 4.0f}}, {{5.0f, 6.0f}, {7.0f}}}),
                       "Nested list is ragged: expected 2 elements at depth 2, got 1",
                       symflow::ValueError);
  CHECK_THROWS_WITH_AS((Value{{{1.0f}, {2.0f}}, {{3.0f}}}),
                       "Nested list is ragged: expected 2 elements at depth 1, got 1",
                       symflow::ValueError);
}

TEST_CASE("core/value: from_vector checks the element count") {
  Value v = Value::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  CHECK(v.dims() == Dims{2, 3});
  CHECK(v.at<float>({1, 0}) == 4.0f);
  CHECK(Value::from_vector<std::int64_t>({9}, {}).scalar<std::int64_t>() == 9);
  CHECK(Value::from_vector<float>({}, {0, 4}).dims() == Dims{0, 4});
  CHECK_THROWS_WITH_AS(Value::from_vector<float>({1, 2, 3}, {2, 2}),
                       "Cannot make a value of shape [2,2] from 3 elements", symflow::ValueError);
  CHECK_THROWS_WITH_AS(Value::from_vector<float>({1, 2}, {}),
                       "Cannot make a value of shape [] from 2 elements", symflow::ValueError);
  CHECK_THROWS_WITH_AS(Value::from_vector<float>({1, 2}, {-1, -2}),
                       "Value dims must be non-negative, got [?,?]", symflow::ValueError);
}

TEST_CASE("core/value: Value(dtype, dims) is zero-filled and 64-byte aligned") {
  Value v(DType::float64, {2, 3});
  CHECK(v.dtype() == DType::float64);
  CHECK(v.size() == 6);
  CHECK(v.nbytes() == 48);
  for (double x : v.flat<double>()) CHECK(x == 0.0);
  CHECK(reinterpret_cast<std::uintptr_t>(v.raw_data()) % 64 == 0);
  Value empty(DType::int32, {0});
  CHECK(empty.size() == 0);
  CHECK(empty.raw_data() != nullptr);
  CHECK_THROWS_WITH_AS(Value(DType::float32, {2, -1}), "Value dims must be non-negative, got [2,?]",
                       symflow::ValueError);
  CHECK_THROWS_AS(Value(DType::invalid, {2}), symflow::TypeError);
}

TEST_CASE("core/value: filled") {
  Value v = Value::filled<std::int32_t>({2, 2}, 7);
  CHECK(v.dtype() == DType::int32);
  CHECK(v.to_vector<std::int32_t>() == std::vector<std::int32_t>{7, 7, 7, 7});
  CHECK(Value::filled<bool>({3}, true).to_vector<bool>() == std::vector<bool>{true, true, true});
}

TEST_CASE("core/value: data<T> with the wrong type is a TypeError naming both types") {
  Value v{1.0f, 2.0f};
  CHECK_THROWS_WITH_AS(v.data<std::int32_t>(), "Value holds float32, not int32",
                       symflow::TypeError);
  const Value& cv = v;
  CHECK_THROWS_WITH_AS(cv.data<double>(), "Value holds float32, not float64", symflow::TypeError);
  CHECK_THROWS_WITH_AS(Value(true).flat<std::uint8_t>(), "Value holds bool, not uint8",
                       symflow::TypeError);
  CHECK_THROWS_WITH_AS(Value(1).to_vector<std::int64_t>(), "Value holds int32, not int64",
                       symflow::TypeError);
  CHECK(cv.data<float>()[1] == 2.0f);
  CHECK(v.flat<float>().size() == 2);
}

TEST_CASE("core/value: scalar() needs exactly one element of the right type") {
  CHECK(Value{5}.scalar<std::int32_t>() == 5);  // one element of rank 1 is fine
  CHECK(Value{{2.5}}.scalar<double>() == 2.5);
  CHECK_THROWS_WITH_AS(Value({1, 2, 3}).scalar<std::int32_t>(),
                       "scalar() needs a value with one element, got shape [3]",
                       symflow::ValueError);
  CHECK_THROWS_AS(Value(std::initializer_list<float>{}).scalar<float>(), symflow::ValueError);
  CHECK_THROWS_WITH_AS(Value(1.0f).scalar<double>(), "Value holds float32, not float64",
                       symflow::TypeError);
  CHECK_THROWS_AS(Value().scalar<float>(), symflow::ValueError);
}

TEST_CASE("core/value: at() reads a row-major multi-index and checks bounds") {
  Value m{{1, 2, 3}, {4, 5, 6}};
  CHECK(m.at<std::int32_t>({0, 0}) == 1);
  CHECK(m.at<std::int32_t>({0, 2}) == 3);
  CHECK(m.at<std::int32_t>({1, 0}) == 4);
  CHECK(m.at<std::int32_t>({1, 2}) == 6);
  CHECK(Value(4.0f).at<float>({}) == 4.0f);
  CHECK_THROWS_WITH_AS(m.at<std::int32_t>({1, 3}),
                       "index 3 is out of bounds for axis 1 with size 3", symflow::ValueError);
  CHECK_THROWS_WITH_AS(m.at<std::int32_t>({2, 0}),
                       "index 2 is out of bounds for axis 0 with size 2", symflow::ValueError);
  CHECK_THROWS_WITH_AS(m.at<std::int32_t>({-1, 0}),
                       "index -1 is out of bounds for axis 0 with size 2", symflow::ValueError);
  CHECK_THROWS_WITH_AS(m.at<std::int32_t>({1}), "Index of rank 1 for a value of rank 2",
                       symflow::ValueError);
  CHECK_THROWS_WITH_AS(m.at<std::int32_t>({0, 0, 0}), "Index of rank 3 for a value of rank 2",
                       symflow::ValueError);
  CHECK_THROWS_AS(m.at<float>({0, 0}), symflow::TypeError);
  CHECK_THROWS_AS(Value(DType::float32, {0}).at<float>({0}), symflow::ValueError);
}

TEST_CASE("core/value: reshaped shares the buffer under new dims") {
  Value v{{1, 2, 3}, {4, 5, 6}};
  Value r = v.reshaped({3, 2});
  CHECK(r.dims() == Dims{3, 2});
  CHECK(v.dims() == Dims{2, 3});
  CHECK(r.shares_buffer_with(v));
  CHECK(r.at<std::int32_t>({2, 1}) == 6);
  r.data<std::int32_t>()[0] = 10;
  CHECK(v.at<std::int32_t>({0, 0}) == 10);
  CHECK(v.reshaped({6}).dims() == Dims{6});
  CHECK(Value{7}.reshaped({}).dims() == Dims{});
  CHECK_THROWS_WITH_AS(v.reshaped({4}), "Cannot reshape a value of shape [2,3] to [4]",
                       symflow::ValueError);
  CHECK_THROWS_WITH_AS(v.reshaped({-2, -3}), "Value dims must be non-negative, got [?,?]",
                       symflow::ValueError);
  CHECK_THROWS_AS(Value().reshaped({}), symflow::ValueError);
}

TEST_CASE("core/value: copies share the buffer, clone() does not") {
  Value a{1.0f, 2.0f, 3.0f};
  Value shared = a;
  Value deep = a.clone();
  CHECK(shared.shares_buffer_with(a));
  CHECK_FALSE(deep.shares_buffer_with(a));
  CHECK(deep == a);
  CHECK(reinterpret_cast<std::uintptr_t>(deep.raw_data()) % 64 == 0);
  a.data<float>()[0] = 42.0f;
  CHECK(shared.at<float>({0}) == 42.0f);
  CHECK(deep.at<float>({0}) == 1.0f);
  CHECK_FALSE(deep == a);
  Value assigned;
  assigned = a;
  CHECK(assigned.shares_buffer_with(a));
  CHECK(Value().clone().is_none());
  CHECK(Value(DType::int64, {0, 2}).clone().dims() == Dims{0, 2});
}

TEST_CASE("core/value: a moved-from Value is None, not dangling") {
  Value a{1, 2, 3};
  const void* buffer = a.raw_data();
  Value b = std::move(a);
  CHECK(b.raw_data() == buffer);
  CHECK(b.dims() == Dims{3});
  CHECK(a.is_none());  // NOLINT(bugprone-use-after-move): moved-from state is specified
  CHECK(a.dims().empty());
  CHECK(a.raw_data() == nullptr);
  Value c;
  c = std::move(b);
  CHECK(c.raw_data() == buffer);
  CHECK(b.is_none());  // NOLINT(bugprone-use-after-move)
  CHECK(c.to_vector<std::int32_t>() == std::vector<std::int32_t>{1, 2, 3});
  Value& self = c;
  c = std::move(self);
  CHECK(c.to_vector<std::int32_t>() == std::vector<std::int32_t>{1, 2, 3});
}

TEST_CASE("core/value: equality compares dtype, dims and bytes") {
  CHECK(Value{1, 2} == Value{1, 2});
  CHECK_FALSE(Value{1, 2} == Value{1, 3});
  CHECK_FALSE(Value(1) == Value(1.0f));       // dtype
  CHECK_FALSE(Value{1, 2} == Value{{1, 2}});  // dims
  CHECK_FALSE(Value(1) == Value{1});          // rank 0 vs rank 1
  CHECK_FALSE(Value() == Value(0));
  CHECK(Value(DType::float32, {0}) == Value(std::initializer_list<float>{}));
  // Bytes, not IEEE: a NaN equals itself, 0.0 and -0.0 differ.
  float nan = std::numeric_limits<float>::quiet_NaN();
  CHECK(Value(nan) == Value(nan));
  CHECK_FALSE(Value(0.0f) == Value(-0.0f));
}

TEST_CASE("core/value: wrap adopts memory without copying and keeps its owner alive") {
  auto storage = std::make_shared<std::vector<float>>(std::vector<float>{1, 2, 3, 4, 5, 6});
  float* p = storage->data();
  Value v = Value::wrap(DType::float32, {2, 3}, p, storage);
  CHECK(v.raw_data() == p);
  CHECK(storage.use_count() == 2);
  CHECK(v.at<float>({1, 1}) == 5.0f);
  (*storage)[4] = 50.0f;
  CHECK(v.at<float>({1, 1}) == 50.0f);
  storage.reset();  // the value still owns the vector
  CHECK(v.to_vector<float>() == std::vector<float>{1, 2, 3, 4, 50, 6});
  CHECK_THROWS_AS(Value::wrap(DType::float32, {-1}, p, nullptr), symflow::ValueError);
  CHECK_THROWS_AS(Value::wrap(DType::invalid, {1}, p, nullptr), symflow::TypeError);
}

}  // namespace symflow_test_core_value_test
