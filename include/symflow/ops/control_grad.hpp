#pragma once
// Gradients of Switch and Merge, built as TensorFlow's control_flow_grad.py builds them
// for tf.cond (docs/control-flow.md): a Merge's gradient is switched on the cond's
// predicate back into the branches, and a Switch's gradients meet again in a Merge,
// so that the backward pass runs the taken branch only, as the forward pass does.

#include <array>
#include <cstdint>
#include <vector>

#include "symflow/graph/scopes.hpp"
#include "symflow/ops/array_ops.hpp"
#include "symflow/ops/control_ops.hpp"
#include "symflow/ops/grad_context.hpp"
#include "symflow/ops/logic_ops.hpp"
#include "symflow/ops/op_builder.hpp"
#include "symflow/ops/shape_ops.hpp"

namespace symflow::detail {

inline Output output_of(const Graph& g, TensorRef r) {
  return Output(Operation(g.state_ptr(), r.node), r.index);
}

// A while loop's ops: their gradients (TensorFlow's backward loop, which keeps the
// forward values on stacks) are not built yet; asking for one is an error that names
// the op, never a wrong gradient.
inline std::vector<Output> while_loop_grad(const GradContext& c) {
  throw UnimplementedError("Gradients through a while loop are not supported yet: op '" +
                               c.op.name() + "' (" + std::string(c.op.type()) +
                               ") is part of one. docs/control-flow.md",
                           c.op.name());
}
inline bool in_loop(const Operation& op) {
  const GraphState& s = op.graph().state();
  const std::uint32_t context = op.node().context;
  return is_enter_op(&op.op_def()) || (context != 0 && s.flow_contexts[context - 1].is_loop);
}

// Switch: the two sides' gradients meet in "cond_grad" (the untaken side's is zeros,
// alive only when that side is taken). Nothing flows to the predicate.
inline std::vector<Output> switch_grad(const GradContext& c) {
  const Graph g = c.graph();
  if (in_loop(c.op)) return while_loop_grad(c);
  if (const std::uint32_t context = c.op.node().context; context != 0) {
    const int branch = g.state().flow_contexts[context - 1].branch;
    if (!c.grad(1 - branch).valid() || !c.grad(branch).valid()) return {};
    return {merge({c.grad(0), c.grad(1)}, "cond_grad").first, Output{}};
  }
  // A Switch from outside a cond this graph built (an imported graph).
  if (!c.grad(0).valid() || !c.grad(1).valid()) return {};
  const Output pred = c.input(1);
  const Output false_grad = switch_(c.grad(0), pred).first;
  const Output true_grad = switch_(c.grad(1), pred).second;
  return {merge({false_grad, true_grad}).first, Output{}};
}

// Merge: the gradient goes to the input that was alive. In a cond, "cond_grad" switches
// it on the cond's predicate: its false side feeds the false branch (input 0).
inline std::vector<Output> merge_grad(const GradContext& c) {
  const Graph g = c.graph();
  const Output grad = c.grad(0);
  if (!grad.valid()) return {};
  if (in_loop(c.input(0).op())) return while_loop_grad(c);
  if (const std::uint32_t context = c.input(0).op().node().context; context != 0) {
    const Output pred = output_of(g, g.state().flow_contexts[context - 1].pred);
    const Operation sw = make_switch(g, grad, pred, "cond_grad", false);
    return {sw.output(0), sw.output(1)};
  }
  // Without the cond's context (an imported graph): input i gets the gradient when the
  // Merge's value_index was i.
  std::vector<Output> out;
  for (int i = 0; i < c.op.num_inputs(); ++i) {
    const Output was_i = equal(c.output(1), i);
    out.push_back(make_switch(g, grad, was_i, "Switch", false).output(1));
  }
  return out;
}

// The gradient of output `index` of `op` that no path reached: zeros shaped like it.
// For a Switch built by cond, TensorFlow's ZerosLike makes them on the other side's
// Switch, so that they exist exactly when that side is taken (and the Merge of
// switch_grad picks them then).
inline Output zeros_for_unreached_output(const Operation& op, int index) {
  const Output out = op.output(index);
  const std::uint32_t context = op.node().context;
  const bool is_switch = op.op_def().dead_outputs && !op.op_def().reads_dead;
  if (!is_switch || context == 0 || in_loop(op)) return zeros_like(out);
  const Graph g = op.graph();
  const ControlFlowContext& c = g.state().flow_contexts[context - 1];
  const Output pred = output_of(g, c.pred);
  const int other = 1 - c.branch;
  const auto sides = switch_(op.inputs().at(0), pred);
  const Output switch_val = other == 1 ? sides.second : sides.first;
  const Output pivot = identity(switch_val);
  const Output zeros_shape = shape(switch_val);
  control_dependencies after_pivot({pivot});
  OpBuilder b(g, {}, "zeros");
  const Output zero = b.constant_arg(
      visit_dtype(out.dtype(), [](auto t) { return Value(typename decltype(t)::type{0}); }),
      "Const");
  return b.build(kFillOp, {zeros_shape, zero}, {{"T", out.dtype()}, {"index_type", DType::int32}})
      .output(0);
}

inline constexpr auto kControlOpEntries = std::to_array<OpEntry>({
    {&kNoOp, not_differentiable},
    {&kSwitchOp, switch_grad},
    {&kMergeOp, merge_grad},
    // A gradient reaches these only through a variable reference itself, which symflow
    // does not differentiate (TensorFlow registers the Switch and Merge gradients).
    {&kRefSwitchOp, nullptr},
    {&kRefMergeOp, nullptr},
    {&kEnterOp, while_loop_grad},
    {&kRefEnterOp, while_loop_grad},
    {&kExitOp, while_loop_grad},
    {&kRefExitOp, while_loop_grad},
    {&kNextIterationOp, while_loop_grad},
    {&kRefNextIterationOp, while_loop_grad},
    {&kLoopCondOp, while_loop_grad},
});

}  // namespace symflow::detail
