#pragma once
// Session: binds a graph to a backend, validates feeds and fetches, caches one plan
// per (fetches, feeds, targets) signature and hands it to the executor.

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "symflow/backend/cpu/cpu_backend.hpp"
#include "symflow/backend/cpu/fused.hpp"
#include "symflow/graph/feed.hpp"
#include "symflow/graph/graph.hpp"
#include "symflow/runtime/executor.hpp"
#include "symflow/runtime/options.hpp"
#include "symflow/runtime/plan.hpp"

namespace symflow {

class DefaultSessionGuard;

class Session final : public Evaluator {
 public:
  explicit Session(Graph graph = get_default_graph(), ConfigProto config = {})
      : graph_(std::move(graph)), config_(config), backend_(std::make_unique<CpuBackend>()) {}
  explicit Session(ConfigProto config) : Session(get_default_graph(), config) {}
  ~Session() override = default;
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  const Graph& graph() const { return graph_; }
  const ConfigProto& config() const { return config_; }

  // Runs the fetches (tensors, operations or names) and returns one Value per fetch;
  // an operation's Value is empty. `targets` run too but return nothing.
  std::vector<Value> run(const std::vector<Fetch>& fetches, const FeedDict& feeds = {},
                         const std::vector<Operation>& targets = {}) {
    std::lock_guard lock(mutex_);
    if (closed_) throw FailedPreconditionError("Attempted to use a closed Session.");
    std::vector<Value> feed_values;
    const Plan& plan = plan_for(fetches, feeds, targets, feed_values);
    return detail::execute(plan, graph_.state(), *backend_, feed_values, state_);
  }

  // The elementwise clusters that run as one fused kernel for this run signature:
  // each cluster's node names, in run order (see OptimizerOptions::do_fusion). Builds
  // and caches the plan, runs nothing.
  std::vector<std::vector<std::string>> fused_clusters(const std::vector<Fetch>& fetches,
                                                       const FeedDict& feeds = {},
                                                       const std::vector<Operation>& targets = {}) {
    std::lock_guard lock(mutex_);
    if (closed_) throw FailedPreconditionError("Attempted to use a closed Session.");
    std::vector<Value> feed_values;
    const Plan& plan = plan_for(fetches, feeds, targets, feed_values);
    std::vector<std::vector<std::string>> out;
    for (const FusedCluster& c : plan.fusion.clusters) {
      out.emplace_back();
      for (std::size_t step : c.steps)
        out.back().push_back(graph_.state().node(plan.order[step]).name);
    }
    return out;
  }

  Value run(const Output& fetch, const FeedDict& feeds = {}) {
    return run(std::vector<Fetch>{fetch}, feeds).at(0);
  }
  Value run(const std::string& fetch_name, const FeedDict& feeds = {}) {
    return run(std::vector<Fetch>{fetch_name}, feeds).at(0);
  }
  void run(const Operation& target, const FeedDict& feeds = {}) {
    run(std::vector<Fetch>{target}, feeds);
  }

  std::vector<Value> evaluate(const std::vector<Fetch>& fetches, const FeedDict& feeds) override {
    return run(fetches, feeds);
  }

  // Releases the session's resources; any later run is a FailedPreconditionError.
  void close() {
    std::lock_guard lock(mutex_);
    closed_ = true;
    plans_.clear();
    state_.variables.clear();
  }
  bool closed() const { return closed_; }

  // Makes this session the default for tensor.eval() on this thread until the guard ends.
  [[nodiscard]] DefaultSessionGuard as_default();

  // Whether the variable behind `ref` (a VariableV2 output) holds a value in this
  // session.
  bool is_initialized(const Output& ref) {
    std::lock_guard lock(mutex_);
    Operation op = own(ref, "Variable").op();
    if (op.type() != "VariableV2")
      throw TypeError("is_initialized needs a variable, got " + op.name() + " (" + op.type() + ")");
    auto slot = state_.variables.find(VariableStore::key(
        op.get_attr<std::string>("container"), op.get_attr<std::string>("shared_name"), op.name()));
    if (!slot) return false;
    std::lock_guard slot_lock(slot->mutex);
    return slot->initialized;
  }

  // Sets the variable behind `variable` (a VariableV2 op) to `value` without running
  // any op (TensorFlow's Variable.load): how Saver::restore writes the values it read.
  // InvalidArgumentError when the value's dtype or shape does not fit the variable.
  void load_variable(const Operation& variable, const Value& value) {
    std::lock_guard lock(mutex_);
    if (closed_) throw FailedPreconditionError("Attempted to use a closed Session.");
    Operation op = own(variable, "Variable");
    if (op.type() != "VariableV2")
      throw TypeError("load_variable needs a variable, got " + op.name() + " (" + op.type() + ")");
    DType dtype = op.get_attr<DType>("dtype");
    const Shape& shape = op.get_attr<Shape>("shape");
    if (value.dtype() != dtype)
      throw InvalidArgumentError(
          "Cannot load a value of dtype " + std::string(dtype_name(value.dtype())) +
              " into variable " + op.name() + ", which has dtype " + std::string(dtype_name(dtype)),
          op.name());
    if (!shape.is_compatible_with(value.dims()))
      throw InvalidArgumentError("Cannot load a value of shape " + Shape(value.dims()).to_string() +
                                     " into variable " + op.name() + ", which has shape " +
                                     shape.to_string(),
                                 op.name());
    auto slot = state_.variables.slot(
        VariableStore::key(op.get_attr<std::string>("container"),
                           op.get_attr<std::string>("shared_name"), op.name()),
        op.name());
    // A copy: the caller's buffer must not alias the variable's.
    Value copy = value.clone();
    std::lock_guard slot_lock(slot->mutex);
    slot->value = std::move(copy);
    slot->initialized = true;
  }

