#pragma once
// Graph: a handle to a graph's state, plus the per-thread default-graph stack.
// Operations are added with create_op, which applies TensorFlow's naming, the
// enclosing control dependencies and device, and build-time shape inference.
// graph/graph_inl.hpp defines what this header declares (detail/config.hpp).

#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "symflow/detail/config.hpp"
#include "symflow/graph/feed.hpp"
#include "symflow/graph/graph_def.hpp"
#include "symflow/graph/graph_state.hpp"
#include "symflow/graph/operation.hpp"
#include "symflow/graph/tensor.hpp"

namespace symflow {

// A fetch of an operation that Graph::prevent_fetching marked (TensorFlow's
// InaccessibleTensorError, a ValueError).
class InaccessibleTensorError : public ValueError {
 public:
  using ValueError::ValueError;
};

// What get_collection returns: the handles and plain values stored in a collection.
using CollectionValue = std::variant<Operation, Output, std::string, std::int64_t, double>;

// What as_graph_element returns: an operation or a tensor of the graph.
using GraphElement = std::variant<Operation, Output>;

class DefaultGraphGuard;
class Variable;

class Graph {
 public:
  Graph() : state_(std::make_shared<detail::GraphState>()) {}
  explicit Graph(std::shared_ptr<detail::GraphState> state) : state_(std::move(state)) {}

  // Adds a node. `name` is the user's name or the op's default name; a name ending
  // in '/' (a captured name scope) is used exactly, without the slash.
  Operation create_op(const OpDef& def, const std::vector<Output>& inputs, AttrMap attrs,
                      std::string_view name, const std::vector<Operation>& control_inputs = {});

  // An operation by name ("op"): ValueError for a tensor's name ("op:0"), KeyError when
  // the graph has no such operation (tf.Graph.get_operation_by_name).
  Operation get_operation_by_name(std::string_view name) const;

  // A tensor by name ("op:0"; the index is read as Python's int() reads it, and a
  // negative one counts from the end): ValueError for a name without one index, KeyError
  // when the operation or its output does not exist (tf.Graph.get_tensor_by_name).
  Output get_tensor_by_name(std::string_view name) const;

  // The operation or tensor a name, an Operation or an Output stands for, of the kinds
  // allowed (tf.Graph.as_graph_element); TensorFlow's ValueError, KeyError or TypeError
  // otherwise.
  GraphElement as_graph_element(std::string_view name, bool allow_tensor = true,
                                bool allow_operation = true) const;
  GraphElement as_graph_element(const Output& tensor, bool allow_tensor = true,
                                bool allow_operation = true) const;
  GraphElement as_graph_element(const Operation& op, bool allow_tensor = true,
                                bool allow_operation = true) const;

  // The name an op named `name` would get in the current name scope, made unique (case
  // blind) with a "_N" suffix (tf.Graph.unique_name). With mark_as_used = false the name
  // is only looked at: nothing is reserved, and the next call returns the same name.
  std::string unique_name(std::string_view name, bool mark_as_used = true) {
    return state_->unique_name(name, mark_as_used);
  }

  std::vector<Operation> get_operations() const;

  // Collections (tf.add_to_collection and friends).
  void add_to_collection(std::string_view key, const Operation& op) {
    check_not_finalized();
    check_same_graph(op.graph_state(), key);
    state_->collections[std::string(key)].push_back(op.id());
  }
  void add_to_collection(std::string_view key, const Output& t) {
    check_not_finalized();
    check_same_graph(t.op().graph_state(), key);
    state_->collections[std::string(key)].push_back(t.ref());
  }
  // A variable goes in as itself (its VariableV2 op), not as the tensor it reads, as a
  // tf.Variable does; defined in variables/variable.hpp.
  inline void add_to_collection(std::string_view key, const Variable& v);
  void add_to_collection(std::string_view key, std::string value) {
    check_not_finalized();
    // In place: moving a temporary variant trips a false -Wmaybe-uninitialized in GCC 12.
    state_->collections[std::string(key)].emplace_back(std::in_place_type<std::string>,
                                                       std::move(value));
  }
  void add_to_collection(std::string_view key, const char* value) {
    add_to_collection(key, std::string(value));
  }
  void add_to_collection(std::string_view key, std::int64_t value) {
    check_not_finalized();
    state_->collections[std::string(key)].push_back(value);
  }
  void add_to_collection(std::string_view key, double value) {
    check_not_finalized();
    state_->collections[std::string(key)].push_back(value);
  }

  // The items of a collection; with `scope`, only ops and tensors whose name starts
  // with it (TensorFlow matches the scope as a prefix).
  std::vector<CollectionValue> get_collection(std::string_view key,
                                              std::string_view scope = {}) const;
  // The collection's storage itself, to modify in place (tf.get_collection_ref); a
  // finalized graph hands it out too, as TensorFlow's does.
  std::vector<detail::CollectionItem>& get_collection_ref(std::string_view key) {
    return state_->collections[std::string(key)];
  }
  std::vector<std::string> get_all_collection_keys() const {
    std::vector<std::string> keys;
    for (const auto& [k, v] : state_->collections) keys.push_back(k);
    return keys;
  }
  void clear_collection(std::string_view key) {
    check_not_finalized();
    auto it = state_->collections.find(key);
    if (it != state_->collections.end()) state_->collections.erase(it);
  }

