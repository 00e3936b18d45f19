#pragma once
// Reductions over a set of axes, in one pass over the input, spread over the session's
// intra-op threads when the input is large.
//
// Two ways to split, neither of which depends on the thread count:
// - over a kept axis: each thread owns a range of outputs and combines into them the
//   same inputs in the same order as one thread would, so the result is bit-identical;
// - a full reduction (or one keeping only 2 or 3 outputs) of a large input is cut into
//   fixed blocks of about kReduceBlock inputs (the cut depends on the shape only),
//   each block reduced on its own, then the blocks combined in order. A float sum of
//   such an input therefore differs in its last bits from a plain left-to-right sum
//   (it is more accurate), but is the same for any thread count.

#include <algorithm>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include <Eigen/Core>

#include "symflow/backend/cpu/matmul.hpp"  // SerialRunner
#include "symflow/backend/kernel_context.hpp"
#include "symflow/core/value.hpp"
#include "symflow/ops/defs/shape_fn.hpp"  // reduced_dims

namespace symflow::cpu {

// Inputs per block of a blocked reduction, and the fewest inputs worth a thread.
inline constexpr std::int64_t kReduceBlock = std::int64_t{1} << 15;
inline constexpr std::int64_t kReduceMinChunk = std::int64_t{1} << 15;

namespace detail::reduce {

// A reduction after merging neighbouring axes that are both reduced or both kept, and
// dropping axes of size 1 (neither changes the order in which inputs are combined).
struct Plan {
  Dims dims, istride, ostride;  // ostride 0 on reduced axes
  AxisMask reduced;
};

inline Plan make_plan(const Dims& d, const AxisMask& reduced) {
  Plan p;
  for (std::size_t a = 0; a < d.size(); ++a) {
    if (d[a] == 1) continue;
    if (!p.dims.empty() && p.reduced.back() == reduced[a]) {
      p.dims.back() *= d[a];
    } else {
      p.dims.push_back(d[a]);
      p.reduced.push_back(reduced[a]);
    }
  }
  const std::size_t rank = p.dims.size();
  p.istride.assign(rank, 0);
  p.ostride.assign(rank, 0);
  std::int64_t is = 1, os = 1;
  for (std::size_t a = rank; a-- > 0;) {
    p.istride[a] = is;
    is *= p.dims[a];
    if (!p.reduced[a]) {
      p.ostride[a] = os;
      os *= p.dims[a];
    }
  }
  return p;
}

// acc[out(i)] = combine(acc[out(i)], x[i]) over the inputs i whose index on `axis` is in
// [i0, i1), in row-major order.
template <class T, class Combine>
void reduce_box(const Plan& p, const T* x, std::size_t axis, std::int64_t i0, std::int64_t i1,
                T* acc, Combine& combine) {
  const std::size_t rank = p.dims.size();
  if (rank == 0) {
    acc[0] = combine(acc[0], x[0]);
    return;
  }
  Dims lo(rank, 0), hi(p.dims.begin(), p.dims.end());
  lo[axis] = i0;
  hi[axis] = i1;
  if (i1 <= i0) return;
  Dims index = lo;
  const T* xp = x + i0 * p.istride[axis];
  T* op = acc + i0 * p.ostride[axis];
  const std::size_t last = rank - 1;
  const std::int64_t inner = hi[last] - lo[last];
  const std::int64_t os = p.ostride[last];
  for (;;) {
    if (os == 0) {
      T r = *op;
      for (std::int64_t i = 0; i < inner; ++i) r = combine(r, xp[i]);
      *op = r;
    } else if constexpr (requires { Combine::plain_sum; } && std::is_floating_point_v<T>) {
      // Row into row: each output still adds its inputs in order, so SIMD changes no bit.
      using Row = Eigen::Array<T, Eigen::Dynamic, 1>;
      Eigen::Map<Row>(op, inner) += Eigen::Map<const Row>(xp, inner);
    } else {
      for (std::int64_t i = 0; i < inner; ++i) op[i] = combine(op[i], xp[i]);
    }
    std::size_t a = last;
    for (;;) {
      if (a == 0) return;
      --a;
      xp += p.istride[a];
      op += p.ostride[a];
      if (++index[a] < hi[a]) break;
      xp -= p.istride[a] * (hi[a] - lo[a]);
      op -= p.ostride[a] * (hi[a] - lo[a]);
      index[a] = lo[a];
    }
  }
}

}  // namespace detail::reduce

// out[j] = combine(out[j], in[i]) for every i mapping to j, starting from `init`.
// `reduced[a]` marks the reduced axes; the output keeps them as size 1 when
// keep_dims, else drops them. Large inputs are split over `runner`'s threads (see the
// top of this file).
template <class T, class Runner, class Combine>
Value reduce(const Runner& runner, const Value& in, const AxisMask& reduced, bool keep_dims, T init,
             Combine combine) {
  const Dims& d = in.dims();
  Value out(dtype_v<T>, symflow::detail::reduced_dims(d, reduced, keep_dims));
  T* acc = out.data<T>();
  const std::int64_t outputs = out.size();
  std::fill_n(acc, outputs, init);
  const T* x = in.data<T>();
  const std::int64_t n = in.size();
  if (n == 0) return out;
  const detail::reduce::Plan p = detail::reduce::make_plan(d, reduced);
  const std::size_t prank = p.dims.size();
  if (n < 2 * kReduceMinChunk || prank == 0) {
    detail::reduce::reduce_box(p, x, 0, 0, prank ? p.dims[0] : 1, acc, combine);
    return out;
  }
  // The widest kept axis.
  std::size_t kept = prank;
  for (std::size_t a = 0; a < prank; ++a)
    if (!p.reduced[a] && (kept == prank || p.dims[a] > p.dims[kept])) kept = a;
  const bool blocked = p.reduced[0] && (kept == prank || p.dims[kept] < 4);
  if (!blocked) {
    if (kept == prank) {  // (prank > 0 and axis 0 kept: never)
      detail::reduce::reduce_box(p, x, 0, 0, p.dims[0], acc, combine);
      return out;
    }
    const std::int64_t per_index = n / p.dims[kept];
    runner.parallel_for(p.dims[kept], std::max<std::int64_t>(1, kReduceMinChunk / per_index),
                        [&](std::int64_t b, std::int64_t e) {
                          Combine c = combine;
                          detail::reduce::reduce_box(p, x, kept, b, e, acc, c);
                        });
    return out;
  }
  // Blocks of axis 0 (reduced), each into its own partial outputs, combined in order.
  const std::int64_t per_index = n / p.dims[0];
  const std::int64_t block_len = std::max<std::int64_t>(1, kReduceBlock / per_index);
  const std::int64_t blocks = (p.dims[0] + block_len - 1) / block_len;
  // (not a std::vector: T may be bool)
  const std::unique_ptr<T[]> partial(new T[static_cast<std::size_t>(blocks * outputs)]);
  std::fill_n(partial.get(), blocks * outputs, init);
  runner.parallel_for(blocks, std::max<std::int64_t>(1, kReduceMinChunk / (block_len * per_index)),
                      [&](std::int64_t b0, std::int64_t b1) {
                        Combine c = combine;
                        for (std::int64_t b = b0; b < b1; ++b)
                          detail::reduce::reduce_box(p, x, 0, b * block_len,
                                                     std::min(p.dims[0], (b + 1) * block_len),
                                                     partial.get() + b * outputs, c);
                      });
  for (std::int64_t b = 0; b < blocks; ++b)
    for (std::int64_t o = 0; o < outputs; ++o) acc[o] = combine(acc[o], partial[b * outputs + o]);
  return out;
}

// The same on the calling thread alone.
template <class T, class Combine>
Value reduce(const Value& in, const AxisMask& reduced, bool keep_dims, T init, Combine combine) {
  return reduce<T>(SerialRunner{}, in, reduced, keep_dims, init, combine);
}

}  // namespace symflow::cpu
