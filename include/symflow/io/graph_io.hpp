#pragma once
// tf.io.write_graph and its reader: a GraphDef in a file, either as protobuf's text
// format (what print(graph_def) shows, io/graph_def_text.hpp) or as symflow's JSON
// (io/graph_def_json.hpp). read_graph tells them apart by the first non-space
// character: '{' is JSON.

// io/graph_io_inl.hpp defines what this header declares.

#include <string>
#include <string_view>

#include "symflow/detail/config.hpp"
#include "symflow/graph/graph_def.hpp"

namespace symflow {

namespace io {

// A GraphDef from protobuf's text format (what to_text and write_graph(as_text) write).
SYMFLOW_INLINE GraphDef parse_graph_def_text(std::string_view text, std::string_view source_name);

}  // namespace io

// tf.io.write_graph: writes `graph_def` to logdir/name (creating logdir) as protobuf
// text when `as_text`, else as symflow's GraphDef JSON, and returns the file's path.
SYMFLOW_INLINE std::string write_graph(const GraphDef& graph_def, const std::string& logdir,
                                       const std::string& name, bool as_text = true);

// Reads a file written by write_graph, in either format. A missing file is a
// NotFoundError; a malformed one a DataLossError naming the file.
SYMFLOW_INLINE GraphDef read_graph(const std::string& path);

}  // namespace symflow

#if !defined(SYMFLOW_COMPILED)
#include "symflow/io/graph_io_inl.hpp"
#endif
