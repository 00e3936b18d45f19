#pragma once
// The CPU kernels of the array transformations (ops/defs/transform.hpp describes them),
// the checks and plans they share with the GPU kernels, and kTransformCpuKernels, their
// entries in the CPU backend's kernel table.
//
// Most of these ops only move elements, so their kernels copy bytes through strided
// views and work for every dtype without a template per element type.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "symflow/backend/cpu/kernel_table.hpp"
#include "symflow/backend/cpu/kernels/math.hpp"
#include "symflow/backend/kernel_context.hpp"
#include "symflow/core/attr_value.hpp"
#include "symflow/core/dtype.hpp"
#include "symflow/core/shape.hpp"
#include "symflow/core/value.hpp"
#include "symflow/ops/defs/math.hpp"
#include "symflow/ops/defs/shape_fn.hpp"
#include "symflow/ops/defs/transform.hpp"

namespace symflow::detail {

namespace transform {

// ---- Transpose, InvertPermutation -------------------------------------------------

// Transpose's perm (a host value) checked against x's dims (the CPU and GPU kernels share
// it); returns the output's dims and the view of x that reads it in output order.
inline std::pair<Dims, View> transpose_plan(const KernelContext& ctx, const Dims& x_dims,
                                            const Value& p) {
  if (p.rank() != 1) ctx.fail("perm must be a vector, not " + dims_to_string(p.dims()));
  Dims perm = shape_argument(p);
  auto rank = static_cast<std::int64_t>(x_dims.size());
  if (static_cast<std::int64_t>(perm.size()) != rank)
    ctx.fail("transpose expects a vector of size " + str(rank) +
             ". But input(1) is a vector of size " + str(static_cast<std::int64_t>(perm.size())));
  std::vector<bool> seen(perm.size(), false);
  Dims out_dims;
  Dims in_strides = row_major_strides(x_dims);
  View src{{}, 0};
  for (auto d : perm) {
    if (d < 0 || d >= rank) ctx.fail(str(d) + " is out of range [0 .. " + str(rank) + ")");
    seen[static_cast<std::size_t>(d)] = true;
    out_dims.push_back(x_dims[static_cast<std::size_t>(d)]);
    src.strides.push_back(in_strides[static_cast<std::size_t>(d)]);
  }
  for (std::size_t i = 0; i < seen.size(); ++i) {
    if (seen[i]) continue;
    std::string list;
    for (std::size_t j = 0; j < perm.size(); ++j) list += (j ? "," : "") + str(perm[j]);
    ctx.fail(str(static_cast<std::int64_t>(i)) + " is missing from {" + list + "}.");
  }
  return {std::move(out_dims), std::move(src)};
}

inline void transpose_kernel(KernelContext& ctx) {
  const Value& x = ctx.input(0);
  const auto [out_dims, src] = transpose_plan(ctx, x.dims(), ctx.input(1));
  Value& out = ctx.allocate_output_for_overwrite(0, x.dtype(), out_dims);
  copy_box(x.raw_data(), src, out.raw_data(), contiguous(out_dims), out_dims,
           dtype_size(x.dtype()));
}

inline void invert_permutation_kernel(KernelContext& ctx) {
  const Value& x = ctx.input(0);
  if (x.rank() != 1) ctx.fail("invert_permutation expects a 1D vector.");
  Dims perm = shape_argument(x);
  auto n = static_cast<std::int64_t>(perm.size());
  std::vector<std::int64_t> inverse(perm.size(), -1);
  for (std::int64_t i = 0; i < n; ++i) {
    std::int64_t d = perm[static_cast<std::size_t>(i)];
    if (d < 0 || d >= n) ctx.fail(str(d) + " is not between 0 and " + str(n));
    if (inverse[static_cast<std::size_t>(d)] != -1)
      ctx.fail(str(d) + " is duplicated in the input.");
    inverse[static_cast<std::size_t>(d)] = i;
  }
  ctx.set_output(
      0, x.dtype() == DType::int32 ? int32_vector(inverse) : Value::from_vector(inverse, x.dims()));
}

// ---- ConcatV2, ConcatOffset -------------------------------------------------------

// ConcatV2's axis (read from the last input) and its n inputs' shapes checked (the CPU and
// GPU kernels share it); returns the axis, from 0, and the output's dims.
inline std::pair<std::size_t, Dims> concat_plan(const KernelContext& ctx, std::size_t n,
                                                std::int64_t axis) {
  const Value& first = ctx.input(0);
  std::int64_t rank = first.rank();
  if (axis < -rank || axis >= rank)
    ctx.fail("ConcatOp : Expected concatenating dimensions in the range [" + str(-rank) + ", " +
             str(rank) + "), but got " + str(axis));
  auto a = static_cast<std::size_t>(axis < 0 ? axis + rank : axis);
  Dims out_dims = first.dims();
  out_dims[a] = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const Value& v = ctx.input(i);
    std::string shapes = "shape[0] = " + dims_to_string(first.dims()) + " vs. shape[" +
                         str(static_cast<std::int64_t>(i)) + "] = " + dims_to_string(v.dims());
    if (v.rank() != first.rank())
      ctx.fail("ConcatOp : Ranks of all input tensors should match: " + shapes);
    for (std::size_t d = 0; d < v.dims().size(); ++d)
      if (d != a && v.dims()[d] != first.dims()[d])
        ctx.fail("ConcatOp : Dimension " + str(static_cast<std::int64_t>(d)) +
                 " in both shapes must be equal: " + shapes);
    out_dims[a] += v.dims()[a];
  }
  return {a, std::move(out_dims)};
}

inline void concat_kernel(KernelContext& ctx) {
  std::size_t n = ctx.num_inputs() - 1;
  const auto [a, out_dims] = concat_plan(ctx, n, scalar_index(ctx.input(n)));
  std::vector<const Value*> parts;
  for (std::size_t i = 0; i < n; ++i) parts.push_back(&ctx.input(i));
  Value& out = ctx.allocate_output_for_overwrite(0, ctx.input(0).dtype(), out_dims);
  concat_into(parts, a, out);
}

// ConcatOffset's shapes checked and each input's offset (the CPU and GPU kernels share it).
// host(i) is input i as a host value.
template <class Host>
std::vector<Dims> concat_offsets(const KernelContext& ctx, Host host) {
  std::size_t n = ctx.num_inputs() - 1;
  Dims first = shape_argument(host(1));
  auto rank = static_cast<std::int64_t>(first.size());
  std::int64_t axis = scalar_index(host(0));
  // TensorFlow wants 0 <= axis < rank; a negative axis counts from the end here, so the
  // gradient needs no FloorMod.
  if (axis < -rank || axis >= rank)
    ctx.fail("Concat dim is out of range: " + str(axis) + " vs. " + str(rank));
  auto a = static_cast<std::size_t>(axis < 0 ? axis + rank : axis);
  std::int64_t at = 0;
  std::vector<Dims> offsets;
  for (std::size_t i = 0; i < n; ++i) {
    Dims s = shape_argument(host(i + 1));
    if (s.size() != first.size())
      ctx.fail("input " + str(static_cast<std::int64_t>(i)) + " should contain " + str(rank) +
               " elements, but got " + str(static_cast<std::int64_t>(s.size())));
    for (std::size_t d = 0; d < s.size(); ++d)
      if (d != a && s[d] != first[d])
        ctx.fail("All dimensions except " + str(axis) + " must match. Input " +
                 str(static_cast<std::int64_t>(i)) + " has shape " + dims_to_string(s) +
                 " and doesn't match input 0 with shape " + dims_to_string(first) + ".");
    Dims offset(s.size(), 0);
    offset[a] = at;
    at += s[a];
    offsets.push_back(std::move(offset));
  }
  return offsets;
}

inline void concat_offset_kernel(KernelContext& ctx) {
  const std::vector<Dims> offsets =
      concat_offsets(ctx, [&](std::size_t i) -> const Value& { return ctx.input(i); });
  for (std::size_t i = 0; i < offsets.size(); ++i) ctx.set_output(i, int32_vector(offsets[i]));
}

// ---- Pack, Unpack -------------------------------------------------------------------

// Pack's axis and inputs' shapes checked (the CPU and GPU kernels share it); returns the
// new axis and the shape each value takes as a slab of size 1 along it.
inline std::pair<std::size_t, Dims> pack_plan(const KernelContext& ctx) {
  const Value& first = ctx.input(0);
  auto rank = static_cast<std::int64_t>(first.rank());
  std::int64_t axis = ctx.attr<std::int64_t>("axis");
  if (axis < -(rank + 1) || axis > rank)
    ctx.fail("axis = " + str(axis) + " not in [" + str(-(rank + 1)) + ", " + str(rank + 1) + ")");
  auto a = static_cast<std::size_t>(axis < 0 ? axis + rank + 1 : axis);
  Dims slab = first.dims();
  slab.insert(slab.begin() + static_cast<std::ptrdiff_t>(a), 1);
  for (std::size_t i = 0; i < ctx.num_inputs(); ++i) {
    const Value& v = ctx.input(i);
    if (v.dims() != first.dims())
      ctx.fail("Shapes of all inputs must match: values[0].shape = " +
               dims_to_string(first.dims()) + " != values[" + str(static_cast<std::int64_t>(i)) +
               "].shape = " + dims_to_string(v.dims()));
  }
  return {a, std::move(slab)};
}

inline void pack_kernel(KernelContext& ctx) {
  const Value& first = ctx.input(0);
  const auto [a, slab] = pack_plan(ctx);
  std::vector<Value> parts;
  std::vector<const Value*> ptrs;
  for (std::size_t i = 0; i < ctx.num_inputs(); ++i) parts.push_back(ctx.input(i).reshaped(slab));
  for (const Value& p : parts) ptrs.push_back(&p);
  Dims out_dims = slab;
  out_dims[a] = static_cast<std::int64_t>(ctx.num_inputs());
  Value& out = ctx.allocate_output_for_overwrite(0, first.dtype(), out_dims);
  concat_into(ptrs, a, out);
}

inline void unpack_kernel(KernelContext& ctx) {
  const Value& x = ctx.input(0);
  auto num = ctx.attr<std::int64_t>("num");
  auto rank = static_cast<std::int64_t>(x.rank());
  std::int64_t axis = ctx.attr<std::int64_t>("axis");
  if (axis < -rank || axis >= rank)
    ctx.fail("axis = " + str(axis) + " not in [" + str(-rank) + ", " + str(rank) + ")");
  auto a = static_cast<std::size_t>(axis < 0 ? axis + rank : axis);
  if (rank == 0 || x.dims()[a] != num)
    ctx.fail("Input shape axis " + str(axis) + " must equal " + str(num) + ", got shape " +
             dims_to_string(x.dims()));
  Dims out_dims = x.dims();
  out_dims.erase(out_dims.begin() + static_cast<std::ptrdiff_t>(a));
  for (std::int64_t i = 0; i < num; ++i)
    ctx.set_output(static_cast<std::size_t>(i), slice_along(x, a, i, 1).reshaped(out_dims));
}

// ---- Split, SplitV ------------------------------------------------------------------

inline std::size_t runtime_split_axis(KernelContext& ctx, const Value& x, std::int64_t axis) {
  auto rank = static_cast<std::int64_t>(x.rank());
  if (axis < -rank || axis >= rank)
    ctx.fail("-input rank(-" + str(rank) + ") <= split_dim < input rank (" + str(rank) +
             "), but got " + str(axis));
  return static_cast<std::size_t>(axis < 0 ? axis + rank : axis);
}

inline void split_pieces(KernelContext& ctx, const Value& x, std::size_t axis, const Dims& sizes) {
  std::int64_t at = 0;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    ctx.set_output(i, slice_along(x, axis, at, sizes[i]));
    at += sizes[i];
  }
}

