#pragma once
// C++ operators that build graph nodes with TensorFlow's operator names:
// a + b is "add", a - b "sub", a * b "mul", a / b "truediv" (or "div" on integers),
// a % b "mod" (FloorMod) and -a "Neg". A scalar operand becomes a Const named "<op>/y"
// (or "<op>/x").
// Comparisons a < b, <=, >, >= build "Less", "LessEqual", ... (a scalar on the left
// turns the comparison around, as Python's reflected operators do: 2 < x is x > 2);
// on bool tensors a & b is "and" (LogicalAnd), a | b "or", a ^ b "xor" (composed) and
// ~a "LogicalNot". == and != compare handles, as in TensorFlow 1.x: use equal() and
// not_equal() for elementwise comparison.

#include <concepts>
#include <cstdint>
#include <type_traits>

#include "symflow/detail/config.hpp"
#include "symflow/ops/logic_ops.hpp"
#include "symflow/ops/math_ops.hpp"

namespace symflow {

namespace detail {

template <class>
inline constexpr bool always_false = false;

inline Output operator_op(const OpDef& def, std::string_view name, const Output& x,
                          const Output& y) {
  return binary(def, x, y, {}, name);
}

// A scalar operand as the operator got it, kept in the widest type of its kind: what
// the non-template builder below needs to convert it to the tensor's dtype.
struct ScalarArg {
  enum class Kind { f32, f64, signed_int, unsigned_int, boolean } kind;
  double f = 0;
  std::int64_t i = 0;
  std::uint64_t u = 0;
};

template <class S>
ScalarArg scalar_arg(S s) {
  using K = ScalarArg::Kind;
  if constexpr (std::is_same_v<S, bool>)
    return {.kind = K::boolean, .i = s ? 1 : 0};
  else if constexpr (std::is_same_v<S, float>)
    return {.kind = K::f32, .f = s};
  else if constexpr (std::is_floating_point_v<S>)
    return {.kind = K::f64, .f = static_cast<double>(s)};
  else if constexpr (std::is_signed_v<S>)
    return {.kind = K::signed_int, .i = s};
  else
    return {.kind = K::unsigned_int, .u = s};
}

// A scalar operand, converted inside the operator's name scope like TensorFlow's
// convert_to_tensor(y, dtype=x.dtype, name="y").
// A floating-point scalar never converts to an integer tensor's type (TypeError).
SYMFLOW_INLINE Output operator_op_scalar(const OpDef& def, std::string_view name,
                                         const Output& tensor, ScalarArg scalar, bool scalar_first);

template <class S>
Output operator_op_scalar(const OpDef& def, std::string_view name, const Output& tensor, S scalar,
                          bool scalar_first) {
  return operator_op_scalar(def, name, tensor, scalar_arg(scalar), scalar_first);
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
// a % b is Python's remainder, FloorMod (the result takes b's sign), node "mod".
inline Output operator%(const Output& x, const Output& y) {
  return detail::operator_op(detail::kFloorModOp, "mod", x, y);
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
Tensor<T> operator%(const Tensor<T>& x, const Tensor<T>& y) {
  return Tensor<T>(Output(x) % Output(y));
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
SYMFLOW_MIXED_TYPE_OPERATOR(%)
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
SYMFLOW_SCALAR_OPERATOR(%, detail::kFloorModOp, "mod")
#undef SYMFLOW_SCALAR_OPERATOR

// ---- comparisons --------------------------------------------------------------------------
#define SYMFLOW_COMPARE_OPERATOR(op, fn, reflected)                                      \
  inline Tensor<bool> operator op(const Output& x, const Output& y) { return fn(x, y); } \
  template <Element T>                                                                   \
  Tensor<bool> operator op(const Tensor<T>& x, const Tensor<T>& y) {                     \
    return fn(Output(x), Output(y));                                                     \
  }                                                                                      \
  template <Scalar S>                                                                    \
  Tensor<bool> operator op(const Output& x, S s) {                                       \
    return fn(x, s);                                                                     \
  }                                                                                      \
  template <Scalar S>                                                                    \
  Tensor<bool> operator op(S s, const Output& x) {                                       \
    return reflected(x, s);                                                              \
  }
SYMFLOW_COMPARE_OPERATOR(<, less, greater)
SYMFLOW_COMPARE_OPERATOR(<=, less_equal, greater_equal)
SYMFLOW_COMPARE_OPERATOR(>, greater, less)
SYMFLOW_COMPARE_OPERATOR(>=, greater_equal, less_equal)
#undef SYMFLOW_COMPARE_OPERATOR

#define SYMFLOW_MIXED_TYPE_OPERATOR(op)                                                  \
  template <Element A, Element B>                                                        \
  requires(!std::is_same_v<A, B>) void operator op(const Tensor<A>&, const Tensor<B>&) { \
    static_assert(detail::always_false<A>,                                               \
                  "symflow: operands have different element types; convert one with "    \
                  "symflow::cast<T>(x) first");                                          \
  }
SYMFLOW_MIXED_TYPE_OPERATOR(<)
SYMFLOW_MIXED_TYPE_OPERATOR(<=)
SYMFLOW_MIXED_TYPE_OPERATOR(>)
SYMFLOW_MIXED_TYPE_OPERATOR(>=)
SYMFLOW_MIXED_TYPE_OPERATOR(&)
SYMFLOW_MIXED_TYPE_OPERATOR(|)
SYMFLOW_MIXED_TYPE_OPERATOR(^)
#undef SYMFLOW_MIXED_TYPE_OPERATOR

// ---- logical operators on bool tensors ------------------------------------------------------
namespace detail {
// a & b and a | b: Python's operator scope ("and", "or") names the op itself.
inline Tensor<bool> logical_operator(const OpDef& def, std::string_view name, const Output& x,
                                     const Output& y) {
  OpBuilder b(graph_of({x, y}), {}, name);
  return Tensor<bool>(b.build(def, {x, y}, {}).output(0));
}
inline Tensor<bool> logical_operator(const OpDef& def, std::string_view name, const Output& x,
                                     bool s, bool scalar_first) {
  return Tensor<bool>(build_with_scalar(def, x, s, scalar_first, false, {}, name));
}
// a ^ b: logical_xor inside the scope "xor", its last op named "xor".
inline Tensor<bool> xor_operator(const Output& x, const Output& y) {
  name_scope scope(graph_of({x, y}), "xor");
  return logical_xor(x, y, scope.name());
}
inline Tensor<bool> xor_operator(const Output& x, bool s, bool scalar_first) {
  Graph g = graph_of({x});
  name_scope scope(g, "xor");
  std::string_view param = scalar_first ? "x" : "y";
  Output c = make_const(g, scalar_as(x.dtype(), s, param, "LogicalOr"), param).output(0);
  return scalar_first ? logical_xor(c, x, scope.name()) : logical_xor(x, c, scope.name());
}
}  // namespace detail

inline Tensor<bool> operator&(const Output& x, const Output& y) {
  return detail::logical_operator(detail::kLogicalAndOp, "and", x, y);
}
inline Tensor<bool> operator|(const Output& x, const Output& y) {
  return detail::logical_operator(detail::kLogicalOrOp, "or", x, y);
}
inline Tensor<bool> operator^(const Output& x, const Output& y) {
  return detail::xor_operator(x, y);
}
inline Tensor<bool> operator~(const Output& x) { return logical_not(x); }

// The scalar operand of a logical operator must be a bool (TensorFlow refuses x & 1).
template <std::same_as<bool> B>
Tensor<bool> operator&(const Output& x, B s) {
  return detail::logical_operator(detail::kLogicalAndOp, "and", x, s, false);
}
template <std::same_as<bool> B>
Tensor<bool> operator&(B s, const Output& x) {
  return detail::logical_operator(detail::kLogicalAndOp, "and", x, s, true);
}
template <std::same_as<bool> B>
Tensor<bool> operator|(const Output& x, B s) {
  return detail::logical_operator(detail::kLogicalOrOp, "or", x, s, false);
}
template <std::same_as<bool> B>
Tensor<bool> operator|(B s, const Output& x) {
  return detail::logical_operator(detail::kLogicalOrOp, "or", x, s, true);
}
template <std::same_as<bool> B>
Tensor<bool> operator^(const Output& x, B s) {
  return detail::xor_operator(x, s, false);
}
template <std::same_as<bool> B>
Tensor<bool> operator^(B s, const Output& x) {
  return detail::xor_operator(x, s, true);
}

// On typed handles the logical operators need bool tensors: a compile error otherwise.
#define SYMFLOW_BOOL_ONLY_OPERATOR(op)                                                      \
  template <Element T>                                                                      \
  requires(!std::is_same_v<T, bool>) void operator op(const Tensor<T>&, const Tensor<T>&) { \
    static_assert(detail::always_false<T>,                                                  \
                  "symflow: & | ^ ~ are logical operators on Tensor<bool>; compare first "  \
                  "(x > 0) or use symflow::cast<bool>(x)");                                 \
  }                                                                                         \
  template <Element T, Scalar S>                                                            \
  requires(!std::is_same_v<T, bool>) void operator op(const Tensor<T>&, S) {                \
    static_assert(detail::always_false<T>,                                                  \
                  "symflow: & | ^ ~ are logical operators on Tensor<bool>; compare first "  \
                  "(x > 0) or use symflow::cast<bool>(x)");                                 \
  }                                                                                         \
  template <Element T, Scalar S>                                                            \
  requires(!std::is_same_v<T, bool>) void operator op(S, const Tensor<T>&) {                \
    static_assert(detail::always_false<T>,                                                  \
                  "symflow: & | ^ ~ are logical operators on Tensor<bool>; compare first "  \
                  "(x > 0) or use symflow::cast<bool>(x)");                                 \
  }
SYMFLOW_BOOL_ONLY_OPERATOR(&)
SYMFLOW_BOOL_ONLY_OPERATOR(|)
SYMFLOW_BOOL_ONLY_OPERATOR(^)
#undef SYMFLOW_BOOL_ONLY_OPERATOR
template <Element T>
requires(!std::is_same_v<T, bool>) void operator~(const Tensor<T>&) {
  static_assert(detail::always_false<T>,
                "symflow: & | ^ ~ are logical operators on Tensor<bool>; compare first "
                "(x > 0) or use symflow::cast<bool>(x)");
}

}  // namespace symflow

#if !defined(SYMFLOW_COMPILED)
#include "symflow/ops/operators_inl.hpp"
#endif

// x[...] needs the operators (a tensor index i ends at i + 1): it comes with them.
#include "symflow/ops/indexing.hpp"  // IWYU pragma: export
