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
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
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

// Structured fetches (TensorFlow's fetches of lists, tuples and dicts): a std::tuple, a
// std::map or a std::vector of fetches, nested as deep as wanted, comes back as the same
// structure of Values. A std::vector<Fetch> keeps its own overload.
template <class S>
struct FetchStructure {
  static_assert(std::is_convertible_v<const S&, Fetch>,
                "a structured fetch holds tensors, operations or names (anything a Fetch takes), "
                "in std::tuple, std::map or std::vector");
  using Result = Value;
  static void flatten(const S& fetch, std::vector<Fetch>& out) { out.emplace_back(fetch); }
  static Result rebuild(const S&, std::vector<Value>& values, std::size_t& at) {
    return std::move(values[at++]);
  }
};
template <class... Ts>
struct FetchStructure<std::tuple<Ts...>> {
  using Result = std::tuple<typename FetchStructure<Ts>::Result...>;
  static void flatten(const std::tuple<Ts...>& fetches, std::vector<Fetch>& out) {
    std::apply([&](const Ts&... f) { (FetchStructure<Ts>::flatten(f, out), ...); }, fetches);
  }
  static Result rebuild(const std::tuple<Ts...>& fetches, std::vector<Value>& values,
                        std::size_t& at) {
    // Braced initialization evaluates its elements in order, so `at` advances in order.
    return std::apply(
        [&](const Ts&... f) { return Result{FetchStructure<Ts>::rebuild(f, values, at)...}; },
        fetches);
  }
};
template <class K, class T, class C, class A>
struct FetchStructure<std::map<K, T, C, A>> {
  using Result = std::map<K, typename FetchStructure<T>::Result, C>;
  static void flatten(const std::map<K, T, C, A>& fetches, std::vector<Fetch>& out) {
    for (const auto& [key, f] : fetches) FetchStructure<T>::flatten(f, out);
  }
  static Result rebuild(const std::map<K, T, C, A>& fetches, std::vector<Value>& values,
                        std::size_t& at) {
    Result result(fetches.key_comp());
    for (const auto& [key, f] : fetches)
      result.emplace(key, FetchStructure<T>::rebuild(f, values, at));
    return result;
  }
};
template <class T, class A>
struct FetchStructure<std::vector<T, A>> {
  using Result = std::vector<typename FetchStructure<T>::Result>;
  static void flatten(const std::vector<T, A>& fetches, std::vector<Fetch>& out) {
    for (const T& f : fetches) FetchStructure<T>::flatten(f, out);
  }
  static Result rebuild(const std::vector<T, A>& fetches, std::vector<Value>& values,
                        std::size_t& at) {
    Result result;
    result.reserve(fetches.size());
    for (const T& f : fetches) result.push_back(FetchStructure<T>::rebuild(f, values, at));
    return result;
  }
};

template <class S>
inline constexpr bool is_fetch_structure = false;
template <class... Ts>
inline constexpr bool is_fetch_structure<std::tuple<Ts...>> = true;
template <class K, class T, class C, class A>
inline constexpr bool is_fetch_structure<std::map<K, T, C, A>> = true;
template <class T, class A>
inline constexpr bool is_fetch_structure<std::vector<T, A>> = !std::is_same_v<T, Fetch>;
}  // namespace detail

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

  // A structure of fetches: std::tuple (auto [a, b] = sess.run(std::tuple{x, y})),
  // std::map (a std::map<std::string, Value> for a std::map<std::string, Output>) and
  // std::vector, nested; the Values come back in the same structure, in one run.
  template <class S>
  requires detail::is_fetch_structure<S>
  typename detail::FetchStructure<S>::Result run(const S& fetches, const FeedDict& feeds = {},
                                                 const std::vector<Operation>& targets = {}) {
    std::vector<Fetch> flat;
    detail::FetchStructure<S>::flatten(fetches, flat);
    std::vector<Value> values = run(flat, feeds, targets);
    std::size_t at = 0;
    return detail::FetchStructure<S>::rebuild(fetches, values, at);
  }

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
