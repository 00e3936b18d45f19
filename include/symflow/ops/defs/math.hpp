#pragma once
// The math ops' descriptions: the elementwise functors (AddFn, ...) and their dtype
// predicates, the integer wrap-around helpers, the shape functions of the elementwise
// ops (IsNan, IsInf and IsFinite among them), MatMul, the reductions and Cast, and their OpDefs. No
// kernel and no graph: the CPU kernels are in backend/cpu/kernels/math.hpp, the graph-building
// functions in ops/math_ops.hpp.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "symflow/core/dtype.hpp"
#include "symflow/core/errors.hpp"
#include "symflow/core/host_device.hpp"
#include "symflow/core/shape.hpp"
#include "symflow/core/value.hpp"
#include "symflow/ops/defs/op_def.hpp"
#include "symflow/ops/defs/shape_fn.hpp"

namespace symflow::detail {

template <class T>
inline constexpr bool is_number_v = !std::is_same_v<T, bool>;
template <class T>
inline constexpr bool is_signed_number_v = is_number_v<T>&& std::is_signed_v<T>;

// Dims seen as [outer, len, inner] around one axis (counted from 0): what the axis-wise
// kernels (ArgMax, ArgMin, Cumsum, Cumprod) loop over, on the CPU and on the GPU.
struct AxisSplit {
  std::int64_t axis = 0, outer = 1, len = 1, inner = 1;
};

// Integer arithmetic wraps around (two's complement), as TensorFlow's kernels do on
// every platform it runs on; in C++ a signed overflow would be undefined behaviour.
template <class T, class F>
SYMFLOW_HD constexpr T wrapping(F f, T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(f(static_cast<U>(a), static_cast<U>(b)));
  } else {
    return f(a, b);
  }
}
template <class T>
SYMFLOW_HD constexpr T add_wrapping(T a, T b) {
  return wrapping([](auto x, auto y) { return x + y; }, a, b);
}
template <class T>
SYMFLOW_HD constexpr T sub_wrapping(T a, T b) {
  return wrapping([](auto x, auto y) { return x - y; }, a, b);
}
template <class T>
SYMFLOW_HD constexpr T mul_wrapping(T a, T b) {
  return wrapping([](auto x, auto y) { return x * y; }, a, b);
}
// The same as function objects for cpu::reduce: a function object inlines where a
// function pointer would be called per element, and `plain_sum` lets the reduce add
// floating rows with SIMD.
struct AddWrappingFn {
  static constexpr bool plain_sum = true;
  template <class T>
  SYMFLOW_HD constexpr T operator()(T a, T b) const {
    return add_wrapping(a, b);
  }
};
struct MulWrappingFn {
  template <class T>
  SYMFLOW_HD constexpr T operator()(T a, T b) const {
    return mul_wrapping(a, b);
  }
};

