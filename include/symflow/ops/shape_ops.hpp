#pragma once
// Ops about shapes and the plumbing of gradients: Shape, Size, Rank, ExpandDims,
// Squeeze, BroadcastTo, Tile, BroadcastGradientArgs, ZerosLike, OnesLike, AddN and
// StopGradient. The graph-building functions; the ops are described in
// ops/defs/shape.hpp and run by backend/cpu/kernels/shape.hpp.

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "symflow/ops/array_ops.hpp"
#include "symflow/ops/defs/shape.hpp"
#include "symflow/ops/defs/shape_fn.hpp"
#include "symflow/ops/math_ops.hpp"
#include "symflow/ops/op_builder.hpp"

namespace symflow {

namespace detail {

inline Output shape_like_op(const OpDef& def, const Output& x, DType out_type,
                            std::string_view name, std::string_view default_name) {
  OpBuilder b(graph_of({x}), name, default_name);
  return b.build(def, {x}, {{"T", x.dtype()}, {"out_type", out_type}}).output(0);
}

}  // namespace detail

// tf.shape(x, out_type): x's dynamic shape as a vector.
inline Output shape(const Output& x, DType out_type = DType::int32, std::string_view name = {}) {
  return detail::shape_like_op(detail::kShapeOp, x, out_type, name, "Shape");
}
// tf.size(x, out_type): x's number of elements.
inline Output size(const Output& x, DType out_type = DType::int32, std::string_view name = {}) {
  return detail::shape_like_op(detail::kSizeOp, x, out_type, name, "Size");
}
// tf.rank(x): x's number of dimensions, an int32 scalar.
inline Output rank(const Output& x, std::string_view name = {}) {
  detail::OpBuilder b(graph_of({x}), name, "Rank");
  return b.build(detail::kRankOp, {x}, {{"T", x.dtype()}}).output(0);
}

// tf.expand_dims(x, axis): a size-1 dimension inserted at `axis` (negative counts from
// the end).
inline Output expand_dims(const Output& x, std::int64_t axis, std::string_view name = {}) {
  detail::OpBuilder b(graph_of({x}), name, "ExpandDims");
  Output dim = b.constant_arg(Value(detail::checked_int32(axis, "an axis")), "dim");
  return b.build(detail::kExpandDimsOp, {x, dim}, {{"T", x.dtype()}, {"Tdim", DType::int32}})
      .output(0);
}
template <Element T>
Tensor<T> expand_dims(const Tensor<T>& x, std::int64_t axis, std::string_view name = {}) {
  return Tensor<T>(expand_dims(Output(x), axis, name));
}

// tf.squeeze(x, axis): removes the size-1 dimensions named (all of them when none).
inline Output squeeze(const Output& x, const std::vector<std::int64_t>& axis = {},
                      std::string_view name = {}) {
  detail::OpBuilder b(graph_of({x}), name, "Squeeze");
  return b.build(detail::kSqueezeOp, {x}, {{"T", x.dtype()}, {"squeeze_dims", IntList{axis}}})
      .output(0);
}
template <Element T>
Tensor<T> squeeze(const Tensor<T>& x, const std::vector<std::int64_t>& axis = {},
                  std::string_view name = {}) {
  return Tensor<T>(squeeze(Output(x), axis, name));
}

// tf.broadcast_to(x, shape).
inline Output broadcast_to(const Output& x, const Output& shape, std::string_view name = {}) {
  detail::OpBuilder b(graph_of({x, shape}), name, "BroadcastTo");
  return b.build(detail::kBroadcastToOp, {x, shape}, {{"T", x.dtype()}, {"Tidx", shape.dtype()}})
      .output(0);
}
inline Output broadcast_to(const Output& x, const Dims& shape, std::string_view name = {}) {
  detail::OpBuilder b(graph_of({x}), name, "BroadcastTo");
  Output s = b.constant_arg(detail::int32_vector(shape), "shape");
  return b.build(detail::kBroadcastToOp, {x, s}, {{"T", x.dtype()}, {"Tidx", DType::int32}})
      .output(0);
}

// tf.tile(x, multiples): x repeated multiples[i] times along axis i.
inline Output tile(const Output& x, const Output& multiples, std::string_view name = {}) {
  detail::OpBuilder b(graph_of({x, multiples}), name, "Tile");
  return b
      .build(detail::kTileOp, {x, multiples}, {{"T", x.dtype()}, {"Tmultiples", multiples.dtype()}})
      .output(0);
}
inline Output tile(const Output& x, const Dims& multiples, std::string_view name = {}) {
  detail::OpBuilder b(graph_of({x}), name, "Tile");
  Output m = b.constant_arg(detail::int32_vector(multiples), "multiples");
  return b.build(detail::kTileOp, {x, m}, {{"T", x.dtype()}, {"Tmultiples", DType::int32}})
      .output(0);
}
template <Element T>
Tensor<T> tile(const Tensor<T>& x, const Dims& multiples, std::string_view name = {}) {
  return Tensor<T>(tile(Output(x), multiples, name));
}

// The axes each of two broadcast shapes was expanded along (TF's
// gen_array_ops.broadcast_gradient_args): {r0, r1}.
inline std::pair<Output, Output> broadcast_gradient_args(const Output& s0, const Output& s1,
                                                         std::string_view name = {}) {
  detail::OpBuilder b(graph_of({s0, s1}), name, "BroadcastGradientArgs");
  Operation op = b.build(detail::kBroadcastGradientArgsOp, {s0, s1}, {{"T", s0.dtype()}});
  return {op.output(0), op.output(1)};
}

// tf.zeros_like(x) / tf.ones_like(x).
inline Output zeros_like(const Output& x, std::string_view name = {}) {
  detail::OpBuilder b(graph_of({x}), name, "zeros_like");
  return b.build(detail::kZerosLikeOp, {x}, {{"T", x.dtype()}}).output(0);
}
inline Output ones_like(const Output& x, std::string_view name = {}) {
  detail::OpBuilder b(graph_of({x}), name, "ones_like");
  return b.build(detail::kOnesLikeOp, {x}, {{"T", x.dtype()}}).output(0);
}
template <Element T>
Tensor<T> zeros_like(const Tensor<T>& x, std::string_view name = {}) {
  return Tensor<T>(zeros_like(Output(x), name));
}
template <Element T>
Tensor<T> ones_like(const Tensor<T>& x, std::string_view name = {}) {
  return Tensor<T>(ones_like(Output(x), name));
}

// tf.add_n(inputs): the elementwise sum of tensors of one shape and dtype.
inline Output add_n(const std::vector<Output>& inputs, std::string_view name = {}) {
  if (inputs.empty()) throw ValueError("inputs must be a list of at least one Tensor");
  if (inputs.size() == 1 && name.empty()) return inputs.front();  // as TF's add_n
  detail::OpBuilder b(graph_of(inputs), name, "AddN");
  return b
      .build(detail::kAddNOp, inputs,
             {{"N", static_cast<std::int64_t>(inputs.size())}, {"T", inputs.front().dtype()}})
      .output(0);
}

// tf.stop_gradient(x): x's value, with no gradient flowing back through it.
inline Output stop_gradient(const Output& x, std::string_view name = {}) {
  detail::OpBuilder b(graph_of({x}), name, "StopGradient");
  return b.build(detail::kStopGradientOp, {x}, {{"T", x.dtype()}}).output(0);
}
template <Element T>
Tensor<T> stop_gradient(const Tensor<T>& x, std::string_view name = {}) {
  return Tensor<T>(stop_gradient(Output(x), name));
}

}  // namespace symflow