inline void split_kernel(KernelContext& ctx) {
  const Value& x = ctx.input(1);
  std::int64_t axis_in = scalar_index(ctx.input(0));
  std::size_t axis = runtime_split_axis(ctx, x, axis_in);
  auto n = ctx.attr<std::int64_t>("num_split");
  std::int64_t size = x.dims()[axis];
  if (size % n != 0)
    ctx.fail(
        "Number of ways to split should evenly divide the split dimension, but got split_dim " +
        str(axis_in) + " (size = " + str(size) + ") and num_split " + str(n));
  split_pieces(ctx, x, axis, Dims(static_cast<std::size_t>(n), size / n));
}

// SplitV's size_splits with its one -1 resolved against the axis length `total`, checked as
// TensorFlow's kernel checks them, each size then >= 0 (the CPU and GPU kernels share it).
inline void resolve_split_sizes(const KernelContext& ctx, Dims& sizes, std::int64_t total) {
  int neg_one = -1;
  std::int64_t determined = 0;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == -1) {
      if (neg_one >= 0) ctx.fail("There can only be one -1 in the input.");
      neg_one = static_cast<int>(i);
    } else {
      determined += sizes[i];
    }
  }
  if (!((neg_one < 0 && determined == total) || (neg_one >= 0 && determined <= total)))
    ctx.fail(
        "Determined shape must either match input shape along split_dim exactly if fully "
        "specified, or be less than the size of the input along split_dim if not fully "
        "specified.  Got: " +
        str(determined));
  if (neg_one >= 0) sizes[static_cast<std::size_t>(neg_one)] = total - determined;
  for (std::size_t i = 0; i < sizes.size(); ++i)
    if (sizes[i] < 0)
      ctx.fail("Split size at index " + str(static_cast<std::int64_t>(i)) +
               " must be >= 0. Got: " + str(sizes[i]));
}

