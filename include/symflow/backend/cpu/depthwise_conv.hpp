#pragma once
// Depthwise 2-D convolution over NHWC host buffers: the numeric core of
// DepthwiseConv2dNative and its gradients. No graph, no Value: plain pointers and a
// geometry struct, as conv.hpp.
//
// Input channel c has `multiplier` filters of its own: output channel d = c * multiplier + m
// is channel c convolved with filter[:, :, c, m]. Read as [filter_rows, filter_cols,
// out_depth], the filter keeps a tap's output channels side by side, as the output does,
// so every inner loop runs over contiguous channels and vectorizes.
//
// Direct loops, no patch matrix: a depthwise conv makes filter_rows * filter_cols
// multiply-adds per output, too few for a GEMM to pay for its patches. Each output pixel
// lists the taps that land inside the input (padding is skipped, not read) and sums them a
// block of channels at a time in registers (sum_of_tap_products). The input gradient is a
// gather of the same kind, each input pixel summing the output pixels that read it; the
// filter gradient sums over output pixels in fixed groups of rows, one accumulator each,
// added in order. Work is split by rows over the runner's threads, and every split depends on
// the shapes only, so results are the same, bit for bit, for any number of threads.

#include <Eigen/Core>

#include <algorithm>
#include <cstdint>

#include "symflow/backend/cpu/conv.hpp"  // min_tasks, SerialRunner, PooledArray
#include "symflow/backend/cpu/epilogue.hpp"
#include "symflow/ops/defs/window.hpp"  // Padding, windowed_output

namespace symflow::cpu {

struct DepthwiseConv2DGeometry {
  std::int64_t batch = 0, in_rows = 0, in_cols = 0, in_depth = 0;
  std::int64_t filter_rows = 0, filter_cols = 0, multiplier = 0;
  std::int64_t out_rows = 0, out_cols = 0;
  std::int64_t stride_rows = 1, stride_cols = 1;
  std::int64_t dilation_rows = 1, dilation_cols = 1;
  std::int64_t pad_top = 0, pad_left = 0;

