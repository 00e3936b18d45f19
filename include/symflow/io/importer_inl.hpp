#pragma once
// import_graph_def's definition (io/importer.hpp declares it): included by that header
// in a header-only program, and by symflow/define_compiled.hpp alone in a program built
// with SYMFLOW_COMPILED. It alone reaches the op vocabulary (ops/registry.hpp).

#include <algorithm>
#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <queue>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "symflow/detail/config.hpp"
#include "symflow/io/importer.hpp"
#include "symflow/io/tf_op_defaults.hpp"
#include "symflow/io/tf_op_rewrites.hpp"
#include "symflow/ops/registry.hpp"

namespace symflow {

namespace detail::importer {

// "x:1" -> ("x", 1); "x" -> ("x", 0); "^x" -> ("x", -1). nullopt when malformed.
struct TensorId {
  std::string node;
  int index = 0;  // -1: a control input
  std::string key() const { return index < 0 ? "^" + node : node + ":" + std::to_string(index); }
};

inline std::optional<TensorId> parse_tensor_id(std::string_view s) {
  TensorId id;
  if (!s.empty() && s.front() == '^') {
    id.node = std::string(s.substr(1));
    id.index = -1;
    if (id.node.empty()) return std::nullopt;
    return id;
  }
  auto colon = s.rfind(':');
  if (colon == std::string_view::npos) {
    id.node = std::string(s);
  } else {
    std::string_view digits = s.substr(colon + 1);
    if (digits.empty() || digits.size() > 9 ||
        !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return std::nullopt;
    id.node = std::string(s.substr(0, colon));
    id.index = std::stoi(std::string(digits));
  }
  if (id.node.empty()) return std::nullopt;
  return id;
}

inline std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i];
  return out;
}

// One node of the GraphDef with its inputs parsed.
struct PendingNode {
  const NodeDef* def = nullptr;
  const OpDef* op = nullptr;
  std::vector<TensorId> data_inputs;
  std::vector<TensorId> control_inputs;
  std::vector<std::size_t> sources;  // indices of the nodes it waits for
};

// "loc:@v" -> "loc:@<prefix>v" for colocation with a node of the GraphDef.
inline void prefix_colocation(AttrMap& attrs, const std::string& prefix,
                              const std::unordered_map<std::string, std::size_t>& index) {
  if (prefix.empty()) return;
  auto it = attrs.find("_class");
  if (it == attrs.end()) return;
  if (auto* list = std::get_if<StringList>(&it->second)) {
    for (auto& item : list->items) {
      constexpr std::string_view loc = "loc:@";
      if (item.rfind(loc, 0) == 0 && index.count(item.substr(loc.size())))
        item = std::string(loc) + prefix + item.substr(loc.size());
    }
  }
}

}  // namespace detail::importer

