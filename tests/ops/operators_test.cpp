// C++ operators on tensor handles, with TensorFlow's operator node names: a + b is "add",
// a - b "sub", a * b "mul", a / b "truediv" (floats) or "div" (integers), -a "Neg", and a
// scalar operand becomes the Const "<op>/y" (or "<op>/x" when it comes first).

#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <symflow/symflow.hpp>

#include "../test_util.hpp"

namespace symflow_test_ops_operators_test {

namespace ops_operators_test {

using namespace symflow;
using namespace symflow::test;

}  // namespace ops_operators_test

using namespace ops_operators_test;

TEST_CASE("ops/operators: node names and op types, as TensorFlow names them") {
  // TF (x, y float Consts): add AddV2 (TF1: Add), sub Sub, mul Mul, truediv RealDiv, Neg Neg,
  // mul_1/y + mul_1, mul_2/x + mul_2, sub_1/y + sub_1, sub_2/x + sub_2, truediv_1/y +
  // truediv_1, truediv_2/x + truediv_2
  Graph g;
  auto guard = g.as_default();
  auto x = constant<float>({1, 2});
  auto y = constant<float>({4, 8});
  auto a = x + y;
  auto s = x - y;
  auto m = x * y;
  auto d = x / y;
  auto n = -x;
  auto m1 = x * 2;
  auto m2 = 2 * x;
  auto s1 = x - 1;
  auto s2 = 1 - x;
  auto d1 = x / 2;
  auto d2 = 2 / x;
  CHECK(nodes(g) == std::vector<std::pair<std::string, std::string>>{{"Const", "Const"},
                                                                     {"Const_1", "Const"},
                                                                     {"add", "Add"},
                                                                     {"sub", "Sub"},
                                                                     {"mul", "Mul"},
                                                                     {"truediv", "RealDiv"},
                                                                     {"Neg", "Neg"},
                                                                     {"mul_1/y", "Const"},
                                                                     {"mul_1", "Mul"},
                                                                     {"mul_2/x", "Const"},
                                                                     {"mul_2", "Mul"},
                                                                     {"sub_1/y", "Const"},
                                                                     {"sub_1", "Sub"},
                                                                     {"sub_2/x", "Const"},
                                                                     {"sub_2", "Sub"},
                                                                     {"truediv_1/y", "Const"},
                                                                     {"truediv_1", "RealDiv"},
                                                                     {"truediv_2/x", "Const"},
                                                                     {"truediv_2", "RealDiv"}});
  CHECK(input_names(a) == std::vector<std::string>{"Const:0", "Const_1:0"});
  CHECK(input_names(m1) == std::vector<std::string>{"Const:0", "mul_1/y:0"});
  CHECK(input_names(m2) == std::vector<std::string>{"mul_2/x:0", "Const:0"});
  CHECK(input_names(s2) == std::vector<std::string>{"sub_2/x:0", "Const:0"});
  CHECK(input_names(d1) == std::vector<std::string>{"Const:0", "truediv_1/y:0"});
  CHECK(input_names(n) == std::vector<std::string>{"Const:0"});
  // The scalar takes the tensor's dtype and is a rank-0 Const.
  Value two = g.get_operation_by_name("mul_1/y").get_attr<Value>("value");
  CHECK(two == Value(2.0f));
  CHECK(g.get_operation_by_name("mul_2/x").outputs()[0].get_shape() == Shape{});
  (void)s;
  (void)m;
  (void)d;
  (void)s1;
  (void)d2;
}

TEST_CASE("ops/operators: values") {
  // TF on x = [1, 2]: x*2 [2, 4]; 2*x [2, 4]; x-1 [0, 1]; 1-x [0, -1]; x/2 [0.5, 1];
  // 2/x [2, 1]; -[1, -2] [-1, 2]
  Graph g;
  auto guard = g.as_default();
  auto x = constant<float>({1, 2});
  auto y = constant<float>({4, 8});
  CHECK(run_vector<float>(x + y) == std::vector<float>{5, 10});
  CHECK(run_vector<float>(x - y) == std::vector<float>{-3, -6});
  CHECK(run_vector<float>(x * y) == std::vector<float>{4, 16});
  CHECK(run_vector<float>(x / y) == std::vector<float>{0.25f, 0.25f});
  CHECK(run_vector<float>(x * 2) == std::vector<float>{2, 4});
  CHECK(run_vector<float>(2 * x) == std::vector<float>{2, 4});
  CHECK(run_vector<float>(x - 1) == std::vector<float>{0, 1});
  CHECK(run_vector<float>(1 - x) == std::vector<float>{0, -1});
  CHECK(run_vector<float>(x / 2) == std::vector<float>{0.5f, 1});
  CHECK(run_vector<float>(2 / x) == std::vector<float>{2, 1});
  CHECK(run_vector<float>(-constant<float>({1, -2})) == std::vector<float>{-1, 2});
  CHECK(run_vector<float>((x + y) * (x - 0.5)) == std::vector<float>{2.5f, 15});
}

TEST_CASE("ops/operators: integer division is div, and float scalars do not convert to ints") {
  // TF1: i / j on integers is the "div" node; TF: i * 2.5 on int32 is a TypeError
  // "Expected int32 passed to parameter 'y' of op 'Mul', got 2.5 of type 'float' instead."
  Graph g;
  auto guard = g.as_default();
  auto i = constant<std::int32_t>({7, -7});
  auto j = constant<std::int32_t>({2, 2});
  auto q = i / j;
  CHECK(q.name() == "div:0");
  CHECK(q.op().type() == "Div");
  CHECK(run_vector<std::int32_t>(q) == std::vector<std::int32_t>{3, -3});
  auto q2 = i / 2;
  CHECK(q2.name() == "div_1:0");
  CHECK(g.get_operation_by_name("div_1/y").get_attr<Value>("value") == Value(std::int32_t{2}));
  CHECK(run_vector<std::int32_t>(i * 3) == std::vector<std::int32_t>{21, -21});

  auto e = thrown<TypeError>([&] { (void)(i * 2.5); });
  REQUIRE(e);
  CHECK(e->message() ==
        "Expected int32 passed to parameter 'y' of op 'Mul', got 2.5 of type 'float' instead.");
  e = thrown<TypeError>([&] { (void)(2.0 + i); });
  REQUIRE(e);
  CHECK(contains(e->message(), "parameter 'x' of op 'Add', got 2.0 of type 'float'"));
  // A float tensor takes an integer scalar, and a bool one (TF accepts x * True).
  auto x = constant<float>({1.5f});
  CHECK(run_vector<float>(x * 2) == std::vector<float>{3});
  CHECK(run_vector<float>(x * true) == std::vector<float>{1.5f});
}

TEST_CASE("ops/operators: typed and untyped handles") {
  Graph g;
  auto guard = g.as_default();
  auto x = constant<float>({1, 2});
  static_assert(std::is_same_v<decltype(x + x), Tensor<float>>);
  static_assert(std::is_same_v<decltype(x * 2), Tensor<float>>);
  static_assert(std::is_same_v<decltype(-x), Tensor<float>>);
  static_assert(std::is_same_v<decltype(Output(x) + Output(x)), Output>);

  // Untyped handles of different dtypes: a TypeError at build time, no node added.
  Output f = x;
  Output i = constant<std::int32_t>({1, 2});
  std::size_t before = g.num_nodes();
  auto e = thrown<TypeError>([&] { (void)(f + i); });
  REQUIRE(e);
  CHECK(contains(e->message(),
                 "Input 'y' of 'Add' Op has type int32 that does not match type float32 of "
                 "argument 'x'."));
  CHECK_THROWS_AS((void)(i * f), TypeError);
  CHECK_THROWS_AS((void)(f / i), TypeError);
  CHECK_THROWS_AS((void)(i / f), TypeError);
  CHECK_THROWS_AS((void)(-constant(std::uint8_t{1})), TypeError);
  CHECK(g.num_nodes() == before + 1);  // only the uint8 Const
  Output sum = f + f;
  CHECK(sum.name() == "add_1:0");  // the failed "add" still used its name
}

TEST_CASE("ops/operators: the node goes to the operands' graph, not the default graph") {
  Graph g1;
  Output a, b;
  {
    auto guard = g1.as_default();
    a = constant(1.0f);
    b = constant(2.0f);
  }
  Graph g2;
  auto guard = g2.as_default();
  Output c = a + b;
  Output d = a * 3;
  CHECK(c.graph() == g1);
  CHECK(d.graph() == g1);
  CHECK(g2.num_nodes() == 0);
  CHECK(g1.num_nodes() == 5);
  Session sess(g1);
  CHECK(sess.run(c).scalar<float>() == 3.0f);
  CHECK(sess.run(d).scalar<float>() == 3.0f);

  // Operands of two graphs cannot meet.
  Output e = constant(1.0f);
  CHECK_THROWS_AS((void)(a + e), ValueError);
}

}  // namespace symflow_test_ops_operators_test
