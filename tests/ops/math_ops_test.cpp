// Elementwise arithmetic, broadcasting, MatMul, reductions and Cast, checked against
// TensorFlow 1.x graph mode (tensorflow.compat.v1 with eager execution disabled). The
// expected numbers were computed by TensorFlow 2.21 running the same graphs.

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <symflow/symflow.hpp>

#include "../test_util.hpp"

namespace symflow_test_ops_math_ops_test {

namespace ops_math_test {

using namespace symflow;
using namespace symflow::test;

constexpr std::int32_t kInt32Min = std::numeric_limits<std::int32_t>::min();
constexpr std::int32_t kInt32Max = std::numeric_limits<std::int32_t>::max();
constexpr float kInf = std::numeric_limits<float>::infinity();

}  // namespace ops_math_test

using namespace ops_math_test;

// ---- add, subtract, multiply ----------------------------------------------------------

TEST_CASE("ops/add: node names, op types and attrs of add, subtract and multiply") {
  Graph g;
  auto guard = g.as_default();
  auto x = constant<float>({1, 2});
  auto y = constant<float>({3, 4});
  auto a = add(x, y);
  auto s = subtract(x, y);
  auto m = multiply(x, y);
  auto a1 = add(x, y);
  auto named = add(x, y, "total");
  CHECK(a.name() == "Add:0");
  CHECK(s.name() == "Sub:0");
  CHECK(m.name() == "Mul:0");
  CHECK(a1.name() == "Add_1:0");
  CHECK(named.name() == "total:0");
  CHECK(a.op().type() == "Add");
  CHECK(s.op().type() == "Sub");
  CHECK(m.op().type() == "Mul");
  CHECK(a.op().get_attr<DType>("T") == DType::float32);
  REQUIRE(s.op().num_inputs() == 2);
  CHECK(s.op().inputs()[0] == Output(x));
  CHECK(s.op().inputs()[1] == Output(y));
  CHECK(a.get_shape() == Shape{2});
}

TEST_CASE("ops/add: values for every numeric dtype") {
  // TF: float64 1.5 + 2.25 = 3.75; uint8 250 + 10 = 4; int64 7 - 10 = -3; uint8 3 * 100 = 44
  Graph g;
  auto guard = g.as_default();
  CHECK(run_vector<float>(add(constant<float>({1, 2}), constant<float>({3, 4.5f}))) ==
        std::vector<float>{4, 6.5f});
  CHECK(run_vector<double>(add(constant(1.5), constant(2.25))) == std::vector<double>{3.75});
  CHECK(run_vector<std::int32_t>(
            subtract(constant<std::int32_t>({5, -5}), constant<std::int32_t>({7, -7}))) ==
        std::vector<std::int32_t>{-2, 2});
  CHECK(run_vector<std::int64_t>(subtract(constant(std::int64_t{7}), constant(std::int64_t{10}))) ==
        std::vector<std::int64_t>{-3});
  CHECK(run_vector<std::uint8_t>(add(constant(std::uint8_t{250}), constant(std::uint8_t{10}))) ==
        std::vector<std::uint8_t>{4});
  CHECK(
      run_vector<std::uint8_t>(multiply(constant(std::uint8_t{3}), constant(std::uint8_t{100}))) ==
      std::vector<std::uint8_t>{44});
  CHECK(run_vector<double>(multiply(constant<double>({1.5, -2}), constant<double>({2, 3}))) ==
        std::vector<double>{3, -6});
}

TEST_CASE("ops/add: integer overflow wraps around as in TensorFlow") {
  // TF: int32 max + 1 = min; 2^30 * 4 = 0; uint8 1 - 2 = 255; int64 2^40 * 3 = 3298534883328
  Graph g;
  auto guard = g.as_default();
  CHECK(run_vector<std::int32_t>(add(constant(kInt32Max), constant(std::int32_t{1}))) ==
        std::vector<std::int32_t>{kInt32Min});
  CHECK(run_vector<std::int32_t>(multiply(constant(std::int32_t{1} << 30), constant(4))) ==
        std::vector<std::int32_t>{0});
  CHECK(run_vector<std::int32_t>(subtract(constant(kInt32Min), constant(1))) ==
        std::vector<std::int32_t>{kInt32Max});
  CHECK(run_vector<std::uint8_t>(subtract(constant(std::uint8_t{1}), constant(std::uint8_t{2}))) ==
        std::vector<std::uint8_t>{255});
  CHECK(run_vector<std::int64_t>(
            multiply(constant(std::int64_t{1} << 40), constant(std::int64_t{3}))) ==
        std::vector<std::int64_t>{3298534883328});
}

TEST_CASE("ops/add: wrong dtypes are TypeErrors at build time") {
  Graph g;
  auto guard = g.as_default();
  Output f = constant<float>({1, 2});
  Output i = constant<std::int32_t>({1, 2});
  std::size_t before = g.num_nodes();
  // TF: "Input 'y' of 'AddV2' Op has type int32 that does not match type float32 of
  // argument 'x'." (TF1 spells the op 'Add')
  auto e = thrown<TypeError>([&] { add(f, i); });
  REQUIRE(e);
  CHECK(contains(e->message(),
                 "Input 'y' of 'Add' Op has type int32 that does not match type float32 of "
                 "argument 'x'."));
  CHECK(g.num_nodes() == before);
  CHECK_THROWS_AS(subtract(i, f), TypeError);
  CHECK_THROWS_AS(multiply(f, i), TypeError);

  // TF: "Value passed to parameter 'x' has DataType bool not in list of allowed values: ..."
  Output b = constant(true);
  e = thrown<TypeError>([&] { add(b, b); });
  REQUIRE(e);
  CHECK(contains(e->message(),
                 "Value passed to parameter 'x' has DataType bool not in list of "
                 "allowed values: float32, float64, int32, int64, uint8"));
  CHECK_THROWS_AS(multiply(b, b), TypeError);
}

// ---- divide ---------------------------------------------------------------------------

TEST_CASE("ops/divide: floats build RealDiv named truediv") {
  // TF: [7, -7, 1, -1] / [2, 2, 0, 0] = [3.5, -3.5, inf, -inf]; 0 / 0 = nan
  Graph g;
  auto guard = g.as_default();
  auto x = constant<float>({7, -7, 1, -1});
  auto y = constant<float>({2, 2, 0, 0});
  auto q = divide(x, y);
  auto q1 = divide(x, y);
  CHECK(q.name() == "truediv:0");
  CHECK(q1.name() == "truediv_1:0");
  CHECK(q.op().type() == "RealDiv");
  CHECK(run_vector<float>(q) == std::vector<float>{3.5f, -3.5f, kInf, -kInf});
  auto nan = run_vector<double>(divide(constant(0.0), constant(0.0)));
  REQUIRE(nan.size() == 1);
  CHECK(std::isnan(nan[0]));
  CHECK_THROWS_AS(divide(Output(x), Output(constant(std::int32_t{2}))), TypeError);
}

TEST_CASE("ops/divide: integers build Div named div, truncating toward zero") {
  // TF Div: [7, -7, 7, -7, 0] / [2, 2, -2, -2, 3] = [3, -3, -3, 3, 0]; int32 min / -1 = min
  Graph g;
  auto guard = g.as_default();
  auto q =
      divide(constant<std::int32_t>({7, -7, 7, -7, 0}), constant<std::int32_t>({2, 2, -2, -2, 3}));
  CHECK(q.name() == "div:0");
  CHECK(q.op().type() == "Div");
  CHECK(run_vector<std::int32_t>(q) == std::vector<std::int32_t>{3, -3, -3, 3, 0});
  CHECK(run_vector<std::int32_t>(divide(constant(kInt32Min), constant(-1))) ==
        std::vector<std::int32_t>{kInt32Min});
  CHECK(run_vector<std::int64_t>(divide(constant(std::int64_t{-9}), constant(std::int64_t{4}))) ==
        std::vector<std::int64_t>{-2});
  CHECK(run_vector<std::uint8_t>(divide(constant(std::uint8_t{200}), constant(std::uint8_t{7}))) ==
        std::vector<std::uint8_t>{28});
}

TEST_CASE("ops/divide: the Div op divides floats too, as in GraphDefs written by TF1") {
  // TF: raw_ops.Div(x=[7., -1.], y=[2., 0.]) = [3.5, -inf]
  Graph g;
  auto guard = g.as_default();
  Output x = constant<float>({7, -1});
  Output y = constant<float>({2, 0});
  Output d = g.create_op(detail::kDivOp, {x, y}, {{"T", DType::float32}}, "Div").output(0);
  CHECK(d.get_shape() == Shape{2});
  CHECK(run_vector<float>(d) == std::vector<float>{3.5f, -kInf});
}

TEST_CASE("ops/divide: integer division by zero is an InvalidArgumentError naming the node") {
  // TF: InvalidArgumentError "Integer division by zero" [[{{node div}}]]
  Graph g;
  auto guard = g.as_default();
  auto d = placeholder<std::int32_t>();
  auto q = divide(constant<std::int32_t>({1, 2}), d);
  Session sess(g);
  auto e = thrown<InvalidArgumentError>([&] { sess.run(q, {{d, {1, 0}}}); });
  REQUIRE(e);
  CHECK(e->message() == "Integer division by zero");
  CHECK(e->node_name() == "div");
  CHECK(contains(e->what(), "{{node div}}"));
  CHECK(sess.run(q, {{d, {1, 2}}}).to_vector<std::int32_t>() == std::vector<std::int32_t>{1, 1});
}

// ---- unary ops ------------------------------------------------------------------------

TEST_CASE("ops/negative: unary ops build nodes named after their type") {
  Graph g;
  auto guard = g.as_default();
  auto x = constant<float>({1, 4});
  CHECK(negative(x).name() == "Neg:0");
  CHECK(square(x).name() == "Square:0");
  CHECK(sqrt(x).name() == "Sqrt:0");
  CHECK(exp(x).name() == "Exp:0");
  CHECK(log(x).name() == "Log:0");
  CHECK(abs(x).name() == "Abs:0");
  CHECK(negative(x).name() == "Neg_1:0");
  CHECK(sqrt(x, "root").name() == "root:0");
  for (const Operation& op : g.get_operations()) {
    if (op.type() == "Const") continue;
    CHECK(op.get_attr<DType>("T") == DType::float32);
    CHECK(op.outputs()[0].get_shape() == Shape{2});
  }
}

TEST_CASE("ops/negative: values of neg, square, sqrt, exp, log and abs") {
  // TF on u = [1, 4, 0.25, 2]:
  //   sqrt [1, 2, 0.5, 1.4142135]  exp [2.7182817, 54.59815, 1.2840254, 7.389056]
  //   log [0, 1.3862944, -1.3862944, 0.6931472]  square [1, 16, 0.0625, 4]  neg [-1, -4, -0.25, -2]
  //   abs([-1.5, 2, -0]) [1.5, 2, 0]; ints: abs [3, 4], square [9, 16], neg [-3, 4]
  Graph g;
  auto guard = g.as_default();
  auto u = constant<float>({1, 4, 0.25f, 2});
  check_close(run_vector<float>(sqrt(u)), {1, 2, 0.5f, 1.4142135f});
  check_close(run_vector<float>(exp(u)), {2.7182817f, 54.59815f, 1.2840254f, 7.389056f});
  check_close(run_vector<float>(log(u)), {0, 1.3862944f, -1.3862944f, 0.6931472f});
  CHECK(run_vector<float>(square(u)) == std::vector<float>{1, 16, 0.0625f, 4});
  CHECK(run_vector<float>(negative(u)) == std::vector<float>{-1, -4, -0.25f, -2});
  CHECK(run_vector<float>(abs(constant<float>({-1.5f, 2, -0.0f}))) ==
        std::vector<float>{1.5f, 2, 0});
  CHECK(run_vector<std::int32_t>(abs(constant<std::int32_t>({-3, 4}))) ==
        std::vector<std::int32_t>{3, 4});
  CHECK(run_vector<std::int32_t>(square(constant<std::int32_t>({-3, 4}))) ==
        std::vector<std::int32_t>{9, 16});
  CHECK(run_vector<std::int64_t>(negative(constant<std::int64_t>({3, -4}))) ==
        std::vector<std::int64_t>{-3, 4});
  CHECK(run_vector<std::uint8_t>(square(constant(std::uint8_t{20}))) ==
        std::vector<std::uint8_t>{144});
  check_close(run_vector<double>(exp(constant(1.0))), {2.718281828459045}, 1e-12);
}

TEST_CASE("ops/negative: edge values: log(0), log(-1), sqrt(-1), exp(100), -int32 min") {
  // TF: log([0, -1]) = [-inf, nan]; sqrt(-1) = nan; exp(100) = inf (float32);
  //     -(int32 min) = abs(int32 min) = int32 min
  Graph g;
  auto guard = g.as_default();
  auto l = run_vector<float>(log(constant<float>({0, -1})));
  CHECK(l[0] == -kInf);
  CHECK(std::isnan(l[1]));
  CHECK(std::isnan(run_vector<float>(sqrt(constant(-1.0f)))[0]));
  CHECK(run_vector<float>(exp(constant(100.0f)))[0] == kInf);
  CHECK(run_vector<std::int32_t>(negative(constant(kInt32Min)))[0] == kInt32Min);
  CHECK(run_vector<std::int32_t>(abs(constant(kInt32Min)))[0] == kInt32Min);
}

TEST_CASE("ops/sqrt: wrong dtypes are TypeErrors at build time") {
  // TF: sqrt(int32) "Value passed to parameter 'x' has DataType int32 not in list of allowed
  // values: bfloat16, float16, float32, float64, complex64, complex128"; neg/abs reject uint8.
  Graph g;
  auto guard = g.as_default();
  Output i = constant<std::int32_t>({1, 2});
  auto e = thrown<TypeError>([&] { sqrt(i); });
  REQUIRE(e);
  CHECK(contains(e->message(),
                 "Value passed to parameter 'x' has DataType int32 not in list of "
                 "allowed values: float32, float64"));
  CHECK(contains(e->message(), "'Sqrt'"));
  CHECK(g.num_nodes() == 1);
  CHECK_THROWS_AS(exp(i), TypeError);
  CHECK_THROWS_AS(log(i), TypeError);
  Output u = constant(std::uint8_t{1});
  CHECK_THROWS_AS(negative(u), TypeError);
  CHECK_THROWS_AS(abs(u), TypeError);
  CHECK_THROWS_AS(square(constant(true)), TypeError);
}

// ---- pow, maximum, minimum ------------------------------------------------------------

TEST_CASE("ops/pow: values, wrapping and negative integer exponents") {
  // TF: pow([2, 9, 4], [3, 0.5, -1]) = [8, 3, 0.25]; pow([2, 3, -2], [10, 3, 3]) =
  // [1024, 27, -8]; int32 3^40 = 689956897; pow(int, -1) fails: "Integers to negative
  // integer powers are not allowed"
  Graph g;
  auto guard = g.as_default();
  auto f = pow(constant<float>({2, 9, 4}), constant<float>({3, 0.5f, -1}));
  CHECK(f.name() == "Pow:0");
  CHECK(f.op().type() == "Pow");
  check_close(run_vector<float>(f), {8, 3, 0.25f});
  CHECK(run_vector<std::int32_t>(
            pow(constant<std::int32_t>({2, 3, -2, 5}), constant<std::int32_t>({10, 3, 3, 0}))) ==
        std::vector<std::int32_t>{1024, 27, -8, 1});
  CHECK(run_vector<std::int32_t>(pow(constant(3), constant(40))) ==
        std::vector<std::int32_t>{689956897});

  auto n = pow(constant<std::int32_t>({2, 2}), constant<std::int32_t>({-1, 3}), "p");
  Session sess(g);
  auto e = thrown<InvalidArgumentError>([&] { sess.run(n); });
  REQUIRE(e);
  CHECK(e->message() == "Integers to negative integer powers are not allowed");
  CHECK(e->node_name() == "p");
  CHECK_THROWS_AS(pow(constant(std::uint8_t{2}), constant(std::uint8_t{2})), TypeError);
}

TEST_CASE("ops/maximum: values and NaN propagation of maximum and minimum") {
  // TF: maximum([1, 5, -2], [3, 4, -2]) = [3, 5, -2]; minimum([1, 5, -2], [3, 4, -3]) =
  // [1, 4, -3]; maximum/minimum([nan, 1], [1, nan]) = [nan, nan]
  Graph g;
  auto guard = g.as_default();
  auto mx = maximum(constant<float>({1, 5, -2}), constant<float>({3, 4, -2}));
  auto mn = minimum(constant<std::int32_t>({1, 5, -2}), constant<std::int32_t>({3, 4, -3}));
  CHECK(mx.name() == "Maximum:0");
  CHECK(mn.name() == "Minimum:0");
  CHECK(mx.op().type() == "Maximum");
  CHECK(mn.op().type() == "Minimum");
  CHECK(run_vector<float>(mx) == std::vector<float>{3, 5, -2});
  CHECK(run_vector<std::int32_t>(mn) == std::vector<std::int32_t>{1, 4, -3});
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (Output r : {Output(maximum(constant<float>({nan, 1}), constant<float>({1, nan}))),
                   Output(minimum(constant<float>({nan, 1}), constant<float>({1, nan})))}) {
    auto v = run_vector<float>(r);
    CHECK(std::isnan(v[0]));
    CHECK(std::isnan(v[1]));
  }
  CHECK(run_vector<std::uint8_t>(maximum(constant(std::uint8_t{3}), constant(std::uint8_t{200}))) ==
        std::vector<std::uint8_t>{200});
  CHECK_THROWS_AS(maximum(constant(true), constant(false)), TypeError);
}

// ---- broadcasting ---------------------------------------------------------------------

TEST_CASE("ops/add: broadcasting [2,3]+[3], [2,1]+[1,3], scalar*matrix, [4,1,3]-[2,1]") {
  Graph g;
  auto guard = g.as_default();
  auto m = constant<float>({{1, -2, 3}, {4, 5, -6}});

  // TF: [[11, 18, 33], [14, 25, 24]]
  auto a = add(m, constant<float>({10, 20, 30}));
  CHECK(a.get_shape() == Shape{2, 3});
  CHECK(run_vector<float>(a) == std::vector<float>{11, 18, 33, 14, 25, 24});

  // TF: [[11, 21, 31], [12, 22, 32]]
  auto b = add(constant<float>({{1}, {2}}), constant<float>({{10, 20, 30}}));
  CHECK(b.get_shape() == Shape{2, 3});
  CHECK(run_vector<float>(b) == std::vector<float>{11, 21, 31, 12, 22, 32});

  // TF: [[2, -4, 6], [8, 10, -12]], both ways round
  auto c = multiply(constant(2.0f), m);
  auto c2 = multiply(m, constant(2.0f));
  CHECK(c.get_shape() == Shape{2, 3});
  CHECK(run_vector<float>(c) == std::vector<float>{2, -4, 6, 8, 10, -12});
  CHECK(run_vector<float>(c2) == std::vector<float>{2, -4, 6, 8, 10, -12});

  // TF: reshape(range(12.), [4,1,3]) - [[100], [200]] has shape (4, 2, 3):
  // [[[-100 -99 -98] [-200 -199 -198]] [[-97 -96 -95] [-197 -196 -195]] ...]
  std::vector<float> r(12);
  for (int i = 0; i < 12; ++i) r[static_cast<std::size_t>(i)] = static_cast<float>(i);
  auto d = subtract(reshape(constant(Value::from_vector(r, {12})), {4, 1, 3}),
                    constant<float>({{100}, {200}}));
  CHECK(d.get_shape() == Shape{4, 2, 3});
  CHECK(run_vector<float>(d) == std::vector<float>{-100, -99,  -98,  -200, -199, -198, -97,  -96,
                                                   -95,  -197, -196, -195, -94,  -93,  -92,  -194,
                                                   -193, -192, -91,  -90,  -89,  -191, -190, -189});

  // Broadcasting the other operand order, and integer types.
  auto e = add(constant<std::int64_t>({{1}, {2}}), constant<std::int64_t>({10, 20}));
  CHECK(run_vector<std::int64_t>(e) == std::vector<std::int64_t>{11, 21, 12, 22});
}

TEST_CASE("ops/add: an impossible broadcast is a ValueError naming the node and the shapes") {
  // TF: "Dimensions must be equal, but are 2 and 4 for '{{node Add}} = AddV2[T=DT_FLOAT](ones,
  // ones_1)' with input shapes: [2,3], [4,3]."
  Graph g;
  auto guard = g.as_default();
  auto x = constant(1.0f, Shape{2, 3});
  auto y = constant(1.0f, Shape{4, 3});
  std::size_t before = g.num_nodes();
  auto e = thrown<ValueError>([&] { add(x, y); });
  REQUIRE(e);
  CHECK(contains(e->message(), "Dimensions must be equal, but are 2 and 4"));
  CHECK(contains(e->message(), "'Add'"));
  CHECK(contains(e->message(), "[2,3], [4,3]"));
  CHECK(g.num_nodes() == before);
  e = thrown<ValueError>([&] { multiply(constant(1.0f, Shape{2, 3}), constant(1.0f, Shape{2})); });
  REQUIRE(e);
  CHECK(contains(e->message(), "Dimensions must be equal, but are 3 and 2"));
  CHECK(contains(e->message(), "'Mul'"));
}

TEST_CASE("ops/add: broadcasting partial shapes, and failing at run time") {
  Graph g;
  auto guard = g.as_default();
  auto p = placeholder<float>(Shape{-1, 3});
  auto u = placeholder<float>();
  CHECK(add(p, constant<float>({1, 2, 3})).get_shape().to_string() == "(?, 3)");
  CHECK(add(p, constant<float>({{1}, {2}})).get_shape().to_string() == "(2, 3)");
  CHECK_FALSE(add(u, constant<float>({1, 2, 3})).get_shape().has_rank());

  auto a = placeholder<float>();
  auto b = placeholder<float>();
  auto s = add(a, b, "sum");
  Session sess(g);
  auto e = thrown<InvalidArgumentError>([&] {
    sess.run(s, {{a, Value::filled<float>({2, 3}, 1)}, {b, Value::filled<float>({4, 3}, 1)}});
  });
  REQUIRE(e);
  CHECK(e->message() == "Incompatible shapes: [2,3] vs. [4,3]");
  CHECK(e->node_name() == "sum");
  Value ok = sess.run(s, {{a, Value::filled<float>({2, 1}, 1)}, {b, Value::filled<float>({3}, 2)}});
  CHECK(ok.dims() == Dims{2, 3});
  CHECK(ok.to_vector<float>() == std::vector<float>(6, 3.0f));
}

// ---- matmul ---------------------------------------------------------------------------

TEST_CASE("ops/matmul: all four transpose combinations") {
  // TF: a = [[1,2,3],[4,5,6]], b = [[1,0,-1],[2,1,0.5]], c = [[1,2],[3,4],[5,6]]
  //   matmul(a, c)        = [[22, 28], [49, 64]]
  //   matmul(a, b, ta)    = [[9, 4, 1], [12, 5, 0.5], [15, 6, 0]]
  //   matmul(a, b, tb)    = [[-2, 5.5], [-2, 16]]
  //   matmul(a, c, ta tb) = [[9, 19, 29], [12, 26, 40], [15, 33, 51]]
  Graph g;
  auto guard = g.as_default();
  auto a = constant<float>({{1, 2, 3}, {4, 5, 6}});
  auto b = constant<float>({{1, 0, -1}, {2, 1, 0.5f}});
  auto c = constant<float>({{1, 2}, {3, 4}, {5, 6}});
  auto nn = matmul(a, c);
  auto tn = matmul(a, b, true, false);
  auto nt = matmul(a, b, false, true);
  auto tt = matmul(a, c, true, true, "tt");
  CHECK(nn.name() == "MatMul:0");
  CHECK(tn.name() == "MatMul_1:0");
  CHECK(tt.name() == "tt:0");
  CHECK(nn.op().type() == "MatMul");
  CHECK(tn.op().get_attr<bool>("transpose_a"));
  CHECK_FALSE(tn.op().get_attr<bool>("transpose_b"));
  CHECK(nt.op().get_attr<bool>("transpose_b"));
  CHECK(nn.op().get_attr<DType>("T") == DType::float32);
  CHECK(nn.get_shape() == Shape{2, 2});
  CHECK(tn.get_shape() == Shape{3, 3});
  CHECK(nt.get_shape() == Shape{2, 2});
  CHECK(tt.get_shape() == Shape{3, 3});

  Session sess(g);
  CHECK(sess.run(nn).to_vector<float>() == std::vector<float>{22, 28, 49, 64});
  CHECK(sess.run(tn).to_vector<float>() == std::vector<float>{9, 4, 1, 12, 5, 0.5f, 15, 6, 0});
  CHECK(sess.run(nt).to_vector<float>() == std::vector<float>{-2, 5.5f, -2, 16});
  CHECK(sess.run(tt).to_vector<float>() == std::vector<float>{9, 19, 29, 12, 26, 40, 15, 33, 51});
  CHECK(sess.run(tt).dims() == Dims{3, 3});
}

TEST_CASE("ops/matmul: integer and float64 matrices, and an empty inner dimension") {
  // TF: [[1,2],[3,4]] x [[5,6],[7,8]] = [[19, 22], [43, 50]]
  Graph g;
  auto guard = g.as_default();
  CHECK(run_vector<std::int32_t>(matmul(constant<std::int32_t>({{1, 2}, {3, 4}}),
                                        constant<std::int32_t>({{5, 6}, {7, 8}}))) ==
        std::vector<std::int32_t>{19, 22, 43, 50});
  CHECK(run_vector<std::int64_t>(
            matmul(constant<std::int64_t>({{1, 2}}), constant<std::int64_t>({{3}, {4}}))) ==
        std::vector<std::int64_t>{11});
  CHECK(run_vector<double>(matmul(constant<double>({{0.5, 0.25}}), constant<double>({{2}, {4}}))) ==
        std::vector<double>{2});
  auto empty = matmul(zeros(Shape{2, 0}), zeros(Shape{0, 3}));
  CHECK(empty.get_shape() == Shape{2, 3});
  CHECK(run_vector<float>(empty) == std::vector<float>(6, 0.0f));
}

TEST_CASE("ops/matmul: mismatched dimensions at build time and at run time") {
  Graph g;
  auto guard = g.as_default();
  auto a = constant(1.0f, Shape{2, 3});
  auto b = constant(1.0f, Shape{4, 3});
  // TF: "Dimensions must be equal, but are 3 and 4 for '{{node MatMul}} = MatMul[...]' with
  // input shapes: [2,3], [4,3]."
  auto e = thrown<ValueError>([&] { matmul(a, b); });
  REQUIRE(e);
  CHECK(contains(e->message(), "Dimensions must be equal, but are 3 and 4"));
  CHECK(contains(e->message(), "'MatMul'"));
  CHECK(contains(e->message(), "[2,3], [4,3]"));
  CHECK(matmul(a, b, false, true).get_shape() == Shape{2, 4});  // a b^T is fine

  // TF1: "Shape must be rank 2 but is rank 3"
  auto r = thrown<ValueError>([&] { matmul(constant(1.0f, Shape{2, 3, 4}), b); });
  REQUIRE(r);
  CHECK(contains(r->message(), "Shape must be rank 2 but is rank 3"));

  // Unknown shapes: checked by the kernel.
  auto p = placeholder<float>();
  auto q = placeholder<float>();
  auto m = matmul(p, q);
  CHECK(m.get_shape().to_string() == "(?, ?)");
  CHECK(matmul(placeholder<float>(Shape{-1, 3}), constant(1.0f, Shape{3, 5}))
            .get_shape()
            .to_string() == "(?, 5)");
  Session sess(g);
  auto k = thrown<InvalidArgumentError>([&] {
    sess.run(m, {{p, Value::filled<float>({2, 3}, 1)}, {q, Value::filled<float>({4, 3}, 1)}});
  });
  REQUIRE(k);
  CHECK(k->message() == "Matrix size-incompatible: In[0]: [2,3], In[1]: [4,3]");
  CHECK(k->node_name() == "MatMul_3");  // failed builds used up "MatMul" and "MatMul_2"
  k = thrown<InvalidArgumentError>([&] {
    sess.run(m, {{p, Value::filled<float>({3}, 1)}, {q, Value::filled<float>({3, 1}, 1)}});
  });
  REQUIRE(k);
  CHECK(k->message() == "In[0] is not a matrix. Instead it has shape [3]");
}

TEST_CASE("ops/matmul: wrong dtypes are TypeErrors at build time") {
  // TF: "Input 'b' of 'MatMul' Op has type int32 that does not match type float32 of
  // argument 'a'."; bool: "Value passed to parameter 'a' has DataType bool not in list ..."
  Graph g;
  auto guard = g.as_default();
  Output f = constant(1.0f, Shape{2, 2});
  Output i = constant(1, Shape{2, 2});
  auto e = thrown<TypeError>([&] { matmul(f, i); });
  REQUIRE(e);
  CHECK(contains(e->message(),
                 "Input 'b' of 'MatMul' Op has type int32 that does not match "
                 "type float32 of argument 'a'."));
  e = thrown<TypeError>([&] { matmul(constant(true, Shape{2, 2}), constant(true, Shape{2, 2})); });
  REQUIRE(e);
  CHECK(contains(e->message(), "Value passed to parameter 'a' has DataType bool"));
  CHECK_THROWS_AS(
      matmul(constant(std::uint8_t{1}, Shape{1, 1}), constant(std::uint8_t{1}, Shape{1, 1})),
      TypeError);
}

// ---- reductions -----------------------------------------------------------------------

TEST_CASE("ops/reduce_sum: nodes of the axis argument") {
  // TF: reduce_sum(x) -> Const (int32 [0, 1], built outside the op's scope) + Sum;
  //     reduce_sum(x, 1) -> Sum_1/reduction_indices (scalar) + Sum_1;
  //     reduce_mean(x, [0, 1], keepdims=True) -> Mean/reduction_indices (shape (2,)) + Mean
  //     reduce_max(x, -1) -> Max/reduction_indices + Max
  Graph g;
  auto guard = g.as_default();
  auto x = constant<float>({{1, 2, 3}, {4, 5, 6}});
  auto s = reduce_sum(x);
  auto s1 = reduce_sum(x, 1);
  auto m = reduce_mean(x, {0, 1}, true);
  auto mx = reduce_max(x, -1);
  auto mn = reduce_min(x, {1}, false, "smallest");
  CHECK(nodes(g) ==
        std::vector<std::pair<std::string, std::string>>{{"Const", "Const"},
                                                         {"Const_1", "Const"},
                                                         {"Sum", "Sum"},
                                                         {"Sum_1/reduction_indices", "Const"},
                                                         {"Sum_1", "Sum"},
                                                         {"Mean/reduction_indices", "Const"},
                                                         {"Mean", "Mean"},
                                                         {"Max/reduction_indices", "Const"},
                                                         {"Max", "Max"},
                                                         {"smallest/reduction_indices", "Const"},
                                                         {"smallest", "Min"}});
  CHECK(g.get_operation_by_name("Const_1").get_attr<Value>("value") ==
        Value::from_vector<std::int32_t>({0, 1}, {2}));
  CHECK(g.get_operation_by_name("Sum_1/reduction_indices").get_attr<Value>("value") ==
        Value(std::int32_t{1}));
  CHECK(g.get_operation_by_name("Mean/reduction_indices").get_attr<Value>("value") ==
        Value::from_vector<std::int32_t>({0, 1}, {2}));
  CHECK(g.get_operation_by_name("smallest/reduction_indices").get_attr<Value>("value").dims() ==
        Dims{1});
  CHECK(s.op().get_attr<bool>("keep_dims") == false);
  CHECK(m.op().get_attr<bool>("keep_dims") == true);
  CHECK(s.op().get_attr<DType>("Tidx") == DType::int32);
  CHECK(s.op().get_attr<DType>("T") == DType::float32);
  CHECK(s.get_shape() == Shape{});
  CHECK(s1.get_shape() == Shape{2});
  CHECK(m.get_shape() == Shape{1, 1});
  CHECK(mx.get_shape() == Shape{2});
  CHECK(mn.get_shape() == Shape{2});
}

TEST_CASE("ops/reduce_sum: values with no axis, one axis, negative axes, several axes, keepdims") {
  // TF on x = [[1, -2, 3], [4, 5, -6]]:
  //   sum 5; sum(0) [5, 3, -3]; sum(-1) [2, 3]; sum([0,1]) 5; sum(1, keepdims) [[2], [3]]
  //   mean 0.8333333; mean(0) [2.5, 1.5, -1.5]; max(1) [3, 5]; min(0) [1, -2, -6]; max 5;
  //   min(-1, keepdims) [[-2], [-6]]
  Graph g;
  auto guard = g.as_default();
  auto x = constant<float>({{1, -2, 3}, {4, 5, -6}});
  Session sess(g);
  auto v = [&](const Output& t) { return sess.run(t).to_vector<float>(); };
  CHECK(v(reduce_sum(x)) == std::vector<float>{5});
  CHECK(v(reduce_sum(x, 0)) == std::vector<float>{5, 3, -3});
  CHECK(v(reduce_sum(x, -1)) == std::vector<float>{2, 3});
  CHECK(v(reduce_sum(x, {0, 1})) == std::vector<float>{5});
  CHECK(v(reduce_sum(x, {-1, 0})) == std::vector<float>{5});
  auto keep = reduce_sum(x, 1, true);
  CHECK(keep.get_shape() == Shape{2, 1});
  CHECK(sess.run(keep).dims() == Dims{2, 1});
  CHECK(v(keep) == std::vector<float>{2, 3});
  check_close(v(reduce_mean(x)), {0.8333333f});
  CHECK(v(reduce_mean(x, 0)) == std::vector<float>{2.5f, 1.5f, -1.5f});
  CHECK(v(reduce_max(x, 1)) == std::vector<float>{3, 5});
  CHECK(v(reduce_min(x, 0)) == std::vector<float>{1, -2, -6});
  CHECK(v(reduce_max(x)) == std::vector<float>{5});
  auto mk = reduce_min(x, -1, true);
  CHECK(mk.get_shape() == Shape{2, 1});
  CHECK(v(mk) == std::vector<float>{-2, -6});
  CHECK(sess.run(reduce_sum(x)).dims() == Dims{});
}

TEST_CASE("ops/reduce_sum: rank-3 inputs and integer types") {
  // TF on r = arange(24.).reshape(2, 3, 4):
  //   sum([0, 2]) [60, 92, 124]; mean([-1, 0], keepdims) [[[7.5], [11.5], [15.5]]] (1,3,1);
  //   max(1) [[8..11], [20..23]]; min([1, 2]) [0, 12]
  // ints: sum([[1,2],[3,4]], 0) [4, 6]; mean([[1,2],[3,5]], 1) [1, 4]; max 4;
  //   mean(all, keepdims) [[2]]; int64 sum(1) [3, 7]; uint8 sum([200, 100]) 44;
  //   uint8 mean([3, 4]) 3; mean([-1, -2]) -1
  Graph g;
  auto guard = g.as_default();
  std::vector<float> r(24);
  for (int i = 0; i < 24; ++i) r[static_cast<std::size_t>(i)] = static_cast<float>(i);
  auto x = constant(Value::from_vector(r, {2, 3, 4}));
  Session sess(g);
  CHECK(sess.run(reduce_sum(x, {0, 2})).to_vector<float>() == std::vector<float>{60, 92, 124});
  auto mean = reduce_mean(x, {-1, 0}, true);
  CHECK(mean.get_shape() == Shape{1, 3, 1});
  CHECK(sess.run(mean).to_vector<float>() == std::vector<float>{7.5f, 11.5f, 15.5f});
  auto mx = reduce_max(x, 1);
  CHECK(mx.get_shape() == Shape{2, 4});
  CHECK(sess.run(mx).to_vector<float>() == std::vector<float>{8, 9, 10, 11, 20, 21, 22, 23});
  CHECK(sess.run(reduce_min(x, {1, 2})).to_vector<float>() == std::vector<float>{0, 12});

  auto i = constant<std::int32_t>({{1, 2}, {3, 4}});
  auto j = constant<std::int32_t>({{1, 2}, {3, 5}});
  CHECK(sess.run(reduce_sum(i, 0)).to_vector<std::int32_t>() == std::vector<std::int32_t>{4, 6});
  CHECK(sess.run(reduce_mean(j, 1)).to_vector<std::int32_t>() == std::vector<std::int32_t>{1, 4});
  CHECK(sess.run(reduce_max(i)).scalar<std::int32_t>() == 4);
  Value mk = sess.run(reduce_mean(j, {0, 1}, true));
  CHECK(mk.dims() == Dims{1, 1});
  CHECK(mk.to_vector<std::int32_t>() == std::vector<std::int32_t>{2});
  CHECK(sess.run(reduce_mean(constant<std::int32_t>({-1, -2}))).scalar<std::int32_t>() == -1);
  CHECK(
      sess.run(reduce_sum(constant<std::int64_t>({{1, 2}, {3, 4}}), 1)).to_vector<std::int64_t>() ==
      std::vector<std::int64_t>{3, 7});
  CHECK(sess.run(reduce_sum(constant<std::uint8_t>({200, 100}))).scalar<std::uint8_t>() == 44);
  CHECK(sess.run(reduce_mean(constant<std::uint8_t>({3, 4}))).scalar<std::uint8_t>() == 3);
  CHECK(sess.run(reduce_max(constant<double>({{1, 2}, {3, 4}}), 0)).to_vector<double>() ==
        std::vector<double>{3, 4});
}

TEST_CASE("ops/reduce_sum: empty inputs and NaN") {
  // TF: mean of an empty float32 tensor is nan, of an empty int32 tensor 0; max of empty
  // float32 -inf, of int32 the lowest int32; min of empty int32 the highest; max/min
  // propagate nan.
  Graph g;
  auto guard = g.as_default();
  Session sess(g);
  CHECK(std::isnan(sess.run(reduce_mean(zeros(Shape{0}))).scalar<float>()));
  CHECK(sess.run(reduce_mean(zeros<std::int32_t>(Shape{0}))).scalar<std::int32_t>() == 0);
  CHECK(sess.run(reduce_sum(zeros(Shape{0}))).scalar<float>() == 0);
  CHECK(sess.run(reduce_max(zeros(Shape{0}))).scalar<float>() == -kInf);
  CHECK(sess.run(reduce_max(zeros<std::int32_t>(Shape{0}))).scalar<std::int32_t>() == kInt32Min);
  CHECK(sess.run(reduce_min(zeros<std::int32_t>(Shape{0}))).scalar<std::int32_t>() == kInt32Max);
  Value cols = sess.run(reduce_sum(zeros(Shape{0, 3}), 0));
  CHECK(cols.to_vector<float>() == std::vector<float>{0, 0, 0});
  const float nan = std::numeric_limits<float>::quiet_NaN();
  CHECK(std::isnan(sess.run(reduce_max(constant<float>({1, nan, 2}))).scalar<float>()));
  CHECK(std::isnan(sess.run(reduce_min(constant<float>({1, nan, 2}))).scalar<float>()));
  CHECK(sess.run(reduce_sum(constant(3.0f))).scalar<float>() == 3.0f);  // a scalar
}

TEST_CASE("ops/reduce_sum: invalid and repeated axes") {
  // TF: build time "Invalid reduction dimension 2 for input with 2 dimensions." (also -3);
  // repeated axes pass shape inference and fail in the kernel: "Invalid reduction
  // arguments: Axes contains duplicate dimension: 1"
  Graph g;
  auto guard = g.as_default();
  auto x = constant(1.0f, Shape{2, 3});
  auto e = thrown<ValueError>([&] { reduce_sum(x, 2); });
  REQUIRE(e);
  CHECK(contains(e->message(), "Invalid reduction dimension 2 for input with 2 dimensions."));
  CHECK(contains(e->message(), "'Sum'"));
  e = thrown<ValueError>([&] { reduce_max(x, -3); });
  REQUIRE(e);
  CHECK(contains(e->message(), "Invalid reduction dimension -3 for input with 2 dimensions."));
  CHECK_THROWS_AS(reduce_mean(x, {0, 5}), ValueError);

  auto d = reduce_sum(x, {1, -1});
  CHECK(d.get_shape() == Shape{2});
  Session sess(g);
  auto k = thrown<InvalidArgumentError>([&] { sess.run(d); });
  REQUIRE(k);
  CHECK(k->message() == "Invalid reduction arguments: Axes contains duplicate dimension: 1");
  CHECK(k->node_name() == d.op().name());
}

TEST_CASE("ops/reduce_sum: unknown shapes and wrong dtypes") {
  Graph g;
  auto guard = g.as_default();
  auto p = placeholder<float>();
  CHECK_THROWS_AS(reduce_sum(p), ValueError);  // every axis of an unknown rank
  auto s = reduce_sum(p, 0);
  CHECK_FALSE(s.get_shape().has_rank());
  auto q = placeholder<float>(Shape{-1, 3});
  CHECK(reduce_sum(q, 0).get_shape() == Shape{3});
  CHECK(reduce_sum(q, 1).get_shape().to_string() == "(?,)");
  CHECK(reduce_sum(q).get_shape() == Shape{});
  Session sess(g);
  CHECK(sess.run(s, {{p, {{1, 2}, {3, 4}}}}).to_vector<float>() == std::vector<float>{4, 6});

  // TF: "Value passed to parameter 'input' has DataType bool not in list of allowed values"
  auto e = thrown<TypeError>([] { reduce_sum(constant<bool>({true, false})); });
  REQUIRE(e);
  CHECK(contains(e->message(), "Value passed to parameter 'input' has DataType bool"));
  CHECK_THROWS_AS(reduce_max(constant<bool>({true})), TypeError);
}

// ---- cast -----------------------------------------------------------------------------

TEST_CASE("ops/cast: node, attrs, and no node for the same dtype") {
  // TF: x = constant(1.); cast(x, float32) is x itself (no node); cast(x, int32) is 'Cast'
  Graph g;
  auto guard = g.as_default();
  auto x = constant(1.0f);
  Output same = cast(x, DType::float32);
  CHECK(same == Output(x));
  auto c = cast<std::int32_t>(x);
  CHECK(c.name() == "Cast:0");
  CHECK(c.op().type() == "Cast");
  CHECK(c.dtype() == DType::int32);
  CHECK(c.op().get_attr<DType>("SrcT") == DType::float32);
  CHECK(c.op().get_attr<DType>("DstT") == DType::int32);
  CHECK(c.op().get_attr<bool>("Truncate") == false);
  CHECK(cast(x, DType::bool_, "b").name() == "b:0");
  CHECK(cast(placeholder<float>(Shape{-1, 2}), DType::float64).get_shape().to_string() == "(?, 2)");
  CHECK(g.num_nodes() == 5);
}

TEST_CASE("ops/cast: between all dtypes") {
  // TF: casting [0, 1, 3] of every dtype to every dtype keeps [0, 1, 3] ([F, T, T] as bool);
  // casting [F, T, T] gives [0, 1, 1].
  const std::vector<DType> dtypes{DType::float32, DType::float64, DType::int32,
                                  DType::int64,   DType::uint8,   DType::bool_};
  for (DType from : dtypes) {
    for (DType to : dtypes) {
      CAPTURE(dtype_name(from));
      CAPTURE(dtype_name(to));
      Graph g;
      auto guard = g.as_default();
      Value src = visit_dtype(from, [](auto tag) {
        using S = typename decltype(tag)::type;
        return Value::from_vector<S>({S(0), S(1), S(3)}, {3});
      });
      Output c = cast(constant(src), to);
      CHECK(c.dtype() == to);
      CHECK(c.get_shape() == Shape{3});
      Session sess(g);
      Value out = sess.run(c);
      REQUIRE(out.dtype() == to);
      const double last = from == DType::bool_ ? 1 : 3;
      visit_dtype(to, [&](auto tag) {
        using D = typename decltype(tag)::type;
        auto v = out.to_vector<D>();
        CHECK(v[0] == D(0));
        CHECK(v[1] == D(1));
        CHECK(v[2] == D(last));
      });
    }
  }
}

TEST_CASE("ops/cast: truncation, wrapping and out-of-range values as in TensorFlow") {
  // TF: cast([1.7, -1.7, 0, 2.5, -0.5, 255.9], int32) = [1, -1, 0, 2, 0, 255]
  //     ... to uint8 = [1, 255, 0, 2, 0, 255]; to bool = [T, T, F, T, T, T]
  //     cast([-1, 256, 300, 7] int32, uint8) = [255, 0, 44, 7]
  //     cast([2^33 + 5, -1] int64, int32) = [5, -1]; cast([0, 3, -2], bool) = [F, T, T]
  //     cast([0.1, 1e40] float64, float32) = [0.1, inf]
  Graph g;
  auto guard = g.as_default();
  auto f = constant<float>({1.7f, -1.7f, 0, 2.5f, -0.5f, 255.9f});
  Session sess(g);
  CHECK(sess.run(cast(f, DType::int32)).to_vector<std::int32_t>() ==
        std::vector<std::int32_t>{1, -1, 0, 2, 0, 255});
  CHECK(sess.run(cast(f, DType::int64)).to_vector<std::int64_t>() ==
        std::vector<std::int64_t>{1, -1, 0, 2, 0, 255});
  CHECK(sess.run(cast(f, DType::uint8)).to_vector<std::uint8_t>() ==
        std::vector<std::uint8_t>{1, 255, 0, 2, 0, 255});
  CHECK(sess.run(cast(f, DType::bool_)).to_vector<bool>() ==
        std::vector<bool>{true, true, false, true, true, true});
  CHECK(sess.run(cast(constant<std::int32_t>({-1, 256, 300, 7}), DType::uint8))
            .to_vector<std::uint8_t>() == std::vector<std::uint8_t>{255, 0, 44, 7});
  CHECK(sess.run(cast(constant<std::int64_t>({(std::int64_t{1} << 33) + 5, -1}), DType::int32))
            .to_vector<std::int32_t>() == std::vector<std::int32_t>{5, -1});
  CHECK(sess.run(cast(constant<std::int32_t>({0, 3, -2}), DType::bool_)).to_vector<bool>() ==
        std::vector<bool>{false, true, true});
  auto narrow = sess.run(cast(constant<double>({0.1, 1e40}), DType::float32)).to_vector<float>();
  CHECK(narrow[0] == 0.1f);
  CHECK(narrow[1] == kInf);
  // TF: cast([nan, 3e9, -3e9], int32) = [min, min, min]; to int64 = [min, 3e9, -3e9];
  // to uint8 = [0, 0, 0] (x86's "integer indefinite", through int32 for uint8).
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto odd = constant<float>({nan, 3e9f, -3e9f});
  CHECK(sess.run(cast(odd, DType::int32)).to_vector<std::int32_t>() ==
        std::vector<std::int32_t>{kInt32Min, kInt32Min, kInt32Min});
  CHECK(
      sess.run(cast(odd, DType::int64)).to_vector<std::int64_t>() ==
      std::vector<std::int64_t>{std::numeric_limits<std::int64_t>::min(), 3000000000, -3000000000});
  CHECK(sess.run(cast(odd, DType::uint8)).to_vector<std::uint8_t>() ==
        std::vector<std::uint8_t>{0, 0, 0});
}

}  // namespace symflow_test_ops_math_ops_test
