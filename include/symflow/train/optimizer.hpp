#pragma once
// Optimizer: the base of TensorFlow 1.x's optimizers (tf.train.Optimizer).
//
//   compute_gradients(loss, var_list)   (gradient, variable) pairs; the gradient is
//                                       taken with respect to the variable's reference
//                                       ("w:0"), and is invalid (None) where loss does
//                                       not depend on the variable, and IndexedSlices
//                                       where only some rows get one (a gather)
//   apply_gradients(pairs, global_step) one update op per variable with a gradient,
//                                       grouped, then global_step += 1 when given
//   minimize(loss, {...})               both
//
// The graph it builds is TensorFlow's, name for name: slots ("w/Adam") before the
// optimizer's scope, then inside "<name>/" the hyperparameter constants
// ("Adam/learning_rate"), one "update_<var>/" scope per variable holding its Apply op
// (and the Casts of hyperparameters to a float64 variable's dtype), the group
// "update", and the AssignAdd of the global step named after the optimizer ("Adam").
// Without a global step the group itself carries that name. An IndexedSlices gradient
// updates only its rows: its duplicate indices summed first (Unique, UnsortedSegmentSum),
// then each optimizer's sparse update (SparseApplyMomentum, ScatterAdd, ...).

#include <algorithm>
#include <concepts>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "symflow/graph/collections.hpp"
#include "symflow/graph/scopes.hpp"
#include "symflow/ops/control_ops.hpp"
#include "symflow/ops/data_flow_ops.hpp"
#include "symflow/ops/indexed_slices.hpp"
#include "symflow/ops/math_ops.hpp"
#include "symflow/ops/state_ops.hpp"
#include "symflow/ops/training_ops.hpp"
#include "symflow/train/gradients.hpp"
#include "symflow/train/slot_creator.hpp"
#include "symflow/variables/variable.hpp"

namespace symflow::train {

// A hyperparameter (learning rate, momentum, ...): a number or a tensor. A number
// becomes a Const when the optimizer is applied, as Python's convert_to_tensor makes
// one: float32 for a floating-point number (so 0.1 is 0.1f, cast to a float64
// variable's dtype where needed, as in TensorFlow), int32 for an integer.
class Hyperparameter {
  // An integer hyperparameter is an int32 constant, as TensorFlow converts a Python int;
  // one that int32 cannot hold is a ValueError, not a wrapped number.
  template <std::integral I>
  static Value int32_value(I v) {
    if (!std::in_range<std::int32_t>(v))
      throw ValueError("Hyperparameter " + std::to_string(v) + " does not fit in int32");
    return Value(static_cast<std::int32_t>(v));
  }

 public:
  template <std::floating_point F>
  Hyperparameter(F v) : value_(Value(static_cast<float>(v))) {}  // NOLINT: implicit
  template <std::integral I>
  requires(!std::same_as<I, bool>) Hyperparameter(I v)
      : value_(int32_value(v)) {}                            // NOLINT: implicit
  Hyperparameter(const Output& tensor) : tensor_(tensor) {}  // NOLINT: implicit
  template <class T>
  requires(std::convertible_to<T, Output> && !std::same_as<T, Output> && !std::is_arithmetic_v<T>)
      Hyperparameter(const T& tensor)
      : tensor_(static_cast<Output>(tensor)) {}  // NOLINT: Variable

  bool is_tensor() const { return tensor_.valid(); }
  const Output& tensor() const { return tensor_; }
  const Value& value() const { return value_; }
  // The tensor, or a Const `name` in g's current name scope (convert_to_tensor).
  Output to_tensor(Graph& g, std::string_view name) const {
    if (is_tensor()) return tensor_;
    return symflow::detail::make_const(g, value_, name).output(0);
  }

