#pragma once
// symflow::losses: TensorFlow 1.x's tf.losses (tf.compat.v1.losses). Every loss computes
// its per-element losses under its own name scope and ends in compute_weighted_loss,
// which weights them, reduces them as `reduction` says and adds the result to a loss
// collection; get_total_loss sums that collection with the regularization losses.
//
// The graph is TensorFlow's, node for node and name for name, with one exception: when
// a weights or losses shape is not fully known, TensorFlow adds a run-time assertion
// built on DenseToDenseSetOperation; symflow checks the ranks when they are known and
// otherwise leaves the check to the Mul's broadcasting.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "symflow/graph/collections.hpp"
#include "symflow/graph/scopes.hpp"
#include "symflow/ops/array_ops.hpp"
#include "symflow/ops/const_op.hpp"
#include "symflow/ops/defs/control.hpp"
#include "symflow/ops/logic_ops.hpp"
#include "symflow/ops/math_ops.hpp"
#include "symflow/ops/nn_impl.hpp"
#include "symflow/ops/nn_ops.hpp"
#include "symflow/ops/operators.hpp"
#include "symflow/ops/scalar_operand.hpp"
#include "symflow/ops/shape_ops.hpp"
#include "symflow/ops/transform_ops.hpp"

namespace symflow::losses {

// tf.compat.v1.losses.Reduction: how compute_weighted_loss reduces the weighted losses.
enum class Reduction {
  NONE,                    // the weighted losses, unreduced
  SUM,                     // their sum
  SUM_OVER_BATCH_SIZE,     // the sum over the number of elements of the losses
  MEAN,                    // the sum over the sum of the (broadcast) weights
  SUM_BY_NONZERO_WEIGHTS,  // the sum over the number of nonzero weights (TF1's default)
  SUM_OVER_NONZERO_WEIGHTS = SUM_BY_NONZERO_WEIGHTS,  // TensorFlow's alias of the above
};

// The reduction's key, as TensorFlow spells it ("weighted_sum_by_nonzero_weights", ...).
inline std::string_view to_string(Reduction r) {
  switch (r) {
    case Reduction::NONE:
      return "none";
    case Reduction::SUM:
      return "weighted_sum";
    case Reduction::SUM_OVER_BATCH_SIZE:
      return "weighted_sum_over_batch_size";
    case Reduction::MEAN:
      return "weighted_mean";
    case Reduction::SUM_BY_NONZERO_WEIGHTS:
      break;
  }
  return "weighted_sum_by_nonzero_weights";
}

// The `weights` argument: a Python-style number (converted to a float32 Const where
// TensorFlow converts it) or a tensor of rank 0 or of the losses' rank whose dimensions
// are each 1 or the losses' dimension.
class Weights {
 public:
  Weights(double value) : weights_(value) {}           // NOLINT: implicit on purpose
  Weights(const Output& tensor) : weights_(tensor) {}  // NOLINT
  template <class T>
  requires(std::convertible_to<T, Output> && !std::same_as<T, Output>) Weights(const T& t)
      : weights_(static_cast<Output>(t)) {}  // NOLINT: Tensor<T>, Variable

  const Output* tensor() const { return std::get_if<Output>(&weights_); }
  double number() const { return std::get<double>(weights_); }

