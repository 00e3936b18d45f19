#pragma once
// Value printing's definitions (core/value_print.hpp declares them): NumPy's
// arrayprint layout. Included by that header in a header-only program, and by
// symflow/define_compiled.hpp alone in a program built with SYMFLOW_COMPILED.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <ostream>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "symflow/core/shape.hpp"
#include "symflow/core/value.hpp"
#include "symflow/detail/float_repr.hpp"

#include "symflow/core/value_print.hpp"
#include "symflow/detail/config.hpp"

namespace symflow {

namespace detail {

inline constexpr int kPrintPrecision = 8;
inline constexpr std::size_t kLineWidth = 75;
inline constexpr std::int64_t kSummaryThreshold = 1000;
inline constexpr std::int64_t kEdgeItems = 3;

// NumPy's FloatingFormat: one layout for all the elements of an array. Positional
// notation pads every element to a common integer and fraction width ("[1.5  2.25]");
// scientific notation (chosen for values >= 1e8, < 1e-4 or a range above 1000) gives every
// mantissa the same number of digits ("[1.5e-05 2.0e+00]").
// `plus_sign`: NumPy's sign='+', a "+" before every non-negative number (the imaginary
// parts of complex numbers). F is float, double or float16_t (compared in its own precision).
template <class F>
class FloatFormat {
 public:
  explicit FloatFormat(const std::vector<F>& xs, bool plus_sign = false) : plus_sign_(plus_sign) {
    std::vector<F> finite;
    bool neg_inf = false;
    for (F x : xs) {
      if (std::isfinite(x))
        finite.push_back(x);
      else if (std::isinf(x) && x < 0)
        neg_inf = true;
    }
    bool any_nonzero = false;
    F max_abs{}, min_abs{};
    for (F x : finite) {
      if (x == 0) continue;
      F a = F(std::fabs(x));
      max_abs = any_nonzero ? std::max(max_abs, a) : a;
      min_abs = any_nonzero ? std::min(min_abs, a) : a;
      any_nonzero = true;
    }
    // The comparisons are made in F, as NumPy makes them in the array's dtype.
    scientific_ =
        any_nonzero && (max_abs >= F(1e8) || min_abs < F(1e-4) || F(max_abs / min_abs) > F(1000.0));
    if (scientific_) {
      for (F x : finite) {
        ScientificDigits s = scientific_digits(x, kPrintPrecision);
        s.mantissa = signed_text(x, s.mantissa);
        std::size_t dot = s.mantissa.find('.');
        pad_left_ = std::max(pad_left_, dot);
        precision_ = std::max(precision_, s.mantissa.size() - dot - 1);
        exp_digits_ = std::max(exp_digits_, std::to_string(std::abs(s.exponent)).size());
      }
      pad_right_ = exp_digits_ + 2 + precision_;  // only for the width of nan and inf
    } else {
      for (F x : finite) {
        std::string s = signed_text(x, positional_digits(x, kPrintPrecision, true));
        std::size_t dot = s.find('.');
        pad_left_ = std::max(pad_left_, dot);
        pad_right_ = std::max(pad_right_, s.size() - dot - 1);
      }
    }
    if (finite.size() != xs.size()) {  // room for "nan", "inf" and "-inf"
      std::size_t inf_width = neg_inf || plus_sign_ ? 4 : 3;
      std::size_t taken = pad_right_ + 1;
      if (inf_width > taken) pad_left_ = std::max(pad_left_, inf_width - taken);
    }
  }

  std::string operator()(F x) const {
    if (!std::isfinite(x)) {
      std::string s = std::isnan(x) ? "nan" : (x < 0 ? "-inf" : "inf");
      if (plus_sign_ && s[0] != '-') s = "+" + s;
      return std::string(pad_left_ + pad_right_ + 1 - s.size(), ' ') + s;
    }
    std::string s;
    if (scientific_) {
      // Every mantissa gets `precision_` fraction digits: past its shortest digits come
      // the exact value's next digits (Dragon4's min_digits), not zeros: 8.4993678e-01.
      ScientificDigits d = scientific_digits(x, kPrintPrecision);
      if (d.mantissa.size() - d.mantissa.find('.') - 1 < precision_)
        d = scientific_rounded(x, static_cast<int>(precision_));
      s = signed_text(x, d.mantissa) + exponent_suffix(d.exponent, static_cast<int>(exp_digits_));
    } else {
      s = signed_text(x, positional_digits(x, kPrintPrecision, true));
      s += std::string(pad_right_ - (s.size() - s.find('.') - 1), ' ');
    }
    return std::string(pad_left_ - s.find('.'), ' ') + s;
  }

 private:
  std::string signed_text(F x, std::string digits) const {
    if (plus_sign_ && !std::signbit(static_cast<double>(x))) digits.insert(0, 1, '+');
    return digits;
  }

