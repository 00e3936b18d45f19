// SpaceToBatchND and BatchToSpaceND (tf.space_to_batch_nd, tf.batch_to_space_nd),
// checked against TensorFlow 1.x graph mode (tensorflow.compat.v1, eager disabled): node
// names, attrs, static shapes, values and the messages of build-time and run-time errors.
// Every expected number below was printed by TensorFlow.

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include <symflow/symflow.hpp>

#include "../test_util.hpp"

namespace symflow_test_ops_space_to_batch_test {

namespace ops_space_to_batch_test {

using namespace symflow;
using namespace symflow::test;

// np.arange(n, dtype=float32).reshape(dims).
inline Value iota(const Dims& dims) {
  std::vector<float> v(static_cast<std::size_t>(num_elements(dims)));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i);
  return Value::from_vector(v, dims);
}

template <class E, class F>
std::string message_of(F&& f) {
  auto e = thrown<E>(f);
  REQUIRE(e.has_value());
  return e->what();
}

}  // namespace ops_space_to_batch_test

using namespace ops_space_to_batch_test;

TEST_CASE("space_to_batch_nd: nodes, attrs, shapes and values of a 2-D block on NHWC") {
  Graph g;
  auto guard = g.as_default();
  Output x = constant(iota({2, 4, 3, 2}), "x");
  Output s = space_to_batch_nd(x, {2, 2}, {{0, 0}, {0, 1}});
  CHECK(nodes(g) ==
        std::vector<std::pair<std::string, std::string>>{{"x", "Const"},
                                                         {"SpaceToBatchND/block_shape", "Const"},
                                                         {"SpaceToBatchND/paddings", "Const"},
                                                         {"SpaceToBatchND", "SpaceToBatchND"}});
  CHECK(s.op().get_attr<DType>("T") == DType::float32);
  CHECK(s.op().get_attr<DType>("Tblock_shape") == DType::int32);
  CHECK(s.op().get_attr<DType>("Tpaddings") == DType::int32);
  CHECK(s.shape() == Shape{8, 2, 2, 2});
  CHECK(run_vector<float>(s) ==
        std::vector<float>{0, 1, 4,  5,  12, 13, 16, 17, 24, 25, 28, 29, 36, 37, 40, 41,
                           2, 3, 0,  0,  14, 15, 0,  0,  26, 27, 0,  0,  38, 39, 0,  0,
                           6, 7, 10, 11, 18, 19, 22, 23, 30, 31, 34, 35, 42, 43, 46, 47,
                           8, 9, 0,  0,  20, 21, 0,  0,  32, 33, 0,  0,  44, 45, 0,  0});
  // BatchToSpaceND with the paddings as crops gives x back.
  Output b = batch_to_space_nd(s, {2, 2}, {{0, 0}, {0, 1}});
  CHECK(b.op().name() == "BatchToSpaceND");
  CHECK(input_names(b) == std::vector<std::string>{"SpaceToBatchND:0",
                                                   "BatchToSpaceND/block_shape:0",
                                                   "BatchToSpaceND/crops:0"});
  CHECK(b.op().get_attr<DType>("Tcrops") == DType::int32);
  CHECK(b.shape() == Shape{2, 4, 3, 2});
  CHECK(run_vector<float>(b) == iota({2, 4, 3, 2}).to_vector<float>());

  // The typed overloads keep the element type.
  Tensor<float> xt(x);
  Tensor<float> st = space_to_batch_nd(xt, {2, 2}, {{0, 0}, {0, 1}}, "typed");
  Tensor<float> bt = batch_to_space_nd(st, {2, 2}, {{0, 0}, {0, 1}});
  CHECK(st.name() == "typed:0");
  CHECK(run_vector<float>(Output(bt)) == iota({2, 4, 3, 2}).to_vector<float>());
}