// SplitV's size_splits input: one size per output (the CPU and GPU kernels share it).
inline void check_split_v_sizes(const KernelContext& ctx, const Value& s) {
  auto n = ctx.attr<std::int64_t>("num_split");
  if (s.rank() != 1 || s.size() != n)
    ctx.fail("size of the split_tensor must be 1-D and have the same elements as outputs got " +
             str(s.rank()) + " -D and " + str(s.size()) + " elements");
}

inline void split_v_kernel(KernelContext& ctx) {
  const Value& x = ctx.input(0);
  const Value& s = ctx.input(1);
  check_split_v_sizes(ctx, s);
  std::size_t axis = runtime_split_axis(ctx, x, scalar_index(ctx.input(2)));
  Dims sizes = shape_argument(s);
  resolve_split_sizes(ctx, sizes, x.dims()[axis]);
  split_pieces(ctx, x, axis, sizes);
}

// ---- Slice ----------------------------------------------------------------------------

// Slice's begin and size (host values) checked against x's dims, a size of -1 resolved (the
// CPU and GPU kernels share it); returns the output's dims and the view of x it reads.
inline std::pair<Dims, View> slice_plan(const KernelContext& ctx, const Dims& x_dims,
                                        const Value& bv, const Value& sv) {
  auto rank = static_cast<std::int64_t>(x_dims.size());
  if (bv.rank() != 1 || sv.rank() != 1 || bv.size() != rank || sv.size() != rank)
    ctx.fail("Expected begin and size arguments to be 1-D tensors of size " + str(rank) +
             ", but got shapes " + dims_to_string(bv.dims()) + " and " + dims_to_string(sv.dims()) +
             " instead.");
  Dims begin = shape_argument(bv), size = shape_argument(sv);
  Dims strides = row_major_strides(x_dims);
  View src{strides, 0};
  for (std::size_t i = 0; i < begin.size(); ++i) {
    std::int64_t dim = x_dims[i], b = begin[i];
    std::int64_t& s = size[i];
    if (s == -1) s = dim - b;
    std::string k = str(static_cast<std::int64_t>(i));
    if (dim == 0) {
      if (b != 0 || s != 0)
        ctx.fail("Expected begin[" + k + "] == 0 (got " + str(b) + ") and size[" + k +
                 "] == 0 (got " + str(s) + ") when input.dim_size(" + k + ") == 0");
    } else {
      if (b < 0 || b > dim)
        ctx.fail("Expected begin[" + k + "] in [0, " + str(dim) + "], but got " + str(b));
      if (s < 0 || b + s > dim)
        ctx.fail("Expected size[" + k + "] in [0, " + str(dim - b) + "], but got " + str(s));
    }
    src.offset += b * strides[i];
  }
  return {std::move(size), std::move(src)};
}

