#pragma once
// Helpers of the shape functions and of the kernels' argument checks: dtype and rank
// checks and the merge of two shapes, with TensorFlow's messages, and shape arguments
// read from int32/int64 values.

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "symflow/core/errors.hpp"
#include "symflow/core/shape.hpp"
#include "symflow/ops/defs/op_def.hpp"

namespace symflow::detail {

// TypeError unless every input has input 0's dtype; `params` names the op's inputs.
inline void check_same_dtype(const InferContext& c, std::string_view op,
                             std::initializer_list<std::string_view> params) {
  const auto* names = params.begin();
  for (std::size_t i = 1; i < c.inputs.size() && i < params.size(); ++i)
    if (c.dtype(i) != c.dtype(0))
      throw TypeError("Input '" + std::string(names[i]) + "' of '" + std::string(op) +
                      "' Op has type " + std::string(dtype_name(c.dtype(i))) +
                      " that does not match type " + std::string(dtype_name(c.dtype(0))) +
                      " of argument '" + std::string(names[0]) + "'.");
}

// ValueError unless `s` has rank `rank` (TensorFlow's WithRank); an unknown rank passes.
inline void require_rank(const Shape& s, std::int64_t rank) {
  if (s.has_rank() && s.rank() != rank)
    throw ValueError("Shape must be rank " + std::to_string(rank) + " but is rank " +
                     std::to_string(s.rank()));
}
// ValueError unless `s` has rank `rank` or more (WithRankAtLeast); an unknown rank passes.
inline void require_rank_at_least(const Shape& s, std::int64_t rank) {
  if (s.has_rank() && s.rank() < rank)
    throw ValueError("Shape must be at least rank " + std::to_string(rank) + " but is rank " +
                     std::to_string(s.rank()));
}

// TensorFlow's InferenceContext::Merge: the most specific shape compatible with both,
// with its messages.
inline Shape merge_shapes(const Shape& a, const Shape& b) {
  if (!a.has_rank()) return b;
  if (!b.has_rank()) return a;
  if (a.rank() != b.rank())
    throw ValueError("Shapes must be equal rank, but are " + std::to_string(a.rank()) + " and " +
                     std::to_string(b.rank()));
  Dims out = a.dims();
  for (std::size_t i = 0; i < out.size(); ++i) {
    const std::int64_t x = a.dims()[i], y = b.dims()[i];
    if (x >= 0 && y >= 0 && x != y)
      throw ValueError("Dimension " + std::to_string(i) +
                       " in both shapes must be equal, but are " + std::to_string(x) + " and " +
                       std::to_string(y) + ". Shapes are " + dims_to_string(a.dims()) + " and " +
                       dims_to_string(b.dims()) + ".");
    if (out[i] < 0) out[i] = y;
  }
  return Shape(out);
}

// A reduction's output dims: `d` without the `reduced` axes, or with them as 1 when
// keep_dims (the reductions' shape function and the CPU's and GPU's reduce share it).
inline Dims reduced_dims(const Dims& d, const AxisMask& reduced, bool keep_dims) {
  Dims out_dims;
  for (std::size_t a = 0; a < d.size(); ++a) {
    if (!reduced[a])
      out_dims.push_back(d[a]);
    else if (keep_dims)
      out_dims.push_back(1);
  }
  return out_dims;
}

// The dtypes of `accepts`, in TensorFlow's order, for "not in list of allowed values".
inline std::string allowed_list(bool (*accepts)(DType)) {
  std::string s;
  for (DType d :
       {DType::float32, DType::float64, DType::int32, DType::int64, DType::uint8, DType::bool_})
    if (accepts(d)) s += (s.empty() ? "" : ", ") + std::string(dtype_name(d));
  return s;
}

// TypeError unless input `i` (the op's parameter `param`) has a dtype in `accepts`.
inline void check_allowed(const InferContext& c, std::size_t i, std::string_view param,
                          bool (*accepts)(DType)) {
  if (!accepts(c.dtype(i)))
    throw TypeError("Value passed to parameter '" + std::string(param) + "' has DataType " +
                    std::string(dtype_name(c.dtype(i))) +
                    " not in list of allowed values: " + allowed_list(accepts));
}

// The elements of an int32/int64 shape or axes argument.
inline Dims shape_argument(const Value& v) {
  Dims d;
  visit_dtype(v.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t>) {
      for (T x : v.flat<T>()) d.push_back(x);
    } else {
      throw TypeError("A shape argument must be int32 or int64, got " +
                      std::string(dtype_name(v.dtype())));
    }
  });
  return d;
}

// A rank-1 int32 Value holding `dims` (a shape or axes argument).
// `dims` as an int32 vector (a shape, axes or a permutation as TensorFlow writes them); a
// number outside int32 is a ValueError, never a wrapped one.
inline Value int32_vector(const Dims& dims) {
  Value v(DType::int32, {static_cast<std::int64_t>(dims.size())});
  std::int32_t* out = v.data<std::int32_t>();
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < std::numeric_limits<std::int32_t>::min() ||
        dims[i] > std::numeric_limits<std::int32_t>::max())
      throw ValueError("Value " + std::to_string(dims[i]) + " at index " + std::to_string(i) +
                       " of " + dims_to_string(dims) +
                       " does not fit in int32 (an int32 shape, axis or permutation constant)");
    out[i] = static_cast<std::int32_t>(dims[i]);
  }
  return v;
}

// One size, count or index written as an int32 Const: a number outside int32 is a
// ValueError naming it and `what` (e.g. "a batch size"), never a wrapped one.
inline std::int32_t checked_int32(std::int64_t value, std::string_view what) {
  if (value < std::numeric_limits<std::int32_t>::min() ||
      value > std::numeric_limits<std::int32_t>::max())
    throw ValueError("Value " + std::to_string(value) + " (" + std::string(what) +
                     ") does not fit in int32 (an int32 constant)");
  return static_cast<std::int32_t>(value);
}

// Whether every one of `values` fits in int32 (else TensorFlow converts such a list of
// Python ints to an int64 tensor).
inline bool fits_int32(const Dims& values) {
  for (auto v : values)
    if (v < std::numeric_limits<std::int32_t>::min() ||
        v > std::numeric_limits<std::int32_t>::max())
      return false;
  return true;
}

inline std::vector<TensorSpec> same_as_input(const InferContext& c) { return {c.inputs[0]}; }

}  // namespace symflow::detail
