#pragma once
// The CPU kernels of the ops on variables (ops/defs/state.hpp), with the checks the
// CPU and GPU kernels share, and kStateCpuKernels, their table. Each kernel gets the
// variable itself through its reference input, and every write stores a new buffer,
// so values read earlier stay as they were.

#include <array>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>

#include "symflow/backend/cpu/kernel_table.hpp"
#include "symflow/backend/cpu/kernels/math.hpp"
#include "symflow/backend/kernel_context.hpp"
#include "symflow/backend/variable_store.hpp"
#include "symflow/ops/defs/shape_fn.hpp"
#include "symflow/ops/defs/state.hpp"

namespace symflow::detail {

inline void require_initialized(const KernelContext& ctx, const VariableSlot& slot) {
  if (!slot.initialized)
    throw FailedPreconditionError("Attempting to use uninitialized value " + slot.name,
                                  ctx.node_name());
}

// ---- VariableV2 ---------------------------------------------------------------
inline void variable_kernel(KernelContext& ctx) {
  std::string key = VariableStore::key(ctx.attr<std::string>("container"),
                                       ctx.attr<std::string>("shared_name"), ctx.node_name());
  ctx.set_ref_output(0, ctx.variables().slot(key, ctx.node_name()));
}

// ---- Assign -----------------------------------------------------------------------
// Assign's shapes, checked with the slot locked (the CPU and GPU kernels share it).
inline void check_assign(const KernelContext& ctx, const VariableSlot& slot, const Value& value) {
  if (ctx.attr<bool>("validate_shape") && slot.initialized && slot.value.dims() != value.dims())
    ctx.fail("Assign requires shapes of both tensors to match. lhs shape= " +
             dims_to_string(slot.value.dims()) + " rhs shape= " + dims_to_string(value.dims()));
}

inline void assign_kernel(KernelContext& ctx) {
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

// ---- AssignAdd / AssignSub ------------------------------------------------------
// AssignAdd's or AssignSub's variable and shapes, checked with the slot locked (the CPU and
// GPU kernels share it).
inline void check_assign_update(const KernelContext& ctx, std::string_view type,
                                const VariableSlot& slot, const Value& delta) {
  require_initialized(ctx, slot);
  if (slot.value.dims() != delta.dims())
    ctx.fail(std::string(type) + " requires shapes of both tensors to match. lhs shape= " +
             dims_to_string(slot.value.dims()) + " rhs shape= " + dims_to_string(delta.dims()));
}

template <class Fn>
void assign_update_kernel(KernelContext& ctx) {
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

// ---- ScatterUpdate / ScatterAdd / ScatterSub ------------------------------------
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

template <class Fn>
void scatter_kernel(KernelContext& ctx) {
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

// ---- _VariableOrInitialValue ------------------------------------------------------
inline void variable_or_initial_kernel(KernelContext& ctx) {
  VariableSlot& slot = ctx.ref_input(0);
  std::lock_guard lock(slot.mutex);
  ctx.set_output(0, slot.initialized ? slot.value : ctx.input(1));
}

// ---- IsVariableInitialized --------------------------------------------------------
inline void is_initialized_kernel(KernelContext& ctx) {
  VariableSlot& slot = ctx.ref_input(0);
  std::lock_guard lock(slot.mutex);
  ctx.set_output(0, Value(slot.initialized));
}

inline constexpr auto kStateCpuKernels = std::to_array<CpuKernel>({
    {&kVariableV2Op, variable_kernel},
    {&kAssignOp, assign_kernel},
    {&kAssignAddOp, assign_update_kernel<AssignAddFn>},
    {&kAssignSubOp, assign_update_kernel<AssignSubFn>},
    {&kScatterUpdateOp, scatter_kernel<ScatterUpdateFn>},
    {&kScatterAddOp, scatter_kernel<ScatterAddFn>},
    {&kScatterSubOp, scatter_kernel<ScatterSubFn>},
    {&kVariableOrInitialValueOp, variable_or_initial_kernel},
    {&kIsVariableInitializedOp, is_initialized_kernel},
});

}  // namespace symflow::detail
