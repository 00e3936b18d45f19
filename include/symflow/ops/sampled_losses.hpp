#pragma once
// symflow::nn's sampled losses of TensorFlow 1.x (nn_impl.py): nce_loss and
// sampled_softmax_loss, and compute_sampled_logits, which both build on. Each scores the
// true classes and a sample of the others instead of all classes: the logits of the rows
// of `weights` (and `biases`) that the labels and the sampled ids name, with the log of
// each class's expected count in the sample subtracted. The graph is TensorFlow's, node
// for node under the function's name scope, and so are the values given the same samples
// (the default sampler draws TensorFlow's samples for the same seeds). Two differences come
// from symflow's shared builders: `+` builds Add where TensorFlow 2 builds AddV2
// (docs/decisions.md), and the cross entropies after the logits are
// nn::sigmoid_cross_entropy_with_logits (a ZerosLike where TensorFlow folds a Const) and
// nn::softmax_cross_entropy_with_logits_v2 (one node where TensorFlow 2.21 reshapes the
// rank-2 logits around it).

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "symflow/ops/array_ops.hpp"
#include "symflow/ops/candidate_sampling_ops.hpp"
#include "symflow/ops/const_op.hpp"
#include "symflow/ops/defs/sparse.hpp"
#include "symflow/ops/defs/transform.hpp"
#include "symflow/ops/losses.hpp"
#include "symflow/ops/math_ops.hpp"
#include "symflow/ops/nn_impl.hpp"
#include "symflow/ops/operators.hpp"
#include "symflow/ops/scalar_operand.hpp"
#include "symflow/ops/shape_ops.hpp"
#include "symflow/ops/transform_ops.hpp"