  std::int64_t out_depth() const { return in_depth * multiplier; }
  std::int64_t taps() const { return filter_rows * filter_cols; }
};

// The geometry of a depthwise conv over input [batch, in_rows, in_cols, in_depth] with
// filter [filter_rows, filter_cols, in_depth, multiplier]; out_rows/out_cols < 0 when VALID
// does not fit.
inline DepthwiseConv2DGeometry depthwise_conv2d_geometry(
    const std::int64_t (&input)[4], const std::int64_t (&filter)[4], std::int64_t stride_rows,
    std::int64_t stride_cols, std::int64_t dilation_rows, std::int64_t dilation_cols,
    Padding padding) {
  DepthwiseConv2DGeometry g;
  g.batch = input[0];
  g.in_rows = input[1];
  g.in_cols = input[2];
  g.in_depth = input[3];
  g.filter_rows = filter[0];
  g.filter_cols = filter[1];
  g.multiplier = filter[3];
  g.stride_rows = stride_rows;
  g.stride_cols = stride_cols;
  g.dilation_rows = dilation_rows;
  g.dilation_cols = dilation_cols;
  const WindowedDim r =
      windowed_output(g.in_rows, g.filter_rows, stride_rows, dilation_rows, padding);
  const WindowedDim c =
      windowed_output(g.in_cols, g.filter_cols, stride_cols, dilation_cols, padding);
  g.out_rows = r.size;
  g.out_cols = c.size;
  g.pad_top = r.pad_before;
  g.pad_left = c.pad_before;
  return g;
}

namespace detail {

// out[j, j + width) = the sum over t < taps of a[t][...] * b[t][...]: the block stays in
// registers across all the taps before it is stored. (Eigen's fixed-size arrays: GCC's -O2
// does not vectorize loops of unknown length. Inlined: at 32 channels, a call per block
// showed in the timings.)
template <class T, std::int64_t width>
[[gnu::always_inline]] inline void sum_tap_products_block(const T* const* a, const T* const* b,
                                                          std::int64_t taps, std::int64_t j,
                                                          T* out) {
  using Block = Eigen::Array<T, width, 1>;
  Block sum = Block::Zero();
  for (std::int64_t t = 0; t < taps; ++t)
    sum += Eigen::Map<const Block>(a[t] + j) * Eigen::Map<const Block>(b[t] + j);
  Eigen::Map<Block>(out + j) = sum;
}

// out[j] = the sum over t < taps of a[t][j] * b[t][j], for j in [0, n); zeros when taps is
// 0. Blocks of 256 bytes first: 4 AVX-512 or 8 AVX2 registers, independent sums enough to
// hide the multiply-adds' latency (blocks of 128 bytes ran 1.3x slower at 7x7x1024 with
// AVX-512); then a block of 128 and one of 64 bytes, then one channel at a time.
template <class T>
void sum_of_tap_products(const T* const* a, const T* const* b, std::int64_t taps, std::int64_t n,
                         T* out) {
  constexpr auto wide = static_cast<std::int64_t>(256 / sizeof(T));
  std::int64_t j = 0;
  for (; j + wide <= n; j += wide) sum_tap_products_block<T, wide>(a, b, taps, j, out);
  if (j + wide / 2 <= n) {
    sum_tap_products_block<T, wide / 2>(a, b, taps, j, out);
    j += wide / 2;
  }
  if (j + wide / 4 <= n) {
    sum_tap_products_block<T, wide / 4>(a, b, taps, j, out);
    j += wide / 4;
  }
  if (j + wide / 8 <= n) {  // 8 floats: the first layers of a MobileNet at width 0.25
    sum_tap_products_block<T, wide / 8>(a, b, taps, j, out);
    j += wide / 8;
  }
  if (j == n) return;
  ArrayMap<T> rest(out + j, n - j);
  rest.setZero();
  for (std::int64_t t = 0; t < taps; ++t)
    rest += ConstArrayMap<T>(a[t] + j, n - j) * ConstArrayMap<T>(b[t] + j, n - j);
}

// sums[t][j, j + width) += x[t][...] * dy[...] for t < taps: the block of dy stays in
// registers across the taps.
template <class T, std::int64_t width>
[[gnu::always_inline]] inline void add_tap_products_block(T* const* sums, const T* const* x,
                                                          std::int64_t taps, const T* dy,
                                                          std::int64_t j) {
  using Block = Eigen::Array<T, width, 1>;
  const Block d = Eigen::Map<const Block>(dy + j);
  for (std::int64_t t = 0; t < taps; ++t)
    Eigen::Map<Block>(sums[t] + j) += Eigen::Map<const Block>(x[t] + j) * d;
}

// sums[t][j] += x[t][j] * dy[j] for t < taps and j in [0, n), in blocks as
// sum_of_tap_products.
template <class T>
void add_tap_products(T* const* sums, const T* const* x, std::int64_t taps, const T* dy,
                      std::int64_t n) {
  constexpr auto wide = static_cast<std::int64_t>(256 / sizeof(T));
  std::int64_t j = 0;
  for (; j + wide <= n; j += wide) add_tap_products_block<T, wide>(sums, x, taps, dy, j);
  if (j + wide / 2 <= n) {
    add_tap_products_block<T, wide / 2>(sums, x, taps, dy, j);
    j += wide / 2;
  }
  if (j + wide / 4 <= n) {
    add_tap_products_block<T, wide / 4>(sums, x, taps, dy, j);
    j += wide / 4;
  }
  if (j == n) return;
  const ConstArrayMap<T> d(dy + j, n - j);
  for (std::int64_t t = 0; t < taps; ++t)
    ArrayMap<T>(sums[t] + j, n - j) += ConstArrayMap<T>(x[t] + j, n - j) * d;
}

// Each input channel repeated `multiplier` times: the input as the filter's channels see it.
template <class T>
void repeat_channels(const T* in, std::int64_t depth, std::int64_t multiplier, T* out) {
  for (std::int64_t c = 0; c < depth; ++c) std::fill_n(out + c * multiplier, multiplier, in[c]);
}

// Per-task scratch of the depthwise loops, for one row of pixels at a time: each pixel's taps
// (`taps` pointers into the input or out_grad, and as many into the filter, or, with S = T,
// into the filter gradient's sums), how many of them lie inside the input, and `values`
// elements.
template <class T, class S = const T>
struct RowTaps {
  const T** first_taps;
  S** second_taps;
  std::int64_t* count;
  T* values;
  std::int64_t taps;
  const T** first(std::int64_t p) const { return first_taps + p * taps; }
  S** second(std::int64_t p) const { return second_taps + p * taps; }
};

// Calls fn(scratch, begin, end) over chunks of [0, n) on the runner's threads; each task gets
// RowTaps for `pixels` pixels of `taps` taps and `values` elements, all taken before the
// split (as for_chunks_with_patches, conv.hpp), so what a run allocates does not depend on
// which tasks overlapped in time.
template <class T, class S = const T, class Runner, class Fn>
void for_chunks_with_row_taps(const Runner& runner, std::int64_t n, std::int64_t min_chunk,
                              std::int64_t pixels, std::int64_t taps, std::int64_t values,
                              Fn&& fn) {
  const std::int64_t tasks = runner.num_chunks(n, min_chunk);
  const std::int64_t pointers = pixels * taps;
  const symflow::detail::PooledArray<const T*> first_scratch(
      static_cast<std::size_t>(tasks * pointers));
  const symflow::detail::PooledArray<S*> second_scratch(static_cast<std::size_t>(tasks * pointers));
  const symflow::detail::PooledArray<std::int64_t> count_scratch(
      static_cast<std::size_t>(tasks * pixels));
  const symflow::detail::PooledArray<T> value_scratch(static_cast<std::size_t>(tasks * values));
  runner.parallel_for_chunks(n, min_chunk, [&](std::int64_t task, std::int64_t b, std::int64_t e) {
    fn(RowTaps<T, S>{first_scratch.data() + task * pointers,
                     second_scratch.data() + task * pointers, count_scratch.data() + task * pixels,
                     value_scratch.data() + task * values, taps},
       b, e);
  });
}

// The taps of output row oh's pixels that land inside the input: rt.first(ow) gets the input
// pixels (`image` is the row's image), rt.second(ow) the same taps of `per_tap` (the filter,
// or the filter gradient's sums, [taps, out_depth]), rt.count[ow] how many there are.
template <class T, class S>
void forward_row_taps(const DepthwiseConv2DGeometry& g, const T* image, S* per_tap, std::int64_t oh,
                      const RowTaps<T, S>& rt) {
  const std::int64_t depth = g.in_depth, out_depth = g.out_depth();
  for (std::int64_t ow = 0; ow < g.out_cols; ++ow) {
    const T** in_taps = rt.first(ow);
    S** tap_of = rt.second(ow);
    std::int64_t valid = 0;
    for (std::int64_t kh = 0; kh < g.filter_rows; ++kh) {
      const std::int64_t ih = oh * g.stride_rows - g.pad_top + kh * g.dilation_rows;
      if (ih < 0 || ih >= g.in_rows) continue;
      for (std::int64_t kw = 0; kw < g.filter_cols; ++kw) {
        const std::int64_t iw = ow * g.stride_cols - g.pad_left + kw * g.dilation_cols;
        if (iw < 0 || iw >= g.in_cols) continue;
        in_taps[valid] = image + (ih * g.in_cols + iw) * depth;
        tap_of[valid] = per_tap + (kh * g.filter_cols + kw) * out_depth;
        ++valid;
      }
    }
    rt.count[ow] = valid;
  }
}

#if SYMFLOW_CPU_VECTOR_EXTENSIONS
// 64 bytes of T as the build's own vectors: one with AVX-512, two with AVX, four with
// SSE2 (wider vector types would change the calling convention where the target lacks
// them).
template <class T>
struct Block64 {
  static constexpr std::int64_t kCount = 64 / simd::kVectorBytes;
  simd::vec<T> v[kCount];

