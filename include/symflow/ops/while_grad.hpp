#pragma once
// Gradients through tf.while_loop, built as TensorFlow 1.x builds them (its
// control_flow_state.py and control_flow_grad.py; docs/control-flow.md). For each forward
// loop on the path, tf.gradients makes:
//
//   - a counter in the forward loop ("gradients/f_count"), the number of iterations it ran;
//   - a backward loop ("gradients/while/while_context") that runs that many iterations
//     ("gradients/b_count"), carrying the loop variables' gradients from the last
//     iteration back to the first;
//   - for each forward tensor a gradient reads, a stack ("f_acc") that the forward loop
//     pushes the tensor's value onto in every iteration and the backward loop pops, so that
//     backward iteration k reads the value of forward iteration n - k;
//   - for each tensor from outside that the loop reads (a constant Enter), an accumulator
//     loop variable ("b_acc") that sums its gradient over the iterations.
//
// A cond inside the loop: a value made in a branch is pushed only when the branch is
// taken, and popped only then, through a Switch on the cond's predicate (itself popped
// from a stack). Nested loops are not built yet: asking for one is an UnimplementedError
// naming the op.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "symflow/graph/graph.hpp"
#include "symflow/graph/scopes.hpp"
#include "symflow/ops/array_ops.hpp"
#include "symflow/ops/const_op.hpp"
#include "symflow/ops/control_ops.hpp"
#include "symflow/ops/defs/stack.hpp"
#include "symflow/ops/logic_ops.hpp"
#include "symflow/ops/math_ops.hpp"
#include "symflow/ops/shape_ops.hpp"

namespace symflow::detail {

// The tensor `r` names in graph `g`.
inline Output output_of(const Graph& g, TensorRef r) {
  return Output(Operation(g.state_ptr(), r.node), r.index);
}

// Builds in control-flow context `context` (0: outside every context) until destroyed,
// with no control dependencies from the enclosing scopes when `clear_dependencies`.
class InContext {
 public:
  InContext(const Graph& g, std::uint32_t context, bool clear_dependencies = false)
      : state_(g.state()), saved_(state_.current_context), cleared_(clear_dependencies) {
    state_.current_context = context;
    if (cleared_) {
      ControlFrame frame;
      frame.clears_outer = true;
      state_.control_frames.push_back(std::move(frame));
    }
  }
  ~InContext() {
    if (cleared_) state_.control_frames.pop_back();
    state_.current_context = saved_;
  }
  InContext(const InContext&) = delete;
  InContext& operator=(const InContext&) = delete;

 private:
  GraphState& state_;
  std::uint32_t saved_;
  bool cleared_;
};

// Whether node `n` is a Switch of a while loop (not of a cond).
inline bool is_loop_switch(const GraphState& s, const Node& n) {
  return n.def == &kSwitchOp && n.context != 0 && s.flow_contexts[n.context - 1].is_loop;
}

inline bool is_loop_exit(const GraphState& s, const Node& n) {
  return is_exit_op(n.def) && s.loop_of(n.context) != 0;
}

// One forward loop's gradient while tf.gradients builds it (TensorFlow's GradLoopState).
struct GradLoopState {
  std::uint32_t forward = 0;   // the forward loop's context
  std::uint32_t backward = 0;  // the backward loop's context
  std::vector<TensorRef> forward_exits;
  std::size_t pending_exits = 0;  // exits not yet ready for backprop
  std::vector<TensorRef> deferred_exits, unused_exits;
  NodeId forward_index;  // the forward counter's NextIteration: pushes run before it
  NodeId forward_add;    // the forward counter's Add: pushes run after it
  NodeId grad_index;     // the backward counter's NextIteration
  NodeId grad_sync;      // "b_sync", made with the first pop
  bool has_grad_sync = false;
  NodeId forward_sync;  // "f_sync", made with the first push in a cond
  bool has_forward_sync = false;
  std::map<TensorRef, TensorRef> history;  // forward tensor -> what the backward loop reads
};

// The loops of one tf.gradients call (TensorFlow's ControlFlowState).
class LoopGradients {
 public:
  explicit LoopGradients(Graph g)
      : graph_(std::move(g)), base_context_(graph_.state().current_context) {}
  ~LoopGradients() {
    if (!states_.empty()) graph_.state().forward_value_in_backprop = nullptr;
  }
  LoopGradients(const LoopGradients&) = delete;
  LoopGradients& operator=(const LoopGradients&) = delete;

