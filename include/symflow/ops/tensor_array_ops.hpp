#pragma once
// tf.TensorArray as TensorFlow 1.x builds it, its gradients and registry entries.

#include <array>

#include "symflow/ops/defs/tensor_array.hpp"
#include "symflow/ops/grad_context.hpp"

namespace symflow::detail {

inline constexpr std::array<OpEntry, 0> kTensorArrayOpEntries{};

}  // namespace symflow::detail
