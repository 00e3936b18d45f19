#pragma once
// The description of TensorFlow's stack ops (data_flow_ops.cc): StackV2 makes a stack in
// the run and gives its handle, StackPushV2 pushes a tensor and passes it on, StackPopV2
// takes the last one off, StackCloseV2 lets the stack go. A while loop's gradient keeps
// each forward iteration's values on them (ops/while_grad.hpp); the CPU kernels are in
// backend/cpu/kernels/stack.hpp. The stack lives on the host, so the ops do too.

#include <string>
#include <vector>

#include "symflow/core/dtype.hpp"
#include "symflow/core/errors.hpp"
#include "symflow/core/shape.hpp"
#include "symflow/ops/defs/op_def.hpp"
#include "symflow/ops/defs/shape_fn.hpp"

namespace symflow::detail::stacks {

inline void require_handle(const InferContext& c, std::size_t i, const char* op) {
  if (c.dtype(i) != DType::resource)
    throw TypeError("Input 'handle' of '" + std::string(op) + "' Op has type " +
                    std::string(dtype_name(c.dtype(i))) +
                    " that does not match expected type of resource.");
}

// StackV2(max_size: int32) -> handle: resource, a scalar.
inline std::vector<TensorSpec> infer_stack(const InferContext& c) {
  if (c.dtype(0) != DType::int32)
    throw TypeError("Input 'max_size' of 'StackV2' Op has type " +
                    std::string(dtype_name(c.dtype(0))) +
                    " that does not match expected type of int32.");
  require_rank(c.shape(0), 0);
  return {{DType::resource, Shape{}}};
}
SYMFLOW_OP_DEF(kStackV2Op, OpDef{.type = "StackV2",
                                 .num_inputs = 1,
                                 .infer = infer_stack,
                                 .stateful = true,
                                 .accepts_resources = true,
                                 .host_only = true});

// StackPushV2(handle, elem: T) -> elem, passed on.
inline std::vector<TensorSpec> infer_stack_push(const InferContext& c) {
  require_handle(c, 0, "StackPushV2");
  return {{c.dtype(1), c.shape(1)}};
}
SYMFLOW_OP_DEF(kStackPushV2Op, OpDef{.type = "StackPushV2",
                                     .num_inputs = 2,
                                     .infer = infer_stack_push,
                                     .stateful = true,
                                     .accepts_resources = true,
                                     .host_only = true});

// StackPopV2(handle) -> elem: elem_type, of a shape only the run knows.
inline std::vector<TensorSpec> infer_stack_pop(const InferContext& c) {
  require_handle(c, 0, "StackPopV2");
  return {{c.attr<DType>("elem_type"), Shape::unknown()}};
}
SYMFLOW_OP_DEF(kStackPopV2Op, OpDef{.type = "StackPopV2",
                                    .num_inputs = 1,
                                    .infer = infer_stack_pop,
                                    .stateful = true,
                                    .accepts_resources = true,
                                    .host_only = true});

inline std::vector<TensorSpec> infer_stack_close(const InferContext& c) {
  require_handle(c, 0, "StackCloseV2");
  return {};
}
SYMFLOW_OP_DEF(kStackCloseV2Op, OpDef{.type = "StackCloseV2",
                                      .num_inputs = 1,
                                      .infer = infer_stack_close,
                                      .stateful = true,
                                      .accepts_resources = true,
                                      .host_only = true});

}  // namespace symflow::detail::stacks
