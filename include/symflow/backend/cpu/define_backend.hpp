#pragma once
// Defines cpu::backend() (backend/cpu/cpu_backend.hpp): inline in a header-only
// program, or once in the library of symflow::compiled (SYMFLOW_COMPILED).

#include <unordered_map>

#include "symflow/backend/cpu/cpu_backend.hpp"
#include "symflow/backend/cpu/cpu_kernels.hpp"
#include "symflow/backend/cpu/fused_kernel.hpp"
#include "symflow/backend/cpu/kernels/conv_epilogue.hpp"

namespace symflow {

namespace cpu::detail {

class CpuBackend final : public Backend {
 public:
  CpuBackend() {
    by_op_.reserve(symflow::detail::kCpuKernels.size());
    for (const CpuKernel& k : symflow::detail::kCpuKernels) by_op_.emplace(k.op, &k);
  }
  std::string_view device_type() const override { return "CPU"; }
  KernelFn kernel(const OpDef& def) const override {
    const CpuKernel* k = find(def);
    return k ? k->kernel : nullptr;
  }
  FusedKernelFn fused_kernel() const override { return &cpu::run_fused; }
  const ElementwiseDef* elementwise(const OpDef& def) const override {
    const CpuKernel* k = find(def);
    return k ? k->elementwise : nullptr;
  }
  KernelFn conv_epilogue_kernel(const OpDef& conv) const override {
    return symflow::detail::cpu_conv_epilogue_kernel(conv);
  }
  Value allocate_for_overwrite(DType dtype, Dims dims) const override {
    return Value::for_overwrite(dtype, std::move(dims));
  }

 private:
  const CpuKernel* find(const OpDef& def) const {
    const auto it = by_op_.find(&def);
    return it == by_op_.end() ? nullptr : it->second;
  }
  // Kernels are found once per step when a plan is made, not on every run.
  std::unordered_map<const OpDef*, const CpuKernel*> by_op_;
};

}  // namespace cpu::detail

SYMFLOW_INLINE const Backend& cpu::backend() {
  static const cpu::detail::CpuBackend backend;
  return backend;
}

}  // namespace symflow
