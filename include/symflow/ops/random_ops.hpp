#pragma once
// Random ops (RandomStandardNormal, RandomUniform, RandomUniformInt, TruncatedNormal,
// RandomShuffle), the functions that build them as TensorFlow 1.x's random_ops.py does,
// and TensorFlow 1.x's seed rules (tf.set_random_seed, tf.get_seed).
//
// The CPU kernels draw from Philox4x32-10 keyed by the op's (seed, seed2) and turn the
// bits into numbers exactly as TensorFlow's CPU kernels do (philox_random.h,
// random_distributions.h, random_op.cc), so a seeded op gives TensorFlow's numbers.
// Each node keeps its generator in the session: successive runs of one session continue
// the sequence, and a new session starts it over.

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <numbers>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "symflow/detail/float_repr.hpp"
#include "symflow/ops/array_ops.hpp"
#include "symflow/ops/math_ops.hpp"
#include "symflow/ops/op_builder.hpp"

namespace symflow {

// ---- seeds ----------------------------------------------------------------------------

// TensorFlow's random_seed.DEFAULT_GRAPH_SEED: the graph seed of an op that has its own
// seed in a graph that has none.
inline constexpr std::int64_t DEFAULT_GRAPH_SEED = 87654321;

// tf.set_random_seed(seed): sets the default graph's random seed. Random ops built after
// it without their own seed get seed2 from the graph's op count (see get_seed).
inline void set_random_seed(std::int64_t seed) { get_default_graph().set_seed(seed); }

// tf.get_seed(op_seed) on `graph`, exactly as TensorFlow 1.x resolves it:
//   graph seed and op seed  -> (graph seed, op seed)
//   graph seed only         -> (graph seed, number of ops in the graph) (TF1's graph._last_id)
//   op seed only            -> (DEFAULT_GRAPH_SEED, op seed)
//   neither                 -> (nullopt, nullopt): the op is not deterministic.
// Seeds are taken modulo 2^31 - 1 (Python's %, so never negative), and (0, 0) becomes
// (0, 2^31 - 1), since an op reads (0, 0) as "no seed".
inline std::pair<std::optional<std::int64_t>, std::optional<std::int64_t>> get_seed(
    const Graph& graph, std::optional<std::int64_t> op_seed) {
  constexpr std::int64_t kMaxInt32 = 2147483647;
  auto truncate = [&](std::int64_t s) { return ((s % kMaxInt32) + kMaxInt32) % kMaxInt32; };
  std::optional<std::int64_t> graph_seed = graph.seed();
  std::int64_t seed = 0, seed2 = 0;
  if (graph_seed) {
    seed = truncate(*graph_seed);
    seed2 = truncate(op_seed ? *op_seed : static_cast<std::int64_t>(graph.num_nodes()));
  } else if (op_seed) {
    seed = DEFAULT_GRAPH_SEED;
    seed2 = truncate(*op_seed);
  } else {
    return {std::nullopt, std::nullopt};
  }
  if (seed == 0 && seed2 == 0) seed2 = kMaxInt32;
  return {seed, seed2};
}
// tf.get_seed(op_seed) on the default graph.
inline std::pair<std::optional<std::int64_t>, std::optional<std::int64_t>> get_seed(
    std::optional<std::int64_t> op_seed) {
  return get_seed(get_default_graph(), op_seed);
}

// A number as a Python literal is written: an integer or a floating-point value
// (random_uniform's bounds). A float never converts to an integer dtype (TypeError).
struct Number {
  std::variant<std::int64_t, double> value;

  template <std::integral I>
  requires(!std::same_as<I, bool>) Number(I v)
      : value(static_cast<std::int64_t>(v)) {}  // NOLINT: implicit, like a literal
  template <std::floating_point F>
  Number(F v) : value(static_cast<double>(v)) {}  // NOLINT: implicit, like a literal

