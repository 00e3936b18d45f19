#pragma once
// export_meta_graph's and read_meta_graph_file's definitions (train/meta_graph.hpp
// declares them): included by that header in a header-only program, and by
// symflow/define_compiled.hpp alone in a program built with SYMFLOW_COMPILED.

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "symflow/detail/config.hpp"
#include "symflow/io/atomic_file.hpp"
#include "symflow/train/meta_graph.hpp"
#include "symflow/train/meta_graph_json.hpp"

namespace symflow::train {

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
  if (!filename.empty())
    io::write_file_atomically(filename, meta_graph_to_json(m).dump(options.as_text ? 1 : -1));
  return m;
}

// Reads a MetaGraphDef file: NotFoundError when it is missing, DataLossError when it
// is not a MetaGraphDef.
SYMFLOW_INLINE MetaGraphDef read_meta_graph_file(const std::string& filename) {
  std::string text = io::read_file(filename);
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded())
    throw DataLossError(filename +
                        ": not valid JSON; expected a MetaGraphDef written by "
                        "export_meta_graph or Saver::save");
  return meta_graph_from_json(j, filename);
}

}  // namespace symflow::train
