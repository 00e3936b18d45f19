#pragma once
// symflow::nn functions that TensorFlow composes from several ops (nn_impl.py, nn_ops.py):
// the cross-entropy wrappers, sigmoid cross entropy, moments, batch_normalization,
// fused_batch_norm, dropout, l2_normalize and embedding_lookup. Each builds the nodes
// TensorFlow 1.x builds, under the same name scope.

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "symflow/detail/float_repr.hpp"
#include "symflow/ops/array_ops.hpp"
#include "symflow/ops/colocation.hpp"
#include "symflow/ops/const_op.hpp"
#include "symflow/ops/data_flow_ops.hpp"
#include "symflow/ops/logic_ops.hpp"
#include "symflow/ops/math_ops.hpp"
#include "symflow/ops/nn_ops.hpp"
#include "symflow/ops/operators.hpp"
#include "symflow/ops/random_ops.hpp"
#include "symflow/ops/shape_ops.hpp"
#include "symflow/ops/tensor_arg.hpp"
#include "symflow/ops/transform_ops.hpp"

namespace symflow {

namespace detail {

// `x` flattened to [-1, classes] for the cross-entropy ops (classes must be known).
inline Output flatten_outer_dims(const Output& x, std::string_view what) {
  const Shape& s = x.get_shape();
  if (!s.has_rank() || s.dims().back() < 0)
    throw ValueError(std::string(what) + " needs a known rank and a known last dimension, got " +
                     s.to_string());
  return reshape(x, Dims{-1, s.dims().back()});
}

// The loss of rank `rank - 1` for logits of static shape `s`: all dims but the first and
// the last must be known (the first may be -1).
inline Dims batch_dims_of(const Shape& s) {
  Dims out(s.dims().begin(), s.dims().end() - 1);
  for (std::size_t i = 1; i < out.size(); ++i)
    if (out[i] < 0)
      throw ValueError("softmax_cross_entropy_with_logits: symflow needs every dimension of " +
                       s.to_string() + " but the first and the last to be known");
  return out;
}

// A scalar of x's dtype.
inline Value scalar_of(DType dtype, double v) {
  return visit_dtype(dtype,
                     [&](auto t) { return Value(static_cast<typename decltype(t)::type>(v)); });
}

}  // namespace detail

namespace nn {

// tf.nn.softmax_cross_entropy_with_logits_v2(labels, logits, axis=-1): the cross entropy
// of softmax(logits) against the distributions `labels`, one value per row; gradients flow
// to both logits and labels. Rank-2 inputs give one SoftmaxCrossEntropyWithLogits node
// named after the scope; other ranks are flattened to [-1, classes] with Reshape and the
// loss reshaped back (symflow reshapes with constant shapes where TensorFlow computes
// them with Shape/Slice/ConcatV2, so every dimension but the first and the last must be
// known). Only the last axis is supported.
inline Output softmax_cross_entropy_with_logits_v2(const Output& labels, const Output& logits,
                                                   int axis = -1, std::string_view name = {}) {
  detail::OpBuilder b(graph_of({logits, labels}), name, "softmax_cross_entropy_with_logits");
  const Shape& s = logits.get_shape();
  if (axis != -1 && !(s.has_rank() && axis == s.rank() - 1))
    throw ValueError("softmax_cross_entropy_with_logits: symflow supports the last axis only");
  const AttrMap attrs{{"T", logits.dtype()}};
  if (s.has_rank() && s.rank() == 2)
    return b.build(detail::kSoftmaxCrossEntropyWithLogitsOp, {logits, labels}, attrs).output(0);
  if (s.has_rank() && s.rank() == 0)
    throw ValueError("Logits cannot be scalars - received shape " + s.to_string() + ".");
  Dims batch = detail::batch_dims_of(s);
  Output flat_logits = detail::flatten_outer_dims(logits, "softmax_cross_entropy_with_logits");
  Output flat_labels = detail::flatten_outer_dims(labels, "softmax_cross_entropy_with_logits");
  Output cost = b.build(detail::kSoftmaxCrossEntropyWithLogitsOp, {flat_logits, flat_labels}, attrs)
                    .output(0);
  return reshape(cost, batch);
}

// tf.nn.softmax_cross_entropy_with_logits(labels, logits, dim=-1), TensorFlow 1.x's first
// version: as _v2, but no gradient flows into the labels (StopGradient
// "softmax_cross_entropy_with_logits_sg/labels_stop_gradient").
inline Output softmax_cross_entropy_with_logits(const Output& labels, const Output& logits,
                                                int dim = -1, std::string_view name = {}) {
  name_scope scope(graph_of({logits, labels}),
                   name.empty() ? "softmax_cross_entropy_with_logits_sg" : name);
  Output stopped = stop_gradient(labels, "labels_stop_gradient");
  return softmax_cross_entropy_with_logits_v2(stopped, logits, dim, scope.name());
}

// tf.nn.sparse_softmax_cross_entropy_with_logits(labels, logits): the cross entropy of
// softmax(logits) against class indices `labels` (int32 or int64), of labels' shape.
// A label outside [0, classes) is an InvalidArgumentError when it runs.
inline Output sparse_softmax_cross_entropy_with_logits(const Output& labels, const Output& logits,
                                                       std::string_view name = {}) {
  detail::OpBuilder b(graph_of({logits, labels}), name, "SparseSoftmaxCrossEntropyWithLogits");
  const Shape& ls = labels.get_shape();
  const Shape& s = logits.get_shape();
  // As TensorFlow: the labels' shape, a Const when it is known.
  Output labels_shape = ls.is_fully_defined()
                            ? b.constant_arg(detail::int32_vector(ls.dims()), "Shape")
                            : shape(labels, DType::int32, "Shape");
  if (s.has_rank() && s.rank() == 0)
    throw ValueError("Logits cannot be scalars - received shape " + s.to_string() + ".");
  if (s.has_rank() && ls.has_rank() && ls.rank() != s.rank() - 1)
    throw ValueError(
        "`labels.shape.rank` must equal `logits.shape.rank - 1`. Received: "
        "labels.shape=" +
        detail::python_shape(ls) + " of rank " + std::to_string(ls.rank()) +
        " and logits.shape=" + detail::python_shape(s) + " of rank " + std::to_string(s.rank()));
  if (ls.is_fully_defined() && s.has_rank()) {
    Dims outer(s.dims().begin(), s.dims().end() - 1);
    if (Shape(outer).is_fully_defined() && outer != ls.dims())
      throw ValueError(
          "`labels.shape` must equal `logits.shape` except for the last dimension. Received: "
          "labels.shape=" +
          detail::python_shape(ls) + " and logits.shape=" + detail::python_shape(s));
  }
  const AttrMap attrs{{"T", logits.dtype()}, {"Tlabels", labels.dtype()}};
  if (s.has_rank() && s.rank() == 2)
    return b.graph()
        .create_op(detail::kSparseSoftmaxCrossEntropyWithLogitsOp, {logits, labels}, attrs,
                   "SparseSoftmaxCrossEntropyWithLogits")
        .output(0);
  Output flat_logits =
      detail::flatten_outer_dims(logits, "sparse_softmax_cross_entropy_with_logits");
  Output flat_labels = reshape(labels, Dims{-1});
  Output cost =
      b.graph()
          .create_op(detail::kSparseSoftmaxCrossEntropyWithLogitsOp, {flat_logits, flat_labels},
                     attrs, "SparseSoftmaxCrossEntropyWithLogits")
          .output(0);
  return reshape(cost, labels_shape);
}

// tf.nn.sigmoid_cross_entropy_with_logits(labels, logits): the logistic loss of each
// element, max(x, 0) - x * z + log(1 + exp(-|x|)), stable for large |x|. Built as
// TensorFlow builds it, max(x, 0) and -|x| as Selects on x >= 0, so that the gradient at
// x == 0 is TensorFlow's, sigmoid(0) - z = 0.5 - z (a Relu and an Abs would give -z).
inline Output sigmoid_cross_entropy_with_logits(const Output& labels, const Output& logits,
                                                std::string_view name = {}) {
  Graph g = graph_of({logits, labels});
  name_scope scope(g, name.empty() ? "logistic_loss" : name);
  try {
    (void)labels.get_shape().merge_with(logits.get_shape());
  } catch (const ValueError&) {
    throw ValueError("`logits` and `labels` must have the same shape, received (" +
                     detail::python_shape(logits.get_shape()) + " vs " +
                     detail::python_shape(labels.get_shape()) + ").");
  }
  const Output zeros = zeros_like(logits);
  const Output positive = greater_equal(logits, zeros);
  const Output relu_logits = where(positive, logits, zeros);
  const Output neg_abs_logits = where(positive, -logits, logits);
  const Output linear = relu_logits - logits * labels;  // built before the softplus, as in TF
  return add(linear, log1p(exp(neg_abs_logits)), scope.name());
}

// tf.nn.moments(x, axes, keep_dims=False): the mean and the variance of x over `axes`
// (mean/variance under "moments/", the variance from StopGradient(mean), squeezed unless
// keep_dims).
inline std::pair<Output, Output> moments(const Output& x, const std::vector<std::int64_t>& axes,
                                         bool keep_dims = false, std::string_view name = {}) {
  name_scope scope(graph_of({x}), name.empty() ? "moments" : name);
  Output mean = reduce_mean(x, Axis(Dims(axes.begin(), axes.end())), true, "mean");
  Output diff = squared_difference(x, stop_gradient(mean));
  Output variance = reduce_mean(diff, Axis(Dims(axes.begin(), axes.end())), true, "variance");
  if (!keep_dims) {
    mean = squeeze(mean, axes);
    variance = squeeze(variance, axes);
  }
  return {mean, variance};
}

// tf.nn.batch_normalization(x, mean, variance, offset, scale, variance_epsilon):
// scale * (x - mean) / sqrt(variance + epsilon) + offset, computed as TensorFlow does:
// inv = rsqrt(variance + epsilon) * scale; x * inv + (offset - mean * inv). `offset` and
// `scale` may be invalid Outputs (None).
inline Output batch_normalization(const Output& x, const Output& mean, const Output& variance,
                                  const Output& offset, const Output& scale,
                                  double variance_epsilon, std::string_view name = {}) {
  name_scope scope(graph_of({x, mean, variance}), name.empty() ? "batchnorm" : name);
  Output inv = rsqrt(variance + variance_epsilon);
  if (scale.valid()) inv = inv * scale;
  Output scaled = x * inv;
  Output shift = offset.valid() ? offset - mean * inv : -mean * inv;
  return scaled + shift;
}

// tf.compat.v1.nn.fused_batch_norm's keyword arguments.
struct FusedBatchNormOptions {
  double epsilon = 0.001;  // the Python function's default (the ops' own is 1e-4)
  // "NHWC" or "NCHW" for 4-D x, "NDHWC" or "NCDHW" for 5-D x.
  std::string_view data_format = "NHWC";
  bool is_training = true;
  // With is_training, != 1 blends the batch moments into `mean` and `variance`:
  // (1 - f) * running + f * batch.
  double exponential_avg_factor = 1.0;
  std::string_view name = {};
};

// fused_batch_norm's outputs: y, and the moments of the batch (training; the variance
// Bessel-corrected, and blended into the running ones when exponential_avg_factor != 1)
// or the given mean and variance (inference).
struct FusedBatchNormResult {
  Output y, batch_mean, batch_variance;
};

// tf.compat.v1.nn.fused_batch_norm(x, scale, offset, mean, variance): batch normalisation
// of a 4-D or 5-D float32 x over every axis but the channels, as one FusedBatchNormV3
// node (named "FusedBatchNormV3" or `name`). mean and variance may be left out (invalid
// Outputs, Python's None) only in training with exponential_avg_factor 1: each is then an
// empty float32 Const ("Const", "Const_1"), as TensorFlow builds them.
inline FusedBatchNormResult fused_batch_norm(const Output& x, const Output& scale,
                                             const Output& offset, const Output& mean = {},
                                             const Output& variance = {},
                                             const FusedBatchNormOptions& options = {}) {
  auto repr_or_none = [](const Output& t) { return t.valid() ? repr(t) : std::string("None"); };
  if ((!options.is_training || options.exponential_avg_factor != 1.0) &&
      (!mean.valid() || !variance.valid()))
    throw ValueError(
        "Both `mean` and `variance` must be a 1D tensor when `is_training` is False or "
        "`exponential_avg_factor` != 1.0. Received: `mean` " +
        repr_or_none(mean) + " and `variance` " + repr_or_none(variance));
  Graph g = graph_of({x, scale, offset});
  const Output running_mean =
      mean.valid() ? mean : detail::make_const(g, Value(DType::float32, {0}), "Const").output(0);
  const Output running_variance =
      variance.valid() ? variance
                       : detail::make_const(g, Value(DType::float32, {0}), "Const").output(0);
  const raw_ops::FusedBatchNormOutputs out =
      raw_ops::fused_batch_norm_v3(x, scale, offset, running_mean, running_variance,
                                   {.epsilon = options.epsilon,
                                    .exponential_avg_factor = options.exponential_avg_factor,
                                    .data_format = options.data_format,
                                    .is_training = options.is_training,
                                    .name = options.name});
  return {out.y, out.batch_mean, out.batch_variance};
}

// tf.nn.dropout's keyword arguments (TensorFlow 1.x).
struct DropoutOptions {
  std::optional<Dims> noise_shape = std::nullopt;  // x's shape when unset
  std::optional<std::int64_t> seed = std::nullopt;
  std::string name = {};  // "dropout" when empty
};

namespace detail_dropout {

// random_uniform over a shape tensor: "random_uniform/{min,max,RandomUniform,sub,mul}" and
// the Add named "random_uniform", as TensorFlow builds it.
inline Output random_uniform_of(const Output& shape_t, DType dtype,
                                std::optional<std::int64_t> seed) {
  detail::OpBuilder b(graph_of({shape_t}), {}, "random_uniform");
  Output min_t = b.constant_arg(detail::scalar_of(dtype, 0.0), "min");
  Output max_t = b.constant_arg(detail::scalar_of(dtype, 1.0), "max");
  detail::SeedAttrs s = detail::seed_attrs(b.graph(), seed);
  Output rnd =
      b.graph()
          .create_op(
              detail::kRandomUniformOp, {shape_t},
              {{"dtype", dtype}, {"seed", s.seed}, {"seed2", s.seed2}, {"T", shape_t.dtype()}},
              "RandomUniform")
          .output(0);
  Output range =
      b.graph().create_op(detail::kSubOp, {max_t, min_t}, {{"T", dtype}}, "sub").output(0);
  return detail::scale_and_shift(b, rnd, range, min_t, dtype);
}

// TensorFlow 1.x's dropout body, with `keep_prob` already a tensor in the scope `b`.
inline Output dropout_body(detail::OpBuilder& b, const Output& x, const Output& keep_prob,
                           const DropoutOptions& o) {
  Output noise_shape;
  if (o.noise_shape)
    noise_shape = b.constant_arg(detail::int32_vector(*o.noise_shape), "noise_shape");
  else if (x.get_shape().is_fully_defined())
    noise_shape = b.constant_arg(detail::int32_vector(x.get_shape().dims()), "Shape");
  else
    noise_shape = shape(x);
  // keep_prob + U[0, 1) lies in [keep_prob, 1 + keep_prob): its floor is 1 with
  // probability keep_prob.
  Output random_tensor = keep_prob + random_uniform_of(noise_shape, x.dtype(), o.seed);
  Output binary_tensor = floor(random_tensor);
  Output ret = detail::binary(detail::div_def(x.dtype()), x, keep_prob, {}, "div") * binary_tensor;
  ret.set_shape(x.get_shape());
  return ret;
}

}  // namespace detail_dropout

// tf.nn.dropout(x, keep_prob, noise_shape, seed) as TensorFlow 1.x builds it: each element
// is kept with probability keep_prob and scaled by 1 / keep_prob, else zeroed. With the
// same seed, the same mask as TensorFlow. keep_prob == 1 returns x itself.
inline Output dropout(const Output& x, double keep_prob, const DropoutOptions& options = {}) {
  if (!(keep_prob > 0 && keep_prob <= 1)) {
    char g[32];  // Python's "%g"
    std::snprintf(g, sizeof g, "%g", keep_prob);
    throw ValueError("keep_prob must be a scalar tensor or a float in the range (0, 1], got " +
                     std::string(g));
  }
  if (!is_floating(x.dtype()))
    throw ValueError("x has to be a floating point tensor since it's going to be scaled. Got a " +
                     std::string(dtype_name(x.dtype())) + " tensor instead.");
  detail::OpBuilder b(graph_of({x}), options.name, "dropout");
  Output kp = b.constant_arg(detail::scalar_of(x.dtype(), keep_prob), "keep_prob");
  if (keep_prob == 1) return x;
  return detail_dropout::dropout_body(b, x, kp, options);
}
// The same with keep_prob a scalar tensor (a placeholder fed 1.0 at test time).
inline Output dropout(const Output& x, const Output& keep_prob,
                      const DropoutOptions& options = {}) {
  if (!is_floating(x.dtype()))
    throw ValueError("x has to be a floating point tensor since it's going to be scaled. Got a " +
                     std::string(dtype_name(x.dtype())) + " tensor instead.");
  if (keep_prob.dtype() != x.dtype())
    throw ValueError("Tensor conversion requested dtype " + std::string(dtype_name(x.dtype())) +
                     " for Tensor with dtype " + std::string(dtype_name(keep_prob.dtype())) + ": " +
                     to_string(keep_prob));
  if (keep_prob.get_shape().has_rank() && keep_prob.get_shape().rank() != 0)
    throw ValueError("Shapes " + keep_prob.get_shape().to_string() + " and () are incompatible");
  detail::OpBuilder b(graph_of({x, keep_prob}), options.name, "dropout");
  return detail_dropout::dropout_body(b, x, keep_prob, options);
}

// tf.nn.l2_normalize(x, axis=None, epsilon=1e-12): x / sqrt(max(sum(x^2, axis), epsilon)),
// built as TensorFlow 1.x builds it under "l2_normalize/": Square, Sum (keep_dims),
// Maximum with epsilon (a Const of x's dtype), Rsqrt, and the Mul named after the scope.
// Integer x is a TypeError, as TensorFlow's conversion of epsilon.
inline Output l2_normalize(const Output& x, const Axis& axis = {}, double epsilon = 1e-12,
                           std::string_view name = {}) {
  name_scope scope(graph_of({x}), name.empty() ? "l2_normalize" : name);
  if (!is_floating(x.dtype())) {
    const std::string shortest = detail::python_float_repr(epsilon);
    const std::string type = std::string(dtype_name(x.dtype()));
    throw TypeError("Expected " + type + " passed to parameter 'y' of op 'Maximum', got " +
                    shortest + " of type 'float' instead. Error: Expected " + type + ", but got " +
                    shortest + " of type 'float'.");
  }
  const Output square_sum = reduce_sum(square(x), axis, true);
  Output clipped;
  {  // max(square_sum, epsilon), with epsilon a Const "Maximum/y" of x's dtype
    detail::OpBuilder b(graph_of({x}), {}, "Maximum");
    const Output floor_value = b.constant_arg(detail::scalar_of(x.dtype(), epsilon), "y");
    clipped = b.build(detail::kMaximumOp, {square_sum, floor_value}, {{"T", x.dtype()}}).output(0);
  }
  const Output inv_norm = rsqrt(clipped);
  return multiply(x, inv_norm, scope.name());
}

namespace detail_embedding {

// GatherV2 of params' rows and its axis, a Const "<name>/axis", both colocated with params
// (TensorFlow's colocate_with: the params op's own colocation group, if it has one).
inline Output colocated_gather(detail::OpBuilder& b, const Output& params, const Output& ids) {
  const Graph g = params.graph();
  const std::size_t first = g.num_nodes();
  const Output axis = b.constant_arg(Value(std::int32_t{0}), "axis");
  const Output gathered = b.build(detail::transform::kGatherV2Op, {params, ids, axis},
                                  {{"Tparams", params.dtype()},
                                   {"Tindices", ids.dtype()},
                                   {"Taxis", DType::int32},
                                   {"batch_dims", std::int64_t{0}}})
                              .output(0);
  detail::colocate_nodes_since(g, first, params.op());
  return gathered;
}

}  // namespace detail_embedding

// tf.nn.embedding_lookup(params, ids) for one params tensor: the rows of params that ids
// name, of shape ids.shape + params.shape[1:], as TensorFlow builds it: a GatherV2 named
// after the scope ("embedding_lookup", colocated with params) and an Identity
// "embedding_lookup/Identity", which is returned. An id outside [0, rows) is an
// InvalidArgumentError when it runs. The gradient reaching params is TensorFlow's
// IndexedSlices (ops/indexed_slices.hpp), which the optimizers apply to those rows only.
inline Output embedding_lookup(const Output& params, const TensorArg& ids,
                               std::string_view name = {}) {
  const Graph g = graph_of({params});
  name_scope scope(g, name.empty() ? "embedding_lookup" : name);
  detail::OpBuilder b(g, scope.name(), "GatherV2");
  const Output id_tensor = ids.resolve(b, "ids");
  return identity(detail_embedding::colocated_gather(b, params, id_tensor));
}

// tf.nn.embedding_lookup(params, ids, partition_strategy="mod") for a list of params
// tensors, the shards of one table: id i is row i / n of params[i % n] (n shards). One
// tensor is the function above. As TensorFlow builds it under "embedding_lookup/": the
// flattened ids (Reshape) and their positions (Size, range), each id's shard (mod) and
// row in it (floordiv; a Cast to int32 of the shards for int64 ids), DynamicPartition of
// both, one colocated GatherV2 per shard, a ParallelDynamicStitch named after the scope,
// and the Reshape to ids.shape + the rows' shape ("Shape", "concat", "Reshape_1"), which
// is returned. The shards' row shapes must be known and agree.
// partition_strategy="div" gives each shard a run of consecutive ids instead: with T ids
// in all and n shards, the first T % n shards hold T / n + 1 ids and the others T / n, as
// TensorFlow assigns them (a Const of T, floordiv, mod, Maximum, Less, Select); it needs
// each shard's number of rows known while building.
inline Output embedding_lookup(const std::vector<Output>& params, const TensorArg& ids,
                               std::string_view partition_strategy = "mod",
                               std::string_view name = {}) {
  if (params.empty()) throw ValueError("Length of params is currently 0. Need at least one param.");
  if (partition_strategy != "mod" && partition_strategy != "div")
    throw ValueError("Unrecognized partition strategy: " + std::string(partition_strategy) +
                     ".Must be one of either `mod` or `div`.");
  if (params.size() == 1) return embedding_lookup(params[0], ids, name);
  if (partition_strategy == "div")
    for (const Output& p : params)
      if (!p.get_shape().has_rank() || p.get_shape().rank() == 0 || p.get_shape().dim(0) < 0)
        throw ValueError(
            "symflow's embedding_lookup with partition_strategy \"div\" needs each "
            "shard's number of rows known, got " +
            p.get_shape().to_string() + " for " + p.name());
  Shape row_shape = params[0].get_shape().has_rank()
                        ? Shape(Dims(params[0].get_shape().dims().begin() + 1,
                                     params[0].get_shape().dims().end()))
                        : Shape::unknown();
  for (std::size_t p = 1; p < params.size(); ++p) {
    const Shape& s = params[p].get_shape();
    row_shape = row_shape.merge_with(
        s.has_rank() ? Shape(Dims(s.dims().begin() + 1, s.dims().end())) : Shape::unknown());
  }
  if (!row_shape.is_fully_defined())
    throw ValueError(
        "symflow's embedding_lookup of several params needs their rows' shape known, got " +
        row_shape.to_string());
  Graph g = graph_of(params);
  name_scope scope(g, name.empty() ? "embedding_lookup" : name);
  Output id_tensor;
  {
    detail::OpBuilder b(g, scope.name(), "embedding_lookup");
    id_tensor = ids.resolve(b, "ids");
  }
  const DType id_type = id_tensor.dtype();
  const auto shards = static_cast<std::int64_t>(params.size());
  const Output flat_ids = reshape(id_tensor, Dims{-1});
  const Output count =
      flat_ids.get_shape().is_fully_defined()
          ? detail::make_const(
                g, Value(detail::checked_int32(flat_ids.get_shape().dim(0), "the number of ids")),
                "Size")
                .output(0)
          : size(flat_ids);
  const Output original_indices = range(0, count);
  Output assignments, new_ids;
  if (partition_strategy == "mod") {
    auto with_shards = [&](const OpDef& def, std::string_view op_name) {
      detail::OpBuilder b(g, op_name, def.type);
      const Output y = b.constant_arg(detail::scalar_of(id_type, static_cast<double>(shards)), "y");
      return b.build(def, {flat_ids, y}, {{"T", id_type}}).output(0);
    };
    assignments = with_shards(detail::kFloorModOp, "mod");
    new_ids = with_shards(detail::kFloorDivOp, "floordiv");
  } else {
    // One node per statement, in the order TensorFlow's Python builds them.
    std::int64_t total_rows = 0;
    for (const Output& p : params) total_rows += p.get_shape().dim(0);
    const Output total =
        detail::make_const(g, detail::scalar_of(id_type, static_cast<double>(total_rows)), "Const")
            .output(0);
    const Output ids_per_shard = floordiv(total, shards);
    const Output extras = mod(total, shards, "mod");
    const Output long_run = ids_per_shard + 1;
    const Output in_long_shard = floordiv(flat_ids, long_run);
    const Output after_extras = flat_ids - extras;
    const Output in_short_shard = floordiv(after_extras, ids_per_shard);
    assignments = maximum(in_long_shard, in_short_shard);
    const Output in_first_shards = less(assignments, extras);
    const Output long_run_again = ids_per_shard + 1;
    const Output row_in_long = mod(flat_ids, long_run_again, "mod");
    const Output after_extras_again = flat_ids - extras;
    const Output row_in_short = mod(after_extras_again, ids_per_shard, "mod");
    new_ids = where(in_first_shards, row_in_long, row_in_short);
  }
  if (id_type != DType::int32) assignments = cast(assignments, DType::int32);
  const std::vector<Output> gather_ids = dynamic_partition(new_ids, assignments, shards);
  const std::vector<Output> positions = dynamic_partition(original_indices, assignments, shards);
  std::vector<TensorArg> stitch_indices, stitch_data;
  for (std::size_t p = 0; p < params.size(); ++p) {
    detail::OpBuilder b(g, {}, "GatherV2");
    stitch_data.emplace_back(detail_embedding::colocated_gather(b, params[p], gather_ids[p]));
    stitch_indices.emplace_back(positions[p]);
  }
  const Output stitched = parallel_dynamic_stitch(stitch_indices, stitch_data, scope.name());
  const Shape& id_shape = id_tensor.get_shape();
  const Output ids_shape =
      id_shape.is_fully_defined()
          ? detail::make_const(g, detail::int32_vector(id_shape.dims()), "Shape").output(0)
          : shape(id_tensor);
  Output full_shape;
  {
    detail::OpBuilder b(g, {}, "concat");
    const Output rows = b.constant_arg(detail::int32_vector(row_shape.dims()), "values_1");
    const Output axis = b.constant_arg(Value(std::int32_t{0}), "axis");
    full_shape = b.build(detail::transform::kConcatV2Op, {ids_shape, rows, axis},
                         {{"N", std::int64_t{2}}, {"T", DType::int32}, {"Tidx", DType::int32}})
                     .output(0);
  }
  Output result = reshape(stitched, full_shape);
  if (id_shape.has_rank()) {
    Dims out = id_shape.dims();
    out.insert(out.end(), row_shape.dims().begin(), row_shape.dims().end());
    result.set_shape(Shape(out));
  }
  return result;
}

}  // namespace nn
}  // namespace symflow
