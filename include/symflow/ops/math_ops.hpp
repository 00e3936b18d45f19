#pragma once
// Elementwise arithmetic with broadcasting, MatMul, reductions and Cast.

#include <cmath>
#include <concepts>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "symflow/backend/cpu/elementwise.hpp"
#include "symflow/backend/cpu/fused.hpp"
#include "symflow/backend/cpu/matmul.hpp"
#include "symflow/backend/cpu/reduce.hpp"
#include "symflow/core/host_device.hpp"
#include "symflow/ops/op_builder.hpp"

namespace symflow {

namespace detail {

template <class T>
inline constexpr bool is_number_v = !std::is_same_v<T, bool>;
template <class T>
inline constexpr bool is_signed_number_v = is_number_v<T>&& std::is_signed_v<T>;

[[noreturn]] inline void unsupported_dtype(KernelContext& ctx, DType d) {
  ctx.fail("No kernel for dtype " + std::string(dtype_name(d)) + " on this op");
}

// Dims seen as [outer, len, inner] around one axis (counted from 0): what the axis-wise
// kernels (ArgMax, ArgMin, Cumsum, Cumprod) loop over, on the CPU and on the GPU.
struct AxisSplit {
  std::int64_t axis = 0, outer = 1, len = 1, inner = 1;
};

// A scalar axis input (a host value) checked against `d`, then `d` split there. The
// messages start with the caller's words: ArgMax's and the scans' differ in TensorFlow.
inline AxisSplit split_at_axis_input(const KernelContext& ctx, const Dims& d,
                                     const Value& axis_value, const std::string& not_scalar,
                                     const std::string& expected) {
  if (axis_value.rank() != 0) ctx.fail(not_scalar + dims_to_string(axis_value.dims()));
  const auto rank = static_cast<std::int64_t>(d.size());
  std::int64_t axis = shape_argument(axis_value)[0];
  if (axis < -rank || axis >= rank)
    ctx.fail(expected + " in the range [" + std::to_string(-rank) + ", " + std::to_string(rank) +
             "), but got " + std::to_string(axis));
  if (axis < 0) axis += rank;
  AxisSplit s;
  s.axis = axis;
  s.len = d[static_cast<std::size_t>(axis)];
  for (std::int64_t a = 0; a < axis; ++a) s.outer *= d[static_cast<std::size_t>(a)];
  for (std::int64_t a = axis + 1; a < rank; ++a) s.inner *= d[static_cast<std::size_t>(a)];
  return s;
}

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
    case DType::invalid:
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

// A trait and a specialisation, not a concept and `if constexpr`: nvcc's front end
// checks a discarded `Fn::invalid_y(y)` against every Fn.
template <class Fn, class T, class = void>
inline constexpr bool checks_y = false;
template <class Fn, class T>
inline constexpr bool checks_y<Fn, T, std::void_t<decltype(Fn::invalid_y(std::declval<T>()))>> =
    true;
// Fails on a y the op rejects (integer division by zero); nothing for the others. host_y()
// gives y's elements on the host, asked for only where there is a check (the CPU and GPU
// kernels share it).
template <class Fn, class T, bool = checks_y<Fn, T>>
struct YCheck {
  template <class HostY>
  static void run(const KernelContext&, HostY) {}
};
template <class Fn, class T>
struct YCheck<Fn, T, true> {
  template <class HostY>
  static void run(const KernelContext& ctx, HostY host_y) {
    for (T y : host_y())
      if (auto error = Fn::invalid_y(y)) ctx.fail(std::string(*error));
  }
};

SYMFLOW_CPU_KERNEL_TEMPLATE(binary_kernel, class Fn) {
  visit_dtype(ctx.input(0).dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (Fn::template accepts<T>) {
      YCheck<Fn, T>::run(ctx, [&] { return ctx.input(1).flat<T>(); });
      cpu::binary<T, T>(ctx, Fn{});
    } else {
      unsupported_dtype(ctx, ctx.input(0).dtype());
    }
  });
}

// Functor ops on float32 and float64 can run inside fused clusters.
template <class Fn, int Arity, bool Broadcasts = true>
constexpr const ElementwiseDef* elementwise_of() {
  if constexpr (Fn::template accepts<float> && Fn::template accepts<double>)
    return &cpu::elementwise_def<Fn, Arity, Broadcasts>;
  else
    return nullptr;
}

template <class Fn>
constexpr OpDef binary_op_def() {
  return OpDef{.type = Fn::type,
               .num_inputs = 2,
               .infer = infer_binary<Fn>,
               .cpu_kernel = binary_kernel<Fn>,
               .elementwise = elementwise_of<Fn, 2>()};
}

inline constexpr OpDef kAddOp = binary_op_def<AddFn>();
inline constexpr OpDef kSubOp = binary_op_def<SubFn>();
inline constexpr OpDef kMulOp = binary_op_def<MulFn>();
inline constexpr OpDef kRealDivOp = binary_op_def<RealDivFn>();
inline constexpr OpDef kDivOp = binary_op_def<DivFn>();
inline constexpr OpDef kPowOp = binary_op_def<PowFn>();
inline constexpr OpDef kMaximumOp = binary_op_def<MaximumFn>();
inline constexpr OpDef kMinimumOp = binary_op_def<MinimumFn>();

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

template <class Fn>
std::vector<TensorSpec> infer_unary(const InferContext& c) {
  check_allowed(c, 0, "x", fn_accepts<Fn>);
  return {c.inputs[0]};
}

SYMFLOW_CPU_KERNEL_TEMPLATE(unary_kernel, class Fn) {
  visit_dtype(ctx.input(0).dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (Fn::template accepts<T>)
      cpu::unary<T, T>(ctx, Fn{});
    else
      unsupported_dtype(ctx, ctx.input(0).dtype());
  });
}

