#pragma once
// A plan: what one (fetches, feeds, targets) signature needs to run, computed once
// and cached by the session. Pruning keeps only the nodes the fetches and targets
// depend on; a fed tensor cuts the dependency on its producer. Given a fused kernel,
// it also groups elementwise steps into clusters (runtime/fusion.hpp).
//
// A plan holds everything its runs need: each step resolved once (kernel, device,
// input and output slots, how each input is read) and a copy of each planned node's
// name, OpDef and attrs. A run reads its plan only, never the graph, which may grow
// (and move its nodes in memory) while runs are in flight.

#include <algorithm>
#include <cstdint>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "symflow/backend/backend.hpp"
#include "symflow/core/attr_value.hpp"
#include "symflow/core/value.hpp"
#include "symflow/graph/graph_state.hpp"
#include "symflow/ops/defs/control.hpp"
#include "symflow/runtime/conv_epilogue.hpp"
#include "symflow/runtime/deadness.hpp"
#include "symflow/runtime/frames.hpp"
#include "symflow/runtime/fusion.hpp"
#include "symflow/runtime/multiply_by_one.hpp"
#include "symflow/runtime/schedule.hpp"

namespace symflow {

// A planned node as a run sees it, copied from the graph when the plan is made.
struct PlannedNode {
  std::string name;
  const OpDef* def = nullptr;
  AttrMap attrs;  // a Const's value shares its buffer with the graph's
};

// How a step gets one of its inputs (Plan::input_modes, parallel to input_slots).
enum class InputMode : std::uint8_t {
  copy,       // reads the slot: a value, or the value of the variable a reference names
  move,       // the slot's last read in plan order: a run in order takes the value out
  constant,   // a Const's value, put in the run's scratch once: nothing to do per run
  reference,  // the op writes through a variable reference (OpDef::takes_ref)
  direct,     // the slot's one read: its producer's kernel writes the value here itself
};

// One step of a plan, resolved once.
struct PlanStep {
  enum class Kind : std::uint8_t {
    kernel,    // calls its kernel
    constant,  // a Const: its output is the plan's value (constants[step]) on a device
               // with host memory, without a kernel call; elsewhere it runs its kernel
    skip,      // a Const on host memory whose every reader has its value already
    fused,     // a member of a fused cluster (runtime/fused_step.hpp)
    guarded,   // may find an input or a control input dead (runtime/deadness.hpp): checks
               // first, and is dead itself instead of running when it does
  };
  Kind kind = Kind::kernel;
  bool stateful = false;      // runs under its node state's lock, with that state
  bool forwards_ref = false;  // passes a reference on input 0 on (Identity of a variable)
  bool takes_refs = false;    // some input is InputMode::reference
  bool enters_frame = false;  // an Enter: runs in its loop's first iteration only
  bool passes_on = false;     // Enter, Exit, NextIteration, LoopCond, Identity: output = input
  // Merge and Switch, which the executor runs itself on host memory (a loop's iteration
  // runs one of each per loop variable).
  enum class Route : std::uint8_t { none, merge, switch_ };
  Route route = Route::none;
  // Whether anything reads through its slot the output a step may leave unwritten: a
  // Merge's value_index (rarely read), or a guarded Const's value (its readers on host
  // memory have it among their arguments).
  bool output_read = true;
  std::uint8_t device = 0;                        // an index into the session's devices
  std::uint32_t node = 0;                         // the node's id: its kernel state in the session
  std::uint32_t first_input = 0, num_inputs = 0;  // into input_slots and input_modes
  std::uint32_t first_output = 0, num_outputs = 0;  // slots first_output, first_output + 1, ...
  std::int32_t cluster = -1, member = -1;           // for Kind::fused
  // For Kind::guarded: its control inputs' steps, Plan::control_steps[first_control ..
  // first_control + num_controls).
  std::uint32_t first_control = 0, num_controls = 0;
  // A run in plan order empties slots Plan::drop_slots[first_drop .. first_drop +
  // num_drops) after this step: the ones it read last that may still hold something.
  std::uint32_t first_drop = 0, num_drops = 0;
  // For a step whose one output has one reader, an InputMode::direct one: where its
  // kernel writes that output (an index into input_slots, the reader's argument).
  static constexpr std::uint32_t kNoArgument = UINT32_MAX;
  std::uint32_t output_argument = kNoArgument;
  // Its kernel on its device; null where the device has none (running it is an
  // UnimplementedError), or, when the plan was made without backends, the run asks
  // the backend it is given.
  KernelFn kernel = nullptr;
};

// What a fed tensor must be, checked on every run before anything runs: its static
// dtype and shape as the graph had them when the plan was made (a run reads no graph).
struct FeedSpec {
  std::string name;  // "x:0"
  DType dtype = DType::invalid;
  Shape shape = Shape::unknown();
};

// A while loop's frame in a plan (runtime/frames.hpp): a range of steps the executor
// runs once per iteration, nested frames' steps among them.
struct PlanFrame {
  std::string name;                            // the Enters' frame_name
  std::uint32_t first_step = 0, end_step = 0;  // its steps, in plan order
  std::uint32_t begin = 0, end = 0;            // the same as positions in active_steps
  std::int64_t loop_cond_slot = -1;            // another iteration runs while it is true; -1: none
  // Before each iteration: slots emptied and alive again (what its steps write but the
  // Enters and NextIterations); before the first, the NextIterations' outputs dead;
  // before every other, the loop variables' Enter outputs dead (their Merges then take
  // the NextIterations' values).
  std::vector<std::uint32_t> reset_slots, next_slots, entered_slots;

