// Ops that graphs written by TensorFlow 1.15 and later hold: AddV2, FloorDiv, FloorMod,
// Mod, PlaceholderWithDefault and SelectV2. Every expected number, name and message
// below was produced by TensorFlow 2.21 in graph mode (tensorflow.compat.v1 with eager
// execution disabled) on the same inputs.

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <symflow/io/importer.hpp>
#include <symflow/symflow.hpp>

#include "../test_util.hpp"

namespace symflow_test_ops_tf1_ops_test {

namespace tf1_ops_test {

using namespace symflow;
using namespace symflow::test;

constexpr std::int32_t kInt32Min = std::numeric_limits<std::int32_t>::min();
constexpr std::int32_t kInt32Max = std::numeric_limits<std::int32_t>::max();
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// Floats compared bit-exactly, NaN equal to NaN and -0 apart from +0.
inline bool same_floats(const std::vector<float>& got, const std::vector<float>& want) {
  if (got.size() != want.size()) return false;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(got[i]) && std::isnan(want[i])) continue;
    if (got[i] != want[i] || std::signbit(got[i]) != std::signbit(want[i])) return false;
  }
  return true;
}

// The message of the error that running `t` raises.
inline std::string run_error(const Output& t, const FeedDict& feeds = {}) {
  auto e = thrown<InvalidArgumentError>([&] { run_vector<float>(t, feeds); });
  REQUIRE(e.has_value());
  return e->message();
}

inline NodeDef node(std::string name, std::string op, std::vector<std::string> inputs,
                    AttrMap attrs) {
  return NodeDef{std::move(name), std::move(op), std::move(inputs), "", std::move(attrs)};
}

}  // namespace tf1_ops_test

using namespace tf1_ops_test;

// ---- AddV2 -------------------------------------------------------------------------------

TEST_CASE("ops/add_v2: raw_ops::add_v2 builds AddV2, while + and add keep building Add") {
  Graph g;
  auto guard = g.as_default();
  auto x = constant<float>({{1, 2, 3}, {4, 5, 6}});
  auto y = constant<float>({10, 20, 30});
  Output a = raw_ops::add_v2(x, y);
  Output b = raw_ops::add_v2(x, y, "total");
  CHECK(a.name() == "AddV2:0");
  CHECK(a.op().type() == "AddV2");
  CHECK(a.op().get_attr<DType>("T") == DType::float32);
  CHECK(input_names(a) == std::vector<std::string>{"Const:0", "Const_1:0"});
  CHECK(a.get_shape() == Shape{2, 3});
  CHECK(b.name() == "total:0");
  CHECK((x + y).op().type() == "Add");
  CHECK(add(x, y).op().type() == "Add");
  // TF: raw_ops.AddV2 of a [2, 3] and a [4] fails to broadcast at build time.
  auto e = thrown<ValueError>([&] { raw_ops::add_v2(x, constant<float>({1, 2, 3, 4})); });
  REQUIRE(e.has_value());
  CHECK(contains(e->message(), "Dimensions must be equal, but are 3 and 4"));
}

TEST_CASE("ops/add_v2: Add's values, with broadcasting and integer wrap-around") {
  // TF: AddV2([[-7, 8, 0], [9, -10, -1]], [3, -4, 5]) = [[-4, 4, 5], [12, -14, 4]];
  // [-7.5, 8.25, -0.5] + [[2], [-3]] = [[-5.5, 10.25, 1.5], [-10.5, 5.25, -3.5]];
  // int32 2147483647 + 1 = -2147483648; uint8 250 + 10 = 4.
  Graph g;
  auto guard = g.as_default();
  auto xi = constant<std::int32_t>({{-7, 8, 0}, {9, -10, -1}});
  auto yi = constant<std::int32_t>({3, -4, 5});
  CHECK(run_vector<std::int32_t>(raw_ops::add_v2(xi, yi)) ==
        std::vector<std::int32_t>{-4, 4, 5, 12, -14, 4});
  Output f = raw_ops::add_v2(constant<float>({-7.5f, 8.25f, -0.5f}), constant<float>({{2}, {-3}}));
  CHECK(f.get_shape() == Shape{2, 3});
  CHECK(run_vector<float>(f) == std::vector<float>{-5.5f, 10.25f, 1.5f, -10.5f, 5.25f, -3.5f});
  CHECK(run_vector<std::int32_t>(raw_ops::add_v2(constant(kInt32Max), constant(1))) ==
        std::vector<std::int32_t>{kInt32Min});
  CHECK(run_vector<std::uint8_t>(
            raw_ops::add_v2(constant(std::uint8_t{250}), constant(std::uint8_t{10}))) ==
        std::vector<std::uint8_t>{4});
  auto e = thrown<TypeError>([&] { raw_ops::add_v2(constant(true), constant(false)); });
  REQUIRE(e.has_value());
  CHECK(contains(e->message(), "Value passed to parameter 'x' has DataType bool"));
}