template <class Fn>
constexpr OpDef unary_op_def() {
  return OpDef{.type = Fn::type,
               .num_inputs = 1,
               .infer = infer_unary<Fn>,
               .cpu_kernel = unary_kernel<Fn>,
               .elementwise = elementwise_of<Fn, 1>()};
}

inline constexpr OpDef kNegOp = unary_op_def<NegFn>();
inline constexpr OpDef kSquareOp = unary_op_def<SquareFn>();
inline constexpr OpDef kAbsOp = unary_op_def<AbsFn>();
inline constexpr OpDef kSqrtOp = unary_op_def<SqrtFn>();
inline constexpr OpDef kExpOp = unary_op_def<ExpFn>();
inline constexpr OpDef kLogOp = unary_op_def<LogFn>();
inline constexpr OpDef kSignOp = unary_op_def<SignFn>();

// ---- MatMul ---------------------------------------------------------------------
struct MatMulTypes {  // float32, float64, int32, int64
  template <class T>
  static constexpr bool accepts = is_signed_number_v<T>;
};

inline std::vector<TensorSpec> infer_matmul(const InferContext& c) {
  check_same_dtype(c, "MatMul", {"a", "b"});
  check_allowed(c, 0, "a", fn_accepts<MatMulTypes>);
  bool ta = c.attr<bool>("transpose_a"), tb = c.attr<bool>("transpose_b");
  for (std::size_t i = 0; i < 2; ++i)
    if (c.shape(i).has_rank() && c.shape(i).rank() != 2)
      throw ValueError("Shape must be rank 2 but is rank " + std::to_string(c.shape(i).rank()));
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

SYMFLOW_CPU_KERNEL(matmul_kernel) {
  const Value& a = ctx.input(0);
  const Value& b = ctx.input(1);
  bool ta = ctx.attr<bool>("transpose_a"), tb = ctx.attr<bool>("transpose_b");
  for (int i = 0; i < 2; ++i)
    if (ctx.input(static_cast<std::size_t>(i)).rank() != 2)
      ctx.fail("In[" + std::to_string(i) + "] is not a matrix. Instead it has shape " +
               dims_to_string(ctx.input(static_cast<std::size_t>(i)).dims()));
  std::int64_t m = a.dims()[ta ? 1 : 0], k = a.dims()[ta ? 0 : 1];
  std::int64_t k2 = b.dims()[tb ? 1 : 0], n = b.dims()[tb ? 0 : 1];
  if (k != k2)
    ctx.fail("Matrix size-incompatible: In[0]: " + dims_to_string(a.dims()) +
             ", In[1]: " + dims_to_string(b.dims()));
  visit_dtype(a.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (MatMulTypes::accepts<T>) {
      Value& out = ctx.allocate_output_for_overwrite(0, a.dtype(), {m, n});
      cpu::matmul<T>(ctx, a, b, ta, tb, out);
    } else {
      unsupported_dtype(ctx, a.dtype());
    }
  });
}