  bool empty() const { return states_.empty(); }
  GradLoopState* find(std::uint32_t forward) {
    auto it = states_.find(forward);
    return it == states_.end() ? nullptr : &it->second;
  }
  std::map<std::uint32_t, GradLoopState>& states() { return states_; }

  // The state of the loop `exit` leaves, made on first use with its counters and backward
  // loop (TensorFlow's AddWhileContext). Build it in the gradients' name scope.
  GradLoopState& add_loop(const Operation& exit) {
    GraphState& s = graph_.state();
    const std::uint32_t forward = s.loop_of(exit.node().context);
    if (GradLoopState* known = find(forward)) return *known;
    const ControlFlowContext& f = s.flow_contexts[forward - 1];
    if (s.loop_of(f.outer) != 0)
      throw UnimplementedError(
          "Gradients through a while loop inside another while loop are "
          "not supported yet: op '" +
              exit.name() + "'. docs/control-flow.md",
          exit.name());
    if (f.gradient_of != 0) throw TypeError("Second-order gradient for while loops not supported.");
    if (states_.empty())
      s.forward_value_in_backprop = [this](std::uint32_t backward, TensorRef value) {
        for (auto& [forward_context, state] : states_)
          if (state.backward == backward) return real_value(state, value);
        throw InternalError("A backward loop without its forward loop's state");
      };
    GradLoopState& st = states_[forward];
    st.forward = forward;
    st.forward_exits = f.loop_exits;
    st.pending_exits = st.forward_exits.size();
    const Output count = add_forward_counter(st);
    // The backward loop: a context of its own, in the frame of the same name under the
    // gradients' scope.
    ControlFlowContext c;
    c.is_loop = true;
    c.frame_name = s.unique_name(s.flow_contexts[forward - 1].frame_name);
    c.parallel_iterations = s.flow_contexts[forward - 1].parallel_iterations;
    c.back_prop = s.flow_contexts[forward - 1].back_prop;
    c.outer = s.flow_contexts[forward - 1].outer;
    c.gradient_of = forward;
    s.flow_contexts.push_back(std::move(c));
    st.backward = static_cast<std::uint32_t>(s.flow_contexts.size());
    add_backprop_counter(st, count);
    return st;
  }

  // The backward context an op's gradient is built in: for `before` (the sum of the
  // gradients of its outputs) an Exit's is outside its loop; outside every loop, the
  // context tf.gradients was called in.
  std::uint32_t grad_context_for(const Operation& op, bool before) const {
    const GraphState& s = graph_.state();
    std::uint32_t forward = s.loop_of(op.node().context);
    if (before && forward != 0 && is_exit_op(&op.op_def()))
      forward = s.loop_of(s.flow_contexts[forward - 1].outer);
    auto it = states_.find(forward);
    return it == states_.end() ? base_context_ : it->second.backward;
  }

