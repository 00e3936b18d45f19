#pragma once
// The candidate-sampling ops' CPU kernels (ops/defs/candidate_sampling.hpp describes the
// ops). Each sampler node keeps, per session, a Philox4x32-10 stream keyed by its (seed,
// seed2) and its range sampler; each run reserves 2048 32-bit numbers per sampled
// candidate from the stream and draws from it exactly as TensorFlow's range samplers do
// (range_sampler.cc, simple_philox, weighted_picker, distribution_sampler), with
// TensorFlow's float and double arithmetic, so a seeded node gives TensorFlow's
// candidates and expected counts run after run. Ends with kCandidateSamplingCpuKernels.

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "symflow/backend/cpu/kernel_table.hpp"
#include "symflow/backend/cpu/kernels/random.hpp"
#include "symflow/backend/kernel_context.hpp"
#include "symflow/ops/defs/candidate_sampling.hpp"

namespace symflow::detail {

// ---- drawing from one reserved stream (TensorFlow's SimplePhilox) ----------------------

class SimplePhilox {
 public:
  explicit SimplePhilox(PhiloxRandom& gen) : single_(gen) {}

  std::uint32_t rand32() { return single_(); }
  std::uint64_t rand64() {
    const std::uint32_t lo = single_(), hi = single_();
    return lo | (std::uint64_t{hi} << 32);
  }
  float rand_float() { return uint32_to_float(single_()); }
  double rand_double() {
    const std::uint32_t x0 = single_(), x1 = single_();
    return uint64_to_double(x0, x1);
  }
  // Exactly uniform in [0, n): draws below 2^bits mod n are rejected.
  std::uint32_t uniform(std::uint32_t n) {
    return exact_uniform(n, [&] { return rand32(); });
  }
  std::uint64_t uniform64(std::uint64_t n) {
    return exact_uniform(n, [&] { return rand64(); });
  }

 private:
  template <class U, class Draw>
  static U exact_uniform(U n, Draw draw) {
    if (n == 0) return static_cast<U>(draw() * n);  // one draw all the same
    if ((n & (n - 1)) == 0) return draw() & (n - 1);
    const U rem = static_cast<U>(static_cast<U>(~U{0}) % n + 1);
    U rnd;
    do {
      rnd = draw();
    } while (rnd < rem);
    return rnd % n;
  }

  SingleSample single_;
};

// ---- range samplers ---------------------------------------------------------------------

// A distribution over [0, range) that draws one id at a time and knows each id's
// probability (as a float, which the expected counts are computed from).
class RangeSampler {
 public:
  explicit RangeSampler(std::int64_t range) : range_(range) {}
  virtual ~RangeSampler() = default;
  RangeSampler(const RangeSampler&) = delete;
  RangeSampler& operator=(const RangeSampler&) = delete;

  std::int64_t range() const { return range_; }
  virtual std::int64_t sample(SimplePhilox& rnd) const = 0;
  virtual float probability(std::int64_t value) const = 0;
  // The learned unigram sampler counts the true classes of each run.
  virtual void update(std::span<const std::int64_t> /*values*/) {}

  // `batch` drawn from the distribution (each id once when `unique`: repeats are drawn
  // again), and the expected count of each of `batch` and `extras` in such a batch.
  virtual void sample_batch(SimplePhilox& rnd, bool unique, std::span<std::int64_t> batch,
                            std::span<float> batch_expected_count,
                            std::span<const std::int64_t> extras,
                            std::span<float> extras_expected_count) const {
    const int batch_size = static_cast<int>(batch.size());
    int num_tries = 0;
    if (unique) {
      std::unordered_set<std::int64_t> used(batch.size());
      int num_picked = 0;
      while (num_picked < batch_size) {
        ++num_tries;
        const std::int64_t value = sample(rnd);
        if (used.insert(value).second) batch[static_cast<std::size_t>(num_picked++)] = value;
      }
    } else {
      for (auto& value : batch) value = sample(rnd);
      num_tries = batch_size;
    }
    for (std::size_t i = 0; i < batch.size(); ++i)
      batch_expected_count[i] = expected_count(probability(batch[i]), batch_size, num_tries);
    for (std::size_t i = 0; i < extras.size(); ++i)
      extras_expected_count[i] = expected_count(probability(extras[i]), batch_size, num_tries);
  }

