#pragma once
// Gradients of the reduction and scan ops built in reduction_ops.hpp (Prod, Any, All,
// Cumsum, Cumprod), following TensorFlow's math_grad.py.

#include <array>
#include <string>
#include <vector>

#include "symflow/ops/array_ops.hpp"
#include "symflow/ops/grad_context.hpp"
#include "symflow/ops/math_ops.hpp"
#include "symflow/ops/reduction_ops.hpp"
#include "symflow/ops/shape_ops.hpp"

namespace symflow::detail {

// The reduction axes of a Prod, Sum, ... node: they must be a Const to build the gradient.
inline Dims prod_constant_axes(const GradContext& c) {
  const Operation axes_op = c.input(1).op();  // a copy: input() returns a temporary
  if (axes_op.type() != "Const")
    throw LookupError("The gradient of " + c.op.type() + " '" + c.op.name() +
                      "' needs constant reduction axes");
  return shape_argument(axes_op.get_attr<Value>("value"));
}

// Prod: d/dx_i is the product of the other elements reduced with x_i. Dividing the
// product by x_i fails on zeros, so, as TensorFlow does, it is built from exclusive
// products: along one axis a, cumprod(exclusive) * cumprod(exclusive, reverse) is the
// product of the others on x_i's line; over axes a1..ak, the product of the others is
// that over a1, times the same over a2 of the products over a1, and so on.
inline std::vector<Output> prod_grad(const GradContext& c) {
  const Output x = c.input(0);
  const Dims axes = prod_constant_axes(c);
  if (axes.empty()) return {c.grad(), Output{}};
  Output others;
  Output partial = x;  // x reduced (keepdims) over the axes handled so far
  for (auto a : axes) {
    Output left = cumprod(partial, a, true, false);
    Output right = cumprod(partial, a, true, true);
    Output term = multiply(left, right);
    others = others.valid() ? multiply(others, term) : term;
    partial = reduce_prod(partial, Axis(static_cast<int>(a)), true);
  }
  // The incoming gradient with the reduced axes kept as size 1, to broadcast over them.
  Output g = c.grad();
  if (!c.op.get_attr<bool>("keep_dims")) {
    const Shape& kept = partial.get_shape();
    g = kept.is_fully_defined() ? reshape(g, kept.dims()) : reshape(g, shape(partial));
  }
  return {multiply(g, others), Output{}};
}

// Cumsum: the gradient runs the other way.
inline std::vector<Output> cumsum_grad(const GradContext& c) {
  return {cumsum(c.grad(), c.input(1), c.op.get_attr<bool>("exclusive"),
                 !c.op.get_attr<bool>("reverse")),
          Output{}};
}

// Cumprod: TensorFlow's formula, cumsum(prod * grad) reversed, over x (so not at zeros).
inline std::vector<Output> cumprod_grad(const GradContext& c) {
  const Output x = c.input(0);
  const bool exclusive = c.op.get_attr<bool>("exclusive");
  const bool reverse = c.op.get_attr<bool>("reverse");
  Output prod = cumprod(x, c.input(1), exclusive, reverse);
  Output out = cumsum(multiply(prod, c.grad()), c.input(1), exclusive, !reverse);
  return {divide(out, x), Output{}};
}

inline constexpr auto kReductionOpEntries = std::to_array<OpEntry>({
    {&kProdOp, prod_grad},
    {&kAnyOp, not_differentiable},
    {&kAllOp, not_differentiable},
    {&kCumsumOp, cumsum_grad},
    {&kCumprodOp, cumprod_grad},
});

}  // namespace symflow::detail
