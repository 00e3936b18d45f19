#pragma once
// The description of ParseExample, the op of TensorFlow 1.x's tf.parse_example (the
// first version, which TF1 SavedModels such as TensorFlow Serving's half_plus_two hold):
// its attrs, read and checked once for the shape function and the kernel, the shape
// function and the OpDef. It runs on the CPU only (backend/cpu/kernels/parsing.hpp), as
// TensorFlow's does; the graph-building functions are in ops/parsing_ops.hpp.
//
// ParseExample(serialized, names, sparse_keys..., dense_keys..., dense_defaults...):
// inputs in that order, Nsparse sparse keys and Ndense dense keys and defaults; outputs
// sparse_indices (Nsparse), sparse_values (sparse_types), sparse_shapes (Nsparse),
// dense_values (Tdense).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "symflow/core/attr_value.hpp"
#include "symflow/core/dtype.hpp"
#include "symflow/core/errors.hpp"
#include "symflow/core/shape.hpp"
#include "symflow/ops/defs/op_def.hpp"
#include "symflow/ops/defs/shape_fn.hpp"
#include "symflow/ops/defs/string.hpp"

namespace symflow::detail {

// A list attr that may be empty. A GraphDef's empty `list {}` names no kind, so the
// reader makes it an empty IntList; that is an empty list of any kind.
template <class List>
List list_attr_or_empty(const AttrMap& attrs, std::string_view name) {
  const auto it = attrs.find(name);
  if (it != attrs.end())
    if (const auto* ints = std::get_if<IntList>(&it->second); ints && ints->items.empty())
      return {};
  return get_attr<List>(attrs, name);
}

// ParseExample's attrs, checked as TensorFlow's ParseExampleAttrs checks them. A dense
// shape whose first dimension is unknown is variable-length (FixedLenSequenceFeature):
// each example gives any multiple of the rest's size, padded with the default.
struct ParseExampleAttrs {
  std::size_t num_sparse = 0;
  std::size_t num_dense = 0;
  std::vector<DType> sparse_types;
  std::vector<DType> dense_types;
  std::vector<Shape> dense_shapes;
  std::vector<bool> variable_length;
  std::vector<std::int64_t> elements_per_stride;  // one example's values (one row if variable)
};

inline bool parse_example_accepts(DType d) {
  return d == DType::float32 || d == DType::int64 || d == DType::string;
}

// ParseExample's attrs from their values, checked; a ValueError or TypeError in
// TensorFlow's words when they do not fit together.
inline ParseExampleAttrs make_parse_example_attrs(std::int64_t num_sparse, std::int64_t num_dense,
                                                  std::vector<DType> sparse_types,
                                                  std::vector<DType> dense_types,
                                                  std::vector<Shape> dense_shapes) {
  if (num_sparse < 0 || num_dense < 0)
    throw ValueError("Attrs Nsparse and Ndense of ParseExample must be at least 0, got " +
                     std::to_string(num_sparse) + " and " + std::to_string(num_dense));
  ParseExampleAttrs a;
  a.num_sparse = static_cast<std::size_t>(num_sparse);
  a.num_dense = static_cast<std::size_t>(num_dense);
  a.sparse_types = std::move(sparse_types);
  a.dense_types = std::move(dense_types);
  a.dense_shapes = std::move(dense_shapes);
  if (a.sparse_types.size() != a.num_sparse)
    throw ValueError("len(sparse_keys) != len(sparse_types)");
  if (a.dense_types.size() != a.num_dense) throw ValueError("len(dense_keys) != len(dense_types)");
  if (a.dense_shapes.size() != a.num_dense)
    throw ValueError("len(dense_keys) != len(dense_shapes)");
  // Tdense is the dtypes of dense_defaults, which TensorFlow's message names.
  for (const auto& [param, types] :
       {std::pair<const char*, const std::vector<DType>*>{"sparse_types", &a.sparse_types},
        {"dense_defaults", &a.dense_types}})
    for (DType d : *types)
      if (!parse_example_accepts(d))
        throw TypeError("Value passed to parameter '" + std::string(param) + "' has DataType " +
                        std::string(dtype_name(d)) +
                        " not in list of allowed values: float32, int64, string");
  for (std::size_t i = 0; i < a.num_dense; ++i) {
    const Shape& s = a.dense_shapes[i];
    bool known = s.has_rank();
    for (std::size_t d = 1; known && d < s.dims().size(); ++d) known = s.dims()[d] >= 0;
    if (!known)
      throw ValueError("dense_shapes[" + std::to_string(i) +
                       "] has unknown rank or unknown inner dimensions: " +
                       (s.has_rank() ? dims_to_string(s.dims()) : std::string("<unknown>")));
    const bool variable = !s.dims().empty() && s.dims()[0] < 0;
    std::int64_t stride = 1;
    for (std::size_t d = variable ? 1 : 0; d < s.dims().size(); ++d) stride *= s.dims()[d];
    a.variable_length.push_back(variable);
    a.elements_per_stride.push_back(stride);
  }
  return a;
}

// The attrs of a ParseExample node, as its shape function reads them.
inline ParseExampleAttrs parse_example_attrs(const AttrMap& attrs) {
  return make_parse_example_attrs(get_attr<std::int64_t>(attrs, "Nsparse"),
                                  get_attr<std::int64_t>(attrs, "Ndense"),
                                  list_attr_or_empty<TypeList>(attrs, "sparse_types").items,
                                  list_attr_or_empty<TypeList>(attrs, "Tdense").items,
                                  list_attr_or_empty<ShapeList>(attrs, "dense_shapes").items);
}

// Where each group of inputs starts.
struct ParseExampleInputs {
  std::size_t sparse_keys = 2;
  std::size_t dense_keys = 0;
  std::size_t dense_defaults = 0;
  std::size_t count = 0;
};
inline ParseExampleInputs parse_example_inputs(const ParseExampleAttrs& a) {
  ParseExampleInputs in;
  in.dense_keys = in.sparse_keys + a.num_sparse;
  in.dense_defaults = in.dense_keys + a.num_dense;
  in.count = in.dense_defaults + a.num_dense;
  return in;
}

inline std::vector<TensorSpec> infer_parse_example(const InferContext& c) {
  const ParseExampleAttrs a = parse_example_attrs(c.attrs);
  const ParseExampleInputs in = parse_example_inputs(a);
  if (c.inputs.size() != in.count)
    throw ValueError("ParseExample with Nsparse=" + std::to_string(a.num_sparse) +
                     " and Ndense=" + std::to_string(a.num_dense) + " takes " +
                     std::to_string(in.count) + " inputs, got " + std::to_string(c.inputs.size()));
  require_string(c, 0, "serialized");
  require_string(c, 1, "names");
  for (std::size_t i = in.sparse_keys; i < in.dense_defaults; ++i)
    require_string(c, i, i < in.dense_keys ? "sparse_keys" : "dense_keys");
  for (std::size_t d = 0; d < a.num_dense; ++d) {
    const DType given = c.dtype(in.dense_defaults + d);
    if (given != a.dense_types[d])
      throw TypeError("Input 'dense_defaults' of 'ParseExample' Op has type " +
                      std::string(dtype_name(given)) + " at " + std::to_string(d) +
                      " that does not match the Tdense attr's " +
                      std::string(dtype_name(a.dense_types[d])));
  }
  require_rank(c.shape(0), 1);
  require_rank(c.shape(1), 1);
  const std::int64_t batch = c.shape(0).has_rank() ? c.shape(0).dims()[0] : unknown_dim;
  std::vector<TensorSpec> out;
  for (std::size_t i = 0; i < a.num_sparse; ++i) out.push_back({DType::int64, Shape{-1, 2}});
  for (DType d : a.sparse_types) out.push_back({d, Shape{-1}});
  for (std::size_t i = 0; i < a.num_sparse; ++i) out.push_back({DType::int64, Shape{2}});
  for (std::size_t d = 0; d < a.num_dense; ++d) {
    Dims dims{batch};
    for (std::int64_t n : a.dense_shapes[d].dims()) dims.push_back(n);  // a variable first: -1
    out.push_back({a.dense_types[d], Shape(dims)});
  }
  return out;
}
SYMFLOW_OP_DEF(kParseExampleOp, OpDef{.type = "ParseExample",
                                      .num_inputs = -1,
                                      .infer = infer_parse_example,
                                      .accepts_strings = true,
                                      .host_only = true});

}  // namespace symflow::detail
