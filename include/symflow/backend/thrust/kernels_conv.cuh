#pragma once
// Thrust kernels: 2-D convolution and pooling (Conv2D, Conv2DBackpropInput,
// Conv2DBackpropFilter, DepthwiseConv2dNative and its two backprops, MaxPool, AvgPool,
// MaxPoolGrad, AvgPoolGrad), NHWC (NCHW through device transposes; explicit padding through
// the shared geometry), float32 and float64, with the CPU kernels' attrs, checks and messages
// (backend/cpu/kernels/conv.hpp: the geometry helpers there only read attrs and dims, so they
// are shared).
//
// Direct formulations: one thrust::for_each over the elements of the output, each
// looping over its window. Every gradient is a gather (each element sums what reaches
// it), so no two threads ever write one element and no atomics are needed.
//
// Parity with the CPU (backend/cpu/conv.hpp):
// - MaxPool, AvgPool, MaxPoolGrad and AvgPoolGrad compute the same sums in the same
//   order as the CPU, so they match it exactly (up to FMA contraction under nvcc).
//   MaxPoolGrad routes each gradient to the first (row-major) maximum of its window,
//   NaNs ignored, an all-NaN window to its first pixel, as the CPU does.
// - The three convolutions sum in (kh, kw, channel) order where the CPU uses im2col +
//   Eigen GEMM: they agree to a few ulps of the sum of the absolute products (tests use
//   a relative tolerance of 1e-5 for float32 and 1e-12 for float64).
// - The depthwise forward sums its taps in (kh, kw) order, as the CPU does. With a
//   multiplier, the input gradient adds each tap's products over the channel's outputs
//   first, where the CPU sums each output channel's taps first; the filter gradient sums
//   over (n, oh, ow) in one pass, where the CPU adds groups of rows: they agree to a few
//   ulps, as the convolutions do.

#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "symflow/backend/cpu/conv.hpp"
#include "symflow/backend/cpu/depthwise_conv.hpp"
#include "symflow/backend/cpu/kernels/conv.hpp"
#include "symflow/backend/thrust/kernel_util.cuh"
#include "symflow/ops/defs/conv.hpp"

