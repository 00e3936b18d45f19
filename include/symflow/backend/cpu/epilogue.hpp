#pragma once
// What a convolution may do to its output while the output is still in cache: an
// inference batch norm, y = (x - center) * multiplier + offset per channel, then Relu
// or Relu6. A frozen CNN follows nearly every convolution with both, and run as ops
// of their own each is one more pass over the feature map in memory (at batch 64 the
// two passes took a third of a MobileNet's time). The plan hands the chain to the
// convolution's fused kernel (runtime/conv_epilogue.hpp).
//
// The arithmetic is that of FusedBatchNorm's and Relu6's own CPU kernels, element by
// element (the batch norm's is one function both call), so a fused chain gives the same
// bits as the three ops.

#include <Eigen/Core>

#include <algorithm>
#include <cstdint>

namespace symflow::cpu {

enum class EpilogueActivation : std::uint8_t { none, relu, relu6 };

namespace detail {

// Activations as the Relu and Relu6 kernels compute them: std::max(y, 0) and
// std::min(std::max(y, 0), 6). Eigen's max and min are the same element by element, NaN
// and -0 included (its packets order their operands for that).
template <EpilogueActivation A, class T>
T activate(T y) {
  if constexpr (A == EpilogueActivation::relu) return std::max(y, T{0});
  if constexpr (A == EpilogueActivation::relu6) return std::min(std::max(y, T{0}), T{6});
  return y;
}
template <EpilogueActivation A, class Block>
auto activate_block(const Block& y) {
  using T = typename Block::Scalar;
  if constexpr (A == EpilogueActivation::relu) return Block(y.max(T{0}));
  if constexpr (A == EpilogueActivation::relu6) return Block(y.max(T{0}).min(T{6}));
  if constexpr (A == EpilogueActivation::none) return y;
}

// y[j] = act((x[j] - center[j]) * multiplier[j] + offset[j]) for j < W, in registers.
template <EpilogueActivation A, class T, int W>
[[gnu::always_inline]] inline void normalize_block(const T* x, const T* center, const T* multiplier,
                                                   const T* offset, T* y) {
  using Block = Eigen::Array<T, W, 1>;
  const Block v = (Eigen::Map<const Block>(x) - Eigen::Map<const Block>(center)) *
                      Eigen::Map<const Block>(multiplier) +
                  Eigen::Map<const Block>(offset);
  Eigen::Map<Block> out(y);
  out = activate_block<A>(v);
}

template <EpilogueActivation A, class T>
void normalize_rows(const T* x, std::int64_t x_stride, T* y, std::int64_t y_stride,
                    std::int64_t rows, const T* center, const T* multiplier, const T* offset,
                    std::int64_t n) {
  constexpr int kWide = static_cast<int>(64 / sizeof(T));  // an AVX-512 register
  for (std::int64_t r = 0; r < rows; ++r) {
    const T* xr = x + r * x_stride;
    T* yr = y + r * y_stride;
    std::int64_t c = 0;
    for (; c + kWide <= n; c += kWide)
      normalize_block<A, T, kWide>(xr + c, center + c, multiplier + c, offset + c, yr + c);
    if (c + kWide / 2 <= n) {
      normalize_block<A, T, kWide / 2>(xr + c, center + c, multiplier + c, offset + c, yr + c);
      c += kWide / 2;
    }
    for (; c < n; ++c) yr[c] = activate<A>((xr[c] - center[c]) * multiplier[c] + offset[c]);
  }
}

}  // namespace detail

// Rows of channels: y[r][c] = act((x[r][c] - center[c]) * multiplier[c] + offset[c]) for
// c < n (y may be x): the inference batch norm and its activation, for FusedBatchNorm's own
// kernel (kernels/nn.hpp) and for a convolution's epilogue alike, so that both give the
// same bits. Fixed-size blocks of Eigen packets: GCC's -O2 vectorises no loop of unknown
// length, and Eigen's dynamic loops cost more than the work at 8 or 16 channels.
template <class T>
void normalize_rows(const T* x, std::int64_t x_stride, T* y, std::int64_t y_stride,
                    std::int64_t rows, const T* center, const T* multiplier, const T* offset,
                    std::int64_t n, EpilogueActivation activation = EpilogueActivation::none) {
  switch (activation) {
    case EpilogueActivation::none:
      return detail::normalize_rows<EpilogueActivation::none>(x, x_stride, y, y_stride, rows,
                                                              center, multiplier, offset, n);
    case EpilogueActivation::relu:
      return detail::normalize_rows<EpilogueActivation::relu>(x, x_stride, y, y_stride, rows,
                                                              center, multiplier, offset, n);
    case EpilogueActivation::relu6:
      return detail::normalize_rows<EpilogueActivation::relu6>(x, x_stride, y, y_stride, rows,
                                                               center, multiplier, offset, n);
  }
}

// No epilogue: the convolution's output as it is (compiled away).
struct NoEpilogue {
  static constexpr bool active = false;
  template <class T>
  void operator()(T*, std::int64_t, std::int64_t, std::int64_t, std::int64_t) const {}
};

// Per channel c of an NHWC output: center[c], multiplier[c] and offset[c] (float, as the
// batch norm kernel rounds its coefficients), then the activation.
template <class T>
struct ChannelEpilogue {
  static constexpr bool active = true;
  const T* center = nullptr;
  const T* multiplier = nullptr;
  const T* offset = nullptr;
  EpilogueActivation activation = EpilogueActivation::none;

  // Rows [0, rows) of `out` (row r starts at out + r * row_stride), channels [c0, c1).
  void operator()(T* out, std::int64_t rows, std::int64_t row_stride, std::int64_t c0,
                  std::int64_t c1) const {
    normalize_rows(out + c0, row_stride, out + c0, row_stride, rows, center + c0, multiplier + c0,
                   offset + c0, c1 - c0, activation);
  }
};

}  // namespace symflow::cpu
