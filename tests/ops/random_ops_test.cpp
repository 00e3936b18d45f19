// Random ops and TensorFlow 1.x's seed rules, checked against TensorFlow 1.x graph mode
// (tensorflow.compat.v1 with eager execution disabled). The expected numbers were
// computed by TensorFlow 2.21 running the same ops with the same (seed, seed2) attrs;
// symflow's Philox kernels reproduce them bit for bit.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <symflow/backend/cpu/kernels/random.hpp>
#include <symflow/ops/random_ops.hpp>
#include <symflow/symflow.hpp>

#include "../test_util.hpp"

namespace symflow_test_ops_random_ops_test {

namespace ops_random_test {

using namespace symflow;
using namespace symflow::test;

std::pair<std::int64_t, std::int64_t> seeds_of(const Operation& op) {
  return {op.get_attr<std::int64_t>("seed"), op.get_attr<std::int64_t>("seed2")};
}

// The random op inside a random_normal / random_uniform / truncated_normal subgraph.
Operation random_node(const Graph& g, const std::string& name) {
  return g.get_operation_by_name(name);
}

template <class T>
double mean_of(const std::vector<T>& v) {
  double s = 0;
  for (T x : v) s += static_cast<double>(x);
  return s / static_cast<double>(v.size());
}
template <class T>
double stddev_of(const std::vector<T>& v) {
  double m = mean_of(v), s = 0;
  for (T x : v) s += (static_cast<double>(x) - m) * (static_cast<double>(x) - m);
  return std::sqrt(s / static_cast<double>(v.size()));
}

constexpr std::int64_t kMaxInt32 = 2147483647;

}  // namespace ops_random_test

using namespace ops_random_test;

// ---- graph structure --------------------------------------------------------------------

TEST_CASE("ops/random: random_normal builds TensorFlow's nodes, attrs and shape") {
  Graph g;
  auto guard = g.as_default();
  Output t = random_normal({2, 3});
  // TF: random_normal/{shape,mean,stddev} Const, random_normal/RandomStandardNormal,
  // random_normal/mul Mul, random_normal AddV2 (Add in TF1 before 1.14, as symflow)
  CHECK(nodes(g) == std::vector<std::pair<std::string, std::string>>{
                        {"random_normal/shape", "Const"},
                        {"random_normal/mean", "Const"},
                        {"random_normal/stddev", "Const"},
                        {"random_normal/RandomStandardNormal", "RandomStandardNormal"},
                        {"random_normal/mul", "Mul"},
                        {"random_normal", "Add"}});
  CHECK(t.name() == "random_normal:0");
  CHECK(t.dtype() == DType::float32);
  CHECK(t.get_shape() == Shape{2, 3});
  Operation rnd = random_node(g, "random_normal/RandomStandardNormal");
  CHECK(rnd.get_attr<DType>("dtype") == DType::float32);
  CHECK(rnd.get_attr<DType>("T") == DType::int32);
  CHECK(seeds_of(rnd) == std::pair<std::int64_t, std::int64_t>{0, 0});
  CHECK(rnd.op_def().stateful);
  CHECK(input_names(rnd) == std::vector<std::string>{"random_normal/shape:0"});
  CHECK(rnd.output(0).get_shape() == Shape{2, 3});
  CHECK(input_names(g.get_operation_by_name("random_normal/mul")) ==
        std::vector<std::string>{"random_normal/RandomStandardNormal:0", "random_normal/stddev:0"});
  CHECK(input_names(t.op()) ==
        std::vector<std::string>{"random_normal/mul:0", "random_normal/mean:0"});
  CHECK(g.get_operation_by_name("random_normal/shape")
            .get_attr<Value>("value")
            .to_vector<std::int32_t>() == std::vector<std::int32_t>{2, 3});
  CHECK(g.get_operation_by_name("random_normal/mean").get_attr<Value>("value").scalar<float>() ==
        0.0f);
  CHECK(g.get_operation_by_name("random_normal/stddev").get_attr<Value>("value").scalar<float>() ==
        1.0f);
}

TEST_CASE("ops/random: names are uniquified, and a name replaces the default scope") {
  Graph g;
  auto guard = g.as_default();
  Output a = random_normal({2});
  Output b = random_normal({2});
  Output c = random_normal<double>({2}, {.mean = 1, .stddev = 2, .seed = 7, .name = "rn"});
  CHECK(a.name() == "random_normal:0");
  CHECK(b.name() == "random_normal_1:0");
  CHECK(c.name() == "rn:0");
  CHECK(c.dtype() == DType::float64);
  CHECK(g.get_operation_by_name("random_normal_1/RandomStandardNormal").type() ==
        "RandomStandardNormal");
  Operation rnd = g.get_operation_by_name("rn/RandomStandardNormal");
  CHECK(rnd.get_attr<DType>("dtype") == DType::float64);
  // TF: tf.random_normal([2,3], mean=1.0, stddev=2.0, seed=7, name="rn") -> seed 87654321, seed2 7
  CHECK(seeds_of(rnd) == std::pair<std::int64_t, std::int64_t>{87654321, 7});
  CHECK(g.get_operation_by_name("rn/mean").get_attr<Value>("value").scalar<double>() == 1.0);
  CHECK(g.get_operation_by_name("rn/stddev").get_attr<Value>("value").scalar<double>() == 2.0);
  {
    name_scope scope("layer");
    Output d = random_normal({2});
    CHECK(d.name() == "layer/random_normal:0");
  }
}

TEST_CASE("ops/random: random_uniform builds TensorFlow 1.x's float and integer subgraphs") {
  Graph g;
  auto guard = g.as_default();
  Output f = random_uniform({2, 3}, {.minval = -1, .maxval = 3.0});
  // TF 1.x (and the RandomUniform nodes of a TF 1.15 dense layer in the MNIST fixture):
  // shape, min, max, RandomUniform, sub = max - min, mul, then the Add named as the scope.
  CHECK(nodes(g) == std::vector<std::pair<std::string, std::string>>{
                        {"random_uniform/shape", "Const"},
                        {"random_uniform/min", "Const"},
                        {"random_uniform/max", "Const"},
                        {"random_uniform/RandomUniform", "RandomUniform"},
                        {"random_uniform/sub", "Sub"},
                        {"random_uniform/mul", "Mul"},
                        {"random_uniform", "Add"}});
  CHECK(f.name() == "random_uniform:0");
  CHECK(f.get_shape() == Shape{2, 3});
  CHECK(input_names(g.get_operation_by_name("random_uniform/sub")) ==
        std::vector<std::string>{"random_uniform/max:0", "random_uniform/min:0"});
  CHECK(input_names(g.get_operation_by_name("random_uniform/mul")) ==
        std::vector<std::string>{"random_uniform/RandomUniform:0", "random_uniform/sub:0"});
  CHECK(input_names(f.op()) ==
        std::vector<std::string>{"random_uniform/mul:0", "random_uniform/min:0"});
  CHECK(g.get_operation_by_name("random_uniform/min").get_attr<Value>("value").scalar<float>() ==
        -1.0f);
  CHECK(g.get_operation_by_name("random_uniform/max").get_attr<Value>("value").scalar<float>() ==
        3.0f);
  Operation rnd = g.get_operation_by_name("random_uniform/RandomUniform");
  CHECK(rnd.get_attr<DType>("dtype") == DType::float32);
  CHECK(rnd.get_attr<DType>("T") == DType::int32);

  // TF: random_uniform/{shape,min,max} Const, random_uniform RandomUniformInt
  // (attrs Tout, T, seed, seed2)
  Tensor<std::int64_t> i = random_uniform<std::int64_t>({4}, {.minval = -5, .maxval = 10});
  CHECK(i.name() == "random_uniform_1:0");
  CHECK(i.op().type() == "RandomUniformInt");
  CHECK(i.get_shape() == Shape{4});
  CHECK(i.op().get_attr<DType>("Tout") == DType::int64);
  CHECK(i.op().get_attr<DType>("T") == DType::int32);
  CHECK(input_names(i.op()) == std::vector<std::string>{"random_uniform_1/shape:0",
                                                        "random_uniform_1/min:0",
                                                        "random_uniform_1/max:0"});
  CHECK(g.get_operation_by_name("random_uniform_1/max")
            .get_attr<Value>("value")
            .scalar<std::int64_t>() == 10);
  CHECK(g.num_nodes() == 11);
}

TEST_CASE("ops/random: truncated_normal and random_shuffle nodes") {
  Graph g;
  auto guard = g.as_default();
  Tensor<float> t = truncated_normal<float>({4, 1}, {.stddev = 0.5f});
  CHECK(nodes(g) == std::vector<std::pair<std::string, std::string>>{
                        {"truncated_normal/shape", "Const"},
                        {"truncated_normal/mean", "Const"},
                        {"truncated_normal/stddev", "Const"},
                        {"truncated_normal/TruncatedNormal", "TruncatedNormal"},
                        {"truncated_normal/mul", "Mul"},
                        {"truncated_normal", "Add"}});
  CHECK(t.name() == "truncated_normal:0");
  CHECK(t.get_shape() == Shape{4, 1});

  // TF: tf.random_shuffle(tf.constant([[1,2],[3,4],[5,6]])) -> "RandomShuffle" (T, seed, seed2)
  Tensor<std::int32_t> v = constant<std::int32_t>({{1, 2}, {3, 4}, {5, 6}});
  Tensor<std::int32_t> s = random_shuffle(v);
  CHECK(s.name() == "RandomShuffle:0");
  CHECK(s.op().type() == "RandomShuffle");
  CHECK(s.get_shape() == Shape{3, 2});
  CHECK(s.op().get_attr<DType>("T") == DType::int32);
  CHECK(seeds_of(s.op()) == std::pair<std::int64_t, std::int64_t>{0, 0});
  Output s2 = random_shuffle(v, {.seed = 3, .name = "mix"});
  CHECK(s2.name() == "mix:0");
  CHECK(random_shuffle(v).name() == "RandomShuffle_1:0");
  CHECK(seeds_of(s2.op()) == std::pair<std::int64_t, std::int64_t>{87654321, 3});
  Output unknown = random_shuffle(placeholder(DType::float32));
  CHECK_FALSE(unknown.get_shape().has_rank());
}

TEST_CASE("ops/random: static shapes from a shape tensor that is not a constant") {
  Graph g;
  auto guard = g.as_default();
  Output shape = placeholder(DType::int32, Shape{3});
  Output t = g.create_op(detail::kRandomUniformOp, {shape},
                         {{"dtype", DType::float64},
                          {"seed", std::int64_t{1}},
                          {"seed2", std::int64_t{2}},
                          {"T", DType::int32}},
                         "RandomUniform")
                 .output(0);
  CHECK(t.get_shape() == Shape{-1, -1, -1});
  CHECK(t.dtype() == DType::float64);
  Output u = g.create_op(detail::kRandomStandardNormalOp, {placeholder(DType::int64)},
                         {{"dtype", DType::float32},
                          {"seed", std::int64_t{1}},
                          {"seed2", std::int64_t{2}},
                          {"T", DType::int64}},
                         "RandomStandardNormal")
                 .output(0);
  CHECK_FALSE(u.get_shape().has_rank());
  // Fed at run time, the shape tensor decides.
  Session sess(g);
  Value v = sess.run(t, {{shape, Value({2, 1, 4})}});
  CHECK(v.dims() == Dims{2, 1, 4});
}

// ---- values: TensorFlow's numbers -------------------------------------------------------

TEST_CASE("ops/random: random_normal and random_uniform give TensorFlow's float32 numbers") {
  Graph g;
  auto guard = g.as_default();
  // TF: tf.random_normal([2,3], seed=7) and tf.random_uniform([2,3], seed=7), both with
  // (seed, seed2) = (87654321, 7), first and second run of one session
  Tensor<float> n = random_normal<float>({2, 3}, {.mean = 0, .stddev = 1, .seed = 7});
  Tensor<float> u = random_uniform<float>({2, 3}, {.seed = 7});
  Session sess(g);
  check_close(sess.run(n).to_vector<float>(),
              {-0.046945684f, -1.2039024f, 1.1668352f, 1.1706204f, -0.32007024f, -0.19035114f});
  check_close(sess.run(u).to_vector<float>(),
              {0.48394096f, 0.50620306f, 0.25514376f, 0.12474227f, 0.9330101f, 0.6646093f});
  check_close(sess.run(n).to_vector<float>(),
              {0.19957623f, -1.2991973f, -1.3248991f, 0.2875599f, 0.91641074f, 0.2480499f});
  check_close(sess.run(u).to_vector<float>(),
              {0.42152667f, 0.47574103f, 0.39890814f, 0.7840159f, 0.6372019f, 0.20792878f});
}

TEST_CASE("ops/random: mean, stddev, minval and maxval scale the numbers as in TensorFlow") {
  Graph g;
  auto guard = g.as_default();
  // TF: tf.random_normal([2,3], mean=1.0, stddev=2.0, seed=7);
  //     tf.random_uniform([2,3], minval=-1.0, maxval=3.0, seed=7);
  //     tf.truncated_normal([4], mean=5.0, stddev=0.5, seed=7)
  Output n = random_normal({2, 3}, {.mean = 1.0, .stddev = 2.0, .seed = 7});
  Output u = random_uniform({2, 3}, {.minval = -1.0, .maxval = 3.0, .seed = 7});
  Output t = truncated_normal({4}, {.mean = 5.0, .stddev = 0.5, .seed = 7});
  Session sess(g);
  check_close(sess.run(n).to_vector<float>(),
              {0.9061086f, -1.4078047f, 3.3336704f, 3.341241f, 0.35985953f, 0.61929774f});
  check_close(sess.run(u).to_vector<float>(),
              {0.93576384f, 1.0248122f, 0.020575047f, -0.5010309f, 2.7320404f, 1.6584373f});
  check_close(sess.run(t).to_vector<float>(), {4.976527f, 4.398049f, 5.5834174f, 5.58531f});
}

TEST_CASE("ops/random: float64 numbers match TensorFlow's") {
  Graph g;
  auto guard = g.as_default();
  // TF: tf.random_normal / tf.random_uniform / tf.truncated_normal([3], dtype=tf.float64, seed=7)
  Tensor<double> n = random_normal<double>({3}, {.seed = 7});
  Tensor<double> u = random_uniform<double>({3}, {.seed = 7});
  Tensor<double> t = truncated_normal<double>({3}, {.seed = 7});
  Session sess(g);
  check_close(sess.run(n).to_vector<double>(),
              {0.1340862416655279, 0.5069857732211678, -1.0712938719508789}, 1e-12);
  check_close(sess.run(u).to_vector<double>(),
              {0.8715283824246434, 0.041150670730960126, 0.46408134636396414}, 1e-12);
  // The third normal value (-1.07...) is kept; the truncated op redraws past |x| >= 2 only.
  check_close(sess.run(t).to_vector<double>(),
              {0.1340862416655279, 0.5069857732211678, -0.3353157984791955}, 1e-12);
}

TEST_CASE("ops/random: truncated_normal redraws like TensorFlow's kernel") {
  Graph g;
  auto guard = g.as_default();
  // TF: tf.truncated_normal([2,3], seed=7): the first group of four equals random_normal's
  // (all within 2); the second group starts 256 Philox results later.
  Tensor<float> t = truncated_normal<float>({2, 3}, {.seed = 7});
  Session sess(g);
  check_close(sess.run(t).to_vector<float>(),
              {-0.046945684f, -1.2039024f, 1.1668352f, 1.1706204f, 0.7166261f, 0.5711335f});
  check_close(sess.run(t).to_vector<float>(),
              {0.19957623f, -1.2991973f, -1.3248991f, 0.2875599f, -0.91529304f, 0.15928648f});
}

TEST_CASE("ops/random: random_uniform on integers gives TensorFlow's numbers") {
  Graph g;
  auto guard = g.as_default();
  // TF: tf.random_uniform([6], minval=-5, maxval=10, dtype=tf.int32, seed=7) (two runs);
  //     tf.random_uniform([3], minval=0, maxval=2**40, dtype=tf.int64, seed=7)
  Tensor<std::int32_t> i =
      random_uniform<std::int32_t>({6}, {.minval = -5, .maxval = 10, .seed = 7});
  Tensor<std::int64_t> l =
      random_uniform<std::int64_t>({3}, {.maxval = std::int64_t{1} << 40, .seed = 7});
  Session sess(g);
  CHECK(sess.run(i).to_vector<std::int32_t>() == std::vector<std::int32_t>{7, 2, 5, -1, 5, 3});
  CHECK(sess.run(i).to_vector<std::int32_t>() == std::vector<std::int32_t>{0, -3, 0, 1, 6, 3});
  CHECK(sess.run(l).to_vector<std::int64_t>() ==
        std::vector<std::int64_t>{289754968519, 610122377357, 1010482769120});
}

TEST_CASE("ops/random: random_shuffle permutes the first axis as TensorFlow does") {
  Graph g;
  auto guard = g.as_default();
  std::vector<std::int32_t> range(10);
  std::iota(range.begin(), range.end(), 0);
  // TF: tf.random_shuffle(tf.range(10), seed=7), two runs; and a 5x2 matrix, seed=7
  Output s = random_shuffle(constant(Value::from_vector(range, {10})), {.seed = 7});
  Output m = random_shuffle(constant<std::int32_t>({{1, 2}, {3, 4}, {5, 6}, {7, 8}, {9, 10}}),
                            {.seed = 7});
  Session sess(g);
  CHECK(sess.run(s).to_vector<std::int32_t>() ==
        std::vector<std::int32_t>{7, 2, 0, 9, 8, 4, 5, 1, 6, 3});
  CHECK(sess.run(s).to_vector<std::int32_t>() ==
        std::vector<std::int32_t>{3, 7, 9, 5, 8, 4, 2, 0, 6, 1});
  Value mv = sess.run(m);
  CHECK(mv.dims() == Dims{5, 2});
  CHECK(mv.to_vector<std::int32_t>() == std::vector<std::int32_t>{5, 6, 9, 10, 7, 8, 1, 2, 3, 4});
}

TEST_CASE("ops/random: random_shuffle is a permutation of rows, of any dtype") {
  Graph g;
  auto guard = g.as_default();
  const int n = 1000;
  std::vector<double> rows;
  for (int i = 0; i < n; ++i) {
    rows.push_back(i);
    rows.push_back(-i);
  }
  Output s = random_shuffle(constant(Value::from_vector(rows, {n, 2})), {.seed = 11});
  Output b = random_shuffle(constant(Value({true, false, false})), {.seed = 1});
  Output scalar = random_shuffle(constant(2.5f));
  Output one_row = random_shuffle(constant<float>({{1, 2, 3}}));
  Session sess(g);
  std::vector<double> got = sess.run(s).to_vector<double>();
  REQUIRE(got.size() == rows.size());
  std::vector<int> firsts;
  bool moved = false;
  for (int i = 0; i < n; ++i) {
    CHECK(got[2 * i + 1] == -got[2 * i]);  // rows stay whole
    firsts.push_back(static_cast<int>(got[2 * i]));
    moved = moved || got[2 * i] != i;
  }
  CHECK(moved);
  std::sort(firsts.begin(), firsts.end());
  std::vector<int> all(n);
  std::iota(all.begin(), all.end(), 0);
  CHECK(firsts == all);
  std::vector<bool> bools = sess.run(b).to_vector<bool>();
  CHECK(std::count(bools.begin(), bools.end(), true) == 1);
  CHECK(sess.run(scalar).scalar<float>() == 2.5f);
  CHECK(sess.run(one_row).to_vector<float>() == std::vector<float>{1, 2, 3});
}

// ---- sessions and seeds -----------------------------------------------------------------------

TEST_CASE("ops/random: each run continues the sequence; a new session starts it over") {
  Graph g;
  auto guard = g.as_default();
  Tensor<float> u = random_uniform<float>({7}, {.seed = 7});
  std::vector<float> first, second;
  {
    Session sess(g);
    first = sess.run(u).to_vector<float>();
    second = sess.run(u).to_vector<float>();
  }
  CHECK(first != second);
  // TF: the second run of tf.random_uniform([7], seed=7) in one session
  check_close(second, {0.6494907f, 0.7774228f, 0.56091046f, 0.6347549f, 0.8317703f, 0.99999213f,
                       0.3522669f});
  Session fresh(g);
  CHECK(fresh.run(u).to_vector<float>() == first);
  CHECK(fresh.run(u).to_vector<float>() == second);
}

TEST_CASE("ops/random: one run computes each random op once for all its consumers") {
  Graph g;
  auto guard = g.as_default();
  Output u = random_uniform({5}, {.seed = 3});
  Output twice = u + u;
  Session sess(g);
  std::vector<Value> r = sess.run({u, twice});
  std::vector<float> a = r[0].to_vector<float>(), b = r[1].to_vector<float>();
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) CHECK(b[i] == a[i] + a[i]);
}

