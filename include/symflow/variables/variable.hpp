#pragma once
// Variable: TensorFlow 1.x's variable subgraph and its handle. `Variable(2)` builds
//   Variable/initial_value (Const), Variable (VariableV2), Variable/Assign (its
//   initializer) and Variable/read (Identity: the value other ops use),
// and adds the variable to GLOBAL_VARIABLES (and TRAINABLE_VARIABLES).

#include <concepts>
#include <functional>
#include <ostream>
#include <string>
#include <variant>
#include <vector>

#include "symflow/graph/collections.hpp"
#include "symflow/graph/feed.hpp"
#include "symflow/graph/scopes.hpp"
#include "symflow/ops/array_ops.hpp"
#include "symflow/ops/cond.hpp"
#include "symflow/ops/const_op.hpp"
#include "symflow/ops/state_ops.hpp"

namespace symflow {

struct VariableOptions {
  bool trainable = true;
  // Collections to add the variable to; empty means GLOBAL_VARIABLES. A trainable
  // variable is always added to TRAINABLE_VARIABLES too.
  std::vector<CollectionKey> collections = {};
  bool validate_shape = true;
  std::string name = {};
  DType dtype = DType::invalid;  // convert the initial value to this type when set
};

class Variable {
 public:
  // Builds the initial value inside "<name>/Initializer/" (get_variable's way).
  using InitialValueFn = std::function<Output()>;

  Variable() = default;
  Variable(const Value& initial_value, const VariableOptions& options = {})  // NOLINT
      : Variable(build(initial_value, options)) {}
  Variable(const Output& initial_value, const VariableOptions& options = {})  // NOLINT
      : Variable(build(initial_value, options)) {}
  template <class F>
  requires std::is_invocable_r_v<Output, F> Variable(F initial_value,
                                                     const VariableOptions& options)
      : Variable(build(InitialValueFn(std::move(initial_value)), options)) {}

  // The handle of an existing variable, from its VariableV2 op (collections,
  // imported graphs).
  static Variable from_op(const Operation& variable_op) {
    if (variable_op.type() != "VariableV2")
      throw TypeError("Operation " + variable_op.name() + " is a " + variable_op.type() +
                      ", not a VariableV2");
    Graph g = variable_op.graph();
    Variable v;
    v.op_ = variable_op;
    v.initializer_ = g.get_operation_by_name(variable_op.name() + "/Assign");
    // A TF1 resource variable, imported as a VariableV2 (io/tf_op_rewrites.hpp), reads
    // its value through "<name>/Read/ReadVariableOp".
    const std::string snapshot = variable_op.name() + "/read";
    const std::string resource_snapshot = variable_op.name() + "/Read/ReadVariableOp";
    v.snapshot_ = g.state().find(snapshot) || !g.state().find(resource_snapshot)
                      ? g.get_tensor_by_name(snapshot + ":0")
                      : g.get_tensor_by_name(resource_snapshot + ":0");
    return v;
  }

  bool valid() const { return op_.valid(); }
  std::string name() const { return op_.name() + ":0"; }
  // The VariableV2 op.
  const Operation& op() const { return op_; }
  Graph graph() const { return op_.graph(); }
  DType dtype() const { return ref().dtype(); }
  const Shape& shape() const { return ref().get_shape(); }
  const Shape& get_shape() const { return shape(); }
  // The op that sets the variable to its initial value ("<name>/Assign").
  const Operation& initializer() const { return initializer_; }
  // The variable's value as other ops read it ("<name>/read:0").
  const Output& value() const { return snapshot_; }
  Output initial_value() const { return initializer_.inputs().at(1); }
  // The variable's value, or its initial value while it is uninitialised: what to
  // initialise another variable from when it depends on this one. TensorFlow's cond on
  // IsVariableInitialized, in the current name scope, outside any control dependency or
  // cond or loop being built (init_scope).
  Output initialized_value() const {
    if (!valid()) throw ValueError("initialized_value: the variable handle is empty");
    control_dependencies lifted(op_.graph(), nullptr);  // leaves conds and loops too
    const Output variable = ref(), initial = initial_value();
    return cond(
        is_variable_initialized(variable), [&] { return identity(variable, "read"); },
        [&] { return initial; });
  }
  // The reference tensor ("<name>:0", dtype float32_ref): what assign ops write.
  Output ref() const { return op_.output(0); }