namespace symflow::thrust_backend {

namespace conv_kernels {

// The geometry as plain numbers, copied into every functor (device-safe).
struct ConvDims {
  std::int64_t batch, in_rows, in_cols, in_depth;
  std::int64_t filter_rows, filter_cols, out_depth;
  std::int64_t out_rows, out_cols;
  std::int64_t stride_rows, stride_cols, dilation_rows, dilation_cols;
  std::int64_t pad_top, pad_left;
};
inline ConvDims conv_dims(const cpu::Conv2DGeometry& g) {
  return {g.batch,       g.in_rows,       g.in_cols,       g.in_depth, g.filter_rows,
          g.filter_cols, g.out_depth,     g.out_rows,      g.out_cols, g.stride_rows,
          g.stride_cols, g.dilation_rows, g.dilation_cols, g.pad_top,  g.pad_left};
}

struct PoolDims {
  std::int64_t batch, in_rows, in_cols, depth;
  std::int64_t window_rows, window_cols, stride_rows, stride_cols;
  std::int64_t out_rows, out_cols, pad_top, pad_left;
};
inline PoolDims pool_dims(const cpu::Pool2DGeometry& g) {
  return {g.batch,       g.in_rows,     g.in_cols,  g.depth,    g.window_rows, g.window_cols,
          g.stride_rows, g.stride_cols, g.out_rows, g.out_cols, g.pad_top,     g.pad_left};
}

SYMFLOW_HD inline std::int64_t min64(std::int64_t a, std::int64_t b) { return a < b ? a : b; }
SYMFLOW_HD inline std::int64_t max64(std::int64_t a, std::int64_t b) { return a > b ? a : b; }
// ceil(a / b) for b > 0 and any a.
SYMFLOW_HD inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return a >= 0 ? (a + b - 1) / b : -((-a) / b);
}

// Flat index i of a row-major [d0, d1, d2, d3] array as its coordinates (d0 is implied).
struct Index4 {
  std::int64_t i0, i1, i2, i3;
};
SYMFLOW_HD inline Index4 split_index4(std::int64_t i, std::int64_t d1, std::int64_t d2,
                                      std::int64_t d3) {
  Index4 r;
  r.i3 = i % d3;
  std::int64_t p = i / d3;
  r.i2 = p % d2;
  p /= d2;
  r.i1 = p % d1;
  r.i0 = p / d1;
  return r;
}

// ---- Conv2D: out[n, oh, ow, co] = sum over (kh, kw, ci) of in * filter ----------------

template <class T>
struct Conv2DForward {
  ConvDims g;
  const T* input;
  const T* filter;
  T* output;
  SYMFLOW_HD void operator()(std::int64_t i) const {
    const Index4 at = split_index4(i, g.out_rows, g.out_cols, g.out_depth);
    const std::int64_t n = at.i0, oh = at.i1, ow = at.i2, co = at.i3;
    const T* image = input + n * g.in_rows * g.in_cols * g.in_depth;
    T sum = T(0);
    for (std::int64_t kh = 0; kh < g.filter_rows; ++kh) {
      const std::int64_t ih = oh * g.stride_rows - g.pad_top + kh * g.dilation_rows;
      if (ih < 0 || ih >= g.in_rows) continue;
      for (std::int64_t kw = 0; kw < g.filter_cols; ++kw) {
        const std::int64_t iw = ow * g.stride_cols - g.pad_left + kw * g.dilation_cols;
        if (iw < 0 || iw >= g.in_cols) continue;
        const T* x = image + (ih * g.in_cols + iw) * g.in_depth;
        const T* f = filter + ((kh * g.filter_cols + kw) * g.in_depth) * g.out_depth + co;
        for (std::int64_t ci = 0; ci < g.in_depth; ++ci) sum += x[ci] * f[ci * g.out_depth];
      }
    }
    output[i] = sum;
  }
};

// ---- Conv2DBackpropInput: dx[n, ih, iw, ci] = sum of dy[n, oh, ow, co] * f[kh, kw, ci, co]
// over the (oh, ow, kh, kw) whose window tap lands on (ih, iw) -------------------------

template <class T>
struct Conv2DBackpropInputGather {
  ConvDims g;
  const T* filter;
  const T* out_grad;
  T* input_grad;
  SYMFLOW_HD void operator()(std::int64_t i) const {
    const Index4 at = split_index4(i, g.in_rows, g.in_cols, g.in_depth);
    const std::int64_t n = at.i0, ih = at.i1, iw = at.i2, ci = at.i3;
    T sum = T(0);
    for (std::int64_t kh = 0; kh < g.filter_rows; ++kh) {
      const std::int64_t r = ih + g.pad_top - kh * g.dilation_rows;  // oh * stride_rows
      if (r < 0 || r % g.stride_rows != 0) continue;
      const std::int64_t oh = r / g.stride_rows;
      if (oh >= g.out_rows) continue;
      for (std::int64_t kw = 0; kw < g.filter_cols; ++kw) {
        const std::int64_t c = iw + g.pad_left - kw * g.dilation_cols;
        if (c < 0 || c % g.stride_cols != 0) continue;
        const std::int64_t ow = c / g.stride_cols;
        if (ow >= g.out_cols) continue;
        const T* dy = out_grad + ((n * g.out_rows + oh) * g.out_cols + ow) * g.out_depth;
        const T* f = filter + ((kh * g.filter_cols + kw) * g.in_depth + ci) * g.out_depth;
        for (std::int64_t co = 0; co < g.out_depth; ++co) sum += dy[co] * f[co];
      }
    }
    input_grad[i] = sum;
  }
};

// ---- Conv2DBackpropFilter: df[kh, kw, ci, co] = sum over (n, oh, ow) of
// in[n, ih, iw, ci] * dy[n, oh, ow, co] ------------------------------------------------

template <class T>
struct Conv2DBackpropFilterGather {
  ConvDims g;
  const T* input;
  const T* out_grad;
  T* filter_grad;
  SYMFLOW_HD void operator()(std::int64_t i) const {
    const Index4 at = split_index4(i, g.filter_cols, g.in_depth, g.out_depth);
    const std::int64_t kh = at.i0, kw = at.i1, ci = at.i2, co = at.i3;
    // The output rows and cols whose tap (kh, kw) lands inside the input.
    const std::int64_t row_off = kh * g.dilation_rows - g.pad_top;  // ih = oh * s + row_off
    const std::int64_t col_off = kw * g.dilation_cols - g.pad_left;
    const std::int64_t oh0 = max64(0, ceil_div(-row_off, g.stride_rows));
    const std::int64_t oh1 = min64(g.out_rows, ceil_div(g.in_rows - row_off, g.stride_rows));
    const std::int64_t ow0 = max64(0, ceil_div(-col_off, g.stride_cols));
    const std::int64_t ow1 = min64(g.out_cols, ceil_div(g.in_cols - col_off, g.stride_cols));
    T sum = T(0);
    for (std::int64_t n = 0; n < g.batch; ++n) {
      const T* image = input + n * g.in_rows * g.in_cols * g.in_depth + ci;
      const T* dy_image = out_grad + n * g.out_rows * g.out_cols * g.out_depth + co;
      for (std::int64_t oh = oh0; oh < oh1; ++oh) {
        const std::int64_t ih = oh * g.stride_rows + row_off;
        for (std::int64_t ow = ow0; ow < ow1; ++ow) {
          const std::int64_t iw = ow * g.stride_cols + col_off;
          sum += image[(ih * g.in_cols + iw) * g.in_depth] *
                 dy_image[(oh * g.out_cols + ow) * g.out_depth];
        }
      }
    }
    filter_grad[i] = sum;
  }
};

// ---- DepthwiseConv2dNative: out[n, oh, ow, d] = sum over (kh, kw) of
// in[n, ih, iw, d / multiplier] * filter[kh, kw, d] (filter read as [kh, kw, out_depth]) ------

struct DepthwiseDims {
  std::int64_t batch, in_rows, in_cols, in_depth;
  std::int64_t filter_rows, filter_cols, multiplier;
  std::int64_t out_rows, out_cols;
  std::int64_t stride_rows, stride_cols, dilation_rows, dilation_cols;
  std::int64_t pad_top, pad_left;
  SYMFLOW_HD std::int64_t out_depth() const { return in_depth * multiplier; }
};
inline DepthwiseDims depthwise_dims(const cpu::DepthwiseConv2DGeometry& g) {
  return {g.batch,       g.in_rows,       g.in_cols,       g.in_depth, g.filter_rows,
          g.filter_cols, g.multiplier,    g.out_rows,      g.out_cols, g.stride_rows,
          g.stride_cols, g.dilation_rows, g.dilation_cols, g.pad_top,  g.pad_left};
}

template <class T>
struct DepthwiseForward {
  DepthwiseDims g;
  const T* input;
  const T* filter;
  T* output;
  SYMFLOW_HD void operator()(std::int64_t i) const {
    const std::int64_t out_depth = g.out_depth();
    const Index4 at = split_index4(i, g.out_rows, g.out_cols, out_depth);
    const std::int64_t n = at.i0, oh = at.i1, ow = at.i2, d = at.i3;
    const T* image = input + n * g.in_rows * g.in_cols * g.in_depth + d / g.multiplier;
    T sum = T(0);
    for (std::int64_t kh = 0; kh < g.filter_rows; ++kh) {
      const std::int64_t ih = oh * g.stride_rows - g.pad_top + kh * g.dilation_rows;
      if (ih < 0 || ih >= g.in_rows) continue;
      for (std::int64_t kw = 0; kw < g.filter_cols; ++kw) {
        const std::int64_t iw = ow * g.stride_cols - g.pad_left + kw * g.dilation_cols;
        if (iw < 0 || iw >= g.in_cols) continue;
        sum += image[(ih * g.in_cols + iw) * g.in_depth] *
               filter[(kh * g.filter_cols + kw) * out_depth + d];
      }
    }
    output[i] = sum;
  }
};

// ---- DepthwiseConv2dNativeBackpropInput: dx[n, ih, iw, c] = sum of dy[n, oh, ow, d] *
// filter[kh, kw, d] over the taps (oh, ow, kh, kw) that land on (ih, iw) and the channel's
// outputs d = c * multiplier + m ---------------------------------------------------------

template <class T>
struct DepthwiseBackpropInputGather {
  DepthwiseDims g;
  const T* filter;
  const T* out_grad;
  T* input_grad;
  SYMFLOW_HD void operator()(std::int64_t i) const {
    const std::int64_t out_depth = g.out_depth();
    const Index4 at = split_index4(i, g.in_rows, g.in_cols, g.in_depth);
    const std::int64_t n = at.i0, ih = at.i1, iw = at.i2, c = at.i3;
    const std::int64_t d0 = c * g.multiplier;
    T sum = T(0);
    for (std::int64_t kh = 0; kh < g.filter_rows; ++kh) {
      const std::int64_t r = ih + g.pad_top - kh * g.dilation_rows;  // oh * stride_rows
      if (r < 0 || r % g.stride_rows != 0 || r / g.stride_rows >= g.out_rows) continue;
      const std::int64_t oh = r / g.stride_rows;
      for (std::int64_t kw = 0; kw < g.filter_cols; ++kw) {
        const std::int64_t q = iw + g.pad_left - kw * g.dilation_cols;
        if (q < 0 || q % g.stride_cols != 0 || q / g.stride_cols >= g.out_cols) continue;
        const std::int64_t ow = q / g.stride_cols;
        const T* dy = out_grad + ((n * g.out_rows + oh) * g.out_cols + ow) * out_depth + d0;
        const T* f = filter + (kh * g.filter_cols + kw) * out_depth + d0;
        for (std::int64_t m = 0; m < g.multiplier; ++m) sum += dy[m] * f[m];
      }
    }
    input_grad[i] = sum;
  }
};

// ---- DepthwiseConv2dNativeBackpropFilter: df[kh, kw, d] = sum over (n, oh, ow) of
// in[n, ih, iw, d / multiplier] * dy[n, oh, ow, d] ------------------------------------------

template <class T>
struct DepthwiseBackpropFilterGather {
  DepthwiseDims g;
  const T* input;
  const T* out_grad;
  T* filter_grad;
  SYMFLOW_HD void operator()(std::int64_t i) const {
    const std::int64_t out_depth = g.out_depth();
    const std::int64_t d = i % out_depth;
    const std::int64_t tap = i / out_depth;
    const std::int64_t kh = tap / g.filter_cols, kw = tap % g.filter_cols;
    // The output rows and cols whose tap (kh, kw) lands inside the input.
    const std::int64_t row_off = kh * g.dilation_rows - g.pad_top;  // ih = oh * s + row_off
    const std::int64_t col_off = kw * g.dilation_cols - g.pad_left;
    const std::int64_t oh0 = max64(0, ceil_div(-row_off, g.stride_rows));
    const std::int64_t oh1 = min64(g.out_rows, ceil_div(g.in_rows - row_off, g.stride_rows));
    const std::int64_t ow0 = max64(0, ceil_div(-col_off, g.stride_cols));
    const std::int64_t ow1 = min64(g.out_cols, ceil_div(g.in_cols - col_off, g.stride_cols));
    T sum = T(0);
    for (std::int64_t n = 0; n < g.batch; ++n) {
      const T* image = input + n * g.in_rows * g.in_cols * g.in_depth + d / g.multiplier;
      const T* dy_image = out_grad + n * g.out_rows * g.out_cols * out_depth + d;
      for (std::int64_t oh = oh0; oh < oh1; ++oh) {
        const std::int64_t ih = oh * g.stride_rows + row_off;
        for (std::int64_t ow = ow0; ow < ow1; ++ow) {
          const std::int64_t iw = ow * g.stride_cols + col_off;
          sum += image[(ih * g.in_cols + iw) * g.in_depth] *
                 dy_image[(oh * g.out_cols + ow) * out_depth];
        }
      }
    }
    filter_grad[i] = sum;
  }
};

// ---- pooling ----------------------------------------------------------------------------

// Output pixel (oh, ow)'s window clipped to the input, as cpu::detail::pool_window.
struct Window {
  std::int64_t h0, h1, w0, w1;
};
SYMFLOW_HD inline Window pool_window(const PoolDims& g, std::int64_t oh, std::int64_t ow) {
  const std::int64_t hs = oh * g.stride_rows - g.pad_top;
  const std::int64_t ws = ow * g.stride_cols - g.pad_left;
  return {max64(hs, 0), min64(hs + g.window_rows, g.in_rows), max64(ws, 0),
          min64(ws + g.window_cols, g.in_cols)};
}
// The output rows [first, last) whose windows cover input row ih (or cols: same rule).
SYMFLOW_HD inline std::int64_t first_cover(std::int64_t i, std::int64_t pad, std::int64_t window,
                                           std::int64_t stride) {
  return max64(0, ceil_div(i + pad - window + 1, stride));
}
SYMFLOW_HD inline std::int64_t end_cover(std::int64_t i, std::int64_t pad, std::int64_t stride,
                                         std::int64_t out) {
  return min64(out, (i + pad) / stride + 1);
}

// Output element i = (n, oh, ow, c) of a pool, split.
struct PoolIndex {
  std::int64_t n, oh, ow, c;
};
SYMFLOW_HD inline PoolIndex split_pool_output(const PoolDims& g, std::int64_t i) {
  const Index4 at = split_index4(i, g.out_rows, g.out_cols, g.depth);
  return {at.i0, at.i1, at.i2, at.i3};
}

// Input element i = (n, ih, iw, c) of a pool, split, with the output rows [oh0, oh1) and
// cols [ow0, ow1) whose windows cover it: what each pooling gradient sums over.
struct PoolCover {
  std::int64_t n, c, oh0, oh1, ow0, ow1;
};
SYMFLOW_HD inline PoolCover pool_cover(const PoolDims& g, std::int64_t i) {
  const Index4 at = split_index4(i, g.in_rows, g.in_cols, g.depth);
  const std::int64_t ih = at.i1, iw = at.i2;
  return {at.i0,
          at.i3,
          first_cover(ih, g.pad_top, g.window_rows, g.stride_rows),
          end_cover(ih, g.pad_top, g.stride_rows, g.out_rows),
          first_cover(iw, g.pad_left, g.window_cols, g.stride_cols),
          end_cover(iw, g.pad_left, g.stride_cols, g.out_cols)};
}

template <class T>
struct MaxPoolForward {
  PoolDims g;
  T lowest;
  const T* input;
  T* output;
  SYMFLOW_HD void operator()(std::int64_t i) const {
    const PoolIndex o = split_pool_output(g, i);
    const Window w = pool_window(g, o.oh, o.ow);
    const T* image = input + o.n * g.in_rows * g.in_cols * g.depth + o.c;
    T best = lowest;
    for (std::int64_t h = w.h0; h < w.h1; ++h)
      for (std::int64_t x = w.w0; x < w.w1; ++x) {
        const T v = image[(h * g.in_cols + x) * g.depth];
        best = v > best ? v : best;
      }
    output[i] = best;
  }
};

template <class T>
struct AvgPoolForward {
  PoolDims g;
  const T* input;
  T* output;
  SYMFLOW_HD void operator()(std::int64_t i) const {
    const PoolIndex o = split_pool_output(g, i);
    const Window w = pool_window(g, o.oh, o.ow);
    const T* image = input + o.n * g.in_rows * g.in_cols * g.depth + o.c;
    T sum = T(0);
    for (std::int64_t h = w.h0; h < w.h1; ++h)
      for (std::int64_t x = w.w0; x < w.w1; ++x) sum += image[(h * g.in_cols + x) * g.depth];
    const std::int64_t count = (w.h1 - w.h0) * (w.w1 - w.w0);
    if (count > 0) sum /= static_cast<T>(count);
    output[i] = sum;
  }
};

// MaxPoolGrad, pass 1: for each output element, the input element (flat index) its
// gradient goes to, as the CPU picks it: the window's maximum ignoring NaNs (starting
// from lowest(), `x > best`, as Eigen's max does here), then the first pixel in
// row-major order equal to it; the window's first pixel when none is (all NaN), and -1
// for an empty window.
template <class T>
struct MaxPoolArgmax {
  PoolDims g;
  T lowest;
  const T* input;
  std::int64_t* argmax;
  SYMFLOW_HD void operator()(std::int64_t i) const {
    const PoolIndex o = split_pool_output(g, i);
    const Window w = pool_window(g, o.oh, o.ow);
    if ((w.h1 - w.h0) * (w.w1 - w.w0) <= 0) {
      argmax[i] = -1;
      return;
    }
    const std::int64_t base = o.n * g.in_rows * g.in_cols * g.depth + o.c;
    const T* image = input + base;
    T best = lowest;
    for (std::int64_t h = w.h0; h < w.h1; ++h)
      for (std::int64_t x = w.w0; x < w.w1; ++x) {
        const T v = image[(h * g.in_cols + x) * g.depth];
        best = v > best ? v : best;  // std::max(best, v): NaN never wins
      }
    std::int64_t at = (w.h0 * g.in_cols + w.w0) * g.depth;
    bool found = false;
    for (std::int64_t h = w.h0; h < w.h1 && !found; ++h)
      for (std::int64_t x = w.w0; x < w.w1; ++x) {
        const std::int64_t k = (h * g.in_cols + x) * g.depth;
        if (image[k] == best) {
          at = k;
          found = true;
          break;
        }
      }
    argmax[i] = base + at;
  }
};

// MaxPoolGrad, pass 2: each input element sums the gradients routed to it, over the
// windows that cover it in (oh, ow) order: the CPU's order of additions.
template <class T>
struct MaxPoolGradGather {
  PoolDims g;
  const std::int64_t* argmax;
  const T* out_grad;
  T* input_grad;
  SYMFLOW_HD void operator()(std::int64_t i) const {
    const PoolCover cv = pool_cover(g, i);
    const std::int64_t n = cv.n, c = cv.c;
    T sum = T(0);
    for (std::int64_t oh = cv.oh0; oh < cv.oh1; ++oh)
      for (std::int64_t ow = cv.ow0; ow < cv.ow1; ++ow) {
        const std::int64_t o = ((n * g.out_rows + oh) * g.out_cols + ow) * g.depth + c;
        if (argmax[o] == i) sum += out_grad[o];
      }
    input_grad[i] = sum;
  }
};

// AvgPoolGrad: each input element sums dy * (1 / count) of the windows covering it, in
// (oh, ow) order, as the CPU adds them.
template <class T>
struct AvgPoolGradGather {
  PoolDims g;
  const T* out_grad;
  T* input_grad;
  SYMFLOW_HD void operator()(std::int64_t i) const {
    const PoolCover cv = pool_cover(g, i);
    const std::int64_t n = cv.n, c = cv.c;
    T sum = T(0);
    for (std::int64_t oh = cv.oh0; oh < cv.oh1; ++oh)
      for (std::int64_t ow = cv.ow0; ow < cv.ow1; ++ow) {
        const Window w = pool_window(g, oh, ow);
        const std::int64_t count = (w.h1 - w.h0) * (w.w1 - w.w0);
        if (count <= 0) continue;
        const T scale = T(1) / static_cast<T>(count);
        sum += out_grad[((n * g.out_rows + oh) * g.out_cols + ow) * g.depth + c] * scale;
      }
    input_grad[i] = sum;
  }
};

// ---- launching ----------------------------------------------------------------------------

template <class F>
void launch(std::int64_t n, const F& f) {
  if (n <= 0) return;
  thrust::for_each(policy(), thrust::counting_iterator<std::int64_t>(0),
                   thrust::counting_iterator<std::int64_t>(n), f);
}

namespace cd = symflow::detail::conv;

// A 4-element int32/int64 size vector input, read on the host (detail::conv::kernel_sizes).
inline Dims kernel_sizes(const KernelContext& ctx, std::size_t i, std::string_view what) {
  return cd::kernel_sizes(ctx, host_value(ctx.input(i)), what);
}

// ---- data_format NCHW: the NHWC kernels between two device transposes, as on the CPU ------

// Element i of a 4-D tensor whose axis k is the input's axis perm[k] (`stride`: the input's
// stride along each output axis).
template <class T>
struct Permute4 {
  std::int64_t d1, d2, d3;
  std::int64_t stride0, stride1, stride2, stride3;
  const T* in;
  T* out;
  SYMFLOW_HD void operator()(std::int64_t i) const {
    const std::int64_t a3 = i % d3, r3 = i / d3;
    const std::int64_t a2 = r3 % d2, r2 = r3 / d2;
    const std::int64_t a1 = r2 % d1, a0 = r2 / d1;
    out[i] = in[a0 * stride0 + a1 * stride1 + a2 * stride2 + a3 * stride3];
  }
};

inline Value device_permuted4(KernelContext& ctx, const Value& v, const std::array<int, 4>& perm) {
  const Dims& d = v.dims();
  const std::int64_t stride[4] = {d[1] * d[2] * d[3], d[2] * d[3], d[3], 1};
  const auto p = [&](int k) { return static_cast<std::size_t>(perm[static_cast<std::size_t>(k)]); };
  Value out = empty_device_value(v.dtype(), {d[p(0)], d[p(1)], d[p(2)], d[p(3)]});
  cd::visit_float(ctx, v.dtype(), [&](auto zero) {
    using T = decltype(zero);
    launch(out.size(),
           Permute4<T>{d[p(1)], d[p(2)], d[p(3)], stride[p(0)], stride[p(1)], stride[p(2)],
                       stride[p(3)], v.device_data<T>(), out.device_data<T>()});
  });
  return out;
}
inline Value device_nhwc(KernelContext& ctx, const Value& v, const cd::Layout& layout) {
  return layout.nchw ? device_permuted4(ctx, v, {0, 2, 3, 1}) : v;
}

// Output 0 of NHWC dims `nhwc`, filled by fill(out): in place, or for NCHW in a buffer
// transposed after.
template <class Fill>
void layout_output(KernelContext& ctx, const cd::Layout& layout, DType dtype, const Dims& nhwc,
                   Fill&& fill) {
  if (!layout.nchw) {
    fill(output(ctx, 0, dtype, nhwc));
    return;
  }
  Value buffer = empty_device_value(dtype, nhwc);
  fill(buffer);
  ctx.set_output(0, device_permuted4(ctx, buffer, {0, 3, 1, 2}));
}

template <class T>
void run_conv2d(Value& out, const cpu::Conv2DGeometry& g, const Value& in, const Value& filter) {
  launch(out.size(), Conv2DForward<T>{conv_dims(g), in.device_data<T>(), filter.device_data<T>(),
                                      out.device_data<T>()});
}

inline void conv2d_kernel(KernelContext& ctx) {
  const Value& filter = ctx.input(1);
  const cd::KernelWindow w = cd::conv_kernel_window(ctx);
  cd::require_4d(ctx, ctx.input(0).dims(), "input");
  cd::require_4d(ctx, filter.dims(), "filter");
  const Value in = device_nhwc(ctx, ctx.input(0), w.layout);
  const cpu::Conv2DGeometry g =
      cd::kernel_conv_geometry(ctx, "Conv2D", in.dims(), filter.dims(), w);
  cd::visit_float(ctx, in.dtype(), [&](auto zero) {
    using T = decltype(zero);
    layout_output(ctx, w.layout, in.dtype(), {g.batch, g.out_rows, g.out_cols, g.out_depth},
                  [&](Value& out) { run_conv2d<T>(out, g, in, filter); });
  });
}

template <class T>
void run_conv2d_backprop_input(Value& out, const cpu::Conv2DGeometry& g, const Value& filter,
                               const Value& dy) {
  launch(out.size(), Conv2DBackpropInputGather<T>{conv_dims(g), filter.device_data<T>(),
                                                  dy.device_data<T>(), out.device_data<T>()});
}

inline void conv2d_backprop_input_kernel(KernelContext& ctx) {
  constexpr std::string_view label = "Conv2DBackpropInput";
  const cd::KernelWindow w = cd::conv_kernel_window(ctx);
  const Dims given = kernel_sizes(ctx, 0, "input_sizes");
  const Dims sizes = w.layout.nchw ? cd::nhwc_of_nchw(given) : given;
  const Value& filter = ctx.input(1);
  cd::require_4d(ctx, filter.dims(), "filter");
  cd::require_4d(ctx, ctx.input(2).dims(), "out_backprop");
  const Value dy = device_nhwc(ctx, ctx.input(2), w.layout);
  const cpu::Conv2DGeometry g = cd::kernel_conv_geometry(ctx, label, sizes, filter.dims(), w);
  cd::check_out_backprop(ctx, label, g, dy.dims());
  cd::visit_float(ctx, filter.dtype(), [&](auto zero) {
    using T = decltype(zero);
    layout_output(ctx, w.layout, filter.dtype(), sizes,
                  [&](Value& out) { run_conv2d_backprop_input<T>(out, g, filter, dy); });
  });
}

template <class T>
void run_conv2d_backprop_filter(Value& out, const cpu::Conv2DGeometry& g, const Value& in,
                                const Value& dy) {
  launch(out.size(), Conv2DBackpropFilterGather<T>{conv_dims(g), in.device_data<T>(),
                                                   dy.device_data<T>(), out.device_data<T>()});
}

inline void conv2d_backprop_filter_kernel(KernelContext& ctx) {
  constexpr std::string_view label = "Conv2DBackpropFilter";
  const cd::KernelWindow w = cd::conv_kernel_window(ctx);
  const Dims sizes = kernel_sizes(ctx, 1, "filter_sizes");
  cd::require_4d(ctx, ctx.input(0).dims(), "input");
  cd::require_4d(ctx, ctx.input(2).dims(), "out_backprop");
  const Value in = device_nhwc(ctx, ctx.input(0), w.layout);
  const Value dy = device_nhwc(ctx, ctx.input(2), w.layout);
  const cpu::Conv2DGeometry g = cd::kernel_conv_geometry(ctx, label, in.dims(), sizes, w);
  cd::check_out_backprop(ctx, label, g, dy.dims());
  cd::visit_float(ctx, in.dtype(), [&](auto zero) {
    using T = decltype(zero);
    Value& out = output(ctx, 0, in.dtype(), sizes);
    run_conv2d_backprop_filter<T>(out, g, in, dy);
  });
}

// A depthwise op's 4-D tensor in NHWC, as the CPU's cd::depthwise_nhwc (a rank check first).
inline Value device_depthwise_nhwc(KernelContext& ctx, const Value& v, const cd::Layout& layout,
                                   const std::string& rank_error) {
  if (!layout.nchw) return v;
  if (v.rank() != 4) ctx.fail(rank_error);
  return device_permuted4(ctx, v, {0, 2, 3, 1});
}

inline void depthwise_conv2d_native_kernel(KernelContext& ctx) {
  const cd::KernelWindow w = cd::depthwise_kernel_window(ctx);
  const Value in =
      device_depthwise_nhwc(ctx, ctx.input(0), w.layout,
                            "input must be 4-dimensional" + dims_to_string(ctx.input(0).dims()));
  const Value& filter = ctx.input(1);
  const cpu::DepthwiseConv2DGeometry g =
      cd::kernel_depthwise_geometry(ctx, in.dims(), filter.dims(), w);
  cd::visit_float(ctx, in.dtype(), [&](auto zero) {
    using T = decltype(zero);
    layout_output(ctx, w.layout, in.dtype(), {g.batch, g.out_rows, g.out_cols, g.out_depth()},
                  [&](Value& out) {
                    launch(out.size(),
                           DepthwiseForward<T>{depthwise_dims(g), in.device_data<T>(),
                                               filter.device_data<T>(), out.device_data<T>()});
                  });
  });
}

inline void depthwise_conv2d_native_backprop_input_kernel(KernelContext& ctx) {
  const Dims given = cd::depthwise_sizes(ctx, host_value(ctx.input(0)), cd::kDepthwiseInputLabel,
                                         "input_sizes", "input");
  const cd::KernelWindow w = cd::depthwise_kernel_window(ctx);
  const Dims sizes = w.layout.nchw ? cd::nhwc_of_nchw(given) : given;
  const Value& filter = ctx.input(1);
  const Value dy = device_depthwise_nhwc(
      ctx, ctx.input(2), w.layout,
      std::string(cd::kDepthwiseInputLabel) + ": out_backprop must be 4-dimensional");
  const cpu::DepthwiseConv2DGeometry g = cd::kernel_depthwise_backprop_geometry(
      ctx, cd::kDepthwiseInputLabel, sizes, filter.dims(), dy.dims(), w);
  cd::visit_float(ctx, filter.dtype(), [&](auto zero) {
    using T = decltype(zero);
    layout_output(ctx, w.layout, filter.dtype(), sizes, [&](Value& out) {
      launch(out.size(),
             DepthwiseBackpropInputGather<T>{depthwise_dims(g), filter.device_data<T>(),
                                             dy.device_data<T>(), out.device_data<T>()});
    });
  });
}

inline void depthwise_conv2d_native_backprop_filter_kernel(KernelContext& ctx) {
  const Dims sizes = cd::depthwise_sizes(ctx, host_value(ctx.input(1)), cd::kDepthwiseFilterLabel,
                                         "filter_sizes", "filter");
  const cd::KernelWindow w = cd::depthwise_kernel_window(ctx);
  const Value in = device_depthwise_nhwc(
      ctx, ctx.input(0), w.layout,
      std::string(cd::kDepthwiseFilterLabel) + ": input must be 4-dimensional");
  const Value dy = device_depthwise_nhwc(
      ctx, ctx.input(2), w.layout,
      std::string(cd::kDepthwiseFilterLabel) + ": out_backprop must be 4-dimensional");
  const cpu::DepthwiseConv2DGeometry g = cd::kernel_depthwise_backprop_geometry(
      ctx, cd::kDepthwiseFilterLabel, in.dims(), sizes, dy.dims(), w);
  cd::visit_float(ctx, in.dtype(), [&](auto zero) {
    using T = decltype(zero);
    Value& out = output(ctx, 0, in.dtype(), sizes);
    launch(out.size(), DepthwiseBackpropFilterGather<T>{depthwise_dims(g), in.device_data<T>(),
                                                        dy.device_data<T>(), out.device_data<T>()});
  });
}

template <class T>
void run_max_pool(Value& out, const cpu::Pool2DGeometry& g, const Value& in) {
  launch(out.size(), MaxPoolForward<T>{pool_dims(g), std::numeric_limits<T>::lowest(),
                                       in.device_data<T>(), out.device_data<T>()});
}

// A pooling input in NHWC (a 4-D check first, for the transpose).
inline Value device_pool_input(KernelContext& ctx, const Value& v, const cd::Layout& layout) {
  if (layout.nchw) cd::require_4d(ctx, v.dims(), "input");
  return device_nhwc(ctx, v, layout);
}

inline void max_pool_kernel(KernelContext& ctx) {
  const cd::Layout layout = cd::kernel_layout(ctx);
  const Value in = device_pool_input(ctx, ctx.input(0), layout);
  const cpu::Pool2DGeometry g = cd::kernel_pool_geometry(ctx, in.dims());
  cd::visit_float(ctx, in.dtype(), [&](auto zero) {
    using T = decltype(zero);
    layout_output(ctx, layout, in.dtype(), cd::pool_out_dims(g),
                  [&](Value& out) { run_max_pool<T>(out, g, in); });
  });
}

template <class T>
void run_avg_pool(Value& out, const cpu::Pool2DGeometry& g, const Value& in) {
  launch(out.size(), AvgPoolForward<T>{pool_dims(g), in.device_data<T>(), out.device_data<T>()});
}

inline void avg_pool_kernel(KernelContext& ctx) {
  const cd::Layout layout = cd::kernel_layout(ctx);
  const Value in = device_pool_input(ctx, ctx.input(0), layout);
  const cpu::Pool2DGeometry g = cd::kernel_pool_geometry(ctx, in.dims());
  cd::visit_float(ctx, in.dtype(), [&](auto zero) {
    using T = decltype(zero);
    layout_output(ctx, layout, in.dtype(), cd::pool_out_dims(g),
                  [&](Value& out) { run_avg_pool<T>(out, g, in); });
  });
}

template <class T>
void run_max_pool_grad(Value& dx, const cpu::Pool2DGeometry& g, const Value& in, const Value& dy) {
  if (dx.size() == 0) return;
  const PoolDims d = pool_dims(g);
  Value argmax = empty_device_value(DType::int64, {dy.size()});
  launch(dy.size(), MaxPoolArgmax<T>{d, std::numeric_limits<T>::lowest(), in.device_data<T>(),
                                     argmax.device_data<std::int64_t>()});
  launch(dx.size(), MaxPoolGradGather<T>{d, argmax.device_data<std::int64_t>(), dy.device_data<T>(),
                                         dx.device_data<T>()});
}

inline void max_pool_grad_kernel(KernelContext& ctx) {
  const cd::Layout layout = cd::kernel_layout(ctx);
  const Value in = device_pool_input(ctx, ctx.input(0), layout);
  const cpu::Pool2DGeometry g = cd::kernel_pool_geometry(ctx, in.dims());
  cd::require_pool_out_shape(ctx, g, ctx.input(1).dims(), "orig_output", layout);
  cd::require_pool_out_shape(ctx, g, ctx.input(2).dims(), "grad", layout);
  const Value dy = device_nhwc(ctx, ctx.input(2), layout);
  cd::visit_float(ctx, in.dtype(), [&](auto zero) {
    using T = decltype(zero);
    layout_output(ctx, layout, in.dtype(), in.dims(),
                  [&](Value& dx) { run_max_pool_grad<T>(dx, g, in, dy); });
  });
}

template <class T>
void run_avg_pool_grad(Value& dx, const cpu::Pool2DGeometry& g, const Value& dy) {
  launch(dx.size(), AvgPoolGradGather<T>{pool_dims(g), dy.device_data<T>(), dx.device_data<T>()});
}

inline void avg_pool_grad_kernel(KernelContext& ctx) {
  const cd::Layout layout = cd::kernel_layout(ctx);
  const Dims given = kernel_sizes(ctx, 0, "orig_input_shape");
  const Dims sizes = layout.nchw ? cd::nhwc_of_nchw(given) : given;
  const cpu::Pool2DGeometry g = cd::kernel_pool_geometry(ctx, sizes);
  cd::require_pool_out_shape(ctx, g, ctx.input(1).dims(), "grad", layout);
  const Value dy = device_nhwc(ctx, ctx.input(1), layout);
  cd::visit_float(ctx, dy.dtype(), [&](auto zero) {
    using T = decltype(zero);
    layout_output(ctx, layout, dy.dtype(), sizes,
                  [&](Value& dx) { run_avg_pool_grad<T>(dx, g, dy); });
  });
}

}  // namespace conv_kernels