  // A loop in while_loop's plain form (one LoopCond; each Merge between an Enter and a
  // NextIteration; each Switch on the LoopCond, its false side read by an Exit only; no
  // loop inside) has no dead tensor in an iteration whose LoopCond is true, but in a cond
  // inside it, and in the last one exactly what follows a Switch's true side is dead:
  // the executor runs it so, with dead flags for the conds' steps only. Each step's part
  // in it, by position from `begin`; empty for any other loop.
  enum class Role : std::uint8_t {
    enter,       // runs in the first iteration only
    merge,       // takes its Enter's value in the first iteration, else its NextIteration's
    loop_cond,   // after it, the run knows whether another iteration follows
    switch_,     // hands its data to its true side, or in the last iteration its false side
    exit,        // runs in the last iteration only
    body,        // follows a Switch's true side: runs in every iteration but the last
    every_time,  // runs in every iteration
    skipped,     // an Identity or NextIteration whose move another step makes (`shortcut`)
    // A step of a cond inside the loop, or one that such a cond may leave dead: it checks
    // for dead inputs as outside a plain loop; in the body, or in every iteration.
    body_checked,
    every_time_checked,
  };
  std::vector<Role> plain;
  std::vector<std::uint8_t> merge_enter_input;  // by position: a Merge's input from its Enter
  // By position, the slot a step reads or writes in place of a pass-through step's: a
  // Switch's true side goes straight to the output of the Identity that alone reads it,
  // and a Merge takes the value its NextIteration would have moved on. A step of an
  // iteration is what the run mostly costs; kNoShortcut where there is none.
  static constexpr std::uint32_t kNoShortcut = UINT32_MAX;
  std::vector<std::uint32_t> shortcut;
  // The LoopCond's input, read and emptied in the LoopCond's stead; -1: the LoopCond runs.
  std::int64_t cond_input_slot = -1;
  // Whether some step checks for dead inputs (a cond inside): each iteration then starts
  // with no dead flag set.
  bool checks = false;
  // The outputs of its steps that nothing empties (never read), emptied before each
  // iteration of a plain run; and the range of slots its steps write.
  std::vector<std::uint32_t> unread_slots;
  std::uint32_t first_slot = 0, end_slot = 0;
};

struct Plan {
  std::vector<NodeId> order;                      // nodes to run, in dependency order
  std::vector<TensorRef> feeds;                   // fed tensors, in the order of the feed list
  std::vector<std::optional<TensorRef>> fetches;  // nullopt for an operation fetch
  // Clusters of elementwise steps that run as one fused kernel (none without a kernel).
  Fusion fusion;
  // Whether a tensor of a run may be dead (the plan has a Switch): the run then keeps
  // a dead flag by slot and by step, and the guarded steps' control inputs are here.
  bool dead_tensors = false;
  std::vector<std::uint32_t> control_steps;
  // The while loops' frames (none without a loop), outermost first, and by position in
  // active_steps the frame that starts there (-1: none), for a run in plan order. A
  // plan with a loop runs on one thread.
  std::vector<PlanFrame> frames;
  std::vector<std::int32_t> frame_at;
  // The device (an index into the session's devices) of each step; empty: all on 0.
  std::vector<std::uint8_t> device_of_step;
  // For each step that is a Const, its value (sharing the attr's buffer), else none: on
  // a device with host memory, the executor outputs it without a kernel call.
  std::vector<Value> constants;

  // Tensors as indices into one run's dense array of tensor slots, so that a run
  // looks nothing up: step s's outputs are slots output_slot[s], output_slot[s] + 1,
  // ...; its inputs are input_slots[input_begin[s] .. input_begin[s + 1]). Fed
  // tensors have slots of their own after the outputs.
  std::vector<std::uint32_t> output_slot;
  std::vector<std::uint32_t> input_begin;
  std::vector<std::uint32_t> input_slots;
  std::vector<InputMode> input_modes;  // parallel to input_slots
  std::vector<std::uint32_t> feed_slots;
  std::vector<std::int64_t> fetch_slots;  // -1 for an operation fetch
  std::uint32_t num_slots = 0;
  std::size_t max_inputs = 0;
  std::size_t max_outputs = 0;
  std::size_t num_nodes = 0;  // the graph's size when planned: every id in `order` is below
  // The steps' dependencies, for a run on several threads (runtime/schedule.hpp). A
  // slot's readers there count only the reads that go through the slot (not
  // InputMode::constant).
  Schedule schedule;

