#pragma once
// The GPU backend on Thrust: "/device:GPU:0" of every session in a build that
// defines SYMFLOW_THRUST (runtime/devices.hpp, which reaches it through probe.hpp). Its kernels
// come from the family headers below, each a table of (op type, kernel); an op with no entry has no
// GPU kernel, and placement keeps it on the CPU (or refuses an explicit request).

#include <algorithm>
#include <array>
#include <mutex>
#include <string>
#include <unordered_map>

#include "symflow/backend/backend.hpp"
#include "symflow/backend/thrust/device_memory.cuh"
#include "symflow/backend/thrust/fused.cuh"
#include "symflow/backend/thrust/kernel_util.cuh"
#include "symflow/backend/thrust/kernels_array.cuh"
#include "symflow/backend/thrust/kernels_conv.cuh"
#include "symflow/backend/thrust/kernels_elementwise.cuh"
#include "symflow/backend/thrust/kernels_matmul.cuh"
#include "symflow/backend/thrust/kernels_nn.cuh"
#include "symflow/backend/thrust/kernels_random.cuh"
#include "symflow/backend/thrust/kernels_reduce.cuh"
#include "symflow/backend/thrust/kernels_state.cuh"
#include "symflow/backend/thrust/kernels_training.cuh"
#include "symflow/backend/thrust/probe.hpp"
#include "symflow/backend/thrust/system.cuh"
#include "symflow/ops/registry.hpp"

namespace symflow::thrust_backend {

namespace detail {
template <std::size_t... N>
auto join_kernels(const std::array<KernelEntry, N>&... parts) {
  std::vector<KernelEntry> all;
  (all.insert(all.end(), parts.begin(), parts.end()), ...);
  return all;
}
}  // namespace detail

// Every kernel of the backend, by op type.
inline const std::vector<KernelEntry>& all_kernels() {
  static const std::vector<KernelEntry> all = detail::join_kernels(
      kStateKernels, kArrayKernels, kElementwiseKernels, kReduceKernels, kMatMulKernels, kNnKernels,
      kConvKernels, kTrainingKernels, kRandomKernels);
  return all;
}

class ThrustBackend final : public Backend {
 public:
  ThrustBackend() {
    for (const KernelEntry& e : all_kernels()) {
      const OpDef* def = find_op_def(e.type);
      if (!def) throw InternalError("Thrust kernel for unknown op type " + std::string(e.type));
      if (!by_def_.emplace(def, e.fn).second)
        throw InternalError("Two Thrust kernels for op type " + std::string(e.type));
    }
  }

  std::string_view device_type() const override { return "GPU"; }
  KernelFn kernel(const OpDef& def) const override {
    auto it = by_def_.find(&def);
    return it == by_def_.end() ? nullptr : it->second;
  }
  FusedKernelFn fused_kernel() const override { return &run_fused; }

  MemorySpace memory_space() const override { return MemorySpace::device; }
  Value allocate(DType dtype, Dims dims) const override {
    return zeroed_device_value(dtype, std::move(dims));
  }
  Value to_host(const Value& v) const override { return v.on_device() ? copy_to_host(v) : v; }
  Value from_host(const Value& v) const override { return copy_to_device(v); }

 private:
  std::unordered_map<const OpDef*, KernelFn> by_def_;
};

}  // namespace symflow::thrust_backend