// ---- elementwise binary ops -------------------------------------------------
// Each functor is the one entry of its op: its type, the element types it accepts
// (the shape function rejects the rest at build time with a TypeError), its
// arithmetic, and optionally `invalid_y`, a right operand the kernel rejects.
struct AddFn {
  static constexpr std::string_view type = "Add";
  template <class T>
  static constexpr bool accepts = is_number_v<T>;
  template <class T>
  SYMFLOW_HD T operator()(T a, T b) const {
    return add_wrapping(a, b);
  }
};
struct SubFn {
  static constexpr std::string_view type = "Sub";
  template <class T>
  static constexpr bool accepts = is_number_v<T>;
  template <class T>
  SYMFLOW_HD T operator()(T a, T b) const {
    return sub_wrapping(a, b);
  }
};
struct MulFn {
  static constexpr std::string_view type = "Mul";
  template <class T>
  static constexpr bool accepts = is_number_v<T>;
  template <class T>
  SYMFLOW_HD T operator()(T a, T b) const {
    return mul_wrapping(a, b);
  }
};
struct RealDivFn {
  static constexpr std::string_view type = "RealDiv";
  template <class T>
  static constexpr bool accepts = std::is_floating_point_v<T>;
  template <class T>
  SYMFLOW_HD T operator()(T a, T b) const {
    return a / b;
  }
};
// Div: real division on floats, C++ truncating division on integers.
struct DivFn {
  static constexpr std::string_view type = "Div";
  template <class T>
  static constexpr bool accepts = is_number_v<T>;
  template <class T>
  static std::optional<std::string_view> invalid_y(T y) {
    if (std::is_integral_v<T> && y == T{0}) return "Integer division by zero";
    return std::nullopt;
  }
  template <class T>
  SYMFLOW_HD T operator()(T a, T b) const {
    if constexpr (std::is_signed_v<T> && std::is_integral_v<T>) {
      if (b == T{-1}) return sub_wrapping(T{0}, a);  // lowest / -1 overflows
    }
    return static_cast<T>(a / b);
  }
};
struct PowFn {
  static constexpr std::string_view type = "Pow";
  template <class T>
  static constexpr bool accepts = is_signed_number_v<T>;
  template <class T>
  static std::optional<std::string_view> invalid_y(T y) {
    if (std::is_integral_v<T> && y < T{0})
      return "Integers to negative integer powers are not allowed";
    return std::nullopt;
  }
  template <class T>
  SYMFLOW_HD T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) {
      return std::pow(a, b);
    } else {  // b >= 0: exponentiation by squaring
      T r = 1;
      for (; b > 0; b = static_cast<T>(b / 2)) {
        if (b % 2) r = mul_wrapping(r, a);
        a = mul_wrapping(a, a);
      }
      return r;
    }
  }
};
// Maximum and Minimum propagate NaN from either side.
struct MaximumFn {
  static constexpr std::string_view type = "Maximum";
  template <class T>
  static constexpr bool accepts = is_number_v<T>;
  template <class T>
  SYMFLOW_HD T operator()(T a, T b) const {
    return a > b || a != a ? a : b;
  }
};
struct MinimumFn {
  static constexpr std::string_view type = "Minimum";
  template <class T>
  static constexpr bool accepts = is_number_v<T>;
  template <class T>
  SYMFLOW_HD T operator()(T a, T b) const {
    return a < b || a != a ? a : b;
  }
};

// AddV2: Add's arithmetic under the type TensorFlow 1.15 and later give every `+` (it
// differs from Add only in TensorFlow's string support, which symflow lacks). A functor
// of its own, so that its fused steps have an ElementwiseDef of their own: the Thrust
// backend knows a step's op by that pointer (backend/thrust/fused.cuh).
struct AddV2Fn : AddFn {
  static constexpr std::string_view type = "AddV2";
};

// FloorDiv, FloorMod and Mod on integers reject a zero divisor, as TensorFlow's kernels
// do (floats follow IEEE: inf or NaN).
struct IntegerDivisorCheck {
  template <class T>
  static std::optional<std::string_view> invalid_y(T y) {
    if (std::is_integral_v<T> && y == T{0}) return "Integer division by zero";
    return std::nullopt;
  }
};

// FloorDiv: the quotient rounded toward -inf (Python's //); floor(x / y) on floats, as
// TensorFlow computes it (so 1.0 // 0.1 is 10, where Python says 9).
struct FloorDivFn : IntegerDivisorCheck {
  static constexpr std::string_view type = "FloorDiv";
  template <class T>
  static constexpr bool accepts = is_number_v<T>;
  template <class T>
  SYMFLOW_HD T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) {
      return std::floor(a / b);
    } else if constexpr (std::is_signed_v<T>) {
      if (b == T{-1}) return sub_wrapping(T{0}, a);  // lowest / -1 overflows: it wraps in TF
      const T q = static_cast<T>(a / b);
      // C++ truncates toward zero: one less where a remainder and the signs differ.
      return q * b != a && (a < T{0}) != (b < T{0}) ? static_cast<T>(q - T{1}) : q;
    } else {
      return static_cast<T>(a / b);
    }
  }
};

// FloorMod: the remainder with the divisor's sign, x - floor(x / y) * y (Python's %),
// computed from the truncated remainder as TensorFlow's kernel does.
struct FloorModFn : IntegerDivisorCheck {
  static constexpr std::string_view type = "FloorMod";
  template <class T>
  static constexpr bool accepts = is_number_v<T>;
  template <class T>
  SYMFLOW_HD T operator()(T a, T b) const {
    if constexpr (std::is_unsigned_v<T>) {
      return static_cast<T>(a % b);
    } else {
      T r;
      if constexpr (std::is_floating_point_v<T>) {
        r = std::fmod(a, b);
      } else {
        if (b == T{-1}) return T{0};  // lowest % -1 overflows in C++
        r = static_cast<T>(a % b);
      }
      return r != T{0} && (b < T{0}) != (r < T{0}) ? static_cast<T>(r + b) : r;
    }
  }
};

