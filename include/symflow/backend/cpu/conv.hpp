#pragma once
// 2-D convolution and pooling over NHWC host buffers: the numeric core of Conv2D,
// MaxPool, AvgPool and their gradients. No graph, no Value: plain pointers and a
// geometry struct, so any backend or test can call them.
//
// Convolution is im2col + GEMM: each output pixel's receptive field is copied into a
// row of a patch matrix P [pixels, kh*kw*in_depth], and the filter, read as a
// row-major [kh*kw*in_depth, out_depth] matrix (its HWIO layout already is), turns
// it into output rows: out = P * F. The gradients are the same products transposed:
// dP = dOut * F^T scattered back into the input (col2im), and dF = P^T * dOut.
// Pixels are processed in chunks so the patch buffer stays in cache, and the chunks
// are spread over the session's intra-op threads (a runner's parallel_for: a
// KernelContext, a ThreadPool or SerialRunner) when the work is large enough to pay
// for them. The chunks depend on the shapes only, never on the thread count, so every
// result is the same, bit for bit, for any number of threads (matmul.hpp says why the
// pointwise products, cut at aligned rows, are too).
//
// The forward pass skips the patch matrix when the filter is small enough: the direct
// kernel (register_tile.hpp) reads the padded input rows in place, 1.9x faster than
// im2col + GEMM at 3x3x16 -> 32 with AVX-512 (docs/decisions.md).

#include <Eigen/Core>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "symflow/backend/cpu/matmul.hpp"
#include "symflow/backend/cpu/register_tile.hpp"
#include "symflow/ops/defs/window.hpp"  // Padding, parse_padding, windowed_output

namespace symflow::cpu {

struct Conv2DGeometry {
  std::int64_t batch = 0, in_rows = 0, in_cols = 0, in_depth = 0;
  std::int64_t filter_rows = 0, filter_cols = 0, out_depth = 0;
  std::int64_t out_rows = 0, out_cols = 0;
  std::int64_t stride_rows = 1, stride_cols = 1;
  std::int64_t dilation_rows = 1, dilation_cols = 1;
  std::int64_t pad_top = 0, pad_left = 0;

