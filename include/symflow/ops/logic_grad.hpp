#pragma once
// Gradients of the comparison, logical, selection and arg-reduction ops built in
// logic_ops.hpp, following TensorFlow's math_grad.py / array_grad.py: only Select lets a
// gradient through.

#include <array>
#include <vector>

#include "symflow/ops/grad_context.hpp"
#include "symflow/ops/logic_ops.hpp"
#include "symflow/ops/shape_ops.hpp"

namespace symflow::detail {

// Select: the gradient goes to t where the condition holds and to e elsewhere.
inline std::vector<Output> select_grad(const GradContext& c) {
  const Output cond = c.input(0);
  const Output zeros = zeros_like(c.input(1));
  return {Output{}, where(cond, c.grad(), zeros), where(cond, zeros, c.grad())};
}

inline constexpr auto kLogicOpEntries = std::to_array<OpEntry>({
    {&kEqualOp, not_differentiable},
    {&kNotEqualOp, not_differentiable},
    {&kLessOp, not_differentiable},
    {&kLessEqualOp, not_differentiable},
    {&kGreaterOp, not_differentiable},
    {&kGreaterEqualOp, not_differentiable},
    {&kLogicalAndOp, not_differentiable},
    {&kLogicalOrOp, not_differentiable},
    {&kLogicalNotOp, not_differentiable},
    {&kSelectOp, select_grad},
    {&kWhereOp, not_differentiable},
    {&kArgMaxOp, not_differentiable},
    {&kArgMinOp, not_differentiable},
});

}  // namespace symflow::detail
