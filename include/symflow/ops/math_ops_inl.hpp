#pragma once
// Math ops' shared builders (symflow/ops/math_ops.hpp declares them): included by that header in a
// header-only program, and by symflow/define_compiled.hpp alone in a program built with
// SYMFLOW_COMPILED.

#include "symflow/detail/config.hpp"
#include "symflow/ops/math_ops.hpp"

namespace symflow::detail {

SYMFLOW_INLINE Output binary(const OpDef& def, const Output& x, const Output& y,
                             std::string_view name, std::string_view default_name) {
  OpBuilder b(graph_of({x, y}), name, default_name);
  return b.build(def, {x, y}, {{"T", x.dtype()}}).output(0);
}

SYMFLOW_INLINE Output unary(const OpDef& def, const Output& x, std::string_view name,
                            std::string_view default_name) {
  OpBuilder b(graph_of({x}), name, default_name);
  return b.build(def, {x}, {{"T", x.dtype()}}).output(0);
}

SYMFLOW_INLINE Output reduction(const OpDef& def, const Output& x, const Axis& axis, bool keepdims,
                                std::string_view name, std::string_view default_name,
                                bool type_attr) {
  Graph g = graph_of({x});
  Output axes;
  if (!axis.axes) {
    // No axis: every axis, as a Const built outside the op's scope (TF's fast path).
    if (!x.get_shape().has_rank())
      throw ValueError("Reducing all axes of " + x.name() + " needs a known rank");
    Dims all(static_cast<std::size_t>(x.get_shape().rank()));
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<std::int64_t>(i);
    axes = make_const(g, int32_vector(all), "Const").output(0);
  }
  OpBuilder b(g, name, default_name);
  if (axis.tensor.valid()) {
    axes = axis.tensor;
  } else if (axis.axes) {
    Value v = axis.scalar ? Value(checked_int32(axis.axes->front(), "an axis"))
                          : int32_vector(*axis.axes);
    axes = b.constant_arg(v, "reduction_indices");
  }
  AttrMap attrs{{"Tidx", axes.dtype()}, {"keep_dims", keepdims}};
  if (type_attr) attrs.emplace("T", x.dtype());
  return b.build(def, {x, axes}, std::move(attrs)).output(0);
}

}  // namespace symflow::detail
