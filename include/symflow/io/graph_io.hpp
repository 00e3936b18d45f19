#pragma once
// tf.io.write_graph and its reader: a GraphDef in a file, as protobuf's text format
// (what print(graph_def) shows, io/graph_def_text.hpp), as protobuf's binary encoding
// (a TensorFlow `.pb`, io/protobuf_binary.hpp) or as symflow's JSON
// (io/graph_def_json.hpp). read_graph tells them apart by content: a control byte
// means binary, a first non-space '{' means JSON, anything else is text.

// io/graph_io_inl.hpp defines what this header declares.

#include <string>
#include <string_view>

#include "symflow/detail/config.hpp"
#include "symflow/graph/graph_def.hpp"
#include "symflow/io/protobuf_schema.hpp"

namespace symflow {

namespace io {

// A GraphDef from protobuf's text format (what to_text and write_graph(as_text) write).
SYMFLOW_INLINE GraphDef parse_graph_def_text(std::string_view text, std::string_view source_name);

// A GraphDef from protobuf's binary encoding; errors give the byte offset.
SYMFLOW_INLINE GraphDef parse_graph_def_binary(std::string_view bytes,
                                               std::string_view source_name);

// The binary encoding of a GraphDef, as TensorFlow's SerializeToString writes it.
SYMFLOW_INLINE std::string serialize_graph_def_binary(const GraphDef& graph_def);

// Protobuf's text format as a message tree, each field named as written (the GraphDef,
// MetaGraphDef and SavedModel readers share it).
SYMFLOW_INLINE proto::Message parse_text_message(std::string_view text,
                                                 std::string_view source_name);

// A GraphDef from its message tree, decoded from binary (positions are byte offsets)
// or parsed from text (positions are lines).
SYMFLOW_INLINE GraphDef graph_def_from_message(const proto::Message& message,
                                               std::string_view source_name, bool binary);

// A TensorShapeProto from its message tree.
SYMFLOW_INLINE Shape shape_from_message(const proto::Message& message, std::string_view source_name,
                                        bool binary);

// The message tree of a GraphDef: the fields its text form holds.
SYMFLOW_INLINE proto::Message graph_def_to_message(const GraphDef& graph_def);

// Whether `bytes` are protobuf's binary encoding rather than text or JSON.
SYMFLOW_INLINE bool looks_like_binary_protobuf(std::string_view bytes);

}  // namespace io

enum class GraphFormat {
  text,    // protobuf's text format, as TensorFlow prints it
  binary,  // protobuf's binary encoding: the `.pb` TensorFlow reads
  json,    // symflow's GraphDef JSON (docs/formats.md)
};

// Writes `graph_def` to logdir/name (creating logdir) in `format` and returns the path.
SYMFLOW_INLINE std::string write_graph(const GraphDef& graph_def, const std::string& logdir,
                                       const std::string& name, GraphFormat format);

// tf.io.write_graph: protobuf text when `as_text`, else binary, as in TensorFlow.
inline std::string write_graph(const GraphDef& graph_def, const std::string& logdir,
                               const std::string& name, bool as_text = true) {
  return write_graph(graph_def, logdir, name, as_text ? GraphFormat::text : GraphFormat::binary);
}

// Reads a GraphDef file in any of the three formats. A missing file is a NotFoundError;
// a malformed one a DataLossError naming the file.
SYMFLOW_INLINE GraphDef read_graph(const std::string& path);

}  // namespace symflow

#if !defined(SYMFLOW_COMPILED)
#include "symflow/io/graph_io_inl.hpp"
#endif