 protected:
  // p * batch_size without rejections; with them, the chance that an id is among
  // num_tries draws, 1 - (1 - p)^num_tries, in float as TensorFlow computes it.
  static float expected_count(float p, int batch_size, int num_tries) {
    if (num_tries == batch_size) return p * static_cast<float>(batch_size);
    return -std::expm1(static_cast<float>(num_tries) * std::log1p(-p));
  }

 private:
  std::int64_t range_;
};

// All ids of [0, num_sampled), each expected once.
class AllSampler final : public RangeSampler {
 public:
  using RangeSampler::RangeSampler;
  std::int64_t sample(SimplePhilox&) const override { return 0; }  // never called
  float probability(std::int64_t) const override { return 1.0f; }  // never called
  void sample_batch(SimplePhilox&, bool, std::span<std::int64_t> batch,
                    std::span<float> batch_expected_count, std::span<const std::int64_t>,
                    std::span<float> extras_expected_count) const override {
    for (std::size_t i = 0; i < batch.size(); ++i) batch[i] = static_cast<std::int64_t>(i);
    std::fill(batch_expected_count.begin(), batch_expected_count.end(), 1.0f);
    std::fill(extras_expected_count.begin(), extras_expected_count.end(), 1.0f);
  }
};

class UniformSampler final : public RangeSampler {
 public:
  explicit UniformSampler(std::int64_t range)
      : RangeSampler(range), inv_range_(static_cast<float>(1.0 / static_cast<double>(range))) {}
  std::int64_t sample(SimplePhilox& rnd) const override {
    return static_cast<std::int64_t>(rnd.uniform64(static_cast<std::uint64_t>(range())));
  }
  float probability(std::int64_t) const override { return inv_range_; }

 private:
  float inv_range_;
};

// P(k) = log((k + 2) / (k + 1)) / log(range + 1): exp(u * log(range + 1)) - 1, truncated.
class LogUniformSampler final : public RangeSampler {
 public:
  explicit LogUniformSampler(std::int64_t range)
      : RangeSampler(range), log_range_(std::log1p(static_cast<double>(range))) {}
  std::int64_t sample(SimplePhilox& rnd) const override {
    const auto value = static_cast<std::int64_t>(std::exp(rnd.rand_double() * log_range_)) - 1;
    return value % range();
  }
  float probability(std::int64_t value) const override {
    const auto v = static_cast<double>(value);
    return static_cast<float>(std::log((v + 2.0) / (v + 1.0)) / log_range_);
  }

 private:
  double log_range_;
};

// TensorFlow's WeightedPicker: int32 weights at the leaves of a complete binary tree
// whose inner nodes hold their children's sums, so that a pick and an update walk one
// path.
class WeightedPicker {
 public:
  explicit WeightedPicker(int n) {
    int levels = 1;
    while (level_size(levels - 1) < static_cast<std::size_t>(n)) ++levels;
    levels_.resize(static_cast<std::size_t>(levels));
    for (int l = 0; l < levels; ++l) levels_[static_cast<std::size_t>(l)].assign(level_size(l), 0);
    std::fill_n(levels_.back().begin(), n, 1);
    for (int l = levels - 2; l >= 0; --l) {
      auto& level = levels_[static_cast<std::size_t>(l)];
      const auto& children = levels_[static_cast<std::size_t>(l) + 1];
      for (std::size_t i = 0; i < level.size(); ++i)
        level[i] = children[2 * i] + children[2 * i + 1];
    }
  }

  std::int32_t total_weight() const { return levels_[0][0]; }
  std::int32_t weight(std::int64_t index) const {
    return levels_.back()[static_cast<std::size_t>(index)];
  }
  void set_weight(std::int64_t index, std::int32_t w) {
    const std::int32_t delta = w - weight(index);
    auto i = static_cast<std::size_t>(index);
    for (auto level = levels_.rbegin(); level != levels_.rend(); ++level, i >>= 1)
      (*level)[i] += delta;
  }

  int pick(SimplePhilox& rnd) const {
    const std::int32_t total = total_weight();
    if (total == 0) return -1;
    // An int32 range: Rand32 masked or rejected as SimplePhilox::Uniform does.
    auto position = static_cast<std::int32_t>(rnd.uniform(static_cast<std::uint32_t>(total)));
    int index = 0;
    for (std::size_t l = 1; l < levels_.size(); ++l) {
      const std::int32_t left = levels_[l][2 * static_cast<std::size_t>(index)];
      if (position < left) {
        index = 2 * index;
      } else {
        index = 2 * index + 1;
        position -= left;
      }
    }
    return index;
  }