TEST_CASE("ops/random: get_seed follows TensorFlow 1.x's four cases") {
  Graph g;
  auto guard = g.as_default();
  using Seeds = std::pair<std::optional<std::int64_t>, std::optional<std::int64_t>>;
  // Neither: (None, None), and the op's attrs are 0, 0 (not deterministic).
  CHECK(get_seed(std::nullopt) == Seeds{std::nullopt, std::nullopt});
  // Op seed only: (DEFAULT_GRAPH_SEED, op seed).
  CHECK(get_seed(5) == Seeds{87654321, 5});
  CHECK(DEFAULT_GRAPH_SEED == 87654321);
  // Graph seed: with an op seed, both; without, seed2 is the graph's op count.
  set_random_seed(42);
  CHECK(g.seed() == 42);
  CHECK(get_seed(5) == Seeds{42, 5});
  CHECK(get_seed(std::nullopt) == Seeds{42, 0});
  (void)constant(1.0f);
  (void)constant(2.0f);
  CHECK(get_seed(std::nullopt) == Seeds{42, 2});
  // Seeds are taken modulo 2^31 - 1, never negative; (0, 0) becomes (0, 2^31 - 1).
  CHECK(get_seed(-5) == Seeds{42, kMaxInt32 - 5});
  CHECK(get_seed(kMaxInt32 + 3) == Seeds{42, 3});
  g.set_seed(0);
  CHECK(get_seed(0) == Seeds{0, kMaxInt32});
  CHECK(get_seed(kMaxInt32) == Seeds{0, kMaxInt32});
  g.set_seed(-3);
  CHECK(get_seed(1) == Seeds{kMaxInt32 - 3, 1});
  // Another graph has its own seed.
  Graph other;
  CHECK(get_seed(other, std::nullopt) == Seeds{std::nullopt, std::nullopt});
}

