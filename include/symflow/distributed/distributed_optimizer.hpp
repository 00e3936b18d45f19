#pragma once
// Horovod's DistributedOptimizer and broadcast_global_variables for symflow's TF1 optimizers.
//
// DistributedOptimizer wraps an optimizer: compute_gradients takes the optimizer's gradients
// and replaces each by its average over the ranks (the sum from an MpiAllreduce divided by
// MpiSize), so that apply_gradients updates every rank's variables alike, as one process
// trained on all the ranks' batches would. The gradients go in few fused allreduces: one
// MpiAllreduce node per dtype, holding at most `fusion_threshold_bytes` of gradients (more
// nodes only past it), so a step makes a few MPI calls however many variables there are.
// IndexedSlices gradients (a gather's) are allgathered, values and indices, as Horovod does.
//
// The graph is the same on every rank (the size is read when it runs), so the ranks run
// their collectives in the same order; build it after init() or before, as long as the
// session runs after init().

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "symflow/graph/collections.hpp"
#include "symflow/graph/scopes.hpp"
#include "symflow/ops/collective_ops.hpp"
#include "symflow/ops/control_ops.hpp"
#include "symflow/ops/math_ops.hpp"
#include "symflow/ops/state_ops.hpp"
#include "symflow/train/optimizer.hpp"
#include "symflow/variables/variable.hpp"

namespace symflow::distributed {

struct DistributedOptimizerOptions {
  // The name scope of the allreduces; empty: "Distributed" + the optimizer's name + "_Allreduce"
  // (DistributedAdam_Allreduce), as Horovod names it.
  std::string name = {};
  // Horovod's HOROVOD_FUSION_THRESHOLD: the most gradient bytes one MpiAllreduce node holds.
  std::size_t fusion_threshold_bytes = std::size_t{64} << 20;
};

class DistributedOptimizer {
 public:
  explicit DistributedOptimizer(train::Optimizer& optimizer,
                                DistributedOptimizerOptions options = {})
      : optimizer_(&optimizer), options_(std::move(options)) {
    if (options_.name.empty()) options_.name = "Distributed" + optimizer.get_name() + "_Allreduce";
    if (options_.fusion_threshold_bytes == 0)
      throw ValueError("DistributedOptimizer: fusion_threshold_bytes must be positive");
  }

  train::Optimizer& optimizer() const { return *optimizer_; }
  const std::string& get_name() const { return optimizer_->get_name(); }

  // The optimizer's (gradient, variable) pairs, each gradient averaged over the ranks.
  std::vector<train::GradAndVar> compute_gradients(
      const Output& loss, std::vector<Variable> var_list = {}, const Output& grad_loss = {},
      train::GateGradients gate_gradients = train::GATE_OP,
      AggregationMethod aggregation_method = AggregationMethod::ADD_N) {
    std::vector<train::GradAndVar> grads_and_vars = optimizer_->compute_gradients(
        loss, std::move(var_list), grad_loss, gate_gradients, aggregation_method);
    return average_gradients(grads_and_vars, loss.graph());
  }

  // The wrapped optimizer's apply_gradients, unchanged (the gradients are averaged already).
  Operation apply_gradients(const std::vector<train::GradAndVar>& grads_and_vars,
                            const std::optional<Variable>& global_step = std::nullopt,
                            std::string_view name = {}) {
    return optimizer_->apply_gradients(grads_and_vars, global_step, name);
  }

  // compute_gradients, then apply_gradients. ValueError when no variable gets a gradient.
  Operation minimize(const Output& loss, const train::MinimizeOptions& options = {}) {
    std::vector<train::GradAndVar> grads_and_vars =
        compute_gradients(loss, options.var_list, options.grad_loss, options.gate_gradients,
                          options.aggregation_method);
    bool any = false;
    for (const auto& [grad, var] : grads_and_vars) any = any || grad.valid();
    if (!any)
      throw ValueError("No gradients provided for any variable, between variables " +
                       train::detail::variable_list_repr(grads_and_vars) + " and loss " +
                       to_string(loss) + ".");
    return apply_gradients(grads_and_vars, options.global_step, options.name);
  }