  bool plus_sign_ = false;
  bool scientific_ = false;
  std::size_t pad_left_ = 0;    // characters before the point, sign included
  std::size_t pad_right_ = 0;   // characters after it
  std::size_t precision_ = 0;   // scientific: digits of every mantissa's fraction
  std::size_t exp_digits_ = 2;  // scientific: digits of every exponent
};

// NumPy's IntegerFormat: right-aligned to the widest of the minimum and the maximum.
template <class T>
class IntFormat {
 public:
  explicit IntFormat(const std::vector<T>& xs) {
    if (xs.empty()) return;
    auto [lo, hi] = std::minmax_element(xs.begin(), xs.end());
    width_ = std::max(str(*lo).size(), str(*hi).size());
  }
  std::string operator()(T x) const {
    std::string s = str(x);
    return std::string(width_ > s.size() ? width_ - s.size() : 0, ' ') + s;
  }
  static std::string str(T x) {
    return std::is_signed_v<T> ? std::to_string(static_cast<long long>(x))
                               : std::to_string(static_cast<unsigned long long>(x));
  }

 private:
  std::size_t width_ = 0;
};

// NumPy's BoolFormat: an array element is " True" or "False", whatever its neighbours.
struct BoolFormat {
  explicit BoolFormat(const std::vector<bool>&) {}
  std::string operator()(bool x) const { return x ? " True" : "False"; }
};

// float, double and float16_t print as NumPy prints its own float types.
template <class T>
inline constexpr bool prints_as_float = std::is_floating_point_v<T> || std::is_same_v<T, float16_t>;

// A bfloat16 (ml_dtypes' type, which TensorFlow returns) prints as C++ streams a float:
// six significant digits, no padding: "[1 0.100098 -2 1.00026e+30]".
inline std::string bfloat16_str(bfloat16_t x) {
  const float f = static_cast<float>(x);
  if (std::isnan(f)) return "nan";
  std::ostringstream os;
  os << f;
  return os.str();
}
struct Bfloat16Format {
  explicit Bfloat16Format(const std::vector<bfloat16_t>&) {}
  std::string operator()(bfloat16_t x) const { return bfloat16_str(x); }
};

// NumPy's ComplexFloatingFormat: the real parts laid out as a float array, the imaginary
// parts as one with a sign always, and the "j" before the imaginary part's padding:
// "[1. +2.j  3.5-1.j ]".
class ComplexFormat {
 public:
  explicit ComplexFormat(const std::vector<complex64_t>& xs)
      : real_(parts(xs, false)), imag_(parts(xs, true), true) {}
  std::string operator()(complex64_t x) const {
    std::string i = imag_(x.imag());
    const std::size_t end = i.find_last_not_of(' ') + 1;
    return real_(x.real()) + i.substr(0, end) + "j" + i.substr(end);
  }

