#pragma once
// Initializer groups (tf.variables_initializer and friends) and the questions a
// session can answer about initialisation.

#include <string>
#include <string_view>
#include <vector>

#include "symflow/ops/control_ops.hpp"
#include "symflow/runtime/session.hpp"
#include "symflow/variables/variable.hpp"

namespace symflow {

// One NoOp ("init") that runs the initializer of every variable given.
inline Operation variables_initializer(const std::vector<Variable>& variables,
                                       std::string_view name = "init") {
  std::vector<Operation> initializers;
  for (const Variable& v : variables) initializers.push_back(v.initializer());
  return no_op(name, initializers);
}

inline Operation global_variables_initializer() {
  return variables_initializer(global_variables(), "init");
}
inline Operation local_variables_initializer() {
  return variables_initializer(local_variables(), "init");
}

// The names of the variables (default: all global and local ones) that are not
// initialised in `session`. TensorFlow returns them as a string tensor; symflow has
// no string dtype, so it asks the session directly.
inline std::vector<std::string> report_uninitialized_variables(
    Session& session, std::vector<Variable> variables = {}) {
  if (variables.empty()) {
    Graph g = session.graph();
    variables = variables_in(GraphKeys::GLOBAL_VARIABLES, g);
    auto local = variables_in(GraphKeys::LOCAL_VARIABLES, g);
    variables.insert(variables.end(), local.begin(), local.end());
  }
  std::vector<std::string> names;
  for (const Variable& v : variables)
    if (!session.is_initialized(v.ref())) names.push_back(v.op().name());
  return names;
}

}  // namespace symflow
