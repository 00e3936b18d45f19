#pragma once
// The functions that build ParseExample: tf.parse_example (TensorFlow 1.x's
// tf.io.parse_example, with FixedLenFeature and VarLenFeature) and tf.raw_ops.ParseExample.
// The op's description is in ops/defs/parsing.hpp, its CPU kernel in
// backend/cpu/kernels/parsing.hpp. Nothing flows back through it.

#include <array>
#include <cctype>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "symflow/core/dtype.hpp"
#include "symflow/core/errors.hpp"
#include "symflow/core/shape.hpp"
#include "symflow/core/value.hpp"
#include "symflow/graph/scopes.hpp"
#include "symflow/graph/tensor.hpp"
#include "symflow/ops/defs/parsing.hpp"
#include "symflow/ops/grad_context.hpp"
#include "symflow/ops/op_builder.hpp"

namespace symflow {

// tf.io.FixedLenFeature(shape, dtype, default_value): `shape` values of `dtype` (float32,
// int64 or string) in every example. Without a default the feature is required; a
// default holds the shape's number of elements.
struct FixedLenFeature {
  Shape shape;
  DType dtype;
  std::optional<Value> default_value = std::nullopt;
};

// tf.io.VarLenFeature(dtype): any number of values in each example, as a sparse tensor.
struct VarLenFeature {
  DType dtype;
};

using ExampleFeature = std::variant<FixedLenFeature, VarLenFeature>;

// A sparse tensor's parts (tf.SparseTensor): int64 [n, 2] indices (example, position),
// the n values, and the int64 [2] dense shape (batch, the most values of one example).
struct SparseOutputs {
  Output indices;
  Output values;
  Output dense_shape;
};

// What tf.parse_example returns: a tensor per FixedLenFeature ([batch] + its shape) and a
// sparse tensor per VarLenFeature, by key.
struct ParsedFeatures {
  std::map<std::string, Output> dense;
  std::map<std::string, SparseOutputs> sparse;
};

namespace raw_ops {

// ParseExample's outputs, in the op's order.
struct ParseExampleOutputs {
  std::vector<Output> sparse_indices;
  std::vector<Output> sparse_values;
  std::vector<Output> sparse_shapes;
  std::vector<Output> dense_values;
};

}  // namespace raw_ops

namespace detail {

// Builds the node; without `names`, an empty names vector "<op>/names", as TensorFlow
// makes of Python's [].
inline raw_ops::ParseExampleOutputs build_parse_example(
    const Output& serialized, const std::optional<Output>& names,
    const std::vector<std::string>& sparse_keys, const std::vector<DType>& sparse_types,
    const std::vector<std::string>& dense_keys, const std::vector<Output>& dense_defaults,
    const std::vector<Shape>& dense_shapes, std::string_view name) {
  std::vector<Output> inputs = {serialized};
  if (names) inputs.push_back(*names);
  inputs.insert(inputs.end(), dense_defaults.begin(), dense_defaults.end());
  OpBuilder b(graph_of(inputs), name, "ParseExample");
  inputs = {serialized, names ? *names : b.constant_arg(Value(DType::string, {0}), "names")};
  for (std::size_t i = 0; i < sparse_keys.size(); ++i)
    inputs.push_back(b.constant_arg(Value(sparse_keys[i]), "sparse_keys_" + std::to_string(i)));
  for (std::size_t i = 0; i < dense_keys.size(); ++i)
    inputs.push_back(b.constant_arg(Value(dense_keys[i]), "dense_keys_" + std::to_string(i)));
  inputs.insert(inputs.end(), dense_defaults.begin(), dense_defaults.end());
  TypeList dense_types;
  for (const Output& d : dense_defaults) dense_types.items.push_back(d.dtype());
  const Operation op = b.build(kParseExampleOp, inputs,
                               {{"Nsparse", static_cast<std::int64_t>(sparse_keys.size())},
                                {"Ndense", static_cast<std::int64_t>(dense_keys.size())},
                                {"sparse_types", TypeList{sparse_types}},
                                {"Tdense", dense_types},
                                {"dense_shapes", ShapeList{dense_shapes}}});
  raw_ops::ParseExampleOutputs out;
  int at = 0;
  for (auto* group : {&out.sparse_indices, &out.sparse_values, &out.sparse_shapes})
    for (std::size_t i = 0; i < sparse_keys.size(); ++i) group->push_back(op.output(at++));
  for (std::size_t i = 0; i < dense_keys.size(); ++i) out.dense_values.push_back(op.output(at++));
  return out;
}

}  // namespace detail

namespace raw_ops {

// tf.raw_ops.ParseExample(serialized, names, sparse_keys, dense_keys, dense_defaults,
// sparse_types, dense_shapes): `serialized` a string vector of tf.train.Example records,
// `names` an empty string vector or one name per record (for messages). A dense shape
// whose first dimension is -1 is variable-length: each example gives a multiple of the
// rest's size, padded to the longest with its default, which is then a single value.
inline ParseExampleOutputs parse_example(const Output& serialized, const Output& names,
                                         const std::vector<std::string>& sparse_keys,
                                         const std::vector<DType>& sparse_types,
                                         const std::vector<std::string>& dense_keys,
                                         const std::vector<Output>& dense_defaults,
                                         const std::vector<Shape>& dense_shapes,
                                         std::string_view name = {}) {
  return detail::build_parse_example(serialized, names, sparse_keys, sparse_types, dense_keys,
                                     dense_defaults, dense_shapes, name);
}

}  // namespace raw_ops

// tf.parse_example(serialized, features): parses a string vector of tf.train.Example
// records. The graph is TensorFlow 1.x's: in a scope "ParseExample", a Const per dense
// default (an empty "Const" for a required feature), and the op "ParseExample/ParseExample"
// with the keys in sorted order.
inline ParsedFeatures parse_example(const Output& serialized,
                                    const std::map<std::string, ExampleFeature>& features,
                                    std::string_view name = {}) {
  if (features.empty()) throw ValueError("Missing: features was {}.");
  name_scope scope(name, "ParseExample", {serialized});
  Graph g = graph_of({serialized});
  std::vector<std::string> sparse_keys, dense_keys;
  std::vector<DType> sparse_types;
  std::vector<Output> defaults;
  std::vector<Shape> dense_shapes;
  for (const auto& [key, feature] : features) {
    if (const auto* sparse = std::get_if<VarLenFeature>(&feature)) {
      sparse_keys.push_back(key);
      sparse_types.push_back(sparse->dtype);
      continue;
    }
    const auto& dense = std::get<FixedLenFeature>(feature);
    if (!dense.shape.is_fully_defined())
      throw ValueError("FixedLenFeature " + key + " needs a fully defined shape, got " +
                       dense.shape.to_string());
    if (!detail::parse_example_accepts(dense.dtype))
      throw TypeError("Value passed to parameter 'dense_defaults' has DataType " +
                      std::string(dtype_name(dense.dtype)) +
                      " not in list of allowed values: float32, int64, string");
    Value def(dense.dtype, {0});
    std::string const_name = "Const";
    if (dense.default_value) {
      const Value& given = *dense.default_value;
      if (given.dtype() != dense.dtype)
        throw TypeError("The default of feature " + key + " has dtype " +
                        std::string(dtype_name(given.dtype())) + ", expected " +
                        std::string(dtype_name(dense.dtype)));
      if (given.size() != dense.shape.num_elements())
        throw ValueError("Cannot reshape a tensor with " + std::to_string(given.size()) +
                         " elements to shape " + dims_to_string(dense.shape.dims()) + " (" +
                         std::to_string(dense.shape.num_elements()) + " elements)");
      def = given.reshaped(dense.shape.dims());
      // TensorFlow names a default after its key, with what a node name cannot hold as "_".
      const_name = "key_";
      for (char c : key)
        const_name += (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' ||
                       c == '-' || c == '/')
                          ? c
                          : '_';
    }
    dense_keys.push_back(key);
    dense_shapes.push_back(dense.shape);
    defaults.push_back(detail::make_const(g, def, const_name).output(0));
  }
  const std::string op_name = name.empty() ? std::string("ParseExample") : std::string(name);
  raw_ops::ParseExampleOutputs out =
      detail::build_parse_example(serialized, std::nullopt, sparse_keys, sparse_types, dense_keys,
                                  defaults, dense_shapes, op_name);
  ParsedFeatures parsed;
  for (std::size_t i = 0; i < sparse_keys.size(); ++i)
    parsed.sparse[sparse_keys[i]] = {out.sparse_indices[i], out.sparse_values[i],
                                     out.sparse_shapes[i]};
  for (std::size_t i = 0; i < dense_keys.size(); ++i)
    parsed.dense[dense_keys[i]] = out.dense_values[i];
  return parsed;
}

namespace detail {
// The registry's entry of ParseExample (ops/registry.hpp): TensorFlow defines no gradient.
inline constexpr auto kParsingOpEntries = std::to_array<OpEntry>({
    {&kParseExampleOp, nullptr},
});
}  // namespace detail

}  // namespace symflow