  std::optional<Variable> get_slot(const Variable& var, std::string_view name) const {
    return optimizer_->get_slot(var, name);
  }
  std::vector<std::string> get_slot_names() const { return optimizer_->get_slot_names(); }

  // Each valid gradient replaced by its average over the ranks.
  std::vector<train::GradAndVar> average_gradients(
      const std::vector<train::GradAndVar>& grads_and_vars, Graph g) const {
    name_scope scope(g, options_.name);
    std::vector<train::GradAndVar> out = grads_and_vars;
    // Dense gradients grouped by dtype, in order, each group cut at the fusion threshold.
    std::map<DType, std::vector<std::vector<std::size_t>>> groups;
    std::map<DType, std::size_t> group_bytes;
    for (std::size_t i = 0; i < out.size(); ++i) {
      const Gradient& grad = out[i].first;
      if (!grad.valid() || grad.is_sparse()) continue;
      const DType dtype = grad.dtype();
      const std::int64_t elements = grad.dense().get_shape().num_elements();
      const std::size_t bytes =
          elements > 0 ? static_cast<std::size_t>(elements) * dtype_size(dtype) : 0;
      auto& list = groups[dtype];
      if (list.empty() || group_bytes[dtype] + bytes > options_.fusion_threshold_bytes) {
        list.emplace_back();
        group_bytes[dtype] = 0;
      }
      list.back().push_back(i);
      group_bytes[dtype] += bytes;
    }
    const Output ranks = size_op(g);
    std::map<DType, Output> divisors;
    auto divisor = [&](DType dtype) {
      auto [it, fresh] = divisors.emplace(dtype, Output{});
      if (fresh) it->second = cast(ranks, dtype);
      return it->second;
    };
    for (const auto& [dtype, list] : groups) {
      for (const std::vector<std::size_t>& members : list) {
        std::vector<Output> tensors;
        for (std::size_t i : members) tensors.push_back(out[i].first.dense());
        const std::vector<Output> summed = allreduce_n(tensors);
        for (std::size_t k = 0; k < members.size(); ++k)
          out[members[k]].first = Gradient(divide(summed[k], divisor(dtype)));
      }
    }
    for (auto& [grad, var] : out) {
      if (!grad.valid() || !grad.is_sparse()) continue;
      IndexedSlices slices = grad.sparse();
      slices.values = divide(allgather(slices.values), divisor(slices.values.dtype()));
      slices.indices = allgather(slices.indices);
      grad = Gradient(slices);
    }
    return out;
  }

 private:
  train::Optimizer* optimizer_;
  DistributedOptimizerOptions options_;
};

// hvd.broadcast_global_variables(root_rank): an op that sets every global variable of `g`
// (default graph) to root_rank's value, all of them in one MpiBroadcast. Run it once after
// the initializer (or a restore), so that every rank starts from the same state.
inline Operation broadcast_global_variables(int root_rank, Graph g = get_default_graph()) {
  std::vector<Variable> variables = variables_in(GraphKeys::GLOBAL_VARIABLES, g);
  if (variables.empty())
    throw ValueError("broadcast_global_variables: the graph has no global variables");
  if (root_rank < 0)
    throw ValueError("broadcast_global_variables: root_rank must be >= 0, got " +
                     std::to_string(root_rank));
  name_scope scope(g, "broadcast_global_variables");
  std::vector<Output> values;
  for (const Variable& v : variables) values.push_back(v.value());
  const std::vector<Output> broadcast = broadcast_n(values, root_rank);
  std::vector<Operation> assigns;
  for (std::size_t i = 0; i < variables.size(); ++i)
    assigns.push_back(assign(variables[i].ref(), broadcast[i]).op());
  return group(assigns, "group");
}

}  // namespace symflow::distributed
