// clip_by_norm, global_norm, clip_by_global_norm and clip_by_average_norm against
// TensorFlow 1.x (oracle: TensorFlow 2.21, tf.compat.v1 graph mode): graphs node for
// node, values and errors.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <symflow/ops/clip_ops.hpp>
#include <symflow/symflow.hpp>
#include <vector>

#include "../node_rows.hpp"
#include "../test_util.hpp"

namespace symflow_test_ops_clip_ops_test {

namespace tf = symflow;
using tf::test::check_close;
using tf::test::check_rows;
using tf::test::rows_since;

namespace {

std::vector<double> run_doubles(tf::Session& sess, const tf::Output& t,
                                const tf::FeedDict& feeds = {}) {
  tf::Value v = sess.run(t, feeds);
  std::vector<double> out;
  if (v.dtype() == tf::DType::float64)
    for (double x : v.to_vector<double>()) out.push_back(x);
  else
    for (float x : v.to_vector<float>()) out.push_back(x);
  return out;
}

// The graph of the tests below: t = [[3, 4], [1, 2]].
struct Inputs {
  tf::Graph g;
  tf::DefaultGraphGuard guard{g};
  tf::Output t = tf::constant(tf::Value{{3.0f, 4.0f}, {1.0f, 2.0f}}, "t");
  std::size_t first = g.num_nodes();
};

}  // namespace

TEST_CASE("ops/clip_ops: clip_by_norm builds TensorFlow's graph") {
  Inputs m;
  tf::Output c = tf::clip_by_norm(m.t, 2.0);
  CHECK(c.name() == "clip_by_norm:0");
  CHECK(c.shape() == tf::Shape{2, 2});
  check_rows(rows_since(m.g, m.first),
             {
                 "clip_by_norm/mul Mul [t,t] ",
                 "clip_by_norm/Const Const [] ",
                 "clip_by_norm/Sum Sum [clip_by_norm/mul,clip_by_norm/Const] ",
                 "clip_by_norm/Greater/y Const [] ",
                 "clip_by_norm/Greater Greater [clip_by_norm/Sum,clip_by_norm/Greater/y] ",
                 "clip_by_norm/ones_like/Shape/shape_as_tensor Const [] ",
                 "clip_by_norm/ones_like/Const Const [] ",
                 "clip_by_norm/ones_like Fill "
                 "[clip_by_norm/ones_like/Shape/shape_as_tensor,clip_by_norm/ones_like/Const] ",
                 "clip_by_norm/Select Select "
                 "[clip_by_norm/Greater,clip_by_norm/Sum,clip_by_norm/ones_like] ",
                 "clip_by_norm/Sqrt Sqrt [clip_by_norm/Select] ",
                 "clip_by_norm/Select_1 Select "
                 "[clip_by_norm/Greater,clip_by_norm/Sqrt,clip_by_norm/Sum] ",
                 "clip_by_norm/mul_1/y Const [] ",
                 "clip_by_norm/mul_1 Mul [t,clip_by_norm/mul_1/y] ",
                 "clip_by_norm/Maximum/y Const [] ",
                 "clip_by_norm/Maximum Maximum [clip_by_norm/Select_1,clip_by_norm/Maximum/y] ",
                 "clip_by_norm/truediv RealDiv [clip_by_norm/mul_1,clip_by_norm/Maximum] ",
                 "clip_by_norm Identity [clip_by_norm/truediv] ",
             });
  CHECK(m.g.get_operation_by_name("clip_by_norm/Sum").get_attr<bool>("keep_dims"));
  tf::Session sess(m.g);
  // TensorFlow:
  check_close(run_doubles(sess, c),
              {1.0954450368881226, 1.4605934619903564, 0.3651483654975891, 0.7302967309951782});
}

TEST_CASE("ops/clip_ops: clip_by_norm over an axis, and with a tensor clip norm") {
  Inputs m;
  tf::Output rows = tf::clip_by_norm(m.t, 2.0, {1});
  CHECK(m.g.get_operation_by_name("clip_by_norm/Sum/reduction_indices").type() == "Const");
  auto cn = tf::placeholder<float>(tf::Shape{}, "cn");
  std::size_t first = m.g.num_nodes();
  tf::Output by_tensor = tf::clip_by_norm(m.t, cn);
  auto got = rows_since(m.g, first);
  REQUIRE(got.size() == 17);
  // TensorFlow: the clip norm is Maximum(cn, 0) first, and the divisor is Maximum_1.
  check_rows(
      {got[0], got[1], got[13], got[14], got[15], got[16]},
      {
          "clip_by_norm_1/Maximum/y Const [] ",
          "clip_by_norm_1/Maximum Maximum [cn,clip_by_norm_1/Maximum/y] ",
          "clip_by_norm_1/mul_1 Mul [t,clip_by_norm_1/Maximum] ",
          "clip_by_norm_1/Maximum_1 Maximum [clip_by_norm_1/Select_1,clip_by_norm_1/Maximum] ",
          "clip_by_norm_1/truediv RealDiv [clip_by_norm_1/mul_1,clip_by_norm_1/Maximum_1] ",
          "clip_by_norm_1 Identity [clip_by_norm_1/truediv] ",
      });
  tf::Session sess(m.g);
  // TensorFlow:
  check_close(run_doubles(sess, rows),
              {1.2000000476837158, 1.600000023841858, 0.8944271802902222, 1.7888543605804443});
  check_close(run_doubles(sess, by_tensor, {{cn, 1.5f}}),
              {0.8215838074684143, 1.0954450368881226, 0.27386125922203064, 0.5477225184440613});
  // A negative clip norm clips to zero; so does a negative tensor (Maximum with 0).
  CHECK(run_doubles(sess, tf::clip_by_norm(m.t, -1.0)) == std::vector<double>{0, 0, 0, 0});
  CHECK(run_doubles(sess, by_tensor, {{cn, -1.0f}}) == std::vector<double>{0, 0, 0, 0});
  // A zero tensor stays zero (TensorFlow: [0, 0]).
  tf::Output zeros = tf::constant(tf::Value{0.0f, 0.0f});
  CHECK(run_doubles(sess, tf::clip_by_norm(zeros, 1.0)) == std::vector<double>{0, 0});
}

TEST_CASE("ops/clip_ops: clip_by_norm with a clip norm that does not fit t") {
  Inputs m;
  tf::Output three = tf::constant(tf::Value{1.0f, 2.0f, 3.0f});
  // TensorFlow: ValueError "Dimensions must be equal, but are 2 and 3 for '{{node
  // clip_by_norm/mul_1}} = Mul[T=DT_FLOAT](t, clip_by_norm/Maximum)' with input shapes:
  // [2,2], [3]."
  auto error = tf::test::thrown<tf::ValueError>([&] { tf::clip_by_norm(m.t, three); });
  REQUIRE(error);
  CAPTURE(error->what());
  CHECK(tf::test::contains(error->what(), "Dimensions must be equal, but are 2 and 3"));
  CHECK(tf::test::contains(error->what(), "clip_by_norm/mul_1"));
  CHECK(tf::test::contains(error->what(), "[2,2], [3]"));
  // A clip norm of t's last dimension broadcasts (TensorFlow: [[0.5477225, 1.4605935],
  // [0.18257418, 0.73029673]]).
  tf::Output per_column = tf::clip_by_norm(m.t, tf::constant(tf::Value{1.0f, 2.0f}));
  tf::Session sess(m.g);
  check_close(run_doubles(sess, per_column), {0.5477225, 1.4605935, 0.18257418, 0.73029673}, 1e-6);
  CHECK_THROWS_AS(tf::clip_by_norm(tf::Output{}, 1.0), tf::ValueError);
}

TEST_CASE("ops/clip_ops: global_norm skips None and colocates each L2Loss") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Output a = tf::constant(tf::Value{1.0f, 2.0f}, "a");
  tf::Output b = tf::constant(tf::Value{{3.0f}, {4.0f}}, "b");
  std::size_t first = g.num_nodes();
  tf::Output norm = tf::global_norm({a, tf::Output{}, b});
  CHECK(norm.name() == "global_norm/global_norm:0");
  CHECK(norm.shape() == tf::Shape{});
  check_rows(rows_since(g, first),
             {
                 "global_norm/L2Loss L2Loss [a] loc:@a",
                 "global_norm/L2Loss_1 L2Loss [b] loc:@b",
                 "global_norm/stack Pack [global_norm/L2Loss,global_norm/L2Loss_1] ",
                 "global_norm/Const Const [] ",
                 "global_norm/Sum Sum [global_norm/stack,global_norm/Const] ",
                 "global_norm/Const_1 Const [] ",
                 "global_norm/mul Mul [global_norm/Sum,global_norm/Const_1] ",
                 "global_norm/global_norm Sqrt [global_norm/mul] ",
             });
  tf::Session sess(g);
  // TensorFlow: 5.4772257804870605 (sqrt(30)); an empty list (or all None) gives 0.0.
  CHECK(sess.run(norm).scalar<float>() == doctest::Approx(5.4772257804870605).epsilon(1e-7));
  tf::Output empty = tf::global_norm({tf::Output{}});
  CHECK(g.get_operation_by_name("global_norm_1/stack").type() == "Const");
  CHECK(sess.run(empty).scalar<float>() == 0.0f);
  // Mixed dtypes fail at the Pack (TensorFlow: TypeError "Tensors in list passed to
  // 'values' of 'Pack' Op have types [float32, float64] that don't all match.").
  CHECK_THROWS_AS(tf::global_norm({a, tf::constant(tf::Value{2.0})}), tf::TypeError);
}

