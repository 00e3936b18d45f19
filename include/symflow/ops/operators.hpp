#pragma once
// C++ operators that build graph nodes with TensorFlow's operator names:
// a + b is "add", a - b "sub", a * b "mul", a / b "truediv" (or "div" on integers),
// -a "Neg". A scalar operand becomes a Const named "<op>/y" (or "<op>/x").

#include <type_traits>

#include "symflow/detail/float_repr.hpp"
#include "symflow/ops/math_ops.hpp"

namespace symflow {

namespace detail {

template <class>
inline constexpr bool always_false = false;

inline Output operator_op(const OpDef& def, std::string_view name, const Output& x,
                          const Output& y) {
  return binary(def, x, y, {}, name);
}

// A scalar operand, converted inside the operator's name scope like TensorFlow's
// convert_to_tensor(y, dtype=x.dtype, name="y").
// A floating-point scalar never converts to an integer tensor's type (TypeError).
template <class S>
Output operator_op_scalar(const OpDef& def, std::string_view name, const Output& tensor, S scalar,
                          bool scalar_first) {
  OpBuilder b(graph_of({tensor}), {}, name);
  Value v = visit_dtype(tensor.dtype(), [&](auto tag) -> Value {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<S> && !std::is_floating_point_v<T>) {
      throw TypeError("Expected " + std::string(dtype_name(tensor.dtype())) +
                      " passed to parameter '" + (scalar_first ? "x" : "y") + "' of op '" +
                      std::string(def.type) + "', got " + python_float_repr(scalar) +
                      " of type 'float' instead.");
    } else {
      return Value(static_cast<T>(scalar));
    }
  });
  Output c = b.constant_arg(v, scalar_first ? "x" : "y");
  std::vector<Output> in =
      scalar_first ? std::vector<Output>{c, tensor} : std::vector<Output>{tensor, c};
  return b.build(def, in, {{"T", tensor.dtype()}}).output(0);
}

}  // namespace detail

// Untyped handles: the dtypes are checked when the node is built (TypeError).
inline Output operator+(const Output& x, const Output& y) {
  return detail::operator_op(detail::kAddOp, "add", x, y);
}
inline Output operator-(const Output& x, const Output& y) {
  return detail::operator_op(detail::kSubOp, "sub", x, y);
}
inline Output operator*(const Output& x, const Output& y) {
  return detail::operator_op(detail::kMulOp, "mul", x, y);
}
inline Output operator/(const Output& x, const Output& y) {
  return detail::operator_op(detail::div_def(x.dtype()), detail::div_name(x.dtype()), x, y);
}
inline Output operator-(const Output& x) { return detail::unary(detail::kNegOp, x, {}, "Neg"); }

// Typed handles: both sides must have one element type.
template <Element T>
Tensor<T> operator+(const Tensor<T>& x, const Tensor<T>& y) {
  return Tensor<T>(Output(x) + Output(y));
}
template <Element T>
Tensor<T> operator-(const Tensor<T>& x, const Tensor<T>& y) {
  return Tensor<T>(Output(x) - Output(y));
}
template <Element T>
Tensor<T> operator*(const Tensor<T>& x, const Tensor<T>& y) {
  return Tensor<T>(Output(x) * Output(y));
}
template <Element T>
Tensor<T> operator/(const Tensor<T>& x, const Tensor<T>& y) {
  return Tensor<T>(Output(x) / Output(y));
}
template <Element T>
Tensor<T> operator-(const Tensor<T>& x) {
  return Tensor<T>(-Output(x));
}

// Mixing element types is a compile error that says what to do.
#define SYMFLOW_MIXED_TYPE_OPERATOR(op)                                                  \
  template <Element A, Element B>                                                        \
  requires(!std::is_same_v<A, B>) void operator op(const Tensor<A>&, const Tensor<B>&) { \
    static_assert(detail::always_false<A>,                                               \
                  "symflow: operands have different element types; convert one with "    \
                  "symflow::cast<T>(x) first");                                          \
  }
SYMFLOW_MIXED_TYPE_OPERATOR(+)
SYMFLOW_MIXED_TYPE_OPERATOR(-)
SYMFLOW_MIXED_TYPE_OPERATOR(*)
SYMFLOW_MIXED_TYPE_OPERATOR(/)
#undef SYMFLOW_MIXED_TYPE_OPERATOR

// Scalars take the tensor's element type: x * 2, 2.0f - x.
template <class S>
concept Scalar = std::is_arithmetic_v<S>;

#define SYMFLOW_SCALAR_OPERATOR(op, def, op_name)                            \
  template <Element T, Scalar S>                                             \
  Tensor<T> operator op(const Tensor<T>& x, S s) {                           \
    return Tensor<T>(detail::operator_op_scalar(def, op_name, x, s, false)); \
  }                                                                          \
  template <Element T, Scalar S>                                             \
  Tensor<T> operator op(S s, const Tensor<T>& x) {                           \
    return Tensor<T>(detail::operator_op_scalar(def, op_name, x, s, true));  \
  }                                                                          \
  template <Scalar S>                                                        \
  Output operator op(const Output& x, S s) {                                 \
    return detail::operator_op_scalar(def, op_name, x, s, false);            \
  }                                                                          \
  template <Scalar S>                                                        \
  Output operator op(S s, const Output& x) {                                 \
    return detail::operator_op_scalar(def, op_name, x, s, true);             \
  }
SYMFLOW_SCALAR_OPERATOR(+, detail::kAddOp, "add")
SYMFLOW_SCALAR_OPERATOR(-, detail::kSubOp, "sub")
SYMFLOW_SCALAR_OPERATOR(*, detail::kMulOp, "mul")
SYMFLOW_SCALAR_OPERATOR(/, detail::div_def(x.dtype()), detail::div_name(x.dtype()))
#undef SYMFLOW_SCALAR_OPERATOR

}  // namespace symflow
