#pragma once
// The pieces of the CPU's fused kernel (fused_kernel.hpp runs the clusters): the loop
// of each elementwise op over one block of elements (its ElementwiseDef), and how an
// input that broadcasts is read block by block.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <type_traits>

#include "symflow/backend/cpu/eigen_unary.hpp"
#include "symflow/backend/fused_program.hpp"
#include "symflow/core/value.hpp"

namespace symflow {

namespace cpu {

// Elements per block: 256 bytes of float32 scratch per buffer (512 of float64). Small
// blocks keep the loads of the inputs, which miss the caches, close to the arithmetic
// of the steps, which hits L1, so that out-of-order execution overlaps the two; with
// 2 KiB blocks a 16M-float chain ran 1.6x slower (docs/performance.md).
inline constexpr std::int64_t kFusedBlock = 128;
// The fewest blocks an intra-op thread takes (64K elements): below that, a second
// thread costs more than it saves on memory-bound loops.
inline constexpr std::int64_t kFusedMinBlocksPerTask = 512;

// The compiler vectorises the loop whose trip count is the constant block size
// (GCC's -O2 cost model only vectorises loops that need no scalar epilogue); the
// last, partial block takes the plain loop. __restrict: outputs never alias inputs.
#define SYMFLOW_FUSED_BLOCK_LOOP_BODY                                \
  const Fn f{};                                                      \
  const std::int64_t count = N > 0 ? N : n;                          \
  if constexpr (requires { f(T{}, T{}); }) {                         \
    const T* __restrict x = in[0];                                   \
    const T* __restrict y = in[1];                                   \
    for (std::int64_t k = 0; k < count; ++k) out[k] = f(x[k], y[k]); \
  } else {                                                           \
    const T* __restrict x = in[0];                                   \
    for (std::int64_t k = 0; k < count; ++k) out[k] = f(x[k]);       \
  }

template <class Fn, class T, std::int64_t N>
inline void block_loop(const T* const* in, T* __restrict out, std::int64_t n) {
  SYMFLOW_FUSED_BLOCK_LOOP_BODY
}

// On x86-64 built for the baseline (SSE2), blocks also come in an AVX2 build of the
// same loop, chosen at run time: the steps are bound by their stores, and 32-byte
// vectors halve them. Each step is one IEEE operation per element (no FMA here), so
// the results are the same bits as the SSE2 loop and the node-by-node kernels.
#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__) && !defined(__AVX2__)
#define SYMFLOW_FUSED_AVX2 1
template <class Fn, class T, std::int64_t N>
__attribute__((target("avx2"))) inline void block_loop_avx2(const T* const* in, T* __restrict out,
                                                            std::int64_t n) {
  SYMFLOW_FUSED_BLOCK_LOOP_BODY
}

inline bool cpu_has_avx2() {
  static const bool has = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") != 0;
  }();
  return has;
}
#endif
#undef SYMFLOW_FUSED_BLOCK_LOOP_BODY

// A step's loop over one block: out[k] = op(in[0][k], ...) for k < n.
template <class T>
using BlockFn = void (*)(const T* const*, T*, std::int64_t);

template <class Fn, class T>
void elementwise_block(const T* const* in, T* out, std::int64_t n) {
  if constexpr (kEigenUnary<Fn, T>) {
    eigen_unary<Fn>(in[0], out, n);
    return;
  }
#ifdef SYMFLOW_FUSED_AVX2
  if (cpu_has_avx2()) {
    if (n == kFusedBlock)
      block_loop_avx2<Fn, T, kFusedBlock>(in, out, n);
    else
      block_loop_avx2<Fn, T, 0>(in, out, n);
    return;
  }
#endif
  if (n == kFusedBlock)
    block_loop<Fn, T, kFusedBlock>(in, out, n);
  else
    block_loop<Fn, T, 0>(in, out, n);
}

// The ElementwiseDef of a functor op: Fn{}(x) or Fn{}(x, y) on float and double.
template <class Fn, int Arity, bool Broadcasts = true>
inline constexpr ElementwiseDef elementwise_def{.arity = Arity,
                                                .broadcasts = Broadcasts,
                                                .block_f32 = elementwise_block<Fn, float>,
                                                .block_f64 = elementwise_block<Fn, double>};

// How an input of shape `in` is read at output flat index i when it broadcasts to
// `out` along one contiguous run of axes: element (i / inner) % mid. Same shape:
// mid = size, inner = 1; a scalar: mid = 1; a row vector [C] against [R, C]:
// mid = C, inner = 1; a column [R, 1]: mid = R, inner = C. nullopt for any other
// pattern (e.g. [R, 1, C] against [R, K, C]).
struct BroadcastRun {
  std::int64_t mid = 1;
  std::int64_t inner = 1;
};

inline std::optional<BroadcastRun> broadcast_run(const Dims& in, const Dims& out) {
  if (in.size() > out.size()) return std::nullopt;
  const std::size_t lead = out.size() - in.size();
  BroadcastRun run;
  int state = 0;  // 0: before the run, 1: inside it, 2: after it
  for (std::size_t axis = 0; axis < out.size(); ++axis) {
    const std::int64_t o = out[axis];
    const std::int64_t d = axis < lead ? 1 : in[axis - lead];
    if (d != o && d != 1) return std::nullopt;
    if (o == 1) continue;  // says nothing about the layout
    if (d == o) {
      if (state == 2) return std::nullopt;
      state = 1;
      run.mid *= o;
    } else {
      if (state == 1) state = 2;
      if (state == 2) run.inner *= o;
    }
  }
  return run;
}

namespace fused_detail {

// Copies elements [start, start + len) of the broadcast view of `src` into `dst`.
template <class T>
void gather_block(const T* src, BroadcastRun run, std::int64_t start, std::int64_t len, T* dst) {
  std::int64_t j = (start / run.inner) % run.mid;  // current source element
  std::int64_t r = start % run.inner;              // position within its repeat
  for (std::int64_t k = 0; k < len;) {
    if (run.inner == 1) {
      const std::int64_t take = std::min(run.mid - j, len - k);
      std::copy_n(src + j, take, dst + k);
      k += take;
      j = 0;
    } else {
      const std::int64_t take = std::min(run.inner - r, len - k);
      std::fill_n(dst + k, take, src[j]);
      k += take;
      r = 0;
      if (++j == run.mid) j = 0;
    }
  }
}

template <class T>
BlockFn<T> block_fn(const ElementwiseDef& def) {
  if constexpr (std::is_same_v<T, float>)
    return def.block_f32;
  else
    return def.block_f64;
}

}  // namespace fused_detail

}  // namespace cpu
}  // namespace symflow
