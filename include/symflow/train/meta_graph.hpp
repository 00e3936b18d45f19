#pragma once
// MetaGraphDef: a graph plus what a program needs to use it without the code that built
// it (TensorFlow's tf.train.export_meta_graph): MetaInfoDef, GraphDef, SaverDef and the
// collections, stored as symflow's JSON or TensorFlow's protobuf (docs/formats.md). The
// parts are in train/meta_graph_def.hpp. Importing is in import_meta_graph.hpp, which
// needs Saver; Saver needs this header to write its `.meta` files. Its JSON is in
// train/meta_graph_json.hpp, its protobuf in train/meta_graph_proto.hpp;
// train/meta_graph_inl.hpp defines what this header declares.

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
#include "symflow/train/meta_graph_def.hpp"

namespace symflow::train {

// Builds the MetaGraphDef of a graph and, when `filename` is not empty, writes it
// there atomically (tf.train.export_meta_graph).
SYMFLOW_INLINE MetaGraphDef export_meta_graph(const std::string& filename = {},
                                              const ExportMetaGraphOptions& options = {});

// Reads a MetaGraphDef file, symflow's JSON or TensorFlow's protobuf (binary or text):
// NotFoundError "File does not exist. ..." when it is missing, DataLossError "Cannot
// parse file ..." when it is not a MetaGraphDef (TensorFlow's IOError texts).
SYMFLOW_INLINE MetaGraphDef read_meta_graph_file(const std::string& filename);

// The bytes of a MetaGraphDef file, in any of those encodings, as read_meta_graph_file
// parses them; `source` (the file's name) starts the DataLossError "Cannot parse file ...".
SYMFLOW_INLINE MetaGraphDef parse_meta_graph(std::string_view bytes, const std::string& source);

// A SaverDef as the bytes TensorFlow keeps in the SAVERS collection (a serialized
// tensorflow.SaverDef). symflow's var_list rides in an extra field, which TensorFlow's
// parser skips; parse_saver_def reads both (DataLossError when the bytes are not one).
SYMFLOW_INLINE std::string serialize_saver_def(const SaverDef& def);
SYMFLOW_INLINE SaverDef parse_saver_def(std::string_view bytes);

}  // namespace symflow::train

#if !defined(SYMFLOW_COMPILED)
#include "symflow/train/meta_graph_inl.hpp"
#endif
