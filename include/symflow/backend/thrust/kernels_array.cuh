#pragma once
// Thrust kernels: array ops (shapes, reshapes, copies through strided views, gathers,
// scatters into segments, padding, space-to-batch and back, one-hot, ranges, Where,
// CheckNumerics).
//
// Every kernel validates its arguments on the host first, with the CPU kernel's error
// types and messages: shape-like arguments (shapes, axes, perms, begins and sizes,
// paddings, split sizes, indices) are small device tensors read back with host_value /
// host_vector. Then the data moves on the device:
// - Copies of boxes (Transpose, Slice, StridedSlice(Grad), Split(V), Unpack, Concat,
//   Pack, BroadcastTo) run one functor over the box's elements (BoxCopy) that maps a
//   row-major index to a source and a destination offset through at most kMaxDims
//   (dims, strides) pairs. Before launching, size-1 dims are dropped and dims that are
//   contiguous on both sides merged, so most higher-rank copies fit too; a box still of
//   more than kMaxDims dims is an UnimplementedError naming the op.
// - Tile, Pad, SpaceToBatchND, BatchToSpaceND, GatherV2, OneHot and UnsortedSegmentSum compute each
// output element
//   from its index (one thread per output element, no atomics: results are
//   deterministic and equal to the CPU's, bit for bit).
// - Data-movement kernels copy elements as unsigned integers of the element's size,
//   so one instantiation serves every dtype of that size.
//
// The int32 "shape" ops (Shape, Size, Rank, InvertPermutation, ConcatOffset,
// BroadcastGradientArgs) keep their values in host memory on a TensorFlow GPU
// (HostMemory kernels): here they are computed on the host, from host copies of their
// small inputs, and their results copied to the device (copy_to_device) so that every
// output of this backend lives in device memory. Reshape, ExpandDims and Squeeze only
// change dims: their output shares the input's device buffer.

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <thrust/copy.h>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/scan.h>

#include "symflow/backend/cpu/kernels/math.hpp"
#include "symflow/backend/cpu/kernels/shape.hpp"
#include "symflow/backend/cpu/kernels/transform.hpp"
#include "symflow/backend/thrust/kernel_util.cuh"
#include "symflow/ops/defs/array.hpp"
#include "symflow/ops/defs/logic.hpp"
#include "symflow/ops/defs/math.hpp"
#include "symflow/ops/defs/shape.hpp"
#include "symflow/ops/defs/transform.hpp"

