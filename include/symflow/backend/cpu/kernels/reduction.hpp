#pragma once
// The CPU kernels of Prod, Any, All, Cumsum and Cumprod; scan_split, the scans' axis
// check (the GPU kernels share it); and kReductionCpuKernels, the table that maps their
// OpDefs (ops/defs/reduction.hpp) to them.

#include <array>
#include <cstdint>
#include <string>

#include "symflow/backend/cpu/kernel_table.hpp"
#include "symflow/backend/cpu/kernels/math.hpp"
#include "symflow/backend/cpu/reduce.hpp"
#include "symflow/backend/kernel_context.hpp"
#include "symflow/ops/defs/reduction.hpp"

namespace symflow::detail {

// ---- Prod -------------------------------------------------------------------------
inline void prod_kernel(KernelContext& ctx) {
  const Value& in = ctx.input(0);
  const AxisMask mask = reduction_mask_input(ctx, ctx.input(1), in.rank());
  bool keep = ctx.attr<bool>("keep_dims");
  visit_dtype(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_number_v<T>)
      ctx.set_output(0, cpu::reduce<T>(in, mask, keep, T{1}, MulWrappingFn{}));
    else
      unsupported_dtype(ctx, in.dtype());
  });
}

// ---- Any, All ------------------------------------------------------------------------
template <bool IsAll>
void bool_reduction_kernel(KernelContext& ctx) {
  const Value& in = ctx.input(0);
  const AxisMask mask = reduction_mask_input(ctx, ctx.input(1), in.rank());
  bool keep = ctx.attr<bool>("keep_dims");
  ctx.set_output(0, cpu::reduce<bool>(in, mask, keep, IsAll,
                                      [](bool a, bool b) { return IsAll ? a && b : a || b; }));
}

// ---- Cumsum, Cumprod ---------------------------------------------------------------------
// A scan's axis (a host value) checked against the input's dims (the CPU and GPU kernels
// share it), and the input split there.
inline AxisSplit scan_split(const KernelContext& ctx, const Dims& d, const Value& axis_value) {
  return split_at_axis_input(ctx, d, axis_value, "ScanOp: axis must be a scalar, not ",
                             "ScanOp: Expected scan axis");
}

template <bool IsProd>
void scan_kernel(KernelContext& ctx) {
  const Value& in = ctx.input(0);
  const AxisSplit split = scan_split(ctx, in.dims(), ctx.input(1));
  const std::int64_t outer = split.outer, len = split.len, inner = split.inner;
  const bool exclusive = ctx.attr<bool>("exclusive");
  const bool reverse = ctx.attr<bool>("reverse");
  Value& out = ctx.allocate_output(0, in.dtype(), in.dims());
  visit_dtype(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_number_v<T>) {
      const T* x = in.data<T>();
      T* y = out.data<T>();
      for (std::int64_t o = 0; o < outer; ++o)
        for (std::int64_t i = 0; i < inner; ++i)
          scan_line<IsProd>(x, y, o, i, len, inner, exclusive, reverse);
    } else {
      unsupported_dtype(ctx, in.dtype());
    }
  });
}

inline constexpr auto kReductionCpuKernels = std::to_array<CpuKernel>({
    {&kProdOp, prod_kernel},
    {&kAnyOp, bool_reduction_kernel<false>},
    {&kAllOp, bool_reduction_kernel<true>},
    {&kCumsumOp, scan_kernel<false>},
    {&kCumprodOp, scan_kernel<true>},
});

}  // namespace symflow::detail