inline void slice_kernel(KernelContext& ctx) {
  const Value& x = ctx.input(0);
  const auto [size, src] = slice_plan(ctx, x.dims(), ctx.input(1), ctx.input(2));
  Value& out = ctx.allocate_output_for_overwrite(0, x.dtype(), size);
  copy_box(x.raw_data(), src, out.raw_data(), contiguous(size), size, dtype_size(x.dtype()));
}

// ---- StridedSlice, StridedSliceGrad ---------------------------------------------------

// Resolves the spec of a StridedSlice (or its gradient) at run time, or fails.
inline StridedSliceSpec runtime_strided_slice(KernelContext& ctx, const Dims& input, const Value& b,
                                              const Value& e, const Value& s,
                                              const StridedSliceMasks& masks) {
  if (b.rank() != 1 || e.rank() != 1 || s.rank() != 1 || b.size() != e.size() ||
      b.size() != s.size() || s.size() > 32)
    ctx.fail("Expected begin, end, and strides to be 1D equal size tensors, but got shapes " +
             dims_to_string(b.dims()) + ", " + dims_to_string(e.dims()) + ", and " +
             dims_to_string(s.dims()) + " instead.");
  Dims begin = shape_argument(b), end = shape_argument(e);
  std::string error;
  auto spec = resolve_strided_slice(&begin, &end, shape_argument(s), input, masks, error);
  if (!spec) ctx.fail(error);
  return *spec;
}

// The node's masks, read straight from its attrs: no map is built on every run (a frozen
// SRU runs 61 StridedSlices per step).
inline StridedSliceMasks strided_slice_masks(const KernelContext& ctx) {
  return {ctx.attr<std::int64_t>("begin_mask"), ctx.attr<std::int64_t>("end_mask"),
          ctx.attr<std::int64_t>("ellipsis_mask"), ctx.attr<std::int64_t>("new_axis_mask"),
          ctx.attr<std::int64_t>("shrink_axis_mask")};
}

inline void strided_slice_kernel(KernelContext& ctx) {
  const Value& x = ctx.input(0);
  StridedSliceSpec spec = runtime_strided_slice(ctx, x.dims(), ctx.input(1), ctx.input(2),
                                                ctx.input(3), strided_slice_masks(ctx));
  Value& out = ctx.allocate_output_for_overwrite(0, x.dtype(), spec.final_shape);
  copy_box(x.raw_data(), strided_view(spec, x.dims()), out.raw_data(), contiguous(spec.processing),
           spec.processing, dtype_size(x.dtype()));
}

inline void strided_slice_grad_kernel(KernelContext& ctx) {
  Dims shape = shape_argument(ctx.input(0));
  const Value& dy = ctx.input(4);
  StridedSliceSpec spec = runtime_strided_slice(ctx, shape, ctx.input(1), ctx.input(2),
                                                ctx.input(3), strided_slice_masks(ctx));
  if (dy.dims() != spec.final_shape)
    ctx.fail("shape of dy was " + dims_to_string(dy.dims()) + " instead of " +
             dims_to_string(spec.final_shape));
  Value& out = ctx.allocate_output(0, dy.dtype(), shape);  // zero-filled
  copy_box(dy.raw_data(), contiguous(spec.processing), out.raw_data(), strided_view(spec, shape),
           spec.processing, dtype_size(dy.dtype()));
}

// ---- GatherV2, UnsortedSegmentSum ----------------------------------------------------

// GatherV2's axis and indices (a host value) checked against params' dims (the CPU and GPU
// kernels share it): the axis from 0, the indices and the output's dims.
struct GatherPlan {
  std::size_t axis;
  Dims indices;
  Dims out_dims;
};

