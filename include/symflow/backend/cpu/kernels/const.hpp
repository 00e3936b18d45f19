#pragma once
// Const's CPU kernel, and kConstCpuKernels, the table that maps kConstOp
// (ops/defs/const.hpp) to it.

#include <array>

#include "symflow/backend/cpu/kernel_table.hpp"
#include "symflow/backend/kernel_context.hpp"
#include "symflow/ops/defs/const.hpp"

namespace symflow::detail {

inline void const_kernel(KernelContext& ctx) { ctx.set_output(0, ctx.attr<Value>("value")); }

inline constexpr auto kConstCpuKernels = std::to_array<CpuKernel>({
    {&kConstOp, const_kernel},
});

}  // namespace symflow::detail
