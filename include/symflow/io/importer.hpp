#pragma once
// import_graph_def: adds the nodes of a GraphDef to a graph (tf.import_graph_def).
// Nodes may come in any order; each is created with Graph::create_op under a prefix
// ("import/", made unique like a name scope), so build-time shape inference and the
// graph's control_dependencies() apply as for any op. input_map replaces tensors of
// the GraphDef by tensors of the target graph; return_elements picks what comes back.
//
// Everything that can be checked before the first node is created is checked first
// (unknown ops, missing inputs, cycles, name clashes, unknown input_map keys and
// return elements), so those errors leave the target graph unchanged.
// io/importer_inl.hpp defines what this header declares.

#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "symflow/core/attr_value.hpp"
#include "symflow/core/errors.hpp"
#include "symflow/detail/config.hpp"
#include "symflow/graph/graph.hpp"
#include "symflow/graph/graph_def.hpp"
#include "symflow/graph/operation.hpp"
#include "symflow/graph/scopes.hpp"
#include "symflow/graph/tensor.hpp"

namespace symflow {

using GraphElement = std::variant<Operation, Output>;

struct ImportGraphDefOptions {
  // "x:0" (or "x", meaning "x:0") of the GraphDef -> a tensor of the target graph;
  // "^x" -> an operation (its op) that replaces control inputs on x.
  std::map<std::string, Output> input_map = {};
  // "op" -> its Operation, "op:1" -> that Output (names as in the GraphDef).
  std::vector<std::string> return_elements = {};
  // The prefix, made unique like a name scope ("import_1"); "" keeps names unchanged.
  std::string name = "import";
};

namespace detail {

// What import_graph_def did: the prefix it used ("" or "import_1/") and the elements.
struct ImportResult {
  std::string prefix;
  std::vector<GraphElement> elements;
};

SYMFLOW_INLINE ImportResult import_graph_def_into(Graph& graph, const GraphDef& graph_def,
                                                  const ImportGraphDefOptions& options);

}  // namespace detail

// Adds the nodes of `graph_def` to `graph` and returns options.return_elements.
inline std::vector<GraphElement> import_graph_def(const GraphDef& graph_def,
                                                  const ImportGraphDefOptions& options = {},
                                                  Graph graph = get_default_graph()) {
  return detail::import_graph_def_into(graph, graph_def, options).elements;
}

}  // namespace symflow

#if !defined(SYMFLOW_COMPILED)
#include "symflow/io/importer_inl.hpp"
#endif