TEST_CASE("space_to_batch_nd: 1-D and unequal blocks, int64 arguments, other dtypes") {
  Graph g;
  auto guard = g.as_default();
  // A 1-D block on a rank-3 input, padded on both sides.
  Output s1 = space_to_batch_nd(constant(iota({2, 3, 2})), {3}, {{1, 2}});
  CHECK(s1.shape() == Shape{6, 2, 2});
  CHECK(run_vector<float>(s1) == std::vector<float>{0, 0, 4, 5, 0, 0, 10, 11, 0, 1, 0, 0,
                                                    6, 7, 0, 0, 2, 3, 0,  0,  8, 9, 0, 0});
  Output b1 = batch_to_space_nd(constant(iota({4, 3, 1})), {2}, {{1, 2}});
  CHECK(b1.shape() == Shape{2, 3, 1});
  CHECK(run_vector<float>(b1) == std::vector<float>{6, 1, 7, 9, 4, 10});

  // block [2, 3] given as int64, crops as int64.
  Output s2 =
      space_to_batch_nd(constant(iota({1, 4, 6, 1})),
                        Value::from_vector<std::int64_t>({2, 3}, Dims{2}), {{0, 0}, {0, 0}});
  CHECK(s2.op().get_attr<DType>("Tblock_shape") == DType::int64);
  CHECK(s2.op().get_attr<DType>("Tpaddings") == DType::int32);
  CHECK(s2.shape() == Shape{6, 2, 2, 1});
  CHECK(run_vector<float>(s2) == std::vector<float>{0, 3, 12, 15, 1, 4,  13, 16, 2, 5,  14, 17,
                                                    6, 9, 18, 21, 7, 10, 19, 22, 8, 11, 20, 23});
  Output b2 =
      batch_to_space_nd(s2, {2, 3}, Value::from_vector<std::int64_t>({1, 0, 0, 2}, Dims{2, 2}));
  CHECK(b2.op().get_attr<DType>("Tcrops") == DType::int64);
  CHECK(b2.shape() == Shape{1, 3, 4, 1});
  CHECK(run_vector<float>(b2) == std::vector<float>{6, 7, 8, 9, 12, 13, 14, 15, 18, 19, 20, 21});

  // int32 elements: the kernels only move elements.
  Output s3 = space_to_batch_nd(
      constant(Value::from_vector<std::int32_t>({0, 1, 2, 3, 4, 5, 6, 7}, Dims{1, 8})), {4},
      {{0, 0}});
  CHECK(s3.shape() == Shape{4, 2});
  CHECK(run_vector<std::int32_t>(s3) == std::vector<std::int32_t>{0, 4, 1, 5, 2, 6, 3, 7});
}

TEST_CASE("space_to_batch_nd: static shapes with unknown dims") {
  Graph g;
  auto guard = g.as_default();
  Output p = placeholder(DType::float32, Shape{-1, 5, -1, 3});
  CHECK(space_to_batch_nd(p, {1, 2}, {{1, 0}, {0, 0}}).shape() == Shape{-1, 6, -1, 3});
  CHECK(batch_to_space_nd(p, {1, 2}, {{1, 0}, {0, 0}}).shape() == Shape{-1, 4, -1, 3});
  // Arguments known only at run time: the rank stays.
  Output bs = placeholder(DType::int32, Shape{2});
  Output pd = placeholder(DType::int32);
  CHECK(space_to_batch_nd(p, bs, pd).shape() == Shape{-1, -1, -1, 3});
  CHECK(batch_to_space_nd(placeholder(DType::float32), bs, pd).shape() == Shape::unknown());
}

TEST_CASE("space_to_batch_nd and batch_to_space_nd: build-time errors") {
  Graph g;
  auto guard = g.as_default();
  // TF: ValueError "... for '{{node SpaceToBatchND}} = ...'" (symflow's message begins alike).
  auto s2b = [](const Dims& x_dims, const Value& block, const Value& pads) {
    return [=] { space_to_batch_nd(zeros(Shape(x_dims), DType::float32), block, pads); };
  };
  auto b2s = [](const Dims& x_dims, const Value& block, const Value& crops) {
    return [=] { batch_to_space_nd(zeros(Shape(x_dims), DType::float32), block, crops); };
  };
  const Value zero_pads({{0, 0}, {0, 0}});
  CHECK(contains(message_of<ValueError>(s2b({2, 7, 7, 3}, Value({2, 2}), zero_pads)),
                 "Dimension size must be evenly divisible by 2 but is 7"));
  CHECK(contains(message_of<ValueError>(s2b({2, 7}, Value({2, 2}), zero_pads)),
                 "Shape must be at least rank 3 but is rank 2"));
  CHECK(contains(message_of<ValueError>(s2b({2, 8, 8, 3}, Value({2, 0}), zero_pads)),
                 "block_shape must be positive"));
  CHECK(contains(message_of<ValueError>(s2b({2, 8, 8, 3}, Value({2, 2}), Value({{0, 0}, {0, -1}}))),
                 "paddings cannot be negative"));
  CHECK(contains(
      message_of<ValueError>(s2b({2, 8, 8, 3}, Value({2, 2}), Value({{0, 0, 0}, {0, 0, 0}}))),
      "Dimension 1 in both shapes must be equal, but are 3 and 2. Shapes are [2,3] and [2,2]."));
  CHECK(contains(message_of<ValueError>(s2b({2, 8, 8, 3}, Value({{2, 2}}), zero_pads)),
                 "block_shape must have rank 1."));
  CHECK(contains(message_of<ValueError>(s2b({2, 8, 8, 3}, Value({2, 2}), Value({{0, 0}}))),
                 "Dimension 0 in both shapes must be equal, but are 1 and 2. Shapes are [1,2] and "
                 "[2,2]."));
  CHECK(contains(
      message_of<TypeError>(s2b({2, 8, 8, 3}, Value({2.0f, 2.0f}), zero_pads)),
      "Value passed to parameter 'block_shape' has DataType float32 not in list of allowed "
      "values: int32, int64"));
  CHECK(contains(message_of<ValueError>(b2s({3, 4, 4, 3}, Value({2, 2}), zero_pads)),
                 "Dimension size must be evenly divisible by 2 but is 3"));
  CHECK(contains(message_of<ValueError>(b2s({4, 4, 4, 3}, Value({2, 2}), Value({{0, 0}, {0, 9}}))),
                 "Negative dimension size caused by subtracting 9 from 8"));
  CHECK(contains(message_of<ValueError>(b2s({4, 4, 4, 3}, Value({2, 2}), Value({{0, 0}, {0, -1}}))),
                 "crops cannot be negative"));
  CHECK(contains(message_of<ValueError>(b2s({4, 4, 4, 3}, Value({2, -2}), zero_pads)),
                 "block_shape must be positive"));
  CHECK(contains(message_of<ValueError>(b2s({4, 4}, Value({2, 2}), zero_pads)),
                 "Shape must be at least rank 3 but is rank 2"));
  CHECK(contains(
      message_of<ValueError>(b2s({4, 4, 4, 3}, Value({2, 2}), Value({{0, 0}, {0, 0}, {0, 0}}))),
      "Dimension 0 in both shapes must be equal, but are 3 and 2. Shapes are [3,2] and "
      "[2,2]."));
  CHECK(contains(
      message_of<TypeError>(b2s({4, 4, 4, 3}, Value({2, 2}), Value({{0.f, 0.f}, {0.f, 0.f}}))),
      "Value passed to parameter 'crops' has DataType float32 not in list of allowed values: "
      "int32, int64"));
  // A block_shape of unknown rank: TF refuses it when the node is made.
  CHECK(contains(message_of<ValueError>([] {
                   space_to_batch_nd(placeholder(DType::float32), placeholder(DType::int32),
                                     placeholder(DType::int32));
                 }),
                 "block_shape must have rank 1."));
}

