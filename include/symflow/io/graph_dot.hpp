#pragma once
// Pictures of a graph: a GraphDef (or a Graph) as Graphviz's DOT language, for `dot -Tsvg`.
//
//   symflow::write_dot(graph, "model.dot", {.fetches = {"train"}, .show_shapes = true});
//   // then: dot -Tsvg model.dot -o model.svg
//
// Name scopes are nested clusters labelled with the scope, as TensorBoard groups them; a
// node whose own name is also a scope ("dense/kernel" beside "dense/kernel/Assign") is
// drawn inside that scope's cluster. A node shows its short name and, when that does not
// already say it, its op type. Inputs are drawn as pentagons, constants as rounded boxes,
// variables as cylinders, other ops as ellipses. Data edges are solid, control edges
// dashed, and reference edges (an input the consumer takes by reference, as Assign takes
// its variable) orange with a diamond head. The output is the same for the same graph and
// options: nodes, clusters and edges are sorted by name. docs/graph-pictures.md shows one.

#include <cstddef>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "symflow/core/attr_value.hpp"
#include "symflow/core/dtype.hpp"
#include "symflow/core/errors.hpp"
#include "symflow/core/shape.hpp"
#include "symflow/core/value.hpp"
#include "symflow/graph/graph.hpp"
#include "symflow/graph/graph_def.hpp"
#include "symflow/graph/operation.hpp"
#include "symflow/graph/tensor.hpp"
#include "symflow/io/atomic_file.hpp"
#include "symflow/ops/registry.hpp"  // find_op_def: the inputs an op takes by reference

