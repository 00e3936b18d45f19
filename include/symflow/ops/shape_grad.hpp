#pragma once
// Gradients of the shape ops built in shape_ops.hpp (Shape, Size, Rank, ExpandDims,
// Squeeze, BroadcastTo, Tile, BroadcastGradientArgs, ZerosLike, OnesLike, AddN,
// StopGradient), following TensorFlow's array_grad.py and math_grad.py.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "symflow/ops/array_grad.hpp"
#include "symflow/ops/array_ops.hpp"
#include "symflow/ops/grad_context.hpp"
#include "symflow/ops/math_grad.hpp"
#include "symflow/ops/math_ops.hpp"
#include "symflow/ops/shape_ops.hpp"

namespace symflow::detail {

inline std::vector<Output> add_n_grad(const GradContext& c) {
  return std::vector<Output>(static_cast<std::size_t>(c.op.num_inputs()), c.grad());
}

inline std::vector<Output> broadcast_to_grad(const GradContext& c) {
  return {sum_to_shape_of(c.grad(), c.input(0))};
}

// Tile: the gradient is reshaped to [m0, d0, m1, d1, ...] and summed over the m axes.
// This needs the input's shape and the multiples at build time.
inline std::vector<Output> tile_grad(const GradContext& c) {
  const Output x = c.input(0);
  const Operation m_op = c.input(1).op();
  if (!x.get_shape().is_fully_defined() || m_op.type() != "Const")
    throw LookupError("The gradient of Tile '" + c.op.name() +
                      "' needs a fully defined input shape and constant multiples");
  Dims m = shape_argument(m_op.get_attr<Value>("value"));
  const Dims& d = x.get_shape().dims();
  Dims split, axes;
  for (std::size_t i = 0; i < d.size(); ++i) {
    axes.push_back(static_cast<std::int64_t>(2 * i));
    split.push_back(m[i]);
    split.push_back(d[i]);
  }
  return {reduce_sum(reshape(c.grad(), split), Axis(axes)), Output{}};
}

inline constexpr auto kShapeOpEntries = std::to_array<OpEntry>({
    {&kShapeOp, not_differentiable},
    {&kSizeOp, not_differentiable},
    {&kRankOp, not_differentiable},
    {&kExpandDimsOp, reshape_grad},
    {&kSqueezeOp, reshape_grad},
    {&kBroadcastToOp, broadcast_to_grad},
    {&kTileOp, tile_grad},
    {&kBroadcastGradientArgsOp, not_differentiable},
    {&kZerosLikeOp, not_differentiable},
    {&kOnesLikeOp, not_differentiable},
    {&kAddNOp, add_n_grad},
    {&kStopGradientOp, not_differentiable},
});

}  // namespace symflow::detail
