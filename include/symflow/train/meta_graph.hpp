#pragma once
// MetaGraphDef: a graph plus what a program needs to use it without the code that built
// it (TensorFlow's tf.train.export_meta_graph): MetaInfoDef, GraphDef, SaverDef and the
// collections, stored as JSON (docs/formats.md). Importing is in import_meta_graph.hpp,
// which needs Saver; Saver needs this header to write its `.meta` files.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "symflow/core/errors.hpp"
#include "symflow/graph/collections.hpp"
#include "symflow/graph/graph.hpp"
#include "symflow/io/atomic_file.hpp"
#include "symflow/io/graph_def_json.hpp"
#include "symflow/version.hpp"

namespace symflow::train {

struct MetaInfoDef {
  std::string meta_graph_version;
  std::vector<std::string> tags;
  // The op types the graph uses, sorted: a reader can check it knows them all first.
  std::vector<std::string> stripped_op_list;
  std::string symflow_version = symflow::version();
  friend bool operator==(const MetaInfoDef&, const MetaInfoDef&) = default;
};

// How to rebuild the Saver of a graph. TensorFlow names save and restore ops here; a
// symflow Saver reads and writes the session's variables directly (see
// docs/decisions.md), so it records its variables instead: checkpoint name -> node.
struct SaverDef {
  std::map<std::string, std::string> var_list;
  int max_to_keep = 5;
  double keep_checkpoint_every_n_hours = 10000.0;
  bool sharded = false;
  int version = 2;  // TensorFlow's SaverDef.V2 file layout: .index + .data-NNNNN-of-NNNNN
  friend bool operator==(const SaverDef&, const SaverDef&) = default;
};

// The four kinds of CollectionDef. A node list names operations ("train") and tensors
// ("logits:0"); bytes, int64 and float lists hold plain values.
struct NodeList {
  std::vector<std::string> value;
  friend bool operator==(const NodeList&, const NodeList&) = default;
};
struct BytesList {
  std::vector<std::string> value;
  friend bool operator==(const BytesList&, const BytesList&) = default;
};
struct Int64List {
  std::vector<std::int64_t> value;
  friend bool operator==(const Int64List&, const Int64List&) = default;
};
struct FloatList {
  std::vector<double> value;
  friend bool operator==(const FloatList&, const FloatList&) = default;
};
using CollectionDef = std::variant<NodeList, BytesList, Int64List, FloatList>;

struct MetaGraphDef {
  MetaInfoDef meta_info_def;
  GraphDef graph_def;
  std::optional<SaverDef> saver_def;
  std::map<std::string, CollectionDef> collection_def;
};

inline constexpr std::string_view kMetaGraphFormat = "symflow.meta_graph";
inline constexpr int kMetaGraphFormatVersion = 1;

namespace detail::meta_graph {

// Non-finite doubles have no JSON spelling: they are written as strings.
inline nlohmann::json number_to_json(double x) {
  if (std::isnan(x)) return "NaN";
  if (std::isinf(x)) return x > 0 ? "Infinity" : "-Infinity";
  return x;
}
inline double number_from_json(const nlohmann::json& j) {
  if (j.is_string()) {
    const auto& s = j.get_ref<const std::string&>();
    if (s == "NaN") return std::nan("");
    if (s == "Infinity") return HUGE_VAL;
    if (s == "-Infinity") return -HUGE_VAL;
  }
  return j.get<double>();  // throws a type_error for anything else
}

template <class List>
nlohmann::json list_to_json(const List& list) {
  nlohmann::json values = nlohmann::json::array();
  for (const auto& v : list.value) {
    if constexpr (std::is_same_v<List, FloatList>)
      values.push_back(number_to_json(v));
    else
      values.push_back(v);
  }
  return {{"value", values}};
}

// The collection `key` of `graph` as a CollectionDef; a collection mixing graph
// elements with plain values, or strings with numbers, has no CollectionDef form.
inline CollectionDef collection_to_def(const Graph& graph, const std::string& key) {
  std::optional<CollectionDef> def;
  auto mixed = [&] {
    return ValueError("Collection '" + key +
                      "' cannot be exported: it mixes kinds of items. A collection holds "
                      "operations and tensors, or strings, or integers, or floats.");
  };
  for (const CollectionValue& item : graph.get_collection(key)) {
    std::visit(
        [&](const auto& x) {
          using X = std::decay_t<decltype(x)>;
          using List = std::conditional_t<
              std::is_same_v<X, Operation> || std::is_same_v<X, Output>, NodeList,
              std::conditional_t<
                  std::is_same_v<X, std::string>, BytesList,
                  std::conditional_t<std::is_same_v<X, std::int64_t>, Int64List, FloatList>>>;
          if (!def) def = List{};
          auto* list = std::get_if<List>(&*def);
          if (!list) throw mixed();
          if constexpr (std::is_same_v<X, Operation>)
            list->value.push_back(x.name());
          else if constexpr (std::is_same_v<X, Output>)
            list->value.push_back(x.name());
          else
            list->value.push_back(x);
        },
        item);
  }
  return def ? *def : CollectionDef{NodeList{}};
}

}  // namespace detail::meta_graph

inline nlohmann::json meta_graph_to_json(const MetaGraphDef& m) {
  using namespace detail::meta_graph;
  nlohmann::json j;
  j["format"] = kMetaGraphFormat;
  j["version"] = kMetaGraphFormatVersion;
  j["meta_info_def"] = {{"meta_graph_version", m.meta_info_def.meta_graph_version},
                        {"tags", m.meta_info_def.tags},
                        {"stripped_op_list", m.meta_info_def.stripped_op_list},
                        {"symflow_version", m.meta_info_def.symflow_version}};
  j["graph_def"] = io::graph_def_to_json(m.graph_def);
  if (m.saver_def) {
    const SaverDef& s = *m.saver_def;
    j["saver_def"] = {
        {"var_list", s.var_list},
        {"max_to_keep", s.max_to_keep},
        {"keep_checkpoint_every_n_hours", number_to_json(s.keep_checkpoint_every_n_hours)},
        {"sharded", s.sharded},
        {"version", s.version}};
  }
  nlohmann::json collections = nlohmann::json::object();
  for (const auto& [key, def] : m.collection_def) {
    collections[key] = std::visit(
        [](const auto& list) -> nlohmann::json {
          using L = std::decay_t<decltype(list)>;
          std::string_view kind = std::is_same_v<L, NodeList>    ? "node_list"
                                  : std::is_same_v<L, BytesList> ? "bytes_list"
                                  : std::is_same_v<L, Int64List> ? "int64_list"
                                                                 : "float_list";
          return {{std::string(kind), list_to_json(list)}};
        },
        def);
  }
  j["collection_def"] = collections;
  return j;
}

// Parses a MetaGraphDef; anything that is not one is a DataLossError naming `source`.
inline MetaGraphDef meta_graph_from_json(const nlohmann::json& j, std::string_view source) {
  using namespace detail::meta_graph;
  std::string where(source);
  std::string field;
  try {
    if (!j.is_object())
      throw DataLossError(where + ": expected a JSON object holding a MetaGraphDef");
    field = "format";
    if (j.at("format").get<std::string>() != kMetaGraphFormat)
      throw DataLossError(where + ": \"format\" is " + j.at("format").dump() + ", expected \"" +
                          std::string(kMetaGraphFormat) + "\"");
    field = "version";
    if (int v = j.at("version").get<int>(); v != kMetaGraphFormatVersion)
      throw DataLossError(where + ": MetaGraph format version " + std::to_string(v) +
                          " is not supported; this symflow reads version " +
                          std::to_string(kMetaGraphFormatVersion));
    MetaGraphDef m;
    field = "meta_info_def";
    if (j.contains("meta_info_def")) {
      const auto& info = j.at("meta_info_def");
      m.meta_info_def.meta_graph_version = info.value("meta_graph_version", std::string());
      m.meta_info_def.tags = info.value("tags", std::vector<std::string>{});
      m.meta_info_def.stripped_op_list = info.value("stripped_op_list", std::vector<std::string>{});
      m.meta_info_def.symflow_version = info.value("symflow_version", std::string());
    }
    field = "graph_def";
    m.graph_def = io::graph_def_from_json(j.at("graph_def"));
    if (j.contains("saver_def")) {
      field = "saver_def";
      const auto& s = j.at("saver_def");
      SaverDef def;
      def.var_list = s.at("var_list").get<std::map<std::string, std::string>>();
      def.max_to_keep = s.value("max_to_keep", 5);
      def.keep_checkpoint_every_n_hours =
          s.contains("keep_checkpoint_every_n_hours")
              ? number_from_json(s.at("keep_checkpoint_every_n_hours"))
              : 10000.0;
      def.sharded = s.value("sharded", false);
      def.version = s.value("version", 2);
      m.saver_def = std::move(def);
    }
    if (j.contains("collection_def")) {
      for (const auto& [key, value] : j.at("collection_def").items()) {
        field = "collection_def." + key;
        if (!value.is_object() || value.size() != 1)
          throw DataLossError(where + ": collection '" + key +
                              "' must hold exactly one of node_list, bytes_list, int64_list, "
                              "float_list");
        auto only = value.begin();
        const std::string& kind = only.key();
        const nlohmann::json& list = only.value();
        const auto& items = list.at("value");
        if (kind == "node_list") {
          m.collection_def[key] = NodeList{items.get<std::vector<std::string>>()};
        } else if (kind == "bytes_list") {
          m.collection_def[key] = BytesList{items.get<std::vector<std::string>>()};
        } else if (kind == "int64_list") {
          m.collection_def[key] = Int64List{items.get<std::vector<std::int64_t>>()};
        } else if (kind == "float_list") {
          FloatList floats;
          for (const auto& x : items) floats.value.push_back(number_from_json(x));
          m.collection_def[key] = std::move(floats);
        } else {
          throw DataLossError(where + ": collection '" + key + "' has the unknown kind '" + kind +
                              "'; expected node_list, bytes_list, int64_list or float_list");
        }
      }
    }
    return m;
  } catch (const nlohmann::json::exception& e) {
    throw DataLossError(where + ": malformed MetaGraphDef at \"" + field + "\": " + e.what());
  }
}

struct ExportMetaGraphOptions {
  // The collections to export, by name; nullopt exports them all.
  std::optional<std::vector<CollectionKey>> collection_list = std::nullopt;
  std::optional<Graph> graph = std::nullopt;  // the default graph when not set
  std::optional<SaverDef> saver_def = std::nullopt;
  bool clear_devices = false;
  bool as_text = false;  // indented JSON instead of one line
};

// Builds the MetaGraphDef of a graph and, when `filename` is not empty, writes it
// there atomically (tf.train.export_meta_graph).
inline MetaGraphDef export_meta_graph(const std::string& filename = {},
                                      const ExportMetaGraphOptions& options = {}) {
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
inline MetaGraphDef read_meta_graph_file(const std::string& filename) {
  std::string text = io::read_file(filename);
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded())
    throw DataLossError(filename +
                        ": not valid JSON; expected a MetaGraphDef written by "
                        "export_meta_graph or Saver::save");
  return meta_graph_from_json(j, filename);
}

}  // namespace symflow::train
