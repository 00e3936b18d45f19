#pragma once
// The backend contract: a backend is one kind of device. It says which kernel runs
// an op type there, and owns that device's memory: allocation and the copies to and
// from the host. The runtime talks to this interface only.

#include <string_view>

#include "symflow/backend/fused_program.hpp"
#include "symflow/core/value.hpp"
#include "symflow/ops/defs/op_def.hpp"

namespace symflow {

class KernelContext;  // backend/kernel_context.hpp
using KernelFn = void (*)(KernelContext&);

class Backend {
 public:
  virtual ~Backend() = default;
  // The device type, as in "/device:CPU:0": "CPU" or "GPU".
  virtual std::string_view device_type() const = 0;
  // The kernel for `def` on this backend, or nullptr when it has none.
  virtual KernelFn kernel(const OpDef& def) const = 0;
  // The kernel that runs a fused elementwise cluster, or nullptr (no fusion here).
  virtual FusedKernelFn fused_kernel() const { return nullptr; }
  // How `def` runs inside a fused cluster here, or nullptr when it cannot.
  virtual const ElementwiseDef* elementwise(const OpDef&) const { return nullptr; }

  // The kernel that runs `conv` (Conv2D, DepthwiseConv2dNative) with the batch norm and
  // activation after it folded in (backend/conv_epilogue.hpp), or nullptr when it has none.
  virtual KernelFn conv_epilogue_kernel(const OpDef& /*conv*/) const { return nullptr; }
  // Where this backend's kernels read and write their tensors.
  virtual MemorySpace memory_space() const { return MemorySpace::host; }
  // A zero-filled value in this backend's memory.
  virtual Value allocate(DType dtype, Dims dims) const { return Value(dtype, std::move(dims)); }
  // The same for a kernel that writes every element: the contents may be left unset.
  virtual Value allocate_for_overwrite(DType dtype, Dims dims) const {
    return allocate(dtype, std::move(dims));
  }
  // `v` (in this backend's memory) copied to the host, and a host value copied here.
  // A host backend returns the value itself.
  virtual Value to_host(const Value& v) const { return v; }
  virtual Value from_host(const Value& v) const { return v; }
};

}  // namespace symflow
