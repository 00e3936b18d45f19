#pragma once
// tf.while_loop as TensorFlow 1.x builds it (control_flow_ops.WhileContext.BuildLoop,
// docs/control-flow.md). For each loop variable x, in a frame "while/while_context":
//
//   while/Enter         = Enter(x)                       (is_constant: false)
//   while/Merge         = Merge(while/Enter, while/NextIteration)
//   ... cond(merges) ...
//   while/LoopCond      = LoopCond(cond's result)
//   while/Switch        = Switch(while/Merge, while/LoopCond)
//   while/Identity      = Identity(while/Switch:1)
//   ... body(identities) ...
//   while/NextIteration = NextIteration(body's result)  (Merge's input 1: the back edge)
//   while/Exit          = Exit(while/Switch)
//
// A tensor from outside that cond or body reads enters through a constant Enter
// ("while/mul/Enter"), and an op without inputs runs after the pivot, so once per
// iteration. The executor runs the frame's steps once per iteration (runtime/frames.hpp).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "symflow/graph/graph.hpp"
#include "symflow/graph/scopes.hpp"
#include "symflow/ops/array_ops.hpp"
#include "symflow/ops/cond.hpp"
#include "symflow/ops/const_op.hpp"
#include "symflow/ops/control_ops.hpp"
#include "symflow/ops/logic_ops.hpp"
#include "symflow/ops/math_ops.hpp"
#include "symflow/ops/tensor_arg.hpp"

namespace symflow {

// tf.while_loop's keyword arguments.
struct WhileLoopOptions {
  // One per loop variable (flattened), or none: each variable keeps its entering shape.
  std::vector<Shape> shape_invariants{};
  std::int64_t parallel_iterations = 10;
  bool back_prop = true;
  // At most this many iterations (a scalar int tensor, or a number), whatever cond says.
  std::optional<TensorArg> maximum_iterations{};
  std::string_view name = {};
};

namespace detail {

template <class T>
struct is_tuple_like : std::false_type {};
template <class... X>
struct is_tuple_like<std::tuple<X...>> : std::true_type {};
template <class A, class B>
struct is_tuple_like<std::pair<A, B>> : std::true_type {};

// cond or body called on the loop variables: a tuple or pair as separate arguments (as
// TensorFlow calls them with *loop_vars), a tensor or a vector as one.
template <class Fn, class Packed>
decltype(auto) call_with_loop_vars(Fn& fn, const Packed& packed) {
  if constexpr (is_tuple_like<Packed>::value)
    return std::apply(fn, packed);
  else
    return fn(packed);
}

// Whether shape `a` is at least as specific as `b` (TensorFlow's _ShapeLessThanOrEqual).
inline bool shape_within(const Shape& a, const Shape& b) {
  if (!b.has_rank()) return true;
  if (!a.has_rank() || a.rank() != b.rank()) return false;
  for (std::size_t d = 0; d < b.dims().size(); ++d)
    if (b.dims()[d] >= 0 && a.dims()[d] != b.dims()[d]) return false;
  return true;
}

inline std::string describe_tensors(const std::vector<Output>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + repr(items[i]);
  return out + "]";
}

// The part of while_loop that does not depend on the callables' types: the loop's
// context, its Enters, Merges, LoopCond, Switches, Identities, NextIterations and Exits.
class WhileBuilder {
 public:
  WhileBuilder(const Graph& g, const WhileLoopOptions& options) : graph_(g), options_(options) {}

  // The Merges of `loop_vars`: what cond reads. Opens the loop's context.
  std::vector<Output> start(const std::vector<Output>& loop_vars, const std::string& frame_name) {
    GraphState& s = graph_.state();
    if (options_.parallel_iterations < 1)
      throw TypeError("'parallel_iterations' must be a positive integer.");
    if (!options_.shape_invariants.empty() && options_.shape_invariants.size() != loop_vars.size())
      throw ValueError("shape_invariants has " + std::to_string(options_.shape_invariants.size()) +
                       " shapes for " + std::to_string(loop_vars.size()) + " loop variables");
    ControlFlowContext c;
    c.is_loop = true;
    c.frame_name = frame_name;
    c.parallel_iterations = options_.parallel_iterations;
    c.back_prop = options_.back_prop;
    c.outer = s.current_context;
    s.flow_contexts.push_back(std::move(c));
    context_ = static_cast<std::uint32_t>(s.flow_contexts.size());
    outer_ = s.current_context;
    loop_vars_ = loop_vars;

    std::vector<Output> enters;
    for (std::size_t i = 0; i < loop_vars.size(); ++i) {
      Output real = loop_vars[i];
      if (outer_ != 0) real = to_output(context_add_value(graph_, outer_, real.ref()));
      const Operation enter = make_enter(graph_, real, context_, false, "Enter", false);
      // Its shape: the shape invariant, or the entering tensor's (use_input_shape).
      Shape shape = real.get_shape();
      if (!options_.shape_invariants.empty()) {
        const Shape& invariant = options_.shape_invariants[i];
        if (!shape_within(shape, invariant))
          throw ValueError("The shape invariant specified for " + loop_vars[i].name() +
                           " is not compatible with the initial shape of the loop variable. It "
                           "enters the loop with shape " +
                           python_shape(shape) + ", but the specified shape invariant is " +
                           python_shape(invariant) + ".");
        shape = invariant;
      }
      s.node(enter.id()).outputs[0].shape = shape;
      enters.push_back(enter.output(0));
    }
    s.current_context = context_;
    // The Enters are the loop's own values; the tensors given are not (a body that reads
    // one reads it through a constant Enter).
    s.flow_contexts[context_ - 1].values.clear();
    for (const Output& e : enters) s.flow_contexts[context_ - 1].values.insert(e.ref());
    for (const Output& e : enters) merges_.push_back(merge({e, e}).first);
    s.flow_contexts[context_ - 1].pivot = merges_.front().ref();
    return merges_;
  }

