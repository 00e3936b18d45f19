#pragma once
// symflow::ct: tensors with static shapes and small expressions over them, evaluated in
// constant expressions (ct::eval) or turned into graph nodes (ct::to_graph).
// See docs/compile-time.md.
//
//   ct/tensor.hpp  ct::Tensor, ct::Matrix, ct::Vector (standard library only)
//   ct/expr.hpp    expression nodes, operators, ct::eval (standard library only)
//   ct/graph.hpp   ct::to_graph, ct::build, ct::to_value, ct::from_value

#include "symflow/expr/ct/expr.hpp"
#include "symflow/expr/ct/graph.hpp"
#include "symflow/expr/ct/tensor.hpp"
