#pragma once
// The control ops' descriptions: NoOp (no outputs), and the two ops tf.cond is built
// from, Switch (passes its data to output `pred`, leaving the other output dead) and
// Merge (passes on whichever input is alive, with its index), and their forms for
// variable references, RefSwitch and RefMerge. Their kernels are in
// backend/cpu/kernels/control.hpp; tf.no_op, tf.group, switch_, merge and cond in
// ops/control_flow_ops.hpp.

#include <string>
#include <vector>

#include "symflow/ops/defs/op_def.hpp"
#include "symflow/ops/defs/shape_fn.hpp"

namespace symflow::detail {

inline std::vector<TensorSpec> infer_nothing(const InferContext&) { return {}; }
SYMFLOW_OP_DEF(kNoOp, OpDef{.type = "NoOp", .num_inputs = 0, .infer = infer_nothing});

// Switch(data, pred) -> (output_false, output_true), both shaped like data.
inline std::vector<TensorSpec> infer_switch(const InferContext& c) {
  if (c.dtype(1) != DType::bool_)
    throw TypeError("Input 'pred' of 'Switch' Op has type " + std::string(dtype_name(c.dtype(1))) +
                    " that does not match expected type of bool.");
  require_rank(c.shape(1), 0);
  const TensorSpec out{c.dtype(0), c.shape(0)};
  return {out, out};
}
SYMFLOW_OP_DEF(kSwitchOp,
               OpDef{
                   .type = "Switch", .num_inputs = 2, .infer = infer_switch, .dead_outputs = true});

// RefSwitch(ref, pred): Switch for a variable reference, so that an assign built in a
// cond branch writes the variable itself, and only when the branch is taken.
inline std::vector<TensorSpec> infer_ref_switch(const InferContext& c) {
  std::vector<TensorSpec> out = infer_switch(c);
  for (TensorSpec& o : out) o.is_ref = true;
  return out;
}
SYMFLOW_OP_DEF(kRefSwitchOp, OpDef{.type = "RefSwitch",
                                   .num_inputs = 2,
                                   .infer = infer_ref_switch,
                                   .ref_inputs = 1,
                                   .dead_outputs = true});

// Merge(inputs) -> (output, value_index): every input of one dtype; the output keeps
// what all inputs' shapes agree on (TensorFlow's MergeShapeFn), the index is a scalar.
inline std::vector<TensorSpec> infer_merge(const InferContext& c) {
  if (c.inputs.empty()) throw ValueError("Merge needs at least one input");
  for (std::size_t i = 1; i < c.inputs.size(); ++i)
    if (c.dtype(i) != c.dtype(0))
      throw TypeError("Input " + std::to_string(i) + " of 'Merge' Op has type " +
                      std::string(dtype_name(c.dtype(i))) + " that does not match type " +
                      std::string(dtype_name(c.dtype(0))) + " of input 0.");
  Shape shape = c.shape(0);
  for (std::size_t i = 1; i < c.inputs.size() && shape.has_rank(); ++i) {
    const Shape& other = c.shape(i);
    if (!other.has_rank() || other.rank() != shape.rank()) {
      shape = Shape::unknown();
      break;
    }
    Dims dims = shape.dims();
    for (std::size_t d = 0; d < dims.size(); ++d)
      if (dims[d] != other.dims()[d]) dims[d] = -1;
    shape = Shape(dims);
  }
  return {{c.dtype(0), shape}, {DType::int32, Shape{}}};
}
SYMFLOW_OP_DEF(kMergeOp, OpDef{.type = "Merge",
                               .num_inputs = -1,
                               .infer = infer_merge,
                               .dead_outputs = true,
                               .reads_dead = true});

// RefMerge: Merge of variable references (a cond whose branches both assign one
// variable); its output is the variable the live input names.
inline std::vector<TensorSpec> infer_ref_merge(const InferContext& c) {
  std::vector<TensorSpec> out = infer_merge(c);
  out[0].is_ref = true;
  return out;
}
SYMFLOW_OP_DEF(kRefMergeOp, OpDef{.type = "RefMerge",
                                  .num_inputs = -1,
                                  .infer = infer_ref_merge,
                                  .ref_inputs = 0xFFFFFFFFu,
                                  .dead_outputs = true,
                                  .reads_dead = true});

}  // namespace symflow::detail
