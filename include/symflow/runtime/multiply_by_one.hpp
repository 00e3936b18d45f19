#pragma once
// Mul by a Const scalar 1, as a frozen graph keeps it from training (a dropout scale whose
// keep probability became 1): found when a plan is made, and run as its other input
// passed on, without a pass over the tensor. TensorFlow's graph optimizer removes the
// same multiplications (its constant folding replaces x * 1 by x). The bits are x's, as
// x * 1 gives them for every float, -0 and infinities included; only a signalling NaN,
// which the multiplication would have quieted, passes on unchanged. The graph is untouched.
//
// Taken only for plain float steps on a host device with fusion on
// (OptimizerOptions::do_fusion): outside loops, branches and fused clusters (a cluster's
// kernel runs the Mul in its own loop), with the scalar a Const or an Identity of one.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "symflow/backend/backend.hpp"
#include "symflow/graph/graph_state.hpp"
#include "symflow/runtime/conv_epilogue.hpp"

namespace symflow::detail {

// Output 0 is input `K`, the same buffer.
template <std::size_t K>
void pass_on_input(KernelContext& ctx) {
  ctx.set_output(0, ctx.input(K));
}

// Gives each Mul by a scalar Const 1 among the plan's steps the kernel that passes its
// other input on.
inline void elide_multiplications_by_one(const GraphState& g, const ConvEpiloguePlan& p,
                                         const std::vector<const Backend*>& backends,
                                         const std::vector<FusedKernelFn>& fusing,
                                         std::vector<KernelFn>& kernel_of_step) {
  auto is_one = [](const Value& v) {
    if (v.rank() != 0) return false;
    if (v.dtype() == DType::float32) return v.data<float>()[0] == 1.0f;
    if (v.dtype() == DType::float64) return v.data<double>()[0] == 1.0;
    return false;
  };
  for (std::size_t s = 0; s < p.order.size(); ++s) {
    const Node& mul = g.node(p.order[s]);
    if (!is_op(mul.def, "Mul") || mul.inputs.size() != 2 || !kernel_of_step[s]) continue;
    if ((!p.guarded.empty() && p.guarded[s]) ||
        (!p.cluster_of_step.empty() && p.cluster_of_step[s] >= 0))
      continue;
    const std::size_t d = p.device_of_step.empty() ? 0 : p.device_of_step[s];
    if (d >= backends.size() || d >= fusing.size() || !fusing[d] ||
        backends[d]->memory_space() != MemorySpace::host)
      continue;
    const DType dtype = mul.outputs[0].dtype;
    if (dtype != DType::float32 && dtype != DType::float64) continue;
    for (std::size_t k = 0; k < 2; ++k) {
      const std::int64_t c = constant_step_behind(g, p, p.input_slots[p.input_begin[s] + k]);
      if (c < 0 || !is_one(p.constants[static_cast<std::size_t>(c)])) continue;
      kernel_of_step[s] = k == 0 ? &pass_on_input<1> : &pass_on_input<0>;
      break;
    }
  }
}

}  // namespace symflow::detail
