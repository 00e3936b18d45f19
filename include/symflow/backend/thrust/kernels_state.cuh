#pragma once
// Thrust kernels: sources, identities and variables. A variable placed on the GPU
// keeps its value in device memory; Assign copies into it on the device, and
// AssignAdd/AssignSub and the Scatter* updates compute on the device.
//
// Writes keep the CPU's contract (variable_store.hpp: earlier reads stay snapshots):
// when nothing but the variable holds its buffer (buffer_owners() == 1) the update
// runs in place; when a read of this run or an earlier one still holds it, the update
// writes a new buffer, as the CPU kernels always do.
//
// Some entries reuse the CPU kernel: those that never touch elements (VariableV2
// hands out its slot, NoOp does nothing, Identity and an unfed PlaceholderWithDefault
// forward their input's buffer, Placeholder only fails when not fed), so they run the
// same on any device. They are named here as the CPU table names them
// (backend/cpu/kernels/: StopGradient runs identity_kernel).

#include <algorithm>
#include <array>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <thrust/for_each.h>
#include <thrust/transform.h>

#include "symflow/backend/cpu/kernels/array.hpp"
#include "symflow/backend/cpu/kernels/control.hpp"
#include "symflow/backend/cpu/kernels/state.hpp"
#include "symflow/backend/thrust/kernel_util.cuh"
#include "symflow/backend/thrust/kernels_array.cuh"
#include "symflow/ops/defs/array.hpp"
#include "symflow/ops/defs/const.hpp"
#include "symflow/ops/defs/control.hpp"
#include "symflow/ops/defs/shape.hpp"
#include "symflow/ops/defs/state.hpp"