namespace detail {

SYMFLOW_INLINE ImportResult import_graph_def_into(Graph& graph, const GraphDef& original,
                                                  const ImportGraphDefOptions& options) {
  namespace im = detail::importer;
  if (graph.finalized()) throw RuntimeError("Graph is finalized and cannot be modified.");
  // TensorFlow's old Variable and resource variable ops, as the ops symflow runs.
  std::optional<GraphDef> rewritten;
  if (io::has_tf_ops_to_rewrite(original)) io::rewrite_tf_ops(rewritten.emplace(original));
  const GraphDef& graph_def = rewritten ? *rewritten : original;

  // Names, ops and inputs.
  std::vector<im::PendingNode> nodes(graph_def.node.size());
  std::unordered_map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < graph_def.node.size(); ++i) {
    const NodeDef& n = graph_def.node[i];
    if (!is_valid_node_name(n.name))
      throw ValueError("Node '" + n.name + "' in graph_def: '" + n.name +
                       "' is not a valid node name");
    if (!index.emplace(n.name, i).second)
      throw ValueError("Node '" + n.name + "' is not unique in graph_def", n.name);
    nodes[i].def = &n;
    nodes[i].op = find_op_def(n.op);
  }
  // Every op type the graph lacks at once, so one try tells what a model needs.
  std::vector<std::pair<std::string, std::vector<std::string>>> missing_ops;
  for (const auto& p : nodes) {
    if (p.op) continue;
    auto it = std::find_if(missing_ops.begin(), missing_ops.end(),
                           [&](const auto& m) { return m.first == p.def->op; });
    if (it == missing_ops.end()) it = missing_ops.insert(missing_ops.end(), {p.def->op, {}});
    it->second.push_back(p.def->name);
  }
  if (!missing_ops.empty()) {
    const auto& [first_op, first_nodes] = missing_ops.front();
    std::string message = "Op type not registered '" + first_op +
                          "' in binary running on symflow. Make sure the Op and Kernel are "
                          "registered in the binary running in this process. (while importing "
                          "node '" +
                          first_nodes.front() + "')";
    if (missing_ops.size() > 1)
      message += ". The graph uses " + std::to_string(missing_ops.size()) +
                 " op types that symflow lacks:";
    if (missing_ops.size() > 1)
      for (const auto& [op, names] : missing_ops)
        message += " " + op + " (" + std::to_string(names.size()) +
                   (names.size() == 1 ? " node" : " nodes") + ", '" + names.front() + "')";
    throw NotFoundError(message, first_nodes.front());
  }
  for (auto& p : nodes) {
    const std::string& name = p.def->name;
    bool seen_control = false;
    for (const std::string& input : p.def->input) {
      auto id = im::parse_tensor_id(input);
      if (!id)
        throw ValueError("Node '" + name + "': malformed input '" + input +
                             "': expected \"node\", \"node:<index>\" or \"^node\"",
                         name);
      auto source = index.find(id->node);
      if (source == index.end())
        throw ValueError("Node '" + name + "': Unknown input node '" + input + "'", name);
      if (id->index < 0) {
        seen_control = true;
        p.control_inputs.push_back(*id);
      } else {
        if (seen_control)
          throw ValueError("Node '" + name + "': data input '" + input +
                               "' comes after a control input: expected control inputs last",
                           name);
        p.data_inputs.push_back(*id);
      }
      // A mapped input does not wait for the node it replaces, nor a loop's Merge for its
      // NextIteration (the back edge, connected once every node exists).
      if (!options.input_map.count(id->key()) &&
          !(id->index >= 0 && is_merge_op(p.op) && is_next_iteration_op(nodes[source->second].op)))
        p.sources.push_back(source->second);
    }
  }

  // input_map keys and return elements must name nodes of the GraphDef.
  std::map<std::string, Output> input_map;  // normalised keys: "x:0", "^x"
  std::vector<std::string> missing;
  for (const auto& [key, tensor] : options.input_map) {
    auto id = im::parse_tensor_id(key);
    if (!tensor.valid()) throw ValueError("input_map['" + key + "'] is an empty tensor handle");
    if (tensor.op().graph_state() != graph.state_ptr())
      throw ValueError("input_map['" + key + "'] = " + tensor.name() +
                       " must be from the graph the GraphDef is imported into");
    if (!id || !index.count(id->node)) {
      missing.push_back(id ? id->key() : key);
      continue;
    }
    input_map.emplace(id->key(), tensor);
  }
  if (!missing.empty())
    throw ValueError("Attempted to map inputs that were not found in graph_def: [" +
                     im::join(missing) + "]");
  std::vector<im::TensorId> returns;
  for (const std::string& element : options.return_elements) {
    auto id = im::parse_tensor_id(element);
    if (!id || id->index < -1 || (id && element.front() == '^'))
      throw ValueError("Requested return_element '" + element +
                       "' is malformed: expected \"op\" or \"op:<index>\"");
    bool is_tensor = element.find(':') != std::string::npos;
    if (!index.count(id->node))
      throw ValueError(std::string("Requested return ") + (is_tensor ? "tensor" : "node") + " '" +
                       element + "' not found in graph def");
    if (!is_tensor) id->index = -1;
    returns.push_back(*id);
  }

