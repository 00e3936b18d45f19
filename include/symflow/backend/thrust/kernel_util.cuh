#pragma once
// What the Thrust kernels share: device values, their pointers, small host views of
// device tensors (shapes, axes), and the kernel table entry type.
//
// A kernel reads its inputs with in<T>(ctx, i) (device pointers), makes its outputs
// with output(ctx, i, dtype, dims) (uninitialised device memory it must fill) or
// ctx.allocate_output (zero-filled), and runs thrust algorithms with `policy()`.
// Inputs always arrive in device memory: the executor copies host values over.

#include <cstdint>
#include <vector>

#include "symflow/backend/backend.hpp"
#include "symflow/backend/fused_program.hpp"
#include "symflow/backend/kernel_context.hpp"
#include "symflow/backend/thrust/device_memory.cuh"
#include "symflow/backend/thrust/system.cuh"
#include "symflow/core/value.hpp"
#include "symflow/ops/defs/op_def.hpp"

namespace symflow::thrust_backend {

// One kernel of the backend: the op it runs (its descriptor, ops/defs/), its function,
// and, for an op the fused kernel (fused.cuh) can run, how it computes a block of
// elements: the very ElementwiseDef the CPU table gives the op (fused.cuh recognises a
// step's op by that pointer). Ops the fused kernel cannot run have none.
struct KernelEntry {
  const OpDef* op = nullptr;
  KernelFn fn = nullptr;
  const ElementwiseDef* elementwise = nullptr;
};

// The execution policy every kernel uses.
inline auto policy() { return thrust::device; }

// An uninitialised device value (callers fill every element).
inline Value empty_device_value(DType dtype, Dims dims) {
  Value shape_only = Value::wrap(dtype, dims, nullptr, nullptr);  // checks dtype and dims
  const std::size_t bytes = shape_only.nbytes();
  std::shared_ptr<void> owner = DeviceMemoryPool::instance().allocate(bytes);
  void* data = owner.get();
  return Value::wrap_device(dtype, std::move(dims), data, std::move(owner));
}

// A zero-filled device value.
inline Value zeroed_device_value(DType dtype, Dims dims) {
  Value v = empty_device_value(dtype, std::move(dims));
  if (v.nbytes() > 0) {
    auto* bytes = static_cast<unsigned char*>(v.device_data_raw());
    thrust::fill_n(policy(), thrust::device_pointer_cast(bytes), v.nbytes(), 0);
  }
  return v;
}

// A host value copied to the device, and back.
inline Value copy_to_device(const Value& host) {
  if (host.is_none()) return {};
  Value v = empty_device_value(host.dtype(), host.dims());
  if (v.nbytes() > 0) {
    const auto* src = static_cast<const unsigned char*>(host.raw_data());
    thrust::copy_n(src, v.nbytes(),
                   thrust::device_pointer_cast(static_cast<unsigned char*>(v.device_data_raw())));
  }
  return v;
}
inline Value copy_to_host(const Value& device) {
  if (device.is_none()) return {};
  Value v(device.dtype(), device.dims());
  if (v.nbytes() > 0) {
    const auto* src = static_cast<const unsigned char*>(device.device_data_raw());
    thrust::copy_n(thrust::device_pointer_cast(src), v.nbytes(),
                   static_cast<unsigned char*>(v.raw_data()));
  }
  return v;
}

// A device copy of a device value (Assign's write into a variable).
inline Value copy_on_device(const Value& device) {
  if (device.is_none()) return {};
  Value v = empty_device_value(device.dtype(), device.dims());
  if (v.nbytes() > 0) {
    const auto* src = static_cast<const unsigned char*>(device.device_data_raw());
    thrust::copy_n(policy(), thrust::device_pointer_cast(src), v.nbytes(),
                   thrust::device_pointer_cast(static_cast<unsigned char*>(v.device_data_raw())));
  }
  return v;
}

// Input i's elements, on the device.
template <class T>
thrust::device_ptr<const T> in(const KernelContext& ctx, std::size_t i) {
  return thrust::device_pointer_cast(ctx.input(i).device_data<T>());
}
template <class T>
const T* in_raw(const KernelContext& ctx, std::size_t i) {
  return ctx.input(i).device_data<T>();
}

// Output i: uninitialised device memory of `dims`, which the kernel fills.
inline Value& output(KernelContext& ctx, std::size_t i, DType dtype, Dims dims) {
  ctx.set_output(i, empty_device_value(dtype, std::move(dims)));
  return ctx.output(i);
}
template <class T>
thrust::device_ptr<T> out(Value& v) {
  return thrust::device_pointer_cast(v.device_data<T>());
}

// The elements of a small tensor (a shape, an axis list) on the host, whatever its
// memory: kernels read such inputs before they launch anything.
template <class T>
std::vector<T> host_vector(const Value& v) {
  if (!v.on_device()) return v.to_vector<T>();
  return copy_to_host(v).to_vector<T>();
}
// The value itself on the host (for ops whose arguments are host-read).
inline Value host_value(const Value& v) { return v.on_device() ? copy_to_host(v) : v; }

}  // namespace symflow::thrust_backend
