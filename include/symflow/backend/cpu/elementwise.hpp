#pragma once
// Elementwise maps with NumPy broadcasting over host Values.

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "symflow/backend/cpu/eigen_unary.hpp"
#include "symflow/backend/kernel_context.hpp"
#include "symflow/core/value.hpp"

namespace symflow::cpu {

template <class T, class R, class F>
void unary(KernelContext& ctx, F f) {
  const Value& in = ctx.input(0);
  const T* x = in.data<T>();
  const std::int64_t n = in.size();
  // Every element is written below: no zero fill first; in place where the input allows.
  Value& out = ctx.forward_input_or_allocate_output({0}, 0, dtype_v<R>, in.dims());
  R* y = out.data<R>();
  if constexpr (kEigenUnary<F, T> && std::is_same_v<R, float>) {
    eigen_unary<F>(x, y, n);
  } else {
    for (std::int64_t i = 0; i < n; ++i) y[i] = f(x[i]);
  }
}

// Element strides of `dims` seen through broadcasting to `out_dims` (0 on
// broadcast axes).
inline Dims broadcast_strides(const Dims& dims, const Dims& out_dims) {
  Dims strides(out_dims.size(), 0);
  std::int64_t stride = 1;
  for (std::size_t k = 0; k < dims.size(); ++k) {
    std::size_t axis = dims.size() - 1 - k;
    std::size_t out_axis = out_dims.size() - 1 - k;
    strides[out_axis] = dims[axis] == 1 ? 0 : stride;
    stride *= dims[axis];
  }
  return strides;
}

// Two inputs whose shapes neither broadcast nor agree (the CPU and GPU kernels share the
// message).
[[noreturn]] inline void fail_incompatible(const KernelContext& ctx, const Dims& a, const Dims& b) {
  ctx.fail("Incompatible shapes: " + dims_to_string(a) + " vs. " + dims_to_string(b));
}

// The broadcast shape of a and b, or the kernel's failure.
inline Dims broadcast_out_dims(const KernelContext& ctx, const Dims& a, const Dims& b) {
  auto out_dims = broadcast_dims(a, b);
  if (!out_dims) fail_incompatible(ctx, a, b);
  return *out_dims;
}

template <class T, class R, class F>
void binary(KernelContext& ctx, F f) {
  const Value& a = ctx.input(0);
  const Value& b = ctx.input(1);
  const T* x = a.data<T>();
  const T* y = b.data<T>();
  const std::int64_t a_size = a.size(), b_size = b.size();
  // Equal shapes (the common case) need no broadcast shape, nor any other Dims: a small
  // op's whole cost is a few of these.
  if (a.dims() == b.dims()) {
    Value& out = ctx.forward_input_or_allocate_output({0, 1}, 0, dtype_v<R>, a.dims());
    R* z = out.data<R>();
    for (std::int64_t i = 0; i < a_size; ++i) z[i] = f(x[i], y[i]);
    return;
  }
  const Dims broadcast = broadcast_out_dims(ctx, a.dims(), b.dims());
  const std::int64_t n = num_elements(broadcast);
  const bool general = n > 0 && !(a_size == n && b_size == n) && !(b_size == 1 && a_size == n) &&
                       !(a_size == 1 && b_size == n);
  // The general case's strides come first: the output may take either input's buffer
  // (each element is read before it is written), which moves that input out.
  const Dims sa = general ? broadcast_strides(a.dims(), broadcast) : Dims{};
  const Dims sb = general ? broadcast_strides(b.dims(), broadcast) : Dims{};
  Value& out = ctx.forward_input_or_allocate_output({0, 1}, 0, dtype_v<R>, broadcast);
  R* z = out.data<R>();
  if (a_size == n && b_size == n) {
    for (std::int64_t i = 0; i < n; ++i) z[i] = f(x[i], y[i]);
  } else if (b_size == 1 && a_size == n) {
    const T s = y[0];
    for (std::int64_t i = 0; i < n; ++i) z[i] = f(x[i], s);
  } else if (a_size == 1 && b_size == n) {
    const T s = x[0];
    for (std::int64_t i = 0; i < n; ++i) z[i] = f(s, y[i]);
  } else if (general) {
    // Walk the output in row-major order, innermost axis in a tight loop.
    const Dims& od = broadcast;
    const std::size_t rank = od.size();
    Dims index(rank, 0);
    const std::int64_t inner = od[rank - 1];
    const std::int64_t ia = sa[rank - 1], ib = sb[rank - 1];
    std::int64_t oa = 0, ob = 0;
    for (std::int64_t base = 0; base < n; base += inner) {
      for (std::int64_t i = 0; i < inner; ++i) z[base + i] = f(x[oa + i * ia], y[ob + i * ib]);
      for (std::size_t axis = rank - 1; axis-- > 0;) {
        oa += sa[axis];
        ob += sb[axis];
        if (++index[axis] < od[axis]) break;
        oa -= sa[axis] * od[axis];
        ob -= sb[axis] * od[axis];
        index[axis] = 0;
      }
    }
  }
}

}  // namespace symflow::cpu
