#pragma once
// More reductions: Prod on numbers, Any and All on bools; and the scans Cumsum and
// Cumprod (Cumprod is what Prod's gradient is built from).

#include <string>
#include <string_view>

#include "symflow/backend/cpu/reduce.hpp"
#include "symflow/ops/math_ops.hpp"
#include "symflow/ops/op_builder.hpp"

namespace symflow {

namespace detail {

// ---- Prod -------------------------------------------------------------------------
SYMFLOW_CPU_KERNEL(prod_kernel) {
  const Value& in = ctx.input(0);
  std::string error;
  auto mask = reduction_mask(shape_argument(ctx.input(1)), in.rank(), error, true);
  if (!error.empty()) ctx.fail(error);
  bool keep = ctx.attr<bool>("keep_dims");
  visit_dtype(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_number_v<T>)
      ctx.set_output(0, cpu::reduce<T>(in, mask, keep, T{1}, MulWrappingFn{}));
    else
      unsupported_dtype(ctx, in.dtype());
  });
}

inline constexpr OpDef kProdOp{
    .type = "Prod", .num_inputs = 2, .infer = infer_reduction, .cpu_kernel = prod_kernel};

// ---- Any, All ------------------------------------------------------------------------
// Their input is bool, with no "T" attr.
template <bool IsAll>
std::vector<TensorSpec> infer_bool_reduction(const InferContext& c) {
  if (c.dtype(0) != DType::bool_)
    throw TypeError("Input 'input' of '" + std::string(IsAll ? "All" : "Any") + "' Op has type " +
                    std::string(dtype_name(c.dtype(0))) +
                    " that does not match expected type of bool.");
  bool keep = c.attr<bool>("keep_dims");
  const Value* axes_value = c.constant(1);
  if (!axes_value || !c.shape(0).has_rank()) return {{DType::bool_, Shape::unknown()}};
  std::string error;
  auto mask = reduction_mask(shape_argument(*axes_value), c.shape(0).rank(), error, false);
  if (!error.empty()) throw ValueError(error);
  Dims out;
  for (std::size_t i = 0; i < mask.size(); ++i) {
    if (!mask[i])
      out.push_back(c.shape(0).dims()[i]);
    else if (keep)
      out.push_back(1);
  }
  return {{DType::bool_, Shape(out)}};
}

SYMFLOW_CPU_KERNEL_TEMPLATE(bool_reduction_kernel, bool IsAll) {
  const Value& in = ctx.input(0);
  std::string error;
  auto mask = reduction_mask(shape_argument(ctx.input(1)), in.rank(), error, true);
  if (!error.empty()) ctx.fail(error);
  bool keep = ctx.attr<bool>("keep_dims");
  ctx.set_output(0, cpu::reduce<bool>(in, mask, keep, IsAll,
                                      [](bool a, bool b) { return IsAll ? a && b : a || b; }));
}

inline constexpr OpDef kAnyOp{.type = "Any",
                              .num_inputs = 2,
                              .infer = infer_bool_reduction<false>,
                              .cpu_kernel = bool_reduction_kernel<false>};
inline constexpr OpDef kAllOp{.type = "All",
                              .num_inputs = 2,
                              .infer = infer_bool_reduction<true>,
                              .cpu_kernel = bool_reduction_kernel<true>};

// Any and All: as detail::reduction, without the "T" attr (their input is always bool).
inline Output bool_reduction(const OpDef& def, const Output& x, const Axis& axis, bool keepdims,
                             std::string_view name, std::string_view default_name) {
  return reduction(def, x, axis, keepdims, name, default_name, false);
}

// ---- Cumsum, Cumprod ---------------------------------------------------------------------
// The shape is the input's; the axis is checked when the kernel runs, as TensorFlow does.
inline std::vector<TensorSpec> infer_scan(const InferContext& c) {
  check_allowed(c, 0, "x", fn_accepts<AddFn>);
  if (c.dtype(1) != DType::int32 && c.dtype(1) != DType::int64)
    throw TypeError("Value passed to parameter 'axis' has DataType " +
                    std::string(dtype_name(c.dtype(1))) +
                    " not in list of allowed values: int32, int64");
  return {c.inputs[0]};
}

// A scan's axis (a host value) checked against the input's dims (the CPU and GPU kernels
// share it), and the input split there.
inline AxisSplit scan_split(const KernelContext& ctx, const Dims& d, const Value& axis_value) {
  return split_at_axis_input(ctx, d, axis_value, "ScanOp: axis must be a scalar, not ",
                             "ScanOp: Expected scan axis");
}

