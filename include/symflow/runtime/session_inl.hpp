#pragma once
// The Session's definitions (runtime/session.hpp declares it): included by that header
// in a header-only program, and by symflow/define_compiled.hpp alone in a program built
// with SYMFLOW_COMPILED. Include runtime/session.hpp instead.

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

#include "symflow/backend/devices.hpp"
#include "symflow/core/small_vector.hpp"
#include "symflow/graph/feed.hpp"
#include "symflow/graph/graph.hpp"
#include "symflow/runtime/executor.hpp"
#include "symflow/runtime/options.hpp"
#include "symflow/runtime/placement.hpp"
#include "symflow/runtime/plan.hpp"
#include "symflow/runtime/session.hpp"

namespace symflow {

namespace detail {

// What a Session holds and does; the Session forwards to it.
class SessionImpl {
 public:
  SessionImpl(Graph graph, ConfigProto config, DeviceSet devices)
      : graph_(std::move(graph)),
        config_(std::move(config)),
        devices_(std::move(devices)),
        placer_(devices_, config_),
        run_devices_(devices_.backends),
        intra_op_(std::make_unique<ThreadPool>(config_.intra_op_parallelism_threads)) {
    state_.intra_op = intra_op_.get();
    state_.memory_limit_bytes = config_.memory_limit_bytes;
    // Independent steps on several threads only when asked for (options.hpp says why).
    if (config_.inter_op_parallelism_threads > 1) {
      inter_op_ = std::make_unique<ThreadPool>(config_.inter_op_parallelism_threads);
      state_.inter_op = inter_op_.get();
    }
  }

  const Graph& graph() const { return graph_; }
  const ConfigProto& config() const { return config_; }

  // Runs the fetches (tensors, operations or names) and returns one Value per fetch;
  // an operation's Value is empty. `targets` run too but return nothing.
  std::vector<Value> run(const std::vector<Fetch>& fetches, const FeedDict& feeds,
                         const std::vector<Operation>& targets) {
    std::shared_lock lock(mutex_);
    const Plan& plan = plan_of(fetches, feeds, targets, lock);
    Run run(plan, run_devices_, state_);
    feed_all(run, plan, feeds);
    run.go();
    return run.results();
  }
  // The same for one tensor.
  Value run(const Output& fetch, const FeedDict& feeds) {
    std::shared_lock lock(mutex_);
    if (closed_) throw FailedPreconditionError("Attempted to use a closed Session.");
    TensorRef ref;
    try {
      ref = own(fetch, "Fetch").ref();
    } catch (const Error&) {
      check_not_empty();  // TensorFlow's order: an empty graph, a bad feed, then the fetch
      check_feeds(feeds);
      throw;
    }
    PlanKey key(4 + 2 * feeds.size());
    key[0] = ref.node.value;
    key[1] = ref.index;
    key[2] = kEndOfFetches;
    key[3] = kEndOfTargets;
    add_feeds_to_key(
        feeds, key, 4, [&] { return std::vector<Fetch>{fetch}; }, no_targets());
    const Plan& plan = plan_for(
        key, [&] { return std::vector<Fetch>{fetch}; }, feeds, no_targets(), lock);
    Run run(plan, run_devices_, state_);
    feed_all(run, plan, feeds);
    run.go();
    return run.result();
  }

  // The elementwise clusters that run as one fused kernel for this run signature:
  // each cluster's node names, in run order (see OptimizerOptions::do_fusion). Builds
  // and caches the plan, runs nothing.
  std::vector<std::vector<std::string>> fused_clusters(const std::vector<Fetch>& fetches,
                                                       const FeedDict& feeds,
                                                       const std::vector<Operation>& targets) {
    std::shared_lock lock(mutex_);
    const Plan& plan = plan_of(fetches, feeds, targets, lock);
    std::vector<std::vector<std::string>> out;
    for (const FusedCluster& c : plan.fusion.clusters) {
      out.emplace_back();
      for (std::size_t step : c.steps) out.back().push_back(plan.nodes[step].name);
    }
    return out;
  }

  // Releases the session's resources; any later run is a FailedPreconditionError.
  void close() {
    std::unique_lock lock(mutex_);
    closed_ = true;
    last_plan_.store(nullptr, std::memory_order_relaxed);
    plans_.clear();
    state_.variables.clear();
  }
  bool closed() const { return closed_; }

