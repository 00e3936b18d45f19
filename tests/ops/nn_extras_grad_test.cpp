// Gradients of nn::top_k (TopKV2's gradient: the values' gradient back at their indices),
// nn::l2_normalize and nn::embedding_lookup: values against tf.gradients in TensorFlow
// 2.21 graph mode, and numerical checks in float64 (tests/gradient_check.hpp).

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include <symflow/symflow.hpp>
#include <symflow/train/gradients.hpp>

#include "../gradient_check.hpp"
#include "../test_util.hpp"

namespace symflow_test_ops_nn_extras_grad_test {

namespace ops_nn_extras_grad_test {

using namespace symflow;
using namespace symflow::test;

Value f64(std::vector<double> v, Dims dims) { return Value::from_vector(v, std::move(dims)); }

// Distinct entries, so that a small step never reorders them.
const Value kRows = f64({0.3, -1.2, 2.5, 0.9, -0.4, 1.7, 0.1, -2.2, 1.1, 0.6}, {2, 5});

}  // namespace ops_nn_extras_grad_test

using namespace ops_nn_extras_grad_test;

TEST_CASE("nn_extras/grad: top_k values against TensorFlow") {
  // TF: x = [[5,1,9,9,3,7,2,8],[0,0,0,1,0,2,0,1]], v, i = top_k(x, 3),
  //     tf.gradients(reduce_sum(v * [[1,2,3],[4,5,6]]), x) =
  //     [[0,0,1,2,0,0,0,3],[0,0,0,5,0,4,0,6]]; the nodes are under "gradients/TopKV2_grad/"
  Graph g;
  auto guard = g.as_default();
  auto x =
      constant(Value::from_vector<float>({5, 1, 9, 9, 3, 7, 2, 8, 0, 0, 0, 1, 0, 2, 0, 1}, {2, 8}));
  const nn::TopKResult r = nn::top_k(x, 3);
  Output loss = reduce_sum(r.values * constant<float>({{1, 2, 3}, {4, 5, 6}}));
  Output dx = gradients(loss, {x})[0];
  REQUIRE(dx.valid());
  CHECK(dx.get_shape() == Shape{2, 8});
  CHECK(dx.name().rfind("gradients/TopKV2_grad/", 0) == 0);
  CHECK(gradients(loss, {r.values.op().inputs()[1]})[0].valid() == false);  // k: none
  Session sess(g);
  CHECK(sess.run(dx).to_vector<float>() ==
        std::vector<float>{0, 0, 1, 2, 0, 0, 0, 3, 0, 0, 0, 5, 0, 4, 0, 6});
}

TEST_CASE("nn_extras/grad: top_k numerically") {
  check_gradients([](const auto& x) { return nn::top_k(x[0], 3).values; }, {kRows});
  check_gradients([](const auto& x) { return nn::top_k(x[0], 5).values; }, {kRows});
  check_gradients([](const auto& x) { return nn::top_k(x[0], 1).values; }, {kRows});
  check_gradients([](const auto& x) { return nn::top_k(x[0], 2, false).values; }, {kRows});
  // Rank 3 and rank 1.
  check_gradients([](const auto& x) { return nn::top_k(x[0], 2).values; },
                  {f64({0.5, -1.5, 2.5, 3.25, 3, -3, 0.75, 0.25, -0.5, 1, 2, 4}, {2, 2, 3})});
  check_gradients([](const auto& x) { return nn::top_k(x[0], 2).values; },
                  {f64({0.5, -1.5, 2.5}, {3})});
  // The input's dims known only when it runs.
  check_gradients(
      [](const auto& x) {
        Output unknown = placeholder_with_default(x[0], Shape{-1, -1});
        return nn::top_k(unknown, 2).values;
      },
      {kRows});
}

TEST_CASE("nn_extras/grad: l2_normalize against TensorFlow and numerically") {
  // TF: x = [[3,4,0],[1,-2,2]], w = [[1,2,3],[4,5,6]],
  //     tf.gradients(reduce_sum(l2_normalize(x, axis) * w), x):
  //   axis 1: [-0.0640000254, 0.0479999781, 0.600000024, 1.11111116, 2.11111116, 1.55555558]
  //   axis 0: [-0.347850591, 0.53665632, 1.5, 1.04355156, 1.07331264, 0]
  //   x = [[3,4],[0,0],[1e-7,0]], w = ones, axis 1: [[0.032,-0.024],[1e6,1e6],[1e6,1e6]]
  //   (below epsilon the norm is a constant: only rsqrt(epsilon) flows back)
  Graph g;
  auto guard = g.as_default();
  auto x = constant<float>({{3, 4, 0}, {1, -2, 2}});
  auto w = constant<float>({{1, 2, 3}, {4, 5, 6}});
  Session sess(g);
  auto grad_of = [&](const Output& y, const Output& of) {
    return sess.run(gradients(reduce_sum(y * w), {of})[0]).to_vector<float>();
  };
  check_close(grad_of(nn::l2_normalize(x, 1), x),
              {-0.0640000254f, 0.0479999781f, 0.600000024f, 1.11111116f, 2.11111116f, 1.55555558f},
              1e-5);
  check_close(grad_of(nn::l2_normalize(x, 0), x),
              {-0.347850591f, 0.53665632f, 1.5f, 1.04355156f, 1.07331264f, 0}, 1e-5);
  auto small = constant<float>({{3, 4}, {0, 0}, {1e-7f, 0}});
  Output dy = gradients(reduce_sum(nn::l2_normalize(small, 1)), {small})[0];
  check_close(sess.run(dy).to_vector<float>(),
              {0.031999990f, -0.024000004f, 1e6f, 1e6f, 1e6f, 1e6f}, 1e-5);

  const Value x64 = f64({3, 4, 0.5, 1, -2, 2}, {2, 3});
  check_gradients([](const auto& v) { return nn::l2_normalize(v[0], 1); }, {x64});
  check_gradients([](const auto& v) { return nn::l2_normalize(v[0], 0); }, {x64});
  check_gradients([](const auto& v) { return nn::l2_normalize(v[0], Axis{0, 1}); }, {x64});
}

TEST_CASE("nn_extras/grad: embedding_lookup against TensorFlow and numerically") {
  // TF: params = [[1,2,3],[4,5,6],[7,8,9],[10,11,12]], ids = [[3,0],[3,3],[1,2]],
  //     w = arange(18).reshape(3,2,3): tf.gradients(reduce_sum(e * w), params) (an
  //     IndexedSlices in TensorFlow, converted to dense) =
  //     [[3,4,5],[12,13,14],[15,16,17],[15,18,21]]
  Graph g;
  auto guard = g.as_default();
  auto params = constant<float>({{1, 2, 3}, {4, 5, 6}, {7, 8, 9}, {10, 11, 12}});
  Output e = nn::embedding_lookup(params, constant<std::int32_t>({{3, 0}, {3, 3}, {1, 2}}));
  std::vector<float> w(18);
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(i);
  Output dparams =
      gradients(reduce_sum(e * constant(Value::from_vector(w, {3, 2, 3}))), {params})[0];
  Session sess(g);
  CHECK(sess.run(dparams).to_vector<float>() ==
        std::vector<float>{3, 4, 5, 12, 13, 14, 15, 16, 17, 15, 18, 21});

  check_gradients(
      [](const auto& x) {
        return nn::embedding_lookup(x[0], constant<std::int32_t>({{3, 0}, {3, 3}, {1, 2}}));
      },
      {f64({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, {4, 3})});
  // The ids fed (an int input is fed, not differentiated).
  check_gradients([](const auto& x) { return nn::embedding_lookup(x[0], x[1]); },
                  {f64({0.5, -1, 2, 3.5, -0.25, 1.5}, {3, 2}),
                   Value::from_vector<std::int64_t>({2, 0, 2}, {3})});
}

TEST_CASE("nn_extras/grad: embedding_lookup of shards against TensorFlow and numerically") {
  // TF: p0 = [[1,2],[3,4],[5,6]], p1 = [[7,8],[9,10]], p2 = [[11,12],[13,14]], ids int64
  //     [[4,0,5],[1,3,6]], w = arange(12).reshape(2,3,2):
  //     tf.gradients(reduce_sum(embedding_lookup([p0,p1,p2], ids) * w), [p0,p1,p2]) =
  //     [[2,3],[8,9],[10,11]], [[6,7],[0,1]], [[0,0],[4,5]]
  Graph g;
  auto guard = g.as_default();
  auto p0 = constant<float>({{1, 2}, {3, 4}, {5, 6}});
  auto p1 = constant<float>({{7, 8}, {9, 10}});
  auto p2 = constant<float>({{11, 12}, {13, 14}});
  Output e = nn::embedding_lookup({p0, p1, p2}, constant<std::int64_t>({{4, 0, 5}, {1, 3, 6}}));
  std::vector<float> w(12);
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(i);
  const std::vector<Output> grads =
      gradients(reduce_sum(e * constant(Value::from_vector(w, {2, 3, 2}))), {p0, p1, p2});
  Session sess(g);
  CHECK(sess.run(grads[0]).to_vector<float>() == std::vector<float>{2, 3, 8, 9, 10, 11});
  CHECK(sess.run(grads[1]).to_vector<float>() == std::vector<float>{6, 7, 0, 1});
  CHECK(sess.run(grads[2]).to_vector<float>() == std::vector<float>{0, 0, 4, 5});

  check_gradients(
      [](const auto& x) {
        return nn::embedding_lookup({x[0], x[1]}, constant<std::int32_t>({3, 0, 2, 3}));
      },
      {f64({0.5, -1, 2, 3.5}, {2, 2}), f64({-0.25, 1.5, 4, 0.75}, {2, 2})});
}

}  // namespace symflow_test_ops_nn_extras_grad_test