inline constexpr OpDef kMatMulOp{
    .type = "MatMul", .num_inputs = 2, .infer = infer_matmul, .cpu_kernel = matmul_kernel};

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

// Build time checks the range only: TensorFlow's shape function lets repeated axes
// through and its kernel rejects them.
inline std::vector<TensorSpec> infer_reduction(const InferContext& c) {
  check_allowed(c, 0, "input", fn_accepts<AddFn>);  // every number type, as Add
  bool keep = c.attr<bool>("keep_dims");
  const Value* axes_value = c.constant(1);
  if (!axes_value || !c.shape(0).has_rank()) return {{c.dtype(0), Shape::unknown()}};
  std::string error;
  auto mask = reduction_mask(shape_argument(*axes_value), c.shape(0).rank(), error, false);
  if (!error.empty()) throw ValueError(error);
  Dims out;
  for (std::size_t i = 0; i < mask.size(); ++i) {
    if (!mask[i])
      out.push_back(c.shape(0).dims()[i]);
    else if (keep)
      out.push_back(1);
  }
  return {{c.dtype(0), Shape(out)}};
}

enum class Reduction { sum, mean, max, min };

// How many elements each output of a Mean averages.
inline std::int64_t mean_count(const Dims& dims, const AxisMask& mask) {
  std::int64_t count = 1;
  for (std::size_t a = 0; a < mask.size(); ++a)
    if (mask[a]) count *= dims[a];
  return count;
}

SYMFLOW_CPU_KERNEL_TEMPLATE(reduction_kernel, Reduction R) {
  const Value& in = ctx.input(0);
  std::string error;
  auto mask = reduction_mask(shape_argument(ctx.input(1)), in.rank(), error, true);
  if (!error.empty()) ctx.fail(error);
  bool keep = ctx.attr<bool>("keep_dims");
  visit_dtype(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_number_v<T>) {
      using limits = std::numeric_limits<T>;
      Value out;
      if constexpr (R == Reduction::mean && std::is_integral_v<T>) {
        // TensorFlow sums small integers in a wider type before it divides: the mean of
        // 256 uint8 threes is 3, not 0 / 0.
        Value sum = cpu::reduce<std::int64_t>(ctx, in.astype(DType::int64), mask, keep,
                                              std::int64_t{0}, AddWrappingFn{});
        const std::int64_t count = mean_count(in.dims(), mask);
        if (count > 0)
          for (std::int64_t& v : sum.flat<std::int64_t>()) v /= count;
        out = sum.astype(dtype_v<T>);
      } else if constexpr (R == Reduction::sum || R == Reduction::mean) {
        out = cpu::reduce<T>(ctx, in, mask, keep, T{0}, AddWrappingFn{});
        if constexpr (R == Reduction::mean) {
          const std::int64_t count = mean_count(in.dims(), mask);  // 0: NaN, as in TF
          for (T& v : out.flat<T>()) v = static_cast<T>(v / static_cast<T>(count));
        }
      } else if constexpr (R == Reduction::max) {
        T init = limits::has_infinity ? -limits::infinity() : limits::lowest();
        out = cpu::reduce<T>(ctx, in, mask, keep, init, MaximumFn{});
      } else {
        T init = limits::has_infinity ? limits::infinity() : limits::max();
        out = cpu::reduce<T>(ctx, in, mask, keep, init, MinimumFn{});
      }
      ctx.set_output(0, std::move(out));
    } else {
      unsupported_dtype(ctx, in.dtype());
    }
  });
}

