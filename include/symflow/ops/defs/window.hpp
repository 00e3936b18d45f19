#pragma once
// TensorFlow's sliding-window rules, shared by the conv and pooling ops' shape functions
// (ops/defs/conv.hpp), their builders (ops/conv_ops.hpp) and the numeric core of their
// kernels (backend/cpu/conv.hpp): the padding attr ("SAME" / "VALID") and the output
// size of one windowed dimension. Plain integers, no Eigen: the shape functions need
// them without the kernels.

#include <algorithm>
#include <cstdint>
#include <string_view>

namespace symflow::cpu {

enum class Padding { same, valid };

// "SAME" / "VALID" as TensorFlow spells them; false for anything else.
inline bool parse_padding(std::string_view s, Padding& out) {
  if (s == "SAME") {
    out = Padding::same;
    return true;
  }
  if (s == "VALID") {
    out = Padding::valid;
    return true;
  }
  return false;
}

// One spatial dimension of a sliding window, by TensorFlow's rules
// (GetWindowedOutputSizeVerbose): the window spans (size-1)*dilation+1 inputs;
// VALID keeps the windows that fit, SAME keeps ceil(in/stride) of them and pads the
// missing inputs, the smaller half before. `size` < 0 when VALID does not fit.
struct WindowedDim {
  std::int64_t size = 0;        // output size
  std::int64_t pad_before = 0;  // implicit zero rows/cols before the input
};
inline WindowedDim windowed_output(std::int64_t in, std::int64_t window, std::int64_t stride,
                                   std::int64_t dilation, Padding padding) {
  const std::int64_t effective = (window - 1) * dilation + 1;
  WindowedDim d;
  if (padding == Padding::valid) {
    d.size = in < effective ? -1 : (in - effective + stride) / stride;
  } else {
    d.size = (in + stride - 1) / stride;
    const std::int64_t needed = std::max<std::int64_t>(0, (d.size - 1) * stride + effective - in);
    d.pad_before = needed / 2;
  }
  return d;
}

}  // namespace symflow::cpu
