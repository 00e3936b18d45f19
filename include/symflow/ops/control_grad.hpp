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
#include "symflow/ops/const_op.hpp"
#include "symflow/ops/control_ops.hpp"
#include "symflow/ops/defs/math.hpp"
#include "symflow/ops/grad_context.hpp"
#include "symflow/ops/logic_ops.hpp"
#include "symflow/ops/op_builder.hpp"
#include "symflow/ops/shape_ops.hpp"
#include "symflow/ops/while_grad.hpp"

namespace symflow::detail {

// The backward loop the gradient of a while loop's op is being built in (tf.gradients
// makes it current); an op of a loop that tf.gradients does not know (an imported graph's,
// whose loops carry no context) has none.
inline std::uint32_t backward_loop(const GradContext& c) {
  const GraphState& s = c.op.graph().state();
  const std::uint32_t context = s.current_context;
  if (context == 0 || s.flow_contexts[context - 1].gradient_of == 0)
    throw UnimplementedError(
        "Gradients through a while loop are supported only for loops this "
        "graph built with while_loop: op '" +
            c.op.name() + "' (" + std::string(c.op.type()) +
            ") is part of one that it did not. docs/control-flow.md",
        c.op.name());
  return context;
}
inline bool in_loop(const Operation& op) {
  const GraphState& s = op.graph().state();
  const std::uint32_t context = op.node().context;
  return is_enter_op(&op.op_def()) || (context != 0 && s.flow_contexts[context - 1].is_loop);
}

// Exit: the gradient enters the backward loop as a loop variable ("b_exit").
inline std::vector<Output> exit_grad(const GradContext& c) {
  if (!c.grad(0).valid()) return {};
  GraphState& s = c.op.graph().state();
  const std::uint32_t backward = backward_loop(c);
  if (!s.flow_contexts[backward - 1].back_prop) return {};
  s.flow_contexts[backward - 1].values.insert(c.grad(0).ref());
  return {make_enter(c.graph(), c.grad(0), backward, false, "b_exit").output(0)};
}

// A variable reference taken into a loop's frame (an assign inside the loop): no gradient
// flows through one. A variable a loop reads enters as its value (`v/read`), through Enter.
inline std::vector<Output> ref_frame_grad(const GradContext& c) {
  throw UnimplementedError("No gradient flows through a while loop's variable reference: op '" +
                               c.op.name() + "' (" + std::string(c.op.type()) + ")",
                           c.op.name());
}

// NextIteration: the gradient passes on to the previous backward iteration's body.
inline std::vector<Output> next_iteration_grad(const GradContext& c) { return {c.grad(0)}; }

// Enter: a loop variable's gradient leaves the backward loop; a tensor read from outside
// (a constant Enter) gets the sum of its gradients over the iterations ("b_acc").
inline std::vector<Output> enter_grad(const GradContext& c) {
  if (!c.grad(0).valid()) return {};
  Graph g = c.graph();
  GraphState& s = g.state();
  const std::uint32_t backward = s.current_context;
  if (backward == 0 || s.flow_contexts[backward - 1].gradient_of == 0 ||
      !s.flow_contexts[backward - 1].back_prop)
    return {c.grad(0)};
  const Output grad = c.grad(0);
  if (!c.op.get_attr<bool>("is_constant"))
    return {g.create_op(kExitOp, {grad}, {{"T", grad.dtype()}}, "Exit").output(0)};
  const ControlFlowContext& loop = s.flow_contexts[backward - 1];
  Output acc;
  {
    const std::uint32_t saved = s.current_context;
    s.current_context = loop.outer;
    struct Restore {
      GraphState& s;
      std::uint32_t context;
      ~Restore() { s.current_context = context; }
    } restore{s, saved};
    const Value zero =
        visit_dtype(grad.dtype(), [](auto t) { return Value(typename decltype(t)::type{0}); });
    if (grad.get_shape().is_fully_defined()) {
      acc = constant(zero, grad.get_shape(), "b_acc");
    } else if (loop.outer != 0 && s.flow_contexts[loop.outer - 1].gradient_of != 0) {
      // A nested loop: the shape the entered tensor had in the matching outer iteration,
      // which the outer backward loop pops from a stack.
      s.current_context = s.flow_contexts[loop.gradient_of - 1].outer;
      const Output entered_shape = shape(c.input(0));
      s.current_context = loop.outer;
      acc = fill(entered_shape, constant(zero, "Const"));
    } else {
      acc = fill(shape(c.input(0)), constant(zero, "Const"));
    }
  }
  s.flow_contexts[backward - 1].values.insert(acc.ref());
  const Output enter = make_enter(g, acc, backward, false, "b_acc").output(0);
  const Operation merge_op =
      g.create_op(kMergeOp, {enter, enter}, {{"T", grad.dtype()}, {"N", std::int64_t{2}}}, "b_acc");
  const Operation sw =
      make_switch(g, merge_op.output(0), output_of(g, s.flow_contexts[backward - 1].loop_cond),
                  "Switch", false);
  const Output sum =
      g.create_op(kAddOp, {sw.output(1), grad}, {{"T", grad.dtype()}}, "Add").output(0);
  const Output next =
      g.create_op(kNextIterationOp, {sum}, {{"T", grad.dtype()}}, "NextIteration").output(0);
  s.node(merge_op.id()).inputs[1] = next.ref();
  return {g.create_op(kExitOp, {sw.output(0)}, {{"T", grad.dtype()}}, "b_acc").output(0)};
}

// A while loop's Switch is reached twice: first from its Exit (output 0), when its
// backward Merge ("b_switch") is made with that gradient on both inputs; then from the
// body (output 1), whose gradient becomes the Merge's back edge.
inline std::vector<Output> loop_switch_grad(const GradContext& c) {
  Graph g = c.graph();
  GraphState& s = g.state();
  const std::uint32_t backward = backward_loop(c);
  auto& merges = s.flow_contexts[backward - 1].switch_merges;
  if (auto it = merges.find(c.op.id()); it != merges.end()) {
    if (c.grads.size() > 1 && c.grad(1).valid()) {
      const Output next =
          g.create_op(kNextIterationOp, {c.grad(1)}, {{"T", c.grad(1).dtype()}}, "NextIteration")
              .output(0);
      s.node(it->second.node).inputs[1] = next.ref();
    }
    return {Output{}, Output{}};
  }
  if (!c.grad(0).valid()) return {};
  const Output merged = merge({c.grad(0), c.grad(0)}, "b_switch").first;
  s.flow_contexts[backward - 1].switch_merges[c.op.id()] = merged.ref();
  return {merged, Output{}};
}

// A while loop's Merge: the gradient is switched on the backward loop's condition, its
// false side leaving through the Enter (input 0), its true side going round again.
inline std::vector<Output> loop_merge_grad(const GradContext& c) {
  Graph g = c.graph();
  const std::uint32_t backward = backward_loop(c);
  const Output loop_cond = output_of(g, g.state().flow_contexts[backward - 1].loop_cond);
  const Operation sw = make_switch(g, c.grad(0), loop_cond, "Switch", false);
  return {sw.output(0), sw.output(1)};
}

// Switch: the two sides' gradients meet in "cond_grad" (the untaken side's is zeros,
// alive only when that side is taken). Nothing flows to the predicate.
inline std::vector<Output> switch_grad(const GradContext& c) {
  const Graph g = c.graph();
  if (in_loop(c.op)) return loop_switch_grad(c);
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
  if (in_loop(c.input(0).op())) return loop_merge_grad(c);
  if (const std::uint32_t context = c.input(0).op().node().context; context != 0) {
    Output pred = output_of(g, g.state().flow_contexts[context - 1].pred);
    // A cond inside a loop being differentiated: the predicate of the matching forward
    // iteration, popped from its stack (made here, in this gradient's scope).
    if (const std::uint32_t backward = g.state().current_context;
        backward != 0 && g.state().flow_contexts[backward - 1].gradient_of != 0)
      pred = output_of(g, context_add_value(g, backward, pred.ref()));
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
    {&kEnterOp, enter_grad},
    {&kRefEnterOp, ref_frame_grad},
    {&kExitOp, exit_grad},
    {&kRefExitOp, ref_frame_grad},
    {&kNextIterationOp, next_iteration_grad},
    {&kRefNextIterationOp, ref_frame_grad},
    {&kLoopCondOp, not_differentiable},
    {&kControlTriggerOp, not_differentiable},
});

}  // namespace symflow::detail