namespace symflow::thrust_backend {

namespace array_kernels {

namespace tr = symflow::detail::transform;
using symflow::detail::is_number_v;
using symflow::detail::unsupported_dtype;

// The most dims a functor of this file carries (after merging, for box copies).
inline constexpr int kMaxDims = 8;

using Index = std::int64_t;
using Counting = thrust::counting_iterator<Index>;

// ---- device-safe helpers ------------------------------------------------------------

template <class T>
struct TypeTag {
  using type = T;
};

// Calls f(TypeTag<U>{}) with the unsigned integer type of `elem` bytes.
template <class F>
void visit_bits(std::size_t elem, F&& f) {
  switch (elem) {
    case 1:
      return f(TypeTag<std::uint8_t>{});
    case 2:
      return f(TypeTag<std::uint16_t>{});
    case 4:
      return f(TypeTag<std::uint32_t>{});
    case 8:
      return f(TypeTag<std::uint64_t>{});
    default:
      break;
  }
  throw InternalError("No element copy for elements of " + std::to_string(elem) + " bytes");
}

// ---- host helpers -----------------------------------------------------------------------

// The elements of a small int32/int64 tensor (a shape, axes, indices) on the host;
// a TypeError for other dtypes, as shape_argument words it.
inline Dims host_ints(const Value& v) { return symflow::detail::shape_argument(host_value(v)); }

// An int64 vector in device memory.
inline Value device_int64(const std::vector<std::int64_t>& v) {
  return copy_to_device(Value::from_vector(v, {static_cast<std::int64_t>(v.size())}));
}

// Input i of a value that is normally a device value; a host value (a variable
// written by a CPU kernel) is copied over first.
inline Value on_device(const Value& v) { return v.on_device() ? v : copy_to_device(v); }

[[noreturn]] inline void too_many_dims(const KernelContext& ctx, std::string_view op,
                                       std::size_t rank) {
  throw UnimplementedError(std::string(op) + " on the GPU supports tensors of at most " +
                               std::to_string(kMaxDims) + " dimensions, got " +
                               std::to_string(rank),
                           ctx.node_name());
}

// ---- box copies -------------------------------------------------------------------------

// A box of `dims` elements read through (src strides, src offset) and written through
// (dst strides, dst offset), in elements; strides may be negative or zero.
struct Box {
  int rank = 0;
  Index dims[kMaxDims] = {};
  Index src[kMaxDims] = {};
  Index dst[kMaxDims] = {};
  Index src_offset = 0;
  Index dst_offset = 0;
};

template <class U>
struct BoxCopy {
  const U* in;
  U* out;
  Box b;
  SYMFLOW_HD void operator()(Index i) const {
    Index s = b.src_offset;
    Index d = b.dst_offset;
    for (int a = b.rank - 1; a >= 0; --a) {
      const Index k = i % b.dims[a];
      i /= b.dims[a];
      s += k * b.src[a];
      d += k * b.dst[a];
    }
    out[d] = in[s];
  }
};

// Copies the box `dims` of `from` (through view s) into `to` (through view d), on the
// device; the same copies as the CPU's copy_box.
inline void copy_box(const KernelContext& ctx, std::string_view op, const Value& from,
                     const tr::View& s, Value& to, const tr::View& d, const Dims& dims) {
  const Index n = num_elements(dims);
  if (n == 0) return;
  // Drop size-1 dims, then merge neighbours that are contiguous on both sides.
  Dims md, ms, mt;
  for (std::size_t a = 0; a < dims.size(); ++a) {
    if (dims[a] == 1) continue;
    if (!md.empty() && ms.back() == s.strides[a] * dims[a] && mt.back() == d.strides[a] * dims[a]) {
      md.back() *= dims[a];
      ms.back() = s.strides[a];
      mt.back() = d.strides[a];
      continue;
    }
    md.push_back(dims[a]);
    ms.push_back(s.strides[a]);
    mt.push_back(d.strides[a]);
  }
  if (md.size() > static_cast<std::size_t>(kMaxDims)) too_many_dims(ctx, op, dims.size());
  Box b;
  b.rank = static_cast<int>(md.size());
  for (std::size_t a = 0; a < md.size(); ++a) {
    b.dims[a] = md[a];
    b.src[a] = ms[a];
    b.dst[a] = mt[a];
  }
  b.src_offset = s.offset;
  b.dst_offset = d.offset;
  const void* in = from.device_data_raw();
  void* out = to.device_data_raw();
  visit_bits(dtype_size(from.dtype()), [&](auto tag) {
    using U = typename decltype(tag)::type;
    thrust::for_each(policy(), Counting(0), Counting(n),
                     BoxCopy<U>{static_cast<const U*>(in), static_cast<U*>(out), b});
  });
}

// The part [begin, begin + size) of x along `axis`, as a new device value.
inline Value slice_along(const KernelContext& ctx, std::string_view op, const Value& x,
                         std::size_t axis, Index begin, Index size) {
  Dims dims = x.dims();
  dims[axis] = size;
  Value out = empty_device_value(x.dtype(), dims);
  Dims strides = tr::row_major_strides(x.dims());
  copy_box(ctx, op, x, {strides, begin * strides[axis]}, out, tr::contiguous(dims), dims);
  return out;
}

// Each of `parts` (equal dims but for `axis`) side by side in `out`.
inline void concat_into(const KernelContext& ctx, std::string_view op,
                        const std::vector<const Value*>& parts, std::size_t axis, Value& out) {
  Dims out_strides = tr::row_major_strides(out.dims());
  Index at = 0;
  for (const Value* p : parts) {
    tr::View dst{out_strides, at * (out.dims().empty() ? 0 : out_strides[axis])};
    copy_box(ctx, op, *p, tr::contiguous(p->dims()), out, dst, p->dims());
    at += p->dims()[axis];
  }
}

// ---- Reshape, Shape, Size, Rank, ExpandDims, Squeeze -----------------------------------

inline void reshape_kernel(KernelContext& ctx) {
  const Value& in = ctx.input(0);
  std::string error;
  auto dims = symflow::detail::resolve_reshape(host_ints(ctx.input(1)), in.size(), error);
  if (!dims) ctx.fail(error);
  ctx.set_output(0, in.reshaped(*dims));  // the same device buffer
}

// Shape, Size and Rank read only dims: computed on the host (TensorFlow keeps these
// int outputs in host memory on a GPU), then copied to the device.
inline void shape_kernel(KernelContext& ctx) {
  ctx.set_output(0, copy_to_device(symflow::detail::index_vector(ctx.input(0).dims(),
                                                                 ctx.attr<DType>("out_type"))));
}
inline void size_kernel(KernelContext& ctx) {
  const Index n = ctx.input(0).size();
  ctx.set_output(0, copy_to_device(ctx.attr<DType>("out_type") == DType::int64
                                       ? Value(n)
                                       : Value(static_cast<std::int32_t>(n))));
}
inline void rank_kernel(KernelContext& ctx) {
  ctx.set_output(0, copy_to_device(Value(static_cast<std::int32_t>(ctx.input(0).rank()))));
}

inline void expand_dims_kernel(KernelContext& ctx) {
  Dims a = host_ints(ctx.input(1));
  if (a.size() != 1)
    ctx.fail("'dim' must be a tensor with a single value, got " + dims_to_string(a));
  std::string error;
  auto out = symflow::detail::expand_dims_of(ctx.input(0).dims(), a[0], error);
  if (!out) ctx.fail(error);
  ctx.set_output(0, ctx.input(0).reshaped(*out));
}

// Squeeze: the CPU kernel (backend/cpu/kernels/shape.hpp) reads only dims and attrs,
// and reshapes (the buffer, and so its memory space, is kept): it runs unchanged on
// device values.
using symflow::detail::squeeze_kernel;

// ---- BroadcastTo, Tile --------------------------------------------------------------------

inline void broadcast_to_kernel(KernelContext& ctx) {
  const Value& in = ctx.input(0);
  Dims target = host_ints(ctx.input(1));
  symflow::detail::check_broadcast_to(ctx, in.dims(), target);
  Value& out = output(ctx, 0, in.dtype(), target);
  // The input's dims aligned to the output's rank; a broadcast dim reads stride 0.
  const std::size_t rank = target.size();
  Dims id(rank, 1);
  for (std::size_t k = 0; k < in.dims().size(); ++k) id[rank - in.dims().size() + k] = in.dims()[k];
  Dims strides = tr::row_major_strides(id);
  for (std::size_t a = 0; a < rank; ++a)
    if (id[a] == 1) strides[a] = 0;
  copy_box(ctx, "BroadcastTo", in, {strides, 0}, out, tr::contiguous(target), target);
}

template <class U>
struct TileCopy {
  const U* in;
  U* out;
  int rank;
  Index out_dims[kMaxDims];
  Index in_dims[kMaxDims];
  Index in_strides[kMaxDims];
  SYMFLOW_HD void operator()(Index o) const {
    Index i = o;
    Index s = 0;
    for (int a = rank - 1; a >= 0; --a) {
      const Index k = i % out_dims[a];
      i /= out_dims[a];
      s += (k % in_dims[a]) * in_strides[a];
    }
    out[o] = in[s];
  }
};

inline void tile_kernel(KernelContext& ctx) {
  const Value& in = ctx.input(0);
  Dims m = host_ints(ctx.input(1));
  const Dims out_dims = symflow::detail::tile_out_dims(ctx, in.dims(), m);
  Value& out = output(ctx, 0, in.dtype(), out_dims);
  const Index n = out.size();
  if (n == 0) return;
  // Dims tiled once with size 1 in and out change nothing: leave them out.
  Dims in_strides = tr::row_major_strides(in.dims());
  std::vector<std::size_t> keep;
  for (std::size_t a = 0; a < out_dims.size(); ++a)
    if (out_dims[a] != 1) keep.push_back(a);
  if (keep.size() > static_cast<std::size_t>(kMaxDims)) too_many_dims(ctx, "Tile", out_dims.size());
  const void* src = in.device_data_raw();
  void* dst = out.device_data_raw();
  visit_bits(dtype_size(in.dtype()), [&](auto tag) {
    using U = typename decltype(tag)::type;
    TileCopy<U> f{static_cast<const U*>(src),
                  static_cast<U*>(dst),
                  static_cast<int>(keep.size()),
                  {},
                  {},
                  {}};
    for (std::size_t k = 0; k < keep.size(); ++k) {
      f.out_dims[k] = out_dims[keep[k]];
      f.in_dims[k] = in.dims()[keep[k]];
      f.in_strides[k] = in_strides[keep[k]];
    }
    thrust::for_each(policy(), Counting(0), Counting(n), f);
  });
}

// ---- Transpose, InvertPermutation ---------------------------------------------------------

inline void transpose_kernel(KernelContext& ctx) {
  const Value& x = ctx.input(0);
  const auto [out_dims, src] = tr::transpose_plan(ctx, x.dims(), host_value(ctx.input(1)));
  Value& out = output(ctx, 0, x.dtype(), out_dims);
  copy_box(ctx, "Transpose", x, src, out, tr::contiguous(out_dims), out_dims);
}

// Host-computed (a HostMemory kernel in TensorFlow), copied to the device.
inline void invert_permutation_kernel(KernelContext& ctx) {
  const Value& x = ctx.input(0);
  if (x.rank() != 1) ctx.fail("invert_permutation expects a 1D vector.");
  Dims perm = host_ints(x);
  auto n = static_cast<Index>(perm.size());
  std::vector<std::int64_t> inverse(perm.size(), -1);
  for (Index i = 0; i < n; ++i) {
    Index d = perm[static_cast<std::size_t>(i)];
    if (d < 0 || d >= n) ctx.fail(tr::str(d) + " is not between 0 and " + tr::str(n));
    if (inverse[static_cast<std::size_t>(d)] != -1)
      ctx.fail(tr::str(d) + " is duplicated in the input.");
    inverse[static_cast<std::size_t>(d)] = i;
  }
  ctx.set_output(0,
                 copy_to_device(x.dtype() == DType::int32 ? symflow::detail::int32_vector(inverse)
                                                          : Value::from_vector(inverse, x.dims())));
}

// ---- ConcatV2, ConcatOffset -----------------------------------------------------------------

inline void concat_kernel(KernelContext& ctx) {
  std::size_t n = ctx.num_inputs() - 1;
  const Value& first = ctx.input(0);
  const auto [a, out_dims] = tr::concat_plan(ctx, n, tr::scalar_index(host_value(ctx.input(n))));
  std::vector<const Value*> parts;
  for (std::size_t i = 0; i < n; ++i) parts.push_back(&ctx.input(i));
  Value& out = output(ctx, 0, first.dtype(), out_dims);
  concat_into(ctx, "ConcatV2", parts, a, out);
}

// Host-computed (a HostMemory kernel in TensorFlow), copied to the device.
inline void concat_offset_kernel(KernelContext& ctx) {
  const std::vector<Dims> offsets =
      tr::concat_offsets(ctx, [&](std::size_t i) { return host_value(ctx.input(i)); });
  for (std::size_t i = 0; i < offsets.size(); ++i)
    ctx.set_output(i, copy_to_device(symflow::detail::int32_vector(offsets[i])));
}

// ---- Pack, Unpack ---------------------------------------------------------------------------

inline void pack_kernel(KernelContext& ctx) {
  const Value& first = ctx.input(0);
  const auto [a, slab] = tr::pack_plan(ctx);
  std::vector<Value> parts;
  for (std::size_t i = 0; i < ctx.num_inputs(); ++i) parts.push_back(ctx.input(i).reshaped(slab));
  std::vector<const Value*> ptrs;
  for (const Value& p : parts) ptrs.push_back(&p);
  Dims out_dims = slab;
  out_dims[a] = static_cast<Index>(ctx.num_inputs());
  Value& out = output(ctx, 0, first.dtype(), out_dims);
  concat_into(ctx, "Pack", ptrs, a, out);
}

inline void unpack_kernel(KernelContext& ctx) {
  const Value& x = ctx.input(0);
  auto num = ctx.attr<std::int64_t>("num");
  auto rank = static_cast<Index>(x.rank());
  Index axis = ctx.attr<std::int64_t>("axis");
  if (axis < -rank || axis >= rank)
    ctx.fail("axis = " + tr::str(axis) + " not in [" + tr::str(-rank) + ", " + tr::str(rank) + ")");
  auto a = static_cast<std::size_t>(axis < 0 ? axis + rank : axis);
  if (rank == 0 || x.dims()[a] != num)
    ctx.fail("Input shape axis " + tr::str(axis) + " must equal " + tr::str(num) + ", got shape " +
             dims_to_string(x.dims()));
  Dims out_dims = x.dims();
  out_dims.erase(out_dims.begin() + static_cast<std::ptrdiff_t>(a));
  for (Index i = 0; i < num; ++i)
    ctx.set_output(static_cast<std::size_t>(i),
                   slice_along(ctx, "Unpack", x, a, i, 1).reshaped(out_dims));
}

// ---- Split, SplitV ----------------------------------------------------------------------------

inline void split_pieces(KernelContext& ctx, std::string_view op, const Value& x, std::size_t axis,
                         const Dims& sizes) {
  Index at = 0;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    ctx.set_output(i, slice_along(ctx, op, x, axis, at, sizes[i]));
    at += sizes[i];
  }
}

inline void split_kernel(KernelContext& ctx) {
  const Value& x = ctx.input(1);
  Index axis_in = tr::scalar_index(host_value(ctx.input(0)));
  std::size_t axis = tr::runtime_split_axis(ctx, x, axis_in);
  auto n = ctx.attr<std::int64_t>("num_split");
  Index size = x.dims()[axis];
  if (size % n != 0)
    ctx.fail(
        "Number of ways to split should evenly divide the split dimension, but got split_dim " +
        tr::str(axis_in) + " (size = " + tr::str(size) + ") and num_split " + tr::str(n));
  split_pieces(ctx, "Split", x, axis, Dims(static_cast<std::size_t>(n), size / n));
}

inline void split_v_kernel(KernelContext& ctx) {
  const Value& x = ctx.input(0);
  const Value& s = ctx.input(1);
  tr::check_split_v_sizes(ctx, s);
  std::size_t axis = tr::runtime_split_axis(ctx, x, tr::scalar_index(host_value(ctx.input(2))));
  Dims sizes = host_ints(s);
  symflow::detail::transform::resolve_split_sizes(ctx, sizes, x.dims()[axis]);
  split_pieces(ctx, "SplitV", x, axis, sizes);
}

// ---- Slice, StridedSlice, StridedSliceGrad -------------------------------------------------

inline void slice_kernel(KernelContext& ctx) {
  const Value& x = ctx.input(0);
  const auto [size, src] =
      tr::slice_plan(ctx, x.dims(), host_value(ctx.input(1)), host_value(ctx.input(2)));
  Value& out = output(ctx, 0, x.dtype(), size);
  copy_box(ctx, "Slice", x, src, out, tr::contiguous(size), size);
}

inline void strided_slice_kernel(KernelContext& ctx) {
  const Value& x = ctx.input(0);
  tr::StridedSliceSpec spec =
      tr::runtime_strided_slice(ctx, x.dims(), host_value(ctx.input(1)), host_value(ctx.input(2)),
                                host_value(ctx.input(3)), tr::strided_slice_masks(ctx));
  Value& out = output(ctx, 0, x.dtype(), spec.final_shape);
  copy_box(ctx, "StridedSlice", x, tr::strided_view(spec, x.dims()), out,
           tr::contiguous(spec.processing), spec.processing);
}

inline void strided_slice_grad_kernel(KernelContext& ctx) {
  Dims shape = host_ints(ctx.input(0));
  const Value& dy = ctx.input(4);
  tr::StridedSliceSpec spec =
      tr::runtime_strided_slice(ctx, shape, host_value(ctx.input(1)), host_value(ctx.input(2)),
                                host_value(ctx.input(3)), tr::strided_slice_masks(ctx));
  if (dy.dims() != spec.final_shape)
    ctx.fail("shape of dy was " + dims_to_string(dy.dims()) + " instead of " +
             dims_to_string(spec.final_shape));
  ctx.set_output(0, zeroed_device_value(dy.dtype(), shape));
  // Every element the slice read is written once: the strides are non-zero.
  copy_box(ctx, "StridedSliceGrad", dy, tr::contiguous(spec.processing), ctx.output(0),
           tr::strided_view(spec, shape), spec.processing);
}

// ---- GatherV2, UnsortedSegmentSum ---------------------------------------------------------

// params as [outer, limit, inner] -> out as [outer, n, inner]
template <class U, class I>
struct GatherRows {
  const U* params;
  const I* indices;
  U* out;
  Index n, limit, inner;
  SYMFLOW_HD void operator()(Index o) const {
    const Index k = o % inner;
    const Index t = o / inner;
    const Index j = t % n;
    const Index outer = t / n;
    out[o] = params[(outer * limit + static_cast<Index>(indices[j])) * inner + k];
  }
};

inline void gather_kernel(KernelContext& ctx) {
  const Value& params = ctx.input(0);
  const Value& indices = ctx.input(1);
  // The indices come to the host to be checked before the gather runs.
  const tr::GatherPlan plan = tr::gather_plan(ctx, params.dims(), host_value(indices),
                                              tr::scalar_index(host_value(ctx.input(2))));
  const std::size_t a = plan.axis;
  const Dims& idx = plan.indices;
  const Dims& out_dims = plan.out_dims;
  Index limit = params.dims()[a];
  Value& out = output(ctx, 0, params.dtype(), out_dims);
  const Index total = out.size();
  if (total == 0) return;
  Index inner = 1;
  for (std::size_t i = a + 1; i < params.dims().size(); ++i) inner *= params.dims()[i];
  const auto n = static_cast<Index>(idx.size());
  const void* src = params.device_data_raw();
  void* dst = out.device_data_raw();
  const void* ids = indices.device_data_raw();
  visit_bits(dtype_size(params.dtype()), [&](auto tag) {
    using U = typename decltype(tag)::type;
    if (indices.dtype() == DType::int64) {
      thrust::for_each(policy(), Counting(0), Counting(total),
                       GatherRows<U, std::int64_t>{static_cast<const U*>(src),
                                                   static_cast<const std::int64_t*>(ids),
                                                   static_cast<U*>(dst), n, limit, inner});
    } else {
      thrust::for_each(policy(), Counting(0), Counting(total),
                       GatherRows<U, std::int32_t>{static_cast<const U*>(src),
                                                   static_cast<const std::int32_t*>(ids),
                                                   static_cast<U*>(dst), n, limit, inner});
    }
  });
}

// Output row s is the sum of the data rows rows[offsets[s]], ..., rows[offsets[s+1]-1],
// added in ascending row order from zero: the CPU kernel's order, so the sums are equal
// bit for bit.
template <class T>
struct SegmentSum {
  const T* data;
  const Index* offsets;
  const Index* rows;
  T* out;
  Index inner;
  SYMFLOW_HD void operator()(Index o) const {
    const Index s = o / inner;
    const Index k = o % inner;
    T acc = T(0);
    for (Index q = offsets[s]; q < offsets[s + 1]; ++q)
      acc = symflow::detail::add_wrapping(acc, data[rows[q] * inner + k]);
    out[o] = acc;
  }
};

inline void unsorted_segment_sum_kernel(KernelContext& ctx) {
  const Value& data = ctx.input(0);
  const Index segments = tr::scalar_index(host_value(ctx.input(2)));
  const tr::SegmentPlan plan =
      tr::segment_plan(ctx, data.dims(), host_value(ctx.input(1)), segments);
  const Dims& ids = plan.ids;
  const Dims& out_dims = plan.out_dims;
  const Index inner = plan.inner;
  visit_dtype(data.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_number_v<T>) {
      Value& out = output(ctx, 0, data.dtype(), out_dims);
      const Index total = out.size();
      if (total == 0) return;
      // The rows of each segment, in ascending order (a counting sort on the host);
      // negative ids are dropped, as TensorFlow does.
      std::vector<Index> offsets(static_cast<std::size_t>(segments) + 1, 0);
      for (Index id : ids)
        if (id >= 0) ++offsets[static_cast<std::size_t>(id) + 1];
      for (std::size_t s = 0; s < static_cast<std::size_t>(segments); ++s)
        offsets[s + 1] += offsets[s];
      std::vector<Index> rows(static_cast<std::size_t>(offsets.back()));
      std::vector<Index> next(offsets.begin(), offsets.end() - 1);
      for (std::size_t i = 0; i < ids.size(); ++i)
        if (ids[i] >= 0)
          rows[static_cast<std::size_t>(next[static_cast<std::size_t>(ids[i])]++)] =
              static_cast<Index>(i);
      Value d_offsets = device_int64(offsets);
      Value d_rows = device_int64(rows);
      thrust::for_each(policy(), Counting(0), Counting(total),
                       SegmentSum<T>{data.device_data<T>(), d_offsets.device_data<Index>(),
                                     d_rows.device_data<Index>(), out.device_data<T>(), inner});
    } else {
      unsupported_dtype(ctx, data.dtype());
    }
  });
}

