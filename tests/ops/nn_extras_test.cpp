// symflow::nn::top_k, in_top_k, l2_normalize and embedding_lookup, checked against
// tf.compat.v1.nn in TensorFlow 2.21 graph mode: node names, attrs, static shapes, values
// (ties, sorted=False, non-finite entries) and error messages.

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <symflow/symflow.hpp>

#include "../node_rows.hpp"

#include "../test_util.hpp"

namespace symflow_test_ops_nn_extras_test {

namespace ops_nn_extras_test {

using namespace symflow;
using namespace symflow::test;

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

// Two rows with ties: the largest twice in row 0, runs of zeros and ones in row 1.
const std::vector<float> kRows{5, 1, 9, 9, 3, 7, 2, 8, 0, 0, 0, 1, 0, 2, 0, 1};

// (values, indices) of top_k(kRows, k, sorted) as vectors.
std::pair<std::vector<float>, std::vector<std::int32_t>> top_k_of_rows(std::int64_t k,
                                                                       bool sorted) {
  Graph g;
  auto guard = g.as_default();
  const nn::TopKResult r =
      nn::top_k(constant(Value::from_vector(kRows, {2, 8})), static_cast<int>(k), sorted);
  Session sess(g);
  const std::vector<Value> out = sess.run({r.values, r.indices});
  return {out[0].to_vector<float>(), out[1].to_vector<std::int32_t>()};
}

}  // namespace ops_nn_extras_test

using namespace ops_nn_extras_test;

// ---- top_k ------------------------------------------------------------------------------------

TEST_CASE("nn_extras/top_k: nodes, attrs and static shapes") {
  // TF: nodes ['Const', 'TopKV2/k', 'TopKV2', ...]; TopKV2 attrs sorted, index_type int32,
  // T float, Tk int32; shapes (2, 2) float32 and (2, 2) int32; a fed k gives (2, None);
  // top_k(vec, 2, name="mytop") -> ['mytop/k', 'mytop'], shape (2,)
  Graph g;
  auto guard = g.as_default();
  auto x = constant<float>({{1, 3, 2, 3}, {4, -1, 4, 0}});
  const nn::TopKResult r = nn::top_k(x, 2);
  CHECK(r.values.name() == "TopKV2:0");
  CHECK(r.indices.name() == "TopKV2:1");
  const Operation op = r.values.op();
  CHECK(op.type() == "TopKV2");
  CHECK(input_names(op) == std::vector<std::string>{"Const:0", "TopKV2/k:0"});
  CHECK(op.get_attr<DType>("T") == DType::float32);
  CHECK(op.get_attr<DType>("Tk") == DType::int32);
  CHECK(op.get_attr<DType>("index_type") == DType::int32);
  CHECK(op.get_attr<bool>("sorted"));
  CHECK(r.values.get_shape() == Shape{2, 2});
  CHECK(r.indices.get_shape() == Shape{2, 2});
  CHECK(r.values.dtype() == DType::float32);
  CHECK(r.indices.dtype() == DType::int32);
  CHECK_FALSE(nn::top_k(x, 3, false).values.op().get_attr<bool>("sorted"));
  CHECK(nn::top_k(x, 3, false).values.name() == "TopKV2_2:0");

  auto k = placeholder<std::int32_t>();
  CHECK(nn::top_k(x, k).values.get_shape().to_string() == "(2, ?)");
  const nn::TopKResult named = nn::top_k(constant<float>({3, 1, 2}), 2, true, "mytop");
  CHECK(named.values.name() == "mytop:0");
  CHECK(input_names(named.values)[1] == "mytop/k:0");
  CHECK(named.values.get_shape() == Shape{2});
}

TEST_CASE("nn_extras/top_k: sorted values, ties lower index first") {
  // TF: top_k([[5,1,9,9,3,7,2,8],[0,0,0,1,0,2,0,1]], k):
  //   k=1: [[9],[2]] [[2],[5]]
  //   k=2: [[9,9],[2,1]] [[2,3],[5,3]]
  //   k=3: [[9,9,8],[2,1,1]] [[2,3,7],[5,3,7]]
  //   k=5: [[9,9,8,7,5],[2,1,1,0,0]] [[2,3,7,5,0],[5,3,7,0,1]]
  //   k=8: [[9,9,8,7,5,3,2,1],[2,1,1,0,0,0,0,0]] [[2,3,7,5,0,4,6,1],[5,3,7,0,1,2,4,6]]
  using Row = std::pair<std::vector<float>, std::vector<std::int32_t>>;
  CHECK(top_k_of_rows(1, true) == Row{{9, 2}, {2, 5}});
  CHECK(top_k_of_rows(2, true) == Row{{9, 9, 2, 1}, {2, 3, 5, 3}});
  CHECK(top_k_of_rows(3, true) == Row{{9, 9, 8, 2, 1, 1}, {2, 3, 7, 5, 3, 7}});
  CHECK(top_k_of_rows(5, true) ==
        Row{{9, 9, 8, 7, 5, 2, 1, 1, 0, 0}, {2, 3, 7, 5, 0, 5, 3, 7, 0, 1}});
  CHECK(top_k_of_rows(8, true) == Row{{9, 9, 8, 7, 5, 3, 2, 1, 2, 1, 1, 0, 0, 0, 0, 0},
                                      {2, 3, 7, 5, 0, 4, 6, 1, 5, 3, 7, 0, 1, 2, 4, 6}});
}

TEST_CASE("nn_extras/top_k: sorted=false gives TensorFlow's heap order") {
  // TF: the same rows, sorted=False:
  //   k=1: [[9],[2]] [[2],[5]]   (as sorted)
  //   k=2: [[9,9],[1,2]] [[3,2],[3,5]]
  //   k=3: [[8,9,9],[1,2,1]] [[7,2,3],[7,5,3]]
  //   k=5: [[5,8,7,9,9],[0,0,2,1,1]] [[0,7,5,2,3],[1,0,5,3,7]]
  //   k=7: [[2,3,7,8,5,9,9],[0,0,0,1,1,2,0]] [[6,4,5,7,0,3,2],[4,1,2,7,3,5,0]]
  //   k=8: as sorted (every entry is sorted)
  using Row = std::pair<std::vector<float>, std::vector<std::int32_t>>;
  CHECK(top_k_of_rows(1, false) == Row{{9, 2}, {2, 5}});
  CHECK(top_k_of_rows(2, false) == Row{{9, 9, 1, 2}, {3, 2, 3, 5}});
  CHECK(top_k_of_rows(3, false) == Row{{8, 9, 9, 1, 2, 1}, {7, 2, 3, 7, 5, 3}});
  CHECK(top_k_of_rows(5, false) ==
        Row{{5, 8, 7, 9, 9, 0, 0, 2, 1, 1}, {0, 7, 5, 2, 3, 1, 0, 5, 3, 7}});
  CHECK(top_k_of_rows(7, false) == Row{{2, 3, 7, 8, 5, 9, 9, 0, 0, 0, 1, 1, 2, 0},
                                       {6, 4, 5, 7, 0, 3, 2, 4, 1, 2, 7, 3, 5, 0}});
  CHECK(top_k_of_rows(8, false) == top_k_of_rows(8, true));
}

TEST_CASE("nn_extras/top_k: int32, float64, rank 3, k = 0, non-finite entries") {
  // TF: top_k([[4,-2,7,7,0,3],[1,1,1,1,1,1]] int32, k):
  //   k=2: [[7,7],[1,1]] [[2,3],[0,1]]; sorted=False: [[7,7],[1,1]] [[3,2],[1,0]]
  //   k=4: [[7,7,4,3],[1,1,1,1]] [[2,3,0,5],[0,1,2,3]];
  //        sorted=False: [[3,4,7,7],[1,1,1,1]] [[5,0,2,3],[3,1,2,0]]
  //   k=6: [[7,7,4,3,0,-2],[1,1,1,1,1,1]] [[2,3,0,5,4,1],[0,1,2,3,4,5]]
  // top_k([[[0.5,-1.5,2.5],[3,3,-3]]] float64, 2): [[[2.5,0.5],[3,3]]] [[[2,0],[0,1]]]
  // top_k(zeros([2,0]), 0): shape (2, 0)
  // top_k([[1,nan,3,inf,-inf,2]], k): k=2: [nan,inf] [1,3]; k=3: [nan,inf,3] [1,3,2];
  //   k=6: [inf,3,1,nan,2,-inf] [3,2,0,1,5,4]
  // top_k([[1,nan,3,2],[nan,1,3,2],[1,2,3,nan]], 1): [[3],[3],[1]] [[2],[2],[0]]
  Graph g;
  auto guard = g.as_default();
  Session sess(g);
  auto xi = constant<std::int32_t>({{4, -2, 7, 7, 0, 3}, {1, 1, 1, 1, 1, 1}});
  auto run = [&](const nn::TopKResult& r) {
    const std::vector<Value> out = sess.run({r.values, r.indices});
    return std::pair{out[0].to_vector<std::int32_t>(), out[1].to_vector<std::int32_t>()};
  };
  using Row = std::pair<std::vector<std::int32_t>, std::vector<std::int32_t>>;
  const nn::TopKResult i2 = nn::top_k(xi, 2);
  CHECK(i2.values.dtype() == DType::int32);
  CHECK(run(i2) == Row{{7, 7, 1, 1}, {2, 3, 0, 1}});
  CHECK(run(nn::top_k(xi, 2, false)) == Row{{7, 7, 1, 1}, {3, 2, 1, 0}});
  CHECK(run(nn::top_k(xi, 4)) == Row{{7, 7, 4, 3, 1, 1, 1, 1}, {2, 3, 0, 5, 0, 1, 2, 3}});
  CHECK(run(nn::top_k(xi, 4, false)) == Row{{3, 4, 7, 7, 1, 1, 1, 1}, {5, 0, 2, 3, 3, 1, 2, 0}});
  CHECK(run(nn::top_k(xi, 6)) ==
        Row{{7, 7, 4, 3, 0, -2, 1, 1, 1, 1, 1, 1}, {2, 3, 0, 5, 4, 1, 0, 1, 2, 3, 4, 5}});

  const nn::TopKResult d =
      nn::top_k(constant(Value::from_vector<double>({0.5, -1.5, 2.5, 3, 3, -3}, {1, 2, 3})), 2);
  CHECK(d.values.get_shape() == Shape{1, 2, 2});
  const std::vector<Value> dv = sess.run({d.values, d.indices});
  CHECK(dv[0].dims() == Dims{1, 2, 2});
  CHECK(dv[0].to_vector<double>() == std::vector<double>{2.5, 0.5, 3, 3});
  CHECK(dv[1].to_vector<std::int32_t>() == std::vector<std::int32_t>{2, 0, 0, 1});

  const nn::TopKResult empty = nn::top_k(constant(Value(DType::float32, {2, 0})), 0);
  CHECK(sess.run(empty.values).dims() == Dims{2, 0});
  CHECK(sess.run(empty.indices).dims() == Dims{2, 0});

  auto n = constant(Value::from_vector<float>({1, kNan, 3, kInf, -kInf, 2}, {1, 6}));
  auto nan_case = [&](int k) {
    const nn::TopKResult r = nn::top_k(n, k);
    const std::vector<Value> out = sess.run({r.values, r.indices});
    return std::pair{out[0].to_vector<float>(), out[1].to_vector<std::int32_t>()};
  };
  const auto [v2, i2n] = nan_case(2);
  CHECK(std::isnan(v2[0]));
  CHECK(v2[1] == kInf);
  CHECK(i2n == std::vector<std::int32_t>{1, 3});
  const auto [v3, i3n] = nan_case(3);
  CHECK(i3n == std::vector<std::int32_t>{1, 3, 2});
  CHECK(v3[2] == 3.0f);
  // k = 1 takes Eigen's maximum, which a NaN at the end of the row spoils: no position
  // matches it, and position 0 is taken.
  const nn::TopKResult first = nn::top_k(
      constant(Value::from_vector<float>({1, kNan, 3, 2, kNan, 1, 3, 2, 1, 2, 3, kNan}, {3, 4})),
      1);
  const std::vector<Value> fv = sess.run({first.values, first.indices});
  CHECK(fv[0].to_vector<float>() == std::vector<float>{3, 3, 1});
  CHECK(fv[1].to_vector<std::int32_t>() == std::vector<std::int32_t>{2, 2, 0});
  const auto [v6, i6n] = nan_case(6);
  CHECK(i6n == std::vector<std::int32_t>{3, 2, 0, 1, 5, 4});
  CHECK(v6[0] == kInf);
  CHECK(std::isnan(v6[3]));
  CHECK(v6[5] == -kInf);
}

TEST_CASE("nn_extras/top_k: bad input") {
  // TF, building: k=5 of [2,4]: ValueError "input must have last dimension >= k = 5 but is
  // 4"; k=-1: "Dimension size, given by scalar input 1, must be non-negative but is -1";
  // a scalar input: "Shape must be at least rank 1 but is rank 0"; a bool input:
  // TypeError "Value passed to parameter 'input' has DataType bool not in list of allowed
  // values: float32, float64, int32, uint8, int16, int8, int64, bfloat16, uint16, float16,
  // uint32, uint64"; k=[1,2]: "Input must be scalar but has rank 1"; a float32 k: TypeError
  // "Value passed to parameter 'k' has DataType float32 not in list of allowed values:
  // int16, int32, int64".
  // Running with a fed k: 5: InvalidArgumentError "input must have at least k columns.
  // Had 4, needed 5"; -1: "Need k >= 0, got -1"; [1]: "k must be scalar, got shape [1]";
  // a fed scalar input: "input must be >= 1-D, got shape []"
  Graph g;
  auto guard = g.as_default();
  auto x = constant<float>({{1, 3, 2, 3}, {4, -1, 4, 0}});
  auto too_big = thrown<ValueError>([&] { nn::top_k(x, 5); });
  REQUIRE(too_big);
  CHECK(contains(too_big->message(), "input must have last dimension >= k = 5 but is 4"));
  CHECK(contains(too_big->message(), "TopKV2"));
  auto negative = thrown<ValueError>([&] { nn::top_k(x, -1); });
  REQUIRE(negative);
  CHECK(contains(negative->message(),
                 "Dimension size, given by scalar input 1, must be non-negative but is -1"));
  auto scalar = thrown<ValueError>([&] { nn::top_k(constant(1.0f), 1); });
  REQUIRE(scalar);
  CHECK(contains(scalar->message(), "Shape must be at least rank 1 but is rank 0"));
  auto boolean = thrown<TypeError>([&] { nn::top_k(constant(Value(true)), 1); });
  REQUIRE(boolean);
  CHECK(contains(boolean->message(),
                 "Value passed to parameter 'input' has DataType bool not in list of allowed "
                 "values: float32, float64, int32, uint8, int16, int8, int64, bfloat16, uint16, "
                 "float16, uint32, uint64"));
  auto vector_k = thrown<ValueError>([&] { nn::top_k(x, constant<std::int32_t>({1, 2})); });
  REQUIRE(vector_k);
  CHECK(contains(vector_k->message(), "Input must be scalar but has rank 1"));
  auto float_k = thrown<TypeError>([&] { nn::top_k(x, constant(1.5f)); });
  REQUIRE(float_k);
  CHECK(contains(float_k->message(),
                 "Value passed to parameter 'k' has DataType float32 not in list of allowed "
                 "values: int16, int32, int64"));

  auto k = placeholder<std::int32_t>();
  const nn::TopKResult fed = nn::top_k(x, k);
  Session sess(g);
  auto run_with = [&](const Value& k_value) {
    return thrown<InvalidArgumentError>([&] { sess.run(fed.values, {{k, k_value}}); });
  };
  auto big = run_with(Value(std::int32_t{5}));
  REQUIRE(big);
  CHECK(contains(big->message(), "input must have at least k columns. Had 4, needed 5"));
  CHECK(big->node_name() == fed.values.op().name());
  auto below = run_with(Value(std::int32_t{-1}));
  REQUIRE(below);
  CHECK(contains(below->message(), "Need k >= 0, got -1"));
  auto vector = run_with(Value::from_vector<std::int32_t>({1}, {1}));
  REQUIRE(vector);
  CHECK(contains(vector->message(), "k must be scalar, got shape [1]"));
  CHECK(sess.run(fed.values, {{k, Value(std::int32_t{1})}}).to_vector<float>() ==
        std::vector<float>{3, 4});

  auto any = placeholder<float>();
  const nn::TopKResult on_any = nn::top_k(any, 1);
  CHECK_FALSE(on_any.values.get_shape().has_rank());
  auto rank0 = thrown<InvalidArgumentError>([&] { sess.run(on_any.values, {{any, Value(3.0f)}}); });
  REQUIRE(rank0);
  CHECK(contains(rank0->message(), "input must be >= 1-D, got shape []"));
}

// ---- in_top_k ----------------------------------------------------------------------------------

TEST_CASE("nn_extras/in_top_k: nodes, ties and non-finite predictions") {
  // TF: p = [[0.1,0.3,0.3,0.2],[0.5,0.1,0.2,0.2],[nan,0.1,0.2,0.3],[0.1,inf,0.2,0.3]],
  //     t = [1,3,0,1]:
  //   nodes ['in_top_k/InTopKV2/k', 'in_top_k/InTopKV2'], attr T int32, shape (4,) bool
  //   k=1: [T,F,F,F]; k=2: [T,T,F,F]; k=0: all F; k=4: [T,T,F,F]; k=5: [T,T,F,F];
  //   k=-1: all F; targets [1,4,0,-1], k=1: [T,F,F,F]
  //   t64 = [1,2,2,3] int64, k=3, name "intop": node 'intop/intop', k 'intop/intop/k';
  //   [T,T,F,F]
  // p2 = [[nan,.1,.2,.3],[.1,inf,.2,.3],[.1,-inf,.2,.3],[.4,.4,.4,.1],[.4,.4,.4,.1],
  //       [.1,.2,.3,nan]], t2 = [2,3,3,2,3,0]: k=1..3: [F,F,F,T,F,F]; k=4: [F,F,F,T,T,F]
  // [[-inf,-inf],[1,-inf]], targets [0,1], k=2: [F,F]
  Graph g;
  auto guard = g.as_default();
  auto p = constant(Value::from_vector<float>({0.1f, 0.3f, 0.3f, 0.2f, 0.5f, 0.1f, 0.2f, 0.2f, kNan,
                                               0.1f, 0.2f, 0.3f, 0.1f, kInf, 0.2f, 0.3f},
                                              {4, 4}));
  auto t = constant<std::int32_t>({1, 3, 0, 1});
  Output r = nn::in_top_k(p, t, 1);
  CHECK(r.name() == "in_top_k/InTopKV2:0");
  CHECK(r.op().type() == "InTopKV2");
  CHECK(input_names(r)[2] == "in_top_k/InTopKV2/k:0");
  CHECK(r.op().get_attr<DType>("T") == DType::int32);
  CHECK(r.dtype() == DType::bool_);
  CHECK(r.get_shape() == Shape{4});
  CHECK(nn::in_top_k(p, t, 2).name() == "in_top_k_1/InTopKV2:0");

  Session sess(g);
  auto run = [&](const Output& o) { return sess.run(o).to_vector<bool>(); };
  using B = std::vector<bool>;
  CHECK(run(r) == B{true, false, false, false});
  CHECK(run(nn::in_top_k(p, t, 2)) == B{true, true, false, false});
  CHECK(run(nn::in_top_k(p, t, 0)) == B{false, false, false, false});
  CHECK(run(nn::in_top_k(p, t, 4)) == B{true, true, false, false});
  CHECK(run(nn::in_top_k(p, t, 5)) == B{true, true, false, false});
  CHECK(run(nn::in_top_k(p, t, -1)) == B{false, false, false, false});
  CHECK(run(nn::in_top_k(p, constant<std::int32_t>({1, 4, 0, -1}), 1)) ==
        B{true, false, false, false});

  auto t64 = constant<std::int64_t>({1, 2, 2, 3});
  Output named = nn::in_top_k(p, t64, 3, "intop");
  CHECK(named.name() == "intop/intop:0");
  CHECK(input_names(named)[2] == "intop/intop/k:0");
  CHECK(named.op().get_attr<DType>("T") == DType::int64);
  CHECK(named.op().inputs()[2].dtype() == DType::int64);
  CHECK(run(named) == B{true, true, false, false});

  auto p2 = constant(
      Value::from_vector<float>({kNan, .1f, .2f, .3f, .1f, kInf, .2f, .3f, .1f, -kInf, .2f, .3f,
                                 .4f,  .4f, .4f, .1f, .4f, .4f,  .4f, .1f, .1f, .2f,   .3f, kNan},
                                {6, 4}));
  auto t2 = constant<std::int32_t>({2, 3, 3, 2, 3, 0});
  for (int k = 1; k <= 3; ++k) {
    CAPTURE(k);
    CHECK(run(nn::in_top_k(p2, t2, k)) == B{false, false, false, true, false, false});
  }
  CHECK(run(nn::in_top_k(p2, t2, 4)) == B{false, false, false, true, true, false});
  auto all_inf = constant(Value::from_vector<float>({-kInf, -kInf, 1, -kInf}, {2, 2}));
  CHECK(run(nn::in_top_k(all_inf, constant<std::int32_t>({0, 1}), 2)) == B{false, false});
}

TEST_CASE("nn_extras/in_top_k: bad input") {
  // TF, building: targets of length 2 for 4 rows: ValueError "Dimensions must be equal, but
  // are 4 and 2"; rank-1 predictions: "Shape must be rank 2 but is rank 1"; rank-2
  // targets: "Shape must be rank 1 but is rank 2"; float targets: TypeError "Value passed
  // to parameter 'targets' has DataType float32 not in list of allowed values: int32,
  // int64"; int32 predictions: "Input 'predictions' of 'InTopKV2' Op has type int32 that
  // does not match expected type of float32."; an int32 k tensor with int64 targets:
  // "Input 'k' of 'InTopKV2' Op has type int32 that does not match type int64 of argument
  // 'targets'."
  // Running with fed values: predictions [2]: InvalidArgumentError "predictions must be
  // 2-dimensional"; targets [[0]]: "targets must be 1-dimensional"; 1 row and 2 targets:
  // "First dimension of predictions 1 must match length of targets 2"; k [1]: "k must be
  // 0-D, got shape [1]"
  Graph g;
  auto guard = g.as_default();
  auto p = constant(Value::from_vector<float>(std::vector<float>(16, 0.5f), {4, 4}));
  auto t = constant<std::int32_t>({1, 3, 0, 1});
  auto dims = thrown<ValueError>([&] { nn::in_top_k(p, constant<std::int32_t>({1, 2}), 1); });
  REQUIRE(dims);
  CHECK(contains(dims->message(), "Dimensions must be equal, but are 4 and 2"));
  auto rank_p = thrown<ValueError>([&] { nn::in_top_k(constant<float>({1, 2}), t, 1); });
  REQUIRE(rank_p);
  CHECK(contains(rank_p->message(), "Shape must be rank 2 but is rank 1"));
  auto rank_t = thrown<ValueError>([&] { nn::in_top_k(p, constant<std::int32_t>({{1}}), 1); });
  REQUIRE(rank_t);
  CHECK(contains(rank_t->message(), "Shape must be rank 1 but is rank 2"));
  auto float_t = thrown<TypeError>([&] { nn::in_top_k(p, constant<float>({1, 2, 3, 4}), 1); });
  REQUIRE(float_t);
  CHECK(contains(float_t->message(),
                 "Value passed to parameter 'targets' has DataType float32 not in list of "
                 "allowed values: int32, int64"));
  auto int_p = thrown<TypeError>([&] {
    nn::in_top_k(constant<std::int32_t>({{1, 2}}), constant<std::int32_t>({1}), 1);
  });
  REQUIRE(int_p);
  CHECK(contains(int_p->message(),
                 "Input 'predictions' of 'InTopKV2' Op has type int32 that does not match "
                 "expected type of float32."));
  auto k_type = thrown<TypeError>([&] {
    nn::in_top_k(p, constant<std::int64_t>({1, 2, 3, 4}), constant(std::int32_t{1}));
  });
  REQUIRE(k_type);
  CHECK(contains(k_type->message(),
                 "Input 'k' of 'InTopKV2' Op has type int32 that does not match type int64 of "
                 "argument 'targets'."));

  auto fp = placeholder<float>();
  auto ft = placeholder<std::int32_t>();
  auto fk = placeholder<std::int32_t>();
  Output r = nn::in_top_k(fp, ft, fk);
  Session sess(g);
  auto run_with = [&](Value pv, Value tv, Value kv) {
    return thrown<InvalidArgumentError>([&] { sess.run(r, {{fp, pv}, {ft, tv}, {fk, kv}}); });
  };
  const Value one(std::int32_t{1});
  auto e1 = run_with(Value::from_vector<float>({1, 2}, {2}),
                     Value::from_vector<std::int32_t>({0}, {1}), one);
  REQUIRE(e1);
  CHECK(contains(e1->message(), "predictions must be 2-dimensional"));
  CHECK(e1->node_name() == r.op().name());
  auto e2 = run_with(Value::from_vector<float>({1, 2}, {1, 2}),
                     Value::from_vector<std::int32_t>({0}, {1, 1}), one);
  REQUIRE(e2);
  CHECK(contains(e2->message(), "targets must be 1-dimensional"));
  auto e3 = run_with(Value::from_vector<float>({1, 2}, {1, 2}),
                     Value::from_vector<std::int32_t>({0, 1}, {2}), one);
  REQUIRE(e3);
  CHECK(contains(e3->message(), "First dimension of predictions 1 must match length of targets 2"));
  auto e4 = run_with(Value::from_vector<float>({1, 2}, {1, 2}),
                     Value::from_vector<std::int32_t>({0}, {1}),
                     Value::from_vector<std::int32_t>({1}, {1}));
  REQUIRE(e4);
  CHECK(contains(e4->message(), "k must be 0-D, got shape [1]"));
}

// ---- l2_normalize ------------------------------------------------------------------------------

TEST_CASE("nn_extras/l2_normalize: nodes and values") {
  // TF: l2_normalize(x, 1) -> ['l2_normalize/Square', 'l2_normalize/Sum/reduction_indices',
  // 'l2_normalize/Sum', 'l2_normalize/Maximum/y', 'l2_normalize/Maximum',
  // 'l2_normalize/Rsqrt', 'l2_normalize' (Mul)]; Sum keep_dims true; reduction_indices 1
  // int32; Maximum/y 1e-12 float32. name "norm", epsilon 1e-3 -> 'norm/...' and 'norm'.
  // Values, x = [[3,4],[0,0],[1e-7,0]]: axis 1: [[0.6,0.8],[0,0],[0.1,0]];
  // axis 0, epsilon 1e-3: [[1,1],[0,0],[3.3333336e-08,0]]; axis [0,1]: [[0.6,0.8],[0,0],[2e-8,0]]
  // x = [[3,4,0],[1,-2,2]]: axis 1: [0.600000024, 0.800000012, 0, 0.333333343, -0.666666687,
  // 0.666666687]; axis 0: [0.948683262, 0.89442718, 0, 0.316227764, -0.44721359, 1];
  // axis None (every axis): [0.51449579, 0.685994387, 0, 0.171498597, -0.342997193,
  // 0.342997193]; float64 x keeps float64
  Graph g;
  auto guard = g.as_default();
  auto x = constant<float>({{3, 4}, {0, 0}, {1e-7f, 0}});
  Output y = nn::l2_normalize(x, 1);
  CHECK(nodes(g) == std::vector<std::pair<std::string, std::string>>{
                        {"Const", "Const"},
                        {"l2_normalize/Square", "Square"},
                        {"l2_normalize/Sum/reduction_indices", "Const"},
                        {"l2_normalize/Sum", "Sum"},
                        {"l2_normalize/Maximum/y", "Const"},
                        {"l2_normalize/Maximum", "Maximum"},
                        {"l2_normalize/Rsqrt", "Rsqrt"},
                        {"l2_normalize", "Mul"}});
  CHECK(y.name() == "l2_normalize:0");
  CHECK(g.get_operation_by_name("l2_normalize/Sum").get_attr<bool>("keep_dims"));
  const Value eps = g.get_operation_by_name("l2_normalize/Maximum/y").get_attr<Value>("value");
  CHECK(eps.dtype() == DType::float32);
  CHECK(eps.to_vector<float>() == std::vector<float>{1e-12f});
  const Value axis =
      g.get_operation_by_name("l2_normalize/Sum/reduction_indices").get_attr<Value>("value");
  CHECK(axis.dtype() == DType::int32);
  CHECK(axis.to_vector<std::int32_t>() == std::vector<std::int32_t>{1});
  CHECK(y.get_shape() == Shape{3, 2});

  Output named = nn::l2_normalize(x, 0, 1e-3, "norm");
  CHECK(named.name() == "norm:0");
  CHECK(g.get_operation_by_name("norm/Maximum/y").get_attr<Value>("value").to_vector<float>() ==
        std::vector<float>{1e-3f});
  Output both = nn::l2_normalize(x, Axis{0, 1});
  CHECK(both.name() == "l2_normalize_1:0");

  Session sess(g);
  check_close(sess.run(y).to_vector<float>(), {0.6f, 0.8f, 0, 0, 0.1f, 0}, 1e-6, false);
  check_close(sess.run(named).to_vector<float>(), {1, 1, 0, 0, 3.3333336e-08f, 0}, 1e-6);
  check_close(sess.run(both).to_vector<float>(), {0.6f, 0.8f, 0, 0, 2e-8f, 0}, 1e-6);

  auto x2 = constant<float>({{3, 4, 0}, {1, -2, 2}});
  check_close(sess.run(nn::l2_normalize(x2, 1)).to_vector<float>(),
              {0.600000024f, 0.800000012f, 0, 0.333333343f, -0.666666687f, 0.666666687f}, 1e-6);
  check_close(sess.run(nn::l2_normalize(x2, 0)).to_vector<float>(),
              {0.948683262f, 0.89442718f, 0, 0.316227764f, -0.44721359f, 1}, 1e-6);
  check_close(sess.run(nn::l2_normalize(x2)).to_vector<float>(),
              {0.51449579f, 0.685994387f, 0, 0.171498597f, -0.342997193f, 0.342997193f}, 1e-6);
  Output d = nn::l2_normalize(constant<double>({{3, 4}}), -1);
  CHECK(d.dtype() == DType::float64);
  check_close(sess.run(d).to_vector<double>(), {0.6, 0.8}, 1e-12);
}

TEST_CASE("nn_extras/l2_normalize: bad input") {
  // TF: int32 x: TypeError "Expected int32 passed to parameter 'y' of op 'Maximum', got
  // 1e-12 of type 'float' instead. Error: Expected int32, but got 1e-12 of type 'float'.";
  // axis 2 of a rank-2 x: ValueError "Invalid reduction dimension 2 for input with 2
  // dimensions."
  Graph g;
  auto guard = g.as_default();
  auto e = thrown<TypeError>([] { nn::l2_normalize(constant<std::int32_t>({{3, 4}}), 1); });
  REQUIRE(e);
  CHECK(e->message() ==
        "Expected int32 passed to parameter 'y' of op 'Maximum', got 1e-12 of type 'float' "
        "instead. Error: Expected int32, but got 1e-12 of type 'float'.");
  auto a = thrown<ValueError>([] { nn::l2_normalize(constant<float>({{3, 4}}), 2); });
  REQUIRE(a);
  CHECK(contains(a->message(), "Invalid reduction dimension 2 for input with 2 dimensions."));
}

// ---- embedding_lookup --------------------------------------------------------------------------

TEST_CASE("nn_extras/embedding_lookup: nodes, values and bad ids") {
  // TF: params [[1,2],[3,4],[5,6]], ids Const [[2,0],[1,1]] ->
  //   ['embedding_lookup/axis', 'embedding_lookup' (GatherV2, _class ["loc:@Const"],
  //    batch_dims 0, Tindices int32), 'embedding_lookup/Identity']; shape (2, 2, 2);
  //   values [[[5,6],[1,2]],[[3,4],[3,4]]]
  // ids [0, 2] as a list, name "emb": ['emb/ids', 'emb/axis', 'emb', 'emb/Identity'];
  //   [[1,2],[5,6]]
  // ids int64 scalar 2 of [[1,2,3],...,[10,11,12]]: [7,8,9]
  // ids [3] of 3 rows: InvalidArgumentError "indices[0] = 3 is not in [0, 3)"; float ids:
  // TypeError "Value passed to parameter 'indices' has DataType float32 not in list of
  // allowed values: int16, int32, int64"; scalar params: ValueError "Shape must be at
  // least rank 1 but is rank 0"
  Graph g;
  auto guard = g.as_default();
  auto params = constant<float>({{1, 2}, {3, 4}, {5, 6}});
  auto ids = constant<std::int32_t>({{2, 0}, {1, 1}});
  Output e = nn::embedding_lookup(params, ids);
  CHECK(nodes(g) == std::vector<std::pair<std::string, std::string>>{
                        {"Const", "Const"},
                        {"Const_1", "Const"},
                        {"embedding_lookup/axis", "Const"},
                        {"embedding_lookup", "GatherV2"},
                        {"embedding_lookup/Identity", "Identity"}});
  CHECK(e.name() == "embedding_lookup/Identity:0");
  const Operation gather = g.get_operation_by_name("embedding_lookup");
  CHECK(input_names(gather) ==
        std::vector<std::string>{"Const:0", "Const_1:0", "embedding_lookup/axis:0"});
  CHECK(gather.get_attr<StringList>("_class").items == std::vector<std::string>{"loc:@Const"});
  CHECK(gather.get_attr<std::int64_t>("batch_dims") == 0);
  CHECK(gather.get_attr<DType>("Tindices") == DType::int32);
  CHECK(e.get_shape() == Shape{2, 2, 2});

  Output listed = nn::embedding_lookup(params, {0, 2}, "emb");
  CHECK(listed.name() == "emb/Identity:0");
  CHECK(input_names(g.get_operation_by_name("emb")) ==
        std::vector<std::string>{"Const:0", "emb/ids:0", "emb/axis:0"});

  Session sess(g);
  CHECK(sess.run(e).to_vector<float>() == std::vector<float>{5, 6, 1, 2, 3, 4, 3, 4});
  CHECK(sess.run(listed).to_vector<float>() == std::vector<float>{1, 2, 5, 6});
  auto wide = constant<float>({{1, 2, 3}, {4, 5, 6}, {7, 8, 9}, {10, 11, 12}});
  Output one = nn::embedding_lookup(wide, constant(std::int64_t{2}));
  CHECK(one.get_shape() == Shape{3});
  CHECK(sess.run(one).to_vector<float>() == std::vector<float>{7, 8, 9});

  Output out_of_range = nn::embedding_lookup(params, {3});
  auto bad = thrown<InvalidArgumentError>([&] { sess.run(out_of_range); });
  REQUIRE(bad);
  CHECK(contains(bad->message(), "indices[0] = 3 is not in [0, 3)"));
  auto float_ids = thrown<TypeError>([&] { nn::embedding_lookup(params, constant<float>({1})); });
  REQUIRE(float_ids);
  CHECK(contains(float_ids->message(),
                 "Value passed to parameter 'indices' has DataType float32 not in list of "
                 "allowed values: int16, int32, int64"));
  auto scalar = thrown<ValueError>([&] { nn::embedding_lookup(constant(1.0f), ids); });
  REQUIRE(scalar);
  CHECK(contains(scalar->message(), "Shape must be at least rank 1 but is rank 0"));
}

TEST_CASE("nn_extras/embedding_lookup: a variable's rows") {
  // TF 1.x (ref variables): embedding_lookup(w, ids) reads w through GatherV2 colocated with
  // w ("loc:@w"), with w's values once initialised.
  Graph g;
  auto guard = g.as_default();
  Variable w(Value::from_vector<float>({1, 2, 3, 4, 5, 6}, {3, 2}), {.name = "w"});
  Output e = nn::embedding_lookup(w, constant<std::int32_t>({2, 2, 0}));
  CHECK(g.get_operation_by_name("embedding_lookup").get_attr<StringList>("_class").items ==
        std::vector<std::string>{"loc:@w"});
  Session sess(g);
  sess.run(w.initializer());
  CHECK(sess.run(e).to_vector<float>() == std::vector<float>{5, 6, 5, 6, 1, 2});
}

TEST_CASE("nn_extras/embedding_lookup: shards of one table (\"mod\")") {
  // TF: p0 = [[1,2],[3,4],[5,6]], p1 = [[7,8],[9,10]], p2 = [[11,12],[13,14]],
  //   embedding_lookup([p0, p1, p2], int64 [[4,0,5],[1,3,6]], name="emb3") ->
  //   ['emb3/Reshape/shape', 'emb3/Reshape', 'emb3/Size' (Const), 'emb3/range/start',
  //    'emb3/range/delta', 'emb3/range', 'emb3/mod/y', 'emb3/mod' (FloorMod),
  //    'emb3/floordiv/y', 'emb3/floordiv', 'emb3/Cast', 'emb3/DynamicPartition',
  //    'emb3/DynamicPartition_1', 'emb3/GatherV2/axis', 'emb3/GatherV2', 'emb3/GatherV2_1/axis',
  //    'emb3/GatherV2_1', 'emb3/GatherV2_2/axis', 'emb3/GatherV2_2', 'emb3'
  //    (ParallelDynamicStitch), 'emb3/Shape' (Const), 'emb3/concat/values_1',
  //    'emb3/concat/axis', 'emb3/concat', 'emb3/Reshape_1']; shape (2, 3, 2);
  //   [[[9,10],[1,2],[13,14]],[[7,8],[3,4],[5,6]]]
  // embedding_lookup([p0, p1], [2, 1, 0]): 'embedding_lookup/ids' then
  //   'embedding_lookup/Reshape/shape', ...; [[3,4],[7,8],[1,2]]
  // partition_strategy="foo": ValueError "Unrecognized partition strategy: foo.Must be one
  //   of either `mod` or `div`."; [] : "Length of params is currently 0. Need at least one
  //   param."
  Graph g;
  auto guard = g.as_default();
  auto p0 = constant<float>({{1, 2}, {3, 4}, {5, 6}});
  auto p1 = constant<float>({{7, 8}, {9, 10}});
  auto p2 = constant<float>({{11, 12}, {13, 14}});
  auto ids = constant<std::int64_t>({{4, 0, 5}, {1, 3, 6}});
  const std::size_t before = g.get_operations().size();
  Output e = nn::embedding_lookup({p0, p1, p2}, ids, "mod", "emb3");
  std::vector<std::pair<std::string, std::string>> built = nodes(g);
  built.erase(built.begin(), built.begin() + static_cast<std::ptrdiff_t>(before));
  CHECK(built == std::vector<std::pair<std::string, std::string>>{
                     {"emb3/Reshape/shape", "Const"},
                     {"emb3/Reshape", "Reshape"},
                     {"emb3/Size", "Const"},
                     {"emb3/range/start", "Const"},
                     {"emb3/range/delta", "Const"},
                     {"emb3/range", "Range"},
                     {"emb3/mod/y", "Const"},
                     {"emb3/mod", "FloorMod"},
                     {"emb3/floordiv/y", "Const"},
                     {"emb3/floordiv", "FloorDiv"},
                     {"emb3/Cast", "Cast"},
                     {"emb3/DynamicPartition", "DynamicPartition"},
                     {"emb3/DynamicPartition_1", "DynamicPartition"},
                     {"emb3/GatherV2/axis", "Const"},
                     {"emb3/GatherV2", "GatherV2"},
                     {"emb3/GatherV2_1/axis", "Const"},
                     {"emb3/GatherV2_1", "GatherV2"},
                     {"emb3/GatherV2_2/axis", "Const"},
                     {"emb3/GatherV2_2", "GatherV2"},
                     {"emb3", "ParallelDynamicStitch"},
                     {"emb3/Shape", "Const"},
                     {"emb3/concat/values_1", "Const"},
                     {"emb3/concat/axis", "Const"},
                     {"emb3/concat", "ConcatV2"},
                     {"emb3/Reshape_1", "Reshape"}});
  CHECK(e.name() == "emb3/Reshape_1:0");
  CHECK(e.get_shape() == Shape{2, 3, 2});
  CHECK(g.get_operation_by_name("emb3/GatherV2_1").get_attr<StringList>("_class").items ==
        std::vector<std::string>{"loc:@Const_1"});

  Output two = nn::embedding_lookup({p0, p1}, {2, 1, 0});
  CHECK(g.get_operation_by_name("embedding_lookup/ids").type() == "Const");
  CHECK(two.name() == "embedding_lookup/Reshape_1:0");
  Session sess(g);
  CHECK(sess.run(e).to_vector<float>() ==
        std::vector<float>{9, 10, 1, 2, 13, 14, 7, 8, 3, 4, 5, 6});
  CHECK(sess.run(two).to_vector<float>() == std::vector<float>{3, 4, 7, 8, 1, 2});
  // One tensor in a list is the single-tensor lookup.
  CHECK(nn::embedding_lookup({p0}, {1}).op().type() == "Identity");

  auto strategy = thrown<ValueError>([&] { nn::embedding_lookup({p0, p1}, {1}, "foo"); });
  REQUIRE(strategy);
  CHECK(strategy->message() ==
        "Unrecognized partition strategy: foo.Must be one of either `mod` or `div`.");
  auto none = thrown<ValueError>([&] { nn::embedding_lookup(std::vector<Output>{}, {1}); });
  REQUIRE(none);
  CHECK(none->message() == "Length of params is currently 0. Need at least one param.");
}

TEST_CASE("nn_extras/embedding_lookup: shards of one table (\"div\")") {
  // TF 2.21: p0 = arange(6).reshape(3, 2), p1 = arange(4).reshape(2, 2) + 10, ids (Const
  // "ids") [[0, 4], [2, 3]], embedding_lookup([p0, p1], ids, partition_strategy="div"):
  // ids 0-2 live in p0 and 3-4 in p1 (5 rows, 2 shards: the first gets the extra one).
  Graph g;
  auto guard = g.as_default();
  auto p0 = constant(Value::from_vector(std::vector<float>{0, 1, 2, 3, 4, 5}, {3, 2}), "p0");
  auto p1 = constant(Value::from_vector(std::vector<float>{10, 11, 12, 13}, {2, 2}), "p1");
  auto ids = constant({{0, 4}, {2, 3}}, "ids");
  const std::size_t first = g.num_nodes();
  Output e = nn::embedding_lookup({p0, p1}, ids, "div");
  // TF 2.21 builds AddV2 for `+`; symflow builds TF 1.x's Add (docs/decisions.md).
  symflow::test::check_rows(
      symflow::test::rows_since(g, first),
      {"embedding_lookup/Reshape/shape Const [] ",
       "embedding_lookup/Reshape Reshape [ids,embedding_lookup/Reshape/shape] ",
       "embedding_lookup/Size Const [] ",
       "embedding_lookup/range/start Const [] ",
       "embedding_lookup/range/delta Const [] ",
       "embedding_lookup/range Range "
       "[embedding_lookup/range/start,embedding_lookup/Size,embedding_lookup/range/delta] ",
       "embedding_lookup/Const Const [] ",
       "embedding_lookup/floordiv/y Const [] ",
       "embedding_lookup/floordiv FloorDiv [embedding_lookup/Const,embedding_lookup/floordiv/y] ",
       "embedding_lookup/mod/y Const [] ",
       "embedding_lookup/mod FloorMod [embedding_lookup/Const,embedding_lookup/mod/y] ",
       "embedding_lookup/add/y Const [] ",
       "embedding_lookup/add Add [embedding_lookup/floordiv,embedding_lookup/add/y] ",
       "embedding_lookup/floordiv_1 FloorDiv [embedding_lookup/Reshape,embedding_lookup/add] ",
       "embedding_lookup/sub Sub [embedding_lookup/Reshape,embedding_lookup/mod] ",
       "embedding_lookup/floordiv_2 FloorDiv [embedding_lookup/sub,embedding_lookup/floordiv] ",
       "embedding_lookup/Maximum Maximum "
       "[embedding_lookup/floordiv_1,embedding_lookup/floordiv_2] ",
       "embedding_lookup/Less Less [embedding_lookup/Maximum,embedding_lookup/mod] ",
       "embedding_lookup/add_1/y Const [] ",
       "embedding_lookup/add_1 Add [embedding_lookup/floordiv,embedding_lookup/add_1/y] ",
       "embedding_lookup/mod_1 FloorMod [embedding_lookup/Reshape,embedding_lookup/add_1] ",
       "embedding_lookup/sub_1 Sub [embedding_lookup/Reshape,embedding_lookup/mod] ",
       "embedding_lookup/mod_2 FloorMod [embedding_lookup/sub_1,embedding_lookup/floordiv] ",
       "embedding_lookup/Select Select "
       "[embedding_lookup/Less,embedding_lookup/mod_1,embedding_lookup/mod_2] ",
       "embedding_lookup/DynamicPartition DynamicPartition "
       "[embedding_lookup/Select,embedding_lookup/Maximum] ",
       "embedding_lookup/DynamicPartition_1 DynamicPartition "
       "[embedding_lookup/range,embedding_lookup/Maximum] ",
       "embedding_lookup/GatherV2/axis Const [] loc:@p0",
       "embedding_lookup/GatherV2 GatherV2 "
       "[p0,embedding_lookup/DynamicPartition,embedding_lookup/GatherV2/axis] loc:@p0",
       "embedding_lookup/GatherV2_1/axis Const [] loc:@p1",
       "embedding_lookup/GatherV2_1 GatherV2 "
       "[p1,embedding_lookup/DynamicPartition:1,embedding_lookup/GatherV2_1/axis] loc:@p1",
       "embedding_lookup ParallelDynamicStitch "
       "[embedding_lookup/DynamicPartition_1,embedding_lookup/DynamicPartition_1:1,"
       "embedding_lookup/GatherV2,embedding_lookup/GatherV2_1] ",
       "embedding_lookup/Shape Const [] ",
       "embedding_lookup/concat/values_1 Const [] ",
       "embedding_lookup/concat/axis Const [] ",
       "embedding_lookup/concat ConcatV2 "
       "[embedding_lookup/Shape,embedding_lookup/concat/values_1,embedding_lookup/concat/axis] ",
       "embedding_lookup/Reshape_1 Reshape [embedding_lookup,embedding_lookup/concat] "});
  Session sess(g);
  CHECK(sess.run(e).to_vector<float>() == std::vector<float>{0, 1, 12, 13, 4, 5, 10, 11});
  // Each shard's gradient is IndexedSlices of its own rows (TF: p0 rows [0, 2], p1 [1, 0]).
  std::vector<Gradient> grads = gradients_with_slices({reduce_sum(e * e)}, {p0, p1});
  REQUIRE(grads[0].is_sparse());
  REQUIRE(grads[1].is_sparse());
  auto out = sess.run({grads[0].sparse().values, grads[0].sparse().indices,
                       grads[1].sparse().values, grads[1].sparse().indices});
  CHECK(out[0].to_vector<float>() == std::vector<float>{0, 2, 8, 10});
  CHECK(out[1].to_vector<std::int32_t>() == std::vector<std::int32_t>{0, 2});
  CHECK(out[2].to_vector<float>() == std::vector<float>{24, 26, 20, 22});
  CHECK(out[3].to_vector<std::int32_t>() == std::vector<std::int32_t>{1, 0});

  // Three shards of 2, 2 and 1 rows: TF gives [[0,1],[20,21]], [[10,11],[12,13]], [[2,3],[2,3]].
  auto q0 = constant(Value::from_vector(std::vector<float>{0, 1, 2, 3}, {2, 2}));
  auto q1 = constant(Value::from_vector(std::vector<float>{10, 11, 12, 13}, {2, 2}));
  auto q2 = constant(Value::from_vector(std::vector<float>{20, 21}, {1, 2}));
  Output three = nn::embedding_lookup({q0, q1, q2}, {{0, 4}, {2, 3}, {1, 1}}, "div");
  CHECK(sess.run(three).to_vector<float>() ==
        std::vector<float>{0, 1, 20, 21, 10, 11, 12, 13, 2, 3, 2, 3});
  // A shard whose number of rows is unknown while building.
  auto unknown = placeholder(DType::float32, Shape({-1, 2}), "unknown");
  CHECK_THROWS_AS(nn::embedding_lookup({p0, unknown}, {0}, "div"), ValueError);
}

}  // namespace symflow_test_ops_nn_extras_test