  // Whether the variable behind `ref` (a VariableV2 output) holds a value in this
  // session.
  bool is_initialized(const Output& ref) {
    std::shared_lock lock(mutex_);
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
    std::unique_lock lock(mutex_);
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
    // A copy in the variable's memory: the caller's buffer must not alias it.
    placer_.place(graph_.state(), {op.id()});
    const Backend& device =
        *devices_.backends[static_cast<std::size_t>(placer_.device_of(op.id()))];
    Value copy =
        device.memory_space() == MemorySpace::host ? value.clone() : device.from_host(value);
    std::lock_guard slot_lock(slot->mutex);
    slot->value = std::move(copy);
    slot->initialized = true;
  }

  // How many distinct plans have been built (one per run signature).
  std::size_t num_cached_plans() const {
    std::shared_lock lock(mutex_);
    return plans_.size();
  }
  // How many threads an op may use (ConfigProto::intra_op_parallelism_threads; 0 there
  // means one per core).
  int intra_op_threads() const { return intra_op_->num_threads(); }
  // How many threads may run a run's independent steps at once
  // (ConfigProto::inter_op_parallelism_threads; 1: the calling thread runs them in order).
  int inter_op_threads() const { return inter_op_ ? inter_op_->num_threads() : 1; }

  // The session's devices, full names ("/job:localhost/replica:0/task:0/device:CPU:0"),
  // as TensorFlow's Session.list_devices() gives them.
  std::vector<std::string> list_devices() const { return devices_.names; }
  // Where `op` runs in this session (placing it, and its colocated ops, if no run has).
  std::string device_of(const Operation& op) {
    std::unique_lock lock(mutex_);
    Operation own_op = own(op, "Operation");
    placer_.place(graph_.state(), {own_op.id()});
    return devices_.names[static_cast<std::size_t>(placer_.device_of(own_op.id()))];
  }

 private:
  // A run signature: each fetch's (node, output) or (-1, -1) for an operation, then
  // kEndOfFetches, the ids of the operations to run (fetched ones first, then the
  // targets), kEndOfTargets, and each feed's (node, output). Handles resolve without
  // reading the graph; names are looked up in it.
  using PlanKey = SmallVector<std::int64_t, 32>;
  static const std::vector<Operation>& no_targets() {
    static const std::vector<Operation> none;
    return none;
  }
  static constexpr std::int64_t kEndOfFetches = -2;
  static constexpr std::int64_t kEndOfTargets = -3;
  struct KeyLess {
    using is_transparent = void;
    template <class A, class B>
    bool operator()(const A& a, const B& b) const {
      return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end());
    }
  };

  // Writes a fetch's tensor into `key` (an operation goes to `fetched_ops`).
  void add_fetch_to_key(const Fetch& f, PlanKey& key,
                        SmallVector<std::int64_t, 8>& fetched_ops) const {
    std::optional<TensorRef> ref;
    if (auto* t = std::get_if<Output>(&f.target)) {
      ref = own(*t, "Fetch").ref();
    } else if (auto* op = std::get_if<Operation>(&f.target)) {
      fetched_ops.push_back(own(*op, "Fetch").id().value);
    } else {
      check_not_empty();  // before the lookup, whose error TensorFlow does not reach
      const std::string& name = std::get<std::string>(f.target);
      const bool tensor_name = name.find(':') != std::string::npos;
      try {
        if (tensor_name)
          ref = graph_.get_tensor_by_name(name).ref();
        else
          fetched_ops.push_back(graph_.get_operation_by_name(name).id().value);
      } catch (const KeyError& e) {
        // TensorFlow 1.x's session: a name that is not in the graph is a ValueError.
        throw ValueError("Fetch argument '" + name + "' cannot be interpreted as a " +
                         (tensor_name ? "Tensor" : "Operation") + ". (" + e.message() + ")");
      }
    }
    key.push_back(ref ? ref->node.value : -1);
    key.push_back(ref ? ref->index : -1);
  }