// ---- Pad, PadV2 ---------------------------------------------------------------------------

// Each output element: the input element it covers, or the constant (zero without one).
template <class U>
struct PadGather {
  const U* in;
  U* out;
  const U* constant;  // null: zero
  int rank;
  Index out_dims[kMaxDims];
  Index in_dims[kMaxDims];
  Index before[kMaxDims];
  SYMFLOW_HD void operator()(Index o) const {
    Index i = o;
    Index s = 0;
    Index stride = 1;
    bool inside = true;
    for (int a = rank - 1; a >= 0; --a) {
      const Index q = i % out_dims[a] - before[a];
      i /= out_dims[a];
      if (q < 0 || q >= in_dims[a]) inside = false;
      s += q * stride;
      stride *= in_dims[a];
    }
    out[o] = inside ? in[s] : (constant ? *constant : U(0));
  }
};

inline void pad_kernel(KernelContext& ctx) {
  const Value& x = ctx.input(0);
  const std::pair<Dims, Dims> plan = tr::pad_plan(ctx, x.dims(), host_value(ctx.input(1)));
  const Dims& pads = plan.first;  // (named: the functor setup below captures them)
  const Dims& out_dims = plan.second;
  const Value* v = tr::pad_constant(ctx);
  const void* constant = v ? v->device_data_raw() : nullptr;
  Value& out = output(ctx, 0, x.dtype(), out_dims);
  const Index n = out.size();
  if (n == 0) return;
  // Dims of size 1 in and out (no padding) change nothing: leave them out.
  std::vector<std::size_t> keep;
  for (std::size_t a = 0; a < out_dims.size(); ++a)
    if (out_dims[a] != 1 || x.dims()[a] != 1) keep.push_back(a);
  if (keep.size() > static_cast<std::size_t>(kMaxDims))
    too_many_dims(ctx, ctx.num_inputs() == 3 ? "PadV2" : "Pad", out_dims.size());
  const void* src = x.device_data_raw();
  void* dst = out.device_data_raw();
  visit_bits(dtype_size(x.dtype()), [&](auto tag) {
    using U = typename decltype(tag)::type;
    PadGather<U> f{static_cast<const U*>(src),
                   static_cast<U*>(dst),
                   static_cast<const U*>(constant),
                   static_cast<int>(keep.size()),
                   {},
                   {},
                   {}};
    for (std::size_t k = 0; k < keep.size(); ++k) {
      f.out_dims[k] = out_dims[keep[k]];
      f.in_dims[k] = x.dims()[keep[k]];
      f.before[k] = pads[2 * keep[k]];
    }
    thrust::for_each(policy(), Counting(0), Counting(n), f);
  });
}

