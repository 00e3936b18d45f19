#pragma once
// The operators' non-template definitions (ops/operators.hpp declares them): included
// by that header in a header-only program, and by symflow/define_compiled.hpp alone in
// a program built with SYMFLOW_COMPILED.

#include <string>
#include <type_traits>
#include <vector>

#include "symflow/detail/config.hpp"
#include "symflow/detail/float_repr.hpp"
#include "symflow/ops/operators.hpp"

namespace symflow::detail {

SYMFLOW_INLINE Output operator_op_scalar(const OpDef& def, std::string_view name,
                                         const Output& tensor, ScalarArg scalar,
                                         bool scalar_first) {
  using K = ScalarArg::Kind;
  OpBuilder b(graph_of({tensor}), {}, name);
  Value v = visit_dtype(tensor.dtype(), [&](auto tag) -> Value {
    using T = typename decltype(tag)::type;
    switch (scalar.kind) {
      case K::f32:
      case K::f64:
        if constexpr (!std::is_floating_point_v<T>) {
          const std::string repr = scalar.kind == K::f32
                                       ? python_float_repr(static_cast<float>(scalar.f))
                                       : python_float_repr(scalar.f);
          throw TypeError("Expected " + std::string(dtype_name(tensor.dtype())) +
                          " passed to parameter '" + (scalar_first ? "x" : "y") + "' of op '" +
                          std::string(def.type) + "', got " + repr + " of type 'float' instead.");
        } else {
          return scalar.kind == K::f32 ? Value(static_cast<T>(static_cast<float>(scalar.f)))
                                       : Value(static_cast<T>(scalar.f));
        }
      case K::boolean:
        return Value(static_cast<T>(scalar.i != 0));
      case K::signed_int:
        return Value(static_cast<T>(scalar.i));
      case K::unsigned_int:
        break;
    }
    return Value(static_cast<T>(scalar.u));
  });
  Output c = b.constant_arg(v, scalar_first ? "x" : "y");
  std::vector<Output> in =
      scalar_first ? std::vector<Output>{c, tensor} : std::vector<Output>{tensor, c};
  return b.build(def, in, {{"T", tensor.dtype()}}).output(0);
}

}  // namespace symflow::detail
