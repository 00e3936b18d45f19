#pragma once
// A plan: what one (fetches, feeds, targets) signature needs to run, computed once
// and cached by the session. Pruning keeps only the nodes the fetches and targets
// depend on; a fed tensor cuts the dependency on its producer. Given a fused kernel,
// it also groups elementwise steps into clusters (runtime/fusion.hpp).

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <variant>
#include <vector>

#include "symflow/backend/backend.hpp"
#include "symflow/core/value.hpp"
#include "symflow/graph/graph_state.hpp"
#include "symflow/runtime/fusion.hpp"
#include "symflow/runtime/schedule.hpp"

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
  // The device (an index into the session's devices) of each step; empty: all on 0.
  std::vector<std::uint8_t> device_of_step;
  // The kernel of each step on its device (null where it has none: running that step
  // is an UnimplementedError), found once here; empty when the plan was made without
  // backends, and the executor asks the backend instead.
  std::vector<KernelFn> kernel_of_step;
  // For each step that is a Const, its value (sharing the attr's buffer), else none: on
  // a device with host memory, the executor outputs it without a kernel call.
  std::vector<Value> constants;

  // The same, as indices into one run's dense array of tensor slots, so that a run
  // looks nothing up: step s's outputs are slots output_slot[s], output_slot[s] + 1,
  // ...; its inputs are input_slots[input_begin[s] .. input_begin[s + 1]). Fed
  // tensors have slots of their own after the outputs.
  std::vector<std::uint32_t> output_slot;
  std::vector<std::uint32_t> input_begin;
  std::vector<std::uint32_t> input_slots;
  // Parallel to input_slots: 1 where that read is the slot's last and the value can
  // be moved out instead of copied (no reference-count traffic, and the kernel holds
  // the only handle to the buffer).
  std::vector<std::uint8_t> input_moves;
  std::vector<std::uint32_t> feed_slots;
  std::vector<std::int64_t> fetch_slots;  // -1 for an operation fetch
  std::vector<std::vector<std::uint32_t>> release_slots;
  std::uint32_t num_slots = 0;
  std::size_t max_inputs = 0;
  std::size_t max_outputs = 0;
  std::size_t num_nodes = 0;  // the graph's size when planned: every id in `order` is below
  // The steps' dependencies, for a run on several threads (runtime/schedule.hpp).
  Schedule schedule;
  // Run-time scratch buffers, kept between runs (executor.hpp); shared by copies.
  std::shared_ptr<void> scratch;
};

// Where a plan's steps run, and each device's fused kernel.
struct PlanDevices {
  // The device of each node of a plan's order (runtime/placement.hpp); empty: device 0.
  std::function<std::vector<std::uint8_t>(const std::vector<NodeId>&)> place;
  std::vector<FusedKernelFn> fused_kernels;  // by device; null or missing: no fusion there
  // The backends by device, which give each step its kernel and, where the device fuses,
  // its block function. Empty: kernels are looked up when the plan runs, and no step fuses.
  std::vector<const Backend*> backends;
};

namespace detail {

inline Plan make_plan(const GraphState& g, const std::vector<std::optional<TensorRef>>& fetches,
                      const std::vector<NodeId>& targets, const std::vector<TensorRef>& feeds,
                      const PlanDevices& devices) {
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
  if (devices.place) plan.device_of_step = devices.place(plan.order);
  std::vector<const ElementwiseDef*> elementwise_of_step(plan.order.size(), nullptr);
  if (!devices.backends.empty()) {
    plan.kernel_of_step.resize(plan.order.size());
    for (std::size_t step = 0; step < plan.order.size(); ++step) {
      const Node& n = g.node(plan.order[step]);
      const std::size_t device = plan.device_of_step.empty() ? 0 : plan.device_of_step[step];
      if (!n.def || device >= devices.backends.size()) continue;
      plan.kernel_of_step[step] = devices.backends[device]->kernel(*n.def);
      elementwise_of_step[step] = devices.backends[device]->elementwise(*n.def);
    }
  }
  plan.fusion = find_clusters(g, plan.order, fetches, targets, feeds, devices.fused_kernels,
                              plan.device_of_step, elementwise_of_step);

  plan.constants.resize(plan.order.size());
  for (std::size_t step = 0; step < plan.order.size(); ++step) {
    const Node& n = g.node(plan.order[step]);
    if (!n.def || n.def->type != "Const" || !n.inputs.empty()) continue;
    if (auto it = n.attrs.find("value"); it != n.attrs.end())
      if (const Value* v = std::get_if<Value>(&it->second)) plan.constants[step] = *v;
  }

  plan.num_nodes = g.nodes.size();
  // Dense slots: every output of every step, then one per fed tensor.
  std::map<TensorRef, std::uint32_t> slot_of;
  for (std::size_t step = 0; step < plan.order.size(); ++step) {
    const Node& n = g.node(plan.order[step]);
    plan.output_slot.push_back(plan.num_slots);
    for (std::size_t i = 0; i < n.outputs.size(); ++i)
      slot_of[TensorRef{plan.order[step], static_cast<int>(i)}] = plan.num_slots++;
    plan.max_outputs = std::max(plan.max_outputs, n.outputs.size());
  }
  for (const TensorRef& f : feeds) {
    plan.feed_slots.push_back(plan.num_slots);
    slot_of[f] = plan.num_slots++;  // a fed tensor is read from its feed, not its producer
  }
  for (std::size_t step = 0; step < plan.order.size(); ++step) {
    const Node& n = g.node(plan.order[step]);
    plan.input_begin.push_back(static_cast<std::uint32_t>(plan.input_slots.size()));
    for (const TensorRef& in : n.inputs) plan.input_slots.push_back(slot_of.at(in));
    plan.max_inputs = std::max(plan.max_inputs, n.inputs.size());
  }
  plan.input_begin.push_back(static_cast<std::uint32_t>(plan.input_slots.size()));
  for (const auto& f : fetches) plan.fetch_slots.push_back(f ? std::int64_t{slot_of.at(*f)} : -1);
  std::vector<std::int64_t> last_read(plan.num_slots, -1);
  for (std::size_t k = 0; k < plan.input_slots.size(); ++k)
    last_read[plan.input_slots[k]] = static_cast<std::int64_t>(k);
  for (std::int64_t s : plan.fetch_slots)
    if (s >= 0) last_read[static_cast<std::size_t>(s)] = -1;  // read again at the end
  plan.input_moves.assign(plan.input_slots.size(), 0);
  for (std::int64_t k : last_read)
    if (k >= 0) plan.input_moves[static_cast<std::size_t>(k)] = 1;
  for (const auto& refs : plan.release_after) {
    plan.release_slots.emplace_back();
    for (const TensorRef& r : refs) plan.release_slots.back().push_back(slot_of.at(r));
  }
  plan.schedule =
      make_schedule(g, plan.order, plan.fusion, plan.output_slot, plan.input_begin,
                    plan.input_slots, plan.fetch_slots, plan.feed_slots, plan.num_slots);
  return plan;
}

// A plan on one device, `backend` (kernels looked up when it runs where null), fused
// with `fused_kernel` when it is given.
inline Plan make_plan(const GraphState& g, const std::vector<std::optional<TensorRef>>& fetches,
                      const std::vector<NodeId>& targets, const std::vector<TensorRef>& feeds,
                      FusedKernelFn fused_kernel = nullptr, const Backend* backend = nullptr) {
  PlanDevices devices{{}, {fused_kernel}, {}};
  if (backend) devices.backends.push_back(backend);
  return make_plan(g, fetches, targets, feeds, devices);
}

}  // namespace detail
}  // namespace symflow