// ---- SpaceToBatchND, BatchToSpaceND -------------------------------------------------------

// Each output element from its index (the mapping of tr::SpaceBatchPlan): SpaceToBatchND
// reads the space-side element a batch-side index stands for (zero in the padding);
// BatchToSpaceND reads the batch-side element of a space-side (cropped) index.
template <class U>
struct SpaceBatchGather {
  const U* in;
  U* out;
  bool to_batch;
  int m;
  Index space_batch;
  Index inner;
  Index block[kMaxDims];
  Index edge[kMaxDims];
  Index space_spatial[kMaxDims];
  Index batch_spatial[kMaxDims];
  SYMFLOW_HD void operator()(Index o) const {
    const Index r = o % inner;
    Index row = o / inner;
    Index pos[kMaxDims];
    if (to_batch) {
      for (int i = m - 1; i >= 0; --i) {
        pos[i] = row % batch_spatial[i];
        row /= batch_spatial[i];
      }
      const Index b = row % space_batch;
      Index blk = row / space_batch;
      Index src = b;
      bool inside = true;
      for (int i = m - 1; i >= 0; --i) {
        pos[i] = pos[i] * block[i] + blk % block[i] - edge[i];
        blk /= block[i];
      }
      for (int i = 0; i < m; ++i) {
        if (pos[i] < 0 || pos[i] >= space_spatial[i]) inside = false;
        src = src * space_spatial[i] + pos[i];
      }
      out[o] = inside ? in[src * inner + r] : U(0);
    } else {
      for (int i = m - 1; i >= 0; --i) {
        pos[i] = row % space_spatial[i] + edge[i];
        row /= space_spatial[i];
      }
      Index blk = 0;
      for (int i = 0; i < m; ++i) blk = blk * block[i] + pos[i] % block[i];
      Index src = blk * space_batch + row;
      for (int i = 0; i < m; ++i) src = src * batch_spatial[i] + pos[i] / block[i];
      out[o] = in[src * inner + r];
    }
  }
};