 private:
  Value value_;
  Output tensor_;
};

// A gradient (a tensor or IndexedSlices) and the variable it updates; an invalid
// gradient is TensorFlow's None.
using GradAndVar = std::pair<Gradient, Variable>;

// The keyword arguments of minimize.
// How much the optimizers order the gradient computation (TensorFlow's
// Optimizer.GATE_*): GATE_NONE not at all, GATE_OP (the default) each op's input
// gradients as a tuple, GATE_GRAPH also every gradient before any update.
enum GateGradients { GATE_NONE = 0, GATE_OP = 1, GATE_GRAPH = 2 };

struct MinimizeOptions {
  // Incremented by one after the updates (see get_or_create_global_step).
  std::optional<Variable> global_step = std::nullopt;
  // The variables to update; empty: the TRAINABLE_VARIABLES of loss's graph.
  std::vector<Variable> var_list = {};
  // The name scope of the update ops and the name of the returned op; empty: the
  // optimizer's name.
  std::string name = {};
  // The gradient of the loss itself (default: ones).
  Output grad_loss = {};
  GateGradients gate_gradients = GATE_OP;
  AggregationMethod aggregation_method = AggregationMethod::ADD_N;
};

namespace detail {

// TensorFlow's Optimizer._assert_valid_dtypes.
inline void assert_valid_dtype(DType dtype, const std::string& name) {
  if (dtype != DType::float32 && dtype != DType::float64)
    throw ValueError("Invalid type tf." + std::string(dtype_name(dtype)) + " for " + name +
                     ", expected: [tf.float32, tf.float64, tf.float16, tf.bfloat16].");
}

// Python's repr of a list of str(variable).
inline std::string variable_list_repr(const std::vector<GradAndVar>& grads_and_vars) {
  std::string s = "[";
  for (std::size_t i = 0; i < grads_and_vars.size(); ++i)
    s += (i ? ", \"" : "\"") + to_string(grads_and_vars[i].second) + "\"";
  return s + "]";
}

// Runs `build` as inside TensorFlow's colocate_with(op): the nodes it makes get op's
// colocation group, and no device of the enclosing context.
template <class F>
auto colocated(Graph& g, const Operation& op, F build) {
  device no_device(g, "");
  std::size_t first = g.num_nodes();
  if constexpr (std::is_void_v<decltype(build())>) {
    build();
    colocate_since(g, first, op);
  } else {
    auto result = build();
    colocate_since(g, first, op);
    return result;
  }
}

// TensorFlow's _deduplicate_indexed_slices: the distinct indices (Unique) and, for
// each, the sum of its rows (UnsortedSegmentSum over shape(unique)[0] segments).
inline IndexedSlices deduplicate(const IndexedSlices& grad) {
  const UniqueOutputs unique_indices = unique(grad.indices);
  const Output count = shape(unique_indices.y)[0];
  const Output summed = unsorted_segment_sum(grad.values, unique_indices.idx, count);
  return IndexedSlices{summed, unique_indices.y, grad.dense_shape};
}

// GATE_GRAPH: every gradient computed before any is used (tf.tuple over the tensors and
// the slices' values).
inline std::vector<Gradient> gate_all(const std::vector<Gradient>& grads) {
  std::vector<Output> tensors;
  for (const Gradient& grad : grads)
    if (grad.valid()) tensors.push_back(grad.is_sparse() ? grad.sparse().values : grad.dense());
  if (tensors.empty()) return grads;
  const std::vector<Output> gated = tuple(tensors);
  std::vector<Gradient> out;
  std::size_t k = 0;
  for (const Gradient& grad : grads) {
    if (!grad.valid()) {
      out.emplace_back();
    } else if (grad.is_sparse()) {
      IndexedSlices slices = grad.sparse();
      slices.values = gated[k++];
      out.emplace_back(slices);
    } else {
      out.emplace_back(gated[k++]);
    }
  }
  return out;
}

}  // namespace detail

class Optimizer {
 public:
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;
  Optimizer(Optimizer&&) = default;
  Optimizer& operator=(Optimizer&&) = default;

  const std::string& get_name() const { return name_; }

  // The gradient of `loss` with respect to each variable of `var_list` (default: the
  // trainable variables of loss's graph). A variable loss does not depend on gets an
  // invalid gradient.
  std::vector<GradAndVar> compute_gradients(
      const Output& loss, std::vector<Variable> var_list = {}, const Output& grad_loss = {},
      GateGradients gate_gradients = GATE_OP,
      AggregationMethod aggregation_method = AggregationMethod::ADD_N) {
    if (!loss.valid()) throw ValueError("compute_gradients: loss is an empty tensor handle");
    detail::assert_valid_dtype(loss.dtype(), loss.name());
    if (grad_loss.valid()) detail::assert_valid_dtype(grad_loss.dtype(), grad_loss.name());
    if (var_list.empty()) var_list = variables_in(GraphKeys::TRAINABLE_VARIABLES, loss.graph());
    if (var_list.empty()) throw ValueError("No variables to optimize.");
    std::vector<Output> refs;
    for (const Variable& v : var_list) refs.push_back(v.ref());
    std::vector<Output> grad_ys;
    if (grad_loss.valid()) grad_ys.push_back(grad_loss);
    std::vector<Gradient> grads = gradients_with_slices(
        {loss}, refs, grad_ys,
        {.gate_gradients = gate_gradients == GATE_OP, .aggregation_method = aggregation_method});
    if (gate_gradients == GATE_GRAPH) grads = detail::gate_all(grads);
    std::vector<GradAndVar> out;
    for (std::size_t i = 0; i < var_list.size(); ++i) {
      Gradient grad = i < grads.size() ? grads[i] : Gradient{};
      if (grad.valid()) detail::assert_valid_dtype(var_list[i].dtype(), var_list[i].name());
      out.emplace_back(grad, var_list[i]);
    }
    return out;
  }

