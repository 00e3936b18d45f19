#pragma once
// tf.train.import_meta_graph: rebuilds a graph, its collections and its Saver from a
// MetaGraphDef, in a program that never saw the code that built them.

#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "symflow/io/importer.hpp"
#include "symflow/io/protobuf_binary.hpp"
#include "symflow/io/tf_protos.hpp"
#include "symflow/train/meta_graph.hpp"
#include "symflow/train/saver.hpp"

namespace symflow::train {

struct ImportMetaGraphOptions {
  // Prefix for the imported names ("scope" gives "scope/w"), made unique like a name
  // scope; empty keeps the names as they were.
  std::string import_scope = {};
  bool clear_devices = false;
  std::optional<Graph> graph = std::nullopt;  // the default graph when not set
};

namespace detail::meta_graph {

// The variable op a serialized VariableDef names ("w:0" -> the node "w").
inline Operation variable_of(const Graph& graph, const std::string& key, const std::string& bytes,
                             const std::string& prefix) {
  const io::proto::Message def = io::proto::decode(bytes, io::tf_proto::variable_def(),
                                                   "collection '" + key + "': a VariableDef");
  for (const io::proto::Field& f : def.fields) {
    if (f.name != "variable_name") continue;
    const std::string node = prefix + f.scalar.substr(0, f.scalar.find(':'));
    auto id = graph.state().find(node);
    if (!id)
      throw DataLossError("Collection '" + key + "' names the variable '" + f.scalar +
                          "', which is not in the imported graph");
    return Operation(graph.state_ptr(), *id);
  }
  throw DataLossError("Collection '" + key + "' holds a VariableDef without a variable_name");
}

// A Saver of the SAVERS collection (its serialized SaverDef) with its names moved
// under the import scope `prefix`.
inline std::string saver_def_under(const std::string& bytes, const std::string& prefix) {
  if (prefix.empty()) return bytes;
  SaverDef def = parse_saver_def(bytes);
  for (std::string* name : {&def.filename_tensor_name, &def.save_tensor_name, &def.restore_op_name})
    if (!name->empty()) *name = prefix + *name;
  for (auto& [checkpoint_name, node] : def.var_list) node = prefix + node;
  return serialize_saver_def(def);
}

// TensorFlow's import refuses a scope exported with inputs from outside it
// ("$unbound_inputs_x"), which only an input_map could supply.
inline void check_no_unbound_inputs(const MetaGraphDef& meta_graph) {
  auto it = meta_graph.collection_def.find(std::string(kUnboundInputsKey));
  if (it == meta_graph.collection_def.end()) return;
  const auto* names = std::get_if<BytesList>(&it->second);
  if (!names || names->value.empty()) return;
  std::string joined;
  for (const std::string& name : names->value) joined += (joined.empty() ? "" : ",") + name;
  throw ValueError("Graph contains unbound inputs: " + joined +
                   ". Must provide these inputs through input_map.");
}

// Adds the items of one CollectionDef to `graph`, its node names moved under `prefix`.
// TensorFlow's variable collections (VariableDefs) become the variable ops, as
// symflow's own hold them; an any_list has no graph form and is skipped, as TensorFlow
// does.
inline void restore_collection(Graph& graph, const std::string& key, const CollectionDef& def,
                               const std::string& prefix) {
  std::visit(
      [&](const auto& list) {
        using L = std::decay_t<decltype(list)>;
        if constexpr (!std::is_same_v<L, AnyList>) {
          for (const auto& item : list.value) {
            if constexpr (std::is_same_v<L, NodeList>) {
              std::string name = prefix + item;
              // A node list item that names nothing in the graph means the file is broken.
              try {
                if (name.find(':') != std::string::npos) {
                  const Output tensor = graph.get_tensor_by_name(name);
                  // "v:0" of a variable is the variable (add_to_collection(key, v)).
                  if (tensor.index() == 0 && tensor.op().type() == "VariableV2")
                    graph.add_to_collection(key, tensor.op());
                  else
                    graph.add_to_collection(key, tensor);
                } else
                  graph.add_to_collection(key, graph.get_operation_by_name(name));
              } catch (const Error& e) {
                throw DataLossError("Collection '" + key + "' names '" + item +
                                    "', which is not in the imported graph: " + e.message());
              }
            } else if constexpr (std::is_same_v<L, BytesList>) {
              if (holds_variable_defs(key))
                graph.add_to_collection(key, variable_of(graph, key, item, prefix));
              else if (key == GraphKeys::SAVERS)
                graph.add_to_collection(key, saver_def_under(item, prefix));
              else
                graph.add_to_collection(key, item);
            } else if constexpr (std::is_same_v<L, Int64List>) {
              graph.add_to_collection(key, std::int64_t{item});
            } else {
              graph.add_to_collection(key, double{item});
            }
          }
        }
      },
      def);
}

struct Imported {
  std::optional<Saver> saver;
  std::string prefix;  // the import scope as made unique, "" or "scope/"
};

inline Imported import(MetaGraphDef meta_graph, const ImportMetaGraphOptions& options) {
  Graph graph = options.graph ? *options.graph : get_default_graph();
  check_no_unbound_inputs(meta_graph);
  if (options.clear_devices)
    for (NodeDef& node : meta_graph.graph_def.node) node.device.clear();
  auto imported = symflow::detail::import_graph_def_into(graph, meta_graph.graph_def,
                                                         {.name = options.import_scope});
  const std::string& prefix = imported.prefix;
  for (const auto& [key, def] : meta_graph.collection_def)
    restore_collection(graph, key, def, prefix);

  if (meta_graph.saver_def)
    return {Saver::from_saver_def(*meta_graph.saver_def, graph, prefix), prefix};
  std::vector<Variable> vars = variables_in(GraphKeys::GLOBAL_VARIABLES, graph, prefix);
  if (vars.empty()) return {std::nullopt, prefix};
  // Checkpoint names are the names before the import scope.
  Saver::VarMap map;
  for (const Variable& v : vars) map.emplace(v.op().name().substr(prefix.size()), v);
  return {Saver(std::move(map)), prefix};
}

}  // namespace detail::meta_graph

// Imports `meta_graph` into the graph of `options` and returns the Saver it describes:
// the one of its SaverDef, else one over all its global variables, else nullopt when
// it has no variables.
inline std::optional<Saver> import_meta_graph(MetaGraphDef meta_graph,
                                              const ImportMetaGraphOptions& options = {}) {
  return detail::meta_graph::import(std::move(meta_graph), options).saver;
}

// The same from a `.meta` file (NotFoundError when missing, DataLossError when it is
// not a MetaGraphDef).
inline std::optional<Saver> import_meta_graph(const std::string& meta_graph_file,
                                              const ImportMetaGraphOptions& options = {}) {
  return import_meta_graph(read_meta_graph_file(meta_graph_file), options);
}
inline std::optional<Saver> import_meta_graph(const char* meta_graph_file,
                                              const ImportMetaGraphOptions& options = {}) {
  return import_meta_graph(std::string(meta_graph_file), options);
}

}  // namespace symflow::train
