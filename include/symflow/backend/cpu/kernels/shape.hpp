#pragma once
// The CPU kernels of the shape ops (ops/defs/shape.hpp describes them), the checks they
// share with the GPU kernels, and kShapeCpuKernels, their entries in the CPU backend's
// kernel table.

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "symflow/backend/cpu/kernel_table.hpp"
#include "symflow/backend/cpu/kernels/array.hpp"
#include "symflow/backend/cpu/kernels/math.hpp"
#include "symflow/backend/kernel_context.hpp"
#include "symflow/core/dtype.hpp"
#include "symflow/core/shape.hpp"
#include "symflow/core/value.hpp"
#include "symflow/ops/defs/math.hpp"
#include "symflow/ops/defs/shape.hpp"
#include "symflow/ops/defs/shape_fn.hpp"

namespace symflow::detail {

// ---- Shape, Size, Rank --------------------------------------------------------
inline void shape_kernel(KernelContext& ctx) {
  ctx.set_output(0, index_vector(ctx.input(0).dims(), ctx.attr<DType>("out_type")));
}

inline void size_kernel(KernelContext& ctx) {
  std::int64_t n = ctx.input(0).size();
  ctx.set_output(0, ctx.attr<DType>("out_type") == DType::int64
                        ? Value(n)
                        : Value(static_cast<std::int32_t>(n)));
}

inline void rank_kernel(KernelContext& ctx) {
  ctx.set_output(0, Value(static_cast<std::int32_t>(ctx.input(0).rank())));
}

// ---- ExpandDims, Squeeze --------------------------------------------------------
inline void expand_dims_kernel(KernelContext& ctx) {
  Dims a = shape_argument(ctx.input(1));
  if (a.size() != 1)
    ctx.fail("'dim' must be a tensor with a single value, got " + dims_to_string(a));
  std::string error;
  auto out = expand_dims_of(ctx.input(0).dims(), a[0], error);
  if (!out) ctx.fail(error);
  ctx.set_output(0, ctx.input(0).reshaped(*out));
}

inline void squeeze_kernel(KernelContext& ctx) {
  std::string error;
  auto out = squeeze_dims_of(ctx.input(0).dims(), ctx.attr<IntList>("squeeze_dims").items, error);
  if (!out) ctx.fail(error);
  ctx.set_output(0, ctx.input(0).reshaped(*out));
}

// ---- BroadcastTo, Tile -----------------------------------------------------------
// BroadcastTo's input must broadcast to exactly the target shape (the CPU and GPU kernels
// share the check).
inline void check_broadcast_to(const KernelContext& ctx, const Dims& in_dims, const Dims& target) {
  auto b = broadcast_dims(in_dims, target);
  if (!b || *b != target)
    ctx.fail("Incompatible shapes: " + dims_to_string(in_dims) + " vs. " + dims_to_string(target));
}

inline void broadcast_to_kernel(KernelContext& ctx) {
  const Value& in = ctx.input(0);
  Dims target = shape_argument(ctx.input(1));
  check_broadcast_to(ctx, in.dims(), target);
  Value& out = ctx.allocate_output_for_overwrite(0, in.dtype(), target);
  broadcast_copy(in, out);
}

// Tile's multiples checked against the input's dims (the CPU and GPU kernels share it);
// returns the output's dims.
inline Dims tile_out_dims(const KernelContext& ctx, const Dims& in_dims, const Dims& m) {
  if (m.size() != in_dims.size())
    ctx.fail("Expected multiples argument to be a vector of length " +
             std::to_string(in_dims.size()) + " but got length " + std::to_string(m.size()));
  Dims out(m.size());
  std::int64_t count = 1;  // the output's element count so far, checked as TensorFlow does
  auto overflow = [&](std::int64_t a, std::int64_t b) {
    ctx.fail("Encountered overflow when multiplying " + std::to_string(a) + " with " +
             std::to_string(b) + ", result: -1");
  };
  for (std::size_t i = 0; i < m.size(); ++i) {
    if (m[i] < 0)
      ctx.fail("Expected multiples[" + std::to_string(i) + "] >= 0, but got " +
               std::to_string(m[i]));
    if (__builtin_mul_overflow(in_dims[i], m[i], &out[i])) overflow(in_dims[i], m[i]);
    std::int64_t next = 0;
    if (__builtin_mul_overflow(count, out[i], &next)) overflow(count, out[i]);
    count = next;
  }
  return out;
}

inline void tile_kernel(KernelContext& ctx) {
  const Value& in = ctx.input(0);
  Dims m = shape_argument(ctx.input(1));
  const Dims out = tile_out_dims(ctx, in.dims(), m);
  Value& o = ctx.allocate_output_for_overwrite(0, in.dtype(), out);
  broadcast_copy(in, o);
}

// ---- BroadcastGradientArgs ---------------------------------------------------------
inline void broadcast_gradient_args_kernel(KernelContext& ctx) {
  Dims s0 = shape_argument(ctx.input(0)), s1 = shape_argument(ctx.input(1));
  auto axes = broadcast_gradient_axes(s0, s1);
  if (!axes) ctx.fail("Incompatible shapes: " + dims_to_string(s0) + " vs. " + dims_to_string(s1));
  ctx.set_output(0, index_vector(axes->first, ctx.input(0).dtype()));
  ctx.set_output(1, index_vector(axes->second, ctx.input(0).dtype()));
}

// ---- ZerosLike, OnesLike, AddN, StopGradient ----------------------------------------
template <int V>
void filled_like_kernel(KernelContext& ctx) {
  const Value& in = ctx.input(0);
  if constexpr (V == 0) {
    ctx.allocate_output(0, in.dtype(), in.dims());  // zero-filled, empty strings
    return;
  }
  Value& out = ctx.allocate_output_for_overwrite(0, in.dtype(), in.dims());
  if (is_storage_dtype(in.dtype())) {  // V converted once, then copied as bytes
    const std::int32_t v = V;
    const std::size_t elem = dtype_size(in.dtype());
    std::byte one[8];
    cast_elements(DType::int32, &v, in.dtype(), one, 1);
    auto* dst = static_cast<std::byte*>(out.raw_data());
    for (std::int64_t i = 0; i < out.size(); ++i)
      std::memcpy(dst + static_cast<std::size_t>(i) * elem, one, elem);
    return;
  }
  visit_dtype(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (T& v : out.flat<T>()) v = static_cast<T>(V);
  });
}

