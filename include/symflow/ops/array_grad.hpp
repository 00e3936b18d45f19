#pragma once
// Gradients of the array ops built in array_ops.hpp (Identity, PlaceholderWithDefault,
// Reshape, Fill), following TensorFlow's array_grad.py.

#include <array>
#include <vector>

#include "symflow/ops/array_ops.hpp"
#include "symflow/ops/grad_context.hpp"
#include "symflow/ops/math_ops.hpp"
#include "symflow/ops/shape_ops.hpp"

namespace symflow::detail {

inline std::vector<Output> identity_grad(const GradContext& c) { return {c.grad()}; }

// Reshape (and ExpandDims, Squeeze in shape_grad.hpp): the gradient is the incoming one
// in the input's shape.
inline std::vector<Output> reshape_grad(const GradContext& c) {
  const Output x = c.input(0);
  if (x.get_shape().is_fully_defined()) return {reshape(c.grad(), x.get_shape().dims())};
  return {reshape(c.grad(), shape(x))};
}

inline std::vector<Output> fill_grad(const GradContext& c) {
  return {Output{}, reduce_sum(c.grad(), Axis(Dims{}))};
}

inline constexpr auto kArrayOpEntries = std::to_array<OpEntry>({
    {&kIdentityOp, identity_grad},
    {&kPlaceholderWithDefaultOp, identity_grad},  // as TensorFlow: the default's gradient
    {&kReshapeOp, reshape_grad},
    {&kFillOp, fill_grad},
});

}  // namespace symflow::detail