inline constexpr OpDef kSumOp{.type = "Sum",
                              .num_inputs = 2,
                              .infer = infer_reduction,
                              .cpu_kernel = reduction_kernel<Reduction::sum>};
inline constexpr OpDef kMeanOp{.type = "Mean",
                               .num_inputs = 2,
                               .infer = infer_reduction,
                               .cpu_kernel = reduction_kernel<Reduction::mean>};
inline constexpr OpDef kMaxOp{.type = "Max",
                              .num_inputs = 2,
                              .infer = infer_reduction,
                              .cpu_kernel = reduction_kernel<Reduction::max>};
inline constexpr OpDef kMinOp{.type = "Min",
                              .num_inputs = 2,
                              .infer = infer_reduction,
                              .cpu_kernel = reduction_kernel<Reduction::min>};

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

SYMFLOW_CPU_KERNEL(cast_kernel) {
  const Value& in = ctx.input(0);
  visit_dtype(in.dtype(), [&](auto from) {
    using S = typename decltype(from)::type;
    visit_dtype(ctx.attr<DType>("DstT"), [&](auto to) {
      using D = typename decltype(to)::type;
      cpu::unary<S, D>(ctx, cast_element<D, S>);
    });
  });
}

inline constexpr OpDef kCastOp{
    .type = "Cast", .num_inputs = 1, .infer = infer_cast, .cpu_kernel = cast_kernel};

// Builds a binary op the way TensorFlow's wrappers do.
inline Output binary(const OpDef& def, const Output& x, const Output& y, std::string_view name,
                     std::string_view default_name) {
  OpBuilder b(graph_of({x, y}), name, default_name);
  return b.build(def, {x, y}, {{"T", x.dtype()}}).output(0);
}

// x / y: RealDiv named "truediv" on floats, Div named "div" on integers.
inline const OpDef& div_def(DType d) { return is_floating(d) ? kRealDivOp : kDivOp; }
inline std::string_view div_name(DType d) { return is_floating(d) ? "truediv" : "div"; }

inline Output unary(const OpDef& def, const Output& x, std::string_view name,
                    std::string_view default_name) {
  OpBuilder b(graph_of({x}), name, default_name);
  return b.build(def, {x}, {{"T", x.dtype()}}).output(0);
}

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

inline Output reduction(const OpDef& def, const Output& x, const Axis& axis, bool keepdims,
                        std::string_view name, std::string_view default_name,
                        bool type_attr = true) {
  Graph g = graph_of({x});
  Output axes;
  if (!axis.axes) {
    // No axis: every axis, as a Const built outside the op's scope (TF's fast path).
    if (!x.get_shape().has_rank())
      throw ValueError("Reducing all axes of " + x.name() + " needs a known rank");
    Dims all(static_cast<std::size_t>(x.get_shape().rank()));
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<std::int64_t>(i);
    axes = make_const(g, int32_vector(all), "Const").output(0);
  }
  OpBuilder b(g, name, default_name);
  if (axis.tensor.valid()) {
    axes = axis.tensor;
  } else if (axis.axes) {
    Value v = axis.scalar ? Value(static_cast<std::int32_t>(axis.axes->front()))
                          : int32_vector(*axis.axes);
    axes = b.constant_arg(v, "reduction_indices");
  }
  AttrMap attrs{{"Tidx", axes.dtype()}, {"keep_dims", keepdims}};
  if (type_attr) attrs.emplace("T", x.dtype());
  return b.build(def, {x, axes}, std::move(attrs)).output(0);
}

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
