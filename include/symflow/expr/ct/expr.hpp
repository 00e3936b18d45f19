#pragma once
// Compile-time expressions over symflow::ct::Tensor: each operator or function returns a
// small node that holds its operands by value, and ct::eval(expr) computes the result as a
// ct::Tensor, in a constant expression when the leaves are constexpr.
//
//   constexpr ct::Matrix<float, 2, 2> w{{1, -1}, {2, 0}};
//   constexpr ct::Matrix<float, 2, 1> x{{3}, {1}};
//   constexpr ct::Vector<float, 1> b{-1};
//   static_assert(ct::eval(relu(matmul(w, x) + b)) == ct::Matrix<float, 2, 1>{{1}, {5}});
//
// Shapes are checked when the expression is formed: a mismatch is a static_assert whose
// text says what is wrong. Element arithmetic follows the graph kernels (math_ops.hpp):
// integers wrap around, integer division truncates, maximum/minimum propagate NaN.

#include <array>
#include <climits>
#include <cstddef>
#include <stdexcept>
#include <type_traits>

#include "symflow/expr/ct/tensor.hpp"

namespace symflow::ct {

// Anything ct::eval accepts: a ct::Tensor or an expression node.
template <class E>
concept Expr = requires {
  requires E::is_ct_expression;
};

// An operand of a binary operation: an expression or a plain number (broadcast as a scalar).
template <class X>
concept Operand = Expr<X> || Number<X>;

// The value of an expression, as a ct::Tensor of the expression's static shape.
template <Expr E>
constexpr auto eval(const E& e) {
  if constexpr (detail::is_tensor<E>::value)
    return e;
  else
    return e.eval();
}

// ---- element functions -------------------------------------------------------------------
namespace op {

namespace detail {
// Two's complement wrap-around on integers, as the graph kernels do (no signed overflow).
template <class T, class F>
constexpr T wrapping(F f, T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(f(static_cast<U>(a), static_cast<U>(b)));
  } else {
    return f(a, b);
  }
}
}  // namespace detail

struct Add {
  template <class T>
  static constexpr T apply(T a, T b) {
    return detail::wrapping([](auto x, auto y) { return x + y; }, a, b);
  }
};
struct Sub {
  template <class T>
  static constexpr T apply(T a, T b) {
    return detail::wrapping([](auto x, auto y) { return x - y; }, a, b);
  }
};
struct Mul {
  template <class T>
  static constexpr T apply(T a, T b) {
    return detail::wrapping([](auto x, auto y) { return x * y; }, a, b);
  }
};
// Real division on floats; truncating division on integers (by zero: an error).
struct Div {
  template <class T>
  static constexpr T apply(T a, T b) {
    if constexpr (std::is_integral_v<T>) {
      if (b == T{0}) throw std::domain_error("symflow::ct: integer division by zero");
      if constexpr (std::is_signed_v<T>)
        if (b == T{-1}) return Sub::apply(T{0}, a);  // lowest / -1 overflows
      return static_cast<T>(a / b);
    } else {
      return a / b;
    }
  }
};
struct Maximum {
  template <class T>
  static constexpr T apply(T a, T b) {
    return a > b || a != a ? a : b;
  }
};
struct Minimum {
  template <class T>
  static constexpr T apply(T a, T b) {
    return a < b || a != a ? a : b;
  }
};

struct Neg {
  template <class T>
  static constexpr T apply(T x) {
    return Sub::apply(T{0}, x);
  }
};
// relu(x) = maximum(x, 0), which is also how the graph bridge builds it.
struct Relu {
  template <class T>
  static constexpr T apply(T x) {
    return Maximum::apply(x, T{0});
  }
};
struct Square {
  template <class T>
  static constexpr T apply(T x) {
    return Mul::apply(x, x);
  }
};
struct Abs {
  template <class T>
  static constexpr T apply(T x) {
    if (x == T{0}) return T{0};  // -0.0 becomes +0.0, as fabs does
    return x < T{0} ? Neg::apply(x) : x;
  }
};

// Reductions: how elements combine, and what happens to the total.
struct Sum {
  template <class T>
  static constexpr T combine(T acc, T x) {
    return Add::apply(acc, x);
  }
  template <class T>
  static constexpr T finish(T acc, std::size_t) {
    return acc;
  }
};
struct Mean {
  template <class T>
  static constexpr T combine(T acc, T x) {
    return Add::apply(acc, x);
  }
  template <class T>
  static constexpr T finish(T acc, std::size_t count) {
    return static_cast<T>(acc / static_cast<T>(count));
  }
};
struct Max {
  template <class T>
  static constexpr T combine(T acc, T x) {
    return Maximum::apply(acc, x);
  }
  template <class T>
  static constexpr T finish(T acc, std::size_t) {
    return acc;
  }
};
struct Min {
  template <class T>
  static constexpr T combine(T acc, T x) {
    return Minimum::apply(acc, x);
  }
  template <class T>
  static constexpr T finish(T acc, std::size_t) {
    return acc;
  }
};

}  // namespace op

