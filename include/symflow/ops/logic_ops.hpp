#pragma once
// Comparisons (Equal, Less, ...), logical ops (LogicalAnd, LogicalOr, LogicalNot and
// the composed logical_xor), selection (Select, SelectV2, Where), ArgMax/ArgMin, and
// clip_by_value, which TensorFlow 1.x composes from Minimum and Maximum. This header
// holds the graph-building functions (C++ scalar operands: ops/scalar_operand.hpp); the
// ops' descriptions are in ops/defs/logic.hpp, their CPU kernels in
// backend/cpu/kernels/logic.hpp.

#include <concepts>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "symflow/ops/defs/logic.hpp"
#include "symflow/ops/defs/shape_fn.hpp"
#include "symflow/ops/math_ops.hpp"
#include "symflow/ops/op_builder.hpp"
#include "symflow/ops/scalar_operand.hpp"

namespace symflow {

namespace detail {

// ---- ArgMax, ArgMin ---------------------------------------------------------------------
inline Output arg_reduce(const OpDef& def, const Output& input, std::int64_t axis,
                         DType output_type, std::string_view name, std::string_view default_name) {
  OpBuilder b(graph_of({input}), name, default_name);
  Output dim = b.constant_arg(Value(checked_int32(axis, "an axis")), "dimension");
  return b
      .build(def, {input, dim},
             {{"T", input.dtype()}, {"Tidx", DType::int32}, {"output_type", output_type}})
      .output(0);
}

}  // namespace detail

// ---- user functions ---------------------------------------------------------------------
// tf.equal(x, y) and friends: elementwise, with broadcasting, to a bool tensor. Either
// operand may be a C++ number, converted to the other's dtype as a Const "<op>/y" ("<op>/x").
#define SYMFLOW_COMPARE_FUNCTION(fn, op_def, default_name)                                         \
  inline Tensor<bool> fn(const Output& x, const Output& y, std::string_view name = {}) {           \
    return Tensor<bool>(detail::binary(op_def, x, y, name, default_name));                         \
  }                                                                                                \
  template <detail::ScalarOperand S>                                                               \
  Tensor<bool> fn(const Output& x, S y, std::string_view name = {}) {                              \
    return Tensor<bool>(detail::build_with_scalar(op_def, x, y, false, true, name, default_name)); \
  }                                                                                                \
  template <detail::ScalarOperand S>                                                               \
  Tensor<bool> fn(S x, const Output& y, std::string_view name = {}) {                              \
    return Tensor<bool>(detail::build_with_scalar(op_def, y, x, true, true, name, default_name));  \
  }

SYMFLOW_COMPARE_FUNCTION(equal, detail::kEqualOp, "Equal")
SYMFLOW_COMPARE_FUNCTION(not_equal, detail::kNotEqualOp, "NotEqual")
SYMFLOW_COMPARE_FUNCTION(less, detail::kLessOp, "Less")
SYMFLOW_COMPARE_FUNCTION(less_equal, detail::kLessEqualOp, "LessEqual")
SYMFLOW_COMPARE_FUNCTION(greater, detail::kGreaterOp, "Greater")
SYMFLOW_COMPARE_FUNCTION(greater_equal, detail::kGreaterEqualOp, "GreaterEqual")
#undef SYMFLOW_COMPARE_FUNCTION

// tf.logical_and / tf.logical_or on bool tensors (or a bool scalar as `y`).
inline Tensor<bool> logical_and(const Output& x, const Output& y, std::string_view name = {}) {
  detail::OpBuilder b(graph_of({x, y}), name, "LogicalAnd");
  return Tensor<bool>(b.build(detail::kLogicalAndOp, {x, y}, {}).output(0));
}
template <detail::ScalarOperand S>
Tensor<bool> logical_and(const Output& x, S y, std::string_view name = {}) {
  return Tensor<bool>(
      detail::build_with_scalar(detail::kLogicalAndOp, x, y, false, false, name, "LogicalAnd"));
}
inline Tensor<bool> logical_or(const Output& x, const Output& y, std::string_view name = {}) {
  detail::OpBuilder b(graph_of({x, y}), name, "LogicalOr");
  return Tensor<bool>(b.build(detail::kLogicalOrOp, {x, y}, {}).output(0));
}
template <detail::ScalarOperand S>
Tensor<bool> logical_or(const Output& x, S y, std::string_view name = {}) {
  return Tensor<bool>(
      detail::build_with_scalar(detail::kLogicalOrOp, x, y, false, false, name, "LogicalOr"));
}
inline Tensor<bool> logical_not(const Output& x, std::string_view name = {}) {
  detail::OpBuilder b(graph_of({x}), name, "LogicalNot");
  return Tensor<bool>(b.build(detail::kLogicalNotOp, {x}, {}).output(0));
}

// tf.logical_xor: (x | y) & ~(x & y), as TensorFlow 1.x composes it. The inner ops get
// their default names in the current scope; the last one is named `name`.
inline Tensor<bool> logical_xor(const Output& x, const Output& y,
                                std::string_view name = "LogicalXor") {
  Output either = logical_or(x, y);
  Output not_both = logical_not(logical_and(x, y));
  return logical_and(either, not_both, name.empty() ? "LogicalXor" : name);
}

// TF1's tf.where(condition, x, y): Select. `condition` has x's shape, is a scalar, or
// is a vector over x's first dimension; x and y share one shape.
inline Output where(const Output& condition, const Output& x, const Output& y,
                    std::string_view name = {}) {
  detail::OpBuilder b(graph_of({condition, x, y}), name, "Select");
  return b.build(detail::kSelectOp, {condition, x, y}, {{"T", x.dtype()}}).output(0);
}
template <Element T>
Tensor<T> where(const Output& condition, const Tensor<T>& x, const Tensor<T>& y,
                std::string_view name = {}) {
  return Tensor<T>(where(condition, Output(x), Output(y), name));
}
// tf.select, the name TF 1.0 gave tf.where(condition, x, y).
inline Output select(const Output& condition, const Output& x, const Output& y,
                     std::string_view name = {}) {
  return where(condition, x, y, name);
}
template <Element T>
Tensor<T> select(const Output& condition, const Tensor<T>& x, const Tensor<T>& y,
                 std::string_view name = {}) {
  return Tensor<T>(where(condition, Output(x), Output(y), name));
}

// tf.where(condition): the coordinates of its true elements, int64 [N, rank].
inline Tensor<std::int64_t> where(const Output& condition, std::string_view name = {}) {
  detail::OpBuilder b(graph_of({condition}), name, "Where");
  return Tensor<std::int64_t>(
      b.build(detail::kWhereOp, {condition}, {{"T", condition.dtype()}}).output(0));
}

// tf.where_v2(condition, x, y), TF2's tf.where: SelectV2, which broadcasts condition, x
// and y together (NumPy's where). TF1's where() above keeps building Select.
inline Output where_v2(const Output& condition, const Output& x, const Output& y,
                       std::string_view name = {}) {
  detail::OpBuilder b(graph_of({condition, x, y}), name, "SelectV2");
  return b.build(detail::kSelectV2Op, {condition, x, y}, {{"T", x.dtype()}}).output(0);
}
template <Element T>
Tensor<T> where_v2(const Output& condition, const Tensor<T>& x, const Tensor<T>& y,
                   std::string_view name = {}) {
  return Tensor<T>(where_v2(condition, Output(x), Output(y), name));
}
// A C++ number as y: a Const "SelectV2/e" of x's dtype (tf.where_v2(c, x, 0.0)).
template <detail::ScalarOperand S>
Output where_v2(const Output& condition, const Output& x, S y, std::string_view name = {}) {
  detail::OpBuilder b(graph_of({condition, x}), name, "SelectV2");
  Output e = b.constant_arg(detail::scalar_as(x.dtype(), y, "e", "SelectV2"), "e");
  return b.build(detail::kSelectV2Op, {condition, x, e}, {{"T", x.dtype()}}).output(0);
}
// tf.where_v2(condition) is tf.where(condition): Where.
inline Tensor<std::int64_t> where_v2(const Output& condition, std::string_view name = {}) {
  return where(condition, name);
}

// tf.argmax / tf.argmin along `axis` (0 by default, as TF1's axis=None), to int64 (or
// `output_type` int32) indices.
inline Output argmax(const Output& input, std::int64_t axis = 0, DType output_type = DType::int64,
                     std::string_view name = {}) {
  return detail::arg_reduce(detail::kArgMaxOp, input, axis, output_type, name, "ArgMax");
}
inline Output argmin(const Output& input, std::int64_t axis = 0, DType output_type = DType::int64,
                     std::string_view name = {}) {
  return detail::arg_reduce(detail::kArgMinOp, input, axis, output_type, name, "ArgMin");
}

// tf.clip_by_value(t, min, max): Maximum(Minimum(t, max), min) in the scope
// "clip_by_value". The bounds may not broadcast t to a larger shape (ValueError).
namespace detail {
template <class Lo, class Hi>
Output clip_by_value(const Output& t, const Lo& lo, const Hi& hi, std::string_view name) {
  Graph g = graph_of({t});
  name_scope scope(g, name.empty() ? "clip_by_value" : name);
  Output t_min;
  {
    OpBuilder b(g, {}, "Minimum");
    Output y;
    if constexpr (std::is_arithmetic_v<Hi>)
      y = b.constant_arg(scalar_as(t.dtype(), hi, "y", "Minimum"), "y");
    else
      y = hi;
    t_min = b.build(kMinimumOp, {t, y}, {{"T", t.dtype()}}).output(0);
  }
  (void)t.get_shape().merge_with(t_min.get_shape());
  OpBuilder b(g, scope.name(), "Maximum");
  Output y;
  if constexpr (std::is_arithmetic_v<Lo>)
    y = b.constant_arg(scalar_as(t.dtype(), lo, "y", "Maximum"), "y");
  else
    y = lo;
  Output t_max = b.build(kMaximumOp, {t_min, y}, {{"T", t.dtype()}}).output(0);
  (void)t.get_shape().merge_with(t_max.get_shape());
  return t_max;
}
}  // namespace detail

template <class Lo, class Hi>
requires((std::is_arithmetic_v<Lo> ||
          std::convertible_to<Lo, Output>)&&(std::is_arithmetic_v<Hi> ||
                                             std::convertible_to<Hi, Output>)) Output
    clip_by_value(const Output& t, const Lo& clip_value_min, const Hi& clip_value_max,
                  std::string_view name = {}) {
  auto as_arg = [](const auto& v) {
    if constexpr (std::is_arithmetic_v<std::decay_t<decltype(v)>>)
      return v;
    else
      return static_cast<Output>(v);
  };
  return detail::clip_by_value(t, as_arg(clip_value_min), as_arg(clip_value_max), name);
}
template <Element T, class Lo, class Hi>
requires((std::is_arithmetic_v<Lo> || std::convertible_to<Lo, Output>)&&(
    std::is_arithmetic_v<Hi> ||
    std::convertible_to<Hi, Output>)) Tensor<T> clip_by_value(const Tensor<T>& t,
                                                              const Lo& clip_value_min,
                                                              const Hi& clip_value_max,
                                                              std::string_view name = {}) {
  return Tensor<T>(clip_by_value(Output(t), clip_value_min, clip_value_max, name));
}

}  // namespace symflow
