#pragma once
// Runs a plan: each node once, in order, on the backend; fed tensors replace their
// producers' outputs; buffers are dropped after their last reader.
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
// Fused clusters (runtime/fusion.hpp) run as one kernel at their last member's step.
// Each member still reads its outside inputs at its own step; when the shapes met at
// run time do not suit the fused kernel, the members run one by one instead.
//
// Threads: with an inter-op pool (ConfigProto::inter_op_parallelism_threads > 1) and
// a plan with independent steps, the pool's threads take steps as soon as their
// dependencies (runtime/schedule.hpp) are done, and a tensor is dropped when its
// last reader has read it. Otherwise the calling thread runs the steps in order.

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "symflow/backend/backend.hpp"
#include "symflow/backend/kernel_context.hpp"
#include "symflow/backend/thread_pool.hpp"
#include "symflow/backend/variable_store.hpp"
#include "symflow/graph/graph_state.hpp"
#include "symflow/runtime/plan.hpp"

namespace symflow::detail {

// What a session keeps between runs: its variables and its kernels' own state.
// `node_state` grows (under the session's exclusive lock) before a plan that needs
// it runs; a deque, so growing it moves nothing that a running kernel holds.
struct NodeStateSlot {
  std::mutex mutex;  // held while a stateful kernel runs: concurrent runs take turns
  std::shared_ptr<void> state;
};
struct SessionState {
  VariableStore variables;
  std::deque<NodeStateSlot> node_state;  // by node id
  ThreadPool* intra_op = nullptr;        // the session's intra-op threads, if any
  ThreadPool* inter_op = nullptr;        // threads that run independent steps; null: none
  void reserve_nodes(std::size_t n) {
    if (node_state.size() < n) node_state.resize(n);
  }
};

// One produced tensor during a run: a value, or a reference to a variable.
struct TensorSlot {
  Value value;
  std::shared_ptr<VariableSlot> ref;
};

// The value behind a slot; reading an uninitialised variable is TensorFlow's
// FailedPreconditionError, reported on the node that reads it.
inline Value read_slot(const TensorSlot& s, const std::string& reader) {
  if (!s.ref) return s.value;
  std::lock_guard lock(s.ref->mutex);
  if (!s.ref->initialized)
    throw FailedPreconditionError("Attempting to use uninitialized value " + s.ref->name, reader);
  return s.ref->value;
}

// What one run knows about a fused cluster while it walks the plan: the values its
// members read from outside (each read at the member's own step, as the node would
// read it) and the shapes its members will have.
struct ClusterRun {
  std::vector<std::vector<Value>> captured;  // by member, by input; empty for inside inputs
  std::vector<Dims> dims;                    // by member
  std::vector<Value> inputs, outputs;        // of the fused kernel
  bool unfused = false;                      // this run executes the members one by one
  // Lets go of this run's values; the vectors keep their memory for the next run.
  void reset() {
    for (auto& member : captured)
      for (Value& v : member) v = Value();
    for (Value& v : inputs) v = Value();
    for (Value& v : outputs) v = Value();
    unfused = false;
  }
};

// A step's kernel arguments; each thread of a run has its own.
struct StepBuffers {
  std::vector<Value> inputs, outputs;
  std::vector<std::shared_ptr<VariableSlot>> ref_inputs, ref_outputs;
  void size_for(std::size_t max_inputs, std::size_t max_outputs) {
    inputs.resize(max_inputs);
    ref_inputs.resize(max_inputs);
    outputs.resize(max_outputs);
    ref_outputs.resize(max_outputs);
  }
  void clear() {
    for (auto& v : inputs) v = Value();
    for (auto& v : outputs) v = Value();
    for (auto& r : ref_inputs) r.reset();
    for (auto& r : ref_outputs) r.reset();
  }
};

// Which steps of a run on several threads are ready, done, or waiting; guarded by
// `mutex`, except the reader counts, which the threads count down as they read.
struct StepQueue {
  std::mutex mutex;
  std::condition_variable wake;
  std::vector<std::uint32_t> waiting_for;  // by step: unfinished predecessors
  std::vector<std::uint32_t> ready;        // every step enters once: a queue that never wraps
  std::size_t head = 0, tail = 0, finished = 0;
  std::exception_ptr error;  // the first step that failed; the others are not started
  std::unique_ptr<std::atomic<std::int32_t>[]> readers_left;  // by slot
  std::size_t num_slots = 0;

