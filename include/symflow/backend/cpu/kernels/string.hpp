#pragma once
// The CPU kernels of the string ops (ops/defs/string.hpp), and kStringCpuKernels, the
// table that maps their OpDefs to them. Regular expressions are RE2's, as TensorFlow's
// are, when symflow is built with it (SYMFLOW_HAVE_RE2; Debian: libre2-dev).

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#if defined(SYMFLOW_HAVE_RE2) && SYMFLOW_HAVE_RE2
#include <re2/re2.h>
#endif

#include "symflow/backend/cpu/kernel_table.hpp"
#include "symflow/backend/kernel_context.hpp"
#include "symflow/ops/defs/string.hpp"

namespace symflow::detail {

inline void string_join_kernel(KernelContext& ctx) {
  const std::size_t n = ctx.num_inputs();
  const Value* shaped = nullptr;
  for (std::size_t i = 0; i < n; ++i) {
    const Value& in = ctx.input(i);
    if (in.rank() == 0) continue;
    if (shaped && shaped->dims() != in.dims())
      ctx.fail("Input shapes do not match: " + dims_to_string(shaped->dims()) + " vs. " +
               dims_to_string(in.dims()));
    if (!shaped) shaped = &in;
  }
  const std::string& separator = ctx.attr<std::string>("separator");
  Value& out = ctx.allocate_output(0, DType::string, shaped ? shaped->dims() : Dims{});
  auto o = out.flat<std::string>();
  for (std::size_t k = 0; k < o.size(); ++k) {
    for (std::size_t i = 0; i < n; ++i) {
      const Value& in = ctx.input(i);
      if (i) o[k] += separator;
      o[k] += in.data<std::string>()[in.rank() == 0 ? 0 : k];
    }
  }
}

inline void string_length_kernel(KernelContext& ctx) {
  const Value& in = ctx.input(0);
  const bool utf8 = ctx.attr<std::string>("unit") == "UTF8_CHAR";
  Value& out = ctx.allocate_output_for_overwrite(0, DType::int32, in.dims());
  std::transform(in.data<std::string>(), in.data<std::string>() + in.size(),
                 out.data<std::int32_t>(), [&](const std::string& s) {
                   // A UTF-8 character is every byte but the continuation bytes (10xxxxxx).
                   const auto n =
                       utf8 ? std::count_if(s.begin(), s.end(),
                                            [](char c) {
                                              return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
                                            })
                            : static_cast<std::ptrdiff_t>(s.size());
                   return static_cast<std::int32_t>(n);
                 });
}

// AsString's printf format ("%f", "%05d", "%.2e"), checked as TensorFlow checks it.
inline std::string as_string_format(const KernelContext& ctx, DType dtype) {
  const auto precision = ctx.attr<std::int64_t>("precision");
  const auto width = ctx.attr<std::int64_t>("width");
  const bool scientific = ctx.attr<bool>("scientific");
  const bool shortest = ctx.attr<bool>("shortest");
  const std::string& fill = ctx.attr<std::string>("fill");
  const std::string type(dtype_runtime_name(dtype));
  if (scientific && shortest) ctx.fail("Cannot select both scientific and shortest notation");
  if (fill.size() > 1) ctx.fail("Fill string must be one or fewer characters");
  if (!is_floating(dtype) && (scientific || shortest))
    ctx.fail("scientific and shortest format not supported for datatype " + type);
  if (!is_floating(dtype) && precision > -1)
    ctx.fail("precision not supported for datatype " + type);
  std::string format = "%";
  if (!fill.empty()) {
    if (std::string_view(" +-0#").find(fill[0]) == std::string_view::npos)
      ctx.fail("Fill argument not supported: \"" + fill + "\"");
    format += fill;
  }
  if (width > -1) format += std::to_string(width);
  if (precision > -1) format += "." + std::to_string(precision);
  if (is_floating(dtype))
    format += shortest ? "g" : scientific ? "e" : "f";
  else
    format += dtype == DType::int64 ? "lld" : "d";
  return format;
}

inline void as_string_kernel(KernelContext& ctx) {
  const Value& in = ctx.input(0);
  Value& out = ctx.allocate_output(0, DType::string, in.dims());
  std::string* o = out.data<std::string>();
  const std::string format = in.dtype() == DType::bool_ ? "" : as_string_format(ctx, in.dtype());
  visit_dtype(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* x = in.data<T>();
    for (std::int64_t i = 0; i < in.size(); ++i) {
      if constexpr (std::is_same_v<T, bool>) {
        o[i] = x[i] ? "true" : "false";
      } else {
        // printf's promotions: float to double, uint8 to int, int64 to long long.
        using Arg =
            std::conditional_t<std::is_floating_point_v<T>, double,
                               std::conditional_t<std::is_same_v<T, std::int64_t>, long long, int>>;
        const Arg a = static_cast<Arg>(x[i]);
        const int n = std::snprintf(nullptr, 0, format.c_str(), a);
        std::string s(static_cast<std::size_t>(std::max(n, 0)), '\0');
        std::snprintf(s.data(), s.size() + 1, format.c_str(), a);
        o[i] = std::move(s);
      }
    }
  });
}

// Whether each string of `in` matches `pattern` whole (RegexFullMatch's and
// StaticRegexFullMatch's shared body).
inline void regex_full_match(KernelContext& ctx, [[maybe_unused]] std::string_view op,
                             const Value& in, [[maybe_unused]] const std::string& pattern) {
#if defined(SYMFLOW_HAVE_RE2) && SYMFLOW_HAVE_RE2
  const RE2 re(pattern, RE2::Quiet);
  if (!re.ok()) ctx.fail("Invalid pattern: " + pattern + ", error: " + re.error());
  Value& out = ctx.allocate_output_for_overwrite(0, DType::bool_, in.dims());
  std::transform(in.data<std::string>(), in.data<std::string>() + in.size(), out.data<bool>(),
                 [&](const std::string& s) { return RE2::FullMatch(s, re); });
#else
  (void)in;
  throw UnimplementedError(std::string(op) +
                               " needs RE2, and symflow was built without it: install RE2 "
                               "(Debian: libre2-dev) and configure again",
                           ctx.node_name());
#endif
}

inline void regex_full_match_kernel(KernelContext& ctx) {
  const Value& pattern = ctx.input(1);
  if (pattern.rank() != 0)
    ctx.fail("Pattern must be scalar, but received " + dims_to_string(pattern.dims()));
  regex_full_match(ctx, "RegexFullMatch", ctx.input(0), pattern.scalar<std::string>());
}

inline void static_regex_full_match_kernel(KernelContext& ctx) {
  regex_full_match(ctx, "StaticRegexFullMatch", ctx.input(0), ctx.attr<std::string>("pattern"));
}

inline constexpr auto kStringCpuKernels = std::to_array<CpuKernel>({
    {&kStringJoinOp, string_join_kernel},
    {&kStringLengthOp, string_length_kernel},
    {&kAsStringOp, as_string_kernel},
    {&kRegexFullMatchOp, regex_full_match_kernel},
    {&kStaticRegexFullMatchOp, static_regex_full_match_kernel},
});

}  // namespace symflow::detail