  // Topological order over data and control inputs, keeping the GraphDef's order
  // where it already is one (Kahn's algorithm, smallest index first).
  std::vector<std::size_t> pending(nodes.size(), 0);
  std::vector<std::vector<std::size_t>> consumers(nodes.size());
  for (std::size_t i = 0; i < nodes.size(); ++i)
    for (std::size_t s : nodes[i].sources) {
      ++pending[i];
      consumers[s].push_back(i);
    }
  std::priority_queue<std::size_t, std::vector<std::size_t>, std::greater<>> ready;
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (pending[i] == 0) ready.push(i);
  std::vector<std::size_t> order;
  while (!ready.empty()) {
    std::size_t i = ready.top();
    ready.pop();
    order.push_back(i);
    for (std::size_t c : consumers[i])
      if (--pending[c] == 0) ready.push(c);
  }
  if (order.size() != nodes.size()) {
    // Walk inputs among the unordered nodes until one repeats: that one is on a cycle.
    std::size_t at = 0;
    while (pending[at] == 0) ++at;
    std::vector<std::size_t> seen_at(nodes.size(), nodes.size());
    std::vector<std::size_t> path;
    while (seen_at[at] == nodes.size()) {
      seen_at[at] = path.size();
      path.push_back(at);
      for (std::size_t s : nodes[at].sources)
        if (pending[s] != 0) {
          at = s;
          break;
        }
    }
    std::string cycle;
    for (std::size_t k = path.size(); k-- > seen_at[at];)
      cycle += graph_def.node[path[k]].name + " -> ";
    cycle += graph_def.node[at].name;
    throw ValueError("graph_def contains a cycle through node '" + graph_def.node[at].name + "' (" +
                         cycle + "): expected an acyclic graph",
                     graph_def.node[at].name);
  }

  // The prefix, and no clash with the graph's nodes.
  std::string prefix;
  if (!options.name.empty()) {
    name_scope scope(graph, options.name);
    prefix = scope.name();
  }
  for (const auto& p : nodes) {
    std::string name = prefix + p.def->name;
    if (graph.state().find(name))
      throw ValueError("Node '" + name + "' already exists in the graph: cannot import node '" +
                           p.def->name + "'" +
                           (prefix.empty() ? " with name=\"\" (use a prefix)" : ""),
                       name);
  }