  // What a run reads, by step: the resolved step and a copy of its node.
  std::vector<PlanStep> steps;
  std::vector<PlannedNode> nodes;
  bool kernels_resolved = false;  // made with backends: steps[s].kernel is final
  // For a run in plan order: the steps it visits (all but Kind::skip); the slots its
  // steps empty after their last read, so that buffers are freed early (PlanStep's
  // drops: a value its last reader took out is gone already, a variable reference or
  // a value read by copy is not); and the slots that may hold a tensor when the run
  // ends (fed, fetched, never read), emptied then.
  std::vector<std::uint32_t> active_steps;
  std::vector<std::uint32_t> drop_slots;
  std::vector<std::uint32_t> end_slots;
  std::vector<FeedSpec> feed_specs;       // parallel to feeds
  std::vector<std::string> fetch_names;   // parallel to fetches: "y:0", "" for an operation
  std::vector<std::uint8_t> fetch_moves;  // 1: the last fetch of its slot takes the value out
  // Run-time scratch buffers, kept between runs (runtime/run_scratch.hpp); shared by copies.
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

// The part of make_plan that a run reads: each step resolved, each node copied, how
// each input is read, which slots are emptied when, the feeds' checks and the
// fetches' names. `kernel_of_step`: each step's kernel on its device (all null
// without backends); `step_of_slot`: the step that writes each slot, -1 for a feed.
inline void resolve_steps(Plan& plan, const GraphState& g, const PlanDevices& devices,
                          const std::vector<KernelFn>& kernel_of_step,
                          const std::vector<std::int64_t>& step_of_slot,
                          const std::vector<bool>& guarded, const std::vector<bool>& kept_slots) {
  const std::size_t steps = plan.order.size();
  // Whether each step's device reads host memory; unknown (false) without backends.
  auto host_step = [&](std::size_t step) {
    const std::size_t d = plan.device_of_step.empty() ? 0 : plan.device_of_step[step];
    return d < devices.backends.size() && devices.backends[d]->memory_space() == MemorySpace::host;
  };
  plan.steps.resize(steps);
  plan.nodes.resize(steps);
  std::vector<std::int64_t> step_of_node(g.nodes.size(), -1);
  for (std::size_t step = 0; step < steps; ++step)
    step_of_node[plan.order[step].value] = static_cast<std::int64_t>(step);
  for (std::size_t step = 0; step < steps; ++step) {
    const Node& n = g.node(plan.order[step]);
    PlanStep& s = plan.steps[step];
    plan.nodes[step] = PlannedNode{n.name, n.def, n.attrs};
    s.node = plan.order[step].value;
    s.device = plan.device_of_step.empty() ? 0 : plan.device_of_step[step];
    s.stateful = n.def && n.def->stateful;
    s.forwards_ref = n.def && n.def->forwards_ref && !n.inputs.empty();
    s.first_input = plan.input_begin[step];
    s.num_inputs = static_cast<std::uint32_t>(n.inputs.size());
    s.first_output = plan.output_slot[step];
    s.num_outputs = static_cast<std::uint32_t>(n.outputs.size());
    s.kernel = kernel_of_step[step];
    s.enters_frame = is_enter_op(n.def);
    s.passes_on = (passes_value_on(n.def) || is_op(n.def, "Identity")) && n.inputs.size() == 1 &&
                  n.outputs.size() == 1;
    if (n.def == &kMergeOp && n.outputs.size() == 2) s.route = PlanStep::Route::merge;
    if (n.def == &kSwitchOp && n.inputs.size() == 2 && n.outputs.size() == 2)
      s.route = PlanStep::Route::switch_;
    if (!guarded.empty() && guarded[step]) {
      s.kind = PlanStep::Kind::guarded;
      s.first_control = static_cast<std::uint32_t>(plan.control_steps.size());
      for (NodeId c : n.control_inputs)
        if (const std::int64_t at = step_of_node[c.value]; at >= 0)
          plan.control_steps.push_back(static_cast<std::uint32_t>(at));
      s.num_controls = static_cast<std::uint32_t>(plan.control_steps.size()) - s.first_control;
    } else if (!plan.fusion.cluster_of_step.empty() && plan.fusion.cluster_of_step[step] >= 0) {
      s.kind = PlanStep::Kind::fused;
      s.cluster = plan.fusion.cluster_of_step[step];
      s.member = plan.fusion.member_of_step[step];
    } else if (!plan.constants[step].is_none()) {
      s.kind = PlanStep::Kind::constant;
    }
  }

  // How each input is read. A Const's value is handed to a plain kernel step on host
  // memory once, in the run's scratch; the other reads go through the slot, the last
  // one (unless fetched) taking the value out in a run in plan order. A kept slot (one a
  // loop reads in every iteration) is treated as fetched: read by copy, never dropped.
  std::vector<bool> fetched(plan.num_slots, false);
  for (std::int64_t f : plan.fetch_slots)
    if (f >= 0) fetched[static_cast<std::size_t>(f)] = true;
  for (std::size_t slot = 0; slot < kept_slots.size(); ++slot)
    if (kept_slots[slot]) fetched[slot] = true;
  plan.input_modes.assign(plan.input_slots.size(), InputMode::copy);
  // A plain step reads a Const's value so, and so does a guarded step (in a branch or a
  // loop) a guarded Const on host memory: its dead flag still says whether it ran.
  auto reads_constant = [&](const PlanStep& reader, const PlanStep& producer, std::size_t at) {
    if (reader.kind == PlanStep::Kind::kernel) return producer.kind == PlanStep::Kind::constant;
    return reader.kind == PlanStep::Kind::guarded && producer.kind == PlanStep::Kind::guarded &&
           !plan.constants[at].is_none() && host_step(at);
  };
  std::vector<std::int64_t> last_read(plan.num_slots, -1);  // input index, through the slot
  std::vector<std::int64_t> last_step(plan.num_slots, -1);
  std::vector<std::int32_t> slot_reads(plan.num_slots, 0);
  for (std::size_t step = 0; step < steps; ++step) {
    const PlanStep& s = plan.steps[step];
    const OpDef* def = plan.nodes[step].def;
    for (std::uint32_t i = 0; i < s.num_inputs; ++i) {
      const std::uint32_t k = s.first_input + i;
      const std::uint32_t slot = plan.input_slots[k];
      const std::int64_t producer = step_of_slot[slot];
      if (def && def->takes_ref(i)) {
        plan.input_modes[k] = InputMode::reference;
        plan.steps[step].takes_refs = true;
      } else if (producer >= 0 && !s.forwards_ref && host_step(step) &&
                 reads_constant(s, plan.steps[static_cast<std::size_t>(producer)],
                                static_cast<std::size_t>(producer))) {
        plan.input_modes[k] = InputMode::constant;
        continue;
      }
      last_read[slot] = k;
      last_step[slot] = static_cast<std::int64_t>(step);
      ++slot_reads[slot];
    }
  }
  for (std::size_t slot = 0; slot < plan.num_slots; ++slot) {
    if (fetched[slot] || last_read[slot] < 0) continue;
    InputMode& mode = plan.input_modes[static_cast<std::size_t>(last_read[slot])];
    if (mode == InputMode::copy) mode = InputMode::move;
  }
  // Whether a slot may hold a variable reference at run time.
  auto may_hold_ref = [&](std::size_t slot) {
    const std::int64_t p = step_of_slot[slot];
    if (p < 0) return false;
    const auto producer = static_cast<std::size_t>(p);
    const Node& n = g.node(plan.order[producer]);
    const std::size_t i = slot - plan.output_slot[producer];
    return n.outputs[i].is_ref || !n.def || n.def->forwards_ref || n.def->ref_inputs != 0;
  };
  // A plain kernel step's one output that one plain kernel step reads, once, goes
  // straight into that reader's argument: no slot, no move.
  std::vector<bool> direct(plan.num_slots, false);
  for (std::size_t slot = 0; slot < plan.num_slots; ++slot) {
    const std::int64_t p = step_of_slot[slot];
    if (p < 0 || fetched[slot] || slot_reads[slot] != 1 || may_hold_ref(slot)) continue;
    PlanStep& producer = plan.steps[static_cast<std::size_t>(p)];
    const PlanStep& reader = plan.steps[static_cast<std::size_t>(last_step[slot])];
    const auto k = static_cast<std::size_t>(last_read[slot]);
    if (producer.kind != PlanStep::Kind::kernel || producer.forwards_ref ||
        producer.num_outputs != 1 || reader.kind != PlanStep::Kind::kernel || reader.forwards_ref ||
        plan.input_modes[k] != InputMode::move)
      continue;
    plan.input_modes[k] = InputMode::direct;
    producer.output_argument = static_cast<std::uint32_t>(k);
    slot_reads[slot] = 0;
    direct[slot] = true;
  }
  // A Const on host memory that nobody reads through its slot does nothing at run time.
  for (std::size_t step = 0; step < steps; ++step) {
    PlanStep& s = plan.steps[step];
    if (s.kind == PlanStep::Kind::constant && host_step(step) && s.num_outputs == 1 &&
        slot_reads[s.first_output] == 0 && !fetched[s.first_output])
      s.kind = PlanStep::Kind::skip;
  }
  for (std::size_t step = 0; step < steps; ++step) {
    PlanStep& s = plan.steps[step];
    if (s.route == PlanStep::Route::merge)
      s.output_read = slot_reads[s.first_output + 1] > 0 || fetched[s.first_output + 1];
    else if (s.kind == PlanStep::Kind::guarded && !plan.constants[step].is_none())
      s.output_read = slot_reads[s.first_output] > 0 || fetched[s.first_output];
  }
  // A run on several threads counts down only the reads that go through the slot.
  for (std::size_t slot = 0; slot < plan.num_slots; ++slot)
    if (plan.schedule.slot_readers[slot] > 0)
      plan.schedule.slot_readers[slot] = slot_reads[slot] > 0 ? slot_reads[slot] : -1;

  // Slots emptied after their last read, and those left to the end of a run in order.
  // A slot that can only hold a value, whose last reader is a plain kernel step that
  // takes the value out, is empty after that read already.
  std::vector<std::vector<std::uint32_t>> drops(steps);
  std::vector<bool> dropped(plan.num_slots, false);
  for (std::size_t slot = 0; slot < plan.num_slots; ++slot) {
    if (fetched[slot] || step_of_slot[slot] < 0 || last_step[slot] < 0) continue;
    dropped[slot] = true;
    if (direct[slot]) continue;  // never written
    const PlanStep& reader = plan.steps[static_cast<std::size_t>(last_step[slot])];
    const bool taken =
        plan.input_modes[static_cast<std::size_t>(last_read[slot])] == InputMode::move &&
        reader.kind == PlanStep::Kind::kernel && !reader.forwards_ref;
    if (taken && !may_hold_ref(slot)) continue;
    drops[static_cast<std::size_t>(last_step[slot])].push_back(static_cast<std::uint32_t>(slot));
  }
  for (std::size_t step = 0; step < steps; ++step) {
    PlanStep& s = plan.steps[step];
    s.first_drop = static_cast<std::uint32_t>(plan.drop_slots.size());
    s.num_drops = static_cast<std::uint32_t>(drops[step].size());
    plan.drop_slots.insert(plan.drop_slots.end(), drops[step].begin(), drops[step].end());
    if (s.kind != PlanStep::Kind::skip)
      plan.active_steps.push_back(static_cast<std::uint32_t>(step));
  }
  for (std::size_t slot = 0; slot < plan.num_slots; ++slot) {
    const std::int64_t producer = step_of_slot[slot];
    const bool written =
        producer < 0 || plan.steps[static_cast<std::size_t>(producer)].kind != PlanStep::Kind::skip;
    if (written && !dropped[slot]) plan.end_slots.push_back(static_cast<std::uint32_t>(slot));
  }

  for (const TensorRef& f : plan.feeds) {
    const Node& n = g.node(f.node);
    const TensorSpec& spec = n.outputs.at(static_cast<std::size_t>(f.index));
    plan.feed_specs.push_back(
        FeedSpec{n.name + ":" + std::to_string(f.index), spec.dtype, spec.shape});
  }
  std::vector<std::int64_t> last_fetch(plan.num_slots, -1);
  for (std::size_t f = 0; f < plan.fetches.size(); ++f) {
    const auto& ref = plan.fetches[f];
    plan.fetch_names.push_back(ref ? g.node(ref->node).name + ":" + std::to_string(ref->index)
                                   : std::string());
    if (plan.fetch_slots[f] >= 0)
      last_fetch[static_cast<std::size_t>(plan.fetch_slots[f])] = static_cast<std::int64_t>(f);
  }
  plan.fetch_moves.assign(plan.fetches.size(), 0);
  for (std::int64_t f : last_fetch)
    if (f >= 0) plan.fetch_moves[static_cast<std::size_t>(f)] = 1;
}

inline bool is_constant_enter(const Node& n) {
  auto it = n.attrs.find("is_constant");
  return it != n.attrs.end() && std::get_if<bool>(&it->second) && std::get<bool>(it->second);
}

// A tensor inside a loop is neither fetched nor fed, nor an op inside one run as a
// target (TensorFlow marks them so); a loop's Exit outside every loop is fetchable.
inline void check_loop_fetches_and_feeds(const GraphState& g, const std::vector<NodeId>& order,
                                         const FrameLayout& layout,
                                         const std::vector<std::optional<TensorRef>>& fetches,
                                         const std::vector<NodeId>& targets,
                                         const std::vector<TensorRef>& feeds) {
  std::vector<std::int32_t> frame_of(g.nodes.size(), -1);
  for (std::size_t step = 0; step < order.size(); ++step)
    frame_of[order[step].value] = layout.frame_of_step[step];
  auto inside = [&](NodeId id) {
    const Node& n = g.node(id);
    std::int32_t f = frame_of[id.value];
    if (f < 0) {  // not planned (a fed tensor's producer): where the graph built it
      std::uint32_t context = n.context;
      if (context != 0 && is_exit_op(n.def)) context = g.flow_contexts[context - 1].outer;
      return g.loop_of(context) != 0;
    }
    if (f > 0 && is_exit_op(n.def)) f = layout.frames[static_cast<std::size_t>(f)].parent;
    return f > 0;
  };
  auto not_fetchable = [&](NodeId id) {
    return ValueError("Operation " + g.node(id).name + " has been marked as not fetchable.",
                      g.node(id).name);
  };
  for (const auto& f : fetches)
    if (f && inside(f->node)) throw not_fetchable(f->node);
  for (NodeId t : targets)
    if (inside(t)) throw not_fetchable(t);
  for (const TensorRef& f : feeds)
    if (inside(f.node)) {
      const std::string name = g.node(f.node).name + ":" + std::to_string(f.index);
      throw ValueError("Tensor " + name + " may not be fed.", name);
    }
}

// The shortcuts of plain frame `frame` (PlanFrame::shortcut), whose steps have the parts
// `role` (and whose Merges' Enter inputs are `enter_input`): a pass-through step that alone
// reads what it moves on, and moves it, is skipped; the step on its other side does the move.
inline void plan_shortcuts(const Plan& plan, PlanFrame& frame, std::vector<PlanFrame::Role>& role,
                           const std::vector<std::uint8_t>& enter_input) {
  using Role = PlanFrame::Role;
  const std::uint32_t first = frame.first_step, end = frame.end_step;
  // A pass-through that moves a value on. An Identity forwards a reference where its input
  // holds one, which a plain run's Switch never writes (`behind_switch`).
  auto moves_on = [&](std::uint32_t step, bool behind_switch = false) {
    const PlanStep& s = plan.steps[step];
    return s.passes_on && (!s.forwards_ref || behind_switch) && s.num_inputs == 1 &&
           s.num_outputs == 1 && s.output_argument == PlanStep::kNoArgument &&
           plan.input_modes[s.first_input] == InputMode::move &&
           plan.input_slots[s.first_input] >= frame.first_slot &&
           plan.input_slots[s.first_input] < frame.end_slot;
  };
  // The frame's readers of each of its slots (outside, only Exits' outputs are read).
  std::vector<std::uint32_t> readers(frame.end_slot - frame.first_slot, 0);
  std::vector<std::uint32_t> reader(frame.end_slot - frame.first_slot, 0);
  std::vector<std::int64_t> next_iteration_of(frame.end_slot - frame.first_slot, -1);
  for (std::uint32_t step = first; step < end; ++step) {
    const PlanStep& s = plan.steps[step];
    for (std::uint32_t k = s.first_input; k < s.first_input + s.num_inputs; ++k)
      if (const std::uint32_t slot = plan.input_slots[k];
          slot >= frame.first_slot && slot < frame.end_slot) {
        ++readers[slot - frame.first_slot];
        reader[slot - frame.first_slot] = step;
      }
    if (is_next_iteration_op(plan.nodes[step].def))
      next_iteration_of[s.first_output - frame.first_slot] = step;
  }
  frame.shortcut.assign(end - first, PlanFrame::kNoShortcut);
  for (std::uint32_t step = first; step < end; ++step) {
    const PlanStep& s = plan.steps[step];
    const Role r = role[step - first];
    if (r == Role::loop_cond && moves_on(step)) {
      // Only the Switches read its output, and a plain run's Switch does not look at it.
      bool only_switches = true;
      for (std::uint32_t other = first; other < end; ++other)
        for (std::uint32_t k = plan.steps[other].first_input;
             k < plan.steps[other].first_input + plan.steps[other].num_inputs; ++k)
          if (plan.input_slots[k] == s.first_output &&
              (role[other - first] != Role::switch_ || k != plan.steps[other].first_input + 1))
            only_switches = false;
      if (only_switches) frame.cond_input_slot = plan.input_slots[s.first_input];
    } else if (r == Role::switch_) {
      const std::uint32_t true_side = s.first_output + 1 - frame.first_slot;
      const std::uint32_t identity = reader[true_side];
      if (readers[true_side] == 1 && role[identity - first] == Role::body &&
          std::string_view(plan.nodes[identity].def->type) == "Identity" &&
          moves_on(identity, true)) {
        frame.shortcut[step - first] = plan.steps[identity].first_output;
        role[identity - first] = Role::skipped;
      }
    } else if (r == Role::merge) {
      const std::uint32_t next = plan.input_slots[s.first_input + 1 - enter_input[step - first]];
      const std::int64_t n = next >= frame.first_slot && next < frame.end_slot
                                 ? next_iteration_of[next - frame.first_slot]
                                 : -1;
      if (n < 0 || readers[next - frame.first_slot] != 1) continue;
      const auto next_iteration = static_cast<std::uint32_t>(n);
      if (!moves_on(next_iteration)) continue;
      frame.shortcut[step - first] = plan.input_slots[plan.steps[next_iteration].first_input];
      role[next_iteration - first] = Role::skipped;
    }
  }
}

// Whether frame `frame` (without nested frames) is in while_loop's plain form
// (PlanFrame::plain), and if so each of its steps' part. Only its Exits are read from
// outside it.
inline void plan_plain_frame(Plan& plan, PlanFrame& frame, const GraphState& g,
                             const std::vector<DeadnessCondition>& alive_if) {
  using Role = PlanFrame::Role;
  const std::uint32_t first = frame.first_step, end = frame.end_step;
  if (frame.loop_cond_slot < 0 || end - first != frame.end - frame.begin) return;
  frame.first_slot = plan.output_slot[first];
  frame.end_slot =
      first < end ? plan.output_slot[end - 1] + plan.steps[end - 1].num_outputs : frame.first_slot;
  auto step_of = [&](std::uint32_t slot) -> std::int64_t {  // a step of the frame, or -1
    if (slot < frame.first_slot || slot >= frame.end_slot) return -1;
    const auto at =
        std::upper_bound(plan.output_slot.begin() + first, plan.output_slot.begin() + end, slot);
    return std::distance(plan.output_slot.begin(), at) - 1;
  };
  std::vector<Role> role(end - first, Role::every_time);
  std::vector<std::uint8_t> enter_input(end - first, 0);
  std::vector<std::uint8_t> false_side(frame.end_slot - frame.first_slot, 0);
  std::vector<std::uint8_t> true_side(frame.end_slot - frame.first_slot, 0);
  auto role_of = [&](std::int64_t step) { return role[static_cast<std::size_t>(step) - first]; };
  // A step checks for dead inputs where a cond inside the loop may leave one dead: a
  // cond's Switch or Merge, and what the deadness analysis finds alive only under a
  // predicate of this loop other than its LoopCond (runtime/deadness.hpp).
  std::vector<std::uint8_t> checks(end - first, 0);
  std::vector<std::uint32_t> frame_nodes;
  for (std::uint32_t step = first; step < end; ++step)
    frame_nodes.push_back(plan.order[step].value);
  std::sort(frame_nodes.begin(), frame_nodes.end());
  auto under_inner_predicate = [&](std::uint32_t step) {
    if (alive_if.empty()) return false;
    for (const DeadnessLiteral& l : alive_if[step]) {
      const std::uint32_t node = l.predicate.node.value;
      if (!std::binary_search(frame_nodes.begin(), frame_nodes.end(), node)) continue;
      if (l.branch == 2 || g.node(l.predicate.node).def != &kLoopCondOp) return true;
    }
    return false;
  };
  auto reads_next_iteration = [&](const PlanStep& s) {
    for (std::uint32_t k = s.first_input; k < s.first_input + s.num_inputs; ++k)
      if (const std::int64_t p = step_of(plan.input_slots[k]);
          p >= 0 && is_next_iteration_op(plan.nodes[static_cast<std::size_t>(p)].def))
        return true;
    return false;
  };
  for (std::uint32_t step = first; step < end; ++step) {
    const PlanStep& s = plan.steps[step];
    const OpDef* def = plan.nodes[step].def;
    if (!def || s.kind != PlanStep::Kind::guarded ||
        plan.active_steps[frame.begin + step - first] != step)
      return;
    Role& r = role[step - first];
    const std::uint32_t* in = plan.input_slots.data() + s.first_input;
    if (is_enter_op(def)) {
      r = Role::enter;
    } else if (is_merge_op(def) && reads_next_iteration(s)) {
      if (s.route != PlanStep::Route::merge || s.num_inputs != 2) return;
      const std::int64_t a = step_of(in[0]), b = step_of(in[1]);
      if (a < 0 || b < 0) return;
      const bool enter_first = role_of(a) == Role::enter;
      const std::int64_t back = enter_first ? b : a;
      if (role_of(enter_first ? a : b) != Role::enter ||
          !is_next_iteration_op(plan.nodes[static_cast<std::size_t>(back)].def))
        return;
      r = Role::merge;
      enter_input[step - first] = enter_first ? 0 : 1;
    } else if (def == &kLoopCondOp) {
      r = Role::loop_cond;
    } else if (is_exit_op(def)) {
      if (s.num_inputs != 1 || step_of(in[0]) < 0 || !false_side[in[0] - frame.first_slot]) return;
      r = Role::exit;
    } else if (s.route == PlanStep::Route::switch_ && s.num_inputs == 2 &&
               static_cast<std::int64_t>(in[1]) == frame.loop_cond_slot) {
      r = Role::switch_;
      false_side[s.first_output - frame.first_slot] = 1;
      true_side[s.first_output + 1 - frame.first_slot] = 1;
    } else if (def->never_dead) {
      // A ControlTrigger (a gradient's backward loop's `b_sync`) is alive whatever its
      // control inputs are: it runs in every iteration, and orders what follows it only.
      if (s.num_inputs > 0) return;
      continue;
    } else if (def->dead_outputs || def->reads_dead || s.route != PlanStep::Route::none) {
      checks[step - first] = 1;  // a cond's Switch or Merge
    }
    if (r != Role::every_time) {
      // TensorFlow gives them no control input, and nothing in a cond.
      if ((r != Role::enter && s.num_controls > 0) || under_inner_predicate(step)) return;
      continue;
    }
    if (under_inner_predicate(step)) checks[step - first] = 1;
    // What a NextIteration carries to the next iteration is alive.
    if (checks[step - first] && is_next_iteration_op(def)) return;
    // What follows a true side, through data or control, is dead in the last iteration.
    for (std::uint32_t i = 0; i < s.num_inputs; ++i) {
      const std::int64_t p = step_of(in[i]);
      if (p < 0) continue;
      if (false_side[in[i] - frame.first_slot]) return;
      if (true_side[in[i] - frame.first_slot] || role_of(p) == Role::body) r = Role::body;
    }
    for (std::uint32_t c = s.first_control; c < s.first_control + s.num_controls; ++c) {
      const std::uint32_t p = plan.control_steps[c];
      if (p < first || p >= end) return;  // only an Enter checks the world outside the loop
      const Role pr = role_of(p);
      if (pr == Role::switch_ || pr == Role::exit) return;
      if (pr == Role::body) r = Role::body;
    }
  }
  // From outside, only the Exits are read or waited for.
  for (std::uint32_t step = 0; step < plan.steps.size(); ++step) {
    if (step >= first && step < end) continue;
    const PlanStep& s = plan.steps[step];
    for (std::uint32_t i = 0; i < s.num_inputs; ++i)
      if (const std::int64_t p = step_of(plan.input_slots[s.first_input + i]);
          p >= 0 && role_of(p) != Role::exit)
        return;
    if (s.kind == PlanStep::Kind::guarded)
      for (std::uint32_t c = s.first_control; c < s.first_control + s.num_controls; ++c)
        if (const std::uint32_t p = plan.control_steps[c];
            p >= first && p < end && role_of(p) != Role::exit)
          return;
  }
  for (std::int64_t f : plan.fetch_slots)
    if (const std::int64_t p = f >= 0 ? step_of(static_cast<std::uint32_t>(f)) : -1;
        p >= 0 && role_of(p) != Role::exit)
      return;
  std::vector<std::uint8_t> left(frame.end_slot - frame.first_slot, 0);  // to the run's end
  for (std::uint32_t slot : plan.end_slots)
    if (slot >= frame.first_slot && slot < frame.end_slot) left[slot - frame.first_slot] = 1;
  for (std::uint32_t slot : frame.reset_slots)
    if (slot >= frame.first_slot && slot < frame.end_slot && left[slot - frame.first_slot] &&
        static_cast<std::int64_t>(slot) != frame.loop_cond_slot)
      frame.unread_slots.push_back(slot);
  plan_shortcuts(plan, frame, role, enter_input);
  for (std::uint32_t step = first; step < end; ++step) {
    if (!checks[step - first]) continue;
    Role& r = role[step - first];
    r = r == Role::body ? Role::body_checked : Role::every_time_checked;
    frame.checks = true;
  }
  frame.plain = std::move(role);
  frame.merge_enter_input = std::move(enter_input);
}

// The plan's frames (Plan::frames), once its steps are resolved.
inline void plan_frames(Plan& plan, const GraphState& g, const FrameLayout& layout,
                        const std::vector<DeadnessCondition>& alive_if) {
  const std::size_t num_frames = layout.frames.size() - 1;  // but the root
  plan.frames.resize(num_frames);
  std::vector<bool> seen(num_frames, false);
  for (std::size_t step = 0; step < plan.order.size(); ++step)
    for (std::int32_t f = layout.frame_of_step[step]; f > 0;
         f = layout.frames[static_cast<std::size_t>(f)].parent) {
      PlanFrame& frame = plan.frames[static_cast<std::size_t>(f - 1)];
      if (!seen[static_cast<std::size_t>(f - 1)])
        frame.first_step = static_cast<std::uint32_t>(step);
      seen[static_cast<std::size_t>(f - 1)] = true;
      frame.end_step = static_cast<std::uint32_t>(step + 1);
    }
  std::vector<std::uint32_t> position(plan.order.size(), 0);
  for (std::size_t p = 0; p < plan.active_steps.size(); ++p)
    position[plan.active_steps[p]] = static_cast<std::uint32_t>(p);
  plan.frame_at.assign(plan.active_steps.size(), -1);
  for (std::size_t k = 0; k < num_frames; ++k) {
    PlanFrame& frame = plan.frames[k];
    const auto f = static_cast<std::int32_t>(k + 1);
    frame.name = layout.frames[k + 1].name;
    // A frame's steps are all guarded, so all active.
    frame.begin = position[frame.first_step];
    frame.end = position[frame.end_step - 1] + 1;
    if (plan.frame_at[frame.begin] >= 0)
      throw InvalidArgumentError(
          "While loop frame '" + frame.name + "' begins with frame '" +
          plan.frames[static_cast<std::size_t>(plan.frame_at[frame.begin])].name +
          "': expected an Enter of its own first");
    plan.frame_at[frame.begin] = static_cast<std::int32_t>(k);
    for (std::uint32_t step = frame.first_step; step < frame.end_step; ++step) {
      const Node& n = g.node(plan.order[step]);
      const PlanStep& s = plan.steps[step];
      const bool own = layout.frame_of_step[step] == f;
      if (own && is_enter_op(n.def)) {
        if (!is_constant_enter(n)) frame.entered_slots.push_back(s.first_output);
        continue;
      }
      if (own && is_next_iteration_op(n.def)) {
        frame.next_slots.push_back(s.first_output);
        continue;
      }
      if (own && n.def == &kLoopCondOp) {
        if (frame.loop_cond_slot >= 0)
          throw InvalidArgumentError(
              "While loop frame '" + frame.name + "' has more than one LoopCond: '" + n.name + "'",
              n.name);
        frame.loop_cond_slot = s.first_output;
      }
      for (std::uint32_t i = 0; i < s.num_outputs; ++i)
        frame.reset_slots.push_back(s.first_output + i);
    }
    if (layout.frames[k + 1].children.empty()) plan_plain_frame(plan, frame, g, alive_if);
  }
}

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
  // Node ids are a topological order: a node's inputs always exist before it, but for a
  // while loop's back edges. A loop's steps go together (runtime/frames.hpp).
  for (std::uint32_t i = 0; i < needed.size(); ++i)
    if (needed[i]) plan.order.push_back(NodeId{i});
  FrameLayout layout = lay_out_frames(g, plan.order, [&](TensorRef t) { return fed.count(t) > 0; });
  const bool has_loops = layout.frames.size() > 1;
  if (has_loops) {
    plan.order = std::move(layout.order);
    check_loop_fetches_and_feeds(g, plan.order, layout, fetches, targets, feeds);
  }

