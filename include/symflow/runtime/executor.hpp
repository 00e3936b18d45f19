#pragma once
// Runs a plan: each step once, in order, on its device's backend; fed tensors replace
// their producers' outputs; buffers are dropped after their last reader. A run reads
// its plan (runtime/plan.hpp), never the graph: every step was resolved when the plan
// was made (its kernel, its device, its input and output slots, how it reads each
// input, a copy of its node's name and attrs).
//
// Variables: a reference output (VariableV2, Assign, and an Identity of either) is
// read when a consumer runs, or handed to the consumer itself when the op writes
// through it; fetched references are read after the whole run. Ops that no data or
// control edge orders run in the order they were created, so every run of a graph
// does the same thing.
//
// Devices: each step runs on its plan device's backend. A value read in another
// memory space than the step's device is copied there first (device to host, host
// to device), and fetched values are copied to the host.
//
// Constants: a Const on a device with host memory outputs the plan's value without a
// kernel call; a plain step on host memory that reads a Const finds the value among
// its arguments from the run's first use of the scratch on (no per-run copy).
//
// Fused clusters (runtime/fused_step.hpp) run as one kernel at their last member's
// step. Each member still reads its outside inputs at its own step; when the shapes
// met at run time do not suit the fused kernel, the members run one by one instead.
//
// Threads: with an inter-op pool (ConfigProto::inter_op_parallelism_threads > 1) and
// a plan with independent steps, the pool's threads take steps as soon as their
// dependencies (runtime/schedule.hpp) are done, and a tensor is dropped when its
// last reader has read it. Otherwise the calling thread runs the steps in order.

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <iterator>
#include <memory>
#include <mutex>
#include <new>
#include <span>
#include <string>
#include <vector>

#include "symflow/backend/backend.hpp"
#include "symflow/backend/kernel_context.hpp"
#include "symflow/backend/thread_pool.hpp"
#include "symflow/graph/graph_state.hpp"
#include "symflow/runtime/fused_step.hpp"
#include "symflow/runtime/plan.hpp"
#include "symflow/runtime/run_scratch.hpp"
#include "symflow/runtime/run_state.hpp"

// The step functions of the hot loop are one function once inlined.
#if defined(__GNUC__)
#define SYMFLOW_EXECUTOR_INLINE [[gnu::always_inline]] inline
#else
#define SYMFLOW_EXECUTOR_INLINE inline
#endif

namespace symflow::detail {

// One run of a plan: feed it, go(), then take its results. `devices`: the session's
// devices, by index (device 0 for a plan without placement).
class Run {
 public:
  Run(const Plan& plan, const RunDevices& devices, SessionState& session)
      : plan_(plan),
        devices_(devices),
        session_(session),
        lease_(plan),
        scratch_(*lease_),
        slots_(scratch_.slots) {
    const Schedule& schedule = plan.schedule;
    num_threads_ =
        session.inter_op && schedule.width > 1
            ? std::min<std::size_t>(static_cast<std::size_t>(session.inter_op->num_threads()),
                                    schedule.width)
            : 1;
    threaded_ = num_threads_ > 1 && plan.frames.empty();
    if (threaded_) scratch_.size_threads(num_threads_, plan);
  }
  // A run that did not finish (a step failed) lets go of everything it still holds.
  ~Run() {
    if (!finished_) abandon();
  }
  Run(const Run&) = delete;
  Run& operator=(const Run&) = delete;

  // Feed i (in the order of Plan::feeds) is `v`.
  void feed(std::size_t i, const Value& v) { slots_.values[plan_.feed_slots[i]] = v; }

  // Runs every step; rethrows the first step's error.
  void go() {
    session_.reserve_nodes(plan_.num_nodes);  // the Session did it already, under its lock
    if (plan_.dead_tensors) scratch_.start_dead_flags();
    if (!plan_.frames.empty()) {
      sweep_all_ = true;  // a loop's slots are written again and again
      run_root(scratch_.threads[0]);
    } else if (threaded_) {
      run_on_threads();
    } else {
      StepBuffers& buf = scratch_.threads[0];
      for (std::uint32_t step : plan_.active_steps) {
        const PlanStep& s = plan_.steps[step];
        if (s.kind == PlanStep::Kind::kernel && !s.forwards_ref) [[likely]]
          run_kernel_step(s, step, buf);
        else
          run_step(step, buf);
      }
    }
  }