 private:
  std::variant<double, Output> weights_;
};

// The loss collection by default: GraphKeys::LOSSES. std::nullopt adds the loss to none.
inline std::optional<CollectionKey> default_loss_collection() {
  return CollectionKey(GraphKeys::LOSSES);
}

// The keyword arguments every loss shares (compute_weighted_loss's, in its order).
struct LossOptions {
  Weights weights = 1.0;
  std::string scope = {};  // the loss's default scope name when empty
  std::optional<CollectionKey> loss_collection = default_loss_collection();
  Reduction reduction = Reduction::SUM_BY_NONZERO_WEIGHTS;
};

// huber_loss's, with `delta` where TensorFlow has it.
struct HuberLossOptions {
  Weights weights = 1.0;
  double delta = 1.0;
  std::string scope = {};
  std::optional<CollectionKey> loss_collection = default_loss_collection();
  Reduction reduction = Reduction::SUM_BY_NONZERO_WEIGHTS;
};

// log_loss's, with `epsilon`.
struct LogLossOptions {
  Weights weights = 1.0;
  double epsilon = 1e-7;
  std::string scope = {};
  std::optional<CollectionKey> loss_collection = default_loss_collection();
  Reduction reduction = Reduction::SUM_BY_NONZERO_WEIGHTS;
};

// sigmoid_cross_entropy's and softmax_cross_entropy's, with `label_smoothing`.
struct CrossEntropyOptions {
  Weights weights = 1.0;
  double label_smoothing = 0;
  std::string scope = {};
  std::optional<CollectionKey> loss_collection = default_loss_collection();
  Reduction reduction = Reduction::SUM_BY_NONZERO_WEIGHTS;
};

// tf.losses.add_loss(loss, loss_collection): adds `loss` to the collection (none when
// loss_collection is std::nullopt).
inline void add_loss(const Output& loss, const std::optional<CollectionKey>& loss_collection =
                                             default_loss_collection()) {
  if (loss_collection && !loss_collection->name.empty())
    loss.graph().add_to_collection(loss_collection->name, loss);
}

// tf.losses.get_losses(scope, loss_collection): the tensors of the default graph's loss
// collection whose names start with `scope`.
inline std::vector<Output> get_losses(std::string_view scope = {},
                                      std::string_view loss_collection = GraphKeys::LOSSES) {
  std::vector<Output> out;
  for (const CollectionValue& item : get_collection(loss_collection, scope))
    if (const auto* t = std::get_if<Output>(&item)) out.push_back(*t);
  return out;
}

// tf.losses.get_regularization_losses(scope).
inline std::vector<Output> get_regularization_losses(std::string_view scope = {}) {
  return get_losses(scope, GraphKeys::REGULARIZATION_LOSSES);
}

namespace detail_losses {

using detail::python_shape;

// tf.add_n's naming: one input with a name is an Identity of that name.
inline Output add_n_named(const std::vector<Output>& inputs, std::string_view name) {
  if (inputs.size() == 1) return identity(inputs.front(), name);
  return add_n(inputs, name);
}

// A shape as NumPy prints an int32 array: "[2 2]".
inline std::string numpy_dims(const Dims& dims) {
  std::string out = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) out += (i ? " " : "") + std::to_string(dims[i]);
  return out + "]";
}

// tf.shape(x, name) and tf.rank(x, name) as TensorFlow builds them: a Const when the
// static shape (rank) is known, else a Shape (Rank) node.
inline Output shape_of(Graph& g, const Output& x, std::string_view name) {
  if (x.get_shape().is_fully_defined())
    return detail::make_const(g, detail::int32_vector(x.get_shape().dims()), name).output(0);
  return shape(x, DType::int32, name);
}
inline Output rank_of(Graph& g, const Output& x, std::string_view name) {
  if (x.get_shape().has_rank())
    return detail::make_const(g, Value(static_cast<std::int32_t>(x.get_shape().rank())), name)
        .output(0);
  return rank(x, name);
}

// tf.ones_like(x): with a known shape, Fill("ones_like/Shape/shape_as_tensor",
// "ones_like/Const") named "ones_like"; else Fill over a Shape node.
inline Output ones_like_of(Graph& g, const Output& x) {
  name_scope scope(g, "ones_like");
  Output dims;
  if (x.get_shape().is_fully_defined()) {
    name_scope shape_scope(g, "Shape");
    dims = detail::make_const(g, detail::int32_vector(x.get_shape().dims()), "shape_as_tensor")
               .output(0);
  } else {
    dims = shape(x);
  }
  Output one = detail::make_const(g, detail::scalar_of(x.dtype(), 1.0), "Const").output(0);
  return symflow::fill(dims, one, scope.name());
}

// tf.zeros_like(x): a Const "zeros_like" when x's shape is known, else a ZerosLike node.
inline Output zeros_like_of(Graph& g, const Output& x) {
  if (!x.get_shape().is_fully_defined()) return zeros_like(x);
  name_scope scope(g, "zeros_like");
  return detail::make_const(g,
                            detail::fill_to_shape(detail::scalar_of(x.dtype(), 0.0), x.get_shape()),
                            scope.name())
      .output(0);
}

// reduce_sum over every axis as TensorFlow builds it: axes from a Const when x's rank is
// known and nonzero, else Range(0, Rank(x), 1) ("Rank", "range/start", "range/delta",
// "range"), where Rank is a Const when the rank is known (a scalar's: 0).
inline Output reduce_sum_all(Graph& g, const Output& x, std::string_view name = {}) {
  const Shape& s = x.get_shape();
  if (s.has_rank() && s.rank() > 0) return reduce_sum(x, Axis(), false, name);
  Output x_rank =
      s.has_rank()
          ? detail::make_const(g, Value(static_cast<std::int32_t>(s.rank())), "Rank").output(0)
          : rank(x);
  Output sum = reduce_sum(x, Axis(range(0, x_rank, 1)), false, name);
  sum.set_shape(Shape{});  // every axis goes: a scalar
  return sum;
}

// The weights as a tensor. A number becomes a float32 Const named `name` (TensorFlow's
// convert_to_tensor(weights, name=...)).
inline Output weights_tensor(Graph& g, const Weights& w, std::string_view name) {
  if (const Output* t = w.tensor()) return *t;
  return detail::make_const(g, Value(static_cast<float>(w.number())), name).output(0);
}

// TensorFlow's weights_broadcast_ops.assert_broadcastable: the static checks, under
// "assert_broadcastable". Returns the NoOp the weighted ops depend on, or an invalid
// Operation when the shapes are not known well enough to check now. A number as weights
// becomes the float32 Const "assert_broadcastable/weights".
inline Operation assert_broadcastable(Graph& g, const Weights& weights_arg, const Output& values) {
  name_scope scope(g, "assert_broadcastable");
  Output weights;
  {
    name_scope weights_scope(g, "weights");
    weights = weights_tensor(g, weights_arg, weights_scope.name());
    (void)shape_of(g, weights, "shape");
    (void)rank_of(g, weights, "rank");
  }
  {
    name_scope values_scope(g, "values");
    (void)shape_of(g, values, "shape");
    (void)rank_of(g, values, "rank");
  }
  const Shape& ws = weights.get_shape();
  const Shape& vs = values.get_shape();
  if (!ws.has_rank() || !vs.has_rank()) return {};
  if (ws.rank() == 0) return g.create_op(detail::kNoOp, {}, {}, "static_scalar_check_success");
  const std::string received =
      " Received weights=" + to_string(weights) + ", values=" + to_string(values);
  if (ws.rank() != vs.rank())
    throw ValueError(
        "weights can not be broadcast to values. values.rank=" + std::to_string(vs.rank()) +
        ". weights.rank=" + std::to_string(ws.rank()) + ". values.shape=" + python_shape(vs) +
        ". weights.shape=" + python_shape(ws) + "." + received);
  if (!ws.is_fully_defined() || !vs.is_fully_defined()) return {};
  for (int i = 0; i < vs.rank(); ++i)
    if (ws.dim(i) != 1 && ws.dim(i) != vs.dim(i))
      throw ValueError("weights can not be broadcast to values. Mismatch at dim " +
                       std::to_string(i) + ". values.shape=" + numpy_dims(vs.dims()) +
                       ", weights.shape=" + numpy_dims(ws.dims()) + "." + received);
  return g.create_op(detail::kNoOp, {}, {}, "static_dims_check_success");
}

// Ops built while it lives depend on `check`, when there is one.
class DependsOn {
 public:
  explicit DependsOn(const Operation& check) {
    if (check.valid()) deps_.emplace(std::vector<Operation>{check});
  }