  bool is_integer() const { return std::holds_alternative<std::int64_t>(value); }
};

namespace detail {

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

// ---- shape functions ------------------------------------------------------------------------

inline bool is_index_type(DType d) { return d == DType::int32 || d == DType::int64; }
inline bool is_uniform_int_type(DType d) { return is_index_type(d); }

// The output shape of a random op from its shape input (TF's RandomShape): the constant's
// elements when it is one, else as many unknown dims as the vector is long.
inline Shape random_output_shape(const InferContext& c) {
  check_allowed(c, 0, "shape", is_index_type);
  if (c.shape(0).has_rank() && c.shape(0).rank() != 1)
    throw ValueError("Shape must be rank 1 but is rank " + std::to_string(c.shape(0).rank()));
  if (const Value* v = c.constant(0)) {
    Dims dims = shape_argument(*v);
    for (auto d : dims)
      if (d < 0) throw ValueError("Invalid value in tensor used for shape: " + std::to_string(d));
    return Shape(std::move(dims));
  }
  if (c.shape(0).is_fully_defined()) return Shape::unknown_dims(static_cast<int>(c.shape(0)[0]));
  return Shape::unknown();
}

inline void check_attr_dtype(DType d, std::string_view param, bool (*accepts)(DType)) {
  if (!accepts(d))
    throw TypeError("Value passed to parameter '" + std::string(param) + "' has DataType " +
                    std::string(dtype_name(d)) +
                    " not in list of allowed values: " + allowed_list(accepts));
}

inline std::vector<TensorSpec> infer_random_float(const InferContext& c) {
  DType dtype = c.attr<DType>("dtype");
  check_attr_dtype(dtype, "dtype", is_floating);
  return {{dtype, random_output_shape(c)}};
}

inline std::vector<TensorSpec> infer_random_uniform_int(const InferContext& c) {
  DType dtype = c.attr<DType>("Tout");
  check_attr_dtype(dtype, "Tout", is_uniform_int_type);
  for (std::size_t i = 1; i < 3; ++i) {
    if (c.dtype(i) != dtype)
      throw TypeError("Input '" + std::string(i == 1 ? "minval" : "maxval") +
                      "' of 'RandomUniformInt' Op has type " + std::string(dtype_name(c.dtype(i))) +
                      " that does not match expected type of " + std::string(dtype_name(dtype)) +
                      ".");
    if (c.shape(i).has_rank() && c.shape(i).rank() != 0)
      throw ValueError("Shape must be rank 0 but is rank " + std::to_string(c.shape(i).rank()));
  }
  return {{dtype, random_output_shape(c)}};
}

inline std::vector<TensorSpec> infer_random_shuffle(const InferContext& c) {
  return {{c.dtype(0), c.shape(0)}};
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

SYMFLOW_CPU_KERNEL_TEMPLATE(random_float_kernel, FloatDistribution D) {
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

SYMFLOW_CPU_KERNEL(random_uniform_int_kernel) {
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

SYMFLOW_CPU_KERNEL(random_shuffle_kernel) {
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

inline constexpr OpDef kRandomStandardNormalOp{
    .type = "RandomStandardNormal",
    .num_inputs = 1,
    .infer = infer_random_float,
    .cpu_kernel = random_float_kernel<FloatDistribution::normal>,
    .stateful = true};
inline constexpr OpDef kRandomUniformOp{
    .type = "RandomUniform",
    .num_inputs = 1,
    .infer = infer_random_float,
    .cpu_kernel = random_float_kernel<FloatDistribution::uniform>,
    .stateful = true};
inline constexpr OpDef kTruncatedNormalOp{
    .type = "TruncatedNormal",
    .num_inputs = 1,
    .infer = infer_random_float,
    .cpu_kernel = random_float_kernel<FloatDistribution::truncated_normal>,
    .stateful = true};
inline constexpr OpDef kRandomUniformIntOp{.type = "RandomUniformInt",
                                           .num_inputs = 3,
                                           .infer = infer_random_uniform_int,
                                           .cpu_kernel = random_uniform_int_kernel,
                                           .stateful = true};
inline constexpr OpDef kRandomShuffleOp{.type = "RandomShuffle",
                                        .num_inputs = 1,
                                        .infer = infer_random_shuffle,
                                        .cpu_kernel = random_shuffle_kernel,
                                        .stateful = true};

// ---- builders -------------------------------------------------------------------------------

// Python's `convert_to_tensor(x, dtype)` of a float: TypeError for a non-float dtype.
inline Value float_scalar(double x, DType dtype) {
  if (dtype == DType::float32) return Value(static_cast<float>(x));
  if (dtype == DType::float64) return Value(x);
  throw TypeError("Expected " + std::string(dtype_name(dtype)) + ", but got " +
                  python_float_repr(x) + " of type 'float'.");
}
// The same for a Number: an integer converts to any number dtype (wrapping, as TF does).
inline Value number_scalar(const Number& x, DType dtype) {
  if (!x.is_integer()) return float_scalar(std::get<double>(x.value), dtype);
  const std::int64_t i = std::get<std::int64_t>(x.value);
  return visit_dtype(dtype, [&](auto tag) -> Value {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, bool>)
      throw TypeError("Expected bool, but got " + std::to_string(i) + " of type 'int'.");
    else
      return Value(static_cast<T>(i));
  });
}

struct SeedAttrs {
  std::int64_t seed = 0, seed2 = 0;
};
inline SeedAttrs seed_attrs(const Graph& g, std::optional<std::int64_t> op_seed) {
  auto [seed, seed2] = get_seed(g, op_seed);
  return {seed.value_or(0), seed2.value_or(0)};
}

// `rnd * scale + shift` inside the op's scope: Mul "mul", then Add named as the scope.
inline Output scale_and_shift(OpBuilder& b, const Output& rnd, const Output& scale,
                              const Output& shift, DType dtype) {
  Output mul = b.graph().create_op(kMulOp, {rnd, scale}, {{"T", dtype}}, "mul").output(0);
  return b.build(kAddOp, {mul, shift}, {{"T", dtype}}).output(0);
}

// random_normal and truncated_normal: shape, mean and stddev Consts, the op, mul, add.
inline Output normal_like(const OpDef& def, const Shape& shape, DType dtype, double mean,
                          double stddev, std::optional<std::int64_t> seed, std::string_view name,
                          std::string_view default_name) {
  Value shape_value = detail::shape_value(shape, default_name);
  Value mean_value = float_scalar(mean, dtype);  // TypeError before anything is built
  Value stddev_value = float_scalar(stddev, dtype);
  OpBuilder b(get_default_graph(), name, default_name);
  Output shape_t = b.constant_arg(std::move(shape_value), "shape");
  Output mean_t = b.constant_arg(std::move(mean_value), "mean");
  Output stddev_t = b.constant_arg(std::move(stddev_value), "stddev");
  SeedAttrs s = seed_attrs(b.graph(), seed);  // after the Consts, as in TensorFlow
  Output rnd =
      b.graph()
          .create_op(def, {shape_t},
                     {{"dtype", dtype}, {"seed", s.seed}, {"seed2", s.seed2}, {"T", DType::int32}},
                     def.type)
          .output(0);
  return scale_and_shift(b, rnd, stddev_t, mean_t, dtype);
}

}  // namespace detail

// ---- the functions -----------------------------------------------------------------------------

// Arguments of random_normal and truncated_normal (TensorFlow's keyword arguments).
struct NormalOptions {
  double mean = 0.0;
  double stddev = 1.0;
  std::optional<std::int64_t> seed = std::nullopt;  // the op seed; see get_seed
  std::string name = {};  // "random_normal" / "truncated_normal" when empty
};

// Arguments of random_uniform. `maxval` defaults to 1 for floats and must be given for
// integers.
struct UniformOptions {
  Number minval = 0;
  std::optional<Number> maxval = std::nullopt;
  std::optional<std::int64_t> seed = std::nullopt;
  std::string name = {};  // "random_uniform" when empty
};

// Arguments of random_shuffle.
struct ShuffleOptions {
  std::optional<std::int64_t> seed = std::nullopt;
  std::string name = {};  // "RandomShuffle" when empty
};

// tf.random_normal(shape, mean, stddev, dtype, seed, name): RandomStandardNormal * stddev
// + mean, built under "random_normal/". dtype must be float32 or float64 (TypeError).
inline Output random_normal(const Shape& shape, DType dtype, const NormalOptions& options = {}) {
  return detail::normal_like(detail::kRandomStandardNormalOp, shape, dtype, options.mean,
                             options.stddev, options.seed, options.name, "random_normal");
}
inline Output random_normal(const Shape& shape, const NormalOptions& options = {}) {
  return random_normal(shape, DType::float32, options);
}
template <std::floating_point T>
Tensor<T> random_normal(const Shape& shape, const NormalOptions& options = {}) {
  return Tensor<T>(random_normal(shape, dtype_v<T>, options));
}

// tf.truncated_normal(shape, mean, stddev, dtype, seed, name): like random_normal, but a
// standard normal value beyond 2 (two standard deviations) is drawn again.
inline Output truncated_normal(const Shape& shape, DType dtype, const NormalOptions& options = {}) {
  return detail::normal_like(detail::kTruncatedNormalOp, shape, dtype, options.mean, options.stddev,
                             options.seed, options.name, "truncated_normal");
}
inline Output truncated_normal(const Shape& shape, const NormalOptions& options = {}) {
  return truncated_normal(shape, DType::float32, options);
}
template <std::floating_point T>
Tensor<T> truncated_normal(const Shape& shape, const NormalOptions& options = {}) {
  return Tensor<T>(truncated_normal(shape, dtype_v<T>, options));
}

// tf.random_uniform(shape, minval, maxval, dtype, seed, name), as TensorFlow 1.x builds it:
// floats: RandomUniform * (max - min) + min under "random_uniform/"; int32 / int64: one
// RandomUniformInt named "random_uniform", in [minval, maxval).
inline Output random_uniform(const Shape& shape, DType dtype, const UniformOptions& options = {}) {
  if (!is_floating(dtype) && !detail::is_uniform_int_type(dtype))
    throw ValueError("Argument `dtype` got invalid value <dtype: '" +
                     std::string(dtype_name(dtype)) +
                     "'>. Accepted dtypes are (tf.float32, tf.float64, tf.int32, tf.int64).");
  if (!options.maxval && !is_floating(dtype))
    throw ValueError("Must specify maxval for integer dtype tf." + std::string(dtype_name(dtype)));
  Value shape_value = detail::shape_value(shape, "random_uniform");
  Value min_value = detail::number_scalar(options.minval, dtype);
  Value max_value = detail::number_scalar(options.maxval.value_or(Number(1)), dtype);

  detail::OpBuilder b(get_default_graph(), options.name, "random_uniform");
  Output shape_t = b.constant_arg(std::move(shape_value), "shape");
  Output min_t = b.constant_arg(std::move(min_value), "min");
  Output max_t = b.constant_arg(std::move(max_value), "max");
  detail::SeedAttrs s = detail::seed_attrs(b.graph(), options.seed);
  if (!is_floating(dtype))
    return b
        .build(detail::kRandomUniformIntOp, {shape_t, min_t, max_t},
               {{"Tout", dtype}, {"seed", s.seed}, {"seed2", s.seed2}, {"T", DType::int32}})
        .output(0);
  Output rnd =
      b.graph()
          .create_op(detail::kRandomUniformOp, {shape_t},
                     {{"dtype", dtype}, {"seed", s.seed}, {"seed2", s.seed2}, {"T", DType::int32}},
                     "RandomUniform")
          .output(0);
  Output range =
      b.graph().create_op(detail::kSubOp, {max_t, min_t}, {{"T", dtype}}, "sub").output(0);
  return detail::scale_and_shift(b, rnd, range, min_t, dtype);
}
inline Output random_uniform(const Shape& shape, const UniformOptions& options = {}) {
  return random_uniform(shape, DType::float32, options);
}
template <Element T>
requires(std::floating_point<T> || std::same_as<T, std::int32_t> || std::same_as<T, std::int64_t>)
    Tensor<T> random_uniform(const Shape& shape, const UniformOptions& options = {}) {
  return Tensor<T>(random_uniform(shape, dtype_v<T>, options));
}

// tf.random_shuffle(value, seed, name): `value` with its first axis randomly permuted.
inline Output random_shuffle(const Output& value, const ShuffleOptions& options = {}) {
  detail::SeedAttrs s = detail::seed_attrs(graph_of({value}), options.seed);
  detail::OpBuilder b(graph_of({value}), options.name, "RandomShuffle");
  return b
      .build(detail::kRandomShuffleOp, {value},
             {{"T", value.dtype()}, {"seed", s.seed}, {"seed2", s.seed2}})
      .output(0);
}
template <Element T>
Tensor<T> random_shuffle(const Tensor<T>& value, const ShuffleOptions& options = {}) {
  return Tensor<T>(random_shuffle(Output(value), options));
}

}  // namespace symflow
