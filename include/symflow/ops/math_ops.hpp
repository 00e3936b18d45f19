#pragma once
// Elementwise arithmetic with broadcasting, MatMul, reductions and Cast: the
// graph-building functions (tf.add, tf.floordiv, tf.div_no_nan, tf.cos, tf.matmul,
// tf.reduce_sum, ...). The ops'
// descriptions are in ops/defs/math.hpp, their CPU kernels in
// backend/cpu/kernels/math.hpp.

#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "symflow/detail/config.hpp"
#include "symflow/ops/defs/math.hpp"
#include "symflow/ops/op_builder.hpp"
#include "symflow/ops/scalar_operand.hpp"

namespace symflow {

namespace detail {

// Builds a binary op the way TensorFlow's wrappers do.
SYMFLOW_INLINE Output binary(const OpDef& def, const Output& x, const Output& y,
                             std::string_view name, std::string_view default_name);

// x / y: RealDiv named "truediv" on floats, Div named "div" on integers.
inline const OpDef& div_def(DType d) { return is_floating(d) ? kRealDivOp : kDivOp; }
inline std::string_view div_name(DType d) { return is_floating(d) ? "truediv" : "div"; }

SYMFLOW_INLINE Output unary(const OpDef& def, const Output& x, std::string_view name,
                            std::string_view default_name);

}  // namespace detail

// Reduction axes, as TensorFlow's `axis` argument: all axes when omitted (also for `{}`),
// one axis (a scalar Const), or a list (a rank-1 Const).
struct Axis {
  std::optional<Dims> axes;
  bool scalar = false;
  Axis() = default;
  Axis(int axis) : axes(Dims{axis}), scalar(true) {}                    // NOLINT
  Axis(std::initializer_list<std::int64_t> list) : axes(Dims(list)) {}  // NOLINT
  Axis(Dims list) : axes(std::move(list)) {}                            // NOLINT
  // Axes computed in the graph (an int32 scalar or vector tensor).
  Axis(Output computed) : axes(Dims{}), tensor(std::move(computed)) {}  // NOLINT
  Output tensor;
};

namespace detail {

SYMFLOW_INLINE Output reduction(const OpDef& def, const Output& x, const Axis& axis, bool keepdims,
                                std::string_view name, std::string_view default_name,
                                bool type_attr = true);

}  // namespace detail

// Either operand may be a C++ number, converted to the other's dtype as the operators
// convert it (ops/scalar_operand.hpp): maximum(x, 1e-12f) builds "Maximum/y".
#define SYMFLOW_BINARY_FUNCTION(fn, op_def, default_name)                                       \
  inline Output fn(const Output& x, const Output& y, std::string_view name = {}) {              \
    return detail::binary(op_def, x, y, name, default_name);                                    \
  }                                                                                             \
  template <Element T>                                                                          \
  Tensor<T> fn(const Tensor<T>& x, const Tensor<T>& y, std::string_view name = {}) {            \
    return Tensor<T>(detail::binary(op_def, x, y, name, default_name));                         \
  }                                                                                             \
  template <detail::ScalarOperand S>                                                            \
  Output fn(const Output& x, S y, std::string_view name = {}) {                                 \
    return detail::build_with_scalar(op_def, x, y, false, true, name, default_name);            \
  }                                                                                             \
  template <detail::ScalarOperand S>                                                            \
  Output fn(S x, const Output& y, std::string_view name = {}) {                                 \
    return detail::build_with_scalar(op_def, y, x, true, true, name, default_name);             \
  }                                                                                             \
  template <Element T, detail::ScalarOperand S>                                                 \
  Tensor<T> fn(const Tensor<T>& x, S y, std::string_view name = {}) {                           \
    return Tensor<T>(detail::build_with_scalar(op_def, x, y, false, true, name, default_name)); \
  }                                                                                             \
  template <Element T, detail::ScalarOperand S>                                                 \
  Tensor<T> fn(S x, const Tensor<T>& y, std::string_view name = {}) {                           \
    return Tensor<T>(detail::build_with_scalar(op_def, y, x, true, true, name, default_name));  \
  }

SYMFLOW_BINARY_FUNCTION(add, detail::kAddOp, "Add")
SYMFLOW_BINARY_FUNCTION(subtract, detail::kSubOp, "Sub")
SYMFLOW_BINARY_FUNCTION(multiply, detail::kMulOp, "Mul")
SYMFLOW_BINARY_FUNCTION(pow, detail::kPowOp, "Pow")
SYMFLOW_BINARY_FUNCTION(maximum, detail::kMaximumOp, "Maximum")
SYMFLOW_BINARY_FUNCTION(minimum, detail::kMinimumOp, "Minimum")
// tf.floordiv (FloorDiv, rounding toward -inf, node "floordiv"), and tf.floormod and
// tf.mod, which both build FloorMod (the remainder with y's sign). Integer division by
// zero fails when the node runs (InvalidArgumentError).
SYMFLOW_BINARY_FUNCTION(floordiv, detail::kFloorDivOp, "floordiv")
SYMFLOW_BINARY_FUNCTION(floormod, detail::kFloorModOp, "FloorMod")
SYMFLOW_BINARY_FUNCTION(mod, detail::kFloorModOp, "FloorMod")

// Ops that TensorFlow's Python reaches only as tf.raw_ops: they come in imported graphs,
// and are built here for graphs that must hold them.
namespace raw_ops {
// tf.raw_ops.AddV2: Add's arithmetic, broadcasting and gradient. `a + b` and tf::add build
// Add, as TensorFlow before 1.15 did.
SYMFLOW_BINARY_FUNCTION(add_v2, detail::kAddV2Op, "AddV2")
// tf.raw_ops.Mod: the truncated remainder, with x's sign (C's fmod and %).
SYMFLOW_BINARY_FUNCTION(mod, detail::kModOp, "Mod")
}  // namespace raw_ops
#undef SYMFLOW_BINARY_FUNCTION

// tf.divide: RealDiv ("truediv") for floats, truncating Div ("div") for integers.
inline Output divide(const Output& x, const Output& y, std::string_view name = {}) {
  return detail::binary(detail::div_def(x.dtype()), x, y, name, detail::div_name(x.dtype()));
}
// A number as y converts inside the op's scope ("truediv/y"); a number as x first becomes a
// Const "Const" of y's dtype, as tf.divide converts it before dividing.
template <detail::ScalarOperand S>
Output divide(const Output& x, S y, std::string_view name = {}) {
  return detail::build_with_scalar(detail::div_def(x.dtype()), x, y, false, true, name,
                                   detail::div_name(x.dtype()));
}
template <detail::ScalarOperand S>
Output divide(S x, const Output& y, std::string_view name = {}) {
  Graph g = graph_of({y});
  Output c = detail::make_const(
                 g, detail::scalar_as(y.dtype(), x, "x", detail::div_def(y.dtype()).type), "Const")
                 .output(0);
  return divide(c, y, name);
}
template <Element T>
Tensor<T> divide(const Tensor<T>& x, const Tensor<T>& y, std::string_view name = {}) {
  return Tensor<T>(divide(Output(x), Output(y), name));
}

#define SYMFLOW_UNARY_FUNCTION(fn, op_def, default_name)            \
  inline Output fn(const Output& x, std::string_view name = {}) {   \
    return detail::unary(op_def, x, name, default_name);            \
  }                                                                 \
  template <Element T>                                              \
  Tensor<T> fn(const Tensor<T>& x, std::string_view name = {}) {    \
    return Tensor<T>(detail::unary(op_def, x, name, default_name)); \
  }

SYMFLOW_UNARY_FUNCTION(negative, detail::kNegOp, "Neg")
SYMFLOW_UNARY_FUNCTION(square, detail::kSquareOp, "Square")
SYMFLOW_UNARY_FUNCTION(abs, detail::kAbsOp, "Abs")
SYMFLOW_UNARY_FUNCTION(sqrt, detail::kSqrtOp, "Sqrt")
SYMFLOW_UNARY_FUNCTION(exp, detail::kExpOp, "Exp")
SYMFLOW_UNARY_FUNCTION(log, detail::kLogOp, "Log")
SYMFLOW_UNARY_FUNCTION(sign, detail::kSignOp, "Sign")
SYMFLOW_UNARY_FUNCTION(cos, detail::kCosOp, "Cos")
SYMFLOW_UNARY_FUNCTION(sin, detail::kSinOp, "Sin")
SYMFLOW_UNARY_FUNCTION(ceil, detail::kCeilOp, "Ceil")
#undef SYMFLOW_UNARY_FUNCTION

// tf.round: halves to the nearest even integer (Round). An integer tensor is already
// round and comes back unchanged, with no node, as in TensorFlow.
inline Output round(const Output& x, std::string_view name = {}) {
  if (x.dtype() == DType::int32 || x.dtype() == DType::int64 || x.dtype() == DType::uint8) return x;
  return detail::unary(detail::kRoundOp, x, name, "Round");
}
template <Element T>
Tensor<T> round(const Tensor<T>& x, std::string_view name = {}) {
  return Tensor<T>(round(Output(x), name));
}

// tf.is_nan, tf.is_inf, tf.is_finite: per element of a float tensor, a bool tensor.
#define SYMFLOW_FLOAT_CLASS_FUNCTION(fn, op_def, default_name)         \
  inline Output fn(const Output& x, std::string_view name = {}) {      \
    return detail::unary(op_def, x, name, default_name);               \
  }                                                                    \
  template <Element T>                                                 \
  Tensor<bool> fn(const Tensor<T>& x, std::string_view name = {}) {    \
    return Tensor<bool>(detail::unary(op_def, x, name, default_name)); \
  }

SYMFLOW_FLOAT_CLASS_FUNCTION(is_nan, detail::kIsNanOp, "IsNan")
SYMFLOW_FLOAT_CLASS_FUNCTION(is_inf, detail::kIsInfOp, "IsInf")
SYMFLOW_FLOAT_CLASS_FUNCTION(is_finite, detail::kIsFiniteOp, "IsFinite")
#undef SYMFLOW_FLOAT_CLASS_FUNCTION

// tf.matmul(a, b, transpose_a, transpose_b) of two matrices.
inline Output matmul(const Output& a, const Output& b, bool transpose_a = false,
                     bool transpose_b = false, std::string_view name = {}) {
  detail::OpBuilder builder(graph_of({a, b}), name, "MatMul");
  return builder
      .build(detail::kMatMulOp, {a, b},
             {{"T", a.dtype()}, {"transpose_a", transpose_a}, {"transpose_b", transpose_b}})
      .output(0);
}
template <Element T>
Tensor<T> matmul(const Tensor<T>& a, const Tensor<T>& b, bool transpose_a = false,
                 bool transpose_b = false, std::string_view name = {}) {
  return Tensor<T>(matmul(Output(a), Output(b), transpose_a, transpose_b, name));
}
// An untyped handle does not say which element type the list should take.
template <class A, class U>
requires std::same_as<A, Output> Output matmul(const A&,
                                               std::initializer_list<std::initializer_list<U>>,
                                               bool = false, bool = false, std::string_view = {}) {
  static_assert(!std::same_as<A, Output>,
                "symflow: matmul(x, {{...}}) needs x's element type: call it on a typed handle "
                "(x.as<float>()) or pass symflow::constant<float>({{...}})");
  return {};
}

// A nested list on either side becomes a Const "MatMul/b" (or "MatMul/a") of the
// tensor's type, as tf.matmul(x, [[1., 2.], [3., 4.]]) converts it.
template <Element T>
Tensor<T> matmul(const Tensor<T>& a,
                 std::initializer_list<std::initializer_list<std::type_identity_t<T>>> b,
                 bool transpose_a = false, bool transpose_b = false, std::string_view name = {}) {
  detail::OpBuilder builder(graph_of({a}), name, "MatMul");
  Output bo = builder.constant_arg(Value(b), "b");
  return Tensor<T>(
      builder
          .build(detail::kMatMulOp, {a, bo},
                 {{"T", a.dtype()}, {"transpose_a", transpose_a}, {"transpose_b", transpose_b}})
          .output(0));
}
template <Element T>
Tensor<T> matmul(std::initializer_list<std::initializer_list<std::type_identity_t<T>>> a,
                 const Tensor<T>& b, bool transpose_a = false, bool transpose_b = false,
                 std::string_view name = {}) {
  detail::OpBuilder builder(graph_of({b}), name, "MatMul");
  Output ao = builder.constant_arg(Value(a), "a");
  return Tensor<T>(
      builder
          .build(detail::kMatMulOp, {ao, b},
                 {{"T", b.dtype()}, {"transpose_a", transpose_a}, {"transpose_b", transpose_b}})
          .output(0));
}

#define SYMFLOW_REDUCTION_FUNCTION(fn, op_def, default_name)                            \
  inline Output fn(const Output& x, const Axis& axis = {}, bool keepdims = false,       \
                   std::string_view name = {}) {                                        \
    return detail::reduction(op_def, x, axis, keepdims, name, default_name);            \
  }                                                                                     \
  template <Element T>                                                                  \
  Tensor<T> fn(const Tensor<T>& x, const Axis& axis = {}, bool keepdims = false,        \
               std::string_view name = {}) {                                            \
    return Tensor<T>(detail::reduction(op_def, x, axis, keepdims, name, default_name)); \
  }

SYMFLOW_REDUCTION_FUNCTION(reduce_sum, detail::kSumOp, "Sum")
SYMFLOW_REDUCTION_FUNCTION(reduce_mean, detail::kMeanOp, "Mean")
SYMFLOW_REDUCTION_FUNCTION(reduce_max, detail::kMaxOp, "Max")
SYMFLOW_REDUCTION_FUNCTION(reduce_min, detail::kMinOp, "Min")
#undef SYMFLOW_REDUCTION_FUNCTION

// tf.cast(x, dtype). Like TensorFlow, a tensor that already has `dtype` comes back
// unchanged, and no node is built.
inline Output cast(const Output& x, DType dtype, std::string_view name = {}) {
  if (x.dtype() == dtype) return x;
  detail::OpBuilder b(graph_of({x}), name, "Cast");
  return b.build(detail::kCastOp, {x}, {{"SrcT", x.dtype()}, {"DstT", dtype}, {"Truncate", false}})
      .output(0);
}
template <Element D>
Tensor<D> cast(const Output& x, std::string_view name = {}) {
  return Tensor<D>(cast(x, dtype_v<D>, name));
}

namespace detail {

// The element type tf.math.divide_no_nan divides in: integers as floats (uint8 as
// float32, int32 and int64 as float64, TensorFlow's true-division table), floats as
// they are; bool and string have none.
inline DType div_no_nan_dtype(DType d) {
  switch (d) {
    case DType::float32:
    case DType::float64:
      return d;
    case DType::uint8:
      return DType::float32;
    case DType::int32:
    case DType::int64:
      return DType::float64;
    default:
      throw TypeError("Invalid dtype tf." + std::string(dtype_name(d)) +
                      " in tf.math.divide_no_nan. Expected one of {tf.uint8, tf.int8, tf.uint16, "
                      "tf.int16, tf.uint32, tf.int32, tf.uint64, tf.int64, tf.bfloat16, "
                      "tf.float16, tf.float32, tf.float64, tf.complex64, tf.complex128}.");
  }
}

// DivNoNan inside `b`'s scope, integers cast first ("Cast", "Cast_1").
inline Output div_no_nan_in(OpBuilder& b, Output x, Output y) {
  if (x.dtype() != y.dtype())
    throw TypeError("`x` and `y` must have the same dtype, got tf." +
                    std::string(dtype_name(x.dtype())) + " != tf." +
                    std::string(dtype_name(y.dtype())) + ".");
  const DType d = div_no_nan_dtype(x.dtype());
  if (d != x.dtype()) {
    x = cast(x, d);
    y = cast(y, d);
  }
  return b.build(kDivNoNanOp, {x, y}, {{"T", d}}).output(0);
}

}  // namespace detail

// tf.math.divide_no_nan (tf.div_no_nan): x / y, and 0 wherever y == 0, as one DivNoNan
// node named "div_no_nan". Integer operands are cast to floats first (Casts under the
// node's scope); a number on either side becomes the Const "div_no_nan/x" or "/y" of the
// other side's dtype.
inline Output div_no_nan(const Output& x, const Output& y, std::string_view name = {}) {
  detail::OpBuilder b(graph_of({x, y}), name, "div_no_nan");
  return detail::div_no_nan_in(b, x, y);
}
template <Element T>
requires std::floating_point<T> Tensor<T> div_no_nan(const Tensor<T>& x, const Tensor<T>& y,
                                                     std::string_view name = {}) {
  return Tensor<T>(div_no_nan(Output(x), Output(y), name));
}
template <detail::ScalarOperand S>
Output div_no_nan(const Output& x, S y, std::string_view name = {}) {
  detail::OpBuilder b(graph_of({x}), name, "div_no_nan");
  Output yc = b.constant_arg(detail::scalar_as(x.dtype(), y, "y", "DivNoNan"), "y");
  return detail::div_no_nan_in(b, x, yc);
}
template <detail::ScalarOperand S>
Output div_no_nan(S x, const Output& y, std::string_view name = {}) {
  detail::OpBuilder b(graph_of({y}), name, "div_no_nan");
  Output xc = b.constant_arg(detail::scalar_as(y.dtype(), x, "x", "DivNoNan"), "x");
  return detail::div_no_nan_in(b, xc, y);
}
template <Element T, detail::ScalarOperand S>
requires std::floating_point<T> Tensor<T> div_no_nan(const Tensor<T>& x, S y,
                                                     std::string_view name = {}) {
  return Tensor<T>(div_no_nan(Output(x), y, name));
}
template <Element T, detail::ScalarOperand S>
requires std::floating_point<T> Tensor<T> div_no_nan(S x, const Tensor<T>& y,
                                                     std::string_view name = {}) {
  return Tensor<T>(div_no_nan(x, Output(y), name));
}

}  // namespace symflow

#if !defined(SYMFLOW_COMPILED)
#include "symflow/ops/math_ops_inl.hpp"
#endif