  void start(const Schedule& s) {
    waiting_for = s.predecessor_count;
    ready.resize(waiting_for.size());
    head = tail = finished = 0;
    error = nullptr;
    for (std::size_t step = 0; step < waiting_for.size(); ++step)
      if (waiting_for[step] == 0) ready[tail++] = static_cast<std::uint32_t>(step);
    if (num_slots != s.slot_readers.size()) {
      num_slots = s.slot_readers.size();
      readers_left = std::make_unique<std::atomic<std::int32_t>[]>(num_slots);
    }
    for (std::size_t i = 0; i < num_slots; ++i)
      readers_left[i].store(s.slot_readers[i], std::memory_order_relaxed);
  }
};

// The buffers one run needs besides the tensors themselves, kept by the plan and
// reused by its later runs; concurrent runs of one plan each take their own.
struct RunScratch {
  std::vector<TensorSlot> slots;
  std::vector<StepBuffers> threads;  // [0]: the calling thread's
  std::vector<ClusterRun> cluster_runs;
  StepQueue queue;
};
struct ScratchPool {
  std::mutex mutex;
  std::vector<std::unique_ptr<RunScratch>> free;
};

// Takes a scratch from the plan's pool and gives it back, emptied, at scope exit.
class ScratchLease {
 public:
  explicit ScratchLease(const Plan& plan) : pool_(static_cast<ScratchPool*>(plan.scratch.get())) {
    if (pool_) {
      std::lock_guard lock(pool_->mutex);
      if (!pool_->free.empty()) {
        scratch_ = std::move(pool_->free.back());
        pool_->free.pop_back();
      }
    }
    if (!scratch_) scratch_ = std::make_unique<RunScratch>();
    auto& s = *scratch_;
    s.slots.resize(plan.num_slots);
    if (s.threads.empty()) s.threads.resize(1);
    for (StepBuffers& b : s.threads) b.size_for(plan.max_inputs, plan.max_outputs);
    s.cluster_runs.resize(plan.fusion.clusters.size());
  }
  ~ScratchLease() {
    // Nothing of this run may stay alive in the pool: fetched buffers would look
    // shared, and memory would stay held.
    for (auto& slot : scratch_->slots)
      if (!slot.value.is_none() || slot.ref) slot = TensorSlot();
    for (auto& b : scratch_->threads) b.clear();
    for (auto& c : scratch_->cluster_runs) c.reset();
    scratch_->queue.error = nullptr;
    if (!pool_) return;
    std::lock_guard lock(pool_->mutex);
    pool_->free.push_back(std::move(scratch_));
  }
  ScratchLease(const ScratchLease&) = delete;
  ScratchLease& operator=(const ScratchLease&) = delete;
  RunScratch& operator*() const { return *scratch_; }

