#pragma once
// The functions that build the string ops as TensorFlow 1.x does: tf.strings.join,
// tf.strings.length, tf.strings.regex_full_match and tf.as_string. The ops' descriptions
// are in ops/defs/string.hpp, their CPU kernels in backend/cpu/kernels/string.hpp.
// Strings have no gradient.

#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "symflow/graph/tensor.hpp"
#include "symflow/ops/defs/string.hpp"
#include "symflow/ops/grad_context.hpp"
#include "symflow/ops/op_builder.hpp"

namespace symflow {

// A string argument: a tensor, or text that the op turns into a Const (Python's "x").
class StringArg {
 public:
  StringArg(const Output& t) : arg_(t) {}                        // NOLINT: implicit on purpose
  StringArg(const char* text) : arg_(std::string(text)) {}       // NOLINT
  StringArg(std::string text) : arg_(std::move(text)) {}         // NOLINT
  StringArg(std::string_view text) : arg_(std::string(text)) {}  // NOLINT

  const Output* tensor() const { return std::get_if<Output>(&arg_); }
  const std::string* text() const { return std::get_if<std::string>(&arg_); }

  Output resolve(detail::OpBuilder& b, std::string_view arg_name) const {
    if (const Output* t = tensor()) return *t;
    return b.constant_arg(Value(*text()), arg_name);
  }

 private:
  std::variant<Output, std::string> arg_;
};

namespace detail {
inline Graph graph_of_strings(const std::vector<StringArg>& args) {
  std::vector<Output> tensors;
  for (const StringArg& a : args)
    if (a.tensor()) tensors.push_back(*a.tensor());
  return graph_of(tensors);
}
}  // namespace detail

namespace strings {

// tf.strings.join(inputs, separator): the strings joined element by element; scalars
// repeat over the other inputs, which must share one shape.
inline Tensor<std::string> join(const std::vector<StringArg>& inputs,
                                std::string_view separator = "", std::string_view name = {}) {
  if (inputs.empty()) throw ValueError("strings::join needs at least one input");
  detail::OpBuilder b(detail::graph_of_strings(inputs), name, "StringJoin");
  std::vector<Output> in;
  for (std::size_t i = 0; i < inputs.size(); ++i)
    in.push_back(inputs[i].resolve(b, "inputs_" + std::to_string(i)));
  return Tensor<std::string>(
      b.build(detail::kStringJoinOp, in,
              {{"N", static_cast<std::int64_t>(in.size())}, {"separator", std::string(separator)}})
          .output(0));
}

// tf.strings.length(input, unit): each string's length, in bytes ("BYTE") or in UTF-8
// characters ("UTF8_CHAR").
inline Tensor<std::int32_t> length(const Output& input, std::string_view unit = "BYTE",
                                   std::string_view name = {}) {
  detail::OpBuilder b(graph_of({input}), name, "StringLength");
  return Tensor<std::int32_t>(
      b.build(detail::kStringLengthOp, {input}, {{"unit", std::string(unit)}}).output(0));
}

// tf.strings.regex_full_match(input, pattern): whether each string matches the RE2
// pattern as a whole. Text builds StaticRegexFullMatch (the pattern in the graph), a
// tensor RegexFullMatch, as TensorFlow does.
inline Tensor<bool> regex_full_match(const Output& input, const StringArg& pattern,
                                     std::string_view name = {}) {
  if (const std::string* text = pattern.text()) {
    detail::OpBuilder b(graph_of({input}), name, "StaticRegexFullMatch");
    return Tensor<bool>(
        b.build(detail::kStaticRegexFullMatchOp, {input}, {{"pattern", *text}}).output(0));
  }
  detail::OpBuilder b(graph_of({input, *pattern.tensor()}), name, "RegexFullMatch");
  return Tensor<bool>(b.build(detail::kRegexFullMatchOp, {input, *pattern.tensor()}, {}).output(0));
}

}  // namespace strings

// tf.as_string's options, with TensorFlow's defaults.
struct AsStringOptions {
  std::int64_t precision = -1;  // digits after the point (floats only); -1: printf's 6
  bool scientific = false;      // "%e"
  bool shortest = false;        // "%g"
  std::int64_t width = -1;      // pad to this width; -1: no padding
  std::string fill = {};        // the padding flag: "", " ", "0", "+", "-" or "#"
};

// tf.as_string(input, ...): numbers and bools as text ("3.500000", "42", "true").
inline Tensor<std::string> as_string(const Output& input, const AsStringOptions& options = {},
                                     std::string_view name = {}) {
  detail::OpBuilder b(graph_of({input}), name, "AsString");
  return Tensor<std::string>(b.build(detail::kAsStringOp, {input},
                                     {{"T", input.dtype()},
                                      {"precision", options.precision},
                                      {"scientific", options.scientific},
                                      {"shortest", options.shortest},
                                      {"width", options.width},
                                      {"fill", options.fill}})
                                 .output(0));
}

namespace strings {
// tf.strings.as_string: the same as tf.as_string.
inline Tensor<std::string> as_string(const Output& input, const AsStringOptions& options = {},
                                     std::string_view name = {}) {
  return symflow::as_string(input, options, name);
}
}  // namespace strings

namespace detail {
// The registry's entries of the string ops (ops/registry.hpp): strings have no gradient.
inline constexpr auto kStringOpEntries = std::to_array<OpEntry>({
    {&kStringJoinOp, not_differentiable},
    {&kStringLengthOp, not_differentiable},
    {&kAsStringOp, not_differentiable},
    {&kRegexFullMatchOp, not_differentiable},
    {&kStaticRegexFullMatchOp, not_differentiable},
});
}  // namespace detail

}  // namespace symflow