 private:
  std::optional<control_dependencies> deps_;
};

// TensorFlow's weights_broadcast_ops.broadcast_weights: `weights` times ones of the
// values' shape ("broadcast_weights"), or `weights` itself when both shapes are known
// and equal.
inline Output broadcast_weights(Graph& g, const Output& weights, const Output& values) {
  name_scope scope(g, "broadcast_weights");
  const Shape& ws = weights.get_shape();
  const Shape& vs = values.get_shape();
  if (ws.is_fully_defined() && vs.is_fully_defined() && ws.is_compatible_with(vs)) return weights;
  DependsOn checked(assert_broadcastable(g, weights, values));
  Output ones = ones_like_of(g, values);
  return multiply(weights, ones, scope.name());
}

// The number of nonzero weights, broadcast to the losses' shape ("num_present").
inline Output num_present(Graph& g, const Output& losses, const Output& weights) {
  name_scope scope(g, "num_present");
  Output w = cast(weights, DType::float32);
  // where(w == 0, zeros, ones), its arguments built in TensorFlow's order.
  Output is_zero = equal(w, 0.0);
  Output zeros = zeros_like_of(g, w);
  Output ones = ones_like_of(g, w);
  Output present = where(is_zero, zeros, ones);
  present = broadcast_weights(g, present, losses);
  return reduce_sum_all(g, present, scope.name());
}

// The number of elements of the losses, in their dtype ("num_elements").
inline Output num_elements(Graph& g, const Output& losses) {
  name_scope scope(g, "num_elements");
  Output n =
      losses.get_shape().is_fully_defined()
          ? detail::make_const(g,
                               Value(symflow::detail::checked_int32(
                                   losses.get_shape().num_elements(), "the number of losses")),
                               scope.name())
                .output(0)
          : size(losses, DType::int32, scope.name());
  return cast(n, losses.dtype());
}

// The sum of `losses` over `denominator`, 0 when it is 0 ("value").
inline Output safe_mean(Graph& g, const Output& losses, const Output& denominator) {
  Output total = reduce_sum_all(g, losses);
  return div_no_nan(total, denominator, "value");
}

// compute_weighted_loss's body, inside its (or the calling loss's) name scope.
inline Output weighted_loss_in_scope(Graph& g, const Output& losses, const Weights& weights,
                                     const std::optional<CollectionKey>& loss_collection,
                                     Reduction reduction) {
  DependsOn checked(assert_broadcastable(g, weights, losses));
  const DType input_dtype = losses.dtype();
  Output values = cast(losses, DType::float32);
  Output w;
  if (const Output* t = weights.tensor()) {
    w = cast(*t, DType::float32);
  } else {
    // cast(1.0, float32) converts the number inside the Cast scope: "Cast/x".
    name_scope cast_scope(g, "Cast");
    w = detail::make_const(g, Value(static_cast<float>(weights.number())), "x").output(0);
  }
  Output loss = multiply(values, w);
  if (reduction != Reduction::NONE) {
    loss = reduce_sum_all(g, loss);
    switch (reduction) {
      case Reduction::MEAN:
        loss = safe_mean(g, loss, reduce_sum_all(g, ones_like_of(g, values) * w));
        break;
      case Reduction::SUM_BY_NONZERO_WEIGHTS:
        loss = safe_mean(g, loss, num_present(g, values, w));
        break;
      case Reduction::SUM_OVER_BATCH_SIZE:
        loss = safe_mean(g, loss, num_elements(g, values));
        break;
      default:
        break;
    }
  }
  loss = cast(loss, input_dtype);
  add_loss(loss, loss_collection);
  return loss;
}

// The graph of the inputs and of the weights when they are a tensor.
inline Graph graph_of_loss(std::vector<Output> inputs, const Weights& weights) {
  if (const Output* t = weights.tensor()) inputs.push_back(*t);
  return graph_of(inputs);
}

// predictions.get_shape().assert_is_compatible_with(labels.get_shape()).
inline void check_compatible(const Output& predictions, const Output& labels) {
  if (!predictions.get_shape().is_compatible_with(labels.get_shape()))
    throw ValueError("Shapes " + python_shape(predictions.get_shape()) + " and " +
                     python_shape(labels.get_shape()) + " are incompatible");
}

}  // namespace detail_losses