  void build_key(const std::vector<Fetch>& fetches, const FeedDict& feeds,
                 const std::vector<Operation>& targets, PlanKey& key) const {
    SmallVector<std::int64_t, 8> fetched_ops;
    for (const Fetch& f : fetches) {
      try {
        add_fetch_to_key(f, key, fetched_ops);
      } catch (const Error&) {
        // TensorFlow reports an empty graph first, then a bad feed, then a bad fetch.
        check_not_empty();
        check_feeds(feeds);
        throw;
      }
    }
    key.push_back(kEndOfFetches);
    for (std::int64_t id : fetched_ops) key.push_back(id);
    for (const Operation& op : targets) key.push_back(own(op, "Target").id().value);
    key.push_back(kEndOfTargets);
    const std::size_t first_feed = key.size();
    key.resize(first_feed + 2 * feeds.size());
    add_feeds_to_key(
        feeds, key, first_feed, [&]() -> const std::vector<Fetch>& { return fetches; }, targets);
  }

  // Writes each feed's tensor into `key` from `at` on. A feed that does not resolve
  // fails as the full check (check_args) fails, which reports the first bad argument
  // in order.
  template <class Fetches>
  void add_feeds_to_key(const FeedDict& feeds, PlanKey& key, std::size_t at, Fetches fetches,
                        const std::vector<Operation>& targets) const {
    for (const Feed& feed : feeds) {
      TensorRef ref;
      try {
        if (auto* t = std::get_if<Output>(&feed.tensor))
          ref = own(*t, "Feed").ref();
        else
          ref = graph_.get_tensor_by_name(std::get<std::string>(feed.tensor)).ref();
      } catch (const Error&) {
        check_args(fetches(), feeds, targets);  // throws the first error, in order
        throw;
      }
      key[at++] = ref.node.value;
      key[at++] = ref.index;
    }
  }

  // What make_plan needs of a run's arguments, resolved and checked.
  struct RunArgs {
    std::vector<std::optional<TensorRef>> fetch_refs;
    std::vector<NodeId> target_ids;
    std::vector<TensorRef> feed_refs;
  };
  // Resolves and checks every argument, feeds first and then fetches and targets, in the
  // order TensorFlow's Session.run checks them, as a run of a new signature does (reading
  // the graph): the first bad one throws.
  RunArgs check_args(const std::vector<Fetch>& fetches, const FeedDict& feeds,
                     const std::vector<Operation>& targets) const {
    check_not_empty();
    RunArgs args;
    args.feed_refs = check_feeds(feeds);
    for (const Fetch& f : fetches) {
      std::optional<TensorRef> ref;
      resolve_fetch(f, ref, args.target_ids);
      if (ref) check_fetchable(ref->node);
      args.fetch_refs.push_back(ref);
    }
    for (const NodeId id : args.target_ids) check_fetchable(id);
    for (const Operation& op : targets) {
      args.target_ids.push_back(own(op, "Target").id());
      check_fetchable(args.target_ids.back());
    }
    return args;
  }

  // Resolves and checks every feed, in order: the first bad one throws.
  std::vector<TensorRef> check_feeds(const FeedDict& feeds) const {
    std::vector<TensorRef> refs;
    for (const Feed& feed : feeds) {
      Output t = resolve_feed_tensor(feed);
      if (graph_.state().unfeedable.contains(t.ref()))
        throw ValueError("Tensor " + t.name() + " may not be fed.");
      check_feed(t.name(), t.dtype(), t.get_shape(), feed.value);
      if (std::find(refs.begin(), refs.end(), t.ref()) != refs.end())
        throw ValueError("Tensor " + t.name() + " is fed twice");
      refs.push_back(t.ref());
    }
    return refs;
  }

  // The plan of a run of `fetches` with `feeds` and `targets`, on an open session;
  // `lock` is held shared (plan_for says why it may be retaken).
  const Plan& plan_of(const std::vector<Fetch>& fetches, const FeedDict& feeds,
                      const std::vector<Operation>& targets,
                      std::shared_lock<std::shared_mutex>& lock) {
    if (closed_) throw FailedPreconditionError("Attempted to use a closed Session.");
    PlanKey key;
    build_key(fetches, feeds, targets, key);
    return plan_for(
        key, [&]() -> const std::vector<Fetch>& { return fetches; }, feeds, targets, lock);
  }

