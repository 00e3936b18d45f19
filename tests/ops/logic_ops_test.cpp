// Comparisons, logical ops, Select / Where, ArgMax / ArgMin and clip_by_value: node
// names, attrs, static shapes, values and errors, checked against TensorFlow 1.x.

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <symflow/symflow.hpp>

#include "../test_util.hpp"

namespace symflow_test_ops_logic_ops_test {

namespace ops_logic_test {

using namespace symflow;
using namespace symflow::test;

using NodeList = std::vector<std::pair<std::string, std::string>>;

// A bool tensor's elements as 0/1, for short comparisons.
inline std::vector<int> bits(const Output& t, const FeedDict& feeds = {}) {
  std::vector<int> out;
  for (bool b : run_vector<bool>(t, feeds)) out.push_back(b ? 1 : 0);
  return out;
}

}  // namespace ops_logic_test

using namespace ops_logic_test;

TEST_CASE("ops/logic: comparisons broadcast to bool tensors with TensorFlow's names") {
  // TF: x = [[1,2,3],[4,5,6]], y = [3,2,1]: Equal, NotEqual, Less, LessEqual, Greater,
  // GreaterEqual, then tf.equal(x, 2.0) as Equal_1/y + Equal_1.
  Graph g;
  auto guard = g.as_default();
  auto x = constant<float>({{1, 2, 3}, {4, 5, 6}});
  auto y = constant<float>({3, 2, 1});
  auto eq = equal(x, y);
  auto ne = not_equal(x, y);
  auto lt = less(x, y);
  auto le = less_equal(x, y);
  auto gt = greater(x, y);
  auto ge = greater_equal(x, y);
  auto eq2 = equal(x, 2.0f);
  CHECK(nodes(g) == NodeList{{"Const", "Const"},
                             {"Const_1", "Const"},
                             {"Equal", "Equal"},
                             {"NotEqual", "NotEqual"},
                             {"Less", "Less"},
                             {"LessEqual", "LessEqual"},
                             {"Greater", "Greater"},
                             {"GreaterEqual", "GreaterEqual"},
                             {"Equal_1/y", "Const"},
                             {"Equal_1", "Equal"}});
  CHECK(eq.dtype() == DType::bool_);
  CHECK(eq.get_shape() == Shape{2, 3});
  CHECK(eq.op().get_attr<DType>("T") == DType::float32);
  CHECK(input_names(eq2) == std::vector<std::string>{"Const:0", "Equal_1/y:0"});
  CHECK(g.get_operation_by_name("Equal_1/y").get_attr<Value>("value") == Value(2.0f));
  // Values from TF.
  CHECK(bits(eq) == std::vector<int>{0, 1, 0, 0, 0, 0});
  CHECK(bits(ne) == std::vector<int>{1, 0, 1, 1, 1, 1});
  CHECK(bits(lt) == std::vector<int>{1, 0, 0, 0, 0, 0});
  CHECK(bits(le) == std::vector<int>{1, 1, 0, 0, 0, 0});
  CHECK(bits(gt) == std::vector<int>{0, 0, 1, 1, 1, 1});
  CHECK(bits(ge) == std::vector<int>{0, 1, 1, 1, 1, 1});
  CHECK(bits(eq2) == std::vector<int>{0, 1, 0, 0, 0, 0});
}

TEST_CASE("ops/logic: comparisons on NaN, integers and bools") {
  // TF: n = [nan, 1]: equal(n, n) [F, T]; not_equal [T, F]; n < 2 [F, T]; n >= 1 [F, T].
  // i = [1, 2, 3]: equal(i, 2) [F, T, F]; i > 1 [F, T, T].
  Graph g;
  auto guard = g.as_default();
  auto n = constant<double>({std::numeric_limits<double>::quiet_NaN(), 1.0});
  CHECK(bits(equal(n, n)) == std::vector<int>{0, 1});
  CHECK(bits(not_equal(n, n)) == std::vector<int>{1, 0});
  CHECK(bits(less(n, 2.0)) == std::vector<int>{0, 1});
  CHECK(bits(greater_equal(n, 1)) == std::vector<int>{0, 1});
  auto i = constant<std::int32_t>({1, 2, 3});
  CHECK(bits(equal(i, 2)) == std::vector<int>{0, 1, 0});
  CHECK(bits(greater(i, 1)) == std::vector<int>{0, 1, 1});
  auto u = constant<std::uint8_t>({0, 200});
  CHECK(bits(greater(u, std::uint8_t{100})) == std::vector<int>{0, 1});
  // Equal takes bools (TF: tf.equal on bool tensors is fine).
  auto b = constant<bool>({true, false});
  auto c = constant<bool>({true, true});
  CHECK(bits(equal(b, c)) == std::vector<int>{1, 0});
  CHECK(bits(not_equal(b, true)) == std::vector<int>{0, 1});
}

TEST_CASE("ops/logic: comparison errors at build time") {
  Graph g;
  auto guard = g.as_default();
  auto x = constant<float>({1, 2});
  auto i = constant<std::int32_t>({1, 2});
  auto b = constant<bool>({true, false});
  // TF: "Value passed to parameter 'x' has DataType bool not in list of allowed values:
  // float32, float64, int32, uint8, ..." (we list the dtypes symflow has).
  auto e = thrown<TypeError>([&] { (void)less(b, b); });
  REQUIRE(e);
  CHECK(contains(e->message(),
                 "Value passed to parameter 'x' has DataType bool not in list of allowed "
                 "values: float32, float64, int32, int64, uint8"));
  // TF: "Input 'y' of 'Less' Op has type int32 that does not match type float32 of
  // argument 'x'."
  e = thrown<TypeError>([&] { (void)less(x, i); });
  REQUIRE(e);
  CHECK(contains(e->message(),
                 "Input 'y' of 'Less' Op has type int32 that does not match type float32 of "
                 "argument 'x'."));
  // TF: "Dimensions must be equal, but are 2 and 3 for '... Less_2 ...' with input
  // shapes: [2], [3]."
  auto v = thrown<ValueError>([&] { (void)less(x, constant<float>({1, 2, 3})); });
  REQUIRE(v);
  CHECK(contains(v->message(), "Dimensions must be equal, but are 2 and 3"));
  CHECK(contains(v->message(), "with input shapes: [2], [3]."));
  // TF: "Expected int32 passed to parameter 'y' of op 'Equal', got 1.5 of type 'float'
  // instead."
  e = thrown<TypeError>([&] { (void)equal(i, 1.5); });
  REQUIRE(e);
  CHECK(e->message() ==
        "Expected int32 passed to parameter 'y' of op 'Equal', got 1.5 of type 'float' "
        "instead.");
  e = thrown<TypeError>([&] { (void)logical_and(b, 1); });
  REQUIRE(e);
  CHECK(e->message() ==
        "Expected bool passed to parameter 'y' of op 'LogicalAnd', got 1 of type 'int' "
        "instead.");
}

TEST_CASE("ops/logic: logical ops, and logical_xor composed as TensorFlow 1.x does") {
  // TF: logical_xor(b, q) builds LogicalOr, LogicalAnd, LogicalNot and LogicalXor (a
  // LogicalAnd) in the current scope; with name="foo" the last op is "foo"; inside
  // name_scope("s") they are s/LogicalOr ... s/LogicalXor.
  Graph g;
  auto guard = g.as_default();
  auto b = constant<bool>({true, false, true, false});
  auto q = constant<bool>({true, true, false, false});
  auto x1 = logical_xor(b, q);
  auto x2 = logical_xor(b, q, "foo");
  Output x3;
  {
    name_scope s(g, "s");
    x3 = logical_xor(b, q);
  }
  CHECK(nodes(g) == NodeList{{"Const", "Const"},
                             {"Const_1", "Const"},
                             {"LogicalOr", "LogicalOr"},
                             {"LogicalAnd", "LogicalAnd"},
                             {"LogicalNot", "LogicalNot"},
                             {"LogicalXor", "LogicalAnd"},
                             {"LogicalOr_1", "LogicalOr"},
                             {"LogicalAnd_1", "LogicalAnd"},
                             {"LogicalNot_1", "LogicalNot"},
                             {"foo", "LogicalAnd"},
                             {"s/LogicalOr", "LogicalOr"},
                             {"s/LogicalAnd", "LogicalAnd"},
                             {"s/LogicalNot", "LogicalNot"},
                             {"s/LogicalXor", "LogicalAnd"}});
  CHECK(input_names(x1) == std::vector<std::string>{"LogicalOr:0", "LogicalNot:0"});
  // Logical ops have no "T" attr.
  CHECK(x1.op().attrs().empty());
  // Values from TF.
  CHECK(bits(logical_and(b, q)) == std::vector<int>{1, 0, 0, 0});
  CHECK(bits(logical_or(b, q)) == std::vector<int>{1, 1, 1, 0});
  CHECK(bits(x1) == std::vector<int>{0, 1, 1, 0});
  CHECK(bits(x3) == std::vector<int>{0, 1, 1, 0});
  CHECK(bits(logical_not(b)) == std::vector<int>{0, 1, 0, 1});
  CHECK(bits(logical_or(b, false)) == std::vector<int>{1, 0, 1, 0});
  // Broadcasting.
  CHECK(bits(logical_and(constant<bool>({{true}, {false}}), constant<bool>({true, false}))) ==
        std::vector<int>{1, 0, 0, 0});

  // TF: "Input 'x' of 'LogicalAnd' Op has type float32 that does not match expected type
  // of bool."
  auto f = constant<float>({1, 2});
  auto e = thrown<TypeError>([&] { (void)logical_and(f, f); });
  REQUIRE(e);
  CHECK(contains(e->message(),
                 "Input 'x' of 'LogicalAnd' Op has type float32 that does not match expected "
                 "type of bool."));
  e = thrown<TypeError>([&] { (void)logical_not(f); });
  REQUIRE(e);
  CHECK(contains(e->message(), "Input 'x' of 'LogicalNot' Op has type float32"));
  e = thrown<TypeError>([&] { (void)logical_or(b, constant<std::int32_t>({1, 0, 1, 0})); });
  REQUIRE(e);
  CHECK(contains(e->message(), "Input 'y' of 'LogicalOr' Op has type int32"));
}

TEST_CASE("ops/logic: where(cond, x, y) is Select with TensorFlow 1.x's shape rules") {
  // TF: c = [[T,F,T],[F,F,T]], x = [[1,2,3],[4,5,6]], y = -x:
  // where(c, x, y) = [[1,-2,3],[-4,-5,6]]; where([T,F], x, y) = [[1,2,3],[-4,-5,-6]].
  Graph g;
  auto guard = g.as_default();
  auto x = constant<float>({{1, 2, 3}, {4, 5, 6}});
  auto y = constant<float>({{-1, -2, -3}, {-4, -5, -6}});
  auto c = constant<bool>({{true, false, true}, {false, false, true}});
  auto cv = constant<bool>({true, false});
  auto s1 = where(c, x, y);
  auto s2 = where(cv, x, y);
  auto s3 = select(constant(true), x, y);
  static_assert(std::is_same_v<decltype(s1), Tensor<float>>);
  CHECK(s1.name() == "Select:0");
  CHECK(s1.op().type() == "Select");
  CHECK(s2.name() == "Select_1:0");
  CHECK(s1.get_shape() == Shape{2, 3});
  CHECK(s2.get_shape() == Shape{2, 3});
  CHECK(s1.op().get_attr<DType>("T") == DType::float32);
  CHECK(run_vector<float>(s1) == std::vector<float>{1, -2, 3, -4, -5, 6});
  CHECK(run_vector<float>(s2) == std::vector<float>{1, 2, 3, -4, -5, -6});
  CHECK(run_vector<float>(s3) == std::vector<float>{1, 2, 3, 4, 5, 6});
  // A vector condition over a rank-1 x is elementwise.
  CHECK(run_vector<std::int32_t>(
            where(cv, constant<std::int32_t>({1, 2}), constant<std::int32_t>({7, 8}))) ==
        std::vector<std::int32_t>{1, 8});
}

TEST_CASE("ops/logic: Select errors, at build time and when run") {
  Graph g;
  auto guard = g.as_default();
  auto x = constant<float>({{1, 2, 3}, {4, 5, 6}});
  auto y = constant<float>({{-1, -2, -3}, {-4, -5, -6}});
  auto c = constant<bool>({{true, false, true}, {false, false, true}});
  // Messages from TF's shape function.
  auto v = thrown<ValueError>([&] { (void)where(constant<bool>({true, false, true}), x, y); });
  REQUIRE(v);
  CHECK(contains(v->message(),
                 "Dimension 0 in both shapes must be equal, but are 3 and 2. Shapes are [3] and "
                 "[2]."));
  v = thrown<ValueError>([&] { (void)where(constant<bool>({{true, false}}), x, y); });
  REQUIRE(v);
  CHECK(contains(v->message(),
                 "Dimension 0 in both shapes must be equal, but are 2 and 1. Shapes are [2,3] "
                 "and [1,2]."));
  CHECK(contains(v->message(), "with input shapes: [1,2], [2,3], [2,3]."));
  v = thrown<ValueError>([&] { (void)where(c, x, constant<float>({1, 2, 3})); });
  REQUIRE(v);
  CHECK(contains(v->message(), "Shapes must be equal rank, but are 2 and 1"));
  v = thrown<ValueError>(
      [&] { (void)where(constant<bool>({true}), constant(1.0f), constant(2.0f)); });
  REQUIRE(v);
  CHECK(contains(v->message(), "Shapes must be equal rank, but are 0 and 1"));
  auto e = thrown<TypeError>([&] { (void)where(x, x, y); });
  REQUIRE(e);
  CHECK(contains(e->message(),
                 "Input 'condition' of 'Select' Op has type float32 that does not match "
                 "expected type of bool."));
  e = thrown<TypeError>([&] {
    (void)where(c, Output(x), Output(constant<std::int32_t>({{1, 2, 3}, {4, 5, 6}})));
  });
  REQUIRE(e);
  CHECK(contains(e->message(),
                 "Input 'e' of 'Select' Op has type int32 that does not match type float32 of "
                 "argument 't'."));

  // Run-time checks, with TF's messages (TF names the node, here "pick").
  auto p = placeholder(DType::bool_);
  auto q = placeholder(DType::float32);
  auto q2 = placeholder(DType::float32);
  auto s = where(p, q, q2, "pick");
  Session sess(g);
  auto run_error = [&](Value pv, Value qv, Value q2v) {
    auto err = thrown<InvalidArgumentError>([&] { sess.run(s, {{p, pv}, {q, qv}, {q2, q2v}}); });
    REQUIRE(err);
    return err->message();
  };
  CHECK(run_error(Value({true, false, true}), Value({{1.0f, 2.0f}, {3.0f, 4.0f}}),
                  Value({{1.0f, 2.0f}, {3.0f, 4.0f}})) ==
        "Number of batches of 'then' must match size of 'cond', but saw: 2 vs. 3");
  CHECK(run_error(Value({{true, false}}), Value({{1.0f, 2.0f}, {3.0f, 4.0f}}),
                  Value({{1.0f, 2.0f}, {3.0f, 4.0f}})) ==
        "Inputs to operation pick of type Select must have the same size and shape.  Input 0: "
        "[1,2] != input 1: [2,2]");
  CHECK(run_error(Value({true, false}), Value({1.0f, 2.0f}), Value({1.0f, 2.0f, 3.0f})) ==
        "Inputs to operation pick of type Select must have the same size and shape.  Input 0: "
        "[2] != input 2: [3]");
  CHECK(run_error(Value(true), Value({1.0f, 2.0f}), Value({1.0f, 2.0f, 3.0f})) ==
        "'then' and 'else' must have the same size.  but received: [2] vs. [3]");
  CHECK(run_error(Value({true}), Value(1.0f), Value(2.0f)) ==
        "'then' must be at least a vector, but saw shape: []");
  CHECK(run_error(Value({true, false}), Value({{1.0f, 2.0f}, {3.0f, 4.0f}}),
                  Value({{1.0f, 2.0f, 3.0f}, {3.0f, 4.0f, 5.0f}})) ==
        "'then' and 'else' must have the same size.  but received: [2,2] vs. [2,3]");
  // A scalar condition picks a whole tensor (TF: [[1, 2], [3, 4]]).
  CHECK(sess.run(s, {{p, Value(true)},
                     {q, Value({{1.0f, 2.0f}, {3.0f, 4.0f}})},
                     {q2, Value({{5.0f, 6.0f}, {7.0f, 8.0f}})}})
            .to_vector<float>() == std::vector<float>{1, 2, 3, 4});
  // An empty batch is fine (TF: shape (0, 2)).
  Value empty_b(DType::bool_, {0});
  Value empty_f(DType::float32, {0, 2});
  CHECK(sess.run(s, {{p, empty_b}, {q, empty_f}, {q2, empty_f}}).dims() == Dims{0, 2});
}

TEST_CASE("ops/logic: where(cond) returns the coordinates of the true elements") {
  // TF: where([[T,F,T],[F,F,T]]) = [[0,0],[0,2],[1,2]], shape (?, 2), int64, attr T bool;
  // where([0., 2., 3.]) = [[1], [2]]; a scalar fails with "WhereOp : Unhandled input
  // dimensions: 0".
  Graph g;
  auto guard = g.as_default();
  auto c = constant<bool>({{true, false, true}, {false, false, true}});
  auto w = where(c);
  static_assert(std::is_same_v<decltype(w), Tensor<std::int64_t>>);
  CHECK(w.name() == "Where:0");
  CHECK(w.op().type() == "Where");
  CHECK(w.get_shape() == Shape{unknown_dim, 2});
  CHECK(w.op().get_attr<DType>("T") == DType::bool_);
  Session sess(g);
  Value got = sess.run(w);
  CHECK(got.dims() == Dims{3, 2});
  CHECK(got.to_vector<std::int64_t>() == std::vector<std::int64_t>{0, 0, 0, 2, 1, 2});
  auto w2 = where(constant<double>({0, 2, 3}));
  CHECK(w2.get_shape() == Shape{unknown_dim, 1});
  CHECK(run_vector<std::int64_t>(w2) == std::vector<std::int64_t>{1, 2});
  CHECK(sess.run(where(constant<bool>({false, false}))).dims() == Dims{0, 1});
  CHECK(where(placeholder(DType::bool_)).get_shape() == Shape{unknown_dim, unknown_dim});
  auto err = thrown<InvalidArgumentError>([&] { sess.run(where(constant(true))); });
  REQUIRE(err);
  CHECK(err->message() == "WhereOp : Unhandled input dimensions: 0");
}

TEST_CASE("ops/logic: argmax and argmin") {
  // TF: x = [[1,5,3],[4,2,6]]: argmax(x) = [1,0,1] (ArgMax, inputs Const:0 and
  // ArgMax/dimension:0, attrs T, Tidx int32, output_type int64); argmin(x, 1) = [0,1];
  // ties give the first index: argmax([1,3,3,0]) = 1; NaN never wins: argmax([1,nan,3,0])
  // = 2.
  Graph g;
  auto guard = g.as_default();
  auto x = constant<float>({{1, 5, 3}, {4, 2, 6}});
  auto a = argmax(x);
  CHECK(a.name() == "ArgMax:0");
  CHECK(input_names(a) == std::vector<std::string>{"Const:0", "ArgMax/dimension:0"});
  CHECK(a.op().get_attr<DType>("T") == DType::float32);
  CHECK(a.op().get_attr<DType>("Tidx") == DType::int32);
  CHECK(a.op().get_attr<DType>("output_type") == DType::int64);
  CHECK(a.dtype() == DType::int64);
  CHECK(a.get_shape() == Shape{3});
  CHECK(run_vector<std::int64_t>(a) == std::vector<std::int64_t>{1, 0, 1});
  auto m = argmin(x, 1);
  CHECK(m.name() == "ArgMin:0");
  CHECK(m.get_shape() == Shape{2});
  CHECK(run_vector<std::int64_t>(m) == std::vector<std::int64_t>{0, 1});
  auto a32 = argmax(x, -1, DType::int32);
  CHECK(a32.dtype() == DType::int32);
  CHECK(a32.get_shape() == Shape{2});
  CHECK(run_vector<std::int32_t>(a32) == std::vector<std::int32_t>{1, 2});
  CHECK(run_vector<std::int64_t>(argmax(constant<float>({1, 3, 3, 0}))) ==
        std::vector<std::int64_t>{1});
  CHECK(run_vector<std::int64_t>(argmax(constant<float>(
            {1, std::numeric_limits<float>::quiet_NaN(), 3, 0}))) == std::vector<std::int64_t>{2});
  CHECK(run_vector<std::int64_t>(argmin(constant<std::int32_t>({{3, -1}, {-7, 2}}), 0)) ==
        std::vector<std::int64_t>{1, 0});
  CHECK(run_vector<std::int64_t>(argmax(constant<bool>({false, true, true}))) ==
        std::vector<std::int64_t>{1});
  // A scalar input gives a scalar at build time; unknown shapes stay unknown.
  CHECK(argmax(constant(1.0f)).get_shape() == Shape{});
  CHECK(argmax(placeholder(DType::float32)).get_shape() == Shape::unknown());

  // Build-time errors (TF's shape function).
  auto v = thrown<ValueError>([&] { (void)argmax(x, 2); });
  REQUIRE(v);
  CHECK(contains(v->message(),
                 "Dimension (2) must be in the range [-2, 2), where 2 is the number of "
                 "dimensions in the input."));
  v = thrown<ValueError>([&] { (void)argmax(x, -3); });
  REQUIRE(v);
  CHECK(contains(v->message(), "Dimension (-3) must be in the range [-2, 2)"));
  auto e = thrown<TypeError>([&] { (void)argmax(x, 0, DType::float32); });
  REQUIRE(e);
  CHECK(contains(e->message(),
                 "Value passed to parameter 'output_type' has DataType float32 not in list of "
                 "allowed values: int32, int64"));

  // Run-time errors (TF's kernel).
  auto p = placeholder(DType::float32);
  auto ap0 = argmax(p, 0);
  auto ap1 = argmax(p, 1);
  Session sess(g);
  auto err = thrown<InvalidArgumentError>([&] {
    sess.run(ap0, {{p, Value(DType::float32, {0, 2})}});
  });
  REQUIRE(err);
  CHECK(err->message() == "Reduction axis 0 is empty in shape [0,2]");
  err = thrown<InvalidArgumentError>([&] { sess.run(ap1, {{p, Value({1.0f, 2.0f, 3.0f})}}); });
  REQUIRE(err);
  CHECK(err->message() == "Expected dimension in the range [-1, 1), but got 1");
  err = thrown<InvalidArgumentError>([&] { sess.run(ap0, {{p, Value(1.0f)}}); });
  REQUIRE(err);
  CHECK(err->message() == "Expected dimension in the range [0, 0), but got 0");
  // An empty result is fine (TF: shape (0,)).
  CHECK(sess.run(ap0, {{p, Value(DType::float32, {2, 0})}}).dims() == Dims{0});
}

TEST_CASE("ops/logic: clip_by_value is Minimum then Maximum in the scope clip_by_value") {
  // TF: clip_by_value(x, 2., 4.) builds clip_by_value/Minimum/y, clip_by_value/Minimum,
  // clip_by_value/y, clip_by_value (Maximum) = [[2,4,3],[4,2,4]]; with name "c": c/...
  Graph g;
  auto guard = g.as_default();
  auto x = constant<float>({{1, 5, 3}, {4, 2, 6}});
  auto cl = clip_by_value(x, 2.0f, 4.0f);
  static_assert(std::is_same_v<decltype(cl), Tensor<float>>);
  auto cl2 = clip_by_value(x, 2, 4.0, "c");
  CHECK(nodes(g) == NodeList{{"Const", "Const"},
                             {"clip_by_value/Minimum/y", "Const"},
                             {"clip_by_value/Minimum", "Minimum"},
                             {"clip_by_value/y", "Const"},
                             {"clip_by_value", "Maximum"},
                             {"c/Minimum/y", "Const"},
                             {"c/Minimum", "Minimum"},
                             {"c/y", "Const"},
                             {"c", "Maximum"}});
  CHECK(input_names(cl) ==
        std::vector<std::string>{"clip_by_value/Minimum:0", "clip_by_value/y:0"});
  CHECK(run_vector<float>(cl) == std::vector<float>{2, 4, 3, 4, 2, 4});
  CHECK(run_vector<float>(cl2) == std::vector<float>{2, 4, 3, 4, 2, 4});
  // Tensor bounds, broadcasting within x's shape.
  auto lo = constant<float>({0, 3, 5});
  CHECK(run_vector<float>(clip_by_value(x, lo, constant(4.5f))) ==
        std::vector<float>{1, 4.5f, 5, 4, 3, 5});
  // Integers (TF: clip_by_value([1, 5], 2, 4) = [2, 4]).
  CHECK(run_vector<std::int32_t>(clip_by_value(constant<std::int32_t>({1, 5}), 2, 4)) ==
        std::vector<std::int32_t>{2, 4});
  // TF: "Expected int32 passed to parameter 'y' of op 'Maximum', got 2.5 of type 'float'
  // instead."
  auto e = thrown<TypeError>([&] { (void)clip_by_value(constant<std::int32_t>({1, 5}), 2.5, 4); });
  REQUIRE(e);
  CHECK(e->message() ==
        "Expected int32 passed to parameter 'y' of op 'Maximum', got 2.5 of type 'float' "
        "instead.");
  // Bounds may not broadcast x to a larger shape (TF1: "Shapes (2,) and (2, 2) are not
  // compatible").
  auto v = thrown<ValueError>([&] {
    (void)clip_by_value(constant<float>({1, 2}), constant<float>({{1}, {2}}), 4.0f);
  });
  REQUIRE(v);
  CHECK(v->message() == "Shapes (2,) and (2, 2) are not compatible");
}

}  // namespace symflow_test_ops_logic_ops_test