  static Block64 load(const T* p) {
    Block64 b;
    for (std::int64_t i = 0; i < kCount; ++i) b.v[i] = simd::load<T>(p + i * simd::kLanes<T>);
    return b;
  }
  void store(T* p) const {
    for (std::int64_t i = 0; i < kCount; ++i) simd::store(p + i * simd::kLanes<T>, v[i]);
  }
  // *this += a * b, lane by lane.
  void add_product(const Block64& a, const Block64& b) {
    for (std::int64_t i = 0; i < kCount; ++i) v[i] += a.v[i] * b.v[i];
  }
};
#endif

// How the fast path stores a block of sums: as they are, or through the batch norm and
// activation of a convolution's epilogue (backend/cpu/epilogue.hpp) while they are still
// in registers, with the coefficients of a block of channels loaded once for a run of
// pixels. Offsets count within the filter's period (see DepthwiseInterior).
template <class T>
struct PlainSums {
#if SYMFLOW_CPU_VECTOR_EXTENSIONS
  struct Held {
    void operator()(T* out, const Block64<T>& sum) const { sum.store(out); }
  };
  Held hold(std::int64_t) const { return {}; }
#endif
  T operator()(T sum, std::int64_t) const { return sum; }
};

template <class T, EpilogueActivation A>
struct NormalizedSums {
  const T* center;  // each [period], repeated as the filter is
  const T* multiplier;
  const T* offset;
#if SYMFLOW_CPU_VECTOR_EXTENSIONS
  struct Held {
    Block64<T> center, multiplier, offset;
    void operator()(T* out, Block64<T> sum) const {
      for (std::int64_t i = 0; i < Block64<T>::kCount; ++i)
        sum.v[i] = normalize<A>(sum.v[i], center.v[i], multiplier.v[i], offset.v[i]);
      sum.store(out);
    }
  };
  Held hold(std::int64_t at) const {
    return {Block64<T>::load(center + at), Block64<T>::load(multiplier + at),
            Block64<T>::load(offset + at)};
  }
#endif
  T operator()(T sum, std::int64_t at) const {
    return normalize<A>(sum, center[at], multiplier[at], offset[at]);
  }
};

// The forward pass's fast path, for one filter per channel (multiplier 1) and no dilation,
// over the output columns [begin, end) whose taps all lie inside the input: no tap lists,
// one 64-byte vector of channels at a time whatever the depth (at depth 8 a pixel alone
// fills half an AVX-512 register, and pixel by pixel the tap lists cost more than the
// multiply-adds). The filter is read through `repeated`: each tap's channels repeated to a
// period of `period` elements, a multiple of kWidth. Every vector of a sweep reads the
// same blocks of the filter, so for a 3x3 filter they are read once per sweep: with depth
// at most kWidth the row is one run of out_cols * depth elements whose vectors all start a
// period; otherwise the sweep goes one block of channels at a time, pixel by pixel.
// Needs the compiler's vector extensions (GCC, Clang); without them the general path runs.
template <class T>
struct DepthwiseInterior {
  static constexpr std::int64_t kWidth = 64 / static_cast<std::int64_t>(sizeof(T));
  const DepthwiseConv2DGeometry& g;
  const T* repeated;  // [taps, period]
  std::int64_t period;

