#pragma once
// The op vocabulary: every op type symflow knows, found by its GraphDef name.

#include <array>
#include <string_view>

#include "symflow/ops/array_ops.hpp"
#include "symflow/ops/const_op.hpp"
#include "symflow/ops/control_ops.hpp"
#include "symflow/ops/math_ops.hpp"
#include "symflow/ops/nn_ops.hpp"
#include "symflow/ops/random_ops.hpp"
#include "symflow/ops/state_ops.hpp"

namespace symflow {

// Every registered op. The size is deduced (no entry can be left a nullptr), and the
// static_assert below checks the entries whenever this header compiles.
inline constexpr auto kAllOps = std::to_array<const OpDef*>({
    &detail::kConstOp,
    &detail::kPlaceholderOp,
    &detail::kIdentityOp,
    &detail::kReshapeOp,
    &detail::kFillOp,
    &detail::kNoOp,
    &detail::kAddOp,
    &detail::kSubOp,
    &detail::kMulOp,
    &detail::kRealDivOp,
    &detail::kDivOp,
    &detail::kPowOp,
    &detail::kMaximumOp,
    &detail::kMinimumOp,
    &detail::kNegOp,
    &detail::kSquareOp,
    &detail::kAbsOp,
    &detail::kSqrtOp,
    &detail::kExpOp,
    &detail::kLogOp,
    &detail::kMatMulOp,
    &detail::kSumOp,
    &detail::kMeanOp,
    &detail::kMaxOp,
    &detail::kMinOp,
    &detail::kCastOp,
    &detail::kSoftmaxOp,
    &detail::kVariableV2Op,
    &detail::kAssignOp,
    &detail::kAssignAddOp,
    &detail::kAssignSubOp,
    &detail::kScatterUpdateOp,
    &detail::kScatterAddOp,
    &detail::kScatterSubOp,
    &detail::kIsVariableInitializedOp,
    &detail::kVariableOrInitialValueOp,
    &detail::kRandomStandardNormalOp,
    &detail::kRandomUniformOp,
    &detail::kTruncatedNormalOp,
    &detail::kRandomUniformIntOp,
    &detail::kRandomShuffleOp,
});

namespace detail {
// Every entry has a type and no two share one. (That each has a shape function and a CPU
// kernel is checked by tests/ops/registry_test.cpp: GCC cannot compare a function's
// address with nullptr in a constant expression under -fsanitize=undefined.)
consteval bool op_types_are_unique() {
  for (std::size_t i = 0; i < kAllOps.size(); ++i) {
    if (kAllOps[i]->type.empty()) return false;
    for (std::size_t j = 0; j < i; ++j)
      if (kAllOps[j]->type == kAllOps[i]->type) return false;
  }
  return true;
}
static_assert(op_types_are_unique(), "symflow: each kAllOps entry needs its own, non-empty type");
}  // namespace detail

// The op registered under `type`, or nullptr.
constexpr const OpDef* find_op_def(std::string_view type) {
  for (const OpDef* def : kAllOps)
    if (def->type == type) return def;
  return nullptr;
}

}  // namespace symflow
