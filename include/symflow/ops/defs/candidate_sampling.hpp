#pragma once
// The candidate-sampling ops' descriptions (UniformCandidateSampler,
// LogUniformCandidateSampler, LearnedUnigramCandidateSampler, FixedUnigramCandidateSampler,
// AllCandidateSampler, ComputeAccidentalHits): their attr checks, shape functions and
// OpDefs. The samplers are stateful (each run draws new candidates) and have only a CPU
// kernel (backend/cpu/kernels/candidate_sampling.hpp); the graph-building functions are in
// ops/candidate_sampling_ops.hpp.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "symflow/core/dtype.hpp"
#include "symflow/core/errors.hpp"
#include "symflow/core/shape.hpp"
#include "symflow/ops/defs/op_def.hpp"
#include "symflow/ops/defs/shape_fn.hpp"

namespace symflow::detail {

// ValueError unless the int attr `attr` of a `op` node is at least `minimum` (the
// "int >= N" of TensorFlow's op registration).
inline void check_attr_minimum(const InferContext& c, std::string_view op, std::string_view attr,
                               std::int64_t minimum) {
  const std::int64_t value = c.attr<std::int64_t>(attr);
  if (value < minimum)
    throw ValueError("Attr '" + std::string(attr) + "' of '" + std::string(op) + "' Op passed " +
                     std::to_string(value) + " less than minimum " + std::to_string(minimum) + ".");
}

// TypeError unless input `i` (parameter `param` of `op`) is int64.
inline void check_int64_input(const InferContext& c, std::size_t i, std::string_view op,
                              std::string_view param) {
  if (c.dtype(i) != DType::int64)
    throw TypeError("Input '" + std::string(param) + "' of '" + std::string(op) + "' Op has type " +
                    std::string(dtype_name(c.dtype(i))) +
                    " that does not match expected type of int64.");
}

// The samplers' outputs: sampled_candidates [num_sampled] int64, true_expected_count
// [batch_size, num_true] float, sampled_expected_count [num_sampled] float. The columns of
// true_classes are checked against num_true only when the op runs, as in TensorFlow.
inline std::vector<TensorSpec> candidate_sampler_outputs(const InferContext& c,
                                                         std::string_view op) {
  check_int64_input(c, 0, op, "true_classes");
  check_attr_minimum(c, op, "num_true", 1);
  check_attr_minimum(c, op, "num_sampled", 1);
  const std::int64_t num_sampled = c.attr<std::int64_t>("num_sampled");
  const std::int64_t num_true = c.attr<std::int64_t>("num_true");
  require_rank(c.shape(0), 2);
  const std::int64_t batch_size = c.shape(0).has_rank() ? c.shape(0)[0] : -1;
  return {{DType::int64, Shape({num_sampled})},
          {DType::float32, Shape({batch_size, num_true})},
          {DType::float32, Shape({num_sampled})}};
}

template <const std::string_view& Op>
std::vector<TensorSpec> infer_range_sampler(const InferContext& c) {
  check_attr_minimum(c, Op, "range_max", 1);
  return candidate_sampler_outputs(c, Op);
}

template <const std::string_view& Op>
std::vector<TensorSpec> infer_fixed_unigram_sampler(const InferContext& c) {
  check_attr_minimum(c, Op, "range_max", 1);
  check_attr_minimum(c, Op, "num_shards", 1);
  check_attr_minimum(c, Op, "shard", 0);
  return candidate_sampler_outputs(c, Op);
}

template <const std::string_view& Op>
std::vector<TensorSpec> infer_all_sampler(const InferContext& c) {
  return candidate_sampler_outputs(c, Op);
}

inline std::vector<TensorSpec> infer_compute_accidental_hits(const InferContext& c) {
  constexpr std::string_view op = "ComputeAccidentalHits";
  check_int64_input(c, 0, op, "true_classes");
  check_int64_input(c, 1, op, "sampled_candidates");
  const std::int64_t num_true = c.attr<std::int64_t>("num_true");
  require_rank(c.shape(0), 2);
  if (c.shape(0).has_rank() && c.shape(0)[1] >= 0 && c.shape(0)[1] != num_true)
    throw ValueError("Dimension must be " + std::to_string(num_true) + " but is " +
                     std::to_string(c.shape(0)[1]));
  require_rank(c.shape(1), 1);
  return {{DType::int32, Shape({-1})}, {DType::int64, Shape({-1})}, {DType::float32, Shape({-1})}};
}

inline constexpr std::string_view kUniformCandidateSamplerType = "UniformCandidateSampler";
inline constexpr std::string_view kLogUniformCandidateSamplerType = "LogUniformCandidateSampler";
inline constexpr std::string_view kLearnedUnigramCandidateSamplerType =
    "LearnedUnigramCandidateSampler";
inline constexpr std::string_view kFixedUnigramCandidateSamplerType =
    "FixedUnigramCandidateSampler";
inline constexpr std::string_view kAllCandidateSamplerType = "AllCandidateSampler";

SYMFLOW_OP_DEF(kUniformCandidateSamplerOp,
               OpDef{.type = kUniformCandidateSamplerType,
                     .num_inputs = 1,
                     .infer = infer_range_sampler<kUniformCandidateSamplerType>,
                     .stateful = true,
                     .host_only = true});
SYMFLOW_OP_DEF(kLogUniformCandidateSamplerOp,
               OpDef{.type = kLogUniformCandidateSamplerType,
                     .num_inputs = 1,
                     .infer = infer_range_sampler<kLogUniformCandidateSamplerType>,
                     .stateful = true,
                     .host_only = true});
SYMFLOW_OP_DEF(kLearnedUnigramCandidateSamplerOp,
               OpDef{.type = kLearnedUnigramCandidateSamplerType,
                     .num_inputs = 1,
                     .infer = infer_range_sampler<kLearnedUnigramCandidateSamplerType>,
                     .stateful = true,
                     .host_only = true});
SYMFLOW_OP_DEF(kFixedUnigramCandidateSamplerOp,
               OpDef{.type = kFixedUnigramCandidateSamplerType,
                     .num_inputs = 1,
                     .infer = infer_fixed_unigram_sampler<kFixedUnigramCandidateSamplerType>,
                     .stateful = true,
                     .host_only = true});
SYMFLOW_OP_DEF(kAllCandidateSamplerOp, OpDef{.type = kAllCandidateSamplerType,
                                             .num_inputs = 1,
                                             .infer = infer_all_sampler<kAllCandidateSamplerType>,
                                             .stateful = true,
                                             .host_only = true});
SYMFLOW_OP_DEF(kComputeAccidentalHitsOp, OpDef{.type = "ComputeAccidentalHits",
                                               .num_inputs = 2,
                                               .infer = infer_compute_accidental_hits,
                                               .host_only = true});

}  // namespace symflow::detail
