#pragma once
// The functions that build the random ops (RandomStandardNormal, RandomUniform,
// RandomUniformInt, TruncatedNormal, RandomShuffle) as TensorFlow 1.x's random_ops.py
// does, and TensorFlow 1.x's seed rules (tf.set_random_seed, tf.get_seed). The ops'
// descriptions are in ops/defs/random.hpp; their CPU kernels, which draw from
// Philox4x32-10 as TensorFlow's do, in backend/cpu/kernels/random.hpp.

#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "symflow/detail/float_repr.hpp"
#include "symflow/ops/array_ops.hpp"
#include "symflow/ops/defs/random.hpp"
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
          .create_op(
              def, {shape_t},
              {{"dtype", dtype}, {"seed", s.seed}, {"seed2", s.seed2}, {"T", shape_t.dtype()}},
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
               {{"Tout", dtype}, {"seed", s.seed}, {"seed2", s.seed2}, {"T", shape_t.dtype()}})
        .output(0);
  Output rnd =
      b.graph()
          .create_op(
              detail::kRandomUniformOp, {shape_t},
              {{"dtype", dtype}, {"seed", s.seed}, {"seed2", s.seed2}, {"T", shape_t.dtype()}},
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
