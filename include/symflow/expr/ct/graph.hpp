#pragma once
// The bridge from compile-time expressions to ordinary graph nodes: ct::to_graph(expr) builds
// the same computation with the normal op functions, so a Session gives what ct::eval gives.
//
//   leaf ct::Tensor           Const
//   a + b, a - b, a * b, a / b  Add ("add"), Sub ("sub"), Mul ("mul"), RealDiv ("truediv") /
//                              Div ("div") on integers; a number operand becomes "<op>/y"
//   maximum, minimum          Maximum, Minimum
//   -a, square, abs           Neg, Square, Abs
//   relu(a)                   Relu
//   matmul(a, b)              MatMul; a transpose() operand sets transpose_a / transpose_b
//   transpose(a) elsewhere    Transpose
//   reduce_sum/mean/max/min   Sum, Mean, Max, Min (keep_dims false)

#include <string_view>
#include <vector>

#include "symflow/core/errors.hpp"
#include "symflow/core/value.hpp"
#include "symflow/expr/ct/expr.hpp"
#include "symflow/ops/const_op.hpp"
#include "symflow/ops/math_ops.hpp"
#include "symflow/ops/nn_ops.hpp"
#include "symflow/ops/operators.hpp"
#include "symflow/ops/transform_ops.hpp"

