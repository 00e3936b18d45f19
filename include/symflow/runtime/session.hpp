#pragma once
// Session: binds a graph to its devices, validates feeds and fetches, places the
// nodes, caches one plan per (fetches, feeds, targets) signature and hands it to the
// executor.
//
// Threads: run() may be called from several threads at once, as in TensorFlow. Runs
// share the session's lock; only building a new plan, close() and load_variable take
// it alone. Variables have their own locks, and a stateful kernel (a random op's
// generator) runs for one run at a time. The graph may grow while runs are in flight,
// as in TensorFlow: a run whose signature has a plan already, with fetches and feeds
// given as handles, reads nothing of the graph (its plan holds what it needs). Planning
// a new signature, and resolving names, read the graph: do not add ops meanwhile.
//
// This header declares; runtime/session_inl.hpp defines (detail/config.hpp): a source
// that only runs graphs parses no executor, planner or device.

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "symflow/backend/devices.hpp"
#include "symflow/detail/config.hpp"
#include "symflow/graph/feed.hpp"
#include "symflow/graph/graph.hpp"
#include "symflow/runtime/options.hpp"

namespace symflow {

class DefaultSessionGuard;
namespace detail {
class SessionImpl;
}

class Session : public Evaluator {
 public:
  // The devices are made here, in the program's own source, not in the compiled library
  // (detail/config.hpp): whether the program has a GPU backend (SYMFLOW_THRUST, set by
  // the targets symflow::thrust_omp and symflow::cuda) is for its sources to say.
  explicit Session(Graph graph = get_default_graph(), ConfigProto config = {})
      : Session(make_devices(config), std::move(graph), config) {}
  explicit Session(ConfigProto config) : Session(get_default_graph(), std::move(config)) {}
  ~Session() override;
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  const Graph& graph() const;
  const ConfigProto& config() const;

  // Runs the fetches (tensors, operations or names) and returns one Value per fetch;
  // an operation's Value is empty. `targets` run too but return nothing.
  std::vector<Value> run(const std::vector<Fetch>& fetches, const FeedDict& feeds = {},
                         const std::vector<Operation>& targets = {});

  // The elementwise clusters that run as one fused kernel for this run signature:
  // each cluster's node names, in run order (see OptimizerOptions::do_fusion). Builds
  // and caches the plan, runs nothing.
  std::vector<std::vector<std::string>> fused_clusters(const std::vector<Fetch>& fetches,
                                                       const FeedDict& feeds = {},
                                                       const std::vector<Operation>& targets = {});

  Value run(const Output& fetch, const FeedDict& feeds = {});
  Value run(const std::string& fetch_name, const FeedDict& feeds = {});
  void run(const Operation& target, const FeedDict& feeds = {});

  std::vector<Value> evaluate(const std::vector<Fetch>& fetches, const FeedDict& feeds) override {
    return run(fetches, feeds);
  }

  // Releases the session's resources; any later run is a FailedPreconditionError.
  void close();
  bool closed() const;

  // Makes this session the default for tensor.eval() on this thread until the guard ends.
  [[nodiscard]] DefaultSessionGuard as_default();

  // Whether the variable behind `ref` (a VariableV2 output) holds a value in this
  // session.
  bool is_initialized(const Output& ref);

  // Sets the variable behind `variable` (a VariableV2 op) to `value` without running
  // any op (TensorFlow's Variable.load): how Saver::restore writes the values it read.
  // InvalidArgumentError when the value's dtype or shape does not fit the variable.
  void load_variable(const Operation& variable, const Value& value);

  // How many distinct plans have been built (one per run signature).
  std::size_t num_cached_plans() const;
  // How many threads an op may use (ConfigProto::intra_op_parallelism_threads; 0 there
  // means one per core).
  int intra_op_threads() const;
  // How many threads may run a run's independent steps at once
  // (ConfigProto::inter_op_parallelism_threads; 1: the calling thread runs them in order).
  int inter_op_threads() const;

  // The session's devices, full names ("/job:localhost/replica:0/task:0/device:CPU:0"),
  // as TensorFlow's Session.list_devices() gives them.
  std::vector<std::string> list_devices() const;
  // Where `op` runs in this session (placing it, and its colocated ops, if no run has).
  std::string device_of(const Operation& op);

 private:
  static bool hides_gpu(const ConfigProto& config) {
    const auto count = config.device_count.find("GPU");
    return count != config.device_count.end() && count->second <= 0;
  }
  static detail::DeviceSet make_devices(const ConfigProto& config) {
    return detail::make_device_set(hides_gpu(config), config.gpu_options);
  }
  Session(detail::DeviceSet devices, Graph graph, const ConfigProto& config);

  std::unique_ptr<detail::SessionImpl> impl_;
};

class DefaultSessionGuard {
 public:
  explicit DefaultSessionGuard(Session& s) { detail::default_evaluators().push_back(&s); }
  ~DefaultSessionGuard() { detail::default_evaluators().pop_back(); }
  DefaultSessionGuard(const DefaultSessionGuard&) = delete;
  DefaultSessionGuard& operator=(const DefaultSessionGuard&) = delete;
};

inline DefaultSessionGuard Session::as_default() { return DefaultSessionGuard(*this); }

}  // namespace symflow

#if !defined(SYMFLOW_COMPILED)
#include "symflow/runtime/session_inl.hpp"
#endif
