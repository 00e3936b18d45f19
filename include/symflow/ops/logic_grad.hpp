#pragma once
// Gradients of the comparison, logical, selection and arg-reduction ops built in
// logic_ops.hpp, following TensorFlow's math_grad.py / array_grad.py: only Select and
// SelectV2 let a gradient through.

#include <array>
#include <vector>

#include "symflow/ops/const_op.hpp"
#include "symflow/ops/grad_context.hpp"
#include "symflow/ops/logic_ops.hpp"
#include "symflow/ops/math_grad.hpp"
#include "symflow/ops/shape_ops.hpp"

namespace symflow::detail {

// Select: the gradient goes to t where the condition holds and to e elsewhere.
inline std::vector<Output> select_grad(const GradContext& c) {
  const Output cond = c.input(0);
  const Output zeros = zeros_like(c.input(1));
  return {Output{}, where(cond, c.grad(), zeros), where(cond, zeros, c.grad())};
}

// `grad`, of the shape of the op's output z, summed to the shape of its input x, as
// TensorFlow's _ReduceGradientArgs(x, z, ...): from the static shapes of x and z when both
// are known (the incoming gradient's may not be), else from their run-time shapes.
inline Output sum_to_input_shape(const Output& grad, const Output& x, const Output& z) {
  const Shape& xs = x.get_shape();
  const Shape& zs = z.get_shape();
  if (xs.is_fully_defined() && zs.is_fully_defined()) {
    if (xs.dims() == zs.dims()) return grad;
    if (auto axes = broadcast_gradient_axes(xs.dims(), zs.dims()))
      return reshape(reduce_sum(grad, Axis(axes->first)), xs.dims());
  }
  return sum_to_shape_of(grad, x);
}

// SelectV2: the same against a scalar zero, each branch's share then summed over the
// axes it was broadcast along (TensorFlow's _SelectGradV2).
inline std::vector<Output> select_v2_grad(const GradContext& c) {
  const Output cond = c.input(0), z = c.output(0), g = c.grad();
  Graph graph = c.graph();
  const Value zero =
      visit_dtype(g.dtype(), [](auto t) { return Value(typename decltype(t)::type{0}); });
  const Output zeros = make_const(graph, zero, "zeros").output(0);
  return {Output{}, sum_to_input_shape(where_v2(cond, g, zeros), c.input(1), z),
          sum_to_input_shape(where_v2(cond, zeros, g), c.input(2), z)};
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
    {&kSelectV2Op, select_v2_grad},
    {&kWhereOp, not_differentiable},
    {&kArgMaxOp, not_differentiable},
    {&kArgMinOp, not_differentiable},
});

}  // namespace symflow::detail