// tf.losses.compute_weighted_loss(losses, weights, scope, loss_collection, reduction):
// the losses times the weights, reduced as `reduction` says, under `scope`
// ("weighted_loss" by default), of the losses' dtype (computed in float32), and added to
// the loss collection.
inline Output compute_weighted_loss(const Output& losses, const LossOptions& options = {}) {
  Graph g = detail_losses::graph_of_loss({losses}, options.weights);
  name_scope scope(g, options.scope.empty() ? "weighted_loss" : options.scope);
  return detail_losses::weighted_loss_in_scope(g, losses, options.weights, options.loss_collection,
                                               options.reduction);
}

// The losses below cast their inputs to float32 and give a float32 loss. Each takes its
// options struct or just the weights: losses::absolute_difference(labels, predictions, 2.0).

// tf.losses.absolute_difference(labels, predictions): |predictions - labels|, weighted.
inline Output absolute_difference(const Output& labels, const Output& predictions,
                                  const LossOptions& options = {}) {
  Graph g = detail_losses::graph_of_loss({predictions, labels}, options.weights);
  name_scope scope(g, options.scope.empty() ? "absolute_difference" : options.scope);
  Output p = cast(predictions, DType::float32);
  Output l = cast(labels, DType::float32);
  detail_losses::check_compatible(p, l);
  Output losses = abs(subtract(p, l));
  return detail_losses::weighted_loss_in_scope(g, losses, options.weights, options.loss_collection,
                                               options.reduction);
}
inline Output absolute_difference(const Output& labels, const Output& predictions,
                                  const Weights& weights) {
  return absolute_difference(labels, predictions, LossOptions{.weights = weights});
}

