#pragma once
// The op vocabulary: every op type symflow knows, found by its GraphDef name, each
// with its one entry: the OpDef (shape function, kernels) and its gradient.
//
// Each area of ops lists its entries beside its gradients, in the <area>_grad.hpp that
// pairs with its <area>_ops.hpp (math_grad.hpp, nn_grad.hpp, ...); this header joins the
// lists and checks them.

#include <algorithm>
#include <array>
#include <string_view>

#include "symflow/ops/array_grad.hpp"
#include "symflow/ops/candidate_sampling_ops.hpp"
#include "symflow/ops/collective_grad.hpp"
#include "symflow/ops/const_op.hpp"
#include "symflow/ops/control_grad.hpp"
#include "symflow/ops/conv_grad.hpp"
#include "symflow/ops/data_flow_ops.hpp"
#include "symflow/ops/grad_context.hpp"
#include "symflow/ops/io_ops.hpp"
#include "symflow/ops/logging_ops.hpp"
#include "symflow/ops/logic_grad.hpp"
#include "symflow/ops/math_grad.hpp"
#include "symflow/ops/nn_grad.hpp"
#include "symflow/ops/parsing_ops.hpp"
#include "symflow/ops/random_ops.hpp"
#include "symflow/ops/reduction_grad.hpp"
#include "symflow/ops/shape_grad.hpp"
#include "symflow/ops/sparse_ops.hpp"
#include "symflow/ops/stack_ops.hpp"
#include "symflow/ops/state_ops.hpp"
#include "symflow/ops/string_ops.hpp"
#include "symflow/ops/summary_ops.hpp"
#include "symflow/ops/tensor_array_ops.hpp"
#include "symflow/ops/training_ops.hpp"
#include "symflow/ops/transform_grad.hpp"

namespace symflow {

namespace detail {

// Sources, state and randomness: nothing flows back through them.
inline constexpr auto kCoreOpEntries = std::to_array<OpEntry>({
    {&kConstOp, not_differentiable},
    {&kPlaceholderOp, not_differentiable},
    {&kVariableV2Op, nullptr},
    {&kAssignOp, nullptr},
    {&kAssignAddOp, nullptr},
    {&kAssignSubOp, nullptr},
    {&kScatterUpdateOp, nullptr},
    {&kScatterAddOp, nullptr},
    {&kScatterSubOp, nullptr},
    {&kIsVariableInitializedOp, not_differentiable},
    {&kVariableOrInitialValueOp, nullptr},
    {&kRandomStandardNormalOp, not_differentiable},
    {&kRandomUniformOp, not_differentiable},
    {&kTruncatedNormalOp, not_differentiable},
    {&kRandomUniformIntOp, not_differentiable},
    {&kRandomShuffleOp, not_differentiable},
});

template <std::size_t... N>
consteval auto join_entries(const std::array<OpEntry, N>&... parts) {
  std::array<OpEntry, (N + ...)> all{};
  std::size_t at = 0;
  ((std::copy(parts.begin(), parts.end(), all.begin() + static_cast<std::ptrdiff_t>(at)), at += N),
   ...);
  return all;
}

}  // namespace detail

// Every registered op. The size is deduced, and the static_assert below checks the
// entries whenever this header compiles.
inline constexpr auto kAllOps = detail::join_entries(
    detail::kCoreOpEntries, detail::kControlOpEntries, detail::kArrayOpEntries,
    detail::kShapeOpEntries, detail::kMathOpEntries, detail::kReductionOpEntries,
    detail::kLogicOpEntries, detail::kTransformOpEntries, detail::kNnOpEntries,
    detail::kConvOpEntries, detail::kTrainingOpEntries, detail::kStringOpEntries,
    detail::kIoOpEntries, detail::kDataFlowOpEntries, detail::kParsingOpEntries,
    detail::kLoggingOpEntries, detail::kSparseOpEntries, detail::kSummaryOpEntries,
    detail::kCandidateSamplingOpEntries, detail::kStackOpEntries, detail::kTensorArrayOpEntries,
    detail::kCollectiveOpEntries);

namespace detail {
// Every entry's op has a type, and no two share one. (That each entry has an op, a
// shape function and a CPU kernel is checked by tests/ops/registry_test.cpp: GCC
// cannot compare an address with nullptr in a constant expression under
// -fsanitize=undefined; reading a null entry's type is a compile error anyway.)
consteval bool op_types_are_unique() {
  for (std::size_t i = 0; i < kAllOps.size(); ++i) {
    if (kAllOps[i].def->type.empty()) return false;
    for (std::size_t j = 0; j < i; ++j)
      if (kAllOps[j].def->type == kAllOps[i].def->type) return false;
  }
  return true;
}
// (A source built with SYMFLOW_COMPILED sees the OpDefs declared only; the library's
// source checks them.)
#if !defined(SYMFLOW_COMPILED) || defined(SYMFLOW_DEFINING_COMPILED)
static_assert(op_types_are_unique(), "symflow: each kAllOps entry needs its own, non-empty type");
#endif
}  // namespace detail

// The entry registered under `type`, or nullptr.
constexpr const OpEntry* find_op_entry(std::string_view type) {
  for (const OpEntry& entry : kAllOps)
    if (entry.def->type == type) return &entry;
  return nullptr;
}

// The op registered under `type`, or nullptr.
// (Its own loop: comparing find_op_entry's pointer with nullptr is not a constant
// expression under -fsanitize=undefined.)
constexpr const OpDef* find_op_def(std::string_view type) {
  for (const OpEntry& entry : kAllOps)
    if (entry.def->type == type) return entry.def;
  return nullptr;
}

}  // namespace symflow
