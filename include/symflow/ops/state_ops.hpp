#pragma once
// Ops on variables, the graph-building side: tf.assign, assign_add / assign_sub, the
// scatter_* updates, is_variable_initialized and variable_or_initial_value. Their ops
// are described in ops/defs/state.hpp; their first input is a reference (a variable).

#include <string_view>

#include "symflow/graph/scopes.hpp"
#include "symflow/ops/defs/state.hpp"
#include "symflow/ops/op_builder.hpp"
#include "symflow/ops/tensor_arg.hpp"

namespace symflow {

// tf.assign(ref, value): writes `value` into the variable; returns the variable.
inline Output assign(const Output& ref, const TensorArg& value, bool validate_shape = true,
                     bool use_locking = true, std::string_view name = {}) {
  detail::OpBuilder b(graph_of({ref}), name, "Assign");
  Output v = value.resolve(b, "value", ref.dtype());
  return b
      .build(detail::kAssignOp, {ref, v},
             {{"T", ref.dtype()}, {"use_locking", use_locking}, {"validate_shape", validate_shape}})
      .output(0);
}

namespace detail {
inline Output assign_update(const OpDef& def, const Output& ref, const TensorArg& value,
                            bool use_locking, std::string_view name) {
  OpBuilder b(graph_of({ref}), name, def.type);
  Output v = value.resolve(b, "value", ref.dtype());
  return b.build(def, {ref, v}, {{"T", ref.dtype()}, {"use_locking", use_locking}}).output(0);
}

inline Output scatter(const OpDef& def, const Output& ref, const TensorArg& indices,
                      const TensorArg& updates, bool use_locking, std::string_view name) {
  OpBuilder b(graph_of({ref}), name, def.type);
  Output i = indices.resolve(b, "indices");
  Output u = updates.resolve(b, "updates", ref.dtype());
  return b
      .build(def, {ref, i, u},
             {{"T", ref.dtype()}, {"Tindices", i.dtype()}, {"use_locking", use_locking}})
      .output(0);
}
}  // namespace detail

// tf.assign_add / tf.assign_sub: adds or subtracts `value` in place.
inline Output assign_add(const Output& ref, const TensorArg& value, bool use_locking = false,
                         std::string_view name = {}) {
  return detail::assign_update(detail::kAssignAddOp, ref, value, use_locking, name);
}
inline Output assign_sub(const Output& ref, const TensorArg& value, bool use_locking = false,
                         std::string_view name = {}) {
  return detail::assign_update(detail::kAssignSubOp, ref, value, use_locking, name);
}

// tf.scatter_update / scatter_add / scatter_sub: rows `indices` of the variable
// are replaced by, increased by, or decreased by `updates`.
inline Output scatter_update(const Output& ref, const TensorArg& indices, const TensorArg& updates,
                             bool use_locking = true, std::string_view name = {}) {
  return detail::scatter(detail::kScatterUpdateOp, ref, indices, updates, use_locking, name);
}
inline Output scatter_add(const Output& ref, const TensorArg& indices, const TensorArg& updates,
                          bool use_locking = false, std::string_view name = {}) {
  return detail::scatter(detail::kScatterAddOp, ref, indices, updates, use_locking, name);
}
inline Output scatter_sub(const Output& ref, const TensorArg& indices, const TensorArg& updates,
                          bool use_locking = false, std::string_view name = {}) {
  return detail::scatter(detail::kScatterSubOp, ref, indices, updates, use_locking, name);
}

// The value of the variable behind `ref` once initialised, else `initial_value`, as one
// _VariableOrInitialValue op (Variable::initialized_value() builds TensorFlow's cond).
inline Output variable_or_initial_value(const Output& ref, const Output& initial_value,
                                        std::string_view name = {}) {
  Graph g = graph_of({ref});
  control_dependencies lifted(g, nullptr);
  detail::OpBuilder b(g, name, "initialized_value");
  return b.build(detail::kVariableOrInitialValueOp, {ref, initial_value}, {{"T", ref.dtype()}})
      .output(0);
}

// tf.is_variable_initialized(ref): a bool scalar.
inline Output is_variable_initialized(const Output& ref, std::string_view name = {}) {
  detail::OpBuilder b(graph_of({ref}), name, "IsVariableInitialized");
  return b.build(detail::kIsVariableInitializedOp, {ref}, {{"dtype", ref.dtype()}}).output(0);
}

}  // namespace symflow
