// DynamicStitch, ParallelDynamicStitch, DynamicPartition and Unique, checked against
// TensorFlow 2.21 in tf.compat.v1 graph mode: node names, static shapes, values for each
// dtype (strings included), empty inputs, the messages of build-time and run-time errors,
// and NodeDefs TensorFlow wrote, imported and run. Every expected value below was printed
// by TensorFlow.

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <symflow/symflow.hpp>

#include "../test_util.hpp"

namespace symflow_test_ops_data_flow_ops_test {

namespace tf = symflow;
using tf::Dims;
using tf::Output;
using tf::Shape;
using tf::Value;

template <class T>
Value vec(std::vector<T> v, Dims dims) {
  return Value::from_vector(v, std::move(dims));
}
std::vector<std::string> strings_of(const Value& v) { return v.to_vector<std::string>(); }

// The doc example of TensorFlow's DynamicStitch: three indices of rank 0, 1 and 2.
struct StitchExample {
  std::vector<tf::TensorArg> indices, data;
};
StitchExample stitch_example() {
  return {{tf::constant(6), tf::constant({4, 1}), tf::constant({{5, 2}, {0, 3}})},
          {tf::constant({61.f, 62.f}), tf::constant({{41.f, 42.f}, {11.f, 12.f}}),
           tf::constant(vec<float>({51, 52, 21, 22, 1, 2, 31, 32}, {2, 2, 2}))}};
}
const std::vector<float> kStitched{1, 2, 11, 12, 21, 22, 31, 32, 41, 42, 51, 52, 61, 62};

// ---- DynamicStitch, ParallelDynamicStitch -----------------------------------------------

TEST_CASE("data_flow/dynamic_stitch: TensorFlow's example, names and static shape") {
  tf::Graph g;
  auto guard = g.as_default();
  StitchExample ex = stitch_example();
  Output s = tf::dynamic_stitch(ex.indices, ex.data);
  Output p = tf::parallel_dynamic_stitch(ex.indices, ex.data);
  CHECK(s.name() == "DynamicStitch:0");
  CHECK(s.op().type() == "DynamicStitch");
  CHECK(s.op().get_attr<std::int64_t>("N") == 3);
  CHECK(s.op().get_attr<tf::DType>("T") == tf::float32);
  CHECK(p.name() == "ParallelDynamicStitch:0");
  CHECK(p.op().type() == "ParallelDynamicStitch");
  CHECK(s.shape() == Shape{7, 2});  // every index a constant: max + 1 rows
  CHECK(p.shape() == Shape{7, 2});
  tf::Session sess(g);
  CHECK(sess.run(s).to_vector<float>() == kStitched);
  CHECK(sess.run(s).dims() == Dims{7, 2});
  CHECK(sess.run(p).to_vector<float>() == kStitched);
  // Lists become Consts named after the argument and its position, as in TensorFlow.
  Output named = tf::dynamic_stitch({{0, 1}}, {{1.f, 2.f}}, "st");
  CHECK(tf::test::input_names(named) == std::vector<std::string>{"st/indices_0:0", "st/data_0:0"});
}

TEST_CASE("data_flow/dynamic_stitch: static shapes as TensorFlow infers them") {
  tf::Graph g;
  auto guard = g.as_default();
  Output p = tf::placeholder(tf::int32, Shape{-1});
  Output pd = tf::placeholder(tf::float32, Shape{-1, 3});
  CHECK(tf::dynamic_stitch({p, tf::constant({4, 1})}, {pd, tf::zeros(Shape{2, 3})}).shape() ==
        Shape{-1, 3});
  CHECK(tf::dynamic_stitch({tf::placeholder(tf::int32)}, {tf::placeholder(tf::float32)}).shape() ==
        Shape::unknown());
  CHECK(
      tf::dynamic_stitch({tf::placeholder(tf::int32), tf::placeholder(tf::int32, Shape{2})},
                         {tf::placeholder(tf::float32), tf::placeholder(tf::float32, Shape{-1, 5})})
          .shape() == Shape{-1, 5});
  // Negative constant indices leave the count at 0, empty ones too.
  CHECK(tf::dynamic_stitch({tf::constant({-3})}, {tf::constant({1.f})}).shape() == Shape{0});
  CHECK(tf::dynamic_stitch({tf::constant(Value(tf::int32, {0}))},
                           {tf::constant(Value(tf::float32, {0}))})
            .shape() == Shape{0});
  CHECK(tf::dynamic_stitch({tf::constant(2)}, {tf::constant({1.f, 2.f})}).shape() == Shape{3, 2});
  CHECK(tf::dynamic_stitch({tf::constant({2})}, {tf::placeholder(tf::float32)}).shape() ==
        Shape::unknown());
  CHECK(tf::dynamic_stitch({tf::constant({2}), tf::placeholder(tf::int32, Shape{3})},
                           {tf::constant({1.f}), tf::placeholder(tf::float32)})
            .shape() == Shape{-1});
}

TEST_CASE("data_flow/dynamic_stitch: later duplicates win, rows no index names are zero") {
  tf::Graph g;
  auto guard = g.as_default();
  Output gap = tf::dynamic_stitch({tf::constant({0, 4}), tf::constant({4})},
                                  {tf::constant({1.f, 2.f}), tf::constant({9.f})});
  Output pgap = tf::parallel_dynamic_stitch({tf::constant({0, 4}), tf::constant({4})},
                                            {tf::constant({1.f, 2.f}), tf::constant({9.f})});
  Output within = tf::dynamic_stitch({tf::constant({1, 1, 0})}, {tf::constant({1, 2, 3})});
  Output strs = tf::dynamic_stitch({tf::constant({2, 0}), tf::constant({1})},
                                   {tf::constant({"a", "b"}), tf::constant({"c"})});
  Output str_gap = tf::dynamic_stitch({tf::constant({3, 0})}, {tf::constant({"a", "b"})});
  Output empty =
      tf::dynamic_stitch({tf::constant(Value(tf::int32, {0}))}, {tf::zeros(Shape{0, 2})});
  Output empty2 = tf::dynamic_stitch({tf::constant(Value(tf::int32, {0})), tf::constant({1})},
                                     {tf::zeros(Shape{0, 2}), tf::ones(Shape{1, 2})});
  Output ranks =
      tf::dynamic_stitch({tf::constant({{0, 1}}), tf::constant(2)},
                         {tf::constant(vec<float>({1, 2}, {1, 2, 1})), tf::constant({3.f})});
  CHECK(gap.shape() == Shape{5});
  CHECK(empty.shape() == Shape{0, 2});
  CHECK(empty2.shape() == Shape{2, 2});
  CHECK(ranks.shape() == Shape{3, 1});
  tf::Session sess(g);
  CHECK(sess.run(gap).to_vector<float>() == std::vector<float>{1, 0, 0, 0, 9});
  CHECK(sess.run(pgap).to_vector<float>() == std::vector<float>{1, 0, 0, 0, 9});
  CHECK(sess.run(within).to_vector<std::int32_t>() == std::vector<std::int32_t>{3, 2});
  CHECK(strings_of(sess.run(strs)) == std::vector<std::string>{"b", "c", "a"});
  CHECK(strings_of(sess.run(str_gap)) == std::vector<std::string>{"b", "", "", "a"});
  CHECK(sess.run(empty).dims() == Dims{0, 2});
  CHECK(sess.run(empty2).to_vector<float>() == std::vector<float>{0, 0, 1, 1});
  CHECK(sess.run(ranks).to_vector<float>() == std::vector<float>{1, 2, 3});
  CHECK(sess.run(ranks).dims() == Dims{3, 1});
}

TEST_CASE("data_flow/dynamic_stitch: every dtype") {
  tf::Graph g;
  auto guard = g.as_default();
  std::vector<Output> out;
  for (tf::DType d : {tf::float32, tf::float64, tf::int32, tf::int64, tf::uint8, tf::bool_})
    out.push_back(tf::dynamic_stitch({tf::constant({1, 0})}, {tf::cast(tf::constant({1, 0}), d)}));
  tf::Session sess(g);
  CHECK(sess.run(out[0]).to_vector<float>() == std::vector<float>{0, 1});
  CHECK(sess.run(out[1]).to_vector<double>() == std::vector<double>{0, 1});
  CHECK(sess.run(out[2]).to_vector<std::int32_t>() == std::vector<std::int32_t>{0, 1});
  CHECK(sess.run(out[3]).to_vector<std::int64_t>() == std::vector<std::int64_t>{0, 1});
  CHECK(sess.run(out[4]).to_vector<std::uint8_t>() == std::vector<std::uint8_t>{0, 1});
  CHECK(sess.run(out[5]).to_vector<bool>() == std::vector<bool>{false, true});
  CHECK(out[5].dtype() == tf::bool_);
}

TEST_CASE("data_flow/dynamic_stitch: build-time errors") {
  tf::Graph g;
  auto guard = g.as_default();
  CHECK_THROWS_WITH_AS(tf::dynamic_stitch({tf::constant({0, 1})}, {tf::constant({1.f, 2.f, 3.f})}),
                       doctest::Contains("Dimensions must be equal, but are 3 and 2"),
                       tf::ValueError);
  CHECK_THROWS_WITH_AS(tf::dynamic_stitch({tf::constant({0}), tf::constant({1})},
                                          {tf::constant({{1.f}}), tf::constant({{1.f, 2.f}})}),
                       doctest::Contains("Dimension 0 in both shapes must be equal, but are 1 and "
                                         "2. Shapes are [1] and [2]."),
                       tf::ValueError);
  CHECK_THROWS_WITH_AS(tf::dynamic_stitch({tf::constant({{2}})}, {tf::constant({1.f})}),
                       doctest::Contains("Shape must be at least rank 2 but is rank 1"),
                       tf::ValueError);
  CHECK_THROWS_WITH_AS(tf::dynamic_stitch({tf::constant({0}), tf::constant({1})},
                                          {tf::constant({1.f}), tf::constant({1})}),
                       doctest::Contains("Tensors in list passed to 'data' of 'DynamicStitch' Op "
                                         "have types [float32, int32] that don't all match."),
                       tf::TypeError);
  CHECK_THROWS_WITH_AS(
      tf::dynamic_stitch({tf::constant({std::int64_t{0}})}, {tf::constant({1.f})}),
      doctest::Contains("Tensors in list passed to 'indices' of 'DynamicStitch' Op have types "
                        "[int64] that do not match expected type int32."),
      tf::TypeError);
  CHECK_THROWS_WITH_AS(
      tf::dynamic_stitch({tf::constant({0})}, {tf::constant({1.f}), tf::constant({2.f})}),
      "List argument 'data' to 'dynamic_stitch' Op with length 2 must match length 1 of argument "
      "'indices'.",
      tf::ValueError);
  CHECK_THROWS_WITH_AS(
      tf::parallel_dynamic_stitch({tf::constant({0})}, {tf::constant({1.f}), tf::constant({2.f})}),
      "List argument 'data' to 'parallel_dynamic_stitch' Op with length 2 must match length 1 of "
      "argument 'indices'.",
      tf::ValueError);
  CHECK_THROWS_WITH_AS(
      tf::dynamic_stitch({}, {}),
      "List argument 'indices' to 'DynamicStitch' Op with length 0 shorter than minimum length 1.",
      tf::ValueError);
}

TEST_CASE("data_flow/dynamic_stitch: run-time errors name the bad index or shape") {
  tf::Graph g;
  auto guard = g.as_default();
  Output pi = tf::placeholder(tf::int32), pi2 = tf::placeholder(tf::int32);
  Output pf = tf::placeholder(tf::float32), pf2 = tf::placeholder(tf::float32);
  Output s = tf::dynamic_stitch({pi, pi2}, {pf, pf2});
  Output p = tf::parallel_dynamic_stitch({pi, pi2}, {pf, pf2});
  tf::Session sess(g);
  auto feeds = [&](Value i, Value i2, Value f, Value f2) {
    return tf::FeedDict{{pi, i}, {pi2, i2}, {pf, f}, {pf2, f2}};
  };
  for (Output out : {s, p}) {
    CAPTURE(out.name());
    CHECK_THROWS_WITH_AS(sess.run(out, feeds(Value{0, -1}, Value{1}, Value{1.f, 2.f}, Value{3.f})),
                         doctest::Contains("indices[1] is out of range"), tf::InvalidArgumentError);
    CHECK_THROWS_WITH_AS(sess.run(out, feeds(Value{-1}, Value{-2}, Value{1.f}, Value{3.f})),
                         doctest::Contains("indices[0] is out of range"), tf::InvalidArgumentError);
    CHECK_THROWS_WITH_AS(
        sess.run(out, feeds(Value{0, 1}, Value{1}, Value{1.f, 2.f, 3.f}, Value{3.f})),
        doctest::Contains("data[0].shape = [3] does not start with indices[0].shape = [2]"),
        tf::InvalidArgumentError);
    CHECK_THROWS_WITH_AS(
        sess.run(out, feeds(Value{0, 1}, Value{2}, Value{{1.f}, {2.f}}, Value{{3.f, 4.f}})),
        doctest::Contains("Need data[0].shape[1:] = data[1].shape[1:], got data[0].shape = "
                          "[2,1], data[1].shape = [1,2], indices[0].shape = [2], "
                          "indices[1].shape = [1]"),
        tf::InvalidArgumentError);
    CHECK_THROWS_WITH_AS(
        sess.run(out, feeds(Value{0, 1}, Value{2}, Value{{1.f}, {2.f}}, Value{3.f})),
        doctest::Contains("Need data[0].shape[1:] = data[1].shape[1:], got data[0].shape = "
                          "[2,1], data[1].shape = [1], indices[0].shape = [2], "
                          "indices[1].shape = [1]"),
        tf::InvalidArgumentError);
  }
  // A negative constant index passes the shape function and fails when run.
  Output neg = tf::dynamic_stitch({tf::constant({-1})}, {tf::constant({1.f})});
  CHECK(neg.shape() == Shape{0});
  tf::Session sess2(g);
  CHECK_THROWS_WITH_AS(sess2.run(neg), doctest::Contains("indices[0] is out of range"),
                       tf::InvalidArgumentError);
}

// ---- DynamicPartition -------------------------------------------------------------------

TEST_CASE("data_flow/dynamic_partition: values, names and static shapes") {
  tf::Graph g;
  auto guard = g.as_default();
  std::vector<Output> vecs =
      tf::dynamic_partition(tf::constant({10, 20, 30, 40, 50}), tf::constant({0, 0, 1, 1, 0}), 2);
  REQUIRE(vecs.size() == 2);
  CHECK(vecs[0].name() == "DynamicPartition:0");
  CHECK(vecs[1].name() == "DynamicPartition:1");
  CHECK(vecs[0].op().get_attr<std::int64_t>("num_partitions") == 2);
  CHECK(vecs[0].shape() == Shape{-1});
  std::vector<Output> rows = tf::dynamic_partition(
      tf::constant({{1.f, 2.f}, {3.f, 4.f}, {5.f, 6.f}}), tf::constant({2, 0, 2}), 3);
  CHECK(rows[1].shape() == Shape{-1, 2});
  std::vector<Output> scalar = tf::dynamic_partition(tf::constant({10, 20}), 1, 2, "scalar");
  CHECK(scalar[0].shape() == Shape{-1, 2});
  CHECK(tf::test::input_names(scalar[0])[1] == "scalar/partitions:0");
  std::vector<Output> grid = tf::dynamic_partition(tf::reshape(tf::range(0.f, 12.f), Dims{2, 3, 2}),
                                                   tf::constant({{1, 0, 1}, {0, 0, 1}}), 2);
  CHECK(grid[0].shape() == Shape{-1, 2});
  std::vector<Output> strs =
      tf::dynamic_partition(tf::constant({"a", "b", "c"}), tf::constant({1, 0, 1}), 2);
  std::vector<Output> empty =
      tf::dynamic_partition(tf::zeros(Shape{0, 3}), tf::constant(Value(tf::int32, {0})), 2);
  CHECK(empty[1].shape() == Shape{-1, 3});

  tf::Session sess(g);
  CHECK(sess.run(vecs[0]).to_vector<std::int32_t>() == std::vector<std::int32_t>{10, 20, 50});
  CHECK(sess.run(vecs[1]).to_vector<std::int32_t>() == std::vector<std::int32_t>{30, 40});
  CHECK(sess.run(rows[0]).to_vector<float>() == std::vector<float>{3, 4});
  CHECK(sess.run(rows[1]).dims() == Dims{0, 2});
  CHECK(sess.run(rows[2]).to_vector<float>() == std::vector<float>{1, 2, 5, 6});
  CHECK(sess.run(scalar[0]).dims() == Dims{0, 2});
  CHECK(sess.run(scalar[1]).to_vector<std::int32_t>() == std::vector<std::int32_t>{10, 20});
  CHECK(sess.run(scalar[1]).dims() == Dims{1, 2});
  CHECK(sess.run(grid[0]).to_vector<float>() == std::vector<float>{2, 3, 6, 7, 8, 9});
  CHECK(sess.run(grid[1]).to_vector<float>() == std::vector<float>{0, 1, 4, 5, 10, 11});
  CHECK(strings_of(sess.run(strs[0])) == std::vector<std::string>{"b"});
  CHECK(strings_of(sess.run(strs[1])) == std::vector<std::string>{"a", "c"});
  CHECK(sess.run(empty[0]).dims() == Dims{0, 3});
  CHECK(sess.run(empty[1]).dims() == Dims{0, 3});
}

TEST_CASE("data_flow/dynamic_partition: every dtype, and shapes from partial shapes") {
  tf::Graph g;
  auto guard = g.as_default();
  std::vector<std::vector<Output>> out;
  for (tf::DType d : {tf::float64, tf::int64, tf::uint8, tf::bool_})
    out.push_back(
        tf::dynamic_partition(tf::cast(tf::constant({1, 0, 1}), d), tf::constant({1, 0, 0}), 2));
  auto shapes = [](const std::vector<Output>& parts) {
    std::vector<Shape> s;
    for (const Output& p : parts) s.push_back(p.shape());
    return s;
  };
  CHECK(shapes(tf::dynamic_partition(tf::placeholder(tf::float32, Shape{-1, 4}),
                                     tf::placeholder(tf::int32, Shape{-1}), 2)) ==
        std::vector<Shape>{Shape{-1, 4}, Shape{-1, 4}});
  CHECK(shapes(tf::dynamic_partition(tf::placeholder(tf::float32),
                                     tf::placeholder(tf::int32, Shape{-1}), 2)) ==
        std::vector<Shape>{Shape::unknown(), Shape::unknown()});
  CHECK(shapes(tf::dynamic_partition(tf::placeholder(tf::float32, Shape{3, 4, 5}),
                                     tf::placeholder(tf::int32), 2)) ==
        std::vector<Shape>{Shape::unknown(), Shape::unknown()});
  CHECK(shapes(tf::dynamic_partition(tf::placeholder(tf::float32, Shape{3, 4, 5}),
                                     tf::placeholder(tf::int32, Shape{-1, -1}), 1)) ==
        std::vector<Shape>{Shape{-1, 5}});
  tf::Session sess(g);
  CHECK(sess.run(out[0][0]).to_vector<double>() == std::vector<double>{0, 1});
  CHECK(sess.run(out[0][1]).to_vector<double>() == std::vector<double>{1});
  CHECK(sess.run(out[1][0]).to_vector<std::int64_t>() == std::vector<std::int64_t>{0, 1});
  CHECK(sess.run(out[2][0]).to_vector<std::uint8_t>() == std::vector<std::uint8_t>{0, 1});
  CHECK(sess.run(out[3][0]).to_vector<bool>() == std::vector<bool>{false, true});
  CHECK(sess.run(out[3][1]).to_vector<bool>() == std::vector<bool>{true});
}

TEST_CASE("data_flow/dynamic_partition: build-time errors") {
  tf::Graph g;
  auto guard = g.as_default();
  CHECK_THROWS_WITH_AS(tf::dynamic_partition(tf::zeros(Shape{3, 2}), tf::constant({0, 1}), 2),
                       doctest::Contains("Dimensions must be equal, but are 3 and 2"),
                       tf::ValueError);
  CHECK_THROWS_WITH_AS(tf::dynamic_partition(tf::zeros(Shape{3}), tf::constant({{0, 1, 0}}), 2),
                       doctest::Contains("Shape must be at least rank 2 but is rank 1"),
                       tf::ValueError);
  CHECK_THROWS_WITH_AS(tf::dynamic_partition(tf::zeros(Shape{3}), tf::constant({0, 1, 0}), 0),
                       "Attr 'num_partitions' of 'DynamicPartition' Op passed 0 less than "
                       "minimum 1.",
                       tf::ValueError);
  CHECK_THROWS_WITH_AS(tf::dynamic_partition(tf::zeros(Shape{3}), tf::constant({0, 1, 0}), -1),
                       "Attr 'num_partitions' of 'DynamicPartition' Op passed -1 less than "
                       "minimum 1.",
                       tf::ValueError);
  CHECK_THROWS_WITH_AS(
      tf::dynamic_partition(tf::zeros(Shape{3}), tf::cast(tf::constant({0, 1, 0}), tf::int64), 2),
      doctest::Contains("Input 'partitions' of 'DynamicPartition' Op has type int64 that does "
                        "not match expected type of int32."),
      tf::TypeError);
}

TEST_CASE("data_flow/dynamic_partition: run-time errors name the bad partition") {
  tf::Graph g;
  auto guard = g.as_default();
  Output pd = tf::placeholder(tf::float32);
  Output pp = tf::placeholder(tf::int32);
  Output first = tf::dynamic_partition(pd, pp, 2)[0];
  tf::Session sess(g);
  auto run = [&](Value d, Value p) { return sess.run(first, {{pd, d}, {pp, p}}); };
  CHECK_THROWS_WITH_AS(run(Value{1.f, 2.f, 3.f}, Value{0, 2, 1}),
                       doctest::Contains("partitions[1] = 2 is not in [0, 2)"),
                       tf::InvalidArgumentError);
  CHECK_THROWS_WITH_AS(run(Value{1.f, 2.f, 3.f}, Value{0, 1, -1}),
                       doctest::Contains("partitions[2] = -1 is not in [0, 2)"),
                       tf::InvalidArgumentError);
  CHECK_THROWS_WITH_AS(run(Value{{1.f, 2.f}, {3.f, 4.f}}, Value{{0, 1}, {5, 0}}),
                       doctest::Contains("partitions[1,0] = 5 is not in [0, 2)"),
                       tf::InvalidArgumentError);
  CHECK_THROWS_WITH_AS(run(Value{1.f, 2.f, 3.f}, Value(7)),
                       doctest::Contains("partitions = 7 is not in [0, 2)"),
                       tf::InvalidArgumentError);
  CHECK_THROWS_WITH_AS(run(Value{1.f, 2.f, 3.f}, Value{0, 1}),
                       doctest::Contains("data.shape must start with partitions.shape, got "
                                         "data.shape = [3], partitions.shape = [2]"),
                       tf::InvalidArgumentError);
  CHECK_THROWS_WITH_AS(run(Value{{1.f, 2.f, 3.f}}, Value{0, 1}),
                       doctest::Contains("data.shape = [1,3], partitions.shape = [2]"),
                       tf::InvalidArgumentError);
  CHECK_THROWS_WITH_AS(run(Value(1.f), Value{0}),
                       doctest::Contains("data.shape = [], partitions.shape = [1]"),
                       tf::InvalidArgumentError);
  // The shapes are checked before the values.
  CHECK_THROWS_WITH_AS(run(Value{1.f, 2.f, 3.f}, Value{7, 1}),
                       doctest::Contains("data.shape must start with partitions.shape"),
                       tf::InvalidArgumentError);
}

TEST_CASE("data_flow/dynamic_partition: TensorFlow's example, stitched back together") {
  tf::Graph g;
  auto guard = g.as_default();
  Output x = tf::constant({0.1f, -1.f, 5.2f, 4.3f, -1.f, 7.4f});
  Output mask = tf::cast(tf::not_equal(x, tf::constant(-1.f)), tf::int32);
  std::vector<Output> parts = tf::dynamic_partition(x, mask, 2);
  parts[1] = tf::add(parts[1], tf::constant(1.f));
  std::vector<Output> where = tf::dynamic_partition(
      tf::range(tf::strided_slice(tf::shape(x), {0}, {1}, {1}, {.shrink_axis_mask = 1})), mask, 2);
  Output y = tf::dynamic_stitch({where[0], where[1]}, {parts[0], parts[1]});
  CHECK(y.shape() == Shape{-1});
  tf::Session sess(g);
  CHECK(sess.run(y).to_vector<float>() == std::vector<float>{1.1f, -1.f, 6.2f, 5.3f, -1.f, 8.4f});
}

// ---- Unique -------------------------------------------------------------------------------

TEST_CASE("data_flow/unique: first-occurrence order, names and static shapes") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::UniqueOutputs u = tf::unique(tf::constant({1, 1, 2, 4, 4, 4, 7, 8, 8}));
  CHECK(u.y.name() == "Unique:0");
  CHECK(u.idx.name() == "Unique:1");
  CHECK(u.y.shape() == Shape{-1});
  CHECK(u.idx.shape() == Shape{9});
  CHECK(u.idx.dtype() == tf::int32);
  CHECK(u.y.op().get_attr<tf::DType>("out_idx") == tf::int32);
  // -0.0 equals 0.0 (the first one seen is kept); every NaN is a value of its own.
  tf::UniqueOutputs f = tf::unique(tf::constant({3.f, 1.f, 3.f, -0.f, 0.f}), tf::int64);
  CHECK(f.idx.dtype() == tf::int64);
  tf::UniqueOutputs nan = tf::unique(tf::constant({NAN, 1.f, NAN}));
  tf::UniqueOutputs s = tf::unique(tf::constant({"b", "a", "b", ""}));
  tf::UniqueOutputs e = tf::unique(tf::constant(Value(tf::float32, {0})));
  CHECK(e.y.shape() == Shape{-1});
  CHECK(tf::unique(tf::placeholder(tf::float32, Shape{5})).idx.shape() == Shape{5});
  CHECK(tf::unique(tf::placeholder(tf::float32)).idx.shape() == Shape::unknown());
  CHECK(tf::unique(tf::placeholder(tf::float32)).y.shape() == Shape{-1});

