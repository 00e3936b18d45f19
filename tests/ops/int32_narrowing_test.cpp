// Sizes that graph builders write as int32 Consts (paddings, counts, batch and time sizes,
// noise shapes) are never wrapped: a number int32 cannot hold is a ValueError naming it, or,
// where TensorFlow converts such a list of Python ints to int64, an int64 Const. Before,
// each was a static_cast that turned 2**31 into -2**31. Sizes that fit build TensorFlow
// 2.21's constants, as before.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include <symflow/symflow.hpp>
// After symflow.hpp, which will include it.
#include <symflow/layers/rnn.hpp>
#include <symflow/train/gradient_descent.hpp>

namespace symflow_test_ops_int32_narrowing {

using namespace symflow;
namespace rnn_cell = symflow::nn::rnn_cell;

namespace {

constexpr std::int64_t k2to30 = std::int64_t{1} << 30;
constexpr std::int64_t k2to31 = std::int64_t{1} << 31;

// The message that refuses `value`, said to be `what`.
std::string refused(std::int64_t value, const std::string& what) {
  return "Value " + std::to_string(value) + " (" + what +
         ") does not fit in int32 (an int32 constant)";
}

Value const_value(const Graph& g, const std::string& op_name) {
  return g.get_operation_by_name(op_name).get_attr<Value>("value");
}

Value int32s(const std::vector<std::int32_t>& v, const Dims& dims) {
  return Value::from_vector(v, dims);
}

}  // namespace

TEST_CASE("ops/int32_narrowing: a dilated convolution's paddings past int32 are a ValueError") {
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<float>(Shape{1, 5, 5, 1}, "x");
  auto f = placeholder<float>(Shape{5, 5, 1, 1}, "f");
  // TF: tf.nn.atrous_conv2d(x, f, 2, "SAME"): convolution/stack [[4, 4], [4, 4]],
  // SpaceToBatchND/paddings [[4, 5], [4, 5]], BatchToSpaceND/crops [[0, 1], [0, 1]], int32.
  (void)nn::atrous_conv2d(x, f, 2, "SAME");
  CHECK(const_value(g, "convolution/stack") == int32s({4, 4, 4, 4}, {2, 2}));
  CHECK(const_value(g, "convolution/SpaceToBatchND/paddings") == int32s({4, 5, 4, 5}, {2, 2}));
  CHECK(const_value(g, "convolution/BatchToSpaceND/crops") == int32s({0, 1, 0, 1}, {2, 2}));
  // Rate 2**30 with a 5-wide filter: a SAME padding of (5 - 1) * 2**30 = 2**32, split in
  // halves of 2**31. TensorFlow's int32 arithmetic wraps it to [[0, 0], [0, 0]] and then
  // fails on the Conv2D's shape; symflow names the number instead.
  CHECK_THROWS_WITH_AS(nn::atrous_conv2d(x, f, k2to30, "SAME"),
                       refused(k2to31, "a padding or crop of a dilated convolution").c_str(),
                       ValueError);
}

TEST_CASE("ops/int32_narrowing: embedding_lookup's count of ids past int32 is a ValueError") {
  Graph g;
  auto guard = g.as_default();
  const std::vector<Output> params{constant(Value{{1.0f}, {2.0f}}), constant(Value{{3.0f}})};
  // TF: tf.nn.embedding_lookup of two shards and ids of shape [3]: embedding_lookup/Size 3.
  auto ids = placeholder(DType::int32, Shape{3}, "ids");
  (void)nn::embedding_lookup(params, ids);
  CHECK(const_value(g, "embedding_lookup/Size") == Value(std::int32_t{3}));
  // Ids of shape [2**31]: TensorFlow wraps the Size to -2**31 and its Range fails with a
  // ValueError ("Requires start <= limit when delta > 0: 0/-2147483648").
  auto many = placeholder(DType::int32, Shape{k2to31}, "many");
  CHECK_THROWS_WITH_AS(nn::embedding_lookup(params, many),
                       refused(k2to31, "the number of ids").c_str(), ValueError);
}

TEST_CASE("ops/int32_narrowing: dropout's noise_shape past int32 is int64, or refused") {
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<float>(Shape{-1, 4}, "x");
  // TF: tf.layers.dropout(x, 0.5, noise_shape=[1, 4], training=True): dropout/Const [1, 4]
  // int32, RandomUniform's T int32.
  (void)layers::dropout(x, 0.5, true, {.noise_shape = std::vector<std::int64_t>{1, 4}});
  CHECK(const_value(g, "dropout/Const") == int32s({1, 4}, {2}));
  // noise_shape=[2**31, 4]: TensorFlow's list of Python ints becomes the int64 dropout_1/Const
  // [2147483648, 4], which RandomUniform takes as its shape (T int64).
  (void)layers::dropout(x, 0.5, true, {.noise_shape = std::vector<std::int64_t>{k2to31, 4}});
  const Value wide = const_value(g, "dropout_1/Const");
  CHECK(wide.dtype() == DType::int64);
  CHECK(wide == Value::from_vector(std::vector<std::int64_t>{k2to31, 4}, {2}));
  const Operation uniform =
      g.get_operation_by_name("dropout_1/dropout/random_uniform/RandomUniform");
  CHECK(uniform.get_attr<DType>("T") == DType::int64);
  CHECK(uniform.inputs()[0].name() == "dropout_1/Const:0");
  // noise_shape=[2**31, None]: the number is packed with Shape(x)'s int32 slices, where
  // TensorFlow wraps it to -2**31 ("dropout/packed/0"); symflow refuses it.
  CHECK_THROWS_WITH_AS(
      layers::dropout(x, 0.5, true, {.noise_shape = std::vector<std::int64_t>{k2to31, -1}}),
      refused(k2to31, "a noise_shape dim").c_str(), ValueError);
}

TEST_CASE("ops/int32_narrowing: an RNN's batch and time sizes past int32 are a ValueError") {
  {
    Graph g;
    auto guard = g.as_default();
    rnn_cell::BasicRNNCell cell(2);
    // TF: cell.zero_state(3, tf.float32): BasicRNNCellZeroState/Const [3] (int32).
    (void)cell.zero_state(3, DType::float32);
    CHECK(const_value(g, "BasicRNNCellZeroState/Const") == int32s({3}, {1}));
    // TF: zero_state(2**31) wraps the Const to [-2147483648], and its Fill's shape
    // function fails with a ValueError ("Invalid value in tensor used for shape").
    CHECK_THROWS_WITH_AS(cell.zero_state(k2to31, DType::float32),
                         refused(k2to31, "a batch or state size").c_str(), ValueError);
  }
  {
    Graph g;
    auto guard = g.as_default();
    rnn_cell::BasicRNNCell cell(2);
    // TF: dynamic_rnn of x [2**31, 3, 4] (batch major) fails the same way.
    auto x = placeholder<float>(Shape{k2to31, 3, 4}, "x");
    CHECK_THROWS_WITH_AS(nn::dynamic_rnn(cell, x, {.dtype = DType::float32}),
                         refused(k2to31, "the batch size").c_str(), ValueError);
  }
  {
    Graph g;
    auto guard = g.as_default();
    rnn_cell::BasicRNNCell cell(2);
    // x [2, 2**31, 4]: 2**31 time steps. TensorFlow folds the input's shape to the int32
    // rnn/Shape [-2147483648, 2, 4] and builds a loop of a negative length; symflow refuses
    // the shape (int32_vector's message, which gives the index and the whole shape).
    auto x = placeholder<float>(Shape{2, k2to31, 4}, "x");
    CHECK_THROWS_WITH_AS(nn::dynamic_rnn(cell, x, {.dtype = DType::float32}),
                         doctest::Contains("Value 2147483648 at index 0 of [2147483648,2,4] "
                                           "does not fit in int32"),
                         ValueError);
  }
}

TEST_CASE("ops/int32_narrowing: element counts of losses, norms and gathers past int32") {
  // TensorFlow folds tf.size of a known shape to an int32 Const and wraps 2**31 to
  // -2**31: compute_weighted_loss's weighted_loss/num_elements and clip_by_average_norm's
  // Size build silently with that number, the gradient of a gather of 2**31 ids fails
  // (ValueError "Invalid value in tensor used for shape"). symflow refuses each (the loss's
  // shape Const of assert_broadcastable, before its count, says so first).
  Graph g;
  auto guard = g.as_default();
  auto values = placeholder<float>(Shape{k2to31}, "values");
  CHECK_THROWS_WITH_AS(
      losses::compute_weighted_loss(values, {.reduction = losses::Reduction::SUM_OVER_BATCH_SIZE}),
      doctest::Contains("Value 2147483648 at index 0 of [2147483648] does not fit in int32"),
      ValueError);
  CHECK_THROWS_WITH_AS(clip_by_average_norm(values, 1.0),
                       refused(k2to31, "the number of elements").c_str(), ValueError);
  auto params = placeholder<float>(Shape{3, 2}, "params");
  auto ids = placeholder(DType::int32, Shape{k2to31}, "ids");
  const Output gathered = gather(params, ids, 0);
  CHECK_THROWS_WITH_AS(gradients(gathered, {params}),
                       refused(k2to31, "the number of indices").c_str(), ValueError);
}

TEST_CASE("ops/int32_narrowing: element counts that fit are TensorFlow's int32 Consts") {
  Graph g;
  auto guard = g.as_default();
  // TF: compute_weighted_loss(losses [2, 3], SUM_OVER_BATCH_SIZE): weighted_loss/num_elements
  // 6; clip_by_average_norm(t [2, 3], 1.0): clip_by_average_norm/Size 6 (both int32).
  auto small = placeholder<float>(Shape{2, 3}, "small");
  (void)losses::compute_weighted_loss(small, {.reduction = losses::Reduction::SUM_OVER_BATCH_SIZE});
  CHECK(const_value(g, "weighted_loss/num_elements") == Value(std::int32_t{6}));
  (void)clip_by_average_norm(small, 1.0);
  CHECK(const_value(g, "clip_by_average_norm/Size") == Value(std::int32_t{6}));
}

}  // namespace symflow_test_ops_int32_narrowing

