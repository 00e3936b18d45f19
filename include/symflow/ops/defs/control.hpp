#pragma once
// NoOp's description: its shape function (no outputs) and OpDef. The kernel is in
// backend/cpu/kernels/control.hpp; tf.no_op and tf.group in ops/control_ops.hpp.

#include <vector>

#include "symflow/ops/defs/op_def.hpp"

namespace symflow::detail {

inline std::vector<TensorSpec> infer_nothing(const InferContext&) { return {}; }
SYMFLOW_OP_DEF(kNoOp, OpDef{.type = "NoOp", .num_inputs = 0, .infer = infer_nothing});

}  // namespace symflow::detail
