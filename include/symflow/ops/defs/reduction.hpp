#pragma once
// The descriptions of Prod, Any, All, Cumsum and Cumprod: their shape functions and
// OpDefs (Prod shares infer_reduction with Sum, in ops/defs/math.hpp), and scan_line,
// the scans' arithmetic. The kernels are in backend/cpu/kernels/reduction.hpp and
// backend/thrust/kernels_reduce.cuh, the graph-building functions in
// ops/reduction_ops.hpp.

#include <cstdint>
#include <string>
#include <vector>

#include "symflow/core/errors.hpp"
#include "symflow/core/host_device.hpp"
#include "symflow/core/shape.hpp"
#include "symflow/core/value.hpp"
#include "symflow/ops/defs/math.hpp"
#include "symflow/ops/defs/op_def.hpp"
#include "symflow/ops/defs/shape_fn.hpp"

namespace symflow::detail {

// ---- Prod -------------------------------------------------------------------------
SYMFLOW_OP_DEF(kProdOp, OpDef{.type = "Prod", .num_inputs = 2, .infer = infer_reduction});

// ---- Any, All ------------------------------------------------------------------------
// Their input is bool, with no "T" attr.
template <bool IsAll>
std::vector<TensorSpec> infer_bool_reduction(const InferContext& c) {
  if (c.dtype(0) != DType::bool_)
    throw TypeError("Input 'input' of '" + std::string(IsAll ? "All" : "Any") + "' Op has type " +
                    std::string(dtype_name(c.dtype(0))) +
                    " that does not match expected type of bool.");
  return infer_reduction_output(c, DType::bool_);
}

SYMFLOW_OP_DEF(kAnyOp, OpDef{.type = "Any", .num_inputs = 2, .infer = infer_bool_reduction<false>});
SYMFLOW_OP_DEF(kAllOp, OpDef{.type = "All", .num_inputs = 2, .infer = infer_bool_reduction<true>});

// ---- Cumsum, Cumprod ---------------------------------------------------------------------
// One line of a scan, the arithmetic the CPU and Thrust kernels share: x viewed as
// [outer, len, inner], the `len` elements at [o, k, i] combined in order (from the last
// when reverse), each output the sum (product) of the elements before it when exclusive,
// up to and including it otherwise. Integers wrap around, as TensorFlow's do.
template <bool IsProd, class T>
SYMFLOW_HD void scan_line(const T* x, T* y, std::int64_t o, std::int64_t i, std::int64_t len,
                          std::int64_t inner, bool exclusive, bool reverse) {
  T acc = IsProd ? T{1} : T{0};
  for (std::int64_t s = 0; s < len; ++s) {
    const std::int64_t k = reverse ? len - 1 - s : s;
    const std::int64_t at = (o * len + k) * inner + i;
    if (exclusive) y[at] = acc;
    acc = IsProd ? mul_wrapping(acc, x[at]) : add_wrapping(acc, x[at]);
    if (!exclusive) y[at] = acc;
  }
}

// The shape is the input's; the axis is checked when the kernel runs, as TensorFlow does.
inline std::vector<TensorSpec> infer_scan(const InferContext& c) {
  check_allowed(c, 0, "x", fn_accepts<AddFn>);
  if (c.dtype(1) != DType::int32 && c.dtype(1) != DType::int64)
    throw TypeError("Value passed to parameter 'axis' has DataType " +
                    std::string(dtype_name(c.dtype(1))) +
                    " not in list of allowed values: int32, int64");
  return {c.inputs[0]};
}

SYMFLOW_OP_DEF(kCumsumOp, OpDef{.type = "Cumsum", .num_inputs = 2, .infer = infer_scan});
SYMFLOW_OP_DEF(kCumprodOp, OpDef{.type = "Cumprod", .num_inputs = 2, .infer = infer_scan});

}  // namespace symflow::detail
