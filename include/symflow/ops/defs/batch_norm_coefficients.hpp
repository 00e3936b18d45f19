#pragma once
// The one formula of a batch norm's per-channel multiplier, y = (x - center) * multiplier +
// offset with multiplier = scale / sqrt(variance + epsilon), in double as TensorFlow's CPU
// kernel computes it: the FusedBatchNorm kernels (backend/cpu/batch_norm.hpp, which the
// Thrust kernels share) and the plan that folds an inference batch norm into a
// convolution (runtime/conv_epilogue.hpp) both call it, so that they agree to the bit.

#include <cmath>

#include "symflow/core/host_device.hpp"

namespace symflow {

SYMFLOW_HD inline double batch_norm_multiplier(double scale, double variance, double epsilon) {
  return scale / std::sqrt(variance + epsilon);
}

}  // namespace symflow
