#pragma once
// The global step (tf.train.get_global_step and friends): an int64 scalar variable
// "global_step" in the GLOBAL_STEP and GLOBAL_VARIABLES collections, not trainable,
// that apply_gradients increments after each update.

#include <optional>
#include <string>

#include "symflow/graph/collections.hpp"
#include "symflow/graph/scopes.hpp"
#include "symflow/ops/init_ops.hpp"
#include "symflow/variables/get_variable.hpp"
#include "symflow/variables/variable.hpp"

namespace symflow::train {

// TypeError unless `global_step` is an integer scalar (tf.train.assert_global_step).
inline void assert_global_step(const Variable& global_step) {
  if (!is_integer(global_step.dtype()))
    throw TypeError("Existing \"global_step\" does not have integer type: <dtype: '" +
                    std::string(dtype_name(global_step.dtype())) + "_ref'>");
  const Shape& shape = global_step.shape();
  if (shape.has_rank() && shape.rank() != 0)
    throw TypeError("Existing \"global_step\" is not scalar: " + shape.to_string());
}

// The graph's global step: the one variable in GLOBAL_STEP, else the variable named
// "global_step"; nullopt when there is none (or, as TensorFlow logs an error and
// returns None, when GLOBAL_STEP holds several).
inline std::optional<Variable> get_global_step(const Graph& graph = get_default_graph()) {
  std::vector<Variable> steps = variables_in(GraphKeys::GLOBAL_STEP, graph);
  Variable step;
  if (steps.size() == 1) {
    step = steps.front();
  } else if (steps.empty()) {
    auto& state = graph.state();
    auto id = state.find("global_step");
    if (!id) return std::nullopt;
    step = Variable::from_op(Operation(graph.state_ptr(), *id));
  } else {
    return std::nullopt;
  }
  assert_global_step(step);
  return step;
}

// Creates the global step: get_variable("global_step", {}, int64, zeros), outside any
// name scope (inside the current variable scope, as TensorFlow does). ValueError when
// the graph has one already.
inline Variable create_global_step(const Graph& graph = get_default_graph()) {
  if (get_global_step(graph)) throw ValueError("\"global_step\" already exists.");
  auto as_default = graph.as_default();
  name_scope root(graph, "");
  return get_variable("global_step", Shape{},
                      {.dtype = DType::int64,
                       .initializer = zeros_initializer(),
                       .trainable = false,
                       .collections = {GraphKeys::GLOBAL_VARIABLES, GraphKeys::GLOBAL_STEP}});
}

// The graph's global step, created when it has none.
inline Variable get_or_create_global_step(const Graph& graph = get_default_graph()) {
  if (auto step = get_global_step(graph)) return *step;
  return create_global_step(graph);
}

}  // namespace symflow::train