TEST_CASE("ops/random: with only a graph seed, seed2 is the op count when the op is built") {
  Graph g;
  auto guard = g.as_default();
  set_random_seed(42);
  (void)constant(1.0f);
  Output a = random_normal({3});   // 1 + shape, mean, stddev: seed2 = 4
  Output b = random_normal({3});   // 7 nodes + 3 Consts: seed2 = 10
  Output c = random_uniform({3});  // 13 nodes + shape, min, max: seed2 = 16
  Output d = random_shuffle(a);    // 20 nodes: nothing is built before get_seed
  Output e = truncated_normal({2}, {.seed = 5});
  CHECK(seeds_of(g.get_operation_by_name("random_normal/RandomStandardNormal")) ==
        std::pair<std::int64_t, std::int64_t>{42, 4});
  CHECK(seeds_of(g.get_operation_by_name("random_normal_1/RandomStandardNormal")) ==
        std::pair<std::int64_t, std::int64_t>{42, 10});
  CHECK(seeds_of(g.get_operation_by_name("random_uniform/RandomUniform")) ==
        std::pair<std::int64_t, std::int64_t>{42, 16});
  CHECK(seeds_of(d.op()) == std::pair<std::int64_t, std::int64_t>{42, 20});
  CHECK(seeds_of(g.get_operation_by_name("truncated_normal/TruncatedNormal")) ==
        std::pair<std::int64_t, std::int64_t>{42, 5});
  // TF: RandomStandardNormal([3], seed=42, seed2=4)
  Session sess(g);
  check_close(sess.run(a).to_vector<float>(), {-0.56448996f, 3.032917f, 1.0119121f});
}