  // How many distinct plans have been built (one per run signature).
  std::size_t num_cached_plans() const { return plans_.size(); }

 private:
  // Resolves and checks the fetches and feeds, and returns the signature's plan.
  const Plan& plan_for(const std::vector<Fetch>& fetches, const FeedDict& feeds,
                       const std::vector<Operation>& targets, std::vector<Value>& feed_values) {
    std::vector<std::optional<TensorRef>> fetch_refs;
    std::vector<NodeId> target_ids;
    for (const Fetch& f : fetches) resolve_fetch(f, fetch_refs, target_ids);
    for (const Operation& op : targets) target_ids.push_back(own(op, "Target").id());

    std::vector<TensorRef> feed_refs;
    for (const Feed& feed : feeds) {
      Output t = resolve_feed_tensor(feed);
      check_feed(t, feed.value);
      if (std::find(feed_refs.begin(), feed_refs.end(), t.ref()) != feed_refs.end())
        throw ValueError("Tensor " + t.name() + " is fed twice");
      feed_refs.push_back(t.ref());
      feed_values.push_back(feed.value);
    }
    return cached_plan(fetch_refs, target_ids, feed_refs);
  }

  Operation own(const Operation& op, std::string_view what) const {
    if (!op.valid()) throw ValueError(std::string(what) + " is an empty operation handle");
    if (op.graph_state() != graph_.state_ptr())
      throw ValueError(
          std::string(what) + " argument " + op.name() +
          " cannot be interpreted as an Operation: it is not an element of this graph.");
    return op;
  }
  Output own(const Output& t, std::string_view what) const {
    if (!t.valid()) throw ValueError(std::string(what) + " is an empty tensor handle");
    if (t.op().graph_state() != graph_.state_ptr())
      throw ValueError(std::string(what) + " argument " + to_string(t) +
                       " cannot be interpreted as a Tensor. (Tensor " + to_string(t) +
                       " is not an element of this graph.)");
    return t;
  }

  void resolve_fetch(const Fetch& f, std::vector<std::optional<TensorRef>>& refs,
                     std::vector<NodeId>& targets) const {
    if (auto* t = std::get_if<Output>(&f.target)) {
      refs.push_back(own(*t, "Fetch").ref());
    } else if (auto* op = std::get_if<Operation>(&f.target)) {
      targets.push_back(own(*op, "Fetch").id());
      refs.push_back(std::nullopt);
    } else {
      const std::string& name = std::get<std::string>(f.target);
      if (name.find(':') != std::string::npos) {
        refs.push_back(graph_.get_tensor_by_name(name).ref());
      } else {
        targets.push_back(graph_.get_operation_by_name(name).id());
        refs.push_back(std::nullopt);
      }
    }
  }

  Output resolve_feed_tensor(const Feed& feed) const {
    if (auto* t = std::get_if<Output>(&feed.tensor)) return own(*t, "Feed");
    return graph_.get_tensor_by_name(std::get<std::string>(feed.tensor));
  }

  // Feeds are checked against the tensor's static type before anything runs.
  static void check_feed(const Output& t, const Value& v) {
    if (v.is_none()) throw ValueError("Cannot feed an empty value for Tensor '" + t.name() + "'");
    if (v.dtype() != t.dtype())
      throw TypeError("Cannot feed value of dtype " + std::string(dtype_name(v.dtype())) +
                      " for Tensor '" + t.name() + "', which has dtype " +
                      std::string(dtype_name(t.dtype())));
    if (!t.get_shape().is_compatible_with(v.dims()))
      throw ValueError("Cannot feed value of shape " + Shape(v.dims()).to_string() +
                       " for Tensor '" + t.name() + "', which has shape '" +
                       t.get_shape().to_string() + "'");
  }

  const Plan& cached_plan(const std::vector<std::optional<TensorRef>>& fetches,
                          const std::vector<NodeId>& targets, const std::vector<TensorRef>& feeds) {
    std::vector<std::int64_t> key;
    for (const auto& f : fetches) {
      key.push_back(f ? f->node.value : -1);
      key.push_back(f ? f->index : -1);
    }
    key.push_back(-2);
    for (NodeId t : targets) key.push_back(t.value);
    key.push_back(-3);
    for (const TensorRef& r : feeds) {
      key.push_back(r.node.value);
      key.push_back(r.index);
    }
    auto it = plans_.find(key);
    if (it == plans_.end())
      it = plans_
               .emplace(std::move(key),
                        detail::make_plan(graph_.state(), fetches, targets, feeds, fused_kernel()))
               .first;
    return it->second;
  }

  // The CPU backend's fused kernel, unless the config turns fusion off.
  FusedKernelFn fused_kernel() const {
    return config_.graph_options.optimizer_options.do_fusion ? &cpu::run_fused : nullptr;
  }

  Graph graph_;
  ConfigProto config_;
  std::unique_ptr<Backend> backend_;
  std::map<std::vector<std::int64_t>, Plan> plans_;
  detail::SessionState state_;  // variables and kernel state: this session's alone
  std::mutex mutex_;
  bool closed_ = false;
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
