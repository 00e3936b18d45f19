#pragma once
// The CPU backend: kernels on Eigen and plain loops over host Values.

#include "symflow/backend/backend.hpp"
#include "symflow/backend/cpu/fused_kernel.hpp"

namespace symflow {

class CpuBackend final : public Backend {
 public:
  std::string_view device_type() const override { return "CPU"; }
  KernelFn kernel(const OpDef& def) const override { return def.cpu_kernel; }
  FusedKernelFn fused_kernel() const override { return &cpu::run_fused; }
  Value allocate_for_overwrite(DType dtype, Dims dims) const override {
    return Value::for_overwrite(dtype, std::move(dims));
  }
};

}  // namespace symflow
