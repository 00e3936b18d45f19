#pragma once
// Graph-building functions of the stack ops (ops/defs/stack.hpp), as TensorFlow's
// gen_data_flow_ops builds them, and the area's registry entries. A while loop's gradient
// uses them (ops/while_grad.hpp); TensorFlow registers no gradient for them.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "symflow/graph/graph.hpp"
#include "symflow/graph/tensor.hpp"
#include "symflow/ops/defs/stack.hpp"
#include "symflow/ops/grad_context.hpp"
#include "symflow/ops/op_builder.hpp"

namespace symflow::detail {

// StackV2: a stack of `elem_type` values, at most `max_size` of them (-1: no limit).
inline Output stack_v2(Graph g, DType elem_type, std::string_view stack_name,
                       std::string_view name = "Stack", std::int32_t max_size = -1) {
  OpBuilder b(std::move(g), name, "Stack");
  const Output max = b.constant_arg(Value(max_size), "max_size");
  return b
      .build(stacks::kStackV2Op, {max},
             {{"elem_type", elem_type}, {"stack_name", std::string(stack_name)}})
      .output(0);
}

inline Output stack_push(const Output& handle, const Output& elem, bool swap_memory = false,
                         std::string_view name = "StackPushV2") {
  Graph g = handle.op().graph();
  return g
      .create_op(stacks::kStackPushV2Op, {handle, elem},
                 {{"T", elem.dtype()}, {"swap_memory", swap_memory}}, name)
      .output(0);
}

inline Output stack_pop(const Output& handle, DType elem_type,
                        std::string_view name = "StackPopV2") {
  Graph g = handle.op().graph();
  return g.create_op(stacks::kStackPopV2Op, {handle}, {{"elem_type", elem_type}}, name).output(0);
}

inline Operation stack_close(const Output& handle, std::string_view name = "StackCloseV2") {
  Graph g = handle.op().graph();
  return g.create_op(stacks::kStackCloseV2Op, {handle}, {}, name);
}

inline constexpr auto kStackOpEntries = std::to_array<OpEntry>({
    {&stacks::kStackV2Op, not_differentiable},
    {&stacks::kStackPushV2Op, not_differentiable},
    {&stacks::kStackPopV2Op, not_differentiable},
    {&stacks::kStackCloseV2Op, not_differentiable},
});

}  // namespace symflow::detail
