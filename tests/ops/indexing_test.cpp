// Python's t[...] on symflow tensors: the StridedSlice that TensorFlow's
// tensor.__getitem__ builds (masks, the "stack" Consts or Packs, node names), checked
// against TensorFlow 2.21 in tf.compat.v1 graph mode on a [4, 5, 6] placeholder.

#include <doctest/doctest.h>

#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include <symflow/symflow.hpp>

#include "../test_util.hpp"

namespace symflow_test_ops_indexing_test {

using namespace symflow;
using namespace symflow::test;

namespace {

std::int64_t mask(const Output& t, const char* name) { return t.op().get_attr<std::int64_t>(name); }

// begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask.
std::vector<std::int64_t> masks(const Output& t) {
  return {mask(t, "begin_mask"), mask(t, "end_mask"), mask(t, "ellipsis_mask"),
          mask(t, "new_axis_mask"), mask(t, "shrink_axis_mask")};
}

template <class T>
std::vector<T> const_values(const Output& t) {
  return t.op().get_attr<Value>("value").to_vector<T>();
}

Value iota_4_5_6() {
  std::vector<float> v(120);
  std::iota(v.begin(), v.end(), 0.0f);
  return Value::from_vector<float>(v, {4, 5, 6});
}

}  // namespace

TEST_CASE("ops/indexing: integers, slices, ellipsis and newaxis build TensorFlow's StridedSlice") {
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<float>({4, 5, 6}, "x");

  // x[0]
  auto a = x[0];
  CHECK(a.name() == "strided_slice:0");
  CHECK(a.op().type() == "StridedSlice");
  CHECK(input_names(a) == std::vector<std::string>{"x:0", "strided_slice/stack:0",
                                                   "strided_slice/stack_1:0",
                                                   "strided_slice/stack_2:0"});
  CHECK(masks(a) == std::vector<std::int64_t>{0, 0, 0, 0, 1});
  CHECK(const_values<std::int32_t>(a.op().inputs()[1]) == std::vector<std::int32_t>{0});
  CHECK(const_values<std::int32_t>(a.op().inputs()[2]) == std::vector<std::int32_t>{1});
  CHECK(a.get_shape() == Shape({5, 6}));

  // x[1:3]
  auto b = x[slice(1, 3)];
  CHECK(b.name() == "strided_slice_1:0");
  CHECK(masks(b) == std::vector<std::int64_t>{0, 0, 0, 0, 0});
  CHECK(b.get_shape() == Shape({2, 5, 6}));

  // x[:, 2]
  auto c = x[{slice(), 2}];
  CHECK(masks(c) == std::vector<std::int64_t>{1, 1, 0, 0, 2});
  CHECK(const_values<std::int32_t>(c.op().inputs()[1]) == std::vector<std::int32_t>{0, 2});
  CHECK(const_values<std::int32_t>(c.op().inputs()[2]) == std::vector<std::int32_t>{0, 3});
  CHECK(c.get_shape() == Shape({4, 6}));

  // x[..., 1]
  auto d = x[{ellipsis, 1}];
  CHECK(masks(d) == std::vector<std::int64_t>{0, 0, 1, 0, 2});
  CHECK(d.get_shape() == Shape({4, 5}));

  // x[tf.newaxis, 0, ::2]
  auto e = x[{newaxis, 0, slice({}, {}, 2)}];
  CHECK(masks(e) == std::vector<std::int64_t>{4, 4, 0, 1, 2});
  CHECK(const_values<std::int32_t>(e.op().inputs()[3]) == std::vector<std::int32_t>{1, 1, 2});
  CHECK(e.get_shape() == Shape({1, 3, 6}));

  // x[-1]: end -1 + 1 = 0, which the shrink makes right
  auto f = x[-1];
  CHECK(const_values<std::int32_t>(f.op().inputs()[1]) == std::vector<std::int32_t>{-1});
  CHECK(const_values<std::int32_t>(f.op().inputs()[2]) == std::vector<std::int32_t>{0});

  // x[1, :, -2:]
  auto h = x[{1, slice(), slice(-2, {})}];
  CHECK(h.name() == "strided_slice_6:0");
  CHECK(masks(h) == std::vector<std::int64_t>{2, 6, 0, 0, 1});
  CHECK(h.get_shape() == Shape({5, 2}));

  Session sess(g);
  const Value v = iota_4_5_6();
  CHECK(sess.run(h, {{x, v}}).to_vector<float>() ==
        std::vector<float>{34, 35, 40, 41, 46, 47, 52, 53, 58, 59});
  CHECK(sess.run(f, {{x, v}}).to_vector<float>()[0] == 90.0f);
  CHECK(sess.run(e, {{x, v}}).to_vector<float>()[6] == 12.0f);
}

TEST_CASE("ops/indexing: a tensor index packs its begin and end, its end built before the scope") {
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<float>({4, 5, 6}, "x");
  auto i = placeholder<std::int32_t>(Shape(Dims{}), "i");

  // TF: add = i + 1 outside the scope; strided_slice/stack = Pack(i),
  //     strided_slice/stack_1 = Pack(add), strided_slice/stack_2 = Const [1].
  auto a = x[i];
  CHECK(input_names(a) == std::vector<std::string>{"x:0", "strided_slice/stack:0",
                                                   "strided_slice/stack_1:0",
                                                   "strided_slice/stack_2:0"});
  CHECK(a.op().inputs()[1].op().type() == "Pack");
  CHECK(input_names(a.op().inputs()[2]) == std::vector<std::string>{"add:0"});
  CHECK(a.op().inputs()[3].op().type() == "Const");
  CHECK(a.get_shape() == Shape({5, 6}));

  // x[i, 1:]: the number 1 in a Pack is a Const named by its position, "stack/1".
  auto b = x[{i, slice(1, {})}];
  CHECK(input_names(b.op().inputs()[1]) ==
        std::vector<std::string>{"i:0", "strided_slice_1/stack/1:0"});
  CHECK(input_names(b.op().inputs()[2]) ==
        std::vector<std::string>{"add_1:0", "strided_slice_1/stack_1/1:0"});
  CHECK(masks(b) == std::vector<std::int64_t>{0, 2, 0, 0, 1});

  Session sess(g);
  const Value v = iota_4_5_6();
  Value r = sess.run(b, {{x, v}, {i, 2}});
  CHECK(r.dims() == Dims{4, 6});
  CHECK(r.to_vector<float>()[0] == 66.0f);
}

TEST_CASE("ops/indexing: typed handles keep their type; bad indices are TensorFlow's errors") {
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<float>({4, 5, 6}, "x");
  Tensor<float> row = x[0];
  CHECK(row.dtype() == DType::float32);

  // TF: ValueError "slice index 7 of dimension 0 out of bounds. for '{{node ...}}' ..."
  CHECK_THROWS_WITH_AS(x[7], doctest::Contains("slice index 7 of dimension 0 out of bounds"),
                       ValueError);
  // TF: "Index out of range using input dim 3; input has only 3 dims"
  CHECK_THROWS_WITH_AS((x[{1, 2, 3, 4}]), doctest::Contains("Index out of range using input dim 3"),
                       ValueError);
  auto f = placeholder<float>(Shape(Dims{}), "f");
  CHECK_THROWS_WITH_AS(x[f], doctest::Contains("are valid indices, got f:0 of dtype float32"),
                       TypeError);
  CHECK_THROWS_AS(x[slice(0, 4, 0)], ValueError);
}

}  // namespace symflow_test_ops_indexing_test
