#pragma once
// The MetaGraphDef's parts as plain data (TensorFlow's meta_graph.proto, saver.proto):
// what train/meta_graph.hpp exports and imports, and what its JSON
// (train/meta_graph_json.hpp) and protobuf (train/meta_graph_proto.hpp) forms hold.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "symflow/core/dtype.hpp"
#include "symflow/core/shape.hpp"
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
  // Set in files TensorFlow wrote ("1.14.0"); empty in symflow's own.
  std::string tensorflow_version;
  std::string tensorflow_git_version;
  friend bool operator==(const MetaInfoDef&, const MetaInfoDef&) = default;
};

// How to rebuild the Saver of a graph. TensorFlow names save and restore ops here; a
// symflow Saver reads and writes the session's variables directly (see
// docs/decisions.md), so it records its variables instead: checkpoint name -> node.
// A SaverDef TensorFlow wrote has the op names and no var_list.
struct SaverDef {
  std::map<std::string, std::string> var_list;
  // TensorFlow's Saver subgraph: the string tensor fed the checkpoint prefix
  // ("save/Const:0"), the tensor whose run saves ("save/control_dependency:0") and
  // the op whose run restores ("save/restore_all").
  std::string filename_tensor_name;
  std::string save_tensor_name;
  std::string restore_op_name;
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
// google.protobuf.Any: a serialized message and its type ("type.googleapis.com/
// tensorflow.AssetFileDef"), as TensorFlow keeps some collections.
struct Any {
  std::string type_url;
  std::string value;
  friend bool operator==(const Any&, const Any&) = default;
};
struct AnyList {
  std::vector<Any> value;
  friend bool operator==(const AnyList&, const AnyList&) = default;
};
using CollectionDef = std::variant<NodeList, BytesList, Int64List, FloatList, AnyList>;

// A tensor a signature names, with what the exporter knew of it. A TensorFlow dtype
// symflow lacks reads as DType::invalid; `is_ref` is set for TensorFlow's _REF dtypes.
struct TensorInfo {
  std::string name;  // "x:0"
  DType dtype = DType::invalid;
  bool is_ref = false;
  Shape tensor_shape = Shape::unknown();
  friend bool operator==(const TensorInfo&, const TensorInfo&) = default;
};

// A named entry point of a model (SavedModel's signatures): its inputs and outputs by
// key, and the kind of computation ("tensorflow/serving/predict").
struct SignatureDef {
  std::map<std::string, TensorInfo> inputs;
  std::map<std::string, TensorInfo> outputs;
  std::string method_name;
  friend bool operator==(const SignatureDef&, const SignatureDef&) = default;
};

// An asset file of a SavedModel and the string tensor to feed its path to.
struct AssetFileDef {
  TensorInfo tensor_info;
  std::string filename;
  friend bool operator==(const AssetFileDef&, const AssetFileDef&) = default;
};

struct MetaGraphDef {
  MetaInfoDef meta_info_def;
  GraphDef graph_def;
  std::optional<SaverDef> saver_def;
  std::map<std::string, CollectionDef> collection_def;
  std::map<std::string, SignatureDef> signature_def;
  std::vector<AssetFileDef> asset_file_def;
  // A TensorFlow 2 object graph is present: the graph's work is in functions, and
  // graph_def is left empty (train/meta_graph_proto.hpp).
  bool has_object_graph = false;
};

inline constexpr std::string_view kMetaGraphFormat = "symflow.meta_graph";
inline constexpr int kMetaGraphFormatVersion = 1;

// Which files export_meta_graph and Saver write: symflow's own (a JSON MetaGraphDef, a
// JSON-indexed checkpoint; the default, docs/formats.md says why) or TensorFlow's (a
// protobuf MetaGraphDef and a V2 checkpoint, which TensorFlow's import_meta_graph,
// Saver.restore and load_checkpoint read). symflow reads both.
enum class FileFormat { symflow, tensorflow };

namespace detail::meta_graph {
// A scoped export marks an input from outside the scope with this prefix and lists
// such inputs in this collection (TensorFlow's names).
inline constexpr std::string_view kUnboundInputPrefix = "$unbound_inputs_";
inline constexpr std::string_view kUnboundInputsKey = "unbound_inputs";
// The collections whose items TensorFlow writes as serialized VariableDefs.
inline bool holds_variable_defs(std::string_view key) {
  for (std::string_view k :
       {GraphKeys::GLOBAL_VARIABLES, GraphKeys::LOCAL_VARIABLES, GraphKeys::MODEL_VARIABLES,
        GraphKeys::TRAINABLE_VARIABLES, GraphKeys::MOVING_AVERAGE_VARIABLES,
        std::string_view("metric_variables")})
    if (k == key) return true;
  return false;
}
}  // namespace detail::meta_graph

struct ExportMetaGraphOptions {
  // The collections to export, by name; nullopt exports them all.
  std::optional<std::vector<CollectionKey>> collection_list = std::nullopt;
  std::optional<Graph> graph = std::nullopt;  // the default graph when not set
  std::optional<SaverDef> saver_def = std::nullopt;
  // Export only the nodes whose names start with this scope ("s" keeps "s/x", and, as
  // TensorFlow compares plain prefixes, "save/x" too), with the leading "s/" removed
  // from node names, inputs, colocations and collection items. An input from outside
  // the scope is written "$unbound_inputs_<name>" and listed in the "unbound_inputs"
  // collection; collection items outside the scope are left out.
  std::string export_scope = {};
  bool clear_devices = false;
  // Indented JSON instead of one line; for FileFormat::tensorflow, protobuf's text
  // format instead of its binary encoding.
  bool as_text = false;
  FileFormat format = FileFormat::symflow;
};

}  // namespace symflow::train
