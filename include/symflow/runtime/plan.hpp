#pragma once
// A plan: what one (fetches, feeds, targets) signature needs to run, computed once
// and cached by the session. Pruning keeps only the nodes the fetches and targets
// depend on; a fed tensor cuts the dependency on its producer. Given a fused kernel,
// it also groups elementwise steps into clusters (runtime/fusion.hpp).

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "symflow/graph/graph_state.hpp"
#include "symflow/runtime/fusion.hpp"

namespace symflow {

struct Plan {
  std::vector<NodeId> order;                      // nodes to run, in dependency order
  std::vector<TensorRef> feeds;                   // fed tensors, in the order of the feed list
  std::vector<std::optional<TensorRef>> fetches;  // nullopt for an operation fetch
  // For each step of `order`, the tensors read for the last time there: the
  // executor drops them after the step so their buffers are freed early.
  std::vector<std::vector<TensorRef>> release_after;
  // Clusters of elementwise steps that run as one fused kernel (none without a kernel).
  Fusion fusion;
};

namespace detail {

inline Plan make_plan(const GraphState& g, const std::vector<std::optional<TensorRef>>& fetches,
                      const std::vector<NodeId>& targets, const std::vector<TensorRef>& feeds,
                      FusedKernelFn fused_kernel = nullptr) {
  Plan plan;
  plan.feeds = feeds;
  plan.fetches = fetches;
  std::set<TensorRef> fed(feeds.begin(), feeds.end());
  std::vector<bool> needed(g.nodes.size(), false);
  std::vector<NodeId> stack;
  auto need = [&](NodeId id) {
    if (!needed[id.value]) {
      needed[id.value] = true;
      stack.push_back(id);
    }
  };
  for (const auto& f : fetches)
    if (f && !fed.count(*f)) need(f->node);
  for (NodeId t : targets) need(t);
  // A node whose every output is fed has nothing left to compute, even when a
  // control edge asks for it.
  auto fully_fed = [&](NodeId id) {
    const Node& n = g.node(id);
    if (n.outputs.empty()) return false;
    for (std::size_t i = 0; i < n.outputs.size(); ++i)
      if (!fed.count(TensorRef{id, static_cast<int>(i)})) return false;
    return true;
  };
  while (!stack.empty()) {
    NodeId id = stack.back();
    stack.pop_back();
    if (fully_fed(id)) {
      needed[id.value] = false;
      continue;
    }
    const Node& n = g.node(id);
    for (const TensorRef& in : n.inputs)
      if (!fed.count(in)) need(in.node);
    for (NodeId c : n.control_inputs) need(c);
  }
  // Node ids are a topological order: a node's inputs always exist before it.
  for (std::uint32_t i = 0; i < needed.size(); ++i)
    if (needed[i]) plan.order.push_back(NodeId{i});

  std::map<TensorRef, std::size_t> last_use;
  for (std::size_t step = 0; step < plan.order.size(); ++step)
    for (const TensorRef& in : g.node(plan.order[step]).inputs)
      if (!fed.count(in)) last_use[in] = step;
  for (const auto& f : fetches)
    if (f) last_use.erase(*f);
  plan.release_after.resize(plan.order.size());
  for (const auto& [ref, step] : last_use) plan.release_after[step].push_back(ref);
  plan.fusion = find_clusters(g, plan.order, fetches, targets, feeds, fused_kernel);
  return plan;
}

}  // namespace detail
}  // namespace symflow
