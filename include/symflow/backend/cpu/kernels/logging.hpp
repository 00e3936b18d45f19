#pragma once
// The CPU kernels of Print and Assert, the tensor summary both write (TensorFlow's
// Tensor::SummarizeValue), and kLoggingCpuKernels, the table that maps their OpDefs
// (ops/defs/logging.hpp) to them.

#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <type_traits>

#include "symflow/backend/cpu/kernel_table.hpp"
#include "symflow/backend/kernel_context.hpp"
#include "symflow/ops/defs/logging.hpp"

namespace symflow::detail {

// One float as TensorFlow prints it: the fewest of 6 (float) or 15 (double) significant
// digits when they read back as the same value, else 9 or 17; NaN keeps its sign.
template <class T>
std::string summary_float(T x) {
  if (std::isnan(x)) return std::signbit(x) ? "-nan" : "nan";
  constexpr int short_digits = std::is_same_v<T, float> ? FLT_DIG : DBL_DIG;
  constexpr int exact_digits = std::is_same_v<T, float> ? FLT_DIG + 3 : DBL_DIG + 2;
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%.*g", short_digits, static_cast<double>(x));
  const bool round_trips = std::is_same_v<T, float>
                               ? std::strtof(buffer, nullptr) == static_cast<float>(x)
                               : std::strtod(buffer, nullptr) == static_cast<double>(x);
  if (!round_trips)
    std::snprintf(buffer, sizeof buffer, "%.*g", exact_digits, static_cast<double>(x));
  return buffer;
}

// A string element with C escapes for quotes, backslashes and control bytes; bytes of
// UTF-8 sequences pass through (TensorFlow's Utf8SafeCEscape).
inline std::string summary_string(const std::string& s) {
  std::string out;
  for (char ch : s) {
    const auto byte = static_cast<unsigned char>(ch);
    switch (ch) {
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '"':
        out += "\\\"";
        break;
      case '\'':
        out += "\\'";
        break;
      case '\\':
        out += "\\\\";
        break;
      default:
        if (byte < 0x20 || byte == 0x7f) {
          char octal[8];
          std::snprintf(octal, sizeof octal, "\\%03o", static_cast<unsigned>(byte));
          out += octal;
        } else {
          out += ch;
        }
    }
  }
  return out;
}

template <class T>
std::string summary_element(const T& x) {
  if constexpr (std::is_same_v<T, std::string>)
    return summary_string(x);
  else if constexpr (std::is_floating_point_v<T>)
    return summary_float(x);
  else if constexpr (std::is_same_v<T, bool>)
    return x ? "1" : "0";
  else
    return std::to_string(static_cast<std::int64_t>(x));
}

// Writes dimension `axis` of the row-major elements from `*next` on, bracketing each
// row but the outermost, and stops at `limit` elements with "..." inside the rows.
template <class T>
void summarize_dim(std::size_t axis, const Dims& dims, std::int64_t limit, const T* data,
                   std::int64_t* next, std::string& out) {
  if (*next >= limit) return;
  const std::int64_t count = dims[axis];
  if (axis + 1 == dims.size()) {
    for (std::int64_t i = 0; i < count; ++i) {
      if (*next >= limit) {
        if (axis != 0) out += "...";
        return;
      }
      if (i > 0) out += ' ';
      out += summary_element(data[(*next)++]);
    }
    return;
  }
  for (std::int64_t i = 0; i < count; ++i) {
    bool opened = false;
    if (*next < limit) {
      out += '[';
      opened = true;
    }
    summarize_dim(axis + 1, dims, limit, data, next, out);
    if (*next < limit || opened) out += ']';
  }
}

// TensorFlow's summary of a tensor (Tensor::SummarizeValue without its print_v2 form):
// at most `max_entries` elements (all of them when negative), then "..." when some were
// left out. "[[1 2][3...]...]" is a 2x2 tensor summarised at 3 (the outer brackets are
// the caller's).
inline std::string summarize_value(const Value& v, std::int64_t max_entries) {
  const std::int64_t n = v.size();
  const std::int64_t limit = max_entries < 0 ? n : std::min(max_entries, n);
  std::string out;
  visit_any_dtype(v.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* data = limit > 0 ? v.data<T>() : nullptr;
    if (v.rank() == 0) {
      for (std::int64_t i = 0; i < limit; ++i) {
        if (i > 0) out += ' ';
        out += summary_element(data[i]);
      }
    } else {
      std::int64_t next = 0;
      summarize_dim(0, v.dims(), limit, data, &next, out);
    }
  });
  if (n > limit) out += "...";
  return out;
}

// Input i and the rest, each summarised in brackets, with `separator` between them.
inline std::string summarize_inputs(const KernelContext& ctx, std::size_t first,
                                    std::int64_t summarize, const char* separator) {
  std::string out;
  for (std::size_t i = first; i < ctx.num_inputs(); ++i) {
    if (i > first) out += separator;
    out += '[' + summarize_value(ctx.input(i), summarize) + ']';
  }
  return out;
}

// Print: passes input 0 on, and writes its line to std::cerr (where TensorFlow's kernel
// writes it) for the first `first_n` runs of this session, or every run at -1.
inline void print_kernel(KernelContext& ctx) {
  ctx.set_output(0, ctx.input(0));
  const auto first_n = ctx.attr<std::int64_t>("first_n");
  if (first_n >= 0) {
    auto& printed = ctx.state<std::int64_t>([] { return std::int64_t{0}; });
    if (printed >= first_n) return;
    ++printed;
  }
  std::cerr << ctx.attr<std::string>("message") +
                   summarize_inputs(ctx, 1, ctx.attr<std::int64_t>("summarize"), "")
            << std::endl;
}

inline void assert_kernel(KernelContext& ctx) {
  const Value& condition = ctx.input(0);
  if (condition.rank() != 0)
    ctx.fail("In[0] should be a scalar: " + dims_to_string(condition.dims()));
  if (condition.scalar<bool>()) return;
  ctx.fail("assertion failed: " +
           summarize_inputs(ctx, 1, ctx.attr<std::int64_t>("summarize"), " "));
}

inline constexpr auto kLoggingCpuKernels = std::to_array<CpuKernel>({
    {&kPrintOp, print_kernel},
    {&kAssertOp, assert_kernel},
});

}  // namespace symflow::detail
