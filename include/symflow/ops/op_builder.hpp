#pragma once
// How every op function builds its node, the way TensorFlow's op_def_library does:
// open a name scope named after the op (the user's name or the default), turn
// non-tensor arguments into Consts named "<op>/<arg>", and give the op the scope's
// exact name.

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "symflow/graph/graph.hpp"
#include "symflow/graph/scopes.hpp"
#include "symflow/ops/const_op.hpp"
#include "symflow/ops/defs/shape_fn.hpp"

namespace symflow::detail {

class OpBuilder {
 public:
  OpBuilder(Graph graph, std::string_view name, std::string_view default_name)
      : graph_(std::move(graph)), scope_(graph_, name.empty() ? default_name : name) {}

  Graph& graph() { return graph_; }
  // A constant argument, as a Const named "<op>/<arg_name>".
  Output constant_arg(Value v, std::string_view arg_name) {
    return make_const(graph_, std::move(v), arg_name).output(0);
  }
  Operation build(const OpDef& def, const std::vector<Output>& inputs, AttrMap attrs) {
    return graph_.create_op(def, inputs, std::move(attrs), scope_.name());
  }

 private:
  Graph graph_;
  name_scope scope_;
};

}  // namespace symflow::detail
