#pragma once
// Placeholder, PlaceholderWithDefault, Identity, Reshape, Fill, CheckNumerics and the
// zeros/ones helpers: the graph-building functions. The ops' descriptions are in
// ops/defs/array.hpp, their CPU kernels in backend/cpu/kernels/array.hpp.

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "symflow/detail/config.hpp"
#include "symflow/ops/const_op.hpp"
#include "symflow/ops/defs/array.hpp"
#include "symflow/ops/op_builder.hpp"

namespace symflow {

namespace detail {

// A shape as a Const's value: int32, or int64 when a dim needs it (as TensorFlow
// converts a TensorShape), so that no dim is cut to 32 bits.
inline Value shape_value(const Shape& shape, std::string_view what) {
  if (!shape.is_fully_defined())
    throw ValueError(std::string(what) + " needs a fully defined shape, got " + shape.to_string());
  const bool wide = std::any_of(shape.dims().begin(), shape.dims().end(), [](std::int64_t d) {
    return d > std::numeric_limits<std::int32_t>::max();
  });
  if (!wide) return int32_vector(shape.dims());
  Value v(DType::int64, {static_cast<std::int64_t>(shape.dims().size())});
  std::copy(shape.dims().begin(), shape.dims().end(), v.data<std::int64_t>());
  return v;
}

// tf.zeros / tf.ones: a Const when small, a Fill when it would bloat the GraphDef (or
// when its element count passes int64: then the Fill fails when it runs, as TensorFlow's).
inline Output filled(const Shape& shape, const Value& scalar, std::string_view name,
                     std::string_view default_name) {
  Value dims = shape_value(shape, default_name);
  Graph g = get_default_graph();
  if (checked_num_elements(shape.dims()).value_or(1000) < 1000)
    return make_const(g, fill_to_shape(scalar, shape), name.empty() ? default_name : name)
        .output(0);
  OpBuilder b(g, name, default_name);
  const DType index_type = dims.dtype();
  Output d = b.constant_arg(std::move(dims), "shape_as_tensor");
  Output v = b.constant_arg(scalar, "Const");
  return b.build(kFillOp, {d, v}, {{"T", scalar.dtype()}, {"index_type", index_type}}).output(0);
}

}  // namespace detail

// tf.placeholder(dtype, shape): fed at run time; an unknown shape by default.
SYMFLOW_INLINE Output placeholder(DType dtype, const Shape& shape = Shape::unknown(),
                                  std::string_view name = {});
template <Element T>
Tensor<T> placeholder(const Shape& shape = Shape::unknown(), std::string_view name = {}) {
  return Tensor<T>(placeholder(dtype_v<T>, shape, name));
}

// tf.placeholder_with_default(input, shape): `input` unless the run feeds a value, which
// must fit `shape` (the output's static shape; it may know less than the input's). Feeding
// it cuts the run off from `input`'s producers.
inline Output placeholder_with_default(const Output& input, const Shape& shape,
                                       std::string_view name = {}) {
  detail::OpBuilder b(graph_of({input}), name, "PlaceholderWithDefault");
  return b
      .build(detail::kPlaceholderWithDefaultOp, {input},
             {{"dtype", input.dtype()}, {"shape", shape}})
      .output(0);
}
// The default given as a value: a Const "PlaceholderWithDefault/input".
inline Output placeholder_with_default(const Value& input, const Shape& shape,
                                       std::string_view name = {}) {
  detail::OpBuilder b(get_default_graph(), name, "PlaceholderWithDefault");
  Output in = b.constant_arg(input, "input");
  return b.build(detail::kPlaceholderWithDefaultOp, {in}, {{"dtype", in.dtype()}, {"shape", shape}})
      .output(0);
}
template <Element T>
Tensor<T> placeholder_with_default(const Tensor<T>& input, const Shape& shape,
                                   std::string_view name = {}) {
  return Tensor<T>(placeholder_with_default(Output(input), shape, name));
}

inline Output identity(const Output& x, std::string_view name = {}) {
  Graph g = graph_of({x});
  return g.create_op(detail::kIdentityOp, {x}, {{"T", x.dtype()}}, name.empty() ? "Identity" : name)
      .output(0);
}
template <Element T>
Tensor<T> identity(const Tensor<T>& x, std::string_view name = {}) {
  return Tensor<T>(identity(Output(x), name));
}

// tf.reshape(tensor, shape): one dimension may be -1.
inline Output reshape(const Output& x, const Dims& shape, std::string_view name = {}) {
  detail::OpBuilder b(graph_of({x}), name, "Reshape");
  Output s = b.constant_arg(detail::int32_vector(shape), "shape");
  return b.build(detail::kReshapeOp, {x, s}, {{"T", x.dtype()}, {"Tshape", DType::int32}})
      .output(0);
}
template <Element T>
Tensor<T> reshape(const Tensor<T>& x, const Dims& shape, std::string_view name = {}) {
  return Tensor<T>(reshape(Output(x), shape, name));
}

// tf.reshape with a computed shape (an int32 or int64 vector tensor).
inline Output reshape(const Output& x, const Output& shape, std::string_view name = {}) {
  detail::OpBuilder b(graph_of({x, shape}), name, "Reshape");
  return b.build(detail::kReshapeOp, {x, shape}, {{"T", x.dtype()}, {"Tshape", shape.dtype()}})
      .output(0);
}

// tf.fill with computed dims (an int32 vector tensor) and a scalar tensor value.
inline Output fill(const Output& dims, const Output& value, std::string_view name = {}) {
  detail::OpBuilder b(graph_of({dims, value}), name, "Fill");
  return b
      .build(detail::kFillOp, {dims, value}, {{"T", value.dtype()}, {"index_type", dims.dtype()}})
      .output(0);
}

// tf.fill(dims, value).
inline Output fill(const Shape& shape, const Value& scalar, std::string_view name = {}) {
  detail::OpBuilder b(get_default_graph(), name, "Fill");
  Output d = b.constant_arg(detail::shape_value(shape, "fill"), "dims");
  Output v = b.constant_arg(scalar, "value");
  return b.build(detail::kFillOp, {d, v}, {{"T", scalar.dtype()}, {"index_type", d.dtype()}})
      .output(0);
}

// tf.check_numerics(tensor, message): `tensor` (float32 or float64) passed on; a run in
// which it holds a NaN or an infinity fails with InvalidArgumentError
// "<message> : Tensor had NaN values" ("Inf values", "Inf and NaN values").
inline Output check_numerics(const Output& tensor, std::string_view message,
                             std::string_view name = {}) {
  detail::OpBuilder b(graph_of({tensor}), name, "CheckNumerics");
  return b
      .build(detail::kCheckNumericsOp, {tensor},
             {{"T", tensor.dtype()}, {"message", std::string(message)}})
      .output(0);
}
template <Element T>
Tensor<T> check_numerics(const Tensor<T>& tensor, std::string_view message,
                         std::string_view name = {}) {
  return Tensor<T>(check_numerics(Output(tensor), message, name));
}

namespace detail {
// The scalar 0 or 1 of `dtype`, any number or bool dtype.
inline Value small_integer_scalar(DType dtype, std::int32_t v) {
  if (is_storage_dtype(dtype)) return Value(v).astype(dtype);
  return visit_dtype(dtype,
                     [v](auto t) { return Value(static_cast<typename decltype(t)::type>(v)); });
}
}  // namespace detail

inline Output zeros(const Shape& shape, DType dtype = DType::float32, std::string_view name = {}) {
  return detail::filled(shape, detail::small_integer_scalar(dtype, 0), name, "zeros");
}
inline Output ones(const Shape& shape, DType dtype = DType::float32, std::string_view name = {}) {
  return detail::filled(shape, detail::small_integer_scalar(dtype, 1), name, "ones");
}
template <Element T>
Tensor<T> zeros(const Shape& shape, std::string_view name = {}) {
  return Tensor<T>(zeros(shape, dtype_v<T>, name));
}
template <Element T>
Tensor<T> ones(const Shape& shape, std::string_view name = {}) {
  return Tensor<T>(ones(shape, dtype_v<T>, name));
}

}  // namespace symflow

#if !defined(SYMFLOW_COMPILED)
#include "symflow/ops/array_ops_inl.hpp"
#endif