// tf.losses.mean_squared_error(labels, predictions): (predictions - labels)^2, weighted.
inline Output mean_squared_error(const Output& labels, const Output& predictions,
                                 const LossOptions& options = {}) {
  Graph g = detail_losses::graph_of_loss({predictions, labels}, options.weights);
  name_scope scope(g, options.scope.empty() ? "mean_squared_error" : options.scope);
  Output p = cast(predictions, DType::float32);
  Output l = cast(labels, DType::float32);
  detail_losses::check_compatible(p, l);
  Output losses = squared_difference(p, l);
  return detail_losses::weighted_loss_in_scope(g, losses, options.weights, options.loss_collection,
                                               options.reduction);
}
inline Output mean_squared_error(const Output& labels, const Output& predictions,
                                 const Weights& weights) {
  return mean_squared_error(labels, predictions, LossOptions{.weights = weights});
}

// tf.losses.hinge_loss(labels, logits): relu(1 - (2 * labels - 1) * logits), labels in
// {0, 1}.
inline Output hinge_loss(const Output& labels, const Output& logits,
                         const LossOptions& options = {}) {
  Graph g = detail_losses::graph_of_loss({logits, labels}, options.weights);
  name_scope scope(g, options.scope.empty() ? "hinge_loss" : options.scope);
  Output x = cast(logits, DType::float32);
  Output l = cast(labels, DType::float32);
  detail_losses::check_compatible(x, l);
  Output all_ones = detail_losses::ones_like_of(g, l);
  Output signs = subtract(2.0f * l, all_ones);
  Output losses = nn::relu(subtract(all_ones, multiply(signs, x)));
  return detail_losses::weighted_loss_in_scope(g, losses, options.weights, options.loss_collection,
                                               options.reduction);
}
inline Output hinge_loss(const Output& labels, const Output& logits, const Weights& weights) {
  return hinge_loss(labels, logits, LossOptions{.weights = weights});
}

// tf.losses.huber_loss(labels, predictions, delta): 0.5 * e^2 where |e| <= delta, else
// delta * (|e| - 0.5 * delta), with e = predictions - labels.
inline Output huber_loss(const Output& labels, const Output& predictions,
                         const HuberLossOptions& options = {}) {
  Graph g = detail_losses::graph_of_loss({predictions, labels}, options.weights);
  name_scope scope(g, options.scope.empty() ? "huber_loss" : options.scope);
  Output p = cast(predictions, DType::float32);
  Output l = cast(labels, DType::float32);
  detail_losses::check_compatible(p, l);
  Output abs_error = abs(subtract(p, l));
  const float delta = static_cast<float>(options.delta);
  Output quadratic =
      detail::build_with_scalar(detail::kMinimumOp, abs_error, delta, false, true, {}, "Minimum");
  Output linear = subtract(abs_error, quadratic);
  Output half = constant(Value(0.5f));
  Output squared = multiply(quadratic, quadratic);
  Output quadratic_part = multiply(half, squared);
  Output linear_part =
      detail::build_with_scalar(detail::kMulOp, linear, delta, true, true, {}, "Mul");
  Output losses = add(quadratic_part, linear_part);
  return detail_losses::weighted_loss_in_scope(g, losses, options.weights, options.loss_collection,
                                               options.reduction);
}
inline Output huber_loss(const Output& labels, const Output& predictions, const Weights& weights) {
  return huber_loss(labels, predictions, HuberLossOptions{.weights = weights});
}