namespace symflow {

struct DotOptions {
  // When not empty, only these nodes ("x") or tensors ("x:1") and what they need over data
  // and control inputs are drawn. A name the graph lacks is a ValueError naming it.
  std::vector<std::string> fetches = {};
  // Each top-level name scope becomes one box with its op count; edges between two boxes
  // merge into one per kind.
  bool collapse_scopes = false;
  // Labels data edges with the tensor's dtype and shape: for a Graph, what shape inference
  // knows; for a GraphDef, the producer's `_output_shapes` attr (TensorFlow writes it with
  // add_shapes=True) and what its other attrs say (`dtype` or `T`, a Placeholder's or
  // variable's `shape`, a Const's value).
  bool show_shapes = false;
  // Graphviz's rankdir. "BT" puts the inputs at the bottom and the outputs on top, as
  // TensorBoard draws a graph; "TB", "LR" and "RL" are the other directions.
  std::string rankdir = "BT";
};

namespace detail::graph_dot {

enum class EdgeKind { data, reference, control };

// A DOT quoted string: '"' and '\' escaped, control characters as \xNN (a name never
// holds them in practice; a hand-made GraphDef might).
inline std::string dot_quoted(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out = "\"";
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (byte < 0x20 || byte == 0x7f) {
      out += "\\\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 0xf];
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// A label of several lines: each line quoted on its own, joined by DOT's "\n" escape.
inline std::string label_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& line : lines) {
    const std::string q = dot_quoted(line);
    out += out.empty() ? q.substr(0, q.size() - 1) : "\\n" + q.substr(1, q.size() - 2);
  }
  return out.empty() ? "\"\"" : out + "\"";
}

// "x:1" -> ("x", 1); "^x" -> ("x", -1): a control input; "x" -> ("x", 0).
inline std::pair<std::string, int> parse_input(std::string_view input) {
  if (!input.empty() && input.front() == '^') return {std::string(input.substr(1)), -1};
  const auto colon = input.rfind(':');
  if (colon != std::string_view::npos && colon + 1 < input.size()) {
    int index = 0;
    bool digits = true;
    for (const char c : input.substr(colon + 1)) {
      if (c < '0' || c > '9' || index > 100000) {
        digits = false;
        break;
      }
      index = index * 10 + (c - '0');
    }
    if (digits) return {std::string(input.substr(0, colon)), index};
  }
  return {std::string(input), 0};
}

inline std::string parent_scope(std::string_view name) {
  const auto slash = name.rfind('/');
  return slash == std::string_view::npos ? std::string() : std::string(name.substr(0, slash));
}

inline std::string short_name(std::string_view name) {
  const auto slash = name.rfind('/');
  return std::string(slash == std::string_view::npos ? name : name.substr(slash + 1));
}

// Whether the short name already says the op type: "MatMul", "MatMul_1" for MatMul.
inline bool name_says_type(std::string_view name, std::string_view type) {
  if (!name.starts_with(type)) return false;
  std::string_view rest = name.substr(type.size());
  if (rest.empty()) return true;
  if (rest.front() != '_' || rest.size() == 1) return false;
  for (const char c : rest.substr(1))
    if (c < '0' || c > '9') return false;
  return true;
}

inline std::string_view node_style(std::string_view op) {
  if (op == "Placeholder" || op == "PlaceholderV2" || op == "PlaceholderWithDefault")
    return "shape=invhouse, fillcolor=\"#d6e6f5\"";
  if (op == "Const" || op == "HostConst")
    return "shape=box, style=\"rounded,filled\", fillcolor=\"#eeeeee\"";
  if (op == "VariableV2" || op == "Variable" || op == "VarHandleOp" || op == "TemporaryVariable")
    return "shape=cylinder, fillcolor=\"#fde3c8\"";
  return "shape=ellipse, fillcolor=\"#ffffff\"";
}

// "float32 (?, 784)" from what a NodeDef itself says about its output `index`, or "".
inline std::string tensor_label_from_attrs(const NodeDef& node, int index) {
  std::string dtype;
  std::string shape;
  const AttrMap& attr = node.attr;
  if (auto it = attr.find("_output_shapes"); it != attr.end())
    if (const auto* shapes = std::get_if<ShapeList>(&it->second))
      if (index < static_cast<int>(shapes->items.size()))
        shape = shapes->items[static_cast<std::size_t>(index)].to_string();
  if (index == 0) {
    if (auto it = attr.find("value"); it != attr.end())
      if (const auto* value = std::get_if<Value>(&it->second)) {
        dtype = dtype_name(value->dtype());
        if (shape.empty()) shape = Shape(value->dims()).to_string();
      }
    for (const char* key : {"dtype", "T"})
      if (auto it = attr.find(key); dtype.empty() && it != attr.end())
        if (const auto* d = std::get_if<DType>(&it->second); d && *d != DType::invalid)
          dtype = dtype_name(*d);
    if (auto it = attr.find("shape"); shape.empty() && it != attr.end())
      if (const auto* s = std::get_if<Shape>(&it->second)) shape = s->to_string();
  }
  if (dtype.empty() || shape.empty()) return dtype + shape;
  return dtype + " " + shape;
}

struct EdgeKey {
  std::string from;
  std::string to;
  EdgeKind kind;
  friend auto operator<=>(const EdgeKey&, const EdgeKey&) = default;
};

// `tensor_labels` ("x:0" -> "float32 (2,)") come from a Graph's shape inference, which
// knows every tensor; without them the NodeDefs' attrs say what they can.
inline std::string render(const GraphDef& graph_def, const DotOptions& options,
                          const std::map<std::string, std::string>& tensor_labels) {
  const std::string& rankdir = options.rankdir;
  if (rankdir != "BT" && rankdir != "TB" && rankdir != "LR" && rankdir != "RL")
    throw InvalidArgumentError("DotOptions::rankdir must be BT, TB, LR or RL, got '" + rankdir +
                               "'");
  // A GraphDef import_graph_def would refuse is refused with its ValueError.
  std::map<std::string, const NodeDef*> nodes;
  for (const NodeDef& node : graph_def.node)
    if (!nodes.emplace(node.name, &node).second)
      throw ValueError("Node '" + node.name + "' is not unique");
  for (const NodeDef& node : graph_def.node)
    for (const std::string& input : node.input)
      if (!nodes.count(parse_input(input).first))
        throw ValueError("Node '" + node.name + "': Unknown input node '" + input + "'");

  // The nodes to draw: all, or the ancestors of the fetches.
  std::set<std::string> kept;
  if (options.fetches.empty()) {
    for (const auto& [name, node] : nodes) kept.insert(name);
  } else {
    std::vector<std::string> todo;
    for (const std::string& fetch : options.fetches) {
      const std::string name = parse_input(fetch).first;
      if (!nodes.count(name)) throw ValueError(fetch + " is not in graph");
      todo.push_back(name);
    }
    while (!todo.empty()) {
      const std::string name = std::move(todo.back());
      todo.pop_back();
      if (!kept.insert(name).second) continue;
      for (const std::string& input : nodes.at(name)->input)
        todo.push_back(parse_input(input).first);
    }
  }

  // Every scope that holds a drawn node: "a/b/c" makes "a" and "a/b".
  std::set<std::string> scopes;
  for (const std::string& name : kept)
    for (auto slash = name.find('/'); slash != std::string::npos; slash = name.find('/', slash + 1))
      scopes.insert(name.substr(0, slash));
  auto scope_of = [&](const std::string& name) {
    return scopes.count(name) ? name : parent_scope(name);
  };
  // With collapse_scopes, the box a node is drawn in: its top-level scope, or itself.
  auto drawn_as = [&](const std::string& name) {
    if (!options.collapse_scopes) return name;
    const std::string scope = scope_of(name);
    return scope.empty() ? name : scope.substr(0, scope.find('/'));
  };

  std::map<EdgeKey, std::set<std::string>> edges;  // labels of the tensors each edge carries
  for (const std::string& name : kept) {
    const NodeDef& node = *nodes.at(name);
    const OpDef* def = find_op_def(node.op);
    int data_index = 0;
    for (const std::string& input : node.input) {
      const auto [from, index] = parse_input(input);
      EdgeKind kind = EdgeKind::control;
      if (index >= 0)
        kind = def && def->takes_ref(static_cast<std::size_t>(data_index)) ? EdgeKind::reference
                                                                           : EdgeKind::data;
      if (index >= 0) ++data_index;
      const std::string a = drawn_as(from);
      const std::string b = drawn_as(name);
      if (a == b && options.collapse_scopes) continue;
      std::set<std::string>& labels = edges[EdgeKey{a, b, kind}];
      if (!options.show_shapes || kind == EdgeKind::control) continue;
      const std::string tensor = from + ":" + std::to_string(index);
      auto inferred = tensor_labels.find(tensor);
      const std::string label = inferred != tensor_labels.end()
                                    ? inferred->second
                                    : tensor_label_from_attrs(*nodes.at(from), index);
      if (!label.empty()) labels.insert(label);
    }
  }

  std::string out = "digraph symflow {\n";
  out += "  graph [rankdir=" + rankdir +
         ", fontname=\"Helvetica\", fontsize=11, nodesep=0.25, ranksep=0.4];\n";
  out +=
      "  node [fontname=\"Helvetica\", fontsize=10, style=filled, height=0.3, "
      "margin=\"0.08,0.03\"];\n";
  out += "  edge [fontname=\"Helvetica\", fontsize=8, color=\"#555555\", arrowsize=0.6];\n";

  if (options.collapse_scopes) {
    std::map<std::string, std::size_t> box_sizes;
    for (const std::string& name : kept)
      if (drawn_as(name) != name || scopes.count(name)) ++box_sizes[drawn_as(name)];
    for (const std::string& name : kept) {
      const std::string box = drawn_as(name);
      if (box_sizes.count(box)) continue;
      const NodeDef& node = *nodes.at(name);
      std::vector<std::string> lines{name};
      if (!name_says_type(name, node.op)) lines.push_back(node.op);
      out += "  " + dot_quoted(name) + " [label=" + label_lines(lines) + ", " +
             std::string(node_style(node.op)) + "];\n";
    }
    for (const auto& [box, size] : box_sizes)
      out += "  " + dot_quoted(box) +
             " [label=" + label_lines({box, std::to_string(size) + (size == 1 ? " op" : " ops")}) +
             ", shape=box3d, fillcolor=\"#e4ecf5\"];\n";
  } else {
    // Clusters, nested as the scopes are; each holds its nodes, then its sub-scopes.
    std::map<std::string, std::vector<std::string>> members;   // scope -> nodes
    std::map<std::string, std::vector<std::string>> children;  // scope -> sub-scopes
    for (const std::string& name : kept) members[scope_of(name)].push_back(name);
    for (const std::string& scope : scopes) children[parent_scope(scope)].push_back(scope);
    auto emit = [&](auto& self, const std::string& scope, const std::string& indent) -> void {
      for (const std::string& name : members[scope]) {
        const NodeDef& node = *nodes.at(name);
        const std::string shown = short_name(name);
        std::vector<std::string> lines{shown};
        if (!name_says_type(shown, node.op)) lines.push_back(node.op);
        out += indent + dot_quoted(name) + " [label=" + label_lines(lines) + ", " +
               std::string(node_style(node.op)) + "];\n";
      }
      for (const std::string& sub : children[scope]) {
        out += indent + "subgraph " + dot_quoted("cluster_" + sub) + " {\n";
        // Scope names on top: Graphviz flips a cluster's labelloc with rankdir=BT. Nested
        // scopes alternate their shade.
        const bool odd = indent.size() % 4 == 2;
        out += indent + "  label=" + dot_quoted(short_name(sub)) +
               "; labelloc=" + (rankdir == "BT" ? "b" : "t") +
               "; labeljust=l; style=\"rounded,filled\"; fillcolor=\"" +
               (odd ? "#f3f6fa" : "#e6edf5") + "\"; color=\"#9aa7b8\";\n";
        self(self, sub, indent + "  ");
        out += indent + "}\n";
      }
    };
    emit(emit, "", "  ");
  }

  for (const auto& [key, labels] : edges) {
    std::string attrs;
    if (key.kind == EdgeKind::control) attrs = "style=dashed, color=\"#888888\"";
    if (key.kind == EdgeKind::reference)
      attrs = "color=\"#d95f02\", arrowhead=diamond, penwidth=1.4";
    if (!labels.empty()) {
      std::vector<std::string> lines(labels.begin(), labels.end());
      if (lines.size() > 3) {
        lines.resize(2);
        lines.push_back("+" + std::to_string(labels.size() - 2) + " more");
      }
      attrs += (attrs.empty() ? "" : ", ") + std::string("label=") + label_lines(lines);
    }
    out += "  " + dot_quoted(key.from) + " -> " + dot_quoted(key.to) +
           (attrs.empty() ? "" : " [" + attrs + "]") + ";\n";
  }
  return out + "}\n";
}

// "float32 (?, 784)" for every output of every op of `graph`, from shape inference.
inline std::map<std::string, std::string> inferred_labels(const Graph& graph) {
  std::map<std::string, std::string> labels;
  for (const Operation& op : graph.get_operations())
    for (const Output& t : op.outputs())
      labels.emplace(t.name(), dtype_repr(t) + " " + t.shape().to_string());
  return labels;
}

}  // namespace detail::graph_dot

// The DOT text of `graph_def` (see the header comment). A fetch the graph lacks is a
// ValueError "<name> is not in graph"; so are a GraphDef's duplicate names and inputs
// from nodes it lacks, with import_graph_def's messages.
inline std::string to_dot(const GraphDef& graph_def, const DotOptions& options = {}) {
  return detail::graph_dot::render(graph_def, options, {});
}

// The DOT text of `graph`, its edges labelled with the inferred shapes when show_shapes.
inline std::string to_dot(const Graph& graph, const DotOptions& options = {}) {
  return detail::graph_dot::render(graph.as_graph_def(), options,
                                   options.show_shapes ? detail::graph_dot::inferred_labels(graph)
                                                       : std::map<std::string, std::string>{});
}

// Writes to_dot's text to `path`, atomically (io/atomic_file.hpp): a path that cannot be
// written is a NotFoundError, PermissionDeniedError, ... naming it.
inline void write_dot(const GraphDef& graph_def, const std::filesystem::path& path,
                      const DotOptions& options = {}) {
  io::write_file_atomically(path, to_dot(graph_def, options));
}

inline void write_dot(const Graph& graph, const std::filesystem::path& path,
                      const DotOptions& options = {}) {
  io::write_file_atomically(path, to_dot(graph, options));
}

}  // namespace symflow