  // After go(): every fetch on the host, in the order of Plan::fetches (empty for an
  // operation). A fetched buffer still owned elsewhere (a Const's value in the graph,
  // a variable's state, a feed) is copied, so that callers can write into what they get;
  // one tensor fetched twice comes back as one buffer.
  std::vector<Value> results() {
    std::vector<Value> out(plan_.fetches.size());
    for (std::size_t f = 0; f < out.size(); ++f) fetch(f, out[f]);
    finish();
    for (std::size_t i = 0; i < out.size(); ++i) {
      if (out[i].is_none()) continue;
      long in_results = 0;
      for (const Value& r : out) in_results += r.shares_buffer_with(out[i]) ? 1 : 0;
      if (out[i].buffer_owners() > in_results) {
        Value copy = out[i].clone();
        for (std::size_t j = i + 1; j < out.size(); ++j)
          if (out[j].shares_buffer_with(out[i])) out[j] = copy.reshaped(out[j].dims());
        out[i] = copy;
      }
    }
    return out;
  }
  // The same for a plan with one fetch.
  Value result() {
    Value v;
    fetch(0, v);
    finish();
    if (!v.is_none() && v.buffer_owners() > 1) v = v.clone();
    return v;
  }

 private:
  // ---- steps -------------------------------------------------------------------------
  void run_step(std::size_t step, StepBuffers& buf) {
    const PlanStep& s = plan_.steps[step];
    if (s.kind == PlanStep::Kind::kernel && !s.forwards_ref) [[likely]]
      return run_kernel_step(s, step, buf);
    switch (s.kind) {
      case PlanStep::Kind::skip:
        return;
      case PlanStep::Kind::constant:
        if (devices_.host(s.device)) {
          // What the CPU's Const kernel would output, without a KernelContext or the attr
          // lookup: a graph of small ops spends a good part of each run on its constants.
          slots_.values[s.first_output] = plan_.constants[step];
          return;
        }
        break;
      case PlanStep::Kind::fused:
        if (!scratch_.cluster_runs[static_cast<std::size_t>(s.cluster)].unfused()) {
          run_fused_member(s, buf);
          inputs_read(s);
          return;
        }
        break;
      case PlanStep::Kind::guarded:
        if (meets_dead(s, step)) return die(s, step);
        // An Identity of a variable reference forwards the reference, below.
        if (s.passes_on && !(s.forwards_ref && slots_.refs[plan_.input_slots[s.first_input]]))
          return pass_on(s, step);
        if (s.route != PlanStep::Route::none && devices_.host(s.device))
          return s.route == PlanStep::Route::merge ? merge(s, step) : switch_on(s, step);
        if (!plan_.constants[step].is_none() && devices_.host(s.device)) {
          // A Const in a branch or loop: alive; its value is written only for readers that
          // do not have it among their arguments.
          if (s.output_read) slots_.values[s.first_output] = plan_.constants[step];
          slots_.dead[s.first_output] = 0;
          return;
        }
        break;
      case PlanStep::Kind::kernel:
        break;
    }
    if (s.forwards_ref && forward_reference(s, step)) return;
    run_kernel_step(s, step, buf);
    if (s.kind != PlanStep::Kind::guarded) return;
    // What it wrote is alive (a loop's NextIteration writes a slot that was dead before
    // the loop's first iteration).
    for (std::uint32_t o = s.first_output; o < s.first_output + s.num_outputs; ++o)
      if (!slots_.values[o].is_none() || slots_.refs[o]) slots_.dead[o] = 0;
    // A Merge whose inputs were all dead is dead itself, for the ops it orders (a Switch
    // that ran is not, whichever side it left dead).
    if (plan_.nodes[step].def->reads_dead && slots_.dead[s.first_output])
      scratch_.dead_steps[step] = 1;
  }

  // An Identity of a variable: when its input is a reference, it passes the reference on
  // (read when consumed) and returns true.
  bool forward_reference(const PlanStep& s, std::size_t step) {
    const std::uint32_t in = plan_.input_slots[s.first_input];
    const auto& ref = slots_.refs[in];
    if (!ref) return false;
    read_variable(*ref, plan_.nodes[step].name);  // uninitialised: fails here, as in TF
    slots_.refs[s.first_output] = ref;
    inputs_read(s);
    return true;
  }

