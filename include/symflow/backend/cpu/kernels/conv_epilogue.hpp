#pragma once
// Conv2D and DepthwiseConv2dNative with the inference batch norm and the Relu or Relu6
// that follow them folded in (backend/conv_epilogue.hpp): the plan gives these kernels
// to NHWC float32 convolutions whose chain it absorbed. The checks and the convolution
// are the plain kernels' (kernels/conv.hpp); the epilogue's coefficients come from the
// plan, computed once as the batch norm kernel computes them in each run (in double by
// batch_norm_multiplier, rounded to float), so the output has the same bits as the three
// ops run one by one.

#include "symflow/backend/conv_epilogue.hpp"
#include "symflow/backend/cpu/epilogue.hpp"
#include "symflow/backend/cpu/kernels/conv.hpp"

namespace symflow::detail::conv {

// The epilogue the plan put in the node's attrs: coefficients it computed once, checked
// against the convolution's channel count.
inline cpu::ChannelEpilogue<float> channel_epilogue(const KernelContext& ctx,
                                                    std::int64_t channels) {
  const Value& center = ctx.attr<Value>(conv_epilogue::kCenter);
  const Value& multiplier = ctx.attr<Value>(conv_epilogue::kMultiplier);
  const Value& offset = ctx.attr<Value>(conv_epilogue::kOffset);
  for (const Value* v : {&center, &multiplier, &offset})
    if (v->dtype() != DType::float32 || v->size() != channels)
      throw InternalError("The batch norm folded into " + ctx.node_name() + " has " +
                              std::to_string(v->size()) + " values for " +
                              std::to_string(channels) + " channels",
                          ctx.node_name());
  const std::string& activation = ctx.attr<std::string>(conv_epilogue::kActivation);
  return {center.data<float>(), multiplier.data<float>(), offset.data<float>(),
          activation == "Relu6"  ? cpu::EpilogueActivation::relu6
          : activation == "Relu" ? cpu::EpilogueActivation::relu
                                 : cpu::EpilogueActivation::none};
}

inline void conv2d_epilogue_kernel(KernelContext& ctx) {
  const KernelWindow w = conv_kernel_window(ctx);
  const Value& in = ctx.input(0);
  require_4d(ctx, in.dims(), "input");
  const Value& filter = ctx.input(1);
  require_4d(ctx, filter.dims(), "filter");
  const cpu::Conv2DGeometry g = kernel_conv_geometry(ctx, "Conv2D", in.dims(), filter.dims(), w);
  const cpu::ChannelEpilogue<float> epilogue = channel_epilogue(ctx, g.out_depth);
  Value& out = ctx.allocate_output_for_overwrite(0, DType::float32,
                                                 {g.batch, g.out_rows, g.out_cols, g.out_depth});
  cpu::conv2d_forward<float>(ctx, g, in.data<float>(), filter.data<float>(), out.data<float>(),
                             epilogue);
}

inline void depthwise_conv2d_native_epilogue_kernel(KernelContext& ctx) {
  const KernelWindow w = depthwise_kernel_window(ctx);
  const Value& in = ctx.input(0);
  const Value& filter = ctx.input(1);
  const cpu::DepthwiseConv2DGeometry g =
      kernel_depthwise_geometry(ctx, in.dims(), filter.dims(), w);
  const cpu::ChannelEpilogue<float> epilogue = channel_epilogue(ctx, g.out_depth());
  Value& out = ctx.allocate_output_for_overwrite(0, DType::float32,
                                                 {g.batch, g.out_rows, g.out_cols, g.out_depth()});
  cpu::depthwise_conv2d_forward<float>(ctx, g, in.data<float>(), filter.data<float>(),
                                       out.data<float>(), epilogue);
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