TEST_CASE("ops/clip_ops: clip_by_global_norm builds TensorFlow's graph and passes None") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Output a = tf::constant(tf::Value{1.0f, 2.0f}, "a");
  tf::Output b = tf::constant(tf::Value{{3.0f}, {4.0f}}, "b");
  std::size_t first = g.num_nodes();
  auto [clipped, norm] = tf::clip_by_global_norm({a, tf::Output{}, b}, 2.0);
  REQUIRE(clipped.size() == 3);
  CHECK(clipped[0].name() == "clip_by_global_norm/clip_by_global_norm/_0:0");
  CHECK_FALSE(clipped[1].valid());
  CHECK(clipped[2].name() == "clip_by_global_norm/clip_by_global_norm/_2:0");
  CHECK(norm.name() == "global_norm/global_norm:0");
  auto rows = rows_since(g, first);
  REQUIRE(rows.size() == 22);
  check_rows(
      std::vector<std::string>(rows.begin() + 8, rows.end()),
      {
          "clip_by_global_norm/truediv/x Const [] ",
          "clip_by_global_norm/truediv RealDiv "
          "[clip_by_global_norm/truediv/x,global_norm/global_norm] ",
          "clip_by_global_norm/Const Const [] ",
          "clip_by_global_norm/truediv_1/y Const [] ",
          "clip_by_global_norm/truediv_1 RealDiv "
          "[clip_by_global_norm/Const,clip_by_global_norm/truediv_1/y] ",
          "clip_by_global_norm/Minimum Minimum "
          "[clip_by_global_norm/truediv,clip_by_global_norm/truediv_1] ",
          "clip_by_global_norm/mul/x Const [] ",
          "clip_by_global_norm/mul Mul [clip_by_global_norm/mul/x,clip_by_global_norm/Minimum] ",
          "clip_by_global_norm/sub Sub [global_norm/global_norm,global_norm/global_norm] ",
          // TensorFlow 1.14 and later build AddV2 here (docs/decisions.md).
          "clip_by_global_norm/add Add [clip_by_global_norm/mul,clip_by_global_norm/sub] ",
          "clip_by_global_norm/mul_1 Mul [a,clip_by_global_norm/add] loc:@a",
          "clip_by_global_norm/clip_by_global_norm/_0 Identity [clip_by_global_norm/mul_1] "
          "loc:@a",
          "clip_by_global_norm/mul_2 Mul [b,clip_by_global_norm/add] loc:@b",
          "clip_by_global_norm/clip_by_global_norm/_2 Identity [clip_by_global_norm/mul_2] "
          "loc:@b",
      });
  tf::Session sess(g);
  // TensorFlow: [0.3651483654975891, 0.7302967309951782], [[1.095445156097412],
  // [1.4605934619903564]], norm 5.4772257804870605
  check_close(run_doubles(sess, clipped[0]), {0.3651483654975891, 0.7302967309951782});
  check_close(run_doubles(sess, clipped[2]), {1.095445156097412, 1.4605934619903564});
  CHECK(sess.run(norm).scalar<float>() == doctest::Approx(5.4772257804870605).epsilon(1e-7));
}

