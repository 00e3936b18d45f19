#pragma once
// Runs a plan: each node once, in order, on the backend; fed tensors replace their
// producers' outputs; buffers are dropped after their last reader.

#include <exception>
#include <vector>

#include "symflow/backend/backend.hpp"
#include "symflow/backend/kernel_context.hpp"
#include "symflow/graph/graph_state.hpp"
#include "symflow/runtime/plan.hpp"

namespace symflow::detail {

inline std::vector<Value> execute(const Plan& plan, const GraphState& g, const Backend& backend,
                                  const std::vector<Value>& feed_values) {
  std::vector<std::vector<Value>> slots(g.nodes.size());
  auto slot = [&](TensorRef r) -> Value& {
    auto& outs = slots[r.node.value];
    if (outs.size() <= static_cast<std::size_t>(r.index))
      outs.resize(static_cast<std::size_t>(r.index) + 1);
    return outs[static_cast<std::size_t>(r.index)];
  };
  for (std::size_t i = 0; i < plan.feeds.size(); ++i) slot(plan.feeds[i]) = feed_values[i];

  std::vector<Value> inputs;
  for (std::size_t step = 0; step < plan.order.size(); ++step) {
    NodeId id = plan.order[step];
    const Node& node = g.node(id);
    KernelFn kernel = backend.kernel(*node.def);
    if (!kernel)
      throw UnimplementedError("No " + std::string(backend.device_type()) + " kernel for op " +
                                   std::string(node.def->type),
                               node.name);
    inputs.clear();
    for (const TensorRef& in : node.inputs) inputs.push_back(slot(in));
    std::vector<Value> outputs(node.outputs.size());
    KernelContext ctx(node.name, node.attrs, inputs, outputs);
    try {
      kernel(ctx);
    } catch (const Error&) {
      throw;
    } catch (const std::exception& e) {
      throw InternalError(std::string(node.def->type) + " failed: " + e.what(), node.name);
    }
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      if (outputs[i].is_none())
        throw InternalError(
            "Kernel of " + std::string(node.def->type) + " produced no output " + std::to_string(i),
            node.name);
      slot({id, static_cast<int>(i)}) = std::move(outputs[i]);
    }
    for (const TensorRef& r : plan.release_after[step]) slot(r) = Value();
  }

  std::vector<Value> results;
  for (const auto& f : plan.fetches) results.push_back(f ? slot(*f) : Value());
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
