// tf.div_no_nan (DivNoNan), tf.cos, tf.sin, tf.ceil and tf.round: node names, op types,
// values and build-time errors, checked against TensorFlow 2.21 in graph mode
// (tensorflow.compat.v1 with eager execution disabled) running the same graphs.

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <symflow/symflow.hpp>

#include "../test_util.hpp"

namespace symflow_test_ops_math_extras_test {

namespace ops_math_extras_test {

using namespace symflow;
using namespace symflow::test;

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

}  // namespace ops_math_extras_test

using namespace ops_math_extras_test;

// ---- div_no_nan -------------------------------------------------------------------------

TEST_CASE("ops/div_no_nan: node names, Consts for numbers and the T attr") {
  // TF: div_no_nan(x, y), div_no_nan(x, 2.0), div_no_nan(3.0, y) build
  // div_no_nan:DivNoNan, div_no_nan_1/y:Const, div_no_nan_1, div_no_nan_2/x:Const, div_no_nan_2.
  Graph g;
  auto guard = g.as_default();
  Output x = placeholder(DType::float32, Shape{3}, "x");
  Output y = placeholder(DType::float32, Shape{3}, "y");
  Output d = div_no_nan(x, y);
  Output d1 = div_no_nan(x, 2.0);
  Output d2 = div_no_nan(3.0, y);
  Output named = div_no_nan(x, y, "safe");
  CHECK(nodes(g) == std::vector<std::pair<std::string, std::string>>{
                        {"x", "Placeholder"},
                        {"y", "Placeholder"},
                        {"div_no_nan", "DivNoNan"},
                        {"div_no_nan_1/y", "Const"},
                        {"div_no_nan_1", "DivNoNan"},
                        {"div_no_nan_2/x", "Const"},
                        {"div_no_nan_2", "DivNoNan"},
                        {"safe", "DivNoNan"},
                    });
  CHECK(d.op().get_attr<DType>("T") == DType::float32);
  CHECK(input_names(d) == std::vector<std::string>{"x:0", "y:0"});
  CHECK(input_names(d1) == std::vector<std::string>{"x:0", "div_no_nan_1/y:0"});
  CHECK(input_names(d2) == std::vector<std::string>{"div_no_nan_2/x:0", "y:0"});
  CHECK(d.get_shape() == Shape{3});
  CHECK(named.name() == "safe:0");
  // TF: [1, 0, -2] / [0, 0, 4] = [0, 0, -0.5]; 3 / [0, 0, 4] = [0, 0, 0.75].
  Session sess(g);
  FeedDict feeds{{x, Value{1.0f, 0.0f, -2.0f}}, {y, Value{0.0f, 0.0f, 4.0f}}};
  CHECK(sess.run(d, feeds).to_vector<float>() == std::vector<float>{0, 0, -0.5f});
  CHECK(sess.run(d2, feeds).to_vector<float>() == std::vector<float>{0, 0, 0.75f});
  CHECK(sess.run(d1, feeds).to_vector<float>() == std::vector<float>{0.5f, 0, -1});
}

TEST_CASE("ops/div_no_nan: zero divisors give 0 whatever the numerator, and broadcasting") {
  // TF: div_no_nan([[1, 0, -2], [nan, inf, 3]], [[0, 0, 4], [0, 0, -0.]]) =
  //     [[0, 0, -0.5], [0, 0, 0]]: 0/0, nan/0, inf/0 and x/-0 are all 0.
  Graph g;
  auto guard = g.as_default();
  auto x = constant<float>({{1, 0, -2}, {kNan, kInf, 3}});
  auto y = constant<float>({{0, 0, 4}, {0, 0, -0.0f}});
  Tensor<float> d = div_no_nan(x, y);
  const std::vector<float> got = run_vector<float>(d);
  CHECK(got == std::vector<float>{0, 0, -0.5f, 0, 0, 0});
  // TF (float64): div_no_nan([[1, -6], [0, 9]], [3, 0]) = [[1/3, 0], [0, 0]].
  auto xb = constant<double>({{1, -6}, {0, 9}});
  auto yb = constant<double>({3, 0});
  Tensor<double> db = div_no_nan(xb, yb);
  CHECK(db.get_shape() == Shape{2, 2});
  CHECK(run_vector<double>(db) == std::vector<double>{1.0 / 3.0, 0, 0, 0});
  // A nonzero divisor divides as RealDiv does: NaN and infinity pass through.
  CHECK(std::isnan(run_vector<float>(div_no_nan(constant<float>({kNan}), 1.0f))[0]));
  CHECK(run_vector<float>(div_no_nan(constant<float>({1}), 0.0f))[0] == 0);
}

TEST_CASE("ops/div_no_nan: integers are divided as floats, after Casts in the node's scope") {
  // TF: div_no_nan(int32 [1, 2, 0], int32 [0, 4, 0]) builds div_no_nan/Cast,
  //     div_no_nan/Cast_1 and div_no_nan (float64) = [0, 0.5, 0].
  Graph g;
  auto guard = g.as_default();
  auto a = constant<std::int32_t>({1, 2, 0}, "a");
  auto b = constant<std::int32_t>({0, 4, 0}, "b");
  Output d = div_no_nan(a, b);
  CHECK(nodes(g) == std::vector<std::pair<std::string, std::string>>{
                        {"a", "Const"},
                        {"b", "Const"},
                        {"div_no_nan/Cast", "Cast"},
                        {"div_no_nan/Cast_1", "Cast"},
                        {"div_no_nan", "DivNoNan"},
                    });
  CHECK(d.dtype() == DType::float64);
  CHECK(run_vector<double>(d) == std::vector<double>{0, 0.5, 0});
  // TF: uint8 operands are divided in float32.
  Output u = div_no_nan(constant<std::uint8_t>({1, 2}), constant<std::uint8_t>({1, 0}));
  CHECK(u.dtype() == DType::float32);
  CHECK(run_vector<float>(u) == std::vector<float>{1, 0});
}

TEST_CASE("ops/div_no_nan: bad dtypes and shapes are TypeError and ValueError") {
  Graph g;
  auto guard = g.as_default();
  // TF: TypeError "`x` and `y` must have the same dtype, got tf.float32 != tf.float64."
  auto e = thrown<TypeError>(
      [&] { div_no_nan(Output(constant<float>({1})), Output(constant<double>({1}))); });
  REQUIRE(e);
  CHECK(e->message() == "`x` and `y` must have the same dtype, got tf.float32 != tf.float64.");
  // TF: TypeError "Invalid dtype tf.bool in tf.math.divide_no_nan. Expected one of {tf.uint8,
  // ..., tf.complex128}."
  auto b = thrown<TypeError>(
      [&] { div_no_nan(Output(constant<bool>({true})), Output(constant<bool>({false}))); });
  REQUIRE(b);
  CHECK(b->message() ==
        "Invalid dtype tf.bool in tf.math.divide_no_nan. Expected one of {tf.uint8, tf.int8, "
        "tf.uint16, tf.int16, tf.uint32, tf.int32, tf.uint64, tf.int64, tf.bfloat16, tf.float16, "
        "tf.float32, tf.float64, tf.complex64, tf.complex128}.");
  // TF: ValueError "Dimensions must be equal, but are 2 and 3 for '{{node div_no_nan}} =
  // DivNoNan[T=DT_FLOAT](Const, Const_1)' with input shapes: [2], [3]."
  std::size_t before = g.num_nodes();
  auto v = thrown<ValueError>([&] {
    div_no_nan(constant<float>({1, 2}), constant<float>({1, 0, 3}));
  });
  REQUIRE(v);
  CHECK(contains(v->message(), "Dimensions must be equal, but are 2 and 3"));
  CHECK(contains(v->message(), "DivNoNan"));
  CHECK(contains(v->message(), "[2], [3]"));
  CHECK(g.num_nodes() == before + 2);  // the two Consts, no DivNoNan
}

// ---- cos, sin, ceil, round ------------------------------------------------------------------

TEST_CASE("ops/cos: cos, sin, ceil and round: names and float32 values") {
  // TF: x = [-1.5, -0.5, 0.5, 1.5, 2.5, 2.7, -2.2, 0]; Cos, Sin, Ceil, Round nodes.
  Graph g;
  auto guard = g.as_default();
  auto x = constant<float>({-1.5f, -0.5f, 0.5f, 1.5f, 2.5f, 2.7f, -2.2f, 0.0f});
  Tensor<float> c = cos(x), s = sin(x), ce = ceil(x), r = round(x);
  CHECK(c.name() == "Cos:0");
  CHECK(s.name() == "Sin:0");
  CHECK(ce.name() == "Ceil:0");
  CHECK(r.name() == "Round:0");
  CHECK(cos(x, "c").name() == "c:0");
  CHECK(c.op().get_attr<DType>("T") == DType::float32);
  check_close(run_vector<float>(c),
              {0.07073719799518585f, 0.8775825500488281f, 0.8775825500488281f, 0.07073719799518585f,
               -0.8011435866355896f, -0.9040721654891968f, -0.5885011553764343f, 1.0f});
  check_close(run_vector<float>(s),
              {-0.9974949955940247f, -0.4794255495071411f, 0.4794255495071411f, 0.9974949955940247f,
               0.5984721779823303f, 0.427379846572876f, -0.808496356010437f, 0.0f});
  // TF: Ceil = [-1, -0, 1, 2, 3, 3, -2, 0]; Round (halves to even) = [-2, -0, 0, 2, 2, 3, -2, 0].
  const std::vector<float> ceiled = run_vector<float>(ce);
  CHECK(ceiled == std::vector<float>{-1, -0.0f, 1, 2, 3, 3, -2, 0});
  CHECK(std::signbit(ceiled[1]));
  const std::vector<float> rounded = run_vector<float>(r);
  CHECK(rounded == std::vector<float>{-2, -0.0f, 0, 2, 2, 3, -2, 0});
  CHECK(std::signbit(rounded[1]));
  CHECK_FALSE(std::signbit(rounded[2]));
}

TEST_CASE("ops/cos: float64 values, and round of integers builds no node") {
  // TF (float64): cos([-1.5, 0.25, 3]) and sin of the same.
  Graph g;
  auto guard = g.as_default();
  auto x = constant<double>({-1.5, 0.25, 3.0});
  check_close(run_vector<double>(cos(x)),
              {0.0707372016677029, 0.9689124217106447, -0.9899924966004454}, 1e-15);
  check_close(run_vector<double>(sin(x)),
              {-0.9974949866040544, 0.24740395925452294, 0.1411200080598672}, 1e-15);
  check_close(run_vector<double>(round(constant<double>({0.5, 1.5, 2.5, -2.5, 3.7}))),
              {0, 2, 2, -2, 4}, 0);
  // TF: tf.round of an integer tensor returns it as it is.
  auto i = constant<std::int32_t>({1, -2});
  std::size_t before = g.num_nodes();
  Output ri = round(Output(i));
  CHECK(ri == Output(i));
  CHECK(g.num_nodes() == before);
}

TEST_CASE("ops/cos: integer inputs are TypeErrors naming the parameter and the allowed types") {
  // TF: "Value passed to parameter 'x' has DataType int32 not in list of allowed values:
  // bfloat16, float16, float32, float64, complex64, complex128" (Cos, Sin); Ceil's list has
  // no complex types. symflow lists the dtypes it has.
  Graph g;
  auto guard = g.as_default();
  auto i = constant<std::int32_t>({1});
  for (const auto& [build, type] : std::vector<std::pair<Output (*)(const Output&), std::string>>{
           {+[](const Output& t) { return cos(t); }, "Cos"},
           {+[](const Output& t) { return sin(t); }, "Sin"},
           {+[](const Output& t) { return ceil(t); }, "Ceil"}}) {
    auto e = thrown<TypeError>([&, build = build] { build(i); });  // clang 14: init-capture
    REQUIRE(e);
    CHECK(e->message().rfind(
              "Value passed to parameter 'x' has DataType int32 not in list of allowed values: "
              "float32, float64",
              0) == 0);
    CHECK(contains(e->message(), "'" + type + "'"));
  }
}

}  // namespace symflow_test_ops_math_extras_test