  // A guarded Enter, Exit, NextIteration, LoopCond or Identity: its output is its input,
  // without a KernelContext or a kernel call (a loop's iteration runs several of them).
  void pass_on(const PlanStep& s, std::size_t step) {
    // Its input's last read, in the same memory: one move from slot to slot.
    if (const std::uint32_t in = plan_.input_slots[s.first_input];
        plan_.input_modes[s.first_input] == InputMode::move && !threaded_ && !slots_.refs[in] &&
        s.output_argument == PlanStep::kNoArgument && !slots_.values[in].is_none() &&
        slots_.values[in].memory_space() == devices_.memory_space(s.device)) {
      slots_.values[s.first_output] = std::move(slots_.values[in]);
      slots_.dead[s.first_output] = 0;
      return inputs_read(s);
    }
    Value v = value_input(s.first_input, step);
    if (v.is_none())
      throw InternalError(std::string(plan_.nodes[step].def->type) + " found no value in its input",
                          plan_.nodes[step].name);
    set_output(s, 0, std::move(v));
    inputs_read(s);
  }

  // Merge on host memory: its first live input and that input's index, as the CPU kernel
  // gives them; with every input dead, it is dead too (for the ops it orders as well).
  void merge(const PlanStep& s, std::size_t step) {
    for (std::uint32_t i = 0; i < s.num_inputs; ++i) {
      const std::uint32_t k = s.first_input + i;
      // A Const in a branch is read among the arguments, but its slot's flag says if it ran.
      if (slots_.dead[plan_.input_slots[k]]) continue;
      Value v = value_input(k, step);
      if (v.is_none()) continue;
      set_output(s, 0, std::move(v));
      if (s.output_read)
        set_output(s, 1, merge_index(i));
      else
        slots_.dead[s.first_output + 1] = 0;
      // The inputs after it are read too, as the kernel's arguments would be.
      for (std::uint32_t j = k + 1; j < s.first_input + s.num_inputs; ++j)
        if (plan_.input_modes[j] == InputMode::move && !threaded_)
          slots_.clear(plan_.input_slots[j]);
      return inputs_read(s);
    }
    slots_.dead[s.first_output] = slots_.dead[s.first_output + 1] = 1;
    scratch_.dead_steps[step] = 1;
    inputs_read(s);
  }
  static Value merge_index(std::uint32_t i) {
    // Shared read-only buffers: a loop's Merges allocate nothing per iteration (a kernel
    // never writes over a buffer it does not hold alone).
    static const Value kShared[] = {Value(std::int32_t{0}), Value(std::int32_t{1}),
                                    Value(std::int32_t{2}), Value(std::int32_t{3})};
    return i < std::size(kShared) ? kShared[i] : Value(static_cast<std::int32_t>(i));
  }

  // Switch on host memory: the data goes to output 1 when the predicate is true, else to
  // output 0; the other output is dead.
  void switch_on(const PlanStep& s, std::size_t step) {
    const Value pred = value_input(s.first_input + 1, step);
    const bool taken = (pred.on_device() ? devices_.to_host(pred) : pred).scalar<bool>();
    Value v = value_input(s.first_input, step);
    const std::uint32_t out = taken ? 1 : 0;
    slots_.dead[s.first_output + 1 - out] = 1;
    set_output(s, out, std::move(v));
    inputs_read(s);
  }

  // The value input k (an index into input_slots) of `step` holds, for a step that reads
  // it without a kernel call: taken from its slot by its last reader.
  Value value_input(std::uint32_t k, std::size_t step) {
    switch (plan_.input_modes[k]) {
      case InputMode::constant:
        return scratch_.args[k];
      case InputMode::direct:
        return std::move(scratch_.args[k]);
      case InputMode::move:
        if (!threaded_) {
          Value v;
          slots_.take(plan_.input_slots[k], plan_.nodes[step].name, v);
          return v;
        }
        [[fallthrough]];
      default:
        return slots_.read(plan_.input_slots[k], plan_.nodes[step].name);
    }
  }
  // Output i of a step that runs without a kernel call, alive, in its device's memory.
  void set_output(const PlanStep& s, std::uint32_t i, Value&& v) {
    if (v.memory_space() != devices_.memory_space(s.device))
      v = devices_.moved_to(std::move(v), s.device);
    if (s.output_argument == PlanStep::kNoArgument)
      slots_.values[s.first_output + i] = std::move(v);
    else
      scratch_.args[s.output_argument] = std::move(v);
    slots_.dead[s.first_output + i] = 0;
  }

