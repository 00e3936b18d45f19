#pragma once
// The frames of a plan's while loops (docs/control-flow.md). An Enter takes a tensor into
// the frame its `frame_name` names, inside the frame of its input; an Exit takes one back
// out; every other node is in the frame of its inputs. The only edge that goes back in a
// graph is a loop's NextIteration feeding its Merge.
//
// The plan puts each frame's steps together, nested frames inside, so that the executor
// runs a loop as a range of steps it repeats: one iteration at a time, until the loop's
// LoopCond is false (or dead).

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <queue>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "symflow/core/errors.hpp"
#include "symflow/graph/graph_state.hpp"
#include "symflow/ops/defs/control.hpp"

namespace symflow::detail {

// Whether input `i` of `n` is a loop's back edge: a Merge reading a NextIteration.
inline bool is_back_edge(const GraphState& g, const Node& n, std::size_t i) {
  return is_merge_op(n.def) && is_next_iteration_op(g.node(n.inputs[i].node).def);
}

// The frames of a plan and the order that keeps each one's steps together.
struct FrameLayout {
  struct Frame {
    std::int32_t parent = -1;  // an index into frames; -1 for the root (frame 0)
    std::string name;          // the Enters' frame_name
    std::vector<NodeId> nodes;
    std::vector<std::int32_t> children;
  };
  std::vector<Frame> frames;                // [0]: the root, outside every loop
  std::vector<NodeId> order;                // the plan's nodes, each frame's together
  std::vector<std::int32_t> frame_of_step;  // parallel to order
};

// `nodes`: a plan's nodes in id order (a topological order but for the back edges);
// `fed`: whether a tensor is fed (it is then in the root frame, whatever its producer).
inline FrameLayout lay_out_frames(const GraphState& g, const std::vector<NodeId>& nodes,
                                  const std::function<bool(TensorRef)>& fed) {
  FrameLayout out;
  out.frames.emplace_back();
  std::vector<std::int32_t> frame_of(g.nodes.size(), -1);  // by node id; -1: not planned
  std::map<std::pair<std::int32_t, std::string>, std::int32_t> child_named;
  // The frame a node's outputs are in: an Exit's are in the frame around its own.
  auto output_frame = [&](NodeId id) {
    const std::int32_t f = frame_of[id.value];
    if (f < 0) return 0;
    return is_exit_op(g.node(id).def) && f > 0 ? out.frames[static_cast<std::size_t>(f)].parent : f;
  };
  auto frame_text = [&](std::int32_t f) {
    return f == 0 ? std::string("the root frame")
                  : "frame '" + out.frames[static_cast<std::size_t>(f)].name + "'";
  };
  for (NodeId id : nodes) {
    const Node& n = g.node(id);
    std::int32_t frame = -1;
    const Node* first = nullptr;
    for (std::size_t i = 0; i < n.inputs.size(); ++i) {
      if (is_back_edge(g, n, i)) continue;
      const TensorRef in = n.inputs[i];
      const std::int32_t f = fed(in) ? 0 : output_frame(in.node);
      if (frame < 0) {
        frame = f;
        first = &g.node(in.node);
      } else if (f != frame) {
        throw InvalidArgumentError(
            "Node '" + n.name + "' has inputs from different frames. The input '" + first->name +
                "' is in " + frame_text(frame) + ". The input '" + g.node(in.node).name +
                "' is in " + frame_text(f) + ".",
            n.name);
      }
    }
    if (frame < 0) {
      frame = 0;
      for (NodeId c : n.control_inputs) frame = std::max(frame, output_frame(c));
    }
    if (is_enter_op(n.def)) {
      auto it = n.attrs.find("frame_name");
      const std::string* name =
          it == n.attrs.end() ? nullptr : std::get_if<std::string>(&it->second);
      if (!name)
        throw InvalidArgumentError("Enter node '" + n.name + "' has no frame_name attr", n.name);
      auto [at, fresh] = child_named.try_emplace({frame, *name}, 0);
      if (fresh) {
        at->second = static_cast<std::int32_t>(out.frames.size());
        FrameLayout::Frame child;
        child.parent = frame;
        child.name = *name;
        out.frames.push_back(std::move(child));
        out.frames[static_cast<std::size_t>(frame)].children.push_back(at->second);
      }
      frame = at->second;
    } else if (is_exit_op(n.def) && frame == 0) {
      throw InvalidArgumentError("Exit node '" + n.name + "' is not inside a while loop's frame",
                                 n.name);
    }
    frame_of[id.value] = frame;
    out.frames[static_cast<std::size_t>(frame)].nodes.push_back(id);
  }
  for (NodeId id : nodes) {
    const Node& n = g.node(id);
    for (std::size_t i = 0; i < n.inputs.size(); ++i)
      if (is_back_edge(g, n, i) && frame_of[n.inputs[i].node.value] != frame_of[id.value])
        throw InvalidArgumentError("Merge node '" + n.name + "' reads NextIteration '" +
                                       g.node(n.inputs[i].node).name + "' of another frame",
                                   n.name);
  }
  if (out.frames.size() == 1) {
    out.order = nodes;
    out.frame_of_step.assign(nodes.size(), 0);
    return out;
  }

  // Which item of `frame` a node is: its id for one of the frame's own nodes, -1 - c for
  // a node inside child frame c (at any depth), INT32_MIN for a node outside the frame.
  auto item_in = [&](std::int32_t frame, NodeId id) -> std::int32_t {
    std::int32_t f = frame_of[id.value];
    if (f < 0) return INT32_MIN;
    if (f == frame) return static_cast<std::int32_t>(id.value);
    while (f > 0 && out.frames[static_cast<std::size_t>(f)].parent != frame)
      f = out.frames[static_cast<std::size_t>(f)].parent;
    if (f <= 0) return INT32_MIN;  // outside frame F
    return -1 - f;
  };
  // Every node of frame f's subtree, in id order.
  std::vector<std::vector<NodeId>> subtree(out.frames.size());
  for (NodeId id : nodes)
    for (std::int32_t f = frame_of[id.value]; f >= 0;
         f = out.frames[static_cast<std::size_t>(f)].parent)
      subtree[static_cast<std::size_t>(f)].push_back(id);

  std::function<void(std::int32_t)> emit = [&](std::int32_t frame) {
    // Kahn's algorithm on the frame's items (its nodes and child frames), smallest id first.
    std::map<std::int32_t, std::int64_t> key_of;  // item -> its smallest node id
    for (NodeId id : subtree[static_cast<std::size_t>(frame)]) {
      const std::int32_t item = item_in(frame, id);
      key_of.try_emplace(item, id.value);
    }
    std::map<std::int32_t, std::set<std::int32_t>> successors;
    std::map<std::int32_t, std::size_t> pending;
    for (const auto& [item, key] : key_of) pending[item] = 0;
    for (NodeId id : subtree[static_cast<std::size_t>(frame)]) {
      const Node& n = g.node(id);
      const std::int32_t to = item_in(frame, id);
      auto edge = [&](NodeId from_node) {
        const std::int32_t from = item_in(frame, from_node);
        if (from == INT32_MIN || from == to) return;
        if (successors[from].insert(to).second) ++pending[to];
      };
      for (std::size_t i = 0; i < n.inputs.size(); ++i)
        if (!is_back_edge(g, n, i) && !fed(n.inputs[i])) edge(n.inputs[i].node);
      for (NodeId c : n.control_inputs) edge(c);
    }
    using Entry = std::pair<std::int64_t, std::int32_t>;
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> ready;
    for (const auto& [item, count] : pending)
      if (count == 0) ready.emplace(key_of[item], item);
    std::size_t emitted = 0;
    while (!ready.empty()) {
      const std::int32_t item = ready.top().second;
      ready.pop();
      ++emitted;
      if (item >= 0) {
        out.order.push_back(NodeId{static_cast<std::uint32_t>(item)});
        out.frame_of_step.push_back(frame);
      } else {
        emit(-1 - item);
      }
      for (std::int32_t next : successors[item])
        if (--pending[next] == 0) ready.emplace(key_of[next], next);
    }
    if (emitted != key_of.size())
      throw InvalidArgumentError("The nodes of " + frame_text(frame) +
                                 " depend on each other in a cycle that is not a loop's back edge");
  };
  emit(0);
  return out;
}

}  // namespace symflow::detail
