#pragma once
// tf.gradients' definition (train/gradients.hpp declares it): included by that header in
// a header-only program, and by symflow/define_compiled.hpp alone in a program built
// with SYMFLOW_COMPILED. It alone reaches every op's gradient (ops/registry.hpp).

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "symflow/detail/config.hpp"
#include "symflow/graph/graph.hpp"
#include "symflow/graph/scopes.hpp"
#include "symflow/ops/control_ops.hpp"
#include "symflow/ops/registry.hpp"
#include "symflow/ops/shape_ops.hpp"
#include "symflow/train/gradients.hpp"

namespace symflow {

namespace detail {

struct TensorRefLess {
  bool operator()(const TensorRef& a, const TensorRef& b) const {
    return a.node.value != b.node.value ? a.node.value < b.node.value : a.index < b.index;
  }
};

// The ops on a data path from one of `from` to one of `to` (both ends included).
inline std::vector<bool> ops_between(const detail::GraphState& g, const std::vector<NodeId>& from,
                                     const std::vector<NodeId>& to) {
  const std::size_t n = g.nodes.size();
  // Reached from `from`: node ids are a topological order, so one forward sweep does.
  std::vector<bool> reached(n, false);
  for (NodeId id : from) reached[id.value] = true;
  for (std::size_t i = 0; i < n; ++i) {
    if (reached[i]) continue;
    for (const TensorRef& in : g.nodes[i].inputs)
      if (reached[in.node.value]) {
        reached[i] = true;
        break;
      }
  }
  // Of those, the ones that reach `to`: one backward sweep.
  std::vector<bool> between(n, false);
  for (NodeId id : to)
    if (reached[id.value]) between[id.value] = true;
  for (std::size_t i = n; i-- > 0;) {
    if (!between[i]) continue;
    for (const TensorRef& in : g.nodes[i].inputs)
      if (reached[in.node.value]) between[in.node.value] = true;
  }
  return between;
}

// The sum of the gradients collected for one tensor (AddN when there are several).
inline Output aggregate(const std::vector<Output>& grads) {
  if (grads.empty()) return {};
  if (grads.size() == 1) return grads.front();
  return add_n(grads);
}

}  // namespace detail

SYMFLOW_INLINE std::vector<Output> gradients(const std::vector<Output>& ys,
                                             const std::vector<Output>& xs,
                                             const std::vector<Output>& grad_ys,
                                             const GradientsOptions& options) {
  if (ys.empty()) throw ValueError("gradients: ys must not be empty");
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
  std::map<TensorRef, std::vector<Output>, detail::TensorRefLess> pending;
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
  std::vector<bool> stopped(state.nodes.size(), false);
  for (const Output& s : options.stop_gradients) stopped[s.op().id().value] = true;

  // Node ids are a topological order: walking them backwards visits every consumer of
  // a tensor before the tensor's producer, so its gradients are complete by then.
  for (std::size_t i = between.size(); i-- > 0;) {
    if (!between[i] || stopped[i]) continue;
    Operation op(g.state_ptr(), NodeId{static_cast<std::uint32_t>(i)});
    // Only ops with an input on the path need their gradient (an x's own op does not).
    bool has_path_input = false;
    for (const TensorRef& in : state.nodes[i].inputs)
      has_path_input = has_path_input || between[in.node.value];
    if (!has_path_input) continue;

    GradContext ctx{op, {}};
    bool any = false;
    for (int k = 0; k < op.num_outputs(); ++k) {
      auto it = pending.find(TensorRef{op.id(), k});
      Output grad = it == pending.end() ? Output{} : detail::aggregate(it->second);
      if (grad.valid()) {
        any = true;
        if (it->second.size() > 1) it->second = {grad};
      }
      ctx.grads.push_back(grad);
    }
    if (!any) continue;

    const OpEntry* entry = find_op_entry(op.type());
    if (entry == nullptr || entry->grad == nullptr)
      throw LookupError("No gradient defined for operation '" + op.name() +
                        "' (op type: " + op.type() + ")");
    // Floating outputs no path reached get zeros, built (as in TensorFlow) before the
    // op's own "<op>_grad" scope.
    for (int k = 0; k < op.num_outputs(); ++k)
      if (!ctx.grads[static_cast<std::size_t>(k)].valid() && is_floating(op.output(k).dtype()))
        ctx.grads[static_cast<std::size_t>(k)] = detail::zeros_for_unreached_output(op, k);
    std::vector<Output> input_grads;
    {
      name_scope op_scope(g, op.name() + "_grad");
      input_grads = entry->grad(ctx);
      const auto computed = std::count_if(input_grads.begin(), input_grads.end(),
                                          [](const Output& grad) { return grad.valid(); });
      if (options.gate_gradients && computed > 1) input_grads = tuple(input_grads);
    }
    const std::vector<Output> inputs = op.inputs();
    if (input_grads.size() > inputs.size())
      throw InternalError("The gradient of " + op.type() + " returned " +
                          std::to_string(input_grads.size()) + " gradients for " +
                          std::to_string(inputs.size()) + " inputs");
    for (std::size_t k = 0; k < input_grads.size(); ++k) {
      const Output& grad = input_grads[k];
      if (!grad.valid() || !between[inputs[k].op().id().value]) continue;
      const Shape& in_shape = inputs[k].get_shape();
      if (in_shape.has_rank()) grad.set_shape(in_shape);
      pending[inputs[k].ref()].push_back(grad);
    }
  }

  std::vector<Output> result;
  for (const Output& x : xs) {
    auto it = pending.find(x.ref());
    result.push_back(it == pending.end() ? Output{} : detail::aggregate(it->second));
  }
  return result;
}

}  // namespace symflow