  // Steps that may meet a dead tensor check first, and never fuse; so does every step
  // of a loop, which runs again and again.
  std::vector<bool> guarded;
  std::vector<DeadnessCondition> alive_if;  // by step, for the loops' plain form
  plan.dead_tensors = has_loops || has_dead_outputs(g, plan.order);
  if (plan.dead_tensors)
    guarded = steps_that_may_meet_dead(g, plan.order, fed, has_loops ? &alive_if : nullptr);
  for (std::size_t step = 0; has_loops && step < plan.order.size(); ++step)
    if (layout.frame_of_step[step] != 0) guarded[step] = true;

  if (devices.place) plan.device_of_step = devices.place(plan.order);
  auto device_of = [&](std::size_t step) -> std::size_t {
    return plan.device_of_step.empty() ? 0 : plan.device_of_step[step];
  };
  std::vector<const ElementwiseDef*> elementwise_of_step(plan.order.size(), nullptr);
  std::vector<KernelFn> kernel_of_step(plan.order.size(), nullptr);
  plan.kernels_resolved = !devices.backends.empty();
  for (std::size_t step = 0; plan.kernels_resolved && step < plan.order.size(); ++step) {
    const Node& n = g.node(plan.order[step]);
    const std::size_t device = device_of(step);
    if (!n.def || device >= devices.backends.size()) continue;
    kernel_of_step[step] = devices.backends[device]->kernel(*n.def);
    if (guarded.empty() || !guarded[step])
      elementwise_of_step[step] = devices.backends[device]->elementwise(*n.def);
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
  std::vector<std::int64_t> step_of_slot;  // the producing step, -1 for a fed slot
  for (std::size_t step = 0; step < plan.order.size(); ++step) {
    const Node& n = g.node(plan.order[step]);
    plan.output_slot.push_back(plan.num_slots);
    for (std::size_t i = 0; i < n.outputs.size(); ++i) {
      slot_of[TensorRef{plan.order[step], static_cast<int>(i)}] = plan.num_slots++;
      step_of_slot.push_back(static_cast<std::int64_t>(step));
    }
    plan.max_outputs = std::max(plan.max_outputs, n.outputs.size());
  }
  for (const TensorRef& f : feeds) {
    plan.feed_slots.push_back(plan.num_slots);
    slot_of[f] = plan.num_slots++;  // a fed tensor is read from its feed, not its producer
    step_of_slot.push_back(-1);
  }
  for (std::size_t step = 0; step < plan.order.size(); ++step) {
    const Node& n = g.node(plan.order[step]);
    plan.input_begin.push_back(static_cast<std::uint32_t>(plan.input_slots.size()));
    for (const TensorRef& in : n.inputs) plan.input_slots.push_back(slot_of.at(in));
    plan.max_inputs = std::max(plan.max_inputs, n.inputs.size());
  }
  plan.input_begin.push_back(static_cast<std::uint32_t>(plan.input_slots.size()));
  for (const auto& f : fetches) plan.fetch_slots.push_back(f ? std::int64_t{slot_of.at(*f)} : -1);
  plan.schedule =
      make_schedule(g, plan.order, plan.fusion, plan.output_slot, plan.input_begin,
                    plan.input_slots, plan.fetch_slots, plan.feed_slots, plan.num_slots);
  // A loop reads its LoopCond after each iteration, and its constant Enters in every one.
  std::vector<bool> kept;
  if (has_loops) {
    kept.assign(plan.num_slots, false);
    for (std::size_t step = 0; step < plan.order.size(); ++step) {
      const Node& n = g.node(plan.order[step]);
      if (n.def == &kLoopCondOp || (is_enter_op(n.def) && is_constant_enter(n)))
        kept[plan.output_slot[step]] = true;
    }
  }
  const ConvEpiloguePlan view{plan.order,
                              plan.output_slot,
                              plan.input_begin,
                              plan.input_slots,
                              plan.fetch_slots,
                              step_of_slot,
                              plan.constants,
                              plan.device_of_step,
                              plan.fusion.cluster_of_step,
                              guarded,
                              kept};
  const std::vector<ConvEpilogue> epilogues =
      find_conv_epilogues(g, view, devices.backends, devices.fused_kernels, kernel_of_step);
  elide_multiplications_by_one(g, view, devices.backends, devices.fused_kernels, kernel_of_step);
  resolve_steps(plan, g, devices, kernel_of_step, step_of_slot, guarded, kept);
  attach_conv_epilogues(plan.nodes, epilogues);
  if (has_loops) plan_frames(plan, g, layout, alive_if);
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