  // Zeros for output `index` of `op`, which no path reached, for an op in a loop being
  // differentiated (TensorFlow's ZerosLikeV1WhileLoop): none for a loop's Switch (its
  // gradient comes in twice), else zeros made in the backward loop.
  std::optional<Output> zeros_in_loop(const Operation& op, int index) {
    GraphState& s = graph_.state();
    if (is_loop_switch(s, op.node())) return Output{};
    GradLoopState* st = find(s.loop_of(op.node().context));
    if (!st) return std::nullopt;
    const Output value = op.output(index);
    const Shape& shape = value.get_shape();
    // A cond's Switch inside the loop: zeros that exist only when the other side is taken,
    // switched on the cond's predicate of the matching forward iteration.
    const std::uint32_t context = op.node().context;
    const bool dead_branch = context != st->forward && op.op_def().dead_outputs &&
                             !op.op_def().reads_dead && !s.flow_contexts[context - 1].is_loop;
    if (dead_branch && !shape.is_fully_defined())
      throw UnimplementedError("Gradients through a cond inside a while loop need the shape of '" +
                                   value.name() + "' known while the graph is built",
                               op.name());
    if (shape.is_fully_defined()) {
      InContext in(graph_, st->backward);
      Output zeros = constant(scalar_zero(value.dtype()), shape, "Const");
      if (!dead_branch) return zeros;
      const ControlFlowContext& cond = s.flow_contexts[context - 1];
      const Output pred = output_of(graph_, real_value(*st, cond.pred));
      const Operation sw = make_switch(graph_, zeros, pred, "Switch", false);
      return sw.output(1 - cond.branch);
    }
    Output zeros_shape;
    {
      InContext in(graph_, context);
      zeros_shape = symflow::shape(value);
    }
    const Output history = add_forward_accumulator(*st, zeros_shape);
    InContext in(graph_, st->backward);
    const Output real_shape = add_backprop_accumulated_value(*st, history, zeros_shape);
    return fill(real_shape, zero_of(value.dtype()));
  }

  // Zeros for a loop's Exit that no path reached, while another Exit of its loop was.
  static Output zeros_for_exit(const Output& exit) {
    const Shape& shape = exit.get_shape();
    if (shape.is_fully_defined()) return zeros(shape, exit.dtype());
    return zeros_like(exit);
  }

  // A backward loop variable whose forward value did not depend on its previous value:
  // zeros from the second backward iteration on (TensorFlow's PostProcessing).
  void post_process() {
    GraphState& s = graph_.state();
    for (auto& [forward, st] : states_) {
      for (const auto& [forward_switch, merge_ref] :
           s.flow_contexts[st.backward - 1].switch_merges) {
        const Node& merge = s.node(merge_ref.node);
        if (merge.inputs[0] != merge.inputs[1]) continue;
        const Output first = output_of(graph_, merge.inputs[0]);
        const Shape& shape = first.get_shape();
        Output zero;
        if (shape.is_fully_defined()) {
          InContext in(graph_, st.backward);
          zero = constant(scalar_zero(first.dtype()), shape, "Const");
        } else {
          InContext in(graph_, s.flow_contexts[st.backward - 1].outer);
          const Output entered = output_of(graph_, s.node(merge.inputs[0].node).inputs[0]);
          zero = fill(symflow::shape(entered), zero_of(first.dtype()));
        }
        InContext in(graph_, st.backward);
        const Output next =
            graph_.create_op(kNextIterationOp, {zero}, {{"T", zero.dtype()}}, "NextIteration")
                .output(0);
        s.node(merge_ref.node).inputs[1] = next.ref();
      }
    }
  }

 private:
  static Value scalar_zero(DType dtype) {
    return visit_dtype(dtype, [](auto t) { return Value(typename decltype(t)::type{0}); });
  }
  static Output zero_of(DType dtype) { return constant(scalar_zero(dtype), "Const"); }

