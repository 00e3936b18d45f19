#pragma once
// NoOp and group: operations that exist for their control edges. This header builds
// them; NoOp's description is in ops/defs/control.hpp, its kernel in
// backend/cpu/kernels/control.hpp.

#include <string_view>
#include <vector>

#include "symflow/ops/defs/control.hpp"
#include "symflow/ops/op_builder.hpp"

namespace symflow {

// tf.no_op(): does nothing; runs after its control inputs.
inline Operation no_op(std::string_view name = {},
                       const std::vector<Operation>& control_inputs = {}) {
  Graph g = control_inputs.empty() ? get_default_graph() : control_inputs.front().graph();
  return g.create_op(detail::kNoOp, {}, {}, name.empty() ? "NoOp" : name, control_inputs);
}

// tf.group(*inputs): a NoOp ("group_deps") that runs after all of `inputs`.
inline Operation group(const std::vector<Operation>& inputs, std::string_view name = {}) {
  return no_op(name.empty() ? "group_deps" : name, inputs);
}

}  // namespace symflow
