#pragma once
// Operation: a handle to one node, (graph, node id). Cheap to copy; it keeps its
// graph alive.

#include <memory>
#include <string>
#include <vector>

#include "symflow/graph/graph_def.hpp"
#include "symflow/graph/graph_state.hpp"

namespace symflow {

class Graph;
class Output;
class Evaluator;
struct Feed;
using FeedDict = std::vector<Feed>;

class Operation {
 public:
  Operation() = default;
  Operation(std::shared_ptr<detail::GraphState> graph, NodeId id)
      : graph_(std::move(graph)), id_(id) {}

  bool valid() const { return graph_ != nullptr; }
  NodeId id() const { return id_; }
  const std::string& name() const { return node().name; }
  // The op type, e.g. "MatMul" (TensorFlow's Operation.type).
  std::string type() const { return std::string(node().def->type); }
  const OpDef& op_def() const { return *node().def; }
  const std::string& device() const { return node().device; }
  const AttrMap& attrs() const { return node().attrs; }
  template <class T>
  const T& get_attr(std::string_view attr_name) const {
    return symflow::get_attr<T>(node().attrs, attr_name, name());
  }

  int num_inputs() const { return static_cast<int>(node().inputs.size()); }
  int num_outputs() const { return static_cast<int>(node().outputs.size()); }
  std::vector<Output> inputs() const;
  std::vector<Output> outputs() const;
  Output output(int index) const;
  std::vector<Operation> control_inputs() const;
  Graph graph() const;
  NodeDef node_def() const;

  // Runs this op in the default session (see Session::as_default, InteractiveSession),
  // or in `session`: tf.Operation.run.
  void run() const;
  void run(const FeedDict& feeds) const;
  void run(Evaluator& session, const FeedDict& feeds) const;

  const detail::Node& node() const { return graph_->node(id_); }
  const std::shared_ptr<detail::GraphState>& graph_state() const { return graph_; }

  friend bool operator==(const Operation& a, const Operation& b) {
    return a.graph_ == b.graph_ && a.id_ == b.id_;
  }

 private:
  std::shared_ptr<detail::GraphState> graph_;
  NodeId id_;
};

}  // namespace symflow
