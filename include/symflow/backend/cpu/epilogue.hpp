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

#include <algorithm>
#include <cstdint>

#include "symflow/backend/cpu/vector_extensions.hpp"

namespace symflow::cpu {

enum class EpilogueActivation : std::uint8_t { none, relu, relu6 };

namespace detail {

// act((x - center) * multiplier + offset) for a scalar T or a simd::vec<T>: every loop
// below and the register tiles call this one expression, so that a compiler contracting
// it into an FMA (Clang within an expression, g++ anywhere, where the target has FMA) does
// so for all of them or none. The activations compare as std::max(y, 0) and
// std::min(y, 6) do (the Relu and Relu6 kernels), NaN and -0 included, lane by lane.
template <EpilogueActivation A, class V>
[[gnu::always_inline]] inline V normalize(V x, V center, V multiplier, V offset) {
  V y = (x - center) * multiplier + offset;
  if constexpr (A != EpilogueActivation::none) {
    const V zero{}, six = zero + 6;
    y = y < zero ? zero : y;
    if constexpr (A == EpilogueActivation::relu6) y = six < y ? six : y;
  }
  return y;
}

template <EpilogueActivation A, class T>
void normalize_rows(const T* x, std::int64_t x_stride, T* y, std::int64_t y_stride,
                    std::int64_t rows, const T* center, const T* multiplier, const T* offset,
                    std::int64_t n) {
  for (std::int64_t r = 0; r < rows; ++r) {
    const T* xr = x + r * x_stride;
    T* yr = y + r * y_stride;
    std::int64_t c = 0;
#if SYMFLOW_CPU_VECTOR_EXTENSIONS
    // Whole registers, then SSE2's 16 bytes: rows of 8 or 24 channels are common.
    const auto vectors = [&]<std::int64_t Bytes>() {
      constexpr std::int64_t lanes = Bytes / static_cast<std::int64_t>(sizeof(T));
      using simd::load;
      for (; c + lanes <= n; c += lanes)
        simd::store(yr + c,
                    normalize<A>(load<T, Bytes>(xr + c), load<T, Bytes>(center + c),
                                 load<T, Bytes>(multiplier + c), load<T, Bytes>(offset + c)));
    };
    vectors.template operator()<simd::kVectorBytes>();
    if constexpr (simd::kVectorBytes > 16) vectors.template operator()<16>();
#endif
    for (; c < n; ++c) yr[c] = normalize<A>(xr[c], center[c], multiplier[c], offset[c]);
  }
}

}  // namespace detail

// Rows of channels: y[r][c] = act((x[r][c] - center[c]) * multiplier[c] + offset[c]) for
// c < n (y may be x): the inference batch norm and its activation, for FusedBatchNorm's own
// kernel (kernels/nn.hpp) and for a convolution's epilogue alike, so that both give the
// same bits.
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
