#pragma once
// Initializer groups (tf.variables_initializer and friends). Which variables a session
// has initialised is runtime/report_uninitialized.hpp's question.

#include <string_view>
#include <vector>

#include "symflow/ops/control_ops.hpp"
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

}  // namespace symflow
