// TensorFlow's other number types (int8, int16, uint16, uint32, uint64, float16, bfloat16,
// complex64): names, casts, printing, the ops that take them, variables and Saver, and
// TensorFlow's own files holding them. Oracle: tf.compat.v1 of TensorFlow 2.21 and NumPy
// (the values and strings below are what it printed); tests/data/storage_dtypes was
// written by it (a GraphDef with a Const of each dtype and its Cast to float, and a
// checkpoint with a variable of each).
#include <doctest/doctest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <symflow/symflow.hpp>
#include <symflow/train/import_meta_graph.hpp>
#include <symflow/train/saver.hpp>

namespace symflow_test_core_storage_dtypes_test {

namespace fs = std::filesystem;
namespace tf = symflow;
using symflow::bfloat16_t;
using symflow::complex64_t;
using symflow::DType;
using symflow::float16_t;
using symflow::Value;

const std::string kData = std::string(SYMFLOW_SOURCE_DIR) + "/tests/data/storage_dtypes/";

Value floats(std::vector<float> xs) {
  const auto n = static_cast<std::int64_t>(xs.size());
  return Value::from_vector<float>(std::move(xs), {n});
}

TEST_CASE("storage dtypes: TensorFlow's names, enum numbers and sizes") {
  struct Row {
    DType dtype;
    const char* name;
    const char* enum_name;
    const char* runtime_name;
    int number;
    std::size_t size;
  };
  const Row rows[] = {{tf::int8, "int8", "DT_INT8", "int8", 6, 1},
                      {tf::int16, "int16", "DT_INT16", "int16", 5, 2},
                      {tf::uint16, "uint16", "DT_UINT16", "uint16", 17, 2},
                      {tf::uint32, "uint32", "DT_UINT32", "uint32", 22, 4},
                      {tf::uint64, "uint64", "DT_UINT64", "uint64", 23, 8},
                      {tf::float16, "float16", "DT_HALF", "half", 19, 2},
                      {tf::bfloat16, "bfloat16", "DT_BFLOAT16", "bfloat16", 14, 2},
                      {tf::complex64, "complex64", "DT_COMPLEX64", "complex64", 8, 8}};
  for (const Row& r : rows) {
    CAPTURE(r.name);
    CHECK(tf::dtype_name(r.dtype) == r.name);
    CHECK(tf::dtype_enum_name(r.dtype) == r.enum_name);
    CHECK(tf::dtype_runtime_name(r.dtype) == r.runtime_name);
    CHECK(tf::dtype_tf_number(r.dtype) == r.number);
    CHECK(tf::dtype_from_tf_number(r.number) == r.dtype);
    CHECK(tf::dtype_from_enum_name(r.enum_name) == r.dtype);
    CHECK(tf::dtype_size(r.dtype) == r.size);
    CHECK(tf::is_storage_dtype(r.dtype));
    std::ostringstream os;
    os << r.dtype;
    CHECK(os.str() == "<dtype: '" + std::string(r.name) + "'>");
  }
  CHECK(tf::half == tf::float16);  // tf.half
  CHECK_FALSE(tf::is_storage_dtype(tf::float32));
  CHECK(tf::dtype_v<float16_t> == tf::float16);
  CHECK(tf::dtype_v<complex64_t> == tf::complex64);
  CHECK(tf::dtype_v<std::uint64_t> == tf::uint64);
}

TEST_CASE("storage dtypes: 16-bit floats round to nearest even, as TensorFlow's") {
  CHECK(float16_t(1.0f).bits == 0x3c00);
  CHECK(float16_t(65504.0f).bits == 0x7bff);
  CHECK(float16_t(65519.0f).bits == 0x7bff);  // below the halfway point to 65536
  CHECK(float16_t(65520.0f).bits == 0x7c00);  // the halfway point rounds to even: inf
  CHECK(float16_t(1e-8f).bits == 0);          // under half the smallest subnormal
  CHECK(float16_t(6e-8f).bits == 1);          // the smallest subnormal, 2^-24
  CHECK(static_cast<float>(float16_t::from_bits(1)) == std::ldexp(1.0f, -24));
  CHECK(float16_t(-2.5f).bits == 0xc100);
  CHECK(std::isnan(static_cast<float>(float16_t(std::nanf("")))));
  CHECK(bfloat16_t(1.0f).bits == 16256);  // TF's half_val for tf.ones([2], tf.bfloat16)
  CHECK(static_cast<float>(bfloat16_t(0.1f)) == 0.10009765625f);
  CHECK(std::isinf(static_cast<float>(bfloat16_t(std::numeric_limits<float>::max()))));
}

TEST_CASE("storage dtypes: casts convert as TensorFlow's Cast kernel") {
  // tf.cast(tf.constant([1.7, -1.7, 300.0, -300.0, nan]), tf.int8): through int32, wrapped.
  CHECK(floats({1.7f, -1.7f, 300, -300, NAN}).astype(tf::int8) ==
        Value::from_vector<std::int8_t>({1, -1, 44, -44, 0}, {5}));
  CHECK(floats({1.7f, -1.7f, 70000}).astype(tf::uint16) ==
        Value::from_vector<std::uint16_t>({1, 65535, 4464}, {3}));
  CHECK(floats({3e9f, -1, 1e19f, 1e20f, NAN}).astype(tf::uint64) ==
        Value::from_vector<std::uint64_t>(
            {3000000000ull, 18446744073709551615ull, 9999999980506447872ull, 9223372036854775808ull,
             9223372036854775808ull},
            {5}));
  CHECK(floats({3e9f, -1, 1e19f, 1e20f, NAN}).astype(tf::uint32) ==
        Value::from_vector<std::uint32_t>({3000000000u, 4294967295u, 0, 0, 0}, {5}));
  // Complex to real keeps the real part; to bool too (1j is false).
  const Value c = Value::from_vector<complex64_t>({{1, 2}, {3.5f, -1}, {0, 0.1f}}, {3});
  CHECK(c.astype(tf::float32) == floats({1, 3.5f, 0}));
  CHECK(Value::from_vector<complex64_t>({{0, 0}, {0, 1}, {1, 0}}, {3}).astype(tf::bool_) ==
        Value::from_vector<bool>({false, false, true}, {3}));
  CHECK(floats({1.5f, -2}).astype(tf::complex64) ==
        Value::from_vector<complex64_t>({{1.5f, 0}, {-2, 0}}, {2}));
  CHECK(floats({70000, -70000}).astype(tf::float16).astype(tf::float32) ==
        floats({INFINITY, -INFINITY}));
  CHECK(floats({0.1f}).astype(tf::float16).astype(tf::float32) == floats({0.0999755859375f}));
  CHECK(floats({0.1f}).astype(tf::bfloat16).astype(tf::float64).scalar<double>() == 0.10009765625);
  CHECK(Value::from_vector<std::int8_t>({-128, 127}, {2}).astype(tf::uint8) ==
        Value::from_vector<std::uint8_t>({128, 127}, {2}));
}

TEST_CASE("storage dtypes: values print as NumPy prints what TensorFlow returns") {
  const Value h = floats({1.5f, 0.1f, -2, 65504, 1e-8f, 70000}).astype(tf::float16);
  CHECK(tf::to_string(h) == "[ 1.50e+00  1.00e-01 -2.00e+00  6.55e+04  0.00e+00       inf]");
  CHECK(tf::repr(h) ==
        "array([ 1.50e+00,  1.00e-01, -2.00e+00,  6.55e+04,  0.00e+00,       inf],\n"
        "      dtype=float16)");
  CHECK(tf::to_string(floats({1.0f / 3, 0.1f, 100000, 1e-6f}).astype(tf::float16)) ==
        "[3.333e-01 9.998e-02       inf 1.013e-06]");
  CHECK(tf::to_string(floats({1, 10, 100, 2.5f}).astype(tf::float16).reshaped({2, 2})) ==
        "[[  1.   10. ]\n [100.    2.5]]");
  CHECK(tf::to_string(floats({1.0f / 3}).astype(tf::float16).reshaped({})) == "0.3333");
  // ml_dtypes' bfloat16: six significant digits, unpadded.
  CHECK(tf::to_string(floats({1.5f, 0.1f, -2, 3.14159f, 1e30f}).astype(tf::bfloat16)) ==
        "[1.5 0.100098 -2 3.14062 1.00026e+30]");
  CHECK(tf::repr(floats({1, 10, 100, 2.5f}).astype(tf::bfloat16).reshaped({2, 2})) ==
        "array([[1, 10],\n       [100, 2.5]], dtype=bfloat16)");
  const Value c = Value::from_vector<complex64_t>({{1, 2}, {3.5f, -1}, {0, 0.1f}}, {3});
  CHECK(tf::to_string(c) == "[1. +2.j  3.5-1.j  0. +0.1j]");
  CHECK(tf::repr(c) == "array([1. +2.j , 3.5-1.j , 0. +0.1j], dtype=complex64)");
  CHECK(tf::to_string(
            Value::from_vector<complex64_t>({{1, 2}, {3.5f, -1}, {0, 0.1f}, {-2, 0}}, {2, 2})) ==
        "[[ 1. +2.j   3.5-1.j ]\n [ 0. +0.1j -2. +0.j ]]");
  CHECK(tf::to_string(Value::from_vector<complex64_t>({{1e-5f, 1}, {1, 1e9f}}, {2})) ==
        "[1.e-05+1.e+00j 1.e+00+1.e+09j]");
  CHECK(tf::to_string(Value::from_vector<complex64_t>({{1, 2}}, {})) == "(1+2j)");
  CHECK(tf::to_string(Value::from_vector<complex64_t>({{0.1f, 0.2f}}, {})) == "(0.1+0.2j)");
  CHECK(tf::to_string(Value::from_vector<complex64_t>({{1e-5f, 1}}, {})) == "(1e-05+1j)");
  CHECK(tf::to_string(Value::from_vector<complex64_t>({{2, 0}}, {})) == "(2+0j)");
  CHECK(tf::to_string(Value::from_vector<std::int8_t>({-128, 0, 127}, {3})) == "[-128    0  127]");
  CHECK(tf::repr(Value::from_vector<std::int8_t>({1, 2}, {2})) == "array([1, 2], dtype=int8)");
  CHECK(tf::repr(Value::from_vector<std::uint64_t>({1, 2}, {2})) == "array([1, 2], dtype=uint64)");
  CHECK(tf::to_string(Value::from_vector<std::uint64_t>({0, 18446744073709551615ull}, {2})) ==
        "[                   0 18446744073709551615]");
}

TEST_CASE("storage dtypes: constants, zeros, ones, fill and casts in a graph") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Output h = tf::constant(floats({1.5f, 0.1f}).astype(tf::float16));
  tf::Output z = tf::zeros({2, 2}, tf::int16);
  tf::Output o = tf::ones({2}, tf::bfloat16);
  tf::Output oc = tf::ones({2}, tf::complex64);
  tf::Output f = tf::fill({2}, Value(std::uint32_t{7}));
  tf::Output big = tf::zeros({1000}, tf::int8);  // a Fill, not a Const, from 1000 elements
  tf::Output to_int8 = tf::cast(tf::constant(floats({1.7f, -1.7f, 300, -300, NAN})), tf::int8);
  tf::Output back = tf::cast(h, tf::float32);
  tf::Output ol = tf::ones_like(z);
  tf::Output id = tf::identity(tf::reshape(tf::expand_dims(oc, 0), tf::constant(Value{2})));
  CHECK(h.dtype() == tf::float16);
  CHECK(z.op().type() == "Const");
  CHECK(z.op().name() == "zeros");
  CHECK(big.op().type() == "Fill");
  tf::Session sess(g);
  CHECK(tf::to_string(sess.run(h)) == "[1.5 0.1]");
  CHECK(tf::to_string(sess.run(z)) == "[[0 0]\n [0 0]]");
  CHECK(tf::to_string(sess.run(o)) == "[1 1]");
  CHECK(tf::to_string(sess.run(oc)) == "[1.+0.j 1.+0.j]");
  CHECK(tf::to_string(sess.run(f)) == "[7 7]");
  CHECK(sess.run(big).size() == 1000);
  CHECK(tf::to_string(sess.run(to_int8)) == "[  1  -1  44 -44   0]");
  CHECK(sess.run(back) == floats({1.5f, 0.0999755859375f}));
  CHECK(sess.run(ol) == Value::from_vector<std::int16_t>({1, 1, 1, 1}, {2, 2}));
  CHECK(sess.run(id) == Value::from_vector<complex64_t>({{1, 0}, {1, 0}}, {2}));
}