  // n = 0; while (the loop runs) n += 1: in the forward loop, built after it.
  Output add_forward_counter(GradLoopState& st) {
    GraphState& s = graph_.state();
    const Output n = constant(0, "f_count");
    InContext in(graph_, st.forward);
    s.flow_contexts[st.forward - 1].values.insert(n.ref());
    const Output enter = make_enter(graph_, n, st.forward, false, "f_count").output(0);
    const Operation merge_op = graph_.create_op(
        kMergeOp, {enter, enter}, {{"T", DType::int32}, {"N", std::int64_t{2}}}, "Merge");
    const Output loop_cond = output_of(graph_, s.flow_contexts[st.forward - 1].loop_cond);
    const Operation sw = make_switch(graph_, merge_op.output(0), loop_cond, "Switch", false);
    const Output one = constant(1, "Add/y");
    const Output index =
        graph_.create_op(kAddOp, {sw.output(1), one}, {{"T", DType::int32}}, "Add").output(0);
    const Operation next =
        graph_.create_op(kNextIterationOp, {index}, {{"T", DType::int32}}, "NextIteration");
    s.node(merge_op.id()).inputs[1] = next.output(0).ref();
    st.forward_index = next.id();
    st.forward_add = index.op().id();
    return graph_.create_op(kExitOp, {sw.output(0)}, {{"T", DType::int32}}, "f_count").output(0);
  }

  // n = count; while (n >= 1) n -= 1: the backward loop's own counter, its LoopCond and pivot.
  void add_backprop_counter(GradLoopState& st, const Output& count) {
    GraphState& s = graph_.state();
    const Output one = constant(1, "b_count");
    InContext in(graph_, st.backward);
    s.flow_contexts[st.backward - 1].values.insert(count.ref());
    const Output enter = make_enter(graph_, count, st.backward, false, "b_count").output(0);
    const Operation merge_op = graph_.create_op(
        kMergeOp, {enter, enter}, {{"T", DType::int32}, {"N", std::int64_t{2}}}, "Merge");
    s.flow_contexts[st.backward - 1].pivot = merge_op.output(0).ref();
    const Output pred = greater_equal(merge_op.output(0), one);
    const Output loop_cond = graph_.create_op(kLoopCondOp, {pred}, {}, "b_count").output(0);
    s.flow_contexts[st.backward - 1].loop_cond = loop_cond.ref();
    const Operation sw = make_switch(graph_, merge_op.output(0), loop_cond, "Switch", false);
    const Output index = subtract(sw.output(1), one);
    s.flow_contexts[st.backward - 1].pivot = index.ref();
    const Operation next =
        graph_.create_op(kNextIterationOp, {index}, {{"T", DType::int32}}, "NextIteration");
    s.node(merge_op.id()).inputs[1] = next.output(0).ref();
    st.grad_index = next.id();
    graph_.create_op(kExitOp, {sw.output(0)}, {{"T", DType::int32}}, "b_count");
  }

  // What the backward loop reads for forward tensor `value` (TensorFlow's GetRealValue): a
  // tensor from outside the loop enters the backward loop as it is, a constant is made
  // again, and anything else is popped from the stack the forward loop pushed it on.
  TensorRef real_value(GradLoopState& st, TensorRef value) {
    if (auto it = st.history.find(value); it != st.history.end()) return it->second;
    GraphState& s = graph_.state();
    const Node& n = s.node(value.node);
    // A constant Enter, or a cond's Switch or an Identity of one: the same in every
    // iteration (TensorFlow's GetLoopConstantEnter).
    const Node* invariant = &n;
    while (invariant->def == &kSwitchOp || invariant->def == &kRefSwitchOp ||
           invariant->def == &kIdentityOp)
      invariant = &s.node(invariant->inputs[0].node);
    TensorRef real;
    if (is_enter_op(invariant->def) && std::get<bool>(invariant->attrs.at("is_constant"))) {
      real = context_add_value(graph_, st.backward, invariant->inputs[0]);
    } else if (n.def == &kConstOp) {
      InContext in(graph_, st.backward);
      real = constant(std::get<Value>(n.attrs.at("value")), "Const").ref();
    } else {
      const Output forward_value = output_of(graph_, value);
      const Output history = add_forward_accumulator(st, forward_value);
      InContext in(graph_, st.backward);
      real = add_backprop_accumulated_value(st, history, forward_value).ref();
    }
    st.history[value] = real;
    return real;
  }

