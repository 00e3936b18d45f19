#pragma once
// tf.report_uninitialized_variables: which variables a session has not initialised.

#include <string>
#include <vector>

#include "symflow/graph/collections.hpp"
#include "symflow/runtime/session.hpp"
#include "symflow/variables/variable.hpp"

namespace symflow {

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