TEST_CASE("ops/random: the same program with a seed gives the same numbers every time") {
  auto build = [] {
    Graph g;
    auto guard = g.as_default();
    set_random_seed(1234);
    Output n = random_normal({50});
    Output u = random_uniform({50});
    Output t = truncated_normal({50});
    Session sess(g);
    return sess.run({n, u, t});
  };
  std::vector<Value> first = build(), second = build();
  for (std::size_t i = 0; i < 3; ++i) {
    CAPTURE(i);
    CHECK(first[i].to_vector<float>() == second[i].to_vector<float>());
  }
  CHECK(first[0].to_vector<float>() != first[2].to_vector<float>());  // different seed2
}

TEST_CASE("ops/random: two ops with the same seeds give the same numbers") {
  Graph g;
  auto guard = g.as_default();
  Output a = random_normal({20}, {.seed = 9});
  Output b = random_normal({20}, {.seed = 9});
  Output c = random_normal({20}, {.seed = 10});
  Session sess(g);
  std::vector<Value> r = sess.run({a, b, c});
  CHECK(r[0].to_vector<float>() == r[1].to_vector<float>());
  CHECK(r[0].to_vector<float>() != r[2].to_vector<float>());
}

TEST_CASE("ops/random: without any seed, sessions draw different numbers") {
  Graph g;
  auto guard = g.as_default();
  Output u = random_uniform({16});
  CHECK(seeds_of(g.get_operation_by_name("random_uniform/RandomUniform")) ==
        std::pair<std::int64_t, std::int64_t>{0, 0});
  Session s1(g), s2(g);
  std::vector<float> a = s1.run(u).to_vector<float>();
  std::vector<float> b = s2.run(u).to_vector<float>();
  CHECK(a != b);
  CHECK(s1.run(u).to_vector<float>() != a);
}