namespace symflow::nn {

// compute_sampled_logits's keyword arguments (TensorFlow's _compute_sampled_logits).
struct ComputeSampledLogitsOptions {
  std::int64_t num_true = 1;  // true classes per example: labels is [batch, num_true]
  // (sampled ids, true expected counts, sampled expected counts), as a *_candidate_sampler
  // returns them; unset: log_uniform_candidate_sampler(labels, num_true, num_sampled,
  // unique = true, range_max = num_classes, seed).
  std::optional<CandidateSamples> sampled_values = std::nullopt;
  bool subtract_log_q = true;           // subtract log(expected count) from each logit
  bool remove_accidental_hits = false;  // push a sampled id that is a true label to -FLT_MAX
  std::string_view partition_strategy = "mod";      // of the weights' shards (embedding_lookup)
  std::string_view name = {};                       // "compute_sampled_logits" when empty
  std::optional<std::int64_t> seed = std::nullopt;  // the sampler's op-level seed
};

// The logits, [batch, num_true + num_sampled], and their target probabilities (1 / num_true
// for each true class, 0 for the sampled ones).
struct SampledLogits {
  Output logits;
  Output labels;
};

namespace detail_sampled {

// A 1-D int32 Value, as a Python list of ints becomes.
inline Value int32s(std::initializer_list<std::int32_t> values) { return Value(values); }

// tf.shape(x) as TensorFlow builds it in a graph: a Const "Shape" when x's shape is
// fully known, else a Shape node.
inline Output shape_of(Graph& g, const Output& x) {
  if (x.get_shape().is_fully_defined())
    return detail::make_const(g, detail::int32_vector(x.get_shape().dims()), "Shape").output(0);
  return shape(x);
}

// Python's indexing of a 1-D int32 tensor, a StridedSlice named "strided_slice": x[i]
// (the axis dropped), x[:stop] and x[start:stop].
inline Output element(const Output& x, std::int32_t i) {
  return strided_slice(x, int32s({i}), int32s({i + 1}), int32s({1}), {.shrink_axis_mask = 1});
}
inline Output prefix(const Output& x, std::int32_t stop) {
  return strided_slice(x, int32s({0}), int32s({stop}), int32s({1}), {.begin_mask = 1});
}
inline Output range_of(const Output& x, std::int32_t start, std::int32_t stop) {
  return strided_slice(x, int32s({start}), int32s({stop}), int32s({1}));
}

// tf.stack([t, c]) of an int32 scalar tensor t and a number c, which becomes the Const
// "stack/1".
inline Output stack_with(Graph& g, const Output& t, std::int32_t c) {
  detail::OpBuilder b(g, {}, "stack");
  const Output n = b.constant_arg(Value(c), "1");
  return b
      .build(detail::transform::kPackOp, {t, n},
             {{"N", std::int64_t{2}}, {"T", DType::int32}, {"axis", std::int64_t{0}}})
      .output(0);
}

// tf.concat([numbers, t], 0) of a list of numbers (the Const "concat/values_0") and an
// int32 vector t.
inline Output concat_after(Graph& g, const std::vector<std::int32_t>& numbers, const Output& t) {
  detail::OpBuilder b(g, {}, "concat");
  const Output head = b.constant_arg(
      Value::from_vector(numbers, Dims{static_cast<std::int64_t>(numbers.size())}), "values_0");
  const Output axis = b.constant_arg(Value(std::int32_t{0}), "axis");
  return b
      .build(detail::transform::kConcatV2Op, {head, t, axis},
             {{"N", std::int64_t{2}}, {"T", DType::int32}, {"Tidx", DType::int32}})
      .output(0);
}

// Dimension `i` of x's static shape, -1 when unknown.
inline std::int64_t dim_of(const Output& x, std::size_t i) {
  const Shape& s = x.get_shape();
  return s.has_rank() && static_cast<std::size_t>(s.rank()) > i ? s.dims()[i] : -1;
}
inline std::int64_t known_product(std::int64_t a, std::int64_t b) {
  return a < 0 || b < 0 ? -1 : a * b;
}

// TensorFlow's _sum_rows(x): each row's sum as x times a column of ones, which
// differentiates more cheaply than Sum: Shape, strided_slice, stack, ones (a Fill), MatMul
// and a Reshape to [-1].
inline Output sum_rows(Graph& g, const Output& x) {
  const Output cols = element(shape_of(g, x), 1);
  const Output ones_shape = stack_with(g, cols, 1);
  Output ones_column;
  {
    detail::OpBuilder b(g, {}, "ones");
    const Output one = b.constant_arg(detail::scalar_of(x.dtype(), 1.0), "Const");
    ones_column = b.build(detail::kFillOp, {ones_shape, one},
                          {{"T", x.dtype()}, {"index_type", DType::int32}})
                      .output(0);
  }
  // TensorFlow's shape inference reads the stacked constant; here the shape is set.
  ones_column.set_shape(Shape{dim_of(x, 1), 1});
  const Output sums = matmul(x, ones_column);
  return reshape(sums, Dims{-1});
}

// SparseToDense(indices, output_shape, values, default_value = 0) with validate_indices
// false: the hits come in no particular order.
inline Output sparse_to_dense(Graph& g, const Output& indices, const Output& output_shape,
                              const Output& values) {
  detail::OpBuilder b(g, {}, "SparseToDense");
  const Output zero = b.constant_arg(detail::scalar_of(values.dtype(), 0.0), "default_value");
  return b
      .build(detail::sparse::kSparseToDenseOp, {indices, output_shape, values, zero},
             {{"T", values.dtype()}, {"Tindices", indices.dtype()}, {"validate_indices", false}})
      .output(0);
}

}  // namespace detail_sampled

// TensorFlow's _compute_sampled_logits(weights, biases, labels, inputs, num_sampled,
// num_classes): for each example, the logits of its true classes and of the sampled
// classes, inputs · weights[id] + biases[id] (minus log(expected count) when
// subtract_log_q), and their target probabilities. weights is [num_classes, dim] or a list
// of its shards (embedding_lookup's partition_strategy); biases is [num_classes]; labels
// is [batch, num_true] of an integer type (cast to int64); inputs is [batch, dim].
// With remove_accidental_hits, a sampled class that is also one of the example's true
// classes gets -FLT_MAX added to its logit (ComputeAccidentalHits, SparseToDense).
inline SampledLogits compute_sampled_logits(const std::vector<Output>& weights,
                                            const Output& biases, const Output& labels,
                                            const Output& inputs, std::int64_t num_sampled,
                                            std::int64_t num_classes,
                                            const ComputeSampledLogitsOptions& options = {}) {
  if (weights.empty())
    throw ValueError("Length of params is currently 0. Need at least one param.");
  std::vector<Output> scope_values = weights;
  scope_values.insert(scope_values.end(), {biases, inputs, labels});
  name_scope scope(options.name, "compute_sampled_logits", scope_values);
  Graph g = graph_of(scope_values);
  const std::int64_t num_true = options.num_true;

  Output true_classes = labels.dtype() == DType::int64 ? labels : cast(labels, DType::int64);
  const Output labels_flat = reshape(true_classes, Dims{-1});

  const CandidateSamples samples =
      options.sampled_values
          ? *options.sampled_values
          : log_uniform_candidate_sampler(true_classes, num_true, num_sampled, true, num_classes,
                                          {.seed = options.seed});
  Output sampled = stop_gradient(samples.sampled_candidates);
  const Output true_expected_count = stop_gradient(samples.true_expected_count);
  const Output sampled_expected_count = stop_gradient(samples.sampled_expected_count);
  if (sampled.dtype() != DType::int64) sampled = cast(sampled, DType::int64);

  // One lookup for the true and the sampled rows: the labels first, then the sample.
  const Output all_ids = concat({labels_flat, sampled}, 0);
  Output all_w = embedding_lookup(weights, all_ids, options.partition_strategy);
  if (all_w.dtype() != inputs.dtype()) all_w = cast(all_w, inputs.dtype());

  const std::int64_t label_count = detail_sampled::dim_of(labels_flat, 0);
  const std::int64_t all_count = detail_sampled::dim_of(all_w, 0);
  const std::int64_t sampled_count =
      label_count < 0 || all_count < 0 ? -1 : all_count - label_count;
  const std::int64_t dim = detail_sampled::dim_of(all_w, 1);

  // TensorFlow's shape inference folds the stacked sizes below into constants; symflow
  // sets the shapes it would find.
  Output true_w =
      slice(all_w, detail_sampled::int32s({0, 0}),
            detail_sampled::stack_with(
                g, detail_sampled::element(detail_sampled::shape_of(g, labels_flat), 0), -1));
  true_w.set_shape(Shape{label_count, dim});
  Output sampled_w =
      slice(all_w,
            detail_sampled::stack_with(
                g, detail_sampled::element(detail_sampled::shape_of(g, labels_flat), 0), 0),
            detail_sampled::int32s({-1, -1}));
  sampled_w.set_shape(Shape{sampled_count, dim});
  Output sampled_logits = matmul(inputs, sampled_w, false, true);

  Output all_b = embedding_lookup(biases, all_ids);
  if (all_b.dtype() != inputs.dtype()) all_b = cast(all_b, inputs.dtype());
  Output true_b =
      slice(all_b, detail_sampled::int32s({0}), detail_sampled::shape_of(g, labels_flat));
  true_b.set_shape(Shape{label_count});
  Output sampled_b =
      slice(all_b, detail_sampled::shape_of(g, labels_flat), detail_sampled::int32s({-1}));
  sampled_b.set_shape(Shape{sampled_count});

  // Each example's dot products with its num_true true rows: inputs as [batch, 1, dim]
  // times the true rows as [batch, num_true, dim], each row summed.
  const Output dim_vector = detail_sampled::range_of(detail_sampled::shape_of(g, true_w), 1, 2);
  const Output true_w_shape = detail_sampled::concat_after(
      g, {-1, symflow::detail::checked_int32(num_true, "num_true")}, dim_vector);
  const Output expanded_inputs = expand_dims(inputs, 1);
  Output true_w_3d = reshape(true_w, true_w_shape);
  // TensorFlow's Reshape sees the partial shape [?, num_true, dim] and checks it.
  const std::string reshape_context =
      " for '" + true_w_3d.op().name() +
      "' (op: 'Reshape') with input shapes: " + dims_to_string(true_w.get_shape().dims()) + ", " +
      dims_to_string(true_w_shape.get_shape().dims()) + ".";
  if (num_true < 0)
    throw ValueError("num_true must not be negative, got " + std::to_string(num_true));
  if (label_count >= 0 && dim >= 0 && num_true == 0 && label_count * dim != 0)
    throw ValueError("Cannot reshape a tensor with " + std::to_string(label_count * dim) +
                     " elements to shape [?,0," + std::to_string(dim) + "] (0 elements)" +
                     reshape_context);
  if (label_count >= 0 && dim >= 0 && num_true > 0 && label_count % num_true != 0)
    throw ValueError("Dimension size must be evenly divisible by " +
                     std::to_string(num_true * dim) + " but is " +
                     std::to_string(label_count * dim) + reshape_context);
  true_w_3d.set_shape(
      Shape{label_count < 0 || num_true == 0 ? -1 : label_count / num_true, num_true, dim});
  const Output row_wise_dots = multiply(expanded_inputs, true_w_3d);
  Output dots_as_matrix = reshape(row_wise_dots, detail_sampled::concat_after(g, {-1}, dim_vector));
  dots_as_matrix.set_shape(Shape{
      detail_sampled::known_product(detail_sampled::dim_of(row_wise_dots, 0), num_true), dim});
  Output true_logits = reshape(detail_sampled::sum_rows(g, dots_as_matrix), Dims{-1, num_true});
  true_b = reshape(true_b, Dims{-1, num_true});
  true_logits = true_logits + true_b;
  sampled_logits = sampled_logits + sampled_b;

  if (options.remove_accidental_hits) {
    const AccidentalHits hits = compute_accidental_hits(true_classes, sampled, num_true);
    // SparseToDense takes the (example, sampled position) pairs as rows of one matrix.
    const Output hit_rows = reshape(hits.indices, Dims{-1, 1});
    const Output hit_columns = reshape(cast(hits.ids, DType::int32), Dims{-1, 1});
    const Output sparse_indices = concat({hit_rows, hit_columns}, 1, "sparse_indices");
    const Output batch_prefix =
        detail_sampled::prefix(detail_sampled::shape_of(g, true_classes), 1);
    Output num_sampled_vector;
    {
      detail::OpBuilder b(g, {}, "ExpandDims");
      const Output n = b.constant_arg(
          Value(symflow::detail::checked_int32(num_sampled, "num_sampled")), "input");
      const Output axis = b.constant_arg(Value(std::int32_t{0}), "dim");
      num_sampled_vector =
          b.build(detail::kExpandDimsOp, {n, axis}, {{"T", DType::int32}, {"Tdim", DType::int32}})
              .output(0);
    }
    const Output sampled_logits_shape = concat({batch_prefix, num_sampled_vector}, 0);
    Output hit_weights = hits.weights;
    if (hit_weights.dtype() != sampled_logits.dtype())
      hit_weights = cast(hit_weights, sampled_logits.dtype());
    Output hit_logits =
        detail_sampled::sparse_to_dense(g, sparse_indices, sampled_logits_shape, hit_weights);
    hit_logits.set_shape(Shape{detail_sampled::dim_of(true_classes, 0), num_sampled});
    sampled_logits = sampled_logits + hit_logits;
  }

  if (options.subtract_log_q) {
    true_logits = true_logits - log(true_expected_count);
    sampled_logits = sampled_logits - log(sampled_expected_count);
  }

  const Output out_logits = concat({true_logits, sampled_logits}, 1);
  // Each example's targets sum to 1: 1 / num_true on every true class.
  const Output true_targets =
      losses::detail_losses::ones_like_of(g, true_logits) / static_cast<double>(num_true);
  const Output out_labels =
      concat({true_targets, losses::detail_losses::zeros_like_of(g, sampled_logits)}, 1);
  return {out_logits, out_labels};
}
inline SampledLogits compute_sampled_logits(const Output& weights, const Output& biases,
                                            const Output& labels, const Output& inputs,
                                            std::int64_t num_sampled, std::int64_t num_classes,
                                            const ComputeSampledLogitsOptions& options = {}) {
  return compute_sampled_logits(std::vector<Output>{weights}, biases, labels, inputs, num_sampled,
                                num_classes, options);
}

// tf.compat.v1.nn.nce_loss's keyword arguments.
struct NceLossOptions {
  std::int64_t num_true = 1;
  std::optional<CandidateSamples> sampled_values = std::nullopt;  // log-uniform when unset
  bool remove_accidental_hits = false;
  std::string_view partition_strategy = "mod";
  std::string_view name = "nce_loss";
};

// tf.compat.v1.nn.nce_loss(weights, biases, labels, inputs, num_sampled, num_classes): the
// noise-contrastive estimation loss of each example, [batch]: the logistic loss of its
// true classes (targets 1 / num_true) and of the sampled classes (targets 0), summed. The
// logits are built under `name`; the sigmoid cross entropy ("sampled_losses") and the
// row sums follow in the enclosing scope, as in TensorFlow.
inline Output nce_loss(const std::vector<Output>& weights, const Output& biases,
                       const Output& labels, const Output& inputs, std::int64_t num_sampled,
                       std::int64_t num_classes, const NceLossOptions& options = {}) {
  const SampledLogits sampled =
      compute_sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes,
                             {.num_true = options.num_true,
                              .sampled_values = options.sampled_values,
                              .subtract_log_q = true,
                              .remove_accidental_hits = options.remove_accidental_hits,
                              .partition_strategy = options.partition_strategy,
                              .name = options.name});
  const Output losses =
      sigmoid_cross_entropy_with_logits(sampled.labels, sampled.logits, "sampled_losses");
  Graph g = graph_of({losses});
  return detail_sampled::sum_rows(g, losses);
}
inline Output nce_loss(const Output& weights, const Output& biases, const Output& labels,
                       const Output& inputs, std::int64_t num_sampled, std::int64_t num_classes,
                       const NceLossOptions& options = {}) {
  return nce_loss(std::vector<Output>{weights}, biases, labels, inputs, num_sampled, num_classes,
                  options);
}

