#pragma once
// Array ops' builders (symflow/ops/array_ops.hpp declares them): included by that header in a
// header-only program, and by symflow/define_compiled.hpp alone in a program built with
// SYMFLOW_COMPILED.

#include "symflow/detail/config.hpp"
#include "symflow/ops/array_ops.hpp"

namespace symflow {

SYMFLOW_INLINE Output placeholder(DType dtype, const Shape& shape, std::string_view name) {
  Graph g = get_default_graph();
  return g
      .create_op(detail::kPlaceholderOp, {}, AttrMap{{"dtype", dtype}, {"shape", shape}},
                 name.empty() ? "Placeholder" : name)
      .output(0);
}

}  // namespace symflow