namespace symflow::ct {

// A host Value holding a ct::Tensor's elements.
template <class T, std::size_t... Ds>
Value to_value(const Tensor<T, Ds...>& t) {
  static_assert(Element<T>, "symflow::ct: this element type has no symflow dtype");
  return Value::from_vector(std::vector<T>(t.values.begin(), t.values.end()),
                            Dims{static_cast<std::int64_t>(Ds)...});
}

// A ct::Tensor from a host Value (a Session's result): TypeError when the dtype differs,
// ValueError when the shape does. `from_value<decltype(t)>(v)` works for a constexpr t.
template <class TensorType, class Result = std::remove_cv_t<TensorType>>
requires detail::is_tensor<Result>::value Result from_value(const Value& v) {
  using T = typename Result::value_type;
  if (v.dtype() != dtype_v<T>)
    throw TypeError("ct::from_value: the value has dtype " + std::string(dtype_name(v.dtype())) +
                    ", expected " + std::string(dtype_name(dtype_v<T>)));
  Dims dims(Result::shape.begin(), Result::shape.end());
  if (v.dims() != dims)
    throw ValueError("ct::from_value: the value has shape " + dims_to_string(v.dims()) +
                     ", expected " + dims_to_string(dims));
  Result t;
  const T* src = v.data<T>();
  for (std::size_t i = 0; i < t.size; ++i) t.values[i] = src[i];
  return t;
}

namespace detail {

template <class E>
struct is_transpose : std::false_type {};
template <class A>
struct is_transpose<Transpose<A>> : std::true_type {};

// The graph function of each element op.
inline Output graph_binary(op::Add, const Output& x, const Output& y) { return x + y; }
inline Output graph_binary(op::Sub, const Output& x, const Output& y) { return x - y; }
inline Output graph_binary(op::Mul, const Output& x, const Output& y) { return x * y; }
inline Output graph_binary(op::Div, const Output& x, const Output& y) { return x / y; }
inline Output graph_binary(op::Maximum, const Output& x, const Output& y) {
  return symflow::maximum(x, y);
}
inline Output graph_binary(op::Minimum, const Output& x, const Output& y) {
  return symflow::minimum(x, y);
}

// With a number operand, which becomes a Const inside the op's scope ("add/y",
// "Maximum/y"), like tf.add(x, 2) or x + 2 in TensorFlow.
template <class S>
Output graph_scalar(op::Add, const Output& x, S s, bool first) {
  return first ? s + x : x + s;
}
template <class S>
Output graph_scalar(op::Sub, const Output& x, S s, bool first) {
  return first ? s - x : x - s;
}
template <class S>
Output graph_scalar(op::Mul, const Output& x, S s, bool first) {
  return first ? s * x : x * s;
}
template <class S>
Output graph_scalar(op::Div, const Output& x, S s, bool first) {
  return first ? s / x : x / s;
}
template <class S>
Output graph_scalar(op::Maximum, const Output& x, S s, bool first) {
  return symflow::detail::operator_op_scalar(symflow::detail::kMaximumOp, "Maximum", x, s, first);
}
template <class S>
Output graph_scalar(op::Minimum, const Output& x, S s, bool first) {
  return symflow::detail::operator_op_scalar(symflow::detail::kMinimumOp, "Minimum", x, s, first);
}

template <class T>
Output graph_unary(op::Neg, const Output& x) {
  return -x;
}
template <class T>
Output graph_unary(op::Square, const Output& x) {
  return symflow::square(x);
}
template <class T>
Output graph_unary(op::Abs, const Output& x) {
  return symflow::abs(x);
}
template <class T>
Output graph_unary(op::Relu, const Output& x) {
  return symflow::nn::relu(x);
}

template <class Kind>
Output graph_reduce(const Output& x, const symflow::Axis& axis) {
  if constexpr (std::is_same_v<Kind, op::Sum>) return symflow::reduce_sum(x, axis);
  if constexpr (std::is_same_v<Kind, op::Mean>) return symflow::reduce_mean(x, axis);
  if constexpr (std::is_same_v<Kind, op::Max>) return symflow::reduce_max(x, axis);
  if constexpr (std::is_same_v<Kind, op::Min>) return symflow::reduce_min(x, axis);
}

// One overload per node kind, declared first so that they can call each other.
template <class T, std::size_t... Ds>
Output build_node(const Tensor<T, Ds...>& t, Graph& g);
template <class T>
Output build_node(const ScalarOperand<T>& s, Graph& g);
template <class Op, class A, class B>
Output build_node(const Binary<Op, A, B>& e, Graph& g);
template <class Op, class A>
Output build_node(const Unary<Op, A>& e, Graph& g);
template <class A, class B>
Output build_node(const MatMul<A, B>& e, Graph& g);
template <class A>
Output build_node(const Transpose<A>& e, Graph& g);
template <class Kind, int Axis, class A>
Output build_node(const Reduce<Kind, Axis, A>& e, Graph& g);

template <class T, std::size_t... Ds>
Output build_node(const Tensor<T, Ds...>& t, Graph& g) {
  return symflow::detail::make_const(g, to_value(t), "Const").output(0);
}
template <class T>
Output build_node(const ScalarOperand<T>& s, Graph& g) {
  return build_node(s.eval(), g);
}
template <class Op, class A, class B>
Output build_node(const Binary<Op, A, B>& e, Graph& g) {
  if constexpr (is_scalar_operand<B>::value) {
    return graph_scalar(Op{}, build_node(e.a, g), e.b.value, false);
  } else if constexpr (is_scalar_operand<A>::value) {
    return graph_scalar(Op{}, build_node(e.b, g), e.a.value, true);
  } else {
    Output x = build_node(e.a, g);  // left first: "Const", then "Const_1"
    Output y = build_node(e.b, g);
    return graph_binary(Op{}, x, y);
  }
}
template <class Op, class A>
Output build_node(const Unary<Op, A>& e, Graph& g) {
  return graph_unary<typename A::value_type>(Op{}, build_node(e.a, g));
}
template <class A, class B>
Output build_node(const MatMul<A, B>& e, Graph& g) {
  // matmul(transpose(a), b) is MatMul with transpose_a, as tf.matmul(a, b, transpose_a=True).
  auto operand = [&g](const auto& x) {
    if constexpr (is_transpose<std::remove_cvref_t<decltype(x)>>::value)
      return build_node(x.a, g);
    else
      return build_node(x, g);
  };
  Output x = operand(e.a);
  Output y = operand(e.b);
  return symflow::matmul(x, y, is_transpose<A>::value, is_transpose<B>::value);
}
template <class A>
Output build_node(const Transpose<A>& e, Graph& g) {
  return symflow::transpose(build_node(e.a, g));
}
template <class Kind, int Axis, class A>
Output build_node(const Reduce<Kind, Axis, A>& e, Graph& g) {
  Output x = build_node(e.a, g);
  using R = Reduce<Kind, Axis, A>;
  return graph_reduce<Kind>(x, R::all ? symflow::Axis{} : symflow::Axis(static_cast<int>(R::axis)));
}

}  // namespace detail

// The expression as graph nodes of `g`; returns the result tensor.
template <Expr E>
Output build(const E& expr, Graph g) {
  static_assert(Element<typename E::value_type>,
                "symflow::ct::to_graph: the element type has no symflow dtype (use float, "
                "double, std::int32_t or std::int64_t)");
  return detail::build_node(expr, g);
}

// The expression as graph nodes of the default graph.
template <Expr E>
Output to_graph(const E& expr) {
  return build(expr, get_default_graph());
}

}  // namespace symflow::ct
