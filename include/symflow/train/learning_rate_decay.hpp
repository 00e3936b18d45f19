#pragma once
// TensorFlow 1.x's learning-rate schedules (tf.train.exponential_decay and friends): each
// builds, in its own name scope, a float tensor computed from the global step, to be
// given to an optimizer as its learning rate (a Hyperparameter may be a tensor).
//
//   exponential_decay(lr, step, decay_steps, decay_rate)   lr * rate^(step / steps)
//   natural_exp_decay(lr, step, decay_steps, decay_rate)   lr * exp(-rate)^(step / steps)
//   inverse_time_decay(lr, step, decay_steps, decay_rate)  lr / (1 + rate * step / steps)
//   polynomial_decay(lr, step, decay_steps)                (lr - end) * (1 - step / steps)^power
//                                                          + end, the step capped at steps
//                                                          (or, with cycle, the steps
//                                                          stretched to a multiple past it)
//   cosine_decay(lr, step, decay_steps, alpha)             lr * ((1 - alpha) * 0.5 *
//                                                          (1 + cos(pi * step / steps)) + alpha)
//   piecewise_constant(x, boundaries, values)              values[i] on the i-th interval
//
// The graphs are TensorFlow's, node for node ("ExponentialDecay/initial_learning_rate",
// "ExponentialDecay/Cast_2", ...; the result is named after the scope), with `+` as Add
// (docs/decisions.md). Numbers follow Python's conversion: an integer is an int32 Const
// (cast to the learning rate's dtype), a floating-point number a float32 Const. The
// computation runs in the learning rate's dtype (float32 for a number).
//
// Not built: piecewise_constant's case has no exclusivity Assert, which changes nothing
// since its predicates never hold together.

#include <functional>
#include <numbers>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "symflow/graph/scopes.hpp"
#include "symflow/ops/cond.hpp"
#include "symflow/ops/logic_ops.hpp"
#include "symflow/ops/math_ops.hpp"
#include "symflow/ops/nn_ops.hpp"
#include "symflow/ops/operators.hpp"
#include "symflow/train/optimizer.hpp"