// tf.losses.log_loss(labels, predictions, epsilon): -labels * log(p + eps)
// - (1 - labels) * log(1 - p + eps), predictions being probabilities.
inline Output log_loss(const Output& labels, const Output& predictions,
                       const LogLossOptions& options = {}) {
  Graph g = detail_losses::graph_of_loss({predictions, labels}, options.weights);
  name_scope scope(g, options.scope.empty() ? "log_loss" : options.scope);
  Output p = cast(predictions, DType::float32);
  Output l = cast(labels, DType::float32);
  detail_losses::check_compatible(p, l);
  const float eps = static_cast<float>(options.epsilon);
  // Built in TensorFlow's order (C++ leaves the order of arguments open).
  Output positive = -multiply(l, log(p + eps));
  Output one_minus_labels = 1.0f - l;
  Output negative = multiply(one_minus_labels, log(1.0f - p + eps));
  Output losses = positive - negative;
  return detail_losses::weighted_loss_in_scope(g, losses, options.weights, options.loss_collection,
                                               options.reduction);
}
inline Output log_loss(const Output& labels, const Output& predictions, const Weights& weights) {
  return log_loss(labels, predictions, LogLossOptions{.weights = weights});
}

// tf.losses.sigmoid_cross_entropy(multi_class_labels, logits, label_smoothing): the
// logistic loss of each element ("xentropy"); label_smoothing > 0 moves the labels
// toward 1/2: labels * (1 - s) + s / 2. Of the logits' dtype.
inline Output sigmoid_cross_entropy(const Output& multi_class_labels, const Output& logits,
                                    const CrossEntropyOptions& options = {}) {
  Graph g = detail_losses::graph_of_loss({logits, multi_class_labels}, options.weights);
  name_scope scope(g, options.scope.empty() ? "sigmoid_cross_entropy_loss" : options.scope);
  Output labels = cast(multi_class_labels, logits.dtype());
  detail_losses::check_compatible(logits, labels);
  if (options.label_smoothing > 0)
    labels = labels * (1 - options.label_smoothing) + 0.5 * options.label_smoothing;
  Output losses = nn::sigmoid_cross_entropy_with_logits(labels, logits, "xentropy");
  return detail_losses::weighted_loss_in_scope(g, losses, options.weights, options.loss_collection,
                                               options.reduction);
}
inline Output sigmoid_cross_entropy(const Output& multi_class_labels, const Output& logits,
                                    const Weights& weights) {
  return sigmoid_cross_entropy(multi_class_labels, logits, CrossEntropyOptions{.weights = weights});
}

// tf.losses.softmax_cross_entropy(onehot_labels, logits, label_smoothing): the cross
// entropy of softmax(logits) against the labels, one per row ("xentropy"); no gradient
// flows into the labels. label_smoothing > 0 uses labels * (1 - s) + s / num_classes.
inline Output softmax_cross_entropy(const Output& onehot_labels, const Output& logits,
                                    const CrossEntropyOptions& options = {}) {
  Graph g = detail_losses::graph_of_loss({logits, onehot_labels}, options.weights);
  name_scope scope(g, options.scope.empty() ? "softmax_cross_entropy_loss" : options.scope);
  Output labels = cast(onehot_labels, logits.dtype());
  detail_losses::check_compatible(logits, labels);
  if (options.label_smoothing > 0) {
    // The class count as TensorFlow reads it: shape(labels)[-1], cast to the logits' type.
    Output labels_shape = detail_losses::shape_of(g, labels, "Shape");
    Output classes =
        strided_slice(labels_shape, detail::int32_vector(Dims{-1}), detail::int32_vector(Dims{0}),
                      detail::int32_vector(Dims{1}), {.shrink_axis_mask = 1});
    Output num_classes = cast(classes, logits.dtype());
    Output smooth_negatives = detail::build_with_scalar(
        detail::kRealDivOp, num_classes, options.label_smoothing, true, true, {}, "truediv");
    labels = labels * (1.0 - options.label_smoothing) + smooth_negatives;
  }
  labels = stop_gradient(labels, "labels_stop_gradient");
  Output losses = nn::softmax_cross_entropy_with_logits_v2(labels, logits, -1, "xentropy");
  return detail_losses::weighted_loss_in_scope(g, losses, options.weights, options.loss_collection,
                                               options.reduction);
}
inline Output softmax_cross_entropy(const Output& onehot_labels, const Output& logits,
                                    const Weights& weights) {
  return softmax_cross_entropy(onehot_labels, logits, CrossEntropyOptions{.weights = weights});
}