  // Whether the fast path serves g: one filter per channel, no dilation, and with stride 1
  // a depth that divides kWidth or that kWidth divides; with a larger stride, whole vectors
  // of channels.
  static bool serves(const DepthwiseConv2DGeometry& g) {
    if (!simd::kAvailable) return false;
    if (g.multiplier != 1 || g.dilation_rows != 1 || g.dilation_cols != 1) return false;
    const std::int64_t d = g.in_depth;
    if (g.stride_cols == 1) return d > 0 && (kWidth % d == 0 || d % kWidth == 0);
    return d % kWidth == 0;
  }
  static std::int64_t period_of(const DepthwiseConv2DGeometry& g) {
    return std::max(g.in_depth, kWidth);
  }
  // The first and one past the last output column whose taps all lie inside the input.
  std::int64_t first_column() const {
    const std::int64_t s = g.stride_cols;
    return std::min(g.out_cols, std::max<std::int64_t>(0, (g.pad_left + s - 1) / s));
  }
  std::int64_t end_column() const {
    const std::int64_t room = g.in_cols + g.pad_left - g.filter_cols;  // last start allowed
    if (room < 0) return first_column();
    return std::max(first_column(), std::min(g.out_cols, room / g.stride_cols + 1));
  }

  // Columns [begin, end) of output row oh of `image` into out_row, stored through `sums`
  // (PlainSums or NormalizedSums).
  template <class Sums>
  void row(const T* image, std::int64_t oh, std::int64_t begin, std::int64_t end, T* out_row,
           const Sums& sums) const {
    if (begin >= end) return;
    const std::int64_t d = g.in_depth, fc = g.filter_cols;
    // Each tap that lands in the input: where column `begin`'s window starts, per row.
    const T* first[64];
    const T* weights[64];
    std::int64_t taps = 0;
    for (std::int64_t kh = 0; kh < g.filter_rows; ++kh) {
      const std::int64_t ih = oh * g.stride_rows - g.pad_top + kh;
      if (ih < 0 || ih >= g.in_rows) continue;
      for (std::int64_t kw = 0; kw < fc; ++kw) {
        first[taps] = image + (ih * g.in_cols + begin * g.stride_cols - g.pad_left + kw) * d;
        weights[taps] = repeated + (kh * fc + kw) * period;
        ++taps;
      }
    }
    T* out = out_row + begin * d;
    // A 3x3 filter: 9 taps, or 6 on a row at the top or bottom edge.
    if (taps == 9) return sweep<9>(first, weights, taps, end - begin, out, sums);
    if (taps == 6) return sweep<6>(first, weights, taps, end - begin, out, sums);
    sweep<0>(first, weights, taps, end - begin, out, sums);
  }