TEST_CASE("ops/clip_ops: clip_by_global_norm's values: under the norm, use_norm, float64") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Session sess(g);
  // Under the clip norm nothing changes (TensorFlow: [0.3, 0.4], norm 0.5).
  auto [small, small_norm] = tf::clip_by_global_norm({tf::constant(tf::Value{0.3f, 0.4f})}, 1.0);
  check_close(run_doubles(sess, small[0]), {0.30000001192092896, 0.4000000059604645});
  CHECK(sess.run(small_norm).scalar<float>() == doctest::Approx(0.5).epsilon(1e-7));
  // use_norm replaces the global norm and is returned (TensorFlow: [0.3, 0.4], 10.0).
  tf::Output given = tf::constant(10.0f, "given");
  std::size_t before = g.num_nodes();
  auto [scaled, returned] =
      tf::clip_by_global_norm({tf::constant(tf::Value{3.0f, 4.0f})}, 1.0, given);
  CHECK(returned.name() == "given:0");
  // No global norm is built.
  for (const auto& op : g.get_operations())
    if (op.id().value >= before) CHECK(op.name().rfind("global_norm", 0) == std::string::npos);
  check_close(run_doubles(sess, scaled[0]), {0.30000001192092896, 0.4000000059604645});
  // float64 throughout (TensorFlow: [0.6, 0.8], 5.0).
  auto [f64, f64_norm] = tf::clip_by_global_norm({tf::constant(tf::Value{3.0, 4.0})}, 1.0);
  CHECK(f64_norm.dtype() == tf::DType::float64);
  check_close(run_doubles(sess, f64[0]), {0.6, 0.8}, 1e-12);
  // A tensor clip norm.
  auto cn = tf::placeholder<float>(tf::Shape{}, "cn");
  auto [by_tensor, unused] = tf::clip_by_global_norm({tf::constant(tf::Value{3.0f, 4.0f})}, cn);
  check_close(run_doubles(sess, by_tensor[0], {{cn, 2.5f}}), {1.5, 2.0});
  // An empty list: nothing to clip, a norm of 0 (TensorFlow: [], 0.0).
  auto [none, zero] = tf::clip_by_global_norm({}, 1.0);
  CHECK(none.empty());
  CHECK(sess.run(zero).scalar<float>() == 0.0f);
}