// tf.losses.sparse_softmax_cross_entropy(labels, logits): the cross entropy of
// softmax(logits) against class indices (int32 or int64) of rank rank(logits) - 1; labels
// (and weights) with an extra trailing dimension of 1 are squeezed, as TensorFlow does.
inline Output sparse_softmax_cross_entropy(const Output& labels, const Output& logits,
                                           const LossOptions& options = {}) {
  Graph g = detail_losses::graph_of_loss({logits, labels}, options.weights);
  name_scope scope(g, options.scope.empty() ? "sparse_softmax_cross_entropy_loss" : options.scope);
  Output l = labels;
  Output x = logits;
  const Shape& ls = labels.get_shape();
  const Shape& xs = logits.get_shape();
  {
    name_scope squeeze_scope(g, "remove_squeezable_dimensions");
    // TensorFlow's remove_squeezable_dimensions with expected_rank_diff 1: logits two
    // ranks above the labels lose a last dimension of 1, or labels of the logits' rank do.
    auto last_may_be_one = [](const Shape& s) {
      return s.rank() > 0 && (s.dims().back() < 0 || s.dims().back() == 1);
    };
    if (ls.has_rank() && xs.has_rank()) {
      if (xs.rank() - ls.rank() == 2 && last_may_be_one(xs))
        x = squeeze(x, {-1});
      else if (xs.rank() == ls.rank() && last_may_be_one(ls))
        l = squeeze(l, {-1});
    }
  }
  // The weights become a tensor here (a number a Const "Const"), squeezed like the labels.
  Output w = detail_losses::weights_tensor(g, options.weights, "Const");
  const Shape& ws = w.get_shape();
  if (l.get_shape().has_rank() && ws.has_rank() && ws.rank() - l.get_shape().rank() == 1)
    w = squeeze(w, {-1});
  Output losses = nn::sparse_softmax_cross_entropy_with_logits(l, x, "xentropy");
  return detail_losses::weighted_loss_in_scope(g, losses, w, options.loss_collection,
                                               options.reduction);
}
inline Output sparse_softmax_cross_entropy(const Output& labels, const Output& logits,
                                           const Weights& weights) {
  return sparse_softmax_cross_entropy(labels, logits, LossOptions{.weights = weights});
}

// tf.losses.get_regularization_loss(scope, name): the sum of the regularization losses
// (an AddN, or an Identity for one, named "total_regularization_loss"), or a 0.0 Const
// when there are none.
inline Output get_regularization_loss(std::string_view scope = {},
                                      std::string_view name = "total_regularization_loss") {
  std::vector<Output> losses = get_regularization_losses(scope);
  if (losses.empty()) return constant(Value(0.0f));
  return detail_losses::add_n_named(losses, name);
}

// tf.losses.get_total_loss(add_regularization_losses, name, scope): the sum of the loss
// collection and, unless told otherwise, of the regularization losses ("total_loss").
inline Output get_total_loss(bool add_regularization_losses = true,
                             std::string_view name = "total_loss", std::string_view scope = {}) {
  std::vector<Output> losses = get_losses(scope);
  if (add_regularization_losses)
    for (const Output& r : get_regularization_losses(scope)) losses.push_back(r);
  if (losses.empty())
    throw ValueError(
        "Inputs must be an iterable of at least one Tensor/IndexedSlices with the same dtype and "
        "shape.");
  return detail_losses::add_n_named(losses, name);
}

}  // namespace symflow::losses
