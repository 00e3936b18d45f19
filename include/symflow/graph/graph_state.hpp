#pragma once
// Everything a Graph owns: nodes, the name table, construction state (name scope,
// control dependencies, device) and collections. Handles refer to it by id.

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

#include "symflow/core/errors.hpp"
#include "symflow/graph/node.hpp"

namespace symflow::detail {

// An item of a collection, stored by id so that collections never keep the graph
// alive (a handle would make a reference cycle).
using CollectionItem = std::variant<NodeId, TensorRef, std::string, std::int64_t, double>;

// One control_dependencies() context.
struct ControlFrame {
  bool clears_outer = false;  // control_dependencies(nullptr)
  std::vector<NodeId> control_inputs;
  std::set<std::uint32_t> created;  // ops built inside this context
  std::uint32_t saved_context = 0;  // the cond branch control_dependencies(nullptr) left
};

// A control-flow context while it is built (TensorFlow's ControlFlowContext): one branch
// of a tf.cond, or the frame of a tf.while_loop. docs/control-flow.md.
//  - A branch: an op built in it that reads a tensor from outside reads it through a
//    Switch on the predicate, made once per tensor, so that it runs only when the branch
//    is taken; an op without inputs gets the pivot as a control input for the same reason.
//  - A loop: a tensor from outside enters the frame through a constant Enter, made once
//    per tensor; an op without inputs, or whose inputs all come from constant Enters,
//    gets the pivot (the loop's first Merge while the condition is built, its first
//    Identity while the body is) as a control input, so that it runs once per iteration.
struct ControlFlowContext {
  bool is_loop = false;
  TensorRef pred;          // a branch's "cond/pred_id:0"
  TensorRef pivot;         // "cond/switch_t:0" or "cond/switch_f:0"; a loop's, as above
  int branch = 0;          // the Switch output the branch reads: 1 for the true branch
  std::string frame_name;  // a loop's "while/while_context"
  std::int64_t parallel_iterations = 10;  // a loop's
  std::uint32_t outer = 0;     // the enclosing context (an index into flow_contexts, from 1)
  std::set<TensorRef> values;  // tensors the context reads as they are
  std::map<TensorRef, TensorRef> external_values;  // an outside tensor -> what it reads
  // A loop's LoopCond output, its Exits (the loop variables' last values) and whether
  // gradients may flow through it (tf.while_loop's back_prop).
  TensorRef loop_cond;
  std::vector<TensorRef> loop_exits;
  bool back_prop = true;
  // A loop that computes the gradient of another (TensorFlow's grad_state): the forward
  // loop's context, and the backward Merge made for each forward loop Switch.
  std::uint32_t gradient_of = 0;
  std::map<NodeId, TensorRef> switch_merges;
};

inline bool is_valid_node_name(std::string_view name) {
  if (name.empty()) return false;
  auto ok_first = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '.'; };
  auto ok_rest = [&](char c) {
    return ok_first(c) || c == '_' || c == '-' || c == '/' || c == '>';
  };
  if (!ok_first(name[0])) return false;
  return std::all_of(name.begin() + 1, name.end(), ok_rest);
}

// A scope name below the root (TensorFlow's scope-name pattern): the characters of a
// node name, any of them first, and '\\' too.
inline bool is_valid_nested_scope_name(std::string_view name) {
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' ||
           c == '/' || c == '>' || c == '\\';
  });
}

inline std::string to_lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The variable scopes of a graph (the current tf.variable_scope, the scope-name counts
// and the store of the variables get_variable made): defined by
// variables/variable_scope.hpp, which creates it on first use.
struct VariableScopeState;
// The TensorArrays a graph built (ops/tensor_array_ops.hpp), made there on first use.
struct TensorArrayState;

class GraphState {
 public:
  std::vector<Node> nodes;
  std::unordered_map<std::string, NodeId> by_name;
  std::string name_stack;  // "conv1/inner", no trailing slash
  std::vector<ControlFrame> control_frames;
  std::string device;
  std::map<std::string, std::vector<CollectionItem>, std::less<>> collections;
  std::optional<std::int64_t> seed;  // graph-level random seed
  bool finalized = false;
  std::shared_ptr<VariableScopeState> variable_scopes;  // see VariableScopeState
  std::shared_ptr<TensorArrayState> tensor_arrays;      // see TensorArrayState
  std::vector<ControlFlowContext> flow_contexts;  // every context ever built; Node::context - 1
  std::uint32_t current_context = 0;              // the context being built (from 1); 0: none
  std::set<TensorRef> unfeedable;  // tensors prevent_feeding marked: a run may not feed them
  std::set<NodeId> unfetchable;    // ops prevent_fetching marked: a run may not fetch them
  // While tf.gradients builds a loop's gradient: what a backward loop reads for a tensor of
  // its forward loop (the value of the matching forward iteration, kept on a stack).
  std::function<TensorRef(std::uint32_t backward_context, TensorRef forward_value)>
      forward_value_in_backprop;

  // The innermost loop context `context` is in or is (0: none).
  std::uint32_t loop_of(std::uint32_t context) const {
    while (context != 0 && !flow_contexts[context - 1].is_loop)
      context = flow_contexts[context - 1].outer;
    return context;
  }
  // Whether context `inner` is `context` or nested inside it.
  bool context_within(std::uint32_t inner, std::uint32_t context) const {
    for (std::uint32_t c = inner; c != 0; c = flow_contexts[c - 1].outer)
      if (c == context) return true;
    return false;
  }

  // Whether node `op` was built in context `context` or in one nested inside it.
  bool in_context(NodeId op, std::uint32_t context) const {
    return context_within(node(op).context, context);
  }

  const Node& node(NodeId id) const { return nodes.at(id.value); }
  Node& node(NodeId id) { return nodes.at(id.value); }

  // TensorFlow's Graph.unique_name: prefixes the name scope, then appends _N while
  // the (case-insensitive) name is taken.
  std::string unique_name(std::string_view base, bool mark_as_used = true);

  // The control inputs a new op gets from the enclosing control_dependencies()
  // contexts, given the ops its data inputs come from.
  std::vector<NodeId> control_inputs_for(const std::vector<NodeId>& input_ops) const;

  NodeId add_node(Node node);

  std::optional<NodeId> find(std::string_view name) const {
    auto it = by_name.find(std::string(name));
    if (it == by_name.end()) return std::nullopt;
    return it->second;
  }

 private:
  int lookup_use(const std::string& key) const {
    auto it = names_in_use_.find(key);
    return it == names_in_use_.end() ? 0 : it->second;
  }

  std::unordered_map<std::string, int> names_in_use_;
};

}  // namespace symflow::detail
