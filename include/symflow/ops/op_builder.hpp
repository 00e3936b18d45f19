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

// Shape-function helpers shared by many ops.

// TypeError unless every input has input 0's dtype; `params` names the op's inputs.
inline void check_same_dtype(const InferContext& c, std::string_view op,
                             std::initializer_list<std::string_view> params) {
  const auto* names = params.begin();
  for (std::size_t i = 1; i < c.inputs.size() && i < params.size(); ++i)
    if (c.dtype(i) != c.dtype(0))
      throw TypeError("Input '" + std::string(names[i]) + "' of '" + std::string(op) +
                      "' Op has type " + std::string(dtype_name(c.dtype(i))) +
                      " that does not match type " + std::string(dtype_name(c.dtype(0))) +
                      " of argument '" + std::string(names[0]) + "'.");
}

// The dtypes of `accepts`, in TensorFlow's order, for "not in list of allowed values".
inline std::string allowed_list(bool (*accepts)(DType)) {
  std::string s;
  for (DType d :
       {DType::float32, DType::float64, DType::int32, DType::int64, DType::uint8, DType::bool_})
    if (accepts(d)) s += (s.empty() ? "" : ", ") + std::string(dtype_name(d));
  return s;
}

// TypeError unless input `i` (the op's parameter `param`) has a dtype in `accepts`.
inline void check_allowed(const InferContext& c, std::size_t i, std::string_view param,
                          bool (*accepts)(DType)) {
  if (!accepts(c.dtype(i)))
    throw TypeError("Value passed to parameter '" + std::string(param) + "' has DataType " +
                    std::string(dtype_name(c.dtype(i))) +
                    " not in list of allowed values: " + allowed_list(accepts));
}

// The elements of an int32/int64 shape or axes argument.
inline Dims shape_argument(const Value& v) {
  Dims d;
  visit_dtype(v.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t>) {
      for (T x : v.flat<T>()) d.push_back(x);
    } else {
      throw TypeError("A shape argument must be int32 or int64, got " +
                      std::string(dtype_name(v.dtype())));
    }
  });
  return d;
}

// A rank-1 int32 Value holding `dims` (a shape or axes argument).
inline Value int32_vector(const Dims& dims) {
  Value v(DType::int32, {static_cast<std::int64_t>(dims.size())});
  std::transform(dims.begin(), dims.end(), v.data<std::int32_t>(),
                 [](std::int64_t d) { return static_cast<std::int32_t>(d); });
  return v;
}

inline std::vector<TensorSpec> same_as_input(const InferContext& c) { return {c.inputs[0]}; }

}  // namespace symflow::detail