  // The plan of the signature `key`. A cached plan checks the feeds against what it
  // recorded of the fed tensors, and reads nothing of the graph; a new signature is
  // checked in full and planned. `lock` is held shared; it is dropped and retaken to
  // build a missing plan.
  // `fetches()` gives the run's fetches (a new signature only needs them).
  template <class Fetches>
  const Plan& plan_for(const PlanKey& key, Fetches fetches, const FeedDict& feeds,
                       const std::vector<Operation>& targets,
                       std::shared_lock<std::shared_mutex>& lock) {
    const PlanEntry* entry = last_plan_.load(std::memory_order_relaxed);
    if (!entry || !std::equal(key.begin(), key.end(), entry->first.begin(), entry->first.end())) {
      auto it = plans_.find(key);
      entry = it == plans_.end() ? nullptr : &*it;
      if (entry) last_plan_.store(entry, std::memory_order_relaxed);
    }
    if (entry) {
      const Plan& plan = entry->second;
      check_preventions(key);
      for (std::size_t i = 0; i < feeds.size(); ++i) {
        const FeedSpec& spec = plan.feed_specs[i];
        check_feed(spec.name, spec.dtype, spec.shape, feeds[i].value);
      }
      return plan;
    }
    RunArgs args = check_args(fetches(), feeds, targets);
    // A new signature: plan it alone (runs in flight finish first), then share again.
    lock.unlock();
    {
      std::unique_lock exclusive(mutex_);
      if (closed_) throw FailedPreconditionError("Attempted to use a closed Session.");
      if (plans_.find(key) == plans_.end()) {
        PlanDevices plan_devices;
        plan_devices.place = [&](const std::vector<NodeId>& order) {
          placer_.place(graph_.state(), order);
          std::vector<std::uint8_t> device_of_step;
          for (NodeId id : order)
            device_of_step.push_back(static_cast<std::uint8_t>(placer_.device_of(id)));
          return device_of_step;
        };
        plan_devices.backends = devices_.backends;
        if (config_.graph_options.optimizer_options.do_fusion)
          for (const Backend* b : devices_.backends)
            plan_devices.fused_kernels.push_back(b->fused_kernel());
        Plan plan = detail::make_plan(graph_.state(), args.fetch_refs, args.target_ids,
                                      args.feed_refs, plan_devices);
        detail::attach_scratch(plan);
        state_.reserve_nodes(plan.num_nodes);
        plans_.emplace(std::vector<std::int64_t>(key.begin(), key.end()), std::move(plan));
      }
    }
    lock.lock();
    if (closed_) throw FailedPreconditionError("Attempted to use a closed Session.");
    return plans_.find(key)->second;  // std::map: entries stay put while others are added
  }

  // TensorFlow refuses any run of a session whose graph has no operation. Checked where
  // the graph is read anyway: a new signature's planning, and name lookups (a cached
  // plan's graph had operations, and a graph never loses any).
  void check_not_empty() const {
    if (graph_.state().nodes.empty())
      throw RuntimeError(
          "The Session graph is empty. Add operations to the graph before calling run().");
  }
  // Graph::prevent_feeding / prevent_fetching on a cached signature (marked after it was
  // planned): the key holds every fetched and fed tensor. Two emptiness tests when
  // nothing is marked, the usual case; marking while runs are in flight changes the graph.
  void check_preventions(const PlanKey& key) const {
    const detail::GraphState& state = graph_.state();
    if (state.unfeedable.empty() && state.unfetchable.empty()) [[likely]]
      return;
    std::size_t at = 0;
    for (; key[at] != kEndOfFetches; at += 2)
      if (key[at] >= 0) check_fetchable(NodeId{static_cast<std::uint32_t>(key[at])});
    for (++at; key[at] != kEndOfTargets; ++at)
      check_fetchable(NodeId{static_cast<std::uint32_t>(key[at])});
    for (++at; at < key.size(); at += 2) {
      const TensorRef ref{NodeId{static_cast<std::uint32_t>(key[at])},
                          static_cast<int>(key[at + 1])};
      if (state.unfeedable.contains(ref))
        throw ValueError("Tensor " +
                         Output(Operation(graph_.state_ptr(), ref.node), ref.index).name() +
                         " may not be fed.");
    }
  }
  // Graph::prevent_fetching.
  void check_fetchable(NodeId id) const {
    if (graph_.state().unfetchable.contains(id))
      throw InaccessibleTensorError(
          "Operation " + graph_.state().node(id).name +
          " has been marked as not fetchable. Typically this happens when it is defined in "
          "another function or code block. Use return values, explicit Python locals or "
          "TensorFlow collections to access it.");
  }