// ---- shape rules -------------------------------------------------------------------------
namespace detail {

// NumPy broadcasting: align the trailing dimensions; each pair must be equal or contain a 1.
template <std::size_t N, std::size_t M>
constexpr bool broadcastable(const Shape<N>& a, const Shape<M>& b) {
  for (std::size_t k = 1; k <= N && k <= M; ++k) {
    std::size_t x = a[N - k], y = b[M - k];
    if (x != y && x != 1 && y != 1) return false;
  }
  return true;
}
template <std::size_t N, std::size_t M>
constexpr auto broadcast_shape(const Shape<N>& a, const Shape<M>& b) {
  constexpr std::size_t R = N > M ? N : M;
  Shape<R> out{};
  for (std::size_t k = 1; k <= R; ++k) {
    std::size_t x = k <= N ? a[N - k] : 1, y = k <= M ? b[M - k] : 1;
    out[R - k] = x == 1 ? y : x;
  }
  return out;
}
// The flat index of `in` that feeds element `flat` of the broadcast result `out`.
template <std::size_t R, std::size_t N>
constexpr std::size_t broadcast_source(std::size_t flat, const Shape<R>& out, const Shape<N>& in) {
  Shape<R> at = unravel(flat, out);
  Shape<N> src{};
  for (std::size_t k = 1; k <= N; ++k) src[N - k] = in[N - k] == 1 ? 0 : at[R - k] % in[N - k];
  return ravel(src, in);
}

// The position of axis `axis` (negative counts from the end) among `rank` axes, or
// `rank` when out of range.
constexpr std::size_t normalize_axis(int axis, std::size_t rank) {
  long long a = axis < 0 ? axis + static_cast<long long>(rank) : axis;
  return a < 0 || a >= static_cast<long long>(rank) ? rank : static_cast<std::size_t>(a);
}

template <class E>
struct is_scalar_operand : std::false_type {};

}  // namespace detail

// Reduce every axis (the default of the reduce_* functions).
inline constexpr int all_axes = INT_MIN;

// ---- nodes -------------------------------------------------------------------------------

// A plain number in a binary operation, converted to the other operand's element type.
template <Number T>
struct ScalarOperand {
  using value_type = T;
  static constexpr bool is_ct_expression = true;
  static constexpr std::size_t rank = 0;
  static constexpr Shape<0> shape{};
  T value;
  constexpr Tensor<T> eval() const { return Tensor<T>{value}; }
};
template <class T>
struct detail::is_scalar_operand<ScalarOperand<T>> : std::true_type {};

// Elementwise op(a, b) with broadcasting.
template <class Op, Expr A, Expr B>
struct Binary {
  static_assert(std::is_same_v<typename A::value_type, typename B::value_type>,
                "symflow::ct: operands have different element types");
  static_assert(detail::broadcastable(A::shape, B::shape),
                "symflow::ct: elementwise operands have incompatible shapes (aligned from the "
                "last axis, each pair of dimensions must be equal or one of them 1)");

  using value_type = typename A::value_type;
  static constexpr bool is_ct_expression = true;
  static constexpr auto shape = detail::broadcast_shape(A::shape, B::shape);
  static constexpr std::size_t rank = shape.size();
  A a;
  B b;

  constexpr auto eval() const {
    const auto x = ct::eval(a);
    const auto y = ct::eval(b);
    tensor_t<value_type, shape> out;
    for (std::size_t i = 0; i < out.size; ++i)
      out.values[i] = Op::apply(x.values[detail::broadcast_source(i, shape, A::shape)],
                                y.values[detail::broadcast_source(i, shape, B::shape)]);
    return out;
  }
};

