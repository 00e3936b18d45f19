#pragma once
// RAII guards over a graph's construction state: the Python `with` blocks of
// tf.name_scope, tf.control_dependencies and tf.device.

#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "symflow/detail/config.hpp"
#include "symflow/graph/device_spec.hpp"
#include "symflow/graph/graph.hpp"

namespace symflow {

// Opens a name scope: ops built inside get "name/" in front of their names. A name
// already in use is uniquified ("conv1_1"); a name ending in '/' re-opens that exact
// scope; an empty name returns to the root scope.
class name_scope {
 public:
  explicit name_scope(std::string_view name) : name_scope(get_default_graph(), name) {}
  name_scope(Graph graph, std::string_view name) : graph_(std::move(graph)) { enter(name); }
  // tf.name_scope(name, default_name, values): the graph of `values`, and
  // `default_name` when `name` is empty.
  name_scope(std::string_view name, std::string_view default_name,
             const std::vector<Output>& values)
      : graph_(graph_of(values)) {
    if (name.empty() && default_name.empty())
      throw ValueError("name_scope needs a name or a default_name");
    enter(name.empty() ? default_name : name);
  }
  ~name_scope() { graph_.state().name_stack = saved_; }
  name_scope(const name_scope&) = delete;
  name_scope& operator=(const name_scope&) = delete;

  // The scope's name with its trailing slash ("conv1/"), or "" at the root: pass it
  // as an op's name to name the op exactly after the scope.
  const std::string& name() const { return name_; }

 private:
  void enter(std::string_view name);

  Graph graph_;
  std::string saved_;
  std::string name_;
};

// Ops built inside run only after `deps` (tf.control_dependencies). Passing nullptr
// clears the dependencies of the enclosing contexts for ops built inside.
class control_dependencies {
 public:
  using Dependency = std::variant<Operation, Output>;

  control_dependencies(std::initializer_list<Dependency> deps)
      : control_dependencies(std::vector<Dependency>(deps)) {}
  explicit control_dependencies(const std::vector<Operation>& ops)
      : control_dependencies(std::vector<Dependency>(ops.begin(), ops.end())) {}
  explicit control_dependencies(const std::vector<Dependency>& deps) : graph_(graph_for(deps)) {
    detail::ControlFrame frame;
    for (const auto& d : deps) {
      Operation op =
          std::holds_alternative<Operation>(d) ? std::get<Operation>(d) : std::get<Output>(d).op();
      if (op.graph_state() != graph_.state_ptr())
        throw ValueError("control_dependencies: " + op.name() + " is from another graph");
      frame.control_inputs.push_back(op.id());
    }
    graph_.state().control_frames.push_back(std::move(frame));
  }
  // The ops and tensors of a collection, as the seed's
  // control_dependencies(get_collection(GraphKeys::UPDATE_OPS)).
  explicit control_dependencies(const std::vector<CollectionValue>& items)
      : control_dependencies(dependencies_of(items)) {}
  explicit control_dependencies(std::nullptr_t)
      : control_dependencies(get_default_graph(), nullptr) {}
  // As in TensorFlow, it also leaves the cond branch being built (variables use it).
  control_dependencies(Graph graph, std::nullptr_t) : graph_(std::move(graph)) {
    detail::ControlFrame frame;
    frame.clears_outer = true;
    frame.saved_context = graph_.state().current_context;
    graph_.state().current_context = 0;
    graph_.state().control_frames.push_back(std::move(frame));
  }
  ~control_dependencies() {
    auto& s = graph_.state();
    if (s.control_frames.back().clears_outer)
      s.current_context = s.control_frames.back().saved_context;
    s.control_frames.pop_back();
  }
  control_dependencies(const control_dependencies&) = delete;
  control_dependencies& operator=(const control_dependencies&) = delete;

 private:
  static std::vector<Dependency> dependencies_of(const std::vector<CollectionValue>& items) {
    std::vector<Dependency> deps;
    for (const CollectionValue& item : items) {
      if (const auto* op = std::get_if<Operation>(&item))
        deps.emplace_back(*op);
      else if (const auto* t = std::get_if<Output>(&item))
        deps.emplace_back(*t);
      else
        throw TypeError(
            "control_dependencies: a collection item is a string or a number; only operations "
            "and tensors can be control inputs");
    }
    return deps;
  }
  static Graph graph_for(const std::vector<Dependency>& deps) {
    for (const auto& d : deps)
      return Graph(std::holds_alternative<Operation>(d) ? std::get<Operation>(d).graph_state()
                                                        : std::get<Output>(d).op().graph_state());
    return get_default_graph();
  }

  Graph graph_;
};

// Records a device on the ops built inside (tf.device): "/cpu:0", "/gpu:0",
// "/device:GPU:0". Ops carry the canonical spelling ("/device:GPU:0"); a nested
// guard overrides the fields it sets. An unparseable name is a ValueError.
class device {
 public:
  explicit device(std::string_view name) : device(get_default_graph(), name) {}
  device(Graph graph, std::string_view name) : graph_(std::move(graph)) {
    saved_ = graph_.state().device;
    graph_.state().device =
        DeviceSpec::parse(saved_).merged_with(DeviceSpec::parse(name)).to_string();
  }
  ~device() { graph_.state().device = saved_; }
  device(const device&) = delete;
  device& operator=(const device&) = delete;

 private:
  Graph graph_;
  std::string saved_;
};

}  // namespace symflow

#if !defined(SYMFLOW_COMPILED)
#include "symflow/graph/scopes_inl.hpp"
#endif
