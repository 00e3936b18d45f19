#pragma once
// The description of the array transformations: Transpose, ConcatV2, Pack/Unpack,
// Split/SplitV, Slice, StridedSlice, GatherV2, Pad/PadV2, SpaceToBatchND/BatchToSpaceND,
// OneHot, Range, and the helper ops their gradients are built from (InvertPermutation,
// ConcatOffset, StridedSliceGrad, UnsortedSegmentSum). Their shape functions, the pure helpers the
// shape functions and the kernels share (the strided copy loop among them), and their OpDefs; the
// CPU kernels are in backend/cpu/kernels/transform.hpp, the graph-building functions in
// ops/transform_ops.hpp.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "symflow/core/attr_value.hpp"
#include "symflow/core/dtype.hpp"
#include "symflow/core/errors.hpp"
#include "symflow/core/shape.hpp"
#include "symflow/core/value.hpp"
#include "symflow/ops/defs/op_def.hpp"
#include "symflow/ops/defs/shape.hpp"
#include "symflow/ops/defs/shape_fn.hpp"

namespace symflow {

// Helpers live in their own namespace so that their names cannot clash with other
// areas' helpers in detail.
namespace detail::transform {

// ---- shape-function helpers (worded as TensorFlow's InferenceContext words them) -----

inline std::string str(std::int64_t v) { return std::to_string(v); }

// "Dimension must be 3 but is 2" (WithValue on a dimension).
inline void require_dim(std::int64_t dim, std::int64_t want) {
  if (dim >= 0 && dim != want)
    throw ValueError("Dimension must be " + str(want) + " but is " + str(dim));
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

// Calls run(src_offset, dst_offset, count) for each run of the box `dims` seen through
// view s (the source) and view d (the destination), in elements: one run per element,
// or per innermost row when that axis is contiguous on both sides.
template <class Run>
void for_each_run(const View& s, const View& d, const Dims& dims, Run run) {
  if (num_elements(dims) == 0) return;
  std::size_t rank = dims.size();
  std::size_t outer = rank;
  std::int64_t count = 1;
  if (rank > 0 && s.strides[rank - 1] == 1 && d.strides[rank - 1] == 1) {
    outer = rank - 1;
    count = dims[rank - 1];
  }
  Dims idx(outer, 0);
  std::int64_t so = s.offset, dof = d.offset;
  for (;;) {
    run(so, dof, count);
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

// Copies the box `dims` from `src` (through view s) to `dst` (through view d).
inline void copy_box(const void* src, const View& s, void* dst, const View& d, const Dims& dims,
                     std::size_t elem) {
  const auto* in = static_cast<const std::byte*>(src);
  auto* out = static_cast<std::byte*>(dst);
  const auto e = static_cast<std::int64_t>(elem);
  for_each_run(s, d, dims, [&](std::int64_t so, std::int64_t dof, std::int64_t count) {
    std::memcpy(out + dof * e, in + so * e, static_cast<std::size_t>(count * e));
  });
}

// The same for elements that are objects (strings): copied by assignment, not as bytes.
template <class T>
void copy_box_of(const T* in, const View& s, T* out, const View& d, const Dims& dims) {
  for_each_run(s, d, dims, [&](std::int64_t so, std::int64_t dof, std::int64_t count) {
    std::copy_n(in + so, count, out + dof);
  });
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

SYMFLOW_OP_DEF(kTransposeOp, OpDef{.type = "Transpose",
                                   .num_inputs = 2,
                                   .infer = infer_transpose,
                                   .accepts_storage_dtypes = true});

inline std::vector<TensorSpec> infer_invert_permutation(const InferContext& c) {
  check_index(c, 0, "x");
  require_rank(c.shape(0), 1);
  return {c.inputs[0]};
}

SYMFLOW_OP_DEF(kInvertPermutationOp, OpDef{.type = "InvertPermutation",
                                           .num_inputs = 1,
                                           .infer = infer_invert_permutation});

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
    if (out.dtype() == DType::string)
      copy_box_of(p->data<std::string>(), contiguous(p->dims()), out.data<std::string>(), dst,
                  p->dims());
    else
      copy_box(p->raw_data(), contiguous(p->dims()), out.raw_data(), dst, p->dims(), elem);
    at += p->dims()[axis];
  }
}

SYMFLOW_OP_DEF(kConcatV2Op, OpDef{.type = "ConcatV2",
                                  .num_inputs = -1,
                                  .infer = infer_concat,
                                  .accepts_strings = true,
                                  .accepts_storage_dtypes = true});

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

SYMFLOW_OP_DEF(kConcatOffsetOp,
               OpDef{.type = "ConcatOffset", .num_inputs = -1, .infer = infer_concat_offset});

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

SYMFLOW_OP_DEF(kPackOp, OpDef{.type = "Pack",
                              .num_inputs = -1,
                              .infer = infer_pack,
                              .accepts_strings = true,
                              .accepts_storage_dtypes = true});

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

SYMFLOW_OP_DEF(kUnpackOp, OpDef{.type = "Unpack",
                                .num_inputs = 1,
                                .infer = infer_unpack,
                                .accepts_storage_dtypes = true});

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

SYMFLOW_OP_DEF(kSplitOp, OpDef{.type = "Split", .num_inputs = 2, .infer = infer_split});

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

SYMFLOW_OP_DEF(kSplitVOp, OpDef{.type = "SplitV", .num_inputs = 3, .infer = infer_split_v});

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

SYMFLOW_OP_DEF(kSliceOp, OpDef{.type = "Slice", .num_inputs = 3, .infer = infer_slice});

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

SYMFLOW_OP_DEF(kStridedSliceOp,
               OpDef{.type = "StridedSlice", .num_inputs = 4, .infer = infer_strided_slice});

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

SYMFLOW_OP_DEF(kStridedSliceGradOp,
               OpDef{
                   .type = "StridedSliceGrad", .num_inputs = 5, .infer = infer_strided_slice_grad});

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

SYMFLOW_OP_DEF(kGatherV2Op, OpDef{.type = "GatherV2",
                                  .num_inputs = 3,
                                  .infer = infer_gather,
                                  .accepts_strings = true,
                                  .accepts_storage_dtypes = true});

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

SYMFLOW_OP_DEF(kUnsortedSegmentSumOp, OpDef{.type = "UnsortedSegmentSum",
                                            .num_inputs = 3,
                                            .infer = infer_unsorted_segment_sum});

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

SYMFLOW_OP_DEF(kPadOp, OpDef{.type = "Pad", .num_inputs = 2, .infer = infer_pad});
SYMFLOW_OP_DEF(kPadV2Op, OpDef{.type = "PadV2", .num_inputs = 3, .infer = infer_pad});

// ---- SpaceToBatchND, BatchToSpaceND ---------------------------------------------------

// The number of block dims M that block_shape (input 1) gives: its shape must be a known
// vector [M].
inline std::int64_t block_dims_of(const InferContext& c) {
  const Shape& b = c.shape(1);
  if (!b.has_rank() || b.rank() != 1) throw ValueError("block_shape must have rank 1.");
  if (b[0] < 0) throw ValueError("block_shape must have known size.");
  return b[0];
}

// "Dimension size must be evenly divisible by 2 but is 7" (InferenceContext::Divide).
inline std::int64_t divide_evenly(std::int64_t dim, std::int64_t by) {
  if (dim < 0) return unknown_dim;
  if (dim % by != 0)
    throw ValueError("Dimension size must be evenly divisible by " + str(by) + " but is " +
                     str(dim));
  return dim / by;
}

// SpaceToBatchND (input [batch] + spatial + remaining, block_shape [M], paddings [M, 2])
// and BatchToSpaceND (crops in place of paddings): the spatial dims padded and divided
// by the block (or multiplied and cropped), the batch multiplied (or divided) by it.
template <bool kToBatch>
std::vector<TensorSpec> infer_space_batch(const InferContext& c) {
  check_index(c, 1, "block_shape");
  check_index(c, 2, kToBatch ? "paddings" : "crops");
  const std::int64_t m = block_dims_of(c);
  const Shape& in = c.shape(0);
  require_rank_at_least(in, m + 1);
  (void)merge_shapes(c.shape(2), Shape{m, 2});
  const auto block = constant_ints(c, 1);
  const auto edges = constant_ints(c, 2);
  std::int64_t batch = in.has_rank() ? in.dims()[0] : unknown_dim;
  if (block && !block->empty()) {
    for (std::int64_t b : *block) {
      if (b < 1) throw ValueError("block_shape must be positive");
      if constexpr (kToBatch)
        batch = batch < 0 ? unknown_dim : batch * b;
      else
        batch = divide_evenly(batch, b);
    }
  } else if (m > 0) {
    batch = unknown_dim;
  }
  Dims out(static_cast<std::size_t>(m + 1), unknown_dim);
  out[0] = batch;
  if (edges && !edges->empty()) {
    for (std::size_t i = 0; i < static_cast<std::size_t>(m); ++i) {
      const std::int64_t start = (*edges)[2 * i], end = (*edges)[2 * i + 1];
      if (start < 0 || end < 0)
        throw ValueError(kToBatch ? "paddings cannot be negative" : "crops cannot be negative");
      if (!block) continue;
      const std::int64_t dim = in.has_rank() ? in.dims()[i + 1] : unknown_dim;
      if constexpr (kToBatch) {
        out[i + 1] = divide_evenly(dim < 0 ? unknown_dim : dim + start + end, (*block)[i]);
      } else if (dim >= 0) {
        const std::int64_t full = dim * (*block)[i];
        if (full < start + end)
          throw ValueError("Negative dimension size caused by subtracting " + str(start + end) +
                           " from " + str(full));
        out[i + 1] = full - start - end;
      }
    }
  }
  if (!in.has_rank()) return {{c.dtype(0), Shape::unknown()}};
  out.insert(out.end(), in.dims().begin() + m + 1, in.dims().end());
  return {{c.dtype(0), Shape(out)}};
}

SYMFLOW_OP_DEF(kSpaceToBatchNDOp,
               OpDef{.type = "SpaceToBatchND", .num_inputs = 3, .infer = infer_space_batch<true>});
SYMFLOW_OP_DEF(kBatchToSpaceNDOp,
               OpDef{.type = "BatchToSpaceND", .num_inputs = 3, .infer = infer_space_batch<false>});

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

SYMFLOW_OP_DEF(kOneHotOp, OpDef{.type = "OneHot", .num_inputs = 4, .infer = infer_one_hot});

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
  // Negated comparisons, as TensorFlow's kernel writes them: a NaN fails them.
  if (delta > 0 && !(start <= limit)) {
    error =
        "Requires start <= limit when delta > 0: " + number_text(start) + "/" + number_text(limit);
    return std::nullopt;
  }
  if (!(delta > 0) && !(start >= limit)) {
    error =
        "Requires start >= limit when delta < 0: " + number_text(start) + "/" + number_text(limit);
    return std::nullopt;
  }
  const std::string too_long = "Requires ((limit - start) / delta) <= 9223372036854775807";
  if constexpr (std::is_integral_v<T>) {
    // In uint64: limit - start and -delta may not fit T (range(INT64_MIN, INT64_MAX, 2^62)).
    using U = std::uint64_t;
    const U span = limit > start ? U(std::int64_t{limit}) - U(std::int64_t{start})
                                 : U(std::int64_t{start}) - U(std::int64_t{limit});
    const U step = delta > 0 ? U(std::int64_t{delta}) : U(0) - U(std::int64_t{delta});
    const U n = span / step + (span % step != 0);
    if (n > U(std::numeric_limits<std::int64_t>::max())) {
      error = too_long;
      return std::nullopt;
    }
    return static_cast<std::int64_t>(n);
  } else {
    // Below 2^63 (int64's maximum rounds up to it as a double); a NaN fails too.
    const double n = std::ceil(std::abs(static_cast<double>((limit - start) / delta)));
    if (!(n < 9223372036854775808.0)) {
      error = too_long;
      return std::nullopt;
    }
    return static_cast<std::int64_t>(n);
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

SYMFLOW_OP_DEF(kRangeOp, OpDef{.type = "Range", .num_inputs = 3, .infer = infer_range});

}  // namespace detail::transform

}  // namespace symflow
