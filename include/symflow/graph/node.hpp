#pragma once
// The storage behind the handles: nodes addressed by strong integer ids.

#include <compare>
#include <cstdint>
#include <string>
#include <vector>

#include "symflow/core/attr_value.hpp"
#include "symflow/ops/defs/op_def.hpp"

namespace symflow {

struct NodeId {
  std::uint32_t value = 0;
  friend auto operator<=>(NodeId, NodeId) = default;
  // Spelled out: nvcc declares the implicit one but never emits it.
  friend bool operator==(NodeId, NodeId) = default;
};

// One output of one node: an edge's source.
struct TensorRef {
  NodeId node;
  int index = 0;
  friend auto operator<=>(TensorRef, TensorRef) = default;
  friend bool operator==(TensorRef, TensorRef) = default;
};

namespace detail {

struct Node {
  std::string name;
  const OpDef* def = nullptr;
  std::vector<TensorRef> inputs;
  std::vector<NodeId> control_inputs;
  AttrMap attrs;
  std::string device;
  std::vector<TensorSpec> outputs;
  // The cond branch the node was built in (GraphState::flow_contexts, from 1); 0: none.
  std::uint32_t context = 0;
};

}  // namespace detail
}  // namespace symflow
