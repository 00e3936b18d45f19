#pragma once
// Const's builder (symflow/ops/const_op.hpp declares them): included by that header in a
// header-only program, and by symflow/define_compiled.hpp alone in a program built with
// SYMFLOW_COMPILED.

#include "symflow/detail/config.hpp"
#include "symflow/ops/const_op.hpp"

namespace symflow::detail {

SYMFLOW_INLINE Operation make_const(Graph& g, Value v, std::string_view name) {
  DType dtype = v.dtype();
  return g.create_op(kConstOp, {}, AttrMap{{"dtype", dtype}, {"value", std::move(v)}}, name);
}

}  // namespace symflow::detail
