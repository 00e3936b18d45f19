#pragma once
// tf.scatter_nd and tf.math.confusion_matrix (TensorFlow 1.x graphs), and the area's registry
// entry. ScatterNd is described in ops/defs/sparse.hpp and run by
// backend/cpu/kernels/sparse.hpp; it has no gradient in symflow (TensorFlow's needs GatherNd).

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "symflow/graph/scopes.hpp"
#include "symflow/graph/tensor.hpp"
#include "symflow/ops/array_ops.hpp"
#include "symflow/ops/const_op.hpp"
#include "symflow/ops/defs/array.hpp"
#include "symflow/ops/defs/sparse.hpp"
#include "symflow/ops/grad_context.hpp"
#include "symflow/ops/math_ops.hpp"
#include "symflow/ops/op_builder.hpp"
#include "symflow/ops/reduction_ops.hpp"
#include "symflow/ops/shape_ops.hpp"
#include "symflow/ops/tensor_arg.hpp"
#include "symflow/ops/transform_ops.hpp"

namespace symflow {

// tf.scatter_nd(indices, updates, shape): zeros of `shape` (int32 or int64, as indices)
// with updates[i] added at indices[i] (a [..., K] index names a slice of the last
// rank - K dims); repeated indices add up. An index outside `shape` fails when the node
// runs (InvalidArgumentError).
inline Output scatter_nd(const TensorArg& indices, const TensorArg& updates, const TensorArg& shape,
                         std::string_view name = {}) {
  detail::OpBuilder b(graph_of({&indices, &updates, &shape}), name, "ScatterNd");
  Output i = indices.resolve(b, "indices");
  Output u = updates.resolve(b, "updates");
  Output s = shape.resolve(b, "shape", i.dtype());
  return b
      .build(detail::sparse::kScatterNdOp, {i, u, s},
             {{"T", u.dtype()}, {"Tindices", i.dtype()}, {"bad_indices_policy", std::string()}})
      .output(0);
}

namespace detail::sparse {

// Labels and predictions whose ranks differ by one, the larger with a last dimension that
// may be 1, lose that dimension (TensorFlow's confusion_matrix.remove_squeezable_dimensions
// for known ranks), in the name scope "remove_squeezable_dimensions".
inline std::pair<Output, Output> remove_squeezable_dimensions(Output labels, Output predictions) {
  Graph g = graph_of({labels, predictions});
  name_scope scope(g, "remove_squeezable_dimensions");
  const Shape& ls = labels.get_shape();
  const Shape& ps = predictions.get_shape();
  if (ls.has_rank() && ps.has_rank()) {
    const std::int64_t diff = ps.rank() - ls.rank();
    auto may_be_one = [](const Shape& s) { return s.dims().back() == 1 || s.dims().back() < 0; };
    if (diff == 1 && may_be_one(ps))
      predictions = squeeze(predictions, {-1});
    else if (diff == -1 && may_be_one(ls))
      labels = squeeze(labels, {-1});
  }
  return {labels, predictions};
}

// ones of the shape of `like` and of `dtype`, as TensorFlow 1.x's ones_like(x, dtype) builds
// them: Fill(Shape(like), Const 1) named "ones_like".
inline Output ones_like_as(const Output& like, DType dtype) {
  Graph g = graph_of({like});
  name_scope scope(g, "ones_like");
  Output dims = shape(like);
  Output one = make_const(g, Value(1).astype(dtype), "Const").output(0);
  OpBuilder b(g, scope.name(), "Fill");
  return b.build(kFillOp, {dims, one}, {{"T", dtype}, {"index_type", DType::int32}}).output(0);
}

// The number of classes as int64 (for TensorFlow's bound assertions): a C++ number becomes
// an int32 Const "Cast/x" cast to int64.
inline Output num_classes_int64(Graph& g, const TensorArg& num_classes) {
  if (const Output* t = num_classes.tensor()) return cast(*t, DType::int64);
  name_scope scope(g, "Cast");
  Output x = make_const(g, *num_classes.value(), "x").output(0);
  return cast(x, DType::int64, scope.name());
}

inline Output confusion_matrix(const Output& labels, const Output& predictions,
                               const std::optional<TensorArg>& num_classes, const Output& weights,
                               DType dtype, std::string_view name,
                               std::int64_t known_classes = -1) {
  std::vector<Output> values{predictions, labels};
  if (num_classes && num_classes->tensor()) values.push_back(*num_classes->tensor());
  if (weights.valid()) values.push_back(weights);
  Graph g = graph_of(values);
  name_scope scope(g, name.empty() ? "confusion_matrix" : name);
  auto [l, p] = remove_squeezable_dimensions(labels, predictions);
  p = cast(p, DType::int64);
  l = cast(l, DType::int64);
  // TensorFlow also asserts here that labels and predictions are >= 0 and < num_classes;
  // symflow has no Assert, and ScatterNd rejects such an index when it runs.
  Output n;
  if (num_classes) {
    n = num_classes_int64(g, *num_classes);
  } else {
    Output max_p = reduce_max(p);
    Output max_l = reduce_max(l);
    n = raw_ops::add_v2(maximum(max_p, max_l), std::int64_t{1}, "add");
  }
  Output w;
  if (weights.valid()) {
    if (!p.get_shape().is_compatible_with(weights.get_shape()))
      throw ValueError("Shapes " + p.get_shape().to_string() + " and " +
                       weights.get_shape().to_string() + " are incompatible");
    w = cast(weights, dtype);
  }
  // A number given as a number stays one: TensorFlow stacks it into an int32 Const "stack".
  Output dense_shape;
  if (num_classes && num_classes->value()) {
    const Value k = num_classes->value()->astype(DType::int32);
    const std::int32_t size = k.scalar<std::int32_t>();
    dense_shape = constant(Value::from_vector(std::vector<std::int32_t>{size, size}, {2}), "stack");
  } else {
    dense_shape = stack({n, n});
  }
  Output indices = stack({l, p}, 1);
  Output updates = w.valid() ? w : ones_like_as(p, dtype);
  Output matrix = scatter_nd(indices, updates, cast(dense_shape, DType::int64));
  // TensorFlow's shape inference evaluates a shape made of constants; here the number of
  // classes, when known, gives the matrix its static shape.
  if (num_classes && num_classes->value())
    known_classes = num_classes->value()->astype(DType::int64).scalar<std::int64_t>();
  if (known_classes >= 0) matrix.set_shape(Shape{known_classes, known_classes});
  return matrix;
}

// No gradients: TensorFlow's flow back through GatherNd, which symflow lacks.
inline constexpr auto kSparseOpEntries = std::to_array<OpEntry>({
    {&kScatterNdOp, nullptr},
    {&kSparseToDenseOp, nullptr},
});

}  // namespace detail::sparse

namespace detail {
using sparse::kSparseOpEntries;
}  // namespace detail

// tf.math.confusion_matrix(labels, predictions, num_classes, weights, dtype): the
// [num_classes, num_classes] matrix whose (i, j) entry counts (or sums the weights of) the
// examples labelled i and predicted j, in the name scope "confusion_matrix". Labels and
// predictions are 1-D (a last dimension of 1 is squeezed). Without num_classes it is one
// more than the largest label or prediction (std::nullopt or {}).
inline Output confusion_matrix(const Output& labels, const Output& predictions,
                               const std::optional<TensorArg>& num_classes = std::nullopt,
                               const Output& weights = {}, DType dtype = DType::int32,
                               std::string_view name = {}) {
  return detail::sparse::confusion_matrix(labels, predictions, num_classes, weights, dtype, name);
}

}  // namespace symflow
