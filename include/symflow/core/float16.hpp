#pragma once
// The 16-bit floating element types: IEEE half precision (tf.float16) and bfloat16
// (tf.bfloat16). Storage types: a value converts to float for anything numeric, and a
// float converts back rounding to nearest, ties to even, as TensorFlow's (Eigen's) do.

#include <bit>
#include <cstdint>
#include <limits>

namespace symflow {

// tf.float16's element: 1 sign, 5 exponent and 10 fraction bits.
struct float16_t {
  std::uint16_t bits = 0;

  constexpr float16_t() = default;
  constexpr explicit float16_t(float x) : bits(from_float(x)) {}
  constexpr explicit float16_t(double x) : float16_t(static_cast<float>(x)) {}
  static constexpr float16_t from_bits(std::uint16_t b) {
    float16_t h;
    h.bits = b;
    return h;
  }
  constexpr operator float() const { return to_float(bits); }

  static constexpr std::uint16_t from_float(float x) {
    const std::uint32_t f = std::bit_cast<std::uint32_t>(x);
    const auto sign = static_cast<std::uint16_t>((f >> 16) & 0x8000u);
    const std::uint32_t abs = f & 0x7fffffffu;
    if (abs >= 0x7f800000u)  // inf stays inf; NaN stays a quiet NaN
      return static_cast<std::uint16_t>(sign | (abs > 0x7f800000u ? 0x7e00u : 0x7c00u));
    if (abs >= 0x477ff000u) return static_cast<std::uint16_t>(sign | 0x7c00u);  // rounds past max
    if (abs < 0x38800000u) {  // a subnormal half (or zero): round the scaled value
      const float scaled = std::bit_cast<float>(abs) * 16777216.0f;  // * 2^24, exact
      // Round half to even by hand: constexpr code cannot rely on the rounding mode.
      const auto whole = static_cast<std::uint32_t>(scaled);
      const float rest = scaled - static_cast<float>(whole);
      const std::uint32_t rounded =
          whole + ((rest > 0.5f || (rest == 0.5f && (whole & 1u))) ? 1u : 0u);
      return static_cast<std::uint16_t>(sign | rounded);
    }
    // Normal: rebias the exponent, then round the 13 dropped fraction bits to even.
    const std::uint32_t odd = (abs >> 13) & 1u;
    const std::uint32_t rounded = abs + 0xfffu + odd;
    return static_cast<std::uint16_t>(sign | ((rounded - 0x38000000u) >> 13));
  }

  static constexpr float to_float(std::uint16_t h) {
    const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
    const std::uint32_t exponent = (h >> 10) & 0x1fu;
    const std::uint32_t fraction = h & 0x3ffu;
    if (exponent == 0) {  // zero or subnormal: fraction * 2^-24, exact in float
      const float magnitude = static_cast<float>(fraction) * (1.0f / 16777216.0f);
      return std::bit_cast<float>(sign | std::bit_cast<std::uint32_t>(magnitude));
    }
    if (exponent == 0x1f) return std::bit_cast<float>(sign | 0x7f800000u | (fraction << 13));
    return std::bit_cast<float>(sign | ((exponent + 112u) << 23) | (fraction << 13));
  }
};

// tf.bfloat16's element: float32's top 16 bits (1 sign, 8 exponent, 7 fraction bits).
struct bfloat16_t {
  std::uint16_t bits = 0;

  constexpr bfloat16_t() = default;
  constexpr explicit bfloat16_t(float x) : bits(from_float(x)) {}
  constexpr explicit bfloat16_t(double x) : bfloat16_t(static_cast<float>(x)) {}
  static constexpr bfloat16_t from_bits(std::uint16_t b) {
    bfloat16_t h;
    h.bits = b;
    return h;
  }
  constexpr operator float() const {
    return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
  }

  static constexpr std::uint16_t from_float(float x) {
    const std::uint32_t f = std::bit_cast<std::uint32_t>(x);
    if ((f & 0x7fffffffu) > 0x7f800000u)  // NaN: keep the sign, make it quiet
      return static_cast<std::uint16_t>((f >> 16) | 0x0040u);
    const std::uint32_t odd = (f >> 16) & 1u;
    return static_cast<std::uint16_t>((f + 0x7fffu + odd) >> 16);
  }
};

}  // namespace symflow