inline void space_batch_kernel(KernelContext& ctx, bool to_batch) {
  const Value& x = ctx.input(0);
  const tr::SpaceBatchPlan plan = tr::space_batch_plan(
      ctx, to_batch, x.dims(), host_value(ctx.input(1)), host_value(ctx.input(2)));
  Value& out = output(ctx, 0, x.dtype(), plan.out_dims);
  const Index n = out.size();
  if (n == 0) return;
  if (plan.block.size() > static_cast<std::size_t>(kMaxDims))
    too_many_dims(ctx, to_batch ? "SpaceToBatchND" : "BatchToSpaceND", plan.block.size());
  const void* src = x.device_data_raw();
  void* dst = out.device_data_raw();
  visit_bits(dtype_size(x.dtype()), [&](auto tag) {
    using U = typename decltype(tag)::type;
    SpaceBatchGather<U> f{static_cast<const U*>(src),
                          static_cast<U*>(dst),
                          to_batch,
                          static_cast<int>(plan.block.size()),
                          plan.space_batch,
                          plan.inner,
                          {},
                          {},
                          {},
                          {}};
    for (std::size_t k = 0; k < plan.block.size(); ++k) {
      f.block[k] = plan.block[k];
      f.edge[k] = plan.edge_before[k];
      f.space_spatial[k] = plan.space_spatial[k];
      f.batch_spatial[k] = plan.batch_spatial[k];
    }
    thrust::for_each(policy(), Counting(0), Counting(n), f);
  });
}

