#pragma once
// Conv2D and DepthwiseConv2dNative with the inference batch norm and the Relu or Relu6
// that follow them folded in (backend/conv_epilogue.hpp): the plan gives these kernels
// to NHWC float32 convolutions whose chain it absorbed. The checks and the convolution
// are the plain kernels' (kernels/conv.hpp); the epilogue's coefficients are the batch
// norm kernel's, computed in double and rounded to float (kernels/nn.hpp), so the
// output has the same bits as the three ops run one by one.

#include <cmath>
#include <vector>

#include "symflow/backend/conv_epilogue.hpp"
#include "symflow/backend/cpu/epilogue.hpp"
#include "symflow/backend/cpu/kernels/conv.hpp"

namespace symflow::detail::conv {

// The epilogue's per-channel coefficients, kept for the kernel call.
struct EpilogueCoefficients {
  std::vector<float> center, multiplier, offset;
  cpu::ChannelEpilogue<float> epilogue;
};

inline EpilogueCoefficients epilogue_coefficients(const KernelContext& ctx, std::int64_t channels) {
  const Value& scale = ctx.attr<Value>(conv_epilogue::kScale);
  const Value& offset = ctx.attr<Value>(conv_epilogue::kOffset);
  const Value& mean = ctx.attr<Value>(conv_epilogue::kMean);
  const Value& variance = ctx.attr<Value>(conv_epilogue::kVariance);
  for (const Value* v : {&scale, &offset, &mean, &variance})
    if (v->dtype() != DType::float32 || v->size() != channels)
      throw InternalError("The batch norm folded into " + ctx.node_name() + " has " +
                              std::to_string(v->size()) + " values for " +
                              std::to_string(channels) + " channels",
                          ctx.node_name());
  const double epsilon = ctx.attr<double>(conv_epilogue::kEpsilon);
  const std::string& activation = ctx.attr<std::string>(conv_epilogue::kActivation);
  EpilogueCoefficients k;
  const auto n = static_cast<std::size_t>(channels);
  k.center.resize(n);
  k.multiplier.resize(n);
  k.offset.resize(n);
  for (std::size_t c = 0; c < n; ++c) {
    k.center[c] = static_cast<float>(static_cast<double>(mean.data<float>()[c]));
    k.multiplier[c] =
        static_cast<float>(static_cast<double>(scale.data<float>()[c]) /
                           std::sqrt(static_cast<double>(variance.data<float>()[c]) + epsilon));
    k.offset[c] = static_cast<float>(static_cast<double>(offset.data<float>()[c]));
  }
  k.epilogue = {k.center.data(), k.multiplier.data(), k.offset.data(),
                activation == "Relu6"  ? cpu::EpilogueActivation::relu6
                : activation == "Relu" ? cpu::EpilogueActivation::relu
                                       : cpu::EpilogueActivation::none};
  return k;
}

inline void conv2d_epilogue_kernel(KernelContext& ctx) {
  const KernelWindow w = conv_kernel_window(ctx);
  const Value& in = ctx.input(0);
  require_4d(ctx, in.dims(), "input");
  const Value& filter = ctx.input(1);
  require_4d(ctx, filter.dims(), "filter");
  const cpu::Conv2DGeometry g = kernel_conv_geometry(ctx, "Conv2D", in.dims(), filter.dims(), w);
  const EpilogueCoefficients k = epilogue_coefficients(ctx, g.out_depth);
  Value& out = ctx.allocate_output_for_overwrite(0, DType::float32,
                                                 {g.batch, g.out_rows, g.out_cols, g.out_depth});
  cpu::conv2d_forward<float>(ctx, g, in.data<float>(), filter.data<float>(), out.data<float>(),
                             k.epilogue);
}

inline void depthwise_conv2d_native_epilogue_kernel(KernelContext& ctx) {
  const KernelWindow w = depthwise_kernel_window(ctx);
  const Value& in = ctx.input(0);
  const Value& filter = ctx.input(1);
  const cpu::DepthwiseConv2DGeometry g =
      kernel_depthwise_geometry(ctx, in.dims(), filter.dims(), w);
  const EpilogueCoefficients k = epilogue_coefficients(ctx, g.out_depth());
  Value& out = ctx.allocate_output_for_overwrite(0, DType::float32,
                                                 {g.batch, g.out_rows, g.out_cols, g.out_depth()});
  cpu::depthwise_conv2d_forward<float>(ctx, g, in.data<float>(), filter.data<float>(),
                                       out.data<float>(), k.epilogue);
}

}  // namespace symflow::detail::conv

namespace symflow::detail {

// The epilogue kernel for `def`, or nullptr.
inline KernelFn cpu_conv_epilogue_kernel(const OpDef& def) {
  if (&def == &kConv2DOp) return conv::conv2d_epilogue_kernel;
  if (&def == &kDepthwiseConv2dNativeOp) return conv::depthwise_conv2d_native_epilogue_kernel;
  return nullptr;
}

}  // namespace symflow::detail
