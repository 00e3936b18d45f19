#pragma once
// The description of TensorFlow's TensorArray ops (data_flow_ops.cc): TensorArrayV3 and
// the ops that read, write, gather, scatter, concat, split, size, close and grad it.

#include "symflow/ops/defs/op_def.hpp"

namespace symflow::detail::tensor_array {}  // namespace symflow::detail::tensor_array
