#pragma once
// The arithmetic of the FusedBatchNorm kernels (backend/cpu/kernels/nn.hpp), which the
// Thrust kernels (backend/thrust/kernels_nn.cuh) share step for step, so that Thrust's
// host systems give the CPU's bits. Each kernel runs in two passes: a functor per channel
// takes the channel's sums (in double, in element order) and writes the per-channel
// outputs and the coefficients every element of the channel needs; then a functor per
// element writes y or x_backprop from them.
//
// The numbers are TensorFlow's CPU kernel's (fused_batch_norm_op.cc):
//   training:  mean and biased variance of the channel; y = (x - mean) * scale /
//              sqrt(variance + epsilon) + offset; batch_variance is the unbiased
//              (Bessel-corrected, n / max(n - 1, 1)) variance, and with
//              exponential_avg_factor f != 1 batch_mean and batch_variance are
//              (1 - f) * running + f * batch; the reserve spaces keep the batch mean and
//              the biased variance, which the gradient reads.
//   inference: the given mean and variance normalise x, and are the outputs.
//   An empty x gives NaN batch moments and zero reserve spaces.
//   gradient (reserve spaces m and v, k = scale / sqrt(v + epsilon)):
//              offset_backprop = sum(dy), scale_backprop = sum(dy * (x - m)) / sqrt(v + eps);
//              training:  x_backprop = k * (dy - mean(dy) - (x - m) * mean(dy * (x - m)) /
//                         (v + epsilon));
//              inference: x_backprop = k * dy.

#include <cmath>
#include <cstdint>
#include <limits>

#include "symflow/core/host_device.hpp"
#include "symflow/core/shape.hpp"
#include "symflow/ops/defs/batch_norm_coefficients.hpp"

namespace symflow::cpu::batch_norm {

// A tensor of rank 4 or 5 seen as [outer, channels, inner]: inner is 1 for the
// channels-last formats (NHWC, NDHWC), and outer the batch for channels-first ones.
struct Layout {
  std::int64_t outer = 0, channels = 0, inner = 1;

  SYMFLOW_HD std::int64_t per_channel() const { return outer * inner; }
  SYMFLOW_HD std::int64_t channel_of(std::int64_t element) const {
    return (element / inner) % channels;
  }
  // The flat index of element `k` of channel `c`, k in [0, per_channel()).
  SYMFLOW_HD std::int64_t index(std::int64_t c, std::int64_t k) const {
    return ((k / inner) * channels + c) * inner + k % inner;
  }
};

inline Layout layout_of(const Dims& d, bool channels_last) {
  Layout l;
  if (channels_last) {
    l.channels = d.back();
    l.outer = 1;
    for (std::size_t i = 0; i + 1 < d.size(); ++i) l.outer *= d[i];
  } else {
    l.channels = d[1];
    l.outer = d[0];
    for (std::size_t i = 2; i < d.size(); ++i) l.inner *= d[i];
  }
  return l;
}

// Coefficients per channel, in a double buffer of kForwardCoefficients (or
// kBackwardCoefficients) per channel.
inline constexpr std::int64_t kForwardCoefficients = 3;   // center, multiplier, offset
inline constexpr std::int64_t kBackwardCoefficients = 4;  // center, multiplier, mean(dy),
                                                          // mean(dy * (x - center)) / (v + eps)

struct ForwardAttrs {
  double epsilon = 1e-4;
  double exponential_avg_factor = 1.0;
  bool is_training = true;
};

// One channel of FusedBatchNorm: the batch moments, the reserve spaces, and y's
// coefficients, y = (x - center) * multiplier + offset. `mean` and `variance` are read in
// inference and when exponential_avg_factor != 1 only (they may be empty otherwise).
template <class T>
struct ForwardChannel {
  const T* x;
  const T* scale;
  const T* offset;
  const T* mean;
  const T* variance;
  T* batch_mean;
  T* batch_variance;
  T* saved_mean;
  T* saved_variance;
  double* coefficients;
  Layout layout;
  ForwardAttrs attrs;

