#pragma once
// The description of the ops on variables: VariableV2 (the state), Assign / AssignAdd /
// AssignSub, the Scatter* updates, _VariableOrInitialValue and IsVariableInitialized:
// their functors, shape functions and OpDefs. Their first input is a reference: the
// kernel gets the variable itself (backend/cpu/kernels/state.hpp).

#include <string>
#include <string_view>
#include <vector>

#include "symflow/core/errors.hpp"
#include "symflow/ops/defs/math.hpp"
#include "symflow/ops/defs/op_def.hpp"
#include "symflow/ops/defs/shape_fn.hpp"

namespace symflow::detail {

inline void require_ref(const InferContext& c, std::string_view op) {
  if (c.inputs.empty() || !c.inputs[0].is_ref)
    throw TypeError("Input 'ref' of '" + std::string(op) +
                    "' Op requires l-value input: pass a variable, not a tensor");
}

// ---- VariableV2 ---------------------------------------------------------------
inline std::vector<TensorSpec> infer_variable(const InferContext& c) {
  return {{c.attr<DType>("dtype"), c.attr<Shape>("shape"), true}};
}

SYMFLOW_OP_DEF(kVariableV2Op, OpDef{.type = "VariableV2",
                                    .num_inputs = 0,
                                    .infer = infer_variable,
                                    .stateful = true,
                                    .accepts_strings = true,
                                    .accepts_storage_dtypes = true});

// ---- Assign -----------------------------------------------------------------------
inline std::vector<TensorSpec> infer_assign(const InferContext& c) {
  require_ref(c, "Assign");
  check_same_dtype(c, "Assign", {"ref", "value"});
  bool validate = c.attr<bool>("validate_shape");
  if (validate && !c.shape(0).is_compatible_with(c.shape(1)))
    throw ValueError("Shapes " + c.shape(0).to_string() + " and " + c.shape(1).to_string() +
                     " are incompatible");
  Shape out = validate ? c.shape(0).merge_with(c.shape(1)) : c.shape(1);
  return {{c.dtype(0), out, true}};
}

SYMFLOW_OP_DEF(kAssignOp, OpDef{.type = "Assign",
                                .num_inputs = 2,
                                .infer = infer_assign,
                                .stateful = true,
                                .ref_inputs = 0b1,
                                .accepts_strings = true,
                                .accepts_storage_dtypes = true});

// ---- AssignAdd / AssignSub ------------------------------------------------------
template <class Fn>
std::vector<TensorSpec> infer_assign_update(const InferContext& c) {
  require_ref(c, Fn::assign_type);
  check_same_dtype(c, Fn::assign_type, {"ref", "value"});
  check_allowed(c, 0, "ref", fn_accepts<Fn>);
  if (!c.shape(0).is_compatible_with(c.shape(1)))
    throw ValueError("Shapes " + c.shape(0).to_string() + " and " + c.shape(1).to_string() +
                     " are incompatible");
  return {{c.dtype(0), c.shape(0).merge_with(c.shape(1)), true}};
}

struct AssignAddFn : AddFn {
  static constexpr std::string_view assign_type = "AssignAdd";
};
struct AssignSubFn : SubFn {
  static constexpr std::string_view assign_type = "AssignSub";
};

template <class Fn>
constexpr OpDef assign_update_op_def() {
  return OpDef{.type = Fn::assign_type,
               .num_inputs = 2,
               .infer = infer_assign_update<Fn>,
               .stateful = true,
               .ref_inputs = 0b1};
}

SYMFLOW_OP_DEF(kAssignAddOp, assign_update_op_def<AssignAddFn>());
SYMFLOW_OP_DEF(kAssignSubOp, assign_update_op_def<AssignSubFn>());

// ---- ScatterUpdate / ScatterAdd / ScatterSub ------------------------------------
struct ScatterUpdateFn {
  static constexpr std::string_view type = "ScatterUpdate";
  template <class T>
  T operator()(T, T update) const {
    return update;
  }
};
struct ScatterAddFn {
  static constexpr std::string_view type = "ScatterAdd";
  template <class T>
  T operator()(T old, T update) const {
    return add_wrapping(old, update);
  }
};
struct ScatterSubFn {
  static constexpr std::string_view type = "ScatterSub";
  template <class T>
  T operator()(T old, T update) const {
    return sub_wrapping(old, update);
  }
};

template <class Fn>
std::vector<TensorSpec> infer_scatter(const InferContext& c) {
  require_ref(c, Fn::type);
  if (c.dtype(2) != c.dtype(0))
    throw TypeError("Input 'updates' of '" + std::string(Fn::type) + "' Op has type " +
                    std::string(dtype_name(c.dtype(2))) + " that does not match type " +
                    std::string(dtype_name(c.dtype(0))) + " of argument 'ref'.");
  if (c.dtype(1) != DType::int32 && c.dtype(1) != DType::int64)
    throw TypeError("Indices of '" + std::string(Fn::type) + "' must be int32 or int64, got " +
                    std::string(dtype_name(c.dtype(1))));
  const Shape& ref = c.shape(0);
  const Shape& indices = c.shape(1);
  const Shape& updates = c.shape(2);
  if (ref.has_rank() && indices.has_rank() && updates.has_rank()) {
    require_rank_at_least(ref, 1);
    Dims expected = indices.dims();
    expected.insert(expected.end(), ref.dims().begin() + 1, ref.dims().end());
    if (!updates.is_compatible_with(Shape(expected)))
      throw ValueError("Shapes must be equal rank, or compatible: updates " + updates.to_string() +
                       " vs. indices.shape + ref.shape[1:] = " + Shape(expected).to_string());
  }
  return {{c.dtype(0), ref, true}};
}

template <class Fn>
constexpr OpDef scatter_op_def() {
  return OpDef{.type = Fn::type,
               .num_inputs = 3,
               .infer = infer_scatter<Fn>,
               .stateful = true,
               .ref_inputs = 0b1};
}

SYMFLOW_OP_DEF(kScatterUpdateOp, scatter_op_def<ScatterUpdateFn>());
SYMFLOW_OP_DEF(kScatterAddOp, scatter_op_def<ScatterAddFn>());
SYMFLOW_OP_DEF(kScatterSubOp, scatter_op_def<ScatterSubFn>());

// ---- _VariableOrInitialValue ------------------------------------------------------
// The variable's value once it is initialised, its initial value before: what
// Variable.initialized_value() built before it became TensorFlow's cond. Kept so that
// graphs written then still import and run.
inline std::vector<TensorSpec> infer_variable_or_initial(const InferContext& c) {
  require_ref(c, "_VariableOrInitialValue");
  check_same_dtype(c, "_VariableOrInitialValue", {"ref", "initial_value"});
  Shape shape = c.shape(0).is_compatible_with(c.shape(1)) ? c.shape(0).merge_with(c.shape(1))
                                                          : Shape::unknown();
  return {{c.dtype(0), shape}};
}

SYMFLOW_OP_DEF(kVariableOrInitialValueOp, OpDef{.type = "_VariableOrInitialValue",
                                                .num_inputs = 2,
                                                .infer = infer_variable_or_initial,
                                                .stateful = true,
                                                .ref_inputs = 0b1});

// ---- IsVariableInitialized --------------------------------------------------------
inline std::vector<TensorSpec> infer_is_initialized(const InferContext& c) {
  require_ref(c, "IsVariableInitialized");
  return {{DType::bool_, Shape{}}};
}

SYMFLOW_OP_DEF(kIsVariableInitializedOp, OpDef{.type = "IsVariableInitialized",
                                               .num_inputs = 1,
                                               .infer = infer_is_initialized,
                                               .stateful = true,
                                               .ref_inputs = 0b1,
                                               .accepts_strings = true,
                                               .accepts_storage_dtypes = true});

}  // namespace symflow::detail