  // Gathers the step's inputs into its arguments and calls its kernel.
  void run_kernel_step(const PlanStep& s, std::size_t step, StepBuffers& buf) {
    Value* args = scratch_.args.data() + s.first_input;
    const MemorySpace space = devices_.memory_space(s.device);
    for (std::uint32_t i = 0; i < s.num_inputs; ++i) {
      const std::uint32_t k = s.first_input + i;
      const std::uint32_t slot = plan_.input_slots[k];
      switch (plan_.input_modes[k]) {
        case InputMode::constant:
          continue;
        case InputMode::reference:
          if (!slots_.refs[slot] && plan_.dead_tensors && slots_.dead[slot]) {
            buf.ref_inputs[i].reset();  // RefMerge's dead input; others never see one
            continue;
          }
          if (!slots_.refs[slot])
            throw InvalidArgumentError("Input " + std::to_string(i) + " of " +
                                           plan_.nodes[step].name + " must be a variable reference",
                                       plan_.nodes[step].name);
          buf.ref_inputs[i] = slots_.refs[slot];
          continue;
        case InputMode::move:
          // Its last reader: no reference-count traffic, and the kernel may hold the only
          // handle to the buffer. On several threads, others may still read the slot.
          if (!threaded_) {
            slots_.take(slot, plan_.nodes[step].name, args[i]);
            break;
          }
          [[fallthrough]];
        case InputMode::copy:
          args[i] = slots_.read(slot, plan_.nodes[step].name);
          break;
        case InputMode::direct:  // its producer put it there
          break;
      }
      if (args[i].memory_space() != space)
        args[i] = devices_.moved_to(std::move(args[i]), s.device);
    }
    // On several threads, before the kernel: a slot is let go as soon as its last reader
    // holds its own handle.
    if (threaded_) count_down_inputs(s);
    call_kernel(s, step, args, buf);
    if (!threaded_)
      for (std::uint32_t d = s.first_drop; d < s.first_drop + s.num_drops; ++d)
        slots_.clear(plan_.drop_slots[d]);
  }

  // Calls the step's kernel on `args` (its inputs, in the step's device memory); its
  // outputs go straight into its slots (or its reader's argument). Lets go of the
  // non-constant arguments after.
  SYMFLOW_EXECUTOR_INLINE void call_kernel(const PlanStep& s, std::size_t step, Value* args,
                                           StepBuffers& buf) {
    const PlannedNode& node = plan_.nodes[step];
    const Backend& backend = devices_.backend(s.device);
    const KernelFn kernel = plan_.kernels_resolved ? s.kernel : backend.kernel(*node.def);
    if (!kernel)
      throw UnimplementedError("No " + std::string(backend.device_type()) + " kernel for op " +
                                   std::string(node.def->type),
                               node.name);
    Value* outputs = s.output_argument == PlanStep::kNoArgument
                         ? slots_.values.data() + s.first_output
                         : scratch_.args.data() + s.output_argument;
    std::shared_ptr<VariableSlot>* ref_outputs = slots_.refs.data() + s.first_output;
    NodeStateSlot* state = s.stateful ? &session_.node_state[s.node] : nullptr;
    // The kernel may write over an argument it holds the only handle to: on one thread,
    // where a use count of one means no other step still reads the buffer. (On several, a
    // reader that let go a moment ago need not have finished reading, as far as the
    // count's relaxed load can tell.)
    const std::span<Value> forwardable =
        threaded_ ? std::span<Value>{} : std::span<Value>{args, s.num_inputs};
    KernelContext ctx(node.name, node.attrs, {args, s.num_inputs}, {outputs, s.num_outputs},
                      {&session_.variables,
                       state ? &state->state : nullptr,
                       {buf.ref_inputs.data(), s.takes_refs ? s.num_inputs : 0},
                       {ref_outputs, s.num_outputs},
                       session_.intra_op,
                       &backend,
                       &step_resources_,
                       forwardable});
    const AllocationLimitScope memory_limit(session_.memory_limit_bytes);
    try {
      if (state) {
        std::lock_guard lock(state->mutex);
        kernel(ctx);
      } else {
        kernel(ctx);
      }
    } catch (const ResourceExhaustedError& e) {
      // A Value's allocation knows no node: the error names the one whose kernel ran.
      if (!e.node_name().empty()) throw;
      throw ResourceExhaustedError(e.message(), node.name);
    } catch (const Error&) {
      throw;  // symflow's own errors keep their class
    } catch (const std::bad_alloc&) {
      throw ResourceExhaustedError(
          "OOM when allocating memory for " + std::string(node.def->type) + " on host", node.name);
    } catch (const std::exception& e) {
      throw InternalError(std::string(node.def->type) + " failed: " + e.what(), node.name);
    }
    for (std::uint32_t i = 0; i < s.num_outputs; ++i) {
      if (ref_outputs[i]) {
        if (!outputs[i].is_none()) release(outputs[i]);  // the reference is the output
      } else if (outputs[i].is_none()) {
        if (!node.def->dead_outputs)
          throw InternalError("Kernel of " + std::string(node.def->type) + " produced no output " +
                                  std::to_string(i),
                              node.name);
        slots_.dead[s.first_output + i] = 1;  // Switch's untaken side; Merge of dead inputs
      }
    }
    const InputMode* modes = plan_.input_modes.data() + s.first_input;
    for (std::uint32_t i = 0; i < s.num_inputs; ++i)
      if (modes[i] != InputMode::constant && !args[i].is_none()) release(args[i]);
    if (s.takes_refs)
      for (std::uint32_t i = 0; i < s.num_inputs; ++i) buf.ref_inputs[i].reset();
  }