 private:
  static std::size_t level_size(int level) { return std::size_t{1} << level; }

  std::vector<std::vector<std::int32_t>> levels_;
};

// Draws in proportion to how often each id was a true class, every id counted once to
// begin with.
class LearnedUnigramSampler final : public RangeSampler {
 public:
  explicit LearnedUnigramSampler(std::int64_t range)
      : RangeSampler(range), picker_(static_cast<int>(range)) {}
  std::int64_t sample(SimplePhilox& rnd) const override { return picker_.pick(rnd); }
  float probability(std::int64_t value) const override {
    return static_cast<float>(picker_.weight(value)) / static_cast<float>(picker_.total_weight());
  }
  void update(std::span<const std::int64_t> values) override {
    // No count past int32's range.
    const auto room =
        static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max() - picker_.total_weight());
    const std::size_t n = std::min(values.size(), room);
    for (std::size_t i = 0; i < n; ++i)
      picker_.set_weight(values[i], picker_.weight(values[i]) + 1);
  }

 private:
  WeightedPicker picker_;
};

// Walker's alias method over fixed float weights, as TensorFlow's DistributionSampler
// builds and reads its table.
class AliasTable {
 public:
  explicit AliasTable(const std::vector<float>& weights)
      : prob_(weights.size()), alt_(weights.size(), -1) {
    const int n = static_cast<int>(weights.size());
    double sum = 0.0;
    for (float w : weights) sum += w;
    std::vector<double> pr(weights.size());
    std::vector<int> high, low;
    for (int i = 0; i < n; ++i) {
      // weight * n is a float product, divided in double.
      const double p =
          static_cast<double>(weights[static_cast<std::size_t>(i)] * static_cast<float>(n)) / sum;
      pr[static_cast<std::size_t>(i)] = p;
      (p < 1.0 ? low : high).push_back(i);
    }
    while (!high.empty() && !low.empty()) {
      const int l = low.back();
      low.pop_back();
      const int h = high.back();
      high.pop_back();
      alt_[static_cast<std::size_t>(l)] = h;
      const double remaining =
          pr[static_cast<std::size_t>(h)] - (1.0 - pr[static_cast<std::size_t>(l)]);
      pr[static_cast<std::size_t>(h)] = remaining;
      (remaining < 1.0 ? low : high).push_back(h);
    }
    for (std::size_t i = 0; i < pr.size(); ++i) prob_[i] = static_cast<float>(pr[i]);
    // Left over by rounding: keep themselves.
    for (const auto* rest : {&high, &low})
      for (int idx : *rest) {
        prob_[static_cast<std::size_t>(idx)] = 1.0f;
        alt_[static_cast<std::size_t>(idx)] = idx;
      }
  }

  int sample(SimplePhilox& rnd) const {
    const float r = rnd.rand_float();
    const auto idx =
        static_cast<std::size_t>(rnd.uniform(static_cast<std::uint32_t>(prob_.size())));
    return r < prob_[idx] ? static_cast<int>(idx) : alt_[idx];
  }

 private:
  std::vector<float> prob_;
  std::vector<int> alt_;
};

// Draws in proportion to fixed weights: num_reserved_ids zeros, then each unigram of this
// shard raised to `distortion`.
class FixedUnigramSampler final : public RangeSampler {
 public:
  FixedUnigramSampler(std::int64_t range, std::vector<float> weights)
      : RangeSampler(range), weights_(std::move(weights)), table_(weights_) {
    for (float w : weights_) total_weight_ += w;
  }

  // The weights of shard `shard` of `num_shards`, in float as TensorFlow computes them.
  static std::vector<float> shard_weights(const std::vector<float>& unigrams, float distortion,
                                          std::int32_t num_reserved_ids, std::int32_t num_shards,
                                          std::int32_t shard) {
    std::vector<float> weights;
    for (std::int32_t id = 0; id < num_reserved_ids; ++id)
      if (id % num_shards == shard) weights.push_back(0.0f);
    auto id = static_cast<std::int32_t>(weights.size());
    for (float w : unigrams) {
      if (id % num_shards == shard) weights.push_back(std::pow(w, distortion));
      ++id;
    }
    return weights;
  }

  std::int64_t sample(SimplePhilox& rnd) const override { return table_.sample(rnd); }
  float probability(std::int64_t value) const override {
    if (value < 0 || static_cast<std::size_t>(value) >= weights_.size()) return 0.0f;
    return weights_[static_cast<std::size_t>(value)] / total_weight_;
  }

