#pragma once
// TensorArg: an op argument given as a tensor, or as a value (a scalar, a nested
// list, a Value) that the op turns into a Const named "<op>/<arg>", the way
// TensorFlow converts Python lists passed to an op.

#include <concepts>
#include <initializer_list>
#include <optional>
#include <string_view>
#include <variant>

#include "symflow/ops/op_builder.hpp"

namespace symflow {

class TensorArg {
 public:
  TensorArg(const Output& t) : arg_(t) {}  // NOLINT: implicit on purpose
  template <class T>
  requires(std::convertible_to<T, Output> && !std::same_as<T, Output>) TensorArg(const T& t)
      : arg_(static_cast<Output>(t)) {}   // NOLINT: Tensor<T>, Variable
  TensorArg(const Value& v) : arg_(v) {}  // NOLINT
  template <Element T>
  TensorArg(T scalar) : arg_(Value(scalar)) {}  // NOLINT
  template <Element T>
  TensorArg(std::initializer_list<T> list) : arg_(Value(list)) {}  // NOLINT
  template <Element T>
  TensorArg(std::initializer_list<std::initializer_list<T>> list) : arg_(Value(list)) {}  // NOLINT

  // The tensor, if one was given (it decides which graph the op goes to).
  const Output* tensor() const { return std::get_if<Output>(&arg_); }
  // The value, if one was given instead.
  const Value* value() const { return std::get_if<Value>(&arg_); }

  // The argument as a tensor of the op being built: a given tensor as is, a value
  // as a Const "<op>/<arg_name>", converted to `dtype` when one is asked for.
  Output resolve(detail::OpBuilder& b, std::string_view arg_name,
                 DType dtype = DType::invalid) const {
    if (const Output* t = tensor()) return *t;
    const Value& v = std::get<Value>(arg_);
    return b.constant_arg(dtype == DType::invalid ? v : v.astype(dtype), arg_name);
  }

 private:
  std::variant<Output, Value> arg_;
};

// The graph the arguments' tensors belong to, or the default graph.
inline Graph graph_of(std::initializer_list<const TensorArg*> args) {
  std::vector<Output> tensors;
  for (const TensorArg* a : args)
    if (a->tensor()) tensors.push_back(*a->tensor());
  return graph_of(tensors);
}

}  // namespace symflow