// tf.compat.v1.nn.sampled_softmax_loss's keyword arguments.
struct SampledSoftmaxLossOptions {
  std::int64_t num_true = 1;
  std::optional<CandidateSamples> sampled_values = std::nullopt;  // log-uniform when unset
  bool remove_accidental_hits = true;
  std::string_view partition_strategy = "mod";
  std::string_view name = "sampled_softmax_loss";
  std::optional<std::int64_t> seed = std::nullopt;  // the sampler's op-level seed
};

// tf.compat.v1.nn.sampled_softmax_loss(weights, biases, labels, inputs, num_sampled,
// num_classes): the softmax cross entropy of each example, [batch], over its true
// classes and the sampled ones only. The logits are built under `name`; the targets'
// StopGradient ("labels_stop_gradient") and the cross entropy follow in the enclosing
// scope, as in TensorFlow.
inline Output sampled_softmax_loss(const std::vector<Output>& weights, const Output& biases,
                                   const Output& labels, const Output& inputs,
                                   std::int64_t num_sampled, std::int64_t num_classes,
                                   const SampledSoftmaxLossOptions& options = {}) {
  const SampledLogits sampled =
      compute_sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes,
                             {.num_true = options.num_true,
                              .sampled_values = options.sampled_values,
                              .subtract_log_q = true,
                              .remove_accidental_hits = options.remove_accidental_hits,
                              .partition_strategy = options.partition_strategy,
                              .name = options.name,
                              .seed = options.seed});
  const Output targets = stop_gradient(sampled.labels, "labels_stop_gradient");
  return softmax_cross_entropy_with_logits_v2(targets, sampled.logits);
}
inline Output sampled_softmax_loss(const Output& weights, const Output& biases,
                                   const Output& labels, const Output& inputs,
                                   std::int64_t num_sampled, std::int64_t num_classes,
                                   const SampledSoftmaxLossOptions& options = {}) {
  return sampled_softmax_loss(std::vector<Output>{weights}, biases, labels, inputs, num_sampled,
                              num_classes, options);
}

}  // namespace symflow::nn