  Output assign(const TensorArg& value, std::string_view name = {}) const {
    return symflow::assign(ref(), value, true, true, name);
  }
  Output assign_add(const TensorArg& delta, std::string_view name = {}) const {
    return symflow::assign_add(ref(), delta, false, name);
  }
  Output assign_sub(const TensorArg& delta, std::string_view name = {}) const {
    return symflow::assign_sub(ref(), delta, false, name);
  }

  // The variable's value in the default session (Session::as_default,
  // InteractiveSession) or in `session`: tf.Variable.eval.
  Value eval() const { return ref().eval(); }
  Value eval(const FeedDict& feeds) const { return ref().eval(feeds); }
  Value eval(Evaluator& session) const { return ref().eval(session); }

  // Sets the variable's value in `session` without running an op (Variable.load).
  template <class SessionT>
  void load(const Value& value, SessionT& session) const {
    session.load_variable(op_, value);
  }

  // Wherever a tensor is expected, a variable gives its value.
  operator Output() const { return snapshot_; }  // NOLINT: implicit, as in TensorFlow
  template <Element T>
  operator Tensor<T>() const {  // NOLINT
    return snapshot_.as<T>();
  }

  friend bool operator==(const Variable& a, const Variable& b) { return a.op_ == b.op_; }
  // An item of get_collection is this variable when it holds its op (a template, so
  // that nothing converts to a collection item on the way).
  template <std::same_as<CollectionValue> Item>
  friend bool operator==(const Variable& a, const Item& item) {
    const auto* op = std::get_if<Operation>(&item);
    return op && *op == a.op_;
  }

 private:
  using Init = std::variant<Value, Output, InitialValueFn>;

  static Variable build(const Init& init, const VariableOptions& o) {
    const Output* given = std::get_if<Output>(&init);
    Graph g = given ? graph_of({*given}) : get_default_graph();
    // A variable is created outside any control_dependencies context (init_scope).
    control_dependencies lifted(g, nullptr);
    name_scope scope(g, o.name.empty() ? "Variable" : o.name);
    std::string var_name = scope.name().substr(0, scope.name().size() - 1);

    Output initial;
    if (const Value* v = std::get_if<Value>(&init)) {
      Value converted = o.dtype == DType::invalid ? *v : v->astype(o.dtype);
      initial = detail::make_const(g, converted, "initial_value").output(0);
    } else if (given) {
      initial = *given;
      if (o.dtype != DType::invalid && o.dtype != initial.dtype())
        throw ValueError("Tensor conversion requested dtype " + std::string(dtype_name(o.dtype)) +
                         " for Tensor with dtype " + std::string(dtype_name(initial.dtype())) +
                         ": " + to_string(initial));
    } else {
      name_scope init_scope(g, "Initializer");
      initial = std::get<InitialValueFn>(init)();
    }
    DType dtype = initial.dtype();
    Shape shape = o.validate_shape ? initial.get_shape() : Shape::unknown();
    if (o.validate_shape && !shape.is_fully_defined())
      throw ValueError("initial_value must have a shape specified: " + to_string(initial));

    Variable v;
    v.op_ = g.create_op(detail::kVariableV2Op, {},
                        {{"container", std::string()},
                         {"dtype", dtype},
                         {"shape", shape},
                         {"shared_name", std::string()}},
                        scope.name());
    StringList colocation{{"loc:@" + var_name}};
    v.initializer_ = g.create_op(detail::kAssignOp, {v.op_.output(0), initial},
                                 {{"T", dtype},
                                  {"_class", colocation},
                                  {"use_locking", true},
                                  {"validate_shape", o.validate_shape}},
                                 "Assign");
    v.snapshot_ = g.create_op(detail::kIdentityOp, {v.op_.output(0)},
                              {{"T", dtype}, {"_class", colocation}}, "read")
                      .output(0);

    std::vector<std::string> keys;
    for (const CollectionKey& key : o.collections) keys.push_back(key.name);
    if (keys.empty()) keys.emplace_back(GraphKeys::GLOBAL_VARIABLES);
    if (o.trainable &&
        std::find(keys.begin(), keys.end(), GraphKeys::TRAINABLE_VARIABLES) == keys.end())
      keys.emplace_back(GraphKeys::TRAINABLE_VARIABLES);
    for (const auto& key : keys) g.add_to_collection(key, v.op_);
    return v;
  }

