#pragma once
// How the CPU backend finds its kernels: each area of kernels (backend/cpu/kernels/)
// lists one CpuKernel per op it runs, keyed by the op's descriptor (ops/defs/), and
// backend/cpu/cpu_kernels.hpp joins the lists.

#include "symflow/backend/cpu/fused.hpp"
#include "symflow/backend/fused_program.hpp"
#include "symflow/backend/kernel_context.hpp"
#include "symflow/ops/defs/op_def.hpp"

namespace symflow {

struct CpuKernel {
  const OpDef* op = nullptr;
  KernelFn kernel = nullptr;
  // Set on elementwise ops whose float nodes may be fused with their neighbours.
  const ElementwiseDef* elementwise = nullptr;
};

namespace detail {

// Functor ops on float32 and float64 can run inside fused clusters.
template <class Fn, int Arity, bool Broadcasts = true>
constexpr const ElementwiseDef* elementwise_of() {
  if constexpr (Fn::template accepts<float> && Fn::template accepts<double>)
    return &cpu::elementwise_def<Fn, Arity, Broadcasts>;
  else
    return nullptr;
}

}  // namespace detail
}  // namespace symflow