SYMFLOW_CPU_KERNEL_TEMPLATE(scan_kernel, bool IsProd) {
  const Value& in = ctx.input(0);
  const AxisSplit split = scan_split(ctx, in.dims(), ctx.input(1));
  const std::int64_t outer = split.outer, len = split.len, inner = split.inner;
  const bool exclusive = ctx.attr<bool>("exclusive");
  const bool reverse = ctx.attr<bool>("reverse");
  Value& out = ctx.allocate_output(0, in.dtype(), in.dims());
  visit_dtype(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_number_v<T>) {
      const T* x = in.data<T>();
      T* y = out.data<T>();
      for (std::int64_t o = 0; o < outer; ++o)
        for (std::int64_t i = 0; i < inner; ++i) {
          T acc = IsProd ? T{1} : T{0};
          for (std::int64_t s = 0; s < len; ++s) {
            const std::int64_t k = reverse ? len - 1 - s : s;
            const std::int64_t at = (o * len + k) * inner + i;
            if (exclusive) y[at] = acc;
            acc = IsProd ? mul_wrapping(acc, x[at]) : add_wrapping(acc, x[at]);
            if (!exclusive) y[at] = acc;
          }
        }
    } else {
      unsupported_dtype(ctx, in.dtype());
    }
  });
}

inline constexpr OpDef kCumsumOp{
    .type = "Cumsum", .num_inputs = 2, .infer = infer_scan, .cpu_kernel = scan_kernel<false>};
inline constexpr OpDef kCumprodOp{
    .type = "Cumprod", .num_inputs = 2, .infer = infer_scan, .cpu_kernel = scan_kernel<true>};

inline Output build_scan(const OpDef& def, const Output& x, const Output* axis_tensor,
                         std::int64_t axis, bool exclusive, bool reverse, std::string_view name,
                         std::string_view default_name) {
  OpBuilder b(graph_of({x}), name, default_name);
  Output a =
      axis_tensor ? *axis_tensor : b.constant_arg(Value(static_cast<std::int32_t>(axis)), "axis");
  return b
      .build(
          def, {x, a},
          {{"T", x.dtype()}, {"Tidx", a.dtype()}, {"exclusive", exclusive}, {"reverse", reverse}})
      .output(0);
}

}  // namespace detail

// tf.reduce_prod(x, axis, keepdims): the product over `axis` (all axes by default).
inline Output reduce_prod(const Output& x, const Axis& axis = {}, bool keepdims = false,
                          std::string_view name = {}) {
  return detail::reduction(detail::kProdOp, x, axis, keepdims, name, "Prod");
}
template <Element T>
Tensor<T> reduce_prod(const Tensor<T>& x, const Axis& axis = {}, bool keepdims = false,
                      std::string_view name = {}) {
  return Tensor<T>(reduce_prod(Output(x), axis, keepdims, name));
}

// tf.reduce_any / tf.reduce_all over bool tensors.
inline Tensor<bool> reduce_any(const Output& x, const Axis& axis = {}, bool keepdims = false,
                               std::string_view name = {}) {
  return Tensor<bool>(detail::bool_reduction(detail::kAnyOp, x, axis, keepdims, name, "Any"));
}
inline Tensor<bool> reduce_all(const Output& x, const Axis& axis = {}, bool keepdims = false,
                               std::string_view name = {}) {
  return Tensor<bool>(detail::bool_reduction(detail::kAllOp, x, axis, keepdims, name, "All"));
}

// tf.cumsum(x, axis, exclusive, reverse): running sums along `axis`. `exclusive` leaves
// out each element itself; `reverse` runs from the end.
inline Output cumsum(const Output& x, std::int64_t axis = 0, bool exclusive = false,
                     bool reverse = false, std::string_view name = {}) {
  return detail::build_scan(detail::kCumsumOp, x, nullptr, axis, exclusive, reverse, name,
                            "Cumsum");
}
inline Output cumsum(const Output& x, const Output& axis, bool exclusive = false,
                     bool reverse = false, std::string_view name = {}) {
  return detail::build_scan(detail::kCumsumOp, x, &axis, 0, exclusive, reverse, name, "Cumsum");
}
template <Element T>
Tensor<T> cumsum(const Tensor<T>& x, std::int64_t axis = 0, bool exclusive = false,
                 bool reverse = false, std::string_view name = {}) {
  return Tensor<T>(cumsum(Output(x), axis, exclusive, reverse, name));
}

// tf.cumprod(x, axis, exclusive, reverse): running products along `axis`.
inline Output cumprod(const Output& x, std::int64_t axis = 0, bool exclusive = false,
                      bool reverse = false, std::string_view name = {}) {
  return detail::build_scan(detail::kCumprodOp, x, nullptr, axis, exclusive, reverse, name,
                            "Cumprod");
}
inline Output cumprod(const Output& x, const Output& axis, bool exclusive = false,
                      bool reverse = false, std::string_view name = {}) {
  return detail::build_scan(detail::kCumprodOp, x, &axis, 0, exclusive, reverse, name, "Cumprod");
}
template <Element T>
Tensor<T> cumprod(const Tensor<T>& x, std::int64_t axis = 0, bool exclusive = false,
                  bool reverse = false, std::string_view name = {}) {
  return Tensor<T>(cumprod(Output(x), axis, exclusive, reverse, name));
}

}  // namespace symflow
