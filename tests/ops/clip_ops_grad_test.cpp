// Gradients through clip_by_norm and clip_by_global_norm: numerical checks in float64,
// and TensorFlow's values (oracle: TensorFlow 2.21, tf.compat.v1 graph mode).
#include <doctest/doctest.h>

#include <string>
#include <symflow/ops/clip_ops.hpp>
#include <symflow/symflow.hpp>
#include <vector>

#include "../gradient_check.hpp"
#include "../test_util.hpp"

namespace symflow_test_ops_clip_ops_grad_test {

namespace tf = symflow;
using tf::test::check_close;
using tf::test::check_gradients;

namespace {

tf::Value f64(std::vector<double> v, tf::Dims dims) {
  return tf::Value::from_vector(std::move(v), std::move(dims));
}

}  // namespace

TEST_CASE("ops/clip_ops_grad: clip_by_norm, numerically") {
  // Over all axes the norm is 5.48, clipped to 2; per row with a clip norm of 3 the first
  // row (norm 5) is clipped and the second (2.24) kept: no norm sits at its kink.
  const tf::Value t = f64({3, 4, 1, 2}, {2, 2});
  check_gradients([](const std::vector<tf::Output>& in) { return tf::clip_by_norm(in[0], 2.0); },
                  {t});
  check_gradients(
      [](const std::vector<tf::Output>& in) { return tf::clip_by_norm(in[0], 3.0, {1}); }, {t});
  // A tensor clip norm gets a gradient too.
  check_gradients([](const std::vector<tf::Output>& in) { return tf::clip_by_norm(in[0], in[1]); },
                  {t, tf::Value(2.0)});
}

TEST_CASE("ops/clip_ops_grad: clip_by_global_norm, numerically") {
  check_gradients(
      [](const std::vector<tf::Output>& in) {
        auto [clipped, norm] = tf::clip_by_global_norm({in[0], in[1]}, 2.0);
        return tf::add(tf::reduce_sum(clipped[0]), tf::reduce_sum(clipped[1]));
      },
      {f64({3, 4, 1, 2}, {2, 2}), f64({1}, {1})});
}

TEST_CASE("ops/clip_ops_grad: TensorFlow's gradients through the clips") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Output t = tf::constant(f64({3, 4, 1, 2}, {2, 2}), "t");
  tf::Output w = tf::constant(f64({1, 2, 3, 4}, {2, 2}), "w");
  tf::Output by_norm = tf::gradients(tf::reduce_sum(tf::clip_by_norm(t, 2.0) * w), {t})[0];
  auto [clipped, norm] = tf::clip_by_global_norm({t, tf::constant(f64({1}, {1}))}, 2.0);
  tf::Output by_global = tf::gradients(tf::reduce_sum(clipped[0] * w), {t})[0];
  tf::Session sess(g);
  // TensorFlow:
  check_close(sess.run(by_norm).to_vector<double>(),
              {-0.4381780460041329, -0.3408051468921034, 0.8276696424522509, 0.9250425415642805},
              1e-12);
  check_close(sess.run(by_global).to_vector<double>(),
              {-0.4055603594152984, -0.30127340985136464, 0.8227081576710333, 0.9269951072349671},
              1e-12);
}

}  // namespace symflow_test_ops_clip_ops_grad_test
