#pragma once
// A fused cluster (runtime/fusion.hpp) in one run. Each member still reads its outside
// inputs at its own step, as the node would read them; the cluster runs as one kernel
// at its last member's step. When the dtypes or shapes met at run time do not suit
// the fused kernel (or the kernel declines them), the run gives up fusing the cluster:
// the members reached so far run one by one on the values they captured, and the rest
// at their own steps (the executor does that; ClusterRun says when).

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "symflow/core/errors.hpp"
#include "symflow/core/shape.hpp"
#include "symflow/core/value.hpp"
#include "symflow/runtime/plan.hpp"
#include "symflow/runtime/run_state.hpp"

namespace symflow::detail {

// What one run knows about a fused cluster while it walks the plan: the values its
// members read from outside and the shapes its members will have.
class ClusterRun {
 public:
  // Sizes the buffers for cluster `c` (once per scratch).
  void size_for(const FusedCluster& c) {
    captured_.resize(c.steps.size());
    for (std::size_t j = 0; j < c.steps.size(); ++j) captured_[j].resize(c.args[j].size());
    dims_.resize(c.steps.size());
    inputs_.resize(c.inputs.size());
    outputs_.resize(static_cast<std::size_t>(c.program.num_outputs));
  }

  // This run executes the cluster's members one by one (from the member that found
  // the cluster unfit on).
  bool unfused() const { return unfused_; }
  void set_unfused() { unfused_ = true; }

  // Input i of member j as the member itself reads it: its captured value, or the
  // output of the member it comes from (already in `slots` once that member ran).
  const Value& member_input(const Plan& plan, const FusedCluster& c, std::size_t j, std::size_t i,
                            const TensorSlots& slots) const {
    const int a = c.args[j][i];
    if (a >= 0) return captured_[j][i];
    return slots.values[plan.output_slot[c.steps[static_cast<std::size_t>(-1 - a)]]];
  }

  // Member j reached its step: read its outside inputs from `slots` and work out its
  // shape. False when the cluster cannot run fused in this run (a dtype or shape the
  // fused kernel does not take: the node-by-node path reports what is wrong, if
  // anything).
  bool capture(const Plan& plan, const FusedCluster& c, std::size_t j, const TensorSlots& slots) {
    const std::size_t step = c.steps[j];
    const PlanStep& s = plan.steps[step];
    const std::string& name = plan.nodes[step].name;
    // Every outside input first: the members run one by one on them if it comes to that.
    bool ok = true;
    for (std::size_t i = 0; i < s.num_inputs; ++i) {
      if (c.args[j][i] < 0) continue;
      Value& v = captured_[j][i];
      v = slots.read(plan.input_slots[s.first_input + i], name);
      ok = ok && v.dtype() == c.program.dtype;
    }
    if (!ok) return false;
    std::optional<Dims> dims;
    for (std::size_t i = 0; i < s.num_inputs; ++i) {
      const int a = c.args[j][i];
      const Dims& d = a >= 0 ? captured_[j][i].dims() : dims_[static_cast<std::size_t>(-1 - a)];
      if (i > 0 && !c.program.steps[j].def->broadcasts && *dims != d)
        return false;  // the kernel's own shape error, from the node-by-node path
      dims = i == 0 ? std::optional<Dims>(d) : broadcast_dims(*dims, d);
      if (!dims) return false;
    }
    dims_[j] = std::move(*dims);
    return true;
  }

  // After the last member's capture: runs the fused kernel on the device `devices`
  // gives `device` and stores the cluster's outputs in their slots. False when the
  // cluster cannot run fused (outputs of different shapes, a tensor read by several
  // members that was not one buffer each time, the kernel declining).
  bool run(const Plan& plan, const FusedCluster& c, const RunDevices& devices, std::size_t device,
           ThreadPool* intra_op, TensorSlots& slots) {
    for (std::size_t e = 0; e < inputs_.size(); ++e) {
      auto [m, i] = c.first_use[e];
      inputs_[e] = captured_[static_cast<std::size_t>(m)][static_cast<std::size_t>(i)];
    }
    // A variable could have been assigned between two members' reads.
    for (std::size_t m = 0; m < c.steps.size(); ++m)
      for (std::size_t i = 0; i < c.args[m].size(); ++i)
        if (c.args[m][i] >= 0 &&
            !captured_[m][i].shares_buffer_with(inputs_[static_cast<std::size_t>(c.args[m][i])]))
          return false;
    for (Value& v : inputs_) v = devices.moved_to(std::move(v), device);
    const Dims* out_dims = nullptr;
    for (std::size_t m = 0; m < c.steps.size(); ++m) {
      if (c.output_of[m] < 0) continue;
      if (out_dims && *out_dims != dims_[m]) return false;
      out_dims = &dims_[m];
    }
    bool ran = false;
    try {
      ran = out_dims && c.kernel(c.program, inputs_, *out_dims, outputs_, intra_op);
    } catch (const ResourceExhaustedError& e) {
      throw ResourceExhaustedError(e.message(), plan.nodes[c.steps.back()].name);
    } catch (const std::exception& e) {
      throw InternalError(std::string("Fused kernel failed: ") + e.what(),
                          plan.nodes[c.steps.back()].name);
    }
    if (!ran) return false;
    for (std::size_t m = 0; m < c.steps.size(); ++m)
      if (c.output_of[m] >= 0)
        slots.values[plan.output_slot[c.steps[m]]] =
            std::move(outputs_[static_cast<std::size_t>(c.output_of[m])]);
    reset();  // done: drop the captured inputs
    return true;
  }

  // Lets go of this run's values; the buffers keep their memory for the next run.
  void reset() {
    for (auto& member : captured_)
      for (Value& v : member)
        if (!v.is_none()) release(v);
    for (Value& v : inputs_)
      if (!v.is_none()) release(v);
    for (Value& v : outputs_)
      if (!v.is_none()) release(v);
    unfused_ = false;
  }

 private:
  std::vector<std::vector<Value>> captured_;  // by member, by input; none for inside inputs
  std::vector<Dims> dims_;                    // by member
  std::vector<Value> inputs_, outputs_;       // of the fused kernel
  bool unfused_ = false;
};

}  // namespace symflow::detail