TEST_CASE("storage dtypes: the ops that move elements take them") {
  tf::Graph g;
  auto guard = g.as_default();
  const Value m = Value::from_vector<std::int16_t>({1, 2, 3, 4, 5, 6}, {2, 3});
  tf::Output x = tf::constant(m);
  tf::Output p = tf::placeholder(tf::float16, tf::Shape({2}), "p");
  tf::Output t = tf::transpose(x);
  tf::Output gathered = tf::gather(x, Value{1, 0}, 1);
  tf::Output stacked = tf::stack({x, x});
  std::vector<tf::Output> rows = tf::unstack(x);
  tf::Output joined = tf::concat({x, x}, 0);
  tf::Output squeezed = tf::squeeze(tf::expand_dims(x, 0));
  tf::Output zl = tf::zeros_like(p);
  tf::Output sg = tf::stop_gradient(p);
  tf::Output pred = tf::placeholder(tf::bool_, tf::Shape({}), "pred");
  tf::Output chosen = tf::cond(
      pred, [&] { return tf::identity(rows[0]); }, [&] { return tf::identity(rows[1]); });
  // A loop carries an int16 row through its iterations unchanged, beside its counter.
  auto [count, carried] =
      tf::while_loop([](const tf::Output& i, const tf::Output&) { return i < 3; },
                     [](const tf::Output& i, const tf::Output& row) {
                       return std::tuple{i + 1, tf::identity(row)};
                     },
                     std::tuple{tf::constant(0), rows[0]});
  tf::Session sess(g);
  CHECK(sess.run(t) == Value::from_vector<std::int16_t>({1, 4, 2, 5, 3, 6}, {3, 2}));
  CHECK(sess.run(gathered) == Value::from_vector<std::int16_t>({2, 1, 5, 4}, {2, 2}));
  CHECK(sess.run(stacked).dims() == tf::Dims{2, 2, 3});
  CHECK(sess.run(rows[1]) == Value::from_vector<std::int16_t>({4, 5, 6}, {3}));
  CHECK(sess.run(joined).dims() == tf::Dims{4, 3});
  CHECK(sess.run(squeezed) == m);
  CHECK(sess.run(tf::shape(x)) == Value{2, 3});
  CHECK(sess.run(tf::size(x)).scalar<std::int32_t>() == 6);
  CHECK(sess.run(tf::rank(x)).scalar<std::int32_t>() == 2);
  const Value fed = floats({0.5f, -1}).astype(tf::float16);
  CHECK(sess.run(zl, {{p, fed}}) == floats({0, 0}).astype(tf::float16));
  CHECK(sess.run(sg, {{p, fed}}) == fed);
  CHECK(sess.run(chosen, {{pred, Value(false)}}) ==
        Value::from_vector<std::int16_t>({4, 5, 6}, {3}));
  CHECK(sess.run(carried) == Value::from_vector<std::int16_t>({1, 2, 3}, {3}));
  CHECK(sess.run(count).scalar<std::int32_t>() == 3);
  // A fed value of another dtype is converted to the placeholder's, as TensorFlow's
  // np.asarray(value, dtype) does.
  CHECK(sess.run(sg, {{p, floats({0.5f, -1})}}) == fed);
}

