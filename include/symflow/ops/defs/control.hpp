#pragma once
// The control ops' descriptions: NoOp (no outputs), and the two ops tf.cond is built
// from, Switch (passes its data to output `pred`, leaving the other output dead) and
// Merge (passes on whichever input is alive, with its index), and their forms for
// variable references, RefSwitch and RefMerge; and the four a while loop adds: Enter
// (into a loop's frame), LoopCond (the loop's predicate), NextIteration (to the next
// iteration) and Exit (out of the frame), with Ref forms of the first three. Their
// kernels are in backend/cpu/kernels/control.hpp; tf.no_op, tf.group, switch_, merge,
// cond and while_loop in ops/control_ops.hpp, ops/cond.hpp and ops/while_loop.hpp.

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
SYMFLOW_OP_DEF(kSwitchOp, OpDef{.type = "Switch",
                                .num_inputs = 2,
                                .infer = infer_switch,
                                .dead_outputs = true,
                                .accepts_strings = true,
                                .accepts_storage_dtypes = true,
                                .accepts_resources = true});

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
                                   .dead_outputs = true,
                                   .accepts_storage_dtypes = true});

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
                               .reads_dead = true,
                               .accepts_strings = true,
                               .accepts_storage_dtypes = true,
                               .accepts_resources = true});

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
                                  .reads_dead = true,
                                  .accepts_storage_dtypes = true});

// Enter(data; frame_name, is_constant = false, parallel_iterations = 10): `data` as the
// loop frame `frame_name` sees it. A constant Enter (a tensor from outside that the
// loop reads) keeps its shape; a loop variable's may change from one iteration to the
// next, so TensorFlow's shape function leaves it unknown (while_loop sets it from the
// shape invariant).
inline std::vector<TensorSpec> infer_enter(const InferContext& c) {
  auto constant = c.attrs.find("is_constant");
  const bool is_constant = constant != c.attrs.end() && std::get_if<bool>(&constant->second) &&
                           std::get<bool>(constant->second);
  return {{c.dtype(0), is_constant ? c.shape(0) : Shape::unknown()}};
}
inline std::vector<TensorSpec> infer_ref_enter(const InferContext& c) {
  std::vector<TensorSpec> out = infer_enter(c);
  out[0].is_ref = true;
  return out;
}
SYMFLOW_OP_DEF(kEnterOp, OpDef{.type = "Enter",
                               .num_inputs = 1,
                               .infer = infer_enter,
                               .accepts_strings = true,
                               .accepts_storage_dtypes = true,
                               .accepts_resources = true});
SYMFLOW_OP_DEF(kRefEnterOp, OpDef{.type = "RefEnter",
                                  .num_inputs = 1,
                                  .infer = infer_ref_enter,
                                  .ref_inputs = 1,
                                  .accepts_storage_dtypes = true});

// Exit(data): a loop variable's last value, out of the frame.
inline std::vector<TensorSpec> same_as_input_ref(const InferContext& c) {
  TensorSpec out = c.inputs[0];
  out.is_ref = true;
  return {out};
}
SYMFLOW_OP_DEF(kExitOp, OpDef{.type = "Exit",
                              .num_inputs = 1,
                              .infer = same_as_input,
                              .accepts_strings = true,
                              .accepts_storage_dtypes = true,
                              .accepts_resources = true});
SYMFLOW_OP_DEF(kRefExitOp, OpDef{.type = "RefExit",
                                 .num_inputs = 1,
                                 .infer = same_as_input_ref,
                                 .ref_inputs = 1,
                                 .accepts_storage_dtypes = true});

// NextIteration(data): a loop variable's value for the next iteration, which the loop's
// Merge reads (the graph's one back edge).
SYMFLOW_OP_DEF(kNextIterationOp, OpDef{.type = "NextIteration",
                                       .num_inputs = 1,
                                       .infer = same_as_input,
                                       .accepts_strings = true,
                                       .accepts_storage_dtypes = true,
                                       .accepts_resources = true});
SYMFLOW_OP_DEF(kRefNextIterationOp, OpDef{.type = "RefNextIteration",
                                          .num_inputs = 1,
                                          .infer = same_as_input_ref,
                                          .ref_inputs = 1,
                                          .accepts_storage_dtypes = true});

// LoopCond(input): the loop's predicate, a bool scalar; the executor reads it after each
// iteration to decide whether another one runs.
inline std::vector<TensorSpec> infer_loop_cond(const InferContext& c) {
  if (c.dtype(0) != DType::bool_)
    throw TypeError("Input 'input' of 'LoopCond' Op has type " +
                    std::string(dtype_name(c.dtype(0))) +
                    " that does not match expected type of bool.");
  require_rank(c.shape(0), 0);
  return {{DType::bool_, Shape{}}};
}
SYMFLOW_OP_DEF(kLoopCondOp, OpDef{.type = "LoopCond", .num_inputs = 1, .infer = infer_loop_cond});

// ControlTrigger: does nothing, and is never dead; a while loop's gradient orders its
// stack pushes and pops through one ("f_sync", "b_sync"), as TensorFlow does.
SYMFLOW_OP_DEF(kControlTriggerOp, OpDef{.type = "ControlTrigger",
                                        .num_inputs = 0,
                                        .infer = infer_nothing,
                                        .never_dead = true,
                                        .host_only = true});

// Whether a node of this type is one of a while loop's frame ops.
inline bool is_enter_op(const OpDef* def) { return def == &kEnterOp || def == &kRefEnterOp; }
inline bool is_exit_op(const OpDef* def) { return def == &kExitOp || def == &kRefExitOp; }
inline bool is_next_iteration_op(const OpDef* def) {
  return def == &kNextIterationOp || def == &kRefNextIterationOp;
}
inline bool is_merge_op(const OpDef* def) { return def == &kMergeOp || def == &kRefMergeOp; }
// The frame ops whose output is their input's value (not a reference's).
inline bool passes_value_on(const OpDef* def) {
  return def == &kEnterOp || def == &kExitOp || def == &kNextIterationOp || def == &kLoopCondOp;
}

}  // namespace symflow::detail
