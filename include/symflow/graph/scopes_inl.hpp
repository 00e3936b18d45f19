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
  saved_ = s.name_stack;
  if (name.empty()) {
    s.name_stack.clear();
  } else if (name.back() == '/') {
    s.name_stack = std::string(name.substr(0, name.size() - 1));
  } else {
    if (!detail::is_valid_node_name(name))
      throw ValueError("'" + std::string(name) + "' is not a valid scope name");
    s.name_stack = s.unique_name(name);
  }
  name_ = s.name_stack.empty() ? "" : s.name_stack + "/";
}

}  // namespace symflow
