#pragma once
// The candidate samplers of TensorFlow 1.x's tf.nn (uniform, log-uniform, learned and fixed
// unigram, all) and compute_accidental_hits, built as candidate_sampling_ops.py builds them:
// one node named after its op type, with the seeds resolved by get_seed (random_ops.hpp).
// The ops' descriptions are in ops/defs/candidate_sampling.hpp; their CPU kernels, which
// draw from Philox4x32-10 as TensorFlow's do, in backend/cpu/kernels/candidate_sampling.hpp.
// Nothing flows back through them (TensorFlow registers them as not differentiable).

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "symflow/ops/defs/candidate_sampling.hpp"
#include "symflow/ops/grad_context.hpp"
#include "symflow/ops/op_builder.hpp"
#include "symflow/ops/random_ops.hpp"

namespace symflow {

namespace nn {

// The three outputs of a candidate sampler.
struct CandidateSamples {
  Output sampled_candidates;      // int64 [num_sampled]
  Output true_expected_count;     // float [batch_size, num_true]
  Output sampled_expected_count;  // float [num_sampled]
};

struct CandidateSamplerOptions {
  std::optional<std::int64_t> seed = std::nullopt;  // the op seed; see get_seed
  std::string_view name = {};                       // the op type when empty
};

// Arguments of fixed_unigram_candidate_sampler: the weight of each id (`unigrams`),
// raised to `distortion`; `num_reserved_ids` ids of weight 0 come first; a shard keeps the
// ids whose number modulo `num_shards` is `shard`.
struct FixedUnigramOptions {
  std::vector<float> unigrams;
  double distortion = 1.0;
  std::int64_t num_reserved_ids = 0;
  std::int64_t num_shards = 1;
  std::int64_t shard = 0;
  std::optional<std::int64_t> seed = std::nullopt;
  std::string_view name = {};
};

// The three outputs of compute_accidental_hits: for each (row, sampled position) where a
// row's true class was sampled, the row, the position and -FLT_MAX.
struct AccidentalHits {
  Output indices;  // int32
  Output ids;      // int64
  Output weights;  // float
};

namespace detail_sampling {

inline Operation build_sampler(const OpDef& def, const Output& true_classes, AttrMap attrs,
                               std::optional<std::int64_t> seed, std::string_view name) {
  Graph g = graph_of({true_classes});
  // The seeds are read before the node exists, as TensorFlow's wrapper reads them.
  ::symflow::detail::SeedAttrs s = ::symflow::detail::seed_attrs(g, seed);
  attrs.emplace("seed", s.seed);
  attrs.emplace("seed2", s.seed2);
  ::symflow::detail::OpBuilder b(g, name, def.type);
  return b.build(def, {true_classes}, std::move(attrs));
}

inline CandidateSamples sampler_outputs(const Operation& op) {
  return {op.output(0), op.output(1), op.output(2)};
}

inline CandidateSamples range_sampler(const OpDef& def, const Output& true_classes,
                                      std::int64_t num_true, std::int64_t num_sampled, bool unique,
                                      std::int64_t range_max,
                                      const CandidateSamplerOptions& options) {
  return sampler_outputs(build_sampler(def, true_classes,
                                       {{"num_true", num_true},
                                        {"num_sampled", num_sampled},
                                        {"unique", unique},
                                        {"range_max", range_max}},
                                       options.seed, options.name));
}

}  // namespace detail_sampling

// tf.nn.uniform_candidate_sampler: num_sampled ids drawn uniformly from [0, range_max)
// (without repeats when `unique`), with the expected count of each true and sampled id.
// true_classes: int64 [batch_size, num_true].
inline CandidateSamples uniform_candidate_sampler(const Output& true_classes, std::int64_t num_true,
                                                  std::int64_t num_sampled, bool unique,
                                                  std::int64_t range_max,
                                                  const CandidateSamplerOptions& options = {}) {
  return detail_sampling::range_sampler(::symflow::detail::kUniformCandidateSamplerOp, true_classes,
                                        num_true, num_sampled, unique, range_max, options);
}

// tf.nn.log_uniform_candidate_sampler: ids drawn from the Zipfian distribution
// P(k) = log((k + 2) / (k + 1)) / log(range_max + 1).
inline CandidateSamples log_uniform_candidate_sampler(const Output& true_classes,
                                                      std::int64_t num_true,
                                                      std::int64_t num_sampled, bool unique,
                                                      std::int64_t range_max,
                                                      const CandidateSamplerOptions& options = {}) {
  return detail_sampling::range_sampler(::symflow::detail::kLogUniformCandidateSamplerOp,
                                        true_classes, num_true, num_sampled, unique, range_max,
                                        options);
}

// tf.nn.learned_unigram_candidate_sampler: ids drawn in proportion to how often they have
// been seen as true classes by this node (each id starts with a count of 1); each run
// counts its true classes after sampling.
inline CandidateSamples learned_unigram_candidate_sampler(
    const Output& true_classes, std::int64_t num_true, std::int64_t num_sampled, bool unique,
    std::int64_t range_max, const CandidateSamplerOptions& options = {}) {
  // Its counts are int32.
  if (range_max > 2147483647)
    throw ValueError("Value of range_max:" + std::to_string(range_max) + " is too large to handle");
  return detail_sampling::range_sampler(::symflow::detail::kLearnedUnigramCandidateSamplerOp,
                                        true_classes, num_true, num_sampled, unique, range_max,
                                        options);
}

// tf.nn.fixed_unigram_candidate_sampler with in-graph `unigrams` (a vocabulary file is not
// supported): ids drawn in proportion to unigrams[id] ** distortion.
inline CandidateSamples fixed_unigram_candidate_sampler(const Output& true_classes,
                                                        std::int64_t num_true,
                                                        std::int64_t num_sampled, bool unique,
                                                        std::int64_t range_max,
                                                        const FixedUnigramOptions& options) {
  FloatList unigrams;
  unigrams.items.assign(options.unigrams.begin(), options.unigrams.end());
  return detail_sampling::sampler_outputs(detail_sampling::build_sampler(
      ::symflow::detail::kFixedUnigramCandidateSamplerOp, true_classes,
      {{"num_true", num_true},
       {"num_sampled", num_sampled},
       {"unique", unique},
       {"range_max", range_max},
       {"vocab_file", std::string()},
       // the attr is a float: the kernel reads it as one
       {"distortion", static_cast<double>(static_cast<float>(options.distortion))},
       {"num_reserved_ids", options.num_reserved_ids},
       {"num_shards", options.num_shards},
       {"shard", options.shard},
       {"unigrams", std::move(unigrams)}},
      options.seed, options.name));
}

// tf.nn.all_candidate_sampler: the ids 0 .. num_sampled - 1, each with expected count 1
// (a test's stand-in for the other samplers).
inline CandidateSamples all_candidate_sampler(const Output& true_classes, std::int64_t num_true,
                                              std::int64_t num_sampled, bool unique,
                                              const CandidateSamplerOptions& options = {}) {
  return detail_sampling::sampler_outputs(detail_sampling::build_sampler(
      ::symflow::detail::kAllCandidateSamplerOp, true_classes,
      {{"num_true", num_true}, {"num_sampled", num_sampled}, {"unique", unique}}, options.seed,
      options.name));
}

// tf.nn.compute_accidental_hits: where a sampled candidate equals one of a row's true
// classes. true_classes: int64 [batch_size, num_true]; sampled_candidates: int64 vector.
inline AccidentalHits compute_accidental_hits(const Output& true_classes,
                                              const Output& sampled_candidates,
                                              std::int64_t num_true,
                                              const CandidateSamplerOptions& options = {}) {
  Graph g = graph_of({true_classes, sampled_candidates});
  ::symflow::detail::SeedAttrs s = ::symflow::detail::seed_attrs(g, options.seed);
  ::symflow::detail::OpBuilder b(g, options.name, "ComputeAccidentalHits");
  Operation op =
      b.build(::symflow::detail::kComputeAccidentalHitsOp, {true_classes, sampled_candidates},
              {{"num_true", num_true}, {"seed", s.seed}, {"seed2", s.seed2}});
  return {op.output(0), op.output(1), op.output(2)};
}

}  // namespace nn

namespace detail {

inline constexpr auto kCandidateSamplingOpEntries = std::to_array<OpEntry>({
    {&kUniformCandidateSamplerOp, not_differentiable},
    {&kLogUniformCandidateSamplerOp, not_differentiable},
    {&kLearnedUnigramCandidateSamplerOp, not_differentiable},
    {&kFixedUnigramCandidateSamplerOp, not_differentiable},
    {&kAllCandidateSamplerOp, not_differentiable},
    {&kComputeAccidentalHitsOp, not_differentiable},
});

}  // namespace detail

}  // namespace symflow
