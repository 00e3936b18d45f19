#pragma once
// NoOp's CPU kernel, which does nothing, and kControlCpuKernels, the table that maps
// kNoOp (ops/defs/control.hpp) to it.

#include <array>

#include "symflow/backend/cpu/kernel_table.hpp"
#include "symflow/backend/kernel_context.hpp"
#include "symflow/ops/defs/control.hpp"

namespace symflow::detail {

inline void no_op_kernel(KernelContext&) {}

inline constexpr auto kControlCpuKernels = std::to_array<CpuKernel>({
    {&kNoOp, no_op_kernel},
});

}  // namespace symflow::detail
