#pragma once
// symflow::metrics: TensorFlow 1.x's tf.metrics (tf.compat.v1.metrics). Each metric returns
// the pair TensorFlow returns, {value, update_op}: update_op folds a batch into counts kept
// in local variables (GraphKeys LOCAL_VARIABLES and METRIC_VARIABLES, zeros until
// local_variables_initializer() runs) and gives the metric with that batch counted; value
// reads the metric from the counts without changing them.
//
//   auto [acc, update] = symflow::metrics::accuracy(labels, predictions);
//   sess.run(local_variables_initializer());
//   for (batch : batches) sess.run(update, feeds(batch));
//   float result = sess.run(acc).scalar<float>();
//
// Graphs as TensorFlow builds them: the variables and ops in the metric's variable scope
// ("accuracy/total", "accuracy/count", "accuracy/update_op", ...). Weights are optional
// (an invalid Output: none). Where TensorFlow checks at run time (predictions in [0, 1] for
// auc, class ids in range for mean_iou, weights that broadcast when the shapes are not
// known), symflow builds no Assert.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "symflow/graph/collections.hpp"
#include "symflow/graph/scopes.hpp"
#include "symflow/ops/array_ops.hpp"
#include "symflow/ops/const_op.hpp"
#include "symflow/ops/control_ops.hpp"
#include "symflow/ops/logic_ops.hpp"
#include "symflow/ops/losses.hpp"
#include "symflow/ops/math_ops.hpp"
#include "symflow/ops/operators.hpp"
#include "symflow/ops/shape_ops.hpp"
#include "symflow/ops/sparse_ops.hpp"
#include "symflow/ops/state_ops.hpp"
#include "symflow/ops/transform_ops.hpp"
#include "symflow/variables/variable.hpp"
#include "symflow/variables/variable_scope.hpp"