 private:
  static std::vector<float> parts(const std::vector<complex64_t>& xs, bool imaginary) {
    std::vector<float> out;
    out.reserve(xs.size());
    for (const complex64_t& x : xs) out.push_back(imaginary ? x.imag() : x.real());
    return out;
  }
  FloatFormat<float> real_, imag_;
};

template <class T>
struct ElementFormatOf {
  using type =
      std::conditional_t<std::is_same_v<T, bool>, BoolFormat,
                         std::conditional_t<prints_as_float<T>, FloatFormat<T>, IntFormat<T>>>;
};
template <>
struct ElementFormatOf<bfloat16_t> {
  using type = Bfloat16Format;
};
template <>
struct ElementFormatOf<complex64_t> {
  using type = ComplexFormat;
};
template <class T>
using ElementFormat = typename ElementFormatOf<T>::type;

// One part of a NumPy complex scalar's str: positional between 1e-4 and 1e16, else
// scientific, with a bare point trimmed ("1", "0.1", "1e-05"); "+" before a non-negative
// imaginary part.
inline std::string complex_part_str(float x, bool plus_sign) {
  std::string s;
  if (std::isnan(x)) {
    s = "nan";
  } else if (std::isinf(x)) {
    s = x < 0 ? "-inf" : "inf";
  } else {
    const float a = std::fabs(x);
    if (a == 0 || (a >= 1e-4f && a < 1e16f)) {
      s = positional_digits(x);
      if (s.back() == '.') s.pop_back();
    } else {
      ScientificDigits d = scientific_digits(x);
      if (d.mantissa.back() == '.') d.mantissa.pop_back();
      s = d.mantissa + exponent_suffix(d.exponent);
    }
  }
  if (plus_sign && !std::signbit(x)) s.insert(0, 1, '+');
  return s;
}

// The str() of a NumPy scalar (NumPy 1.x): Python's float repr, except that the switch to
// scientific notation compares the value itself with 1e-4 and 1e16 ("1e-04" for float32).
template <class T>
std::string scalar_str(T x) {
  if constexpr (std::is_same_v<T, bool>) {
    return x ? "True" : "False";
  } else if constexpr (std::is_same_v<T, bfloat16_t>) {
    return bfloat16_str(x);
  } else if constexpr (std::is_same_v<T, complex64_t>) {
    // NumPy's complex scalar: "2j" when the real part is +0, else "(1+2j)".
    if (x.real() == 0 && !std::signbit(x.real())) return complex_part_str(x.imag(), false) + "j";
    return "(" + complex_part_str(x.real(), false) + complex_part_str(x.imag(), true) + "j)";
  } else if constexpr (prints_as_float<T>) {
    if (std::isnan(x)) return "nan";
    if (std::isinf(x)) return x < 0 ? "-inf" : "inf";
    long double a = std::fabs(static_cast<long double>(x));
    if (a == 0 || (a >= 1e-4L && a < 1e16L)) {
      std::string s = positional_digits(x);
      return s.back() == '.' ? s + "0" : s;
    }
    ScientificDigits s = scientific_digits(x);
    if (s.mantissa.back() == '.') s.mantissa.pop_back();
    return s.mantissa + exponent_suffix(s.exponent);
  } else {
    return IntFormat<T>::str(x);
  }
}

// Python's repr of a bytes object: b'abc', b"it's", with \\, \t, \n, \r and \xNN escapes.
inline std::string bytes_repr(std::string_view bytes) {
  const bool double_quotes =
      bytes.find('\'') != std::string_view::npos && bytes.find('"') == std::string_view::npos;
  const char quote = double_quotes ? '"' : '\'';
  std::string s = "b";
  s += quote;
  for (char c : bytes) {
    const auto u = static_cast<unsigned char>(c);
    if (c == quote || c == '\\') {
      s += '\\';
      s += c;
    } else if (c == '\t') {
      s += "\\t";
    } else if (c == '\n') {
      s += "\\n";
    } else if (c == '\r') {
      s += "\\r";
    } else if (u < 0x20 || u >= 0x7f) {
      static constexpr char kHex[] = "0123456789abcdef";
      s += "\\x";
      s += kHex[u >> 4];
      s += kHex[u & 15];
    } else {
      s += c;
    }
  }
  s += quote;
  return s;
}

// Calls f(offset) for the row-major offset of every element print shows, in order.
template <class Fn>
void for_each_shown(const Dims& dims, bool summarise, std::size_t axis, std::int64_t offset,
                    Fn& f) {
  if (axis == dims.size()) {
    f(offset);
    return;
  }
  std::int64_t n = dims[axis];
  std::int64_t stride = 1;
  for (std::size_t a = axis + 1; a < dims.size(); ++a) stride *= dims[a];
  bool summary = summarise && n > 2 * kEdgeItems;
  for (std::int64_t i = 0; i < n; ++i) {
    if (summary && i == kEdgeItems) i = n - kEdgeItems;
    for_each_shown(dims, summarise, axis + 1, offset + i * stride, f);
  }
}

inline std::string rstrip(std::string s) {
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

// NumPy's _formatArray: nested brackets, `separator` between elements, a blank line
// between blocks per axis beyond the second, rows wrapped before `line_width`.
class ArrayLayout {
 public:
  ArrayLayout(const Dims& dims, std::vector<std::string> words, bool summarise,
              std::string_view separator)
      : dims_(dims), words_(std::move(words)), summarise_(summarise), separator_(separator) {}

  // `indent`: where continuation lines start (one space per "[" and per prefix character).
  std::string format(const std::string& indent, std::size_t line_width) {
    next_word_ = 0;
    return recurse(0, indent, line_width);
  }

 private:
  std::string recurse(std::size_t axis, const std::string& indent, std::size_t width) {
    const std::int64_t n = dims_[axis];
    const bool summary = summarise_ && n > 2 * kEdgeItems;
    const std::int64_t shown = summary ? 2 * kEdgeItems : n;
    const std::string sep_end = rstrip(separator_);
    std::string s;
    if (axis + 1 == dims_.size()) {
      const std::size_t elem_width = width - std::max<std::size_t>(sep_end.size(), 1);
      std::string line = indent;
      auto extend = [&](const std::string& word) {
        if (line.size() + word.size() > elem_width && line.size() > indent.size()) {
          s += rstrip(line) + "\n";
          line = indent;
        }
        line += word;
      };
      for (std::int64_t k = 0; k < shown; ++k) {
        if (summary && k == kEdgeItems) {
          extend("...");
          line += separator_;
        }
        extend(words_[next_word_++]);
        if (k + 1 < shown) line += separator_;
      }
      s += line;
    } else {
      const std::string line_sep = sep_end + std::string(dims_.size() - axis - 1, '\n');
      for (std::int64_t k = 0; k < shown; ++k) {
        if (summary && k == kEdgeItems) s += indent + "..." + line_sep;
        s += indent + recurse(axis + 1, indent + " ", width - 1);
        if (k + 1 < shown) s += line_sep;
      }
    }
    return "[" + s.substr(indent.size()) + "]";
  }

  const Dims& dims_;
  std::vector<std::string> words_;  // the shown elements, formatted, in order
  bool summarise_;
  std::string separator_;
  std::size_t next_word_ = 0;
};

// NumPy's array2string of a non-empty array of rank >= 1. Strings come back from
// TensorFlow as an object array of bytes, whose elements print as their repr, unpadded.
template <class T>
std::string array_to_string(const Value& v, std::string_view separator, std::size_t prefix,
                            std::size_t line_width) {
  const bool summarise = v.size() > kSummaryThreshold;
  auto flat = v.flat<T>();
  std::vector<T> shown;
  auto collect = [&](std::int64_t offset) {
    shown.push_back(flat[static_cast<std::size_t>(offset)]);
  };
  for_each_shown(v.dims(), summarise, 0, 0, collect);
  std::vector<std::string> words;
  words.reserve(shown.size());
  if constexpr (std::is_same_v<T, std::string>) {
    for (const T& x : shown) words.push_back(bytes_repr(x));
  } else {
    ElementFormat<T> format(shown);
    for (const T& x : shown) words.push_back(format(x));
  }
  ArrayLayout layout(v.dims(), std::move(words), summarise, separator);
  return layout.format(std::string(prefix + 1, ' '), line_width);
}

}  // namespace detail

namespace detail {
// Calls f(type_tag<T>{}) with the element type of any dtype a value can have.
template <class F>
decltype(auto) visit_printable_dtype(DType d, F&& f) {
  if (d == DType::string) return f(type_tag<std::string>{});
  return visit_number_dtype(d, std::forward<F>(f));
}
}  // namespace detail

// NumPy's str() of the value: what print(sess.run(t)) shows.
SYMFLOW_INLINE std::string to_string(const Value& v) {
  if (v.is_none()) return "None";
  return detail::visit_printable_dtype(v.dtype(), [&](auto tag) -> std::string {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, std::string>) {
      if (v.rank() == 0) return detail::bytes_repr(v.data<T>()[0]);
    } else {
      if (v.rank() == 0) return detail::scalar_str(v.data<T>()[0]);
    }
    if (v.size() == 0) return "[]";
    return detail::array_to_string<T>(v, " ", 0, detail::kLineWidth);
  });
}

// NumPy's repr() of the value: "array([[1., 1.],\n       [1., 1.]], dtype=float32)". The
// dtype is named unless NumPy implies it (float64, int64, bool); an empty array of rank
// other than 1 also names its shape. A rank-0 value is a NumPy scalar: "3.0", "3", "True".
SYMFLOW_INLINE std::string repr(const Value& v) {
  if (v.is_none() || v.rank() == 0) return to_string(v);
  const std::string prefix = "array(";
  std::string body = v.size() == 0 ? "[]" : detail::visit_printable_dtype(v.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    return detail::array_to_string<T>(v, ", ", prefix.size(), detail::kLineWidth - 1);
  });
  std::string extras;
  if (v.size() == 0 && v.rank() != 1) extras = "shape=" + v.shape().to_string();
  const DType d = v.dtype();
  if (v.size() == 0 || !(d == DType::float64 || d == DType::int64 || d == DType::bool_))
    extras += (extras.empty() ? "" : ", ") +
              ("dtype=" + std::string(d == DType::string ? "object" : dtype_name(d)));
  if (extras.empty()) return prefix + body + ")";
  std::string head = prefix + body + ",";
  std::size_t last_line = head.size() - (head.rfind('\n') + 1);
  extras += ")";
  bool wrap = last_line + extras.size() + 1 > detail::kLineWidth;
  return head + (wrap ? "\n" + std::string(prefix.size(), ' ') : " ") + extras;
}

SYMFLOW_INLINE std::ostream& operator<<(std::ostream& os, const Value& v) {
  return os << to_string(v);
}

// Python's print of the list sess.run returns: "[1.0, 2.0, 3.0]" for three float scalars,
// "[array([1., 2.], dtype=float32), None]" for an array and a fetched operation. Each
// element is shown by repr(), as Python shows the elements of a list.
SYMFLOW_INLINE std::string to_string(const std::vector<Value>& values) {
  std::string s = "[";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i) s += ", ";
    s += repr(values[i]);
  }
  return s + "]";
}

SYMFLOW_INLINE std::ostream& operator<<(std::ostream& os, const std::vector<Value>& values) {
  return os << to_string(values);
}

}  // namespace symflow
