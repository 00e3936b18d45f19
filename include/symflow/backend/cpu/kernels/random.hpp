#pragma once
// The random ops' CPU kernels (ops/defs/random.hpp describes the ops). They draw from
// Philox4x32-10 keyed by the op's (seed, seed2) and turn the bits into numbers exactly as
// TensorFlow's CPU kernels do (philox_random.h, random_distributions.h, random_op.cc), so
// a seeded op gives TensorFlow's numbers. Each node keeps its generator in the session:
// successive runs of one session continue the sequence, and a new session starts it
// over. The generator, its per-node state and the host-side draws are shared with the
// GPU kernels. Ends with kRandomCpuKernels, the table that maps each random OpDef to its
// kernel.

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <numbers>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "symflow/backend/cpu/kernel_table.hpp"
#include "symflow/backend/cpu/kernels/math.hpp"
#include "symflow/backend/kernel_context.hpp"
#include "symflow/ops/defs/random.hpp"

namespace symflow::detail {

// ---- Philox4x32-10 --------------------------------------------------------------------

// TensorFlow's random::PhiloxRandom: a counter-based generator whose every call gives
// four 32-bit numbers, keyed by `seed` and starting at counter (0, 0, seed2).
class PhiloxRandom {
 public:
  using Result = std::array<std::uint32_t, 4>;
  static constexpr int kResultElementCount = 4;

  PhiloxRandom() = default;
  PhiloxRandom(std::uint64_t seed, std::uint64_t seed2)
      : counter_{0, 0, static_cast<std::uint32_t>(seed2), static_cast<std::uint32_t>(seed2 >> 32)},
        key_{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)} {}

  // Moves the 128-bit counter `count` results ahead.
  void skip(std::uint64_t count) {
    const auto count_lo = static_cast<std::uint32_t>(count);
    auto count_hi = static_cast<std::uint32_t>(count >> 32);
    counter_[0] += count_lo;
    if (counter_[0] < count_lo) ++count_hi;
    counter_[1] += count_hi;
    if (counter_[1] < count_hi && ++counter_[2] == 0) ++counter_[3];
  }

  Result operator()() {
    Result c = counter_;
    std::array<std::uint32_t, 2> k = key_;
    for (int round = 0; round < 10; ++round) {
      const std::uint64_t p0 = std::uint64_t{0xD2511F53u} * c[0];
      const std::uint64_t p1 = std::uint64_t{0xCD9E8D57u} * c[2];
      c = {static_cast<std::uint32_t>(p1 >> 32) ^ c[1] ^ k[0], static_cast<std::uint32_t>(p1),
           static_cast<std::uint32_t>(p0 >> 32) ^ c[3] ^ k[1], static_cast<std::uint32_t>(p0)};
      k[0] += 0x9E3779B9u;
      k[1] += 0xBB67AE85u;
    }
    skip(1);
    return c;
  }

  // The generator's state, for the GPU backend, which runs the same stream on the device.
  const Result& counter() const { return counter_; }
  const std::array<std::uint32_t, 2>& key() const { return key_; }

 private:
  Result counter_{};
  std::array<std::uint32_t, 2> key_{};
};

// TensorFlow's SingleSampleAdapter: the generator's numbers one at a time.
class SingleSample {
 public:
  explicit SingleSample(PhiloxRandom& gen) : gen_(gen) {}
  std::uint32_t operator()() {
    if (used_ == PhiloxRandom::kResultElementCount) {
      buffer_ = gen_();
      used_ = 0;
    }
    return buffer_[static_cast<std::size_t>(used_++)];
  }

 private:
  PhiloxRandom& gen_;
  PhiloxRandom::Result buffer_{};
  int used_ = PhiloxRandom::kResultElementCount;
};

// TensorFlow's GuardedPhiloxRandom: one node's generator in one session. Each run takes
// a private copy and moves the shared one past everything that copy may use.
class NodeGenerator {
 public:
  explicit NodeGenerator(PhiloxRandom gen) : gen_(gen) {}