  tf::Session sess(g);
  CHECK(sess.run(u.y).to_vector<std::int32_t>() == std::vector<std::int32_t>{1, 2, 4, 7, 8});
  CHECK(sess.run(u.idx).to_vector<std::int32_t>() ==
        std::vector<std::int32_t>{0, 0, 1, 2, 2, 2, 3, 4, 4});
  const std::vector<float> fy = sess.run(f.y).to_vector<float>();
  CHECK(fy == std::vector<float>{3, 1, 0});
  REQUIRE(fy.size() == 3);
  CHECK(std::signbit(fy[2]));
  CHECK(sess.run(f.idx).to_vector<std::int64_t>() == std::vector<std::int64_t>{0, 1, 0, 2, 2});
  const std::vector<float> ny = sess.run(nan.y).to_vector<float>();
  REQUIRE(ny.size() == 3);
  CHECK(std::isnan(ny[0]));
  CHECK(ny[1] == 1.f);
  CHECK(std::isnan(ny[2]));
  CHECK(sess.run(nan.idx).to_vector<std::int32_t>() == std::vector<std::int32_t>{0, 1, 2});
  CHECK(strings_of(sess.run(s.y)) == std::vector<std::string>{"b", "a", ""});
  CHECK(sess.run(s.idx).to_vector<std::int32_t>() == std::vector<std::int32_t>{0, 1, 0, 2});
  CHECK(sess.run(e.y).dims() == Dims{0});
  CHECK(sess.run(e.idx).dims() == Dims{0});
}