  // Builds the updates of every variable with a gradient (the others are skipped)
  // and returns the op that runs them: the global step's AssignAdd when a global step
  // is given, else their group. The op joins the TRAIN_OP collection.
  Operation apply_gradients(const std::vector<GradAndVar>& grads_and_vars,
                            const std::optional<Variable>& global_step = std::nullopt,
                            std::string_view name = {}) {
    if (grads_and_vars.empty()) throw ValueError("No variables provided.");
    std::vector<Variable> var_list;
    for (const auto& [grad, var] : grads_and_vars) {
      if (!var.valid()) throw ValueError("apply_gradients: a variable is an empty handle");
      if (grad.valid()) var_list.push_back(var);
    }
    if (var_list.empty())
      throw ValueError("No gradients provided for any variable: " +
                       detail::variable_list_repr(grads_and_vars) + ".");
    Graph g = var_list.front().graph();
    {
      // TensorFlow's init_scope: slots do not depend on the caller's control context.
      control_dependencies lifted(g, nullptr);
      create_slots(var_list);
    }
    name_scope scope(g, name.empty() ? std::string_view(name_) : name);
    prepare(g);
    std::vector<Operation> update_ops;
    for (const auto& [grad, var] : grads_and_vars) {
      if (!grad.valid()) continue;
      name_scope update(g, "update_" + var.op().name());
      // Init-captures: clang before 16 cannot capture structured bindings.
      update_ops.push_back(detail::colocated(g, var.op(), [&, &grad = grad, &var = var] {
        return grad.is_sparse() ? apply_sparse_duplicate_indices(grad.sparse(), var)
                                : apply_dense(grad.dense(), var);
      }));
    }
    Operation apply_updates;
    if (!global_step) {
      apply_updates = finish(update_ops, scope.name());
    } else {
      Operation update = finish(update_ops, "update");
      control_dependencies after({update});
      apply_updates = detail::colocated(g, global_step->op(), [&] {
        return assign_add(global_step->ref(), 1, false, scope.name()).op();
      });
    }
    auto train_ops = g.get_collection(GraphKeys::TRAIN_OP);
    if (std::find(train_ops.begin(), train_ops.end(), CollectionValue(apply_updates)) ==
        train_ops.end())
      g.add_to_collection(GraphKeys::TRAIN_OP, apply_updates);
    return apply_updates;
  }

  // compute_gradients, then apply_gradients. ValueError when no variable gets a
  // gradient.
  Operation minimize(const Output& loss, const MinimizeOptions& options = {}) {
    std::vector<GradAndVar> grads_and_vars =
        compute_gradients(loss, options.var_list, options.grad_loss, options.gate_gradients,
                          options.aggregation_method);
    bool any = std::any_of(grads_and_vars.begin(), grads_and_vars.end(),
                           [](const GradAndVar& gv) { return gv.first.valid(); });
    if (!any)
      throw ValueError(
          "No gradients provided for any variable, check your graph for ops that do not "
          "support gradients, between variables " +
          detail::variable_list_repr(grads_and_vars) + " and loss " + to_string(loss) + ".");
    return apply_gradients(grads_and_vars, options.global_step, options.name);
  }

  // The slot `name` ("m", "momentum", ...) of `var`, if this optimizer made one.
  std::optional<Variable> get_slot(const Variable& var, std::string_view name) const {
    auto named = slots_.find(name);
    if (named == slots_.end()) return std::nullopt;
    auto it = named->second.find(var_key(var));
    if (it == named->second.end()) return std::nullopt;
    return it->second;
  }

  // The names of the slots this optimizer has made, sorted.
  std::vector<std::string> get_slot_names() const {
    std::vector<std::string> names;
    for (const auto& [name, slots] : slots_) names.push_back(name);
    return names;
  }

  // The variables this optimizer made in `graph` (slots and others, like Adam's
  // beta1_power), sorted by name.
  std::vector<Variable> variables(const Graph& graph = get_default_graph()) const {
    std::vector<Variable> out;
    for (const auto& [key, v] : non_slots_)
      if (v.op().graph_state() == graph.state_ptr()) out.push_back(v);
    for (const auto& [name, slots] : slots_)
      for (const auto& [key, v] : slots)
        if (v.op().graph_state() == graph.state_ptr()) out.push_back(v);
    std::sort(out.begin(), out.end(),
              [](const Variable& a, const Variable& b) { return a.name() < b.name(); });
    return out;
  }