  SYMFLOW_HD void operator()(std::int64_t c) const {
    double* k = coefficients + c * kForwardCoefficients;
    const std::int64_t n = layout.per_channel();
    if (n == 0) {
      batch_mean[c] = batch_variance[c] = std::numeric_limits<T>::quiet_NaN();
      saved_mean[c] = saved_variance[c] = T{0};
      k[0] = k[1] = k[2] = 0;
      return;
    }
    double center = 0, spread = 0;  // what normalises x: the mean and the variance
    if (attrs.is_training) {
      double sum = 0;
      for (std::int64_t i = 0; i < n; ++i) sum += static_cast<double>(x[layout.index(c, i)]);
      center = sum / static_cast<double>(n);
      double squares = 0;
      for (std::int64_t i = 0; i < n; ++i) {
        const double d = static_cast<double>(x[layout.index(c, i)]) - center;
        squares += d * d;
      }
      spread = squares / static_cast<double>(n);
      const double unbiased = squares / static_cast<double>(n > 1 ? n - 1 : 1);
      saved_mean[c] = static_cast<T>(center);
      saved_variance[c] = static_cast<T>(spread);
      const double f = attrs.exponential_avg_factor;
      if (f == 1.0) {
        batch_mean[c] = static_cast<T>(center);
        batch_variance[c] = static_cast<T>(unbiased);
      } else {
        batch_mean[c] = static_cast<T>((1 - f) * static_cast<double>(mean[c]) + f * center);
        batch_variance[c] =
            static_cast<T>((1 - f) * static_cast<double>(variance[c]) + f * unbiased);
      }
    } else {
      center = static_cast<double>(mean[c]);
      spread = static_cast<double>(variance[c]);
      batch_mean[c] = saved_mean[c] = mean[c];
      batch_variance[c] = saved_variance[c] = variance[c];
    }
    k[0] = center;
    k[1] = batch_norm_multiplier(static_cast<double>(scale[c]), spread, attrs.epsilon);
    k[2] = static_cast<double>(offset[c]);
  }
};

template <class T>
struct ForwardElement {
  const T* x;
  const double* coefficients;
  T* y;
  Layout layout;

  SYMFLOW_HD void operator()(std::int64_t e) const {
    const double* k = coefficients + layout.channel_of(e) * kForwardCoefficients;
    y[e] = apply(x[e], static_cast<T>(k[0]), static_cast<T>(k[1]), static_cast<T>(k[2]));
  }
  // In T, as TensorFlow's kernel computes y: the CPU's channels-last loop
  // (kernels/nn.hpp) vectorises the same expression over a row of channels.
  SYMFLOW_HD static T apply(T x, T center, T multiplier, T offset) {
    return (x - center) * multiplier + offset;
  }
};

// One channel of FusedBatchNormGrad: scale_backprop, offset_backprop and x_backprop's
// coefficients. `mean` and `variance` are the reserve spaces: the batch's (training) or
// the population's (inference).
template <class T>
struct BackwardChannel {
  const T* dy;
  const T* x;
  const T* scale;
  const T* mean;
  const T* variance;
  T* scale_backprop;
  T* offset_backprop;
  double* coefficients;
  Layout layout;
  double epsilon;
  bool is_training;

  SYMFLOW_HD void operator()(std::int64_t c) const {
    double* k = coefficients + c * kBackwardCoefficients;
    const std::int64_t n = layout.per_channel();
    const double center = static_cast<double>(mean[c]);
    const double spread = static_cast<double>(variance[c]) + epsilon;
    const double inv_std = 1 / std::sqrt(spread);
    double sum_dy = 0, sum_dy_centered = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      const std::int64_t at = layout.index(c, i);
      const double g = static_cast<double>(dy[at]);
      sum_dy += g;
      sum_dy_centered += g * (static_cast<double>(x[at]) - center);
    }
    offset_backprop[c] = static_cast<T>(sum_dy);
    scale_backprop[c] = static_cast<T>(sum_dy_centered * inv_std);
    k[0] = center;
    k[1] = static_cast<double>(scale[c]) * inv_std;
    const bool centered = is_training && n > 0;
    k[2] = centered ? sum_dy / static_cast<double>(n) : 0;
    k[3] = centered ? sum_dy_centered / static_cast<double>(n) / spread : 0;
  }
};

template <class T>
struct BackwardElement {
  const T* dy;
  const T* x;
  const double* coefficients;
  T* dx;
  Layout layout;
  bool is_training;

  SYMFLOW_HD void operator()(std::int64_t e) const {
    const double* k = coefficients + layout.channel_of(e) * kBackwardCoefficients;
    const double g = static_cast<double>(dy[e]);
    dx[e] = static_cast<T>(
        is_training ? k[1] * ((g - k[2]) - (static_cast<double>(x[e]) - k[0]) * k[3]) : k[1] * g);
  }
};

}  // namespace symflow::cpu::batch_norm
