#pragma once
// Initializer groups: tf.variables_initializer and tf.global_variables_initializer.

#include <string_view>
#include <vector>

#include "symflow/graph/collections.hpp"
#include "symflow/ops/control_ops.hpp"

namespace symflow {

// One NoOp ("init") that runs every initializer it is given.
inline Operation variables_initializer(const std::vector<Operation>& initializers,
                                       std::string_view name = "init") {
  return no_op(name, initializers);
}

// Runs the initializer of every variable in GLOBAL_VARIABLES. A variable is stored
// there as its VariableV2 op, and its initializer is the op "<name>/Assign".
inline Operation global_variables_initializer() {
  Graph g = get_default_graph();
  std::vector<Operation> initializers;
  for (const CollectionValue& item : g.get_collection(GraphKeys::GLOBAL_VARIABLES)) {
    const auto* op = std::get_if<Operation>(&item);
    if (!op || op->type() != "VariableV2")
      throw TypeError("GLOBAL_VARIABLES holds an item that is not a variable");
    initializers.push_back(g.get_operation_by_name(op->name() + "/Assign"));
  }
  return variables_initializer(initializers, "init");
}

}  // namespace symflow
