#pragma once
// Const: a value stored in the graph (tf.constant). This header builds Const nodes;
// the op's description is in ops/defs/const.hpp, its CPU kernel in
// backend/cpu/kernels/const.hpp.

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "symflow/detail/config.hpp"
#include "symflow/graph/graph.hpp"
#include "symflow/ops/defs/const.hpp"

namespace symflow {

namespace detail {

SYMFLOW_INLINE Operation make_const(Graph& g, Value v, std::string_view name);

// `values` repeated to fill `shape`: the last element fills the rest, as TF1 does.
inline Value fill_to_shape(const Value& values, const Shape& shape) {
  if (!shape.is_fully_defined())
    throw ValueError("constant() needs a fully defined shape, got " + shape.to_string());
  std::int64_t n = shape.num_elements();
  if (n < 0) throw ValueError(too_many_elements_message(shape.dims()));
  if (n == 0) return Value(values.dtype(), shape.dims());  // TF ignores the values then
  if (values.size() > n)
    throw ValueError("Too many elements provided. Needed at most " + std::to_string(n) +
                     ", but received " + std::to_string(values.size()));
  if (values.size() == 0 && n > 0)
    throw ValueError("constant() needs at least one element to fill shape " + shape.to_string());
  Value out(values.dtype(), shape.dims());
  if (values.dtype() == DType::string) {
    const auto in = values.flat<std::string>();
    auto o = out.flat<std::string>();
    for (std::size_t i = 0; i < o.size(); ++i) o[i] = in[std::min(i, in.size() - 1)];
    return out;
  }
  std::size_t elem = dtype_size(values.dtype());
  auto* dst = static_cast<std::byte*>(out.raw_data());
  const auto* src = static_cast<const std::byte*>(values.raw_data());
  for (std::int64_t i = 0; i < n; ++i) {
    std::int64_t from = std::min(i, values.size() - 1);
    std::memcpy(dst + static_cast<std::size_t>(i) * elem,
                src + static_cast<std::size_t>(from) * elem, elem);
  }
  return out;
}

}  // namespace detail

// tf.constant(value): any Value.
inline Output constant(const Value& value, std::string_view name = {}) {
  Graph g = get_default_graph();
  return detail::make_const(g, value, name.empty() ? "Const" : name).output(0);
}
// tf.constant(value, shape=shape): the value (a scalar or a list) fills the shape.
inline Output constant(const Value& value, const Shape& shape, std::string_view name = {}) {
  return constant(detail::fill_to_shape(value, shape), name);
}

template <Element T>
Tensor<T> constant(T value, std::string_view name = {}) {
  return Tensor<T>(constant(Value(value), name));
}
template <Element T>
Tensor<T> constant(std::initializer_list<T> values, std::string_view name = {}) {
  return Tensor<T>(constant(Value(values), name));
}
template <Element T>
Tensor<T> constant(std::initializer_list<std::initializer_list<T>> values,
                   std::string_view name = {}) {
  return Tensor<T>(constant(Value(values), name));
}
template <Element T>
Tensor<T> constant(std::initializer_list<std::initializer_list<std::initializer_list<T>>> values,
                   std::string_view name = {}) {
  return Tensor<T>(constant(Value(values), name));
}
// tf.constant("hello"), tf.constant(["a", "b"]): string constants.
inline Tensor<std::string> constant(const char* value, std::string_view name = {}) {
  return Tensor<std::string>(constant(Value(value), name));
}
inline Tensor<std::string> constant(std::initializer_list<const char*> values,
                                    std::string_view name = {}) {
  std::vector<std::string> strings(values.begin(), values.end());
  return Tensor<std::string>(
      constant(Value::from_vector(strings, {static_cast<std::int64_t>(strings.size())}), name));
}

template <Element T>
Tensor<T> constant(T value, const Shape& shape, std::string_view name = {}) {
  return Tensor<T>(constant(Value(value), shape, name));
}
template <Element T>
Tensor<T> constant(std::initializer_list<T> values, const Shape& shape,
                   std::string_view name = {}) {
  return Tensor<T>(constant(Value(values), shape, name));
}

}  // namespace symflow

#if !defined(SYMFLOW_COMPILED)
#include "symflow/ops/const_op_inl.hpp"
#endif