TEST_CASE("storage dtypes: variables take values, tensors and the constant initializers") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Variable a = tf::get_variable(
      "a", {3}, {.dtype = tf::int8, .initializer = tf::constant_initializer(Value{1, 2})});
  tf::Variable b =
      tf::get_variable("b", {2}, {.dtype = tf::bfloat16, .initializer = tf::ones_initializer()});
  tf::Variable c = tf::get_variable(
      "c", {2}, {.dtype = tf::complex64, .initializer = tf::constant_initializer(Value(2.5))});
  tf::Variable d =
      tf::get_variable("d", {2}, {.dtype = tf::uint64, .initializer = tf::zeros_initializer()});
  // TensorFlow's rule: a float for an integer variable is a TypeError.
  CHECK_THROWS_WITH_AS(
      tf::get_variable("e", {2},
                       {.dtype = tf::uint16, .initializer = tf::constant_initializer(Value(1.5))}),
      "Expected uint16, but got 1.5 of type 'float'.", tf::TypeError);
  tf::Output set =
      tf::assign(d, Value::from_vector<std::uint64_t>({5, 18446744073709551615ull}, {2}));
  tf::Session sess(g);
  sess.run(tf::global_variables_initializer());
  CHECK(sess.run(a) == Value::from_vector<std::int8_t>({1, 2, 2}, {3}));
  CHECK(tf::to_string(sess.run(b)) == "[1 1]");
  CHECK(tf::to_string(sess.run(c)) == "[2.5+0.j 2.5+0.j]");
  sess.run(set);
  CHECK(tf::to_string(sess.run(d)) == "[                   5 18446744073709551615]");
}