  Operation op_;
  Operation initializer_;
  Output snapshot_;
};

// tf.add_to_collection(key, variable): the collection holds the variable itself (its
// VariableV2 op, as GLOBAL_VARIABLES does: "v", whose variables_in() handle is "v:0"),
// not the tensor it reads.
inline void add_to_collection(std::string_view key, const Variable& v) {
  get_default_graph().add_to_collection(key, v.op());
}
inline void Graph::add_to_collection(std::string_view key, const Variable& v) {
  add_to_collection(key, v.op());
}

// The state ops take a variable itself (its reference), as in TensorFlow.
inline Output assign(const Variable& v, const TensorArg& value, bool validate_shape = true,
                     bool use_locking = true, std::string_view name = {}) {
  return assign(v.ref(), value, validate_shape, use_locking, name);
}
inline Output assign_add(const Variable& v, const TensorArg& value, bool use_locking = false,
                         std::string_view name = {}) {
  return assign_add(v.ref(), value, use_locking, name);
}
inline Output assign_sub(const Variable& v, const TensorArg& value, bool use_locking = false,
                         std::string_view name = {}) {
  return assign_sub(v.ref(), value, use_locking, name);
}
inline Output scatter_update(const Variable& v, const TensorArg& indices, const TensorArg& updates,
                             bool use_locking = true, std::string_view name = {}) {
  return scatter_update(v.ref(), indices, updates, use_locking, name);
}
inline Output scatter_add(const Variable& v, const TensorArg& indices, const TensorArg& updates,
                          bool use_locking = false, std::string_view name = {}) {
  return scatter_add(v.ref(), indices, updates, use_locking, name);
}
inline Output scatter_sub(const Variable& v, const TensorArg& indices, const TensorArg& updates,
                          bool use_locking = false, std::string_view name = {}) {
  return scatter_sub(v.ref(), indices, updates, use_locking, name);
}
inline Output is_variable_initialized(const Variable& v, std::string_view name = {}) {
  return is_variable_initialized(v.ref(), name);
}

// <tf.Variable 'Variable:0' shape=() dtype=float32_ref>
inline std::string to_string(const Variable& v) {
  return "<tf.Variable '" + v.name() + "' shape=" + v.shape().to_string() +
         " dtype=" + std::string(dtype_name(v.dtype())) + "_ref>";
}
inline std::ostream& operator<<(std::ostream& os, const Variable& v) { return os << to_string(v); }

// The variables of a collection of the default graph (or of `graph`).
inline std::vector<Variable> variables_in(std::string_view key,
                                          const Graph& graph = get_default_graph(),
                                          std::string_view scope = {}) {
  std::vector<Variable> out;
  for (const CollectionValue& item : graph.get_collection(key, scope)) {
    const auto* op = std::get_if<Operation>(&item);
    if (!op)
      throw TypeError("Collection '" + std::string(key) + "' holds an item that is not a variable");
    out.push_back(Variable::from_op(*op));
  }
  return out;
}

inline std::vector<Variable> global_variables(std::string_view scope = {}) {
  return variables_in(GraphKeys::GLOBAL_VARIABLES, get_default_graph(), scope);
}
inline std::vector<Variable> trainable_variables(std::string_view scope = {}) {
  return variables_in(GraphKeys::TRAINABLE_VARIABLES, get_default_graph(), scope);
}
inline std::vector<Variable> local_variables(std::string_view scope = {}) {
  return variables_in(GraphKeys::LOCAL_VARIABLES, get_default_graph(), scope);
}
inline std::vector<Variable> model_variables(std::string_view scope = {}) {
  return variables_in(GraphKeys::MODEL_VARIABLES, get_default_graph(), scope);
}

}  // namespace symflow
