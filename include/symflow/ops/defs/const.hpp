#pragma once
// Const's description: its shape function and OpDef. The kernel is in
// backend/cpu/kernels/const.hpp; make_const and tf.constant are in ops/const_op.hpp.

#include <vector>

#include "symflow/core/errors.hpp"
#include "symflow/core/value.hpp"
#include "symflow/ops/defs/op_def.hpp"

namespace symflow::detail {

inline std::vector<TensorSpec> infer_const(const InferContext& c) {
  const Value& v = c.attr<Value>("value");
  if (c.attr<DType>("dtype") != v.dtype())
    throw TypeError("Const dtype attr does not match its value's dtype");
  return {{v.dtype(), v.shape()}};
}

SYMFLOW_OP_DEF(kConstOp, OpDef{.type = "Const",
                               .num_inputs = 0,
                               .infer = infer_const,
                               .accepts_strings = true,
                               .accepts_storage_dtypes = true});

}  // namespace symflow::detail
