#pragma once
// Array transformations: Transpose, ConcatV2, Pack/Unpack, Split/SplitV, Slice,
// StridedSlice, GatherV2, Pad/PadV2, OneHot, Range, and the helper ops their gradients
// are built from (InvertPermutation, ConcatOffset, StridedSliceGrad, UnsortedSegmentSum).
//
// Most of these ops only move elements, so their kernels copy bytes through strided
// views and work for every dtype without a template per element type.

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "symflow/backend/kernel_context.hpp"
#include "symflow/ops/array_ops.hpp"
#include "symflow/ops/math_ops.hpp"
#include "symflow/ops/op_builder.hpp"
#include "symflow/ops/shape_ops.hpp"
#include "symflow/ops/tensor_arg.hpp"

namespace symflow {

// Helpers live in their own namespace so that their names cannot clash with other
// areas' helpers in detail.
namespace detail::transform {

// ---- shape-function helpers (worded as TensorFlow's InferenceContext words them) -----

inline std::string str(std::int64_t v) { return std::to_string(v); }

inline void require_rank(const Shape& s, std::int64_t rank) {
  if (s.has_rank() && s.rank() != rank)
    throw ValueError("Shape must be rank " + str(rank) + " but is rank " + str(s.rank()));
}
inline void require_rank_at_least(const Shape& s, std::int64_t rank) {
  if (s.has_rank() && s.rank() < rank)
    throw ValueError("Shape must be at least rank " + str(rank) + " but is rank " + str(s.rank()));
}
// "Dimension must be 3 but is 2" (WithValue on a dimension).
inline void require_dim(std::int64_t dim, std::int64_t want) {
  if (dim >= 0 && dim != want)
    throw ValueError("Dimension must be " + str(want) + " but is " + str(dim));
}

inline std::string shape_debug(const Shape& s) {
  return s.has_rank() ? dims_to_string(s.dims()) : "?";
}

// TensorFlow's InferenceContext::Merge: the most specific shape compatible with both.
inline Shape merge_shapes(const Shape& a, const Shape& b) {
  if (!a.has_rank()) return b;
  if (!b.has_rank()) return a;
  if (a.rank() != b.rank())
    throw ValueError("Shapes must be equal rank, but are " + str(a.rank()) + " and " +
                     str(b.rank()));
  Dims out = a.dims();
  for (std::size_t i = 0; i < out.size(); ++i) {
    std::int64_t x = a.dims()[i], y = b.dims()[i];
    if (x >= 0 && y >= 0 && x != y)
      throw ValueError("Dimension " + str(static_cast<std::int64_t>(i)) +
                       " in both shapes must be equal, but are " + str(x) + " and " + str(y) +
                       ". Shapes are " + shape_debug(a) + " and " + shape_debug(b) + ".");
    if (out[i] < 0) out[i] = y;
  }
  return Shape(out);
}

constexpr bool is_number_dtype(DType d) { return d != DType::bool_ && d != DType::invalid; }
inline bool is_range_dtype(DType d) { return is_index_dtype(d) || is_floating(d); }

// TypeError unless input i has a dtype in `accepts`; `listed` is TensorFlow's list
// of allowed types (which names types symflow does not have).
inline void check_allowed_list(const InferContext& c, std::size_t i, std::string_view param,
                               bool (*accepts)(DType), std::string_view listed) {
  if (!accepts(c.dtype(i)))
    throw TypeError("Value passed to parameter '" + std::string(param) + "' has DataType " +
                    std::string(dtype_name(c.dtype(i))) +
                    " not in list of allowed values: " + std::string(listed));
}
inline void check_index(const InferContext& c, std::size_t i, std::string_view param) {
  check_allowed_list(c, i, param, is_index_dtype, "int32, int64");
}

// The dtypes of a list input (values[first, last)) must agree.
inline void check_list_dtypes(const InferContext& c, std::size_t first, std::size_t last,
                              std::string_view op) {
  for (std::size_t i = first + 1; i < last; ++i) {
    if (c.dtype(i) == c.dtype(first)) continue;
    std::string types;
    for (std::size_t j = first; j < last; ++j)
      types += (j > first ? ", " : "") + std::string(dtype_name(c.dtype(j)));
    throw TypeError("Tensors in list passed to 'values' of '" + std::string(op) +
                    "' Op have types [" + types + "] that don't all match.");
  }
}

inline std::optional<Dims> constant_ints(const InferContext& c, std::size_t i) {
  if (const Value* v = c.constant(i)) return shape_argument(*v);
  return std::nullopt;
}

inline std::int64_t scalar_index(const Value& v) {
  Dims d = shape_argument(v);
  if (d.size() != 1) throw ValueError("Expected a scalar, got shape " + dims_to_string(v.dims()));
  return d[0];
}

inline Dims row_major_strides(const Dims& dims) {
  Dims s(dims.size(), 1);
  for (std::size_t i = dims.size(); i-- > 1;) s[i - 1] = s[i] * dims[i];
  return s;
}

// "[1]" or "[0,2]": a multi-index of a flat position, as TensorFlow's messages print it.
inline std::string index_string(const Dims& dims, std::int64_t flat) {
  Dims idx(dims.size());
  for (std::size_t i = dims.size(); i-- > 0;) {
    idx[i] = dims[i] ? flat % dims[i] : 0;
    flat = dims[i] ? flat / dims[i] : 0;
  }
  return dims_to_string(idx);
}

// ---- the one copy loop ------------------------------------------------------------

// A box of `dims` elements inside a buffer: element (i0, ..., ik) sits at
// offset + sum(i_j * strides_j) (in elements; strides may be negative).
struct View {
  Dims strides;
  std::int64_t offset = 0;
};

inline View contiguous(const Dims& dims) { return {row_major_strides(dims), 0}; }

// Copies the box `dims` from `src` (through view s) to `dst` (through view d).
inline void copy_box(const void* src, const View& s, void* dst, const View& d, const Dims& dims,
                     std::size_t elem) {
  if (num_elements(dims) == 0) return;
  const auto* in = static_cast<const std::byte*>(src);
  auto* out = static_cast<std::byte*>(dst);
  std::size_t rank = dims.size();
  // When the innermost axis is contiguous on both sides, copy it as one run.
  std::size_t outer = rank;
  std::size_t run = elem;
  if (rank > 0 && s.strides[rank - 1] == 1 && d.strides[rank - 1] == 1) {
    outer = rank - 1;
    run = static_cast<std::size_t>(dims[rank - 1]) * elem;
  }
  Dims idx(outer, 0);
  std::int64_t so = s.offset, dof = d.offset;
  for (;;) {
    std::memcpy(out + dof * static_cast<std::int64_t>(elem),
                in + so * static_cast<std::int64_t>(elem), run);
    std::size_t k = outer;
    for (;;) {
      if (k == 0) return;
      --k;
      so += s.strides[k];
      dof += d.strides[k];
      if (++idx[k] < dims[k]) break;
      so -= s.strides[k] * dims[k];
      dof -= d.strides[k] * dims[k];
      idx[k] = 0;
    }
  }
}

// Fills every element of `v` with the one element of `scalar` (same dtype).
inline void fill_with(Value& v, const Value& scalar) {
  std::size_t elem = dtype_size(v.dtype());
  auto* dst = static_cast<std::byte*>(v.raw_data());
  for (std::int64_t i = 0; i < v.size(); ++i)
    std::memcpy(dst + static_cast<std::size_t>(i) * elem, scalar.raw_data(), elem);
}

// ---- Transpose, InvertPermutation -------------------------------------------------

inline std::vector<TensorSpec> infer_transpose(const InferContext& c) {
  check_index(c, 1, "perm");
  const Shape& in = c.shape(0);
  require_rank(c.shape(1), 1);
  std::int64_t n = c.shape(1).has_rank() ? c.shape(1)[0] : unknown_dim;
  if (in.has_rank()) require_dim(n, in.rank());
  std::int64_t rank = in.has_rank() ? in.rank() : n;
  if (rank < 0) return {{c.dtype(0), Shape::unknown()}};
  auto perm = constant_ints(c, 1);
  if (!perm) return {{c.dtype(0), Shape::unknown_dims(static_cast<int>(rank))}};
  Dims out;
  for (auto p : *perm) {
    if (p >= rank || p < -rank)
      throw ValueError("perm dim " + str(p) + " is out of range of input rank " + str(rank));
    out.push_back(in.has_rank() ? in.dims()[static_cast<std::size_t>(p < 0 ? p + rank : p)]
                                : unknown_dim);
  }
  return {{c.dtype(0), Shape(out)}};
}

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

SYMFLOW_CPU_KERNEL(transpose_kernel) {
  const Value& x = ctx.input(0);
  const auto [out_dims, src] = transpose_plan(ctx, x.dims(), ctx.input(1));
  Value& out = ctx.allocate_output(0, x.dtype(), out_dims);
  copy_box(x.raw_data(), src, out.raw_data(), contiguous(out_dims), out_dims,
           dtype_size(x.dtype()));
}

inline constexpr OpDef kTransposeOp{
    .type = "Transpose", .num_inputs = 2, .infer = infer_transpose, .cpu_kernel = transpose_kernel};

inline std::vector<TensorSpec> infer_invert_permutation(const InferContext& c) {
  check_index(c, 0, "x");
  require_rank(c.shape(0), 1);
  return {c.inputs[0]};
}

SYMFLOW_CPU_KERNEL(invert_permutation_kernel) {
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

inline constexpr OpDef kInvertPermutationOp{.type = "InvertPermutation",
                                            .num_inputs = 1,
                                            .infer = infer_invert_permutation,
                                            .cpu_kernel = invert_permutation_kernel};

// ---- ConcatV2, ConcatOffset -------------------------------------------------------

inline std::vector<TensorSpec> infer_concat(const InferContext& c) {
  std::size_t n = c.inputs.size() - 1;  // the values; the axis comes last
  if (n < 2)
    throw ValueError("ConcatV2 needs at least 2 values, got " + str(static_cast<std::int64_t>(n)));
  check_list_dtypes(c, 0, n, "ConcatV2");
  check_index(c, n, "axis");
  require_rank(c.shape(n), 0);
  DType dtype = c.dtype(0);
  int rank = -1;
  for (std::size_t i = 0; i < n && rank < 0; ++i)
    if (c.shape(i).has_rank()) rank = c.shape(i).rank();
  if (rank == 0) throw ValueError("Can't concatenate scalars (use tf.stack instead)");
  for (std::size_t i = 0; i < n && rank >= 0; ++i) require_rank(c.shape(i), rank);
  auto axis_value = constant_ints(c, n);
  if (!axis_value) return {{dtype, rank < 0 ? Shape::unknown() : Shape::unknown_dims(rank)}};
  std::int64_t axis = axis_value->at(0);
  std::int64_t min_rank = axis < 0 ? -axis : axis + 1;
  for (std::size_t i = n; i-- > 0;) require_rank_at_least(c.shape(i), min_rank);
  if (rank < 0) return {{dtype, Shape::unknown()}};
  auto a = static_cast<std::size_t>(axis < 0 ? axis + rank : axis);
  // Merged as TensorFlow merges them: from the last input back to the first, so that
  // a mismatch names the earlier input's dims first.
  auto part = [&](const Shape& s, std::size_t from, std::size_t to) {
    if (!s.has_rank()) return Shape::unknown();
    return Shape(Dims(s.dims().begin() + static_cast<std::ptrdiff_t>(from),
                      s.dims().begin() + static_cast<std::ptrdiff_t>(to)));
  };
  auto middle = [&](const Shape& s) { return s.has_rank() ? s.dims()[a] : unknown_dim; };
  const Shape& last = c.shape(n - 1);
  auto r = static_cast<std::size_t>(rank);
  Shape before = part(last, 0, a), after = part(last, a + 1, r);
  std::int64_t mid = middle(last);
  for (std::size_t i = n - 1; i-- > 0;) {
    const Shape& s = c.shape(i);
    before = merge_shapes(part(s, 0, a), before);
    std::int64_t m = middle(s);
    mid = (mid < 0 || m < 0) ? unknown_dim : mid + m;
    after = merge_shapes(part(s, a + 1, r), after);
  }
  Dims out = before.has_rank() ? before.dims() : Dims(a, unknown_dim);
  out.push_back(mid);
  Dims tail = after.has_rank() ? after.dims() : Dims(r - a - 1, unknown_dim);
  out.insert(out.end(), tail.begin(), tail.end());
  return {{dtype, Shape(out)}};
}

// Copies each of `parts` (all of rank r, equal but for `axis`) into `out` side by side.
inline void concat_into(const std::vector<const Value*>& parts, std::size_t axis, Value& out) {
  Dims out_strides = row_major_strides(out.dims());
  std::int64_t at = 0;
  std::size_t elem = dtype_size(out.dtype());
  for (const Value* p : parts) {
    View dst{out_strides, at * (out.dims().empty() ? 0 : out_strides[axis])};
    copy_box(p->raw_data(), contiguous(p->dims()), out.raw_data(), dst, p->dims(), elem);
    at += p->dims()[axis];
  }
}

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

SYMFLOW_CPU_KERNEL(concat_kernel) {
  std::size_t n = ctx.num_inputs() - 1;
  const auto [a, out_dims] = concat_plan(ctx, n, scalar_index(ctx.input(n)));
  std::vector<const Value*> parts;
  for (std::size_t i = 0; i < n; ++i) parts.push_back(&ctx.input(i));
  Value& out = ctx.allocate_output(0, ctx.input(0).dtype(), out_dims);
  concat_into(parts, a, out);
}

inline constexpr OpDef kConcatV2Op{
    .type = "ConcatV2", .num_inputs = -1, .infer = infer_concat, .cpu_kernel = concat_kernel};

// ConcatOffset(concat_dim, shape_0, ..., shape_{N-1}): where each input of a concat
// starts in its output. The gradient of ConcatV2 slices its incoming gradient there.
inline std::vector<TensorSpec> infer_concat_offset(const InferContext& c) {
  require_rank(c.shape(0), 0);
  std::vector<TensorSpec> out;
  for (std::size_t i = 1; i < c.inputs.size(); ++i) {
    require_rank(c.shape(i), 1);
    out.push_back({DType::int32, c.shape(i)});
  }
  return out;
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

SYMFLOW_CPU_KERNEL(concat_offset_kernel) {
  const std::vector<Dims> offsets =
      concat_offsets(ctx, [&](std::size_t i) -> const Value& { return ctx.input(i); });
  for (std::size_t i = 0; i < offsets.size(); ++i) ctx.set_output(i, int32_vector(offsets[i]));
}

inline constexpr OpDef kConcatOffsetOp{.type = "ConcatOffset",
                                       .num_inputs = -1,
                                       .infer = infer_concat_offset,
                                       .cpu_kernel = concat_offset_kernel};

// ---- Pack, Unpack -------------------------------------------------------------------

inline std::int64_t pack_axis(std::int64_t axis, std::int64_t rank) {
  if (axis < -rank || axis >= rank)
    throw ValueError("Invalid axis: " + str(axis) + "; must be in [" + str(-rank) + "," +
                     str(rank) + ")");
  return axis < 0 ? axis + rank : axis;
}

inline std::vector<TensorSpec> infer_pack(const InferContext& c) {
  std::size_t n = c.inputs.size();
  if (n == 0) throw ValueError("Pack needs at least one value");
  check_list_dtypes(c, 0, n, "Pack");
  Shape cur = c.shape(n - 1);
  for (std::size_t i = n - 1; i-- > 0;) {
    try {
      cur = merge_shapes(c.shape(i), cur);
    } catch (const ValueError& e) {
      throw ValueError(e.message() + "\n\tFrom merging shape " + str(static_cast<std::int64_t>(i)) +
                       " with other shapes.");
    }
  }
  if (!cur.has_rank()) return {{c.dtype(0), Shape::unknown()}};
  std::int64_t axis = pack_axis(c.attr<std::int64_t>("axis"), cur.rank() + 1);
  Dims out = cur.dims();
  out.insert(out.begin() + axis, static_cast<std::int64_t>(n));
  return {{c.dtype(0), Shape(out)}};
}

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

SYMFLOW_CPU_KERNEL(pack_kernel) {
  const Value& first = ctx.input(0);
  const auto [a, slab] = pack_plan(ctx);
  std::vector<Value> parts;
  std::vector<const Value*> ptrs;
  for (std::size_t i = 0; i < ctx.num_inputs(); ++i) parts.push_back(ctx.input(i).reshaped(slab));
  for (const Value& p : parts) ptrs.push_back(&p);
  Dims out_dims = slab;
  out_dims[a] = static_cast<std::int64_t>(ctx.num_inputs());
  Value& out = ctx.allocate_output(0, first.dtype(), out_dims);
  concat_into(ptrs, a, out);
}

inline constexpr OpDef kPackOp{
    .type = "Pack", .num_inputs = -1, .infer = infer_pack, .cpu_kernel = pack_kernel};

inline std::vector<TensorSpec> infer_unpack(const InferContext& c) {
  auto num = c.attr<std::int64_t>("num");
  const Shape& in = c.shape(0);
  Shape out = Shape::unknown();
  if (in.has_rank()) {
    std::int64_t axis = pack_axis(c.attr<std::int64_t>("axis"), in.rank());
    require_dim(in.dims()[static_cast<std::size_t>(axis)], num);
    Dims d = in.dims();
    d.erase(d.begin() + axis);
    out = Shape(d);
  }
  return std::vector<TensorSpec>(static_cast<std::size_t>(num), TensorSpec{c.dtype(0), out});
}

// The part [begin, begin + size) of x along `axis`, as a new value.
inline Value slice_along(const Value& x, std::size_t axis, std::int64_t begin, std::int64_t size) {
  Dims dims = x.dims();
  dims[axis] = size;
  Value out(x.dtype(), dims);
  Dims strides = row_major_strides(x.dims());
  copy_box(x.raw_data(), {strides, begin * strides[axis]}, out.raw_data(), contiguous(dims), dims,
           dtype_size(x.dtype()));
  return out;
}

SYMFLOW_CPU_KERNEL(unpack_kernel) {
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

inline constexpr OpDef kUnpackOp{
    .type = "Unpack", .num_inputs = 1, .infer = infer_unpack, .cpu_kernel = unpack_kernel};

// ---- Split, SplitV ------------------------------------------------------------------

// The split axis given by a constant scalar input, checked against `in`'s rank;
// nullopt when it is not known at build time.
inline std::optional<std::int64_t> build_time_axis(const InferContext& c, std::size_t i,
                                                   const Shape& in) {
  auto v = constant_ints(c, i);
  if (!v) return std::nullopt;
  std::int64_t axis = v->at(0);
  if (!in.has_rank()) return axis < 0 ? std::nullopt : std::optional(axis);
  std::int64_t rank = in.rank();
  if (axis < -rank || axis >= rank)
    throw ValueError("Dimension size, given by scalar input " + str(axis) + " must be in range [" +
                     str(-rank) + ", " + str(rank) + ")");
  return axis < 0 ? axis + rank : axis;
}

inline std::vector<TensorSpec> infer_split(const InferContext& c) {
  check_allowed_list(
      c, 0, "split_dim", [](DType d) { return d == DType::int32; }, "int32");
  require_rank(c.shape(0), 0);
  auto n = c.attr<std::int64_t>("num_split");
  const Shape& in = c.shape(1);
  Shape out = in.has_rank() ? Shape::unknown_dims(in.rank()) : Shape::unknown();
  if (auto axis = build_time_axis(c, 0, in); axis && in.has_rank()) {
    Dims d = in.dims();
    auto& dim = d[static_cast<std::size_t>(*axis)];
    if (dim >= 0 && dim % n != 0)
      throw ValueError("Dimension size must be evenly divisible by " + str(n) + " but is " +
                       str(dim) +
                       "\n\tNumber of ways to split should evenly divide the split dimension");
    if (dim >= 0) dim /= n;
    out = Shape(d);
  }
  return std::vector<TensorSpec>(static_cast<std::size_t>(n), TensorSpec{c.dtype(1), out});
}

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

SYMFLOW_CPU_KERNEL(split_kernel) {
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

inline constexpr OpDef kSplitOp{
    .type = "Split", .num_inputs = 2, .infer = infer_split, .cpu_kernel = split_kernel};

inline std::vector<TensorSpec> infer_split_v(const InferContext& c) {
  check_index(c, 1, "size_splits");
  check_allowed_list(
      c, 2, "split_dim", [](DType d) { return d == DType::int32; }, "int32");
  require_rank(c.shape(2), 0);
  auto n = static_cast<std::size_t>(c.attr<std::int64_t>("num_split"));
  const Shape& in = c.shape(0);
  auto axis = build_time_axis(c, 2, in);
  auto all = [&](const Shape& s) { return std::vector<TensorSpec>(n, TensorSpec{c.dtype(0), s}); };
  if (!in.has_rank()) return all(Shape::unknown());
  if (in.rank() == 0) throw ValueError("Can't split scalars");
  auto sizes = constant_ints(c, 1);
  if (!axis) return all(Shape::unknown_dims(in.rank()));
  auto a = static_cast<std::size_t>(*axis);
  if (!sizes) {
    Dims d = in.dims();
    d[a] = unknown_dim;
    return all(Shape(d));
  }
  Dims data = *sizes;
  if (data.size() != n)
    throw ValueError("Length of size_splits should be " +
                     str(static_cast<std::int64_t>(data.size())) + ", got " +
                     str(static_cast<std::int64_t>(n)) + ".");
  int neg_one = -1;
  std::int64_t sum = 0;
  for (std::size_t i = 0; i < data.size(); ++i) {
    if (data[i] == -1) {
      if (neg_one >= 0) throw ValueError("size_splits can only have one -1");
      neg_one = static_cast<int>(i);
    } else {
      sum += data[i];
    }
  }
  std::int64_t total = in.dims()[a];
  if (total >= 0) {
    if (neg_one >= 0) {
      data[static_cast<std::size_t>(neg_one)] = total - sum;
    } else if (sum != total) {
      throw ValueError("can't split axis of size " + str(total) + " into pieces of size " +
                       dims_to_string(data));
    }
    for (std::size_t i = 0; i < data.size(); ++i)
      if (data[i] < 0)
        throw ValueError("Split size at index " + str(static_cast<std::int64_t>(i)) +
                         " must be >= 0. Got: " + str(data[i]));
  }
  std::vector<TensorSpec> out;
  for (auto s : data) {
    Dims d = in.dims();
    d[a] = s < 0 ? unknown_dim : s;
    out.push_back({c.dtype(0), Shape(d)});
  }
  return out;
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

SYMFLOW_CPU_KERNEL(split_v_kernel) {
  const Value& x = ctx.input(0);
  const Value& s = ctx.input(1);
  check_split_v_sizes(ctx, s);
  std::size_t axis = runtime_split_axis(ctx, x, scalar_index(ctx.input(2)));
  Dims sizes = shape_argument(s);
  resolve_split_sizes(ctx, sizes, x.dims()[axis]);
  split_pieces(ctx, x, axis, sizes);
}

inline constexpr OpDef kSplitVOp{
    .type = "SplitV", .num_inputs = 3, .infer = infer_split_v, .cpu_kernel = split_v_kernel};

// ---- Slice ----------------------------------------------------------------------------

inline std::vector<TensorSpec> infer_slice(const InferContext& c) {
  check_index(c, 1, "begin");
  check_index(c, 2, "size");
  require_rank(c.shape(1), 1);
  require_rank(c.shape(2), 1);
  Shape spec = merge_shapes(c.shape(1), c.shape(2));
  Shape in = c.shape(0);
  std::int64_t ndims = spec.has_rank() ? spec[0] : unknown_dim;
  if (ndims >= 0) require_rank(in, ndims);
  auto begin = constant_ints(c, 1);
  auto sizes = constant_ints(c, 2);
  if (!sizes) {
    std::int64_t rank = ndims >= 0 ? ndims : (in.has_rank() ? in.rank() : -1);
    return {
        {c.dtype(0), rank < 0 ? Shape::unknown() : Shape::unknown_dims(static_cast<int>(rank))}};
  }
  Dims out;
  for (std::size_t i = 0; i < sizes->size(); ++i) {
    std::int64_t s = (*sizes)[i];
    if (s < -1) throw ValueError("Invalid value in tensor used for shape: " + str(s));
    if (s >= 0) {
      out.push_back(s);
    } else {
      std::int64_t dim = in.has_rank() ? in.dims()[i] : unknown_dim;
      out.push_back(begin && dim >= 0 ? dim - (*begin)[i] : unknown_dim);
    }
  }
  return {{c.dtype(0), Shape(out)}};
}

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

SYMFLOW_CPU_KERNEL(slice_kernel) {
  const Value& x = ctx.input(0);
  const auto [size, src] = slice_plan(ctx, x.dims(), ctx.input(1), ctx.input(2));
  Value& out = ctx.allocate_output(0, x.dtype(), size);
  copy_box(x.raw_data(), src, out.raw_data(), contiguous(size), size, dtype_size(x.dtype()));
}

inline constexpr OpDef kSliceOp{
    .type = "Slice", .num_inputs = 3, .infer = infer_slice, .cpu_kernel = slice_kernel};

// ---- StridedSlice, StridedSliceGrad ---------------------------------------------------

struct StridedSliceMasks {
  std::int64_t begin = 0, end = 0, ellipsis = 0, new_axis = 0, shrink_axis = 0;
};

inline StridedSliceMasks masks_of(const AttrMap& attrs) {
  return {get_attr<std::int64_t>(attrs, "begin_mask"), get_attr<std::int64_t>(attrs, "end_mask"),
          get_attr<std::int64_t>(attrs, "ellipsis_mask"),
          get_attr<std::int64_t>(attrs, "new_axis_mask"),
          get_attr<std::int64_t>(attrs, "shrink_axis_mask")};
}

// A strided slice resolved against an input shape: for each input dim, where it starts,
// its stride and how many elements it takes (`processing`), and the output shape after
// new axes are added and shrunk axes dropped.
struct StridedSliceSpec {
  Dims begin, strides, processing, final_shape;
};

// TensorFlow's ValidateStridedSliceOp. `input` may have unknown dims (-1) and `begin` /
// `end` may be unknown (nullptr) at build time. Sets `error` and returns nullopt on a
// bad spec.
inline std::optional<StridedSliceSpec> resolve_strided_slice(const Dims* begin_in,
                                                             const Dims* end_in,
                                                             const Dims& strides_in,
                                                             const Dims& input, StridedSliceMasks m,
                                                             std::string& error) {
  auto bit = [](std::int64_t mask, std::size_t i) { return ((mask >> i) & 1) != 0; };
  if (m.ellipsis != 0 && (m.ellipsis & (m.ellipsis - 1)) != 0) {
    error = "Multiple ellipses in slice spec not allowed";
    return std::nullopt;
  }
  // Step 1: the sparse spec, with an ellipsis at the end when there is none.
  std::size_t sparse_dims = strides_in.size();
  std::size_t new_axis_after_ellipsis = 0;
  bool ellipsis_seen = false;
  for (std::size_t i = 0; i < sparse_dims; ++i) {
    if (ellipsis_seen && bit(m.new_axis, i)) ++new_axis_after_ellipsis;
    if (bit(m.ellipsis, i)) ellipsis_seen = true;
  }
  std::int64_t ellipsis_mask = m.ellipsis;
  if (!ellipsis_seen) {
    ellipsis_mask |= std::int64_t{1} << sparse_dims;
    ++sparse_dims;
  }
  // Step 2: the dense spec, one entry per input dim.
  std::size_t dims = input.size();
  Dims begin(dims, 0), end(dims, 0), strides(dims, 1);
  std::int64_t begin_mask = 0, end_mask = 0, shrink_mask = 0;
  constexpr std::int64_t kNewAxis = -1, kShrinkAxis = -2;
  Dims gather;  // per output dim: the dense dim it takes, or kNewAxis / kShrinkAxis
  std::size_t full = 0;
  for (std::size_t i = 0; i < sparse_dims; ++i) {
    if (bit(ellipsis_mask, i)) {
      auto next =
          std::min<std::int64_t>(static_cast<std::int64_t>(dims + 1 + new_axis_after_ellipsis) -
                                     static_cast<std::int64_t>(sparse_dims - i),
                                 static_cast<std::int64_t>(dims));
      for (; static_cast<std::int64_t>(full) < next; ++full) {
        begin[full] = end[full] = 0;
        strides[full] = 1;
        begin_mask |= std::int64_t{1} << full;
        end_mask |= std::int64_t{1} << full;
        gather.push_back(static_cast<std::int64_t>(full));
      }
    } else if (bit(m.new_axis, i)) {
      gather.push_back(kNewAxis);
    } else {
      if (full == dims) {
        error = "Index out of range using input dim " + str(static_cast<std::int64_t>(full)) +
                "; input has only " + str(static_cast<std::int64_t>(dims)) + " dims";
        return std::nullopt;
      }
      if (begin_in) begin[full] = (*begin_in)[i];
      if (end_in) end[full] = (*end_in)[i];
      strides[full] = strides_in[i];
      if (bit(m.begin, i)) begin_mask |= std::int64_t{1} << full;
      if (bit(m.end, i)) end_mask |= std::int64_t{1} << full;
      if (bit(m.shrink_axis, i)) {
        gather.push_back(kShrinkAxis);
        shrink_mask |= std::int64_t{1} << full;
      } else {
        gather.push_back(static_cast<std::int64_t>(full));
      }
      ++full;
    }
  }
  // Step 3: make the ranges explicit and check them.
  bool known = begin_in && end_in;
  StridedSliceSpec spec;
  for (std::size_t i = 0; i < dims; ++i) {
    std::int64_t& b = begin[i];
    std::int64_t& e = end[i];
    std::int64_t s = strides[i];
    std::int64_t dim = input[i];
    if (s == 0) {
      error = "strides[" + str(static_cast<std::int64_t>(i)) + "] must be non-zero";
      return std::nullopt;
    }
    bool shrink = bit(shrink_mask, i);
    if (dim == unknown_dim) {
      spec.processing.push_back(shrink ? 1 : unknown_dim);
      continue;
    }
    bool masks[2] = {bit(begin_mask, i), bit(end_mask, i)};
    std::int64_t valid[2] = {s > 0 ? 0 : -1, s > 0 ? dim : dim - 1};
    auto canonical = [&](std::int64_t x, int c) {
      if (masks[c]) return s > 0 ? valid[c] : valid[(c + 1) & 1];
      std::int64_t fwd = x < 0 ? dim + x : x;
      return fwd < valid[0] ? valid[0] : fwd > valid[1] ? valid[1] : fwd;
    };
    if (shrink && s <= 0) {
      error = "only stride 1 allowed on non-range indexing.";
      return std::nullopt;
    }
    bool both_masked = masks[0] && masks[1];
    std::int64_t length = 0;
    bool known_length = false;
    if (known) {
      if (shrink) {
        std::int64_t fwd = b < 0 ? dim + b : b;
        if (fwd < 0 || fwd >= dim) {
          error = "slice index " + str(b) + " of dimension " + str(static_cast<std::int64_t>(i)) +
                  " out of bounds.";
          return std::nullopt;
        }
        b = fwd;
        e = b + 1;
      } else {
        b = canonical(b, 0);
        e = canonical(e, 1);
      }
      length = e - b;
      known_length = true;
    } else if (shrink) {
      length = 1;
      known_length = true;
    } else if (both_masked) {
      length = s < 0 ? -dim : dim;
      known_length = true;
    }
    if (!known_length) {
      spec.processing.push_back(unknown_dim);
    } else if (length == 0 || ((length < 0) != (s < 0))) {
      spec.processing.push_back(0);
    } else {
      spec.processing.push_back(length / s + (length % s != 0 ? 1 : 0));
    }
  }
  // Step 4: the final shape.
  for (auto g : gather) {
    if (g >= 0)
      spec.final_shape.push_back(spec.processing[static_cast<std::size_t>(g)]);
    else if (g == kNewAxis)
      spec.final_shape.push_back(1);
  }
  spec.begin = begin;
  spec.strides = strides;
  return spec;
}

inline std::vector<TensorSpec> infer_strided_slice(const InferContext& c) {
  for (std::size_t i = 1; i < 4; ++i)
    check_index(c, i, i == 1 ? "begin" : i == 2 ? "end" : "strides");
  for (std::size_t i = 1; i < 4; ++i) require_rank(c.shape(i), 1);
  Shape spec_shape = merge_shapes(merge_shapes(c.shape(1), c.shape(2)), c.shape(3));
  auto strides = constant_ints(c, 3);
  const Shape& in = c.shape(0);
  if (!in.has_rank() || !spec_shape.has_rank() || spec_shape[0] < 0 || !strides)
    return {{c.dtype(0), Shape::unknown()}};
  auto begin = constant_ints(c, 1);
  auto end = constant_ints(c, 2);
  std::string error;
  auto spec = resolve_strided_slice(begin ? &*begin : nullptr, end ? &*end : nullptr, *strides,
                                    in.dims(), masks_of(c.attrs), error);
  if (!spec) throw ValueError(error);
  return {{c.dtype(0), Shape(spec->final_shape)}};
}

// Resolves the spec of a StridedSlice (or its gradient) at run time, or fails.
inline StridedSliceSpec runtime_strided_slice(KernelContext& ctx, const Dims& input, const Value& b,
                                              const Value& e, const Value& s,
                                              const AttrMap& attrs) {
  if (b.rank() != 1 || e.rank() != 1 || s.rank() != 1 || b.size() != e.size() ||
      b.size() != s.size() || s.size() > 32)
    ctx.fail("Expected begin, end, and strides to be 1D equal size tensors, but got shapes " +
             dims_to_string(b.dims()) + ", " + dims_to_string(e.dims()) + ", and " +
             dims_to_string(s.dims()) + " instead.");
  Dims begin = shape_argument(b), end = shape_argument(e);
  std::string error;
  auto spec = resolve_strided_slice(&begin, &end, shape_argument(s), input, masks_of(attrs), error);
  if (!spec) ctx.fail(error);
  return *spec;
}

// Where a resolved slice's elements sit inside a buffer of dims `input`.
inline View strided_view(const StridedSliceSpec& spec, const Dims& input) {
  Dims strides = row_major_strides(input);
  View v{Dims(input.size()), 0};
  for (std::size_t i = 0; i < input.size(); ++i) {
    v.offset += spec.begin[i] * strides[i];
    v.strides[i] = spec.strides[i] * strides[i];
  }
  return v;
}

// The kernels read the masks through a copy of the node's attrs (the context keeps them private).
inline AttrMap strided_slice_attrs(const KernelContext& ctx) {
  AttrMap a;
  for (const char* k :
       {"begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"})
    a[k] = ctx.attr<std::int64_t>(k);
  return a;
}

SYMFLOW_CPU_KERNEL(strided_slice_kernel) {
  const Value& x = ctx.input(0);
  StridedSliceSpec spec = runtime_strided_slice(ctx, x.dims(), ctx.input(1), ctx.input(2),
                                                ctx.input(3), strided_slice_attrs(ctx));
  Value& out = ctx.allocate_output(0, x.dtype(), spec.final_shape);
  copy_box(x.raw_data(), strided_view(spec, x.dims()), out.raw_data(), contiguous(spec.processing),
           spec.processing, dtype_size(x.dtype()));
}

inline constexpr OpDef kStridedSliceOp{.type = "StridedSlice",
                                       .num_inputs = 4,
                                       .infer = infer_strided_slice,
                                       .cpu_kernel = strided_slice_kernel};

// StridedSliceGrad(shape, begin, end, strides, dy): zeros of `shape` with dy written
// where StridedSlice read its elements.
inline std::vector<TensorSpec> infer_strided_slice_grad(const InferContext& c) {
  check_index(c, 0, "shape");
  require_rank(c.shape(0), 1);
  if (auto dims = constant_ints(c, 0)) return {{c.dtype(4), Shape(*dims)}};
  const Shape& s = c.shape(0);
  if (s.has_rank() && s[0] >= 0) return {{c.dtype(4), Shape::unknown_dims(static_cast<int>(s[0]))}};
  return {{c.dtype(4), Shape::unknown()}};
}

SYMFLOW_CPU_KERNEL(strided_slice_grad_kernel) {
  Dims shape = shape_argument(ctx.input(0));
  const Value& dy = ctx.input(4);
  StridedSliceSpec spec = runtime_strided_slice(ctx, shape, ctx.input(1), ctx.input(2),
                                                ctx.input(3), strided_slice_attrs(ctx));
  if (dy.dims() != spec.final_shape)
    ctx.fail("shape of dy was " + dims_to_string(dy.dims()) + " instead of " +
             dims_to_string(spec.final_shape));
  Value& out = ctx.allocate_output(0, dy.dtype(), shape);  // zero-filled
  copy_box(dy.raw_data(), contiguous(spec.processing), out.raw_data(), strided_view(spec, shape),
           spec.processing, dtype_size(dy.dtype()));
}

inline constexpr OpDef kStridedSliceGradOp{.type = "StridedSliceGrad",
                                           .num_inputs = 5,
                                           .infer = infer_strided_slice_grad,
                                           .cpu_kernel = strided_slice_grad_kernel};

// ---- GatherV2, UnsortedSegmentSum ----------------------------------------------------

inline std::vector<TensorSpec> infer_gather(const InferContext& c) {
  check_allowed_list(c, 1, "indices", is_index_dtype, "int16, int32, int64");
  check_index(c, 2, "axis");
  const Shape& params = c.shape(0);
  const Shape& indices = c.shape(1);
  require_rank_at_least(params, 1);
  require_rank(c.shape(2), 0);
  auto axis_value = constant_ints(c, 2);
  if (!axis_value) {
    if (params.has_rank() && indices.has_rank())
      return {{c.dtype(0), Shape::unknown_dims(params.rank() + indices.rank() - 1)}};
    return {{c.dtype(0), Shape::unknown()}};
  }
  std::int64_t axis = axis_value->at(0);
  require_rank_at_least(params, axis < 0 ? -axis : axis + 1);
  if (!params.has_rank() || !indices.has_rank()) return {{c.dtype(0), Shape::unknown()}};
  auto a = static_cast<std::ptrdiff_t>(axis < 0 ? axis + params.rank() : axis);
  Dims out(params.dims().begin(), params.dims().begin() + a);
  out.insert(out.end(), indices.dims().begin(), indices.dims().end());
  out.insert(out.end(), params.dims().begin() + a + 1, params.dims().end());
  return {{c.dtype(0), Shape(out)}};
}

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

SYMFLOW_CPU_KERNEL(gather_kernel) {
  const Value& params = ctx.input(0);
  const GatherPlan plan = gather_plan(ctx, params.dims(), ctx.input(1), scalar_index(ctx.input(2)));
  const std::size_t a = plan.axis;
  const Dims& idx = plan.indices;
  const Dims& out_dims = plan.out_dims;
  const std::int64_t limit = params.dims()[a];
  Value& out = ctx.allocate_output(0, params.dtype(), out_dims);
  std::int64_t outer = 1, inner = 1;
  for (std::size_t i = 0; i < a; ++i) outer *= params.dims()[i];
  for (std::size_t i = a + 1; i < params.dims().size(); ++i) inner *= params.dims()[i];
  // params as [outer, limit, inner] -> out as [outer, n, inner]
  std::size_t row = static_cast<std::size_t>(inner) * dtype_size(params.dtype());
  const auto* src = static_cast<const std::byte*>(params.raw_data());
  auto* dst = static_cast<std::byte*>(out.raw_data());
  auto n = static_cast<std::int64_t>(idx.size());
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t j = 0; j < n; ++j)
      std::memcpy(
          dst + static_cast<std::size_t>(o * n + j) * row,
          src + static_cast<std::size_t>(o * limit + idx[static_cast<std::size_t>(j)]) * row, row);
}

inline constexpr OpDef kGatherV2Op{
    .type = "GatherV2", .num_inputs = 3, .infer = infer_gather, .cpu_kernel = gather_kernel};

inline std::vector<TensorSpec> infer_unsorted_segment_sum(const InferContext& c) {
  check_allowed_list(c, 0, "data", is_number_dtype,
                     "float32, float64, int32, uint8, int16, int8, int64, ...");
  check_index(c, 1, "segment_ids");
  check_index(c, 2, "num_segments");
  require_rank(c.shape(2), 0);
  const Shape& data = c.shape(0);
  const Shape& ids = c.shape(1);
  auto num = constant_ints(c, 2);
  std::int64_t segments = num ? num->at(0) : unknown_dim;
  if (!data.has_rank() || !ids.has_rank()) return {{c.dtype(0), Shape::unknown()}};
  require_rank_at_least(data, ids.rank());
  for (std::size_t i = 0; i < ids.dims().size(); ++i) {
    std::int64_t x = data.dims()[i], y = ids.dims()[i];
    if (x >= 0 && y >= 0 && x != y)
      throw ValueError("Dimensions must be equal, but are " + str(x) + " and " + str(y));
  }
  Dims out{segments};
  out.insert(out.end(), data.dims().begin() + ids.rank(), data.dims().end());
  return {{c.dtype(0), Shape(out)}};
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

SYMFLOW_CPU_KERNEL(unsorted_segment_sum_kernel) {
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

inline constexpr OpDef kUnsortedSegmentSumOp{.type = "UnsortedSegmentSum",
                                             .num_inputs = 3,
                                             .infer = infer_unsorted_segment_sum,
                                             .cpu_kernel = unsorted_segment_sum_kernel};

// ---- Pad, PadV2 -----------------------------------------------------------------------

inline std::vector<TensorSpec> infer_pad(const InferContext& c) {
  check_index(c, 1, "paddings");
  if (c.inputs.size() == 3) {
    if (c.dtype(2) != c.dtype(0))
      throw TypeError("Input 'constant_values' of 'PadV2' Op has type " +
                      std::string(dtype_name(c.dtype(2))) + " that does not match type " +
                      std::string(dtype_name(c.dtype(0))) + " of argument 'input'.");
    require_rank(c.shape(2), 0);
  }
  const Shape& p = c.shape(1);
  require_rank(p, 2);
  if (p.has_rank()) require_dim(p[1], 2);
  std::int64_t n = p.has_rank() ? p[0] : unknown_dim;
  const Shape& in = c.shape(0);
  if (n >= 0) require_rank(in, n);
  if (n < 0 && in.has_rank()) n = in.rank();
  auto pads = constant_ints(c, 1);
  if (!pads)
    return {{c.dtype(0), n < 0 ? Shape::unknown() : Shape::unknown_dims(static_cast<int>(n))}};
  Dims out;
  for (std::size_t i = 0; i < pads->size() / 2; ++i) {
    std::int64_t before = (*pads)[2 * i], after = (*pads)[2 * i + 1];
    if (before < 0 || after < 0) throw ValueError("Paddings must be non-negative");
    std::int64_t dim = in.has_rank() ? in.dims()[i] : unknown_dim;
    out.push_back(dim < 0 ? unknown_dim : dim + before + after);
  }
  return {{c.dtype(0), Shape(out)}};
}

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

SYMFLOW_CPU_KERNEL(pad_kernel) {
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

inline constexpr OpDef kPadOp{
    .type = "Pad", .num_inputs = 2, .infer = infer_pad, .cpu_kernel = pad_kernel};
inline constexpr OpDef kPadV2Op{
    .type = "PadV2", .num_inputs = 3, .infer = infer_pad, .cpu_kernel = pad_kernel};

// ---- OneHot -----------------------------------------------------------------------------

inline bool is_one_hot_index(DType d) { return d == DType::uint8 || is_index_dtype(d); }

inline std::vector<TensorSpec> infer_one_hot(const InferContext& c) {
  check_allowed_list(c, 0, "indices", is_one_hot_index, "uint8, int8, int32, int64");
  check_allowed_list(
      c, 1, "depth", [](DType d) { return d == DType::int32; }, "int32");
  if (c.dtype(3) != c.dtype(2))
    throw TypeError("Input 'off_value' of 'OneHot' Op has type " +
                    std::string(dtype_name(c.dtype(3))) + " that does not match type " +
                    std::string(dtype_name(c.dtype(2))) + " of argument 'on_value'.");
  auto axis = c.attr<std::int64_t>("axis");
  if (axis < -1) throw ValueError("axis must be >= -1");
  for (std::size_t i = 1; i < 4; ++i) require_rank(c.shape(i), 0);
  std::int64_t depth = unknown_dim;
  if (auto d = constant_ints(c, 1)) {
    depth = d->at(0);
    if (depth < 0)
      throw ValueError("Dimension size, given by scalar input 1, must be non-negative but is " +
                       str(depth));
  }
  const Shape& in = c.shape(0);
  if (!in.has_rank()) return {{c.dtype(2), Shape::unknown()}};
  std::int64_t rank = in.rank();
  if (axis > rank) return {{c.dtype(2), Shape::unknown_dims(static_cast<int>(rank + 1))}};
  Dims out = in.dims();
  out.insert(out.begin() + (axis == -1 ? rank : axis), depth);
  return {{c.dtype(2), Shape(out)}};
}

SYMFLOW_CPU_KERNEL(one_hot_kernel) {
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

inline constexpr OpDef kOneHotOp{
    .type = "OneHot", .num_inputs = 4, .infer = infer_one_hot, .cpu_kernel = one_hot_kernel};

// ---- Range ------------------------------------------------------------------------------

template <class T>
std::string number_text(T v) {
  std::ostringstream s;  // six significant digits, as TensorFlow's StrCat prints
  s << v;
  return s.str();
}

// The number of elements of range(start, limit, delta); nullopt with `error` set when
// the arguments describe no range.
template <class T>
std::optional<std::int64_t> range_size(T start, T limit, T delta, std::string& error) {
  if (delta == 0) {
    error = "Requires delta != 0";
    return std::nullopt;
  }
  if (delta > 0 && start > limit) {
    error =
        "Requires start <= limit when delta > 0: " + number_text(start) + "/" + number_text(limit);
    return std::nullopt;
  }
  if (delta < 0 && start < limit) {
    error =
        "Requires start >= limit when delta < 0: " + number_text(start) + "/" + number_text(limit);
    return std::nullopt;
  }
  if constexpr (std::is_integral_v<T>) {
    auto span = static_cast<std::int64_t>(limit > start ? limit - start : start - limit);
    auto step = static_cast<std::int64_t>(delta > 0 ? delta : -delta);
    return (span + step - 1) / step;
  } else {
    return static_cast<std::int64_t>(std::ceil(std::abs((limit - start) / delta)));
  }
}

inline std::vector<TensorSpec> infer_range(const InferContext& c) {
  check_same_dtype(c, "Range", {"start", "limit", "delta"});
  check_allowed_list(c, 0, "Tidx", is_range_dtype, "float32, float64, int32, int64");
  for (std::size_t i = 0; i < 3; ++i) require_rank(c.shape(i), 0);
  if (!c.constant(0) || !c.constant(1) || !c.constant(2)) return {{c.dtype(0), Shape{unknown_dim}}};
  return visit_dtype(c.dtype(0), [&](auto tag) -> std::vector<TensorSpec> {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, std::uint8_t>) {
      return {};
    } else {
      std::string error;
      auto n = range_size<T>(c.constant(0)->scalar<T>(), c.constant(1)->scalar<T>(),
                             c.constant(2)->scalar<T>(), error);
      if (!n) throw ValueError(error);
      return {{c.dtype(0), Shape{*n}}};
    }
  });
}

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

SYMFLOW_CPU_KERNEL(range_kernel) {
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

inline constexpr OpDef kRangeOp{
    .type = "Range", .num_inputs = 3, .infer = infer_range, .cpu_kernel = range_kernel};

}  // namespace detail::transform

// ---- user functions -------------------------------------------------------------------

// tf.transpose(x, perm): perm defaults to the reversed axes.
inline Output transpose(const Output& x, const TensorArg& perm, std::string_view name = {}) {
  detail::OpBuilder b(graph_of({x}), name, "transpose");
  Output p = perm.resolve(b, "perm");
  return b.build(detail::transform::kTransposeOp, {x, p}, {{"T", x.dtype()}, {"Tperm", p.dtype()}})
      .output(0);
}
// Without perm: reversed axes, a Const when the rank is known, else
// Range(Rank(x) - 1, -1, -1) as TensorFlow builds it.
inline Output transpose(const Output& x, std::nullopt_t = std::nullopt,
                        std::string_view name = {}) {
  detail::OpBuilder b(graph_of({x}), name, "transpose");
  Output p;
  if (x.shape().has_rank()) {
    Dims perm(static_cast<std::size_t>(x.shape().rank()));
    for (std::size_t i = 0; i < perm.size(); ++i)
      perm[i] = static_cast<std::int64_t>(perm.size() - 1 - i);
    p = b.constant_arg(detail::int32_vector(perm), "perm");
  } else {
    Output r = rank(x);
    Output last;
    {
      detail::OpBuilder sb(b.graph(), "sub", "sub");
      Output one = sb.constant_arg(Value(std::int32_t{1}), "y");
      last = sb.build(detail::kSubOp, {r, one}, {{"T", DType::int32}}).output(0);
    }
    detail::OpBuilder rb(b.graph(), "Range", "Range");
    Output limit = rb.constant_arg(Value(std::int32_t{-1}), "limit");
    Output delta = rb.constant_arg(Value(std::int32_t{-1}), "delta");
    p = rb.build(detail::transform::kRangeOp, {last, limit, delta}, {{"Tidx", DType::int32}})
            .output(0);
  }
  return b
      .build(detail::transform::kTransposeOp, {x, p}, {{"T", x.dtype()}, {"Tperm", DType::int32}})
      .output(0);
}
template <Element T>
Tensor<T> transpose(const Tensor<T>& x, const TensorArg& perm, std::string_view name = {}) {
  return Tensor<T>(transpose(Output(x), perm, name));
}
template <Element T>
Tensor<T> transpose(const Tensor<T>& x) {
  return Tensor<T>(transpose(Output(x)));
}

// tf.invert_permutation(x).
inline Output invert_permutation(const TensorArg& x, std::string_view name = {}) {
  detail::OpBuilder b(graph_of({&x}), name, "InvertPermutation");
  Output v = x.resolve(b, "x");
  return b.build(detail::transform::kInvertPermutationOp, {v}, {{"T", v.dtype()}}).output(0);
}

// tf.concat(values, axis). One value comes back through an Identity, as in TensorFlow.
inline Output concat(const std::vector<Output>& values, const TensorArg& axis,
                     std::string_view name = {}) {
  if (values.empty()) throw ValueError("concat needs at least one value");
  detail::OpBuilder b(graph_of(values), name, "concat");
  if (values.size() == 1) {
    axis.resolve(b, "concat_dim");
    return identity(values[0], "concat");
  }
  Output a = axis.resolve(b, "axis");
  std::vector<Output> inputs = values;
  inputs.push_back(a);
  return b
      .build(detail::transform::kConcatV2Op, inputs,
             {{"N", static_cast<std::int64_t>(values.size())},
              {"T", values[0].dtype()},
              {"Tidx", a.dtype()}})
      .output(0);
}

// tf.stack(values, axis): Pack.
inline Output stack(const std::vector<Output>& values, std::int64_t axis = 0,
                    std::string_view name = {}) {
  if (values.empty()) throw ValueError("stack needs at least one value");
  const Shape& s = values[0].shape();
  if (s.has_rank()) {
    std::int64_t rank = s.rank() + 1;
    if (axis < -rank || axis >= rank)
      throw ValueError("Argument `axis` = " + detail::transform::str(axis) + " not in range [" +
                       detail::transform::str(-rank) + ", " + detail::transform::str(rank) + ")");
  }
  detail::OpBuilder b(graph_of(values), name, "stack");
  return b
      .build(detail::transform::kPackOp, values,
             {{"N", static_cast<std::int64_t>(values.size())},
              {"T", values[0].dtype()},
              {"axis", axis}})
      .output(0);
}

// tf.unstack(x, num, axis): Unpack; `num` defaults to the size of `axis`.
inline std::vector<Output> unstack(const Output& x, std::optional<std::int64_t> num = {},
                                   std::int64_t axis = 0, std::string_view name = {}) {
  if (!num) {
    const Shape& s = x.shape();
    if (s.has_rank()) {
      std::int64_t rank = s.rank();
      if (axis < -rank || axis >= rank)
        throw ValueError("Argument `axis` = " + detail::transform::str(axis) + " not in range [" +
                         detail::transform::str(-rank) + ", " + detail::transform::str(rank) + ")");
      std::int64_t d = s.dims()[static_cast<std::size_t>(axis < 0 ? axis + rank : axis)];
      if (d >= 0) num = d;
    }
    if (!num) throw ValueError("Cannot infer argument `num` from shape " + s.to_string());
  }
  detail::OpBuilder b(graph_of({x}), name, "unstack");
  return b
      .build(detail::transform::kUnpackOp, {x}, {{"T", x.dtype()}, {"num", *num}, {"axis", axis}})
      .outputs();
}

// tf.split(x, num_split, axis): Split into equal parts.
inline std::vector<Output> split(const Output& x, int num_split, const TensorArg& axis = 0,
                                 std::string_view name = {}) {
  if (num_split < 1)
    throw ValueError("Attr 'num_split' of 'Split' Op passed " + std::to_string(num_split) +
                     " less than minimum 1.");
  detail::OpBuilder b(graph_of({x}), name, "split");
  Output a = axis.resolve(b, "split_dim");
  return b
      .build(detail::transform::kSplitOp, {a, x},
             {{"T", x.dtype()}, {"num_split", static_cast<std::int64_t>(num_split)}})
      .outputs();
}
// tf.split(x, size_splits, axis): SplitV; one size may be -1 (the rest).
inline std::vector<Output> split(const Output& x, const Output& size_splits,
                                 const TensorArg& axis = 0, std::optional<std::int64_t> num = {},
                                 std::string_view name = {}) {
  if (!num) {
    const Shape& s = size_splits.shape();
    if (s.has_rank() && s.rank() == 1 && s[0] >= 0) num = s[0];
    if (!num) throw ValueError("Cannot infer argument `num` from shape " + s.to_string());
  }
  detail::OpBuilder b(graph_of({x, size_splits}), name, "split");
  Output a = axis.resolve(b, "split_dim");
  return b
      .build(detail::transform::kSplitVOp, {x, size_splits, a},
             {{"T", x.dtype()}, {"Tlen", size_splits.dtype()}, {"num_split", *num}})
      .outputs();
}
// The sizes become a Const named "Const" outside the op's scope, as in TensorFlow.
inline std::vector<Output> split(const Output& x, const Dims& size_splits,
                                 const TensorArg& axis = 0, std::string_view name = {}) {
  Graph g = graph_of({x});
  Output sizes = detail::make_const(g, detail::int32_vector(size_splits), "Const").output(0);
  return split(x, sizes, axis, static_cast<std::int64_t>(size_splits.size()), name);
}

// tf.slice(x, begin, size): a size of -1 takes the rest of that axis.
inline Output slice(const Output& x, const TensorArg& begin, const TensorArg& size,
                    std::string_view name = {}) {
  detail::OpBuilder b(graph_of({x}), name, "Slice");
  Output bo = begin.resolve(b, "begin");
  Output so = size.resolve(b, "size", bo.dtype());
  return b
      .build(detail::transform::kSliceOp, {x, bo, so}, {{"T", x.dtype()}, {"Index", bo.dtype()}})
      .output(0);
}
template <Element T>
Tensor<T> slice(const Tensor<T>& x, const TensorArg& begin, const TensorArg& size,
                std::string_view name = {}) {
  return Tensor<T>(slice(Output(x), begin, size, name));
}

// The masks of tf.strided_slice, and its name.
struct StridedSliceOptions {
  std::int64_t begin_mask = 0;
  std::int64_t end_mask = 0;
  std::int64_t ellipsis_mask = 0;
  std::int64_t new_axis_mask = 0;
  std::int64_t shrink_axis_mask = 0;
  std::string_view name = {};
};

// tf.strided_slice(x, begin, end, strides, masks): named as `x[...]` names it
// ("strided_slice", with its spec in the Consts "stack", "stack_1", "stack_2").
inline Output strided_slice(const Output& x, const TensorArg& begin, const TensorArg& end,
                            const TensorArg& strides, const StridedSliceOptions& options = {}) {
  detail::OpBuilder b(graph_of({x}), options.name, "strided_slice");
  Output bo = begin.resolve(b, "stack");
  Output eo = end.resolve(b, "stack_1", bo.dtype());
  Output so = strides.resolve(b, "stack_2", bo.dtype());
  return b
      .build(detail::transform::kStridedSliceOp, {x, bo, eo, so},
             {{"T", x.dtype()},
              {"Index", bo.dtype()},
              {"begin_mask", options.begin_mask},
              {"end_mask", options.end_mask},
              {"ellipsis_mask", options.ellipsis_mask},
              {"new_axis_mask", options.new_axis_mask},
              {"shrink_axis_mask", options.shrink_axis_mask}})
      .output(0);
}
template <Element T>
Tensor<T> strided_slice(const Tensor<T>& x, const TensorArg& begin, const TensorArg& end,
                        const TensorArg& strides, const StridedSliceOptions& options = {}) {
  return Tensor<T>(strided_slice(Output(x), begin, end, strides, options));
}

// tf.gather(params, indices, axis): GatherV2.
inline Output gather(const Output& params, const TensorArg& indices, const TensorArg& axis = 0,
                     std::string_view name = {}) {
  detail::OpBuilder b(graph_of({params}), name, "GatherV2");
  Output i = indices.resolve(b, "indices");
  Output a = axis.resolve(b, "axis");
  return b
      .build(detail::transform::kGatherV2Op, {params, i, a},
             {{"Tparams", params.dtype()},
              {"Tindices", i.dtype()},
              {"Taxis", a.dtype()},
              {"batch_dims", std::int64_t{0}}})
      .output(0);
}
template <Element T>
Tensor<T> gather(const Tensor<T>& params, const TensorArg& indices, const TensorArg& axis = 0,
                 std::string_view name = {}) {
  return Tensor<T>(gather(Output(params), indices, axis, name));
}

// tf.math.unsorted_segment_sum(data, segment_ids, num_segments).
inline Output unsorted_segment_sum(const Output& data, const TensorArg& segment_ids,
                                   const TensorArg& num_segments, std::string_view name = {}) {
  detail::OpBuilder b(graph_of({data}), name, "UnsortedSegmentSum");
  Output ids = segment_ids.resolve(b, "segment_ids");
  Output n = num_segments.resolve(b, "num_segments");
  return b
      .build(detail::transform::kUnsortedSegmentSumOp, {data, ids, n},
             {{"T", data.dtype()}, {"Tindices", ids.dtype()}, {"Tnumsegments", n.dtype()}})
      .output(0);
}

// tf.pad(x, paddings): zeros around x; paddings is [rank, 2] (before, after).
inline Output pad(const Output& x, const TensorArg& paddings, std::string_view name = {}) {
  detail::OpBuilder b(graph_of({x}), name, "Pad");
  Output p = paddings.resolve(b, "paddings");
  return b.build(detail::transform::kPadOp, {x, p}, {{"T", x.dtype()}, {"Tpaddings", p.dtype()}})
      .output(0);
}
// tf.pad(x, paddings, constant_values=c): PadV2, with c converted to x's dtype; a
// constant_values of zero builds the plain Pad, as TensorFlow does.
inline Output pad(const Output& x, const TensorArg& paddings, const Output& constant_values,
                  std::string_view name = {}) {
  detail::OpBuilder b(graph_of({x}), name, "PadV2");
  Output p = paddings.resolve(b, "paddings");
  return b
      .build(detail::transform::kPadV2Op, {x, p, constant_values},
             {{"T", x.dtype()}, {"Tpaddings", p.dtype()}})
      .output(0);
}
inline Output pad(const Output& x, const TensorArg& paddings, const Value& constant_values,
                  std::string_view name = {}) {
  const auto* bytes = static_cast<const std::byte*>(constant_values.raw_data());
  bool zero = constant_values.size() == 1;
  for (std::size_t i = 0; zero && i < constant_values.nbytes(); ++i)
    zero = bytes[i] == std::byte{0};
  if (zero) return pad(x, paddings, name);
  detail::OpBuilder b(graph_of({x}), name, "PadV2");
  Output p = paddings.resolve(b, "paddings");
  Output c = b.constant_arg(constant_values.astype(x.dtype()), "constant_values");
  return b
      .build(detail::transform::kPadV2Op, {x, p, c}, {{"T", x.dtype()}, {"Tpaddings", p.dtype()}})
      .output(0);
}
template <Element T>
Tensor<T> pad(const Tensor<T>& x, const TensorArg& paddings, std::string_view name = {}) {
  return Tensor<T>(pad(Output(x), paddings, name));
}

// The options of tf.one_hot.
struct OneHotOptions {
  std::optional<Value> on_value = std::nullopt;   // default 1 of `dtype`
  std::optional<Value> off_value = std::nullopt;  // default 0 of `dtype`
  std::int64_t axis = -1;
  DType dtype = DType::invalid;  // default: on_value's or off_value's dtype, else float32
  std::string_view name = {};
};

// tf.one_hot(indices, depth, on_value, off_value, axis, dtype).
inline Output one_hot(const TensorArg& indices, const TensorArg& depth,
                      const OneHotOptions& options = {}) {
  DType dtype = options.dtype;
  if (options.on_value && options.off_value &&
      options.on_value->dtype() != options.off_value->dtype())
    throw TypeError("dtype " + std::string(dtype_name(options.on_value->dtype())) +
                    " of on_value does not match dtype " +
                    std::string(dtype_name(options.off_value->dtype())) + " of off_value");
  if (dtype == DType::invalid)
    dtype = options.on_value    ? options.on_value->dtype()
            : options.off_value ? options.off_value->dtype()
                                : DType::float32;
  detail::OpBuilder b(graph_of({&indices, &depth}), options.name, "one_hot");
  auto scalar = [&](const std::optional<Value>& given, int fallback, std::string_view arg) {
    if (given) return b.constant_arg(given->astype(dtype), "Const");
    return b.constant_arg(Value(fallback).astype(dtype), arg);
  };
  Output on = scalar(options.on_value, 1, "on_value");
  Output off = scalar(options.off_value, 0, "off_value");
  Output i = indices.resolve(b, "indices");
  Output d = depth.resolve(b, "depth");
  return b
      .build(detail::transform::kOneHotOp, {i, d, on, off},
             {{"T", dtype}, {"TI", i.dtype()}, {"axis", options.axis}})
      .output(0);
}

struct RangeOptions {
  DType dtype = DType::invalid;  // default: the widest of the arguments' types
  std::string_view name = {};
};

// tf.range(start, limit, delta): the dtype is the widest of the three (int32 < int64 <
// float32 < float64), the others are cast to it.
inline Output range(const TensorArg& start, const TensorArg& limit, const TensorArg& delta = 1,
                    const RangeOptions& options = {}) {
  detail::OpBuilder b(graph_of({&start, &limit, &delta}), options.name, "range");
  std::vector<Output> args{start.resolve(b, "start", options.dtype),
                           limit.resolve(b, "limit", options.dtype),
                           delta.resolve(b, "delta", options.dtype)};
  DType dtype = options.dtype;
  if (dtype == DType::invalid) {
    auto order = [](DType d) {
      switch (d) {
        case DType::int32:
          return 0;
        case DType::int64:
          return 1;
        case DType::float32:
          return 2;
        case DType::float64:
          return 3;
        default:
          throw TypeError("range arguments must be int32, int64, float32 or float64, got " +
                          std::string(dtype_name(d)));
      }
    };
    dtype = args[0].dtype();
    for (const Output& a : args)
      if (order(a.dtype()) > order(dtype)) dtype = a.dtype();
  }
  // TensorFlow's shape inference sees through the Casts to the Consts: so does this.
  std::vector<Value> known;
  for (Output& a : args) {
    if (a.op().type() == "Const") known.push_back(a.op().get_attr<Value>("value").astype(dtype));
    a = cast(a, dtype);
  }
  std::optional<std::int64_t> size;
  if (known.size() == 3 && detail::transform::is_range_dtype(dtype)) {
    visit_dtype(dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (!std::is_same_v<T, bool> && !std::is_same_v<T, std::uint8_t>) {
        std::string error;
        size = detail::transform::range_size<T>(known[0].scalar<T>(), known[1].scalar<T>(),
                                                known[2].scalar<T>(), error);
        if (!size) throw ValueError(error);
      }
    });
  }
  Output out = b.build(detail::transform::kRangeOp, args, {{"Tidx", dtype}}).output(0);
  if (size) out.set_shape(Shape{*size});
  return out;
}
// tf.range(limit): 0, 1, ..., limit - 1.
inline Output range(const TensorArg& limit) { return range(0, limit); }

}  // namespace symflow
