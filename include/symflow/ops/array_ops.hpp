#pragma once
// Placeholder, Identity, Reshape, Fill and the zeros/ones helpers.

#include <string_view>

#include "symflow/backend/kernel_context.hpp"
#include "symflow/ops/const_op.hpp"
#include "symflow/ops/op_builder.hpp"

namespace symflow {

namespace detail {

inline std::vector<TensorSpec> infer_placeholder(const InferContext& c) {
  return {{c.attr<DType>("dtype"), c.attr<Shape>("shape")}};
}

// A Placeholder runs only when it was not fed.
SYMFLOW_CPU_KERNEL(placeholder_kernel) {
  const Shape& shape = ctx.attr<Shape>("shape");
  std::string message = "You must feed a value for placeholder tensor '" + ctx.node_name() +
                        "' with dtype " + std::string(dtype_runtime_name(ctx.attr<DType>("dtype")));
  if (shape.has_rank() && shape.rank() > 0) message += " and shape " + dims_to_string(shape.dims());
  ctx.fail(message);
}

inline constexpr OpDef kPlaceholderOp{.type = "Placeholder",
                                      .num_inputs = 0,
                                      .infer = infer_placeholder,
                                      .cpu_kernel = placeholder_kernel};

inline void identity_kernel(KernelContext& ctx) { ctx.set_output(0, ctx.input(0)); }

inline constexpr OpDef kIdentityOp{.type = "Identity",
                                   .num_inputs = 1,
                                   .infer = same_as_input,
                                   .cpu_kernel = identity_kernel,
                                   .forwards_ref = true};

// Resolves a target shape with at most one -1 against `n` elements. When impossible:
// nullopt, and `error` worded as TensorFlow's kernel words it, or as its shape function
// does when `at_build`.
inline std::optional<Dims> resolve_reshape(Dims target, std::int64_t n, std::string& error,
                                           bool at_build = false) {
  std::int64_t known = 1;
  int unknown_at = -1;
  for (std::size_t i = 0; i < target.size(); ++i) {
    if (target[i] == -1) {
      if (unknown_at >= 0) {
        error = "Only one input size may be -1, not both " + std::to_string(unknown_at) + " and " +
                std::to_string(i);
        return std::nullopt;
      }
      unknown_at = static_cast<int>(i);
    } else if (target[i] < 0) {
      error =
          "Size " + std::to_string(i) + " must be non-negative, not " + std::to_string(target[i]);
      return std::nullopt;
    } else {
      known *= target[i];
    }
  }
  if (unknown_at >= 0) {
    if (known == 0 || n % known != 0) {
      error = at_build ? "Dimension size must be evenly divisible by " + std::to_string(known) +
                             " but is " + std::to_string(n)
                       : "Input to reshape is a tensor with " + std::to_string(n) +
                             " values, but the requested shape requires a multiple of " +
                             std::to_string(known);
      return std::nullopt;
    }
    target[static_cast<std::size_t>(unknown_at)] = n / known;
  } else if (known != n) {
    error = at_build ? "Cannot reshape a tensor with " + std::to_string(n) + " elements to shape " +
                           dims_to_string(target) + " (" + std::to_string(known) + " elements)"
                     : "Input to reshape is a tensor with " + std::to_string(n) +
                           " values, but the requested shape has " + std::to_string(known);
    return std::nullopt;
  }
  return target;
}

inline std::vector<TensorSpec> infer_reshape(const InferContext& c) {
  const Value* target = c.constant(1);
  if (!target) return {{c.dtype(0), Shape::unknown()}};
  Dims dims = shape_argument(*target);
  if (!c.shape(0).is_fully_defined()) {  // the kernel checks the element count
    for (auto& d : dims) d = d < 0 ? unknown_dim : d;
    return {{c.dtype(0), Shape(dims)}};
  }
  std::string error;
  auto resolved = resolve_reshape(dims, c.shape(0).num_elements(), error, true);
  if (!resolved) throw ValueError(error);
  return {{c.dtype(0), Shape(*resolved)}};
}

SYMFLOW_CPU_KERNEL(reshape_kernel) {
  const Value& in = ctx.input(0);
  std::string error;
  auto dims = resolve_reshape(shape_argument(ctx.input(1)), in.size(), error);
  if (!dims) ctx.fail(error);
  ctx.set_output(0, in.reshaped(*dims));
}

inline constexpr OpDef kReshapeOp{
    .type = "Reshape", .num_inputs = 2, .infer = infer_reshape, .cpu_kernel = reshape_kernel};

inline std::vector<TensorSpec> infer_fill(const InferContext& c) {
  if (c.shape(1).has_rank() && c.shape(1).rank() != 0)
    throw ValueError("Shape must be rank 0 but is rank " + std::to_string(c.shape(1).rank()));
  const Value* dims = c.constant(0);
  return {{c.dtype(1), dims ? Shape(shape_argument(*dims)) : Shape::unknown()}};
}

SYMFLOW_CPU_KERNEL(fill_kernel) {
  Dims dims = shape_argument(ctx.input(0));
  for (auto d : dims)
    if (d < 0) ctx.fail("Fill dims must be non-negative, got " + dims_to_string(dims));
  const Value& v = ctx.input(1);
  if (v.rank() != 0) ctx.fail("value must be a scalar, got shape " + dims_to_string(v.dims()));
  Value& out = ctx.allocate_output(0, v.dtype(), dims);
  std::size_t elem = dtype_size(v.dtype());
  auto* dst = static_cast<std::byte*>(out.raw_data());
  for (std::int64_t i = 0; i < out.size(); ++i)
    std::memcpy(dst + static_cast<std::size_t>(i) * elem, v.raw_data(), elem);
}

inline constexpr OpDef kFillOp{
    .type = "Fill", .num_inputs = 2, .infer = infer_fill, .cpu_kernel = fill_kernel};

inline Value shape_value(const Shape& shape, std::string_view what) {
  if (!shape.is_fully_defined())
    throw ValueError(std::string(what) + " needs a fully defined shape, got " + shape.to_string());
  return int32_vector(shape.dims());
}

// tf.zeros / tf.ones: a Const when small, a Fill when it would bloat the GraphDef.
inline Output filled(const Shape& shape, const Value& scalar, std::string_view name,
                     std::string_view default_name) {
  Value dims = shape_value(shape, default_name);
  Graph g = get_default_graph();
  if (shape.num_elements() < 1000)
    return make_const(g, fill_to_shape(scalar, shape), name.empty() ? default_name : name)
        .output(0);
  OpBuilder b(g, name, default_name);
  Output d = b.constant_arg(std::move(dims), "shape_as_tensor");
  Output v = b.constant_arg(scalar, "Const");
  return b.build(kFillOp, {d, v}, {{"T", scalar.dtype()}, {"index_type", DType::int32}}).output(0);
}

}  // namespace detail

// tf.placeholder(dtype, shape): fed at run time; an unknown shape by default.
inline Output placeholder(DType dtype, const Shape& shape = Shape::unknown(),
                          std::string_view name = {}) {
  Graph g = get_default_graph();
  return g
      .create_op(detail::kPlaceholderOp, {}, AttrMap{{"dtype", dtype}, {"shape", shape}},
                 name.empty() ? "Placeholder" : name)
      .output(0);
}
template <Element T>
Tensor<T> placeholder(const Shape& shape = Shape::unknown(), std::string_view name = {}) {
  return Tensor<T>(placeholder(dtype_v<T>, shape, name));
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
  return b.build(detail::kFillOp, {d, v}, {{"T", scalar.dtype()}, {"index_type", DType::int32}})
      .output(0);
}

inline Output zeros(const Shape& shape, DType dtype = DType::float32, std::string_view name = {}) {
  return detail::filled(
      shape, visit_dtype(dtype, [](auto t) { return Value(typename decltype(t)::type{0}); }), name,
      "zeros");
}
inline Output ones(const Shape& shape, DType dtype = DType::float32, std::string_view name = {}) {
  return detail::filled(
      shape, visit_dtype(dtype, [](auto t) { return Value(typename decltype(t)::type{1}); }), name,
      "ones");
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
