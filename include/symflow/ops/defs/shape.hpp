#pragma once
// The description of the ops about shapes and the plumbing of gradients: Shape, Size,
// Rank, ExpandDims, Squeeze, BroadcastTo, Tile, BroadcastGradientArgs, ZerosLike,
// OnesLike, AddN and StopGradient. Their shape functions, the pure helpers the shape
// functions and the kernels share, and their OpDefs; the CPU kernels are in
// backend/cpu/kernels/shape.hpp, the graph-building functions in ops/shape_ops.hpp.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "symflow/core/dtype.hpp"
#include "symflow/core/errors.hpp"
#include "symflow/core/shape.hpp"
#include "symflow/core/value.hpp"
#include "symflow/ops/defs/math.hpp"
#include "symflow/ops/defs/op_def.hpp"
#include "symflow/ops/defs/shape_fn.hpp"

namespace symflow::detail {

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
SYMFLOW_OP_DEF(kShapeOp, OpDef{.type = "Shape",
                               .num_inputs = 1,
                               .infer = infer_shape_op,
                               .accepts_strings = true,
                               .accepts_storage_dtypes = true});

inline std::vector<TensorSpec> infer_size_op(const InferContext& c) {
  DType out = c.attr<DType>("out_type");
  if (!is_index_dtype(out)) throw TypeError("out_type must be int32 or int64");
  return {{out, Shape{}}};
}
SYMFLOW_OP_DEF(kSizeOp, OpDef{.type = "Size",
                              .num_inputs = 1,
                              .infer = infer_size_op,
                              .accepts_strings = true,
                              .accepts_storage_dtypes = true});

inline std::vector<TensorSpec> infer_rank_op(const InferContext&) {
  return {{DType::int32, Shape{}}};
}
SYMFLOW_OP_DEF(kRankOp, OpDef{.type = "Rank",
                              .num_inputs = 1,
                              .infer = infer_rank_op,
                              .accepts_strings = true,
                              .accepts_storage_dtypes = true});

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
SYMFLOW_OP_DEF(kExpandDimsOp, OpDef{.type = "ExpandDims",
                                    .num_inputs = 2,
                                    .infer = infer_expand_dims,
                                    .accepts_strings = true,
                                    .accepts_storage_dtypes = true});

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
SYMFLOW_OP_DEF(kSqueezeOp, OpDef{.type = "Squeeze",
                                 .num_inputs = 1,
                                 .infer = infer_squeeze,
                                 .accepts_strings = true,
                                 .accepts_storage_dtypes = true});

// ---- BroadcastTo, Tile -----------------------------------------------------------
namespace broadcast_detail {

// Axis `a` and those inside it: the input's distinct entries along the axis first, each a
// block of the output, then that stretch of output repeated by doubling copies until the
// axis is full. A broadcast axis has one entry; Tile's has the input's dim, and its
// output repeats the input with that period. Axes from `same_from` on are alike in input
// and output: one copy.
struct BroadcastCopy {
  const Dims& in_dims;
  const Dims& out_dims;
  Dims in_block, out_block;  // bytes of one entry along each axis (Dims: no heap)
  std::size_t same_from;

  void copy(std::size_t a, const std::byte* src, std::byte* dst) const {
    if (a >= same_from) {
      std::memcpy(dst, src, static_cast<std::size_t>(in_block[a - 1]));
      return;
    }
    const std::int64_t entries = in_dims[a];
    for (std::int64_t i = 0; i < entries; ++i)
      copy(a + 1, src + i * in_block[a], dst + i * out_block[a]);
    const std::int64_t total = out_block[a] * out_dims[a];
    for (std::int64_t done = entries * out_block[a]; done < total;) {
      const std::int64_t more = std::min(done, total - done);
      std::memcpy(dst + done, dst, static_cast<std::size_t>(more));
      done += more;
    }
  }
};

}  // namespace broadcast_detail

// Copies `in` into `out`, whose dims are `in`'s with some axes repeated: a broadcast axis
// (BroadcastTo) has dim 1 in `in`; a tiled one (`tile`) repeats `in` along it, reading
// input index (i mod dim).
inline void broadcast_copy(const Value& in, Value& out) {
  const Dims& od = out.dims();
  const std::size_t rank = od.size();
  if (out.size() == 0) return;
  const std::size_t elem = dtype_size(in.dtype());
  const auto* src = static_cast<const std::byte*>(in.raw_data());
  auto* dst = static_cast<std::byte*>(out.raw_data());
  // Input dims aligned to the output's rank.
  Dims id(rank, 1);
  for (std::size_t k = 0; k < in.dims().size(); ++k) id[rank - in.dims().size() + k] = in.dims()[k];
  const auto bytes = static_cast<std::int64_t>(elem);
  broadcast_detail::BroadcastCopy c{id, od, Dims(rank, bytes), Dims(rank, bytes), rank};
  for (std::size_t a = rank; a-- > 1;) {
    c.in_block[a - 1] = c.in_block[a] * id[a];
    c.out_block[a - 1] = c.out_block[a] * od[a];
  }
  while (c.same_from > 0 && id[c.same_from - 1] == od[c.same_from - 1]) --c.same_from;
  if (rank == 0 || c.same_from == 0) {
    std::memcpy(dst, src, static_cast<std::size_t>(out.size()) * elem);
    return;
  }
  c.copy(0, src, dst);
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
SYMFLOW_OP_DEF(kBroadcastToOp,
               OpDef{.type = "BroadcastTo", .num_inputs = 2, .infer = infer_broadcast_to});

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
SYMFLOW_OP_DEF(kTileOp, OpDef{.type = "Tile", .num_inputs = 2, .infer = infer_tile});

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
SYMFLOW_OP_DEF(kBroadcastGradientArgsOp, OpDef{.type = "BroadcastGradientArgs",
                                               .num_inputs = 2,
                                               .infer = infer_broadcast_gradient_args});

// ---- ZerosLike, OnesLike, AddN, StopGradient ----------------------------------------
SYMFLOW_OP_DEF(kZerosLikeOp, OpDef{.type = "ZerosLike",
                                   .num_inputs = 1,
                                   .infer = same_as_input,
                                   .accepts_storage_dtypes = true});
SYMFLOW_OP_DEF(kOnesLikeOp, OpDef{.type = "OnesLike",
                                  .num_inputs = 1,
                                  .infer = same_as_input,
                                  .accepts_storage_dtypes = true});

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
SYMFLOW_OP_DEF(kAddNOp, OpDef{.type = "AddN", .num_inputs = -1, .infer = infer_add_n});

SYMFLOW_OP_DEF(kStopGradientOp, OpDef{.type = "StopGradient",
                                      .num_inputs = 1,
                                      .infer = same_as_input,
                                      .accepts_storage_dtypes = true});

}  // namespace symflow::detail
