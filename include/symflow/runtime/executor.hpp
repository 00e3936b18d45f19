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
// Fused clusters (runtime/fusion.hpp) run as one kernel at their last member's step.
// Each member still reads its outside inputs at its own step; when the shapes met at
// run time do not suit the fused kernel, the members run one by one instead.

#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "symflow/backend/backend.hpp"
#include "symflow/backend/kernel_context.hpp"
#include "symflow/backend/variable_store.hpp"
#include "symflow/graph/graph_state.hpp"
#include "symflow/runtime/plan.hpp"

namespace symflow::detail {

// What a session keeps between runs: its variables and its kernels' own state.
struct SessionState {
  VariableStore variables;
  std::vector<std::shared_ptr<void>> node_state;  // by node id
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
  bool unfused = false;                      // this run executes the members one by one
};

inline std::vector<Value> execute(const Plan& plan, const GraphState& g, const Backend& backend,
                                  const std::vector<Value>& feed_values, SessionState& session) {
  std::vector<std::vector<TensorSlot>> slots(g.nodes.size());
  auto slot = [&](TensorRef r) -> TensorSlot& {
    auto& outs = slots[r.node.value];
    auto index = static_cast<std::size_t>(r.index);
    if (outs.size() <= index) outs.resize(index + 1);
    return outs[index];
  };
  for (std::size_t i = 0; i < plan.feeds.size(); ++i) slot(plan.feeds[i]).value = feed_values[i];
  if (session.node_state.size() < g.nodes.size()) session.node_state.resize(g.nodes.size());

  // Runs one node's kernel on `inputs` and stores its outputs.
  auto run_kernel = [&](NodeId id, const Node& node, const std::vector<Value>& inputs,
                        const std::vector<std::shared_ptr<VariableSlot>>& ref_inputs) {
    KernelFn kernel = backend.kernel(*node.def);
    if (!kernel)
      throw UnimplementedError("No " + std::string(backend.device_type()) + " kernel for op " +
                                   std::string(node.def->type),
                               node.name);
    std::vector<Value> outputs(node.outputs.size());
    std::vector<std::shared_ptr<VariableSlot>> ref_outputs(node.outputs.size());
    KernelContext ctx(node.name, node.attrs, inputs, outputs,
                      {&session.variables, &session.node_state[id.value], ref_inputs, ref_outputs});
    try {
      kernel(ctx);
    } catch (const Error&) {
      throw;
    } catch (const std::exception& e) {
      throw InternalError(std::string(node.def->type) + " failed: " + e.what(), node.name);
    }
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      TensorSlot& out = slot({id, static_cast<int>(i)});
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
  };

  const Fusion& fusion = plan.fusion;
  std::vector<ClusterRun> cluster_runs(fusion.clusters.size());
  // Gives up fusing cluster k in this run: members 0..upto run now, one by one, on
  // the values they captured; the rest run at their own steps. A member that cannot
  // run (a shape mismatch) fails here with its own name, as without fusion.
  auto unfuse = [&](std::size_t k, std::size_t upto) {
    const FusedCluster& c = fusion.clusters[k];
    ClusterRun& r = cluster_runs[k];
    r.unfused = true;
    for (std::size_t j = 0; j <= upto; ++j) {
      NodeId id = plan.order[c.steps[j]];
      const Node& node = g.node(id);
      std::vector<Value> inputs(node.inputs.size());
      for (std::size_t i = 0; i < node.inputs.size(); ++i) {
        const int a = c.args[j][i];
        inputs[i] = a >= 0 ? r.captured[j][i]
                           : slot({plan.order[c.steps[static_cast<std::size_t>(-1 - a)]], 0}).value;
      }
      run_kernel(id, node, inputs, std::vector<std::shared_ptr<VariableSlot>>(inputs.size()));
    }
  };
  // Step `step` is member j of cluster k: capture what it reads, work out its shape,
  // and at the last member run the whole cluster.
  auto fused_step = [&](std::size_t k, std::size_t j) {
    const FusedCluster& c = fusion.clusters[k];
    ClusterRun& r = cluster_runs[k];
    if (r.captured.empty()) {
      r.captured.resize(c.steps.size());
      r.dims.resize(c.steps.size());
    }
    const Node& node = g.node(plan.order[c.steps[j]]);
    r.captured[j].assign(node.inputs.size(), Value());
    std::optional<Dims> dims;
    bool ok = true;
    for (std::size_t i = 0; i < node.inputs.size(); ++i) {
      const int a = c.args[j][i];
      const Dims* d = nullptr;
      if (a >= 0) {
        r.captured[j][i] = read_slot(slot(node.inputs[i]), node.name);
        ok = ok && r.captured[j][i].dtype() == c.program.dtype;
        d = &r.captured[j][i].dims();
      } else {
        d = &r.dims[static_cast<std::size_t>(-1 - a)];
      }
      if (!ok) continue;
      if (i > 0 && !node.def->elementwise->broadcasts && *dims != *d) {
        ok = false;  // the kernel's own shape error, from the node-by-node path
        continue;
      }
      dims = i == 0 ? std::optional<Dims>(*d) : broadcast_dims(*dims, *d);
      ok = dims.has_value();
    }
    if (!ok) return unfuse(k, j);
    r.dims[j] = std::move(*dims);
    if (j + 1 < c.steps.size()) return;

    // The last member: every output must have one shape, and a tensor read by
    // several members must have been the same buffer each time (a variable could
    // have been assigned in between).
    std::vector<Value> inputs(c.inputs.size());
    for (std::size_t e = 0; e < inputs.size(); ++e) {
      auto [m, i] = c.first_use[e];
      inputs[e] = r.captured[static_cast<std::size_t>(m)][static_cast<std::size_t>(i)];
    }
    for (std::size_t m = 0; m < c.steps.size(); ++m)
      for (std::size_t i = 0; i < c.args[m].size(); ++i)
        if (c.args[m][i] >= 0 &&
            !r.captured[m][i].shares_buffer_with(inputs[static_cast<std::size_t>(c.args[m][i])]))
          return unfuse(k, j);
    const Dims* out_dims = nullptr;
    for (std::size_t m = 0; m < c.steps.size(); ++m) {
      if (c.output_of[m] < 0) continue;
      if (out_dims && *out_dims != r.dims[m]) return unfuse(k, j);
      out_dims = &r.dims[m];
    }
    std::vector<Value> outputs(static_cast<std::size_t>(c.program.num_outputs));
    bool ran = false;
    try {
      ran = out_dims && fusion.kernel(c.program, inputs, *out_dims, outputs);
    } catch (const std::exception& e) {
      throw InternalError(std::string("Fused kernel failed: ") + e.what(), node.name);
    }
    if (!ran) return unfuse(k, j);
    for (std::size_t m = 0; m < c.steps.size(); ++m)
      if (c.output_of[m] >= 0)
        slot({plan.order[c.steps[m]], 0}).value =
            std::move(outputs[static_cast<std::size_t>(c.output_of[m])]);
    r = ClusterRun{};  // done: drop the captured inputs
  };

  std::vector<Value> inputs;
  std::vector<std::shared_ptr<VariableSlot>> ref_inputs;
  for (std::size_t step = 0; step < plan.order.size(); ++step) {
    NodeId id = plan.order[step];
    const Node& node = g.node(id);
    const int cluster = fusion.cluster_of_step.empty() ? -1 : fusion.cluster_of_step[step];
    if (cluster >= 0 && !cluster_runs[static_cast<std::size_t>(cluster)].unfused) {
      fused_step(static_cast<std::size_t>(cluster),
                 static_cast<std::size_t>(fusion.member_of_step[step]));
      for (const TensorRef& r : plan.release_after[step]) slot(r) = TensorSlot();
      continue;
    }
    if (node.def->forwards_ref && !node.inputs.empty() && slot(node.inputs[0]).ref) {
      read_slot(slot(node.inputs[0]), node.name);    // uninitialised: fails here, as in TF
      slot({id, 0}).ref = slot(node.inputs[0]).ref;  // an alias: read when consumed
      for (const TensorRef& r : plan.release_after[step]) slot(r) = TensorSlot();
      continue;
    }
    inputs.assign(node.inputs.size(), Value());
    ref_inputs.assign(node.inputs.size(), nullptr);
    for (std::size_t i = 0; i < node.inputs.size(); ++i) {
      TensorSlot& in = slot(node.inputs[i]);
      if (node.def->takes_ref(i)) {
        if (!in.ref)
          throw InvalidArgumentError(
              "Input " + std::to_string(i) + " of " + node.name + " must be a variable reference",
              node.name);
        ref_inputs[i] = in.ref;
      } else {
        inputs[i] = read_slot(in, node.name);
      }
    }
    run_kernel(id, node, inputs, ref_inputs);
    for (const TensorRef& r : plan.release_after[step]) slot(r) = TensorSlot();
  }

  std::vector<Value> results;
  for (const auto& f : plan.fetches)
    results.push_back(f ? read_slot(slot(*f), g.node(f->node).name) : Value());
  slots.clear();
  // A fetched buffer still owned elsewhere (a Const's value in the graph, a
  // variable's state) is copied, so that callers can write into what they get.
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (results[i].is_none()) continue;
    long in_results = 0;
    for (const Value& r : results) in_results += r.shares_buffer_with(results[i]) ? 1 : 0;
    if (results[i].buffer_owners() > in_results) {
      Value copy = results[i].clone();
      for (std::size_t j = i + 1; j < results.size(); ++j)
        if (results[j].shares_buffer_with(results[i])) results[j] = copy;
      results[i] = copy;
    }
  }
  return results;
}

}  // namespace symflow::detail