TEST_CASE("ops/add_v2: an imported GraphDef of AddV2 nodes runs, and they fuse as Add does") {
  // out = AddV2(Mul(AddV2(x, y), y), x), as TensorFlow 1.15 writes x + y.
  GraphDef def;
  def.node = {
      node("x", "Placeholder", {}, {{"dtype", DType::float32}, {"shape", Shape{-1}}}),
      node("y", "Placeholder", {}, {{"dtype", DType::float32}, {"shape", Shape{-1}}}),
      node("add", "AddV2", {"x", "y"}, {{"T", DType::float32}}),
      node("mul", "Mul", {"add", "y"}, {{"T", DType::float32}}),
      node("add_1", "AddV2", {"mul", "x"}, {{"T", DType::float32}}),
  };
  Graph g;
  auto guard = g.as_default();
  import_graph_def(def, {.name = ""});
  CHECK(g.get_operation_by_name("add").type() == "AddV2");
  Output out = g.get_tensor_by_name("add_1:0");
  // 5000 elements: more than the fusion planner leaves to single nodes.
  std::vector<float> xs(5000), ys(5000);
  for (std::size_t i = 0; i < xs.size(); ++i) {
    xs[i] = 0.25f * static_cast<float>(i % 17) - 2.0f;
    ys[i] = 0.5f * static_cast<float>(i % 5) - 1.0f;
  }
  FeedDict feeds{{g.get_tensor_by_name("x:0"), Value::from_vector(xs, {5000})},
                 {g.get_tensor_by_name("y:0"), Value::from_vector(ys, {5000})}};
  Session sess(g);
  CHECK(sess.fused_clusters({out}, feeds) ==
        std::vector<std::vector<std::string>>{{"add", "mul", "add_1"}});
  const std::vector<float> got = sess.run(out, feeds).to_vector<float>();
  REQUIRE(got.size() == xs.size());
  for (std::size_t i = 0; i < xs.size(); ++i) {
    CAPTURE(i);
    CHECK(got[i] == (xs[i] + ys[i]) * ys[i] + xs[i]);
  }
}

// ---- FloorDiv, FloorMod, Mod ----------------------------------------------------------------

TEST_CASE("ops/floordiv: node names and op types of floordiv, floormod, mod and raw_ops::mod") {
  // TF: tf.floordiv -> "floordiv" (FloorDiv), tf.floormod -> "FloorMod", tf.mod -> also a
  // FloorMod; tf.raw_ops.Mod -> "Mod".
  Graph g;
  auto guard = g.as_default();
  auto x = constant<std::int32_t>({7, -7});
  auto y = constant<std::int32_t>({2, 2});
  Output d = floordiv(x, y), d1 = floordiv(x, y), m = floormod(x, y), m1 = mod(x, y);
  Output r = raw_ops::mod(x, y);
  CHECK(d.name() == "floordiv:0");
  CHECK(d1.name() == "floordiv_1:0");
  CHECK(d.op().type() == "FloorDiv");
  CHECK(m.name() == "FloorMod:0");
  CHECK(m1.name() == "FloorMod_1:0");
  CHECK(m1.op().type() == "FloorMod");
  CHECK(r.name() == "Mod:0");
  CHECK(r.op().type() == "Mod");
  CHECK(r.op().get_attr<DType>("T") == DType::int32);
  CHECK(floordiv(x, y, "q").name() == "q:0");
}