inline void space_to_batch_nd_kernel(KernelContext& ctx) { space_batch_kernel(ctx, true); }
inline void batch_to_space_nd_kernel(KernelContext& ctx) { space_batch_kernel(ctx, false); }

// ---- OneHot -------------------------------------------------------------------------------

// indices as [prefix, suffix]; out as [prefix, depth, suffix]. An index out of
// [0, depth) matches no position: its row is all off_value.
template <class U, class I>
struct OneHotFill {
  const I* indices;
  const U* on;
  const U* off;
  U* out;
  Index depth, suffix;
  SYMFLOW_HD void operator()(Index o) const {
    const Index s = o % suffix;
    const Index t = o / suffix;
    const Index d = t % depth;
    const Index p = t / depth;
    out[o] = static_cast<Index>(indices[p * suffix + s]) == d ? *on : *off;
  }
};

inline void one_hot_kernel(KernelContext& ctx) {
  const Value& indices = ctx.input(0);
  Index depth = tr::scalar_index(host_value(ctx.input(1)));
  const Value& on = ctx.input(2);
  const Value& off = ctx.input(3);
  auto rank = static_cast<Index>(indices.rank());
  Index axis = ctx.attr<std::int64_t>("axis");
  if (axis != -1 && (axis < 0 || axis > rank))
    ctx.fail("Expected axis to be -1 or between [0, " + tr::str(rank + 1) +
             ").  But received: " + tr::str(axis));
  if (depth < 0) ctx.fail("depth must be non-negative, got: " + tr::str(depth));
  if (on.rank() != 0) ctx.fail("on_value must be a scalar, but got: " + dims_to_string(on.dims()));
  if (off.rank() != 0)
    ctx.fail("off_value must be a scalar, but got: " + dims_to_string(off.dims()));
  if (on.dtype() != off.dtype())
    throw TypeError("Value holds " + std::string(dtype_name(off.dtype())) + ", not " +
                    std::string(dtype_name(on.dtype())));
  const DType index_type = indices.dtype();
  if (index_type != DType::uint8 && !symflow::detail::is_index_dtype(index_type))
    throw TypeError("A shape argument must be int32 or int64, got " +
                    std::string(dtype_name(index_type)));
  auto a = static_cast<std::size_t>(axis == -1 ? rank : axis);
  Dims out_dims = indices.dims();
  out_dims.insert(out_dims.begin() + static_cast<std::ptrdiff_t>(a), depth);
  Value& out = output(ctx, 0, on.dtype(), out_dims);
  const Index n = out.size();
  if (n == 0) return;
  Index suffix = 1;
  for (std::size_t i = a; i < indices.dims().size(); ++i) suffix *= indices.dims()[i];
  const void* ids = indices.device_data_raw();
  const void* on_p = on.device_data_raw();
  const void* off_p = off.device_data_raw();
  void* dst = out.device_data_raw();
  visit_bits(dtype_size(on.dtype()), [&](auto tag) {
    using U = typename decltype(tag)::type;
    auto launch = [&](auto index_tag) {
      using I = typename decltype(index_tag)::type;
      thrust::for_each(
          policy(), Counting(0), Counting(n),
          OneHotFill<U, I>{static_cast<const I*>(ids), static_cast<const U*>(on_p),
                           static_cast<const U*>(off_p), static_cast<U*>(dst), depth, suffix});
    };
    if (index_type == DType::uint8)
      launch(TypeTag<std::uint8_t>{});
    else if (index_type == DType::int32)
      launch(TypeTag<std::int32_t>{});
    else
      launch(TypeTag<std::int64_t>{});
  });
}

