#pragma once
// Decimal forms of floating-point numbers, built on the shortest digits that round-trip
// in the value's own precision (float, double, or a 16-bit float type that converts to and
// from float), as Python, NumPy and protobuf's text format print them:
//   python_float_repr      Python's repr(float): "1.0", "0.5", "1e-05", "1e+16"
//   positional_digits      NumPy's dragon4_positional(unique, trim='.'): "6.", "0.25"
//   scientific_digits      NumPy's dragon4_scientific(unique, trim='.'): "1.5" and -5
//   scientific_rounded     printf's %.*e: the exact value's digits, "1.000" and -5

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <system_error>
#include <type_traits>

namespace symflow::detail {

// Shortest round-trip digits and decimal exponent: value = 0.d1d2d3... * 10^exp10.
struct DecimalDigits {
  bool negative = false;
  std::string digits;  // no leading or trailing zeros; "0" for zero
  int exp10 = 0;       // position of the decimal point relative to digits[0]
};

// The digits of the 16-bit float `value` (float16_t, bfloat16_t): the fewest significant
// digits that read back, through float, as the same 16 bits.
template <class F>
std::string shortest_16bit_scientific(F value) {
  char buf[64];
  const float x = static_cast<float>(value);
  for (int frac = 0;; ++frac) {
    auto res = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::scientific, frac);
    float back = 0;
    std::from_chars(buf, res.ptr, back);
    if (F(back).bits == value.bits || frac >= 8) return std::string(buf, res.ptr);
  }
}

// Needs a finite value.
template <class F>
DecimalDigits shortest_digits(F value) {
  char buf[64];
  std::string s;  // "-1.25e-05"
  if constexpr (std::is_class_v<F>) {
    s = shortest_16bit_scientific(value);
  } else {
    auto res = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
    s.assign(buf, res.ptr);
  }
  DecimalDigits out;
  std::size_t pos = 0;
  if (s[0] == '-') {
    out.negative = true;
    pos = 1;
  }
  std::size_t e = s.find('e');
  for (std::size_t i = pos; i < e; ++i)
    if (s[i] != '.') out.digits += s[i];
  while (out.digits.size() > 1 && out.digits.back() == '0') out.digits.pop_back();
  out.exp10 = std::atoi(s.c_str() + e + 1) + 1;
  if (out.digits == "0") out.exp10 = 1;
  return out;
}

// "e-05", "e+100": the exponent with a sign and at least `min_digits` digits.
inline std::string exponent_suffix(int exponent, int min_digits = 2) {
  std::string digits = std::to_string(std::abs(exponent));
  if (static_cast<int>(digits.size()) < min_digits)
    digits.insert(0, static_cast<std::size_t>(min_digits) - digits.size(), '0');
  return (exponent < 0 ? "e-" : "e+") + digits;
}

// The finite `value` in positional notation with its shortest round-trip digits, rounded
// (exactly, half to even) to at most `max_frac` fraction digits; trailing zeros are
// trimmed but the point is kept: "6.", "-0.", "0.33333334", "12345678.". When the shortest
// digits end before the point, the integer part is filled with zeros ("34701430." for
// float32(34701432), as Python and NumPy scalars print it), or with the exact value's digits
// if `exact_integer_part` ("34701432.", as NumPy's array printing does).
template <class F>
std::string positional_digits(F value, int max_frac = std::numeric_limits<int>::max(),
                              bool exact_integer_part = false) {
  DecimalDigits d = shortest_digits(value);
  const int n = static_cast<int>(d.digits.size());
  const int point = d.exp10;
  char buf[512];  // enough for every double in %.0f
  if (n - point > max_frac) {
    std::snprintf(buf, sizeof buf, "%.*f", max_frac, static_cast<double>(value));
    std::string s = buf;
    if (s.find('.') == std::string::npos) return s + ".";
    while (s.back() == '0') s.pop_back();
    return s;
  }
  if (point >= n && exact_integer_part) {  // the value is an integer
    std::snprintf(buf, sizeof buf, "%.0f", static_cast<double>(value));
    return std::string(buf) + ".";
  }
  std::string sign = d.negative ? "-" : "";
  if (point <= 0)
    return sign + "0." + std::string(static_cast<std::size_t>(-point), '0') + d.digits;
  if (point >= n)
    return sign + d.digits + std::string(static_cast<std::size_t>(point - n), '0') + ".";
  return sign + d.digits.substr(0, static_cast<std::size_t>(point)) + "." +
         d.digits.substr(static_cast<std::size_t>(point));
}

// A number in scientific notation: mantissa * 10^exponent.
struct ScientificDigits {
  std::string mantissa;
  int exponent = 0;
};

// The finite `value` in scientific notation with exactly `frac` fraction digits of its
// exact binary value, rounded half to even: ("1.000", -5), ("8.4993678", -1).
template <class F>
ScientificDigits scientific_rounded(F value, int frac) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*e", frac, static_cast<double>(value));
  std::string s = buf;
  std::size_t e = s.find('e');
  ScientificDigits out{s.substr(0, e), std::atoi(s.c_str() + e + 1)};
  if (frac == 0) out.mantissa += '.';
  return out;
}

// The finite `value` in scientific notation: a mantissa with its shortest round-trip digits,
// rounded to at most `max_frac` fraction digits, trailing zeros trimmed but the point kept
// ("1.", "-1.5"), and the decimal exponent.
template <class F>
ScientificDigits scientific_digits(F value, int max_frac = std::numeric_limits<int>::max()) {
  DecimalDigits d = shortest_digits(value);
  const int n = static_cast<int>(d.digits.size());
  if (n - 1 > max_frac) {
    ScientificDigits out = scientific_rounded(value, max_frac);
    while (out.mantissa.back() == '0') out.mantissa.pop_back();
    return out;
  }
  return {(d.negative ? "-" : "") + d.digits.substr(0, 1) + "." + d.digits.substr(1), d.exp10 - 1};
}

// repr(float(value)) in Python: "1.0", "0.5", "1e-05", "1e+16", "inf", "nan".
template <class F>
std::string python_float_repr(F value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  DecimalDigits d = shortest_digits(value);
  const int exponent = d.exp10 - 1;
  if (exponent < -4 || exponent >= 16) {
    ScientificDigits s = scientific_digits(value);
    if (s.mantissa.back() == '.') s.mantissa.pop_back();
    return s.mantissa + exponent_suffix(s.exponent);
  }
  std::string s = positional_digits(value);
  return s.back() == '.' ? s + "0" : s;
}

}  // namespace symflow::detail
