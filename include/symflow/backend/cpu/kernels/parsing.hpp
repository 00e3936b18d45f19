#pragma once
// The CPU kernel of ParseExample (ops/defs/parsing.hpp), and kParsingCpuKernels, the table
// that maps its OpDef to it. It reads serialized tf.train.Example records with
// io/tf_example_protos.hpp (which holds no graph) and fills the dense and sparse outputs
// as TensorFlow's fast Example parser does, with its messages: a key that comes twice in
// an example counts once, the last time; a dense feature that is absent takes its
// default, and one without a default is an error; examples are read in order and the
// first bad one is reported.

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "symflow/backend/cpu/kernel_table.hpp"
#include "symflow/backend/kernel_context.hpp"
#include "symflow/io/tf_example_protos.hpp"
#include "symflow/ops/defs/parsing.hpp"

namespace symflow::detail {

namespace parse_example {

// The attrs of the kernel's node. An empty list attr may have been imported as an empty
// list of ints; the shape function accepted the node, so a list is read only when its
// count says it has items.
inline ParseExampleAttrs attrs_of(const KernelContext& ctx) {
  const auto num_sparse = ctx.attr<std::int64_t>("Nsparse");
  const auto num_dense = ctx.attr<std::int64_t>("Ndense");
  return make_parse_example_attrs(
      num_sparse, num_dense,
      num_sparse > 0 ? ctx.attr<TypeList>("sparse_types").items : std::vector<DType>{},
      num_dense > 0 ? ctx.attr<TypeList>("Tdense").items : std::vector<DType>{},
      num_dense > 0 ? ctx.attr<ShapeList>("dense_shapes").items : std::vector<Shape>{});
}

inline io::tf_example::FeatureKind kind_of(DType d) {
  using io::tf_example::FeatureKind;
  return d == DType::float32 ? FeatureKind::floats
         : d == DType::int64 ? FeatureKind::int64s
                             : FeatureKind::bytes;
}
// A Feature kind's dtype name in TensorFlow's messages.
inline std::string_view kind_name(io::tf_example::FeatureKind k) {
  using io::tf_example::FeatureKind;
  return k == FeatureKind::floats   ? "float"
         : k == FeatureKind::int64s ? "int64"
         : k == FeatureKind::bytes  ? "string"
                                    : "invalid";
}
// The word TensorFlow's count messages use for a dtype's values.
inline std::string_view values_word(DType d) {
  return d == DType::float32 ? "float" : d == DType::int64 ? "int64" : "bytes";
}

// Calls fn(std::type_identity<T>{}) with T the element type of ParseExample dtype `d`.
template <class Fn>
void with_element_type(DType d, Fn&& fn) {
  if (d == DType::float32)
    fn(std::type_identity<float>{});
  else if (d == DType::int64)
    fn(std::type_identity<std::int64_t>{});
  else
    fn(std::type_identity<std::string>{});
}

// The values of a Feature of T's kind, appended; at most `max_values` of them for
// strings (see io::tf_example::read_bytes_list).
inline bool read_values(std::string_view f, std::vector<float>& out, std::size_t) {
  return io::tf_example::read_float_list(f, out);
}
inline bool read_values(std::string_view f, std::vector<std::int64_t>& out, std::size_t) {
  return io::tf_example::read_int64_list(f, out);
}
inline bool read_values(std::string_view f, std::vector<std::string>& out, std::size_t max) {
  return io::tf_example::read_bytes_list(f, out, max);
}

// A sparse or variable-length feature's values over the batch, and where each example's
// end.
struct Column {
  std::vector<float> floats;
  std::vector<std::int64_t> int64s;
  std::vector<std::string> strings;
  std::vector<std::size_t> ends;  // ends[e]: the values of examples 0 to e

