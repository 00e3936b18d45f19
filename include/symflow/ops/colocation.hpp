#pragma once
// TensorFlow's colocate_with(op) for graph builders: the nodes built inside it join op's
// colocation group (its "_class" attr, or "loc:@<op>"), and get no device of their own.

#include <cstddef>
#include <variant>

#include "symflow/graph/graph.hpp"
#include "symflow/graph/scopes.hpp"

namespace symflow::detail {

// Gives the nodes made since `first` the colocation group of `op`, as building them in
// TensorFlow's colocate_with(op) does.
inline void colocate_nodes_since(const Graph& g, std::size_t first, const Operation& op) {
  auto& nodes = g.state().nodes;
  const AttrMap& attrs = nodes[op.id().value].attrs;
  StringList group{{"loc:@" + op.name()}};
  if (auto it = attrs.find("_class"); it != attrs.end())
    if (const auto* list = std::get_if<StringList>(&it->second)) group = *list;
  for (std::size_t i = first; i < nodes.size(); ++i)
    nodes[i].attrs.insert_or_assign("_class", group);
}

// Runs `build` as inside TensorFlow's colocate_with(op) (no device of its own).
template <class F>
Output colocated_with(const Output& t, F build) {
  Graph g = t.graph();
  device no_device(g, "");
  std::size_t first = g.num_nodes();
  Output out = build();
  colocate_nodes_since(g, first, t.op());
  return out;
}

}  // namespace symflow::detail
