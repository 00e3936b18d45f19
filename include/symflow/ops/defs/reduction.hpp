#pragma once
// The descriptions of Prod, Any, All, Cumsum and Cumprod: their shape functions and
// OpDefs (Prod shares infer_reduction with Sum, in ops/defs/math.hpp). The kernels are
// in backend/cpu/kernels/reduction.hpp, the graph-building functions in
// ops/reduction_ops.hpp.

#include <string>
#include <vector>

#include "symflow/core/errors.hpp"
#include "symflow/core/shape.hpp"
#include "symflow/core/value.hpp"
#include "symflow/ops/defs/math.hpp"
#include "symflow/ops/defs/op_def.hpp"
#include "symflow/ops/defs/shape_fn.hpp"

namespace symflow::detail {

// ---- Prod -------------------------------------------------------------------------
inline constexpr OpDef kProdOp{.type = "Prod", .num_inputs = 2, .infer = infer_reduction};

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

inline constexpr OpDef kAnyOp{.type = "Any", .num_inputs = 2, .infer = infer_bool_reduction<false>};
inline constexpr OpDef kAllOp{.type = "All", .num_inputs = 2, .infer = infer_bool_reduction<true>};

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

inline constexpr OpDef kCumsumOp{.type = "Cumsum", .num_inputs = 2, .infer = infer_scan};
inline constexpr OpDef kCumprodOp{.type = "Cumprod", .num_inputs = 2, .infer = infer_scan};

}  // namespace symflow::detail