// Mod: the truncated remainder, with the dividend's sign (C's fmod and %). tf.mod builds
// FloorMod; Mod comes from older graphs and tf.raw_ops.Mod.
struct ModFn : IntegerDivisorCheck {
  static constexpr std::string_view type = "Mod";
  template <class T>
  static constexpr bool accepts = is_signed_number_v<T>;
  template <class T>
  SYMFLOW_HD T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) {
      return std::fmod(a, b);
    } else {
      if (b == T{-1}) return T{0};  // lowest % -1 overflows in C++
      return static_cast<T>(a % b);
    }
  }
};

// DivNoNan: x / y, and 0 wherever y == 0 (also for 0 / 0, NaN / 0 and -0 divisors).
struct DivNoNanFn {
  static constexpr std::string_view type = "DivNoNan";
  template <class T>
  static constexpr bool accepts = std::is_floating_point_v<T>;
  template <class T>
  SYMFLOW_HD T operator()(T a, T b) const {
    return b == T{0} ? T{0} : a / b;
  }
};

template <class Fn>
constexpr bool fn_accepts(DType d) {
  switch (d) {
    case DType::float32:
      return Fn::template accepts<float>;
    case DType::float64:
      return Fn::template accepts<double>;
    case DType::int32:
      return Fn::template accepts<std::int32_t>;
    case DType::int64:
      return Fn::template accepts<std::int64_t>;
    case DType::uint8:
      return Fn::template accepts<std::uint8_t>;
    case DType::bool_:
      return Fn::template accepts<bool>;
    default:  // no functor takes strings, handles or the storage dtypes
      break;
  }
  return false;
}

// The position of the first dimension pair that does not broadcast, as TensorFlow
// reports it: "Dimensions must be equal, but are 2 and 4".
inline std::string broadcast_error(const Shape& a, const Shape& b) {
  const Dims& x = a.dims();
  const Dims& y = b.dims();
  std::size_t n = std::max(x.size(), y.size());
  for (std::size_t i = 0; i < n; ++i) {
    std::int64_t dx = i < n - x.size() ? 1 : x[i - (n - x.size())];
    std::int64_t dy = i < n - y.size() ? 1 : y[i - (n - y.size())];
    if (dx > 1 && dy > 1 && dx != dy)
      return "Dimensions must be equal, but are " + std::to_string(dx) + " and " +
             std::to_string(dy);
  }
  return "Incompatible shapes: " + a.to_string() + " vs. " + b.to_string();
}

template <class Fn>
std::vector<TensorSpec> infer_binary(const InferContext& c) {
  check_same_dtype(c, Fn::type, {"x", "y"});
  check_allowed(c, 0, "x", fn_accepts<Fn>);
  auto shape = broadcast_shapes(c.shape(0), c.shape(1));
  if (!shape) throw ValueError(broadcast_error(c.shape(0), c.shape(1)));
  return {{c.dtype(0), *shape}};
}

template <class Fn>
constexpr OpDef binary_op_def() {
  return OpDef{.type = Fn::type, .num_inputs = 2, .infer = infer_binary<Fn>};
}

SYMFLOW_OP_DEF(kAddOp, binary_op_def<AddFn>());
SYMFLOW_OP_DEF(kSubOp, binary_op_def<SubFn>());
SYMFLOW_OP_DEF(kMulOp, binary_op_def<MulFn>());
SYMFLOW_OP_DEF(kRealDivOp, binary_op_def<RealDivFn>());
SYMFLOW_OP_DEF(kDivOp, binary_op_def<DivFn>());
SYMFLOW_OP_DEF(kPowOp, binary_op_def<PowFn>());
SYMFLOW_OP_DEF(kMaximumOp, binary_op_def<MaximumFn>());
SYMFLOW_OP_DEF(kMinimumOp, binary_op_def<MinimumFn>());
SYMFLOW_OP_DEF(kAddV2Op, binary_op_def<AddV2Fn>());
SYMFLOW_OP_DEF(kFloorDivOp, binary_op_def<FloorDivFn>());
SYMFLOW_OP_DEF(kFloorModOp, binary_op_def<FloorModFn>());
SYMFLOW_OP_DEF(kModOp, binary_op_def<ModFn>());
SYMFLOW_OP_DEF(kDivNoNanOp, binary_op_def<DivNoNanFn>());