 private:
  std::vector<float> weights_;
  float total_weight_ = 0.0f;
  AliasTable table_;
};

// ---- kernels ----------------------------------------------------------------------------

// One sampler node's state in one session: its stream and its sampler (whose counts a
// learned sampler updates under the lock).
struct CandidateSamplerState {
  struct Parts {
    PhiloxRandom generator;
    std::unique_ptr<RangeSampler> sampler;
  };
  explicit CandidateSamplerState(Parts parts)
      : generator(parts.generator), sampler(std::move(parts.sampler)) {}

  NodeGenerator generator;
  std::unique_ptr<RangeSampler> sampler;
  std::mutex mutex;
};

inline std::unique_ptr<RangeSampler> make_fixed_unigram_sampler(KernelContext& ctx) {
  const std::int64_t range_max = ctx.attr<std::int64_t>("range_max");
  const std::string& vocab_file = ctx.attr<std::string>("vocab_file");
  const FloatList& unigram_list = ctx.attr<FloatList>("unigrams");
  if (vocab_file.empty() && unigram_list.items.empty())
    ctx.fail("Must provide either vocab_file or unigrams.");
  if (!vocab_file.empty() && !unigram_list.items.empty())
    ctx.fail("Must only provide one of vocab_file and unigrams.");
  if (!vocab_file.empty())
    ctx.fail("FixedUnigramCandidateSampler: a vocab_file is not supported; pass the unigrams");
  std::vector<float> unigrams(unigram_list.items.size());
  std::transform(unigram_list.items.begin(), unigram_list.items.end(), unigrams.begin(),
                 [](double w) { return static_cast<float>(w); });
  std::vector<float> weights = FixedUnigramSampler::shard_weights(
      unigrams, static_cast<float>(ctx.attr<double>("distortion")),
      static_cast<std::int32_t>(ctx.attr<std::int64_t>("num_reserved_ids")),
      static_cast<std::int32_t>(ctx.attr<std::int64_t>("num_shards")),
      static_cast<std::int32_t>(ctx.attr<std::int64_t>("shard")));
  if (static_cast<std::size_t>(range_max) != weights.size())
    ctx.fail("range is " + std::to_string(range_max) + " must be equal to weights size  " +
             std::to_string(weights.size()));
  return std::make_unique<FixedUnigramSampler>(range_max, std::move(weights));
}

enum class SamplerKind { uniform, log_uniform, learned_unigram, fixed_unigram, all };

template <SamplerKind Kind>
std::unique_ptr<RangeSampler> make_range_sampler(KernelContext& ctx) {
  if constexpr (Kind == SamplerKind::all) {
    return std::make_unique<AllSampler>(ctx.attr<std::int64_t>("num_sampled"));
  } else if constexpr (Kind == SamplerKind::fixed_unigram) {
    return make_fixed_unigram_sampler(ctx);
  } else {
    const std::int64_t range_max = ctx.attr<std::int64_t>("range_max");
    if (range_max <= 0) ctx.fail("range_max must be positive");
    if constexpr (Kind == SamplerKind::uniform) return std::make_unique<UniformSampler>(range_max);
    if constexpr (Kind == SamplerKind::log_uniform)
      return std::make_unique<LogUniformSampler>(range_max);
    if constexpr (Kind == SamplerKind::learned_unigram) {
      // One int32 count per id.
      if (range_max >= std::numeric_limits<std::int32_t>::max())
        ctx.fail("range_max must be less than 2147483647 for unigram samplers, got " +
                 std::to_string(range_max));
      return std::make_unique<LearnedUnigramSampler>(range_max);
    }
  }
}

