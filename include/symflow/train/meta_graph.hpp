#pragma once
// MetaGraphDef: a graph plus what a program needs to use it without the code that built
// it (TensorFlow's tf.train.export_meta_graph): MetaInfoDef, GraphDef, SaverDef and the
// collections, stored as JSON (docs/formats.md). Importing is in import_meta_graph.hpp,
// which needs Saver; Saver needs this header to write its `.meta` files. Its JSON is in
// train/meta_graph_json.hpp; train/meta_graph_inl.hpp defines what this header declares.

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

#include "symflow/core/errors.hpp"
#include "symflow/detail/config.hpp"
#include "symflow/graph/collections.hpp"
#include "symflow/graph/graph.hpp"
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
SYMFLOW_INLINE MetaGraphDef export_meta_graph(const std::string& filename = {},
                                              const ExportMetaGraphOptions& options = {});

// Reads a MetaGraphDef file: NotFoundError when it is missing, DataLossError when it
// is not a MetaGraphDef.
SYMFLOW_INLINE MetaGraphDef read_meta_graph_file(const std::string& filename);

}  // namespace symflow::train

#if !defined(SYMFLOW_COMPILED)
#include "symflow/train/meta_graph_inl.hpp"
#endif
