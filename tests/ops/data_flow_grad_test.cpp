// Gradients of DynamicStitch, ParallelDynamicStitch and DynamicPartition (TensorFlow's
// data_flow_grad.py), checked against central differences in float64 and against the
// values tf.gradients gives in TensorFlow 2.21 (tf.compat.v1 graph mode), including the
// cases where the two differ (duplicate indices); and Unique, which has none.

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include <symflow/ops/registry.hpp>
#include <symflow/symflow.hpp>
#include <symflow/train/gradients.hpp>

#include "../gradient_check.hpp"
#include "../test_util.hpp"

namespace symflow_test_ops_data_flow_grad_test {

using namespace symflow;
using namespace symflow::test;

// Distinct float64 values of `dims`.
inline Value sample(const Dims& dims) {
  std::vector<double> v(static_cast<std::size_t>(num_elements(dims)));
  for (std::size_t i = 0; i < v.size(); ++i)
    v[i] = 0.5 + 0.25 * static_cast<double>(i) - 0.07 * static_cast<double>(i * i % 5);
  return Value::from_vector(v, dims);
}

inline Output f64(std::vector<double> v, Dims dims) {
  return constant(Value::from_vector(v, std::move(dims)));
}

inline std::vector<double> run_f64(Session& sess, const Output& t) {
  REQUIRE(t.valid());
  return sess.run(t).to_vector<double>();
}

// ---- numerical checks -----------------------------------------------------------------

TEST_CASE("data_flow_grad/dynamic_stitch: indices of rank 0, 1 and 2, gaps, fed indices") {
  check_gradients(
      [](const std::vector<Output>& x) {
        return dynamic_stitch({constant(6), constant({4, 1}), constant({{5, 2}, {0, 3}})},
                              {x[0], x[1], x[2]});
      },
      {sample({2}), sample({2, 2}), sample({2, 2, 2})});
  // Rows 1 to 3 come from no data input.
  check_gradients(
      [](const std::vector<Output>& x) {
        return dynamic_stitch({constant({0, 4})}, {x[0]});
      },
      {sample({2, 3})});
  check_gradients(
      [](const std::vector<Output>& x) {
        return dynamic_stitch({x[0], x[2]}, {x[1], x[3]});
      },
      {Value{2, 0}, sample({2, 3}), Value{1}, sample({1, 3})});
}

TEST_CASE("data_flow_grad/parallel_dynamic_stitch: the same gradient") {
  check_gradients(
      [](const std::vector<Output>& x) {
        return parallel_dynamic_stitch({constant(6), constant({4, 1}), constant({{5, 2}, {0, 3}})},
                                       {x[0], x[1], x[2]});
      },
      {sample({2}), sample({2, 2}), sample({2, 2, 2})});
}

TEST_CASE("data_flow_grad/dynamic_partition: 1-D and 2-D partitions, an unused output") {
  // Output 1 is not used: its gradient comes as zeros.
  check_gradients(
      [](const std::vector<Output>& x) {
        std::vector<Output> p = dynamic_partition(x[0], constant({{2, 0, 2}, {0, 0, 1}}), 3);
        return concat({p[0], multiply(p[2], constant(2.0))}, 0);
      },
      {sample({2, 3, 2})});
  check_gradients([](const std::vector<Output>& x) { return dynamic_partition(x[0], x[1], 2)[1]; },
                  {sample({5}), Value{1, 0, 1, 1, 0}});
  // A scalar partition takes the whole of data as one slice.
  check_gradients(
      [](const std::vector<Output>& x) { return dynamic_partition(x[0], constant(1), 2)[1]; },
      {sample({3})});
}

// ---- tf.gradients' values ----------------------------------------------------------------

TEST_CASE("data_flow_grad/dynamic_stitch: TensorFlow's values and graph") {
  Graph g;
  auto guard = g.as_default();
  Output i0 = constant(6), i1 = constant({4, 1}), i2 = constant({{5, 2}, {0, 3}});
  Output d0 = f64({61, 62}, {2}), d1 = f64({41, 42, 11, 12}, {2, 2});
  Output d2 = f64({51, 52, 21, 22, 1, 2, 31, 32}, {2, 2, 2});
  Output s = dynamic_stitch({i0, i1, i2}, {d0, d1, d2});
  // w = np.arange(14).reshape(7, 2) * 0.5 + 1
  std::vector<double> w(14);
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = 0.5 * static_cast<double>(i) + 1;
  Output loss = reduce_sum(multiply(s, f64(w, {7, 2})));
  std::vector<Output> grads = gradients(loss, {i0, i1, i2, d0, d1, d2});
  REQUIRE(grads.size() == 6);
  CHECK_FALSE(grads[0].valid());  // indices have none
  CHECK_FALSE(grads[1].valid());
  CHECK_FALSE(grads[2].valid());
  CHECK(grads[3].name() == "gradients/DynamicStitch_grad/GatherV2:0");
  CHECK(grads[4].name() == "gradients/DynamicStitch_grad/GatherV2_1:0");
  CHECK(grads[5].name() == "gradients/DynamicStitch_grad/GatherV2_2:0");
  CHECK(grads[5].shape() == Shape{2, 2, 2});
  Session sess(g);
  CHECK(run_f64(sess, grads[3]) == std::vector<double>{7.0, 7.5});
  CHECK(run_f64(sess, grads[4]) == std::vector<double>{5.0, 5.5, 2.0, 2.5});
  CHECK(run_f64(sess, grads[5]) == std::vector<double>{6.0, 6.5, 3.0, 3.5, 1.0, 1.5, 4.0, 4.5});
}

TEST_CASE("data_flow_grad/dynamic_stitch: with duplicates every data element gets a gradient") {
  // TensorFlow gathers for every index, so an overwritten element still gets the gradient
  // of the row it would have filled (where central differences would say zero).
  Graph g;
  auto guard = g.as_default();
  Output a = f64({1, 2, 3}, {3}), b = f64({4, 5}, {2});
  Output w = f64({1, 10, 100}, {3});
  Output s = dynamic_stitch({constant({0, 1, 2}), constant({2, 0})}, {a, b});
  Output p = parallel_dynamic_stitch({constant({0, 1, 2}), constant({2, 0})}, {a, b});
  std::vector<Output> gs = gradients(reduce_sum(multiply(s, w)), {a, b});
  std::vector<Output> gp = gradients(reduce_sum(multiply(p, w)), {a, b});
  CHECK(gp[0].name() == "gradients_1/ParallelDynamicStitch_grad/GatherV2:0");
  Session sess(g);
  CHECK(run_f64(sess, s) == std::vector<double>{5, 2, 4});
  for (const auto* grads : {&gs, &gp}) {
    CHECK(run_f64(sess, (*grads)[0]) == std::vector<double>{1, 10, 100});
    CHECK(run_f64(sess, (*grads)[1]) == std::vector<double>{100, 1});
  }
}

TEST_CASE("data_flow_grad/dynamic_partition: TensorFlow's values and graph") {
  Graph g;
  auto guard = g.as_default();
  std::vector<double> iota(12);
  for (std::size_t i = 0; i < iota.size(); ++i) iota[i] = static_cast<double>(i);
  Output d = f64(iota, {2, 3, 2});
  Output p = constant({{1, 0, 1}, {0, 0, 1}});
  std::vector<Output> o = dynamic_partition(d, p, 3);
  Output loss = add(reduce_sum(multiply(o[0], f64({1, 2}, {1, 2}))),
                    reduce_sum(multiply(o[1], constant(3.0))));
  std::vector<Output> gd = gradients(loss, {d, p});
  REQUIRE(gd.size() == 2);
  CHECK_FALSE(gd[1].valid());  // partitions have none
  CHECK(gd[0].op().type() == "Reshape");
  CHECK(g.get_operation_by_name("gradients/DynamicPartition_grad/ParallelDynamicStitch").type() ==
        "ParallelDynamicStitch");
  CHECK(g.get_operation_by_name("gradients/DynamicPartition_grad/DynamicPartition").type() ==
        "DynamicPartition");

  // Scalar partitions; a 1-D partition with an output nothing reads.
  Output s = f64({1, 2}, {2});
  Output gs = gradients(
      reduce_sum(multiply(dynamic_partition(s, constant(1), 2)[1], f64({5, 7}, {1, 2}))), {s})[0];
  Output v = f64({1, 2, 3, 4, 5}, {5});
  std::vector<Output> ov = dynamic_partition(v, constant({2, 0, 2, 1, 0}), 3);
  Output gv =
      gradients(add(reduce_sum(multiply(ov[2], f64({10, 20}, {2}))), reduce_sum(ov[0])), {v})[0];

  Session sess(g);
  CHECK(run_f64(sess, gd[0]) == std::vector<double>{3, 3, 1, 2, 3, 3, 1, 2, 1, 2, 3, 3});
  CHECK(sess.run(gd[0]).dims() == Dims{2, 3, 2});
  CHECK(run_f64(sess, gs) == std::vector<double>{5, 7});
  CHECK(run_f64(sess, gv) == std::vector<double>{10, 1, 20, 0, 1});
}

TEST_CASE("data_flow_grad: TensorFlow's partition-and-stitch example passes gradients through") {
  Graph g;
  auto guard = g.as_default();
  Output x = constant({0.1f, -1.f, 5.2f, 4.3f, -1.f, 7.4f});
  Output mask = cast(not_equal(x, constant(-1.f)), DType::int32);
  std::vector<Output> parts = dynamic_partition(x, mask, 2);
  parts[1] = add(parts[1], constant(1.f));
  Output n = strided_slice(shape(x), {0}, {1}, {1}, {.shrink_axis_mask = 1});
  std::vector<Output> where = dynamic_partition(range(n), mask, 2);
  Output y = dynamic_stitch({where[0], where[1]}, {parts[0], parts[1]});
  Output gx = gradients(reduce_sum(multiply(y, constant({1.f, 2.f, 3.f, 4.f, 5.f, 6.f}))), {x})[0];
  Session sess(g);
  CHECK(sess.run(gx).to_vector<float>() == std::vector<float>{1, 2, 3, 4, 5, 6});
}

TEST_CASE("data_flow_grad/unique: no gradient, as in TensorFlow; idx still routes others'") {
  Graph g;
  auto guard = g.as_default();
  Output x = f64({2, 1, 2}, {3});
  UniqueOutputs u = unique(x);
  CHECK_THROWS_WITH_AS(gradients(reduce_sum(u.y), {x}),
                       doctest::Contains("No gradient defined for operation 'Unique'"),
                       LookupError);
  // tf.gradients(reduce_sum(gather(params, idx)), params): Unique is off the path.
  Output params = f64({1, 2}, {2});
  Output gp = gradients(reduce_sum(gather(params, u.idx)), {params})[0];
  Session sess(g);
  CHECK(run_f64(sess, gp) == std::vector<double>{2, 1});
}

}  // namespace symflow_test_ops_data_flow_grad_test
