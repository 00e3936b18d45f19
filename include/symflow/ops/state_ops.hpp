#pragma once
// Ops on variables: VariableV2 (the state), Assign / AssignAdd / AssignSub, the
// Scatter* updates and IsVariableInitialized. Their first input is a reference:
// the kernel gets the variable itself, and every write stores a new buffer, so
// values read earlier stay as they were.

#include <mutex>
#include <string>
#include <string_view>

#include "symflow/backend/kernel_context.hpp"
#include "symflow/ops/math_ops.hpp"
#include "symflow/ops/op_builder.hpp"
#include "symflow/ops/tensor_arg.hpp"

namespace symflow {

namespace detail {

inline void require_ref(const InferContext& c, std::string_view op) {
  if (c.inputs.empty() || !c.inputs[0].is_ref)
    throw TypeError("Input 'ref' of '" + std::string(op) +
                    "' Op requires l-value input: pass a variable, not a tensor");
}

inline void require_initialized(const KernelContext& ctx, const VariableSlot& slot) {
  if (!slot.initialized)
    throw FailedPreconditionError("Attempting to use uninitialized value " + slot.name,
                                  ctx.node_name());
}

// ---- VariableV2 ---------------------------------------------------------------
inline std::vector<TensorSpec> infer_variable(const InferContext& c) {
  return {{c.attr<DType>("dtype"), c.attr<Shape>("shape"), true}};
}

SYMFLOW_CPU_KERNEL(variable_kernel) {
  std::string key = VariableStore::key(ctx.attr<std::string>("container"),
                                       ctx.attr<std::string>("shared_name"), ctx.node_name());
  ctx.set_ref_output(0, ctx.variables().slot(key, ctx.node_name()));
}

inline constexpr OpDef kVariableV2Op{.type = "VariableV2",
                                     .num_inputs = 0,
                                     .infer = infer_variable,
                                     .cpu_kernel = variable_kernel,
                                     .stateful = true};

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

// Assign's shapes, checked with the slot locked (the CPU and GPU kernels share it).
inline void check_assign(const KernelContext& ctx, const VariableSlot& slot, const Value& value) {
  if (ctx.attr<bool>("validate_shape") && slot.initialized && slot.value.dims() != value.dims())
    ctx.fail("Assign requires shapes of both tensors to match. lhs shape= " +
             dims_to_string(slot.value.dims()) + " rhs shape= " + dims_to_string(value.dims()));
}

SYMFLOW_CPU_KERNEL(assign_kernel) {
  VariableSlot& slot = ctx.ref_input(0);
  const Value& value = ctx.input(1);
  {
    std::lock_guard lock(slot.mutex);
    check_assign(ctx, slot, value);
    slot.value = value.clone();  // the value may be a caller's feed: keep a copy
    slot.initialized = true;
  }
  ctx.forward_ref(0, 0);
}

inline constexpr OpDef kAssignOp{.type = "Assign",
                                 .num_inputs = 2,
                                 .infer = infer_assign,
                                 .cpu_kernel = assign_kernel,
                                 .stateful = true,
                                 .ref_inputs = 0b1};

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

// AssignAdd's or AssignSub's variable and shapes, checked with the slot locked (the CPU and
// GPU kernels share it).
inline void check_assign_update(const KernelContext& ctx, std::string_view type,
                                const VariableSlot& slot, const Value& delta) {
  require_initialized(ctx, slot);
  if (slot.value.dims() != delta.dims())
    ctx.fail(std::string(type) + " requires shapes of both tensors to match. lhs shape= " +
             dims_to_string(slot.value.dims()) + " rhs shape= " + dims_to_string(delta.dims()));
}

SYMFLOW_CPU_KERNEL_TEMPLATE(assign_update_kernel, class Fn) {
  VariableSlot& slot = ctx.ref_input(0);
  const Value& delta = ctx.input(1);
  {
    std::lock_guard lock(slot.mutex);
    check_assign_update(ctx, Fn::assign_type, slot, delta);
    visit_dtype(delta.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (Fn::template accepts<T>) {
        Value updated(delta.dtype(), delta.dims());
        const T* a = slot.value.data<T>();
        const T* b = delta.data<T>();
        T* out = updated.data<T>();
        for (std::int64_t i = 0; i < updated.size(); ++i) out[i] = Fn{}(a[i], b[i]);
        slot.value = std::move(updated);
      } else {
        unsupported_dtype(ctx, delta.dtype());
      }
    });
  }
  ctx.forward_ref(0, 0);
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
               .cpu_kernel = assign_update_kernel<Fn>,
               .stateful = true,
               .ref_inputs = 0b1};
}

inline constexpr OpDef kAssignAddOp = assign_update_op_def<AssignAddFn>();
inline constexpr OpDef kAssignSubOp = assign_update_op_def<AssignSubFn>();

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
    if (ref.rank() < 1) throw ValueError("Shape must be at least rank 1 but is rank 0");
    Dims expected = indices.dims();
    expected.insert(expected.end(), ref.dims().begin() + 1, ref.dims().end());
    if (!updates.is_compatible_with(Shape(expected)))
      throw ValueError("Shapes must be equal rank, or compatible: updates " + updates.to_string() +
                       " vs. indices.shape + ref.shape[1:] = " + Shape(expected).to_string());
  }
  return {{c.dtype(0), ref, true}};
}

