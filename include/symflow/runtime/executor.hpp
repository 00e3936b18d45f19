#pragma once
// Runs a plan: each node once, in order, on the backend; fed tensors replace their
// producers' outputs; buffers are dropped after their last reader.
//
// Variables: a reference output (VariableV2, Assign, and an Identity of either) is
// read when a consumer runs, or handed to the consumer itself when the op writes
// through it; fetched references are read after the whole run. Ops that no data or
// control edge orders run in the order they were created, so every run of a graph
// does the same thing.

#include <exception>
#include <memory>
#include <mutex>
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

  std::vector<Value> inputs;
  std::vector<std::shared_ptr<VariableSlot>> ref_inputs;
  for (std::size_t step = 0; step < plan.order.size(); ++step) {
    NodeId id = plan.order[step];
    const Node& node = g.node(id);
    KernelFn kernel = backend.kernel(*node.def);
    if (!kernel)
      throw UnimplementedError("No " + std::string(backend.device_type()) + " kernel for op " +
                                   std::string(node.def->type),
                               node.name);
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
