#pragma once
// The CPU kernels of the comparisons, the logical ops, Select, SelectV2, Where and
// ArgMax/ArgMin; the argument checks their GPU kernels share (select_inner,
// select_v2_dims, arg_reduce_plan); and kLogicCpuKernels, the table that maps their
// OpDefs (ops/defs/logic.hpp) to them.

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "symflow/backend/cpu/elementwise.hpp"
#include "symflow/backend/cpu/kernel_table.hpp"
#include "symflow/backend/cpu/kernels/math.hpp"
#include "symflow/backend/kernel_context.hpp"
#include "symflow/ops/defs/logic.hpp"

namespace symflow::detail {

// ---- comparisons --------------------------------------------------------------------
template <class Fn>
void compare_kernel(KernelContext& ctx) {
  visit_dtype(ctx.input(0).dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (Fn::template accepts<T>)
      cpu::binary<T, bool>(ctx, Fn{});
    else
      unsupported_dtype(ctx, ctx.input(0).dtype());
  });
}

// ---- logical ops ----------------------------------------------------------------------
template <class Fn>
void logical_binary_kernel(KernelContext& ctx) {
  cpu::binary<bool, bool>(ctx, Fn{});
}

inline void logical_not_kernel(KernelContext& ctx) {
  cpu::unary<bool, bool>(ctx, [](bool a) { return !a; });
}

// ---- Select ---------------------------------------------------------------------------
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

inline void select_kernel(KernelContext& ctx) {
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
  visit_any_dtype(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* tv = t.data<T>();
    const T* ev = e.data<T>();
    T* o = out.data<T>();
    const std::int64_t n = out.size();
    for (std::int64_t i = 0; i < n; ++i) o[i] = cv[inner == 1 ? i : i / inner] ? tv[i] : ev[i];
  });
}

// ---- SelectV2 --------------------------------------------------------------------------
// The shape condition, t and e broadcast to, or the kernel's failure in TensorFlow's words
// (the CPU and GPU kernels share it).
inline Dims select_v2_dims(const KernelContext& ctx, const Dims& cond, const Dims& t,
                           const Dims& e) {
  std::optional<Dims> out = broadcast_dims(t, e);
  if (out) out = broadcast_dims(cond, *out);
  if (!out)
    ctx.fail("condition " + dims_to_string(cond) + ", then " + dims_to_string(t) + ", and else " +
             dims_to_string(e) + " must be broadcastable");
  return *out;
}

inline void select_v2_kernel(KernelContext& ctx) {
  const Value& cond = ctx.input(0);
  const Value& t = ctx.input(1);
  const Value& e = ctx.input(2);
  const Dims out_dims = select_v2_dims(ctx, cond.dims(), t.dims(), e.dims());
  if (cond.rank() == 0) {  // a whole branch, forwarded when no broadcasting is needed
    const Value& chosen = cond.data<bool>()[0] ? t : e;
    if (chosen.dims() == out_dims) {
      ctx.set_output(0, chosen);
      return;
    }
  }
  Value& out = ctx.allocate_output(0, t.dtype(), out_dims);
  const std::int64_t n = out.size();
  if (n == 0) return;
  visit_dtype(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const bool* c = cond.data<bool>();
    const T* tv = t.data<T>();
    const T* ev = e.data<T>();
    T* o = out.data<T>();
    if (cond.size() == n && t.size() == n && e.size() == n) {
      for (std::int64_t i = 0; i < n; ++i) o[i] = c[i] ? tv[i] : ev[i];
      return;
    }
    // Walk the output in row-major order (the innermost axis in a tight loop), each
    // input's offset following its broadcast strides, as cpu::binary does for two.
    const std::size_t rank = out_dims.size();
    const Dims sc = cpu::broadcast_strides(cond.dims(), out_dims);
    const Dims st = cpu::broadcast_strides(t.dims(), out_dims);
    const Dims se = cpu::broadcast_strides(e.dims(), out_dims);
    const std::int64_t inner = out_dims[rank - 1];
    const std::int64_t ic = sc[rank - 1], it = st[rank - 1], ie = se[rank - 1];
    Dims index(rank, 0);
    std::int64_t oc = 0, ot = 0, oe = 0;
    for (std::int64_t base = 0; base < n; base += inner) {
      for (std::int64_t i = 0; i < inner; ++i)
        o[base + i] = c[oc + i * ic] ? tv[ot + i * it] : ev[oe + i * ie];
      for (std::size_t axis = rank - 1; axis-- > 0;) {
        oc += sc[axis];
        ot += st[axis];
        oe += se[axis];
        if (++index[axis] < out_dims[axis]) break;
        oc -= sc[axis] * out_dims[axis];
        ot -= st[axis] * out_dims[axis];
        oe -= se[axis] * out_dims[axis];
        index[axis] = 0;
      }
    }
  });
}

// ---- Where ----------------------------------------------------------------------------
inline void where_kernel(KernelContext& ctx) {
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

// ---- ArgMax, ArgMin ---------------------------------------------------------------------
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
template <bool Max>
void arg_reduce_kernel(KernelContext& ctx) {
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

inline constexpr auto kLogicCpuKernels = std::to_array<CpuKernel>({
    {&kEqualOp, compare_kernel<EqualFn>},
    {&kNotEqualOp, compare_kernel<NotEqualFn>},
    {&kLessOp, compare_kernel<LessFn>},
    {&kLessEqualOp, compare_kernel<LessEqualFn>},
    {&kGreaterOp, compare_kernel<GreaterFn>},
    {&kGreaterEqualOp, compare_kernel<GreaterEqualFn>},
    {&kLogicalAndOp, logical_binary_kernel<LogicalAndFn>},
    {&kLogicalOrOp, logical_binary_kernel<LogicalOrFn>},
    {&kLogicalNotOp, logical_not_kernel},
    {&kSelectOp, select_kernel},
    {&kSelectV2Op, select_v2_kernel},
    {&kWhereOp, where_kernel},
    {&kArgMaxOp, arg_reduce_kernel<true>},
    {&kArgMinOp, arg_reduce_kernel<false>},
});

}  // namespace symflow::detail
