#pragma once
// The descriptions of Placeholder, PlaceholderWithDefault, Identity, Reshape, Fill and
// CheckNumerics: their shape functions, the reshape target resolution their shape function
// and kernel share, CheckNumerics' error text, and their OpDefs. The kernels are in
// backend/cpu/kernels/array.hpp, the graph-building functions (tf.placeholder, tf.reshape,
// tf.zeros, ...) in ops/array_ops.hpp.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "symflow/core/dtype.hpp"
#include "symflow/core/errors.hpp"
#include "symflow/core/shape.hpp"
#include "symflow/core/value.hpp"
#include "symflow/ops/defs/op_def.hpp"
#include "symflow/ops/defs/shape_fn.hpp"

namespace symflow::detail {

inline std::vector<TensorSpec> infer_placeholder(const InferContext& c) {
  return {{c.attr<DType>("dtype"), c.attr<Shape>("shape")}};
}

SYMFLOW_OP_DEF(kPlaceholderOp, OpDef{.type = "Placeholder",
                                     .num_inputs = 0,
                                     .infer = infer_placeholder,
                                     .accepts_strings = true,
                                     .accepts_storage_dtypes = true});

// PlaceholderWithDefault: its input unless fed. The input must fit the `shape` attr, but
// the output has that shape, which may know less than the input's (TensorFlow's shape
// function merges the two only to check them).
inline std::vector<TensorSpec> infer_placeholder_with_default(const InferContext& c) {
  const DType dtype = c.attr<DType>("dtype");
  if (c.dtype(0) != dtype)
    throw TypeError("Input 'input' of 'PlaceholderWithDefault' Op has type " +
                    std::string(dtype_name(c.dtype(0))) + " that does not match its dtype attr " +
                    std::string(dtype_name(dtype)) + ".");
  const Shape& shape = c.attr<Shape>("shape");
  (void)merge_shapes(c.shape(0), shape);
  return {{dtype, shape}};
}

SYMFLOW_OP_DEF(kPlaceholderWithDefaultOp, OpDef{.type = "PlaceholderWithDefault",
                                                .num_inputs = 1,
                                                .infer = infer_placeholder_with_default,
                                                .accepts_strings = true,
                                                .accepts_storage_dtypes = true});

SYMFLOW_OP_DEF(kIdentityOp, OpDef{.type = "Identity",
                                  .num_inputs = 1,
                                  .infer = same_as_input,
                                  .forwards_ref = true,
                                  .accepts_strings = true,
                                  .accepts_storage_dtypes = true,
                                  .accepts_resources = true});

// Resolves a target shape with at most one -1 against `n` elements. When impossible:
// nullopt, and `error` worded as TensorFlow's kernel words it, or as its shape function
// does when `at_build`.
inline std::optional<Dims> resolve_reshape(Dims target, std::int64_t n, std::string& error,
                                           bool at_build = false) {
  std::int64_t known = 1;
  int unknown_at = -1;
  for (std::size_t i = 0; i < target.size(); ++i) {
    if (target[i] == -1) {
      if (unknown_at >= 0) {
        error = "Only one input size may be -1, not both " + std::to_string(unknown_at) + " and " +
                std::to_string(i);
        return std::nullopt;
      }
      unknown_at = static_cast<int>(i);
    } else if (target[i] < 0) {
      error =
          "Size " + std::to_string(i) + " must be non-negative, not " + std::to_string(target[i]);
      return std::nullopt;
    } else if (__builtin_mul_overflow(known, target[i], &known)) {
      std::string shape = "[";  // TensorFlow's words and its "[a, b]" form here
      for (std::size_t j = 0; j < target.size(); ++j)
        shape += (j ? ", " : "") + std::to_string(target[j]);
      error = "Shape " + shape + "] has too many elements";
      return std::nullopt;
    }
  }
  if (unknown_at >= 0) {
    if (known == 0 || n % known != 0) {
      error = at_build ? "Dimension size must be evenly divisible by " + std::to_string(known) +
                             " but is " + std::to_string(n)
                       : "Input to reshape is a tensor with " + std::to_string(n) +
                             " values, but the requested shape requires a multiple of " +
                             std::to_string(known);
      return std::nullopt;
    }
    target[static_cast<std::size_t>(unknown_at)] = n / known;
  } else if (known != n) {
    error = at_build ? "Cannot reshape a tensor with " + std::to_string(n) + " elements to shape " +
                           dims_to_string(target) + " (" + std::to_string(known) + " elements)"
                     : "Input to reshape is a tensor with " + std::to_string(n) +
                           " values, but the requested shape has " + std::to_string(known);
    return std::nullopt;
  }
  return target;
}

inline std::vector<TensorSpec> infer_reshape(const InferContext& c) {
  const Value* target = c.constant(1);
  if (!target) return {{c.dtype(0), Shape::unknown()}};
  Dims dims = shape_argument(*target);
  if (!c.shape(0).is_fully_defined()) {  // the kernel checks the element count
    for (auto& d : dims) d = d < 0 ? unknown_dim : d;
    return {{c.dtype(0), Shape(dims)}};
  }
  std::string error;
  auto resolved = resolve_reshape(dims, c.shape(0).num_elements(), error, true);
  if (!resolved) throw ValueError(error);
  return {{c.dtype(0), Shape(*resolved)}};
}

SYMFLOW_OP_DEF(kReshapeOp, OpDef{.type = "Reshape",
                                 .num_inputs = 2,
                                 .infer = infer_reshape,
                                 .accepts_strings = true,
                                 .accepts_storage_dtypes = true});

inline std::vector<TensorSpec> infer_fill(const InferContext& c) {
  require_rank(c.shape(1), 0);
  const Value* dims = c.constant(0);
  if (dims) return {{c.dtype(1), Shape(shape_argument(*dims))}};
  // Dims computed at run time but of a known length: the rank is known, as TensorFlow's
  // shape function infers (a loss's ones_like(labels) with an unknown batch size).
  const Shape& dims_shape = c.shape(0);
  if (dims_shape.has_rank() && dims_shape.rank() == 1 && dims_shape.dims()[0] >= 0)
    return {{c.dtype(1), Shape::unknown_dims(static_cast<int>(dims_shape.dims()[0]))}};
  return {{c.dtype(1), Shape::unknown()}};
}

SYMFLOW_OP_DEF(kFillOp, OpDef{.type = "Fill",
                              .num_inputs = 2,
                              .infer = infer_fill,
                              .accepts_strings = true,
                              .accepts_storage_dtypes = true});

// CheckNumerics(tensor): the tensor passed on, or an InvalidArgumentError when it holds a
// NaN or an infinity. Stateful, as in TensorFlow, so that it is never folded away.
inline bool is_float_dtype(DType d) { return is_floating(d); }

inline std::vector<TensorSpec> infer_check_numerics(const InferContext& c) {
  check_allowed(c, 0, "tensor", is_float_dtype);
  return {c.inputs[0]};
}

SYMFLOW_OP_DEF(kCheckNumericsOp, OpDef{.type = "CheckNumerics",
                                       .num_inputs = 1,
                                       .infer = infer_check_numerics,
                                       .stateful = true});

// The failure's text, as TensorFlow's kernel words it (both backends share it): empty
// when the tensor held neither NaN nor infinity.
inline std::string check_numerics_error(const std::string& message, bool saw_nan, bool saw_inf) {
  if (!saw_nan && !saw_inf) return {};
  const char* what = saw_nan && saw_inf ? "Inf and NaN" : saw_nan ? "NaN" : "Inf";
  return message + " : Tensor had " + what + " values";
}

}  // namespace symflow::detail
