// Fuzz target: MetaGraph files, TensorFlow's MetaGraphDef (`.meta`) and SavedModel
// (`saved_model.pb`, `saved_model.pbtxt`), binary or text, read by
// train/meta_graph_proto.hpp, and symflow's own JSON `.meta` (train/meta_graph_json.hpp).
// A DataLossError is the expected answer to bad bytes; any other exception or a crash is a
// finding.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <symflow/train/meta_graph_json.hpp>
#include <symflow/train/meta_graph_proto.hpp>

#include "fuzz_support.hpp"

SYMFLOW_FUZZ_TARGET(meta_graph) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    (void)symflow::train::parse_saved_model(bytes, "fuzz/saved_model.pb");
  } catch (const symflow::DataLossError&) {
  }
  try {
    (void)symflow::train::parse_tf_meta_graph(bytes, "fuzz.meta");
  } catch (const symflow::DataLossError&) {
  }
  try {
    (void)symflow::train::parse_meta_graph_json(bytes, "fuzz.meta");
  } catch (const symflow::DataLossError&) {
  }
  return 0;
}
