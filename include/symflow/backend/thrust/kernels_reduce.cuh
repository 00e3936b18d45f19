#pragma once
// Thrust kernels: reductions (Sum, Mean, Max, Min, Prod, Any, All), ArgMax and ArgMin,
// the scans Cumsum and Cumprod, and L2Loss.
//
// Reductions follow cpu::reduce (backend/cpu/reduce.hpp) step for step: the same plan
// (neighbouring axes merged when both are reduced or both kept, axes of size 1
// dropped), each output combining its inputs in row-major order from the same initial
// value, and -- where the CPU cuts a large input into fixed blocks of axis 0 -- the same
// blocks, each reduced on its own and then combined in order. One device thread per
// output (or per (block, output) pair), so every result is computed by the same
// sequence of operations as on the CPU: Sum, Mean, Max, Min, Prod, Any, All, ArgMax,
// ArgMin, Cumsum and Cumprod give the CPU's bits exactly on the host systems (and on
// CUDA, whose additions and multiplications are IEEE as well).
// L2Loss sums squares in double, as the CPU does, but in fixed blocks of
// kL2LossBlock elements combined in order (the CPU adds left to right): the same as
// the CPU for up to kL2LossBlock elements, and within a few ulps of double beyond (a
// float32 result then rounds to the CPU's almost always; relative 1e-12 for float64).

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "symflow/backend/cpu/kernels/logic.hpp"
#include "symflow/backend/cpu/kernels/math.hpp"
#include "symflow/backend/cpu/kernels/reduction.hpp"
#include "symflow/backend/cpu/reduce.hpp"
#include "symflow/backend/thrust/kernel_util.cuh"
#include "symflow/ops/defs/logic.hpp"
#include "symflow/ops/defs/math.hpp"
#include "symflow/ops/defs/nn.hpp"
#include "symflow/ops/defs/reduction.hpp"

namespace symflow::thrust_backend {

namespace reduce_kernels {

// The combiners of the reductions: the CPU's own for sums and products (integers wrap
// around, ops/defs/math.hpp), and MaximumFn's, MinimumFn's and the bool reductions' &&
// and || as device functors.
using SumCombine = symflow::detail::AddWrappingFn;
using ProdCombine = symflow::detail::MulWrappingFn;
struct MaxCombine {  // NaN wins, as MaximumFn
  template <class T>
  SYMFLOW_HD T operator()(T a, T b) const {
    return a > b || a != a ? a : b;
  }
};
struct MinCombine {
  template <class T>
  SYMFLOW_HD T operator()(T a, T b) const {
    return a < b || a != a ? a : b;
  }
};
struct AllCombine {
  SYMFLOW_HD bool operator()(bool a, bool b) const { return a && b; }
};
struct AnyCombine {
  SYMFLOW_HD bool operator()(bool a, bool b) const { return a || b; }
};

// ---- the reduction's geometry --------------------------------------------------------------
// Groups of a cpu::detail::reduce::Plan, split into kept ones (which locate an output's
// first input) and reduced ones (walked in row-major order for each output). Plans
// alternate kept and reduced groups, so kMaxGroups of each covers any input of rank up
// to 2 * kMaxGroups.
inline constexpr int kMaxGroups = 16;

struct ReduceGeometry {
  int nkept = 0, nred = 0;
  std::int64_t kdim[kMaxGroups] = {}, kostride[kMaxGroups] = {}, kistride[kMaxGroups] = {};
  std::int64_t rdim[kMaxGroups] = {}, ristride[kMaxGroups] = {};

  // The offset of output o's first input.
  SYMFLOW_HD std::int64_t base(std::int64_t o) const {
    std::int64_t at = 0;
    for (int g = 0; g < nkept; ++g) at += (o / kostride[g]) % kdim[g] * kistride[g];
    return at;
  }

