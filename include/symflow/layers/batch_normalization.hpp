#pragma once
// symflow::layers::batch_normalization: tf.layers.batch_normalization (TensorFlow 1.x), the
// non-fused form, normalising over the last axis.
//
//   Output y = symflow::layers::batch_normalization(x, /*training=*/true);
//   // training: the batch's moments, and two AssignSub ops in UPDATE_OPS that move
//   // moving_mean / moving_variance towards them; run them with the train op:
//   symflow::control_dependencies deps(update_ops);  // the UPDATE_OPS collection
//
//   auto is_training = symflow::placeholder<bool>(symflow::Shape{});
//   Output z = symflow::layers::batch_normalization(x, is_training);
//   // chosen each run: conds on is_training pick the batch's moments or the moving ones,
//   // and the updates in UPDATE_OPS change the moving statistics only when it is true.
//
// Variables (in variable scope "batch_normalization", "batch_normalization_1", ... or
// `name`): gamma (ones, when scale), beta (zeros, when center), moving_mean (zeros) and
// moving_variance (ones), the last two not trainable.

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "symflow/graph/collections.hpp"
#include "symflow/graph/scopes.hpp"
#include "symflow/ops/cond.hpp"
#include "symflow/ops/init_ops.hpp"
#include "symflow/ops/nn_impl.hpp"
#include "symflow/ops/state_ops.hpp"
#include "symflow/variables/get_variable.hpp"
#include "symflow/variables/variable_scope.hpp"

