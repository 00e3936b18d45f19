#pragma once
// More reductions: Prod on numbers, Any and All on bools; and the scans Cumsum and
// Cumprod (Cumprod is what Prod's gradient is built from). This header holds the
// graph-building functions; the ops' descriptions are in ops/defs/reduction.hpp, their
// CPU kernels in backend/cpu/kernels/reduction.hpp.

#include <cstdint>
#include <string_view>

#include "symflow/ops/defs/reduction.hpp"
#include "symflow/ops/defs/shape_fn.hpp"
#include "symflow/ops/math_ops.hpp"
#include "symflow/ops/op_builder.hpp"

namespace symflow {

namespace detail {

// Any and All: as detail::reduction, without the "T" attr (their input is always bool).
inline Output bool_reduction(const OpDef& def, const Output& x, const Axis& axis, bool keepdims,
                             std::string_view name, std::string_view default_name) {
  return reduction(def, x, axis, keepdims, name, default_name, false);
}

inline Output build_scan(const OpDef& def, const Output& x, const Output* axis_tensor,
                         std::int64_t axis, bool exclusive, bool reverse, std::string_view name,
                         std::string_view default_name) {
  OpBuilder b(graph_of({x}), name, default_name);
  Output a =
      axis_tensor ? *axis_tensor : b.constant_arg(Value(checked_int32(axis, "an axis")), "axis");
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
