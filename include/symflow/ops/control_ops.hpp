#pragma once
// Operations that exist for control: NoOp and group, which order others by their
// control edges, and the two cond is built from, Switch and Merge (docs/control-flow.md).
// Their descriptions are in ops/defs/control.hpp, their kernels in
// backend/cpu/kernels/control.hpp; cond itself is in ops/cond.hpp.

#include <algorithm>
#include <string_view>
#include <utility>
#include <vector>

#include "symflow/ops/array_ops.hpp"
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

// control_flow_ops.with_dependencies: `output` passed through an Identity
// ("control_dependency") that runs only after `dependencies`.
inline Output with_dependencies(const std::vector<Operation>& dependencies, const Output& output,
                                std::string_view name = {}) {
  control_dependencies after(dependencies);
  return identity(output, name.empty() ? "control_dependency" : name);
}

// tf.tuple: the tensors, each passed on only once all of them are computed (a
// "group_deps" NoOp gates Identities named "control_dependency", "control_dependency_1",
// ... in the scope "tuple"). Invalid tensors (no gradient) stay invalid.
inline std::vector<Output> tuple(const std::vector<Output>& tensors, std::string_view name = {}) {
  std::vector<Operation> gating;
  for (const Output& t : tensors)
    if (t.valid()) gating.push_back(t.op());
  if (gating.empty()) return tensors;
  Graph g = gating.front().graph();
  name_scope scope(g, name.empty() ? "tuple" : name);
  const Operation gate = group(gating);
  std::vector<Output> out;
  for (const Output& t : tensors) out.push_back(t.valid() ? with_dependencies({gate}, t) : t);
  return out;
}

// TensorFlow's control_flow_ops.switch: (output_false, output_true). The output that
// `pred` (a bool scalar) does not name is dead in a run, and so is every op that reads
// it, up to a Merge. A variable reference goes through RefSwitch and stays a reference.
// (`switch` is a C++ keyword.)
inline std::pair<Output, Output> switch_(const Output& data, const Output& pred,
                                         std::string_view name = {}) {
  Graph g = graph_of({data, pred});
  Operation op = g.create_op(data.is_ref() ? detail::kRefSwitchOp : detail::kSwitchOp, {data, pred},
                             {{"T", data.dtype()}}, name.empty() ? "Switch" : name);
  return {op.output(0), op.output(1)};
}

// TensorFlow's control_flow_ops.merge: (output, value_index), the one input that is
// alive and its index. Variable references only give RefMerge, whose output is the
// live input's variable, colocated with it.
inline std::pair<Output, Output> merge(const std::vector<Output>& inputs,
                                       std::string_view name = {}) {
  if (inputs.empty()) throw ValueError("merge needs at least one input");
  Graph g = graph_of(inputs);
  const bool refs =
      std::all_of(inputs.begin(), inputs.end(), [](const Output& in) { return in.is_ref(); });
  AttrMap attrs{{"T", inputs.front().dtype()}, {"N", static_cast<std::int64_t>(inputs.size())}};
  if (refs)
    if (auto it = inputs.front().op().attrs().find("_class");
        it != inputs.front().op().attrs().end())
      attrs.emplace("_class", it->second);
  Operation op = g.create_op(refs ? detail::kRefMergeOp : detail::kMergeOp, inputs,
                             std::move(attrs), name.empty() ? "Merge" : name);
  return {op.output(0), op.output(1)};
}

}  // namespace symflow