// ---- distributions --------------------------------------------------------------------------

TEST_CASE("ops/random: statistics of 100k samples") {
  Graph g;
  auto guard = g.as_default();
  Output n = random_normal({100000}, {.mean = 3.0, .stddev = 2.0, .seed = 1});
  Output u = random_uniform({100000}, {.minval = -2.0, .maxval = 6.0, .seed = 2});
  Output t = truncated_normal({100000}, {.mean = -1.0, .stddev = 0.5, .seed = 3});
  Tensor<double> nd = random_normal<double>({100000}, {.seed = 4});
  Output ui = random_uniform({100000}, DType::int32, {.minval = -3, .maxval = 4, .seed = 5});
  Session sess(g);
  std::vector<float> nv = sess.run(n).to_vector<float>();
  CHECK(mean_of(nv) == doctest::Approx(3.0).epsilon(0.01));
  CHECK(stddev_of(nv) == doctest::Approx(2.0).epsilon(0.01));

  std::vector<float> uv = sess.run(u).to_vector<float>();
  CHECK(mean_of(uv) == doctest::Approx(2.0).epsilon(0.01));
  CHECK(stddev_of(uv) == doctest::Approx(8.0 / std::sqrt(12.0)).epsilon(0.01));
  CHECK(*std::min_element(uv.begin(), uv.end()) >= -2.0f);
  CHECK(*std::max_element(uv.begin(), uv.end()) < 6.0f);

  std::vector<float> tv = sess.run(t).to_vector<float>();
  CHECK(mean_of(tv) == doctest::Approx(-1.0).epsilon(0.01));
  // The standard deviation of a normal truncated at 2 sigma: 0.87962566 sigma.
  CHECK(stddev_of(tv) == doctest::Approx(0.5 * 0.87962566).epsilon(0.01));
  CHECK(*std::min_element(tv.begin(), tv.end()) > -2.0f);  // mean - 2 stddev
  CHECK(*std::max_element(tv.begin(), tv.end()) < 0.0f);   // mean + 2 stddev

  std::vector<double> ndv = sess.run(nd).to_vector<double>();
  CHECK(std::abs(mean_of(ndv)) < 0.02);
  CHECK(stddev_of(ndv) == doctest::Approx(1.0).epsilon(0.01));

  std::vector<std::int32_t> iv = sess.run(ui).to_vector<std::int32_t>();
  CHECK(*std::min_element(iv.begin(), iv.end()) == -3);
  CHECK(*std::max_element(iv.begin(), iv.end()) == 3);
  for (std::int32_t k = -3; k < 4; ++k) {
    CAPTURE(k);
    CHECK(std::count(iv.begin(), iv.end(), k) == doctest::Approx(100000.0 / 7).epsilon(0.05));
  }
}