namespace symflow::thrust_backend {

namespace state_kernels {

// The constant, copied to the device each run.
inline void const_kernel(KernelContext& ctx) {
  ctx.set_output(0, copy_to_device(ctx.attr<Value>("value")));
}

inline void assign_kernel(KernelContext& ctx) {
  VariableSlot& slot = ctx.ref_input(0);
  const Value& value = ctx.input(1);
  {
    std::lock_guard lock(slot.mutex);
    symflow::detail::check_assign(ctx, slot, value);
    slot.value = copy_on_device(value);  // the variable owns its buffer
    slot.initialized = true;
  }
  ctx.forward_ref(0, 0);
}

// ---- AssignAdd / AssignSub -----------------------------------------------------------

struct DeviceAdd {
  template <class T>
  SYMFLOW_HD T operator()(T a, T b) const {
    return symflow::detail::add_wrapping(a, b);
  }
};
struct DeviceSub {
  template <class T>
  SYMFLOW_HD T operator()(T a, T b) const {
    return symflow::detail::sub_wrapping(a, b);
  }
};

// The variable's value as a device buffer this kernel may write: the slot's own
// buffer when nothing else holds it, else a device copy. (A host value, written by a
// CPU kernel sharing the variable's name, is copied over.)
inline Value writable_value(const VariableSlot& slot) {
  if (slot.value.on_device() && slot.value.buffer_owners() == 1) return slot.value;
  return slot.value.on_device() ? copy_on_device(slot.value) : copy_to_device(slot.value);
}

template <class T, class Op>
void assign_update_on_device(VariableSlot& slot, const Value& delta) {
  const Value& current = slot.value;
  const std::int64_t n = delta.size();
  // In place: a[i] = op(a[i], b[i]) (thrust::transform allows the output to be the
  // first input); else into a new buffer, which then replaces the slot's.
  const bool in_place = current.on_device() && current.buffer_owners() == 1;
  Value source = current.on_device() ? current : copy_to_device(current);
  Value updated = in_place ? current : empty_device_value(delta.dtype(), delta.dims());
  if (n > 0) {
    thrust::device_ptr<const T> a = thrust::device_pointer_cast(source.device_data<T>());
    thrust::device_ptr<const T> b = thrust::device_pointer_cast(delta.device_data<T>());
    thrust::transform(policy(), a, a + n, b, thrust::device_pointer_cast(updated.device_data<T>()),
                      Op{});
  }
  source = Value();
  slot.value = std::move(updated);
}

template <class Fn, class Op>
void assign_update_kernel(KernelContext& ctx) {
  VariableSlot& slot = ctx.ref_input(0);
  const Value& delta = ctx.input(1);
  {
    std::lock_guard lock(slot.mutex);
    symflow::detail::check_assign_update(ctx, Fn::assign_type, slot, delta);
    visit_dtype(delta.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (Fn::template accepts<T>) {
        if (slot.value.dtype() != delta.dtype())  // what the CPU's data<T>() throws
          throw TypeError("Value holds " + std::string(dtype_name(slot.value.dtype())) + ", not " +
                          std::string(dtype_name(delta.dtype())));
        assign_update_on_device<T, Op>(slot, delta);
      } else {
        symflow::detail::unsupported_dtype(ctx, delta.dtype());
      }
    });
  }
  ctx.forward_ref(0, 0);
}

// ---- ScatterUpdate / ScatterAdd / ScatterSub ------------------------------------------

struct DeviceScatterUpdate {
  template <class T>
  SYMFLOW_HD T operator()(T, T update) const {
    return update;
  }
};

// For each touched row u of the variable (rows[u]) and column j: the updates
// k = ks[offsets[u]], ..., ks[offsets[u+1]-1] that name it, applied in ascending k,
// the CPU kernel's order (so ScatterUpdate's last duplicate wins and ScatterAdd sums
// in the CPU's order). One thread per (row, column): no two write one element.
template <class T, class Op>
struct ScatterRows {
  T* var;
  const T* updates;
  const std::int64_t* offsets;
  const std::int64_t* ks;
  const std::int64_t* rows;
  std::int64_t row_size;
  SYMFLOW_HD void operator()(std::int64_t e) const {
    const std::int64_t u = e / row_size;
    const std::int64_t j = e % row_size;
    T* cell = var + rows[u] * row_size + j;
    T acc = *cell;
    for (std::int64_t q = offsets[u]; q < offsets[u + 1]; ++q)
      acc = Op{}(acc, updates[ks[q] * row_size + j]);
    *cell = acc;
  }
};

template <class T, class Op>
void scatter_on_device(VariableSlot& slot, const Value& updates, const Dims& index_values,
                       std::int64_t row_size) {
  Value updated = writable_value(slot);
  if (!index_values.empty() && row_size > 0) {
    // The updates grouped by the row they write, each group in ascending k.
    std::vector<std::pair<std::int64_t, std::int64_t>> by_row;  // (row, k)
    by_row.reserve(index_values.size());
    for (std::size_t k = 0; k < index_values.size(); ++k)
      by_row.emplace_back(index_values[k], static_cast<std::int64_t>(k));
    std::sort(by_row.begin(), by_row.end());
    std::vector<std::int64_t> rows, offsets{0}, ks;
    ks.reserve(by_row.size());
    for (std::size_t q = 0; q < by_row.size(); ++q) {
      if (q > 0 && by_row[q].first != by_row[q - 1].first)
        offsets.push_back(static_cast<std::int64_t>(q));
      if (q == 0 || by_row[q].first != by_row[q - 1].first) rows.push_back(by_row[q].first);
      ks.push_back(by_row[q].second);
    }
    offsets.push_back(static_cast<std::int64_t>(by_row.size()));
    Value d_rows = array_kernels::device_int64(rows);
    Value d_offsets = array_kernels::device_int64(offsets);
    Value d_ks = array_kernels::device_int64(ks);
    const auto total = static_cast<std::int64_t>(rows.size()) * row_size;
    thrust::for_each(
        policy(), thrust::counting_iterator<std::int64_t>(0),
        thrust::counting_iterator<std::int64_t>(total),
        ScatterRows<T, Op>{updated.device_data<T>(), updates.device_data<T>(),
                           d_offsets.device_data<std::int64_t>(), d_ks.device_data<std::int64_t>(),
                           d_rows.device_data<std::int64_t>(), row_size});
  }
  slot.value = std::move(updated);
}

template <class Fn, class Op>
void scatter_kernel(KernelContext& ctx) {
  VariableSlot& slot = ctx.ref_input(0);
  const Value& indices = ctx.input(1);
  const Value& updates = ctx.input(2);
  {
    std::lock_guard lock(slot.mutex);
    symflow::detail::require_initialized(ctx, slot);
    // The indices come to the host to be checked before anything is written.
    Dims index_values = array_kernels::host_ints(indices);
    const std::int64_t row_size = symflow::detail::check_scatter(ctx, slot.value, indices.dims(),
                                                                 updates.dims(), index_values);
    visit_dtype(slot.value.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (symflow::detail::is_number_v<T>) {
        if (updates.dtype() != slot.value.dtype())  // what the CPU's data<T>() throws
          throw TypeError("Value holds " + std::string(dtype_name(updates.dtype())) + ", not " +
                          std::string(dtype_name(slot.value.dtype())));
        scatter_on_device<T, Op>(slot, updates, index_values, row_size);
      } else {
        symflow::detail::unsupported_dtype(ctx, slot.value.dtype());
      }
    });
  }
  ctx.forward_ref(0, 0);
}

}  // namespace state_kernels

