#pragma once
// The description of TensorFlow's TensorArray ops (data_flow_ops.cc): TensorArrayV3 makes
// an array of tensors in the run and gives its handle and a flow (a float scalar that
// orders the ops on one array); the ops that write, read, gather, scatter, concat, split,
// size, close and grad it take the handle and a flow. Every one is stateful, lives on the
// host, and takes or makes resource handles. The CPU kernels are in
// backend/cpu/kernels/tensor_array.hpp, the builders in ops/tensor_array_ops.hpp.

#include <string>
#include <string_view>
#include <vector>

#include "symflow/core/dtype.hpp"
#include "symflow/core/errors.hpp"
#include "symflow/core/shape.hpp"
#include "symflow/ops/defs/op_def.hpp"
#include "symflow/ops/defs/shape_fn.hpp"

namespace symflow::detail::tensor_array {

// TypeError unless input `i` (named `param`) has dtype `expected`, as op_def_library
// says it.
inline void require_input_dtype(const InferContext& c, std::size_t i, std::string_view param,
                                std::string_view op, DType expected) {
  if (c.dtype(i) != expected)
    throw TypeError("Input '" + std::string(param) + "' of '" + std::string(op) + "' Op has type " +
                    std::string(dtype_name(c.dtype(i))) + " that does not match expected type of " +
                    std::string(dtype_name(expected)) + ".");
}
inline void require_handle(const InferContext& c, std::string_view op) {
  require_input_dtype(c, 0, "handle", op, DType::resource);
}
// The flow input: a float scalar.
inline void require_flow(const InferContext& c, std::size_t i, std::string_view op) {
  require_input_dtype(c, i, "flow_in", op, DType::float32);
  require_rank(c.shape(i), 0);
}
// A scalar flow out.
inline TensorSpec flow_spec() { return {DType::float32, Shape{}}; }

// TensorArrayV3(size: int32) -> handle: resource, flow: float.
inline std::vector<TensorSpec> infer_tensor_array(const InferContext& c) {
  require_input_dtype(c, 0, "size", "TensorArrayV3", DType::int32);
  require_rank(c.shape(0), 0);
  return {{DType::resource, Shape{}}, flow_spec()};
}
SYMFLOW_OP_DEF(kTensorArrayV3Op, OpDef{.type = "TensorArrayV3",
                                       .num_inputs = 1,
                                       .infer = infer_tensor_array,
                                       .stateful = true,
                                       .accepts_resources = true,
                                       .host_only = true});

// TensorArrayWriteV3(handle, index: int32, value: T, flow_in) -> flow_out.
inline std::vector<TensorSpec> infer_write(const InferContext& c) {
  require_handle(c, "TensorArrayWriteV3");
  require_input_dtype(c, 1, "index", "TensorArrayWriteV3", DType::int32);
  require_flow(c, 3, "TensorArrayWriteV3");
  require_rank(c.shape(1), 0);
  return {flow_spec()};
}
SYMFLOW_OP_DEF(kTensorArrayWriteV3Op, OpDef{.type = "TensorArrayWriteV3",
                                            .num_inputs = 4,
                                            .infer = infer_write,
                                            .stateful = true,
                                            .accepts_resources = true,
                                            .host_only = true});

// TensorArrayReadV3(handle, index: int32, flow_in) -> value: dtype, of a shape the run
// knows (the builder sets what the array's element shape says).
inline std::vector<TensorSpec> infer_read(const InferContext& c) {
  require_handle(c, "TensorArrayReadV3");
  require_input_dtype(c, 1, "index", "TensorArrayReadV3", DType::int32);
  require_flow(c, 2, "TensorArrayReadV3");
  require_rank(c.shape(1), 0);
  return {{c.attr<DType>("dtype"), Shape::unknown()}};
}
SYMFLOW_OP_DEF(kTensorArrayReadV3Op, OpDef{.type = "TensorArrayReadV3",
                                           .num_inputs = 3,
                                           .infer = infer_read,
                                           .stateful = true,
                                           .accepts_resources = true,
                                           .host_only = true});

// TensorArrayGatherV3(handle, indices: int32, flow_in) -> value: [?] + element_shape
// (the builder refines it with what the array's handle tells TensorFlow).
inline std::vector<TensorSpec> infer_gather(const InferContext& c) {
  require_handle(c, "TensorArrayGatherV3");
  require_input_dtype(c, 1, "indices", "TensorArrayGatherV3", DType::int32);
  require_flow(c, 2, "TensorArrayGatherV3");
  require_rank(c.shape(1), 1);
  const Shape& element = c.attr<Shape>("element_shape");
  if (!element.has_rank()) return {{c.attr<DType>("dtype"), Shape::unknown()}};
  Dims dims{unknown_dim};
  dims.insert(dims.end(), element.dims().begin(), element.dims().end());
  return {{c.attr<DType>("dtype"), Shape(std::move(dims))}};
}
SYMFLOW_OP_DEF(kTensorArrayGatherV3Op, OpDef{.type = "TensorArrayGatherV3",
                                             .num_inputs = 3,
                                             .infer = infer_gather,
                                             .stateful = true,
                                             .accepts_resources = true,
                                             .host_only = true});

// TensorArrayScatterV3(handle, indices: int32, value: T, flow_in) -> flow_out; value's
// first dimension is one per index.
inline std::vector<TensorSpec> infer_scatter(const InferContext& c) {
  require_handle(c, "TensorArrayScatterV3");
  require_input_dtype(c, 1, "indices", "TensorArrayScatterV3", DType::int32);
  require_flow(c, 3, "TensorArrayScatterV3");
  require_rank(c.shape(1), 1);
  require_rank_at_least(c.shape(2), 1);
  if (c.shape(1).has_rank() && c.shape(2).has_rank()) {
    const std::int64_t values = c.shape(2).dim(0), indices = c.shape(1).dim(0);
    if (values >= 0 && indices >= 0 && values != indices)
      throw ValueError("Dimensions must be equal, but are " + std::to_string(values) + " and " +
                       std::to_string(indices));
  }
  return {flow_spec()};
}
SYMFLOW_OP_DEF(kTensorArrayScatterV3Op, OpDef{.type = "TensorArrayScatterV3",
                                              .num_inputs = 4,
                                              .infer = infer_scatter,
                                              .stateful = true,
                                              .accepts_resources = true,
                                              .host_only = true});

// TensorArrayConcatV3(handle, flow_in) -> value: dtype, lengths: int64 vector.
inline std::vector<TensorSpec> infer_concat(const InferContext& c) {
  require_handle(c, "TensorArrayConcatV3");
  require_flow(c, 1, "TensorArrayConcatV3");
  return {{c.attr<DType>("dtype"), Shape::unknown()}, {DType::int64, Shape{unknown_dim}}};
}
SYMFLOW_OP_DEF(kTensorArrayConcatV3Op, OpDef{.type = "TensorArrayConcatV3",
                                             .num_inputs = 2,
                                             .infer = infer_concat,
                                             .stateful = true,
                                             .accepts_resources = true,
                                             .host_only = true});

// TensorArraySplitV3(handle, value: T, lengths: int64, flow_in) -> flow_out.
inline std::vector<TensorSpec> infer_split(const InferContext& c) {
  require_handle(c, "TensorArraySplitV3");
  require_input_dtype(c, 2, "lengths", "TensorArraySplitV3", DType::int64);
  require_flow(c, 3, "TensorArraySplitV3");
  require_rank_at_least(c.shape(1), 1);
  require_rank(c.shape(2), 1);
  return {flow_spec()};
}
SYMFLOW_OP_DEF(kTensorArraySplitV3Op, OpDef{.type = "TensorArraySplitV3",
                                            .num_inputs = 4,
                                            .infer = infer_split,
                                            .stateful = true,
                                            .accepts_resources = true,
                                            .host_only = true});

// TensorArraySizeV3(handle, flow_in) -> size: int32 scalar.
inline std::vector<TensorSpec> infer_size(const InferContext& c) {
  require_handle(c, "TensorArraySizeV3");
  require_flow(c, 1, "TensorArraySizeV3");
  return {{DType::int32, Shape{}}};
}
SYMFLOW_OP_DEF(kTensorArraySizeV3Op, OpDef{.type = "TensorArraySizeV3",
                                           .num_inputs = 2,
                                           .infer = infer_size,
                                           .stateful = true,
                                           .accepts_resources = true,
                                           .host_only = true});

// TensorArrayCloseV3(handle): no outputs.
inline std::vector<TensorSpec> infer_close(const InferContext& c) {
  require_handle(c, "TensorArrayCloseV3");
  return {};
}
SYMFLOW_OP_DEF(kTensorArrayCloseV3Op, OpDef{.type = "TensorArrayCloseV3",
                                            .num_inputs = 1,
                                            .infer = infer_close,
                                            .stateful = true,
                                            .accepts_resources = true,
                                            .host_only = true});

// TensorArrayGradV3(handle, flow_in) -> grad_handle: resource, flow_out: float.
inline std::vector<TensorSpec> infer_grad(const InferContext& c) {
  require_handle(c, "TensorArrayGradV3");
  require_flow(c, 1, "TensorArrayGradV3");
  return {{DType::resource, Shape{}}, flow_spec()};
}
SYMFLOW_OP_DEF(kTensorArrayGradV3Op, OpDef{.type = "TensorArrayGradV3",
                                           .num_inputs = 2,
                                           .infer = infer_grad,
                                           .stateful = true,
                                           .accepts_resources = true,
                                           .host_only = true});

}  // namespace symflow::detail::tensor_array
