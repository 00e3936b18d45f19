#pragma once
// Ops about shapes and the plumbing of gradients: Shape, Size, Rank, ExpandDims,
// Squeeze, BroadcastTo, Tile, BroadcastGradientArgs, ZerosLike, OnesLike, AddN and
// StopGradient.

#include <algorithm>
#include <cstring>
#include <string_view>
#include <vector>

#include "symflow/backend/cpu/elementwise.hpp"
#include "symflow/ops/array_ops.hpp"
#include "symflow/ops/math_ops.hpp"
#include "symflow/ops/op_builder.hpp"

namespace symflow {

namespace detail {

inline bool is_index_dtype(DType d) { return d == DType::int32 || d == DType::int64; }

// A rank-1 Value of `dims` in the index dtype `d`.
inline Value index_vector(const Dims& dims, DType d) {
  if (d != DType::int64) return int32_vector(dims);
  Value v(DType::int64, {static_cast<std::int64_t>(dims.size())});
  std::copy(dims.begin(), dims.end(), v.data<std::int64_t>());
  return v;
}

// ---- Shape, Size, Rank --------------------------------------------------------
inline std::vector<TensorSpec> infer_shape_op(const InferContext& c) {
  DType out = c.attr<DType>("out_type");
  if (!is_index_dtype(out)) throw TypeError("out_type must be int32 or int64");
  return {{out, c.shape(0).has_rank() ? Shape{c.shape(0).rank()} : Shape{unknown_dim}}};
}
SYMFLOW_CPU_KERNEL(shape_kernel) {
  ctx.set_output(0, index_vector(ctx.input(0).dims(), ctx.attr<DType>("out_type")));
}
inline constexpr OpDef kShapeOp{
    .type = "Shape", .num_inputs = 1, .infer = infer_shape_op, .cpu_kernel = shape_kernel};

inline std::vector<TensorSpec> infer_size_op(const InferContext& c) {
  DType out = c.attr<DType>("out_type");
  if (!is_index_dtype(out)) throw TypeError("out_type must be int32 or int64");
  return {{out, Shape{}}};
}
SYMFLOW_CPU_KERNEL(size_kernel) {
  std::int64_t n = ctx.input(0).size();
  ctx.set_output(0, ctx.attr<DType>("out_type") == DType::int64
                        ? Value(n)
                        : Value(static_cast<std::int32_t>(n)));
}
inline constexpr OpDef kSizeOp{
    .type = "Size", .num_inputs = 1, .infer = infer_size_op, .cpu_kernel = size_kernel};

inline std::vector<TensorSpec> infer_rank_op(const InferContext&) {
  return {{DType::int32, Shape{}}};
}
SYMFLOW_CPU_KERNEL(rank_kernel) {
  ctx.set_output(0, Value(static_cast<std::int32_t>(ctx.input(0).rank())));
}
inline constexpr OpDef kRankOp{
    .type = "Rank", .num_inputs = 1, .infer = infer_rank_op, .cpu_kernel = rank_kernel};

// ---- ExpandDims, Squeeze --------------------------------------------------------
inline std::optional<Dims> expand_dims_of(const Dims& in, std::int64_t axis, std::string& error) {
  const auto rank = static_cast<std::int64_t>(in.size());
  if (axis < -rank - 1 || axis > rank) {
    error = "Tried to expand dim index " + std::to_string(axis) + " for tensor with " +
            std::to_string(rank) + " dimensions.";
    return std::nullopt;
  }
  if (axis < 0) axis += rank + 1;
  Dims out = in;
  out.insert(out.begin() + axis, 1);
  return out;
}

inline std::vector<TensorSpec> infer_expand_dims(const InferContext& c) {
  const Value* axis = c.constant(1);
  if (!axis || !c.shape(0).has_rank()) return {{c.dtype(0), Shape::unknown()}};
  Dims a = shape_argument(*axis);
  if (a.size() != 1) throw ValueError("'dim' input must be a tensor with a single value");
  std::string error;
  auto out = expand_dims_of(c.shape(0).dims(), a[0], error);
  if (!out) throw ValueError(error);
  return {{c.dtype(0), Shape(*out)}};
}
SYMFLOW_CPU_KERNEL(expand_dims_kernel) {
  Dims a = shape_argument(ctx.input(1));
  if (a.size() != 1)
    ctx.fail("'dim' must be a tensor with a single value, got " + dims_to_string(a));
  std::string error;
  auto out = expand_dims_of(ctx.input(0).dims(), a[0], error);
  if (!out) ctx.fail(error);
  ctx.set_output(0, ctx.input(0).reshaped(*out));
}
inline constexpr OpDef kExpandDimsOp{.type = "ExpandDims",
                                     .num_inputs = 2,
                                     .infer = infer_expand_dims,
                                     .cpu_kernel = expand_dims_kernel};

// The dims left after removing `axes` (every size-1 dim when empty); unknown dims stay
// only when not named.
inline std::optional<Dims> squeeze_dims_of(const Dims& in, const std::vector<std::int64_t>& axes,
                                           std::string& error) {
  const auto rank = static_cast<std::int64_t>(in.size());
  std::vector<bool> drop(in.size(), false);
  for (auto a : axes) {
    if (a < -rank || a >= rank) {
      error = "Tried to squeeze dim index " + std::to_string(a) + " for tensor with " +
              std::to_string(rank) + " dimensions.";
      return std::nullopt;
    }
    auto i = static_cast<std::size_t>(a < 0 ? a + rank : a);
    if (in[i] != 1 && in[i] != unknown_dim) {
      error = "Can not squeeze dim[" + std::to_string(i) + "], expected a dimension of 1, got " +
              std::to_string(in[i]);
      return std::nullopt;
    }
    drop[i] = true;
  }
  Dims out;
  for (std::size_t i = 0; i < in.size(); ++i) {
    bool squeeze = axes.empty() ? in[i] == 1 : drop[i];
    if (!squeeze) out.push_back(in[i]);
  }
  return out;
}

inline std::vector<TensorSpec> infer_squeeze(const InferContext& c) {
  if (!c.shape(0).has_rank()) return {{c.dtype(0), Shape::unknown()}};
  const auto& axes = c.attr<IntList>("squeeze_dims").items;
  if (axes.empty()) {
    for (auto d : c.shape(0).dims())
      if (d == unknown_dim) return {{c.dtype(0), Shape::unknown()}};
  }
  std::string error;
  auto out = squeeze_dims_of(c.shape(0).dims(), axes, error);
  if (!out) throw ValueError(error);
  return {{c.dtype(0), Shape(*out)}};
}
SYMFLOW_CPU_KERNEL(squeeze_kernel) {
  std::string error;
  auto out = squeeze_dims_of(ctx.input(0).dims(), ctx.attr<IntList>("squeeze_dims").items, error);
  if (!out) ctx.fail(error);
  ctx.set_output(0, ctx.input(0).reshaped(*out));
}
inline constexpr OpDef kSqueezeOp{
    .type = "Squeeze", .num_inputs = 1, .infer = infer_squeeze, .cpu_kernel = squeeze_kernel};

// ---- BroadcastTo, Tile -----------------------------------------------------------
// Copies `in` into an `out_dims` buffer, repeating it along broadcast axes; `period`
// reads input index (i mod dim) instead, which is how Tile repeats.
inline void broadcast_copy(const Value& in, Value& out, bool tile) {
  const Dims& od = out.dims();
  const std::size_t rank = od.size();
  const std::int64_t n = out.size();
  if (n == 0) return;
  const std::size_t elem = dtype_size(in.dtype());
  const auto* src = static_cast<const std::byte*>(in.raw_data());
  auto* dst = static_cast<std::byte*>(out.raw_data());
  if (rank == 0) {
    std::memcpy(dst, src, elem);
    return;
  }
  // Input dims aligned to the output's rank, and their row-major strides.
  Dims id(rank, 1);
  for (std::size_t k = 0; k < in.dims().size(); ++k) id[rank - in.dims().size() + k] = in.dims()[k];
  Dims stride(rank, 1);
  for (std::size_t a = rank - 1; a-- > 0;) stride[a] = stride[a + 1] * id[a + 1];
  Dims index(rank, 0);
  for (std::int64_t o = 0; o < n; ++o) {
    std::int64_t i = 0;
    for (std::size_t a = 0; a < rank; ++a)
      i += (tile ? index[a] % id[a] : (id[a] == 1 ? 0 : index[a])) * stride[a];
    std::memcpy(dst + static_cast<std::size_t>(o) * elem, src + static_cast<std::size_t>(i) * elem,
                elem);
    for (std::size_t a = rank; a-- > 0;) {
      if (++index[a] < od[a]) break;
      index[a] = 0;
    }
  }
}

inline std::vector<TensorSpec> infer_broadcast_to(const InferContext& c) {
  const Value* target = c.constant(1);
  if (!target) return {{c.dtype(0), Shape::unknown()}};
  Shape out(shape_argument(*target));
  if (c.shape(0).has_rank()) {
    auto b = broadcast_shapes(c.shape(0), out);
    if (!b || b->rank() != out.rank())
      throw ValueError("Incompatible shapes for broadcasting: " + c.shape(0).to_string() + " and " +
                       out.to_string());
  }
  return {{c.dtype(0), out}};
}
// BroadcastTo's input must broadcast to exactly the target shape (the CPU and GPU kernels
// share the check).
inline void check_broadcast_to(const KernelContext& ctx, const Dims& in_dims, const Dims& target) {
  auto b = broadcast_dims(in_dims, target);
  if (!b || *b != target)
    ctx.fail("Incompatible shapes: " + dims_to_string(in_dims) + " vs. " + dims_to_string(target));
}

SYMFLOW_CPU_KERNEL(broadcast_to_kernel) {
  const Value& in = ctx.input(0);
  Dims target = shape_argument(ctx.input(1));
  check_broadcast_to(ctx, in.dims(), target);
  Value& out = ctx.allocate_output(0, in.dtype(), target);
  broadcast_copy(in, out, false);
}
inline constexpr OpDef kBroadcastToOp{.type = "BroadcastTo",
                                      .num_inputs = 2,
                                      .infer = infer_broadcast_to,
                                      .cpu_kernel = broadcast_to_kernel};

inline std::vector<TensorSpec> infer_tile(const InferContext& c) {
  const Value* multiples = c.constant(1);
  if (!c.shape(0).has_rank()) return {{c.dtype(0), Shape::unknown()}};
  const Dims& in = c.shape(0).dims();
  if (!multiples) return {{c.dtype(0), Shape(Dims(in.size(), unknown_dim))}};
  Dims m = shape_argument(*multiples);
  if (m.size() != in.size())
    throw ValueError("Shape must be rank " + std::to_string(in.size()) + " but is rank " +
                     std::to_string(m.size()));
  Dims out(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) out[i] = in[i] == unknown_dim ? in[i] : in[i] * m[i];
  return {{c.dtype(0), Shape(out)}};
}
// Tile's multiples checked against the input's dims (the CPU and GPU kernels share it);
// returns the output's dims.
inline Dims tile_out_dims(const KernelContext& ctx, const Dims& in_dims, const Dims& m) {
  if (m.size() != in_dims.size())
    ctx.fail("Expected multiples argument to be a vector of length " +
             std::to_string(in_dims.size()) + " but got length " + std::to_string(m.size()));
  Dims out(m.size());
  for (std::size_t i = 0; i < m.size(); ++i) {
    if (m[i] < 0)
      ctx.fail("Expected multiples[" + std::to_string(i) + "] >= 0, but got " +
               std::to_string(m[i]));
    out[i] = in_dims[i] * m[i];
  }
  return out;
}

SYMFLOW_CPU_KERNEL(tile_kernel) {
  const Value& in = ctx.input(0);
  Dims m = shape_argument(ctx.input(1));
  const Dims out = tile_out_dims(ctx, in.dims(), m);
  Value& o = ctx.allocate_output(0, in.dtype(), out);
  broadcast_copy(in, o, true);
}
inline constexpr OpDef kTileOp{
    .type = "Tile", .num_inputs = 2, .infer = infer_tile, .cpu_kernel = tile_kernel};

// ---- BroadcastGradientArgs ---------------------------------------------------------
// For shapes s0 and s1 broadcast together: the axes of the result each one was
// broadcast along (its gradient is summed over them).
inline std::optional<std::pair<Dims, Dims>> broadcast_gradient_axes(const Dims& s0,
                                                                    const Dims& s1) {
  const std::size_t n = std::max(s0.size(), s1.size());
  Dims r0, r1;
  for (std::size_t i = 0; i < n; ++i) {
    std::int64_t d0 = i < n - s0.size() ? 1 : s0[i - (n - s0.size())];
    std::int64_t d1 = i < n - s1.size() ? 1 : s1[i - (n - s1.size())];
    if (d0 != d1 && d0 != 1 && d1 != 1) return std::nullopt;
    const auto axis = static_cast<std::int64_t>(i);
    if (d0 == 1 && d1 == 1) {  // both size 1: summing over it is harmless, as TF does
      r0.push_back(axis);
      r1.push_back(axis);
    } else if (d0 == 1) {
      r0.push_back(axis);
    } else if (d1 == 1) {
      r1.push_back(axis);
    }
  }
  return std::pair{r0, r1};
}

inline std::vector<TensorSpec> infer_broadcast_gradient_args(const InferContext& c) {
  if (c.dtype(0) != c.dtype(1) || !is_index_dtype(c.dtype(0)))
    throw TypeError("BroadcastGradientArgs takes two int32 or int64 vectors");
  return {{c.dtype(0), Shape{unknown_dim}}, {c.dtype(0), Shape{unknown_dim}}};
}
SYMFLOW_CPU_KERNEL(broadcast_gradient_args_kernel) {
  Dims s0 = shape_argument(ctx.input(0)), s1 = shape_argument(ctx.input(1));
  auto axes = broadcast_gradient_axes(s0, s1);
  if (!axes) ctx.fail("Incompatible shapes: " + dims_to_string(s0) + " vs. " + dims_to_string(s1));
  ctx.set_output(0, index_vector(axes->first, ctx.input(0).dtype()));
  ctx.set_output(1, index_vector(axes->second, ctx.input(0).dtype()));
}
inline constexpr OpDef kBroadcastGradientArgsOp{.type = "BroadcastGradientArgs",
                                                .num_inputs = 2,
                                                .infer = infer_broadcast_gradient_args,
                                                .cpu_kernel = broadcast_gradient_args_kernel};

// ---- ZerosLike, OnesLike, AddN, StopGradient ----------------------------------------
SYMFLOW_CPU_KERNEL_TEMPLATE(filled_like_kernel, int V) {
  const Value& in = ctx.input(0);
  Value& out = ctx.allocate_output(0, in.dtype(), in.dims());
  visit_dtype(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (T& v : out.flat<T>()) v = static_cast<T>(V);
  });
}
inline constexpr OpDef kZerosLikeOp{.type = "ZerosLike",
                                    .num_inputs = 1,
                                    .infer = same_as_input,
                                    .cpu_kernel = filled_like_kernel<0>};
inline constexpr OpDef kOnesLikeOp{.type = "OnesLike",
                                   .num_inputs = 1,
                                   .infer = same_as_input,
                                   .cpu_kernel = filled_like_kernel<1>};

inline std::vector<TensorSpec> infer_add_n(const InferContext& c) {
  if (c.inputs.empty()) throw ValueError("AddN needs at least one input");
  Shape shape = c.shape(0);
  for (std::size_t i = 1; i < c.inputs.size(); ++i) {
    if (c.dtype(i) != c.dtype(0))
      throw TypeError("AddN inputs must all have dtype " + std::string(dtype_name(c.dtype(0))) +
                      ", input " + std::to_string(i) + " has " +
                      std::string(dtype_name(c.dtype(i))));
    try {
      shape = shape.merge_with(c.shape(i));
    } catch (const ValueError&) {
      throw ValueError("Shapes must be equal rank, or shapes " + c.shape(0).to_string() + " and " +
                       c.shape(i).to_string() + " are not compatible");
    }
  }
  check_allowed(c, 0, "inputs", fn_accepts<AddFn>);
  return {{c.dtype(0), shape}};
}
// AddN's inputs must share one shape (the CPU and GPU kernels share the check).
inline void check_add_n(const KernelContext& ctx) {
  const Value& first = ctx.input(0);
  for (std::size_t i = 1; i < ctx.num_inputs(); ++i)
    if (ctx.input(i).dims() != first.dims())
      ctx.fail("Inputs to operation AddN must have the same size and shape. Input 0: " +
               dims_to_string(first.dims()) + " != input " + std::to_string(i) + ": " +
               dims_to_string(ctx.input(i).dims()));
}

SYMFLOW_CPU_KERNEL(add_n_kernel) {
  const Value& first = ctx.input(0);
  check_add_n(ctx);
  Value& out = ctx.allocate_output(0, first.dtype(), first.dims());
  visit_dtype(first.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_number_v<T>) {
      T* y = out.data<T>();
      const std::int64_t n = out.size();
      const T* x0 = first.data<T>();
      for (std::int64_t k = 0; k < n; ++k) y[k] = x0[k];
      for (std::size_t i = 1; i < ctx.num_inputs(); ++i) {
        const T* x = ctx.input(i).data<T>();
        for (std::int64_t k = 0; k < n; ++k) y[k] = add_wrapping(y[k], x[k]);
      }
    } else {
      unsupported_dtype(ctx, first.dtype());
    }
  });
}
inline constexpr OpDef kAddNOp{
    .type = "AddN", .num_inputs = -1, .infer = infer_add_n, .cpu_kernel = add_n_kernel};

inline constexpr OpDef kStopGradientOp{
    .type = "StopGradient", .num_inputs = 1, .infer = same_as_input, .cpu_kernel = identity_kernel};

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
  Output dim = b.constant_arg(Value(static_cast<std::int32_t>(axis)), "dim");
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