  // ---- while loops (runtime/frames.hpp) ---------------------------------------------
  // Runs the root frame's steps in plan order, a loop that starts among them as a whole.
  void run_root(StepBuffers& buf) {
    const auto end = static_cast<std::uint32_t>(plan_.active_steps.size());
    for (std::uint32_t p = 0; p < end;) {
      if (const std::int32_t f = plan_.frame_at[p]; f >= 0) {
        run_loop(f, buf);
        p = plan_.frames[static_cast<std::size_t>(f)].end;
        continue;
      }
      run_step(plan_.active_steps[p++], buf);
    }
  }

  // Runs loop f: in its plain form (PlanFrame::plain) when it has one and its Enters are
  // alive, else by dead flags.
  void run_loop(std::int32_t f, StepBuffers& buf) {
    const PlanFrame& frame = plan_.frames[static_cast<std::size_t>(f)];
    if (!frame.plain.empty() && plain_run_fits(frame)) return run_plain_loop(frame, buf);
    run_frame(f, buf);
  }
  // A loop inside an untaken branch, or inside another loop's last iteration, finds its
  // Enters dead, and everything in it is dead; Merge and Switch run here on host memory.
  bool plain_run_fits(const PlanFrame& frame) const {
    using Role = PlanFrame::Role;
    for (std::uint32_t p = frame.begin; p < frame.end; ++p) {
      const std::uint32_t step = plan_.active_steps[p];
      const Role role = frame.plain[p - frame.begin];
      if (role == Role::enter && meets_dead(plan_.steps[step], step)) return false;
      if ((role == Role::merge || role == Role::switch_ || role == Role::skipped) &&
          !devices_.host(plan_.steps[step].device))
        return false;
    }
    return true;
  }
  // The plain run: every step alive in an iteration whose LoopCond is true; in the last
  // one, the Exits run instead of what follows the Switches' true sides. No dead flag is
  // read or written but the Exits' (alive) and those of a cond's steps inside the loop,
  // which check as outside it.
  void run_plain_loop(const PlanFrame& frame, StepBuffers& buf) {
    using Role = PlanFrame::Role;
    std::fill(scratch_.dead_steps.begin() + frame.first_step,
              scratch_.dead_steps.begin() + frame.end_step, std::uint8_t{0});
    std::fill(slots_.dead.begin() + frame.first_slot, slots_.dead.begin() + frame.end_slot,
              std::uint8_t{0});
    bool again = true;
    for (bool first = true;; first = false) {
      for (std::uint32_t slot : frame.unread_slots) slots_.clear(slot);
      if (frame.checks && !first) {  // a cond's steps left dead in the iteration before
        std::fill(scratch_.dead_steps.begin() + frame.first_step,
                  scratch_.dead_steps.begin() + frame.end_step, std::uint8_t{0});
        std::fill(slots_.dead.begin() + frame.first_slot, slots_.dead.begin() + frame.end_slot,
                  std::uint8_t{0});
      }
      for (std::uint32_t p = frame.begin; p < frame.end; ++p) {
        const std::uint32_t step = plan_.active_steps[p];
        const PlanStep& s = plan_.steps[step];
        switch (frame.plain[p - frame.begin]) {
          case Role::enter:
            if (first) run_alive(s, step, buf);
            break;
          case Role::merge: {
            const std::uint32_t enter = frame.merge_enter_input[p - frame.begin];
            const std::uint32_t i = first ? enter : 1 - enter;
            const std::uint32_t from = frame.shortcut[p - frame.begin];
            Value v;
            if (first || from == PlanFrame::kNoShortcut)
              v = value_input(s.first_input + i, step);
            else
              slots_.take(from, plan_.nodes[step].name, v);  // its NextIteration's input
            take_merge_input(s, step, i, std::move(v));
            break;
          }
          case Role::loop_cond:
            if (frame.cond_input_slot >= 0) {
              again = take_condition(static_cast<std::uint32_t>(frame.cond_input_slot), step);
            } else {
              run_alive(s, step, buf);
              again = another_iteration(frame);
            }
            break;
          case Role::switch_: {
            Value v = value_input(s.first_input, step);
            if (const std::uint32_t to = frame.shortcut[p - frame.begin];
                again && to != PlanFrame::kNoShortcut)
              slots_.values[to] = std::move(v);  // its Identity's output
            else
              set_output(s, again ? 1 : 0, std::move(v));
            inputs_read(s);
            break;
          }
          case Role::skipped:
            break;
          case Role::exit:
            if (!again) run_alive(s, step, buf);
            break;
          case Role::body:
            if (again) run_alive(s, step, buf);
            break;
          case Role::every_time:
            run_alive(s, step, buf);
            break;
          case Role::body_checked:
            if (again) run_step(step, buf);
            break;
          case Role::every_time_checked:
            run_step(step, buf);
            break;
        }
      }
      if (!again) return;
    }
  }
  // A guarded step known to be alive.
  void run_alive(const PlanStep& s, std::size_t step, StepBuffers& buf) {
    if (s.passes_on && !(s.forwards_ref && slots_.refs[plan_.input_slots[s.first_input]]))
      return pass_on(s, step);
    if (!plan_.constants[step].is_none() && devices_.host(s.device)) {
      if (s.output_read) slots_.values[s.first_output] = plan_.constants[step];
      return;
    }
    if (s.forwards_ref && forward_reference(s, step)) return;
    run_kernel_step(s, step, buf);
  }
  // A Merge that takes input i, whose value is `v`.
  void take_merge_input(const PlanStep& s, std::size_t step, std::uint32_t i, Value&& v) {
    if (v.is_none())
      throw InternalError("Merge found no value in its input " + std::to_string(i),
                          plan_.nodes[step].name);
    set_output(s, 0, std::move(v));
    if (s.output_read) set_output(s, 1, merge_index(i));
    inputs_read(s);
  }

