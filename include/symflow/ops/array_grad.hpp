#pragma once
// Gradients of the array ops built in array_ops.hpp (Identity, PlaceholderWithDefault,
// Reshape, Fill, CheckNumerics), following TensorFlow's array_grad.py.

#include <array>
#include <string>
#include <vector>

#include "symflow/ops/array_ops.hpp"
#include "symflow/ops/grad_context.hpp"
#include "symflow/ops/math_ops.hpp"
#include "symflow/ops/shape_ops.hpp"

namespace symflow::detail {

inline std::vector<Output> identity_grad(const GradContext& c) { return {c.grad()}; }

// Reshape (and ExpandDims, Squeeze in shape_grad.hpp): the gradient is the incoming one
// in the input's shape.
inline std::vector<Output> reshape_grad(const GradContext& c) {
  const Output x = c.input(0);
  if (x.get_shape().is_fully_defined()) return {reshape(c.grad(), x.get_shape().dims())};
  return {reshape(c.grad(), shape(x))};
}

inline std::vector<Output> fill_grad(const GradContext& c) {
  return {Output{}, reduce_sum(c.grad(), Axis(Dims{}))};
}

// Python's repr of a bytes object: b'...' (b"..." when only that avoids escaping a
// quote), with \\, \n, \r, \t and \xNN escapes.
inline std::string python_bytes_repr(const std::string& bytes) {
  const bool double_quoted =
      bytes.find('\'') != std::string::npos && bytes.find('"') == std::string::npos;
  const char quote = double_quoted ? '"' : '\'';
  std::string out = std::string("b") + quote;
  static constexpr char kHex[] = "0123456789abcdef";
  for (char ch : bytes) {
    const auto byte = static_cast<unsigned char>(ch);
    if (ch == quote || ch == '\\') {
      out += '\\';
      out += ch;
    } else if (ch == '\n') {
      out += "\\n";
    } else if (ch == '\r') {
      out += "\\r";
    } else if (ch == '\t') {
      out += "\\t";
    } else if (byte < 0x20 || byte >= 0x7f) {
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 0xf];
    } else {
      out += ch;
    }
  }
  return out + quote;
}

// CheckNumerics: the incoming gradient, itself checked. TensorFlow 2 words the message
// with the forward op's message as Python prints its bytes ("... in gradient. b'sq'").
inline std::vector<Output> check_numerics_grad(const GradContext& c) {
  return {check_numerics(c.grad(),
                         "Not a number (NaN) or infinity (Inf) values detected in gradient. " +
                             python_bytes_repr(c.op.get_attr<std::string>("message")))};
}

inline constexpr auto kArrayOpEntries = std::to_array<OpEntry>({
    {&kIdentityOp, identity_grad},
    {&kPlaceholderWithDefaultOp, identity_grad},  // as TensorFlow: the default's gradient
    {&kReshapeOp, reshape_grad},
    {&kFillOp, fill_grad},
    {&kCheckNumericsOp, check_numerics_grad},
});

}  // namespace symflow::detail
