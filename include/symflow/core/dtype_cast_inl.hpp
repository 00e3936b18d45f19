#pragma once
// cast_elements' definition (core/dtype_cast.hpp declares it). Included by that header in
// a header-only program, and by symflow/define_compiled.hpp alone in a program built with
// SYMFLOW_COMPILED.

#include <complex>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "symflow/core/dtype.hpp"
#include "symflow/core/dtype_cast.hpp"
#include "symflow/core/errors.hpp"
#include "symflow/detail/config.hpp"

namespace symflow {

namespace detail {

template <class T>
inline constexpr bool is_half_type = std::is_same_v<T, float16_t> || std::is_same_v<T, bfloat16_t>;

// A float (float or double) to integer type D, the way the Cast kernels do it.
template <class D, class F>
D float_to_integer(F x) {
  using Wide = std::conditional_t<(sizeof(D) == 8 || (sizeof(D) == 4 && std::is_unsigned_v<D>)),
                                  std::int64_t, std::int32_t>;
  if constexpr (std::is_same_v<D, std::uint64_t>) {
    // x86 converts [2^63, 2^64) to uint64 exactly.
    if (x >= F(9223372036854775808.0) && x < F(18446744073709551616.0)) return static_cast<D>(x);
  }
  // Wide's range is [-bound, bound), with bound = 2^31 or 2^63: exact in float and double.
  constexpr F bound = -static_cast<F>(std::numeric_limits<Wide>::min());
  if (!(x >= -bound && x < bound)) return static_cast<D>(std::numeric_limits<Wide>::min());
  return static_cast<D>(static_cast<Wide>(x));
}

template <class D, class S>
D cast_one(S x) {
  if constexpr (is_half_type<S>) {
    return cast_one<D>(static_cast<float>(x));
  } else if constexpr (std::is_same_v<S, complex64_t>) {
    if constexpr (std::is_same_v<D, complex64_t>)
      return x;
    else
      return cast_one<D>(x.real());
  } else if constexpr (std::is_same_v<D, bool>) {
    return x != S{0};
  } else if constexpr (is_half_type<D>) {
    return D(static_cast<float>(x));
  } else if constexpr (std::is_same_v<D, complex64_t>) {
    return complex64_t(static_cast<float>(x), 0.0f);
  } else if constexpr (std::is_floating_point_v<S> && std::is_integral_v<D>) {
    return float_to_integer<D>(x);
  } else {
    return static_cast<D>(x);
  }
}

}  // namespace detail

SYMFLOW_INLINE void cast_elements(DType from, const void* in, DType to, void* out,
                                  std::int64_t count) {
  if (stores_strings(from) || stores_strings(to))  // TensorFlow's Cast has no such kernel
    throw UnimplementedError("Cast " + std::string(dtype_runtime_name(from)) + " to " +
                             std::string(dtype_runtime_name(to)) + " is not supported");
  visit_number_dtype(from, [&](auto source) {
    using S = typename decltype(source)::type;
    visit_number_dtype(to, [&](auto target) {
      using D = typename decltype(target)::type;
      const S* src = static_cast<const S*>(in);
      D* dst = static_cast<D*>(out);
      for (std::int64_t i = 0; i < count; ++i) dst[i] = detail::cast_one<D>(src[i]);
    });
  });
}

}  // namespace symflow