  template <class T>
  std::vector<T>& values() {
    if constexpr (std::is_same_v<T, float>)
      return floats;
    else if constexpr (std::is_same_v<T, std::int64_t>)
      return int64s;
    else
      return strings;
  }
  std::size_t count(std::size_t e) const { return ends[e] - (e == 0 ? 0 : ends[e - 1]); }
  std::size_t max_count() const {
    std::size_t most = 0;
    for (std::size_t e = 0; e < ends.size(); ++e) most = std::max(most, count(e));
    return most;
  }
};

struct Key {
  bool dense;
  std::size_t index;
};

}  // namespace parse_example

inline void parse_example_kernel(KernelContext& ctx) {
  using io::tf_example::FeatureKind;
  namespace pe = parse_example;
  const ParseExampleAttrs a = pe::attrs_of(ctx);
  const ParseExampleInputs in = parse_example_inputs(a);
  const Value& serialized = ctx.input(0);
  const Value& names = ctx.input(1);
  if (serialized.rank() != 1)
    ctx.fail("Expected serialized to be a vector, got shape: " + dims_to_string(serialized.dims()));
  if (names.size() > 0 && names.dims() != serialized.dims())
    ctx.fail("Expected names have the same shape as serialized: name.shape=" +
             dims_to_string(names.dims()) +
             ", serialized.shape=" + dims_to_string(serialized.dims()));

  // The keys asked for, each once.
  std::unordered_map<std::string_view, pe::Key> keys;
  std::vector<std::string_view> key_names;
  for (std::size_t i = in.sparse_keys; i < in.dense_defaults; ++i) {
    const bool dense = i >= in.dense_keys;
    const std::size_t index = i - (dense ? in.dense_keys : in.sparse_keys);
    const Value& key = ctx.input(i);
    const std::string param =
        std::string(dense ? "dense_keys" : "sparse_keys") + "[" + std::to_string(index) + "]";
    if (key.rank() != 0)
      ctx.fail("Expected " + param + " to be a scalar, got shape: " + dims_to_string(key.dims()));
    const std::string& text = key.data<std::string>()[0];  // in the input, which outlives `keys`
    if (!keys.emplace(text, pe::Key{dense, index}).second)
      ctx.fail("Key '" + text + "' is asked for twice, by " + param + " and an earlier key");
    key_names.push_back(text);
  }
  const auto dense_key = [&](std::size_t d) { return key_names[a.num_sparse + d]; };

  // The defaults: a dense feature's value when absent (an empty one: it is required), or
  // a variable-length one's padding.
  for (std::size_t d = 0; d < a.num_dense; ++d) {
    const Value& def = ctx.input(in.dense_defaults + d);
    const std::string i = std::to_string(d);
    const std::string shape = dims_to_string(a.dense_shapes[d].dims());
    if (a.variable_length[d]) {
      if (def.size() != 1)
        ctx.fail("dense_shape[" + i + "] is a variable length shape: " + shape +
                 ", therefore def_value[" + i +
                 "] must contain a single element (the padding element).  But its shape is: " +
                 dims_to_string(def.dims()));
    } else if (def.size() > 0 && !a.dense_shapes[d].is_compatible_with(Shape(def.dims()))) {
      ctx.fail("def_value[" + i + "].shape() == " + dims_to_string(def.dims()) +
               " is not compatible with dense_shapes_[" + i + "] == " + shape);
    }
    if (def.dtype() != a.dense_types[d])
      ctx.fail(
          "dense_defaults[" + i + "].dtype() == " + std::string(dtype_runtime_name(def.dtype())) +
          " != dense_types_[" + i + "] == " + std::string(dtype_runtime_name(a.dense_types[d])));
  }

  const std::size_t batch = static_cast<std::size_t>(serialized.size());
  const std::size_t dense_out = 3 * a.num_sparse;
  std::vector<Value*> fixed(a.num_dense, nullptr);
  for (std::size_t d = 0; d < a.num_dense; ++d) {
    if (a.variable_length[d]) continue;
    Dims dims{static_cast<std::int64_t>(batch)};
    for (std::int64_t n : a.dense_shapes[d].dims()) dims.push_back(n);
    // Every example's slot is written: its values, its default, or an error.
    fixed[d] = &ctx.allocate_output_for_overwrite(dense_out + d, a.dense_types[d], std::move(dims));
  }
  std::vector<pe::Column> sparse(a.num_sparse), variable(a.num_dense);

  pe::Column scratch;  // one fixed-size feature's values, before their count is checked

  // Which example last set each feature: a key that comes again in that example (earlier
  // on the wire) is ignored.
  constexpr std::size_t kNone = SIZE_MAX;
  std::vector<std::size_t> sparse_seen(a.num_sparse, kNone), dense_seen(a.num_dense, kNone);
  const std::string* const name_data = names.size() > 0 ? names.data<std::string>() : nullptr;
  const std::string* const records = batch > 0 ? serialized.data<std::string>() : nullptr;

  for (std::size_t e = 0; e < batch; ++e) {
    const std::string_view example_name = name_data ? std::string_view(name_data[e]) : "<unknown>";
    const auto entries = io::tf_example::example_entries(records[e]);
    if (!entries) ctx.fail(io::tf_example::unparsable_example_message(records[e]));
    const auto fail = [&](std::string_view key, const std::string& what) {
      ctx.fail("Name: " + std::string(example_name) + ", Key: " + std::string(key) +
               ", Index: " + std::to_string(e) + ".  " + what);
    };

    for (auto entry = entries->rbegin(); entry != entries->rend(); ++entry) {
      const auto found = keys.find(entry->key);
      if (found == keys.end()) continue;
      const bool dense = found->second.dense;
      const std::size_t index = found->second.index;
      const FeatureKind kind = io::tf_example::feature_kind(entry->feature);
      if (kind == FeatureKind::unsupported) fail(entry->key, "Unsupported datatype.");

      if (!dense) {
        if (sparse_seen[index] == e) continue;
        sparse_seen[index] = e;
        const DType type = a.sparse_types[index];
        if (kind != FeatureKind::none && kind != pe::kind_of(type))
          fail(entry->key, "Data types don't match. Expected type: " +
                               std::string(pe::kind_name(pe::kind_of(type))) +
                               ", Actual type: " + std::string(pe::kind_name(kind)));
        pe::Column& column = sparse[index];
        pe::with_element_type(type, [&]<class T>(std::type_identity<T>) {
          auto& values = column.values<T>();
          if (kind != FeatureKind::none && !pe::read_values(entry->feature, values, SIZE_MAX))
            fail(entry->key, "Can't parse serialized Example.");
          column.ends.push_back(values.size());
        });
        continue;
      }

      // An empty Feature counts as absent, and leaves an earlier entry of its key in play.
      if (kind == FeatureKind::none || dense_seen[index] == e) continue;
      dense_seen[index] = e;
      const DType type = a.dense_types[index];
      if (kind != pe::kind_of(type))
        fail(entry->key,
             "Data types don't match. Data type: " + std::string(pe::kind_name(kind)) +
                 " but expected type: " + std::string(pe::kind_name(pe::kind_of(type))));
      const auto stride = static_cast<std::size_t>(a.elements_per_stride[index]);
      const std::string shape = dims_to_string(a.dense_shapes[index].dims());
      pe::with_element_type(type, [&]<class T>(std::type_identity<T>) {
        if (a.variable_length[index]) {
          pe::Column& column = variable[index];
          auto& values = column.values<T>();
          const std::size_t before = values.size();
          if (!pe::read_values(entry->feature, values, SIZE_MAX))
            fail(entry->key, "Can't parse serialized Example.");
          const std::size_t count = values.size() - before;
          if (stride == 0 ? count != 0 : count % stride != 0)
            fail(entry->key, "Number of " + std::string(pe::values_word(type)) +
                                 " values is not a multiple of stride length. Saw " +
                                 std::to_string(count) + " values but output shape is: " + shape);
          column.ends.push_back(values.size());
          return;
        }
        // A fixed-size feature: exactly its shape's count (strings stop reading at one
        // more, and that is a parse error, as TensorFlow has it).
        auto& values = scratch.values<T>();
        values.clear();
        if (!pe::read_values(entry->feature, values, stride))
          fail(entry->key, "Can't parse serialized Example.");
        if (values.size() != stride)
          fail(entry->key, "Number of " + std::string(pe::values_word(type)) +
                               " values != expected.  Values size: " +
                               std::to_string(values.size()) + " but output shape: " + shape);
        std::move(values.begin(), values.end(), fixed[index]->data<T>() + e * stride);
      });
    }

    // Absent features: defaults, or nothing for this example.
    for (std::size_t d = 0; d < a.num_dense; ++d) {
      if (dense_seen[d] == e) continue;
      if (a.variable_length[d]) {
        pe::with_element_type(a.dense_types[d], [&]<class T>(std::type_identity<T>) {
          variable[d].ends.push_back(variable[d].values<T>().size());
        });
        continue;
      }
      const Value& def = ctx.input(in.dense_defaults + d);
      if (def.size() == 0)
        ctx.fail("Name: " + std::string(example_name) + ", Feature: " + std::string(dense_key(d)) +
                 " (data type: " + std::string(dtype_runtime_name(a.dense_types[d])) + ")" +
                 " is required but could not be found.");
      pe::with_element_type(a.dense_types[d], [&]<class T>(std::type_identity<T>) {
        const auto stride = static_cast<std::size_t>(a.elements_per_stride[d]);
        std::copy_n(def.data<T>(), stride, fixed[d]->data<T>() + e * stride);
      });
    }
    for (std::size_t i = 0; i < a.num_sparse; ++i) {
      if (sparse_seen[i] == e) continue;
      pe::with_element_type(a.sparse_types[i], [&]<class T>(std::type_identity<T>) {
        sparse[i].ends.push_back(sparse[i].values<T>().size());
      });
    }
  }

  // Sparse outputs: each value's (example, position in it), the values, and the dense
  // shape [batch, the most values one example has].
  for (std::size_t i = 0; i < a.num_sparse; ++i) {
    pe::Column& column = sparse[i];
    pe::with_element_type(a.sparse_types[i], [&]<class T>(std::type_identity<T>) {
      auto& values = column.values<T>();
      const auto total = static_cast<std::int64_t>(values.size());
      Value& indices = ctx.allocate_output_for_overwrite(i, DType::int64, {total, 2});
      std::int64_t* at = indices.data<std::int64_t>();
      for (std::size_t e = 0; e < batch; ++e)
        for (std::size_t j = 0; j < column.count(e); ++j) {
          *at++ = static_cast<std::int64_t>(e);
          *at++ = static_cast<std::int64_t>(j);
        }
      Value& out = ctx.allocate_output_for_overwrite(a.num_sparse + i, a.sparse_types[i], {total});
      std::move(values.begin(), values.end(), out.data<T>());
      Value& shape = ctx.allocate_output_for_overwrite(2 * a.num_sparse + i, DType::int64, {2});
      shape.data<std::int64_t>()[0] = static_cast<std::int64_t>(batch);
      shape.data<std::int64_t>()[1] = static_cast<std::int64_t>(column.max_count());
    });
  }

  // Variable-length dense outputs: [batch, the most rows one example has, the rest of the
  // shape], each example's rows first and the padding after.
  for (std::size_t d = 0; d < a.num_dense; ++d) {
    if (!a.variable_length[d]) continue;
    pe::Column& column = variable[d];
    const auto stride = static_cast<std::size_t>(a.elements_per_stride[d]);
    const std::size_t rows = stride == 0 ? 0 : column.max_count() / stride;
    Dims dims{static_cast<std::int64_t>(batch), static_cast<std::int64_t>(rows)};
    const Dims& shape = a.dense_shapes[d].dims();
    dims.insert(dims.end(), shape.begin() + 1, shape.end());
    pe::with_element_type(a.dense_types[d], [&]<class T>(std::type_identity<T>) {
      Value& out = ctx.allocate_output_for_overwrite(dense_out + d, a.dense_types[d], dims);
      T* o = out.data<T>();
      std::fill_n(o, out.size(), ctx.input(in.dense_defaults + d).data<T>()[0]);
      auto& values = column.values<T>();
      std::size_t from = 0;
      for (std::size_t e = 0; e < batch; ++e) {
        std::move(values.begin() + static_cast<std::ptrdiff_t>(from),
                  values.begin() + static_cast<std::ptrdiff_t>(column.ends[e]),
                  o + e * rows * stride);
        from = column.ends[e];
      }
    });
  }
}

inline constexpr auto kParsingCpuKernels = std::to_array<CpuKernel>({
    {&kParseExampleOp, parse_example_kernel},
});

}  // namespace symflow::detail