inline constexpr auto kConvKernels = std::to_array<KernelEntry>({
    {&symflow::detail::conv::kConv2DOp, conv_kernels::conv2d_kernel},
    {&symflow::detail::conv::kConv2DBackpropInputOp, conv_kernels::conv2d_backprop_input_kernel},
    {&symflow::detail::conv::kConv2DBackpropFilterOp, conv_kernels::conv2d_backprop_filter_kernel},
    {&symflow::detail::conv::kDepthwiseConv2dNativeOp,
     conv_kernels::depthwise_conv2d_native_kernel},
    {&symflow::detail::conv::kDepthwiseConv2dNativeBackpropInputOp,
     conv_kernels::depthwise_conv2d_native_backprop_input_kernel},
    {&symflow::detail::conv::kDepthwiseConv2dNativeBackpropFilterOp,
     conv_kernels::depthwise_conv2d_native_backprop_filter_kernel},
    {&symflow::detail::conv::kMaxPoolOp, conv_kernels::max_pool_kernel},
    {&symflow::detail::conv::kAvgPoolOp, conv_kernels::avg_pool_kernel},
    {&symflow::detail::conv::kMaxPoolGradOp, conv_kernels::max_pool_grad_kernel},
    {&symflow::detail::conv::kAvgPoolGradOp, conv_kernels::avg_pool_grad_kernel},
});

}  // namespace symflow::thrust_backend