namespace symflow::metrics {

// What every metric returns: its current value and the op that counts one more batch.
struct Metric {
  Output value;
  Output update_op;
};

// The keyword arguments every tf.metrics function shares.
struct MetricOptions {
  // Collections to add the value to, and the update op to (TensorFlow adds neither by default).
  std::vector<CollectionKey> metrics_collections = {};
  std::vector<CollectionKey> updates_collections = {};
  // The variable scope; empty: the metric's own name ("accuracy", "accuracy_1", ...).
  std::string name = {};
};

// tf.metrics.auc's curve and summation method.
enum class Curve { ROC, PR };
enum class SummationMethod { trapezoidal, minoring, majoring };

struct AucOptions {
  int num_thresholds = 200;
  Curve curve = Curve::ROC;
  SummationMethod summation_method = SummationMethod::trapezoidal;
  std::vector<CollectionKey> metrics_collections = {};
  std::vector<CollectionKey> updates_collections = {};
  std::string name = {};
};

// A metric's count: a local, non-trainable variable of `shape` and `dtype`, zeros at first,
// in the collections LOCAL_VARIABLES and METRIC_VARIABLES, named `name` in the current name
// scope (TensorFlow's metric_variable).
inline Variable metric_variable(const Shape& shape, DType dtype, std::string_view name,
                                bool validate_shape = true) {
  return Variable(
      [&] { return zeros(shape, dtype); },
      VariableOptions{.trainable = false,
                      .collections = {GraphKeys::LOCAL_VARIABLES, GraphKeys::METRIC_VARIABLES},
                      .validate_shape = validate_shape,
                      .name = std::string(name)});
}

namespace detail {

inline void add_to_collections(const std::vector<CollectionKey>& keys, const Output& t) {
  for (const CollectionKey& key : keys) t.op().graph().add_to_collection(key.name, t);
}

inline Output scalar_const(Graph& g, DType dtype, double v, std::string_view name) {
  return symflow::detail::make_const(g, Value(v).astype(dtype), name).output(0);
}

// where(condition, x, 0) as TensorFlow 1.x builds it: a Select named `name` whose zero is
// the Const "<name>/e".
inline Output where_else_zero(const Output& condition, const Output& x, std::string_view name) {
  Graph g = graph_of({condition, x});
  name_scope scope(g, name);
  Output e = scalar_const(g, x.dtype(), 0, "e");
  return where(condition, x, e, scope.name());
}

// Labels and predictions lose a squeezable last dimension (ops/sparse_ops.hpp); then their
// shapes must agree.
inline std::pair<Output, Output> remove_squeezable_dimensions(const Output& labels,
                                                              const Output& predictions) {
  auto [l, p] = symflow::detail::sparse::remove_squeezable_dimensions(labels, predictions);
  if (!p.get_shape().is_compatible_with(l.get_shape()))
    throw ValueError("Shapes " + p.get_shape().to_string() + " and " + l.get_shape().to_string() +
                     " are incompatible");
  return {l, p};
}

// Weights of rank one more or one less than the predictions' lose or gain a last
// dimension (TensorFlow's metrics _remove_squeezable_dimensions, when the ranks are known).
inline Output squeeze_or_expand_weights(const Output& predictions, const Output& weights) {
  const Shape& ws = weights.get_shape();
  const Shape& ps = predictions.get_shape();
  if (!ws.has_rank() || !ps.has_rank() || ws.rank() == 0) return weights;
  if (ws.rank() - ps.rank() == 1) return squeeze(weights, {-1});
  if (ps.rank() - ws.rank() == 1) return expand_dims(weights, -1);
  return weights;
}

// Weights broadcast to the shape of `values`: TensorFlow's weights_broadcast_ops, which
// tf.losses builds too (ops/losses.hpp).
inline Output broadcast_weights(const Output& weights, const Output& values) {
  Graph g = graph_of({weights, values});
  return losses::detail_losses::broadcast_weights(g, weights, values);
}

// TensorFlow's check_ops.assert_type on a bool tensor known to be bool: a NoOp.
inline void assert_bool(Graph& g) {
  name_scope scope(g, "assert_type");
  no_op("statically_determined_correct_type");
}

// One float32 count of the true elements of `condition` (weighted), in the current variable
// scope: tp, fp or fn (TensorFlow's _count_condition).
inline Metric count_condition(const Output& condition, Output weights,
                              const std::vector<CollectionKey>& metrics_collections,
                              const std::vector<CollectionKey>& updates_collections) {
  Graph g = graph_of({condition});
  assert_bool(g);
  Variable count = metric_variable(Shape{}, DType::float32, "count");
  Output values = cast(condition, DType::float32);
  if (weights.valid()) {
    const Shape& ws = weights.get_shape();
    const Shape& vs = values.get_shape();
    std::vector<Operation> deps;
    // TensorFlow's assert_rank_in(weights, (0, rank(values))), decided here when both ranks
    // are known (with its Consts, Shape and NoOps); otherwise left to the Mul.
    if (ws.has_rank() && vs.has_rank()) {
      scalar_const(g, DType::int32, static_cast<double>(vs.rank()), "Rank");
      name_scope scope(g, "assert_rank_in");
      scalar_const(g, DType::int32, 0, "rank");
      if (ws.rank() != 0 && ws.rank() != vs.rank())
        throw ValueError("Tensor " + weights.name() + " must have rank in (0, " +
                         std::to_string(vs.rank()) + ").  Received rank " +
                         std::to_string(ws.rank()) + ", shape " +
                         symflow::detail::python_shape(ws));
      shape(weights);
      for (std::string_view check : {"assert_type", "assert_type_1"}) {
        name_scope type_scope(g, check);
        no_op("statically_determined_correct_type");
      }
      deps.push_back(no_op("static_checks_determined_all_ok"));
    }
    control_dependencies after_check(deps);
    weights = cast(weights, DType::float32);
    values = multiply(values, weights);
  }
  Output value = identity(count.value());
  add_to_collections(metrics_collections, value);
  Output update_op = assign_add(count, reduce_sum(values));
  add_to_collections(updates_collections, update_op);
  return {value, update_op};
}

// Labels and predictions as bools, weights fitted to them, in the current scope.
struct BoolInputs {
  Output labels, predictions, weights;
};
inline BoolInputs bool_inputs(const Output& labels, const Output& predictions,
                              const Output& weights) {
  Output p = cast(predictions, DType::bool_);
  Output l = cast(labels, DType::bool_);
  std::tie(l, p) = remove_squeezable_dimensions(l, p);
  return {l, p, weights.valid() ? squeeze_or_expand_weights(p, weights) : weights};
}

enum class Condition { true_positive, false_positive, false_negative };

inline Metric count_metric(Condition kind, std::string_view default_name, const Output& labels,
                           const Output& predictions, const Output& weights,
                           const MetricOptions& options) {
  std::vector<Output> scope_values{predictions, labels};
  if (weights.valid()) scope_values.push_back(weights);
  variable_scope vs(options.name, VariableScopeOptions{.default_name = std::string(default_name),
                                                       .values = scope_values});
  BoolInputs in = bool_inputs(labels, predictions, weights);
  const bool label_wanted = kind != Condition::false_positive;
  const bool prediction_wanted = kind != Condition::false_negative;
  // One statement each: TensorFlow builds the labels' test first.
  Output label_test = equal(in.labels, label_wanted);
  Output prediction_test = equal(in.predictions, prediction_wanted);
  Output condition = logical_and(label_test, prediction_test);
  return count_condition(condition, in.weights, options.metrics_collections,
                         options.updates_collections);
}

// tp / (tp + other) when tp + other > 0, else 0: precision and recall.
inline Output ratio_or_zero(const Output& tp, const Output& other, std::string_view name) {
  Output positive = greater(raw_ops::add_v2(tp, other, "add"), 0);
  Output quotient = divide(tp, raw_ops::add_v2(tp, other, "add"));
  return where_else_zero(positive, quotient, name);
}

inline Metric ratio_metric(Condition other_kind, std::string_view default_name,
                           const Output& labels, const Output& predictions, const Output& weights,
                           const MetricOptions& options) {
  std::vector<Output> scope_values{predictions, labels};
  if (weights.valid()) scope_values.push_back(weights);
  variable_scope vs(options.name, VariableScopeOptions{.default_name = std::string(default_name),
                                                       .values = scope_values});
  BoolInputs in = bool_inputs(labels, predictions, weights);
  auto [tp, tp_update] = count_metric(Condition::true_positive, "true_positives", in.labels,
                                      in.predictions, in.weights, {});
  auto [other, other_update] = count_metric(
      other_kind, other_kind == Condition::false_positive ? "false_positives" : "false_negatives",
      in.labels, in.predictions, in.weights, {});
  Output value = ratio_or_zero(tp, other, "value");
  add_to_collections(options.metrics_collections, value);
  Output update_op = ratio_or_zero(tp_update, other_update, "update_op");
  add_to_collections(options.updates_collections, update_op);
  return {value, update_op};
}

// x[:n-1] and x[1:] of a vector, as Python's slices build them.
inline Output head(const Output& x, std::int64_t n) {
  return strided_slice(x, {std::int32_t{0}}, {static_cast<std::int32_t>(n - 1)}, {std::int32_t{1}},
                       {.begin_mask = 1});
}
inline Output tail(const Output& x) {
  return strided_slice(x, {std::int32_t{1}}, {std::int32_t{0}}, {std::int32_t{1}}, {.end_mask = 1});
}

// (a + 1e-6) / (a + b + 1e-6) when the numerator is smoothed (recall, precision), else
// a / (a + b + 1e-6) (the false positive rate), added in TensorFlow's order.
inline Output smoothed_ratio(const Output& a, const Output& b, bool smooth_numerator) {
  constexpr double kSmoothing = 1e-6;
  Output numerator = smooth_numerator ? raw_ops::add_v2(a, kSmoothing, "add") : a;
  Output sum = raw_ops::add_v2(a, b, "add");
  Output denominator = raw_ops::add_v2(sum, kSmoothing, "add");
  return divide(numerator, denominator);
}

}  // namespace detail

// tf.metrics.mean(values, weights): the (weighted) mean of every value seen, in the variable
// scope "mean": total and count, value = total / count (0 before any value).
inline Metric mean(const Output& values, const Output& weights = {},
                   const MetricOptions& options = {}) {
  std::vector<Output> scope_values{values};
  if (weights.valid()) scope_values.push_back(weights);
  variable_scope vs(options.name,
                    VariableScopeOptions{.default_name = "mean", .values = scope_values});
  Output v = cast(values, DType::float32);
  Variable total = metric_variable(Shape{}, DType::float32, "total");
  Variable count = metric_variable(Shape{}, DType::float32, "count");
  Output num_values;
  if (!weights.valid()) {
    num_values = cast(size(v), DType::float32);
  } else {
    Output w = detail::squeeze_or_expand_weights(v, weights);
    w = detail::broadcast_weights(cast(w, DType::float32), v);
    v = multiply(v, w);
    num_values = reduce_sum(w);
  }
  Output update_total = assign_add(total, reduce_sum(v));
  Output update_count;
  {
    control_dependencies after_values(std::vector<Operation>{v.op()});
    update_count = assign_add(count, num_values);
  }
  Output value = div_no_nan(total.value(), maximum(count.value(), 0), "value");
  detail::add_to_collections(options.metrics_collections, value);
  Output update_op = div_no_nan(update_total, maximum(update_count, 0), "update_op");
  detail::add_to_collections(options.updates_collections, update_op);
  return {value, update_op};
}

// tf.metrics.accuracy(labels, predictions, weights): how often predictions equal labels, a
// mean in the variable scope "accuracy". Predictions are cast to the labels' dtype; their
// shapes must agree.
inline Metric accuracy(const Output& labels, const Output& predictions, const Output& weights = {},
                       const MetricOptions& options = {}) {
  auto [l, p] = detail::remove_squeezable_dimensions(labels, predictions);
  Output w = weights.valid() ? detail::squeeze_or_expand_weights(p, weights) : weights;
  if (l.dtype() != p.dtype()) p = cast(p, l.dtype());
  Output is_correct = cast(equal(p, l), DType::float32);
  MetricOptions o = options;
  if (o.name.empty()) o.name = "accuracy";
  return mean(is_correct, w, o);
}

// tf.metrics.true_positives / false_positives / false_negatives: the (weighted) count of
// labels and predictions (as bools) that are both true, predicted but not labelled, labelled
// but not predicted. The value is an Identity of the count; the update is its AssignAdd.
inline Metric true_positives(const Output& labels, const Output& predictions,
                             const Output& weights = {}, const MetricOptions& options = {}) {
  return detail::count_metric(detail::Condition::true_positive, "true_positives", labels,
                              predictions, weights, options);
}
inline Metric false_positives(const Output& labels, const Output& predictions,
                              const Output& weights = {}, const MetricOptions& options = {}) {
  return detail::count_metric(detail::Condition::false_positive, "false_positives", labels,
                              predictions, weights, options);
}
inline Metric false_negatives(const Output& labels, const Output& predictions,
                              const Output& weights = {}, const MetricOptions& options = {}) {
  return detail::count_metric(detail::Condition::false_negative, "false_negatives", labels,
                              predictions, weights, options);
}

// tf.metrics.precision: tp / (tp + fp), 0 while nothing was predicted; tf.metrics.recall:
// tp / (tp + fn), 0 while nothing was labelled. Labels and predictions are read as bools.
inline Metric precision(const Output& labels, const Output& predictions, const Output& weights = {},
                        const MetricOptions& options = {}) {
  return detail::ratio_metric(detail::Condition::false_positive, "precision", labels, predictions,
                              weights, options);
}
inline Metric recall(const Output& labels, const Output& predictions, const Output& weights = {},
                     const MetricOptions& options = {}) {
  return detail::ratio_metric(detail::Condition::false_negative, "recall", labels, predictions,
                              weights, options);
}

// tf.metrics.auc: the area under the ROC (or precision-recall) curve, from tp, fn, tn and fp
// counted at num_thresholds thresholds spread over [0, 1] (the first just below 0, the last
// just above 1), summed by the trapezoidal rule (or the lower or upper rectangles).
// Predictions should lie in [0, 1]; labels are read as bools.
inline Metric auc(const Output& labels, const Output& predictions, const Output& weights = {},
                  const AucOptions& options = {}) {
  std::vector<Output> scope_values{labels, predictions};
  if (weights.valid()) scope_values.push_back(weights);
  variable_scope vs(options.name,
                    VariableScopeOptions{.default_name = "auc", .values = scope_values});
  const std::int64_t n = options.num_thresholds;
  // TensorFlow's thresholds: -1e-7, 1/(n-1), ..., (n-2)/(n-1), 1 + 1e-7.
  constexpr double kEpsilon = 1e-7;
  std::vector<float> thresholds{static_cast<float>(0.0 - kEpsilon)};
  for (std::int64_t i = 0; i + 2 < n; ++i)
    thresholds.push_back(static_cast<float>((i + 1) * 1.0 / static_cast<double>(n - 1)));
  thresholds.push_back(static_cast<float>(1.0 + kEpsilon));
  const auto num_thresholds = static_cast<std::int64_t>(thresholds.size());

  Output p = cast(predictions, DType::float32);
  Output l = cast(labels, DType::bool_);
  std::tie(l, p) = detail::remove_squeezable_dimensions(l, p);
  Output w = weights.valid() ? detail::squeeze_or_expand_weights(p, weights) : weights;

  Output predictions_2d = reshape(p, Dims{-1, 1});
  Output labels_2d = reshape(l, Dims{1, -1});
  const std::int64_t rows = predictions_2d.get_shape().dims().front();
  Output thresh_tiled;
  {
    Output t = constant(Value::from_vector(thresholds, {num_thresholds}));
    Output expanded = expand_dims(t, 1);
    if (rows >= 0) {
      // TensorFlow's stack of two known numbers is a Const.
      Output multiples = constant(
          Value::from_vector(std::vector<std::int32_t>{1, static_cast<std::int32_t>(rows)}, {2}),
          "stack");
      thresh_tiled = tile(expanded, multiples);
    } else {
      Output first = constant(Value(std::int32_t{1}), "stack/0");
      Output size0 = strided_slice(shape(predictions_2d), {std::int32_t{0}}, {std::int32_t{1}},
                                   {std::int32_t{1}}, {.shrink_axis_mask = 1});
      thresh_tiled = tile(expanded, stack({first, size0}));
    }
  }
  Output pred_is_pos = greater(
      tile(transpose(predictions_2d, TensorArg({1, 0})), Dims{num_thresholds, 1}), thresh_tiled);
  Output pred_is_neg = logical_not(pred_is_pos);
  Output label_is_pos = tile(labels_2d, Dims{num_thresholds, 1});
  Output label_is_neg = logical_not(label_is_pos);
  Output weights_tiled;
  if (w.valid()) {
    Output bw = detail::broadcast_weights(cast(w, DType::float32), p);
    weights_tiled = tile(reshape(bw, Dims{1, -1}), Dims{num_thresholds, 1});
  }

  auto count = [&](std::string_view name, const Output& label, const Output& pred) {
    Variable v = metric_variable(Shape{num_thresholds}, DType::float32, name);
    Output hits = cast(logical_and(label, pred), DType::float32);
    if (weights_tiled.valid()) hits = multiply(hits, weights_tiled, "mul");
    Output update = assign_add(v, reduce_sum(hits, 1));
    return std::pair<Output, Output>{v.value(), update};
  };
  auto [tp, tp_update] = count("true_positives", label_is_pos, pred_is_pos);
  auto [fn, fn_update] = count("false_negatives", label_is_pos, pred_is_neg);
  auto [tn, tn_update] = count("true_negatives", label_is_neg, pred_is_neg);
  auto [fp, fp_update] = count("false_positives", label_is_neg, pred_is_pos);

  auto compute = [&](const Output& tp_, const Output& fn_, const Output& tn_, const Output& fp_,
                     std::string_view name) {
    Output rec = detail::smoothed_ratio(tp_, fn_, true);
    Output x, y;
    if (options.curve == Curve::ROC) {
      x = detail::smoothed_ratio(fp_, tn_, false);
      y = rec;
    } else {
      x = rec;
      y = detail::smoothed_ratio(tp_, fp_, true);
    }
    // Each slice in its own statement, in TensorFlow's order.
    Output x_left = detail::head(x, n);
    Output x_right = detail::tail(x);
    Output dx = x_left - x_right;
    Output y_left = detail::head(y, n);
    Output y_right = detail::tail(y);
    Output height;
    switch (options.summation_method) {
      case SummationMethod::trapezoidal:
        height = raw_ops::add_v2(y_left, y_right, "add") / 2.0;
        break;
      case SummationMethod::minoring:
        height = minimum(y_left, y_right);
        break;
      case SummationMethod::majoring:
        height = maximum(y_left, y_right);
        break;
    }
    return reduce_sum(multiply(dx, height), {}, false, name);
  };
  Output value = compute(tp, fn, tn, fp, "value");
  detail::add_to_collections(options.metrics_collections, value);
  Output update_op = compute(tp_update, fn_update, tn_update, fp_update, "update_op");
  detail::add_to_collections(options.updates_collections, update_op);
  return {value, update_op};
}

// tf.metrics.mean_iou(labels, predictions, num_classes, weights): the mean over classes of
// intersection over union, tp / (tp + fp + fn), from a float64 confusion matrix
// "total_confusion_matrix" (variable scope "mean_iou"); classes that never occur are left
// out of the mean. The update op is the matrix's AssignAdd (TensorFlow returns it, not the
// metric). Labels and predictions are class ids in [0, num_classes).
inline Metric mean_iou(const Output& labels, const Output& predictions, std::int64_t num_classes,
                       const Output& weights = {}, const MetricOptions& options = {}) {
  std::vector<Output> scope_values{predictions, labels};
  if (weights.valid()) scope_values.push_back(weights);
  variable_scope vs(options.name,
                    VariableScopeOptions{.default_name = "mean_iou", .values = scope_values});
  if (!predictions.get_shape().is_compatible_with(labels.get_shape()))
    throw ValueError("Shapes " + predictions.get_shape().to_string() + " and " +
                     labels.get_shape().to_string() + " are incompatible");
  Graph g = graph_of(scope_values);
  Variable total_cm =
      metric_variable(Shape{num_classes, num_classes}, DType::float64, "total_confusion_matrix");
  Output p = cast(predictions, DType::int64);
  Output l = cast(labels, DType::int64);
  Output n;
  {
    // A C++ number, converted as TensorFlow converts a Python int: int32 "Cast_<k>/x".
    name_scope cast_scope(g, "Cast");
    Output x = symflow::detail::make_const(g, Value(static_cast<std::int32_t>(num_classes)), "x")
                   .output(0);
    n = cast(x, DType::int64, cast_scope.name());
  }
  auto flat = [](const Output& t) {
    return t.get_shape().has_rank() && t.get_shape().rank() > 1 ? reshape(t, Dims{-1}) : t;
  };
  p = flat(p);
  l = flat(l);
  Output w = weights.valid() ? flat(weights) : weights;
  Output current_cm =
      symflow::detail::sparse::confusion_matrix(l, p, n, w, DType::float64, {}, num_classes);
  Output update_op = assign_add(total_cm, current_cm);

  Output cm = total_cm.value();
  Output sum_over_row = cast(reduce_sum(cm, 0), DType::float32);
  Output sum_over_col = cast(reduce_sum(cm, 1), DType::float32);
  Output diagonal;
  {
    // TensorFlow's DiagPart, which symflow lacks: every (n+1)-th element of the flat matrix.
    name_scope diag_scope(g, "DiagPart");
    std::vector<std::int32_t> positions;
    for (std::int64_t i = 0; i < num_classes; ++i)
      positions.push_back(static_cast<std::int32_t>(i * (num_classes + 1)));
    Output flat_cm = reshape(cm, Dims{-1});
    diagonal = gather(flat_cm, Value::from_vector(positions, {num_classes}), 0, diag_scope.name());
  }
  Output cm_diag = cast(diagonal, DType::float32);
  Output denominator = raw_ops::add_v2(sum_over_row, sum_over_col, "add") - cm_diag;
  Output num_valid_entries = reduce_sum(cast(not_equal(denominator, 0), DType::float32));
  Output positive = greater(denominator, 0);
  denominator = where(positive, denominator, ones_like(denominator));
  Output iou = divide(cm_diag, denominator);
  Output any_valid = greater(num_valid_entries, 0);
  Output mean = reduce_sum(iou, {}, false, "mean_iou") / num_valid_entries;
  Output value = detail::where_else_zero(any_valid, mean, "Select");
  detail::add_to_collections(options.metrics_collections, value);
  detail::add_to_collections(options.updates_collections, update_op);
  return {value, update_op};
}

}  // namespace symflow::metrics