// ---- errors ----------------------------------------------------------------------------------

TEST_CASE("ops/random: wrong dtypes and arguments are TensorFlow's errors, and build nothing") {
  Graph g;
  auto guard = g.as_default();
  // TF: tf.random_normal([2], dtype=tf.int32) -> TypeError "Expected int32, but got 0.0 of
  // type 'float'."
  auto e = thrown<TypeError>([] { random_normal({2}, DType::int32); });
  REQUIRE(e);
  CHECK(e->message() == "Expected int32, but got 0.0 of type 'float'.");
  CHECK_THROWS_AS(truncated_normal({2}, DType::bool_), TypeError);
  // TF: tf.random_uniform([2], maxval=1.5, dtype=tf.int32) -> TypeError
  e = thrown<TypeError>([] { random_uniform({2}, DType::int32, {.maxval = 1.5}); });
  REQUIRE(e);
  CHECK(e->message() == "Expected int32, but got 1.5 of type 'float'.");
  // TF: tf.random_uniform([2], dtype=tf.int32) -> ValueError
  auto v = thrown<ValueError>([] { random_uniform({2}, DType::int32); });
  REQUIRE(v);
  CHECK(v->message() == "Must specify maxval for integer dtype tf.int32");
  // TF: tf.random_uniform([2], maxval=1, dtype=tf.bool) -> ValueError
  v = thrown<ValueError>([] { random_uniform({2}, DType::bool_, {.maxval = 1}); });
  REQUIRE(v);
  CHECK(v->message() ==
        "Argument `dtype` got invalid value <dtype: 'bool'>. Accepted dtypes are (tf.float32, "
        "tf.float64, tf.int32, tf.int64).");
  CHECK_THROWS_AS(random_uniform({2}, DType::uint8, {.maxval = 1}), ValueError);
  // A shape with unknown dims cannot be a Const.
  CHECK_THROWS_AS(random_normal(Shape{-1, 3}), ValueError);
  CHECK_THROWS_AS(random_uniform(Shape::unknown()), ValueError);
  CHECK(g.num_nodes() == 0);
}

