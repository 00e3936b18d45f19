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
// from a stack).
//
// A loop inside another: the inner loop's iteration count of each outer iteration is
// itself pushed by the outer forward loop and popped by the outer backward loop, where it
// starts the inner backward loop's counter. The stacks are made outside every loop, so
// that one stack holds an inner value's history over all outer iterations (the inner
// backward loops of the outer iterations pop it in reverse).

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "symflow/graph/graph.hpp"
#include "symflow/graph/scopes.hpp"
#include "symflow/ops/array_ops.hpp"
#include "symflow/ops/const_op.hpp"
#include "symflow/ops/control_ops.hpp"
#include "symflow/ops/defs/stack.hpp"
#include "symflow/ops/logic_ops.hpp"
#include "symflow/ops/math_ops.hpp"
#include "symflow/ops/op_builder.hpp"
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

// The context node `n`'s outputs are in: an Exit's is the one around its loop
// (TensorFlow's GetOutputContext).
inline std::uint32_t output_context(const GraphState& s, const Node& n) {
  return is_exit_op(n.def) && n.context != 0 ? s.flow_contexts[n.context - 1].outer : n.context;
}

// One forward loop's gradient while tf.gradients builds it (TensorFlow's GradLoopState).
struct GradLoopState {
  std::uint32_t forward = 0;       // the forward loop's context
  std::uint32_t backward = 0;      // the backward loop's context
  GradLoopState* outer = nullptr;  // the state of the loop around it, if any
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
    return add_loop(graph_.state().loop_of(exit.node().context), exit.name());
  }

  // The same for forward loop context `forward`; `op` names it in errors. A loop inside
  // another gets the outer loop's state first, as TensorFlow, which meets the outer loop's
  // Exits first on its way back from the ys, makes them.
  GradLoopState& add_loop(std::uint32_t forward, const std::string& op) {
    if (GradLoopState* known = find(forward)) return *known;
    GraphState& s = graph_.state();
    if (s.flow_contexts[forward - 1].gradient_of != 0)
      throw TypeError("Second-order gradient for while loops not supported.");
    // Taken inside the body of the loop around it, the gradient differentiates one
    // iteration of that loop: this loop is then an outermost one, its stacks and backward
    // loop made in that body anew in every iteration (as TensorFlow does).
    GradLoopState* outer = nullptr;
    if (const std::uint32_t around = s.loop_of(s.flow_contexts[forward - 1].outer);
        around != 0 && !s.context_within(base_context_, around)) {
      if (s.flow_contexts[around - 1].gradient_of != 0)
        throw TypeError("Second-order gradient for while loops not supported.");
      outer = &add_loop(around, op);
    }
    if (states_.empty())
      s.forward_value_in_backprop = [this](std::uint32_t backward, TensorRef value) {
        for (auto& [forward_context, state] : states_)
          if (state.backward == backward) return real_value(state, value);
        throw InternalError("A backward loop without its forward loop's state");
      };
    GradLoopState& st = states_[forward];
    st.forward = forward;
    st.outer = outer;
    st.forward_exits = s.flow_contexts[forward - 1].loop_exits;
    st.pending_exits = st.forward_exits.size();
    const Output count = add_forward_counter(st);
    // A nested loop: the outer forward loop keeps each of the inner loop's counts.
    Output history;
    if (outer) history = add_forward_accumulator(*outer, count);
    // The backward loop: a context of its own, in the frame of the same name under the
    // gradients' scope, inside the outer backward loop if any.
    ControlFlowContext c;
    c.is_loop = true;
    c.frame_name = s.unique_name(s.flow_contexts[forward - 1].frame_name);
    c.parallel_iterations = s.flow_contexts[forward - 1].parallel_iterations;
    c.back_prop = s.flow_contexts[forward - 1].back_prop;
    c.outer = outer ? outer->backward : s.flow_contexts[forward - 1].outer;
    c.gradient_of = forward;
    s.flow_contexts.push_back(std::move(c));
    st.backward = static_cast<std::uint32_t>(s.flow_contexts.size());
    Output real_count = count;
    if (outer) {
      InContext in(graph_, outer->backward);
      real_count = add_backprop_accumulated_value(*outer, history, count);
    }
    add_backprop_counter(st, real_count);
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

  // Zeros for a loop's Exit that no path reached, while another Exit of its loop was
  // (TensorFlow's ZerosLikeForExit). An inner loop's are made in the outer backward loop,
  // from the shape the Exit had in the matching outer iteration when it is not static.
  Output zeros_for_exit(const Output& exit) {
    GraphState& s = graph_.state();
    const Shape& shape = exit.get_shape();
    const std::uint32_t forward = s.loop_of(exit.op().node().context);
    const GradLoopState* outer = find(s.loop_of(s.flow_contexts[forward - 1].outer));
    if (!outer) return shape.is_fully_defined() ? zeros(shape, exit.dtype()) : zeros_like(exit);
    if (shape.is_fully_defined()) {
      InContext in(graph_, outer->backward);
      return zeros(shape, exit.dtype());
    }
    Output exit_shape;
    {
      InContext in(graph_, s.flow_contexts[forward - 1].outer);
      exit_shape = symflow::shape(exit);
    }
    InContext in(graph_, outer->backward);  // reads exit_shape from its stack
    return fill(exit_shape, zero_of(exit.dtype()));
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
  // Nested: the count starts in the outer forward loop, after the outer counter's Add, so
  // that each run of the inner loop pushes after the one before it.
  Output add_forward_counter(GradLoopState& st) {
    GraphState& s = graph_.state();
    Output n;
    if (st.outer) {
      InContext in(graph_, st.outer->forward);
      n = constant(0, "f_count");
      s.node(n.op().id()).control_inputs.push_back(st.outer->forward_add);
    } else {
      n = constant(0, "f_count");
    }
    InContext in(graph_, st.forward);
    s.flow_contexts[st.forward - 1].values.insert(n.ref());
    const Output enter = make_enter(graph_, n, st.forward, false, "f_count").output(0);
    const Operation merge_op = graph_.create_op(
        kMergeOp, {enter, enter}, {{"T", DType::int32}, {"N", std::int64_t{2}}}, "Merge");
    const Output loop_cond = output_of(graph_, s.flow_contexts[st.forward - 1].loop_cond);
    const Operation sw = make_switch(graph_, merge_op.output(0), loop_cond, "Switch", false);
    // n + 1 as TensorFlow's `+` names it: "Add", its constant "Add/y" (or "Add_1/y").
    Output index;
    {
      OpBuilder add(graph_, {}, "Add");
      const Output one = add.constant_arg(Value(1), "y");
      index = add.build(kAddOp, {sw.output(1), one}, {{"T", DType::int32}}).output(0);
    }
    const Operation next =
        graph_.create_op(kNextIterationOp, {index}, {{"T", DType::int32}}, "NextIteration");
    s.node(merge_op.id()).inputs[1] = next.output(0).ref();
    st.forward_index = next.id();
    st.forward_add = index.op().id();
    return graph_.create_op(kExitOp, {sw.output(0)}, {{"T", DType::int32}}, "f_count").output(0);
  }

  // n = count; while (n >= 1) n -= 1: the backward loop's own counter, its LoopCond and pivot.
  // Nested: the outer backward loop's counter moves on only after this loop has run.
  void add_backprop_counter(GradLoopState& st, const Output& count) {
    GraphState& s = graph_.state();
    Output one;
    {
      InContext in(graph_, st.outer ? st.outer->backward : s.current_context);
      one = constant(1, "b_count");
    }
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
    const Operation done =
        graph_.create_op(kExitOp, {sw.output(0)}, {{"T", DType::int32}}, "b_count");
    if (st.outer) s.node(grad_sync(*st.outer)).control_inputs.push_back(done.id());
  }

  // "b_sync", a ControlTrigger in the backward loop that its counter waits for: the pops
  // (and inner backward loops) of one iteration run before the next (TensorFlow's grad_sync).
  NodeId grad_sync(GradLoopState& st) {
    if (!st.has_grad_sync) st.grad_sync = make_sync(st.backward, st.grad_index, "b_sync");
    st.has_grad_sync = true;
    return st.grad_sync;
  }
  // "f_sync", the same in the forward loop, for pushes made in a cond's branch.
  NodeId forward_sync(GradLoopState& st) {
    if (!st.has_forward_sync) st.forward_sync = make_sync(st.forward, st.forward_index, "f_sync");
    st.has_forward_sync = true;
    return st.forward_sync;
  }
  NodeId make_sync(std::uint32_t loop, NodeId counter_next, std::string_view name) {
    GraphState& s = graph_.state();
    InContext in(graph_, loop, true);
    const Operation sync = graph_.create_op(kControlTriggerOp, {}, {}, name);
    s.node(sync.id()).control_inputs.clear();
    s.node(counter_next).control_inputs.push_back(sync.id());
    return sync.id();
  }

  // What the backward loop reads for forward tensor `value` (TensorFlow's GetRealValue): a
  // tensor from outside every loop being differentiated enters the backward loop as it is,
  // a constant is made again, and anything else is popped from the stack its forward loop
  // pushed it on. A constant Enter of a nested loop leads to the loop around it: the value
  // it enters is that loop's, kept (if need be) by that loop's stacks.
  TensorRef real_value(GradLoopState& st, TensorRef value) {
    if (auto it = st.history.find(value); it != st.history.end()) return it->second;
    GraphState& s = graph_.state();
    TensorRef current = value;
    GradLoopState* owner = &st;  // the state whose forward loop `current` is made in
    std::optional<TensorRef> real;
    Output history;
    for (;;) {
      const Node& n = s.node(current.node);
      // A constant Enter, or a cond's Switch or an Identity of one: the same in every
      // iteration (TensorFlow's GetLoopConstantEnter).
      const Node* invariant = &n;
      while (invariant->def == &kSwitchOp || invariant->def == &kRefSwitchOp ||
             invariant->def == &kIdentityOp)
        invariant = &s.node(invariant->inputs[0].node);
      if (is_enter_op(invariant->def) && std::get<bool>(invariant->attrs.at("is_constant"))) {
        current = invariant->inputs[0];
        owner = owner->outer;
        if (owner == nullptr) {
          real = context_add_value(graph_, st.backward, current);
          break;
        }
      } else if (n.def == &kConstOp) {
        InContext in(graph_, st.backward);
        real = constant(std::get<Value>(n.attrs.at("value")), "Const").ref();
        break;
      } else {
        history = add_forward_accumulator(*owner, output_of(graph_, current));
        break;
      }
    }
    if (!real) {
      InContext in(graph_, owner->backward);
      real = add_backprop_accumulated_value(*owner, history, output_of(graph_, current)).ref();
      if (owner != &st) real = context_add_value(graph_, st.backward, *real);
    }
    st.history[value] = *real;
    return *real;
  }

  // A stack made outside every loop (where tf.gradients was called), that the forward loop
  // pushes `value` on in every iteration (TensorFlow's AddForwardAccumulator).
  Output add_forward_accumulator(GradLoopState& st, const Output& value) {
    GraphState& s = graph_.state();
    // The context the value is made in: the loop's, or a cond's inside it, where the push
    // goes too (it runs when the branch is taken, and reads the stack through a Switch).
    const std::uint32_t value_context = output_context(s, s.node(value.op().id()));
    if (s.loop_of(value_context) != st.forward)
      throw InternalError(
          "A backward loop would keep '" + value.name() + "', a tensor of another loop, on a stack",
          value.op().name());
    Output acc;
    {
      InContext in(graph_, base_context_, true);
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
    if (value_context == st.forward)
      s.node(st.forward_index).control_inputs.push_back(push.id());
    else
      s.node(forward_sync(st)).control_inputs.push_back(push.id());
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
    const std::uint32_t value_context = output_context(s, s.node(value.op().id()));
    Output source = history;
    if (value_context != st.forward) {
      const ControlFlowContext& cond = s.flow_contexts[value_context - 1];
      const Output pred = output_of(graph_, real_value(st, cond.pred));
      source = make_switch(graph_, history, pred, "Switch", false).output(cond.branch);
    }
    const Operation pop = graph_.create_op(stacks::kStackPopV2Op, {source},
                                           {{"elem_type", value.dtype()}}, "StackPopV2");
    s.node(pop.id()).outputs[0].shape = value.get_shape();
    // Pops run in iteration order: each before the backward counter moves on.
    if (s.flow_contexts[st.backward - 1].parallel_iterations > 1)
      s.node(grad_sync(st)).control_inputs.push_back(pop.id());
    return pop.output(0);
  }

  Graph graph_;
  std::uint32_t base_context_;  // the context tf.gradients was called in
  std::map<std::uint32_t, GradLoopState> states_;
};

}  // namespace symflow::detail
