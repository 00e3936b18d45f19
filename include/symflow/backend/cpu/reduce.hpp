#pragma once
// Reductions over a set of axes, in one pass over the input.

#include <algorithm>
#include <cstdint>
#include <vector>

#include "symflow/backend/kernel_context.hpp"
#include "symflow/core/value.hpp"

namespace symflow::cpu {

// out[j] = combine(out[j], in[i]) for every i mapping to j, starting from `init`.
// `reduced[a]` marks the reduced axes; the output keeps them as size 1 when
// keep_dims, else drops them.
template <class T, class Combine>
Value reduce(const Value& in, const std::vector<bool>& reduced, bool keep_dims, T init,
             Combine combine) {
  const Dims& d = in.dims();
  const std::size_t rank = d.size();
  Dims out_dims;
  for (std::size_t a = 0; a < rank; ++a) {
    if (!reduced[a])
      out_dims.push_back(d[a]);
    else if (keep_dims)
      out_dims.push_back(1);
  }
  Value out(dtype_v<T>, out_dims);
  T* acc = out.data<T>();
  std::fill_n(acc, out.size(), init);
  const T* x = in.data<T>();
  const std::int64_t n = in.size();
  if (n == 0) return out;
  if (rank == 0) {
    acc[0] = combine(acc[0], x[0]);
    return out;
  }
  // Output stride of each input axis: 0 on reduced axes.
  std::vector<std::int64_t> ostride(rank, 0);
  std::int64_t s = 1;
  for (std::size_t a = rank; a-- > 0;) {
    if (reduced[a]) continue;
    ostride[a] = s;
    s *= d[a];
  }
  std::vector<std::int64_t> index(rank, 0);
  const std::int64_t inner = d[rank - 1];
  const std::int64_t is = ostride[rank - 1];
  std::int64_t o = 0;
  for (std::int64_t base = 0; base < n; base += inner) {
    if (is == 0) {
      T r = acc[o];
      for (std::int64_t i = 0; i < inner; ++i) r = combine(r, x[base + i]);
      acc[o] = r;
    } else {
      for (std::int64_t i = 0; i < inner; ++i) acc[o + i] = combine(acc[o + i], x[base + i]);
    }
    for (std::size_t a = rank - 1; a-- > 0;) {
      o += ostride[a];
      if (++index[a] < d[a]) break;
      o -= ostride[a] * d[a];
      index[a] = 0;
    }
  }
  return out;
}

}  // namespace symflow::cpu
