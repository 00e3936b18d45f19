#pragma once
// export_meta_graph's and read_meta_graph_file's definitions (train/meta_graph.hpp
// declares them): included by that header in a header-only program, and by
// symflow/define_compiled.hpp alone in a program built with SYMFLOW_COMPILED.

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "symflow/detail/config.hpp"
#include "symflow/io/atomic_file.hpp"
#include "symflow/io/protobuf_binary.hpp"
#include "symflow/io/tf_protos.hpp"
#include "symflow/train/meta_graph.hpp"
#include "symflow/train/meta_graph_json.hpp"
#include "symflow/train/meta_graph_proto.hpp"
#include "symflow/variables/variable.hpp"

namespace symflow::train {

namespace detail::meta_graph {

// A variables collection as TensorFlow writes it: one serialized VariableDef per
// variable, naming its ref, initializer, snapshot and initial value.
inline BytesList variable_defs(const Graph& graph, const std::string& key) {
  std::set<std::string> trainable;
  for (const Variable& v : variables_in(GraphKeys::TRAINABLE_VARIABLES, graph))
    trainable.insert(v.op().name());
  BytesList out;
  for (const Variable& v : variables_in(key, graph)) {
    io::proto::Message def;
    auto add = [&](std::string_view name, std::string value, bool is_string) {
      io::proto::Field& f = def.fields.emplace_back();
      f.name = std::string(name);
      f.is_string = is_string;
      f.scalar = std::move(value);
    };
    add("variable_name", v.name(), true);
    add("initializer_name", v.initializer().name(), true);
    add("snapshot_name", v.value().name(), true);
    add("initial_value_name", v.initial_value().name(), true);
    add("trainable", trainable.count(v.op().name()) ? "true" : "false", false);
    out.value.push_back(io::proto::encode(def, io::tf_proto::variable_def()));
  }
  return out;
}

}  // namespace detail::meta_graph

// Builds the MetaGraphDef of a graph and, when `filename` is not empty, writes it
// there atomically (tf.train.export_meta_graph).
SYMFLOW_INLINE MetaGraphDef export_meta_graph(const std::string& filename,
                                              const ExportMetaGraphOptions& options) {
  Graph graph = options.graph ? *options.graph : get_default_graph();
  MetaGraphDef m;
  m.graph_def = graph.as_graph_def();
  std::set<std::string> ops;
  for (NodeDef& node : m.graph_def.node) {
    ops.insert(node.op);
    if (options.clear_devices) node.device.clear();
  }
  m.meta_info_def.stripped_op_list.assign(ops.begin(), ops.end());
  m.saver_def = options.saver_def;
  const std::vector<std::string> existing = graph.get_all_collection_keys();
  std::vector<std::string> keys = existing;
  if (options.collection_list) {
    keys.clear();
    for (const CollectionKey& k : *options.collection_list) keys.push_back(k.name);
  }
  for (const std::string& key : keys) {
    // Names of absent collections are skipped, as TensorFlow does.
    if (std::find(existing.begin(), existing.end(), key) == existing.end()) continue;
    m.collection_def[key] = detail::meta_graph::collection_to_def(graph, key);
  }
  if (options.format == FileFormat::tensorflow) {
    // TensorFlow keeps its variables collections as VariableDefs, not node names.
    for (auto& [key, def] : m.collection_def)
      if (detail::meta_graph::holds_variable_defs(key))
        def = detail::meta_graph::variable_defs(graph, key);
    if (!filename.empty())
      io::write_file_atomically(filename, serialize_tf_meta_graph(m, options.as_text));
    return m;
  }
  if (!filename.empty())
    io::write_file_atomically(filename, meta_graph_to_json(m).dump(options.as_text ? 1 : -1));
  return m;
}

// Reads a MetaGraphDef file in any encoding: symflow's JSON, or TensorFlow's protobuf
// binary or text. NotFoundError when it is missing, DataLossError when it is not a
// MetaGraphDef.
SYMFLOW_INLINE MetaGraphDef read_meta_graph_file(const std::string& filename) {
  // TensorFlow's IOError texts: "File does not exist. ..." and "Cannot parse file ...".
  std::error_code ec;
  if (!std::filesystem::exists(filename, ec))
    throw NotFoundError("File does not exist. Received: " + filename + ".");
  std::string bytes = io::read_file(filename);
  try {
    namespace mp = detail::meta_graph_proto;
    if (mp::encoding_of(bytes) != mp::Encoding::json) return parse_tf_meta_graph(bytes, filename);
    nlohmann::json j = nlohmann::json::parse(bytes, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded())
      throw DataLossError(filename +
                          ": not valid JSON; expected a MetaGraphDef written by "
                          "export_meta_graph or Saver::save, or TensorFlow's binary or text "
                          "MetaGraphDef");
    return meta_graph_from_json(j, filename);
  } catch (const DataLossError& e) {
    throw DataLossError("Cannot parse file " + filename + ": " + e.message());
  }
}

}  // namespace symflow::train
