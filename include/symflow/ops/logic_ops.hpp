#pragma once
// Comparisons (Equal, Less, ...), logical ops (LogicalAnd, LogicalOr, LogicalNot and
// the composed logical_xor), selection (Select, Where), ArgMax/ArgMin, and
// clip_by_value, which TensorFlow 1.x composes from Minimum and Maximum.

#include <cmath>
#include <concepts>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>

#include "symflow/backend/cpu/elementwise.hpp"
#include "symflow/core/host_device.hpp"
#include "symflow/detail/float_repr.hpp"
#include "symflow/ops/math_ops.hpp"
#include "symflow/ops/op_builder.hpp"

namespace symflow {

namespace detail {

// ---- scalar operands ----------------------------------------------------------------
// A C++ number given where a tensor is expected becomes a Const of the other operand's
// dtype, as convert_to_tensor(y, dtype=x.dtype) does. TensorFlow refuses to turn a
// float into an integer (or a number into a bool), and so do we.
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

SYMFLOW_CPU_KERNEL_TEMPLATE(compare_kernel, class Fn) {
  visit_dtype(ctx.input(0).dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (Fn::template accepts<T>)
      cpu::binary<T, bool>(ctx, Fn{});
    else
      unsupported_dtype(ctx, ctx.input(0).dtype());
  });
}

template <class Fn>
constexpr OpDef compare_op_def() {
  return OpDef{.type = Fn::type,
               .num_inputs = 2,
               .infer = infer_compare<Fn>,
               .cpu_kernel = compare_kernel<Fn>};
}

inline constexpr OpDef kEqualOp = compare_op_def<EqualFn>();
inline constexpr OpDef kNotEqualOp = compare_op_def<NotEqualFn>();
inline constexpr OpDef kLessOp = compare_op_def<LessFn>();
inline constexpr OpDef kLessEqualOp = compare_op_def<LessEqualFn>();
inline constexpr OpDef kGreaterOp = compare_op_def<GreaterFn>();
inline constexpr OpDef kGreaterEqualOp = compare_op_def<GreaterEqualFn>();

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

SYMFLOW_CPU_KERNEL_TEMPLATE(logical_binary_kernel, class Fn) { cpu::binary<bool, bool>(ctx, Fn{}); }

inline constexpr OpDef kLogicalAndOp{.type = "LogicalAnd",
                                     .num_inputs = 2,
                                     .infer = infer_logical_binary<LogicalAndFn>,
                                     .cpu_kernel = logical_binary_kernel<LogicalAndFn>};
inline constexpr OpDef kLogicalOrOp{.type = "LogicalOr",
                                    .num_inputs = 2,
                                    .infer = infer_logical_binary<LogicalOrFn>,
                                    .cpu_kernel = logical_binary_kernel<LogicalOrFn>};

inline std::vector<TensorSpec> infer_logical_not(const InferContext& c) {
  check_bool_input(c, 0, "x", "LogicalNot");
  return {c.inputs[0]};
}
SYMFLOW_CPU_KERNEL(logical_not_kernel) {
  cpu::unary<bool, bool>(ctx, [](bool a) { return !a; });
}
inline constexpr OpDef kLogicalNotOp{.type = "LogicalNot",
                                     .num_inputs = 1,
                                     .infer = infer_logical_not,
                                     .cpu_kernel = logical_not_kernel};

// ---- Select ---------------------------------------------------------------------------
// TensorFlow's InferenceContext::Merge, with its messages.
inline Shape select_merge_shapes(const Shape& a, const Shape& b) {
  if (!a.has_rank()) return b;
  if (!b.has_rank()) return a;
  if (a.rank() != b.rank())
    throw ValueError("Shapes must be equal rank, but are " + std::to_string(a.rank()) + " and " +
                     std::to_string(b.rank()));
  Dims out = a.dims();
  for (std::size_t i = 0; i < out.size(); ++i) {
    std::int64_t da = a.dims()[i], db = b.dims()[i];
    if (da >= 0 && db >= 0 && da != db)
      throw ValueError("Dimension " + std::to_string(i) +
                       " in both shapes must be equal, but are " + std::to_string(da) + " and " +
                       std::to_string(db) + ". Shapes are " + dims_to_string(a.dims()) + " and " +
                       dims_to_string(b.dims()) + ".");
    if (out[i] < 0) out[i] = db;
  }
  return Shape(out);
}

// TF1's Select: t and e of one shape; the condition a scalar, of that shape, or a
// vector over the first dimension.
inline std::vector<TensorSpec> infer_select(const InferContext& c) {
  check_bool_input(c, 0, "condition", "Select");
  if (c.dtype(2) != c.dtype(1))
    throw TypeError("Input 'e' of 'Select' Op has type " + std::string(dtype_name(c.dtype(2))) +
                    " that does not match type " + std::string(dtype_name(c.dtype(1))) +
                    " of argument 't'.");
  Shape data = select_merge_shapes(c.shape(1), c.shape(2));
  const Shape& cond = c.shape(0);
  if (cond.has_rank() && data.has_rank() && cond.rank() != 0) {
    if (cond.rank() != 1 || data.rank() == 0)
      data = select_merge_shapes(data, cond);
    else
      select_merge_shapes(cond, Shape{data.dims()[0]});
  }
  return {{c.dtype(1), data}};
}

// Select's shapes, checked as TensorFlow's kernel checks them (the CPU and GPU kernels share
// it). Returns the elements each condition entry chooses: all of them for a scalar cond, a
// row of 'then' for a vector cond with higher-rank branches, else 1.
inline std::int64_t select_inner(const KernelContext& ctx, const Value& cond, const Value& t,
                                 const Value& e) {
  if (cond.rank() == 0) {
    if (t.dims() != e.dims())
      ctx.fail("'then' and 'else' must have the same size.  but received: " +
               dims_to_string(t.dims()) + " vs. " + dims_to_string(e.dims()));
    return t.size();
  }
  const bool broadcasting = cond.rank() == 1 && t.rank() != 1;
  std::int64_t inner = 1;  // elements each condition entry chooses
  if (broadcasting) {
    if (t.rank() == 0)
      ctx.fail("'then' must be at least a vector, but saw shape: " + dims_to_string(t.dims()));
    if (t.dims()[0] != cond.size())
      ctx.fail("Number of batches of 'then' must match size of 'cond', but saw: " +
               std::to_string(t.dims()[0]) + " vs. " + std::to_string(cond.size()));
    if (t.dims() != e.dims())
      ctx.fail("'then' and 'else' must have the same size.  but received: " +
               dims_to_string(t.dims()) + " vs. " + dims_to_string(e.dims()));
    inner = cond.size() == 0 ? 0 : t.size() / cond.size();
  } else {
    for (std::size_t i = 1; i < 3; ++i)
      if (ctx.input(i).dims() != cond.dims())
        ctx.fail("Inputs to operation " + ctx.node_name() +
                 " of type Select must have the same size and shape.  Input 0: " +
                 dims_to_string(cond.dims()) + " != input " + std::to_string(i) + ": " +
                 dims_to_string(ctx.input(i).dims()));
  }
  return inner;
}

SYMFLOW_CPU_KERNEL(select_kernel) {
  const Value& cond = ctx.input(0);
  const Value& t = ctx.input(1);
  const Value& e = ctx.input(2);
  const bool* cv = cond.data<bool>();
  const std::int64_t inner = select_inner(ctx, cond, t, e);
  if (cond.rank() == 0) {
    ctx.set_output(0, cv[0] ? t : e);
    return;
  }
  Value& out = ctx.allocate_output(0, t.dtype(), t.dims());
  visit_dtype(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* tv = t.data<T>();
    const T* ev = e.data<T>();
    T* o = out.data<T>();
    const std::int64_t n = out.size();
    for (std::int64_t i = 0; i < n; ++i) o[i] = cv[inner == 1 ? i : i / inner] ? tv[i] : ev[i];
  });
}