TEST_CASE("data_flow/unique: every dtype") {
  tf::Graph g;
  auto guard = g.as_default();
  std::vector<tf::UniqueOutputs> out;
  for (tf::DType d : {tf::float64, tf::int64, tf::uint8, tf::bool_})
    out.push_back(tf::unique(tf::cast(tf::constant({1, 0, 1, 2}), d)));
  tf::Session sess(g);
  CHECK(sess.run(out[0].y).to_vector<double>() == std::vector<double>{1, 0, 2});
  CHECK(sess.run(out[1].y).to_vector<std::int64_t>() == std::vector<std::int64_t>{1, 0, 2});
  CHECK(sess.run(out[2].y).to_vector<std::uint8_t>() == std::vector<std::uint8_t>{1, 0, 2});
  CHECK(sess.run(out[3].y).to_vector<bool>() == std::vector<bool>{true, false});
  for (int i = 0; i < 3; ++i)
    CHECK(sess.run(out[static_cast<std::size_t>(i)].idx).to_vector<std::int32_t>() ==
          std::vector<std::int32_t>{0, 1, 0, 2});
  CHECK(sess.run(out[3].idx).to_vector<std::int32_t>() == std::vector<std::int32_t>{0, 1, 0, 0});
}

TEST_CASE("data_flow/unique: errors") {
  tf::Graph g;
  auto guard = g.as_default();
  CHECK_THROWS_WITH_AS(tf::unique(tf::zeros(Shape{2, 2})),
                       doctest::Contains("Shape must be rank 1 but is rank 2"), tf::ValueError);
  CHECK_THROWS_WITH_AS(tf::unique(tf::constant(1.f)),
                       doctest::Contains("Shape must be rank 1 but is rank 0"), tf::ValueError);
  CHECK_THROWS_WITH_AS(tf::unique(tf::zeros(Shape{2}), tf::float32),
                       doctest::Contains("Value passed to parameter 'out_idx' has DataType "
                                         "float32 not in list of allowed values: int32, int64"),
                       tf::TypeError);
  Output x = tf::placeholder(tf::float32);
  Output y = tf::unique(x).y;
  tf::Session sess(g);
  CHECK_THROWS_WITH_AS(sess.run(y, {{x, Value{{1.f, 2.f}}}}),
                       doctest::Contains("unique expects a 1D vector."), tf::InvalidArgumentError);
  CHECK_THROWS_WITH_AS(sess.run(y, {{x, Value(1.f)}}),
                       doctest::Contains("unique expects a 1D vector."), tf::InvalidArgumentError);
}