  // A stack made outside the loops, that the forward loop pushes `value` on in every
  // iteration (TensorFlow's AddForwardAccumulator).
  Output add_forward_accumulator(GradLoopState& st, const Output& value) {
    GraphState& s = graph_.state();
    // The context the value is made in: the loop's, or a cond's inside it, where the push
    // goes too (it runs when the branch is taken, and reads the stack through a Switch).
    const std::uint32_t value_context = s.node(value.op().id()).context;
    if (s.loop_of(value_context) != st.forward)
      throw UnimplementedError(
          "Gradients through a while loop inside another while loop are "
          "not supported yet: they read '" +
              value.name() + "'. docs/control-flow.md",
          value.op().name());
    Output acc;
    {
      InContext in(graph_, s.flow_contexts[st.forward - 1].outer, true);
      const Output max_size = constant(-1, "Const");
      acc = graph_
                .create_op(stacks::kStackV2Op, {max_size},
                           {{"elem_type", value.dtype()}, {"stack_name", std::string()}}, "f_acc")
                .output(0);
    }
    // The handle enters the forward loop first, named in the reader's scope.
    const Output entered = output_of(graph_, context_add_value(graph_, st.forward, acc.ref()));
    InContext in(graph_, value_context, true);
    const Operation push =
        graph_.create_op(stacks::kStackPushV2Op, {entered, value},
                         {{"T", value.dtype()}, {"swap_memory", false}}, "StackPushV2");
    // Each iteration pushes after the counter counts it, before the next one starts; a
    // push in a cond's branch, dead when the branch is not taken, through "f_sync", a
    // ControlTrigger that is never dead.
    if (value_context == st.forward) {
      s.node(st.forward_index).control_inputs.push_back(push.id());
    } else {
      if (!st.has_forward_sync) {
        const Operation sync = graph_.create_op(kControlTriggerOp, {}, {}, "f_sync");
        s.node(sync.id()).control_inputs.clear();
        s.node(sync.id()).context = st.forward;
        s.node(st.forward_index).control_inputs.push_back(sync.id());
        st.forward_sync = sync.id();
        st.has_forward_sync = true;
      }
      s.node(st.forward_sync).control_inputs.push_back(push.id());
    }
    s.node(push.id()).control_inputs.push_back(st.forward_add);
    return acc;
  }

  // The backward loop's pop of `history` (TensorFlow's AddBackpropAccumulatedValue).
  Output add_backprop_accumulated_value(GradLoopState& st, const Output& history,
                                        const Output& value) {
    GraphState& s = graph_.state();
    InContext in(graph_, st.backward, true);
    // A value made in a cond's branch was pushed only when the branch was taken: pop it
    // only then, through a Switch on the cond's predicate of the same iteration.
    const std::uint32_t value_context = s.node(value.op().id()).context;
    Output source = history;
    if (value_context != st.forward) {
      const ControlFlowContext& cond = s.flow_contexts[value_context - 1];
      const Output pred = output_of(graph_, real_value(st, cond.pred));
      source = make_switch(graph_, history, pred, "Switch", false).output(cond.branch);
    }
    const Operation pop = graph_.create_op(stacks::kStackPopV2Op, {source},
                                           {{"elem_type", value.dtype()}}, "StackPopV2");
    s.node(pop.id()).outputs[0].shape = value.get_shape();
    if (s.flow_contexts[st.backward - 1].parallel_iterations > 1) {
      // Pops run in iteration order: each before the backward counter moves on.
      if (!st.has_grad_sync) {
        const Operation sync = graph_.create_op(kControlTriggerOp, {}, {}, "b_sync");
        s.node(sync.id()).control_inputs.clear();
        s.node(sync.id()).context = st.backward;
        s.node(st.grad_index).control_inputs.push_back(sync.id());
        st.grad_sync = sync.id();
        st.has_grad_sync = true;
      }
      s.node(st.grad_sync).control_inputs.push_back(pop.id());
    }
    return pop.output(0);
  }

  Graph graph_;
  std::uint32_t base_context_;  // the context tf.gradients was called in
  std::map<std::uint32_t, GradLoopState> states_;
};

}  // namespace symflow::detail