  // (0, 0) means "no seed": a generator seeded from the system's entropy.
  static PhiloxRandom seeded(std::int64_t seed, std::int64_t seed2) {
    if (seed == 0 && seed2 == 0) {
      std::random_device rd;
      auto draw64 = [&] { return (std::uint64_t{rd()} << 32) | rd(); };
      return PhiloxRandom(draw64(), draw64());
    }
    return PhiloxRandom(static_cast<std::uint64_t>(seed), static_cast<std::uint64_t>(seed2));
  }

  PhiloxRandom reserve_samples128(std::uint64_t samples) {
    std::lock_guard lock(mutex_);
    PhiloxRandom local = gen_;
    gen_.skip(samples);
    return local;
  }
  // Room for `outputs` values, as TensorFlow reserves it (256 results each).
  PhiloxRandom reserve_outputs(std::int64_t outputs) {
    return reserve_samples128(static_cast<std::uint64_t>(outputs) * 256);
  }
  PhiloxRandom reserve_samples32(std::int64_t samples) {
    return reserve_samples128((static_cast<std::uint64_t>(samples) + 3) / 4);
  }

 private:
  std::mutex mutex_;
  PhiloxRandom gen_;
};

inline NodeGenerator& node_generator(KernelContext& ctx) {
  return ctx.state<NodeGenerator>([&] {
    return NodeGenerator::seeded(ctx.attr<std::int64_t>("seed"), ctx.attr<std::int64_t>("seed2"));
  });
}

// ---- distributions (random_distributions.h) ---------------------------------------------

// A float in [0, 1) from the low 23 bits of x.
inline float uint32_to_float(std::uint32_t x) {
  return std::bit_cast<float>((std::uint32_t{127} << 23) | (x & 0x7fffffu)) - 1.0f;
}
// A double in [0, 1) from 52 bits of (x0, x1).
inline double uint64_to_double(std::uint32_t x0, std::uint32_t x1) {
  const std::uint64_t mantissa = (std::uint64_t{x0 & 0xfffffu} << 32) | x1;
  return std::bit_cast<double>((std::uint64_t{1023} << 52) | mantissa) - 1.0;
}

// Box-Muller, as TensorFlow computes it: 2*pi*u is formed in double, then rounded.
inline void box_muller(std::uint32_t x0, std::uint32_t x1, float& f0, float& f1) {
  float u1 = uint32_to_float(x0);
  if (u1 < 1.0e-7f) u1 = 1.0e-7f;
  const auto v1 = static_cast<float>(2.0f * std::numbers::pi * uint32_to_float(x1));
  const float u2 = std::sqrt(-2.0f * std::log(u1));
  f0 = std::sin(v1) * u2;
  f1 = std::cos(v1) * u2;
}
inline void box_muller(std::uint32_t x0, std::uint32_t x1, std::uint32_t x2, std::uint32_t x3,
                       double& d0, double& d1) {
  double u1 = uint64_to_double(x0, x1);
  if (u1 < 1.0e-7) u1 = 1.0e-7;
  const double v1 = 2.0 * std::numbers::pi * uint64_to_double(x2, x3);
  const double u2 = std::sqrt(-2.0 * std::log(u1));
  d0 = std::sin(v1) * u2;
  d1 = std::cos(v1) * u2;
}

// One Philox result per group: 4 floats, or 2 doubles.
template <class T>
inline constexpr int kGroupSize = std::is_same_v<T, float> ? 4 : 2;

template <class T>
std::array<T, kGroupSize<T>> uniform_group(PhiloxRandom& gen) {
  auto s = gen();
  if constexpr (std::is_same_v<T, float>)
    return {uint32_to_float(s[0]), uint32_to_float(s[1]), uint32_to_float(s[2]),
            uint32_to_float(s[3])};
  else
    return {uint64_to_double(s[0], s[1]), uint64_to_double(s[2], s[3])};
}

