#pragma once
// Elementwise arithmetic with broadcasting, MatMul, reductions and Cast: the
// graph-building functions (tf.add, tf.floordiv, tf.matmul, tf.reduce_sum, ...). The ops'
// descriptions are in ops/defs/math.hpp, their CPU kernels in
// backend/cpu/kernels/math.hpp.

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "symflow/detail/config.hpp"
#include "symflow/ops/defs/math.hpp"
#include "symflow/ops/op_builder.hpp"

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

#define SYMFLOW_BINARY_FUNCTION(fn, op_def, default_name)                            \
  inline Output fn(const Output& x, const Output& y, std::string_view name = {}) {   \
    return detail::binary(op_def, x, y, name, default_name);                         \
  }                                                                                  \
  template <Element T>                                                               \
  Tensor<T> fn(const Tensor<T>& x, const Tensor<T>& y, std::string_view name = {}) { \
    return Tensor<T>(detail::binary(op_def, x, y, name, default_name));              \
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
#undef SYMFLOW_UNARY_FUNCTION

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

}  // namespace symflow

#if !defined(SYMFLOW_COMPILED)
#include "symflow/ops/math_ops_inl.hpp"
#endif