  // acc combined with the inputs of the output at `base` whose index on the first
  // reduced group is in [lo, hi), in row-major order.
  template <class T, class C>
  SYMFLOW_HD T fold(const T* x, std::int64_t base, std::int64_t lo, std::int64_t hi, T acc,
                    C combine) const {
    if (nred == 0) return combine(acc, x[base]);
    if (hi <= lo) return acc;
    std::int64_t index[kMaxGroups];
    index[0] = lo;
    for (int g = 1; g < nred; ++g) index[g] = 0;
    const int last = nred - 1;
    const std::int64_t first = last == 0 ? lo : 0;
    const std::int64_t end = last == 0 ? hi : rdim[last];
    const std::int64_t step = ristride[last];
    std::int64_t at = base + lo * ristride[0];
    for (;;) {
      const T* p = x + at;
      for (std::int64_t i = first; i < end; ++i, p += step) acc = combine(acc, *p);
      int g = last;
      for (;;) {
        if (g == 0) return acc;
        --g;
        const std::int64_t g_lo = g == 0 ? lo : 0, g_hi = g == 0 ? hi : rdim[g];
        at += ristride[g];
        if (++index[g] < g_hi) break;
        at -= ristride[g] * (g_hi - g_lo);
        index[g] = g_lo;
      }
    }
  }
};

// out[o] = the fold of output o's inputs from init.
template <class T, class C>
struct ReduceOutputs {
  const T* x;
  T* y;
  ReduceGeometry geo;
  std::int64_t extent;  // of the first reduced group (1 when there is none)
  T init;
  C combine;
  SYMFLOW_HD void operator()(std::int64_t o) const {
    y[o] = geo.fold(x, geo.base(o), 0, extent, init, combine);
  }
};

// partial[b * outputs + o] = the fold of block b of output o's inputs from init.
template <class T, class C>
struct ReduceBlocks {
  const T* x;
  T* partial;
  ReduceGeometry geo;
  std::int64_t outputs, block_len, extent;
  T init;
  C combine;
  SYMFLOW_HD void operator()(std::int64_t i) const {
    const std::int64_t b = i / outputs, o = i % outputs;
    const std::int64_t lo = b * block_len;
    const std::int64_t hi = lo + block_len < extent ? lo + block_len : extent;
    partial[i] = geo.fold(x, geo.base(o), lo, hi, init, combine);
  }
};

// out[o] = init combined with each block's partial, in block order.
template <class T, class C>
struct CombineBlocks {
  const T* partial;
  T* y;
  std::int64_t outputs, blocks;
  T init;
  C combine;
  SYMFLOW_HD void operator()(std::int64_t o) const {
    T acc = init;
    for (std::int64_t b = 0; b < blocks; ++b) acc = combine(acc, partial[b * outputs + o]);
    y[o] = acc;
  }
};

template <class T>
struct FillWith {
  T* y;
  T value;
  SYMFLOW_HD void operator()(std::int64_t i) const { y[i] = value; }
};

inline thrust::counting_iterator<std::int64_t> count_from(std::int64_t i) {
  return thrust::counting_iterator<std::int64_t>(i);
}

// for_each over [0, n) with `f`.
template <class F>
void launch(std::int64_t n, F f) {
  if (n > 0) thrust::for_each(policy(), count_from(0), count_from(n), f);
}

// The device version of cpu::reduce: out[j] = combine(out[j], in[i]) for every input i
// of output j, starting from `init`; the same plan, order and blocks as the CPU.
template <class T, class C>
Value reduce(const KernelContext& ctx, const Value& in, const AxisMask& reduced, bool keep_dims,
             T init, C combine) {
  const Dims& d = in.dims();
  Value out = empty_device_value(dtype_v<T>, symflow::detail::reduced_dims(d, reduced, keep_dims));
  T* y = out.device_data<T>();
  const std::int64_t outputs = out.size();
  const T* x = in.device_data<T>();  // (a TypeError on another dtype, as on the CPU)
  const std::int64_t n = in.size();
  if (n == 0) {
    launch(outputs, FillWith<T>{y, init});
    return out;
  }
  const cpu::detail::reduce::Plan p = cpu::detail::reduce::make_plan(d, reduced);
  const std::size_t prank = p.dims.size();
  ReduceGeometry geo;
  for (std::size_t a = 0; a < prank; ++a) {
    const int& count = p.reduced[a] ? geo.nred : geo.nkept;
    if (count >= kMaxGroups)
      throw UnimplementedError("The GPU reduction kernel handles inputs of rank up to " +
                                   std::to_string(2 * kMaxGroups) + ", got shape " +
                                   dims_to_string(d),
                               ctx.node_name());
    if (p.reduced[a]) {
      geo.rdim[geo.nred] = p.dims[a];
      geo.ristride[geo.nred] = p.istride[a];
      ++geo.nred;
    } else {
      geo.kdim[geo.nkept] = p.dims[a];
      geo.kostride[geo.nkept] = p.ostride[a];
      geo.kistride[geo.nkept] = p.istride[a];
      ++geo.nkept;
    }
  }
  // As cpu::reduce: a large input whose axis 0 is reduced and whose kept axes are all
  // shorter than 4 is cut into blocks of axis 0.
  bool blocked = false;
  if (n >= 2 * cpu::kReduceMinChunk && prank > 0 && p.reduced[0]) {
    std::size_t kept = prank;
    for (std::size_t a = 0; a < prank; ++a)
      if (!p.reduced[a] && (kept == prank || p.dims[a] > p.dims[kept])) kept = a;
    blocked = kept == prank || p.dims[kept] < 4;
  }
  const std::int64_t extent = geo.nred > 0 ? geo.rdim[0] : 1;
  if (!blocked) {
    launch(outputs, ReduceOutputs<T, C>{x, y, geo, extent, init, combine});
    return out;
  }
  const std::int64_t per_index = n / p.dims[0];
  const std::int64_t block_len = std::max<std::int64_t>(1, cpu::kReduceBlock / per_index);
  const std::int64_t blocks = (p.dims[0] + block_len - 1) / block_len;
  Value partial = empty_device_value(dtype_v<T>, {blocks * outputs});
  T* part = partial.device_data<T>();
  launch(blocks * outputs,
         ReduceBlocks<T, C>{x, part, geo, outputs, block_len, extent, init, combine});
  launch(outputs, CombineBlocks<T, C>{part, y, outputs, blocks, init, combine});
  return out;
}

// The reduction mask of a reduction op's axes input (input 1), checked as the CPU does.
inline AxisMask reduction_mask_of(KernelContext& ctx) {
  return symflow::detail::reduction_mask_input(ctx, host_value(ctx.input(1)), ctx.input(0).rank());
}

template <class T>
struct DivideBy {
  T divisor;
  SYMFLOW_HD T operator()(T v) const { return static_cast<T>(v / divisor); }
};

template <class From, class To>
struct Convert {
  SYMFLOW_HD To operator()(From v) const { return static_cast<To>(v); }
};
template <class T>
struct DivideAndNarrow {
  std::int64_t divisor;
  SYMFLOW_HD T operator()(std::int64_t v) const { return static_cast<T>(v / divisor); }
};
template <class T>
thrust::device_ptr<const T> in_ptr(const Value& v) {
  return thrust::device_pointer_cast(v.device_data<T>());
}

// ---- Sum, Mean, Max, Min -------------------------------------------------------------------
using symflow::detail::Reduction;

template <Reduction R, class T>
Value run_reduction(KernelContext& ctx, const Value& in, const AxisMask& mask, bool keep) {
  using limits = std::numeric_limits<T>;
  if constexpr (R == Reduction::mean && std::is_integral_v<T>) {
    // As the CPU: integers are summed in int64, then divided, then narrowed.
    Value wide = empty_device_value(DType::int64, in.dims());
    thrust::transform(policy(), in_ptr<T>(in), in_ptr<T>(in) + in.size(), out<std::int64_t>(wide),
                      Convert<T, std::int64_t>{});
    Value sum =
        reduce_kernels::reduce<std::int64_t>(ctx, wide, mask, keep, std::int64_t{0}, SumCombine{});
    const std::int64_t count = symflow::detail::mean_count(in.dims(), mask);
    Value result = empty_device_value(dtype_v<T>, sum.dims());
    if (result.size() > 0)
      thrust::transform(policy(), out<std::int64_t>(sum), out<std::int64_t>(sum) + sum.size(),
                        out<T>(result), DivideAndNarrow<T>{count > 0 ? count : 1});
    return result;
  } else if constexpr (R == Reduction::sum || R == Reduction::mean) {
    Value result = reduce_kernels::reduce<T>(ctx, in, mask, keep, T{0}, SumCombine{});
    if constexpr (R == Reduction::mean) {
      const std::int64_t count = symflow::detail::mean_count(in.dims(), mask);  // 0: NaN
      if (result.size() > 0) {
        auto y = out<T>(result);
        thrust::transform(policy(), y, y + result.size(), y, DivideBy<T>{static_cast<T>(count)});
      }
    }
    return result;
  } else if constexpr (R == Reduction::max) {
    const T init = limits::has_infinity ? -limits::infinity() : limits::lowest();
    return reduce_kernels::reduce<T>(ctx, in, mask, keep, init, MaxCombine{});
  } else {
    const T init = limits::has_infinity ? limits::infinity() : limits::max();
    return reduce_kernels::reduce<T>(ctx, in, mask, keep, init, MinCombine{});
  }
}

template <Reduction R>
void reduction_kernel(KernelContext& ctx) {
  const Value& in = ctx.input(0);
  const AxisMask mask = reduction_mask_of(ctx);
  const bool keep = ctx.attr<bool>("keep_dims");
  visit_dtype(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (symflow::detail::is_number_v<T>)
      ctx.set_output(0, run_reduction<R, T>(ctx, in, mask, keep));
    else
      symflow::detail::unsupported_dtype(ctx, in.dtype());
  });
}

// ---- Prod, Any, All ----------------------------------------------------------------------
inline void prod_kernel(KernelContext& ctx) {
  const Value& in = ctx.input(0);
  const AxisMask mask = reduction_mask_of(ctx);
  const bool keep = ctx.attr<bool>("keep_dims");
  visit_dtype(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (symflow::detail::is_number_v<T>)
      ctx.set_output(0, reduce_kernels::reduce<T>(ctx, in, mask, keep, T{1}, ProdCombine{}));
    else
      symflow::detail::unsupported_dtype(ctx, in.dtype());
  });
}

