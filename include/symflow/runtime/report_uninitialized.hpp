#pragma once
// tf.report_uninitialized_variables: which variables a session has not initialised.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "symflow/graph/collections.hpp"
#include "symflow/graph/scopes.hpp"
#include "symflow/ops/boolean_mask.hpp"
#include "symflow/ops/logic_ops.hpp"
#include "symflow/ops/state_ops.hpp"
#include "symflow/runtime/session.hpp"
#include "symflow/variables/variable.hpp"

namespace symflow {

namespace detail {
// What both forms report on by default: the global variables, then the local ones.
inline std::vector<Variable> global_and_local_variables(const Graph& g) {
  std::vector<Variable> all = variables_in(GraphKeys::GLOBAL_VARIABLES, g);
  const std::vector<Variable> local = variables_in(GraphKeys::LOCAL_VARIABLES, g);
  all.insert(all.end(), local.begin(), local.end());
  return all;
}
}  // namespace detail

// tf.report_uninitialized_variables(var_list): a string tensor of the names of the
// variables in `var_list` (default: all global and local ones) that are not initialised
// when it runs, built on the CPU as TensorFlow builds it (IsVariableInitialized for each,
// stacked, negated, and a boolean_mask of their names). An empty list gives an empty
// string Const.
inline Tensor<std::string> report_uninitialized_variables(
    std::optional<std::vector<Variable>> var_list = std::nullopt,
    std::string_view name = "report_uninitialized_variables") {
  Graph g = get_default_graph();
  if (!var_list) var_list = detail::global_and_local_variables(g);
  name_scope scope(g, name);
  std::vector<Output> initialized;
  for (const Variable& v : *var_list) initialized.push_back(is_variable_initialized(v.ref()));
  device on_cpu(g, "/cpu:0");
  if (var_list->empty()) return Tensor<std::string>(constant(Value(DType::string, {0})));
  std::vector<std::string> names;
  for (const Variable& v : *var_list) names.push_back(v.op().name());
  const Output uninitialized = logical_not(stack(initialized));
  const Output all = constant(Value::from_vector(names, {static_cast<std::int64_t>(names.size())}));
  return Tensor<std::string>(boolean_mask(all, uninitialized));
}

// The names of the variables (default: all global and local ones) that are not
// initialised in `session`, asked of the session directly: a shortcut for running
// report_uninitialized_variables().
inline std::vector<std::string> report_uninitialized_variables(
    Session& session, std::vector<Variable> variables = {}) {
  if (variables.empty()) variables = detail::global_and_local_variables(session.graph());
  std::vector<std::string> names;
  for (const Variable& v : variables)
    if (!session.is_initialized(v.ref())) names.push_back(v.op().name());
  return names;
}

}  // namespace symflow