namespace symflow::train {

// The keyword arguments of exponential_decay, natural_exp_decay and inverse_time_decay.
struct DecayOptions {
  // Decay in whole periods: floor(step / decay_steps).
  bool staircase = false;
  // The name scope and the result's name; empty: the schedule's own
  // ("ExponentialDecay", "InverseTimeDecay").
  std::string name = {};
};

// The keyword arguments of polynomial_decay.
struct PolynomialDecayOptions {
  Hyperparameter end_learning_rate = 0.0001;
  Hyperparameter power = 1.0;
  // TensorFlow's cycle=True: past decay_steps, decay again over the next multiple of
  // decay_steps (ceil(step / decay_steps) of them; 1 at step 0).
  bool cycle = false;
  std::string name = {};
};

namespace detail {

// TensorFlow's math_ops.cast of a number or a tensor: a tensor of `dtype` comes back as
// it is; anything else opens a name scope "Cast" where a number becomes the Const "x"
// and the Cast (when the dtype differs) takes the scope's name.
inline Output cast_hyperparameter(Graph& g, const Hyperparameter& h, DType dtype) {
  if (h.is_tensor() && h.tensor().dtype() == dtype) return h.tensor();
  name_scope scope(g, "Cast");
  Output x = h.is_tensor() ? h.tensor() : symflow::detail::make_const(g, h.value(), "x").output(0);
  return cast(x, dtype, scope.name());
}

// The global step given to a schedule: TensorFlow converts None to a tensor and fails.
inline void require_step(const Output& global_step) {
  if (!global_step.valid()) throw ValueError("None values not supported.");
}

inline Graph schedule_graph(const Hyperparameter& learning_rate, const Output& global_step) {
  return learning_rate.is_tensor() ? graph_of({learning_rate.tensor(), global_step})
                                   : global_step.graph();
}

// ExponentialDecay's graph, shared by exponential_decay and natural_exp_decay (which
// gives it exp(-decay_rate) as the rate).
inline Output exponential_decay_schedule(const Hyperparameter& learning_rate,
                                         const Output& global_step,
                                         const Hyperparameter& decay_steps,
                                         const Hyperparameter& decay_rate,
                                         const DecayOptions& options) {
  Graph g = schedule_graph(learning_rate, global_step);
  name_scope scope(g, options.name.empty() ? std::string_view("ExponentialDecay")
                                           : std::string_view(options.name));
  Output initial = learning_rate.to_tensor(g, "initial_learning_rate");
  DType dtype = initial.dtype();
  Output steps = cast_hyperparameter(g, decay_steps, dtype);
  Output rate = cast_hyperparameter(g, decay_rate, dtype);
  Output step = cast_hyperparameter(g, global_step, dtype);
  Output p = step / steps;
  if (options.staircase) p = floor(p);
  return multiply(initial, pow(rate, p), scope.name());
}

}  // namespace detail

// tf.train.exponential_decay: learning_rate * decay_rate ^ (global_step / decay_steps),
// a tensor "ExponentialDecay". global_step: an integer scalar (the global step
// variable, or a placeholder); an empty handle is TensorFlow's ValueError for None.
// decay_steps <= 0 is not checked (as in TensorFlow: the ratio is inf or nan).
inline Output exponential_decay(const Hyperparameter& learning_rate, const Output& global_step,
                                const Hyperparameter& decay_steps, const Hyperparameter& decay_rate,
                                const DecayOptions& options = {}) {
  detail::require_step(global_step);
  return detail::exponential_decay_schedule(learning_rate, global_step, decay_steps, decay_rate,
                                            options);
}

// tf.train.natural_exp_decay: learning_rate * exp(-decay_rate * global_step / decay_steps).
// As TensorFlow builds it: Neg and Exp of the rate at the caller's scope, then an
// ExponentialDecay with that rate (so the result is also named "ExponentialDecay").
inline Output natural_exp_decay(const Hyperparameter& learning_rate, const Output& global_step,
                                const Hyperparameter& decay_steps, const Hyperparameter& decay_rate,
                                const DecayOptions& options = {}) {
  detail::require_step(global_step);
  Graph g = detail::schedule_graph(learning_rate, global_step);
  Output negated;
  if (decay_rate.is_tensor()) {
    negated = negative(decay_rate.tensor());
  } else {
    // negative(number): the number becomes the Const "Neg/x".
    symflow::detail::OpBuilder b(g, {}, "Neg");
    Output x = b.constant_arg(decay_rate.value(), "x");
    negated = b.build(symflow::detail::kNegOp, {x}, {{"T", x.dtype()}}).output(0);
  }
  return detail::exponential_decay_schedule(learning_rate, global_step, decay_steps, exp(negated),
                                            options);
}

// tf.train.inverse_time_decay: learning_rate / (1 + decay_rate * global_step / decay_steps),
// a tensor "InverseTimeDecay".
inline Output inverse_time_decay(const Hyperparameter& learning_rate, const Output& global_step,
                                 const Hyperparameter& decay_steps,
                                 const Hyperparameter& decay_rate,
                                 const DecayOptions& options = {}) {
  detail::require_step(global_step);
  Graph g = detail::schedule_graph(learning_rate, global_step);
  name_scope scope(g, options.name.empty() ? std::string_view("InverseTimeDecay")
                                           : std::string_view(options.name));
  Output initial = learning_rate.to_tensor(g, "initial_learning_rate");
  DType dtype = initial.dtype();
  Output steps = detail::cast_hyperparameter(g, decay_steps, dtype);
  Output rate = detail::cast_hyperparameter(g, decay_rate, dtype);
  Output step = detail::cast_hyperparameter(g, global_step, dtype);
  Output p = step / steps;
  if (options.staircase) p = floor(p);
  // TensorFlow's one: an int32 Const cast to the dtype.
  Output one = detail::cast_hyperparameter(
      g, symflow::detail::make_const(g, Value(std::int32_t{1}), "Const").output(0), dtype);
  Output denominator = add(one, multiply(rate, p));
  return divide(initial, denominator, scope.name());
}

// tf.train.polynomial_decay: (learning_rate - end_learning_rate) *
// (1 - min(global_step, decay_steps) / decay_steps) ^ power + end_learning_rate, a tensor
// "PolynomialDecay". With cycle, the step is not capped: decay_steps is multiplied by
// ceil(global_step / decay_steps) (1 at step 0), a SelectV2 over Equal and Ceil.
inline Output polynomial_decay(const Hyperparameter& learning_rate, const Output& global_step,
                               const Hyperparameter& decay_steps,
                               const PolynomialDecayOptions& options = {}) {
  detail::require_step(global_step);
  Graph g = detail::schedule_graph(learning_rate, global_step);
  name_scope scope(g, options.name.empty() ? std::string_view("PolynomialDecay")
                                           : std::string_view(options.name));
  Output initial = learning_rate.to_tensor(g, "initial_learning_rate");
  DType dtype = initial.dtype();
  Output end = detail::cast_hyperparameter(g, options.end_learning_rate, dtype);
  Output power = detail::cast_hyperparameter(g, options.power, dtype);
  Output step = detail::cast_hyperparameter(g, global_step, dtype);
  Output steps = detail::cast_hyperparameter(g, decay_steps, dtype);
  if (options.cycle) {
    // The multiplier divides the step by decay_steps as given (a number becomes the
    // Const "truediv/y" of the step's dtype), as TensorFlow does.
    Output at_start = equal(step, 0);
    Output quotient;
    if (decay_steps.is_tensor()) {
      quotient = divide(step, decay_steps.tensor());
    } else {
      symflow::detail::OpBuilder b(g, {}, "truediv");
      Output y = b.constant_arg(decay_steps.value().astype(dtype), "y");
      quotient = b.build(symflow::detail::kRealDivOp, {step, y}, {{"T", dtype}}).output(0);
    }
    Output periods = ceil(quotient);
    Output multiplier;
    {
      symflow::detail::OpBuilder b(g, {}, "SelectV2");
      Output one = b.constant_arg(Value(1.0).astype(dtype), "t");
      multiplier =
          b.build(symflow::detail::kSelectV2Op, {at_start, one, periods}, {{"T", dtype}}).output(0);
    }
    steps = multiply(steps, multiplier);
  } else {
    step = minimum(step, steps);
  }
  Output p = divide(step, steps);
  // One node per statement: TensorFlow numbers them in Python's evaluation order.
  Output scale = initial - end;
  Output decayed = pow(1 - p, power);
  return add(multiply(scale, decayed), end, scope.name());
}

// tf.train.cosine_decay: learning_rate * ((1 - alpha) * 0.5 * (1 + cos(pi * t)) + alpha),
// t = min(global_step, decay_steps) / decay_steps, under the scope "CosineDecay". The
// result is TensorFlow's last Mul, "CosineDecay/Mul_3" (TensorFlow makes node names
// unique ignoring case, so it follows "mul", "mul_1" and "mul_2"). pi is a float32 Const,
// as in TensorFlow, so a float64 learning rate is a TypeError there and here.
inline Output cosine_decay(const Hyperparameter& learning_rate, const Output& global_step,
                           const Hyperparameter& decay_steps, double alpha = 0.0,
                           std::string_view name = {}) {
  detail::require_step(global_step);
  Graph g = detail::schedule_graph(learning_rate, global_step);
  name_scope scope(g, name.empty() ? std::string_view("CosineDecay") : name);
  Output initial = learning_rate.to_tensor(g, "initial_learning_rate");
  DType dtype = initial.dtype();
  Output steps = detail::cast_hyperparameter(g, decay_steps, dtype);
  Output step = detail::cast_hyperparameter(g, global_step, dtype);
  step = minimum(step, steps);
  Output completed_fraction = step / steps;
  Output pi = symflow::detail::make_const(g, Value(std::numbers::pi_v<float>), "Const").output(0);
  // One node per statement: TensorFlow numbers them in Python's evaluation order.
  Output angle = pi * completed_fraction;
  Output cosine = 1.0 + cos(angle);
  Output cosine_decayed = 0.5 * cosine;
  Output decayed = (1.0 - alpha) * cosine_decayed;
  decayed = decayed + alpha;
  return multiply(initial, decayed);
}

// tf.train.piecewise_constant(x, boundaries, values): values[0] while x <= boundaries[0],
// values[i] while boundaries[i-1] < x <= boundaries[i], and values.back() past the last
// boundary. Numbers become Consts ("Const", "Const_1", ...) at the caller's scope, and
// int32 boundaries are cast to an int64 x; the selection is a case under
// "PiecewiseConstant/case". ValueError (TensorFlow's text) for boundaries of another
// dtype than x, values of mixed dtypes, or values.size() != boundaries.size() + 1.
inline Output piecewise_constant(const Output& x, const std::vector<Hyperparameter>& boundaries,
                                 const std::vector<Hyperparameter>& values,
                                 std::string_view name = {}) {
  detail::require_step(x);
  Graph g = x.graph();
  auto to_tensor = [&g](const Hyperparameter& h) { return h.to_tensor(g, "Const"); };
  std::vector<Output> bounds, vals;
  for (const Hyperparameter& b : boundaries) bounds.push_back(to_tensor(b));
  for (const Hyperparameter& v : values) vals.push_back(to_tensor(v));
  for (Output& b : bounds) {
    if (b.dtype() == x.dtype()) continue;
    if (b.dtype() != DType::int32 || x.dtype() != DType::int64)
      throw ValueError("Boundaries (<dtype: '" + std::string(dtype_name(b.dtype())) +
                       "'>) must have the same dtype as x (<dtype: '" +
                       std::string(dtype_name(x.dtype())) + "'>).");
    b = cast(b, x.dtype());
  }
  for (std::size_t i = 1; i < vals.size(); ++i)
    if (vals[i].dtype() != vals[0].dtype())
      throw ValueError("Values must have elements all with the same dtype (<dtype: '" +
                       std::string(dtype_name(vals[0].dtype())) + "'> vs <dtype: '" +
                       std::string(dtype_name(vals[i].dtype())) + "'>).");
  if (bounds.size() + 1 != vals.size())
    throw ValueError("The length of boundaries should be 1 less than the length of values");
  if (bounds.empty()) throw ValueError("piecewise_constant needs at least one boundary");

  name_scope scope(g, name.empty() ? std::string_view("PiecewiseConstant") : name);
  using Action = std::function<Output()>;
  std::vector<std::pair<Output, Action>> pred_fn_pairs;
  pred_fn_pairs.emplace_back(less_equal(x, bounds.front()), [v = vals.front()] { return v; });
  pred_fn_pairs.emplace_back(greater(x, bounds.back()), [v = vals.back()] { return v; });
  for (std::size_t i = 0; i + 1 < bounds.size(); ++i) {
    Output above_low = greater(x, bounds[i]);
    Output below_high = less_equal(x, bounds[i + 1]);
    Output in_interval = logical_and(above_low, below_high, "and");
    pred_fn_pairs.emplace_back(in_interval, [v = vals[i + 1]] { return v; });
  }
  return case_(pred_fn_pairs, [v = vals.front()] { return v; });
}

}  // namespace symflow::train