  // The loop's predicate: LoopCond, the Switches and the Identities body reads.
  std::vector<Output> condition(const Output& pred) {
    GraphState& s = graph_.state();
    if (!pred.valid()) throw ValueError("while_loop: cond returned an empty tensor handle");
    loop_cond_ = graph_.create_op(kLoopCondOp, {pred}, {}, "LoopCond").output(0);
    s.flow_contexts[context_ - 1].loop_cond = loop_cond_.ref();
    std::vector<Output> identities;
    for (const Output& m : merges_) {
      const Operation sw = make_switch(graph_, m, loop_cond_, "Switch", false);
      switches_.push_back(sw);
      identities.push_back(identity(sw.output(1)));
    }
    s.flow_contexts[context_ - 1].pivot = identities.front().ref();
    identities_ = identities;
    return identities;
  }

  // Closes the loop with body's results: NextIterations into the Merges, then the Exits.
  std::vector<Output> finish(const std::vector<Output>& results) {
    GraphState& s = graph_.state();
    if (results.size() != merges_.size())
      throw ValueError(
          "The two structures don't have the same nested structure.\n\nFirst structure: " +
          describe_tensors(identities_) + "\n\nSecond structure: " + describe_tensors(results) +
          "\n\nMore specifically: The two structures don't have the same number of elements.");
    for (std::size_t i = 0; i < results.size(); ++i) {
      if (!results[i].valid()) throw ValueError("while_loop: body returned an empty tensor handle");
      const Output next = graph_
                              .create_op(kNextIterationOp, {results[i]},
                                         {{"T", results[i].dtype()}}, "NextIteration")
                              .output(0);
      const Output& m = merges_[i];
      if (next.dtype() != m.dtype())
        throw TypeError("Input 1 of node " + m.op().name() + " was passed " +
                        std::string(dtype_name(next.dtype())) + " from " + next.name() +
                        " incompatible with expected " + std::string(dtype_name(m.dtype())) + ".");
      if (!shape_within(next.get_shape(), m.get_shape()))
        throw ValueError("Input tensor '" + loop_vars_[i].name() + "' enters the loop with shape " +
                         python_shape(loop_vars_[i].get_shape()) + ", but has shape " +
                         python_shape(next.get_shape()) +
                         " after one iteration. To allow the shape to vary across iterations, "
                         "use the `shape_invariants` argument of tf.while_loop to specify a "
                         "less-specific shape.");
      s.node(m.op().id()).inputs[1] = next.ref();  // the back edge
    }
    std::vector<Output> exits;
    for (const Operation& sw : switches_)
      exits.push_back(
          graph_.create_op(kExitOp, {sw.output(0)}, {{"T", sw.output(0).dtype()}}, "Exit")
              .output(0));
    for (const Output& e : exits) s.flow_contexts[context_ - 1].loop_exits.push_back(e.ref());
    s.current_context = outer_;
    return exits;
  }

  // A loop left unfinished (cond or body threw) leaves its context.
  ~WhileBuilder() {
    if (context_ != 0) graph_.state().current_context = outer_;
  }
  WhileBuilder(const WhileBuilder&) = delete;
  WhileBuilder& operator=(const WhileBuilder&) = delete;

 private:
  Output to_output(TensorRef r) const {
    return Output(Operation(graph_.state_ptr(), r.node), r.index);
  }

