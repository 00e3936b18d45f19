#pragma once
// tf.boolean_mask: the elements (or slices) of a tensor where a bool mask is true, built
// from Shape, StridedSlice, Prod, ConcatV2, Reshape, Where, Squeeze and GatherV2 as
// TensorFlow 1.x builds it, with its names.

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "symflow/graph/scopes.hpp"
#include "symflow/ops/array_ops.hpp"
#include "symflow/ops/const_op.hpp"
#include "symflow/ops/logic_ops.hpp"
#include "symflow/ops/reduction_ops.hpp"
#include "symflow/ops/shape_ops.hpp"
#include "symflow/ops/transform_ops.hpp"

namespace symflow {

namespace detail {
// tf.shape(x) with TensorFlow's optimisation: a Const when x's shape is fully known.
inline Output known_shape(const Output& x, std::string_view name) {
  const Shape s = x.shape();
  if (s.is_fully_defined()) return constant(int32_vector(s.dims()), name);
  return shape(x, DType::int32, name);
}
}  // namespace detail

// tf.boolean_mask(tensor, mask, axis): tensor's slices along axis .. axis + rank(mask)
// where `mask` is true, flattened into one dimension. The mask's rank must be known and
// above 0, and its shape must match the tensor's there.
inline Output boolean_mask(const Output& tensor, const Output& mask, std::string_view name = {},
                           std::int64_t axis = 0) {
  name_scope scope(name, "boolean_mask", {tensor, mask});
  const Shape& mask_shape = mask.shape();
  if (!mask_shape.has_rank())
    throw ValueError(
        "Number of mask dimensions must be specified, even if some dimensions are None.  E.g. "
        "shape=[None] is ok, but shape=None is not.");
  const std::int64_t k = mask_shape.rank();
  if (k == 0) throw ValueError("mask cannot be scalar.");
  if (mask.dtype() != DType::bool_)
    throw TypeError("boolean_mask needs a bool mask, got " + std::string(dtype_name(mask.dtype())));
  const Shape& shape = tensor.shape();
  if (shape.has_rank()) {
    if (axis >= 0 && axis + k > shape.rank()) {
      // TensorFlow compares the dims from `axis` on, fewer than the mask's, with the mask.
      const Dims& dims = shape.dims();
      const Shape rest(Dims(dims.begin() + std::min<std::int64_t>(axis, shape.rank()), dims.end()));
      throw ValueError("Shapes " + rest.to_string() + " and " + mask_shape.to_string() +
                       " are incompatible");
    }
    if (axis < 0)
      throw ValueError("boolean_mask: axis " + std::to_string(axis) + " and a mask of rank " +
                       std::to_string(k) + " do not fit a tensor of rank " +
                       std::to_string(shape.rank()));
    for (std::int64_t i = 0; i < k; ++i) {
      const std::int64_t a = shape.dims()[static_cast<std::size_t>(axis + i)];
      const std::int64_t b = mask_shape.dims()[static_cast<std::size_t>(i)];
      if (a >= 0 && b >= 0 && a != b)
        throw ValueError("Shapes " + shape.to_string() + " and " + mask_shape.to_string() +
                         " are incompatible");
    }
  }
  auto one = [](std::int64_t x) {
    return Value::from_vector(std::vector<std::int32_t>{static_cast<std::int32_t>(x)}, {1});
  };
  // shape(tensor)[begin:end], as Python's slice of a tensor builds it.
  auto slice = [&](std::string_view shape_name, std::int64_t begin, std::int64_t end,
                   StridedSliceOptions options) {
    const Output whole = detail::known_shape(tensor, shape_name);
    return strided_slice(whole, one(begin), one(end), one(1), options);
  };
  // Prod(shape(tensor)[axis:axis + k], [0]): the masked dimensions' size, flattened.
  const Output leading = reduce_prod(slice("Shape", axis, axis + k, {}), Axis{std::int64_t{0}});
  const Output before = slice("Shape_1", 0, axis, {.begin_mask = 1});
  const Output after = slice("Shape_2", axis + k, 0, {.end_mask = 1});
  const Output flat_shape = concat({before, stack({leading}, 0, "concat/values_1"), after}, 0);
  const Output flat = reshape(tensor, flat_shape);
  const Output flat_mask = reshape(mask, Dims{-1});
  const Output indices = squeeze(where(flat_mask), {1});
  return gather(flat, indices, static_cast<std::int32_t>(axis));
}

}  // namespace symflow