  std::int64_t patch_size() const { return filter_rows * filter_cols * in_depth; }
  std::int64_t out_pixels() const { return batch * out_rows * out_cols; }
  std::int64_t in_image_size() const { return in_rows * in_cols * in_depth; }
  std::int64_t out_image_size() const { return out_rows * out_cols * out_depth; }
  // A 1x1 filter that reads every input pixel once: the input already is P.
  bool is_pointwise() const {
    return filter_rows == 1 && filter_cols == 1 && stride_rows == 1 && stride_cols == 1 &&
           pad_top == 0 && pad_left == 0 && out_rows == in_rows && out_cols == in_cols;
  }
};

// The geometry of a conv over input [batch, in_rows, in_cols, in_depth] with filter
// [filter_rows, filter_cols, in_depth, out_depth]; out_rows/out_cols < 0 when VALID
// does not fit.
inline Conv2DGeometry conv2d_geometry(const std::int64_t (&input)[4],
                                      const std::int64_t (&filter)[4], std::int64_t stride_rows,
                                      std::int64_t stride_cols, std::int64_t dilation_rows,
                                      std::int64_t dilation_cols, Padding padding) {
  Conv2DGeometry g;
  g.batch = input[0];
  g.in_rows = input[1];
  g.in_cols = input[2];
  g.in_depth = input[3];
  g.filter_rows = filter[0];
  g.filter_cols = filter[1];
  g.out_depth = filter[3];
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

template <class T>
using RowMajor = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <class T>
using ConstMatrixMap = Eigen::Map<const RowMajor<T>>;
template <class T>
using MatrixMap = Eigen::Map<RowMajor<T>>;
template <class T>
using ArrayMap = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;
template <class T>
using ConstArrayMap = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;

}  // namespace detail

namespace detail {

// The fewest of `tasks` tasks of `work_per_task` multiply-adds worth a thread: ~1M
// multiply-adds (a thread's wake-up costs about 10 us).
inline std::int64_t min_tasks(double work_per_task) {
  const double per_thread = 1e6;
  return std::max<std::int64_t>(
      1, static_cast<std::int64_t>(per_thread / std::max(1.0, work_per_task)));
}

// Calls fn(patches, begin, end) over chunks of [0, n) on the runner's threads; each
// task gets `patch_size` elements of scratch of its own. All of it is taken before the
// split, so what a run allocates does not depend on which tasks overlapped in time.
template <class T, class Runner, class Fn>
void for_chunks_with_patches(const Runner& runner, std::int64_t n, std::int64_t min_chunk,
                             std::int64_t patch_size, Fn&& fn) {
  const symflow::detail::PooledArray<T> patches(
      static_cast<std::size_t>(runner.num_chunks(n, min_chunk) * patch_size));
  runner.parallel_for_chunks(n, min_chunk, [&](std::int64_t task, std::int64_t b, std::int64_t e) {
    fn(patches.data() + task * patch_size, b, e);
  });
}

// Output pixels per patch chunk: about 256 KiB of patches, at least 64 rows.
template <class T>
std::int64_t chunk_pixels(const Conv2DGeometry& g) {
  const std::int64_t bytes = 256 * 1024;
  const auto row = static_cast<std::int64_t>(sizeof(T)) * std::max<std::int64_t>(1, g.patch_size());
  return std::max<std::int64_t>(64, bytes / row);
}

// Fills rows [p0, p1) of the patch matrix (global output pixel indices) into `patches`.
template <class T>
void im2col(const Conv2DGeometry& g, const T* input, std::int64_t p0, std::int64_t p1, T* patches) {
  const std::int64_t depth = g.in_depth;
  const std::int64_t row_span = g.filter_cols * depth;  // one filter row's slice of a patch
  const std::int64_t plane = g.out_rows * g.out_cols;
  for (std::int64_t p = p0; p < p1; ++p) {
    const std::int64_t n = p / plane;
    const std::int64_t rem = p - n * plane;
    const std::int64_t oh = rem / g.out_cols;
    const std::int64_t ow = rem - oh * g.out_cols;
    const T* image = input + n * g.in_image_size();
    T* dst = patches + (p - p0) * g.patch_size();
    const std::int64_t iw0 = ow * g.stride_cols - g.pad_left;
    const std::int64_t iw_last = iw0 + (g.filter_cols - 1) * g.dilation_cols;
    const bool cols_inside = iw0 >= 0 && iw_last < g.in_cols;
    for (std::int64_t kh = 0; kh < g.filter_rows; ++kh, dst += row_span) {
      const std::int64_t ih = oh * g.stride_rows - g.pad_top + kh * g.dilation_rows;
      if (ih < 0 || ih >= g.in_rows) {
        std::fill_n(dst, row_span, T(0));
        continue;
      }
      const T* src_row = image + ih * g.in_cols * depth;
      if (cols_inside && g.dilation_cols == 1) {
        std::memcpy(dst, src_row + iw0 * depth, static_cast<std::size_t>(row_span) * sizeof(T));
        continue;
      }
      for (std::int64_t kw = 0; kw < g.filter_cols; ++kw) {
        const std::int64_t iw = iw0 + kw * g.dilation_cols;
        T* d = dst + kw * depth;
        if (iw < 0 || iw >= g.in_cols)
          std::fill_n(d, depth, T(0));
        else
          std::copy_n(src_row + iw * depth, depth, d);
      }
    }
  }
}

// Adds rows [p0, p1) of the patch-gradient matrix back into the input gradient.
template <class T>
void col2im(const Conv2DGeometry& g, const T* patches, std::int64_t p0, std::int64_t p1, T* grad) {
  const std::int64_t depth = g.in_depth;
  const std::int64_t plane = g.out_rows * g.out_cols;
  for (std::int64_t p = p0; p < p1; ++p) {
    const std::int64_t n = p / plane;
    const std::int64_t rem = p - n * plane;
    const std::int64_t oh = rem / g.out_cols;
    const std::int64_t ow = rem - oh * g.out_cols;
    T* image = grad + n * g.in_image_size();
    const T* src = patches + (p - p0) * g.patch_size();
    const std::int64_t iw0 = ow * g.stride_cols - g.pad_left;
    const std::int64_t iw_last = iw0 + (g.filter_cols - 1) * g.dilation_cols;
    const bool contiguous = iw0 >= 0 && iw_last < g.in_cols && g.dilation_cols == 1;
    const std::int64_t row_span = g.filter_cols * depth;
    for (std::int64_t kh = 0; kh < g.filter_rows; ++kh) {
      const std::int64_t ih = oh * g.stride_rows - g.pad_top + kh * g.dilation_rows;
      if (ih < 0 || ih >= g.in_rows) continue;
      T* dst_row = image + ih * g.in_cols * depth;
      const T* s = src + kh * row_span;
      // (Eigen adds: GCC's -O2 does not vectorize loops of unknown length.)
      if (contiguous) {
        ArrayMap<T>(dst_row + iw0 * depth, row_span) += ConstArrayMap<T>(s, row_span);
        continue;
      }
      for (std::int64_t kw = 0; kw < g.filter_cols; ++kw) {
        const std::int64_t iw = iw0 + kw * g.dilation_cols;
        if (iw < 0 || iw >= g.in_cols) continue;
        ArrayMap<T>(dst_row + iw * depth, depth) += ConstArrayMap<T>(s + kw * depth, depth);
      }
    }
  }
}

// Whether conv2d_forward takes the direct kernel: not for a pointwise filter (one GEMM
// already), nor for a filter whose channel block (patch_size x kBlock) would not stay
// in L2 beside the input rows; there im2col + GEMM's cache blocking wins.
template <class T>
bool use_direct_conv(const Conv2DGeometry& g) {
  if (!tiles::kAvailable || g.is_pointwise()) return false;
  const std::int64_t block_bytes =
      g.patch_size() * tiles::kBlock<T> * static_cast<std::int64_t>(sizeof(T));
  return block_bytes <= 256 * 1024;
}

// conv2d_forward by register tiles of output pixels x channels. Output rows are split over the
// runner's threads; each task copies the filter_rows input rows an output row reads, zero-padded,
// into a window of its own, and sweeps it with register tiles.
template <class T, class Runner, class Epilogue>
void conv2d_forward_direct(const Runner& runner, const Conv2DGeometry& g, const T* input,
                           const T* filter, T* output, const Epilogue& epilogue) {
#if defined(__GNUC__) || defined(__clang__)
  namespace tl = tiles;
  // As narrow a tile as the output channels allow.
  tl::with_tile_width<T>(g.out_depth, [&]<std::int64_t Bytes, int Vectors>() {
    const std::int64_t block = tl::kBlock<T, Bytes, Vectors>;
    const std::int64_t channel_blocks = (g.out_depth + block - 1) / block;
    const std::int64_t filter_stride = channel_blocks * block;
    const std::int64_t k = g.patch_size();
    // The filter as [k, filter_stride]: whole channel blocks, zeros after out_depth.
    const symflow::detail::PooledArray<T> packed(static_cast<std::size_t>(k * filter_stride));
    for (std::int64_t r = 0; r < k; ++r) {
      T* dst = packed.data() + r * filter_stride;
      std::copy_n(filter + r * g.out_depth, g.out_depth, dst);
      std::fill(dst + g.out_depth, dst + filter_stride, T(0));
    }
    // A window row holds every column the tiles read, with the zero padding in place.
    const std::int64_t row_tiles = (g.out_cols + tl::kRows - 1) / tl::kRows;
    const std::int64_t padded_cols =
        (g.out_cols - 1) * g.stride_cols + (g.filter_cols - 1) * g.dilation_cols + 1;
    const std::int64_t row_len = padded_cols * g.in_depth;
    const std::int64_t first_in = std::clamp<std::int64_t>(g.pad_left, 0, padded_cols);
    const std::int64_t last_in = std::clamp<std::int64_t>(g.pad_left + g.in_cols, 0, padded_cols);
    const std::int64_t taps = g.filter_rows * g.filter_cols;
    const symflow::detail::PooledArray<std::int64_t> tap_offset(static_cast<std::size_t>(taps));
    for (std::int64_t kh = 0; kh < g.filter_rows; ++kh)
      for (std::int64_t kw = 0; kw < g.filter_cols; ++kw)
        tap_offset.data()[kh * g.filter_cols + kw] =
            kh * row_len + kw * g.dilation_cols * g.in_depth;
    const std::int64_t rows = g.batch * g.out_rows;
    const double row_work = double(g.out_cols) * double(k) * double(g.out_depth);
    for_chunks_with_patches<T>(
        runner, rows, min_tasks(row_work), g.filter_rows * row_len,
        [&](T* window, std::int64_t r0, std::int64_t r1) {
          for (std::int64_t r = r0; r < r1; ++r) {
            const std::int64_t n = r / g.out_rows, oh = r - n * g.out_rows;
            const T* image = input + n * g.in_image_size();
            for (std::int64_t kh = 0; kh < g.filter_rows; ++kh) {
              T* dst = window + kh * row_len;
              const std::int64_t ih = oh * g.stride_rows - g.pad_top + kh * g.dilation_rows;
              if (ih < 0 || ih >= g.in_rows || last_in <= first_in) {
                std::fill_n(dst, row_len, T(0));
                continue;
              }
              std::fill_n(dst, first_in * g.in_depth, T(0));
              std::copy_n(image + (ih * g.in_cols + first_in - g.pad_left) * g.in_depth,
                          (last_in - first_in) * g.in_depth, dst + first_in * g.in_depth);
              std::fill(dst + last_in * g.in_depth, dst + row_len, T(0));
            }
            T* out_row = output + r * g.out_cols * g.out_depth;
            for (std::int64_t cb = 0; cb < channel_blocks; ++cb) {
              for (std::int64_t i = 0; i < row_tiles; ++i) {
                const std::int64_t ow0 = i * tl::kRows;
                const tl::TileArgs<T> args{window + ow0 * g.stride_cols * g.in_depth,
                                           tap_offset.data(),
                                           taps,
                                           g.in_depth,
                                           g.stride_cols * g.in_depth,
                                           1,
                                           packed.data() + cb * block,
                                           filter_stride};
                // A tile sums every tap: its registers take the epilogue before the store.
                const ChannelEpilogue<T>* whole = nullptr;
                if constexpr (Epilogue::active) whole = &epilogue;
                tl::tile_of<T, tl::kRows, Bytes, Vectors>(
                    static_cast<int>(std::min<std::int64_t>(tl::kRows, g.out_cols - ow0)), args,
                    out_row + ow0 * g.out_depth + cb * block, g.out_depth,
                    std::min(block, g.out_depth - cb * block), false, whole, cb * block);
              }
            }
          }
        });
  });
#else
  (void)runner, (void)g, (void)input, (void)filter, (void)output, (void)epilogue;
#endif
}

}  // namespace detail

// output [batch, out_rows, out_cols, out_depth] = conv(input, filter), then an active
// `epilogue` (backend/cpu/epilogue.hpp) on each block of output as soon as it is done.
template <class T, class Runner, class Epilogue = NoEpilogue>
void conv2d_forward(const Runner& runner, const Conv2DGeometry& g, const T* input, const T* filter,
                    T* output, const Epilogue& epilogue = {}) {
  const std::int64_t pixels = g.out_pixels();
  const std::int64_t k = g.patch_size();
  if (pixels == 0 || g.out_depth == 0) return;
  detail::ConstMatrixMap<T> f(filter, k, g.out_depth);
  if (k == 0) {
    std::fill_n(output, pixels * g.out_depth, T(0));
    if constexpr (Epilogue::active) epilogue(output, pixels, g.out_depth, 0, g.out_depth);
    return;
  }
  if (g.is_pointwise()) {
    gemm<T>(runner, input, filter, pixels, k, g.out_depth, false, false, output, epilogue);
    return;
  }
  if (detail::use_direct_conv<T>(g)) {
    detail::conv2d_forward_direct<T>(runner, g, input, filter, output, epilogue);
    return;
  }
  const std::int64_t chunk = detail::chunk_pixels<T>(g);
  const std::int64_t chunks = (pixels + chunk - 1) / chunk;
  const double chunk_work = double(chunk) * double(k) * double(g.out_depth);
  detail::for_chunks_with_patches<T>(
      runner, chunks, detail::min_tasks(chunk_work), chunk * k,
      [&](T* patches, std::int64_t c0, std::int64_t c1) {
        for (std::int64_t c = c0; c < c1; ++c) {
          const std::int64_t p0 = c * chunk, p1 = std::min(pixels, p0 + chunk);
          detail::im2col(g, input, p0, p1, patches);
          detail::MatrixMap<T>(output + p0 * g.out_depth, p1 - p0, g.out_depth).noalias() =
              detail::ConstMatrixMap<T>(patches, p1 - p0, k) * f;
          if constexpr (Epilogue::active)
            epilogue(output + p0 * g.out_depth, p1 - p0, g.out_depth, 0, g.out_depth);
        }
      });
}

// input_grad [batch, in_rows, in_cols, in_depth] = d loss / d input, given
// out_grad = d loss / d output (Conv2DBackpropInput).
template <class T, class Runner>
void conv2d_backprop_input(const Runner& runner, const Conv2DGeometry& g, const T* filter,
                           const T* out_grad, T* input_grad) {
  std::fill_n(input_grad, g.batch * g.in_image_size(), T(0));
  const std::int64_t pixels = g.out_pixels();
  const std::int64_t k = g.patch_size();
  if (pixels == 0 || k == 0) return;
  detail::ConstMatrixMap<T> f(filter, k, g.out_depth);
  if (g.is_pointwise()) {
    if (g.out_depth == 0) return;
    gemm<T>(runner, out_grad, filter, pixels, g.out_depth, k, false, true, input_grad);
    return;
  }
  // Tasks are groups of whole images (as many as fill a patch chunk, or one image cut
  // into chunks), so their col2im writes never overlap; the chunks start at each
  // group's start, whatever the thread count.
  const std::int64_t plane = g.out_rows * g.out_cols;
  const std::int64_t cp = detail::chunk_pixels<T>(g);
  const std::int64_t group = std::max<std::int64_t>(1, cp / plane);
  const std::int64_t step = plane >= cp ? cp : group * plane;
  const std::int64_t groups = (g.batch + group - 1) / group;
  const double group_work = double(group * plane) * double(k) * double(g.out_depth);
  detail::for_chunks_with_patches<T>(
      runner, groups, detail::min_tasks(group_work), step * k,
      [&](T* patches, std::int64_t g0, std::int64_t g1) {
        for (std::int64_t gi = g0; gi < g1; ++gi) {
          const std::int64_t end = std::min(g.batch, (gi + 1) * group) * plane;
          for (std::int64_t p0 = gi * group * plane; p0 < end; p0 += step) {
            const std::int64_t p1 = std::min(end, p0 + step);
            detail::MatrixMap<T>(patches, p1 - p0, k).noalias() =
                detail::ConstMatrixMap<T>(out_grad + p0 * g.out_depth, p1 - p0, g.out_depth) *
                f.transpose();
            detail::col2im(g, patches, p0, p1, input_grad);
          }
        }
      });
}

// filter_grad [filter_rows, filter_cols, in_depth, out_depth] = d loss / d filter
// (Conv2DBackpropFilter).
template <class T, class Runner>
void conv2d_backprop_filter(const Runner& runner, const Conv2DGeometry& g, const T* input,
                            const T* out_grad, T* filter_grad) {
  const std::int64_t pixels = g.out_pixels();
  const std::int64_t k = g.patch_size();
  detail::MatrixMap<T> df(filter_grad, k, g.out_depth);
  df.setZero();
  if (pixels == 0 || k == 0 || g.out_depth == 0) return;
  // Sums go into column-major accumulators: Eigen's kernel runs P^T * dOut (a long
  // inner dimension, a small result) about three times faster that way round.
  using ColMajor = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor>;
  const bool pointwise = g.is_pointwise();
  const std::int64_t chunk = pointwise ? std::int64_t{4096} : detail::chunk_pixels<T>(g);
  const std::int64_t chunks = (pixels + chunk - 1) / chunk;
  // Chunks are summed in up to 16 groups of consecutive chunks, each into its own
  // accumulator, and the groups added in order: the grouping depends on the shapes
  // only, so the sum is the same for any thread count. (Fewer groups when the filter
  // is large: each costs a filter-sized accumulator.)
  const std::int64_t filter_size = k * g.out_depth;
  const std::int64_t max_groups = std::clamp<std::int64_t>(
      (std::int64_t{1} << 22) / std::max<std::int64_t>(1, filter_size), 4, 16);
  const std::int64_t per_group = (chunks + max_groups - 1) / max_groups;
  const std::int64_t groups = (chunks + per_group - 1) / per_group;
  // The groups' accumulators, one filter-sized column-major block each.
  const symflow::detail::PooledArray<T> partial(static_cast<std::size_t>(groups * filter_size));
  auto group_sum = [&](std::int64_t gi) {
    return Eigen::Map<ColMajor>(partial.data() + gi * filter_size, k, g.out_depth);
  };
  const double group_work = double(per_group * chunk) * double(k) * double(g.out_depth);
  detail::for_chunks_with_patches<T>(
      runner, groups, detail::min_tasks(group_work), pointwise ? 0 : chunk * k,
      [&](T* patches, std::int64_t g0, std::int64_t g1) {
        for (std::int64_t gi = g0; gi < g1; ++gi) {
          auto sum = group_sum(gi);
          sum.setZero();
          for (std::int64_t c = gi * per_group; c < std::min(chunks, (gi + 1) * per_group); ++c) {
            const std::int64_t p0 = c * chunk, p1 = std::min(pixels, p0 + chunk);
            const T* rows = input + p0 * k;
            if (!pointwise) {
              detail::im2col(g, input, p0, p1, patches);
              rows = patches;
            }
            sum.noalias() +=
                detail::ConstMatrixMap<T>(rows, p1 - p0, k).transpose() *
                detail::ConstMatrixMap<T>(out_grad + p0 * g.out_depth, p1 - p0, g.out_depth);
          }
        }
      });
  for (std::int64_t gi = 0; gi < groups; ++gi) df += group_sum(gi);
}

// ---- pooling ------------------------------------------------------------------

struct Pool2DGeometry {
  std::int64_t batch = 0, in_rows = 0, in_cols = 0, depth = 0;
  std::int64_t window_rows = 1, window_cols = 1;
  std::int64_t stride_rows = 1, stride_cols = 1;
  std::int64_t out_rows = 0, out_cols = 0;
  std::int64_t pad_top = 0, pad_left = 0;
};

inline Pool2DGeometry pool2d_geometry(const std::int64_t (&input)[4], std::int64_t window_rows,
                                      std::int64_t window_cols, std::int64_t stride_rows,
                                      std::int64_t stride_cols, Padding padding) {
  Pool2DGeometry g;
  g.batch = input[0];
  g.in_rows = input[1];
  g.in_cols = input[2];
  g.depth = input[3];
  g.window_rows = window_rows;
  g.window_cols = window_cols;
  g.stride_rows = stride_rows;
  g.stride_cols = stride_cols;
  const WindowedDim r = windowed_output(g.in_rows, window_rows, stride_rows, 1, padding);
  const WindowedDim c = windowed_output(g.in_cols, window_cols, stride_cols, 1, padding);
  g.out_rows = r.size;
  g.out_cols = c.size;
  g.pad_top = r.pad_before;
  g.pad_left = c.pad_before;
  return g;
}

namespace detail {

// The part of output pixel (oh, ow)'s window that lies inside the input: rows
// [h0, h1) and cols [w0, w1). Padding never counts, for max or average.
struct PoolWindow {
  std::int64_t h0, h1, w0, w1;
  std::int64_t count() const { return (h1 - h0) * (w1 - w0); }
};
inline PoolWindow pool_window(const Pool2DGeometry& g, std::int64_t oh, std::int64_t ow) {
  const std::int64_t hs = oh * g.stride_rows - g.pad_top;
  const std::int64_t ws = ow * g.stride_cols - g.pad_left;
  return {std::max<std::int64_t>(hs, 0), std::min(hs + g.window_rows, g.in_rows),
          std::max<std::int64_t>(ws, 0), std::min(ws + g.window_cols, g.in_cols)};
}

// The fewest images worth a thread in a pooling kernel (~64K window reads).
inline std::int64_t min_pool_images(const Pool2DGeometry& g) {
  const double per_image = double(g.out_rows) * double(g.out_cols) * double(g.window_rows) *
                           double(g.window_cols) * double(g.depth);
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(65536.0 / std::max(1.0, per_image)));
}

// Calls fn(in_image, out_pixel_index, window) for each output pixel; images are split
// over the runner's threads (each output is written by one thread, in a fixed order).
template <class Runner, class F>
void for_each_pool_window(const Runner& runner, const Pool2DGeometry& g, F&& fn) {
  runner.parallel_for(g.batch, min_pool_images(g), [&](std::int64_t n0, std::int64_t n1) {
    for (std::int64_t n = n0; n < n1; ++n)
      for (std::int64_t oh = 0; oh < g.out_rows; ++oh)
        for (std::int64_t ow = 0; ow < g.out_cols; ++ow)
          fn(n, (n * g.out_rows + oh) * g.out_cols + ow, pool_window(g, oh, ow));
  });
}

}  // namespace detail

