#pragma once
// Graph: a handle to a graph's state, plus the per-thread default-graph stack.
// Operations are added with create_op, which applies TensorFlow's naming, the
// enclosing control dependencies and device, and build-time shape inference.

#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "symflow/graph/feed.hpp"
#include "symflow/graph/graph_def.hpp"
#include "symflow/graph/graph_state.hpp"
#include "symflow/graph/operation.hpp"
#include "symflow/graph/tensor.hpp"

namespace symflow {

// What get_collection returns: the handles and plain values stored in a collection.
using CollectionValue = std::variant<Operation, Output, std::string, std::int64_t, double>;

class DefaultGraphGuard;

class Graph {
 public:
  Graph() : state_(std::make_shared<detail::GraphState>()) {}
  explicit Graph(std::shared_ptr<detail::GraphState> state) : state_(std::move(state)) {}

  // Adds a node. `name` is the user's name or the op's default name; a name ending
  // in '/' (a captured name scope) is used exactly, without the slash.
  Operation create_op(const OpDef& def, const std::vector<Output>& inputs, AttrMap attrs,
                      std::string_view name, const std::vector<Operation>& control_inputs = {}) {
    auto& s = *state_;
    if (s.finalized) throw FailedPreconditionError("Graph is finalized and cannot be modified.");
    if (def.num_inputs >= 0 && static_cast<int>(inputs.size()) != def.num_inputs)
      throw ValueError("Op " + std::string(def.type) + " takes " + std::to_string(def.num_inputs) +
                       " inputs, got " + std::to_string(inputs.size()));
    for (const Output& in : inputs) check_owns(in, def);
    for (const Operation& c : control_inputs) {
      if (c.graph_state() != state_)
        throw ValueError("Control input " + c.name() + " must be from the same graph as op " +
                         std::string(def.type));
    }

    detail::Node node;
    if (!name.empty() && name.back() == '/') {
      node.name = std::string(name.substr(0, name.size() - 1));
    } else {
      if (!detail::is_valid_node_name(name))
        throw ValueError("'" + std::string(name) + "' is not a valid node name");
      node.name = s.unique_name(name);
    }
    node.def = &def;
    node.attrs = std::move(attrs);
    node.device = s.device;

    std::vector<TensorSpec> specs;
    std::vector<const Value*> constants;
    std::vector<NodeId> input_ops;
    for (const Output& in : inputs) {
      node.inputs.push_back(in.ref());
      const detail::Node& src = s.node(in.op().id());
      specs.push_back(src.outputs.at(static_cast<std::size_t>(in.index())));
      // Only an op that writes through a reference sees one; others read a value.
      if (!def.takes_ref(specs.size() - 1)) specs.back().is_ref = false;
      constants.push_back(
          src.def->type == "Const" ? &std::get<Value>(src.attrs.find("value")->second) : nullptr);
      input_ops.push_back(in.op().id());
    }
    InferContext ctx{specs, node.attrs, constants};
    auto context = [&] {
      std::string shapes;
      for (std::size_t i = 0; i < specs.size(); ++i)
        shapes += (i ? ", " : "") + shape_text(specs[i].shape);
      return " for '" + node.name + "' (op: '" + std::string(def.type) +
             "') with input shapes: " + shapes + ".";
    };
    // Build-time errors keep their kind and say which node and inputs they concern.
    try {
      node.outputs = def.infer(ctx);
    } catch (const TypeError& e) {
      throw TypeError(e.message() + context());
    } catch (const Error& e) {
      throw ValueError(e.message() + context());
    }

    node.control_inputs = s.control_inputs_for(input_ops);
    for (const Operation& c : control_inputs)
      if (std::find(node.control_inputs.begin(), node.control_inputs.end(), c.id()) ==
          node.control_inputs.end())
        node.control_inputs.push_back(c.id());
    return Operation(state_, s.add_node(std::move(node)));
  }

  Operation get_operation_by_name(std::string_view name) const {
    if (name.find(':') != std::string_view::npos)
      throw ValueError("Name '" + std::string(name) +
                       "' appears to refer to a Tensor, not an Operation.");
    auto id = state_->find(name);
    if (!id)
      throw NotFoundError("The name '" + std::string(name) +
                          "' refers to an Operation not in the graph.");
    return Operation(state_, *id);
  }

