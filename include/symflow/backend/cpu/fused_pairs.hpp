#pragma once
// Pair steps of fused clusters on the CPU: two binary arithmetic ops, the inner one's
// result read only by the outer one, run as one loop,
//   out[k] = outer(inner(x[k], y[k]), z[k])   (Pos 0)   or
//   out[k] = outer(z[k], inner(x[k], y[k]))   (Pos 1),
// so the inner result stays in a register instead of a block buffer: one load/store
// round trip through L1 less per element, and one step less per block.
//
// Same bits as the two ops one by one: each is the same IEEE operation, and the loop
// is compiled without floating-point contraction, so g++ (whose GNU modes contract
// a * b + c into an FMA by default) cannot merge inner and outer. Clang contracts only
// within one source expression unless told -ffp-contract=fast; with that flag a pair's
// product and sum could become one FMA, so symflow should not be built with it.

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "symflow/backend/cpu/fused.hpp"
#include "symflow/ops/defs/math.hpp"

namespace symflow::cpu {

// g++, and nvcc's host pass through it.
#if defined(__GNUC__) && !defined(__clang__)
#define SYMFLOW_NO_FP_CONTRACT __attribute__((optimize("fp-contract=off")))
#else
#define SYMFLOW_NO_FP_CONTRACT
#endif

namespace pair_detail {

// The ops that pair, in table order.
template <class... Fns>
struct OpList {
  static constexpr std::size_t size = sizeof...(Fns);
};
using PairingOps = OpList<symflow::detail::AddFn, symflow::detail::SubFn, symflow::detail::MulFn,
                          symflow::detail::RealDivFn>;

// An op's place in PairingOps, or -1: the ops' ElementwiseDefs are the inline
// variables elementwise_def<Fn, 2> (ops/math_ops.hpp), one object per Fn in a program.
template <class... Fns>
int pairing_index_in(const ElementwiseDef* def, OpList<Fns...>) {
  int index = 0, found = -1;
  ((found = found < 0 && def == &elementwise_def<Fns, 2> ? index : found, ++index), ...);
  return found;
}

inline int pairing_index(const ElementwiseDef* def) {
  return def ? pairing_index_in(def, PairingOps{}) : -1;
}

#define SYMFLOW_FUSED_PAIR_LOOP_BODY             \
  const Outer g{};                               \
  const Inner f{};                               \
  const std::int64_t count = N > 0 ? N : n;      \
  const T* __restrict x = in[0];                 \
  const T* __restrict y = in[1];                 \
  const T* __restrict z = in[2];                 \
  for (std::int64_t k = 0; k < count; ++k) {     \
    const T t = f(x[k], y[k]);                   \
    out[k] = Pos == 0 ? g(t, z[k]) : g(z[k], t); \
  }

template <class Outer, class Inner, int Pos, class T, std::int64_t N>
SYMFLOW_NO_FP_CONTRACT void pair_loop(const T* const* in, T* __restrict out, std::int64_t n) {
  SYMFLOW_FUSED_PAIR_LOOP_BODY
}

#ifdef SYMFLOW_FUSED_AVX2
template <class Outer, class Inner, int Pos, class T, std::int64_t N>
SYMFLOW_NO_FP_CONTRACT __attribute__((target("avx2"))) void pair_loop_avx2(const T* const* in,
                                                                           T* __restrict out,
                                                                           std::int64_t n) {
  SYMFLOW_FUSED_PAIR_LOOP_BODY
}
#endif
#undef SYMFLOW_FUSED_PAIR_LOOP_BODY

// A whole block takes the vectorised loop (AVX2 where the build is for less and the
// CPU has it); the last, partial block the plain one.
template <class Outer, class Inner, int Pos, class T>
void pair_block(const T* const* in, T* out, std::int64_t n) {
  if (n == kFusedBlock) {
#ifdef SYMFLOW_FUSED_AVX2
    if (cpu_has_avx2()) return pair_loop_avx2<Outer, Inner, Pos, T, kFusedBlock>(in, out, n);
#endif
    return pair_loop<Outer, Inner, Pos, T, kFusedBlock>(in, out, n);
  }
  pair_loop<Outer, Inner, Pos, T, 0>(in, out, n);
}

template <class T, class Outer, class... Inner>
constexpr void fill_row(std::array<BlockFn<T>, 2 * PairingOps::size * PairingOps::size>& table,
                        std::size_t outer, OpList<Inner...>) {
  std::size_t inner = 0;
  ((table[(outer * PairingOps::size + inner) * 2] = &pair_block<Outer, Inner, 0, T>,
    table[(outer * PairingOps::size + inner) * 2 + 1] = &pair_block<Outer, Inner, 1, T>, ++inner),
   ...);
}

// table[(outer * size + inner) * 2 + pos]
template <class T, class... Outer>
constexpr auto make_table(OpList<Outer...>) {
  std::array<BlockFn<T>, 2 * PairingOps::size * PairingOps::size> table{};
  std::size_t outer = 0;
  ((fill_row<T, Outer>(table, outer, PairingOps{}), ++outer), ...);
  return table;
}

template <class T>
BlockFn<T> pair_block_for(const ElementwiseDef* outer, const ElementwiseDef* inner, int pos) {
  static constexpr auto table = make_table<T>(PairingOps{});
  const int o = pairing_index(outer), i = pairing_index(inner);
  if (o < 0 || i < 0 || pos < 0 || pos > 1) return nullptr;
  return table[static_cast<std::size_t>((o * static_cast<int>(PairingOps::size) + i) * 2 + pos)];
}

}  // namespace pair_detail

// The pair kernel of outer(inner(x, y), z) (pos 0) or outer(z, inner(x, y)) (pos 1),
// or null when the two ops do not pair.
inline BlockFn<float> fused_pair_f32(const ElementwiseDef* outer, const ElementwiseDef* inner,
                                     int pos) {
  return pair_detail::pair_block_for<float>(outer, inner, pos);
}
inline BlockFn<double> fused_pair_f64(const ElementwiseDef* outer, const ElementwiseDef* inner,
                                      int pos) {
  return pair_detail::pair_block_for<double>(outer, inner, pos);
}

template <class T>
BlockFn<T> fused_pair(const ElementwiseDef* outer, const ElementwiseDef* inner, int pos) {
  if constexpr (std::is_same_v<T, float>)
    return fused_pair_f32(outer, inner, pos);
  else
    return fused_pair_f64(outer, inner, pos);
}

#undef SYMFLOW_NO_FP_CONTRACT

}  // namespace symflow::cpu
