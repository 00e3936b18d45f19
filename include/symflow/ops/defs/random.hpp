#pragma once
// The random ops' descriptions (RandomStandardNormal, RandomUniform, RandomUniformInt,
// TruncatedNormal, RandomShuffle): their dtype checks, shape functions and OpDefs, all
// stateful. No kernel and no graph: the CPU kernels, with the Philox4x32-10 generator
// and TensorFlow's distributions, are in backend/cpu/kernels/random.hpp; the
// graph-building functions and TensorFlow 1.x's seed rules in ops/random_ops.hpp.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "symflow/core/dtype.hpp"
#include "symflow/core/errors.hpp"
#include "symflow/core/shape.hpp"
#include "symflow/core/value.hpp"
#include "symflow/ops/defs/op_def.hpp"
#include "symflow/ops/defs/shape_fn.hpp"

namespace symflow::detail {

// ---- shape functions ------------------------------------------------------------------------

inline bool is_index_type(DType d) { return d == DType::int32 || d == DType::int64; }
inline bool is_uniform_int_type(DType d) { return is_index_type(d); }

// The output shape of a random op from its shape input (TF's RandomShape): the constant's
// elements when it is one, else as many unknown dims as the vector is long.
inline Shape random_output_shape(const InferContext& c) {
  check_allowed(c, 0, "shape", is_index_type);
  require_rank(c.shape(0), 1);
  if (const Value* v = c.constant(0)) {
    Dims dims = shape_argument(*v);
    for (auto d : dims)
      if (d < 0) throw ValueError("Invalid value in tensor used for shape: " + std::to_string(d));
    return Shape(std::move(dims));
  }
  if (c.shape(0).is_fully_defined()) return Shape::unknown_dims(static_cast<int>(c.shape(0)[0]));
  return Shape::unknown();
}

inline void check_attr_dtype(DType d, std::string_view param, bool (*accepts)(DType)) {
  if (!accepts(d))
    throw TypeError("Value passed to parameter '" + std::string(param) + "' has DataType " +
                    std::string(dtype_name(d)) +
                    " not in list of allowed values: " + allowed_list(accepts));
}

inline std::vector<TensorSpec> infer_random_float(const InferContext& c) {
  DType dtype = c.attr<DType>("dtype");
  check_attr_dtype(dtype, "dtype", is_floating);
  return {{dtype, random_output_shape(c)}};
}

inline std::vector<TensorSpec> infer_random_uniform_int(const InferContext& c) {
  DType dtype = c.attr<DType>("Tout");
  check_attr_dtype(dtype, "Tout", is_uniform_int_type);
  for (std::size_t i = 1; i < 3; ++i) {
    if (c.dtype(i) != dtype)
      throw TypeError("Input '" + std::string(i == 1 ? "minval" : "maxval") +
                      "' of 'RandomUniformInt' Op has type " + std::string(dtype_name(c.dtype(i))) +
                      " that does not match expected type of " + std::string(dtype_name(dtype)) +
                      ".");
    require_rank(c.shape(i), 0);
  }
  return {{dtype, random_output_shape(c)}};
}

inline std::vector<TensorSpec> infer_random_shuffle(const InferContext& c) {
  return {{c.dtype(0), c.shape(0)}};
}

SYMFLOW_OP_DEF(kRandomStandardNormalOp, OpDef{.type = "RandomStandardNormal",
                                              .num_inputs = 1,
                                              .infer = infer_random_float,
                                              .stateful = true});
SYMFLOW_OP_DEF(kRandomUniformOp, OpDef{.type = "RandomUniform",
                                       .num_inputs = 1,
                                       .infer = infer_random_float,
                                       .stateful = true});
SYMFLOW_OP_DEF(kTruncatedNormalOp, OpDef{.type = "TruncatedNormal",
                                         .num_inputs = 1,
                                         .infer = infer_random_float,
                                         .stateful = true});
SYMFLOW_OP_DEF(kRandomUniformIntOp, OpDef{.type = "RandomUniformInt",
                                          .num_inputs = 3,
                                          .infer = infer_random_uniform_int,
                                          .stateful = true});
SYMFLOW_OP_DEF(kRandomShuffleOp, OpDef{.type = "RandomShuffle",
                                       .num_inputs = 1,
                                       .infer = infer_random_shuffle,
                                       .stateful = true});

}  // namespace symflow::detail
