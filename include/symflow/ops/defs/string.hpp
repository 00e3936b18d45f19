#pragma once
// The descriptions of the string ops (StringJoin, StringLength, AsString, RegexFullMatch,
// StaticRegexFullMatch): their shape functions and OpDefs. They run on the CPU only
// (backend/cpu/kernels/string.hpp), as TensorFlow's do; the graph-building functions
// (tf.strings.join, tf.as_string, ...) are in ops/string_ops.hpp.

#include <string>
#include <vector>

#include "symflow/core/dtype.hpp"
#include "symflow/core/errors.hpp"
#include "symflow/core/shape.hpp"
#include "symflow/ops/defs/op_def.hpp"
#include "symflow/ops/defs/shape_fn.hpp"

namespace symflow::detail {

// TypeError unless input `i` (the op's parameter `param`) is a string tensor.
inline void require_string(const InferContext& c, std::size_t i, std::string_view param) {
  if (c.dtype(i) != DType::string)
    throw TypeError("Value passed to parameter '" + std::string(param) + "' has DataType " +
                    std::string(dtype_name(c.dtype(i))) + " not in list of allowed values: string");
}

// StringJoin(inputs..., N, separator): scalars repeat over the others, which must share
// one shape.
inline std::vector<TensorSpec> infer_string_join(const InferContext& c) {
  Shape out{};
  bool all_scalars = true;
  for (std::size_t i = 0; i < c.inputs.size(); ++i) {
    require_string(c, i, "inputs");
    const Shape& s = c.shape(i);
    if (s.has_rank() && s.rank() == 0) continue;
    out = all_scalars ? s : merge_shapes(out, s);
    all_scalars = false;
  }
  return {{DType::string, out}};
}
SYMFLOW_OP_DEF(kStringJoinOp, OpDef{.type = "StringJoin",
                                    .num_inputs = -1,
                                    .infer = infer_string_join,
                                    .accepts_strings = true,
                                    .host_only = true});

// StringLength(input, unit): each string's length in bytes ("BYTE") or in UTF-8
// characters ("UTF8_CHAR").
inline std::vector<TensorSpec> infer_string_length(const InferContext& c) {
  require_string(c, 0, "input");
  const auto& unit = c.attr<std::string>("unit");
  if (unit != "BYTE" && unit != "UTF8_CHAR")
    throw ValueError("Attr 'unit' of 'StringLength' Op passed string '" + unit +
                     "' not in: \"BYTE\", \"UTF8_CHAR\".");
  return {{DType::int32, c.shape(0)}};
}
SYMFLOW_OP_DEF(kStringLengthOp, OpDef{.type = "StringLength",
                                      .num_inputs = 1,
                                      .infer = infer_string_length,
                                      .accepts_strings = true,
                                      .host_only = true});

// AsString(input, precision, scientific, shortest, width, fill): numbers and bools as
// text, formatted as C's printf does ("%f" for floats unless shortest or scientific).
inline bool as_string_accepts(DType d) { return d != DType::string && d != DType::invalid; }
inline std::vector<TensorSpec> infer_as_string(const InferContext& c) {
  check_allowed(c, 0, "input", as_string_accepts);
  return {{DType::string, c.shape(0)}};
}
SYMFLOW_OP_DEF(kAsStringOp, OpDef{.type = "AsString",
                                  .num_inputs = 1,
                                  .infer = infer_as_string,
                                  .accepts_strings = true,
                                  .host_only = true});

// RegexFullMatch(input, pattern): whether each string matches the RE2 pattern whole.
inline std::vector<TensorSpec> infer_regex_full_match(const InferContext& c) {
  require_string(c, 0, "input");
  require_string(c, 1, "pattern");
  require_rank(c.shape(1), 0);
  return {{DType::bool_, c.shape(0)}};
}
SYMFLOW_OP_DEF(kRegexFullMatchOp, OpDef{.type = "RegexFullMatch",
                                        .num_inputs = 2,
                                        .infer = infer_regex_full_match,
                                        .accepts_strings = true,
                                        .host_only = true});

// StaticRegexFullMatch(input, pattern attr): the same with the pattern fixed in the graph.
inline std::vector<TensorSpec> infer_static_regex_full_match(const InferContext& c) {
  require_string(c, 0, "input");
  return {{DType::bool_, c.shape(0)}};
}
SYMFLOW_OP_DEF(kStaticRegexFullMatchOp, OpDef{.type = "StaticRegexFullMatch",
                                              .num_inputs = 1,
                                              .infer = infer_static_regex_full_match,
                                              .accepts_strings = true,
                                              .host_only = true});

}  // namespace symflow::detail
