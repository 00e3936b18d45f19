#pragma once
// A convolution that runs the inference batch norm and the Relu or Relu6 after it, in
// one pass while its output is in cache: runtime/conv_epilogue.hpp finds such chains
// when a plan is made, a backend's epilogue kernel (Backend::conv_epilogue_kernel)
// computes them, and the ops it absorbed run `pass_through_kernel` instead of their
// own. This header is what the two sides share: the attrs the plan adds to the
// convolution's planned node (never to the graph: GraphDefs and names see every node).

#include <string_view>

#include "symflow/backend/kernel_context.hpp"

namespace symflow::conv_epilogue {

// The batch norm's per-channel coefficients, y = (x - center) * multiplier + offset, as
// float32 [channels] tensors the plan computes once from the Consts (the batch norm
// kernel's rounding: in double, then to float), and the activation: "", "Relu" or
// "Relu6".
inline constexpr std::string_view kCenter = "_epilogue_center";
inline constexpr std::string_view kMultiplier = "_epilogue_multiplier";
inline constexpr std::string_view kOffset = "_epilogue_offset";
inline constexpr std::string_view kActivation = "_epilogue_activation";

// An absorbed op's kernel: the convolution already wrote the op's value into its input,
// so output 0 is input 0. A batch norm's other outputs, which nothing reads, are what
// inference gives them: the mean and the variance.
inline void pass_through_kernel(KernelContext& ctx) {
  ctx.set_output(0, ctx.input(0));
  for (std::size_t i = 1; i < ctx.num_outputs(); ++i)
    ctx.set_output(i, ctx.input(i % 2 == 1 ? 3 : 4));
}

}  // namespace symflow::conv_epilogue