  // Runs a loop: its steps once per iteration, while its LoopCond comes out true. Its
  // Enters run in the first iteration only; before each other one, its Merges find the
  // loop variables' Enters dead and take the NextIterations' values instead.
  void run_frame(std::int32_t f, StepBuffers& buf) {
    const PlanFrame& frame = plan_.frames[static_cast<std::size_t>(f)];
    for (std::int64_t iteration = 0;; ++iteration) {
      for (std::uint32_t slot : frame.reset_slots) {
        slots_.clear(slot);
        slots_.dead[slot] = 0;
      }
      for (std::uint32_t slot : iteration == 0 ? frame.next_slots : frame.entered_slots) {
        slots_.clear(slot);
        slots_.dead[slot] = 1;
      }
      std::fill(scratch_.dead_steps.begin() + frame.first_step,
                scratch_.dead_steps.begin() + frame.end_step, std::uint8_t{0});
      for (std::uint32_t p = frame.begin; p < frame.end;) {
        const std::int32_t nested = plan_.frame_at[p];
        if (nested >= 0 && nested != f) {
          run_loop(nested, buf);
          p = plan_.frames[static_cast<std::size_t>(nested)].end;
          continue;
        }
        const std::uint32_t step = plan_.active_steps[p++];
        if (iteration > 0 && plan_.steps[step].enters_frame) continue;
        run_step(step, buf);
      }
      if (!another_iteration(frame)) return;
    }
  }
  // What LoopCond `step` would read from `slot`, in its stead: whether another iteration
  // follows.
  bool take_condition(std::uint32_t slot, std::size_t step) {
    Value v;
    slots_.take(slot, plan_.nodes[step].name, v);
    if (v.is_none())
      throw InternalError("LoopCond found no value in its input", plan_.nodes[step].name);
    return v.on_device() ? devices_.to_host(v).scalar<bool>() : v.scalar<bool>();
  }
  bool another_iteration(const PlanFrame& frame) {
    if (frame.loop_cond_slot < 0) return false;
    const auto slot = static_cast<std::size_t>(frame.loop_cond_slot);
    if (slots_.dead[slot] || slots_.values[slot].is_none()) return false;
    const Value& v = slots_.values[slot];
    return v.on_device() ? devices_.to_host(v).scalar<bool>() : v.scalar<bool>();
  }