TEST_CASE("ops/floordiv: int32 signs: FloorDiv and FloorMod round toward -inf, Mod truncates") {
  // TF, x = [7, -7, 7, -7, 0, 5], y = [2, 2, -2, -2, 3, -3]:
  //   FloorDiv [3, -4, -4, 3, 0, -2], FloorMod [1, 1, -1, -1, 0, -1], Mod [1, -1, 1, -1, 0, 2]
  Graph g;
  auto guard = g.as_default();
  auto x = constant<std::int32_t>({7, -7, 7, -7, 0, 5});
  auto y = constant<std::int32_t>({2, 2, -2, -2, 3, -3});
  CHECK(run_vector<std::int32_t>(floordiv(x, y)) == std::vector<std::int32_t>{3, -4, -4, 3, 0, -2});
  CHECK(run_vector<std::int32_t>(floormod(x, y)) == std::vector<std::int32_t>{1, 1, -1, -1, 0, -1});
  CHECK(run_vector<std::int32_t>(mod(x, y)) == std::vector<std::int32_t>{1, 1, -1, -1, 0, -1});
  CHECK(run_vector<std::int32_t>(raw_ops::mod(x, y)) ==
        std::vector<std::int32_t>{1, -1, 1, -1, 0, 2});
}

TEST_CASE("ops/floordiv: broadcasting, int64, uint8 and the lowest integer over -1") {
  // TF, [[-7, 8, 0], [9, -10, -1]] against [3, -4, 5] (int32):
  //   FloorDiv [[-3, -2, 0], [3, 2, -1]], FloorMod [[2, 0, 0], [0, -2, 4]],
  //   Mod [[-1, 0, 0], [0, -2, -1]].
  // int64 [-9, 9, -2^62] against [4, -4, 3]: FloorDiv [-3, -3, -1537228672809129302],
  //   FloorMod [3, -3, 2], Mod [-1, 1, -1]. uint8 [7, 200] against [3, 7]: FloorDiv
  //   [2, 28], FloorMod [1, 4]. int32 -2^31 over -1: FloorDiv -2^31 (it wraps), FloorMod 0,
  //   Mod 0.
  Graph g;
  auto guard = g.as_default();
  auto x = constant<std::int32_t>({{-7, 8, 0}, {9, -10, -1}});
  auto y = constant<std::int32_t>({3, -4, 5});
  CHECK(floordiv(x, y).get_shape() == Shape{2, 3});
  CHECK(run_vector<std::int32_t>(floordiv(x, y)) == std::vector<std::int32_t>{-3, -2, 0, 3, 2, -1});
  CHECK(run_vector<std::int32_t>(floormod(x, y)) == std::vector<std::int32_t>{2, 0, 0, 0, -2, 4});
  CHECK(run_vector<std::int32_t>(raw_ops::mod(x, y)) ==
        std::vector<std::int32_t>{-1, 0, 0, 0, -2, -1});

  const std::int64_t big = -(std::int64_t{1} << 62);
  auto x64 = constant<std::int64_t>({-9, 9, big});
  auto y64 = constant<std::int64_t>({4, -4, 3});
  CHECK(run_vector<std::int64_t>(floordiv(x64, y64)) ==
        std::vector<std::int64_t>{-3, -3, -1537228672809129302});
  CHECK(run_vector<std::int64_t>(floormod(x64, y64)) == std::vector<std::int64_t>{3, -3, 2});
  CHECK(run_vector<std::int64_t>(raw_ops::mod(x64, y64)) == std::vector<std::int64_t>{-1, 1, -1});

  auto xu = constant<std::uint8_t>({7, 200});
  auto yu = constant<std::uint8_t>({3, 7});
  CHECK(run_vector<std::uint8_t>(floordiv(xu, yu)) == std::vector<std::uint8_t>{2, 28});
  CHECK(run_vector<std::uint8_t>(floormod(xu, yu)) == std::vector<std::uint8_t>{1, 4});

  auto lowest = constant(kInt32Min);
  auto minus_one = constant(-1);
  CHECK(run_vector<std::int32_t>(floordiv(lowest, minus_one)) ==
        std::vector<std::int32_t>{kInt32Min});
  CHECK(run_vector<std::int32_t>(floormod(lowest, minus_one)) == std::vector<std::int32_t>{0});
  CHECK(run_vector<std::int32_t>(raw_ops::mod(lowest, minus_one)) == std::vector<std::int32_t>{0});
}