// output [batch, out_rows, out_cols, depth]: each window's maximum.
template <class T, class Runner>
void max_pool_forward(const Runner& runner, const Pool2DGeometry& g, const T* input, T* output) {
  const std::int64_t depth = g.depth;
  detail::for_each_pool_window(runner, g,
                               [&](std::int64_t n, std::int64_t o, detail::PoolWindow w) {
                                 T* out = output + o * depth;
                                 std::fill_n(out, depth, std::numeric_limits<T>::lowest());
                                 const T* image = input + n * g.in_rows * g.in_cols * depth;
                                 for (std::int64_t h = w.h0; h < w.h1; ++h)
                                   for (std::int64_t x = w.w0; x < w.w1; ++x) {
                                     const T* in = image + (h * g.in_cols + x) * depth;
                                     for (std::int64_t c = 0; c < depth; ++c)
                                       out[c] = in[c] > out[c] ? in[c] : out[c];
                                   }
                               });
}

namespace detail {

// max_pool_backward over images [n0, n1).
template <class T>
void max_pool_backward_images(const Pool2DGeometry& g, const T* input, const T* out_grad,
                              T* input_grad, std::int64_t n0, std::int64_t n1) {
  using Array = Eigen::Array<T, Eigen::Dynamic, 1>;
  const std::int64_t depth = g.depth;
  const std::int64_t image_size = g.in_rows * g.in_cols * depth;
  Array best(depth);
  for (std::int64_t n = n0; n < n1; ++n) {
    const T* image = input + n * image_size;
    T* grad = input_grad + n * image_size;
    for (std::int64_t oh = 0; oh < g.out_rows; ++oh)
      for (std::int64_t ow = 0; ow < g.out_cols; ++ow) {
        const PoolWindow w = pool_window(g, oh, ow);
        if (w.count() <= 0) continue;
        // The maximum of each channel, vectorized (Eigen: GCC's -O2 does not vectorize
        // loops of unknown length), then per channel the first pixel that holds it.
        best.setConstant(std::numeric_limits<T>::lowest());
        for (std::int64_t h = w.h0; h < w.h1; ++h)
          for (std::int64_t x = w.w0; x < w.w1; ++x)
            best = best.max(Eigen::Map<const Array>(image + (h * g.in_cols + x) * depth, depth));
        const T* dy = out_grad + ((n * g.out_rows + oh) * g.out_cols + ow) * depth;
        const std::int64_t first = (w.h0 * g.in_cols + w.w0) * depth;
        // Scanning backwards with conditional moves (no unpredictable branches) leaves
        // the first match; an all-NaN window sends its gradient to the first pixel.
        for (std::int64_t c = 0; c < depth; ++c) {
          const T m = best[c];
          std::int64_t at = first;
          for (std::int64_t h = w.h1 - 1; h >= w.h0; --h)
            for (std::int64_t x = w.w1 - 1; x >= w.w0; --x) {
              const std::int64_t i = (h * g.in_cols + x) * depth;
              at = image[i + c] == m ? i : at;
            }
          grad[at + c] += dy[c];
        }
      }
  }
}

}  // namespace detail

