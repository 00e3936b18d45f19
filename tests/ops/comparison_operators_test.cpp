// The comparison operators (< <= > >=) and the logical operators on bool tensors
// (& | ^ ~) on Tensor<T>, Output, Variable and scalars, with the node names TensorFlow's
// Python operators give.

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <symflow/symflow.hpp>

#include "../test_util.hpp"

namespace symflow_test_ops_comparison_operators_test {

namespace ops_comparison_operators_test {

using namespace symflow;
using namespace symflow::test;

using NodeList = std::vector<std::pair<std::string, std::string>>;

inline std::vector<int> bits(const Output& t) {
  std::vector<int> out;
  for (bool b : run_vector<bool>(t)) out.push_back(b ? 1 : 0);
  return out;
}

// Whether `a OP b` is a valid expression (for the typed-handle checks below).
template <class A, class B>
concept LessComparable = requires(A a, B b) {
  a < b;
};
template <class A, class B>
concept AndCombinable = requires(A a, B b) {
  a& b;
};

}  // namespace ops_comparison_operators_test

using namespace ops_comparison_operators_test;

TEST_CASE("ops/comparison_operators: node names as TensorFlow's Python operators give them") {
  // TF: x < y is "Less", x <= y "LessEqual", x > y "Greater", x >= y "GreaterEqual";
  // x < 2 is Less_1/y + Less_1; 2 < x turns around to x > 2: Greater_1/y + Greater_1;
  // 2.0 >= x is x <= 2.0: LessEqual_1/y + LessEqual_1.
  Graph g;
  auto guard = g.as_default();
  auto x = constant<float>({1, 2});
  auto y = constant<float>({3, 1});
  auto lt = x < y;
  auto le = x <= y;
  auto gt = x > y;
  auto ge = x >= y;
  auto lt2 = x < 2;
  auto rgt = 2 < x;
  auto rle = 2.0f >= x;
  static_assert(std::is_same_v<decltype(lt), Tensor<bool>>);
  static_assert(std::is_same_v<decltype(rgt), Tensor<bool>>);
  static_assert(std::is_same_v<decltype(Output(x) < Output(y)), Tensor<bool>>);
  CHECK(nodes(g) == NodeList{{"Const", "Const"},
                             {"Const_1", "Const"},
                             {"Less", "Less"},
                             {"LessEqual", "LessEqual"},
                             {"Greater", "Greater"},
                             {"GreaterEqual", "GreaterEqual"},
                             {"Less_1/y", "Const"},
                             {"Less_1", "Less"},
                             {"Greater_1/y", "Const"},
                             {"Greater_1", "Greater"},
                             {"LessEqual_1/y", "Const"},
                             {"LessEqual_1", "LessEqual"}});
  CHECK(input_names(rgt) == std::vector<std::string>{"Const:0", "Greater_1/y:0"});
  CHECK(g.get_operation_by_name("Less_1/y").get_attr<Value>("value") == Value(2.0f));
  // Values: x = [1, 2], y = [3, 1].
  CHECK(bits(lt) == std::vector<int>{1, 0});
  CHECK(bits(le) == std::vector<int>{1, 0});
  CHECK(bits(gt) == std::vector<int>{0, 1});
  CHECK(bits(ge) == std::vector<int>{0, 1});
  CHECK(bits(lt2) == std::vector<int>{1, 0});
  CHECK(bits(rgt) == std::vector<int>{0, 0});
  CHECK(bits(rle) == std::vector<int>{1, 1});
  CHECK(bits(x >= 2) == std::vector<int>{0, 1});
  CHECK(bits(1.5f > x) == std::vector<int>{1, 0});
}

TEST_CASE("ops/comparison_operators: logical operators on bool tensors") {
  // TF: b & q is "and" (LogicalAnd), b | q "or" (LogicalOr), ~b "LogicalNot", b ^ q the
  // scope "xor" with xor/LogicalOr, xor/LogicalAnd, xor/LogicalNot and "xor" (LogicalAnd);
  // b & True: and_1/y + and_1; True | b: or_1/x + or_1 (the scalar first).
  // Values for b = [T,F,T,F], q = [T,T,F,F]: & [T,F,F,F], | [T,T,T,F], ^ [F,T,T,F],
  // ~b [F,T,F,T].
  Graph g;
  auto guard = g.as_default();
  auto b = constant<bool>({true, false, true, false});
  auto q = constant<bool>({true, true, false, false});
  auto a = b & q;
  auto o = b | q;
  auto x = b ^ q;
  auto n = ~b;
  auto a1 = b & true;
  auto o1 = true | b;
  static_assert(std::is_same_v<decltype(a), Tensor<bool>>);
  static_assert(std::is_same_v<decltype(n), Tensor<bool>>);
  CHECK(nodes(g) == NodeList{{"Const", "Const"},
                             {"Const_1", "Const"},
                             {"and", "LogicalAnd"},
                             {"or", "LogicalOr"},
                             {"xor/LogicalOr", "LogicalOr"},
                             {"xor/LogicalAnd", "LogicalAnd"},
                             {"xor/LogicalNot", "LogicalNot"},
                             {"xor", "LogicalAnd"},
                             {"LogicalNot", "LogicalNot"},
                             {"and_1/y", "Const"},
                             {"and_1", "LogicalAnd"},
                             {"or_1/x", "Const"},
                             {"or_1", "LogicalOr"}});
  CHECK(input_names(x) == std::vector<std::string>{"xor/LogicalOr:0", "xor/LogicalNot:0"});
  CHECK(input_names(o1) == std::vector<std::string>{"or_1/x:0", "Const:0"});
  CHECK(bits(a) == std::vector<int>{1, 0, 0, 0});
  CHECK(bits(o) == std::vector<int>{1, 1, 1, 0});
  CHECK(bits(x) == std::vector<int>{0, 1, 1, 0});
  CHECK(bits(n) == std::vector<int>{0, 1, 0, 1});
  CHECK(bits(a1) == std::vector<int>{1, 0, 1, 0});
  CHECK(bits(o1) == std::vector<int>{1, 1, 1, 1});
  // Composed with comparisons.
  auto f = constant<float>({1, 2, 3, 4});
  CHECK(bits((f > 1.5f) & (f < 3.5f)) == std::vector<int>{0, 1, 1, 0});
  CHECK(bits(~(f > 2) | (f >= 4)) == std::vector<int>{1, 1, 0, 1});
}

TEST_CASE("ops/comparison_operators: xor with a scalar converts it once, as TF1 does") {
  // TF1's operator wrapper converts the scalar inside the "xor" scope: b ^ True builds
  // xor/y, then logical_xor's ops in that scope. (TF 2.x's wrapper leaves the scalar to
  // each inner op: xor/LogicalOr/y, xor/LogicalAnd/y.) True ^ b builds xor_1/x first.
  // Values (TF): b = [T, F]: b ^ True = [F, T], True ^ b = [F, T].
  Graph g;
  auto guard = g.as_default();
  auto b = constant<bool>({true, false});
  auto x1 = b ^ true;
  auto x2 = true ^ b;
  CHECK(nodes(g) == NodeList{{"Const", "Const"},
                             {"xor/y", "Const"},
                             {"xor/LogicalOr", "LogicalOr"},
                             {"xor/LogicalAnd", "LogicalAnd"},
                             {"xor/LogicalNot", "LogicalNot"},
                             {"xor", "LogicalAnd"},
                             {"xor_1/x", "Const"},
                             {"xor_1/LogicalOr", "LogicalOr"},
                             {"xor_1/LogicalAnd", "LogicalAnd"},
                             {"xor_1/LogicalNot", "LogicalNot"},
                             {"xor_1", "LogicalAnd"}});
  CHECK(input_names(g.get_operation_by_name("xor_1/LogicalOr")) ==
        std::vector<std::string>{"xor_1/x:0", "Const:0"});
  CHECK(bits(x1) == std::vector<int>{0, 1});
  CHECK(bits(x2) == std::vector<int>{0, 1});
}

TEST_CASE("ops/comparison_operators: variables, untyped handles and build-time errors") {
  Graph g;
  auto guard = g.as_default();
  Variable v(Value({1.0f, 4.0f}));
  Variable w(Value({2.0f, 3.0f}));
  auto lt = v < w;
  auto ge = v >= 2.0f;
  auto r = 3 > v;  // v < 3
  static_assert(std::is_same_v<decltype(lt), Tensor<bool>>);
  CHECK(lt.op().type() == "Less");
  CHECK(input_names(lt) == std::vector<std::string>{"Variable/read:0", "Variable_1/read:0"});
  CHECK(r.op().type() == "Less");
  Session sess(g);
  sess.run(global_variables_initializer());
  auto as_bits = [&](const Output& t) {
    std::vector<int> out;
    for (bool b : sess.run(t).to_vector<bool>()) out.push_back(b ? 1 : 0);
    return out;
  };
  CHECK(as_bits(lt) == std::vector<int>{1, 0});
  CHECK(as_bits(ge) == std::vector<int>{0, 1});
  CHECK(as_bits(r) == std::vector<int>{1, 0});

  // Untyped handles: the dtypes are checked when the node is built.
  Output f = constant<float>({1, 2});
  Output i = constant<std::int32_t>({1, 2});
  auto e = thrown<TypeError>([&] { (void)(f < i); });
  REQUIRE(e);
  CHECK(contains(e->message(),
                 "Input 'y' of 'Less' Op has type int32 that does not match type float32 of "
                 "argument 'x'."));
  // TF: "Expected int32 passed to parameter 'y' of op 'Less', got 1.5 of type 'float'
  // instead."
  e = thrown<TypeError>([&] { (void)(i < 1.5); });
  REQUIRE(e);
  CHECK(e->message() ==
        "Expected int32 passed to parameter 'y' of op 'Less', got 1.5 of type 'float' "
        "instead.");
  // TF1: & on non-bool tensors: "Input 'x' of 'LogicalAnd' Op has type float32 that does
  // not match expected type of bool."
  e = thrown<TypeError>([&] { (void)(f & f); });
  REQUIRE(e);
  CHECK(contains(e->message(),
                 "Input 'x' of 'LogicalAnd' Op has type float32 that does not match expected "
                 "type of bool."));
  CHECK_THROWS_AS((void)(~f), TypeError);
  CHECK_THROWS_AS((void)(f ^ f), TypeError);
}

TEST_CASE("ops/comparison_operators: == on handles is identity, not elementwise") {
  // As in TensorFlow 1.x, == compares the handles; equal() compares elements.
  Graph g;
  auto guard = g.as_default();
  auto x = constant<float>({1, 2});
  auto y = constant<float>({1, 2});
  std::size_t before = g.num_nodes();
  static_assert(std::is_same_v<decltype(Output(x) == Output(y)), bool>);
  CHECK(Output(x) == Output(x));
  CHECK_FALSE(Output(x) == Output(y));
  CHECK(g.num_nodes() == before);
  CHECK(bits(equal(x, y)) == std::vector<int>{1, 1});
}

TEST_CASE("ops/comparison_operators: which typed expressions compile") {
  // Same element types compare; the logical operators need bool tensors and bool scalars.
  static_assert(LessComparable<Tensor<float>, Tensor<float>>);
  static_assert(LessComparable<Tensor<std::int32_t>, int>);
  static_assert(LessComparable<double, Tensor<double>>);
  static_assert(LessComparable<Variable, Variable>);
  static_assert(AndCombinable<Tensor<bool>, Tensor<bool>>);
  static_assert(AndCombinable<Tensor<bool>, bool>);
  static_assert(AndCombinable<bool, Tensor<bool>>);
  static_assert(!AndCombinable<Tensor<bool>, int>);  // TF: x & 1 is a TypeError
  CHECK(true);
}

}  // namespace symflow_test_ops_comparison_operators_test