// ---- elementwise unary ops ----------------------------------------------------
struct NegFn {
  static constexpr std::string_view type = "Neg";
  template <class T>
  static constexpr bool accepts = is_signed_number_v<T>;
  template <class T>
  SYMFLOW_HD T operator()(T x) const {
    return sub_wrapping(T{0}, x);
  }
};
struct SquareFn {
  static constexpr std::string_view type = "Square";
  template <class T>
  static constexpr bool accepts = is_number_v<T>;
  template <class T>
  SYMFLOW_HD T operator()(T x) const {
    return mul_wrapping(x, x);
  }
};
struct AbsFn {
  static constexpr std::string_view type = "Abs";
  template <class T>
  static constexpr bool accepts = is_signed_number_v<T>;
  template <class T>
  SYMFLOW_HD T operator()(T x) const {
    if constexpr (std::is_floating_point_v<T>)
      return std::fabs(x);
    else
      return x < 0 ? sub_wrapping(T{0}, x) : x;
  }
};
struct SqrtFn {
  static constexpr std::string_view type = "Sqrt";
  template <class T>
  static constexpr bool accepts = std::is_floating_point_v<T>;
  template <class T>
  SYMFLOW_HD T operator()(T x) const {
    return std::sqrt(x);
  }
};
struct ExpFn {
  static constexpr std::string_view type = "Exp";
  template <class T>
  static constexpr bool accepts = std::is_floating_point_v<T>;
  template <class T>
  SYMFLOW_HD T operator()(T x) const {
    return std::exp(x);
  }
};
struct LogFn {
  static constexpr std::string_view type = "Log";
  template <class T>
  static constexpr bool accepts = std::is_floating_point_v<T>;
  template <class T>
  SYMFLOW_HD T operator()(T x) const {
    return std::log(x);
  }
};

struct SignFn {
  static constexpr std::string_view type = "Sign";
  template <class T>
  static constexpr bool accepts = is_signed_number_v<T>;
  template <class T>
  SYMFLOW_HD T operator()(T x) const {
    if (x != x) return x;  // NaN stays NaN
    return static_cast<T>((T{0} < x) - (x < T{0}));
  }
};

struct CosFn {
  static constexpr std::string_view type = "Cos";
  template <class T>
  static constexpr bool accepts = std::is_floating_point_v<T>;
  template <class T>
  SYMFLOW_HD T operator()(T x) const {
    return std::cos(x);
  }
};
struct SinFn {
  static constexpr std::string_view type = "Sin";
  template <class T>
  static constexpr bool accepts = std::is_floating_point_v<T>;
  template <class T>
  SYMFLOW_HD T operator()(T x) const {
    return std::sin(x);
  }
};
struct CeilFn {
  static constexpr std::string_view type = "Ceil";
  template <class T>
  static constexpr bool accepts = std::is_floating_point_v<T>;
  template <class T>
  SYMFLOW_HD T operator()(T x) const {
    return std::ceil(x);
  }
};
// Round: to the nearest integer, halves to the even one (rint under the default rounding
// mode, which keeps -0.5 -> -0); integers are already round.
struct RoundFn {
  static constexpr std::string_view type = "Round";
  template <class T>
  static constexpr bool accepts = is_signed_number_v<T>;
  template <class T>
  SYMFLOW_HD T operator()(T x) const {
    if constexpr (std::is_floating_point_v<T>)
      return std::rint(x);
    else
      return x;
  }
};

template <class Fn>
std::vector<TensorSpec> infer_unary(const InferContext& c) {
  check_allowed(c, 0, "x", fn_accepts<Fn>);
  return {c.inputs[0]};
}

template <class Fn>
constexpr OpDef unary_op_def() {
  return OpDef{.type = Fn::type, .num_inputs = 1, .infer = infer_unary<Fn>};
}

