#pragma once
// The descriptions of ScatterNd (TensorFlow's array_ops.cc), the op that builds a dense
// tensor from sparse (index, value) pairs, as tf.math.confusion_matrix uses it, and of
// SparseToDense (sparse_ops.cc), which nn::compute_sampled_logits uses to remove
// accidental hits: their shape functions and OpDefs. The CPU kernels are in
// backend/cpu/kernels/sparse.hpp, the graph-building functions in ops/sparse_ops.hpp.
//
// Host only: there is no Thrust kernel, so the placer keeps it on the CPU.

#include <cstdint>
#include <string>
#include <vector>

#include "symflow/core/dtype.hpp"
#include "symflow/core/errors.hpp"
#include "symflow/core/shape.hpp"
#include "symflow/ops/defs/op_def.hpp"
#include "symflow/ops/defs/shape_fn.hpp"

namespace symflow::detail::sparse {

inline bool is_index_dtype(DType d) { return d == DType::int32 || d == DType::int64; }

// dims [from, to) of `s` ("[2,3]"), as TensorFlow's messages quote a subshape.
inline Shape sub_shape(const Shape& s, std::int64_t from, std::int64_t to) {
  return Shape(Dims(s.dims().begin() + from, s.dims().begin() + to));
}

// updates must have shape indices.shape[:-1] + output.shape[K:], K = indices.shape[-1]:
// TensorFlow's ScatterNdShapeHelper, with its messages.
inline void check_scatter_nd_shapes(const Shape& indices, const Shape& updates,
                                    const Shape& output) {
  if (!indices.has_rank() || !updates.has_rank()) return;
  require_rank_at_least(indices, 1);
  const std::int64_t outer = indices.rank() - 1;
  const std::int64_t k = indices.dims().back();
  if (updates.rank() < outer) return;
  const Shape index_outer = sub_shape(indices, 0, outer);
  const Shape update_outer = sub_shape(updates, 0, outer);
  try {
    (void)merge_shapes(index_outer, update_outer);
  } catch (const ValueError& e) {
    throw ValueError("Dimensions [0," + std::to_string(outer) + ") of indices[shape=" +
                     dims_to_string(indices.dims()) + "] = " + dims_to_string(index_outer.dims()) +
                     " must match dimensions [0," + std::to_string(outer) +
                     ") of updates[shape=" + dims_to_string(updates.dims()) +
                     "] = " + dims_to_string(update_outer.dims()) + ": " + e.what());
  }
  if (!output.has_rank() || k < 0 || k > output.rank()) return;
  const Shape output_inner = sub_shape(output, k, output.rank());
  const Shape update_inner = sub_shape(updates, outer, updates.rank());
  try {
    (void)merge_shapes(output_inner, update_inner);
  } catch (const ValueError& e) {
    throw ValueError("Dimensions [" + std::to_string(k) + "," + std::to_string(output.rank()) +
                     ") of input[shape=" + dims_to_string(output.dims()) +
                     "] = " + dims_to_string(output_inner.dims()) + " must match dimensions [" +
                     std::to_string(outer) + "," + std::to_string(updates.rank()) +
                     ") of updates[shape=" + dims_to_string(updates.dims()) +
                     "] = " + dims_to_string(update_inner.dims()) + ": " + e.what());
  }
}

// (indices: Tindices [..., K], updates: T, shape: Tindices [R]) -> T of `shape`, known
// when `shape` is a constant (else of rank R when R is known).
inline std::vector<TensorSpec> infer_scatter_nd(const InferContext& c) {
  check_allowed(c, 0, "indices", is_index_dtype);
  if (c.dtype(2) != c.dtype(0))
    throw TypeError("Input 'shape' of 'ScatterNd' Op has type " +
                    std::string(dtype_name(c.dtype(2))) + " that does not match type " +
                    std::string(dtype_name(c.dtype(0))) + " of argument 'indices'.");
  require_rank(c.shape(2), 1);
  Shape output = Shape::unknown();
  if (const Value* v = c.constant(2)) {
    output = Shape(shape_argument(*v));
  } else if (c.shape(2).has_rank() && c.shape(2).dims()[0] >= 0) {
    output = Shape(Dims(static_cast<std::size_t>(c.shape(2).dims()[0]), -1));
  }
  check_scatter_nd_shapes(c.shape(0), c.shape(1), output);
  return {{c.dtype(1), output}};
}

SYMFLOW_OP_DEF(kScatterNdOp, OpDef{.type = "ScatterNd",
                                   .num_inputs = 3,
                                   .infer = infer_scatter_nd,
                                   .host_only = true});

// SparseToDense(sparse_indices, output_shape, sparse_values, default_value): a dense
// tensor of `output_shape` holding default_value except at the listed indices (0-D, 1-D
// or [N, R], int32 or int64, as output_shape), which take sparse_values (a scalar or [N]).
// Its static shape is output_shape's value when that is a constant.
inline std::vector<TensorSpec> infer_sparse_to_dense(const InferContext& c) {
  check_allowed(c, 0, "sparse_indices", is_index_dtype);
  if (c.dtype(1) != c.dtype(0))
    throw TypeError("Input 'output_shape' of 'SparseToDense' Op has type " +
                    std::string(dtype_name(c.dtype(1))) + " that does not match type " +
                    std::string(dtype_name(c.dtype(0))) + " of argument 'sparse_indices'.");
  if (c.dtype(3) != c.dtype(2))
    throw TypeError("Input 'default_value' of 'SparseToDense' Op has type " +
                    std::string(dtype_name(c.dtype(3))) + " that does not match type " +
                    std::string(dtype_name(c.dtype(2))) + " of argument 'sparse_values'.");
  if (c.shape(0).has_rank() && c.shape(0).rank() > 2)
    throw ValueError("Shape must be at most rank 2 but is rank " +
                     std::to_string(c.shape(0).rank()));
  require_rank(c.shape(3), 0);
  require_rank(c.shape(1), 1);
  if (const Value* v = c.constant(1)) return {{c.dtype(2), Shape(shape_argument(*v))}};
  if (c.shape(1).dims()[0] >= 0)
    return {{c.dtype(2), Shape::unknown_dims(static_cast<int>(c.shape(1).dims()[0]))}};
  return {{c.dtype(2), Shape::unknown()}};
}

SYMFLOW_OP_DEF(kSparseToDenseOp, OpDef{.type = "SparseToDense",
                                       .num_inputs = 4,
                                       .infer = infer_sparse_to_dense,
                                       .host_only = true});

}  // namespace symflow::detail::sparse
