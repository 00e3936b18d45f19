#pragma once
// The control ops' CPU kernels and kControlCpuKernels, the table that maps their
// OpDefs (ops/defs/control.hpp) to them. They only pass buffers on, so the Thrust
// backend uses them too: a predicate in device memory is read on the host.

#include <array>
#include <cstdint>
#include <iterator>

#include "symflow/backend/backend.hpp"
#include "symflow/backend/cpu/kernel_table.hpp"
#include "symflow/backend/kernel_context.hpp"
#include "symflow/ops/defs/control.hpp"

namespace symflow::detail {

inline void no_op_kernel(KernelContext&) {}

// Switch's predicate, read on the host.
inline bool switch_predicate(const KernelContext& ctx) {
  const Value& pred = ctx.input(1);
  return pred.on_device() && ctx.backend() ? ctx.backend()->to_host(pred).scalar<bool>()
                                           : pred.scalar<bool>();
}

// Output `pred` is the data; the other one stays empty, which the executor reads as dead.
inline void switch_kernel(KernelContext& ctx) {
  ctx.set_output(switch_predicate(ctx) ? 1 : 0, ctx.input(0));
}
// The same for a variable reference: the taken output is the variable itself.
inline void ref_switch_kernel(KernelContext& ctx) {
  ctx.forward_ref(0, switch_predicate(ctx) ? 1 : 0);
}

// Merge's value_index `i` on the kernel's device. On the host, indices 0 to 3 share
// read-only buffers, so that a loop's Merges allocate nothing per iteration.
inline Value merge_index(const KernelContext& ctx, std::size_t i) {
  static const Value kShared[] = {Value(std::int32_t{0}), Value(std::int32_t{1}),
                                  Value(std::int32_t{2}), Value(std::int32_t{3})};
  Value index = i < std::size(kShared) ? kShared[i] : Value(static_cast<std::int32_t>(i));
  return ctx.backend() && ctx.backend()->memory_space() == MemorySpace::device
             ? ctx.backend()->from_host(index)
             : index;
}

// The first input that is alive, and its index; with none alive the outputs stay empty
// (dead). TensorFlow's Merge takes whichever arrives first; in a graph built by cond at
// most one is alive, and in a loop's Merge the Enter in the first iteration, the
// NextIteration after.
inline void merge_kernel(KernelContext& ctx) {
  for (std::size_t i = 0; i < ctx.num_inputs(); ++i) {
    if (ctx.input(i).is_none()) continue;
    ctx.set_output(0, ctx.input(i));
    ctx.set_output(1, merge_index(ctx, i));
    return;
  }
}

// The same for variable references: the output is the variable of the live input.
inline void ref_merge_kernel(KernelContext& ctx) {
  for (std::size_t i = 0; i < ctx.num_inputs(); ++i) {
    if (!ctx.has_ref_input(i)) continue;
    ctx.forward_ref(i, 0);
    ctx.set_output(1, merge_index(ctx, i));
    return;
  }
}

// Enter, Exit, NextIteration and LoopCond pass their input on: the executor gives them
// their meaning (runtime/frames.hpp). Their Ref forms pass the variable itself on.
inline void pass_on_kernel(KernelContext& ctx) { ctx.set_output(0, ctx.input(0)); }
inline void pass_on_ref_kernel(KernelContext& ctx) { ctx.forward_ref(0, 0); }

inline constexpr auto kControlCpuKernels = std::to_array<CpuKernel>({
    {&kNoOp, no_op_kernel},
    {&kControlTriggerOp, no_op_kernel},
    {&kSwitchOp, switch_kernel},
    {&kRefSwitchOp, ref_switch_kernel},
    {&kMergeOp, merge_kernel},
    {&kRefMergeOp, ref_merge_kernel},
    {&kEnterOp, pass_on_kernel},
    {&kRefEnterOp, pass_on_ref_kernel},
    {&kExitOp, pass_on_kernel},
    {&kRefExitOp, pass_on_ref_kernel},
    {&kNextIterationOp, pass_on_kernel},
    {&kRefNextIterationOp, pass_on_ref_kernel},
    {&kLoopCondOp, pass_on_kernel},
});

}  // namespace symflow::detail