TEST_CASE("ops/floordiv: floats follow IEEE, with FloorDiv computed as floor(x / y)") {
  // TF (float32), x = [7.5, -7.5, 7.5, -7.5, 0, -0, 5, 1, -1, inf, 3, nan],
  //               y = [2, 2, -2, -2, 3, 3, 0, inf, inf, 2, -0, 1]:
  //   FloorDiv [3, -4, -4, 3, 0, -0, inf, 0, -0, inf, -inf, nan]
  //   FloorMod [1.5, 0.5, -0.5, -1.5, 0, -0, nan, 1, inf, nan, nan, nan]
  //   Mod      [1.5, -1.5, 1.5, -1.5, 0, -0, nan, 1, -1, nan, nan, nan]
  // FloorDiv([1, -1, 0.3], 0.1) = [10, -10, 3] (Python's 1.0 // 0.1 is 9).
  // float64 FloorMod([5.5, -5.5], -2) = [-0.5, -1.5]; float32 [-7.5, 8.25, -0.5] against
  // [[2], [-3]]: FloorDiv [[-4, 4, -1], [2, -3, 0]], FloorMod [[0.5, 0.25, 1.5],
  // [-1.5, -0.75, -0.5]], Mod [[-1.5, 0.25, -0.5], [-1.5, 2.25, -0.5]].
  Graph g;
  auto guard = g.as_default();
  auto x = constant(Value::from_vector(
      std::vector<float>{7.5f, -7.5f, 7.5f, -7.5f, 0.0f, -0.0f, 5, 1, -1, kInf, 3, kNaN}, {12}));
  auto y = constant(
      Value::from_vector(std::vector<float>{2, 2, -2, -2, 3, 3, 0, kInf, kInf, 2, -0.0f, 1}, {12}));
  CHECK(same_floats(run_vector<float>(floordiv(x, y)),
                    {3, -4, -4, 3, 0, -0.0f, kInf, 0, -0.0f, kInf, -kInf, kNaN}));
  CHECK(same_floats(run_vector<float>(floormod(x, y)),
                    {1.5f, 0.5f, -0.5f, -1.5f, 0, -0.0f, kNaN, 1, kInf, kNaN, kNaN, kNaN}));
  CHECK(same_floats(run_vector<float>(raw_ops::mod(x, y)),
                    {1.5f, -1.5f, 1.5f, -1.5f, 0, -0.0f, kNaN, 1, -1, kNaN, kNaN, kNaN}));
  CHECK(run_vector<float>(floordiv(constant<float>({1, -1, 0.3f}), constant(0.1f))) ==
        std::vector<float>{10, -10, 3});
  CHECK(run_vector<double>(floormod(constant<double>({5.5, -5.5}), constant(-2.0))) ==
        std::vector<double>{-0.5, -1.5});

  auto xs = constant<float>({-7.5f, 8.25f, -0.5f});
  auto ys = constant<float>({{2}, {-3}});
  CHECK(run_vector<float>(floordiv(xs, ys)) == std::vector<float>{-4, 4, -1, 2, -3, 0});
  CHECK(run_vector<float>(floormod(xs, ys)) ==
        std::vector<float>{0.5f, 0.25f, 1.5f, -1.5f, -0.75f, -0.5f});
  CHECK(run_vector<float>(raw_ops::mod(xs, ys)) ==
        std::vector<float>{-1.5f, 0.25f, -0.5f, -1.5f, 2.25f, -0.5f});
}

TEST_CASE("ops/floordiv: integer division by zero is an InvalidArgumentError") {
  // TF: each of FloorDiv, FloorMod and Mod on int32 [1, 2] over [1, 0], and on int64:
  // InvalidArgumentError "Integer division by zero".
  Graph g;
  auto guard = g.as_default();
  auto x = constant<std::int32_t>({1, 2});
  auto y = constant<std::int32_t>({1, 0});
  auto x64 = constant<std::int64_t>({1, 2});
  auto y64 = constant<std::int64_t>({1, 0});
  const std::vector<Output> failing{floordiv(x, y),     floormod(x, y),     raw_ops::mod(x, y),
                                    floordiv(x64, y64), floormod(x64, y64), raw_ops::mod(x64, y64)};
  for (const Output& t : failing) {
    CAPTURE(t.name());
    Session sess(g);
    auto e = thrown<InvalidArgumentError>([&] { sess.run(t); });
    REQUIRE(e.has_value());
    CHECK(contains(e->message(), "Integer division by zero"));
    CHECK(e->node_name() == t.op().name());
  }
}