template <bool IsAll>
void bool_reduction_kernel(KernelContext& ctx) {
  const Value& in = ctx.input(0);
  const AxisMask mask = reduction_mask_of(ctx);
  const bool keep = ctx.attr<bool>("keep_dims");
  if constexpr (IsAll)
    ctx.set_output(0, reduce_kernels::reduce<bool>(ctx, in, mask, keep, true, AllCombine{}));
  else
    ctx.set_output(0, reduce_kernels::reduce<bool>(ctx, in, mask, keep, false, AnyCombine{}));
}

// ---- ArgMax, ArgMin -------------------------------------------------------------------------
// First index of the largest (smallest) element; NaN never wins, as on the CPU.
template <class T, class I, bool Max>
struct ArgReduce {
  const T* x;
  I* y;
  std::int64_t len, inner;
  T start;  // limits::lowest() for ArgMax, limits::max() for ArgMin
  SYMFLOW_HD void operator()(std::int64_t j) const {
    const std::int64_t o = j / inner, i = j % inner;
    const T* p = x + o * len * inner + i;
    std::int64_t best_at = 0;
    T best = start;
    for (std::int64_t k = 0; k < len; ++k) {
      const T v = p[k * inner];
      if (Max ? v > best : v < best) {
        best = v;
        best_at = k;
      }
    }
    y[j] = static_cast<I>(best_at);
  }
};

