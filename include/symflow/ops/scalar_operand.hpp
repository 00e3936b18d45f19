#pragma once
// C++ numbers where a tensor is expected: maximum(x, 1e-12f), add(1, i), x == 2. The
// number becomes a Const of the other operand's dtype, named "<op>/y" (or "<op>/x" when
// it comes first) inside the op's name scope, as convert_to_tensor(y, dtype=x.dtype)
// names it. TensorFlow refuses to turn a float into an integer (or a number into a
// bool), and so do we, with its TypeError.

#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "symflow/detail/float_repr.hpp"
#include "symflow/ops/op_builder.hpp"

namespace symflow {

namespace detail {

template <class S>
concept ScalarOperand = std::is_arithmetic_v<S>;

template <ScalarOperand S>
std::string scalar_python_repr(S s) {
  if constexpr (std::is_same_v<S, bool>)
    return s ? "True" : "False";
  else if constexpr (std::is_floating_point_v<S>)
    return python_float_repr(s);
  else
    return std::to_string(s);
}

template <ScalarOperand S>
constexpr std::string_view scalar_python_type_name() {
  if constexpr (std::is_same_v<S, bool>)
    return "bool";
  else if constexpr (std::is_floating_point_v<S>)
    return "float";
  else
    return "int";
}

template <ScalarOperand S>
Value scalar_as(DType dtype, S s, std::string_view param, std::string_view op_type) {
  return visit_dtype(dtype, [&](auto tag) -> Value {
    using T = typename decltype(tag)::type;
    constexpr bool float_to_int = std::is_floating_point_v<S> && !std::is_floating_point_v<T>;
    constexpr bool number_to_bool = std::is_same_v<T, bool> && !std::is_same_v<S, bool>;
    if constexpr (float_to_int || number_to_bool) {
      throw TypeError("Expected " + std::string(dtype_name(dtype)) + " passed to parameter '" +
                      std::string(param) + "' of op '" + std::string(op_type) + "', got " +
                      scalar_python_repr(s) + " of type '" +
                      std::string(scalar_python_type_name<S>()) + "' instead.");
    } else {
      return Value(static_cast<T>(s));
    }
  });
}

// Builds `def` on a tensor and a scalar operand (a Const "<op>/y", or "<op>/x" when it
// comes first), inside the op's name scope. `typed`: the op has a "T" attr.
template <ScalarOperand S>
Output build_with_scalar(const OpDef& def, const Output& tensor, S scalar, bool scalar_first,
                         bool typed, std::string_view name, std::string_view default_name) {
  OpBuilder b(graph_of({tensor}), name, default_name);
  std::string_view param = scalar_first ? "x" : "y";
  Output c = b.constant_arg(scalar_as(tensor.dtype(), scalar, param, def.type), param);
  std::vector<Output> in =
      scalar_first ? std::vector<Output>{c, tensor} : std::vector<Output>{tensor, c};
  AttrMap attrs;
  if (typed) attrs = {{"T", tensor.dtype()}};
  return b.build(def, in, std::move(attrs)).output(0);
}

}  // namespace detail

}  // namespace symflow