TEST_CASE("ops/floordiv: dtypes TensorFlow refuses are TypeErrors when the node is built") {
  // TF: FloorDiv and FloorMod take every number type but not bool; Mod takes int32,
  // int64 and the floats, not uint8.
  Graph g;
  auto guard = g.as_default();
  auto b = constant<bool>({true});
  auto u = constant<std::uint8_t>({7});
  auto e1 = thrown<TypeError>([&] { floordiv(b, b); });
  REQUIRE(e1.has_value());
  CHECK(contains(e1->message(), "Value passed to parameter 'x' has DataType bool not in list"));
  CHECK(thrown<TypeError>([&] { floormod(b, b); }).has_value());
  auto e2 = thrown<TypeError>([&] { raw_ops::mod(u, u); });
  REQUIRE(e2.has_value());
  CHECK(contains(e2->message(),
                 "DataType uint8 not in list of allowed values: float32, float64, int32, int64"));
  auto e3 = thrown<TypeError>([&] { floordiv(constant(1.0f), constant(1)); });
  REQUIRE(e3.has_value());
  CHECK(contains(e3->message(),
                 "Input 'y' of 'FloorDiv' Op has type int32 that does not match "
                 "type float32 of argument 'x'."));
}

// ---- PlaceholderWithDefault ----------------------------------------------------------------

TEST_CASE("ops/placeholder_with_default: its node, and the static shape of its shape attr") {
  // TF: placeholder_with_default(<[2, 3] Const>, [None, 3]) is the node
  // "PlaceholderWithDefault" with attrs dtype and shape, of static shape (?, 3); a list as
  // the default becomes the Const "PlaceholderWithDefault_<n>/input".
  Graph g;
  auto guard = g.as_default();
  auto c = constant<float>({{1, 2, 3}, {4, 5, 6}});
  Output p = placeholder_with_default(c, Shape{-1, 3});
  CHECK(p.name() == "PlaceholderWithDefault:0");
  CHECK(p.op().type() == "PlaceholderWithDefault");
  CHECK(p.op().get_attr<DType>("dtype") == DType::float32);
  CHECK(p.op().get_attr<Shape>("shape") == Shape{-1, 3});
  CHECK(input_names(p) == std::vector<std::string>{"Const:0"});
  CHECK(p.get_shape() == Shape{-1, 3});
  CHECK(placeholder_with_default(c, Shape::unknown()).get_shape() == Shape::unknown());
  CHECK(placeholder_with_default(c, Shape{-1, -1}, "pwd").name() == "pwd:0");
  Output listed = placeholder_with_default(Value{1, 2}, Shape{-1});
  CHECK(listed.dtype() == DType::int32);
  CHECK(input_names(listed) == std::vector<std::string>{"PlaceholderWithDefault_2/input:0"});
  CHECK(placeholder_with_default(Value(2.5f), Shape{}).get_shape() == Shape{});
  Tensor<float> typed = placeholder_with_default(c, Shape{2, 3});
  CHECK(typed.get_shape() == Shape{2, 3});
}

TEST_CASE("ops/placeholder_with_default: a shape attr that the default does not fit") {
  // TF: [2, 3] against [3, 2]: "Dimension 0 in both shapes must be equal, but are 2 and 3.
  // Shapes are [2,3] and [3,2]."; against [2]: "Shapes must be equal rank, but are 2 and 1".
  Graph g;
  auto guard = g.as_default();
  auto c = constant<float>({{1, 2, 3}, {4, 5, 6}});
  auto e1 = thrown<ValueError>([&] { placeholder_with_default(c, Shape{3, 2}); });
  REQUIRE(e1.has_value());
  CHECK(contains(e1->message(),
                 "Dimension 0 in both shapes must be equal, but are 2 and 3. "
                 "Shapes are [2,3] and [3,2]."));
  CHECK(contains(e1->message(), "PlaceholderWithDefault"));
  auto e2 = thrown<ValueError>([&] { placeholder_with_default(c, Shape{2}); });
  REQUIRE(e2.has_value());
  CHECK(contains(e2->message(), "Shapes must be equal rank, but are 2 and 1"));
}