template <bool Max, class T, class I>
void run_arg_reduce(const Value& in, Value& out, std::int64_t len, std::int64_t inner) {
  using limits = std::numeric_limits<T>;
  launch(out.size(), ArgReduce<T, I, Max>{in.device_data<T>(), out.device_data<I>(), len, inner,
                                          Max ? limits::lowest() : limits::max()});
}

template <bool Max>
void arg_reduce_kernel(KernelContext& ctx) {
  const Value& in = ctx.input(0);
  const symflow::detail::ArgReducePlan p =
      symflow::detail::arg_reduce_plan(ctx, in.dims(), host_value(ctx.input(1)));
  const std::int64_t len = p.split.len, inner = p.split.inner;
  const DType out_type = ctx.attr<DType>("output_type");
  Value out = empty_device_value(out_type, p.out_dims);
  visit_dtype(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (out_type == DType::int64)
      run_arg_reduce<Max, T, std::int64_t>(in, out, len, inner);
    else
      run_arg_reduce<Max, T, std::int32_t>(in, out, len, inner);  // TypeError unless int32
  });
  ctx.set_output(0, std::move(out));
}

// ---- Cumsum, Cumprod ----------------------------------------------------------------------
template <class T, bool IsProd>
struct Scan {
  const T* x;
  T* y;
  std::int64_t len, inner;
  bool exclusive, reverse;
  SYMFLOW_HD void operator()(std::int64_t j) const {
    symflow::detail::scan_line<IsProd>(x, y, j / inner, j % inner, len, inner, exclusive, reverse);
  }
};