inline GatherPlan gather_plan(const KernelContext& ctx, const Dims& params_dims,
                              const Value& indices, std::int64_t axis) {
  auto rank = static_cast<std::int64_t>(params_dims.size());
  if (rank == 0) ctx.fail("params must be at least 1 dimensional");
  if (axis < -rank || axis >= rank)
    ctx.fail("Expected axis in the range [" + str(-rank) + ", " + str(rank) + "), but got " +
             str(axis));
  auto a = static_cast<std::size_t>(axis < 0 ? axis + rank : axis);
  Dims idx = shape_argument(indices);
  std::int64_t limit = params_dims[a];
  for (std::size_t i = 0; i < idx.size(); ++i)
    if (idx[i] < 0 || idx[i] >= limit)
      ctx.fail("indices" + index_string(indices.dims(), static_cast<std::int64_t>(i)) + " = " +
               str(idx[i]) + " is not in [0, " + str(limit) + ")");
  Dims out_dims(params_dims.begin(), params_dims.begin() + static_cast<std::ptrdiff_t>(a));
  out_dims.insert(out_dims.end(), indices.dims().begin(), indices.dims().end());
  out_dims.insert(out_dims.end(), params_dims.begin() + static_cast<std::ptrdiff_t>(a) + 1,
                  params_dims.end());
  return {a, std::move(idx), std::move(out_dims)};
}

inline void gather_kernel(KernelContext& ctx) {
  const Value& params = ctx.input(0);
  const GatherPlan plan = gather_plan(ctx, params.dims(), ctx.input(1), scalar_index(ctx.input(2)));
  const std::size_t a = plan.axis;
  const Dims& idx = plan.indices;
  const Dims& out_dims = plan.out_dims;
  const std::int64_t limit = params.dims()[a];
  Value& out = ctx.allocate_output_for_overwrite(0, params.dtype(), out_dims);
  std::int64_t outer = 1, inner = 1;
  for (std::size_t i = 0; i < a; ++i) outer *= params.dims()[i];
  for (std::size_t i = a + 1; i < params.dims().size(); ++i) inner *= params.dims()[i];
  // params as [outer, limit, inner] -> out as [outer, n, inner]
  auto n = static_cast<std::int64_t>(idx.size());
  if (params.dtype() == DType::string) {
    const std::string* from = params.data<std::string>();
    std::string* to = out.data<std::string>();
    for (std::int64_t o = 0; o < outer; ++o)
      for (std::int64_t j = 0; j < n; ++j)
        std::copy_n(from + (o * limit + idx[static_cast<std::size_t>(j)]) * inner, inner,
                    to + (o * n + j) * inner);
    return;
  }
  std::size_t row = static_cast<std::size_t>(inner) * dtype_size(params.dtype());
  const auto* src = static_cast<const std::byte*>(params.raw_data());
  auto* dst = static_cast<std::byte*>(out.raw_data());
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t j = 0; j < n; ++j)
      std::memcpy(
          dst + static_cast<std::size_t>(o * n + j) * row,
          src + static_cast<std::size_t>(o * limit + idx[static_cast<std::size_t>(j)]) * row, row);
}

// UnsortedSegmentSum's num_segments and segment_ids (a host value) checked against the
// data's dims (the CPU and GPU kernels share it): the ids, the output's dims and the
// elements per row.
struct SegmentPlan {
  Dims ids;
  Dims out_dims;
  std::int64_t inner;
};

inline SegmentPlan segment_plan(const KernelContext& ctx, const Dims& data_dims,
                                const Value& ids_value, std::int64_t segments) {
  if (segments < 0) ctx.fail("Input num_segments == " + str(segments) + " must not be negative.");
  const Dims& id_dims = ids_value.dims();
  if (id_dims.size() > data_dims.size() ||
      !std::equal(id_dims.begin(), id_dims.end(), data_dims.begin()))
    ctx.fail("data.shape = " + dims_to_string(data_dims) +
             " does not start with segment_ids.shape = " + dims_to_string(id_dims));
  Dims ids = shape_argument(ids_value);
  Dims out_dims{segments};
  out_dims.insert(out_dims.end(), data_dims.begin() + static_cast<std::ptrdiff_t>(id_dims.size()),
                  data_dims.end());
  std::int64_t inner = 1;
  for (std::size_t i = id_dims.size(); i < data_dims.size(); ++i) inner *= data_dims[i];
  for (std::size_t i = 0; i < ids.size(); ++i)
    if (ids[i] >= segments)
      ctx.fail("segment_ids" + index_string(id_dims, static_cast<std::int64_t>(i)) + " = " +
               str(ids[i]) + " is out of range [0, " + str(segments) + ")");
  return {std::move(ids), std::move(out_dims), inner};
}

inline void unsorted_segment_sum_kernel(KernelContext& ctx) {
  const Value& data = ctx.input(0);
  const SegmentPlan plan = segment_plan(ctx, data.dims(), ctx.input(1), scalar_index(ctx.input(2)));
  const Dims& ids = plan.ids;
  const Dims& out_dims = plan.out_dims;
  const std::int64_t inner = plan.inner;
  visit_dtype(data.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_number_v<T>) {
      Value& out = ctx.allocate_output(0, data.dtype(), out_dims);
      T* o = out.data<T>();
      const T* d = data.data<T>();
      for (std::size_t i = 0; i < ids.size(); ++i) {
        if (ids[i] < 0) continue;  // negative ids are dropped, as TensorFlow does
        for (std::int64_t k = 0; k < inner; ++k) {
          T& slot = o[ids[i] * inner + k];
          slot = add_wrapping(slot, d[static_cast<std::int64_t>(i) * inner + k]);
        }
      }
    } else {
      unsupported_dtype(ctx, data.dtype());
    }
  });
}

