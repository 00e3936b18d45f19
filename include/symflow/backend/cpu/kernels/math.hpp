#pragma once
// The math ops' CPU kernels: elementwise binary and unary ops, MatMul, the reductions
// Sum/Mean/Max/Min and Cast; the kernel-side helpers other areas' kernels share
// (unsupported_dtype, reduction_mask_input, split_at_axis_input, YCheck); and
// kMathCpuKernels, the table that maps each math OpDef (ops/defs/math.hpp) to its kernel.

#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

#include "symflow/backend/cpu/elementwise.hpp"
#include "symflow/backend/cpu/kernel_table.hpp"
#include "symflow/backend/cpu/matmul.hpp"
#include "symflow/backend/cpu/reduce.hpp"
#include "symflow/backend/kernel_context.hpp"
#include "symflow/ops/defs/math.hpp"

namespace symflow::detail {

[[noreturn]] inline void unsupported_dtype(KernelContext& ctx, DType d) {
  ctx.fail("No kernel for dtype " + std::string(dtype_name(d)) + " on this op");
}

// The reduced axes of a reduction kernel's axes input (a host value) over `rank` axes,
// checked as TensorFlow's kernels check them (a repeated axis is an error here). The
// CPU's and the GPU's reductions share it.
inline AxisMask reduction_mask_input(const KernelContext& ctx, const Value& axes,
                                     std::int64_t rank) {
  std::string error;
  auto mask = reduction_mask(shape_argument(axes), rank, error, true);
  if (!error.empty()) ctx.fail(error);
  return mask;
}

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

// ---- elementwise binary ops -------------------------------------------------
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

template <class Fn>
void binary_kernel(KernelContext& ctx) {
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

// ---- elementwise unary ops ----------------------------------------------------
template <class Fn>
void unary_kernel(KernelContext& ctx) {
  visit_dtype(ctx.input(0).dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (Fn::template accepts<T>)
      cpu::unary<T, T>(ctx, Fn{});
    else
      unsupported_dtype(ctx, ctx.input(0).dtype());
  });
}

// ---- IsNan, IsInf, IsFinite -------------------------------------------------------
template <class Fn>
void float_class_kernel(KernelContext& ctx) {
  visit_dtype(ctx.input(0).dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (Fn::template accepts<T>)
      cpu::unary<T, bool>(ctx, Fn{});
    else
      unsupported_dtype(ctx, ctx.input(0).dtype());
  });
}

// ---- MatMul ---------------------------------------------------------------------
inline void matmul_kernel(KernelContext& ctx) {
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

// ---- reductions -----------------------------------------------------------------
template <Reduction R>
void reduction_kernel(KernelContext& ctx) {
  const Value& in = ctx.input(0);
  const AxisMask mask = reduction_mask_input(ctx, ctx.input(1), in.rank());
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

// ---- Cast -----------------------------------------------------------------------
inline void cast_kernel(KernelContext& ctx) {
  const Value& in = ctx.input(0);
  const DType to = ctx.attr<DType>("DstT");
  if (is_storage_dtype(in.dtype()) || is_storage_dtype(to)) {  // one loop for every pair
    Value& out = ctx.allocate_output(0, to, in.dims());
    cast_elements(in.dtype(), in.raw_data(), to, out.raw_data(), in.size());
    return;
  }
  visit_dtype(in.dtype(), [&](auto from) {
    using S = typename decltype(from)::type;
    visit_dtype(ctx.attr<DType>("DstT"), [&](auto to) {
      using D = typename decltype(to)::type;
      cpu::unary<S, D>(ctx, cast_element<D, S>);
    });
  });
}

inline constexpr auto kMathCpuKernels = std::to_array<CpuKernel>({
    {&kAddOp, binary_kernel<AddFn>, elementwise_of<AddFn, 2>()},
    {&kSubOp, binary_kernel<SubFn>, elementwise_of<SubFn, 2>()},
    {&kMulOp, binary_kernel<MulFn>, elementwise_of<MulFn, 2>()},
    {&kRealDivOp, binary_kernel<RealDivFn>, elementwise_of<RealDivFn, 2>()},
    {&kDivOp, binary_kernel<DivFn>, elementwise_of<DivFn, 2>()},
    {&kPowOp, binary_kernel<PowFn>, elementwise_of<PowFn, 2>()},
    {&kMaximumOp, binary_kernel<MaximumFn>, elementwise_of<MaximumFn, 2>()},
    {&kMinimumOp, binary_kernel<MinimumFn>, elementwise_of<MinimumFn, 2>()},
    {&kAddV2Op, binary_kernel<AddV2Fn>, elementwise_of<AddV2Fn, 2>()},
    {&kFloorDivOp, binary_kernel<FloorDivFn>, elementwise_of<FloorDivFn, 2>()},
    {&kFloorModOp, binary_kernel<FloorModFn>, elementwise_of<FloorModFn, 2>()},
    {&kModOp, binary_kernel<ModFn>, elementwise_of<ModFn, 2>()},
    {&kDivNoNanOp, binary_kernel<DivNoNanFn>, elementwise_of<DivNoNanFn, 2>()},
    {&kNegOp, unary_kernel<NegFn>, elementwise_of<NegFn, 1>()},
    {&kSquareOp, unary_kernel<SquareFn>, elementwise_of<SquareFn, 1>()},
    {&kAbsOp, unary_kernel<AbsFn>, elementwise_of<AbsFn, 1>()},
    {&kSqrtOp, unary_kernel<SqrtFn>, elementwise_of<SqrtFn, 1>()},
    {&kExpOp, unary_kernel<ExpFn>, elementwise_of<ExpFn, 1>()},
    {&kLogOp, unary_kernel<LogFn>, elementwise_of<LogFn, 1>()},
    {&kSignOp, unary_kernel<SignFn>, elementwise_of<SignFn, 1>()},
    {&kCosOp, unary_kernel<CosFn>, elementwise_of<CosFn, 1>()},
    {&kSinOp, unary_kernel<SinFn>, elementwise_of<SinFn, 1>()},
    {&kCeilOp, unary_kernel<CeilFn>, elementwise_of<CeilFn, 1>()},
    {&kRoundOp, unary_kernel<RoundFn>, elementwise_of<RoundFn, 1>()},
    {&kIsNanOp, float_class_kernel<IsNanFn>},
    {&kIsInfOp, float_class_kernel<IsInfFn>},
    {&kIsFiniteOp, float_class_kernel<IsFiniteFn>},
    {&kMatMulOp, matmul_kernel},
    {&kSumOp, reduction_kernel<Reduction::sum>},
    {&kMeanOp, reduction_kernel<Reduction::mean>},
    {&kMaxOp, reduction_kernel<Reduction::max>},
    {&kMinOp, reduction_kernel<Reduction::min>},
    {&kCastOp, cast_kernel},
});

}  // namespace symflow::detail