// input_grad [batch, in_rows, in_cols, depth]: each output's gradient goes to the first
// (row-major) maximum of its window, as TensorFlow's CPU MaxPoolGrad routes it.
template <class T, class Runner>
void max_pool_backward(const Runner& runner, const Pool2DGeometry& g, const T* input,
                       const T* out_grad, T* input_grad) {
  const std::int64_t image_size = g.in_rows * g.in_cols * g.depth;
  std::fill_n(input_grad, g.batch * image_size, T(0));
  // Threads take whole images: their writes never overlap.
  runner.parallel_for(g.batch, detail::min_pool_images(g), [&](std::int64_t n0, std::int64_t n1) {
    detail::max_pool_backward_images<T>(g, input, out_grad, input_grad, n0, n1);
  });
}

// output [batch, out_rows, out_cols, depth]: each window's mean over its inputs
// (padding excluded from the count, as TensorFlow does).
template <class T, class Runner>
void avg_pool_forward(const Runner& runner, const Pool2DGeometry& g, const T* input, T* output) {
  const std::int64_t depth = g.depth;
  detail::for_each_pool_window(runner, g,
                               [&](std::int64_t n, std::int64_t o, detail::PoolWindow w) {
                                 T* out = output + o * depth;
                                 std::fill_n(out, depth, T(0));
                                 const T* image = input + n * g.in_rows * g.in_cols * depth;
                                 for (std::int64_t h = w.h0; h < w.h1; ++h)
                                   for (std::int64_t x = w.w0; x < w.w1; ++x) {
                                     const T* in = image + (h * g.in_cols + x) * depth;
                                     for (std::int64_t c = 0; c < depth; ++c) out[c] += in[c];
                                   }
                                 const std::int64_t count = w.count();
                                 if (count > 0)
                                   for (std::int64_t c = 0; c < depth; ++c)
                                     out[c] /= static_cast<T>(count);
                               });
}