// ---- Range --------------------------------------------------------------------------------

// Integers: start + i * delta in wrapping arithmetic, which equals the CPU's wrapping
// accumulation exactly.
template <class T>
struct RangeIntegers {
  T start, delta;
  T* out;
  SYMFLOW_HD void operator()(Index i) const {
    using U = std::make_unsigned_t<T>;
    out[i] = static_cast<T>(static_cast<U>(
        static_cast<U>(start) + static_cast<U>(static_cast<U>(i) * static_cast<U>(delta))));
  }
};

// Floats: accumulated one step at a time, as TensorFlow's (CPU and, in 1.x, host-memory
// GPU) kernels do, so the roundings are the CPU's (0.3 * 3 is 0.90000004f); one device
// thread walks the range, which Range's small sizes afford.
template <class T>
struct RangeAccumulated {
  T start, delta;
  T* out;
  Index n;
  SYMFLOW_HD void operator()(Index) const {
    T v = start;
    for (Index i = 0; i < n; ++i) {
      out[i] = v;
      v = v + delta;
    }
  }
};

inline void range_kernel(KernelContext& ctx) {
  tr::check_range_inputs(ctx);
  visit_dtype(ctx.input(0).dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, std::uint8_t>) {
      unsupported_dtype(ctx, ctx.input(0).dtype());
    } else {
      T start = host_vector<T>(ctx.input(0))[0], limit = host_vector<T>(ctx.input(1))[0];
      T delta = host_vector<T>(ctx.input(2))[0];
      const Index n = tr::kernel_range_size(ctx, start, limit, delta);
      Value& out = output(ctx, 0, dtype_v<T>, {n});
      if (n == 0) return;
      if constexpr (std::is_integral_v<T>) {
        thrust::for_each(policy(), Counting(0), Counting(n),
                         RangeIntegers<T>{start, delta, out.device_data<T>()});
      } else {
        thrust::for_each(policy(), Counting(0), Counting(1),
                         RangeAccumulated<T>{start, delta, out.device_data<T>(), n});
      }
    }
  });
}

// ---- Where --------------------------------------------------------------------------------

// Counting and compacting without thrust::count_if / copy_if: on Thrust's host systems
// those reduce or scan through temporaries whose thrust::reference binds a null
// execution_policy (undefined behaviour that UBSan reports). An inclusive scan of 0/1 (or
// bit) flags read through raw pointers, and a for_each over the positions, touch no such
// temporary, and do the same work on CUDA.

// 1 where x is non-zero, else 0 (Where's hits).
template <class T>
struct NonZeroFlag {
  SYMFLOW_HD Index operator()(T x) const { return x != T(0) ? 1 : 0; }
};

struct PlusIndex {
  SYMFLOW_HD Index operator()(Index a, Index b) const { return a + b; }
};

// Where's rows: for each hit i (x[i] != 0), row ranks[i] - 1 of the output gets the
// coordinates of flat position i (ranks: the inclusive count of hits up to i).
template <class T>
struct WhereCoords {
  const T* x;
  const Index* ranks;
  Index* out;
  int rank;
  Index dims[kMaxDims];
  Index strides[kMaxDims];
  SYMFLOW_HD void operator()(Index i) const {
    if (x[i] == T(0)) return;
    Index* row = out + (ranks[i] - 1) * rank;
    for (int a = 0; a < rank; ++a) row[a] = (i / strides[a]) % dims[a];
  }
};

// Element i of a device array, read on the host.
template <class T>
T device_element(const T* data, Index i) {
  T v{};
  thrust::copy_n(thrust::device_pointer_cast(data + i), 1, &v);
  return v;
}

template <class T>
void where_on_device(KernelContext& ctx, const Value& cond) {
  const Dims& d = cond.dims();
  const Index n = cond.size();
  const auto rank = static_cast<Index>(d.size());
  if (n == 0) {
    output(ctx, 0, DType::int64, {0, rank});
    return;
  }
  const T* x = in_raw<T>(ctx, 0);
  // ranks[i]: how many of x[0..i] are non-zero; the last one is the row count.
  Value ranks = empty_device_value(DType::int64, {n});
  Index* ranks_p = ranks.device_data<Index>();
  thrust::inclusive_scan(policy(), thrust::make_transform_iterator(x, NonZeroFlag<T>{}),
                         thrust::make_transform_iterator(x + n, NonZeroFlag<T>{}), ranks_p,
                         PlusIndex{});
  const Index count = device_element(ranks_p, n - 1);
  Value& out = output(ctx, 0, DType::int64, {count, rank});
  if (count == 0) return;
  Dims strides = tr::row_major_strides(d);
  WhereCoords<T> f{x, ranks_p, out.device_data<Index>(), static_cast<int>(rank), {}, {}};
  for (std::size_t a = 0; a < d.size(); ++a) {
    f.dims[a] = d[a];
    f.strides[a] = strides[a];
  }
  // Positions ascend with i, so rows come in row-major order, as on the CPU.
  thrust::for_each(policy(), Counting(0), Counting(n), f);
}

inline void where_kernel(KernelContext& ctx) {
  const Value& in = ctx.input(0);
  const Dims& d = in.dims();
  if (d.empty()) ctx.fail("WhereOp : Unhandled input dimensions: 0");
  if (d.size() > static_cast<std::size_t>(kMaxDims)) too_many_dims(ctx, "Where", d.size());
  visit_dtype(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    where_on_device<T>(ctx, in);
  });
}