  // ---- dead tensors (runtime/deadness.hpp) ------------------------------------------
  // Whether a guarded step finds a dead input or control input. A Merge and a
  // ControlTrigger run anyway.
  bool meets_dead(const PlanStep& s, std::size_t step) const {
    if (plan_.nodes[step].def->reads_dead || plan_.nodes[step].def->never_dead) return false;
    for (std::uint32_t k = s.first_input; k < s.first_input + s.num_inputs; ++k)
      if (slots_.dead[plan_.input_slots[k]]) return true;
    for (std::uint32_t c = s.first_control; c < s.first_control + s.num_controls; ++c)
      if (scratch_.dead_steps[plan_.control_steps[c]]) return true;
    return false;
  }
  // The step does not run: it and its outputs are dead; its inputs are let go as if read.
  void die(const PlanStep& s, std::size_t step) {
    scratch_.dead_steps[step] = 1;
    for (std::uint32_t i = 0; i < s.num_outputs; ++i) slots_.dead[s.first_output + i] = 1;
    inputs_read(s);
  }

  // ---- fused clusters ----------------------------------------------------------------
  // Step `step` is a member of a fused cluster: capture what it reads, and at the last
  // member run the whole cluster.
  void run_fused_member(const PlanStep& s, StepBuffers& buf) {
    const auto k = static_cast<std::size_t>(s.cluster);
    const auto j = static_cast<std::size_t>(s.member);
    const FusedCluster& c = plan_.fusion.clusters[k];
    ClusterRun& r = scratch_.cluster_runs[k];
    if (!r.capture(plan_, c, j, slots_)) return unfuse(k, j, buf);
    if (j + 1 < c.steps.size()) return;
    bool ran = false;
    {
      const AllocationLimitScope memory_limit(session_.memory_limit_bytes);
      ran = r.run(plan_, c, devices_, s.device, session_.intra_op, slots_);
    }
    if (!ran) unfuse(k, j, buf);
  }

  // Gives up fusing cluster k in this run: members 0..upto run now, one by one, on the
  // values they captured; the rest run at their own steps. A member that cannot run (a
  // shape mismatch) fails here with its own name, as without fusion.
  void unfuse(std::size_t k, std::size_t upto, StepBuffers& buf) {
    const FusedCluster& c = plan_.fusion.clusters[k];
    ClusterRun& r = scratch_.cluster_runs[k];
    r.set_unfused();
    sweep_all_ = true;  // members' outputs land in slots dropped before they were written
    for (std::size_t j = 0; j <= upto; ++j) {
      const std::size_t step = c.steps[j];
      const PlanStep& s = plan_.steps[step];
      Value* args = scratch_.args.data() + s.first_input;
      for (std::size_t i = 0; i < s.num_inputs; ++i)
        args[i] = devices_.moved_to(r.member_input(plan_, c, j, i, slots_), s.device);
      call_kernel(s, step, args, buf);
    }
  }

  // ---- tensor lifetimes --------------------------------------------------------------
  // After step `step` has read its inputs. In order, a tensor goes after the step that
  // reads it last; on several threads, when its last reader has taken it (each reader
  // copies it before counting down, so whoever counts to zero is the last).
  void inputs_read(const PlanStep& s) {
    if (threaded_) return count_down_inputs(s);
    for (std::uint32_t d = s.first_drop; d < s.first_drop + s.num_drops; ++d)
      slots_.clear(plan_.drop_slots[d]);
  }
  void count_down_inputs(const PlanStep& s) {
    for (std::uint32_t k = s.first_input; k < s.first_input + s.num_inputs; ++k) {
      if (plan_.input_modes[k] == InputMode::constant || plan_.input_modes[k] == InputMode::direct)
        continue;
      const std::uint32_t slot = plan_.input_slots[k];
      if (plan_.schedule.slot_readers[slot] > 0 &&
          scratch_.queue.readers_left[slot].fetch_sub(1, std::memory_order_acq_rel) == 1)
        slots_.clear(slot);
    }
  }

  // Fetch f from its slot, on the host, into `v` (empty for an operation).
  void fetch(std::size_t f, Value& v) {
    const std::int64_t s = plan_.fetch_slots[f];
    if (s < 0) return;
    const auto slot = static_cast<std::size_t>(s);
    if (plan_.dead_tensors && slots_.dead[slot])
      throw InvalidArgumentError("Retval[" + std::to_string(f) + "] does not have value",
                                 plan_.fetch_names[f]);
    if (plan_.fetch_moves[f])
      slots_.take(slot, plan_.fetch_names[f], v);
    else
      v = slots_.read(slot, plan_.fetch_names[f]);
    if (v.on_device()) v = devices_.to_host(v);  // a fresh host buffer
  }