// ---- Pad, PadV2 -----------------------------------------------------------------------

// Pad's paddings (a host value) checked against x's dims (the CPU and GPU kernels share it);
// returns the paddings, two per axis, and the output's dims.
inline std::pair<Dims, Dims> pad_plan(const KernelContext& ctx, const Dims& x_dims,
                                      const Value& p) {
  auto rank = static_cast<std::int64_t>(x_dims.size());
  if (p.rank() != 2 || p.dims()[1] != 2)
    ctx.fail("paddings must be a matrix with 2 columns: " + dims_to_string(p.dims()));
  if (p.dims()[0] != rank)
    ctx.fail("The first dimension of paddings must be the rank of inputs" +
             dims_to_string(p.dims()) + " " + dims_to_string(x_dims));
  Dims pads = shape_argument(p);
  Dims out_dims;
  for (std::size_t i = 0; i < x_dims.size(); ++i) {
    std::int64_t before = pads[2 * i], after = pads[2 * i + 1];
    if (before < 0 || after < 0)
      ctx.fail("Paddings must be non-negative: " + str(before) + " " + str(after));
    out_dims.push_back(x_dims[i] + before + after);
  }
  return {std::move(pads), std::move(out_dims)};
}

// PadV2's constant_values, checked to be a scalar; none for Pad (the CPU and GPU kernels
// share it).
inline const Value* pad_constant(const KernelContext& ctx) {
  if (ctx.num_inputs() != 3) return nullptr;
  const Value& v = ctx.input(2);
  if (v.rank() != 0) ctx.fail("constant_values must be a scalar. Got: " + dims_to_string(v.dims()));
  return &v;
}

inline void pad_kernel(KernelContext& ctx) {
  const Value& x = ctx.input(0);
  const auto [pads, out_dims] = pad_plan(ctx, x.dims(), ctx.input(1));
  Value& out = ctx.allocate_output(0, x.dtype(), out_dims);  // zero-filled
  if (const Value* v = pad_constant(ctx)) fill_with(out, *v);
  Dims strides = row_major_strides(out_dims);
  View dst{strides, 0};
  for (std::size_t i = 0; i < x.dims().size(); ++i) dst.offset += pads[2 * i] * strides[i];
  copy_box(x.raw_data(), contiguous(x.dims()), out.raw_data(), dst, x.dims(),
           dtype_size(x.dtype()));
}

// ---- SpaceToBatchND, BatchToSpaceND ---------------------------------------------------

// Both ops move elements between a "space" tensor [batch] + spatial + remaining and a
// "batch" tensor [batch * prod(block)] + spatial / block + remaining: batch-side element
// (blk * batch + b, o_1, ..., o_M, r), with blk the row-major index of the block offsets
// (k_1, ..., k_M), is space-side element (b, o_1 * block_1 + k_1 - edge_1, ..., r), where
// edge is the padding (SpaceToBatchND) or the crop (BatchToSpaceND) before each dim.
struct SpaceBatchPlan {
  Dims out_dims;
  Dims block;          // M values
  Dims edge_before;    // paddings or crops before each spatial dim
  Dims space_spatial;  // the space side's spatial dims (unpadded input or cropped output)
  Dims batch_spatial;  // the batch side's spatial dims
  std::int64_t space_batch = 0;
  std::int64_t inner = 1;  // elements of the remaining dims
};