// A scatter's shapes and indices against the variable's value, checked before anything
// is written (the CPU and GPU kernels share it). Returns the elements per row.
inline std::int64_t check_scatter(const KernelContext& ctx, const Value& ref_value,
                                  const Dims& indices_dims, const Dims& updates_dims,
                                  const Dims& index_values) {
  const Dims& ref_dims = ref_value.dims();
  if (ref_dims.empty()) ctx.fail("ref must be at least 1-D, got shape []");
  const std::int64_t rows = ref_dims[0];
  Dims expected = indices_dims;
  expected.insert(expected.end(), ref_dims.begin() + 1, ref_dims.end());
  if (updates_dims != expected)
    ctx.fail(
        "Must have updates.shape = indices.shape + params.shape[1:] or updates.shape = [], "
        "got updates.shape " +
        dims_to_string(updates_dims) + ", indices.shape " + dims_to_string(indices_dims) +
        ", params.shape " + dims_to_string(ref_dims));
  for (std::size_t k = 0; k < index_values.size(); ++k)
    if (index_values[k] < 0 || index_values[k] >= rows)
      ctx.fail("indices[" + std::to_string(k) + "] = " + std::to_string(index_values[k]) +
               " is not in [0, " + std::to_string(rows) + ")");
  return rows ? ref_value.size() / rows : 0;
}

SYMFLOW_CPU_KERNEL_TEMPLATE(scatter_kernel, class Fn) {
  VariableSlot& slot = ctx.ref_input(0);
  const Value& indices = ctx.input(1);
  const Value& updates = ctx.input(2);
  {
    std::lock_guard lock(slot.mutex);
    require_initialized(ctx, slot);
    Dims index_values = shape_argument(indices);
    const std::int64_t row_size =
        check_scatter(ctx, slot.value, indices.dims(), updates.dims(), index_values);
    Value updated = slot.value.clone();
    visit_dtype(updated.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (is_number_v<T>) {
        T* out = updated.data<T>();
        const T* in = updates.data<T>();
        for (std::size_t k = 0; k < index_values.size(); ++k) {
          T* row = out + index_values[k] * row_size;
          const T* src = in + static_cast<std::int64_t>(k) * row_size;
          for (std::int64_t j = 0; j < row_size; ++j) row[j] = Fn{}(row[j], src[j]);
        }
      } else {
        unsupported_dtype(ctx, updated.dtype());
      }
    });
    slot.value = std::move(updated);
  }
  ctx.forward_ref(0, 0);
}

template <class Fn>
constexpr OpDef scatter_op_def() {
  return OpDef{.type = Fn::type,
               .num_inputs = 3,
               .infer = infer_scatter<Fn>,
               .cpu_kernel = scatter_kernel<Fn>,
               .stateful = true,
               .ref_inputs = 0b1};
}

inline constexpr OpDef kScatterUpdateOp = scatter_op_def<ScatterUpdateFn>();
inline constexpr OpDef kScatterAddOp = scatter_op_def<ScatterAddFn>();
inline constexpr OpDef kScatterSubOp = scatter_op_def<ScatterSubFn>();

// ---- _VariableOrInitialValue ------------------------------------------------------
// Variable.initialized_value(): the variable's value once it is initialised, its
// initial value before. TensorFlow builds this as a cond (Switch/Merge); symflow
// has no control-flow ops, so one op with the same result stands in for them.
inline std::vector<TensorSpec> infer_variable_or_initial(const InferContext& c) {
  require_ref(c, "_VariableOrInitialValue");
  check_same_dtype(c, "_VariableOrInitialValue", {"ref", "initial_value"});
  Shape shape = c.shape(0).is_compatible_with(c.shape(1)) ? c.shape(0).merge_with(c.shape(1))
                                                          : Shape::unknown();
  return {{c.dtype(0), shape}};
}

SYMFLOW_CPU_KERNEL(variable_or_initial_kernel) {
  VariableSlot& slot = ctx.ref_input(0);
  std::lock_guard lock(slot.mutex);
  ctx.set_output(0, slot.initialized ? slot.value : ctx.input(1));
}

inline constexpr OpDef kVariableOrInitialValueOp{.type = "_VariableOrInitialValue",
                                                 .num_inputs = 2,
                                                 .infer = infer_variable_or_initial,
                                                 .cpu_kernel = variable_or_initial_kernel,
                                                 .stateful = true,
                                                 .ref_inputs = 0b1};

// ---- IsVariableInitialized --------------------------------------------------------
inline std::vector<TensorSpec> infer_is_initialized(const InferContext& c) {
  require_ref(c, "IsVariableInitialized");
  return {{DType::bool_, Shape{}}};
}

SYMFLOW_CPU_KERNEL(is_initialized_kernel) {
  VariableSlot& slot = ctx.ref_input(0);
  std::lock_guard lock(slot.mutex);
  ctx.set_output(0, Value(slot.initialized));
}

inline constexpr OpDef kIsVariableInitializedOp{.type = "IsVariableInitialized",
                                                .num_inputs = 1,
                                                .infer = infer_is_initialized,
                                                .cpu_kernel = is_initialized_kernel,
                                                .stateful = true,
                                                .ref_inputs = 0b1};

}  // namespace detail

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

// The value of the variable behind `ref` once initialised, else `initial_value`.
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