// input_grad: each output's gradient spread evenly over its window's inputs.
template <class T, class Runner>
void avg_pool_backward(const Runner& runner, const Pool2DGeometry& g, const T* out_grad,
                       T* input_grad) {
  const std::int64_t depth = g.depth;
  const std::int64_t image_size = g.in_rows * g.in_cols * depth;
  std::fill_n(input_grad, g.batch * image_size, T(0));
  detail::for_each_pool_window(runner, g,
                               [&](std::int64_t n, std::int64_t o, detail::PoolWindow w) {
                                 const std::int64_t count = w.count();
                                 if (count <= 0) return;
                                 const T scale = T(1) / static_cast<T>(count);
                                 const T* dy = out_grad + o * depth;
                                 T* image = input_grad + n * image_size;
                                 for (std::int64_t h = w.h0; h < w.h1; ++h)
                                   for (std::int64_t x = w.w0; x < w.w1; ++x) {
                                     T* in = image + (h * g.in_cols + x) * depth;
                                     for (std::int64_t c = 0; c < depth; ++c)
                                       in[c] += dy[c] * scale;
                                   }
                               });
}

// ---- the same on the calling thread alone ------------------------------------------

template <class T>
void conv2d_forward(const Conv2DGeometry& g, const T* input, const T* filter, T* output) {
  conv2d_forward<T>(SerialRunner{}, g, input, filter, output);
}
template <class T>
void conv2d_backprop_input(const Conv2DGeometry& g, const T* filter, const T* out_grad,
                           T* input_grad) {
  conv2d_backprop_input<T>(SerialRunner{}, g, filter, out_grad, input_grad);
}
template <class T>
void conv2d_backprop_filter(const Conv2DGeometry& g, const T* input, const T* out_grad,
                            T* filter_grad) {
  conv2d_backprop_filter<T>(SerialRunner{}, g, input, out_grad, filter_grad);
}
template <class T>
void max_pool_forward(const Pool2DGeometry& g, const T* input, T* output) {
  max_pool_forward<T>(SerialRunner{}, g, input, output);
}
template <class T>
void max_pool_backward(const Pool2DGeometry& g, const T* input, const T* out_grad, T* input_grad) {
  max_pool_backward<T>(SerialRunner{}, g, input, out_grad, input_grad);
}
template <class T>
void avg_pool_forward(const Pool2DGeometry& g, const T* input, T* output) {
  avg_pool_forward<T>(SerialRunner{}, g, input, output);
}
template <class T>
void avg_pool_backward(const Pool2DGeometry& g, const T* out_grad, T* input_grad) {
  avg_pool_backward<T>(SerialRunner{}, g, out_grad, input_grad);
}

}  // namespace symflow::cpu