// Elementwise op(a).
template <class Op, Expr A>
struct Unary {
  using value_type = typename A::value_type;
  static constexpr bool is_ct_expression = true;
  static constexpr auto shape = A::shape;
  static constexpr std::size_t rank = shape.size();
  A a;

  constexpr auto eval() const {
    auto out = ct::eval(a);
    for (auto& v : out.values) v = Op::apply(v);
    return out;
  }
};

// Matrix product of [M, K] and [K, N].
template <Expr A, Expr B>
struct MatMul {
  static_assert(std::is_same_v<typename A::value_type, typename B::value_type>,
                "symflow::ct: operands have different element types");
  static_assert(A::rank == 2 && B::rank == 2,
                "symflow::ct::matmul: both operands must be matrices (rank 2)");
  static constexpr bool inner_dims_match =
      A::rank != 2 || B::rank != 2 || A::shape[1] == B::shape[0];
  static_assert(inner_dims_match,
                "symflow::ct::matmul: inner dimensions do not match (a is [M, K], so b must be "
                "[K, N])");

  using value_type = typename A::value_type;
  static constexpr bool is_ct_expression = true;
  static constexpr Shape<2> shape{A::rank == 2 ? A::shape[0] : 1, B::rank == 2 ? B::shape[1] : 1};
  static constexpr std::size_t rank = 2;
  A a;
  B b;

  constexpr auto eval() const {
    const auto x = ct::eval(a);
    const auto y = ct::eval(b);
    constexpr std::size_t m = shape[0], n = shape[1], k = A::rank == 2 ? A::shape[1] : 1;
    tensor_t<value_type, shape> out;
    if constexpr (A::rank == 2 && B::rank == 2 && A::shape[1] == B::shape[0]) {
      for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < n; ++j) {
          value_type acc{0};
          for (std::size_t p = 0; p < k; ++p)
            acc = op::Add::apply(acc, op::Mul::apply(x.values[i * k + p], y.values[p * n + j]));
          out.values[i * n + j] = acc;
        }
    }
    return out;
  }
};

// The axes in reverse order (a matrix's transpose), as tf.transpose without perm.
template <Expr A>
struct Transpose {
  using value_type = typename A::value_type;
  static constexpr bool is_ct_expression = true;
  static constexpr std::size_t rank = A::rank;
  static constexpr Shape<rank> shape = [] {
    Shape<rank> s{};
    for (std::size_t k = 0; k < rank; ++k) s[k] = A::shape[rank - 1 - k];
    return s;
  }();
  A a;

  constexpr auto eval() const {
    const auto x = ct::eval(a);
    tensor_t<value_type, shape> out;
    for (std::size_t i = 0; i < out.size; ++i) {
      Shape<rank> at = detail::unravel(i, shape), src{};
      for (std::size_t k = 0; k < rank; ++k) src[k] = at[rank - 1 - k];
      out.values[i] = x.values[detail::ravel(src, A::shape)];
    }
    return out;
  }
};

// A reduction (op::Sum, Mean, Max, Min) over every axis (Axis == all_axes) or one axis.
template <class Kind, int Axis, Expr A>
struct Reduce {
  static constexpr bool all = Axis == all_axes;
  static constexpr std::size_t axis = all ? 0 : detail::normalize_axis(Axis, A::rank);
  static_assert(all || axis < A::rank,
                "symflow::ct: reduction axis out of range for the operand's rank");

  using value_type = typename A::value_type;
  static constexpr bool is_ct_expression = true;
  static constexpr std::size_t rank = all || A::rank == 0 ? 0 : A::rank - 1;
  static constexpr Shape<rank> shape = [] {
    Shape<rank> s{};
    for (std::size_t k = 0, j = 0; k < A::rank && j < rank; ++k)
      if (k != axis) s[j++] = A::shape[k];
    return s;
  }();
  A a;