namespace symflow_test_ops_int32_narrowing {

TEST_CASE("ops/int32_narrowing: axes past int32 are a ValueError, not another axis") {
  Graph g;
  auto guard = g.as_default();
  const Output x = constant(Value{1.0f, 2.0f});
  // 2^32 - 1 would have wrapped to -1, the last axis.
  constexpr std::int64_t wraps_to_minus_one = (std::int64_t{1} << 32) - 1;
  CHECK_THROWS_WITH_AS(expand_dims(x, wraps_to_minus_one),
                       refused(wraps_to_minus_one, "an axis").c_str(), ValueError);
  CHECK_THROWS_WITH_AS(reduce_sum(Tensor<float>(x), Axis{wraps_to_minus_one}),
                       doctest::Contains("Value 4294967295 at index 0 of [4294967295] does not "
                                         "fit in int32"),
                       ValueError);
  CHECK_THROWS_WITH_AS(argmax(x, wraps_to_minus_one),
                       refused(wraps_to_minus_one, "an axis").c_str(), ValueError);
  CHECK(expand_dims(x, -1).shape() == Shape({2, 1}));
}

TEST_CASE("ops/int32_narrowing: an integer hyperparameter past int32 is a ValueError") {
  Graph g;
  auto guard = g.as_default();
  CHECK_THROWS_WITH_AS(train::GradientDescentOptimizer(std::int64_t{1} << 31),
                       "Hyperparameter 2147483648 does not fit in int32", ValueError);
}

}  // namespace symflow_test_ops_int32_narrowing
