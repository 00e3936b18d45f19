// Fuzz target: GraphDef files in any of read_graph's three formats (protobuf binary,
// protobuf text, symflow's JSON). A DataLossError is the expected answer to bad bytes;
// any other exception, a crash, or a GraphDef that does not survive a round trip through
// both protobuf encodings is a finding.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <symflow/io/graph_def_json.hpp>
#include <symflow/io/graph_def_text.hpp>
#include <symflow/io/graph_io.hpp>

#include "fuzz_support.hpp"

SYMFLOW_FUZZ_TARGET(graph_def) {
  namespace io = symflow::io;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  symflow::GraphDef def;
  try {
    if (io::looks_like_binary_protobuf(bytes)) {
      def = io::parse_graph_def_binary(bytes, "fuzz.pb");
    } else {
      const auto first = bytes.find_first_not_of(" \t\r\n");
      def = first != std::string_view::npos && bytes[first] == '{'
                ? io::parse_graph_def(bytes, "fuzz.json")
                : io::parse_graph_def_text(bytes, "fuzz.pbtxt");
    }
  } catch (const symflow::DataLossError&) {
    return 0;
  }
  // What was read must write and read back unchanged, in both encodings.
  const std::string text = symflow::to_text(def);
  symflow::fuzz::require(symflow::to_text(io::parse_graph_def_text(text, "again.pbtxt")) == text,
                         "text round trip");
  const std::string binary = io::serialize_graph_def_binary(def);
  symflow::fuzz::require(symflow::to_text(io::parse_graph_def_binary(binary, "again.pb")) == text,
                         "binary round trip");
  return 0;
}