// AddN's inputs must share one shape (the CPU and GPU kernels share the check).
inline void check_add_n(const KernelContext& ctx) {
  const Value& first = ctx.input(0);
  for (std::size_t i = 1; i < ctx.num_inputs(); ++i)
    if (ctx.input(i).dims() != first.dims())
      ctx.fail("Inputs to operation AddN must have the same size and shape. Input 0: " +
               dims_to_string(first.dims()) + " != input " + std::to_string(i) + ": " +
               dims_to_string(ctx.input(i).dims()));
}

inline void add_n_kernel(KernelContext& ctx) {
  const Value& first = ctx.input(0);
  check_add_n(ctx);
  Value& out = ctx.allocate_output(0, first.dtype(), first.dims());
  visit_dtype(first.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_number_v<T>) {
      T* y = out.data<T>();
      const std::int64_t n = out.size();
      const T* x0 = first.data<T>();
      for (std::int64_t k = 0; k < n; ++k) y[k] = x0[k];
      for (std::size_t i = 1; i < ctx.num_inputs(); ++i) {
        const T* x = ctx.input(i).data<T>();
        for (std::int64_t k = 0; k < n; ++k) y[k] = add_wrapping(y[k], x[k]);
      }
    } else {
      unsupported_dtype(ctx, first.dtype());
    }
  });
}

inline constexpr auto kShapeCpuKernels = std::to_array<CpuKernel>({
    {&kShapeOp, shape_kernel},
    {&kSizeOp, size_kernel},
    {&kRankOp, rank_kernel},
    {&kExpandDimsOp, expand_dims_kernel},
    {&kSqueezeOp, squeeze_kernel},
    {&kBroadcastToOp, broadcast_to_kernel},
    {&kTileOp, tile_kernel},
    {&kBroadcastGradientArgsOp, broadcast_gradient_args_kernel},
    {&kZerosLikeOp, filled_like_kernel<0>},
    {&kOnesLikeOp, filled_like_kernel<1>},
    {&kAddNOp, add_n_kernel},
    {&kStopGradientOp, identity_kernel},
});

}  // namespace symflow::detail