inline constexpr OpDef kSelectOp{
    .type = "Select", .num_inputs = 3, .infer = infer_select, .cpu_kernel = select_kernel};

// ---- Where ----------------------------------------------------------------------------
// The coordinates of the true (non-zero) elements, one row each, in row-major order.
inline std::vector<TensorSpec> infer_where(const InferContext& c) {
  if (!c.shape(0).has_rank()) return {{DType::int64, Shape{unknown_dim, unknown_dim}}};
  return {{DType::int64, Shape{unknown_dim, c.shape(0).rank()}}};
}

SYMFLOW_CPU_KERNEL(where_kernel) {
  const Value& in = ctx.input(0);
  const Dims& d = in.dims();
  if (d.empty()) ctx.fail("WhereOp : Unhandled input dimensions: 0");
  std::vector<std::int64_t> hits;
  visit_dtype(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* x = in.data<T>();
    for (std::int64_t i = 0; i < in.size(); ++i)
      if (x[i] != T{0}) hits.push_back(i);
  });
  const auto rank = static_cast<std::int64_t>(d.size());
  Value& out = ctx.allocate_output(0, DType::int64, {static_cast<std::int64_t>(hits.size()), rank});
  std::int64_t* o = out.data<std::int64_t>();
  for (std::size_t h = 0; h < hits.size(); ++h) {
    std::int64_t flat = hits[h];
    for (std::int64_t a = rank; a-- > 0;) {
      o[static_cast<std::int64_t>(h) * rank + a] = flat % d[static_cast<std::size_t>(a)];
      flat /= d[static_cast<std::size_t>(a)];
    }
  }
}