  const Operation& own(const Operation& op, std::string_view what) const {
    if (op.valid() && op.graph_state() == graph_.state_ptr()) [[likely]]
      return op;
    not_own(op, what);
  }
  const Output& own(const Output& t, std::string_view what) const {
    if (t.valid() && t.op().graph_state() == graph_.state_ptr()) [[likely]]
      return t;
    not_own(t, what);
  }
  [[noreturn]] static void not_own(const Operation& op, std::string_view what) {
    if (!op.valid()) throw ValueError(std::string(what) + " is an empty operation handle");
    throw ValueError(std::string(what) + " argument " + op.name() +
                     " cannot be interpreted as an Operation: it is not an element of this graph.");
  }
  [[noreturn]] static void not_own(const Output& t, std::string_view what) {
    if (!t.valid()) throw ValueError(std::string(what) + " is an empty tensor handle");
    throw ValueError(std::string(what) + " argument " + to_string(t) +
                     " cannot be interpreted as a Tensor. (Tensor " + to_string(t) +
                     " is not an element of this graph.)");
  }

  // A fetch's tensor (none for an operation, whose id goes to `ops`).
  void resolve_fetch(const Fetch& f, std::optional<TensorRef>& ref,
                     std::vector<NodeId>& ops) const {
    if (auto* t = std::get_if<Output>(&f.target)) {
      ref = own(*t, "Fetch").ref();
    } else if (auto* op = std::get_if<Operation>(&f.target)) {
      ops.push_back(own(*op, "Fetch").id());
    } else {
      const std::string& name = std::get<std::string>(f.target);
      if (name.find(':') != std::string::npos)
        ref = graph_.get_tensor_by_name(name).ref();
      else
        ops.push_back(graph_.get_operation_by_name(name).id());
    }
  }

  // A feed's tensor. A name that is not a tensor's is TensorFlow's TypeError, which
  // carries the lookup's message.
  Output resolve_feed_tensor(const Feed& feed) const {
    if (auto* t = std::get_if<Output>(&feed.tensor)) return own(*t, "Feed");
    try {
      return graph_.get_tensor_by_name(std::get<std::string>(feed.tensor));
    } catch (const Error& e) {
      throw TypeError("Cannot interpret feed_dict key as Tensor: " + e.message());
    }
  }

  // Shape::is_compatible_with(dims), without making a Shape of the dims.
  static bool fits(const Shape& shape, const Dims& dims) {
    if (!shape.has_rank()) return true;
    const Dims& want = shape.dims();
    if (want.size() != dims.size()) return false;
    for (std::size_t i = 0; i < dims.size(); ++i)
      if (want[i] >= 0 && want[i] != dims[i]) return false;
    return true;
  }
  // Feeds are checked against the tensor's static type before anything runs. A host
  // value of another numeric or bool dtype is converted as NumPy's astype converts it,
  // as TensorFlow's Python client does (np.asarray(value, dtype)): feed_all.
  static bool converts(DType from, DType to, const Value& v) {
    return from != DType::string && to != DType::string && from != DType::invalid &&
           to != DType::invalid && v.memory_space() == MemorySpace::host;
  }
  static void feed_all(Run& run, const Plan& plan, const FeedDict& feeds) {
    for (std::size_t i = 0; i < feeds.size(); ++i) {
      const Value& v = feeds[i].value;
      const DType want = plan.feed_specs[i].dtype;
      if (v.dtype() == want) [[likely]]
        run.feed(i, v);
      else
        run.feed(i, v.astype(want));
    }
  }
  // TensorFlow's client refuses a single integer (a Python int) that an integer or bool
  // tensor cannot hold, where it would wrap an array's elements: a C++ integer scalar is
  // that Python int.
  static void check_integer_fits(const Value& v, DType dtype) {
    if (v.rank() != 0 || !is_integer(v.dtype()) || !(is_integer(dtype) || dtype == DType::bool_))
      return;
    const auto original = v.astype(DType::int64).scalar<std::int64_t>();
    const auto kept = v.astype(dtype).astype(DType::int64).scalar<std::int64_t>();
    if (original != kept)
      throw TypeError("Type of feed value " + std::to_string(original) + " with type " +
                      std::string(dtype_name(v.dtype())) + " is not compatible with Tensor type " +
                      std::string(dtype_name(dtype)) +
                      ". Try explicitly setting the type of the feed tensor to a larger type "
                      "(e.g. int64).");
  }
  static void check_feed(const std::string& name, DType dtype, const Shape& shape, const Value& v) {
    if (v.dtype() == dtype && fits(shape, v.dims())) [[likely]]
      return;
    if (v.is_none()) throw ValueError("Cannot feed an empty value for Tensor '" + name + "'");
    if (v.dtype() != dtype && !converts(v.dtype(), dtype, v))
      throw TypeError("Cannot feed value of dtype " + std::string(dtype_name(v.dtype())) +
                      " for Tensor '" + name + "', which has dtype " +
                      std::string(dtype_name(dtype)));
    if (v.dtype() != dtype) check_integer_fits(v, dtype);
    if (fits(shape, v.dims())) return;
    throw ValueError("Cannot feed value of shape " + Shape(v.dims()).to_string() + " for Tensor '" +
                     name + "', which has shape '" + shape.to_string() + "'");
  }