TEST_CASE("ops/clip_ops: an infinite or NaN global norm makes every output NaN") {
  tf::Graph g;
  auto guard = g.as_default();
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto [clipped, norm] = tf::clip_by_global_norm(
      {tf::constant(tf::Value{inf, 1.0f}), tf::constant(tf::Value{2.0f})}, 1.0);
  auto [clipped_nan, norm_nan] = tf::clip_by_global_norm({tf::constant(tf::Value{nan, 1.0f})}, 1.0);
  tf::Session sess(g);
  // TensorFlow: [nan, nan], [nan], norm inf; [nan, nan], norm nan.
  CHECK(std::isinf(sess.run(norm).scalar<float>()));
  for (const tf::Output& c : {clipped[0], clipped[1], clipped_nan[0]})
    for (double x : run_doubles(sess, c)) CHECK(std::isnan(x));
  CHECK(std::isnan(sess.run(norm_nan).scalar<float>()));
}

TEST_CASE("ops/clip_ops: clip_by_average_norm builds TensorFlow's graph") {
  Inputs m;
  tf::Output c = tf::clip_by_average_norm(m.t, 1.0);
  CHECK(c.name() == "clip_by_average_norm:0");
  check_rows(
      rows_since(m.g, m.first),
      {
          "clip_by_average_norm/Size Const [] ",
          "clip_by_average_norm/Cast Cast [clip_by_average_norm/Size] ",
          "clip_by_average_norm/mul Mul [t,t] ",
          "clip_by_average_norm/Rank Const [] ",
          "clip_by_average_norm/range/start Const [] ",
          "clip_by_average_norm/range/delta Const [] ",
          "clip_by_average_norm/range Range "
          "[clip_by_average_norm/range/start,clip_by_average_norm/Rank,clip_by_average_norm/"
          "range/delta] ",
          "clip_by_average_norm/Sum Sum [clip_by_average_norm/mul,clip_by_average_norm/range] ",
          "clip_by_average_norm/Rsqrt Rsqrt [clip_by_average_norm/Sum] ",
          "clip_by_average_norm/mul_1/y Const [] ",
          "clip_by_average_norm/mul_1 Mul [t,clip_by_average_norm/mul_1/y] ",
          "clip_by_average_norm/mul_2 Mul [clip_by_average_norm/Rsqrt,clip_by_average_norm/Cast] ",
          "clip_by_average_norm/Const Const [] ",
          "clip_by_average_norm/truediv/y Const [] ",
          "clip_by_average_norm/truediv RealDiv "
          "[clip_by_average_norm/Const,clip_by_average_norm/truediv/y] ",
          "clip_by_average_norm/Minimum Minimum "
          "[clip_by_average_norm/mul_2,clip_by_average_norm/truediv] ",
          "clip_by_average_norm/mul_3 Mul "
          "[clip_by_average_norm/mul_1,clip_by_average_norm/Minimum] ",
          "clip_by_average_norm Identity [clip_by_average_norm/mul_3] ",
      });
  CHECK(m.g.get_operation_by_name("clip_by_average_norm/Size")
            .get_attr<tf::Value>("value")
            .scalar<std::int32_t>() == 4);
  tf::Session sess(m.g);
  // TensorFlow:
  check_close(run_doubles(sess, c),
              {2.190890312194824, 2.921186923980713, 0.7302967309951782, 1.4605934619903564});
  // An unknown shape computes Size and keeps the values (TensorFlow: [[3, 4], [1, 2]]
  // with clip norm 2).
  auto p = tf::placeholder<float>(tf::Shape{-1, 2}, "p");
  tf::Output unknown = tf::clip_by_average_norm(p, 2.0);
  CHECK(m.g.get_operation_by_name("clip_by_average_norm_1/Size").type() == "Size");
  check_close(run_doubles(sess, unknown, {{p, tf::Value{{3.0f, 4.0f}, {1.0f, 2.0f}}}}),
              {3.0, 4.0, 1.0, 2.0});
  // float64 t: its float32 element count does not multiply (TensorFlow: TypeError "Input
  // 'y' of 'Mul' Op has type float32 that does not match type float64 of argument 'x'.").
  CHECK_THROWS_AS(tf::clip_by_average_norm(tf::constant(tf::Value{3.0, 4.0}), 1.0), tf::TypeError);
}

}  // namespace symflow_test_ops_clip_ops_test
