#pragma once
// The descriptions of the logging ops, Print and Assert (TensorFlow keeps them in
// logging_ops): their shape functions and OpDefs. Both run on the host only, as
// TensorFlow's do; their kernels are in backend/cpu/kernels/logging.hpp, tf.Print and
// tf.Assert in ops/logging_ops.hpp.

#include <string>
#include <vector>

#include "symflow/core/dtype.hpp"
#include "symflow/core/errors.hpp"
#include "symflow/core/shape.hpp"
#include "symflow/ops/defs/op_def.hpp"
#include "symflow/ops/defs/shape_fn.hpp"

namespace symflow::detail {

// Print(input, data...): `input` passed on; each run writes `message` and a summary of
// every data tensor to standard error (the first `first_n` runs only, when it is not -1).
inline std::vector<TensorSpec> infer_print(const InferContext& c) { return {c.inputs[0]}; }

SYMFLOW_OP_DEF(kPrintOp, OpDef{.type = "Print",
                               .num_inputs = -1,
                               .infer = infer_print,
                               .stateful = true,
                               .accepts_strings = true,
                               .host_only = true});

// Assert(condition, data...): no output; a run where the bool scalar `condition` is false
// fails with "assertion failed: " and a summary of every data tensor.
inline std::vector<TensorSpec> infer_assert(const InferContext& c) {
  if (c.inputs.empty() || c.dtype(0) != DType::bool_)
    throw TypeError("Input 'condition' of 'Assert' Op has type " +
                    (c.inputs.empty() ? std::string("none") : std::string(dtype_name(c.dtype(0)))) +
                    " that does not match expected type of bool.");
  return {};
}

SYMFLOW_OP_DEF(kAssertOp, OpDef{.type = "Assert",
                                .num_inputs = -1,
                                .infer = infer_assert,
                                .stateful = true,
                                .accepts_strings = true,
                                .host_only = true});

}  // namespace symflow::detail