TEST_CASE("ops/random: shape functions reject bad shape inputs and dtypes") {
  Graph g;
  auto guard = g.as_default();
  AttrMap attrs{{"dtype", DType::float32},
                {"seed", std::int64_t{0}},
                {"seed2", std::int64_t{0}},
                {"T", DType::int32}};
  // TF: tf.random_normal([-2, 3]) -> ValueError "Invalid value in tensor used for shape: -2"
  auto v = thrown<ValueError>([&] {
    g.create_op(detail::kRandomStandardNormalOp, {constant<std::int32_t>({-2, 3})}, attrs,
                "RandomStandardNormal");
  });
  REQUIRE(v);
  CHECK(v->message().find("Invalid value in tensor used for shape: -2") != std::string::npos);
  CHECK_THROWS_AS(g.create_op(detail::kRandomUniformOp, {constant(3)}, attrs, "RandomUniform"),
                  ValueError);
  CHECK_THROWS_AS(
      g.create_op(detail::kRandomUniformOp, {constant<float>({3})}, attrs, "RandomUniform"),
      TypeError);
  AttrMap int_dtype = attrs;
  int_dtype["dtype"] = DType::int32;
  auto t = thrown<TypeError>([&] {
    g.create_op(detail::kTruncatedNormalOp, {constant<std::int32_t>({3})}, int_dtype,
                "TruncatedNormal");
  });
  REQUIRE(t);
  CHECK(t->message().find("Value passed to parameter 'dtype' has DataType int32 not in list of "
                          "allowed values: float32, float64") != std::string::npos);
  AttrMap uniform_int{{"Tout", DType::int32},
                      {"seed", std::int64_t{0}},
                      {"seed2", std::int64_t{0}},
                      {"T", DType::int32}};
  CHECK_THROWS_AS(
      g.create_op(detail::kRandomUniformIntOp,
                  {constant<std::int32_t>({3}), constant<std::int32_t>({0, 1}), constant(5)},
                  uniform_int, "RandomUniformInt"),
      ValueError);
  CHECK_THROWS_AS(g.create_op(detail::kRandomUniformIntOp,
                              {constant<std::int32_t>({3}), constant(std::int64_t{0}), constant(5)},
                              uniform_int, "RandomUniformInt"),
                  TypeError);
}

