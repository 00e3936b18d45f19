#pragma once
// Gradients of the ops in transform_ops.hpp (transpose, concat, slice, gather, ...), each
// following TensorFlow's array_grad.py formula, and the area's registry entries.

#include <array>
#include <string>

#include "symflow/ops/colocation.hpp"
#include "symflow/ops/grad_context.hpp"
#include "symflow/ops/indexed_slices.hpp"
#include "symflow/ops/logic_ops.hpp"
#include "symflow/ops/math_ops.hpp"
#include "symflow/ops/shape_ops.hpp"
#include "symflow/ops/transform_ops.hpp"

namespace symflow::detail {

namespace transform {

// The inputs of c.op from `first` on (the values of a list input).
inline std::vector<Output> inputs_from(const GradContext& c, int first, int last) {
  std::vector<Output> out;
  for (int i = first; i < last; ++i) out.push_back(c.input(i));
  return out;
}

// A Const of int32 `values` in the current scope.
inline Output int32_const(const Graph& graph, const Dims& values, bool scalar = false) {
  Graph g = graph;
  Value v = scalar ? Value(static_cast<std::int32_t>(values.at(0))) : int32_vector(values);
  return make_const(g, std::move(v), "Const").output(0);
}

// Transpose: the gradient transposed back by the inverse permutation.
inline std::vector<Output> transpose_grad(const GradContext& c) {
  return {transpose(c.grad(), invert_permutation(c.input(1))), Output{}};
}

// ConcatV2: each input's part of the gradient, sliced at the offsets ConcatOffset gives.
inline std::vector<Output> concat_grad(const GradContext& c) {
  int n = c.op.num_inputs() - 1;
  std::vector<Output> shapes;
  for (int i = 0; i < n; ++i) shapes.push_back(shape(c.input(i)));
  std::vector<Output> offset_inputs{cast(c.input(n), DType::int32)};
  offset_inputs.insert(offset_inputs.end(), shapes.begin(), shapes.end());
  OpBuilder b(c.graph(), "", "ConcatOffset");
  Operation offsets = b.build(kConcatOffsetOp, offset_inputs,
                              {{"N", static_cast<std::int64_t>(n)}, {"shape_type", DType::int32}});
  std::vector<Output> out;
  for (int i = 0; i < n; ++i)
    out.push_back(slice(c.grad(), offsets.output(i), shapes[static_cast<std::size_t>(i)]));
  out.push_back(Output{});
  return out;
}

// Pack: the gradient unstacked along the same axis.
inline std::vector<Output> pack_grad(const GradContext& c) {
  return unstack(c.grad(), c.op.num_inputs(), c.op.get_attr<std::int64_t>("axis"));
}

// Unpack: the outputs' gradients stacked (unused outputs came as zeros).
inline std::vector<Output> unpack_grad(const GradContext& c) {
  if (!c.grad(0).valid()) return {};
  return {stack(c.grads, c.op.get_attr<std::int64_t>("axis"))};
}

// Split / SplitV: the outputs' gradients concatenated along the split axis.
inline std::vector<Output> split_grad(const GradContext& c) {
  if (!c.grad(0).valid()) return {};
  return {Output{}, concat(c.grads, c.input(0))};
}
inline std::vector<Output> split_v_grad(const GradContext& c) {
  if (!c.grad(0).valid()) return {};
  return {concat(c.grads, c.input(2)), Output{}, Output{}};
}

// Slice: the gradient padded with the zeros before and after the slice.
inline std::vector<Output> slice_grad(const GradContext& c) {
  const Output x = c.input(0);
  const Output begin = c.input(1);
  Output input_rank = rank(x);
  Output slice_size = shape(c.output(0), begin.dtype());
  Output pad_shape = stack({input_rank, int32_const(c.graph(), {1}, true)});
  Output before = reshape(begin, pad_shape);
  Output after = reshape(subtract(subtract(shape(x, begin.dtype()), slice_size), begin), pad_shape);
  Output paddings = concat({before, after}, 1);
  return {pad(c.grad(), paddings), Output{}, Output{}};
}

inline AttrMap strided_slice_grad_attrs(const Operation& op) {
  AttrMap a;
  for (const char* k : {"T", "Index", "begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask",
                        "shrink_axis_mask"})
    a[k] = op.attrs().find(std::string_view(k))->second;
  return a;
}

// StridedSlice: StridedSliceGrad writes the gradient back where the slice read.
inline std::vector<Output> strided_slice_grad(const GradContext& c) {
  const Output begin = c.input(1);
  Output x_shape = shape(c.input(0), begin.dtype());
  OpBuilder b(c.graph(), "", "StridedSliceGrad");
  Output g = b.build(kStridedSliceGradOp, {x_shape, begin, c.input(2), c.input(3), c.grad()},
                     strided_slice_grad_attrs(c.op))
                 .output(0);
  return {g, Output{}, Output{}, Output{}};
}

// StridedSliceGrad is linear in dy: its gradient is the same strided slice.
inline std::vector<Output> strided_slice_grad_grad(const GradContext& c) {
  AttrMap a = strided_slice_grad_attrs(c.op);
  OpBuilder b(c.graph(), "", "StridedSlice");
  Output g = b.build(kStridedSliceOp, {c.grad(), c.input(1), c.input(2), c.input(3)}, a).output(0);
  return {Output{}, Output{}, Output{}, Output{}, g};
}

// GatherV2 (w.r.t. params): the gradient rows summed into the rows they were gathered
// from, as TensorFlow's IndexedSlices become dense (UnsortedSegmentSum). The gathered
// axis is moved to the front for the sum and back afterwards. Needs a constant axis
// and a known params rank.
inline std::vector<Output> gather_grad(const GradContext& c) {
  const Output params = c.input(0);
  const Output indices = c.input(1);
  const Operation axis_op = c.input(2).op();
  if (axis_op.type() != "Const" || !params.get_shape().has_rank())
    throw LookupError("The gradient of GatherV2 '" + c.op.name() +
                      "' needs a constant axis and a params tensor of known rank");
  std::int64_t rank = params.get_shape().rank();
  std::int64_t axis = scalar_index(axis_op.get_attr<Value>("value"));
  if (axis < 0) axis += rank;
  Graph g = c.graph();
  Output params_shape = shape(params);
  // grad as params[:axis] + [n] + params[axis+1:], with n = the number of indices.
  Output outer =
      strided_slice(params_shape, int32_vector({0}), int32_vector({axis}), int32_vector({1}));
  Output inner = strided_slice(params_shape, int32_vector({axis + 1}), int32_vector({0}),
                               int32_vector({1}), {.end_mask = 1});
  Output values_shape = concat({outer, int32_const(g, {-1}), inner}, 0);
  Output values = reshape(c.grad(), values_shape);
  Output flat_indices = reshape(indices, Dims{-1});
  Output rows = strided_slice(params_shape, int32_vector({axis}), int32_vector({axis + 1}),
                              int32_vector({1}), {.shrink_axis_mask = 1});
  if (axis == 0) return {unsorted_segment_sum(values, flat_indices, rows), Output{}, Output{}};
  Dims to_front{axis}, back(static_cast<std::size_t>(rank));
  for (std::int64_t i = 0; i < rank; ++i)
    if (i != axis) to_front.push_back(i);
  for (std::size_t i = 0; i < to_front.size(); ++i)
    back[static_cast<std::size_t>(to_front[i])] = static_cast<std::int64_t>(i);
  Output summed =
      unsorted_segment_sum(transpose(values, int32_vector(to_front)), flat_indices, rows);
  return {transpose(summed, int32_vector(back)), Output{}, Output{}};
}

// UnsortedSegmentSum: each data row gets the gradient of its segment; rows with a
// negative id were dropped and get zeros. Needs the ranks of data and ids.
inline std::vector<Output> unsorted_segment_sum_grad(const GradContext& c) {
  const Output ids = c.input(1);
  const Shape& data_shape = c.input(0).get_shape();
  if (!data_shape.has_rank() || !ids.get_shape().has_rank())
    throw LookupError("The gradient of UnsortedSegmentSum '" + c.op.name() +
                      "' needs the ranks of data and segment_ids");
  Output zero = zeros_like(ids);
  Output gathered = gather(c.grad(), maximum(ids, zero));
  Output keep = cast(greater_equal(ids, zero), c.grad().dtype());
  auto extra = static_cast<std::size_t>(data_shape.rank() - ids.get_shape().rank());
  Output keep_shape = concat({shape(ids), int32_const(c.graph(), Dims(extra, 1))}, 0);
  return {multiply(gathered, reshape(keep, keep_shape)), Output{}, Output{}};
}

// Pad / PadV2: the gradient sliced back to the input's place (no gradient reaches
// constant_values, as in TensorFlow).
inline std::vector<Output> pad_grad(const GradContext& c) {
  const Output x = c.input(0);
  const Output a = c.input(1);
  Output size = stack({rank(x), int32_const(c.graph(), {1}, true)});
  Output pad_before = slice(a, {0, 0}, size);
  Output begin = reshape(pad_before, Dims{-1});
  Output x_grad = slice(c.grad(), begin, shape(x, begin.dtype()));
  if (c.op.num_inputs() == 3) return {x_grad, Output{}, Output{}};
  return {x_grad, Output{}};
}

// GatherV2 along axis 0 (TensorFlow's embedding lookups): the gradient of params as
// IndexedSlices, the incoming gradient's rows (reshaped to [n] + params.shape[1:]) for
// the rows the n indices named, as TensorFlow builds it under "<op>_grad/": params' shape
// and the indices' size (Consts when known while building), ExpandDims, the tail of the
// shape (strided_slice), concat, Reshape of the gradient and Reshape_1 of the indices.
// Another axis gives the dense gradient above.
inline std::vector<Gradient> gather_sparse_grad(const GradContext& c) {
  const Output params = c.input(0);
  const Output indices = c.input(1);
  const Operation axis_op = c.input(2).op();
  const auto batch_dims = c.op.attrs().find("batch_dims");
  const bool axis_zero =
      axis_op.type() == "Const" && scalar_index(axis_op.get_attr<Value>("value")) == 0 &&
      (batch_dims == c.op.attrs().end() || c.op.get_attr<std::int64_t>("batch_dims") == 0);
  if (!axis_zero) {
    std::vector<Gradient> dense;
    for (const Output& g : gather_grad(c)) dense.emplace_back(g);
    return dense;
  }
  Graph g = c.graph();
  const Shape& ps = params.get_shape();
  // params' shape is built colocated with params (TensorFlow's colocate_with).
  const Output params_shape = colocated_with(params, [&] {
    return ps.is_fully_defined() ? make_const(g, int32_vector(ps.dims()), "Shape").output(0)
                                 : shape(params);
  });
  const Shape& is = indices.get_shape();
  const Output indices_count =
      is.is_fully_defined()
          ? make_const(g, Value(checked_int32(is.num_elements(), "the number of indices")), "Size")
                .output(0)
          : size(indices);
  const Output indices_size = expand_dims(indices_count, 0);
  const Output tail = strided_slice(params_shape, int32_vector({1}), int32_vector({0}),
                                    int32_vector({1}), {.end_mask = 1});
  const Output values_shape = concat({indices_size, tail}, 0);
  const Output values = reshape(c.grad(), values_shape);
  const Output flat_indices = reshape(indices, indices_size);
  return {IndexedSlices{values, flat_indices, params_shape}, Gradient{}, Gradient{}};
}

// SpaceToBatchND and BatchToSpaceND: each one's gradient is the other applied to the
// incoming gradient with the same block_shape and paddings (crops).
inline std::vector<Output> space_to_batch_grad(const GradContext& c) {
  return {batch_to_space_nd(c.grad(), c.input(1), c.input(2)), Output{}, Output{}};
}
inline std::vector<Output> batch_to_space_grad(const GradContext& c) {
  return {space_to_batch_nd(c.grad(), c.input(1), c.input(2)), Output{}, Output{}};
}

}  // namespace transform

inline constexpr auto kTransformOpEntries = std::to_array<OpEntry>({
    {&transform::kTransposeOp, transform::transpose_grad},
    {&transform::kInvertPermutationOp, not_differentiable},
    {&transform::kConcatV2Op, transform::concat_grad},
    {&transform::kConcatOffsetOp, not_differentiable},
    {&transform::kPackOp, transform::pack_grad},
    {&transform::kUnpackOp, transform::unpack_grad},
    {&transform::kSplitOp, transform::split_grad},
    {&transform::kSplitVOp, transform::split_v_grad},
    {&transform::kSliceOp, transform::slice_grad},
    {&transform::kStridedSliceOp, transform::strided_slice_grad},
    {&transform::kStridedSliceGradOp, transform::strided_slice_grad_grad},
    {&transform::kGatherV2Op, transform::gather_grad, transform::gather_sparse_grad},
    {&transform::kUnsortedSegmentSumOp, transform::unsorted_segment_sum_grad},
    {&transform::kPadOp, transform::pad_grad},
    {&transform::kPadV2Op, transform::pad_grad},
    {&transform::kSpaceToBatchNDOp, transform::space_to_batch_grad},
    {&transform::kBatchToSpaceNDOp, transform::batch_to_space_grad},
    {&transform::kOneHotOp, not_differentiable},
    {&transform::kRangeOp, not_differentiable},
});

}  // namespace symflow::detail