template <class T>
std::array<T, kGroupSize<T>> normal_group(PhiloxRandom& gen) {
  auto s = gen();
  std::array<T, kGroupSize<T>> r{};
  if constexpr (std::is_same_v<T, float>) {
    box_muller(s[0], s[1], r[0], r[1]);
    box_muller(s[2], s[3], r[2], r[3]);
  } else {
    box_muller(s[0], s[1], s[2], s[3], r[0], r[1]);
  }
  return r;
}

// Normal samples with |x| < 2, drawn one Box-Muller pair at a time until the group is full.
template <class T>
std::array<T, kGroupSize<T>> truncated_group(PhiloxRandom& gen) {
  SingleSample single(gen);
  std::array<T, kGroupSize<T>> r{};
  std::size_t n = 0;
  while (true) {
    T f[2];
    if constexpr (std::is_same_v<T, float>) {
      std::uint32_t x0 = single(), x1 = single();
      box_muller(x0, x1, f[0], f[1]);
    } else {
      std::uint32_t x0 = single(), x1 = single(), x2 = single(), x3 = single();
      box_muller(x0, x1, x2, x3, f[0], f[1]);
    }
    for (T x : f) {
      if (std::abs(x) < T{2}) {
        r[n++] = x;
        if (n == r.size()) return r;
      }
    }
  }
}

// Fills `out` one group after another from `gen` (FillPhiloxRandomTask).
template <class T, class Group>
void fill_groups(PhiloxRandom gen, std::span<T> out, Group group) {
  for (std::size_t offset = 0; offset < out.size();) {
    auto values = group(gen);
    std::size_t n = std::min(values.size(), out.size() - offset);
    std::copy_n(values.begin(), n, out.begin() + static_cast<std::ptrdiff_t>(offset));
    offset += n;
  }
}

// Truncated groups use a variable number of results: group g starts at its own offset,
// 256 results per value, so that no two groups overlap.
template <class T>
void fill_truncated(PhiloxRandom base, std::span<T> out) {
  constexpr std::uint64_t kSkipPerGroup = kGroupSize<T> * 256 / PhiloxRandom::kResultElementCount;
  std::uint64_t g = 0;
  for (std::size_t offset = 0; offset < out.size(); ++g) {
    PhiloxRandom gen = base;
    gen.skip(g * kSkipPerGroup);
    auto values = truncated_group<T>(gen);
    std::size_t n = std::min(values.size(), out.size() - offset);
    std::copy_n(values.begin(), n, out.begin() + static_cast<std::ptrdiff_t>(offset));
    offset += n;
  }
}

// ---- kernels ------------------------------------------------------------------------------

// The output of a random op, shaped by its shape input.
inline Value& random_output(KernelContext& ctx, DType dtype) {
  const Value& shape = ctx.input(0);
  if (shape.rank() != 1)
    ctx.fail("shape must be a vector of {int32,int64}, got shape " + dims_to_string(shape.dims()));
  Dims dims = shape_argument(shape);
  for (auto d : dims)
    if (d < 0) ctx.fail("Dimension " + std::to_string(d) + " must be >= 0");
  return ctx.allocate_output(0, dtype, std::move(dims));
}

enum class FloatDistribution { uniform, normal, truncated_normal };

template <FloatDistribution D>
void random_float_kernel(KernelContext& ctx) {
  DType dtype = ctx.attr<DType>("dtype");
  Value& out = random_output(ctx, dtype);
  PhiloxRandom gen = node_generator(ctx).reserve_outputs(out.size());
  visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T>) {
      if constexpr (D == FloatDistribution::uniform)
        fill_groups(gen, out.flat<T>(), uniform_group<T>);
      else if constexpr (D == FloatDistribution::normal)
        fill_groups(gen, out.flat<T>(), normal_group<T>);
      else
        fill_truncated(gen, out.flat<T>());
    } else {
      unsupported_dtype(ctx, dtype);
    }
  });
}