  GraphDef as_graph_def() const;

  std::size_t num_nodes() const { return state_->nodes.size(); }
  std::optional<std::int64_t> seed() const { return state_->seed; }
  void set_seed(std::int64_t seed) { state_->seed = seed; }
  // After finalize() no op can be added and no collection changed: each raises a
  // RuntimeError, TensorFlow's Python-side error (tf.Graph.finalize).
  void finalize() { state_->finalized = true; }
  bool finalized() const { return state_->finalized; }

  // Tensors a run may not feed and operations a run may not fetch (tf.Graph's
  // prevent_feeding / prevent_fetching): a Session refuses them with TensorFlow's
  // ValueError and InaccessibleTensorError. A fetchable tensor is one whose op is.
  // Handles of another graph are a ValueError, as they would name this graph's nodes.
  void prevent_feeding(const Output& tensor) {
    check_element(tensor);
    state_->unfeedable.insert(tensor.ref());
  }
  void prevent_fetching(const Operation& op) {
    check_element(op);
    state_->unfetchable.insert(op.id());
  }
  bool is_feedable(const Output& tensor) const {
    check_element(tensor);
    return !state_->unfeedable.contains(tensor.ref());
  }
  bool is_fetchable(const Operation& op) const {
    check_element(op);
    return !state_->unfetchable.contains(op.id());
  }
  bool is_fetchable(const Output& tensor) const {
    check_element(tensor);
    return !state_->unfetchable.contains(tensor.op().id());
  }

  // Makes this graph the default of this thread until the guard ends.
  [[nodiscard]] DefaultGraphGuard as_default() const;

  detail::GraphState& state() const { return *state_; }
  const std::shared_ptr<detail::GraphState>& state_ptr() const { return state_; }

  friend bool operator==(const Graph& a, const Graph& b) { return a.state_ == b.state_; }

 private:
  static std::string shape_text(const Shape& s) {
    return s.has_rank() ? dims_to_string(s.dims()) : "?";
  }

  void check_owns(const Output& in, const OpDef& def) const;
  // create_op once the inputs are what the op reads in context `branch` (0: none).
  Operation create_in_context(const OpDef& def, const std::vector<Output>& inputs, AttrMap attrs,
                              std::string_view name, const std::vector<Operation>& control_inputs,
                              std::uint32_t branch);
  void check_element(const Operation& op) const {
    if (!op.valid()) throw ValueError("Operation is an empty handle");
    if (op.graph_state() != state_)
      throw ValueError("Operation " + op.name() + " is not an element of this graph.");
  }
  void check_element(const Output& tensor) const {
    if (!tensor.valid()) throw ValueError("Tensor is an empty handle");
    if (tensor.op().graph_state() != state_)
      throw ValueError("Tensor " + to_string(tensor) + " is not an element of this graph.");
  }
  void check_not_finalized() const {
    if (state_->finalized) throw RuntimeError("Graph is finalized and cannot be modified.");
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

namespace detail {
// Switch(data, pred) (RefSwitch for a variable reference), colocated with data's op as
// TensorFlow's _SwitchRefOrTensor colocates it; with `lift`, built outside every cond
// branch and control dependency (as a branch's own Switches are).
SYMFLOW_INLINE Operation make_switch(const Graph& g, const Output& data, const Output& pred,
                                     std::string_view name = "Switch", bool lift = true);
// Enter(data) into loop context `loop`'s frame (RefEnter for a variable reference, with
// `use_ref`), built outside every context and control dependency but those TensorFlow
// keeps on an Enter; named "Enter" or "RefEnter" without a name.
SYMFLOW_INLINE Operation make_enter(const Graph& g, const Output& data, std::uint32_t loop,
                                    bool is_constant, std::string_view name = {},
                                    bool use_ref = true);
// What an op built in context `context` reads for `value`: the value itself, or what
// was made for it on first use, a Switch output in a cond branch or a constant Enter in
// a loop (TensorFlow's ControlFlowContext.AddValue).
SYMFLOW_INLINE TensorRef context_add_value(const Graph& g, std::uint32_t context, TensorRef value);
}  // namespace detail

// The graph the inputs belong to (all must share one), or the default graph.
inline Graph graph_of(const std::vector<Output>& inputs) {
  for (const Output& in : inputs)
    if (in.valid()) return Graph(in.op().graph_state());
  return get_default_graph();
}

inline Graph Operation::graph() const { return Graph(graph_); }
inline Graph Output::graph() const { return op_.graph(); }
}  // namespace symflow

#if !defined(SYMFLOW_COMPILED)
#include "symflow/graph/graph_inl.hpp"
#endif
