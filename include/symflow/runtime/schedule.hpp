#pragma once
// The dependencies between a plan's steps, for running independent steps on several
// threads (ConfigProto::inter_op_parallelism_threads; executor.hpp).
//
// A step waits for the steps that produce its inputs and for its control inputs. On
// top of the graph's own edges, two kinds of steps keep their plan order:
//  - the steps that touch one variable (read it, through a reference or an Identity
//    of one, write it, or pass it on), so that reads and writes no edge orders happen
//    in the order the ops were created, as in a run on one thread: every run does the
//    same thing. Steps on different variables stay free. Stateful ops that touch no
//    variable (random ops) keep their order among themselves;
//  - the members of one fused cluster, which share the cluster's run state. A step
//    that reads a cluster's output waits for the cluster's last member, which is where
//    the fused kernel writes it.
// Every edge goes from an earlier step to a later one, so the plan order is one valid
// schedule and a run on one thread needs none of this.

#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

#include "symflow/graph/graph_state.hpp"
#include "symflow/runtime/fusion.hpp"

namespace symflow {

struct Schedule {
  // Step s may start once predecessor_count[s] other steps are done; when it is done,
  // the steps successors[successor_begin[s] .. successor_begin[s + 1]) have one fewer
  // to wait for.
  std::vector<std::uint32_t> predecessor_count;
  std::vector<std::uint32_t> successor_begin;
  std::vector<std::uint32_t> successors;
  // How many reads each tensor slot has; -1 for a slot that stays until the run ends
  // (fed, fetched, or never read). A run drops a slot's value after its last read.
  std::vector<std::int32_t> slot_readers;
  // The most steps on one level of the dependency graph, counting only steps that may
  // be worth a thread (light ones read nothing, or make only small tensors known from
  // the graph): how many threads a run can keep busy. 1: run on the calling thread.
  std::size_t width = 1;
};

namespace detail {

// `output_slot`, `input_begin`, `input_slots`, `fetch_slots` and `feed_slots` as in
// Plan; `order` the plan's nodes.
inline Schedule make_schedule(const GraphState& g, const std::vector<NodeId>& order,
                              const Fusion& fusion, const std::vector<std::uint32_t>& output_slot,
                              const std::vector<std::uint32_t>& input_begin,
                              const std::vector<std::uint32_t>& input_slots,
                              const std::vector<std::int64_t>& fetch_slots,
                              const std::vector<std::uint32_t>& feed_slots,
                              std::uint32_t num_slots) {
  const std::size_t steps = order.size();
  Schedule s;
  // The step that writes each produced slot, and the step of each planned node.
  std::vector<std::int64_t> producer(num_slots, -1);
  for (std::size_t step = 0; step < steps; ++step)
    for (std::size_t i = 0; i < g.node(order[step]).outputs.size(); ++i)
      producer[output_slot[step] + i] = static_cast<std::int64_t>(step);
  std::vector<std::int64_t> step_of(g.nodes.size(), -1);
  for (std::size_t step = 0; step < steps; ++step)
    step_of[order[step].value] = static_cast<std::int64_t>(step);
  auto cluster_of = [&](std::size_t step) {
    return fusion.cluster_of_step.empty() ? -1 : fusion.cluster_of_step[step];
  };
  // Where `reader` may rely on `step` being done: a member of another cluster is done
  // when its cluster is.
  auto done_at = [&](std::size_t step, std::size_t reader) {
    const int c = cluster_of(step);
    if (c < 0 || c == cluster_of(reader)) return step;
    return fusion.clusters[static_cast<std::size_t>(c)].steps.back();
  };

  std::vector<std::vector<std::uint32_t>> preds(steps);
  auto add_edge = [&](std::size_t from, std::size_t to) {
    if (from != to) preds[to].push_back(static_cast<std::uint32_t>(from));
  };
  // The variable (its VariableV2 node) whose reference a slot may hold at run time:
  // a variable's output, an Assign-like op's output, an Identity of either.
  constexpr std::uint32_t kNoVariable = UINT32_MAX;
  constexpr std::uint32_t kOtherState = UINT32_MAX - 1;  // stateful, no variable
  std::vector<std::uint32_t> variable_of(num_slots, kNoVariable);
  std::map<std::uint32_t, std::size_t> last_toucher;  // by variable
  std::vector<std::uint32_t> touched;
  for (std::size_t step = 0; step < steps; ++step) {
    const Node& node = g.node(order[step]);
    const std::uint32_t first_in = input_begin[step];
    const std::uint32_t input0 =
        first_in < input_begin[step + 1] ? variable_of[input_slots[first_in]] : kNoVariable;
    for (std::size_t i = 0; i < node.outputs.size(); ++i) {
      std::uint32_t& v = variable_of[output_slot[step] + i];
      // Output 0 of an op that passes a reference on, or any reference output of an op
      // that takes one (RefSwitch's two sides), is the variable of input 0.
      if ((node.def->forwards_ref || node.def->takes_ref(0)) && input0 != kNoVariable &&
          (i == 0 || node.outputs[i].is_ref))
        v = input0;
      else if (node.outputs[i].is_ref)
        v = order[step].value;  // the variable itself
    }
    touched.clear();
    for (std::uint32_t k = first_in; k < input_begin[step + 1]; ++k) {
      const std::int64_t p = producer[input_slots[k]];
      if (p >= 0) add_edge(done_at(static_cast<std::size_t>(p), step), step);
      if (variable_of[input_slots[k]] != kNoVariable)
        touched.push_back(variable_of[input_slots[k]]);
    }
    for (std::size_t i = 0; i < node.outputs.size(); ++i)
      if (variable_of[output_slot[step] + i] != kNoVariable)
        touched.push_back(variable_of[output_slot[step] + i]);
    if (touched.empty() && node.def->stateful) touched.push_back(kOtherState);
    std::sort(touched.begin(), touched.end());
    touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
    for (std::uint32_t v : touched) {
      auto [it, first] = last_toucher.try_emplace(v, step);
      if (!first) {
        add_edge(it->second, step);
        it->second = step;
      }
    }
    for (NodeId c : node.control_inputs) {
      const std::int64_t p = c.value < step_of.size() ? step_of[c.value] : -1;
      if (p >= 0) add_edge(done_at(static_cast<std::size_t>(p), step), step);
    }
  }
  for (const FusedCluster& c : fusion.clusters)
    for (std::size_t m = 1; m < c.steps.size(); ++m) add_edge(c.steps[m - 1], c.steps[m]);

  // Constants, variables, scalar arithmetic: a thread switch costs more than they do.
  auto is_light = [](const Node& node) {
    if (node.inputs.empty()) return true;
    for (const TensorSpec& out : node.outputs)
      if (!out.shape.is_fully_defined() || out.shape.num_elements() > kSmallClusterElements)
        return false;
    return true;
  };
  std::vector<std::vector<std::uint32_t>> succs(steps);
  s.predecessor_count.resize(steps);
  std::vector<std::size_t> level(steps, 0);
  std::vector<std::size_t> per_level(steps + 1, 0);
  for (std::size_t step = 0; step < steps; ++step) {
    auto& p = preds[step];
    std::sort(p.begin(), p.end());
    p.erase(std::unique(p.begin(), p.end()), p.end());
    s.predecessor_count[step] = static_cast<std::uint32_t>(p.size());
    for (std::uint32_t from : p) {
      succs[from].push_back(static_cast<std::uint32_t>(step));
      level[step] = std::max(level[step], level[from] + 1);
    }
    if (!is_light(g.node(order[step]))) s.width = std::max(s.width, ++per_level[level[step]]);
  }
  for (std::size_t step = 0; step < steps; ++step) {
    s.successor_begin.push_back(static_cast<std::uint32_t>(s.successors.size()));
    s.successors.insert(s.successors.end(), succs[step].begin(), succs[step].end());
  }
  s.successor_begin.push_back(static_cast<std::uint32_t>(s.successors.size()));

  s.slot_readers.assign(num_slots, 0);
  for (std::uint32_t slot : input_slots) ++s.slot_readers[slot];
  for (std::int32_t& r : s.slot_readers)
    if (r == 0) r = -1;
  for (std::int64_t f : fetch_slots)
    if (f >= 0) s.slot_readers[static_cast<std::size_t>(f)] = -1;
  for (std::uint32_t f : feed_slots) s.slot_readers[f] = -1;
  return s;
}

}  // namespace detail
}  // namespace symflow