  // The run is over: nothing of it may stay in the scratch (fetched buffers would look
  // shared, and memory would stay held).
  void finish() {
    if (threaded_ || sweep_all_) {
      slots_.clear_all();
    } else {
      for (std::uint32_t slot : plan_.end_slots) slots_.clear(slot);
    }
    if (sweep_all_)
      for (ClusterRun& r : scratch_.cluster_runs) r.reset();
    finished_ = true;
  }
  // A step failed: let go of everything.
  void abandon() noexcept {
    slots_.clear_all();
    for (std::size_t k = 0; k < scratch_.args.size(); ++k)
      if (plan_.input_modes[k] != InputMode::constant && !scratch_.args[k].is_none())
        release(scratch_.args[k]);
    for (StepBuffers& b : scratch_.threads) b.clear();
    for (ClusterRun& r : scratch_.cluster_runs) r.reset();
    scratch_.queue.error = nullptr;
  }

  // ---- several threads ---------------------------------------------------------------
  // Each pool thread takes ready steps until every step is done or one has failed; a
  // step that fails stops new ones from starting, and the run rethrows its error.
  void run_on_threads() {
    const Schedule& schedule = plan_.schedule;
    StepQueue& q = scratch_.queue;
    q.start(schedule);
    const std::size_t total = plan_.steps.size();
    auto take_steps = [&](StepBuffers& buf) {
      std::unique_lock lock(q.mutex);
      for (;;) {
        q.wake.wait(lock, [&] { return q.head < q.tail || q.finished == total || q.error; });
        if (q.error || q.finished == total) return;
        const std::uint32_t step = q.ready[q.head++];
        lock.unlock();
        std::exception_ptr error;
        try {
          run_step(step, buf);
        } catch (...) {
          error = std::current_exception();
          buf.clear();
        }
        lock.lock();
        if (error) {
          if (!q.error) q.error = error;
          q.wake.notify_all();
          return;
        }
        std::size_t woken = 0;
        for (std::uint32_t k = schedule.successor_begin[step];
             k < schedule.successor_begin[step + 1]; ++k) {
          const std::uint32_t next = schedule.successors[k];
          if (--q.waiting_for[next] == 0) {
            q.ready[q.tail++] = next;
            ++woken;
          }
        }
        if (++q.finished == total) {
          q.wake.notify_all();
        } else {
          for (std::size_t w = 1; w < woken; ++w) q.wake.notify_one();  // this thread takes one
        }
      }
    };
    session_.inter_op->parallel_for(static_cast<std::int64_t>(num_threads_), 1,
                                    [&](std::int64_t begin, std::int64_t end) {
                                      for (std::int64_t t = begin; t < end; ++t)
                                        take_steps(scratch_.threads[static_cast<std::size_t>(t)]);
                                    });
    if (q.error) std::rethrow_exception(q.error);
  }

  const Plan& plan_;
  const RunDevices& devices_;
  SessionState& session_;
  ScratchLease lease_;
  RunScratch& scratch_;
  TensorSlots& slots_;
  StepResources step_resources_;
  std::size_t num_threads_ = 1;
  bool threaded_ = false;
  bool sweep_all_ = false;  // empty every slot at the end, not only Plan::end_slots
  bool finished_ = false;
};

// Runs `plan` with `feed_values` (in the order of Plan::feeds) and returns its fetches.
inline std::vector<Value> execute(const Plan& plan, std::span<const Backend* const> backends,
                                  const std::vector<Value>& feed_values, SessionState& session) {
  const RunDevices devices(backends);
  Run run(plan, devices, session);
  for (std::size_t i = 0; i < plan.feed_slots.size(); ++i) run.feed(i, feed_values[i]);
  run.go();
  return run.results();
}

// The same, given the graph the plan was made from (which the run does not read).
inline std::vector<Value> execute(const Plan& plan, const GraphState&,
                                  std::span<const Backend* const> backends,
                                  const std::vector<Value>& feed_values, SessionState& session) {
  return execute(plan, backends, feed_values, session);
}
// A plan on one backend.
inline std::vector<Value> execute(const Plan& plan, const GraphState&, const Backend& backend,
                                  const std::vector<Value>& feed_values, SessionState& session) {
  const Backend* one[] = {&backend};
  return execute(plan, one, feed_values, session);
}

}  // namespace symflow::detail

#undef SYMFLOW_EXECUTOR_INLINE