  constexpr auto eval() const {
    const auto x = ct::eval(a);
    tensor_t<value_type, shape> out;
    std::array<bool, decltype(out)::size> seen{};
    for (std::size_t i = 0; i < x.size; ++i) {
      std::size_t o = 0;  // the output element that input element i folds into
      if constexpr (!all) {
        Shape<A::rank> at = detail::unravel(i, A::shape);
        for (std::size_t k = 0; k < A::rank; ++k)
          if (k != axis) o = o * A::shape[k] + at[k];
      }
      out.values[o] = seen[o] ? Kind::combine(out.values[o], x.values[i]) : x.values[i];
      seen[o] = true;
    }
    for (auto& v : out.values) v = Kind::finish(v, x.size / out.size);
    return out;
  }
};

// ---- functions and operators -------------------------------------------------------------
namespace detail {

template <class T, Number S>
constexpr ScalarOperand<T> scalar_operand(S s) {
  static_assert(!(std::is_floating_point_v<S> && std::is_integral_v<T>),
                "symflow::ct: a floating-point scalar cannot combine with an integer tensor");
  return {static_cast<T>(s)};
}

template <class Op, Operand A, Operand B>
constexpr auto binary(const A& a, const B& b) {
  if constexpr (Expr<A> && Expr<B>) {
    return Binary<Op, A, B>{a, b};
  } else if constexpr (Expr<A>) {
    using T = typename A::value_type;
    return Binary<Op, A, ScalarOperand<T>>{a, scalar_operand<T>(b)};
  } else {
    using T = typename B::value_type;
    return Binary<Op, ScalarOperand<T>, B>{scalar_operand<T>(a), b};
  }
}

}  // namespace detail

// Elementwise functions: each takes two expressions, or an expression and a number.
#define SYMFLOW_CT_BINARY(fn, Op)                                          \
  template <Operand A, Operand B>                                          \
  requires(Expr<A> || Expr<B>) constexpr auto fn(const A& a, const B& b) { \
    return detail::binary<Op>(a, b);                                       \
  }
SYMFLOW_CT_BINARY(add, op::Add)
SYMFLOW_CT_BINARY(subtract, op::Sub)
SYMFLOW_CT_BINARY(multiply, op::Mul)
SYMFLOW_CT_BINARY(divide, op::Div)
SYMFLOW_CT_BINARY(maximum, op::Maximum)
SYMFLOW_CT_BINARY(minimum, op::Minimum)
SYMFLOW_CT_BINARY(operator+, op::Add)
SYMFLOW_CT_BINARY(operator-, op::Sub)
SYMFLOW_CT_BINARY(operator*, op::Mul)
SYMFLOW_CT_BINARY(operator/, op::Div)
#undef SYMFLOW_CT_BINARY

#define SYMFLOW_CT_UNARY(fn, Op)  \
  template <Expr A>               \
  constexpr auto fn(const A& a) { \
    return Unary<Op, A>{a};       \
  }
SYMFLOW_CT_UNARY(negative, op::Neg)
SYMFLOW_CT_UNARY(operator-, op::Neg)
SYMFLOW_CT_UNARY(relu, op::Relu)
SYMFLOW_CT_UNARY(square, op::Square)
SYMFLOW_CT_UNARY(abs, op::Abs)
#undef SYMFLOW_CT_UNARY

// matmul(a, b): [M, K] x [K, N] -> [M, N].
template <Expr A, Expr B>
constexpr auto matmul(const A& a, const B& b) {
  return MatMul<A, B>{a, b};
}

// transpose(a): the axes reversed ([M, N] -> [N, M]).
template <Expr A>
constexpr auto transpose(const A& a) {
  return Transpose<A>{a};
}

// reduce_sum(x) over every axis (a scalar), reduce_sum<1>(x) over axis 1 (the axis goes
// away; negative counts from the end). Mean on integers truncates, as in the graph.
#define SYMFLOW_CT_REDUCTION(fn, Kind)   \
  template <int Axis = all_axes, Expr A> \
  constexpr auto fn(const A& a) {        \
    return Reduce<Kind, Axis, A>{a};     \
  }
SYMFLOW_CT_REDUCTION(reduce_sum, op::Sum)
SYMFLOW_CT_REDUCTION(reduce_mean, op::Mean)
SYMFLOW_CT_REDUCTION(reduce_max, op::Max)
SYMFLOW_CT_REDUCTION(reduce_min, op::Min)
#undef SYMFLOW_CT_REDUCTION

}  // namespace symflow::ct
