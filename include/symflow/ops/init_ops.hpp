#pragma once
// Initializers: callables that build a variable's initial value for a shape and dtype,
// as TensorFlow 1.x's init_ops classes do when called (tf.zeros_initializer()(shape)).
// Each builds its ops in the current default graph and name scope, with the names
// TensorFlow gives them ("zeros", "Const", "random_uniform/...", "truncated_normal/...").
// get_variable calls them under its own "Initializer" scope.

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "symflow/ops/array_ops.hpp"
#include "symflow/ops/const_op.hpp"
#include "symflow/ops/random_ops.hpp"

namespace symflow {

// What get_variable calls to make a variable's initial value.
using Initializer = std::function<Output(const Shape& shape, DType dtype)>;

namespace detail {

template <class T>
std::string python_repr(T x) {
  if constexpr (std::is_same_v<T, bool>)
    return x ? "True" : "False";
  else if constexpr (std::is_floating_point_v<T>)
    return python_float_repr(x);
  else
    return std::to_string(x);
}
template <class T>
constexpr std::string_view python_type_name() {
  if constexpr (std::is_same_v<T, bool>)
    return "bool";
  else if constexpr (std::is_floating_point_v<T>)
    return "float";
  else
    return "int";
}

// `v`'s elements as `dtype`, as convert_to_tensor(v, dtype) converts Python numbers:
// integers and bools go to any number type (integers wrap), floats only to floats, and
// only bools to bool; anything else is a TypeError naming the first element.
inline Value convert_elements(const Value& v, DType dtype) {
  if (v.dtype() == dtype) return v;
  if (is_storage_dtype(dtype) || is_storage_dtype(v.dtype())) {
    // The same rule with the storage dtypes: no floats into integers or bools.
    auto floating = [](DType d) {
      return is_floating(d) || d == DType::float16 || d == DType::bfloat16 || d == DType::complex64;
    };
    if (floating(v.dtype()) && !floating(dtype))
      throw TypeError("Expected " + std::string(dtype_name(dtype)) + ", but got " +
                      (v.size() > 0 ? python_repr(v.astype(DType::float64).flat<double>()[0])
                                    : std::string("[]")) +
                      " of type 'float'.");
    return v.astype(dtype);
  }
  return visit_dtype(v.dtype(), [&](auto from) -> Value {
    using S = typename decltype(from)::type;
    return visit_dtype(dtype, [&](auto to) -> Value {
      using D = typename decltype(to)::type;
      constexpr bool ok = std::is_same_v<D, bool>
                              ? std::is_same_v<S, bool>
                              : (std::is_floating_point_v<D> || !std::is_floating_point_v<S>);
      if constexpr (!ok) {
        throw TypeError("Expected " + std::string(dtype_name(dtype)) + ", but got " +
                        (v.size() > 0 ? python_repr(v.flat<S>()[0]) : std::string("[]")) +
                        " of type '" + std::string(python_type_name<S>()) + "'.");
      } else {
        Value out(dtype, v.dims());
        std::transform(v.flat<S>().begin(), v.flat<S>().end(), out.flat<D>().begin(),
                       [](S x) { return static_cast<D>(x); });
        return out;
      }
    });
  });
}

// TensorFlow's init_ops._compute_fans: (fan_in, fan_out) of a weight shape; dims before
// the last two form the receptive field (convolution kernels).
inline std::pair<double, double> compute_fans(const Shape& shape) {
  if (!shape.is_fully_defined())
    throw ValueError("Initializers need a fully defined shape, got " + shape.to_string());
  const Dims& d = shape.dims();
  if (d.empty()) return {1.0, 1.0};
  if (d.size() == 1) return {static_cast<double>(d[0]), static_cast<double>(d[0])};
  double receptive = 1.0;
  for (std::size_t i = 0; i + 2 < d.size(); ++i) receptive *= static_cast<double>(d[i]);
  return {static_cast<double>(d[d.size() - 2]) * receptive,
          static_cast<double>(d[d.size() - 1]) * receptive};
}

}  // namespace detail

// tf.zeros_initializer(): tf.zeros(shape, dtype) ("zeros": a Const, or a Fill when large).
inline Initializer zeros_initializer() {
  return [](const Shape& shape, DType dtype) { return zeros(shape, dtype); };
}

// tf.ones_initializer(): tf.ones(shape, dtype) ("ones").
inline Initializer ones_initializer() {
  return [](const Shape& shape, DType dtype) { return ones(shape, dtype); };
}

// tf.constant_initializer(value): a Const ("Const") of the requested dtype. A scalar
// fills the shape; a list may have fewer elements than the shape (the last one fills the
// rest, as in TensorFlow 1.x) but not more (ValueError). A floating-point value for an
// integer or bool dtype is a TypeError.
inline Initializer constant_initializer(Value value = Value(0)) {
  return [value = std::move(value)](const Shape& shape, DType dtype) {
    return constant(detail::convert_elements(value, dtype), shape);
  };
}

// Arguments of random_normal_initializer and truncated_normal_initializer.
struct NormalInitializerOptions {
  double mean = 0.0;
  double stddev = 1.0;
  std::optional<std::int64_t> seed = std::nullopt;
};

// Arguments of random_uniform_initializer (maxval: 1 for floats, required for integers).
struct UniformInitializerOptions {
  Number minval = 0;
  std::optional<Number> maxval = std::nullopt;
  std::optional<std::int64_t> seed = std::nullopt;
};

// tf.random_normal_initializer(mean, stddev, seed): random_normal(shape, ...).
// An integer dtype is a TypeError, as in TensorFlow.
inline Initializer random_normal_initializer(NormalInitializerOptions options = {}) {
  return [options](const Shape& shape, DType dtype) {
    return random_normal(shape, dtype,
                         {.mean = options.mean, .stddev = options.stddev, .seed = options.seed});
  };
}

// tf.truncated_normal_initializer(mean, stddev, seed): truncated_normal(shape, ...).
inline Initializer truncated_normal_initializer(NormalInitializerOptions options = {}) {
  return [options](const Shape& shape, DType dtype) {
    return truncated_normal(shape, dtype,
                            {.mean = options.mean, .stddev = options.stddev, .seed = options.seed});
  };
}

// tf.random_uniform_initializer(minval, maxval, seed): random_uniform(shape, ...). Like
// TensorFlow's, it serves integer dtypes too when the bounds are integers.
inline Initializer random_uniform_initializer(UniformInitializerOptions options = {}) {
  return [options](const Shape& shape, DType dtype) {
    return random_uniform(
        shape, dtype, {.minval = options.minval, .maxval = options.maxval, .seed = options.seed});
  };
}

// Arguments of variance_scaling_initializer.
struct VarianceScalingOptions {
  double scale = 1.0;
  std::string mode = "fan_in";                    // fan_in, fan_out or fan_avg
  std::string distribution = "truncated_normal";  // truncated_normal (alias: normal),
                                                  // untruncated_normal or uniform
  std::optional<std::int64_t> seed = std::nullopt;
};

// tf.variance_scaling_initializer (TensorFlow 1.x's VarianceScaling): with n = fan_in,
// fan_out or their mean, scale' = scale / max(1, n), and then
//   truncated_normal:   truncated_normal(0, sqrt(scale') / 0.87962566103423978)
//   untruncated_normal: random_normal(0, sqrt(scale'))
//   uniform:            random_uniform(-sqrt(3 scale'), sqrt(3 scale'))
// Bad arguments are ValueErrors when the initializer is made; a non-float dtype is a
// TypeError when it is called.
inline Initializer variance_scaling_initializer(VarianceScalingOptions options = {}) {
  if (!(options.scale > 0.0))
    throw ValueError("Argument `scale` must be a positive float. Received: " +
                     detail::python_float_repr(options.scale));
  if (options.mode != "fan_in" && options.mode != "fan_out" && options.mode != "fan_avg")
    throw ValueError(
        "Argument `mode` should be one of ('fan_in', 'fan_out', 'fan_avg'). Received: " +
        options.mode);
  std::string distribution = detail::to_lower(options.distribution);
  if (distribution == "normal") distribution = "truncated_normal";  // TF1's deprecated alias
  if (distribution != "truncated_normal" && distribution != "untruncated_normal" &&
      distribution != "uniform")
    throw ValueError(
        "Argument `distribution` should be one of ('normal', 'uniform', 'truncated_normal', "
        "'untruncated_normal'). Received: " +
        options.distribution);
  options.distribution = distribution;
  return [options](const Shape& shape, DType dtype) {
    auto [fan_in, fan_out] = detail::compute_fans(shape);
    double n = options.mode == "fan_in"    ? fan_in
               : options.mode == "fan_out" ? fan_out
                                           : (fan_in + fan_out) / 2.0;
    double scale = options.scale / std::max(1.0, n);
    if (options.distribution == "truncated_normal")
      // 0.8796...: the standard deviation of a standard normal truncated to [-2, 2]
      return truncated_normal(
          shape, dtype,
          {.mean = 0.0, .stddev = std::sqrt(scale) / .87962566103423978, .seed = options.seed});
    if (options.distribution == "untruncated_normal")
      return random_normal(shape, dtype,
                           {.mean = 0.0, .stddev = std::sqrt(scale), .seed = options.seed});
    double limit = std::sqrt(3.0 * scale);
    return random_uniform(shape, dtype, {.minval = -limit, .maxval = limit, .seed = options.seed});
  };
}

// tf.glorot_uniform_initializer(seed): uniform in [-l, l], l = sqrt(6 / (fan_in + fan_out)).
inline Initializer glorot_uniform_initializer(std::optional<std::int64_t> seed = std::nullopt) {
  return variance_scaling_initializer(
      {.scale = 1.0, .mode = "fan_avg", .distribution = "uniform", .seed = seed});
}

// tf.glorot_normal_initializer(seed): truncated normal with stddev
// sqrt(2 / (fan_in + fan_out)) / 0.87962566103423978.
inline Initializer glorot_normal_initializer(std::optional<std::int64_t> seed = std::nullopt) {
  return variance_scaling_initializer(
      {.scale = 1.0, .mode = "fan_avg", .distribution = "truncated_normal", .seed = seed});
}

}  // namespace symflow
