#pragma once
// symflow::regularizers: weight penalties for the regularization losses. Keras's
// l1 / l2 / l1_l2 (factor * sum|w|, factor * sum(w^2)) as TensorFlow 1.x's
// tf.keras.regularizers builds them, and tf.contrib.layers' l1_regularizer /
// l2_regularizer (scale * sum|w|, scale * sum(w^2) / 2) with their name scopes.
// A Regularizer maps a weights tensor to a scalar penalty; an invalid Output means "no
// penalty" (contrib's regularizers with scale 0, Python's None).

#include <cstdio>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "symflow/graph/collections.hpp"
#include "symflow/graph/scopes.hpp"
#include "symflow/ops/const_op.hpp"
#include "symflow/ops/math_ops.hpp"
#include "symflow/ops/nn_impl.hpp"
#include "symflow/ops/nn_ops.hpp"
#include "symflow/ops/operators.hpp"
#include "symflow/ops/shape_ops.hpp"

namespace symflow::regularizers {

using Regularizer = std::function<Output(const Output& weights)>;

namespace detail_regularizers {

// Keras's L1L2 penalty: the sum starts from Python's 0. (a Const "add/x"), then adds
// sum(l1 * |w|) and sum(l2 * w^2) for the nonzero factors. The factors are float32, as
// Keras stores them. With both factors 0 the penalty is a 0 Const of w's dtype.
inline Output keras_l1_l2(const Output& w, float l1, float l2) {
  if (l1 == 0 && l2 == 0) {
    Graph g = w.graph();
    return detail::make_const(g, detail::scalar_of(w.dtype(), 0.0), "Const").output(0);
  }
  Output penalty;
  auto accumulate = [&](const Output& term) {
    penalty = penalty.valid() ? penalty + term : 0.0 + term;
  };
  if (l1 != 0) accumulate(reduce_sum(l1 * abs(w)));
  if (l2 != 0) accumulate(reduce_sum(l2 * square(w)));
  return penalty;
}

// contrib's argument check, with its words.
inline void check_scale(double scale) {
  if (scale < 0) {
    char text[32];  // Python's "%g"
    std::snprintf(text, sizeof text, "%g", scale);
    throw ValueError("Setting a scale less than 0 on a regularizer: " + std::string(text));
  }
}

}  // namespace detail_regularizers

// tf.keras.regularizers.l1(l=0.01): l * sum(|w|).
inline Regularizer l1(double l = 0.01) {
  const auto factor = static_cast<float>(l);
  return [factor](const Output& w) { return detail_regularizers::keras_l1_l2(w, factor, 0); };
}

// tf.keras.regularizers.l2(l=0.01): l * sum(w^2).
inline Regularizer l2(double l = 0.01) {
  const auto factor = static_cast<float>(l);
  return [factor](const Output& w) { return detail_regularizers::keras_l1_l2(w, 0, factor); };
}

// tf.keras.regularizers.l1_l2(l1=0.01, l2=0.01): l1 * sum(|w|) + l2 * sum(w^2).
inline Regularizer l1_l2(double l1 = 0.01, double l2 = 0.01) {
  const auto f1 = static_cast<float>(l1);
  const auto f2 = static_cast<float>(l2);
  return [f1, f2](const Output& w) { return detail_regularizers::keras_l1_l2(w, f1, f2); };
}

// tf.contrib.layers.l1_regularizer(scale, scope): scale * sum(|w|), as
// "l1_regularizer/{scale,Abs,Const,Sum}" and the Mul "l1_regularizer" (or under `scope`).
// A negative scale is a ValueError; scale 0 gives no penalty (an invalid Output).
inline Regularizer l1_regularizer(double scale, std::string scope = {}) {
  detail_regularizers::check_scale(scale);
  return [scale, scope = std::move(scope)](const Output& w) -> Output {
    if (scale == 0) return {};
    name_scope s(w.graph(), scope.empty() ? "l1_regularizer" : scope);
    Graph g = w.graph();
    Output my_scale = detail::make_const(g, detail::scalar_of(w.dtype(), scale), "scale").output(0);
    return multiply(my_scale, reduce_sum(abs(w)), s.name());
  };
}

// tf.contrib.layers.l2_regularizer(scale, scope): scale * l2_loss(w) = scale * sum(w^2) / 2,
// as "l2_regularizer/{scale,L2Loss}" and the Mul "l2_regularizer" (or under `scope`).
inline Regularizer l2_regularizer(double scale, std::string scope = {}) {
  detail_regularizers::check_scale(scale);
  return [scale, scope = std::move(scope)](const Output& w) -> Output {
    if (scale == 0) return {};
    name_scope s(w.graph(), scope.empty() ? "l2_regularizer" : scope);
    Graph g = w.graph();
    Output my_scale = detail::make_const(g, detail::scalar_of(w.dtype(), scale), "scale").output(0);
    return multiply(my_scale, nn::l2_loss(w), s.name());
  };
}

// tf.contrib.layers.apply_regularization(regularizer, weights_list): the sum of the
// penalties of `weights_list` (the default graph's GraphKeys::WEIGHTS when empty), named
// "get_regularization_penalty" and added to GraphKeys::REGULARIZATION_LOSSES. A missing
// penalty counts as a 0.0 Const; a penalty that is not a scalar is a ValueError.
inline Output apply_regularization(const Regularizer& regularizer,
                                   std::vector<Output> weights_list = {}) {
  if (weights_list.empty())
    for (const CollectionValue& item : get_collection(GraphKeys::WEIGHTS)) {
      if (const auto* t = std::get_if<Output>(&item)) weights_list.push_back(*t);
      if (const auto* op = std::get_if<Operation>(&item)) weights_list.push_back(op->output(0));
    }
  if (weights_list.empty()) throw ValueError("No weights to regularize.");
  Graph g = graph_of(weights_list);
  name_scope scope(g, "get_regularization_penalty");
  std::vector<Output> penalties;
  for (const Output& w : weights_list) {
    Output p = regularizer(w);
    penalties.push_back(p.valid() ? p : detail::make_const(g, Value(0.0f), "Const").output(0));
  }
  for (const Output& p : penalties)
    if (!p.get_shape().has_rank() || p.get_shape().rank() != 0)
      throw ValueError("regularizer must return a scalar Tensor instead of a Tensor with rank " +
                       (p.get_shape().has_rank() ? std::to_string(p.get_shape().rank()) : "None") +
                       ".");
  Output summed = penalties.size() == 1 ? identity(penalties.front(), scope.name())
                                        : add_n(penalties, scope.name());
  g.add_to_collection(GraphKeys::REGULARIZATION_LOSSES, summed);
  return summed;
}

}  // namespace symflow::regularizers
