#pragma once
// Values and xtensor arrays (row-major):
//   as_xtensor<T>(v)         a view over the value's buffer: no copy, writes go to the value
//   to_xarray<T>(v)          a copy as xt::xarray<T>
//   from_xarray(std::move(a)) a value that takes over the xarray's buffer: no copy
//   from_xarray(expr)        a value holding a copy of any xtensor expression, evaluated
// A wrong T is a TypeError naming both dtypes, as for Value::data<T>().

#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>
#include <xtensor/xadapt.hpp>
#include <xtensor/xarray.hpp>
#include <xtensor/xexpression.hpp>

#include "symflow/core/dtype.hpp"
#include "symflow/core/shape.hpp"
#include "symflow/core/value.hpp"

namespace symflow {

// The array type of the interop: xt::xarray in row-major order, whatever
// XTENSOR_DEFAULT_LAYOUT says.
template <Element T>
using XArray = xt::xarray<T, xt::layout_type::row_major>;

namespace detail {

inline std::vector<std::size_t> xt_shape(const Dims& dims) { return {dims.begin(), dims.end()}; }

template <class S>
Dims dims_of_xt_shape(const S& shape) {
  Dims dims;
  dims.reserve(shape.size());
  for (auto d : shape) dims.push_back(static_cast<std::int64_t>(d));
  return dims;
}

}  // namespace detail

// A row-major xtensor view of the value's elements (no copy; the value must outlive it).
template <Element T>
auto as_xtensor(Value& v) {
  T* data = v.data<T>();
  return xt::adapt<xt::layout_type::row_major>(data, static_cast<std::size_t>(v.size()),
                                               xt::no_ownership(), detail::xt_shape(v.dims()));
}

// A read-only row-major xtensor view of the value's elements (no copy).
template <Element T>
auto as_xtensor(const Value& v) {
  const T* data = v.data<T>();
  return xt::adapt<xt::layout_type::row_major>(data, static_cast<std::size_t>(v.size()),
                                               xt::no_ownership(), detail::xt_shape(v.dims()));
}

// A copy of the value's elements.
template <Element T>
XArray<T> to_xarray(const Value& v) {
  return XArray<T>(as_xtensor<T>(v));
}

// A value that owns `a`'s buffer (moved, not copied): its elements are at the address
// a.data() had, aligned as a's allocator aligned them.
template <Element T>
Value from_xarray(XArray<T>&& a) {
  auto owner = std::make_shared<XArray<T>>(std::move(a));
  Dims dims = detail::dims_of_xt_shape(owner->shape());
  void* data = owner->data();
  return Value::wrap(dtype_v<T>, std::move(dims), data, std::move(owner));
}

// A value holding a copy of any xtensor expression (an lvalue array, a view, a lazy
// expression such as a + b), evaluated into row-major order.
template <class E>
requires Element<typename E::value_type> Value from_xarray(const xt::xexpression<E>& e) {
  return from_xarray(XArray<typename E::value_type>(e.derived_cast()));
}

}  // namespace symflow
