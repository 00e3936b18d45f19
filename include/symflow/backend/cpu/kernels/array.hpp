#pragma once
// The CPU kernels of Placeholder, PlaceholderWithDefault, Identity, Reshape, Fill and
// CheckNumerics, and
// kArrayCpuKernels, the table that maps their OpDefs (ops/defs/array.hpp) to them.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "symflow/backend/cpu/kernel_table.hpp"
#include "symflow/backend/kernel_context.hpp"
#include "symflow/ops/defs/array.hpp"
#include "symflow/ops/defs/math.hpp"

namespace symflow::detail {

// A Placeholder runs only when it was not fed.
inline void placeholder_kernel(KernelContext& ctx) {
  const Shape& shape = ctx.attr<Shape>("shape");
  std::string message = "You must feed a value for placeholder tensor '" + ctx.node_name() +
                        "' with dtype " + std::string(dtype_runtime_name(ctx.attr<DType>("dtype")));
  if (shape.has_rank() && shape.rank() > 0) message += " and shape " + dims_to_string(shape.dims());
  ctx.fail(message);
}

inline void identity_kernel(KernelContext& ctx) { ctx.set_output(0, ctx.input(0)); }

inline void reshape_kernel(KernelContext& ctx) {
  const Value& in = ctx.input(0);
  std::string error;
  auto dims = resolve_reshape(shape_argument(ctx.input(1)), in.size(), error);
  if (!dims) ctx.fail(error);
  ctx.set_output(0, in.reshaped(*dims));
}

// Fill's dims, checked with TensorFlow's words: none negative, an element count
// within int64.
inline void check_fill_dims(const KernelContext& ctx, const Dims& dims) {
  if (checked_num_elements(dims)) [[likely]]
    return;
  for (auto d : dims)
    if (d < 0) ctx.fail("Dimension " + std::to_string(d) + " must be >= 0");
  ctx.fail(too_many_elements_message(dims));
}

inline void fill_kernel(KernelContext& ctx) {
  Dims dims = shape_argument(ctx.input(0));
  check_fill_dims(ctx, dims);
  const Value& v = ctx.input(1);
  if (v.rank() != 0) ctx.fail("value must be a scalar, got shape " + dims_to_string(v.dims()));
  Value& out = ctx.allocate_output(0, v.dtype(), dims);
  if (v.dtype() == DType::string) {
    std::fill_n(out.data<std::string>(), out.size(), v.scalar<std::string>());
    return;
  }
  std::size_t elem = dtype_size(v.dtype());
  auto* dst = static_cast<std::byte*>(out.raw_data());
  for (std::int64_t i = 0; i < out.size(); ++i)
    std::memcpy(dst + static_cast<std::size_t>(i) * elem, v.raw_data(), elem);
}

// Passes its input on unless an element is NaN or infinite.
inline void check_numerics_kernel(KernelContext& ctx) {
  const Value& in = ctx.input(0);
  visit_dtype(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T>) {
      bool saw_nan = false, saw_inf = false;
      for (T x : in.flat<T>()) {
        saw_nan = saw_nan || IsNanFn{}(x);
        saw_inf = saw_inf || IsInfFn{}(x);
      }
      const std::string error =
          check_numerics_error(ctx.attr<std::string>("message"), saw_nan, saw_inf);
      if (!error.empty()) ctx.fail(error);
    } else {
      ctx.fail("No kernel for dtype " + std::string(dtype_name(in.dtype())) + " on this op");
    }
  });
  ctx.set_output(0, in);
}

inline constexpr auto kArrayCpuKernels = std::to_array<CpuKernel>({
    {&kPlaceholderOp, placeholder_kernel},
    {&kIdentityOp, identity_kernel},
    // Runs only when not fed: then it passes its default on, as TensorFlow's kernel does.
    {&kPlaceholderWithDefaultOp, identity_kernel},
    {&kReshapeOp, reshape_kernel},
    {&kFillOp, fill_kernel},
    {&kCheckNumericsOp, check_numerics_kernel},
});

}  // namespace symflow::detail
