#pragma once
// tf.GraphKeys and the default-graph collection functions.

#include <algorithm>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "symflow/graph/graph.hpp"

namespace symflow {

// The standard collection names: every public name of TensorFlow 1.x's tf.GraphKeys.
struct GraphKeys {
  // Variables.
  static constexpr std::string_view GLOBAL_VARIABLES = "variables";
  static constexpr std::string_view VARIABLES = "variables";  // TF's older name of the above
  static constexpr std::string_view LOCAL_VARIABLES = "local_variables";
  static constexpr std::string_view MODEL_VARIABLES = "model_variables";
  static constexpr std::string_view METRIC_VARIABLES = "metric_variables";
  static constexpr std::string_view TRAINABLE_VARIABLES = "trainable_variables";
  static constexpr std::string_view TRAINABLE_RESOURCE_VARIABLES = "trainable_resource_variables";
  static constexpr std::string_view MOVING_AVERAGE_VARIABLES = "moving_average_variables";
  static constexpr std::string_view CONCATENATED_VARIABLES = "concatenated_variables";
  static constexpr std::string_view GLOBAL_STEP = "global_step";
  static constexpr std::string_view EVAL_STEP = "eval_step";
  // Resources, savers and other session state.
  static constexpr std::string_view RESOURCES = "resources";
  static constexpr std::string_view LOCAL_RESOURCES = "local_resources";
  static constexpr std::string_view SAVEABLE_OBJECTS = "saveable_objects";
  static constexpr std::string_view SAVERS = "savers";
  static constexpr std::string_view QUEUE_RUNNERS = "queue_runners";
  static constexpr std::string_view TABLE_INITIALIZERS = "table_initializer";  // singular, as TF
  static constexpr std::string_view ASSET_FILEPATHS = "asset_filepaths";
  // Ops a session or a supervisor runs.
  static constexpr std::string_view INIT_OP = "init_op";
  static constexpr std::string_view LOCAL_INIT_OP = "local_init_op";
  static constexpr std::string_view READY_OP = "ready_op";
  static constexpr std::string_view READY_FOR_LOCAL_INIT_OP = "ready_for_local_init_op";
  static constexpr std::string_view SUMMARY_OP = "summary_op";
  static constexpr std::string_view TRAIN_OP = "train_op";
  static constexpr std::string_view UPDATE_OPS = "update_ops";
  // Tensors gathered while building the model.
  static constexpr std::string_view SUMMARIES = "summaries";
  static constexpr std::string_view REGULARIZATION_LOSSES = "regularization_losses";
  static constexpr std::string_view LOSSES = "losses";
  static constexpr std::string_view WEIGHTS = "weights";
  static constexpr std::string_view BIASES = "biases";
  static constexpr std::string_view ACTIVATIONS = "activations";
  // The control flow contexts of an exported graph.
  static constexpr std::string_view COND_CONTEXT = "cond_context";
  static constexpr std::string_view WHILE_CONTEXT = "while_context";
};

// A collection name in an options struct: a GraphKeys constant or any string.
struct CollectionKey {
  std::string name;
  CollectionKey(std::string_view key) : name(key) {}        // NOLINT: implicit on purpose
  CollectionKey(const char* key) : name(key) {}             // NOLINT
  CollectionKey(std::string key) : name(std::move(key)) {}  // NOLINT
  friend bool operator==(const CollectionKey&, const CollectionKey&) = default;
};

template <class T>
void add_to_collection(std::string_view key, const T& value) {
  get_default_graph().add_to_collection(key, value);
}

// tf.add_to_collections: `value` into each collection named; a name given twice adds it
// once (TensorFlow takes the names as a set).
template <class T>
void add_to_collections(const std::vector<CollectionKey>& keys, const T& value) {
  std::vector<std::string> done;
  for (const CollectionKey& key : keys) {
    if (std::find(done.begin(), done.end(), key.name) != done.end()) continue;
    done.push_back(key.name);
    add_to_collection(key.name, value);
  }
}
// add_to_collections({"a", "b"}, value): the names written as a list.
template <class T>
void add_to_collections(std::initializer_list<CollectionKey> keys, const T& value) {
  add_to_collections(std::vector<CollectionKey>(keys), value);
}
// add_to_collections("name", value): a single name, as TensorFlow accepts a string.
template <class T>
void add_to_collections(const CollectionKey& key, const T& value) {
  add_to_collection(key.name, value);
}

inline std::vector<CollectionValue> get_collection(std::string_view key,
                                                   std::string_view scope = {}) {
  return get_default_graph().get_collection(key, scope);
}

inline std::vector<detail::CollectionItem>& get_collection_ref(std::string_view key) {
  return get_default_graph().get_collection_ref(key);
}

}  // namespace symflow
