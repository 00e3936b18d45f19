#pragma once
// The descriptions of the comparisons (Equal, Less, ...), the logical ops (LogicalAnd,
// LogicalOr, LogicalNot), Select, SelectV2, Where and ArgMax/ArgMin: their functors, shape
// functions and OpDefs. The kernels are in backend/cpu/kernels/logic.hpp, the
// graph-building functions (tf.equal, tf.where, tf.clip_by_value, ...) in
// ops/logic_ops.hpp.

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "symflow/core/dtype.hpp"
#include "symflow/core/errors.hpp"
#include "symflow/core/host_device.hpp"
#include "symflow/core/shape.hpp"
#include "symflow/core/value.hpp"
#include "symflow/ops/defs/math.hpp"
#include "symflow/ops/defs/op_def.hpp"
#include "symflow/ops/defs/shape_fn.hpp"

namespace symflow::detail {

// ---- comparisons --------------------------------------------------------------------
// Equal and NotEqual take every dtype (bool included); the orderings take numbers.
struct EqualFn {
  static constexpr std::string_view type = "Equal";
  template <class T>
  static constexpr bool accepts = true;
  template <class T>
  SYMFLOW_HD bool operator()(T a, T b) const {
    return a == b;
  }
};
struct NotEqualFn {
  static constexpr std::string_view type = "NotEqual";
  template <class T>
  static constexpr bool accepts = true;
  template <class T>
  SYMFLOW_HD bool operator()(T a, T b) const {
    return a != b;
  }
};
struct LessFn {
  static constexpr std::string_view type = "Less";
  template <class T>
  static constexpr bool accepts = is_number_v<T>;
  template <class T>
  SYMFLOW_HD bool operator()(T a, T b) const {
    return a < b;
  }
};
struct LessEqualFn {
  static constexpr std::string_view type = "LessEqual";
  template <class T>
  static constexpr bool accepts = is_number_v<T>;
  template <class T>
  SYMFLOW_HD bool operator()(T a, T b) const {
    return a <= b;
  }
};
struct GreaterFn {
  static constexpr std::string_view type = "Greater";
  template <class T>
  static constexpr bool accepts = is_number_v<T>;
  template <class T>
  SYMFLOW_HD bool operator()(T a, T b) const {
    return a > b;
  }
};
struct GreaterEqualFn {
  static constexpr std::string_view type = "GreaterEqual";
  template <class T>
  static constexpr bool accepts = is_number_v<T>;
  template <class T>
  SYMFLOW_HD bool operator()(T a, T b) const {
    return a >= b;
  }
};

template <class Fn>
std::vector<TensorSpec> infer_compare(const InferContext& c) {
  auto spec = infer_binary<Fn>(c);
  spec[0].dtype = DType::bool_;
  return spec;
}

template <class Fn>
constexpr OpDef compare_op_def() {
  return OpDef{.type = Fn::type, .num_inputs = 2, .infer = infer_compare<Fn>};
}

SYMFLOW_OP_DEF(kEqualOp, compare_op_def<EqualFn>());
SYMFLOW_OP_DEF(kNotEqualOp, compare_op_def<NotEqualFn>());
SYMFLOW_OP_DEF(kLessOp, compare_op_def<LessFn>());
SYMFLOW_OP_DEF(kLessEqualOp, compare_op_def<LessEqualFn>());
SYMFLOW_OP_DEF(kGreaterOp, compare_op_def<GreaterFn>());
SYMFLOW_OP_DEF(kGreaterEqualOp, compare_op_def<GreaterEqualFn>());

// ---- logical ops ----------------------------------------------------------------------
// Their inputs are bool, with no "T" attr: a wrong dtype is worded as a fixed type.
inline void check_bool_input(const InferContext& c, std::size_t i, std::string_view param,
                             std::string_view op) {
  if (c.dtype(i) != DType::bool_)
    throw TypeError("Input '" + std::string(param) + "' of '" + std::string(op) + "' Op has type " +
                    std::string(dtype_name(c.dtype(i))) +
                    " that does not match expected type of bool.");
}

template <class Fn>
std::vector<TensorSpec> infer_logical_binary(const InferContext& c) {
  check_bool_input(c, 0, "x", Fn::type);
  check_bool_input(c, 1, "y", Fn::type);
  auto shape = broadcast_shapes(c.shape(0), c.shape(1));
  if (!shape) throw ValueError(broadcast_error(c.shape(0), c.shape(1)));
  return {{DType::bool_, *shape}};
}

struct LogicalAndFn {
  static constexpr std::string_view type = "LogicalAnd";
  SYMFLOW_HD bool operator()(bool a, bool b) const { return a && b; }
};
struct LogicalOrFn {
  static constexpr std::string_view type = "LogicalOr";
  SYMFLOW_HD bool operator()(bool a, bool b) const { return a || b; }
};

SYMFLOW_OP_DEF(kLogicalAndOp, OpDef{.type = "LogicalAnd",
                                    .num_inputs = 2,
                                    .infer = infer_logical_binary<LogicalAndFn>});
SYMFLOW_OP_DEF(kLogicalOrOp, OpDef{.type = "LogicalOr",
                                   .num_inputs = 2,
                                   .infer = infer_logical_binary<LogicalOrFn>});

inline std::vector<TensorSpec> infer_logical_not(const InferContext& c) {
  check_bool_input(c, 0, "x", "LogicalNot");
  return {c.inputs[0]};
}
SYMFLOW_OP_DEF(kLogicalNotOp,
               OpDef{.type = "LogicalNot", .num_inputs = 1, .infer = infer_logical_not});

// ---- Select, SelectV2 -----------------------------------------------------------------
// Both take a bool condition and two branches t and e of one dtype.
inline void check_select_inputs(const InferContext& c, std::string_view op) {
  check_bool_input(c, 0, "condition", op);
  if (c.dtype(2) != c.dtype(1))
    throw TypeError("Input 'e' of '" + std::string(op) + "' Op has type " +
                    std::string(dtype_name(c.dtype(2))) + " that does not match type " +
                    std::string(dtype_name(c.dtype(1))) + " of argument 't'.");
}

// TF1's Select: t and e of one shape; the condition a scalar, of that shape, or a
// vector over the first dimension.
inline std::vector<TensorSpec> infer_select(const InferContext& c) {
  check_select_inputs(c, "Select");
  Shape data = merge_shapes(c.shape(1), c.shape(2));
  const Shape& cond = c.shape(0);
  if (cond.has_rank() && data.has_rank() && cond.rank() != 0) {
    if (cond.rank() != 1 || data.rank() == 0)
      data = merge_shapes(data, cond);
    else
      merge_shapes(cond, Shape{data.dims()[0]});
  }
  return {{c.dtype(1), data}};
}

SYMFLOW_OP_DEF(kSelectOp, OpDef{.type = "Select",
                                .num_inputs = 3,
                                .infer = infer_select,
                                .accepts_strings = true});

// SelectV2 (tf.where_v2, TF2's tf.where): condition, t and e broadcast together, as
// NumPy's where. TensorFlow broadcasts t with e first, then the condition with both,
// and reports a mismatch in that order.
inline std::vector<TensorSpec> infer_select_v2(const InferContext& c) {
  check_select_inputs(c, "SelectV2");
  auto data = broadcast_shapes(c.shape(1), c.shape(2));
  if (!data) throw ValueError(broadcast_error(c.shape(1), c.shape(2)));
  auto out = broadcast_shapes(c.shape(0), *data);
  if (!out) throw ValueError(broadcast_error(c.shape(0), *data));
  return {{c.dtype(1), *out}};
}

SYMFLOW_OP_DEF(kSelectV2Op, OpDef{.type = "SelectV2", .num_inputs = 3, .infer = infer_select_v2});

// ---- Where ----------------------------------------------------------------------------
// The coordinates of the true (non-zero) elements, one row each, in row-major order.
inline std::vector<TensorSpec> infer_where(const InferContext& c) {
  if (!c.shape(0).has_rank()) return {{DType::int64, Shape{unknown_dim, unknown_dim}}};
  return {{DType::int64, Shape{unknown_dim, c.shape(0).rank()}}};
}

SYMFLOW_OP_DEF(kWhereOp, OpDef{.type = "Where", .num_inputs = 1, .infer = infer_where});

// ---- ArgMax, ArgMin ---------------------------------------------------------------------
struct ArgTypes {  // numbers and bool
  template <class T>
  static constexpr bool accepts = true;
};
struct ArgIndexTypes {
  template <class T>
  static constexpr bool accepts =
      std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t>;
};

inline std::vector<TensorSpec> infer_arg_reduce(const InferContext& c) {
  check_allowed(c, 0, "input", fn_accepts<ArgTypes>);
  check_allowed(c, 1, "dimension", fn_accepts<ArgIndexTypes>);
  DType out = c.attr<DType>("output_type");
  if (!fn_accepts<ArgIndexTypes>(out))
    throw TypeError("Value passed to parameter 'output_type' has DataType " +
                    std::string(dtype_name(out)) +
                    " not in list of allowed values: " + allowed_list(fn_accepts<ArgIndexTypes>));
  require_rank(c.shape(1), 0);
  const Shape& in = c.shape(0);
  if (!in.has_rank()) return {{out, Shape::unknown()}};
  const std::int64_t rank = in.rank();
  if (rank == 0) return {{out, Shape{}}};
  const Value* dim = c.constant(1);
  if (!dim) return {{out, Shape::unknown_dims(static_cast<int>(rank - 1))}};
  std::int64_t axis = shape_argument(*dim).at(0);
  if (axis < -rank || axis >= rank)
    throw ValueError("Dimension (" + std::to_string(axis) + ") must be in the range [" +
                     std::to_string(-rank) + ", " + std::to_string(rank) + "), where " +
                     std::to_string(rank) + " is the number of dimensions in the input.");
  Dims dims = in.dims();
  dims.erase(dims.begin() + (axis < 0 ? axis + rank : axis));
  return {{out, Shape(dims)}};
}

SYMFLOW_OP_DEF(kArgMaxOp, OpDef{.type = "ArgMax", .num_inputs = 2, .infer = infer_arg_reduce});
SYMFLOW_OP_DEF(kArgMinOp, OpDef{.type = "ArgMin", .num_inputs = 2, .infer = infer_arg_reduce});

}  // namespace symflow::detail