  Output get_tensor_by_name(std::string_view name) const {
    auto colon = name.rfind(':');
    if (colon == std::string_view::npos)
      throw ValueError("The name '" + std::string(name) +
                       "' looks like an (invalid) Operation name, not a Tensor. Tensor names "
                       "must be of the form \"<op_name>:<output_index>\".");
    std::string_view op_name = name.substr(0, colon);
    int index = -1;
    try {
      index = std::stoi(std::string(name.substr(colon + 1)));
    } catch (const std::exception&) {
      throw ValueError("The name '" + std::string(name) +
                       "' has an invalid output index: expected \"<op_name>:<output_index>\".");
    }
    auto id = state_->find(op_name);
    if (!id)
      throw NotFoundError("The name '" + std::string(name) +
                          "' refers to a Tensor which does not "
                          "exist. The operation, '" +
                          std::string(op_name) + "', does not exist in the graph.");
    Operation op(state_, *id);
    if (index < 0 || index >= op.num_outputs())
      throw NotFoundError("The name '" + std::string(name) +
                          "' refers to a Tensor which does not "
                          "exist. The operation, '" +
                          std::string(op_name) + "', exists but only has " +
                          std::to_string(op.num_outputs()) + " outputs.");
    return Output(op, index);
  }

  std::vector<Operation> get_operations() const {
    std::vector<Operation> ops;
    for (std::uint32_t i = 0; i < state_->nodes.size(); ++i) ops.emplace_back(state_, NodeId{i});
    return ops;
  }

  // Collections (tf.add_to_collection and friends).
  void add_to_collection(std::string_view key, const Operation& op) {
    check_same_graph(op.graph_state(), key);
    state_->collections[std::string(key)].push_back(op.id());
  }
  void add_to_collection(std::string_view key, const Output& t) {
    check_same_graph(t.op().graph_state(), key);
    state_->collections[std::string(key)].push_back(t.ref());
  }
  void add_to_collection(std::string_view key, std::string value) {
    // In place: moving a temporary variant trips a false -Wmaybe-uninitialized in GCC 12.
    state_->collections[std::string(key)].emplace_back(std::in_place_type<std::string>,
                                                       std::move(value));
  }
  void add_to_collection(std::string_view key, const char* value) {
    add_to_collection(key, std::string(value));
  }
  void add_to_collection(std::string_view key, std::int64_t value) {
    state_->collections[std::string(key)].push_back(value);
  }
  void add_to_collection(std::string_view key, double value) {
    state_->collections[std::string(key)].push_back(value);
  }

  // The items of a collection; with `scope`, only ops and tensors whose name starts
  // with it (TensorFlow matches the scope as a prefix).
  std::vector<CollectionValue> get_collection(std::string_view key,
                                              std::string_view scope = {}) const {
    std::vector<CollectionValue> out;
    auto it = state_->collections.find(key);
    if (it == state_->collections.end()) return out;
    for (const auto& item : it->second) {
      CollectionValue v = to_value(item);
      if (!scope.empty()) {
        std::string name;
        if (auto* op = std::get_if<Operation>(&v)) name = op->name();
        if (auto* t = std::get_if<Output>(&v)) name = t->name();
        if (name.rfind(scope, 0) != 0) continue;
      }
      out.push_back(std::move(v));
    }
    return out;
  }
  // The collection's storage itself, to modify in place (tf.get_collection_ref).
  std::vector<detail::CollectionItem>& get_collection_ref(std::string_view key) {
    return state_->collections[std::string(key)];
  }
  std::vector<std::string> get_all_collection_keys() const {
    std::vector<std::string> keys;
    for (const auto& [k, v] : state_->collections) keys.push_back(k);
    return keys;
  }
  void clear_collection(std::string_view key) {
    auto it = state_->collections.find(key);
    if (it != state_->collections.end()) state_->collections.erase(it);
  }

  GraphDef as_graph_def() const {
    GraphDef def;
    for (std::uint32_t i = 0; i < state_->nodes.size(); ++i)
      def.node.push_back(Operation(state_, NodeId{i}).node_def());
    return def;
  }

  std::size_t num_nodes() const { return state_->nodes.size(); }
  std::optional<std::int64_t> seed() const { return state_->seed; }
  void set_seed(std::int64_t seed) { state_->seed = seed; }
  // After finalize() no op can be added (tf.Graph.finalize).
  void finalize() { state_->finalized = true; }
  bool finalized() const { return state_->finalized; }

  // Makes this graph the default of this thread until the guard ends.
  [[nodiscard]] DefaultGraphGuard as_default() const;

  detail::GraphState& state() const { return *state_; }
  const std::shared_ptr<detail::GraphState>& state_ptr() const { return state_; }

  friend bool operator==(const Graph& a, const Graph& b) { return a.state_ == b.state_; }

