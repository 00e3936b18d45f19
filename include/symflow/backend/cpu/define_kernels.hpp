#pragma once
// Defines the CPU kernels of a program whose sources declare them only
// (SYMFLOW_SEPARATE_CPU_KERNELS, graph/op_def.hpp). Include this in exactly one
// source file of such a program; the CMake targets do it for you.

#if !defined(SYMFLOW_SEPARATE_CPU_KERNELS)
#error \
    "symflow/backend/cpu/define_kernels.hpp is for programs built with SYMFLOW_SEPARATE_CPU_KERNELS"
#endif
#define SYMFLOW_DEFINE_CPU_KERNELS

#include <array>
#include <cstddef>

#include "symflow/symflow.hpp"

namespace symflow::detail {

// Every registered kernel's address, in an object this file must emit: that emits
// the kernel templates' instances (binary_kernel<AddFn>, ...) that the other
// sources name but do not instantiate.
consteval std::array<KernelFn, kAllOps.size()> all_cpu_kernels() {
  std::array<KernelFn, kAllOps.size()> kernels{};
  for (std::size_t i = 0; i < kAllOps.size(); ++i) kernels[i] = kAllOps[i].def->cpu_kernel;
  return kernels;
}
extern const std::array<KernelFn, kAllOps.size()> kCpuKernels;
const std::array<KernelFn, kAllOps.size()> kCpuKernels = all_cpu_kernels();

}  // namespace symflow::detail