TEST_CASE("storage dtypes: ops that compute refuse them when the graph is built") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Output a = tf::constant(Value::from_vector<std::int8_t>({1, 2}, {2}));
  // An op that lists the dtypes it takes says so in TensorFlow's words...
  CHECK_THROWS_WITH_AS(tf::add(a, a),
                       doctest::Contains("Value passed to parameter 'x' has DataType int8 not in "
                                         "list of allowed values: float32, float64, int32, int64, "
                                         "uint8 for 'Add' (op: 'Add')"),
                       tf::TypeError);
  // ... and the graph refuses the storage dtypes for every other op that does not take them.
  CHECK_THROWS_WITH_AS(tf::tile(a, tf::constant(Value{2})),
                       doctest::Contains("Input 0 of Tile has dtype int8, which symflow stores, "
                                         "moves, casts and saves but does not compute in"),
                       tf::TypeError);
  tf::Output h = tf::constant(floats({1, 2}).astype(tf::float16));
  CHECK_THROWS_AS(tf::multiply(h, h), tf::TypeError);
  CHECK_THROWS_WITH_AS(tf::get_variable("c", {2}, {.dtype = tf::complex64}),
                       "An initializer for variable c of <dtype: 'complex64'> is required",
                       tf::ValueError);
  CHECK_THROWS_WITH_AS(tf::get_variable("h", {2}, {.dtype = tf::float16}),
                       doctest::Contains("needs an initializer"), tf::TypeError);
  // Integers default to zeros, as in TensorFlow.
  tf::Variable i = tf::get_variable("i", {2}, {.dtype = tf::uint16});
  tf::Session sess(g);
  sess.run(tf::global_variables_initializer());
  CHECK(sess.run(i) == Value::from_vector<std::uint16_t>({0, 0}, {2}));
}