SYMFLOW_OP_DEF(kNegOp, unary_op_def<NegFn>());
SYMFLOW_OP_DEF(kSquareOp, unary_op_def<SquareFn>());
SYMFLOW_OP_DEF(kAbsOp, unary_op_def<AbsFn>());
SYMFLOW_OP_DEF(kSqrtOp, unary_op_def<SqrtFn>());
SYMFLOW_OP_DEF(kExpOp, unary_op_def<ExpFn>());
SYMFLOW_OP_DEF(kLogOp, unary_op_def<LogFn>());
SYMFLOW_OP_DEF(kSignOp, unary_op_def<SignFn>());
SYMFLOW_OP_DEF(kCosOp, unary_op_def<CosFn>());
SYMFLOW_OP_DEF(kSinOp, unary_op_def<SinFn>());
SYMFLOW_OP_DEF(kCeilOp, unary_op_def<CeilFn>());
SYMFLOW_OP_DEF(kRoundOp, unary_op_def<RoundFn>());

// ---- IsNan, IsInf, IsFinite -----------------------------------------------------
// Float in, bool out. Written with comparisons only (NaN is the one value unequal to
// itself; x - x is NaN exactly for infinities and NaN), so the same code runs on devices.
struct IsNanFn {
  static constexpr std::string_view type = "IsNan";
  template <class T>
  static constexpr bool accepts = std::is_floating_point_v<T>;
  template <class T>
  SYMFLOW_HD bool operator()(T x) const {
    return x != x;
  }
};
struct IsInfFn {
  static constexpr std::string_view type = "IsInf";
  template <class T>
  static constexpr bool accepts = std::is_floating_point_v<T>;
  template <class T>
  SYMFLOW_HD bool operator()(T x) const {
    return x == x && x - x != x - x;
  }
};
struct IsFiniteFn {
  static constexpr std::string_view type = "IsFinite";
  template <class T>
  static constexpr bool accepts = std::is_floating_point_v<T>;
  template <class T>
  SYMFLOW_HD bool operator()(T x) const {
    return x - x == x - x;
  }
};

template <class Fn>
std::vector<TensorSpec> infer_float_class(const InferContext& c) {
  check_allowed(c, 0, "x", fn_accepts<Fn>);
  return {{DType::bool_, c.shape(0)}};
}

template <class Fn>
constexpr OpDef float_class_op_def() {
  return OpDef{.type = Fn::type, .num_inputs = 1, .infer = infer_float_class<Fn>};
}

SYMFLOW_OP_DEF(kIsNanOp, float_class_op_def<IsNanFn>());
SYMFLOW_OP_DEF(kIsInfOp, float_class_op_def<IsInfFn>());
SYMFLOW_OP_DEF(kIsFiniteOp, float_class_op_def<IsFiniteFn>());

// ---- MatMul ---------------------------------------------------------------------
struct MatMulTypes {  // float32, float64, int32, int64
  template <class T>
  static constexpr bool accepts = is_signed_number_v<T>;
};

inline std::vector<TensorSpec> infer_matmul(const InferContext& c) {
  check_same_dtype(c, "MatMul", {"a", "b"});
  check_allowed(c, 0, "a", fn_accepts<MatMulTypes>);
  bool ta = c.attr<bool>("transpose_a"), tb = c.attr<bool>("transpose_b");
  for (std::size_t i = 0; i < 2; ++i) require_rank(c.shape(i), 2);
  std::int64_t m = unknown_dim, k1 = unknown_dim, k2 = unknown_dim, n = unknown_dim;
  if (c.shape(0).has_rank()) {
    m = c.shape(0)[ta ? 1 : 0];
    k1 = c.shape(0)[ta ? 0 : 1];
  }
  if (c.shape(1).has_rank()) {
    k2 = c.shape(1)[tb ? 1 : 0];
    n = c.shape(1)[tb ? 0 : 1];
  }
  if (k1 >= 0 && k2 >= 0 && k1 != k2)
    throw ValueError("Dimensions must be equal, but are " + std::to_string(k1) + " and " +
                     std::to_string(k2));
  return {{c.dtype(0), Shape{m, n}}};
}

SYMFLOW_OP_DEF(kMatMulOp, OpDef{.type = "MatMul", .num_inputs = 2, .infer = infer_matmul});

