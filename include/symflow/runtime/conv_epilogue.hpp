#pragma once
// Conv2D or DepthwiseConv2dNative -> FusedBatchNorm (inference) -> Relu or Relu6, as every
// frozen MobileNet-style CNN has them: found when a plan is made, and run as one kernel
// that applies the batch norm and the activation to each block of the convolution's
// output while it is in cache, instead of two more passes over the feature map in memory
// (TensorFlow's graph optimizer fuses the same chain into one kernel). The graph is
// untouched; the absorbed ops' steps stay and pass their input on (backend/conv_epilogue.hpp).
//
// A chain is taken only where nothing else can tell: the convolution's output (and the
// batch norm's, when the activation joins) has that one reader and is not fetched; the
// batch norm's other outputs are not read; its scale, offset, mean and variance are
// Consts of the channel count, or Identities of them (a frozen graph's); everything is NHWC float32
// on one device whose backend has an epilogue kernel, outside loops and branches, with fusion on
// (OptimizerOptions::do_fusion).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "symflow/backend/backend.hpp"
#include "symflow/backend/conv_epilogue.hpp"
#include "symflow/graph/graph_state.hpp"
#include "symflow/ops/defs/batch_norm_coefficients.hpp"

namespace symflow::detail {

// One chain found: the convolution's step and what its planned node gets.
struct ConvEpilogue {
  std::size_t conv_step = 0;
  Value center, multiplier, offset;  // float32 [channels]
  std::string activation;            // "", "Relu" or "Relu6"
};

// The coefficients of an inference batch norm of Consts, once for the plan: what the
// FusedBatchNorm kernel computes in each run (in double, rounded to float).
inline ConvEpilogue inference_coefficients(std::size_t conv_step, const Value& scale,
                                           const Value& offset, const Value& mean,
                                           const Value& variance, double epsilon) {
  const std::int64_t channels = scale.size();
  ConvEpilogue e{conv_step, Value(DType::float32, {channels}), Value(DType::float32, {channels}),
                 Value(DType::float32, {channels}), ""};
  for (std::int64_t c = 0; c < channels; ++c) {
    e.center.data<float>()[c] = mean.data<float>()[c];
    e.multiplier.data<float>()[c] = static_cast<float>(
        batch_norm_multiplier(scale.data<float>()[c], variance.data<float>()[c], epsilon));
    e.offset.data<float>()[c] = offset.data<float>()[c];
  }
  return e;
}

// What find_conv_epilogues reads of a plan in the making.
struct ConvEpiloguePlan {
  const std::vector<NodeId>& order;
  const std::vector<std::uint32_t>& output_slot;
  const std::vector<std::uint32_t>& input_begin;
  const std::vector<std::uint32_t>& input_slots;
  const std::vector<std::int64_t>& fetch_slots;
  const std::vector<std::int64_t>& step_of_slot;
  const std::vector<Value>& constants;
  const std::vector<std::uint8_t>& device_of_step;
  const std::vector<int>& cluster_of_step;
  const std::vector<bool>& guarded;
  const std::vector<bool>& kept_slots;
};

// Ops are told by type here: the plan compiles no op's description.
inline bool is_op(const OpDef* def, std::string_view type) { return def && def->type == type; }

inline bool is_batch_norm_op(const OpDef* def) {
  return is_op(def, "FusedBatchNorm") || is_op(def, "FusedBatchNormV2") ||
         is_op(def, "FusedBatchNormV3");
}

inline bool has_nhwc_format(const Node& n) {
  const auto it = n.attrs.find("data_format");
  if (it == n.attrs.end()) return true;
  const auto* s = std::get_if<std::string>(&it->second);
  return s && *s == "NHWC";
}

// The Const step whose value `slot` holds, through Identities (a frozen variable is
// "v/read", an Identity of the Const that replaced the variable), or -1.
inline std::int64_t constant_step_behind(const GraphState& g, const ConvEpiloguePlan& p,
                                         std::uint32_t slot) {
  for (int hops = 0; hops < 8; ++hops) {
    const std::int64_t producer = p.step_of_slot[slot];
    if (producer < 0) return -1;
    const auto at = static_cast<std::size_t>(producer);
    if (!p.constants[at].is_none()) return producer;
    const Node& n = g.node(p.order[at]);
    if (!is_op(n.def, "Identity") || n.inputs.size() != 1 || n.outputs[0].is_ref) return -1;
    slot = p.input_slots[p.input_begin[at]];
  }
  return -1;
}

// The chains of a plan's steps; each absorbed step's kernel in `kernel_of_step` becomes
// the pass-through kernel, and each convolution's its device's epilogue kernel.
inline std::vector<ConvEpilogue> find_conv_epilogues(const GraphState& g, const ConvEpiloguePlan& p,
                                                     const std::vector<const Backend*>& backends,
                                                     const std::vector<FusedKernelFn>& fusing,
                                                     std::vector<KernelFn>& kernel_of_step) {
  std::vector<ConvEpilogue> found;
  if (backends.empty()) return found;
  const std::size_t steps = p.order.size();
  const std::size_t slots = p.step_of_slot.size();
  // Each slot's readers (through the slot, or as a Const the step gets) and its last one.
  std::vector<std::int32_t> reads(slots, 0);
  std::vector<std::int64_t> reader(slots, -1), position(slots, -1);
  for (std::size_t s = 0; s < steps; ++s)
    for (std::uint32_t k = p.input_begin[s]; k < p.input_begin[s + 1]; ++k) {
      ++reads[p.input_slots[k]];
      reader[p.input_slots[k]] = static_cast<std::int64_t>(s);
      position[p.input_slots[k]] = k - p.input_begin[s];
    }
  for (std::int64_t f : p.fetch_slots)
    if (f >= 0) reads[static_cast<std::size_t>(f)] += 2;  // fetched: never absorbed
  for (std::size_t slot = 0; slot < p.kept_slots.size(); ++slot)
    if (p.kept_slots[slot]) reads[slot] += 2;
  auto device = [&](std::size_t s) -> std::size_t {
    return p.device_of_step.empty() ? 0 : p.device_of_step[s];
  };
  // A step the chain may take: a plain kernel step, not in a fused cluster or a loop.
  auto plain = [&](std::size_t s) {
    return (p.guarded.empty() || !p.guarded[s]) &&
           (p.cluster_of_step.empty() || p.cluster_of_step[s] < 0) && kernel_of_step[s];
  };
  // The one reader of output 0 of step s, at input `at`, or -1.
  auto only_reader = [&](std::size_t s, std::int64_t at) -> std::int64_t {
    const std::uint32_t slot = p.output_slot[s];
    if (reads[slot] != 1 || position[slot] != at) return -1;
    return reader[slot];
  };
  for (std::size_t s = 0; s < steps; ++s) {
    const Node& conv = g.node(p.order[s]);
    if (!is_op(conv.def, "Conv2D") && !is_op(conv.def, "DepthwiseConv2dNative")) continue;
    const std::size_t d = device(s);
    if (d >= backends.size() || d >= fusing.size() || !fusing[d] || !plain(s)) continue;
    if (backends[d]->memory_space() != MemorySpace::host) continue;
    const KernelFn fused_kernel = backends[d]->conv_epilogue_kernel(*conv.def);
    if (!fused_kernel || conv.outputs[0].dtype != DType::float32 || !has_nhwc_format(conv))
      continue;
    const std::int64_t bn_step = only_reader(s, 0);
    if (bn_step < 0) continue;
    const auto b = static_cast<std::size_t>(bn_step);
    const Node& bn = g.node(p.order[b]);
    if (!is_batch_norm_op(bn.def) || device(b) != d || !plain(b) || !has_nhwc_format(bn)) continue;
    const auto training = bn.attrs.find("is_training");
    if (training == bn.attrs.end() || !std::get_if<bool>(&training->second) ||
        std::get<bool>(training->second))
      continue;
    const auto eps = bn.attrs.find("epsilon");
    if (eps == bn.attrs.end() || !std::get_if<double>(&eps->second)) continue;
    bool others_read = false;
    for (std::uint32_t i = 1; i < bn.outputs.size(); ++i)
      others_read = others_read || reads[p.output_slot[b] + i] != 0;
    if (others_read || bn.inputs.size() != 5) continue;
    // Scale, offset, mean and variance: Consts of one float32 value per channel.
    const Shape& conv_shape = conv.outputs[0].shape;
    const std::int64_t channels =
        conv_shape.has_rank() && conv_shape.dims().size() == 4 ? conv_shape.dims()[3] : -1;
    if (channels < 0) continue;
    Value params[4];
    bool constant = true;
    for (std::size_t i = 0; i < 4 && constant; ++i) {
      const std::int64_t producer =
          constant_step_behind(g, p, p.input_slots[p.input_begin[b] + 1 + i]);
      constant = producer >= 0;
      if (!constant) break;
      params[i] = p.constants[static_cast<std::size_t>(producer)];
      constant = params[i].dtype() == DType::float32 && params[i].rank() == 1 &&
                 params[i].size() == channels;
    }
    if (!constant) continue;
    ConvEpilogue e = inference_coefficients(s, params[0], params[1], params[2], params[3],
                                            std::get<double>(eps->second));
    kernel_of_step[s] = fused_kernel;
    kernel_of_step[b] = &conv_epilogue::pass_through_kernel;
    if (const std::int64_t act_step = only_reader(b, 0); act_step >= 0) {
      const auto a = static_cast<std::size_t>(act_step);
      const Node& act = g.node(p.order[a]);
      if ((is_op(act.def, "Relu") || is_op(act.def, "Relu6")) && device(a) == d && plain(a) &&
          act.outputs[0].dtype == DType::float32) {
        e.activation = std::string(act.def->type);
        kernel_of_step[a] = &conv_epilogue::pass_through_kernel;
      }
    }
    found.push_back(std::move(e));
  }
  return found;
}

// Gives each chain's convolution its epilogue's attrs, once the plan's nodes are copied.
template <class PlannedNodes>
void attach_conv_epilogues(PlannedNodes& nodes, const std::vector<ConvEpilogue>& chains) {
  for (const ConvEpilogue& e : chains) {
    AttrMap& attrs = nodes[e.conv_step].attrs;
    attrs.insert_or_assign(std::string(conv_epilogue::kCenter), e.center);
    attrs.insert_or_assign(std::string(conv_epilogue::kMultiplier), e.multiplier);
    attrs.insert_or_assign(std::string(conv_epilogue::kOffset), e.offset);
    attrs.insert_or_assign(std::string(conv_epilogue::kActivation), e.activation);
  }
}

}  // namespace symflow::detail
