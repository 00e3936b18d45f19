#pragma once
// The scopes' definitions (graph/scopes.hpp declares them): included by that header in
// a header-only program, and by symflow/define_compiled.hpp alone in a program built
// with SYMFLOW_COMPILED.

#include <string>
#include <string_view>

#include "symflow/detail/config.hpp"
#include "symflow/graph/scopes.hpp"

namespace symflow {

SYMFLOW_INLINE void name_scope::enter(std::string_view name) {
  auto& s = graph_.state();
  // At the root a scope name must be a valid op name; below it, where it is not the
  // first component of a name, it may also start with '_', '-', '/' or '\\'.
  if (!name.empty()) {
    if (s.name_stack.empty()) {
      if (!detail::is_valid_node_name(name))
        throw ValueError("'" + std::string(name) +
                         "' is not a valid root scope name. A root scope name has to match the "
                         "following pattern: ^[A-Za-z0-9.][A-Za-z0-9_.\\\\/>-]*$");
    } else if (!detail::is_valid_nested_scope_name(name)) {
      throw ValueError("'" + std::string(name) +
                       "' is not a valid scope name. A scope name has to match the following "
                       "pattern: ^[A-Za-z0-9_.\\\\/>-]*$");
    }
  }
  saved_ = s.name_stack;
  if (name.empty()) {
    s.name_stack.clear();
  } else if (name.back() == '/') {
    s.name_stack = std::string(name.substr(0, name.size() - 1));
  } else {
    s.name_stack = s.unique_name(name);
  }
  name_ = s.name_stack.empty() ? "" : s.name_stack + "/";
}

}  // namespace symflow