// ---- reductions -----------------------------------------------------------------
// Normalises axes (negative counts from the end) into a mask over `rank` axes; sets
// `error` on an axis out of range, and on a repeated axis when `reject_repeats`.
inline AxisMask reduction_mask(const Dims& axes, std::int64_t rank, std::string& error,
                               bool reject_repeats) {
  AxisMask mask(static_cast<std::size_t>(rank), false);
  for (auto a : axes) {
    if (a < -rank || a >= rank) {
      error = "Invalid reduction dimension " + std::to_string(a) + " for input with " +
              std::to_string(rank) + " dimensions.";
      return {};
    }
    auto axis = static_cast<std::size_t>(a < 0 ? a + rank : a);
    if (mask[axis] && reject_repeats) {
      error =
          "Invalid reduction arguments: Axes contains duplicate dimension: " + std::to_string(axis);
      return {};
    }
    mask[axis] = true;
  }
  return mask;
}

// The shape function of every reduction (Sum, Mean, Max, Min here; Prod, Any, All in
// reduction.hpp) once its input's dtype is checked: a `dtype` tensor of the input's
// shape without the reduced axes (kept as 1s with keep_dims); unknown unless the axes
// are a constant and the input's rank is known. Build time checks the range only:
// TensorFlow's shape function lets repeated axes through and its kernel rejects them.
inline std::vector<TensorSpec> infer_reduction_output(const InferContext& c, DType dtype) {
  bool keep = c.attr<bool>("keep_dims");
  const Value* axes_value = c.constant(1);
  if (!axes_value || !c.shape(0).has_rank()) return {{dtype, Shape::unknown()}};
  std::string error;
  auto mask = reduction_mask(shape_argument(*axes_value), c.shape(0).rank(), error, false);
  if (!error.empty()) throw ValueError(error);
  return {{dtype, Shape(reduced_dims(c.shape(0).dims(), mask, keep))}};
}

inline std::vector<TensorSpec> infer_reduction(const InferContext& c) {
  check_allowed(c, 0, "input", fn_accepts<AddFn>);  // every number type, as Add
  return infer_reduction_output(c, c.dtype(0));
}

enum class Reduction { sum, mean, max, min };

// How many elements each output of a Mean averages.
inline std::int64_t mean_count(const Dims& dims, const AxisMask& mask) {
  std::int64_t count = 1;
  for (std::size_t a = 0; a < mask.size(); ++a)
    if (mask[a]) count *= dims[a];
  return count;
}

SYMFLOW_OP_DEF(kSumOp, OpDef{.type = "Sum", .num_inputs = 2, .infer = infer_reduction});
SYMFLOW_OP_DEF(kMeanOp, OpDef{.type = "Mean", .num_inputs = 2, .infer = infer_reduction});
SYMFLOW_OP_DEF(kMaxOp, OpDef{.type = "Max", .num_inputs = 2, .infer = infer_reduction});
SYMFLOW_OP_DEF(kMinOp, OpDef{.type = "Min", .num_inputs = 2, .infer = infer_reduction});

// ---- Cast -----------------------------------------------------------------------
inline std::vector<TensorSpec> infer_cast(const InferContext& c) {
  return {{c.attr<DType>("DstT"), c.shape(0)}};
}

// One element converted as TensorFlow's CPU kernel converts it. Non-zero is true.
// A float goes to an integer by truncation toward zero through 32 (or 64) bits, then
// wraps to uint8; NaN and values out of range, undefined in C++, give the lowest
// value, as x86 does.
template <class D, class S>
SYMFLOW_HD D cast_element(S x) {
  if constexpr (std::is_same_v<D, bool>) {
    return x != S{0};
  } else if constexpr (std::is_floating_point_v<S> && std::is_integral_v<D> &&
                       !std::is_same_v<D, bool>) {
    using Wide = std::conditional_t<sizeof(D) == 8, std::int64_t, std::int32_t>;
    // Wide's range is [-bound, bound), with bound = 2^31 or 2^63: exact in float and double.
    constexpr S bound = -static_cast<S>(std::numeric_limits<Wide>::min());
    if (!(x >= -bound && x < bound)) return static_cast<D>(std::numeric_limits<Wide>::min());
    return static_cast<D>(static_cast<Wide>(x));
  } else {
    return static_cast<D>(x);
  }
}

SYMFLOW_OP_DEF(kCastOp, OpDef{.type = "Cast",
                              .num_inputs = 1,
                              .infer = infer_cast,
                              .accepts_storage_dtypes = true});

}  // namespace symflow::detail
