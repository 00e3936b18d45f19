// Gradients of the transform ops (transpose, concat, stack/unstack, split, slice,
// strided_slice, gather, pad, unsorted_segment_sum), checked against central
// differences in float64, plus the graph TensorFlow builds for some of them and the
// ops no gradient flows through.

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include <symflow/ops/registry.hpp>
#include <symflow/symflow.hpp>
#include <symflow/train/gradients.hpp>

#include "../gradient_check.hpp"
#include "../test_util.hpp"

namespace symflow_test_ops_transform_grad_test {

namespace ops_transform_grad_test {

using namespace symflow;
using namespace symflow::test;

// Distinct float64 values (no ties, not symmetric) of `dims`.
inline Value sample(const Dims& dims) {
  std::vector<double> v(static_cast<std::size_t>(num_elements(dims)));
  for (std::size_t i = 0; i < v.size(); ++i)
    v[i] = 0.25 + 0.5 * static_cast<double>(i) - 0.03 * static_cast<double>(i * i % 7);
  return Value::from_vector(v, dims);
}

}  // namespace ops_transform_grad_test

using namespace ops_transform_grad_test;

TEST_CASE("transform_grad/transpose: explicit and default perm") {
  check_gradients(
      [](const std::vector<Output>& x) {
        return transpose(x[0], {1, 2, 0});
      },
      {sample({2, 3, 4})});
  check_gradients([](const std::vector<Output>& x) { return transpose(x[0]); },
                  {sample({2, 3, 4})});
}

TEST_CASE("transform_grad/transpose: the graph TensorFlow builds") {
  Graph g;
  auto guard = g.as_default();
  Output x = placeholder(DType::float64, Shape{2, 3}, "x");
  Output t = transpose(x, {1, 0});
  std::vector<Output> dx = gradients(t, {x});
  REQUIRE(dx[0].valid());
  CHECK(dx[0].name() == "gradients/transpose_grad/transpose:0");
  CHECK(input_names(dx[0])[1] == "gradients/transpose_grad/InvertPermutation:0");
  CHECK(dx[0].shape() == Shape{2, 3});
}

TEST_CASE("transform_grad/concat: two and three inputs, negative axis") {
  check_gradients(
      [](const std::vector<Output>& x) {
        return concat({x[0], x[1]}, 1);
      },
      {sample({2, 3}), sample({2, 2})});
  check_gradients(
      [](const std::vector<Output>& x) {
        return concat({x[0], x[1], x[0]}, -3);
      },
      {sample({1, 2, 3}), sample({2, 2, 3})});
}

TEST_CASE("transform_grad/stack: axis 0 and 1") {
  check_gradients(
      [](const std::vector<Output>& x) {
        return stack({x[0], x[1]});
      },
      {sample({2, 3}), sample({2, 3})});
  check_gradients(
      [](const std::vector<Output>& x) {
        return stack({x[0], x[1], x[0]}, 1);
      },
      {sample({2, 3}), sample({2, 3})});
}

TEST_CASE("transform_grad/unstack: all outputs, and only some of them") {
  check_gradients([](const std::vector<Output>& x) { return stack(unstack(x[0], {}, 1), 2); },
                  {sample({2, 3, 2})});
  // Output 1 is unused: its gradient is zeros.
  check_gradients(
      [](const std::vector<Output>& x) {
        std::vector<Output> p = unstack(x[0], {}, 1);
        return multiply(p[0], p[2]);
      },
      {sample({2, 3, 2})});
}

TEST_CASE("transform_grad/split: Split and SplitV, with unused outputs") {
  check_gradients([](const std::vector<Output>& x) { return split(x[0], 2, 1)[1]; },
                  {sample({2, 4})});
  check_gradients(
      [](const std::vector<Output>& x) {
        std::vector<Output> p = split(x[0], 3, 0);
        return add(p[0], multiply(p[2], p[2]));
      },
      {sample({3, 2})});
  check_gradients(
      [](const std::vector<Output>& x) {
        return split(x[0], Dims{1, -1}, 2)[1];
      },
      {sample({2, 2, 4})});
  check_gradients(
      [](const std::vector<Output>& x) {
        std::vector<Output> p = split(x[0], Dims{2, 1, 1}, -1);
        return concat({p[2], p[0]}, 1);
      },
      {sample({3, 4})});
}

TEST_CASE("transform_grad/slice: constant and fed begin") {
  check_gradients(
      [](const std::vector<Output>& x) {
        return slice(x[0], {1, 0, 1}, {-1, 2, 2});
      },
      {sample({2, 3, 4})});
  // begin is fed (int32, not differentiated): the gradient is built from tensors only.
  check_gradients(
      [](const std::vector<Output>& x) {
        return slice(x[0], x[1], {2, 1});
      },
      {sample({3, 3}), Value({1, 2})});
}

TEST_CASE("transform_grad/strided_slice: ranges, strides, shrink, new axis, ellipsis") {
  auto x = sample({3, 4, 5});
  // x[0, 1:, ::2]
  check_gradients(
      [](const std::vector<Output>& in) {
        return strided_slice(in[0], {0, 1, 0}, {1, 0, 0}, {1, 1, 2},
                             {.begin_mask = 4, .end_mask = 6, .shrink_axis_mask = 1});
      },
      {x});
  // x[::-2, ..., tf.newaxis, 3:0:-2]
  check_gradients(
      [](const std::vector<Output>& in) {
        return strided_slice(
            in[0], {0, 0, 0, 3}, {0, 0, 0, 0}, {-2, 1, 1, -2},
            {.begin_mask = 1, .end_mask = 1, .ellipsis_mask = 2, .new_axis_mask = 4});
      },
      {x});
  // x[:, -1]
  check_gradients(
      [](const std::vector<Output>& in) {
        return strided_slice(in[0], {0, -1}, {0, 0}, {1, 1},
                             {.begin_mask = 1, .end_mask = 1, .shrink_axis_mask = 2});
      },
      {x});
}

TEST_CASE("transform_grad/strided_slice: StridedSliceGrad in the graph") {
  Graph g;
  auto guard = g.as_default();
  Output x = placeholder(DType::float64, Shape{4, 3}, "x");
  Output s = strided_slice(x, {1}, {3}, {1});
  Output dx = gradients(s, {x})[0];
  REQUIRE(dx.valid());
  CHECK(dx.op().type() == "StridedSliceGrad");
  CHECK(dx.name() == "gradients/strided_slice_grad/StridedSliceGrad:0");
  CHECK(dx.shape() == Shape{4, 3});
  Value xv = Value::filled<double>({4, 3}, 1.0);
  CHECK(run_vector<double>(dx, {{x, xv}}) ==
        std::vector<double>{0, 0, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0});
}

TEST_CASE("transform_grad/strided_slice: StridedSliceGrad's own gradient") {
  // The first derivative of sum(x[1:3]^2) is StridedSliceGrad(2 * x[1:3]); its gradient
  // with respect to x goes back through StridedSliceGrad.
  check_gradients(
      [](const std::vector<Output>& in) {
        Output s = strided_slice(in[0], {1}, {3}, {1});
        return gradients(reduce_sum(square(s)), {in[0]})[0];
      },
      {sample({4, 3})});
}

TEST_CASE("transform_grad/gather: repeated indices add up, on any axis") {
  // Row 0 is gathered twice: its gradient is the sum of both.
  check_gradients(
      [](const std::vector<Output>& x) {
        return gather(x[0], {0, 2, 0});
      },
      {sample({3, 2})});
  check_gradients(
      [](const std::vector<Output>& x) {
        return gather(x[0], {{1, 0}, {1, 1}}, 1);
      },
      {sample({2, 3, 2})});
  check_gradients(
      [](const std::vector<Output>& x) {
        return gather(x[0], {3, 0, 3}, -1);
      },
      {sample({2, 4})});
  // Fed indices (int32): the gradient still reaches params.
  check_gradients([](const std::vector<Output>& x) { return gather(x[0], x[1], 1); },
                  {sample({2, 3}), Value({2, 2, 0})});
}

TEST_CASE("transform_grad/gather: the values TensorFlow gives") {
  // tf.gradients(tf.reduce_sum(tf.gather(x, [0, 2, 0]) * w), x) with x of shape [3, 2]
  // and w = [[1, 2], [3, 4], [5, 6]] gives [[6, 8], [0, 0], [3, 4]].
  Graph g;
  auto guard = g.as_default();
  Output x = placeholder(DType::float64, Shape{3, 2}, "x");
  Output w = constant(Value({{1.0, 2.0}, {3.0, 4.0}, {5.0, 6.0}}));
  Output y = reduce_sum(multiply(gather(x, {0, 2, 0}), w));
  Output dx = gradients(y, {x})[0];
  CHECK(run_vector<double>(dx, {{x, sample({3, 2})}}) == std::vector<double>{6, 8, 0, 0, 3, 4});
  // A non-constant axis has no gradient here.
  Output axis = placeholder(DType::int32, Shape{}, "axis");
  Output z = gather(x, {0}, axis);
  CHECK(thrown<LookupError>([&] { gradients(z, {x}); }).has_value());
}

TEST_CASE("transform_grad/pad: Pad and PadV2") {
  check_gradients(
      [](const std::vector<Output>& x) {
        return pad(x[0], {{1, 0}, {2, 1}});
      },
      {sample({2, 3})});
  check_gradients(
      [](const std::vector<Output>& x) {
        return pad(x[0], {{0, 2}}, 3.5);
      },
      {sample({3})});
}

TEST_CASE("transform_grad/unsorted_segment_sum: gradient w.r.t. data, dropped rows get zeros") {
  check_gradients(
      [](const std::vector<Output>& x) {
        return unsorted_segment_sum(x[0], {2, 0, -1, 2}, 3);
      },
      {sample({4, 2})});
  Graph g;
  auto guard = g.as_default();
  Output d = placeholder(DType::float64, Shape{3}, "d");
  Output s = unsorted_segment_sum(d, {1, -1, 1}, 2);
  Output dd = gradients(s, {d})[0];
  CHECK(run_vector<double>(dd, {{d, Value({1.0, 2.0, 3.0})}}) == std::vector<double>{1, 0, 1});
}

TEST_CASE("transform_grad: nothing flows through range and one_hot") {
  Graph g;
  auto guard = g.as_default();
  Output start = placeholder(DType::float64, Shape{}, "start");
  Output r = range(start, 5.0);
  CHECK(!gradients(r, {start})[0].valid());
  // The one_hot term does not depend on start; the range term reaches it through Range only.
  Output h = one_hot({0, 1}, 3, {.dtype = DType::float64});
  CHECK(!gradients(add(reduce_sum(h), reduce_sum(r)), {start})[0].valid());
  CHECK((find_op_entry("OneHot")->grad == &not_differentiable));
  CHECK((find_op_entry("Range")->grad == &not_differentiable));
  CHECK((find_op_entry("InvertPermutation")->grad == &not_differentiable));
}

}  // namespace symflow_test_ops_transform_grad_test
