#pragma once
// tf.GraphKeys and the default-graph collection functions.

#include <string>
#include <string_view>
#include <vector>

#include "symflow/graph/graph.hpp"

namespace symflow {

// The standard collection names (tf.GraphKeys).
struct GraphKeys {
  static constexpr std::string_view GLOBAL_VARIABLES = "variables";
  static constexpr std::string_view LOCAL_VARIABLES = "local_variables";
  static constexpr std::string_view MODEL_VARIABLES = "model_variables";
  static constexpr std::string_view METRIC_VARIABLES = "metric_variables";
  static constexpr std::string_view TRAINABLE_VARIABLES = "trainable_variables";
  static constexpr std::string_view SUMMARIES = "summaries";
  static constexpr std::string_view QUEUE_RUNNERS = "queue_runners";
  static constexpr std::string_view MOVING_AVERAGE_VARIABLES = "moving_average_variables";
  static constexpr std::string_view REGULARIZATION_LOSSES = "regularization_losses";
  static constexpr std::string_view UPDATE_OPS = "update_ops";
  static constexpr std::string_view TRAIN_OP = "train_op";
  static constexpr std::string_view GLOBAL_STEP = "global_step";
  static constexpr std::string_view LOSSES = "losses";
  static constexpr std::string_view INIT_OP = "init_op";
  static constexpr std::string_view WEIGHTS = "weights";
  static constexpr std::string_view BIASES = "biases";
  static constexpr std::string_view ACTIVATIONS = "activations";
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

inline std::vector<CollectionValue> get_collection(std::string_view key,
                                                   std::string_view scope = {}) {
  return get_default_graph().get_collection(key, scope);
}

inline std::vector<detail::CollectionItem>& get_collection_ref(std::string_view key) {
  return get_default_graph().get_collection_ref(key);
}

}  // namespace symflow
