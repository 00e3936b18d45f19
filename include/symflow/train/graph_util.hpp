#pragma once
// tf.graph_util: cutting a GraphDef down to what some nodes need, freezing a graph (its
// variables become constants holding their values in a session), and removing the
// nodes only training needs.

#include <algorithm>
#include <cstddef>
#include <functional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "symflow/core/attr_value.hpp"
#include "symflow/core/errors.hpp"
#include "symflow/graph/feed.hpp"
#include "symflow/graph/graph_def.hpp"
#include "symflow/runtime/session.hpp"

namespace symflow {

namespace detail::graph_util {

// The node an input names: "^x", "x:1" and "x" all name "x".
inline std::string_view input_node_name(std::string_view input) {
  if (!input.empty() && input.front() == '^') input.remove_prefix(1);
  auto colon = input.rfind(':');
  if (colon != std::string_view::npos) input = input.substr(0, colon);
  return input;
}

}  // namespace detail::graph_util

namespace graph_util {

// The nodes `dest_nodes` reach over data and control inputs (themselves included), in
// the GraphDef's order. An unknown destination is a ValueError "<name> is not in graph".
inline GraphDef extract_sub_graph(const GraphDef& graph_def,
                                  const std::vector<std::string>& dest_nodes) {
  std::unordered_map<std::string_view, std::size_t> index;
  for (std::size_t i = 0; i < graph_def.node.size(); ++i) index.emplace(graph_def.node[i].name, i);
  std::vector<bool> keep(graph_def.node.size(), false);
  std::vector<std::size_t> stack;
  for (const std::string& d : dest_nodes) {
    auto it = index.find(d);
    if (it == index.end()) throw ValueError(d + " is not in graph");
    stack.push_back(it->second);
  }
  while (!stack.empty()) {
    std::size_t i = stack.back();
    stack.pop_back();
    if (keep[i]) continue;
    keep[i] = true;
    for (const std::string& input : graph_def.node[i].input) {
      std::string_view name = symflow::detail::graph_util::input_node_name(input);
      auto it = index.find(name);
      if (it == index.end())
        throw ValueError(std::string(name) + " is not in graph (an input of node '" +
                             graph_def.node[i].name + "')",
                         graph_def.node[i].name);
      stack.push_back(it->second);
    }
  }
  GraphDef out;
  out.producer = graph_def.producer;
  for (std::size_t i = 0; i < graph_def.node.size(); ++i)
    if (keep[i]) out.node.push_back(graph_def.node[i]);
  return out;
}

// Freezes `graph_def` for `output_node_names`: the sub graph they need, where each
// VariableV2 node (in the whitelist when one is given, not in the blacklist) is a
// Const of the same name holding the variable's current value in `sess`. Reading an
// uninitialised variable is the session's FailedPreconditionError.
inline GraphDef convert_variables_to_constants(
    Session& sess, const GraphDef& graph_def, const std::vector<std::string>& output_node_names,
    const std::vector<std::string>& variable_names_whitelist = {},
    const std::vector<std::string>& variable_names_blacklist = {}) {
  GraphDef inference = extract_sub_graph(graph_def, output_node_names);
  const std::set<std::string> whitelist(variable_names_whitelist.begin(),
                                        variable_names_whitelist.end());
  const std::set<std::string> blacklist(variable_names_blacklist.begin(),
                                        variable_names_blacklist.end());

  std::vector<std::size_t> frozen;
  std::vector<Fetch> fetches;
  for (std::size_t i = 0; i < inference.node.size(); ++i) {
    const NodeDef& n = inference.node[i];
    if (n.op != "VariableV2") continue;
    if (!whitelist.empty() && !whitelist.count(n.name)) continue;
    if (blacklist.count(n.name)) continue;
    frozen.push_back(i);
    fetches.emplace_back(n.name + ":0");
  }
  std::vector<Value> values;
  if (!fetches.empty()) values = sess.run(fetches);

  GraphDef out;
  out.producer = inference.producer;
  std::size_t next = 0;
  for (std::size_t i = 0; i < inference.node.size(); ++i) {
    const NodeDef& n = inference.node[i];
    if (next < frozen.size() && frozen[next] == i) {
      NodeDef c;
      c.name = n.name;
      c.op = "Const";
      // A deep copy: the session's buffer keeps changing with the variable.
      const Value& value = values[next++];
      c.attr.emplace("dtype", value.dtype());
      c.attr.emplace("value", value.clone());
      out.node.push_back(std::move(c));
    } else {
      out.node.push_back(n);
    }
  }
  return out;
}

// Cuts out the nodes an inference graph does without (tf.graph_util.remove_training_nodes):
// every CheckNumerics node goes, and the inputs naming it are dropped; Identity and
// StopGradient nodes are spliced out, their consumers reading their input instead,
// except those with control inputs, those named in a control input, those another node
// is colocated with ("_class"), and the `protected_nodes`. An input is matched by its
// exact text, so "x:1" never names node "x". A cycle of spliced nodes is a ValueError.
inline GraphDef remove_training_nodes(const GraphDef& input_graph,
                                      const std::vector<std::string>& protected_nodes = {}) {
  const std::set<std::string, std::less<>> protected_names(protected_nodes.begin(),
                                                           protected_nodes.end());
  auto without_caret = [](std::string_view input) {
    if (!input.empty() && input.front() == '^') input.remove_prefix(1);
    return input;
  };

  std::set<std::string, std::less<>> removed;
  for (const NodeDef& node : input_graph.node)
    if (node.op == "CheckNumerics" && !protected_names.count(node.name)) removed.insert(node.name);
  std::vector<NodeDef> kept;
  for (const NodeDef& node : input_graph.node) {
    if (removed.count(node.name)) continue;
    NodeDef copy = node;
    std::erase_if(copy.input, [&](const std::string& input) {
      return removed.count(without_caret(input)) > 0;
    });
    kept.push_back(std::move(copy));
  }

  // Nodes that take part in control edges or colocation keep their place.
  std::set<std::string, std::less<>> control_inputs, with_control_inputs, colocated;
  for (const NodeDef& node : kept) {
    for (const std::string& input : node.input) {
      if (input.find('^') == std::string::npos) continue;
      std::string name = input;
      std::erase(name, '^');
      control_inputs.insert(std::move(name));
      with_control_inputs.insert(node.name);
    }
    auto cls = node.attr.find("_class");
    if (cls == node.attr.end()) continue;
    if (const auto* list = std::get_if<StringList>(&cls->second))
      for (std::string_view item : list->items)
        colocated.emplace(item.starts_with("loc:@") ? item.substr(5) : item);
  }
  std::unordered_map<std::string, std::string> spliced;  // node -> the input replacing it
  for (const NodeDef& node : kept) {
    if (node.op != "Identity" && node.op != "StopGradient") continue;
    if (protected_names.count(node.name) || colocated.count(node.name)) continue;
    if (with_control_inputs.count(node.name) || control_inputs.count(node.name)) continue;
    if (node.input.empty())
      throw ValueError("Node '" + node.name + "' (" + node.op + ") has no input to splice in",
                       node.name);
    spliced.emplace(node.name, node.input[0]);
  }

  GraphDef out;
  out.producer = input_graph.producer;
  for (const NodeDef& node : kept) {
    if (spliced.count(node.name)) continue;
    NodeDef copy = node;
    for (std::string& input : copy.input) {
      // Follows chains of spliced nodes; the text that replaces an input is taken whole.
      std::size_t steps = 0;
      for (auto it = spliced.find(std::string(without_caret(input))); it != spliced.end();
           it = spliced.find(std::string(without_caret(input)))) {
        if (++steps > spliced.size())
          throw ValueError("Identity nodes form a cycle through '" + it->first + "'", it->first);
        input = it->second;
      }
    }
    out.node.push_back(std::move(copy));
  }
  return out;
}

}  // namespace graph_util
}  // namespace symflow
