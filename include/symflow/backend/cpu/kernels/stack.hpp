#pragma once
// The CPU kernels of the stack ops (ops/defs/stack.hpp): a stack is a run's resource
// (backend/step_resources.hpp) holding the values pushed, which share their buffers.

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "symflow/backend/cpu/kernel_table.hpp"
#include "symflow/backend/kernel_context.hpp"
#include "symflow/core/value.hpp"
#include "symflow/ops/defs/stack.hpp"

namespace symflow::detail::stacks {

struct Stack {
  std::mutex mutex;
  DType elem_type = DType::invalid;
  std::int32_t max_size = -1;  // negative: no limit
  std::vector<Value> items;
};

// A handle: the resource's name in the run, as a resource scalar.
inline Value handle_value(std::string name) {
  Value v(DType::resource, {});
  v.data<std::string>()[0] = std::move(name);
  return v;
}

inline std::shared_ptr<Stack> stack_of(KernelContext& ctx) {
  const Value& handle = ctx.input(0);
  if (handle.dtype() != DType::resource || handle.rank() != 0)
    ctx.fail("Expected a stack handle (a resource scalar), got a " +
             std::string(dtype_name(handle.dtype())) + " of shape " +
             dims_to_string(handle.dims()));
  return ctx.step_resources().find<Stack>(handle.scalar<std::string>(), ctx.node_name());
}

inline void stack_kernel(KernelContext& ctx) {
  auto stack = std::make_shared<Stack>();
  stack->elem_type = ctx.attr<DType>("elem_type");
  stack->max_size = ctx.input(0).scalar<std::int32_t>();
  ctx.set_output(0, handle_value(ctx.step_resources().add(ctx.node_name(), std::move(stack))));
}

inline void stack_push_kernel(KernelContext& ctx) {
  const std::shared_ptr<Stack> stack = stack_of(ctx);
  const Value& elem = ctx.input(1);
  std::lock_guard lock(stack->mutex);
  if (elem.dtype() != stack->elem_type)
    ctx.fail("Stack " + ctx.input(0).scalar<std::string>() + " holds " +
             std::string(dtype_name(stack->elem_type)) + ", and was pushed a " +
             std::string(dtype_name(elem.dtype())));
  if (stack->max_size >= 0 && stack->items.size() >= static_cast<std::size_t>(stack->max_size))
    ctx.fail("Stack[" + ctx.input(0).scalar<std::string>() + "] overflowed its max_size (" +
             std::to_string(stack->max_size) + ")");
  stack->items.push_back(elem);
  ctx.set_output(0, elem);
}

inline void stack_pop_kernel(KernelContext& ctx) {
  const std::shared_ptr<Stack> stack = stack_of(ctx);
  std::lock_guard lock(stack->mutex);
  if (stack->items.empty())
    ctx.fail("Stack[" + ctx.input(0).scalar<std::string>() + "] is empty when calling Pop().");
  ctx.set_output(0, std::move(stack->items.back()));
  stack->items.pop_back();
}

inline void stack_close_kernel(KernelContext& ctx) {
  ctx.step_resources().erase(ctx.input(0).scalar<std::string>());
}

}  // namespace symflow::detail::stacks

namespace symflow::detail {

inline constexpr auto kStackCpuKernels = std::to_array<CpuKernel>({
    {&stacks::kStackV2Op, stacks::stack_kernel},
    {&stacks::kStackPushV2Op, stacks::stack_push_kernel},
    {&stacks::kStackPopV2Op, stacks::stack_pop_kernel},
    {&stacks::kStackCloseV2Op, stacks::stack_close_kernel},
});

}  // namespace symflow::detail
