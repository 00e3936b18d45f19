#pragma once
// NumPy broadcasting on the device: where an input of one shape is read at flat index i
// of an output of a larger shape.
//
// On the host, broadcast_layout() describes N inputs against one output shape: the
// output's axes with those of extent 1 dropped and adjacent axes merged wherever every
// input reads them alike (both contiguous, or both broadcast), and each input's element
// stride along every remaining axis (0 on an axis it is broadcast along). A [3, 1] and a
// [1, 4] against [3, 4] keep two axes; a [2, 3, 4] against a [4] (a row) become [6, 4].
//
// On the device, broadcast_offset() turns a flat output index into an input's element
// offset, and BroadcastOffsets<N> carries a layout of up to kMaxBroadcastRank axes by value
// into a functor (no device buffer to set up); longer layouts live in a device buffer and
// use broadcast_offset() on its words.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "symflow/core/host_device.hpp"
#include "symflow/core/shape.hpp"

namespace symflow::thrust_backend {

// Axes a BroadcastOffsets carries by value.
inline constexpr int kMaxBroadcastRank = 8;

// How N inputs are read through one output shape (host side).
struct BroadcastLayout {
  Dims dims;                                       // merged output axes, outermost first
  std::vector<std::vector<std::int64_t>> strides;  // per input: element stride per axis
  int rank() const { return static_cast<int>(dims.size()); }
};

// The layout of `inputs` broadcast to `out`, or nullopt when one of them does not
// broadcast to `out` exactly (NumPy rules: equal extents, or 1 in the input; an input may
// have fewer axes than `out`, never more).
inline std::optional<BroadcastLayout> broadcast_layout(const Dims& out,
                                                       std::span<const Dims* const> inputs) {
  const std::size_t rank = out.size();
  // Full-rank strides of each input, row-major, 0 on broadcast axes.
  std::vector<std::vector<std::int64_t>> full(inputs.size(), std::vector<std::int64_t>(rank, 0));
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    const Dims& in = *inputs[k];
    if (in.size() > rank) return std::nullopt;
    const std::size_t lead = rank - in.size();
    std::int64_t stride = 1;
    for (std::size_t a = rank; a-- > 0;) {
      const std::int64_t d = a < lead ? 1 : in[a - lead];
      if (d != out[a] && d != 1) return std::nullopt;
      full[k][a] = d == 1 ? 0 : stride;
      stride *= d;
    }
  }
  // Keep the axes of extent > 1, merging an axis into the kept one inside it when every
  // input steps across the pair as across one axis.
  BroadcastLayout layout;
  layout.strides.assign(inputs.size(), {});
  std::vector<std::size_t> kept;  // innermost first while building
  for (std::size_t a = rank; a-- > 0;) {
    if (out[a] == 1) continue;
    if (!kept.empty()) {
      const std::size_t inner = kept.size() - 1;
      bool merge = true;
      for (std::size_t k = 0; k < inputs.size() && merge; ++k)
        merge = full[k][a] == layout.strides[k][inner] * layout.dims[inner];
      if (merge) {
        layout.dims[inner] *= out[a];
        continue;
      }
    }
    kept.push_back(a);
    layout.dims.push_back(out[a]);
    for (std::size_t k = 0; k < inputs.size(); ++k) layout.strides[k].push_back(full[k][a]);
  }
  // Outermost first.
  std::reverse(layout.dims.begin(), layout.dims.end());
  for (auto& s : layout.strides) std::reverse(s.begin(), s.end());
  return layout;
}

// The element offset at flat output index i of an input with `strides` along the output
// axes `dims` (rank of them, outermost first).
SYMFLOW_HD inline std::int64_t broadcast_offset(std::int64_t i, int rank, const std::int64_t* dims,
                                                const std::int64_t* strides) {
  std::int64_t offset = 0;
  for (int a = rank - 1; a >= 0; --a) {
    const std::int64_t d = dims[a];
    const std::int64_t q = i / d;
    offset += (i - q * d) * strides[a];
    i = q;
  }
  return offset;
}

// A layout of at most kMaxBroadcastRank axes for N inputs, by value: a functor member.
template <int N>
struct BroadcastOffsets {
  int rank = 0;
  std::int64_t dims[kMaxBroadcastRank] = {};
  std::int64_t strides[N][kMaxBroadcastRank] = {};

  // Fits when the layout has at most kMaxBroadcastRank axes.
  static std::optional<BroadcastOffsets> from(const BroadcastLayout& layout) {
    if (layout.rank() > kMaxBroadcastRank || layout.strides.size() != N) return std::nullopt;
    BroadcastOffsets b;
    b.rank = layout.rank();
    for (int a = 0; a < b.rank; ++a) {
      b.dims[a] = layout.dims[static_cast<std::size_t>(a)];
      for (int k = 0; k < N; ++k)
        b.strides[k][a] = layout.strides[static_cast<std::size_t>(k)][static_cast<std::size_t>(a)];
    }
    return b;
  }

  // Each input's element offset at flat output index i.
  SYMFLOW_HD void offsets(std::int64_t i, std::int64_t (&out)[N]) const {
    for (int k = 0; k < N; ++k) out[k] = 0;
    for (int a = rank - 1; a >= 0; --a) {
      const std::int64_t d = dims[a];
      const std::int64_t q = i / d;
      const std::int64_t r = i - q * d;
      for (int k = 0; k < N; ++k) out[k] += r * strides[k][a];
      i = q;
    }
  }
};

// The layout as words for a device buffer: dims, then each input's strides.
inline std::vector<std::int64_t> layout_words(const BroadcastLayout& layout) {
  std::vector<std::int64_t> words(layout.dims.begin(), layout.dims.end());
  for (const auto& s : layout.strides) words.insert(words.end(), s.begin(), s.end());
  return words;
}

}  // namespace symflow::thrust_backend