 private:
  ScratchPool* pool_;
  std::unique_ptr<RunScratch> scratch_;
};

// Gives a plan its scratch pool (make_plan's caller does it once).
inline void attach_scratch(Plan& plan) { plan.scratch = std::make_shared<ScratchPool>(); }

// `backends`: the session's devices, by index (device 0 for a plan without placement).
inline std::vector<Value> execute(const Plan& plan, const GraphState& g,
                                  std::span<const Backend* const> backends,
                                  const std::vector<Value>& feed_values, SessionState& session) {
  const Backend* device_memory = nullptr;  // the backend that copies device values out
  for (const Backend* b : backends)
    if (b->memory_space() == MemorySpace::device) device_memory = b;
  auto backend_of = [&](std::size_t step) -> const Backend& {
    return *backends[plan.device_of_step.empty() ? 0 : plan.device_of_step[step]];
  };
  // `v` in the memory of `target`.
  auto moved_to = [&](Value v, const Backend& target) -> Value {
    if (v.is_none() || v.memory_space() == target.memory_space()) return v;
    if (target.memory_space() == MemorySpace::device) return target.from_host(v);
    if (!device_memory) throw InternalError("A device value, and no device backend to copy it");
    return device_memory->to_host(v);
  };
  const Schedule& schedule = plan.schedule;
  const std::size_t num_threads =
      session.inter_op && schedule.width > 1
          ? std::min<std::size_t>(static_cast<std::size_t>(session.inter_op->num_threads()),
                                  schedule.width)
          : 1;
  const bool threaded = num_threads > 1;
  ScratchLease lease(plan);
  RunScratch& scratch = *lease;
  if (scratch.threads.size() < num_threads) {
    scratch.threads.resize(num_threads);
    for (StepBuffers& b : scratch.threads) b.size_for(plan.max_inputs, plan.max_outputs);
  }
  std::vector<TensorSlot>& slots = scratch.slots;
  for (std::size_t i = 0; i < plan.feed_slots.size(); ++i)
    slots[plan.feed_slots[i]].value = feed_values[i];
  session.reserve_nodes(plan.num_nodes);  // the Session did it already, under its lock
  auto input_slot = [&](std::size_t step, std::size_t i) -> TensorSlot& {
    return slots[plan.input_slots[plan.input_begin[step] + i]];
  };
  // After step `step` has read its inputs. In order, a tensor goes after the step
  // that reads it last; on several threads, when its last reader has taken it (each
  // reader copies it before counting down, so whoever counts to zero is the last).
  auto inputs_read = [&](std::size_t step) {
    if (!threaded) {
      for (std::uint32_t r : plan.release_slots[step]) slots[r] = TensorSlot();
      return;
    }
    for (std::uint32_t k = plan.input_begin[step]; k < plan.input_begin[step + 1]; ++k) {
      const std::uint32_t slot = plan.input_slots[k];
      if (schedule.slot_readers[slot] > 0 &&
          scratch.queue.readers_left[slot].fetch_sub(1, std::memory_order_acq_rel) == 1)
        slots[slot] = TensorSlot();
    }
  };

  // Runs one node's kernel on the first node.inputs.size() entries of `buf.inputs`
  // and stores its outputs.
  auto run_kernel = [&](std::size_t step, NodeId id, const Node& node, StepBuffers& buf) {
    const Backend& backend = backend_of(step);
    KernelFn kernel =
        plan.kernel_of_step.empty() ? backend.kernel(*node.def) : plan.kernel_of_step[step];
    if (!kernel)
      throw UnimplementedError("No " + std::string(backend.device_type()) + " kernel for op " +
                                   std::string(node.def->type),
                               node.name);
    const std::size_t n_in = node.inputs.size();
    const std::size_t n_out = node.outputs.size();
    std::span<Value> inputs(buf.inputs.data(), n_in);
    std::span<std::shared_ptr<VariableSlot>> ref_inputs(buf.ref_inputs.data(), n_in);
    std::span<Value> outputs(buf.outputs.data(), n_out);
    std::span<std::shared_ptr<VariableSlot>> ref_outputs(buf.ref_outputs.data(), n_out);
    NodeStateSlot& state = session.node_state[id.value];
    KernelContext ctx(
        node.name, node.attrs, inputs, outputs,
        {&session.variables, &state.state, ref_inputs, ref_outputs, session.intra_op, &backend});
    for (Value& v : inputs)
      if (v.memory_space() != backend.memory_space()) v = moved_to(std::move(v), backend);
    try {
      if (node.def->stateful) {
        std::lock_guard lock(state.mutex);
        kernel(ctx);
      } else {
        kernel(ctx);
      }
    } catch (const Error&) {
      throw;
    } catch (const std::exception& e) {
      throw InternalError(std::string(node.def->type) + " failed: " + e.what(), node.name);
    }
    const std::uint32_t first = plan.output_slot[step];
    for (std::size_t i = 0; i < n_out; ++i) {
      TensorSlot& out = slots[first + i];
      if (ref_outputs[i]) {
        out.ref = std::move(ref_outputs[i]);
      } else if (!outputs[i].is_none()) {
        out.value = std::move(outputs[i]);
      } else {
        throw InternalError(
            "Kernel of " + std::string(node.def->type) + " produced no output " + std::to_string(i),
            node.name);
      }
    }
    for (auto& v : inputs) v = Value();
    for (auto& r : ref_inputs) r.reset();
  };

  const Fusion& fusion = plan.fusion;
  std::vector<ClusterRun>& cluster_runs = scratch.cluster_runs;
  // Gives up fusing cluster k in this run: members 0..upto run now, one by one, on
  // the values they captured; the rest run at their own steps. A member that cannot
  // run (a shape mismatch) fails here with its own name, as without fusion.
  auto unfuse = [&](std::size_t k, std::size_t upto, StepBuffers& buf) {
    const FusedCluster& c = fusion.clusters[k];
    ClusterRun& r = cluster_runs[k];
    r.unfused = true;
    for (std::size_t j = 0; j <= upto; ++j) {
      const std::size_t step = c.steps[j];
      NodeId id = plan.order[step];
      const Node& node = g.node(id);
      const std::size_t n_in = node.inputs.size();
      for (std::size_t i = 0; i < n_in; ++i) {
        const int a = c.args[j][i];
        buf.inputs[i] =
            a >= 0 ? r.captured[j][i]
                   : slots[plan.output_slot[c.steps[static_cast<std::size_t>(-1 - a)]]].value;
      }
      run_kernel(step, id, node, buf);
    }
  };
  // Step `step` is member j of cluster k: capture what it reads, work out its shape,
  // and at the last member run the whole cluster.
  auto fused_step = [&](std::size_t k, std::size_t j, StepBuffers& buf) {
    const FusedCluster& c = fusion.clusters[k];
    ClusterRun& r = cluster_runs[k];
    if (r.captured.empty()) {
      r.captured.resize(c.steps.size());
      r.dims.resize(c.steps.size());
    }
    const std::size_t step = c.steps[j];
    const Node& node = g.node(plan.order[step]);
    const Backend& backend = backend_of(step);
    r.captured[j].assign(node.inputs.size(), Value());
    std::optional<Dims> dims;
    bool ok = true;
    for (std::size_t i = 0; i < node.inputs.size(); ++i) {
      const int a = c.args[j][i];
      const Dims* d = nullptr;
      if (a >= 0) {
        r.captured[j][i] = read_slot(input_slot(step, i), node.name);
        ok = ok && r.captured[j][i].dtype() == c.program.dtype;
        d = &r.captured[j][i].dims();
      } else {
        d = &r.dims[static_cast<std::size_t>(-1 - a)];
      }
      if (!ok) continue;
      if (i > 0 && !c.program.steps[j].def->broadcasts && *dims != *d) {
        ok = false;  // the kernel's own shape error, from the node-by-node path
        continue;
      }
      dims = i == 0 ? std::optional<Dims>(*d) : broadcast_dims(*dims, *d);
      ok = dims.has_value();
    }
    if (!ok) return unfuse(k, j, buf);
    r.dims[j] = std::move(*dims);
    if (j + 1 < c.steps.size()) return;

    // The last member: every output must have one shape, and a tensor read by
    // several members must have been the same buffer each time (a variable could
    // have been assigned in between).
    std::vector<Value>& inputs = r.inputs;
    inputs.resize(c.inputs.size());
    for (std::size_t e = 0; e < inputs.size(); ++e) {
      auto [m, i] = c.first_use[e];
      inputs[e] = r.captured[static_cast<std::size_t>(m)][static_cast<std::size_t>(i)];
    }
    for (std::size_t m = 0; m < c.steps.size(); ++m)
      for (std::size_t i = 0; i < c.args[m].size(); ++i)
        if (c.args[m][i] >= 0 &&
            !r.captured[m][i].shares_buffer_with(inputs[static_cast<std::size_t>(c.args[m][i])]))
          return unfuse(k, j, buf);
    for (Value& v : inputs) v = moved_to(std::move(v), backend);
    const Dims* out_dims = nullptr;
    for (std::size_t m = 0; m < c.steps.size(); ++m) {
      if (c.output_of[m] < 0) continue;
      if (out_dims && *out_dims != r.dims[m]) return unfuse(k, j, buf);
      out_dims = &r.dims[m];
    }
    std::vector<Value>& outputs = r.outputs;
    outputs.resize(static_cast<std::size_t>(c.program.num_outputs));
    bool ran = false;
    try {
      ran = out_dims && c.kernel(c.program, inputs, *out_dims, outputs, session.intra_op);
    } catch (const std::exception& e) {
      throw InternalError(std::string("Fused kernel failed: ") + e.what(), node.name);
    }
    if (!ran) return unfuse(k, j, buf);
    for (std::size_t m = 0; m < c.steps.size(); ++m)
      if (c.output_of[m] >= 0)
        slots[plan.output_slot[c.steps[m]]].value =
            std::move(outputs[static_cast<std::size_t>(c.output_of[m])]);
    r.reset();  // done: drop the captured inputs
  };

  auto run_step = [&](std::size_t step, StepBuffers& buf) {
    NodeId id = plan.order[step];
    const Node& node = g.node(id);
    const int cluster = fusion.cluster_of_step.empty() ? -1 : fusion.cluster_of_step[step];
    if (cluster >= 0 && !cluster_runs[static_cast<std::size_t>(cluster)].unfused) {
      fused_step(static_cast<std::size_t>(cluster),
                 static_cast<std::size_t>(fusion.member_of_step[step]), buf);
      inputs_read(step);
      return;
    }
    if (node.def->forwards_ref && !node.inputs.empty() && input_slot(step, 0).ref) {
      read_slot(input_slot(step, 0), node.name);  // uninitialised: fails here, as in TF
      slots[plan.output_slot[step]].ref = input_slot(step, 0).ref;  // read when consumed
      inputs_read(step);
      return;
    }
    if (!plan.constants.empty() && !plan.constants[step].is_none() &&
        backend_of(step).memory_space() == MemorySpace::host) {
      // What the CPU's Const kernel would output, without a KernelContext or the attr
      // lookup: a graph of small ops spends a good part of each run on its constants.
      slots[plan.output_slot[step]].value = plan.constants[step];
      return;
    }
    const std::size_t n_in = node.inputs.size();
    for (std::size_t i = 0; i < n_in; ++i) {
      TensorSlot& in = input_slot(step, i);
      if (node.def->takes_ref(i)) {
        if (!in.ref)
          throw InvalidArgumentError(
              "Input " + std::to_string(i) + " of " + node.name + " must be a variable reference",
              node.name);
        buf.ref_inputs[i] = in.ref;
      } else if (!threaded && !in.ref && plan.input_moves[plan.input_begin[step] + i]) {
        buf.inputs[i] = std::move(in.value);  // its last reader
      } else {
        buf.inputs[i] = read_slot(in, node.name);
      }
    }
    // On several threads, before the kernel: a kernel that holds the only handle to
    // an input's buffer may write its output there.
    if (threaded) inputs_read(step);
    run_kernel(step, id, node, buf);
    if (!threaded) inputs_read(step);
  };

  if (!threaded) {
    for (std::size_t step = 0; step < plan.order.size(); ++step) run_step(step, scratch.threads[0]);
  } else {
    // Each pool thread takes ready steps until every step is done or one has failed;
    // a step that fails stops new ones from starting, and the run rethrows its error.
    StepQueue& q = scratch.queue;
    q.start(schedule);
    const std::size_t total = plan.order.size();
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
    session.inter_op->parallel_for(static_cast<std::int64_t>(num_threads), 1,
                                   [&](std::int64_t begin, std::int64_t end) {
                                     for (std::int64_t t = begin; t < end; ++t)
                                       take_steps(scratch.threads[static_cast<std::size_t>(t)]);
                                   });
    if (q.error) std::rethrow_exception(q.error);
  }
  std::vector<Value> results;
  results.reserve(plan.fetches.size());
  for (std::size_t f = 0; f < plan.fetches.size(); ++f) {
    const std::int64_t s = plan.fetch_slots[f];
    Value v =
        s >= 0 ? read_slot(slots[static_cast<std::size_t>(s)], g.node(plan.fetches[f]->node).name)
               : Value();
    if (v.on_device()) v = device_memory->to_host(v);  // a fresh host buffer
    results.push_back(std::move(v));
  }
  for (auto& slot : slots) slot = TensorSlot();
  // A fetched buffer still owned elsewhere (a Const's value in the graph, a
  // variable's state) is copied, so that callers can write into what they get.
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (results[i].is_none()) continue;
    long in_results = 0;
    for (const Value& r : results) in_results += r.shares_buffer_with(results[i]) ? 1 : 0;
    if (results[i].buffer_owners() > in_results) {
      Value copy = results[i].clone();
      for (std::size_t j = i + 1; j < results.size(); ++j)
        if (results[j].shares_buffer_with(results[i]))
          results[j] = copy.reshaped(results[j].dims());
      results[i] = copy;
    }
  }
  return results;
}

// A plan on one backend.
inline std::vector<Value> execute(const Plan& plan, const GraphState& g, const Backend& backend,
                                  const std::vector<Value>& feed_values, SessionState& session) {
  const Backend* one[] = {&backend};
  return execute(plan, g, one, feed_values, session);
}

}  // namespace symflow::detail