namespace symflow::layers {

// The keyword arguments of tf.layers.batch_normalization.
struct BatchNormalizationOptions {
  double momentum = 0.99;
  double epsilon = 1e-3;
  bool center = true;  // add beta
  bool scale = true;   // multiply by gamma
  bool trainable = true;
  std::string name = {};  // "batch_normalization" (uniquified) when empty
};

namespace detail {

// moving -= (moving - value) * (1 - momentum), as Keras's _assign_moving_average: the
// ops under "<layer>/AssignMovingAvg" colocated with the variable, the AssignSub named
// after the scope.
inline Operation assign_moving_average(Graph& g, const Variable& variable, const Output& value,
                                       double momentum) {
  name_scope scope(g, "AssignMovingAvg");
  const std::size_t first = g.num_nodes();
  Output decay = symflow::detail::make_const(
                     g, symflow::detail::scalar_of(variable.dtype(), 1.0 - momentum), "decay")
                     .output(0);
  Output delta = (variable.value() - value) * decay;
  Output update = assign_sub(variable, delta, false, scope.name());
  StringList colocation{{"loc:@" + variable.op().name()}};
  for (std::size_t i = first; i < g.num_nodes(); ++i)
    g.state().nodes[i].attrs.try_emplace("_class", colocation);
  return update.op();
}

// The body of both overloads. With `training_tensor` valid, the layer chooses at run time,
// as TensorFlow's layer does with smart_cond: the batch's moments are computed always,
// a cond ("cond", "cond_1") picks them or the moving statistics, and each moving-average
// update sits in the true branch of a cond of its own ("cond_2", "cond_3") whose false
// branch returns the variable unchanged; UPDATE_OPS holds those conds' Merges. Without
// it, `training` decides when the graph is built.
inline Output build_batch_normalization(const Output& inputs, bool training,
                                        const Output& training_tensor,
                                        const BatchNormalizationOptions& options) {
  const Shape& s = inputs.get_shape();
  if (!s.has_rank()) throw ValueError("Input has undefined rank.");
  if (s.rank() < 1 || s.dims().back() < 0)
    throw ValueError("Input has undefined `axis` dimension. Received input with shape " +
                     s.to_string() + ".");
  if (!is_floating(inputs.dtype()))
    throw TypeError("batch_normalization needs float32 or float64 inputs, got " +
                    std::string(dtype_name(inputs.dtype())));
  Graph g = graph_of({inputs});
  const std::int64_t channels = s.dims().back();
  const DType dtype = inputs.dtype();

  variable_scope vs(options.name, VariableScopeOptions{.default_name = "batch_normalization",
                                                       .values = {inputs}});
  Output gamma, beta;
  if (options.scale)
    gamma = get_variable(
        "gamma", Shape{channels},
        {.dtype = dtype, .initializer = ones_initializer(), .trainable = options.trainable});
  if (options.center)
    beta = get_variable(
        "beta", Shape{channels},
        {.dtype = dtype, .initializer = zeros_initializer(), .trainable = options.trainable});
  Variable moving_mean =
      get_variable("moving_mean", Shape{channels},
                   {.dtype = dtype, .initializer = zeros_initializer(), .trainable = false});
  Variable moving_variance =
      get_variable("moving_variance", Shape{channels},
                   {.dtype = dtype, .initializer = ones_initializer(), .trainable = false});

  Output mean = moving_mean.value(), variance = moving_variance.value();
  const bool chosen_at_run_time = training_tensor.valid();
  if (training || chosen_at_run_time) {
    std::vector<std::int64_t> axes;
    for (std::int64_t i = 0; i + 1 < s.rank(); ++i) axes.push_back(i);
    Output batch_mean, batch_variance;
    std::tie(batch_mean, batch_variance) = nn::moments(inputs, axes);
    if (!chosen_at_run_time) {
      mean = batch_mean;
      variance = batch_variance;
      g.add_to_collection(GraphKeys::UPDATE_OPS,
                          assign_moving_average(g, moving_mean, mean, options.momentum));
      g.add_to_collection(GraphKeys::UPDATE_OPS,
                          assign_moving_average(g, moving_variance, variance, options.momentum));
    } else {
      // TensorFlow's message for a pred that is not bool, reported by the first cond.
      if (training_tensor.dtype() != DType::bool_)
        throw TypeError("Input 'pred' of 'Switch' Op has type " +
                        std::string(dtype_name(training_tensor.dtype())) +
                        " that does not match expected type of bool.");
      mean = cond(
          training_tensor, [&] { return batch_mean; }, [&] { return moving_mean.value(); });
      variance = cond(
          training_tensor, [&] { return batch_variance; }, [&] { return moving_variance.value(); });
      // The update's value is the cond's result, as TensorFlow feeds it.
      auto update = [&](const Variable& moving, const Output& value) {
        Output merged = cond(
            training_tensor,
            [&] { return assign_moving_average(g, moving, value, options.momentum).output(0); },
            [&] { return moving.value(); });
        g.add_to_collection(GraphKeys::UPDATE_OPS, merged.op());
      };
      update(moving_mean, mean);
      update(moving_variance, variance);
    }
  }
  return nn::batch_normalization(inputs, mean, variance, beta, gamma, options.epsilon);
}

}  // namespace detail

// tf.layers.batch_normalization(inputs, training, momentum, epsilon, center, scale, name).
// `training` chooses the batch's moments (and adds the moving-average updates to
// GraphKeys::UPDATE_OPS) or the moving statistics.
inline Output batch_normalization(const Output& inputs, bool training = false,
                                  const BatchNormalizationOptions& options = {}) {
  return detail::build_batch_normalization(inputs, training, Output(), options);
}

// tf.layers.batch_normalization with `training` a bool scalar tensor (an is_training
// placeholder): the choice is made each run, by conds on `training` (a constant
// `training` decides when the graph is built, as the bool overload). The updates in
// UPDATE_OPS move the moving statistics only in a run where `training` is true; run
// them with the train op in either case.
inline Output batch_normalization(const Output& inputs, const Output& training,
                                  const BatchNormalizationOptions& options = {}) {
  if (!training.valid())
    throw ValueError("batch_normalization: training is an empty tensor handle");
  if (training.op().type() == "Const") {
    const Value& v = training.op().get_attr<Value>("value");
    if (v.dtype() == DType::bool_ && v.size() == 1)
      return detail::build_batch_normalization(inputs, v.flat<bool>()[0], Output(), options);
  }
  return detail::build_batch_normalization(inputs, false, training, options);
}

}  // namespace symflow::layers
