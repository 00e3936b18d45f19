#pragma once
// Fusion: at plan time, group connected elementwise nodes (ops whose OpDef has an
// ElementwiseDef) of one floating dtype into clusters that the executor runs as one
// fused kernel. The graph is untouched: names, GraphDef and gradients see every node.
//
// A cluster's tensors are either intermediates (every consumer inside the cluster,
// not fetched, not a target), which are never materialised, or outputs, which are.
// A cluster runs at the step of its last member; when a member joins, every node
// outside that reads a member and comes before the new member must join too, so
// every outside consumer runs after the cluster and the plan's order stays valid.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "symflow/backend/fused_program.hpp"
#include "symflow/graph/graph_state.hpp"

namespace symflow {

struct FusedCluster {
  std::vector<std::size_t> steps;  // the members' plan steps, ascending
  std::vector<TensorRef> inputs;   // tensors read from outside, in first-use order
  // For each member and each of its inputs: an index into `inputs`, or -1 - j for
  // the result of member j.
  std::vector<std::vector<int>> args;
  // Each external input's first reader: (member, input position).
  std::vector<std::pair<int, int>> first_use;
  std::vector<int> output_of;  // for each member: its index among outputs, or -1
  FusedProgram program;
  FusedKernelFn kernel = nullptr;  // its device's fused kernel
};

struct Fusion {
  std::vector<FusedCluster> clusters;
  std::vector<int> cluster_of_step;  // for each plan step: its cluster, or -1
  std::vector<int> member_of_step;   // for each plan step: its index among the members
};

namespace detail {

// Whether node `n` can be a cluster member: an elementwise op with one floating
// output whose inputs all have that dtype, and a block function for it (`e`, from the
// backend of its device).
inline bool fusible(const GraphState& g, const Node& n, const ElementwiseDef* e) {
  if (!e || n.outputs.size() != 1 || n.outputs[0].is_ref) return false;
  if (static_cast<std::size_t>(e->arity) != n.inputs.size()) return false;
  const DType d = n.outputs[0].dtype;
  if (!((d == DType::float32 && e->block_f32) || (d == DType::float64 && e->block_f64)))
    return false;
  for (const TensorRef& in : n.inputs) {
    const TensorSpec& spec = g.node(in.node).outputs.at(static_cast<std::size_t>(in.index));
    if (spec.dtype != d) return false;
  }
  return true;
}

// Clusters whose every member is known to have at most this many elements are not
// fused (see find_clusters).
inline constexpr std::int64_t kSmallClusterElements = 4096;

inline Fusion find_clusters(const GraphState& g, const std::vector<NodeId>& order,
                            const std::vector<std::optional<TensorRef>>& fetches,
                            const std::vector<NodeId>& targets, const std::vector<TensorRef>& feeds,
                            const std::vector<FusedKernelFn>& kernels,
                            const std::vector<std::uint8_t>& device_of_step,
                            const std::vector<const ElementwiseDef*>& elementwise_of_step) {
  Fusion fusion;
  const std::size_t steps = order.size();
  fusion.cluster_of_step.assign(steps, -1);
  fusion.member_of_step.assign(steps, -1);
  // A cluster stays on one device, and runs with that device's kernel.
  auto device = [&](std::size_t s) -> std::size_t {
    return device_of_step.empty() ? 0 : device_of_step[s];
  };
  auto kernel_of = [&](std::size_t s) -> FusedKernelFn {
    return device(s) < kernels.size() ? kernels[device(s)] : nullptr;
  };

  std::map<std::uint32_t, std::size_t> step_of;
  for (std::size_t s = 0; s < steps; ++s) step_of[order[s].value] = s;
  auto producer_step = [&](NodeId id) -> std::optional<std::size_t> {
    auto it = step_of.find(id.value);
    if (it == step_of.end()) return std::nullopt;
    return it->second;
  };
  std::vector<bool> fed_step_output(steps, false), pinned(steps, false), can_fuse(steps, false);
  for (const TensorRef& f : feeds)
    if (auto s = producer_step(f.node)) fed_step_output[*s] = true;
  for (const auto& f : fetches)
    if (f)
      if (auto s = producer_step(f->node)) pinned[*s] = true;
  for (NodeId t : targets)
    if (auto s = producer_step(t)) pinned[*s] = true;

  // Who reads each step's outputs (data or control), as steps.
  std::vector<std::vector<std::size_t>> consumers(steps);
  for (std::size_t s = 0; s < steps; ++s) {
    const Node& n = g.node(order[s]);
    can_fuse[s] = kernel_of(s) != nullptr && fusible(g, n, elementwise_of_step[s]);
    for (const TensorRef& in : n.inputs)
      if (auto p = producer_step(in.node)) consumers[*p].push_back(s);
    for (NodeId c : n.control_inputs)
      if (auto p = producer_step(c)) consumers[*p].push_back(s);
  }

  // Greedy, in plan order: a fusible node joins the clusters of its fusible
  // producers when the run-at-the-last-member rule above allows it.
  std::vector<int> cluster(steps, -1);
  struct Group {
    std::vector<std::size_t> members;
    std::vector<std::size_t> outside;  // consumers of members that are not members
  };
  std::vector<Group> groups;
  auto merge_into = [&](int into, int from) {
    for (std::size_t m : groups[from].members) cluster[m] = into;
    auto& dst = groups[into];
    auto& src = groups[from];
    dst.members.insert(dst.members.end(), src.members.begin(), src.members.end());
    dst.outside.insert(dst.outside.end(), src.outside.begin(), src.outside.end());
    std::erase_if(dst.outside, [&](std::size_t c) { return cluster[c] == into; });
    src = Group{};
  };
  for (std::size_t s = 0; s < steps; ++s) {
    if (!can_fuse[s]) continue;
    const Node& n = g.node(order[s]);
    const DType dtype = n.outputs[0].dtype;
    const int self = static_cast<int>(groups.size());
    groups.push_back(Group{{s}, consumers[s]});
    cluster[s] = self;
    for (const TensorRef& in : n.inputs) {
      auto p = producer_step(in.node);
      if (!p || fed_step_output[*p] || cluster[*p] < 0 || cluster[*p] == cluster[s]) continue;
      if (g.node(order[*p]).outputs[0].dtype != dtype || device(*p) != device(s)) continue;
      const int other = cluster[*p];
      bool blocked = false;
      for (std::size_t c : groups[other].outside)
        if (c < s && cluster[c] != cluster[s]) blocked = true;
      if (blocked) continue;
      const int mine = cluster[s];
      if (groups[mine].members.size() >= groups[other].members.size())
        merge_into(mine, other);
      else
        merge_into(other, mine);
    }
  }

  // A cluster whose shapes are known to be small runs faster node by node: its
  // tensors stay in cache anyway, and the fused kernel costs more to set up.
  auto known_small = [&](const Group& grp) {
    for (std::size_t m : grp.members) {
      const Shape& shape = g.node(order[m]).outputs[0].shape;
      if (!shape.is_fully_defined() || num_elements(shape.dims()) > kSmallClusterElements)
        return false;
    }
    return true;
  };
  for (const Group& grp : groups) {
    if (grp.members.size() < 2 || known_small(grp)) continue;
    FusedCluster c;
    c.steps = grp.members;
    std::sort(c.steps.begin(), c.steps.end());
    c.kernel = kernel_of(c.steps[0]);
    const int k = static_cast<int>(fusion.clusters.size());
    std::map<std::size_t, int> member_index;
    for (std::size_t j = 0; j < c.steps.size(); ++j) {
      member_index[c.steps[j]] = static_cast<int>(j);
      fusion.cluster_of_step[c.steps[j]] = k;
      fusion.member_of_step[c.steps[j]] = static_cast<int>(j);
    }
    const Node& first = g.node(order[c.steps[0]]);
    c.program.dtype = first.outputs[0].dtype;

    std::map<TensorRef, int> external;
    std::vector<int> last_use(c.steps.size(), -1);
    for (std::size_t j = 0; j < c.steps.size(); ++j) {
      const Node& n = g.node(order[c.steps[j]]);
      std::vector<int> args;
      for (std::size_t i = 0; i < n.inputs.size(); ++i) {
        const TensorRef& in = n.inputs[i];
        auto p = producer_step(in.node);
        auto inside = p && !fed_step_output[*p] ? member_index.find(*p) : member_index.end();
        if (inside != member_index.end()) {
          args.push_back(-1 - inside->second);
          last_use[static_cast<std::size_t>(inside->second)] = static_cast<int>(j);
        } else {
          auto [it, added] = external.try_emplace(in, static_cast<int>(c.inputs.size()));
          if (added) {
            c.inputs.push_back(in);
            c.first_use.emplace_back(static_cast<int>(j), static_cast<int>(i));
          }
          args.push_back(it->second);
        }
      }
      c.args.push_back(std::move(args));
    }

    // Outputs, and block buffers for the rest (a buffer is reused once its value is
    // dead, never by a step that reads it: the block loops assume no aliasing).
    c.program.num_inputs = static_cast<int>(c.inputs.size());
    c.output_of.assign(c.steps.size(), -1);
    std::vector<int> free_buffers;
    for (std::size_t j = 0; j < c.steps.size(); ++j) {
      const std::size_t s = c.steps[j];
      bool materialise = pinned[s] || last_use[j] < 0;
      for (std::size_t r : consumers[s])
        if (fusion.cluster_of_step[r] != k) materialise = true;
      FusedStep step;
      step.def = elementwise_of_step[s];
      for (int a : c.args[j]) step.args.push_back(a >= 0 ? a : c.program.num_inputs + (-1 - a));
      if (materialise) {
        step.output = c.program.num_outputs++;
        c.output_of[j] = step.output;
      } else if (!free_buffers.empty()) {
        step.scratch = free_buffers.back();
        free_buffers.pop_back();
      } else {
        step.scratch = c.program.num_scratch++;
      }
      for (int a : c.args[j]) {
        if (a >= 0) continue;
        const auto src = static_cast<std::size_t>(-1 - a);
        const int buf = c.program.steps[src].scratch;
        if (buf >= 0 && last_use[src] == static_cast<int>(j) &&
            std::find(free_buffers.begin(), free_buffers.end(), buf) == free_buffers.end())
          free_buffers.push_back(buf);
      }
      c.program.steps.push_back(std::move(step));
    }
    fusion.clusters.push_back(std::move(c));
  }
  return fusion;
}

}  // namespace detail
}  // namespace symflow
