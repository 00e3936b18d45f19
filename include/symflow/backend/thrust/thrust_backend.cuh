#pragma once
// The GPU backend on Thrust: "/device:GPU:0" of every session in a build that
// defines SYMFLOW_THRUST (the runtime reaches it through probe.hpp). Its kernels come
// from the family headers below, each a table of (op descriptor, kernel, elementwise
// def); an op with no entry has no GPU kernel, and placement keeps it on the CPU (or
// refuses an explicit request). An entry's elementwise def lets the fusion planner put
// the op in a cluster that fused.cuh runs.

#include <algorithm>
#include <array>
#include <cstddef>
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

namespace symflow::thrust_backend {

namespace detail {
template <std::size_t... N>
constexpr auto join_kernels(const std::array<KernelEntry, N>&... parts) {
  std::array<KernelEntry, (N + ...)> all{};
  std::size_t i = 0;
  ((std::copy(parts.begin(), parts.end(), all.begin() + static_cast<std::ptrdiff_t>(i)),
    i += parts.size()),
   ...);
  return all;
}

// Whether the table gives each op of the fused kernel's list (fused.cuh) its
// ElementwiseDef exactly once, and no other op one: then every step of a cluster the
// planner builds from these defs has a device op code, and no fusible op is left out.
template <std::size_t N>
constexpr bool fused_ops_covered(const std::array<KernelEntry, N>& kernels) {
  std::array<int, fused_detail::num_fused_ops()> given{};
  for (const KernelEntry& e : kernels) {
    if (!e.elementwise) continue;
    fused_detail::OpInfo info{};
    if (!fused_detail::op_info(e.elementwise, info) || info.arity != e.elementwise->arity)
      return false;
    ++given[static_cast<std::size_t>(info.code)];
  }
  for (int n : given)
    if (n != 1) return false;
  return true;
}
}  // namespace detail

// Every kernel of the backend.
inline constexpr auto kAllKernels = detail::join_kernels(
    kStateKernels, kArrayKernels, kElementwiseKernels, kReduceKernels, kMatMulKernels, kNnKernels,
    kConvKernels, kTrainingKernels, kRandomKernels);

// Checked by the compiler, or, where it cannot compare addresses in a constant expression
// (g++ with -fsanitize=undefined), when a backend is made.
#if !defined(SYMFLOW_NO_CONSTEXPR_ADDRESS_CHECKS)
static_assert(detail::fused_ops_covered(kAllKernels),
              "each op of fused.cuh's list needs exactly one kernel entry with its "
              "elementwise_of<...>(), and no other entry may have one");
#endif

class ThrustBackend final : public Backend {
 public:
  ThrustBackend() {
#if defined(SYMFLOW_NO_CONSTEXPR_ADDRESS_CHECKS)
    if (!detail::fused_ops_covered(kAllKernels))
      throw InternalError(
          "each op of fused.cuh's list needs exactly one Thrust kernel entry "
          "with its elementwise_of<...>(), and no other entry may have one");
#endif
    for (const KernelEntry& e : kAllKernels) {
      if (!e.op || !e.fn) throw InternalError("Thrust kernel entry without an op or a kernel");
      if (!by_def_.emplace(e.op, &e).second)
        throw InternalError("Two Thrust kernels for op type " + std::string(e.op->type));
    }
  }

  std::string_view device_type() const override { return "GPU"; }
  KernelFn kernel(const OpDef& def) const override {
    const KernelEntry* e = entry(def);
    return e ? e->fn : nullptr;
  }
  FusedKernelFn fused_kernel() const override { return &run_fused; }
  const ElementwiseDef* elementwise(const OpDef& def) const override {
    const KernelEntry* e = entry(def);
    return e ? e->elementwise : nullptr;
  }

  MemorySpace memory_space() const override { return MemorySpace::device; }
  Value allocate(DType dtype, Dims dims) const override {
    return zeroed_device_value(dtype, std::move(dims));
  }
  Value to_host(const Value& v) const override { return v.on_device() ? copy_to_host(v) : v; }
  Value from_host(const Value& v) const override { return copy_to_device(v); }

 private:
  const KernelEntry* entry(const OpDef& def) const {
    auto it = by_def_.find(&def);
    return it == by_def_.end() ? nullptr : it->second;
  }

  // Entries of kAllKernels.
  std::unordered_map<const OpDef*, const KernelEntry*> by_def_;
};

}  // namespace symflow::thrust_backend