// The variables of tests/data/storage_dtypes/vars, as TensorFlow wrote them.
struct Expected {
  const char* name;
  Value value;
};
std::vector<Expected> checkpoint_values() {
  return {
      {"v_i8", Value::from_vector<std::int8_t>({-128, 5, 127}, {3})},
      {"v_i16", Value::from_vector<std::int16_t>({-300, 7}, {2})},
      {"v_u16", Value::from_vector<std::uint16_t>({65535, 3}, {2})},
      {"v_u32", Value::from_vector<std::uint32_t>({4000000000u, 1}, {2})},
      {"v_u64", Value::from_vector<std::uint64_t>({0, 2}, {2})},
      {"v_f16", floats({0.1f, -2.5f, 65504}).astype(tf::float16)},
      {"v_bf16", floats({0.1f, 3, -1e30f}).astype(tf::bfloat16)},
      {"v_c64", Value::from_vector<complex64_t>({{1, 2}, {-0.0f, -0.5f}}, {2})},
  };
}

TEST_CASE("storage dtypes: TensorFlow's checkpoint restores, and a Saver round trip keeps bits") {
  const fs::path dir = fs::temp_directory_path() / "symflow_storage_dtypes_ckpt";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::vector<Expected> expected = checkpoint_values();
  {
    tf::Graph g;
    auto guard = g.as_default();
    std::vector<tf::Variable> vars;
    for (const Expected& e : expected)
      vars.push_back(
          tf::get_variable(e.name, {.initializer = Value(e.value.dtype(), e.value.dims())}));
    tf::train::Saver saver;
    tf::Session sess(g);
    saver.restore(sess, kData + "vars");
    for (std::size_t i = 0; i < vars.size(); ++i) {
      CAPTURE(expected[i].name);
      const Value got = sess.run(vars[i]);
      CHECK(got.dtype() == expected[i].value.dtype());
      CHECK(got == expected[i].value);
    }
    saver.save(sess, (dir / "model").string());
  }
  tf::Graph g;
  auto guard = g.as_default();
  std::vector<tf::Variable> vars;
  for (const Expected& e : expected)
    vars.push_back(
        tf::get_variable(e.name, {.initializer = Value(e.value.dtype(), e.value.dims())}));
  tf::train::Saver saver;
  tf::Session sess(g);
  saver.restore(sess, (dir / "model").string());
  for (std::size_t i = 0; i < vars.size(); ++i) {
    CAPTURE(expected[i].name);
    CHECK(sess.run(vars[i]) == expected[i].value);
  }
  // The MetaGraph the save wrote brings the variables back without the code.
  tf::Graph g2;
  auto guard2 = g2.as_default();
  std::optional<tf::train::Saver> imported =
      tf::train::import_meta_graph((dir / "model.meta").string());
  REQUIRE(imported);
  tf::Session sess2(g2);
  imported->restore(sess2, (dir / "model").string());
  for (const Expected& e : expected) {
    CAPTURE(e.name);
    CHECK(sess2.run(std::string(e.name) + ":0") == e.value);
  }
  fs::remove_all(dir);
}

