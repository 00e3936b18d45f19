#pragma once
// Every CPU kernel, in one table: the lists of backend/cpu/kernels/ joined. A source
// that includes this compiles every kernel; only backend/cpu/define_backend.hpp does,
// so that a program compiles them once (docs/decisions.md).

#include <algorithm>
#include <array>
#include <cstddef>

#include "symflow/backend/cpu/kernel_table.hpp"
#include "symflow/backend/cpu/kernels/array.hpp"
#include "symflow/backend/cpu/kernels/candidate_sampling.hpp"
#include "symflow/backend/cpu/kernels/collective.hpp"
#include "symflow/backend/cpu/kernels/const.hpp"
#include "symflow/backend/cpu/kernels/control.hpp"
#include "symflow/backend/cpu/kernels/conv.hpp"
#include "symflow/backend/cpu/kernels/data_flow.hpp"
#include "symflow/backend/cpu/kernels/io.hpp"
#include "symflow/backend/cpu/kernels/logging.hpp"
#include "symflow/backend/cpu/kernels/logic.hpp"
#include "symflow/backend/cpu/kernels/math.hpp"
#include "symflow/backend/cpu/kernels/nn.hpp"
#include "symflow/backend/cpu/kernels/parsing.hpp"
#include "symflow/backend/cpu/kernels/random.hpp"
#include "symflow/backend/cpu/kernels/reduction.hpp"
#include "symflow/backend/cpu/kernels/shape.hpp"
#include "symflow/backend/cpu/kernels/sparse.hpp"
#include "symflow/backend/cpu/kernels/stack.hpp"
#include "symflow/backend/cpu/kernels/state.hpp"
#include "symflow/backend/cpu/kernels/string.hpp"
#include "symflow/backend/cpu/kernels/summary.hpp"
#include "symflow/backend/cpu/kernels/tensor_array.hpp"
#include "symflow/backend/cpu/kernels/training.hpp"
#include "symflow/backend/cpu/kernels/transform.hpp"

namespace symflow::detail {

template <std::size_t... N>
consteval auto join_cpu_kernels(const std::array<CpuKernel, N>&... parts) {
  std::array<CpuKernel, (N + ...)> all{};
  std::size_t at = 0;
  ((std::copy(parts.begin(), parts.end(), all.begin() + static_cast<std::ptrdiff_t>(at)), at += N),
   ...);
  return all;
}

inline constexpr auto kCpuKernels = join_cpu_kernels(
    kConstCpuKernels, kControlCpuKernels, kStateCpuKernels, kRandomCpuKernels, kMathCpuKernels,
    kReductionCpuKernels, kLogicCpuKernels, kArrayCpuKernels, kShapeCpuKernels,
    kTransformCpuKernels, kNnCpuKernels, kConvCpuKernels, kTrainingCpuKernels, kStringCpuKernels,
    kIoCpuKernels, kDataFlowCpuKernels, kParsingCpuKernels, kLoggingCpuKernels, kSparseCpuKernels,
    kSummaryCpuKernels, kCandidateSamplingCpuKernels, kStackCpuKernels, kTensorArrayCpuKernels,
    kCollectiveCpuKernels);

// Each op has one kernel here. Ops are told apart by their type names, not their
// addresses: GCC cannot compare addresses in a constant expression under
// -fsanitize=undefined. (That each entry has a kernel, and every op of the registry
// one, is checked by tests/ops/registry_test.cpp: the registry is graph-side, which the
// backend never includes.)
consteval bool cpu_kernels_are_unique() {
  for (std::size_t i = 0; i < kCpuKernels.size(); ++i) {
    if (kCpuKernels[i].op->type.empty()) return false;
    for (std::size_t j = 0; j < i; ++j)
      if (kCpuKernels[j].op->type == kCpuKernels[i].op->type) return false;
  }
  return true;
}
static_assert(cpu_kernels_are_unique(), "symflow: each kCpuKernels entry needs an op of its own");

}  // namespace symflow::detail