  Graph graph_;
  ConfigProto config_;
  detail::DeviceSet devices_;       // device 0 is the CPU
  detail::Placer placer_;           // changed under the exclusive lock only
  detail::RunDevices run_devices_;  // devices_ as a run uses them
  std::unique_ptr<ThreadPool> intra_op_;
  std::unique_ptr<ThreadPool> inter_op_;  // null: steps run in order on the calling thread
  std::map<std::vector<std::int64_t>, Plan, KeyLess> plans_;
  // The plan the last run found (any thread's): most runs repeat one signature. Entries
  // of plans_ stay put until close(), which empties both under the exclusive lock.
  using PlanEntry = std::pair<const std::vector<std::int64_t>, Plan>;
  std::atomic<const PlanEntry*> last_plan_{nullptr};
  detail::SessionState state_;  // variables and kernel state: this session's alone
  mutable std::shared_mutex mutex_;
  std::atomic<bool> closed_ = false;
};

}  // namespace detail

SYMFLOW_INLINE Session::Session(detail::DeviceSet devices, Graph graph, const ConfigProto& config)
    : impl_(std::make_unique<detail::SessionImpl>(std::move(graph), config, std::move(devices))) {}
SYMFLOW_INLINE Session::~Session() = default;

SYMFLOW_INLINE const Graph& Session::graph() const { return impl_->graph(); }
SYMFLOW_INLINE const ConfigProto& Session::config() const { return impl_->config(); }

SYMFLOW_INLINE std::vector<Value> Session::run(const std::vector<Fetch>& fetches,
                                               const FeedDict& feeds,
                                               const std::vector<Operation>& targets) {
  return impl_->run(fetches, feeds, targets);
}

SYMFLOW_INLINE Value Session::run(const Output& fetch, const FeedDict& feeds) {
  return impl_->run(fetch, feeds);
}
SYMFLOW_INLINE Value Session::run(const std::string& fetch_name, const FeedDict& feeds) {
  return run(std::vector<Fetch>{fetch_name}, feeds).at(0);
}
SYMFLOW_INLINE void Session::run(const Operation& target, const FeedDict& feeds) {
  run(std::vector<Fetch>{target}, feeds);
}

SYMFLOW_INLINE std::vector<std::vector<std::string>> Session::fused_clusters(
    const std::vector<Fetch>& fetches, const FeedDict& feeds,
    const std::vector<Operation>& targets) {
  return impl_->fused_clusters(fetches, feeds, targets);
}

SYMFLOW_INLINE void Session::close() { impl_->close(); }
SYMFLOW_INLINE bool Session::closed() const { return impl_->closed(); }

SYMFLOW_INLINE bool Session::is_initialized(const Output& ref) {
  return impl_->is_initialized(ref);
}

SYMFLOW_INLINE void Session::load_variable(const Operation& variable, const Value& value) {
  impl_->load_variable(variable, value);
}

SYMFLOW_INLINE std::size_t Session::num_cached_plans() const { return impl_->num_cached_plans(); }
SYMFLOW_INLINE int Session::intra_op_threads() const { return impl_->intra_op_threads(); }
SYMFLOW_INLINE int Session::inter_op_threads() const { return impl_->inter_op_threads(); }
SYMFLOW_INLINE std::vector<std::string> Session::list_devices() const {
  return impl_->list_devices();
}
SYMFLOW_INLINE std::string Session::device_of(const Operation& op) { return impl_->device_of(op); }

}  // namespace symflow