TEST_CASE("ops/placeholder_with_default: the default unless fed, and a feed cuts off its input") {
  // TF: p = placeholder_with_default(<[[1,2,3],[4,5,6]]>, [None, 3]); p * 2 runs to
  // [[2,4,6],[8,10,12]], and to [[2,2,2]] with p fed [[1,1,1]]; a feed of shape (1, 2) is
  // "Cannot feed value of shape (1, 2) for Tensor PlaceholderWithDefault:0, which has
  // shape (?, 3)". Over an unfed placeholder, q runs when fed and fails when not.
  Graph g;
  auto guard = g.as_default();
  auto c = constant<float>({{1, 2, 3}, {4, 5, 6}});
  Output p = placeholder_with_default(c, Shape{-1, 3});
  Output y = p * 2.0f;
  Session sess(g);
  CHECK(sess.run(y).to_vector<float>() == std::vector<float>{2, 4, 6, 8, 10, 12});
  CHECK(sess.run(y, {{p, Value{{1.0f, 1.0f, 1.0f}}}}).to_vector<float>() ==
        std::vector<float>{2, 2, 2});
  auto bad = thrown<ValueError>([&] { sess.run(y, {{p, Value{{1.0f, 1.0f}}}}); });
  REQUIRE(bad.has_value());
  CHECK(contains(bad->message(), "Cannot feed value of shape (1, 2)"));

  auto ph = placeholder<float>(Shape{-1, 3}, "ph");
  Output q = placeholder_with_default(ph, Shape{-1, 3}, "q");
  Output q1 = q * 1.0f;
  CHECK(sess.run(q1, {{q, Value{{1.0f, 2.0f, 3.0f}}}}).to_vector<float>() ==
        std::vector<float>{1, 2, 3});
  auto unfed = thrown<InvalidArgumentError>([&] { sess.run(q1); });
  REQUIRE(unfed.has_value());
  CHECK(contains(unfed->message(), "You must feed a value for placeholder tensor 'ph'"));
}

// ---- SelectV2 ---------------------------------------------------------------------------------

TEST_CASE("ops/where_v2: SelectV2 broadcasts the condition and both branches together") {
  // TF: where_v2([[True], [False]], [1, 2, 3], 9.0) is "SelectV2" of shape (2, 3):
  // [[1, 2, 3], [9, 9, 9]], its scalar a Const "SelectV2/e". where_v2([True, False],
  // [[1, 2]], [[1], [2], [3]]) has shape (3, 2). With placeholders: a scalar True against
  // [[1], [2]] and [5, 6, 7] gives [[1, 1, 1], [2, 2, 2]]; [[True], [False]] against
  // [[1, 2, 3]] and [[5], [6]] gives [[1, 2, 3], [6, 6, 6]].
  Graph g;
  auto guard = g.as_default();
  auto c = constant<bool>({{true}, {false}});
  auto t = constant<float>({1, 2, 3});
  Output w = where_v2(c, t, 9.0f);
  CHECK(w.name() == "SelectV2:0");
  CHECK(w.op().type() == "SelectV2");
  CHECK(w.op().get_attr<DType>("T") == DType::float32);
  CHECK(input_names(w) == std::vector<std::string>{"Const:0", "Const_1:0", "SelectV2/e:0"});
  CHECK(w.get_shape() == Shape{2, 3});
  CHECK(run_vector<float>(w) == std::vector<float>{1, 2, 3, 9, 9, 9});
  CHECK(where_v2(constant<bool>({true, false}), constant<float>({{1, 2}}),
                 constant<float>({{1}, {2}, {3}}))
            .get_shape() == Shape{3, 2});
  CHECK(where(c, constant<float>({{1}, {2}}), constant<float>({{3}, {4}})).op().type() == "Select");

  auto pc = placeholder(DType::bool_);
  auto pt = placeholder(DType::float32);
  auto pe = placeholder(DType::float32);
  Output ww = where_v2(pc, pt, pe);
  CHECK_FALSE(ww.get_shape().has_rank());
  CHECK(run_vector<float>(
            ww, {{pc, Value(true)}, {pt, Value{{1.0f}, {2.0f}}}, {pe, Value{5.0f, 6.0f, 7.0f}}}) ==
        std::vector<float>{1, 1, 1, 2, 2, 2});
  CHECK(run_vector<float>(ww, {{pc, Value{{true}, {false}}},
                               {pt, Value{{1.0f, 2.0f, 3.0f}}},
                               {pe, Value{{5.0f}, {6.0f}}}}) ==
        std::vector<float>{1, 2, 3, 6, 6, 6});
  // A scalar condition whose branch needs no broadcasting, and int32 branches (TF:
  // where_v2([True, False, True], [1, 2, 3], [[-1], [-2]]) = [[1, -1, 3], [1, -2, 3]]).
  CHECK(run_vector<float>(ww, {{pc, Value(false)}, {pt, Value(1.0f)}, {pe, Value{5.0f, 6.0f}}}) ==
        std::vector<float>{5, 6});
  CHECK(run_vector<std::int32_t>(where_v2(constant<bool>({true, false, true}),
                                          constant<std::int32_t>({1, 2, 3}),
                                          constant<std::int32_t>({{-1}, {-2}}))) ==
        std::vector<std::int32_t>{1, -1, 3, 1, -2, 3});
  // tf.where_v2(condition) is Where.
  CHECK(where_v2(c).op().type() == "Where");
}

