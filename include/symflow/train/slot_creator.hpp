#pragma once
// Slot variables: the per-variable state of an optimizer (Adam's moments, Momentum's
// accumulator), made as TensorFlow 1.x's slot_creator makes them. A slot of `w` made
// by "Adam" is the variable "w/Adam" (then "w/Adam_1", ...: the name is uniquified as
// a variable scope's default name, inside the current variable scope), not
// trainable, in GLOBAL_VARIABLES, and every node of it is colocated with `w`
// (attr _class = loc:@w).

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "symflow/graph/collections.hpp"
#include "symflow/graph/scopes.hpp"
#include "symflow/ops/array_ops.hpp"
#include "symflow/ops/init_ops.hpp"
#include "symflow/variables/variable.hpp"
#include "symflow/variables/variable_scope.hpp"

namespace symflow::train {

namespace detail {

// The colocation group of `op` (TensorFlow's op.colocation_groups()): its _class
// attr, or "loc:@<its name>".
inline StringList colocation_group(const Operation& op) {
  const AttrMap& attrs = op.graph().state().nodes[op.id().value].attrs;
  if (auto it = attrs.find("_class"); it != attrs.end())
    if (const auto* list = std::get_if<StringList>(&it->second)) return *list;
  return StringList{{"loc:@" + op.name()}};
}

// Colocates the nodes created since `first` with `op` (the effect of building them
// inside TensorFlow's colocate_with(op)).
inline void colocate_since(const Graph& g, std::size_t first, const Operation& op) {
  StringList group = colocation_group(op);
  auto& nodes = g.state().nodes;
  for (std::size_t i = first; i < nodes.size(); ++i)
    nodes[i].attrs.insert_or_assign("_class", group);
}

// TensorFlow's _create_slot_var: a variable named exactly after a fresh variable
// scope "<primary>/<name>", built outside any control dependencies.
inline Variable create_slot_var(const Variable& primary,
                                const std::function<Variable(VariableOptions)>& make,
                                std::string_view name, bool colocate_with_primary) {
  Graph g = primary.graph();
  control_dependencies lifted(g, nullptr);
  // Colocated with the primary: no device from the enclosing context.
  std::optional<device> no_device;
  if (colocate_with_primary) no_device.emplace(g, "");
  std::size_t first = g.num_nodes();
  Variable slot;
  {
    variable_scope scope("", {.default_name = primary.op().name() + "/" + std::string(name),
                              .values = {primary.value()}});
    // A name ending in '/' names the variable exactly after its scope.
    slot = make({.trainable = false, .name = scope.name() + "/"});
  }
  if (colocate_with_primary) colocate_since(g, first, primary.op());
  return slot;
}

}  // namespace detail

// A slot of `primary` initialised to the tensor `value` (slot_creator.create_slot).
inline Variable create_slot(const Variable& primary, const Output& value, std::string_view name,
                            bool colocate_with_primary = true) {
  bool validate_shape = value.get_shape().is_fully_defined();
  return detail::create_slot_var(
      primary,
      [&](VariableOptions o) {
        o.validate_shape = validate_shape;
        return Variable(value, o);
      },
      name, colocate_with_primary);
}

// A slot of `primary` whose initial value `initializer` makes for `shape` and `dtype`,
// inside "<slot>/Initializer/" (slot_creator.create_slot_with_initializer).
inline Variable create_slot_with_initializer(const Variable& primary,
                                             const Initializer& initializer, const Shape& shape,
                                             DType dtype, std::string_view name,
                                             bool colocate_with_primary = true) {
  if (!shape.is_fully_defined())
    throw ValueError("Slot " + std::string(name) + " of " + primary.op().name() +
                     " needs a fully defined shape, got " + shape.to_string());
  return detail::create_slot_var(
      primary,
      [&](VariableOptions o) { return Variable([&] { return initializer(shape, dtype); }, o); },
      name, colocate_with_primary);
}

// A slot of zeros shaped like `primary` ("w/Momentum/Initializer/zeros"); `dtype`
// defaults to the primary's (slot_creator.create_zeros_slot).
inline Variable create_zeros_slot(const Variable& primary, std::string_view name,
                                  DType dtype = DType::invalid, bool colocate_with_primary = true) {
  if (dtype == DType::invalid) dtype = primary.dtype();
  return create_slot_with_initializer(primary, zeros_initializer(), primary.shape(), dtype, name,
                                      colocate_with_primary);
}

}  // namespace symflow::train