TEST_CASE("storage dtypes: TensorFlow's GraphDef (binary and text) imports and runs") {
  // Each Const's Cast to float32 (float64 for uint64), as TensorFlow ran them.
  const std::vector<std::pair<std::string, Value>> casts = {
      {"i8_f", floats({-128, 5, 127})},
      {"i16_f", floats({-300, 7})},
      {"u16_f", floats({65535, 3})},
      {"u32_f", floats({4000000000.0f, 1})},
      {"u64_f", Value::from_vector<double>({0, 2}, {2})},
      {"f16_f", floats({0.0999755859375f, -2.5f, 65504})},
      {"bf16_f", floats({0.10009765625f, 3, -1.0002555517425873e+30f})},
      {"c64_f", floats({1, -0.0f})},
      {"f16s_f", Value(1.5f)},
      {"c64s_f", Value(3.0f)},
      {"u64s_f", Value(18446744073709551615.0)},
      {"bf16s_f", Value(2.0f)},
      {"i8s_f", Value(-7.0f)},
      {"u32s_f", Value(4294967296.0f)},
  };
  for (const char* file : {"consts.pb", "consts.pbtxt"}) {
    CAPTURE(file);
    tf::GraphDef def = tf::read_graph(kData + file);
    tf::Graph g;
    tf::import_graph_def(def, {.name = ""}, g);
    tf::Session sess(g);
    for (const auto& cast : casts) {
      const std::string& name = cast.first;  // clang 14: no structured binding in CAPTURE
      CAPTURE(name);
      CHECK(sess.run(name + ":0") == cast.second);
    }
    CHECK(tf::to_string(sess.run("c64:0")) == "[ 1.+2.j  -0.-0.5j]");
    CHECK(tf::to_string(sess.run("c64s:0")) == "(3-4j)");
    CHECK(tf::to_string(sess.run("bf16:0")) == "[0.100098 3 -1.00026e+30]");
    CHECK(tf::to_string(sess.run("u64s:0")) == "18446744073709551615");
    // Written back, as text and as binary, and read again: the same constants.
    const tf::GraphDef out = g.as_graph_def();
    for (const tf::GraphDef& again :
         {tf::io::parse_graph_def_text(tf::to_text(out), "text"),
          tf::io::parse_graph_def_binary(tf::io::serialize_graph_def_binary(out), "binary")}) {
      tf::Graph g2;
      tf::import_graph_def(again, {.name = ""}, g2);
      tf::Session sess2(g2);
      for (const char* name :
           {"c64s:0", "f16s:0", "u64s:0", "bf16s:0", "i8s:0", "u32s:0", "f16:0", "c64:0"})
        CHECK(sess2.run(name) == sess.run(name));
    }
  }
}

}  // namespace symflow_test_core_storage_dtypes_test