// ---- GraphDefs TensorFlow wrote ------------------------------------------------------------

// Printed by TensorFlow 2.21 (tf.Graph().as_graph_def()) for
//   stitch = tf.dynamic_stitch([ia, ib], [a, b]); pstitch (raw_ops.ParallelDynamicStitch);
//   part = tf.dynamic_partition(a, ia, 3); uniq = tf.unique(["x", "y", "x"], tf.int64)
// with Placeholders a: [?, 2] float, ia: [?] int32 and Consts b = [[5, 6]], ib = [1]; uniq32's
// out_idx is left out, as strip_default_attrs leaves it.
const char* const kTfGraph = R"pb(
  node {
    name: "a"
    op: "Placeholder"
    attr {
      key: "shape"
      value {
        shape {
          dim { size: -1 }
          dim { size: 2 }
        }
      }
    }
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "ia"
    op: "Placeholder"
    attr {
      key: "shape"
      value { shape { dim { size: -1 } } }
    }
    attr {
      key: "dtype"
      value { type: DT_INT32 }
    }
  }
  node {
    name: "b"
    op: "Const"
    attr {
      key: "value"
      value {
        tensor {
          dtype: DT_FLOAT
          tensor_shape {
            dim { size: 1 }
            dim { size: 2 }
          }
          tensor_content: "\000\000\240@\000\000\300@"
        }
      }
    }
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "ib"
    op: "Const"
    attr {
      key: "value"
      value {
        tensor {
          dtype: DT_INT32
          tensor_shape { dim { size: 1 } }
          int_val: 1
        }
      }
    }
    attr {
      key: "dtype"
      value { type: DT_INT32 }
    }
  }
  node {
    name: "stitch"
    op: "DynamicStitch"
    input: "ia"
    input: "ib"
    input: "a"
    input: "b"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
    attr {
      key: "N"
      value { i: 2 }
    }
  }
  node {
    name: "pstitch"
    op: "ParallelDynamicStitch"
    input: "ia"
    input: "ib"
    input: "a"
    input: "b"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
    attr {
      key: "N"
      value { i: 2 }
    }
  }
  node {
    name: "part"
    op: "DynamicPartition"
    input: "a"
    input: "ia"
    attr {
      key: "num_partitions"
      value { i: 3 }
    }
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "Const"
    op: "Const"
    attr {
      key: "value"
      value {
        tensor {
          dtype: DT_STRING
          tensor_shape { dim { size: 3 } }
          string_val: "x"
          string_val: "y"
          string_val: "x"
        }
      }
    }
    attr {
      key: "dtype"
      value { type: DT_STRING }
    }
  }
  node {
    name: "uniq"
    op: "Unique"
    input: "Const"
    attr {
      key: "out_idx"
      value { type: DT_INT64 }
    }
    attr {
      key: "T"
      value { type: DT_STRING }
    }
  }
  node {
    name: "Const_1"
    op: "Const"
    attr {
      key: "value"
      value {
        tensor {
          dtype: DT_INT32
          tensor_shape { dim { size: 3 } }
          tensor_content: "\003\000\000\000\001\000\000\000\003\000\000\000"
        }
      }
    }
    attr {
      key: "dtype"
      value { type: DT_INT32 }
    }
  }
  node {
    name: "uniq32"
    op: "Unique"
    input: "Const_1"
    attr {
      key: "T"
      value { type: DT_INT32 }
    }
  }
  versions { producer: 2474 }
)pb";