  // Create the nodes.
  std::vector<std::optional<Operation>> created(nodes.size());
  std::set<std::string> used_keys;
  auto source_op = [&](const im::TensorId& id) -> const Operation& {
    return *created[index.at(id.node)];
  };
  // A loop's back edges: (Merge, input index, NextIteration output).
  std::vector<std::tuple<Operation, std::size_t, im::TensorId>> back_edges;
  for (std::size_t i : order) {
    const im::PendingNode& p = nodes[i];
    const std::string& name = p.def->name;
    std::vector<Output> inputs;
    std::vector<std::size_t> back_edge_inputs;
    for (const im::TensorId& id : p.data_inputs) {
      auto mapped = input_map.find(id.key());
      if (mapped != input_map.end()) {
        used_keys.insert(id.key());
        inputs.push_back(mapped->second);
        continue;
      }
      if (is_merge_op(p.op) && is_next_iteration_op(nodes[index.at(id.node)].op)) {
        back_edge_inputs.push_back(inputs.size());
        inputs.emplace_back();  // for now the Merge's first other input, as TensorFlow builds it
        continue;
      }
      const Operation& src = source_op(id);
      if (id.index >= src.num_outputs())
        throw ValueError("Node '" + name + "': input '" + id.key() + "' refers to output " +
                             std::to_string(id.index) + " of '" + id.node + "', which has " +
                             std::to_string(src.num_outputs()) + " outputs",
                         name);
      inputs.emplace_back(src, id.index);
    }
    std::vector<Operation> controls;
    for (const im::TensorId& id : p.control_inputs) {
      auto mapped = input_map.find(id.key());
      if (mapped != input_map.end()) {
        used_keys.insert(id.key());
        controls.push_back(mapped->second.op());
      } else {
        controls.push_back(source_op(id));
      }
    }
    if (!back_edge_inputs.empty()) {
      auto other =
          std::find_if(inputs.begin(), inputs.end(), [](const Output& o) { return o.valid(); });
      if (other == inputs.end())
        throw ValueError("Node '" + name +
                             "': every input is a NextIteration: expected a loop's "
                             "Merge to read its Enter too",
                         name);
      for (std::size_t k : back_edge_inputs) {
        back_edges.emplace_back(Operation(), k, p.data_inputs[k]);
        inputs[k] = *other;
      }
    }
    AttrMap attrs = p.def->attr;
    im::prefix_colocation(attrs, prefix, index);
    // A GraphDef written with strip_default_attrs lacks attrs at their default.
    if (const AttrMap* defaults = io::tf_default_attrs(p.def->op))
      for (const auto& [key, value] : *defaults) attrs.try_emplace(key, value);
    // Before GraphDef version 21 a Placeholder's empty `shape {}` meant "unknown", not a
    // scalar (TensorFlow reads old graphs the same way).
    if (graph_def.producer < 21 && p.def->op == "Placeholder") {
      auto shape = attrs.find("shape");
      if (shape != attrs.end())
        if (const auto* s = std::get_if<Shape>(&shape->second);
            s && s->has_rank() && s->rank() == 0)
          shape->second = Shape::unknown();
    }
    Operation op = graph.create_op(*p.op, inputs, std::move(attrs), prefix + name + "/", controls);
    if (!p.def->device.empty()) graph.state().node(op.id()).device = p.def->device;
    created[i] = op;
    for (std::size_t k = back_edges.size(); k-- > 0 && !std::get<0>(back_edges[k]).valid();)
      std::get<0>(back_edges[k]) = op;
  }
  for (const auto& [merge, k, id] : back_edges) {
    const Operation& src = source_op(id);
    detail::Node& node = graph.state().node(merge.id());
    if (id.index >= src.num_outputs())
      throw ValueError("Node '" + node.name + "': input '" + id.key() + "' refers to output " +
                           std::to_string(id.index) + " of '" + id.node + "', which has " +
                           std::to_string(src.num_outputs()) + " outputs",
                       node.name);
    const DType dtype = src.output(id.index).dtype();
    if (dtype != node.outputs[0].dtype)
      throw ValueError("Input " + std::to_string(k) + " of node " + node.name + " was passed " +
                           std::string(dtype_name(dtype)) + " from " + src.name() + ":" +
                           std::to_string(id.index) + " incompatible with expected " +
                           std::string(dtype_name(node.outputs[0].dtype)) + ".",
                       node.name);
    node.inputs[k] = TensorRef{src.id(), id.index};
  }

  // Keys naming an output the node does not have (TensorFlow's "missing" keys).
  for (const auto& [key, tensor] : input_map) {
    auto id = im::parse_tensor_id(key);
    if (id->index >= 0 && !used_keys.count(key) &&
        id->index >= created[index.at(id->node)]->num_outputs())
      missing.push_back(key);
  }
  if (!missing.empty())
    throw ValueError("Attempted to map inputs that were not found in graph_def: [" +
                     im::join(missing) + "]");

  ImportResult result;
  result.prefix = prefix;
  for (const im::TensorId& id : returns) {
    const Operation& op = source_op(id);
    if (id.index < 0) {
      result.elements.emplace_back(op);
      continue;
    }
    if (auto mapped = input_map.find(id.key()); mapped != input_map.end()) {
      result.elements.emplace_back(mapped->second);
      continue;
    }
    if (id.index >= op.num_outputs())
      throw ValueError("Requested return tensor '" + id.key() + "' not found in graph def: '" +
                       id.node + "' has " + std::to_string(op.num_outputs()) + " outputs");
    result.elements.emplace_back(Output(op, id.index));
  }
  return result;
}

}  // namespace detail

}  // namespace symflow
