#pragma once
// The CPU kernels of the TensorArray ops (ops/defs/tensor_array.hpp).

#include <array>

#include "symflow/backend/cpu/kernel_table.hpp"
#include "symflow/ops/defs/tensor_array.hpp"

namespace symflow::detail {

inline constexpr std::array<CpuKernel, 0> kTensorArrayCpuKernels{};

}  // namespace symflow::detail