TEST_CASE("data_flow/graph_def: TensorFlow's NodeDefs import, run, and survive a round trip") {
  tf::GraphDef def = tf::io::parse_graph_def_text(kTfGraph, "data_flow.pbtxt");
  for (int round = 0; round < 2; ++round) {
    CAPTURE(round);
    tf::Graph g;
    tf::import_graph_def(def, {.name = ""}, g);
    CHECK(g.get_operation_by_name("stitch").type() == "DynamicStitch");
    CHECK(g.get_tensor_by_name("stitch:0").shape() == Shape{-1, 2});
    CHECK(g.get_tensor_by_name("part:2").shape() == Shape{-1, 2});
    CHECK(g.get_tensor_by_name("uniq:1").dtype() == tf::int64);
    CHECK(g.get_operation_by_name("uniq32").get_attr<tf::DType>("out_idx") == tf::int32);
    tf::Session sess(g);
    // TF: stitch = [[1, 2], [5, 6], [0, 0], [3, 4]]; part = [[3, 4]], [], [[1, 2]].
    const tf::FeedDict feeds{{g.get_tensor_by_name("a:0"), Value{{1.f, 2.f}, {3.f, 4.f}}},
                             {g.get_tensor_by_name("ia:0"), Value{0, 3}}};
    for (const char* name : {"stitch:0", "pstitch:0"}) {
      const Value v = sess.run(g.get_tensor_by_name(name), feeds);
      CHECK(v.dims() == Dims{4, 2});
      CHECK(v.to_vector<float>() == std::vector<float>{1, 2, 5, 6, 0, 0, 3, 4});
    }
    const tf::FeedDict part_feeds{{g.get_tensor_by_name("a:0"), Value{{1.f, 2.f}, {3.f, 4.f}}},
                                  {g.get_tensor_by_name("ia:0"), Value{2, 0}}};
    CHECK(sess.run(g.get_tensor_by_name("part:0"), part_feeds).to_vector<float>() ==
          std::vector<float>{3, 4});
    CHECK(sess.run(g.get_tensor_by_name("part:1"), part_feeds).dims() == Dims{0, 2});
    CHECK(sess.run(g.get_tensor_by_name("part:2"), part_feeds).to_vector<float>() ==
          std::vector<float>{1, 2});
    CHECK(strings_of(sess.run(g.get_tensor_by_name("uniq:0"))) ==
          std::vector<std::string>{"x", "y"});
    CHECK(sess.run(g.get_tensor_by_name("uniq:1")).to_vector<std::int64_t>() ==
          std::vector<std::int64_t>{0, 1, 0});
    CHECK(sess.run(g.get_tensor_by_name("uniq32:0")).to_vector<std::int32_t>() ==
          std::vector<std::int32_t>{3, 1});
    CHECK(sess.run(g.get_tensor_by_name("uniq32:1")).to_vector<std::int32_t>() ==
          std::vector<std::int32_t>{0, 1, 0});
    // Written back as text and read again, the graph must hold the same nodes.
    def = tf::io::parse_graph_def_text(tf::to_text(g.as_graph_def()), "round_trip.pbtxt");
  }
  const std::string text = tf::to_text(def);
  CHECK(text.find("op: \"ParallelDynamicStitch\"") != std::string::npos);
}

}  // namespace symflow_test_ops_data_flow_ops_test