// ---- BroadcastGradientArgs ------------------------------------------------------------------

// Host-computed (a HostMemory kernel in TensorFlow), copied to the device.
inline void broadcast_gradient_args_kernel(KernelContext& ctx) {
  Dims s0 = host_ints(ctx.input(0)), s1 = host_ints(ctx.input(1));
  auto axes = symflow::detail::broadcast_gradient_axes(s0, s1);
  if (!axes) ctx.fail("Incompatible shapes: " + dims_to_string(s0) + " vs. " + dims_to_string(s1));
  const DType dtype = ctx.input(0).dtype();
  ctx.set_output(0, copy_to_device(symflow::detail::index_vector(axes->first, dtype)));
  ctx.set_output(1, copy_to_device(symflow::detail::index_vector(axes->second, dtype)));
}

// ---- CheckNumerics --------------------------------------------------------------------------

// Bit 1 for a NaN, bit 2 for an infinity.
inline constexpr std::uint8_t kSawNan = 1, kSawInf = 2;

template <class T>
struct NonFiniteBits {
  SYMFLOW_HD std::uint8_t operator()(T x) const {
    return static_cast<std::uint8_t>((symflow::detail::IsNanFn{}(x) ? kSawNan : 0) |
                                     (symflow::detail::IsInfFn{}(x) ? kSawInf : 0));
  }
};

struct BitOr {
  SYMFLOW_HD std::uint8_t operator()(std::uint8_t a, std::uint8_t b) const {
    return static_cast<std::uint8_t>(a | b);
  }
};

// Finds NaNs and infinities on the device (an inclusive OR-scan of their bits, whose last
// element says which kinds occur), and fails with the CPU kernel's text; the output is the
// input's buffer.
inline void check_numerics_kernel(KernelContext& ctx) {
  const Value& input = ctx.input(0);
  visit_dtype(input.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T>) {
      const Index n = input.size();
      std::uint8_t seen = 0;
      if (n > 0) {
        const T* x = in_raw<T>(ctx, 0);
        Value bits = empty_device_value(DType::uint8, {n});
        auto* bits_p = bits.device_data<std::uint8_t>();
        thrust::inclusive_scan(policy(), thrust::make_transform_iterator(x, NonFiniteBits<T>{}),
                               thrust::make_transform_iterator(x + n, NonFiniteBits<T>{}), bits_p,
                               BitOr{});
        seen = device_element(bits_p, n - 1);
      }
      const std::string error = symflow::detail::check_numerics_error(
          ctx.attr<std::string>("message"), (seen & kSawNan) != 0, (seen & kSawInf) != 0);
      if (!error.empty()) ctx.fail(error);
    } else {
      unsupported_dtype(ctx, input.dtype());
    }
  });
  ctx.set_output(0, input);
}

}  // namespace array_kernels

inline constexpr auto kArrayKernels = std::to_array<KernelEntry>({
    {&symflow::detail::kReshapeOp, array_kernels::reshape_kernel},
    {&symflow::detail::kShapeOp, array_kernels::shape_kernel},
    {&symflow::detail::kSizeOp, array_kernels::size_kernel},
    {&symflow::detail::kRankOp, array_kernels::rank_kernel},
    {&symflow::detail::kExpandDimsOp, array_kernels::expand_dims_kernel},
    {&symflow::detail::kSqueezeOp, array_kernels::squeeze_kernel},
    {&symflow::detail::kBroadcastToOp, array_kernels::broadcast_to_kernel},
    {&symflow::detail::kTileOp, array_kernels::tile_kernel},
    {&symflow::detail::transform::kTransposeOp, array_kernels::transpose_kernel},
    {&symflow::detail::transform::kInvertPermutationOp, array_kernels::invert_permutation_kernel},
    {&symflow::detail::transform::kConcatV2Op, array_kernels::concat_kernel},
    {&symflow::detail::transform::kConcatOffsetOp, array_kernels::concat_offset_kernel},
    {&symflow::detail::transform::kPackOp, array_kernels::pack_kernel},
    {&symflow::detail::transform::kUnpackOp, array_kernels::unpack_kernel},
    {&symflow::detail::transform::kSplitOp, array_kernels::split_kernel},
    {&symflow::detail::transform::kSplitVOp, array_kernels::split_v_kernel},
    {&symflow::detail::transform::kSliceOp, array_kernels::slice_kernel},
    {&symflow::detail::transform::kStridedSliceOp, array_kernels::strided_slice_kernel},
    {&symflow::detail::transform::kStridedSliceGradOp, array_kernels::strided_slice_grad_kernel},
    {&symflow::detail::transform::kGatherV2Op, array_kernels::gather_kernel},
    {&symflow::detail::transform::kUnsortedSegmentSumOp,
     array_kernels::unsorted_segment_sum_kernel},
    {&symflow::detail::transform::kPadOp, array_kernels::pad_kernel},
    {&symflow::detail::transform::kPadV2Op, array_kernels::pad_kernel},
    {&symflow::detail::transform::kSpaceToBatchNDOp, array_kernels::space_to_batch_nd_kernel},
    {&symflow::detail::transform::kBatchToSpaceNDOp, array_kernels::batch_to_space_nd_kernel},
    {&symflow::detail::transform::kOneHotOp, array_kernels::one_hot_kernel},
    {&symflow::detail::transform::kRangeOp, array_kernels::range_kernel},
    {&symflow::detail::kWhereOp, array_kernels::where_kernel},
    {&symflow::detail::kBroadcastGradientArgsOp, array_kernels::broadcast_gradient_args_kernel},
    {&symflow::detail::kCheckNumericsOp, array_kernels::check_numerics_kernel},
});

}  // namespace symflow::thrust_backend