TEST_CASE("space_to_batch_nd and batch_to_space_nd: run-time errors, as TensorFlow's kernels") {
  Graph g;
  auto guard = g.as_default();
  Output x = placeholder(DType::float32, Shape::unknown(), "x");
  Output bs = placeholder(DType::int32, Shape{2}, "bs");
  Output pd = placeholder(DType::int32, Shape::unknown(), "pd");
  Output s = space_to_batch_nd(x, bs, pd);
  Output b = batch_to_space_nd(x, bs, pd);
  Session sess(g);
  auto fails = [&](const Output& t, const Dims& x_dims, const Value& block, const Value& edges) {
    auto e = thrown<InvalidArgumentError>([&] {
      sess.run(t, {{x, Value(DType::float32, x_dims)}, {bs, block}, {pd, edges}});
    });
    REQUIRE(e.has_value());
    return std::string(e->what());
  };
  const Value zero_pads({{0, 0}, {0, 0}});
  CHECK(contains(fails(s, {2, 7, 7, 3}, Value({2, 2}), zero_pads),
                 "padded_shape[0]=7 is not divisible by block_shape[0]=2"));
  CHECK(contains(fails(s, {2, 8, 8, 3}, Value({2, 0}), zero_pads),
                 "All values in block_shape must be positive, got value, 0 at index 1."));
  CHECK(contains(fails(s, {2, 8, 8, 3}, Value({2, 2}), Value({{0, 0}, {0, -1}})),
                 "Paddings must be non-negative"));
  CHECK(contains(fails(s, {2, 8, 8, 3}, Value({2, 2}), Value({{0, 0}})),
                 "paddings should have shape [2, 2] instead of [1,2]"));
  CHECK(contains(fails(s, {2, 8}, Value({2, 2}), zero_pads),
                 "input rank should be >= 3 instead of 2"));
  CHECK(contains(fails(b, {3, 4, 4, 3}, Value({2, 2}), zero_pads),
                 "Input batch dimension (3) is not divisible by product of block sizes (4)"));
  CHECK(contains(fails(b, {4, 4, 4, 3}, Value({2, 2}), Value({{0, 0}, {0, 9}})),
                 "cropped_shape[1]=-1 must be non-negative"));
  CHECK(contains(fails(b, {4, 4, 4, 3}, Value({2, 2}), Value({{0, 0}, {0, -1}})),
                 "Crops must be non-negative"));
  CHECK(contains(fails(b, {4, 4, 4, 3}, Value({2, 0}), zero_pads),
                 "Product of block sizes must be positive, got 0"));
  CHECK(contains(fails(b, {4, 4}, Value({2, 2}), zero_pads),
                 "input rank should be >= 3 instead of 2"));
  CHECK(contains(fails(b, {4, 4, 4, 3}, Value({2, 2}), Value({{0, 0}, {0, 0}, {0, 0}})),
                 "crops should have shape [2, 2] instead of [3,2]"));
}

}  // namespace symflow_test_ops_space_to_batch_test