inline constexpr auto kStateKernels = std::to_array<KernelEntry>({
    {&symflow::detail::kConstOp, state_kernels::const_kernel},
    {&symflow::detail::kPlaceholderOp, symflow::detail::placeholder_kernel},
    {&symflow::detail::kNoOp, symflow::detail::no_op_kernel},
    {&symflow::detail::kSwitchOp, symflow::detail::switch_kernel},
    {&symflow::detail::kRefSwitchOp, symflow::detail::ref_switch_kernel},
    {&symflow::detail::kMergeOp, symflow::detail::merge_kernel},
    {&symflow::detail::kRefMergeOp, symflow::detail::ref_merge_kernel},
    {&symflow::detail::kEnterOp, symflow::detail::pass_on_kernel},
    {&symflow::detail::kRefEnterOp, symflow::detail::pass_on_ref_kernel},
    {&symflow::detail::kExitOp, symflow::detail::pass_on_kernel},
    {&symflow::detail::kRefExitOp, symflow::detail::pass_on_ref_kernel},
    {&symflow::detail::kNextIterationOp, symflow::detail::pass_on_kernel},
    {&symflow::detail::kRefNextIterationOp, symflow::detail::pass_on_ref_kernel},
    {&symflow::detail::kLoopCondOp, symflow::detail::pass_on_kernel},
    {&symflow::detail::kIdentityOp, symflow::detail::identity_kernel},
    {&symflow::detail::kPlaceholderWithDefaultOp, symflow::detail::identity_kernel},
    {&symflow::detail::kStopGradientOp, symflow::detail::identity_kernel},
    {&symflow::detail::kVariableV2Op, symflow::detail::variable_kernel},
    {&symflow::detail::kAssignOp, state_kernels::assign_kernel},
    {&symflow::detail::kVariableOrInitialValueOp, symflow::detail::variable_or_initial_kernel},
    {&symflow::detail::kIsVariableInitializedOp, symflow::detail::is_initialized_kernel},
    {&symflow::detail::kAssignAddOp,
     state_kernels::assign_update_kernel<symflow::detail::AssignAddFn, state_kernels::DeviceAdd>},
    {&symflow::detail::kAssignSubOp,
     state_kernels::assign_update_kernel<symflow::detail::AssignSubFn, state_kernels::DeviceSub>},
    {&symflow::detail::kScatterUpdateOp,
     state_kernels::scatter_kernel<symflow::detail::ScatterUpdateFn,
                                   state_kernels::DeviceScatterUpdate>},
    {&symflow::detail::kScatterAddOp,
     state_kernels::scatter_kernel<symflow::detail::ScatterAddFn, state_kernels::DeviceAdd>},
    {&symflow::detail::kScatterSubOp,
     state_kernels::scatter_kernel<symflow::detail::ScatterSubFn, state_kernels::DeviceSub>},
});

}  // namespace symflow::thrust_backend