  Graph graph_;
  WhileLoopOptions options_;
  std::uint32_t context_ = 0, outer_ = 0;
  std::vector<Output> loop_vars_, merges_, identities_;
  std::vector<Operation> switches_;
  Output loop_cond_;
};

// Flattens loop variables (a tensor, or a vector, tuple or pair of them) to tensors.
template <class Vars>
std::vector<Output> flatten_loop_vars(const Vars& vars) {
  std::vector<CondItem> items;
  CondShape<Vars>::flatten(vars, items);
  std::vector<Output> out;
  for (const CondItem& item : items) {
    const Output* t = std::get_if<Output>(&item);
    if (!t) throw TypeError("while_loop: a loop variable must be a tensor, not an operation");
    if (!t->valid()) throw ValueError("while_loop: a loop variable is an empty tensor handle");
    out.push_back(*t);
  }
  return out;
}

// The loop itself, on flattened variables; `Vars` is the structure cond and body see.
template <class Vars, class Cond, class Body>
std::vector<Output> build_while_loop(const Graph& g, Cond& cond, Body& body,
                                     const std::vector<Output>& flat, const std::string& frame_name,
                                     const WhileLoopOptions& options) {
  using Packed = typename CondShape<Vars>::result;
  WhileBuilder builder(g, options);
  const std::vector<Output> merges = builder.start(flat, frame_name);
  std::size_t at = 0;
  const Packed for_cond = CondShape<Vars>::unflatten(merges, at);
  const Output pred = Output(call_with_loop_vars(cond, for_cond));
  const std::vector<Output> identities = builder.condition(pred);
  at = 0;
  const Packed for_body = CondShape<Vars>::unflatten(identities, at);
  using R = std::decay_t<decltype(call_with_loop_vars(body, for_body))>;
  static_assert(CondShape<R>::supported,
                "while_loop: body returns a tensor, or a std::vector, std::pair or std::tuple of "
                "tensors, as the loop variables are");
  return builder.finish(flatten_loop_vars(call_with_loop_vars(body, for_body)));
}

}  // namespace detail

// tf.while_loop(cond, body, loop_vars): repeats `body` while `cond` is true. `loop_vars`
// is a tensor (Output, Tensor<T>), or a std::vector, std::pair or std::tuple of them; cond
// and body take them as TensorFlow passes them (a tuple's or pair's elements as separate
// arguments), cond returns a bool scalar tensor, and body the new loop variables in the
// same structure, dtypes and shapes (or shapes within `shape_invariants`). Returns the
// loop variables' last values, in the same structure. Built in TensorFlow 1.x's graph
// form, so that a GraphDef written from it reads as TensorFlow's does.
template <class Cond, class Body, class Vars>
auto while_loop(Cond&& cond, Body&& body, const Vars& loop_vars, WhileLoopOptions options = {}) {
  static_assert(detail::CondShape<Vars>::supported,
                "while_loop: loop_vars is a tensor, or a std::vector, std::pair or std::tuple of "
                "tensors");
  using Result = typename detail::CondShape<Vars>::result;
  const std::vector<Output> flat = detail::flatten_loop_vars(loop_vars);
  if (flat.empty()) throw ValueError("'loop_vars' must be provided.");
  Graph g = graph_of(flat);
  name_scope scope(options.name, "while", flat);
  if (!options.maximum_iterations) {
    const std::string frame_name = g.state().unique_name("while_context");
    const std::vector<Output> exits =
        detail::build_while_loop<Vars>(g, cond, body, flat, frame_name, options);
    std::size_t at = 0;
    return Result(detail::CondShape<Vars>::unflatten(exits, at));
  }
  // maximum_iterations: a counter goes first among the loop variables, and the loop
  // stops when it reaches the limit (TensorFlow's wrapper, names included).
  const Output limit = options.maximum_iterations->tensor()
                           ? *options.maximum_iterations->tensor()
                           : constant(*options.maximum_iterations->value(), "maximum_iterations");
  if (!limit.get_shape().has_rank() || limit.get_shape().rank() != 0)
    throw ValueError("'maximum_iterations' must be a scalar. Received shape: " +
                     detail::python_shape(limit.get_shape()));
  const Output counter = constant(
      visit_dtype(limit.dtype(), [](auto t) { return Value(typename decltype(t)::type{0}); }),
      "iteration_counter");
  const std::string frame_name = g.state().unique_name("while_context");
  std::vector<Output> with_counter{counter};
  with_counter.insert(with_counter.end(), flat.begin(), flat.end());
  if (!options.shape_invariants.empty())
    options.shape_invariants.insert(options.shape_invariants.begin(), Shape{});
  auto limited_cond = [&](const std::vector<Output>& vars) -> Output {
    const Output below = less(vars[0], limit);
    std::size_t at = 1;
    const auto rest = detail::CondShape<Vars>::unflatten(vars, at);
    return logical_and(below, Output(detail::call_with_loop_vars(cond, rest)));
  };
  auto counting_body = [&](const std::vector<Output>& vars) -> std::vector<Output> {
    std::vector<Output> out{vars[0] + 1};
    std::size_t at = 1;
    const auto rest = detail::CondShape<Vars>::unflatten(vars, at);
    const std::vector<Output> next =
        detail::flatten_loop_vars(detail::call_with_loop_vars(body, rest));
    out.insert(out.end(), next.begin(), next.end());
    return out;
  };
  const std::vector<Output> exits = detail::build_while_loop<std::vector<Output>>(
      g, limited_cond, counting_body, with_counter, frame_name, options);
  std::size_t at = 1;
  return Result(detail::CondShape<Vars>::unflatten(exits, at));
}

}  // namespace symflow