  // `columns` output pixels from the taps' first inputs; Taps is the number of taps when
  // known at compile time (their weights then read once, into `held`), 0 otherwise.
  template <int Taps, class Sums>
  void sweep(const T* const* first, const T* const* weights, std::int64_t taps,
             std::int64_t columns, T* out, const Sums& sums) const {
    const std::int64_t d = g.in_depth;
    const std::int64_t n = Taps > 0 ? Taps : taps;
#if SYMFLOW_CPU_VECTOR_EXTENSIONS
    using Block = Block64<T>;
    // The filter's blocks at `at`, read once per block of channels when the taps are known
    // (GCC -O2 keeps them on the stack: the taps loop is not unrolled).
    Block held[Taps > 0 ? Taps : 1];
    const auto hold = [&](std::int64_t at) {
      if constexpr (Taps > 0)
        for (int t = 0; t < Taps; ++t) held[t] = Block::load(weights[t] + at);
    };
    // The sum over the taps of the input block at j times the filter's block at `at`.
    const auto sum_at = [&](std::int64_t j, std::int64_t at) {
      Block sum{};
      for (std::int64_t t = 0; t < n; ++t) {
        if constexpr (Taps > 0)
          sum.add_product(Block::load(first[t] + j), held[t]);
        else
          sum.add_product(Block::load(first[t] + j), Block::load(weights[t] + at));
      }
      return sum;
    };
    if (g.stride_cols == 1 && d <= kWidth) {  // period kWidth: every vector starts one
      const std::int64_t elements = columns * d;
      hold(0);
      const auto store = sums.hold(0);
      std::int64_t j = 0;
      for (; j + kWidth <= elements; j += kWidth) store(out + j, sum_at(j, 0));
      for (; j < elements; ++j) {
        const std::int64_t at = j % kWidth;
        T sum{0};
        for (std::int64_t t = 0; t < n; ++t) sum += first[t][j] * weights[t][at];
        out[j] = sums(sum, at);
      }
      return;
    }
    const std::int64_t step = g.stride_cols * d;
    for (std::int64_t c = 0; c < d; c += kWidth) {
      hold(c);
      const auto store = sums.hold(c);
      for (std::int64_t ow = 0; ow < columns; ++ow)
        store(out + ow * d + c, sum_at(ow * step + c, c));
    }
#else
    (void)first, (void)weights, (void)n, (void)columns, (void)out, (void)sums, (void)d;
#endif
  }
};

// The fast path's rows, split over the runner's threads: each row's interior through
// `sums`, then its border pixels, each with its list of taps inside the input, and the
// epilogue on each of them.
template <class T, class Runner, class Sums, class Epilogue>
void depthwise_forward_rows(const Runner& runner, const DepthwiseInterior<T>& interior,
                            const T* input, const T* filter, T* output, const Sums& sums,
                            const Epilogue& epilogue) {
  const DepthwiseConv2DGeometry& g = interior.g;
  const std::int64_t depth = g.in_depth, out_depth = g.out_depth(), taps = g.taps();
  const std::int64_t begin = interior.first_column(), end = interior.end_column();
  const std::int64_t border = begin + (g.out_cols - end);  // pixels with taps outside
  const double row_work = double(g.out_cols) * double(taps) * double(out_depth);
  for_chunks_with_row_taps<T>(
      runner, g.batch * g.out_rows, min_tasks(row_work), border, taps, 0,
      [&](const RowTaps<T>& rt, std::int64_t r0, std::int64_t r1) {
        for (std::int64_t r = r0; r < r1; ++r) {
          const std::int64_t n = r / g.out_rows, oh = r - n * g.out_rows;
          const T* image = input + n * g.in_rows * g.in_cols * depth;
          T* out_row = output + r * g.out_cols * out_depth;
          interior.row(image, oh, begin, end, out_row, sums);
          std::int64_t b = 0;
          for (std::int64_t ow = 0; ow < g.out_cols; ++ow) {
            if (ow == begin) ow = std::max(ow, end);
            if (ow >= g.out_cols) break;
            const T** in_taps = rt.first(b);
            const T** tap_of = rt.second(b);
            std::int64_t valid = 0;
            for (std::int64_t kh = 0; kh < g.filter_rows; ++kh) {
              const std::int64_t ih = oh * g.stride_rows - g.pad_top + kh;
              if (ih < 0 || ih >= g.in_rows) continue;
              for (std::int64_t kw = 0; kw < g.filter_cols; ++kw) {
                const std::int64_t iw = ow * g.stride_cols - g.pad_left + kw;
                if (iw < 0 || iw >= g.in_cols) continue;
                in_taps[valid] = image + (ih * g.in_cols + iw) * depth;
                tap_of[valid] = filter + (kh * g.filter_cols + kw) * out_depth;
                ++valid;
              }
            }
            T* pixel = out_row + ow * out_depth;
            sum_of_tap_products(in_taps, tap_of, valid, out_depth, pixel);
            if constexpr (Epilogue::active) epilogue(pixel, 1, out_depth, 0, out_depth);
            ++b;
          }
        }
      });
}

}  // namespace detail

// output [batch, out_rows, out_cols, in_depth * multiplier] = depthwise_conv(input, filter),
// then an active `epilogue` (backend/cpu/epilogue.hpp): on the fast path on each vector of
// sums still in registers, otherwise on each output row once it is done.
template <class T, class Runner, class Epilogue = NoEpilogue>
void depthwise_conv2d_forward(const Runner& runner, const DepthwiseConv2DGeometry& g,
                              const T* input, const T* filter, T* output,
                              const Epilogue& epilogue = {}) {
  const std::int64_t depth = g.in_depth, out_depth = g.out_depth(), taps = g.taps();
  const std::int64_t rows = g.batch * g.out_rows;
  if (rows == 0 || g.out_cols == 0 || out_depth == 0) return;
  using Interior = detail::DepthwiseInterior<T>;
  if (Interior::serves(g) && taps <= 64) {
    const std::int64_t period = Interior::period_of(g);
    // Each tap's depth weights, repeated to fill the period (a copy per repeat: a
    // division per element cost more than the convolution at batch 1), and after them the
    // epilogue's center, multiplier and offset repeated alike.
    const std::int64_t arrays = taps + (Epilogue::active ? 3 : 0);
    const symflow::detail::PooledArray<T> repeated(static_cast<std::size_t>(arrays * period));
    const auto repeat_to_period = [&](const T* from, T* to) {
      for (std::int64_t i = 0; i < period; i += depth)
        std::copy_n(from, std::min(depth, period - i), to + i);
    };
    for (std::int64_t t = 0; t < taps; ++t)
      repeat_to_period(filter + t * depth, repeated.data() + t * period);
    const Interior interior{g, repeated.data(), period};
    const auto with_sums = [&](const auto& sums) {
      detail::depthwise_forward_rows(runner, interior, input, filter, output, sums, epilogue);
    };
    if constexpr (Epilogue::active) {
      T* coefficients = repeated.data() + taps * period;
      repeat_to_period(epilogue.center, coefficients);
      repeat_to_period(epilogue.multiplier, coefficients + period);
      repeat_to_period(epilogue.offset, coefficients + 2 * period);
      const auto normalized = [&]<EpilogueActivation A>() {
        with_sums(detail::NormalizedSums<T, A>{coefficients, coefficients + period,
                                               coefficients + 2 * period});
      };
      switch (epilogue.activation) {
        case EpilogueActivation::none:
          return normalized.template operator()<EpilogueActivation::none>();
        case EpilogueActivation::relu:
          return normalized.template operator()<EpilogueActivation::relu>();
        case EpilogueActivation::relu6:
          return normalized.template operator()<EpilogueActivation::relu6>();
      }
    } else {
      with_sums(detail::PlainSums<T>{});
    }
    return;
  }
  const bool repeat = g.multiplier != 1;
  const double row_work = double(g.out_cols) * double(taps) * double(out_depth);
  // With a multiplier, each pixel's inputs are repeated into `values` first.
  detail::for_chunks_with_row_taps<T>(
      runner, rows, detail::min_tasks(row_work), g.out_cols, taps, repeat ? taps * out_depth : 0,
      [&](const detail::RowTaps<T>& rt, std::int64_t r0, std::int64_t r1) {
        for (std::int64_t r = r0; r < r1; ++r) {
          const std::int64_t n = r / g.out_rows, oh = r - n * g.out_rows;
          detail::forward_row_taps(g, input + n * g.in_rows * g.in_cols * depth, filter, oh, rt);
          T* out_row = output + r * g.out_cols * out_depth;
          for (std::int64_t ow = 0; ow < g.out_cols; ++ow) {
            const T** in_taps = rt.first(ow);
            if (repeat)
              for (std::int64_t t = 0; t < rt.count[ow]; ++t) {
                T* repeated = rt.values + t * out_depth;
                detail::repeat_channels(in_taps[t], depth, g.multiplier, repeated);
                in_taps[t] = repeated;
              }
            detail::sum_of_tap_products(in_taps, rt.second(ow), rt.count[ow], out_depth,
                                        out_row + ow * out_depth);
          }
          if constexpr (Epilogue::active) epilogue(out_row, g.out_cols, out_depth, 0, out_depth);
        }
      });
}

// input_grad [batch, in_rows, in_cols, in_depth] = d loss / d input, given out_grad = d loss /
// d output (DepthwiseConv2dNativeBackpropInput). Each input pixel gathers the (output pixel,
// tap) pairs that read it, so threads split the input rows and never write the same element.
template <class T, class Runner>
void depthwise_conv2d_backprop_input(const Runner& runner, const DepthwiseConv2DGeometry& g,
                                     const T* filter, const T* out_grad, T* input_grad) {
  const std::int64_t depth = g.in_depth, out_depth = g.out_depth(), taps = g.taps();
  const std::int64_t rows = g.batch * g.in_rows;
  if (rows == 0 || g.in_cols == 0 || depth == 0) return;
  if (out_depth == 0) {  // multiplier 0: nothing reaches the input
    std::fill_n(input_grad, rows * g.in_cols * depth, T(0));
    return;
  }
  const bool fold = g.multiplier != 1;
  const double row_work = double(g.in_cols) * double(taps) * double(out_depth);
  // With a multiplier, each pixel's products go to `values` first, then are summed over each
  // channel's multiplier outputs.
  detail::for_chunks_with_row_taps<T>(
      runner, rows, detail::min_tasks(row_work), g.in_cols, taps, fold ? out_depth : 0,
      [&](const detail::RowTaps<T>& rt, std::int64_t r0, std::int64_t r1) {
        for (std::int64_t r = r0; r < r1; ++r) {
          const std::int64_t n = r / g.in_rows, ih = r - n * g.in_rows;
          const T* grad_image = out_grad + n * g.out_rows * g.out_cols * out_depth;
          for (std::int64_t iw = 0; iw < g.in_cols; ++iw) {
            const T** grad_taps = rt.first(iw);
            const T** filter_taps = rt.second(iw);
            std::int64_t valid = 0;
            for (std::int64_t kh = 0; kh < g.filter_rows; ++kh) {
              const std::int64_t row = ih + g.pad_top - kh * g.dilation_rows;  // oh * stride
              if (row < 0 || row % g.stride_rows != 0 || row / g.stride_rows >= g.out_rows)
                continue;
              const std::int64_t oh = row / g.stride_rows;
              for (std::int64_t kw = 0; kw < g.filter_cols; ++kw) {
                const std::int64_t col = iw + g.pad_left - kw * g.dilation_cols;
                if (col < 0 || col % g.stride_cols != 0 || col / g.stride_cols >= g.out_cols)
                  continue;
                const std::int64_t ow = col / g.stride_cols;
                grad_taps[valid] = grad_image + (oh * g.out_cols + ow) * out_depth;
                filter_taps[valid] = filter + (kh * g.filter_cols + kw) * out_depth;
                ++valid;
              }
            }
            rt.count[iw] = valid;
          }
          T* dx_row = input_grad + r * g.in_cols * depth;
          for (std::int64_t iw = 0; iw < g.in_cols; ++iw) {
            T* dx = dx_row + iw * depth;
            if (!fold) {
              detail::sum_of_tap_products(rt.first(iw), rt.second(iw), rt.count[iw], depth, dx);
              continue;
            }
            detail::sum_of_tap_products(rt.first(iw), rt.second(iw), rt.count[iw], out_depth,
                                        rt.values);
            for (std::int64_t c = 0; c < depth; ++c) {
              T sum = T(0);
              for (std::int64_t m = 0; m < g.multiplier; ++m)
                sum += rt.values[c * g.multiplier + m];
              dx[c] = sum;
            }
          }
        }
      });
}

// filter_grad [filter_rows, filter_cols, in_depth, multiplier] = d loss / d filter
// (DepthwiseConv2dNativeBackpropFilter).
template <class T, class Runner>
void depthwise_conv2d_backprop_filter(const Runner& runner, const DepthwiseConv2DGeometry& g,
                                      const T* input, const T* out_grad, T* filter_grad) {
  const std::int64_t depth = g.in_depth, out_depth = g.out_depth(), taps = g.taps();
  const std::int64_t filter_size = taps * out_depth;
  std::fill_n(filter_grad, filter_size, T(0));
  const std::int64_t rows = g.batch * g.out_rows;
  if (rows == 0 || g.out_cols == 0 || filter_size == 0) return;
  // Output rows are summed in up to 16 groups of consecutive rows, each into its own
  // accumulator, and the groups added in order: fewer groups when the work is small, but the
  // grouping depends on the shapes only, so the sum is the same for any thread count.
  const double row_work = double(g.out_cols) * double(taps) * double(out_depth);
  const auto worth = static_cast<std::int64_t>(double(rows) * row_work / 65536.0);
  const std::int64_t max_groups = std::clamp<std::int64_t>(worth, 1, 16);
  const std::int64_t per_group = (rows + max_groups - 1) / max_groups;
  const std::int64_t groups = (rows + per_group - 1) / per_group;
  const symflow::detail::PooledArray<T> partial(static_cast<std::size_t>(groups * filter_size));
  const bool repeat = g.multiplier != 1;
  // With a multiplier, each pixel's inputs are repeated into `values` first.
  detail::for_chunks_with_row_taps<T, T>(
      runner, groups, detail::min_tasks(double(per_group) * row_work), g.out_cols, taps,
      repeat ? taps * out_depth : 0,
      [&](const detail::RowTaps<T, T>& rt, std::int64_t g0, std::int64_t g1) {
        for (std::int64_t gi = g0; gi < g1; ++gi) {
          T* sum = partial.data() + gi * filter_size;
          std::fill_n(sum, filter_size, T(0));
          for (std::int64_t r = gi * per_group; r < std::min(rows, (gi + 1) * per_group); ++r) {
            const std::int64_t n = r / g.out_rows, oh = r - n * g.out_rows;
            // Each input tap with the sums it adds to.
            detail::forward_row_taps(g, input + n * g.in_rows * g.in_cols * depth, sum, oh, rt);
            const T* dy_row = out_grad + r * g.out_cols * out_depth;
            for (std::int64_t ow = 0; ow < g.out_cols; ++ow) {
              const T** in_taps = rt.first(ow);
              if (repeat)
                for (std::int64_t t = 0; t < rt.count[ow]; ++t) {
                  T* repeated = rt.values + t * out_depth;
                  detail::repeat_channels(in_taps[t], depth, g.multiplier, repeated);
                  in_taps[t] = repeated;
                }
              detail::add_tap_products(rt.second(ow), in_taps, rt.count[ow],
                                       dy_row + ow * out_depth, out_depth);
            }
          }
        }
      });
  detail::ArrayMap<T> total(filter_grad, filter_size);
  for (std::int64_t gi = 0; gi < groups; ++gi)
    total += detail::ConstArrayMap<T>(partial.data() + gi * filter_size, filter_size);
}

// ---- the same on the calling thread alone ------------------------------------------

template <class T>
void depthwise_conv2d_forward(const DepthwiseConv2DGeometry& g, const T* input, const T* filter,
                              T* output) {
  depthwise_conv2d_forward<T>(SerialRunner{}, g, input, filter, output);
}
template <class T>
void depthwise_conv2d_backprop_input(const DepthwiseConv2DGeometry& g, const T* filter,
                                     const T* out_grad, T* input_grad) {
  depthwise_conv2d_backprop_input<T>(SerialRunner{}, g, filter, out_grad, input_grad);
}
template <class T>
void depthwise_conv2d_backprop_filter(const DepthwiseConv2DGeometry& g, const T* input,
                                      const T* out_grad, T* filter_grad) {
  depthwise_conv2d_backprop_filter<T>(SerialRunner{}, g, input, out_grad, filter_grad);
}

}  // namespace symflow::cpu