 protected:
  Optimizer(bool use_locking, std::string name)
      : name_(std::move(name)), use_locking_(use_locking) {
    if (name_.empty()) throw ValueError("Must specify the optimizer name");
  }

  bool use_locking() const { return use_locking_; }

  // Makes the slots of the variables about to be updated (before the name scope).
  virtual void create_slots(const std::vector<Variable>& /*var_list*/) {}
  // Makes the hyperparameter tensors, inside the optimizer's name scope.
  virtual void prepare(Graph& /*g*/) {}
  // Builds the update of one variable, inside "update_<var>/".
  virtual Operation apply_dense(const Output& grad, const Variable& var) = 0;
  // The update of one variable from IndexedSlices, inside "update_<var>/": by default
  // (TensorFlow's _apply_sparse_duplicate_indices) the rows of a repeated index summed
  // first, then apply_sparse.
  virtual Operation apply_sparse_duplicate_indices(const IndexedSlices& grad, const Variable& var) {
    return apply_sparse(detail::deduplicate(grad), var);
  }
  // The update of one variable from IndexedSlices whose indices are distinct.
  virtual Operation apply_sparse(const IndexedSlices& /*grad*/, const Variable& var) {
    throw UnimplementedError("The " + name_ + " optimizer has no sparse update, needed for " +
                             var.name() + " (a gather's gradient)");
  }
  // Groups the updates into one op named `name`.
  virtual Operation finish(const std::vector<Operation>& update_ops, std::string_view name) {
    return group(update_ops, name);
  }

  // The slot `slot_name` of `var`, made with zeros the first time ("<var>/<op_name>").
  Variable zeros_slot(const Variable& var, std::string_view slot_name, std::string_view op_name) {
    if (auto found = get_slot(var, slot_name)) return *found;
    Variable slot = create_zeros_slot(var, op_name);
    slots_[std::string(slot_name)].emplace(var_key(var), slot);
    return slot;
  }

  // The slot `slot_name` of `var`, made from `initializer` the first time.
  Variable get_or_make_slot_with_initializer(const Variable& var, const Initializer& initializer,
                                             const Shape& shape, DType dtype,
                                             std::string_view slot_name, std::string_view op_name) {
    if (auto found = get_slot(var, slot_name)) return *found;
    Variable slot = create_slot_with_initializer(var, initializer, shape, dtype, op_name);
    slots_[std::string(slot_name)].emplace(var_key(var), slot);
    return slot;
  }

  // A slot this optimizer made in create_slots.
  Variable slot(const Variable& var, std::string_view slot_name) const {
    auto found = get_slot(var, slot_name);
    if (!found)
      throw InternalError("Optimizer " + name_ + " has no slot " + std::string(slot_name) +
                          " for " + var.name());
    return *found;
  }

  // A variable of the optimizer itself (Adam's beta1_power), one per graph, made the
  // first time in the current name scope, not trainable, colocated with
  // `colocate_with`.
  Variable create_non_slot_variable(const Hyperparameter& initial_value, const std::string& name,
                                    const Variable& colocate_with) {
    Graph g = colocate_with.graph();
    auto key = std::make_pair(name, g.state_ptr().get());
    if (auto it = non_slots_.find(key); it != non_slots_.end()) return it->second;
    control_dependencies lifted(g, nullptr);
    auto as_default = g.as_default();
    VariableOptions o{.trainable = false, .name = name};
    Variable v = detail::colocated(g, colocate_with.op(), [&] {
      return initial_value.is_tensor() ? Variable(initial_value.tensor(), o)
                                       : Variable(initial_value.value(), o);
    });
    non_slots_.emplace(key, v);
    return v;
  }

  Variable non_slot_variable(const std::string& name, const Graph& g) const {
    auto it = non_slots_.find(std::make_pair(name, g.state_ptr().get()));
    if (it == non_slots_.end())
      throw InternalError("Optimizer " + name_ + " has no variable " + name);
    return it->second;
  }

 private:
  using VarKey = std::pair<const void*, std::string>;  // (graph, variable op name)
  static VarKey var_key(const Variable& v) { return {v.op().graph_state().get(), v.op().name()}; }

  std::string name_;
  bool use_locking_ = false;
  std::map<std::string, std::map<VarKey, Variable>, std::less<>> slots_;
  std::map<std::pair<std::string, const void*>, Variable> non_slots_;
};

}  // namespace symflow::train
