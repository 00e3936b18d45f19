// Element counts and byte sizes that cannot wrap: a shape whose count passes int64 is a
// typed error wherever it appears (a Value, zeros/fill, Reshape, Range, Tile, OneHot, an
// IDX header, a GraphDef's tensor), and a host allocation that fails is TensorFlow's
// ResourceExhaustedError. The messages are TensorFlow 2.21's (graph mode, CPU).

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <symflow/data/idx.hpp>
#include <symflow/io/graph_io.hpp>
#include <symflow/io/importer.hpp>
#include <symflow/symflow.hpp>

#include "../test_util.hpp"

namespace symflow_test_core_checked_sizes {

using namespace symflow;
using namespace symflow::test;

namespace {

constexpr std::int64_t k2to32 = std::int64_t{1} << 32;
constexpr std::int64_t k2to40 = std::int64_t{1} << 40;
constexpr std::int64_t k2to62 = std::int64_t{1} << 62;

// TensorFlow's words for a host allocation of `shape` and `type` that failed.
std::string oom(const std::string& shape, const std::string& type) {
  return "OOM when allocating tensor with shape" + shape + " and type " + type +
         " on /job:localhost/replica:0/task:0/device:CPU:0 by allocator cpu";
}

// The error of type E that running `t` (in a fresh session of its graph) throws.
template <class E>
std::optional<E> run_error(const Output& t) {
  return thrown<E>([&] {
    Session sess(t.graph());
    (void)sess.run(t);
  });
}

std::string corpus_file(const std::string& name) {
  std::ifstream in(std::string(SYMFLOW_SOURCE_DIR) + "/fuzz/corpus/graph_def/" + name);
  REQUIRE(in.good());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Imports a GraphDef text file of the fuzz corpus into `g` and runs tensor `name`.
template <class E>
std::optional<E> run_corpus_error(const std::string& file, const std::string& tensor) {
  Graph g;
  auto guard = g.as_default();
  import_graph_def(io::parse_graph_def_text(corpus_file(file), file), {.name = ""});
  return run_error<E>(g.get_tensor_by_name(tensor));
}

}  // namespace

TEST_CASE("core/checked_sizes: counts and bytes are checked one multiply per dim") {
  CHECK(checked_num_elements({2, 3, 4}) == 24);
  CHECK(checked_num_elements({}) == 1);
  CHECK_FALSE(checked_num_elements({k2to40, k2to40}));
  CHECK_FALSE(checked_num_elements({2, -1}));
  // Left to right, as TensorFlow's TensorShape: a leading 0 keeps the count at 0.
  CHECK(checked_num_elements({0, k2to40, k2to40}) == 0);
  CHECK_FALSE(checked_num_elements({k2to40, k2to40, 0}));
  CHECK(checked_nbytes(k2to40, 8) == k2to40 * 8);
  CHECK_FALSE(checked_nbytes(k2to62, 4));
  CHECK_FALSE(checked_nbytes(-1, 4));
  CHECK(Shape{k2to40, 4}.num_elements() == k2to40 * 4);
  // A static shape that no tensor can have counts as unknown.
  CHECK(Shape({k2to40, k2to40}).num_elements() == -1);
}

TEST_CASE("core/checked_sizes: a Value's dims always match its bytes") {
  CHECK_THROWS_WITH_AS(Value(DType::float32, {k2to40, k2to40}),
                       "Shape [1099511627776,1099511627776] would have more than 2**63 - 1 "
                       "elements",
                       ValueError);
  CHECK_THROWS_WITH_AS(Value::for_overwrite(DType::int32, {k2to40, k2to40, 0}),
                       "Shape [1099511627776,1099511627776,0] would have more than 2**63 - 1 "
                       "elements",
                       ValueError);
  CHECK_THROWS_WITH_AS(Value(DType::float32, {2, -3}), "Value dims must be non-negative, got [2,?]",
                       ValueError);
  // 2^62 elements fit an int64, their 2^64 bytes do not: out of memory, as TensorFlow's
  // tf.fill([2**62], 1.0) says.
  CHECK_THROWS_WITH_AS(Value(DType::float32, {k2to62}),
                       oom("[4611686018427387904]", "float").c_str(), ResourceExhaustedError);
  CHECK_THROWS_WITH_AS(Value::for_overwrite(DType::float64, {k2to62}),
                       oom("[4611686018427387904]", "double").c_str(), ResourceExhaustedError);
  CHECK_THROWS_WITH_AS(Value(DType::string, {k2to62}),
                       oom("[4611686018427387904]", "string").c_str(), ResourceExhaustedError);
  // A reshape of 0 elements to a shape whose count wraps to 0.
  Value empty(DType::float32, {0});
  CHECK_THROWS_WITH_AS((void)empty.reshaped({k2to32, k2to32}),
                       "Shape [4294967296,4294967296] would have more than 2**63 - 1 elements",
                       ValueError);
  CHECK_THROWS_AS((void)Value::from_vector(std::vector<float>{}, {k2to32, k2to32}), ValueError);
  CHECK(empty.reshaped({0, k2to40}).dims() == Dims{0, k2to40});
}

TEST_CASE("core/checked_sizes: a failed host allocation is ResourceExhaustedError") {
#if defined(__SANITIZE_ADDRESS__)
  // AddressSanitizer aborts on an allocation past its maximum instead of throwing.
  MESSAGE("skipped under AddressSanitizer");
#else
  // 2^45 floats, 128 TiB: a valid shape that no host can hold.
  constexpr std::int64_t n = std::int64_t{1} << 45;
  CHECK_THROWS_WITH_AS(Value(DType::float32, {n}), oom("[35184372088832]", "float").c_str(),
                       ResourceExhaustedError);
  CHECK_THROWS_WITH_AS(Value::for_overwrite(DType::float32, {n}),
                       oom("[35184372088832]", "float").c_str(), ResourceExhaustedError);
  // Through a kernel: the error names the node.
  Graph g;
  auto guard = g.as_default();
  Output dims = placeholder_with_default(Value({n}), Shape{1});
  Output big = fill(dims, constant(1.0f), "big");
  auto e = run_error<ResourceExhaustedError>(big);
  REQUIRE(e);
  CHECK(e->message() == oom("[35184372088832]", "float"));
  CHECK(e->node_name() == "big");
  // tf.one_hot of 2^20 indices with depth 2^31 - 1: 2^51 floats.
  Output idx = placeholder_with_default(Value(DType::int32, {1 << 20}), Shape{-1});
  Output h = one_hot(idx, placeholder_with_default(Value(std::int32_t{2147483647}), Shape{}),
                     {.name = "h"});
  auto o = run_error<ResourceExhaustedError>(h);
  REQUIRE(o);
  CHECK(o->message() == oom("[1048576,2147483647]", "float"));
  CHECK(o->node_name() == "h");
#endif
}

TEST_CASE("core/checked_sizes: a thread's allocation limit refuses larger buffers first") {
  {
    detail::AllocationLimitScope limit(1024);
    CHECK(Value(DType::float32, {256}).nbytes() == 1024);
    CHECK_THROWS_WITH_AS(Value(DType::float32, {257}), oom("[257]", "float").c_str(),
                         ResourceExhaustedError);
    CHECK_THROWS_WITH_AS(Value::for_overwrite(DType::float64, {2, 65}),
                         oom("[2,65]", "double").c_str(), ResourceExhaustedError);
    {
      detail::AllocationLimitScope inner(0);  // 0: no limit
      CHECK(Value(DType::float32, {257}).size() == 257);
    }
    CHECK_THROWS_AS(Value(DType::float32, {257}), ResourceExhaustedError);
  }
  CHECK(Value(DType::float32, {257}).size() == 257);
  CHECK(ConfigProto{}.memory_limit_bytes == 0);
}

TEST_CASE("core/checked_sizes: a session's memory limit fails a kernel's oversized output") {
  Graph g;
  auto guard = g.as_default();
  auto f = fill(Shape{300}, Value(1.0f), "f");
  auto small = fill(Shape{100}, Value(2.0f), "small");
  // An elementwise cluster (fused by default) allocates its output under the same limit.
  auto x = placeholder<float>(Shape{300}, "x");
  auto y = exp(x * 2.0f + 1.0f, "y");
  Session limited(g, ConfigProto{.memory_limit_bytes = 1024});
  CHECK(limited.run(small).size() == 100);
  auto e = thrown<ResourceExhaustedError>([&] { (void)limited.run(f); });
  REQUIRE(e);
  CHECK(e->message() == oom("[300]", "float"));
  CHECK(e->node_name() == "f");
  auto fused = thrown<ResourceExhaustedError>([&] {
    (void)limited.run(y, {{x, Value(DType::float32, {300})}});
  });
  REQUIRE(fused);
  CHECK(fused->message() == oom("[300]", "float"));
  Session unlimited(g);
  CHECK(unlimited.run(f).size() == 300);
}

TEST_CASE("core/checked_sizes: zeros keeps every dim whole (int64 shape when needed)") {
  Graph g;
  auto guard = g.as_default();
  // tf.zeros([2**32 + 3]): its shape Const is int64, TensorFlow's TensorShape conversion.
  Output z = zeros(Shape{k2to32 + 3});
  CHECK(z.get_shape() == Shape{k2to32 + 3});
  CHECK(z.op().type() == "Fill");
  CHECK(z.op().get_attr<DType>("index_type") == DType::int64);
  CHECK(g.get_tensor_by_name("zeros/shape_as_tensor:0").dtype() == DType::int64);
  Output f = fill(Shape{k2to32 + 3}, Value(1.0f));
  CHECK(f.get_shape() == Shape{k2to32 + 3});
  CHECK(g.get_tensor_by_name("Fill/dims:0").dtype() == DType::int64);
  // The random ops' shape too, with their T attr to match (TensorFlow's DT_INT64).
  Output rn = random_normal(Shape{k2to32 + 3});
  CHECK(rn.get_shape() == Shape{k2to32 + 3});
  CHECK(g.get_operation_by_name("random_normal/RandomStandardNormal").get_attr<DType>("T") ==
        DType::int64);
  Output ru = random_uniform(Shape{k2to32 + 3});
  CHECK(ru.get_shape() == Shape{k2to32 + 3});
  CHECK(g.get_operation_by_name("random_uniform/RandomUniform").get_attr<DType>("T") ==
        DType::int64);
  // A Const of such a shape is refused while it is built.
  CHECK_THROWS_WITH_AS(constant(Value(1.0f), Shape{k2to40, k2to40}),
                       "Shape [1099511627776,1099511627776] would have more than 2**63 - 1 "
                       "elements",
                       ValueError);
  // Small shapes keep int32, as before.
  CHECK(g.get_tensor_by_name(fill(Shape{2, 3}, Value(1.0f)).op().inputs()[0].name()).dtype() ==
        DType::int32);
}

TEST_CASE("core/checked_sizes: an int32 constant of dims refuses what int32 cannot hold") {
  // Shapes, axes and permutations written as int32 constants: a dim past int32 is a
  // ValueError naming it, never a wrapped number (2**32 + 3 would have become 3).
  CHECK(detail::int32_vector(Dims{2, 3}).to_vector<std::int32_t>() ==
        std::vector<std::int32_t>{2, 3});
  CHECK_THROWS_WITH_AS(detail::int32_vector(Dims{2, k2to32 + 3}),
                       "Value 4294967299 at index 1 of [2,4294967299] does not fit in int32 (an "
                       "int32 shape, axis or permutation constant)",
                       ValueError);
  CHECK_THROWS_AS(detail::int32_vector(Dims{-k2to32}), ValueError);
  Graph g;
  auto guard = g.as_default();
  // A builder that writes a known shape as an int32 Const (tf.boolean_mask's).
  auto x = placeholder(DType::float32, Shape{k2to32 + 3}, "x");
  auto mask = placeholder(DType::bool_, Shape{k2to32 + 3}, "mask");
  CHECK_THROWS_WITH_AS(boolean_mask(x, mask), doctest::Contains("does not fit in int32"),
                       ValueError);
}

TEST_CASE("core/checked_sizes: zeros and fill of a count past int64 fail when they run") {
  Graph g;
  auto guard = g.as_default();
  // TensorFlow's tf.fill([2**40, 2**40], 1.0) fails so (its tf.zeros returns a (0, 0)
  // tensor: NumPy's product of the dims wraps to 0).
  Output z = zeros(Shape{k2to40, k2to40});
  CHECK(z.op().type() == "Fill");
  auto e = run_error<InvalidArgumentError>(z);
  REQUIRE(e);
  CHECK(e->message() ==
        "Shape [1099511627776,1099511627776] would have more than 2**63 - 1 elements");
  CHECK(e->node_name() == "zeros");
  auto f = run_error<InvalidArgumentError>(fill(Shape{k2to40, k2to40}, Value(1.0f)));
  REQUIRE(f);
  CHECK(f->node_name() == "Fill");
  // tf.zeros([2**62]): a count that fits, bytes that do not.
  Output big = zeros(Shape{k2to62});
  CHECK(big.get_shape() == Shape{k2to62});
  auto r = run_error<ResourceExhaustedError>(big);
  REQUIRE(r);
  CHECK(r->message() == oom("[4611686018427387904]", "float"));
  CHECK(r->node_name() == "zeros_1");
  // A negative dim computed at run time.
  Output dims = placeholder_with_default(Value({std::int64_t{-1}, std::int64_t{2}}), Shape{2});
  auto n = run_error<InvalidArgumentError>(fill(dims, constant(1.0f), "neg"));
  REQUIRE(n);
  CHECK(n->message() == "Dimension -1 must be >= 0");
  CHECK(n->node_name() == "neg");
}

TEST_CASE("core/checked_sizes: Range's length is checked, not wrapped") {
  Graph g;
  auto guard = g.as_default();
  const std::int64_t lo = std::numeric_limits<std::int64_t>::min();
  const std::int64_t hi = std::numeric_limits<std::int64_t>::max();
  // limit - start does not fit an int64, the length does: TensorFlow gives 4 elements.
  Output wide = range(constant(lo), constant(hi), constant(k2to62));
  CHECK(wide.get_shape() == Shape{4});
  CHECK(run_vector<std::int64_t>(wide) == std::vector<std::int64_t>{lo, -k2to62, 0, k2to62});
  // range(0, 2**62) int64: 2^62 elements of 8 bytes.
  Output big = range(constant(std::int64_t{0}), constant(k2to62), constant(std::int64_t{1}));
  auto e = run_error<ResourceExhaustedError>(big);
  REQUIRE(e);
  CHECK(e->message() == oom("[4611686018427387904]", "int64"));
  CHECK(e->node_name() == big.op().name());
  // Every int64: more than int64 can count.
  Output all = range(placeholder_with_default(Value(lo), Shape{}), constant(hi),
                     constant(std::int64_t{1}), {.name = "all"});
  auto a = run_error<InvalidArgumentError>(all);
  REQUIRE(a);
  CHECK(a->message() == "Requires ((limit - start) / delta) <= 9223372036854775807");
  CHECK(a->node_name() == "all");
}

TEST_CASE("core/checked_sizes: a float Range too long or with NaN is InvalidArgumentError") {
  Graph g;
  auto guard = g.as_default();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto run_fail = [](const Output& t) {
    auto e = run_error<InvalidArgumentError>(t);
    REQUIRE(e);
    CHECK(e->node_name() == t.op().name());
    return e->message();
  };
  CHECK(run_fail(range(constant(0.0f), placeholder_with_default(Value(1e30f), Shape{}))) ==
        "Requires ((limit - start) / delta) <= 9223372036854775807");
  CHECK(run_fail(range(constant(0.0f), placeholder_with_default(Value(nan), Shape{}))) ==
        "Requires start <= limit when delta > 0: 0/nan");
  // A NaN delta is not > 0: TensorFlow then requires start >= limit.
  CHECK(run_fail(
            range(constant(0.0f), constant(5.0f), placeholder_with_default(Value(nan), Shape{}))) ==
        "Requires start >= limit when delta < 0: 0/5");
  CHECK(run_fail(
            range(constant(5.0f), constant(0.0f), placeholder_with_default(Value(nan), Shape{}))) ==
        "Requires ((limit - start) / delta) <= 9223372036854775807");
  // Known at build time: TensorFlow's shape function raises ValueError with the same words.
  auto v = thrown<ValueError>([&] { range(constant(0.0f), constant(1e30f)); });
  REQUIRE(v);
  CHECK(contains(v->message(), "Requires ((limit - start) / delta) <= 9223372036854775807"));
}

TEST_CASE("core/checked_sizes: Reshape and Tile refuse counts past int64") {
  Graph g;
  auto guard = g.as_default();
  Output empty = placeholder_with_default(Value(DType::float32, {0}), Shape{-1});
  Output r = reshape(empty, constant(Value({k2to32, k2to32})), "r");
  auto e = run_error<InvalidArgumentError>(r);
  REQUIRE(e);
  CHECK(e->message() == "Shape [4294967296, 4294967296] has too many elements");
  CHECK(e->node_name() == "r");
  // Known at build time (TensorFlow defers this one to the run).
  auto b = thrown<ValueError>([&] {
    reshape(constant(Value(DType::float32, {0})), constant(Value({k2to32, k2to32})));
  });
  REQUIRE(b);
  CHECK(contains(b->message(), "Shape [4294967296, 4294967296] has too many elements"));

  Output x = placeholder_with_default(Value(DType::float32, {2, 2}), Shape{-1, -1});
  auto t = run_error<InvalidArgumentError>(tile(x, constant(Value({k2to40, k2to40})), "t"));
  REQUIRE(t);
  CHECK(t->message() ==
        "Encountered overflow when multiplying 2199023255552 with 2199023255552, result: -1");
  CHECK(t->node_name() == "t");
  auto t2 =
      run_error<InvalidArgumentError>(tile(x, constant(Value({k2to62, std::int64_t{1}})), "t2"));
  REQUIRE(t2);
  CHECK(t2->message() ==
        "Encountered overflow when multiplying 2 with 4611686018427387904, result: -1");
}

TEST_CASE("core/checked_sizes: an IDX header whose count wraps is DataLossError") {
  // dims [3 * 2^24, 2^25, 2^25]: 3 * 2^74 elements, 0 after wrapping in 64 bits.
  std::vector<unsigned char> bytes = {0, 0, 0x08, 3, 3, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0};
  auto e = thrown<DataLossError>([&] { (void)data::parse_idx(bytes, "huge.idx"); });
  REQUIRE(e);
  CHECK(e->message() ==
        "huge.idx: IDX dims [50331648,33554432,33554432] have more elements than an int64 "
        "counts");
  // A count that fits but promises more data than the file has.
  bytes[4] = 0;
  bytes[7] = 3;  // [3, 2^25, 2^25]
  auto t = thrown<DataLossError>([&] { (void)data::parse_idx(bytes, "short.idx"); });
  REQUIRE(t);
  CHECK(contains(t->message(), "short.idx: IDX header promises"));
}

TEST_CASE("core/checked_sizes: the fuzz corpus's regression GraphDefs give typed errors") {
  // A Const claiming 2^40 doubles (8 TiB) from one double_val: refused by the reader.
  const std::string file = "regression_const_huge.pbtxt";
  auto e = thrown<DataLossError>([&] { (void)io::parse_graph_def_text(corpus_file(file), file); });
  REQUIRE(e);
  CHECK(contains(e->what(), file));
  CHECK(contains(e->what(), "tensor shape [1099511627776] of DT_DOUBLE is too large"));

  auto r = run_corpus_error<ResourceExhaustedError>("regression_range_overflow.pbtxt", "range:0");
  REQUIRE(r);
  CHECK(r->message() == oom("[4611686018427387904]", "int64"));
  CHECK(r->node_name() == "range");

  auto f = run_corpus_error<ResourceExhaustedError>("regression_fill_overflow.pbtxt", "fill:0");
  REQUIRE(f);
  CHECK(f->message() == oom("[4611686018427387904]", "float"));
  CHECK(f->node_name() == "fill");
}

}  // namespace symflow_test_core_checked_sizes
