#pragma once
// Array transformations: Transpose, ConcatV2, Pack/Unpack, Split/SplitV, Slice,
// StridedSlice, GatherV2, Pad/PadV2, SpaceToBatchND/BatchToSpaceND, OneHot, Range, and the helper
// ops their gradients are built from (InvertPermutation, ConcatOffset, StridedSliceGrad,
// UnsortedSegmentSum).
//
// The graph-building functions; the ops are described in ops/defs/transform.hpp and run
// by backend/cpu/kernels/transform.hpp.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "symflow/ops/array_ops.hpp"
#include "symflow/ops/defs/transform.hpp"
#include "symflow/ops/math_ops.hpp"
#include "symflow/ops/op_builder.hpp"
#include "symflow/ops/shape_ops.hpp"
#include "symflow/ops/tensor_arg.hpp"

namespace symflow {

// ---- user functions -------------------------------------------------------------------

// tf.transpose(x, perm): perm defaults to the reversed axes.
inline Output transpose(const Output& x, const TensorArg& perm, std::string_view name = {}) {
  detail::OpBuilder b(graph_of({x}), name, "transpose");
  Output p = perm.resolve(b, "perm");
  return b.build(detail::transform::kTransposeOp, {x, p}, {{"T", x.dtype()}, {"Tperm", p.dtype()}})
      .output(0);
}
// Without perm: reversed axes, a Const when the rank is known, else
// Range(Rank(x) - 1, -1, -1) as TensorFlow builds it.
inline Output transpose(const Output& x, std::nullopt_t = std::nullopt,
                        std::string_view name = {}) {
  detail::OpBuilder b(graph_of({x}), name, "transpose");
  Output p;
  if (x.shape().has_rank()) {
    Dims perm(static_cast<std::size_t>(x.shape().rank()));
    for (std::size_t i = 0; i < perm.size(); ++i)
      perm[i] = static_cast<std::int64_t>(perm.size() - 1 - i);
    p = b.constant_arg(detail::int32_vector(perm), "perm");
  } else {
    Output r = rank(x);
    Output last;
    {
      detail::OpBuilder sb(b.graph(), "sub", "sub");
      Output one = sb.constant_arg(Value(std::int32_t{1}), "y");
      last = sb.build(detail::kSubOp, {r, one}, {{"T", DType::int32}}).output(0);
    }
    detail::OpBuilder rb(b.graph(), "Range", "Range");
    Output limit = rb.constant_arg(Value(std::int32_t{-1}), "limit");
    Output delta = rb.constant_arg(Value(std::int32_t{-1}), "delta");
    p = rb.build(detail::transform::kRangeOp, {last, limit, delta}, {{"Tidx", DType::int32}})
            .output(0);
  }
  return b
      .build(detail::transform::kTransposeOp, {x, p}, {{"T", x.dtype()}, {"Tperm", DType::int32}})
      .output(0);
}
template <Element T>
Tensor<T> transpose(const Tensor<T>& x, const TensorArg& perm, std::string_view name = {}) {
  return Tensor<T>(transpose(Output(x), perm, name));
}
template <Element T>
Tensor<T> transpose(const Tensor<T>& x) {
  return Tensor<T>(transpose(Output(x)));
}

// tf.invert_permutation(x).
inline Output invert_permutation(const TensorArg& x, std::string_view name = {}) {
  detail::OpBuilder b(graph_of({&x}), name, "InvertPermutation");
  Output v = x.resolve(b, "x");
  return b.build(detail::transform::kInvertPermutationOp, {v}, {{"T", v.dtype()}}).output(0);
}

// tf.concat(values, axis). One value comes back through an Identity, as in TensorFlow.
inline Output concat(const std::vector<Output>& values, const TensorArg& axis,
                     std::string_view name = {}) {
  if (values.empty()) throw ValueError("concat needs at least one value");
  detail::OpBuilder b(graph_of(values), name, "concat");
  if (values.size() == 1) {
    axis.resolve(b, "concat_dim");
    return identity(values[0], "concat");
  }
  Output a = axis.resolve(b, "axis");
  std::vector<Output> inputs = values;
  inputs.push_back(a);
  return b
      .build(detail::transform::kConcatV2Op, inputs,
             {{"N", static_cast<std::int64_t>(values.size())},
              {"T", values[0].dtype()},
              {"Tidx", a.dtype()}})
      .output(0);
}

// tf.stack(values, axis): Pack.
inline Output stack(const std::vector<Output>& values, std::int64_t axis = 0,
                    std::string_view name = {}) {
  if (values.empty()) throw ValueError("stack needs at least one value");
  const Shape& s = values[0].shape();
  if (s.has_rank()) {
    std::int64_t rank = s.rank() + 1;
    if (axis < -rank || axis >= rank)
      throw ValueError("Argument `axis` = " + detail::transform::str(axis) + " not in range [" +
                       detail::transform::str(-rank) + ", " + detail::transform::str(rank) + ")");
  }
  detail::OpBuilder b(graph_of(values), name, "stack");
  return b
      .build(detail::transform::kPackOp, values,
             {{"N", static_cast<std::int64_t>(values.size())},
              {"T", values[0].dtype()},
              {"axis", axis}})
      .output(0);
}

// tf.unstack(x, num, axis): Unpack; `num` defaults to the size of `axis`.
inline std::vector<Output> unstack(const Output& x, std::optional<std::int64_t> num = {},
                                   std::int64_t axis = 0, std::string_view name = {}) {
  if (!num) {
    const Shape& s = x.shape();
    if (s.has_rank()) {
      std::int64_t rank = s.rank();
      if (axis < -rank || axis >= rank)
        throw ValueError("Argument `axis` = " + detail::transform::str(axis) + " not in range [" +
                         detail::transform::str(-rank) + ", " + detail::transform::str(rank) + ")");
      std::int64_t d = s.dims()[static_cast<std::size_t>(axis < 0 ? axis + rank : axis)];
      if (d >= 0) num = d;
    }
    if (!num) throw ValueError("Cannot infer argument `num` from shape " + s.to_string());
  }
  detail::OpBuilder b(graph_of({x}), name, "unstack");
  return b
      .build(detail::transform::kUnpackOp, {x}, {{"T", x.dtype()}, {"num", *num}, {"axis", axis}})
      .outputs();
}

// tf.split(x, num_split, axis): Split into equal parts.
inline std::vector<Output> split(const Output& x, int num_split, const TensorArg& axis = 0,
                                 std::string_view name = {}) {
  if (num_split < 1)
    throw ValueError("Attr 'num_split' of 'Split' Op passed " + std::to_string(num_split) +
                     " less than minimum 1.");
  detail::OpBuilder b(graph_of({x}), name, "split");
  Output a = axis.resolve(b, "split_dim");
  return b
      .build(detail::transform::kSplitOp, {a, x},
             {{"T", x.dtype()}, {"num_split", static_cast<std::int64_t>(num_split)}})
      .outputs();
}
// tf.split(x, size_splits, axis): SplitV; one size may be -1 (the rest).
inline std::vector<Output> split(const Output& x, const Output& size_splits,
                                 const TensorArg& axis = 0, std::optional<std::int64_t> num = {},
                                 std::string_view name = {}) {
  if (!num) {
    const Shape& s = size_splits.shape();
    if (s.has_rank() && s.rank() == 1 && s[0] >= 0) num = s[0];
    if (!num) throw ValueError("Cannot infer argument `num` from shape " + s.to_string());
  }
  detail::OpBuilder b(graph_of({x, size_splits}), name, "split");
  Output a = axis.resolve(b, "split_dim");
  return b
      .build(detail::transform::kSplitVOp, {x, size_splits, a},
             {{"T", x.dtype()}, {"Tlen", size_splits.dtype()}, {"num_split", *num}})
      .outputs();
}
// The sizes become a Const named "Const" outside the op's scope, as in TensorFlow.
inline std::vector<Output> split(const Output& x, const Dims& size_splits,
                                 const TensorArg& axis = 0, std::string_view name = {}) {
  Graph g = graph_of({x});
  Output sizes = detail::make_const(g, detail::int32_vector(size_splits), "Const").output(0);
  return split(x, sizes, axis, static_cast<std::int64_t>(size_splits.size()), name);
}

// tf.slice(x, begin, size): a size of -1 takes the rest of that axis.
inline Output slice(const Output& x, const TensorArg& begin, const TensorArg& size,
                    std::string_view name = {}) {
  detail::OpBuilder b(graph_of({x}), name, "Slice");
  Output bo = begin.resolve(b, "begin");
  Output so = size.resolve(b, "size", bo.dtype());
  return b
      .build(detail::transform::kSliceOp, {x, bo, so}, {{"T", x.dtype()}, {"Index", bo.dtype()}})
      .output(0);
}
template <Element T>
Tensor<T> slice(const Tensor<T>& x, const TensorArg& begin, const TensorArg& size,
                std::string_view name = {}) {
  return Tensor<T>(slice(Output(x), begin, size, name));
}

// The masks of tf.strided_slice, and its name.
struct StridedSliceOptions {
  std::int64_t begin_mask = 0;
  std::int64_t end_mask = 0;
  std::int64_t ellipsis_mask = 0;
  std::int64_t new_axis_mask = 0;
  std::int64_t shrink_axis_mask = 0;
  std::string_view name = {};
};

// tf.strided_slice(x, begin, end, strides, masks): named as `x[...]` names it
// ("strided_slice", with its spec in the Consts "stack", "stack_1", "stack_2").
inline Output strided_slice(const Output& x, const TensorArg& begin, const TensorArg& end,
                            const TensorArg& strides, const StridedSliceOptions& options = {}) {
  detail::OpBuilder b(graph_of({x}), options.name, "strided_slice");
  Output bo = begin.resolve(b, "stack");
  Output eo = end.resolve(b, "stack_1", bo.dtype());
  Output so = strides.resolve(b, "stack_2", bo.dtype());
  return b
      .build(detail::transform::kStridedSliceOp, {x, bo, eo, so},
             {{"T", x.dtype()},
              {"Index", bo.dtype()},
              {"begin_mask", options.begin_mask},
              {"end_mask", options.end_mask},
              {"ellipsis_mask", options.ellipsis_mask},
              {"new_axis_mask", options.new_axis_mask},
              {"shrink_axis_mask", options.shrink_axis_mask}})
      .output(0);
}
template <Element T>
Tensor<T> strided_slice(const Tensor<T>& x, const TensorArg& begin, const TensorArg& end,
                        const TensorArg& strides, const StridedSliceOptions& options = {}) {
  return Tensor<T>(strided_slice(Output(x), begin, end, strides, options));
}

// tf.gather(params, indices, axis): GatherV2.
inline Output gather(const Output& params, const TensorArg& indices, const TensorArg& axis = 0,
                     std::string_view name = {}) {
  detail::OpBuilder b(graph_of({params}), name, "GatherV2");
  Output i = indices.resolve(b, "indices");
  Output a = axis.resolve(b, "axis");
  return b
      .build(detail::transform::kGatherV2Op, {params, i, a},
             {{"Tparams", params.dtype()},
              {"Tindices", i.dtype()},
              {"Taxis", a.dtype()},
              {"batch_dims", std::int64_t{0}}})
      .output(0);
}
template <Element T>
Tensor<T> gather(const Tensor<T>& params, const TensorArg& indices, const TensorArg& axis = 0,
                 std::string_view name = {}) {
  return Tensor<T>(gather(Output(params), indices, axis, name));
}

// tf.math.unsorted_segment_sum(data, segment_ids, num_segments).
inline Output unsorted_segment_sum(const Output& data, const TensorArg& segment_ids,
                                   const TensorArg& num_segments, std::string_view name = {}) {
  detail::OpBuilder b(graph_of({data}), name, "UnsortedSegmentSum");
  Output ids = segment_ids.resolve(b, "segment_ids");
  Output n = num_segments.resolve(b, "num_segments");
  return b
      .build(detail::transform::kUnsortedSegmentSumOp, {data, ids, n},
             {{"T", data.dtype()}, {"Tindices", ids.dtype()}, {"Tnumsegments", n.dtype()}})
      .output(0);
}

// tf.pad(x, paddings): zeros around x; paddings is [rank, 2] (before, after).
inline Output pad(const Output& x, const TensorArg& paddings, std::string_view name = {}) {
  detail::OpBuilder b(graph_of({x}), name, "Pad");
  Output p = paddings.resolve(b, "paddings");
  return b.build(detail::transform::kPadOp, {x, p}, {{"T", x.dtype()}, {"Tpaddings", p.dtype()}})
      .output(0);
}
// tf.pad(x, paddings, constant_values=c): PadV2, with c converted to x's dtype; a
// constant_values of zero builds the plain Pad, as TensorFlow does.
inline Output pad(const Output& x, const TensorArg& paddings, const Output& constant_values,
                  std::string_view name = {}) {
  detail::OpBuilder b(graph_of({x}), name, "PadV2");
  Output p = paddings.resolve(b, "paddings");
  return b
      .build(detail::transform::kPadV2Op, {x, p, constant_values},
             {{"T", x.dtype()}, {"Tpaddings", p.dtype()}})
      .output(0);
}
inline Output pad(const Output& x, const TensorArg& paddings, const Value& constant_values,
                  std::string_view name = {}) {
  const auto* bytes = static_cast<const std::byte*>(constant_values.raw_data());
  bool zero = constant_values.size() == 1;
  for (std::size_t i = 0; zero && i < constant_values.nbytes(); ++i)
    zero = bytes[i] == std::byte{0};
  if (zero) return pad(x, paddings, name);
  detail::OpBuilder b(graph_of({x}), name, "PadV2");
  Output p = paddings.resolve(b, "paddings");
  Output c = b.constant_arg(constant_values.astype(x.dtype()), "constant_values");
  return b
      .build(detail::transform::kPadV2Op, {x, p, c}, {{"T", x.dtype()}, {"Tpaddings", p.dtype()}})
      .output(0);
}
template <Element T>
Tensor<T> pad(const Tensor<T>& x, const TensorArg& paddings, std::string_view name = {}) {
  return Tensor<T>(pad(Output(x), paddings, name));
}

// tf.space_to_batch_nd(input, block_shape, paddings): input [batch] + spatial (M dims) +
// remaining; the spatial dims are zero-padded by paddings [M, 2] and cut into blocks of
// block_shape [M], each position within a block becoming a batch of its own (the
// output's batch is batch * prod(block_shape)).
inline Output space_to_batch_nd(const Output& input, const TensorArg& block_shape,
                                const TensorArg& paddings, std::string_view name = {}) {
  detail::OpBuilder b(graph_of({input}), name, "SpaceToBatchND");
  Output block = block_shape.resolve(b, "block_shape");
  Output p = paddings.resolve(b, "paddings");
  return b
      .build(detail::transform::kSpaceToBatchNDOp, {input, block, p},
             {{"T", input.dtype()}, {"Tblock_shape", block.dtype()}, {"Tpaddings", p.dtype()}})
      .output(0);
}
template <Element T>
Tensor<T> space_to_batch_nd(const Tensor<T>& input, const TensorArg& block_shape,
                            const TensorArg& paddings, std::string_view name = {}) {
  return Tensor<T>(space_to_batch_nd(Output(input), block_shape, paddings, name));
}

// tf.batch_to_space_nd(input, block_shape, crops): the inverse of space_to_batch_nd; the
// batches of input are interleaved back into blocks of block_shape [M] over the spatial
// dims, which are then cropped by crops [M, 2].
inline Output batch_to_space_nd(const Output& input, const TensorArg& block_shape,
                                const TensorArg& crops, std::string_view name = {}) {
  detail::OpBuilder b(graph_of({input}), name, "BatchToSpaceND");
  Output block = block_shape.resolve(b, "block_shape");
  Output c = crops.resolve(b, "crops");
  return b
      .build(detail::transform::kBatchToSpaceNDOp, {input, block, c},
             {{"T", input.dtype()}, {"Tblock_shape", block.dtype()}, {"Tcrops", c.dtype()}})
      .output(0);
}
template <Element T>
Tensor<T> batch_to_space_nd(const Tensor<T>& input, const TensorArg& block_shape,
                            const TensorArg& crops, std::string_view name = {}) {
  return Tensor<T>(batch_to_space_nd(Output(input), block_shape, crops, name));
}

// The options of tf.one_hot.
struct OneHotOptions {
  std::optional<Value> on_value = std::nullopt;   // default 1 of `dtype`
  std::optional<Value> off_value = std::nullopt;  // default 0 of `dtype`
  std::int64_t axis = -1;
  DType dtype = DType::invalid;  // default: on_value's or off_value's dtype, else float32
  std::string_view name = {};
};

// tf.one_hot(indices, depth, on_value, off_value, axis, dtype).
inline Output one_hot(const TensorArg& indices, const TensorArg& depth,
                      const OneHotOptions& options = {}) {
  DType dtype = options.dtype;
  if (options.on_value && options.off_value &&
      options.on_value->dtype() != options.off_value->dtype())
    throw TypeError("dtype " + std::string(dtype_name(options.on_value->dtype())) +
                    " of on_value does not match dtype " +
                    std::string(dtype_name(options.off_value->dtype())) + " of off_value");
  if (dtype == DType::invalid)
    dtype = options.on_value    ? options.on_value->dtype()
            : options.off_value ? options.off_value->dtype()
                                : DType::float32;
  detail::OpBuilder b(graph_of({&indices, &depth}), options.name, "one_hot");
  auto scalar = [&](const std::optional<Value>& given, int fallback, std::string_view arg) {
    if (given) return b.constant_arg(given->astype(dtype), "Const");
    return b.constant_arg(Value(fallback).astype(dtype), arg);
  };
  Output on = scalar(options.on_value, 1, "on_value");
  Output off = scalar(options.off_value, 0, "off_value");
  Output i = indices.resolve(b, "indices");
  Output d = depth.resolve(b, "depth");
  return b
      .build(detail::transform::kOneHotOp, {i, d, on, off},
             {{"T", dtype}, {"TI", i.dtype()}, {"axis", options.axis}})
      .output(0);
}

struct RangeOptions {
  DType dtype = DType::invalid;  // default: the widest of the arguments' types
  std::string_view name = {};
};

// tf.range(start, limit, delta): the dtype is the widest of the three (int32 < int64 <
// float32 < float64), the others are cast to it.
inline Output range(const TensorArg& start, const TensorArg& limit, const TensorArg& delta = 1,
                    const RangeOptions& options = {}) {
  detail::OpBuilder b(graph_of({&start, &limit, &delta}), options.name, "range");
  std::vector<Output> args{start.resolve(b, "start", options.dtype),
                           limit.resolve(b, "limit", options.dtype),
                           delta.resolve(b, "delta", options.dtype)};
  DType dtype = options.dtype;
  if (dtype == DType::invalid) {
    auto order = [](DType d) {
      switch (d) {
        case DType::int32:
          return 0;
        case DType::int64:
          return 1;
        case DType::float32:
          return 2;
        case DType::float64:
          return 3;
        default:
          throw TypeError("range arguments must be int32, int64, float32 or float64, got " +
                          std::string(dtype_name(d)));
      }
    };
    dtype = args[0].dtype();
    for (const Output& a : args)
      if (order(a.dtype()) > order(dtype)) dtype = a.dtype();
  }
  // TensorFlow's shape inference sees through the Casts to the Consts: so does this.
  std::vector<Value> known;
  for (Output& a : args) {
    if (a.op().type() == "Const") known.push_back(a.op().get_attr<Value>("value").astype(dtype));
    a = cast(a, dtype);
  }
  std::optional<std::int64_t> size;
  if (known.size() == 3 && detail::transform::is_range_dtype(dtype)) {
    visit_dtype(dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (!std::is_same_v<T, bool> && !std::is_same_v<T, std::uint8_t>) {
        std::string error;
        size = detail::transform::range_size<T>(known[0].scalar<T>(), known[1].scalar<T>(),
                                                known[2].scalar<T>(), error);
        if (!size) throw ValueError(error);
      }
    });
  }
  Output out = b.build(detail::transform::kRangeOp, args, {{"Tidx", dtype}}).output(0);
  if (size) out.set_shape(Shape{*size});
  return out;
}
// tf.range(limit): 0, 1, ..., limit - 1.
inline Output range(const TensorArg& limit) { return range(0, limit); }

}  // namespace symflow