inline constexpr OpDef kWhereOp{
    .type = "Where", .num_inputs = 1, .infer = infer_where, .cpu_kernel = where_kernel};

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
  if (c.shape(1).has_rank() && c.shape(1).rank() != 0)
    throw ValueError("Shape must be rank 0 but is rank " + std::to_string(c.shape(1).rank()));
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

// ArgMax/ArgMin's dimension (a host value) checked against the input's dims `d` (the CPU
// and GPU kernels share it): the input split at the axis, and the output's dims.
struct ArgReducePlan {
  AxisSplit split;
  Dims out_dims;
};
inline ArgReducePlan arg_reduce_plan(const KernelContext& ctx, const Dims& d, const Value& dim) {
  ArgReducePlan p{split_at_axis_input(
                      ctx, d, dim,
                      "dim must be a scalar, but received tensor of shape: ", "Expected dimension"),
                  d};
  p.out_dims.erase(p.out_dims.begin() + p.split.axis);
  if (p.split.len == 0 && num_elements(p.out_dims) > 0)
    ctx.fail("Reduction axis " + std::to_string(p.split.axis) + " is empty in shape " +
             dims_to_string(d));
  return p;
}

// First index of the largest (smallest) element; NaN never wins, as in Eigen's reducer.
SYMFLOW_CPU_KERNEL_TEMPLATE(arg_reduce_kernel, bool Max) {
  const Value& in = ctx.input(0);
  const ArgReducePlan p = arg_reduce_plan(ctx, in.dims(), ctx.input(1));
  const std::int64_t outer = p.split.outer, len = p.split.len, inner = p.split.inner;
  const Dims& out_dims = p.out_dims;
  DType out_type = ctx.attr<DType>("output_type");
  Value out(out_type, out_dims);
  visit_dtype(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using limits = std::numeric_limits<T>;
    const T* x = in.data<T>();
    for (std::int64_t o = 0; o < outer; ++o)
      for (std::int64_t i = 0; i < inner; ++i) {
        std::int64_t best_at = 0;
        T best = Max ? limits::lowest() : limits::max();
        for (std::int64_t k = 0; k < len; ++k) {
          T v = x[(o * len + k) * inner + i];
          if (Max ? v > best : v < best) {
            best = v;
            best_at = k;
          }
        }
        const std::int64_t j = o * inner + i;
        if (out_type == DType::int64)
          out.data<std::int64_t>()[j] = best_at;
        else
          out.data<std::int32_t>()[j] = static_cast<std::int32_t>(best_at);
      }
  });
  ctx.set_output(0, std::move(out));
}

inline constexpr OpDef kArgMaxOp{.type = "ArgMax",
                                 .num_inputs = 2,
                                 .infer = infer_arg_reduce,
                                 .cpu_kernel = arg_reduce_kernel<true>};
inline constexpr OpDef kArgMinOp{.type = "ArgMin",
                                 .num_inputs = 2,
                                 .infer = infer_arg_reduce,
                                 .cpu_kernel = arg_reduce_kernel<false>};

inline Output arg_reduce(const OpDef& def, const Output& input, std::int64_t axis,
                         DType output_type, std::string_view name, std::string_view default_name) {
  OpBuilder b(graph_of({input}), name, default_name);
  Output dim = b.constant_arg(Value(static_cast<std::int32_t>(axis)), "dimension");
  return b
      .build(def, {input, dim},
             {{"T", input.dtype()}, {"Tidx", DType::int32}, {"output_type", output_type}})
      .output(0);
}

}  // namespace detail

// ---- user functions ---------------------------------------------------------------------
// tf.equal(x, y) and friends: elementwise, with broadcasting, to a bool tensor. `y` may
// be a C++ number, converted to x's dtype as a Const "<op>/y".
#define SYMFLOW_COMPARE_FUNCTION(fn, op_def, default_name)                                         \
  inline Tensor<bool> fn(const Output& x, const Output& y, std::string_view name = {}) {           \
    return Tensor<bool>(detail::binary(op_def, x, y, name, default_name));                         \
  }                                                                                                \
  template <detail::ScalarOperand S>                                                               \
  Tensor<bool> fn(const Output& x, S y, std::string_view name = {}) {                              \
    return Tensor<bool>(detail::build_with_scalar(op_def, x, y, false, true, name, default_name)); \
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
