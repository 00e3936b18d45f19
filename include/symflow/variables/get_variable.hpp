#pragma once
// tf.get_variable: variables named by the variable scope (not the name scope), created
// or reused according to the scope's reuse setting, and remembered per graph so that
// a second call with the same name can share the first one's variable.

#include <concepts>
#include <initializer_list>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "symflow/graph/collections.hpp"
#include "symflow/graph/scopes.hpp"
#include "symflow/ops/init_ops.hpp"
#include "symflow/variables/variable.hpp"
#include "symflow/variables/variable_scope.hpp"

namespace symflow {

// The keyword arguments of tf.get_variable.
struct GetVariableOptions {
  // Unset: the variable scope's dtype (float32 unless the scope sets another); with a
  // constant initial value, that value's dtype.
  DType dtype = DType::invalid;
  // Unset: the scope's initializer, else glorot_uniform_initializer() for floating
  // dtypes and zeros_initializer() for integers and bool (TensorFlow's defaults).
  InitializerOrValue initializer = {};
  // Unset: the scope's regularizer. Its result goes to REGULARIZATION_LOSSES.
  Regularizer regularizer = {};
  bool trainable = true;
  // Empty: GLOBAL_VARIABLES (and TRAINABLE_VARIABLES when trainable).
  std::vector<CollectionKey> collections = {};
  bool validate_shape = true;
  // Unset: the variable scope's. Given here, it replaces the scope's getter (TensorFlow
  // does not nest the two).
  CustomGetter custom_getter = {};
};

namespace detail {

inline std::string dtype_repr(DType d) { return "<dtype: '" + std::string(dtype_name(d)) + "'>"; }

// TensorFlow's _VariableStore._get_single_variable.
inline Variable get_single_variable(Graph& g, const std::string& name, const Shape& shape,
                                    DType dtype, InitializerOrValue init,
                                    const Regularizer& regularizer, Reuse reuse,
                                    const GetVariableOptions& o) {
  VariableScopeState& state = variable_scope_state(g);
  if (shape.has_rank() && init.is_value())
    throw ValueError("If initializer is a constant, do not specify shape.");

  if (auto found_it = state.store.find(name); found_it != state.store.end()) {
    Variable found = Variable::from_op(Operation(g.state_ptr(), found_it->second));
    if (reuse == Reuse::Mode::no)
      throw ValueError("Variable " + name +
                       " already exists, disallowed. Did you mean to set reuse=True or "
                       "reuse=tf.AUTO_REUSE in VarScope?");
    if (shape.has_rank() && !shape.is_compatible_with(found.shape()))
      throw ValueError("Trying to share variable " + name + ", but specified shape " +
                       shape.to_string() + " and found shape " + found.shape().to_string() + ".");
    if (dtype != found.dtype())
      throw ValueError("Trying to share variable " + name + ", but specified dtype " +
                       std::string(dtype_name(dtype)) + " and found dtype " +
                       std::string(dtype_name(found.dtype())) + "_ref.");
    return found;
  }

  if (reuse == Reuse::Mode::yes)
    throw ValueError("Variable " + name +
                     " does not exist, or was not created with tf.get_variable(). Did you "
                     "mean to set reuse=tf.AUTO_REUSE in VarScope?");

  if (init.empty()) {
    if (!shape.has_rank())
      throw ValueError("Variable " + name +
                       " did not get an initializer, so its `shape` argument must be "
                       "specified.");
    if (dtype == DType::complex64)  // TensorFlow has no default for complex variables either
      throw ValueError("An initializer for variable " + name + " of <dtype: '" +
                       std::string(dtype_name(dtype)) + "'> is required");
    if (dtype == DType::float16 || dtype == DType::bfloat16)
      throw TypeError("Variable " + name + " of dtype " + std::string(dtype_name(dtype)) +
                      " needs an initializer: the default, glorot_uniform, computes in "
                      "float32 and float64 only (docs/dtypes.md)");
    init = is_floating(dtype) ? glorot_uniform_initializer() : zeros_initializer();
  }

  VariableOptions vo{.trainable = o.trainable,
                     .collections = o.collections,
                     .validate_shape = o.validate_shape,
                     .name = name};
  Variable v;
  if (const Value* value = init.value()) {
    v = Variable(*value, vo);
  } else if (const Output* tensor = init.tensor()) {
    if (tensor->op().graph_state() != g.state_ptr())
      throw ValueError(to_string(*tensor) + " must be from the same graph as variable " + name +
                       ".");
    v = Variable(*tensor, vo);
  } else if (const InitializerOrValue::InitialValueFn* make = init.initial_value_fn()) {
    if (shape.is_fully_defined())
      throw TypeError("The initializer of variable " + name +
                      " takes no arguments, so it cannot be called with the shape " +
                      shape.to_string() + "; leave the shape out");
    v = Variable(*make, vo);
  } else {
    if (!shape.is_fully_defined())
      throw ValueError(
          "The initializer passed is not valid. It should be a callable with no arguments and "
          "the shape should not be provided or an instance of `tf.keras.initializers.*' and "
          "`shape` should be fully defined.");
    const Initializer& fn = *init.initializer();
    v = Variable(
        [&]() -> Output {
          Output initial = fn(shape, dtype);
          if (initial.dtype() != dtype)
            throw ValueError("The initializer of variable " + name + " made a " +
                             std::string(dtype_name(initial.dtype())) + " tensor, expected " +
                             std::string(dtype_name(dtype)));
          return initial;
        },
        vo);
  }
  state.store.emplace(name, v.op().id());

  if (regularizer) {
    // As TensorFlow 1.x: one call, in "<name>/Regularizer/", outside control
    // dependencies, its ops colocated with the variable (attr _class = loc:@<variable>).
    control_dependencies lifted(g, nullptr);
    name_scope scope(g, name + "/Regularizer/");
    std::size_t first = g.num_nodes();
    Output loss = regularizer(v.value());
    StringList colocation{{"loc:@" + v.op().name()}};
    for (std::size_t i = first; i < g.num_nodes(); ++i)
      g.state().nodes[i].attrs.try_emplace("_class", colocation);
    if (loss.valid()) {
      if (loss.op().graph_state() != g.state_ptr())
        throw ValueError("The regularizer of variable " + name + " returned " + to_string(loss) +
                         ", which is from another graph");
      // Built in place: moving a CollectionItem trips a false -Wmaybe-uninitialized in g++ 12.
      g.get_collection_ref(GraphKeys::REGULARIZATION_LOSSES)
          .emplace_back(std::in_place_type<TensorRef>, loss.ref());
    }
  }
  return v;
}

}  // namespace detail

// tf.get_variable(name, shape, ...): the variable "<variable scope>/<name>" of the
// default graph. With reuse off (the default) it is created, and an existing one is a
// ValueError; with reuse=true the existing one is returned, and a missing one is a
// ValueError; with reuse::auto_reuse, either. Only the variable scope prefixes the name:
// inside a name_scope alone the variable and its ops ("<name>/Initializer/...",
// "<name>/Assign", "<name>/read") are named as at the root.
inline Variable get_variable(std::string_view name, const Shape& shape,
                             const GetVariableOptions& options = {}) {
  Graph g = get_default_graph();
  VariableScope scope = detail::variable_scope_state(g).current;
  std::string full_name =
      scope.name().empty() ? std::string(name) : scope.name() + "/" + std::string(name);
  // Variable names depend only on the variable scope: leave the name scope meanwhile.
  name_scope root(g, "");
  GetVariableOptions resolved = options;
  if (options.dtype != DType::invalid && options.initializer.is_value()) {
    const InitializerOrValue& init = options.initializer;
    DType init_dtype = init.value() ? init.value()->dtype() : init.tensor()->dtype();
    if (init_dtype != options.dtype)
      throw ValueError("Initializer type '" + detail::dtype_repr(init_dtype) +
                       "' and explicit dtype '" + detail::dtype_repr(options.dtype) +
                       "' don't match.");
  }
  if (resolved.initializer.empty()) resolved.initializer = scope.initializer();
  if (!resolved.regularizer) resolved.regularizer = scope.regularizer();
  if (resolved.dtype == DType::invalid) resolved.dtype = scope.dtype();
  resolved.custom_getter = nullptr;

  const Reuse reuse = scope.reuse();
  VariableGetter create_or_reuse = [&g, reuse](const std::string& var_name, const Shape& var_shape,
                                               const GetVariableOptions& o) {
    if (!detail::is_valid_node_name(var_name))
      throw ValueError("'" + var_name +
                       "' is not a valid root scope name. A root scope name has to match the "
                       "following pattern: ^[A-Za-z0-9.][A-Za-z0-9_.\\\\/>-]*$");
    return detail::get_single_variable(g, var_name, var_shape, o.dtype, o.initializer,
                                       o.regularizer, reuse, o);
  };
  const CustomGetter& custom =
      options.custom_getter ? options.custom_getter : scope.custom_getter();
  if (!custom) return create_or_reuse(full_name, shape, resolved);
  Variable v = custom(create_or_reuse, full_name, shape, resolved);
  if (!v.valid())
    throw ValueError("The custom getter of variable " + full_name + " returned no variable");
  return v;
}

// get_variable("w", {2, 3}, {...}): a shape written as a list; get_variable("w", {}) is
// a scalar.
inline Variable get_variable(std::string_view name, std::initializer_list<std::int64_t> shape,
                             const GetVariableOptions& options = {}) {
  return get_variable(name, Shape(shape), options);
}

// get_variable("b", {.initializer = 2}): no shape, as with a constant initial value.
inline Variable get_variable(std::string_view name, const GetVariableOptions& options = {}) {
  return get_variable(name, Shape::unknown(), options);
}

// get_variable<float>("w", {2, 3}, {...}): the dtype as a template argument.
template <Element T>
Variable get_variable(std::string_view name, const Shape& shape, GetVariableOptions options = {}) {
  if (options.dtype != DType::invalid && options.dtype != dtype_v<T>)
    throw ValueError("get_variable<" + std::string(dtype_name(dtype_v<T>)) + ">(" +
                     std::string(name) + ") was given dtype " +
                     std::string(dtype_name(options.dtype)));
  options.dtype = dtype_v<T>;
  return get_variable(name, shape, options);
}
template <Element T>
Variable get_variable(std::string_view name, std::initializer_list<std::int64_t> shape,
                      GetVariableOptions options = {}) {
  return get_variable<T>(name, Shape(shape), std::move(options));
}
template <Element T>
Variable get_variable(std::string_view name, GetVariableOptions options = {}) {
  return get_variable<T>(name, Shape::unknown(), std::move(options));
}

// tf.get_local_variable: get_variable for a variable in LOCAL_VARIABLES (besides any
// collections given), never trainable, as the variables of metrics are.
inline Variable get_local_variable(std::string_view name, const Shape& shape,
                                   GetVariableOptions options = {}) {
  options.trainable = false;
  options.collections.emplace_back(GraphKeys::LOCAL_VARIABLES);
  return get_variable(name, shape, options);
}
inline Variable get_local_variable(std::string_view name, std::initializer_list<std::int64_t> shape,
                                   GetVariableOptions options = {}) {
  return get_local_variable(name, Shape(shape), std::move(options));
}
inline Variable get_local_variable(std::string_view name, GetVariableOptions options = {}) {
  return get_local_variable(name, Shape::unknown(), std::move(options));
}

}  // namespace symflow