TEST_CASE("ops/random: run-time errors of RandomUniformInt and a fed shape") {
  Graph g;
  auto guard = g.as_default();
  // TF: "Need minval < maxval, got 5 >= 3", only when there is something to draw
  Output bad = random_uniform({2}, DType::int32, {.minval = 5, .maxval = 3});
  Output empty = random_uniform({0}, DType::int32, {.minval = 5, .maxval = 3});
  Session sess(g);
  auto e = thrown<InvalidArgumentError>([&] { sess.run(bad); });
  REQUIRE(e);
  CHECK(e->message() == "Need minval < maxval, got 5 >= 3");
  CHECK(e->node_name() == "random_uniform");
  CHECK(sess.run(empty).dims() == Dims{0});

  Output shape = placeholder(DType::int32);
  Output u = g.create_op(detail::kRandomUniformOp, {shape},
                         {{"dtype", DType::float32},
                          {"seed", std::int64_t{1}},
                          {"seed2", std::int64_t{2}},
                          {"T", DType::int32}},
                         "RandomUniform")
                 .output(0);
  CHECK_THROWS_AS(sess.run(u, {{shape, Value({2, -1})}}), InvalidArgumentError);
  CHECK_THROWS_AS(sess.run(u, {{shape, Value(3)}}), InvalidArgumentError);
}

TEST_CASE("ops/random: Philox4x32-10 matches the published known-answer vectors") {
  // Random123's kat_vectors for philox4x32_10: counter 0, key 0 and counter all-ones, key
  // all-ones. symflow's generator starts at counter (0, 0, seed2 lo, seed2 hi), key seed.
  detail::PhiloxRandom zero(0, 0);
  CHECK(zero() == detail::PhiloxRandom::Result{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u});
  detail::PhiloxRandom ones(~std::uint64_t{0}, ~std::uint64_t{0});
  ones.skip(~std::uint64_t{0});  // counter words 0 and 1 become all-ones too
  CHECK(ones() == detail::PhiloxRandom::Result{0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu});
}

}  // namespace symflow_test_ops_random_ops_test