 private:
  static std::string shape_text(const Shape& s) {
    return s.has_rank() ? dims_to_string(s.dims()) : "?";
  }

  void check_owns(const Output& in, const OpDef& def) const {
    if (!in.valid())
      throw ValueError("Op " + std::string(def.type) + " got an empty tensor handle");
    if (in.op().graph_state() != state_)
      throw ValueError(to_string(in) + " must be from the same graph as the op " +
                       std::string(def.type) + " being built.");
  }
  void check_same_graph(const std::shared_ptr<detail::GraphState>& g, std::string_view key) const {
    if (g != state_)
      throw ValueError("Cannot add an item of another graph to collection '" + std::string(key) +
                       "'");
  }
  CollectionValue to_value(const detail::CollectionItem& item) const {
    return std::visit(
        [&](const auto& x) -> CollectionValue {
          using X = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<X, NodeId>)
            return Operation(state_, x);
          else if constexpr (std::is_same_v<X, TensorRef>)
            return Output(Operation(state_, x.node), x.index);
          else
            return x;
        },
        item);
  }

  std::shared_ptr<detail::GraphState> state_;
};

namespace detail {
struct DefaultGraphs {
  std::vector<Graph> stack;  // graphs made default by as_default()
  std::shared_ptr<Graph> global;
};
inline DefaultGraphs& default_graphs() {
  thread_local DefaultGraphs graphs;
  return graphs;
}
}  // namespace detail

// The innermost graph made default on this thread, else this thread's global graph.
inline Graph get_default_graph() {
  auto& d = detail::default_graphs();
  if (!d.stack.empty()) return d.stack.back();
  if (!d.global) d.global = std::make_shared<Graph>();
  return *d.global;
}

// Replaces the global default graph with a new, empty one (tf.reset_default_graph).
inline void reset_default_graph() {
  auto& d = detail::default_graphs();
  if (!d.stack.empty())
    throw FailedPreconditionError(
        "Do not use reset_default_graph() to clear nested graphs. If you need a cleared graph, "
        "exit the nesting and create a new graph.");
  d.global = std::make_shared<Graph>();
}

class DefaultGraphGuard {
 public:
  explicit DefaultGraphGuard(Graph g) : graph_(std::move(g)) {
    detail::default_graphs().stack.push_back(graph_);
  }
  ~DefaultGraphGuard() { detail::default_graphs().stack.pop_back(); }
  DefaultGraphGuard(const DefaultGraphGuard&) = delete;
  DefaultGraphGuard& operator=(const DefaultGraphGuard&) = delete;
  const Graph& graph() const { return graph_; }

 private:
  Graph graph_;
};

inline DefaultGraphGuard Graph::as_default() const { return DefaultGraphGuard(*this); }

// The graph the inputs belong to (all must share one), or the default graph.
inline Graph graph_of(const std::vector<Output>& inputs) {
  for (const Output& in : inputs)
    if (in.valid()) return Graph(in.op().graph_state());
  return get_default_graph();
}

inline Graph Operation::graph() const { return Graph(graph_); }
inline Graph Output::graph() const { return op_.graph(); }
inline Output Operation::output(int index) const {
  if (index < 0 || index >= num_outputs())
    throw ValueError("Operation " + name() + " has " + std::to_string(num_outputs()) +
                     " outputs, index " + std::to_string(index) + " is out of range");
  return Output(*this, index);
}
inline std::vector<Output> Operation::outputs() const {
  std::vector<Output> out;
  for (int i = 0; i < num_outputs(); ++i) out.emplace_back(*this, i);
  return out;
}
inline std::vector<Output> Operation::inputs() const {
  std::vector<Output> out;
  for (const TensorRef& r : node().inputs) out.emplace_back(Operation(graph_, r.node), r.index);
  return out;
}
inline std::vector<Operation> Operation::control_inputs() const {
  std::vector<Operation> out;
  for (NodeId c : node().control_inputs) out.emplace_back(graph_, c);
  return out;
}
inline NodeDef Operation::node_def() const {
  const detail::Node& n = node();
  NodeDef def;
  def.name = n.name;
  def.op = std::string(n.def->type);
  for (const TensorRef& r : n.inputs) {
    std::string src = graph_->node(r.node).name;
    def.input.push_back(r.index == 0 ? src : src + ":" + std::to_string(r.index));
  }
  for (NodeId c : n.control_inputs) def.input.push_back("^" + graph_->node(c).name);
  def.device = n.device;
  def.attr = n.attrs;
  return def;
}

}  // namespace symflow