inline void random_uniform_int_kernel(KernelContext& ctx) {
  for (std::size_t i = 1; i < 3; ++i)
    if (ctx.input(i).rank() != 0)
      ctx.fail(std::string(i == 1 ? "minval" : "maxval") + " must be 0-D, got shape " +
               dims_to_string(ctx.input(i).dims()));
  DType dtype = ctx.attr<DType>("Tout");
  Value& out = random_output(ctx, dtype);
  if (out.size() == 0) return;  // zero impossible draws are fine, as in TensorFlow
  visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t>) {
      using U = std::make_unsigned_t<T>;
      T lo = ctx.input(1).scalar<T>(), hi = ctx.input(2).scalar<T>();
      if (!(lo < hi))
        ctx.fail("Need minval < maxval, got " + std::to_string(lo) + " >= " + std::to_string(hi));
      const U range = static_cast<U>(static_cast<U>(hi) - static_cast<U>(lo));
      PhiloxRandom gen = node_generator(ctx).reserve_outputs(out.size());
      fill_groups(gen, out.flat<T>(), [&](PhiloxRandom& g) {
        auto s = g();
        constexpr std::size_t n = sizeof(T) == 4 ? 4 : 2;
        std::array<T, n> r{};
        for (std::size_t i = 0; i < n; ++i) {
          U bits;
          if constexpr (sizeof(T) == 4)
            bits = s[i];
          else
            bits = s[2 * i] | (std::uint64_t{s[2 * i + 1]} << 32);
          r[i] = static_cast<T>(static_cast<U>(lo) + bits % range);  // wraps, as in TF
        }
        return r;
      });
    } else {
      unsupported_dtype(ctx, dtype);
    }
  });
}

// Fisher-Yates over the first axis with TensorFlow's draws: step i swaps row i with row
// i + (next 32-bit number mod (n - i)). The permutation of the input's rows, drawn on the
// host (the CPU and GPU kernels share it); none, the input forwarded as output 0, where
// there is nothing to shuffle (and then no draws either).
inline std::optional<std::vector<std::int64_t>> shuffle_permutation(KernelContext& ctx) {
  const Value& in = ctx.input(0);
  if (in.size() <= 1 || in.dims()[0] <= 1) {
    ctx.set_output(0, in);
    return std::nullopt;
  }
  const std::int64_t n = in.dims()[0];
  PhiloxRandom gen = node_generator(ctx).reserve_samples32(n - 1);
  SingleSample single(gen);
  std::vector<std::int64_t> perm(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<std::int64_t>(i);
  for (std::size_t i = 0; i + 1 < perm.size(); ++i) {
    auto left = static_cast<std::uint32_t>(perm.size() - i);
    std::swap(perm[i], perm[i + single() % left]);
  }
  return perm;
}

inline void random_shuffle_kernel(KernelContext& ctx) {
  const std::optional<std::vector<std::int64_t>> drawn = shuffle_permutation(ctx);
  if (!drawn) return;
  const std::vector<std::int64_t>& perm = *drawn;
  const Value& in = ctx.input(0);
  const std::int64_t n = in.dims()[0];
  Value& out = ctx.allocate_output(0, in.dtype(), in.dims());
  const std::size_t row = in.nbytes() / static_cast<std::size_t>(n);
  const auto* src = static_cast<const std::byte*>(in.raw_data());
  auto* dst = static_cast<std::byte*>(out.raw_data());
  for (std::size_t i = 0; i < perm.size(); ++i)
    std::memcpy(dst + i * row, src + static_cast<std::size_t>(perm[i]) * row, row);
}

inline constexpr auto kRandomCpuKernels = std::to_array<CpuKernel>({
    {&kRandomStandardNormalOp, random_float_kernel<FloatDistribution::normal>},
    {&kRandomUniformOp, random_float_kernel<FloatDistribution::uniform>},
    {&kTruncatedNormalOp, random_float_kernel<FloatDistribution::truncated_normal>},
    {&kRandomUniformIntOp, random_uniform_int_kernel},
    {&kRandomShuffleOp, random_shuffle_kernel},
});

}  // namespace symflow::detail