template <bool IsProd>
void scan_kernel(KernelContext& ctx) {
  const Value& in = ctx.input(0);
  const symflow::detail::AxisSplit split =
      symflow::detail::scan_split(ctx, in.dims(), host_value(ctx.input(1)));
  const std::int64_t outer = split.outer, len = split.len, inner = split.inner;
  const bool exclusive = ctx.attr<bool>("exclusive");
  const bool reverse = ctx.attr<bool>("reverse");
  visit_dtype(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (symflow::detail::is_number_v<T>) {
      Value& o = output(ctx, 0, in.dtype(), in.dims());
      launch(outer * inner, Scan<T, IsProd>{in.device_data<T>(), o.device_data<T>(), len, inner,
                                            exclusive, reverse});
    } else {
      symflow::detail::unsupported_dtype(ctx, in.dtype());
    }
  });
}

// ---- L2Loss: sum(t^2) / 2 -------------------------------------------------------------------
// Squares summed in double (as the CPU), in fixed blocks of kL2LossBlock elements whose
// partial sums are then added in order: the result does not depend on the system or
// its thread count.
inline constexpr std::int64_t kL2LossBlock = 4096;

template <class T>
struct SquareSumBlocks {
  const T* x;
  double* partial;
  std::int64_t n;
  SYMFLOW_HD void operator()(std::int64_t b) const {
    const std::int64_t lo = b * kL2LossBlock;
    const std::int64_t hi = lo + kL2LossBlock < n ? lo + kL2LossBlock : n;
    double sum = 0;
    for (std::int64_t i = lo; i < hi; ++i)
      sum += static_cast<double>(x[i]) * static_cast<double>(x[i]);
    partial[b] = sum;
  }
};

template <class T>
struct HalfOfSum {
  const double* partial;
  std::int64_t blocks;
  T* y;
  SYMFLOW_HD void operator()(std::int64_t) const {
    double sum = 0;
    for (std::int64_t b = 0; b < blocks; ++b) sum += partial[b];
    y[0] = static_cast<T>(sum / 2);
  }
};

inline void l2_loss_kernel(KernelContext& ctx) {
  const Value& in = ctx.input(0);
  visit_dtype(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (symflow::detail::is_float_v<T>) {
      const std::int64_t n = in.size();
      const std::int64_t blocks = (n + kL2LossBlock - 1) / kL2LossBlock;
      Value partial = empty_device_value(DType::float64, {blocks});
      double* part = partial.device_data<double>();
      launch(blocks, SquareSumBlocks<T>{in.device_data<T>(), part, n});
      Value& o = output(ctx, 0, in.dtype(), {});
      launch(1, HalfOfSum<T>{part, blocks, o.device_data<T>()});
    } else {
      symflow::detail::unsupported_dtype(ctx, in.dtype());
    }
  });
}

}  // namespace reduce_kernels

inline constexpr auto kReduceKernels = std::to_array<KernelEntry>({
    {&symflow::detail::kSumOp, reduce_kernels::reduction_kernel<symflow::detail::Reduction::sum>},
    {&symflow::detail::kMeanOp, reduce_kernels::reduction_kernel<symflow::detail::Reduction::mean>},
    {&symflow::detail::kMaxOp, reduce_kernels::reduction_kernel<symflow::detail::Reduction::max>},
    {&symflow::detail::kMinOp, reduce_kernels::reduction_kernel<symflow::detail::Reduction::min>},
    {&symflow::detail::kProdOp, reduce_kernels::prod_kernel},
    {&symflow::detail::kAnyOp, reduce_kernels::bool_reduction_kernel<false>},
    {&symflow::detail::kAllOp, reduce_kernels::bool_reduction_kernel<true>},
    {&symflow::detail::kArgMaxOp, reduce_kernels::arg_reduce_kernel<true>},
    {&symflow::detail::kArgMinOp, reduce_kernels::arg_reduce_kernel<false>},
    {&symflow::detail::kCumsumOp, reduce_kernels::scan_kernel<false>},
    {&symflow::detail::kCumprodOp, reduce_kernels::scan_kernel<true>},
    {&symflow::detail::kL2LossOp, reduce_kernels::l2_loss_kernel},
});

}  // namespace symflow::thrust_backend
