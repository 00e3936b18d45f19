// Initializers, checked against TensorFlow 1.x's init_ops classes called in graph mode
// (tensorflow.compat.v1 with eager execution disabled): the nodes they build, their
// constants, their numbers (TensorFlow 2.21, same seeds) and their errors.

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <symflow/ops/init_ops.hpp>
#include <symflow/symflow.hpp>

#include "../test_util.hpp"

namespace symflow_test_ops_init_ops_test {

namespace ops_init_test {

using namespace symflow;
using namespace symflow::test;

// The scalar float of Const `name`.
float const_value(const Graph& g, const std::string& name) {
  return g.get_operation_by_name(name).get_attr<Value>("value").scalar<float>();
}

// The stddev Const a variance-scaling initializer builds for `shape`.
float scaled_stddev(const VarianceScalingOptions& options, const Shape& shape) {
  Graph g;
  auto guard = g.as_default();
  Output t = variance_scaling_initializer(options)(shape, DType::float32);
  return const_value(g, t.op().name() + "/stddev");
}

using Nodes = std::vector<std::pair<std::string, std::string>>;

}  // namespace ops_init_test

using namespace ops_init_test;

// ---- constant initializers -----------------------------------------------------------------

TEST_CASE("ops/init: zeros_initializer and ones_initializer build tf.zeros and tf.ones") {
  Graph g;
  auto guard = g.as_default();
  Initializer zeros_init = zeros_initializer();
  // TF: tf.zeros_initializer()([2,3]) -> "zeros" Const; ([40,30]) -> zeros/shape_as_tensor,
  // zeros/Const, zeros (Fill); tf.ones_initializer()([2,3], dtype=tf.int32) -> "ones" Const
  Output small = zeros_init({2, 3}, DType::float32);
  CHECK(small.name() == "zeros:0");
  CHECK(small.op().type() == "Const");
  CHECK(small.get_shape() == Shape{2, 3});
  CHECK(run_vector<float>(small) == std::vector<float>(6, 0.0f));
  Output large = zeros_init({40, 30}, DType::float64);
  CHECK(large.name() == "zeros_1:0");
  CHECK(large.op().type() == "Fill");
  CHECK(large.dtype() == DType::float64);
  CHECK(large.get_shape() == Shape{40, 30});
  CHECK(run_vector<double>(large) == std::vector<double>(1200, 0.0));
  Output ones_int = ones_initializer()({2, 3}, DType::int32);
  CHECK(ones_int.name() == "ones:0");
  CHECK(ones_int.dtype() == DType::int32);
  CHECK(run_vector<std::int32_t>(ones_int) == std::vector<std::int32_t>(6, 1));
  CHECK(nodes(g) == Nodes{{"zeros", "Const"},
                          {"zeros_1/shape_as_tensor", "Const"},
                          {"zeros_1/Const", "Const"},
                          {"zeros_1", "Fill"},
                          {"ones", "Const"}});
}

TEST_CASE("ops/init: constant_initializer fills the shape by TensorFlow 1.x's rules") {
  Graph g;
  auto guard = g.as_default();
  // TF: tf.constant_initializer(1.0)([2,3]) -> one "Const" of six 1.0
  Output scalar = constant_initializer(1.0)({2, 3}, DType::float32);
  CHECK(scalar.name() == "Const:0");
  CHECK(scalar.dtype() == DType::float32);
  CHECK(scalar.get_shape() == Shape{2, 3});
  CHECK(run_vector<float>(scalar) == std::vector<float>(6, 1.0f));
  // TF: tf.constant_initializer([1., 2.])([2,3]) -> [[1, 2, 2], [2, 2, 2]]
  Output few = constant_initializer(Value({1.0, 2.0}))({2, 3}, DType::float32);
  CHECK(few.name() == "Const_1:0");
  CHECK(run_vector<float>(few) == std::vector<float>{1, 2, 2, 2, 2, 2});
  // A nested list of the right size is laid out in the shape.
  Output exact = constant_initializer(Value({{1, 2}, {3, 4}, {5, 6}}))({2, 3}, DType::float64);
  CHECK(exact.get_shape() == Shape{2, 3});
  CHECK(run_vector<double>(exact) == std::vector<double>{1, 2, 3, 4, 5, 6});
  // Integers go to any number type; the default value is 0.
  CHECK(run_vector<std::int64_t>(constant_initializer(Value(7))({2}, DType::int64)) ==
        std::vector<std::int64_t>{7, 7});
  CHECK(run_vector<float>(constant_initializer()({3}, DType::float32)) ==
        std::vector<float>(3, 0.0f));
  CHECK(run_vector<bool>(constant_initializer(Value(true))({2}, DType::bool_)) ==
        std::vector<bool>{true, true});
  CHECK(run_vector<float>(constant_initializer(Value(true))({1}, DType::float32)) ==
        std::vector<float>{1.0f});
}

TEST_CASE("ops/init: constant_initializer errors are TensorFlow's") {
  Graph g;
  auto guard = g.as_default();
  // TF: tf.constant_initializer([1.,2.,3,4,5,6,7])([2,3]) -> ValueError "Too many elements
  // provided. ..." (TF1 words it "Needed at most 6, but received 7")
  auto v = thrown<ValueError>([] {
    constant_initializer(Value({1, 2, 3, 4, 5, 6, 7}))({2, 3}, DType::float32);
  });
  REQUIRE(v);
  CHECK(v->message().find("Too many elements provided. Needed at most 6, but received 7") !=
        std::string::npos);
  // TF: tf.constant_initializer(1.5)([2,3], dtype=tf.int32) -> TypeError "Expected int32, but
  // got 1.5 of type 'float'."; (1.0) too; tf.constant_initializer(1)(.., dtype=tf.bool) ->
  // "Expected bool, but got 1 of type 'int'."
  auto t = thrown<TypeError>([] { constant_initializer(1.5)({2, 3}, DType::int32); });
  REQUIRE(t);
  CHECK(t->message() == "Expected int32, but got 1.5 of type 'float'.");
  t = thrown<TypeError>([] { constant_initializer(Value(1.0f))({2}, DType::uint8); });
  REQUIRE(t);
  CHECK(t->message() == "Expected uint8, but got 1.0 of type 'float'.");
  t = thrown<TypeError>([] { constant_initializer(Value(1))({2}, DType::bool_); });
  REQUIRE(t);
  CHECK(t->message() == "Expected bool, but got 1 of type 'int'.");
  CHECK_THROWS_AS(constant_initializer(1.0)(Shape{-1, 2}, DType::float32), ValueError);
  CHECK(g.num_nodes() == 0);
}

// ---- random initializers ---------------------------------------------------------------------

TEST_CASE("ops/init: glorot_uniform_initializer builds TensorFlow's random_uniform") {
  Graph g;
  auto guard = g.as_default();
  Output t;
  {
    // As get_variable calls it, under "<var>/Initializer".
    name_scope scope("w/Initializer");
    t = glorot_uniform_initializer(3)({2, 3}, DType::float32);
  }
  // TF: tf.glorot_uniform_initializer()([2,3]) -> random_uniform/{shape,min,max},
  // random_uniform/RandomUniform, random_uniform/sub, random_uniform/mul, random_uniform
  CHECK(nodes(g) == Nodes{{"w/Initializer/random_uniform/shape", "Const"},
                          {"w/Initializer/random_uniform/min", "Const"},
                          {"w/Initializer/random_uniform/max", "Const"},
                          {"w/Initializer/random_uniform/RandomUniform", "RandomUniform"},
                          {"w/Initializer/random_uniform/sub", "Sub"},
                          {"w/Initializer/random_uniform/mul", "Mul"},
                          {"w/Initializer/random_uniform", "Add"}});
  CHECK(t.name() == "w/Initializer/random_uniform:0");
  CHECK(t.get_shape() == Shape{2, 3});
  // limit = sqrt(6 / (fan_in + fan_out)) = sqrt(6 / 5)
  CHECK(const_value(g, "w/Initializer/random_uniform/min") == -1.0954451f);
  CHECK(const_value(g, "w/Initializer/random_uniform/max") == 1.0954451f);
  Operation rnd = g.get_operation_by_name("w/Initializer/random_uniform/RandomUniform");
  CHECK(rnd.get_attr<std::int64_t>("seed") == 87654321);
  CHECK(rnd.get_attr<std::int64_t>("seed2") == 3);
  // TF: tf.glorot_uniform_initializer(seed=3)([2,3])
  check_close(run_vector<float>(t),
              {-0.24772531f, -0.30666715f, 1.044791f, -0.90589726f, 0.00832808f, -0.3100068f});
}

TEST_CASE("ops/init: glorot_normal_initializer is TF1's truncated normal") {
  Graph g;
  auto guard = g.as_default();
  Output t = glorot_normal_initializer(3)({2, 3}, DType::float32);
  // TF: tf.glorot_normal_initializer()([2,3]) -> truncated_normal/...
  CHECK(nodes(g) == Nodes{{"truncated_normal/shape", "Const"},
                          {"truncated_normal/mean", "Const"},
                          {"truncated_normal/stddev", "Const"},
                          {"truncated_normal/TruncatedNormal", "TruncatedNormal"},
                          {"truncated_normal/mul", "Mul"},
                          {"truncated_normal", "Add"}});
  // stddev = sqrt(2 / (fan_in + fan_out)) / 0.87962566103423978
  CHECK(const_value(g, "truncated_normal/stddev") ==
        static_cast<float>(std::sqrt(0.4) / 0.87962566103423978));
  CHECK(const_value(g, "truncated_normal/stddev") == doctest::Approx(0.71900564));
  CHECK(const_value(g, "truncated_normal/mean") == 0.0f);
  // TF: tf.glorot_normal_initializer(seed=3)([2,3])
  check_close(run_vector<float>(t),
              {0.7633407f, -0.6317025f, 0.08043668f, 0.13310024f, -0.11671958f, -0.6409113f});
}

TEST_CASE("ops/init: random_normal, truncated_normal and random_uniform initializers") {
  Graph g;
  auto guard = g.as_default();
  Output n =
      random_normal_initializer({.mean = 0.5, .stddev = 0.1, .seed = 3})({4}, DType::float32);
  Output t = truncated_normal_initializer({.stddev = 0.1, .seed = 3})({4}, DType::float32);
  Output u =
      random_uniform_initializer({.minval = -0.05, .maxval = 0.05, .seed = 3})({4}, DType::float32);
  Output i = random_uniform_initializer({.minval = 0, .maxval = 10, .seed = 3})({4}, DType::int32);
  Output d = random_normal_initializer()({2, 2}, DType::float64);
  CHECK(n.name() == "random_normal:0");
  CHECK(t.name() == "truncated_normal:0");
  CHECK(u.name() == "random_uniform:0");
  CHECK(i.name() == "random_uniform_1:0");
  CHECK(i.op().type() == "RandomUniformInt");
  CHECK(d.name() == "random_normal_1:0");
  CHECK(d.dtype() == DType::float64);
  CHECK(d.get_shape() == Shape{2, 2});
  CHECK(g.get_operation_by_name("random_normal_1/RandomStandardNormal")
            .get_attr<std::int64_t>("seed") == 0);
  // TF: tf.random_normal_initializer(mean=0.5, stddev=0.1, seed=3)([4]);
  //     tf.truncated_normal_initializer(stddev=0.1, seed=3)([4]);
  //     tf.random_uniform_initializer(-0.05, 0.05, seed=3)([4]);
  //     tf.random_uniform_initializer(0, 10, seed=3)([4], dtype=tf.int32)
  Session sess(g);
  check_close(sess.run(n).to_vector<float>(), {0.6061662f, 0.41214216f, 0.5111872f, 0.5185117f});
  check_close(sess.run(t).to_vector<float>(),
              {0.10616621f, -0.087857835f, 0.011187216f, 0.018511718f});
  check_close(sess.run(u).to_vector<float>(),
              {-0.011307061f, -0.013997376f, 0.04768796f, -0.04134836f});
  CHECK(sess.run(i).to_vector<std::int32_t>() == std::vector<std::int32_t>{7, 3, 0, 0});
}

TEST_CASE("ops/init: random initializers follow the graph seed like the ops") {
  Graph g;
  auto guard = g.as_default();
  set_random_seed(1);
  Output a = glorot_uniform_initializer()({2, 3}, DType::float32);  // seed2: 3 Consts
  Output b = random_normal_initializer({.seed = 8})({2}, DType::float32);
  CHECK(g.get_operation_by_name("random_uniform/RandomUniform").get_attr<std::int64_t>("seed") ==
        1);
  CHECK(g.get_operation_by_name("random_uniform/RandomUniform").get_attr<std::int64_t>("seed2") ==
        3);
  CHECK(g.get_operation_by_name("random_normal/RandomStandardNormal")
            .get_attr<std::int64_t>("seed2") == 8);
  // One initializer called twice builds two ops that draw different numbers.
  Initializer init = random_normal_initializer();
  Output c1 = init({50}, DType::float32);
  Output c2 = init({50}, DType::float32);
  Session sess(g);
  CHECK(sess.run(c1).to_vector<float>() != sess.run(c2).to_vector<float>());
}

TEST_CASE("ops/init: variance_scaling_initializer computes TensorFlow 1.x's fans") {
  using VS = VarianceScalingOptions;
  const VS in{.scale = 1.0, .mode = "fan_in", .distribution = "untruncated_normal"};
  const VS out{.scale = 1.0, .mode = "fan_out", .distribution = "untruncated_normal"};
  const VS avg{.scale = 1.0, .mode = "fan_avg", .distribution = "untruncated_normal"};
  // rank 2: (fan_in, fan_out) = (3, 4)
  CHECK(scaled_stddev(in, {3, 4}) == static_cast<float>(std::sqrt(1.0 / 3)));
  CHECK(scaled_stddev(out, {3, 4}) == 0.5f);
  CHECK(scaled_stddev(avg, {3, 4}) == static_cast<float>(std::sqrt(1.0 / 3.5)));
  // rank > 2: the receptive field 2 x 2 multiplies both: (16, 20)
  CHECK(scaled_stddev(in, {2, 2, 4, 5}) == 0.25f);
  CHECK(scaled_stddev(out, {2, 2, 4, 5}) == static_cast<float>(std::sqrt(1.0 / 20)));
  // rank 1: both are the dim; rank 0: both 1; a zero fan counts as 1
  CHECK(scaled_stddev(in, {5}) == static_cast<float>(std::sqrt(1.0 / 5)));
  CHECK(scaled_stddev(out, {5}) == static_cast<float>(std::sqrt(1.0 / 5)));
  CHECK(scaled_stddev(avg, {}) == 1.0f);
  CHECK(scaled_stddev(in, {0, 3}) == 1.0f);
  // scale multiplies the variance
  CHECK(scaled_stddev({.scale = 2.0, .mode = "fan_out", .distribution = "untruncated_normal"},
                      {2, 2, 4, 5}) == static_cast<float>(std::sqrt(0.1)));
  // truncated: divided by the truncated normal's stddev
  CHECK(scaled_stddev({.mode = "fan_in"}, {4, 4}) == static_cast<float>(0.5 / 0.87962566103423978));
}

TEST_CASE("ops/init: variance_scaling_initializer distributions and TensorFlow's numbers") {
  Graph g;
  auto guard = g.as_default();
  Output n = variance_scaling_initializer(
      {.scale = 2.0, .mode = "fan_out", .distribution = "untruncated_normal", .seed = 3})(
      {2, 2, 4, 5}, DType::float32);
  Output t = variance_scaling_initializer()({3, 3}, DType::float32);
  Output alias = variance_scaling_initializer({.distribution = "normal"})({3}, DType::float32);
  Output u = variance_scaling_initializer(
      {.scale = 3.0, .mode = "fan_avg", .distribution = "UNIFORM"})({2, 4}, DType::float64);
  CHECK(n.name() == "random_normal:0");
  CHECK(n.get_shape() == Shape{2, 2, 4, 5});
  CHECK(t.name() == "truncated_normal:0");
  CHECK(alias.name() == "truncated_normal_1:0");  // "normal" is TF1's truncated normal
  CHECK(u.name() == "random_uniform:0");
  // limit = sqrt(3 * 3 / 3)
  CHECK(g.get_operation_by_name("random_uniform/max").get_attr<Value>("value").scalar<double>() ==
        std::sqrt(3.0));
  // TF: tf.variance_scaling_initializer(2.0, "fan_out", "untruncated_normal", seed=3)([2,2,4,5])
  Session sess(g);
  std::vector<float> values = sess.run(n).to_vector<float>();
  REQUIRE(values.size() == 80);
  check_close(std::vector<float>(values.begin(), values.begin() + 6),
              {0.33572704f, -0.27783084f, 0.03537708f, 0.05853919f, 0.2875224f, -0.23333573f});
  check_close(std::vector<float>(values.end() - 3, values.end()),
              {-0.054119393f, 0.4844395f, 0.048767418f});
}

TEST_CASE("ops/init: bad variance_scaling arguments are ValueErrors naming the allowed values") {
  // TF: ValueError "Argument `mode` should be one of ('fan_in', 'fan_out', 'fan_avg').
  // Received: fan_bad" (and alike for distribution and scale), when the initializer is made
  auto e = thrown<ValueError>([] { variance_scaling_initializer({.mode = "fan_bad"}); });
  REQUIRE(e);
  CHECK(e->message() ==
        "Argument `mode` should be one of ('fan_in', 'fan_out', 'fan_avg'). Received: fan_bad");
  e = thrown<ValueError>([] { variance_scaling_initializer({.distribution = "gamma"}); });
  REQUIRE(e);
  CHECK(e->message() ==
        "Argument `distribution` should be one of ('normal', 'uniform', 'truncated_normal', "
        "'untruncated_normal'). Received: gamma");
  e = thrown<ValueError>([] { variance_scaling_initializer({.scale = 0.0}); });
  REQUIRE(e);
  CHECK(e->message() == "Argument `scale` must be a positive float. Received: 0.0");
  CHECK_THROWS_AS(variance_scaling_initializer({.scale = -1.0}), ValueError);
  CHECK_NOTHROW(variance_scaling_initializer({.mode = "fan_avg", .distribution = "uniform"}));
}

TEST_CASE("ops/init: random initializers reject non-float dtypes with TypeErrors") {
  Graph g;
  auto guard = g.as_default();
  // TF: tf.random_normal_initializer()([2,3], dtype=tf.int32) -> TypeError "Expected int32,
  // but got 0.0 of type 'float'." (the mean); truncated_normal and variance scaling alike;
  // tf.glorot_uniform_initializer()([2,3], dtype=tf.int32) -> "Expected int32, but got
  // -1.0954451150103324 of type 'float'." (the minval)
  auto e = thrown<TypeError>([] { random_normal_initializer()({2, 3}, DType::int32); });
  REQUIRE(e);
  CHECK(e->message() == "Expected int32, but got 0.0 of type 'float'.");
  CHECK_THROWS_AS(truncated_normal_initializer()({2, 3}, DType::int64), TypeError);
  CHECK_THROWS_AS(glorot_normal_initializer()({2, 3}, DType::int32), TypeError);
  CHECK_THROWS_AS(variance_scaling_initializer()({2, 3}, DType::bool_), TypeError);
  e = thrown<TypeError>([] { glorot_uniform_initializer()({2, 3}, DType::int32); });
  REQUIRE(e);
  CHECK(e->message() == "Expected int32, but got -1.0954451150103324 of type 'float'.");
  // random_uniform_initializer with float bounds (the default maxval is 1 only for floats)
  CHECK_THROWS_AS(random_uniform_initializer({.minval = 0.5, .maxval = 2})({2}, DType::int32),
                  TypeError);
  CHECK_THROWS_AS(random_uniform_initializer()({2}, DType::int32), ValueError);
  CHECK(g.num_nodes() == 0);
}

}  // namespace symflow_test_ops_init_ops_test