TEST_CASE("ops/where_v2: its errors, when the node is built and when it runs") {
  // TF: where_v2([True, False], [1, 2, 3], 0.) -> ValueError "Dimensions must be equal, but
  // are 2 and 3"; a float condition -> "Input 'condition' of 'SelectV2' Op has type float32
  // that does not match expected type of bool."; int32 e against float32 t -> "Input 'e' of
  // 'SelectV2' Op has type int32 that does not match type float32 of argument 't'."; at run
  // time: "condition [2], then [3], and else [] must be broadcastable".
  Graph g;
  auto guard = g.as_default();
  auto t = constant<float>({1, 2, 3});
  auto e1 = thrown<ValueError>([&] { where_v2(constant<bool>({true, false}), t, 0.0f); });
  REQUIRE(e1.has_value());
  CHECK(contains(e1->message(), "Dimensions must be equal, but are 2 and 3"));
  auto e2 = thrown<TypeError>([&] { where_v2(constant<float>({1, 0}), t, t); });
  REQUIRE(e2.has_value());
  CHECK(contains(e2->message(),
                 "Input 'condition' of 'SelectV2' Op has type float32 that does "
                 "not match expected type of bool."));
  auto e3 = thrown<TypeError>([&] {
    where_v2(constant<bool>({true}), t, constant<std::int32_t>({1, 2, 3}));
  });
  REQUIRE(e3.has_value());
  CHECK(contains(e3->message(),
                 "Input 'e' of 'SelectV2' Op has type int32 that does not match "
                 "type float32 of argument 't'."));

  auto pc = placeholder(DType::bool_);
  auto pt = placeholder(DType::float32);
  auto pe = placeholder(DType::float32);
  Output ww = where_v2(pc, pt, pe, "picked");
  Session sess(g);
  auto e4 = thrown<InvalidArgumentError>([&] {
    sess.run(ww, {{pc, Value{true, false}}, {pt, Value{1.0f, 2.0f, 3.0f}}, {pe, Value(0.0f)}});
  });
  REQUIRE(e4.has_value());
  CHECK(e4->message() == "condition [2], then [3], and else [] must be broadcastable");
  CHECK(e4->node_name() == "picked");
  const std::string message = run_error(ww, {{pc, Value{true, false}},
                                             {pt, Value{{1.0f}, {2.0f}, {3.0f}}},
                                             {pe, Value{5.0f, 6.0f, 7.0f, 8.0f}}});
  CHECK(contains(message, "condition [2], then [3,1], and else [4] must be broadcastable"));
}

}  // namespace symflow_test_ops_tf1_ops_test