// The checks the CPU and GPU kernels share, with TensorFlow's kernels' messages; `edges`
// is paddings (to_batch) or crops.
inline SpaceBatchPlan space_batch_plan(const KernelContext& ctx, bool to_batch, const Dims& x_dims,
                                       const Value& block_value, const Value& edge_value) {
  if (block_value.rank() != 1)
    ctx.fail("block_shape rank should be 1 instead of " + str(block_value.rank()));
  const auto m = block_value.dims()[0];
  const auto rank = static_cast<std::int64_t>(x_dims.size());
  if (rank < m + 1) ctx.fail("input rank should be >= " + str(m + 1) + " instead of " + str(rank));
  if (edge_value.rank() != 2 || edge_value.dims()[0] != m || edge_value.dims()[1] != 2)
    ctx.fail(std::string(to_batch ? "paddings" : "crops") + " should have shape [" + str(m) +
             ", 2] instead of " + dims_to_string(edge_value.dims()));
  SpaceBatchPlan plan;
  plan.block = shape_argument(block_value);
  const Dims edges = shape_argument(edge_value);
  std::int64_t product = 1;
  for (std::int64_t b : plan.block) product *= b;
  if (!to_batch) {
    for (std::int64_t e : edges)
      if (e < 0) ctx.fail("Crops must be non-negative");
    if (product <= 0) ctx.fail("Product of block sizes must be positive, got " + str(product));
    if (x_dims[0] % product != 0)
      ctx.fail("Input batch dimension (" + str(x_dims[0]) +
               ") is not divisible by product of block sizes (" + str(product) + ")");
  }
  const auto mu = static_cast<std::size_t>(m);
  for (std::size_t i = 0; i < mu; ++i) {
    const std::int64_t before = edges[2 * i], after = edges[2 * i + 1], b = plan.block[i];
    const std::int64_t dim = x_dims[i + 1];
    plan.edge_before.push_back(before);
    if (to_batch) {
      if (before < 0 || after < 0) ctx.fail("Paddings must be non-negative");
      if (b < 1)
        ctx.fail("All values in block_shape must be positive, got value, " + str(b) + " at index " +
                 str(static_cast<std::int64_t>(i)) + ".");
      const std::int64_t padded = dim + before + after;
      if (padded % b != 0)
        ctx.fail("padded_shape[" + str(static_cast<std::int64_t>(i)) + "]=" + str(padded) +
                 " is not divisible by block_shape[" + str(static_cast<std::int64_t>(i)) +
                 "]=" + str(b));
      plan.space_spatial.push_back(dim);
      plan.batch_spatial.push_back(padded / b);
    } else {
      const std::int64_t cropped = dim * b - before - after;
      if (cropped < 0)
        ctx.fail("cropped_shape[" + str(static_cast<std::int64_t>(i)) + "]=" + str(cropped) +
                 " must be non-negative");
      plan.space_spatial.push_back(cropped);
      plan.batch_spatial.push_back(dim);
    }
  }
  plan.space_batch = to_batch ? x_dims[0] : x_dims[0] / product;
  plan.out_dims.push_back(to_batch ? x_dims[0] * product : plan.space_batch);
  const Dims& spatial = to_batch ? plan.batch_spatial : plan.space_spatial;
  plan.out_dims.insert(plan.out_dims.end(), spatial.begin(), spatial.end());
  for (std::size_t d = mu + 1; d < x_dims.size(); ++d) {
    plan.out_dims.push_back(x_dims[d]);
    plan.inner *= x_dims[d];
  }
  return plan;
}

// The space-side row (a run of `inner` elements) of batch-side row `row`, or -1 when it
// falls in the padding.
inline std::int64_t space_row_of(const SpaceBatchPlan& p, std::int64_t row) {
  const std::size_t m = p.block.size();
  Dims o(m);
  for (std::size_t i = m; i-- > 0;) {
    o[i] = row % p.batch_spatial[i];
    row /= p.batch_spatial[i];
  }
  const std::int64_t b = row % p.space_batch;
  std::int64_t blk = row / p.space_batch;
  Dims t(m);
  for (std::size_t i = m; i-- > 0;) {
    t[i] = o[i] * p.block[i] + blk % p.block[i] - p.edge_before[i];
    blk /= p.block[i];
  }
  std::int64_t src = b;
  for (std::size_t i = 0; i < m; ++i) {
    if (t[i] < 0 || t[i] >= p.space_spatial[i]) return -1;
    src = src * p.space_spatial[i] + t[i];
  }
  return src;
}

// Both kernels walk the batch-side rows: SpaceToBatchND writes them (zeros in the
// padding), BatchToSpaceND reads them (rows that fall in the crops are dropped).
inline void space_batch_kernel(KernelContext& ctx, bool to_batch) {
  const Value& x = ctx.input(0);
  const SpaceBatchPlan plan = space_batch_plan(ctx, to_batch, x.dims(), ctx.input(1), ctx.input(2));
  Value& out = ctx.allocate_output(0, x.dtype(), plan.out_dims);  // zero-filled
  const std::int64_t batch_side = to_batch ? out.size() : x.size();
  if (batch_side == 0 || plan.inner == 0) return;
  const std::size_t row_bytes = static_cast<std::size_t>(plan.inner) * dtype_size(x.dtype());
  const auto* in = static_cast<const std::byte*>(x.raw_data());
  auto* dst = static_cast<std::byte*>(out.raw_data());
  for (std::int64_t row = 0; row < batch_side / plan.inner; ++row) {
    const std::int64_t space_row = space_row_of(plan, row);
    if (space_row < 0) continue;
    const auto batch_at = static_cast<std::size_t>(row) * row_bytes;
    const auto space_at = static_cast<std::size_t>(space_row) * row_bytes;
    if (to_batch)
      std::memcpy(dst + batch_at, in + space_at, row_bytes);
    else
      std::memcpy(dst + space_at, in + batch_at, row_bytes);
  }
}

inline void space_to_batch_nd_kernel(KernelContext& ctx) { space_batch_kernel(ctx, true); }
inline void batch_to_space_nd_kernel(KernelContext& ctx) { space_batch_kernel(ctx, false); }

// ---- OneHot -----------------------------------------------------------------------------