template <SamplerKind Kind>
void candidate_sampler_kernel(KernelContext& ctx) {
  CandidateSamplerState& state = ctx.state<CandidateSamplerState>([&] {
    return CandidateSamplerState::Parts{
        NodeGenerator::seeded(ctx.attr<std::int64_t>("seed"), ctx.attr<std::int64_t>("seed2")),
        make_range_sampler<Kind>(ctx)};
  });
  const std::int64_t num_sampled = ctx.attr<std::int64_t>("num_sampled");
  const std::int64_t num_true = ctx.attr<std::int64_t>("num_true");
  const bool unique = ctx.attr<bool>("unique");
  const Value& true_classes = ctx.input(0);
  if (true_classes.rank() != 2) ctx.fail("true_classes must be a matrix");
  // (TensorFlow's message names the columns "expected" and num_true "was".)
  if (true_classes.dims()[1] != num_true)
    ctx.fail("true_classes must have num_true columns, expected: " +
             std::to_string(true_classes.dims()[1]) + " was: " + std::to_string(num_true));
  RangeSampler& sampler = *state.sampler;
  if (unique && num_sampled > sampler.range()) ctx.fail("Sampler's range is too small.");

  const std::int64_t batch_size = true_classes.dims()[0];
  Value& sampled = ctx.allocate_output(0, DType::int64, {num_sampled});
  Value& true_expected = ctx.allocate_output(1, DType::float32, {batch_size, num_true});
  Value& sampled_expected = ctx.allocate_output(2, DType::float32, {num_sampled});
  std::span<const std::int64_t> true_candidates = true_classes.flat<std::int64_t>();
  for (std::int64_t candidate : true_candidates)
    if (candidate < 0 || candidate >= sampler.range())
      ctx.fail("`true_candidate` out of range [0, " + std::to_string(sampler.range()) +
               "), received " + std::to_string(candidate));

  // TensorFlow's conservative guess of the numbers one run uses; a run that rejects
  // more reads past it, into the next run's numbers, as TensorFlow's does.
  PhiloxRandom local = state.generator.reserve_samples32(2048 * num_sampled);
  SimplePhilox rnd(local);
  std::lock_guard lock(state.mutex);
  sampler.sample_batch(rnd, unique, sampled.flat<std::int64_t>(), sampled_expected.flat<float>(),
                       true_candidates, true_expected.flat<float>());
  sampler.update(true_candidates);
}

inline void compute_accidental_hits_kernel(KernelContext& ctx) {
  const std::int64_t num_true = ctx.attr<std::int64_t>("num_true");
  const Value& true_classes = ctx.input(0);
  if (true_classes.rank() != 2 || true_classes.dims()[1] != num_true)
    ctx.fail("true_candidates must be a batch_size * num_true matrix");
  const Value& sampled = ctx.input(1);
  if (sampled.rank() != 1)
    ctx.fail(
        "sampled_candidates must be a vector, which is typically an output from "
        "CandidateSampler");
  // A candidate sampled twice is found at its last position.
  std::unordered_map<std::int64_t, std::int64_t> position;
  std::span<const std::int64_t> candidates = sampled.flat<std::int64_t>();
  for (std::size_t i = 0; i < candidates.size(); ++i)
    position[candidates[i]] = static_cast<std::int64_t>(i);

  std::vector<std::int32_t> indices;
  std::vector<std::int64_t> ids;
  std::span<const std::int64_t> classes = true_classes.flat<std::int64_t>();
  const std::int64_t batch_size = true_classes.dims()[0];
  for (std::int64_t row = 0; row < batch_size; ++row)
    for (std::int64_t j = 0; j < num_true; ++j) {
      auto found = position.find(classes[static_cast<std::size_t>(row * num_true + j)]);
      if (found == position.end()) continue;
      indices.push_back(static_cast<std::int32_t>(row));
      ids.push_back(found->second);
    }
  const auto n = static_cast<std::int64_t>(indices.size());
  std::ranges::copy(indices,
                    ctx.allocate_output(0, DType::int32, {n}).flat<std::int32_t>().begin());
  std::ranges::copy(ids, ctx.allocate_output(1, DType::int64, {n}).flat<std::int64_t>().begin());
  std::span<float> weights = ctx.allocate_output(2, DType::float32, {n}).flat<float>();
  std::fill(weights.begin(), weights.end(), -FLT_MAX);
}

inline constexpr auto kCandidateSamplingCpuKernels = std::to_array<CpuKernel>({
    {&kUniformCandidateSamplerOp, candidate_sampler_kernel<SamplerKind::uniform>},
    {&kLogUniformCandidateSamplerOp, candidate_sampler_kernel<SamplerKind::log_uniform>},
    {&kLearnedUnigramCandidateSamplerOp, candidate_sampler_kernel<SamplerKind::learned_unigram>},
    {&kFixedUnigramCandidateSamplerOp, candidate_sampler_kernel<SamplerKind::fixed_unigram>},
    {&kAllCandidateSamplerOp, candidate_sampler_kernel<SamplerKind::all>},
    {&kComputeAccidentalHitsOp, compute_accidental_hits_kernel},
});

}  // namespace symflow::detail
