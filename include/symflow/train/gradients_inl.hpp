#pragma once
// tf.gradients' definition (train/gradients.hpp declares it): included by that header in
// a header-only program, and by symflow/define_compiled.hpp alone in a program built
// with SYMFLOW_COMPILED. It alone reaches every op's gradient (ops/registry.hpp).

#include <algorithm>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "symflow/detail/config.hpp"
#include "symflow/graph/graph.hpp"
#include "symflow/graph/scopes.hpp"
#include "symflow/ops/control_ops.hpp"
#include "symflow/ops/registry.hpp"
#include "symflow/ops/shape_ops.hpp"
#include "symflow/ops/while_grad.hpp"
#include "symflow/train/gradients.hpp"

namespace symflow {

namespace detail {

struct TensorRefLess {
  bool operator()(const TensorRef& a, const TensorRef& b) const {
    return a.node.value != b.node.value ? a.node.value < b.node.value : a.index < b.index;
  }
};

// Whether a gradient can flow through tensor `r` (TensorFlow's _IsBackpropagatable):
// floating-point values and resource handles.
inline bool backpropagatable(const detail::GraphState& g, TensorRef r) {
  const DType d = g.node(r.node).outputs.at(static_cast<std::size_t>(r.index)).dtype;
  return is_floating(d) || d == DType::resource;
}

// The ops on a path from one of `from` to one of `to` (both ends included), the path from
// `from` going through tensors a gradient can flow through. Node ids are a topological
// order but for a while loop's back edges, so the sweeps repeat until nothing changes.
inline std::vector<bool> ops_between(const detail::GraphState& g, const std::vector<NodeId>& from,
                                     const std::vector<NodeId>& to) {
  const std::size_t n = g.nodes.size();
  std::vector<bool> reached(n, false);
  for (NodeId id : from) reached[id.value] = true;
  for (bool changed = true; changed;) {
    changed = false;
    for (std::size_t i = 0; i < n; ++i) {
      if (reached[i]) continue;
      for (const TensorRef& in : g.nodes[i].inputs)
        if (reached[in.node.value] && backpropagatable(g, in)) {
          reached[i] = changed = true;
          break;
        }
    }
  }
  std::vector<bool> between(n, false);
  for (NodeId id : to)
    if (reached[id.value]) between[id.value] = true;
  for (bool changed = true; changed;) {
    changed = false;
    for (std::size_t i = n; i-- > 0;) {
      if (!between[i]) continue;
      for (const TensorRef& in : g.nodes[i].inputs)
        if (reached[in.node.value] && !between[in.node.value])
          between[in.node.value] = changed = true;
    }
  }
  return between;
}

// The sum of the gradients collected for one output of `op`, as TensorFlow's
// _AggregatedGrads: AddN of tensors (or the chain of aggregation_method's tree); the slices
// concatenated when all are slices; an AddN when they mix, each slices converted in the
// AddN's scope as "inputs_<i>" (convert_n_to_tensor's names).
inline Gradient aggregate(Graph& g, const std::vector<Gradient>& grads, const Operation& op,
                          AggregationMethod method) {
  if (grads.empty()) return {};
  if (grads.size() == 1) return grads.front();
  const auto sparse_count = std::count_if(grads.begin(), grads.end(),
                                          [](const Gradient& grad) { return grad.is_sparse(); });
  if (sparse_count == 0) {
    std::vector<Output> dense(grads.begin(), grads.end());
    if (method == AggregationMethod::ADD_N) return add_n(dense);
    name_scope sum_scope(g, op.name() + "_gradient_sum");
    Output running_sum = dense.front();
    for (std::size_t i = 1; i < dense.size(); ++i) running_sum = add_n({running_sum, dense[i]});
    return running_sum;
  }
  if (sparse_count == static_cast<std::ptrdiff_t>(grads.size())) {
    bool int64_indices = false;
    for (const Gradient& grad : grads)
      int64_indices = int64_indices || grad.sparse().indices.dtype() == DType::int64;
    std::vector<Output> values, indices;
    for (const Gradient& grad : grads) {
      values.push_back(grad.sparse().values);
      indices.push_back(int64_indices ? cast(grad.sparse().indices, DType::int64)
                                      : grad.sparse().indices);
    }
    const Output all_values = concat(values, 0);
    const Output all_indices = concat(indices, 0);
    return IndexedSlices{all_values, all_indices, grads.front().sparse().dense_shape};
  }
  name_scope scope(g, "AddN");
  std::vector<Output> inputs;
  for (std::size_t i = 0; i < grads.size(); ++i)
    inputs.push_back(grads[i].is_sparse()
                         ? to_dense(grads[i].sparse(), "inputs_" + std::to_string(i))
                         : grads[i].dense());
  return add_n(inputs, scope.name());
}

// Ops whose gradient is the incoming one unchanged: slices pass them as slices.
inline bool passes_slices(const Operation& op) { return op.type() == "Identity"; }

}  // namespace detail

namespace detail {

// Both public functions: `dense` converts the slices returned, inside the same scope.
inline std::vector<Gradient> build_gradients(const std::vector<Output>& ys,
                                             const std::vector<Output>& xs,
                                             const std::vector<Output>& grad_ys,
                                             const GradientsOptions& options, bool dense) {
  if (ys.empty()) throw ValueError("gradients: ys must not be empty");
  const auto method = static_cast<int>(options.aggregation_method);
  if (method < 0 || method > 2)
    throw ValueError("Invalid `aggregation_method` specified " + std::to_string(method) +
                     ". Accepted values are [0, 1, 2].");
  if (!grad_ys.empty() && grad_ys.size() != ys.size())
    throw ValueError("Passed " + std::to_string(grad_ys.size()) + " grad_ys for " +
                     std::to_string(ys.size()) + " ys");
  std::vector<Output> all = ys;
  all.insert(all.end(), xs.begin(), xs.end());
  for (const Output& t : all)
    if (!t.valid()) throw ValueError("gradients: an invalid tensor was passed in ys or xs");
  Graph g = graph_of(all);
  for (const Output& t : all)
    if (t.op().graph_state() != g.state_ptr())
      throw ValueError("gradients: " + t.name() + " is from a different graph");
  const detail::GraphState& state = g.state();

  name_scope scope(g, options.name);

  // Seeds: grad_ys, or ones shaped like each y (TF's gradients/Shape, grad_ys_0, Fill).
  std::map<TensorRef, std::vector<Gradient>, detail::TensorRefLess> pending;
  for (std::size_t i = 0; i < ys.size(); ++i) {
    const Output& y = ys[i];
    Output seed;
    if (!grad_ys.empty() && grad_ys[i].valid()) {
      seed = grad_ys[i];
    } else {
      if (!is_floating(y.dtype()))
        throw TypeError("gradients: y " + y.name() + " has dtype " +
                        std::string(dtype_name(y.dtype())) + "; it must be floating point");
      Output one =
          detail::make_const(
              g,
              visit_dtype(y.dtype(), [](auto t) { return Value(typename decltype(t)::type{1}); }),
              "grad_ys_" + std::to_string(i))
              .output(0);
      seed = fill(shape(y), one);
    }
    pending[y.ref()].push_back(seed);
  }

  std::vector<NodeId> from, to;
  for (const Output& x : xs) from.push_back(x.op().id());
  for (const Output& y : ys) to.push_back(y.op().id());
  std::vector<bool> between = detail::ops_between(state, from, to);
  const std::uint32_t base_context = state.current_context;
  // The name of the x nearest to op i, going back through inputs (for an error).
  auto nearest_x = [&](std::size_t i) {
    std::deque<std::size_t> queue{i};
    std::set<std::size_t> seen;
    while (!queue.empty()) {
      const std::size_t k = queue.front();
      queue.pop_front();
      if (!seen.insert(k).second) continue;
      for (NodeId id : from)
        if (id.value == k) return state.nodes[k].name;
      for (const TensorRef& in : state.nodes[k].inputs) queue.push_back(in.node.value);
    }
    return state.nodes[i].name;
  };
  // A while loop on the path: its gradient's counters and backward loop, and every one
  // of its Exits, which all take part (TensorFlow's ControlFlowState).
  LoopGradients loops(g);
  for (std::size_t i = 0; i < between.size(); ++i) {
    const Operation op(g.state_ptr(), NodeId{static_cast<std::uint32_t>(i)});
    if (!between[i] || !is_loop_exit(state, op.node())) continue;
    for (const TensorRef& e : loops.add_loop(op).forward_exits) between[e.node.value] = true;
  }
  const std::size_t n = between.size();  // the ops made from here on are not on the path
  auto on_path = [&](std::size_t k) { return k < n && between[k]; };
  std::vector<bool> stopped(n, false);
  for (const Output& s : options.stop_gradients) stopped[s.op().id().value] = true;

  // TensorFlow's order: an op is ready once every consumer on a path has passed its
  // gradients back (pending counts over data inputs), and ready ops are handled first in,
  // first out, starting from the ys. The order decides the order of the gradients an AddN
  // sums and the numbering of the nodes built on the way.
  std::vector<int> pending_count(n, 0);
  for (std::size_t i = 0; i < n; ++i)
    if (between[i])
      for (const TensorRef& in : state.nodes[i].inputs)
        if (on_path(in.node.value)) ++pending_count[in.node.value];
  std::deque<std::size_t> ready;
  std::vector<bool> queued(n, false);
  std::set<std::size_t> to_set;
  for (NodeId id : to)
    if (between[id.value] && pending_count[id.value] == 0 && !queued[id.value]) {
      queued[id.value] = true;
      to_set.insert(id.value);
      ready.push_back(id.value);
    }
  auto has_grads = [&](std::size_t i) {
    const Node& node = state.nodes[i];
    for (std::size_t k = 0; k < node.outputs.size(); ++k)
      if (pending.count(TensorRef{NodeId{static_cast<std::uint32_t>(i)}, static_cast<int>(k)}))
        return true;
    return false;
  };
  // An Exit without a gradient gets zeros when another Exit of its loop has one.
  auto zeros_for_exit = [&](TensorRef exit) {
    const Output out(Operation(g.state_ptr(), exit.node), exit.index);
    if (is_floating(out.dtype())) pending[exit].push_back(loops.zeros_for_exit(out));
  };
  // The Exits of a loop wait for each other (TensorFlow's deferred exits).
  auto exit_ready = [&](std::size_t k) {
    GradLoopState& st = *loops.find(state.loop_of(state.nodes[k].context));
    st.deferred_exits.push_back(TensorRef{NodeId{static_cast<std::uint32_t>(k)}, 0});
    if (--st.pending_exits != 0) return;
    bool any_grad = false;
    for (const TensorRef& e : st.deferred_exits) {
      if (!has_grads(e.node.value)) {
        st.unused_exits.push_back(e);
        continue;
      }
      any_grad = true;
      ready.push_back(e.node.value);
    }
    for (const TensorRef& e : st.unused_exits) {
      if (any_grad) zeros_for_exit(e);
      ready.push_back(e.node.value);
    }
  };
  // Exits that nothing on the path reads (TensorFlow's ProcessUnusedLoopExits).
  for (auto& [forward, st] : loops.states()) {
    std::vector<TensorRef> unused;
    for (const TensorRef& e : st.forward_exits) {
      if (pending_count[e.node.value] != 0) continue;
      --st.pending_exits;
      if (!to_set.count(e.node.value)) st.unused_exits.push_back(e);
      if (st.pending_exits == 0) unused = st.unused_exits;
    }
    for (const TensorRef& e : unused) {
      const Output out(Operation(g.state_ptr(), e.node), e.index);
      if (!is_floating(out.dtype())) continue;
      zeros_for_exit(e);
      ready.push_back(e.node.value);
    }
  }
  // Every loop variable's Enter takes part, on the path or not, as in TensorFlow (which
  // keeps them for higher-order gradients): a gradient that reaches its Merge leaves the
  // backward loop through an Exit of its own even when nothing reads it.
  std::vector<bool> loop_variable_enter(n, false);
  for (std::size_t k = 0; k < n && !loops.empty(); ++k) {
    const Node& node = state.nodes[k];
    if (between[k] || node.def != &kEnterOp || !loops.find(node.context)) continue;
    if (Operation(g.state_ptr(), NodeId{static_cast<std::uint32_t>(k)})
            .get_attr<bool>("is_constant"))
      continue;
    between[k] = loop_variable_enter[k] = true;
    pending_count[k] = 1;
  }
  // Once op i is handled, its inputs have one consumer fewer to wait for. A loop's Switch
  // is handled twice: once its Exit is done, and again once its body is.
  auto release_inputs = [&](std::size_t i) {
    for (const TensorRef& in : state.nodes[i].inputs) {
      const std::size_t k = in.node.value;
      if (!on_path(k)) continue;
      const bool zero = --pending_count[k] == 0;
      const bool loop_switch =
          !loops.empty() && pending_count[k] > 0 && is_loop_switch(state, state.nodes[k]);
      if (!zero && !loop_switch) continue;
      if (!loops.empty() && is_loop_exit(state, state.nodes[k])) {
        exit_ready(k);
      } else if (loop_switch || !queued[k] || is_loop_switch(state, state.nodes[k])) {
        queued[k] = true;
        ready.push_back(k);
      }
    }
  };
  // The gradients of op i's inputs from those of its outputs, added to `pending`.
  auto backprop = [&](std::size_t i) {
    if (stopped[i]) return;
    Operation op(g.state_ptr(), NodeId{static_cast<std::uint32_t>(i)});
    // Only ops with an input on the path need their gradient (an x's own op does not).
    bool has_path_input = false;
    for (const TensorRef& in : state.nodes[i].inputs)
      has_path_input = has_path_input || on_path(in.node.value);
    if (!has_path_input && !loop_variable_enter[i]) return;
    // Taken inside a loop's body, a gradient may not go back through that loop's Switch:
    // that would be through a loop variable's initial value (TensorFlow's message).
    if ((op.node().def == &kSwitchOp || op.node().def == &kRefSwitchOp) &&
        op.node().context == base_context && base_context != 0 &&
        state.flow_contexts[base_context - 1].is_loop)
      throw ValueError("Cannot compute gradient inside while loop with respect to op '" +
                       nearest_x(i) +
                       "'. We do not support taking the gradient wrt or through the initial "
                       "value of a loop variable. Gradients can be computed through loop "
                       "invariants or wrt the input parameters to the loop body.");

    GradContext ctx{op, {}};
    std::vector<Gradient> out_grads;
    bool any = false;
    {
      InContext before(
          g, loops.empty() ? g.state().current_context : loops.grad_context_for(op, true));
      for (int k = 0; k < op.num_outputs(); ++k) {
        auto it = pending.find(TensorRef{op.id(), k});
        Gradient grad = it == pending.end()
                            ? Gradient{}
                            : detail::aggregate(g, it->second, op, options.aggregation_method);
        if (grad.valid()) {
          any = true;
          if (it->second.size() > 1) it->second = {grad};
        }
        out_grads.push_back(grad);
      }
    }
    if (!any) return;

    InContext after(g,
                    loops.empty() ? g.state().current_context : loops.grad_context_for(op, false));
    std::vector<Gradient> input_grads;
    if (detail::passes_slices(op) && out_grads.front().is_sparse()) {
      input_grads = {out_grads.front()};
    } else {
      const OpEntry* entry = find_op_entry(op.type());
      if (entry == nullptr || entry->grad == nullptr)
        throw LookupError("No gradient defined for operation '" + op.name() +
                          "' (op type: " + op.type() + ")");
      // Floating outputs no path reached get zeros, built (as in TensorFlow) before the
      // op's own "<op>_grad" scope.
      for (int k = 0; k < op.num_outputs(); ++k) {
        const Gradient& grad = out_grads[static_cast<std::size_t>(k)];
        if (grad.valid()) {
          ctx.grads.push_back(grad.is_sparse() ? Output{} : grad.dense());
        } else if (is_floating(op.output(k).dtype())) {
          std::optional<Output> in_loop;
          if (!loops.empty()) in_loop = loops.zeros_in_loop(op, k);
          ctx.grads.push_back(in_loop ? *in_loop : detail::zeros_for_unreached_output(op, k));
        } else {
          ctx.grads.emplace_back();
        }
      }
      name_scope op_scope(g, op.name() + "_grad");
      // Slices reaching an op that needs a tensor become one (convert_to_tensor).
      for (std::size_t k = 0; k < out_grads.size(); ++k)
        if (out_grads[k].is_sparse()) ctx.grads[k] = out_grads[k].to_dense();
      if (entry->sparse_grad != nullptr) {
        input_grads = entry->sparse_grad(ctx);
      } else {
        const std::vector<Output> dense = entry->grad(ctx);
        input_grads.assign(dense.begin(), dense.end());
      }
      const auto computed = std::count_if(input_grads.begin(), input_grads.end(),
                                          [](const Gradient& grad) { return grad.valid(); });
      const bool all_dense = std::none_of(input_grads.begin(), input_grads.end(),
                                          [](const Gradient& grad) { return grad.is_sparse(); });
      if (options.gate_gradients && computed > 1 && all_dense) {
        const std::vector<Output> gated =
            tuple(std::vector<Output>(input_grads.begin(), input_grads.end()));
        input_grads.assign(gated.begin(), gated.end());
      }
    }
    const std::vector<Output> inputs = op.inputs();
    if (input_grads.size() > inputs.size())
      throw InternalError("The gradient of " + op.type() + " returned " +
                          std::to_string(input_grads.size()) + " gradients for " +
                          std::to_string(inputs.size()) + " inputs");
    for (std::size_t k = 0; k < input_grads.size(); ++k) {
      const Gradient& grad = input_grads[k];
      if (!grad.valid() || !on_path(inputs[k].op().id().value)) continue;
      const Shape& in_shape = inputs[k].get_shape();
      if (!grad.is_sparse() && in_shape.has_rank()) grad.dense().set_shape(in_shape);
      pending[inputs[k].ref()].push_back(grad);
    }
  };
  while (!ready.empty()) {
    const std::size_t i = ready.front();
    ready.pop_front();
    backprop(i);
    release_inputs(i);
  }
  loops.post_process();

  std::vector<Gradient> result;
  for (const Output& x : xs) {
    auto it = pending.find(x.ref());
    result.push_back(it == pending.end()
                         ? Gradient{}
                         : detail::aggregate(g, it->second, x.op(), options.aggregation_method));
  }
  if (dense)
    for (Gradient& grad : result)
      if (grad.is_sparse()) grad = grad.to_dense();
  return result;
}

}  // namespace detail

SYMFLOW_INLINE std::vector<Gradient> gradients_with_slices(const std::vector<Output>& ys,
                                                           const std::vector<Output>& xs,
                                                           const std::vector<Output>& grad_ys,
                                                           const GradientsOptions& options) {
  return detail::build_gradients(ys, xs, grad_ys, options, false);
}

SYMFLOW_INLINE std::vector<Output> gradients(const std::vector<Output>& ys,
                                             const std::vector<Output>& xs,
                                             const std::vector<Output>& grad_ys,
                                             const GradientsOptions& options) {
  const std::vector<Gradient> grads = detail::build_gradients(ys, xs, grad_ys, options, true);
  return std::vector<Output>(grads.begin(), grads.end());
}

}  // namespace symflow