inline void one_hot_kernel(KernelContext& ctx) {
  const Value& indices = ctx.input(0);
  std::int64_t depth = scalar_index(ctx.input(1));
  const Value& on = ctx.input(2);
  const Value& off = ctx.input(3);
  auto rank = static_cast<std::int64_t>(indices.rank());
  std::int64_t axis = ctx.attr<std::int64_t>("axis");
  if (axis != -1 && (axis < 0 || axis > rank))
    ctx.fail("Expected axis to be -1 or between [0, " + str(rank + 1) +
             ").  But received: " + str(axis));
  if (depth < 0) ctx.fail("depth must be non-negative, got: " + str(depth));
  if (on.rank() != 0) ctx.fail("on_value must be a scalar, but got: " + dims_to_string(on.dims()));
  if (off.rank() != 0)
    ctx.fail("off_value must be a scalar, but got: " + dims_to_string(off.dims()));
  auto a = static_cast<std::size_t>(axis == -1 ? rank : axis);
  Dims out_dims = indices.dims();
  out_dims.insert(out_dims.begin() + static_cast<std::ptrdiff_t>(a), depth);
  if (!checked_num_elements(out_dims)) ctx.fail(too_many_elements_message(out_dims));
  Value& out = ctx.allocate_output(0, on.dtype(), out_dims);
  fill_with(out, off);
  // indices as [prefix, suffix]; out as [prefix, depth, suffix]
  std::int64_t suffix = 1;
  for (std::size_t i = a; i < indices.dims().size(); ++i) suffix *= indices.dims()[i];
  std::size_t elem = dtype_size(on.dtype());
  auto* dst = static_cast<std::byte*>(out.raw_data());
  auto put = [&](std::int64_t i, std::int64_t idx) {
    if (idx < 0 || idx >= depth) return;  // out of range: all off_value
    std::int64_t p = i / suffix, s = i % suffix;
    std::memcpy(dst + static_cast<std::size_t>((p * depth + idx) * suffix + s) * elem,
                on.raw_data(), elem);
  };
  if (indices.dtype() == DType::uint8) {
    auto v = indices.flat<std::uint8_t>();
    for (std::size_t i = 0; i < v.size(); ++i) put(static_cast<std::int64_t>(i), v[i]);
  } else {
    Dims v = shape_argument(indices);
    for (std::size_t i = 0; i < v.size(); ++i) put(static_cast<std::int64_t>(i), v[i]);
  }
}

// ---- Range ------------------------------------------------------------------------------

// Range's three inputs must be scalars (the CPU and GPU kernels share the check).
inline void check_range_inputs(const KernelContext& ctx) {
  for (std::size_t i = 0; i < 3; ++i)
    if (ctx.input(i).size() != 1)
      ctx.fail(std::string(i == 0   ? "start"
                           : i == 1 ? "limit"
                                    : "delta") +
               " must be a scalar, not shape " + dims_to_string(ctx.input(i).dims()));
}

// Range's length, or its error as the kernel's failure (the CPU and GPU kernels share it).
template <class T>
std::int64_t kernel_range_size(const KernelContext& ctx, T start, T limit, T delta) {
  std::string error;
  auto n = range_size<T>(start, limit, delta, error);
  if (!n) ctx.fail(error);
  return *n;
}

inline void range_kernel(KernelContext& ctx) {
  check_range_inputs(ctx);
  visit_dtype(ctx.input(0).dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, std::uint8_t>) {
      unsupported_dtype(ctx, ctx.input(0).dtype());
    } else {
      T start = ctx.input(0).scalar<T>(), limit = ctx.input(1).scalar<T>();
      T delta = ctx.input(2).scalar<T>();
      const std::int64_t n = kernel_range_size(ctx, start, limit, delta);
      Value& out = ctx.allocate_output(0, dtype_v<T>, {n});
      T v = start;  // accumulated, as TensorFlow's kernel does (0.3 * 3 is 0.90000004f)
      for (T& o : out.flat<T>()) {
        o = v;
        v = add_wrapping(v, delta);
      }
    }
  });
}

}  // namespace transform

inline constexpr auto kTransformCpuKernels = std::to_array<CpuKernel>({
    {&transform::kTransposeOp, transform::transpose_kernel},
    {&transform::kInvertPermutationOp, transform::invert_permutation_kernel},
    {&transform::kConcatV2Op, transform::concat_kernel},
    {&transform::kConcatOffsetOp, transform::concat_offset_kernel},
    {&transform::kPackOp, transform::pack_kernel},
    {&transform::kUnpackOp, transform::unpack_kernel},
    {&transform::kSplitOp, transform::split_kernel},
    {&transform::kSplitVOp, transform::split_v_kernel},
    {&transform::kSliceOp, transform::slice_kernel},
    {&transform::kStridedSliceOp, transform::strided_slice_kernel},
    {&transform::kStridedSliceGradOp, transform::strided_slice_grad_kernel},
    {&transform::kGatherV2Op, transform::gather_kernel},
    {&transform::kUnsortedSegmentSumOp, transform::unsorted_segment_sum_kernel},
    {&transform::kPadOp, transform::pad_kernel},
    {&transform::kPadV2Op, transform::pad_kernel},
    {&transform::kSpaceToBatchNDOp, transform::space_to_batch_nd_kernel},
    {&transform::kBatchToSpaceNDOp, transform::batch_to_space_nd_kernel},
    {&transform::kOneHotOp, transform::one_hot_kernel},
    {&transform::kRangeOp, transform::range_kernel},
});

}  // namespace symflow::detail
