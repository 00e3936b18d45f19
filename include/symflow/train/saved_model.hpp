#pragma once
// SavedModel, TensorFlow 1.x's form (tf.saved_model.loader.load): a folder holding
// saved_model.pb (or saved_model.pbtxt), the variables' checkpoint in
// variables/variables and asset files in assets/. load() imports the MetaGraphDef saved
// with the given tags into a session's graph, restores its variables, feeds the assets'
// paths and runs its init op, and returns the MetaGraphDef, whose signature_def names
// the model's inputs and outputs.

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "symflow/core/errors.hpp"
#include "symflow/io/atomic_file.hpp"
#include "symflow/io/protobuf_binary.hpp"
#include "symflow/io/tf_protos.hpp"
#include "symflow/runtime/session.hpp"
#include "symflow/train/import_meta_graph.hpp"
#include "symflow/train/meta_graph_proto.hpp"

namespace symflow::saved_model {

using train::MetaGraphDef;
using train::SavedModel;
using train::SignatureDef;
using train::TensorInfo;

inline constexpr std::string_view SAVED_MODEL_FILENAME_PB = "saved_model.pb";
inline constexpr std::string_view SAVED_MODEL_FILENAME_PBTXT = "saved_model.pbtxt";
inline constexpr std::string_view VARIABLES_DIRECTORY = "variables";
inline constexpr std::string_view VARIABLES_FILENAME = "variables";
inline constexpr std::string_view ASSETS_DIRECTORY = "assets";

namespace tag_constants {
inline constexpr std::string_view SERVING = "serve";
inline constexpr std::string_view TRAINING = "train";
inline constexpr std::string_view GPU = "gpu";
inline constexpr std::string_view TPU = "tpu";
}  // namespace tag_constants

namespace signature_constants {
inline constexpr std::string_view DEFAULT_SERVING_SIGNATURE_DEF_KEY = "serving_default";
inline constexpr std::string_view PREDICT_METHOD_NAME = "tensorflow/serving/predict";
inline constexpr std::string_view REGRESS_METHOD_NAME = "tensorflow/serving/regress";
inline constexpr std::string_view CLASSIFY_METHOD_NAME = "tensorflow/serving/classify";
}  // namespace signature_constants

// The SavedModel's protobuf file, the text one first as TensorFlow looks for it; empty
// when there is none.
inline std::string saved_model_file(const std::string& export_dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  for (std::string_view name : {SAVED_MODEL_FILENAME_PBTXT, SAVED_MODEL_FILENAME_PB}) {
    fs::path p = fs::path(export_dir) / name;
    if (fs::is_regular_file(p, ec)) return p.string();
  }
  return {};
}

// Whether `export_dir` holds a SavedModel (tf.saved_model.contains_saved_model).
inline bool contains_saved_model(const std::string& export_dir) {
  return !saved_model_file(export_dir).empty();
}

// Reads the SavedModel of `export_dir`: NotFoundError when there is none, DataLossError
// when its file is not a SavedModel.
inline SavedModel read_saved_model(const std::string& export_dir) {
  std::string path = saved_model_file(export_dir);
  if (path.empty())
    throw NotFoundError("SavedModel file does not exist at: " + export_dir + "/{" +
                        std::string(SAVED_MODEL_FILENAME_PBTXT) + "|" +
                        std::string(SAVED_MODEL_FILENAME_PB) + "}");
  return train::parse_saved_model(io::read_file(path), path);
}

// The tag-sets of a SavedModel, each as "tag1,tag2" in the order saved.
inline std::vector<std::string> tag_sets(const SavedModel& model) {
  std::vector<std::string> out;
  for (const MetaGraphDef& m : model.meta_graphs) {
    std::string joined;
    for (const std::string& t : m.meta_info_def.tags) joined += (joined.empty() ? "" : ",") + t;
    out.push_back(joined);
  }
  return out;
}

// The MetaGraphDef saved with exactly these tags (in any order).
inline const MetaGraphDef& meta_graph_for_tags(const SavedModel& model,
                                               const std::vector<std::string>& tags,
                                               const std::string& export_dir = {}) {
  const std::set<std::string> wanted(tags.begin(), tags.end());
  for (const MetaGraphDef& m : model.meta_graphs) {
    const auto& have = m.meta_info_def.tags;
    if (std::set<std::string>(have.begin(), have.end()) == wanted) return m;
  }
  std::string asked, available;
  for (const std::string& t : tags) asked += (asked.empty() ? "'" : ", '") + t + "'";
  for (const std::string& s : tag_sets(model))
    available += (available.empty() ? "'" : ", '") + s + "'";
  throw NotFoundError("MetaGraphDef associated with tags {" + asked +
                      "} could not be found in SavedModel " + export_dir +
                      ", with available tags [" + available +
                      "]. To inspect available tag-sets in the SavedModel, run symflow-run " +
                      (export_dir.empty() ? std::string("DIR") : export_dir) + " --show");
}

namespace detail {

// The asset files of a MetaGraphDef: its asset_file_def, else the AssetFileDefs that
// older exporters kept in the collection "saved_model_assets".
inline std::vector<train::AssetFileDef> asset_files(const MetaGraphDef& m) {
  if (!m.asset_file_def.empty()) return m.asset_file_def;
  std::vector<train::AssetFileDef> out;
  auto it = m.collection_def.find("saved_model_assets");
  if (it == m.collection_def.end()) return out;
  const auto* list = std::get_if<train::AnyList>(&it->second);
  if (!list) return out;
  for (const train::Any& any : list->value) {
    const io::proto::Message def = io::proto::decode(any.value, io::tf_proto::asset_file_def(),
                                                     "collection 'saved_model_assets'");
    train::AssetFileDef asset;
    for (const io::proto::Field& f : def.fields) {
      if (f.name == "filename") asset.filename = f.scalar;
      if (f.name == "tensor_info")
        for (const io::proto::Field& t : f.message->fields)
          if (t.name == "name") asset.tensor_info.name = t.scalar;
    }
    out.push_back(std::move(asset));
  }
  return out;
}

// The op to run after the variables are restored: the init op signature of TF 2.x
// exporters, else the main op, else the legacy init op; empty when there is none.
inline std::string init_op_name(const MetaGraphDef& m) {
  if (auto sig = m.signature_def.find("__saved_model_init_op"); sig != m.signature_def.end())
    if (auto out = sig->second.outputs.find("__saved_model_init_op");
        out != sig->second.outputs.end())
      return out->second.name;
  for (const char* key : {"saved_model_main_op", "legacy_init_op"})
    if (auto it = m.collection_def.find(key); it != m.collection_def.end())
      if (const auto* nodes = std::get_if<train::NodeList>(&it->second);
          nodes && !nodes->value.empty())
        return nodes->value.front();
  return {};
}

// Function-call ops: a graph using them is TensorFlow 2's, whose work is in functions.
inline bool calls_functions(const MetaGraphDef& m) {
  for (const NodeDef& n : m.graph_def.node)
    if (n.op == "StatefulPartitionedCall" || n.op == "PartitionedCall") return true;
  return false;
}

}  // namespace detail

struct LoadOptions {
  // Prefix for the imported names ("scope" gives "scope/x"); empty keeps them.
  std::string import_scope = {};
};

// tf.compat.v1.saved_model.loader.load: imports the MetaGraphDef saved with `tags` into
// the session's graph, restores its variables from variables/variables, runs its init
// op with the asset paths fed, and returns the MetaGraphDef.
inline MetaGraphDef load(Session& sess, const std::vector<std::string>& tags,
                         const std::string& export_dir, const LoadOptions& options = {}) {
  namespace fs = std::filesystem;
  const SavedModel model = read_saved_model(export_dir);
  MetaGraphDef meta_graph = meta_graph_for_tags(model, tags, export_dir);
  const std::string variables =
      (fs::path(export_dir) / VARIABLES_DIRECTORY / VARIABLES_FILENAME).string();
  if (meta_graph.has_object_graph || detail::calls_functions(meta_graph))
    throw UnimplementedError(
        "SavedModel " + export_dir +
        " was saved by TensorFlow 2 (tf.saved_model.save): its graph calls functions "
        "(StatefulPartitionedCall), which symflow does not import. Its variables still read "
        "with train::load_checkpoint(\"" +
        variables +
        "\"); a TensorFlow 1.x SavedModel (SavedModelBuilder) or a frozen "
        "GraphDef of the model loads whole.");

  auto [saver, prefix] = train::detail::meta_graph::import(
      meta_graph, {.import_scope = options.import_scope, .graph = sess.graph()});
  const bool has_variables = saver && (saver->runs_graph_ops() || !saver->var_list().empty());
  if (has_variables) {
    if (!std::filesystem::exists(variables + ".index"))
      throw NotFoundError("SavedModel " + export_dir +
                          " has variables but no checkpoint of them: expected " + variables +
                          ".index");
    saver->restore(sess, variables);
  }

  FeedDict assets;
  for (const train::AssetFileDef& asset : detail::asset_files(meta_graph))
    assets.emplace_back(prefix + asset.tensor_info.name,
                        Value((fs::path(export_dir) / ASSETS_DIRECTORY / asset.filename).string()));
  if (std::string init = detail::init_op_name(meta_graph); !init.empty())
    sess.run({Fetch(prefix + init)}, assets);
  return meta_graph;
}

}  // namespace symflow::saved_model
