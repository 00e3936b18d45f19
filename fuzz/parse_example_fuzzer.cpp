// Fuzz target: a serialized tf.train.Example, as ParseExample reads it
// (io/tf_example_protos.hpp and the CPU kernel of backend/cpu/kernels/parsing.hpp). The
// bytes go to the reader, whose views must stay inside them and whose lists may hold no
// more values than the bytes can, and then through the kernel as one record of a batch
// that asks for every kind of feature (dense fixed and variable-length, sparse) under the
// keys the seeds use. Damaged bytes must be an InvalidArgumentError; anything else is a
// finding.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <symflow/backend/cpu/kernels/parsing.hpp>
#include <symflow/io/tf_example_protos.hpp>

#include "fuzz_support.hpp"

namespace {

namespace ex = symflow::io::tf_example;

bool inside(std::string_view part, std::string_view whole) {
  return part.empty() ||
         (part.data() >= whole.data() && part.data() + part.size() <= whole.data() + whole.size());
}

void read_entries(std::string_view bytes) {
  const auto entries = ex::example_entries(bytes);
  if (!entries) return;
  for (const ex::FeatureEntry& e : *entries) {
    symflow::fuzz::require(inside(e.key, bytes) && inside(e.feature, bytes),
                           "an entry's key and feature lie in the record");
    std::vector<std::string> strings;
    std::vector<float> floats;
    std::vector<std::int64_t> ints;
    const ex::FeatureKind kind = ex::feature_kind(e.feature);
    const bool as_bytes = ex::read_bytes_list(e.feature, strings);
    const bool as_floats = ex::read_float_list(e.feature, floats);
    const bool as_ints = ex::read_int64_list(e.feature, ints);
    symflow::fuzz::require(!as_bytes || kind == ex::FeatureKind::bytes, "bytes of another kind");
    symflow::fuzz::require(!as_floats || kind == ex::FeatureKind::floats, "floats of another kind");
    symflow::fuzz::require(!as_ints || kind == ex::FeatureKind::int64s, "int64s of another kind");
    symflow::fuzz::require(strings.size() <= e.feature.size() &&
                               floats.size() <= e.feature.size() && ints.size() <= e.feature.size(),
                           "no more values than bytes");
    std::vector<std::string> capped;
    if (ex::read_bytes_list(e.feature, capped, 1))
      symflow::fuzz::require(capped.size() <= 1, "a capped bytes list stops at its cap");
  }
}

// ParseExample asking for a: sparse float, b: sparse int64, c: sparse string, x: dense
// float [1] (default 0), y: dense int64 of any length (padding -1), z: dense string [2],
// required.
void run_kernel(std::string_view bytes) {
  using symflow::DType;
  using symflow::Value;
  const symflow::AttrMap attrs = {
      {"Nsparse", std::int64_t{3}},
      {"Ndense", std::int64_t{3}},
      {"sparse_types", symflow::TypeList{{DType::float32, DType::int64, DType::string}}},
      {"Tdense", symflow::TypeList{{DType::float32, DType::int64, DType::string}}},
      {"dense_shapes",
       symflow::ShapeList{{symflow::Shape{1}, symflow::Shape{-1}, symflow::Shape{2}}}},
  };
  std::vector<Value> inputs = {
      Value::from_vector<std::string>({std::string(bytes)}, {1}),
      Value(DType::string, {0}),
      Value(std::string("a")),
      Value(std::string("b")),
      Value(std::string("c")),
      Value(std::string("x")),
      Value(std::string("y")),
      Value(std::string("z")),
      Value::from_vector<float>({0.0f}, {1}),
      Value(std::int64_t{-1}),
      Value(DType::string, {0}),
  };
  std::vector<Value> outputs(12);
  const std::string node = "ParseExample";
  symflow::KernelContext ctx(node, attrs, inputs, outputs);
  try {
    symflow::detail::parse_example_kernel(ctx);
  } catch (const symflow::InvalidArgumentError&) {
    return;
  }
  for (int i = 0; i < 3; ++i) {
    const Value& indices = outputs[static_cast<std::size_t>(i)];
    const Value& values = outputs[static_cast<std::size_t>(3 + i)];
    const Value& shape = outputs[static_cast<std::size_t>(6 + i)];
    symflow::fuzz::require(indices.rank() == 2 && indices.dims()[0] == values.size(),
                           "one index pair per sparse value");
    symflow::fuzz::require(shape.to_vector<std::int64_t>()[0] == 1, "a batch of one");
  }
  symflow::fuzz::require(outputs[9].dims() == symflow::Dims({1, 1}), "x is [1, 1]");
  symflow::fuzz::require(outputs[11].dims() == symflow::Dims({1, 2}), "z is [1, 2]");
}

}  // namespace

SYMFLOW_FUZZ_TARGET(parse_example) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  read_entries(bytes);
  run_kernel(bytes);
  return 0;
}
