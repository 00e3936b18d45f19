// Transpose, ConcatV2, Pack/Unpack, Split/SplitV, Slice, StridedSlice, GatherV2, Pad,
// OneHot, Range, InvertPermutation and UnsortedSegmentSum, checked against TensorFlow 1.x
// graph mode (tensorflow.compat.v1, eager disabled): node names, attrs, static shapes,
// values and the messages of build-time and run-time errors. Every expected number
// below was printed by TensorFlow.

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include <symflow/symflow.hpp>

#include "../test_util.hpp"

namespace symflow_test_ops_transform_ops_test {

namespace ops_transform_test {

using namespace symflow;
using namespace symflow::test;

// 0, 1, 2, ... in a float32 value of `dims` (TF: np.arange(n).reshape(dims)).
inline Value iota(const Dims& dims) {
  std::vector<float> v(static_cast<std::size_t>(num_elements(dims)));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i);
  return Value::from_vector(v, dims);
}

// The message of the ValueError `f` throws ("" when it throws none).
template <class F>
std::string value_error(F&& f) {
  auto e = thrown<ValueError>(f);
  return e ? std::string(e->what()) : std::string();
}
template <class F>
std::string type_error(F&& f) {
  auto e = thrown<TypeError>(f);
  return e ? std::string(e->what()) : std::string();
}
template <class F>
std::string run_error(F&& f) {
  auto e = thrown<InvalidArgumentError>(f);
  return e ? std::string(e->what()) : std::string();
}

}  // namespace ops_transform_test

using namespace ops_transform_test;

// ---- transpose ------------------------------------------------------------------------

TEST_CASE("transform/transpose: names, shapes and values") {
  Graph g;
  auto guard = g.as_default();
  Output x = constant(iota({2, 3, 4}), "x");
  Output t = transpose(x);
  Output p = transpose(x, {0, 2, 1});
  CHECK(t.name() == "transpose:0");
  CHECK(t.op().type() == "Transpose");
  CHECK(input_names(t) == std::vector<std::string>{"x:0", "transpose/perm:0"});
  CHECK(t.op().get_attr<DType>("Tperm") == DType::int32);
  CHECK(t.shape() == Shape{4, 3, 2});
  CHECK(p.name() == "transpose_1:0");
  CHECK(p.shape() == Shape{2, 4, 3});
  CHECK(run_vector<float>(p) == std::vector<float>{0,  4,  8,  1,  5,  9,  2,  6,  10, 3,  7,  11,
                                                   12, 16, 20, 13, 17, 21, 14, 18, 22, 15, 19, 23});
  std::vector<float> tv = run_vector<float>(t);
  CHECK(tv[0] == 0);
  CHECK(tv[1] == 12);  // t[0, 0, 1] = x[1, 0, 0]
  CHECK(tv[2] == 4);   // t[0, 1, 0] = x[0, 1, 0]
}

TEST_CASE("transform/transpose: unknown rank builds Rank, sub and Range as TensorFlow") {
  Graph g;
  auto guard = g.as_default();
  Output u = placeholder(DType::float32, Shape::unknown(), "u");
  Output t = transpose(u);
  CHECK(nodes(g) ==
        std::vector<std::pair<std::string, std::string>>{{"u", "Placeholder"},
                                                         {"transpose/Rank", "Rank"},
                                                         {"transpose/sub/y", "Const"},
                                                         {"transpose/sub", "Sub"},
                                                         {"transpose/Range/limit", "Const"},
                                                         {"transpose/Range/delta", "Const"},
                                                         {"transpose/Range", "Range"},
                                                         {"transpose", "Transpose"}});
  CHECK(!t.shape().has_rank());
  CHECK(run_vector<float>(t, {{u, Value({{1.0f, 2.0f}, {3.0f, 4.0f}})}}) ==
        std::vector<float>{1, 3, 2, 4});
}

TEST_CASE("transform/transpose: unknown perm keeps the rank, every dtype moves") {
  Graph g;
  auto guard = g.as_default();
  Output x = placeholder(DType::float32, Shape{2, 3});
  Output perm = placeholder(DType::int32);
  CHECK(transpose(x, perm).shape() == Shape{-1, -1});
  Output y = placeholder(DType::float32, Shape::unknown());
  CHECK(transpose(y, placeholder(DType::int32, Shape{3})).shape() == Shape{-1, -1, -1});

  CHECK(run_vector<double>(transpose(constant(Value({{1.0, 2.0}, {3.0, 4.0}})))) ==
        std::vector<double>{1, 3, 2, 4});
  CHECK(run_vector<std::int64_t>(transpose(constant(
            Value({{std::int64_t{1}, std::int64_t{2}}})))) == std::vector<std::int64_t>{1, 2});
  CHECK(run_vector<std::uint8_t>(transpose(constant(
            Value({{std::uint8_t{1}, std::uint8_t{2}}, {std::uint8_t{3}, std::uint8_t{4}}})))) ==
        std::vector<std::uint8_t>{1, 3, 2, 4});
  CHECK(run_vector<bool>(transpose(constant(Value({{true, false}, {false, false}})))) ==
        std::vector<bool>{true, false, false, false});
  CHECK(run_vector<std::int32_t>(transpose(constant(std::int32_t{7}))) ==
        std::vector<std::int32_t>{7});
}

TEST_CASE("transform/transpose: errors name the perm as TensorFlow does") {
  Graph g;
  auto guard = g.as_default();
  Output x = placeholder(DType::float32, Shape{2, 3, 4}, "x");
  std::string e = value_error([&] { transpose(x, {1, 0}); });
  CHECK(contains(e, "Dimension must be 3 but is 2"));
  CHECK(contains(e, "for 'transpose' (op: 'Transpose')"));
  CHECK(contains(value_error([&] {
                   transpose(x, {0, 1, 3});
                 }),
                 "perm dim 3 is out of range of input rank 3"));
  CHECK(contains(value_error([&] {
                   transpose(x, {{0, 1, 2}});
                 }),
                 "Shape must be rank 1 but is rank 2"));
  CHECK(contains(type_error([&] {
                   transpose(x, {0.0f, 1.0f, 2.0f});
                 }),
                 "Value passed to parameter 'perm' has DataType float32 not in list of allowed "
                 "values: int32, int64"));

  Output perm = placeholder(DType::int32, Shape::unknown(), "perm");
  Output t = transpose(x, perm);
  Session sess(g);
  Value xv = iota({2, 3, 4});
  CHECK(contains(run_error([&] {
                   sess.run(t, {{x, xv}, {perm, Value({1, 1, 0})}});
                 }),
                 "2 is missing from {1,1,0}."));
  CHECK(contains(run_error([&] {
                   sess.run(t, {{x, xv}, {perm, Value({0, 1, 3})}});
                 }),
                 "3 is out of range [0 .. 3)"));
  CHECK(contains(run_error([&] {
                   sess.run(t, {{x, xv}, {perm, Value({0, 1})}});
                 }),
                 "transpose expects a vector of size 3. But input(1) is a vector of size 2"));
}

TEST_CASE("transform/invert_permutation: values and errors") {
  Graph g;
  auto guard = g.as_default();
  Output p = invert_permutation({2, 0, 3, 1});
  CHECK(p.name() == "InvertPermutation:0");
  CHECK(input_names(p) == std::vector<std::string>{"InvertPermutation/x:0"});
  CHECK(p.shape() == Shape{4});
  CHECK(run_vector<std::int32_t>(p) == std::vector<std::int32_t>{1, 3, 0, 2});
  CHECK(run_vector<std::int64_t>(invert_permutation(
            Value::from_vector<std::int64_t>({1, 0}, {2}))) == std::vector<std::int64_t>{1, 0});
  CHECK(contains(value_error([&] { invert_permutation({{0}}); }),
                 "Shape must be rank 1 but is rank 2"));
  CHECK(contains(type_error([&] { invert_permutation({0.0f}); }),
                 "Value passed to parameter 'x' has DataType float32 not in list of allowed "
                 "values: int32, int64"));
  Output q = placeholder(DType::int32);
  Output inv = invert_permutation(q);
  Session sess(g);
  CHECK(contains(run_error([&] {
                   sess.run(inv, {{q, Value({0, 3, 1})}});
                 }),
                 "3 is not between 0 and 3"));
  CHECK(contains(run_error([&] {
                   sess.run(inv, {{q, Value({0, 1, 1})}});
                 }),
                 "1 is duplicated in the input."));
}

// ---- concat ---------------------------------------------------------------------------

TEST_CASE("transform/concat: names, attrs, shapes and values") {
  Graph g;
  auto guard = g.as_default();
  Output x = constant(iota({2, 3, 4}), "x");
  Output c = concat({x, x}, 1);
  CHECK(c.name() == "concat:0");
  CHECK(c.op().type() == "ConcatV2");
  CHECK(input_names(c) == std::vector<std::string>{"x:0", "x:0", "concat/axis:0"});
  CHECK(c.op().get_attr<std::int64_t>("N") == 2);
  CHECK(c.op().get_attr<DType>("T") == DType::float32);
  CHECK(c.op().get_attr<DType>("Tidx") == DType::int32);
  CHECK(c.shape() == Shape{2, 6, 4});
  std::vector<float> v = run_vector<float>(c);
  REQUIRE(v.size() == 48);
  CHECK(v[12] == 0);   // c[0, 3, 0] = x[0, 0, 0]
  CHECK(v[24] == 12);  // c[1, 0, 0]

  Output m = concat({constant<std::int32_t>({{1, 2}}), constant<std::int32_t>({{3}})}, -1);
  CHECK(m.shape() == Shape{1, 3});
  CHECK(run_vector<std::int32_t>(m) == std::vector<std::int32_t>{1, 2, 3});

  // One value: an Identity named "concat" inside the scope, as TensorFlow builds it.
  Output one = concat({x}, 1);
  CHECK(one.name() == "concat_2/concat:0");
  CHECK(one.op().type() == "Identity");
  CHECK(g.get_operation_by_name("concat_2/concat_dim").type() == "Const");
}

TEST_CASE("transform/concat: partial shapes propagate") {
  Graph g;
  auto guard = g.as_default();
  Output a = placeholder(DType::float32, Shape{-1, 3});
  Output b = placeholder(DType::float32, Shape{2, -1});
  Output u = placeholder(DType::float32);
  CHECK(concat({a, b, u}, 0).shape() == Shape{-1, 3});
  CHECK(concat({a, b}, 1).shape() == Shape{2, -1});
  CHECK(concat({constant(iota({2, 3})), u}, placeholder(DType::int32)).shape() == Shape{-1, -1});
  CHECK(!concat({u, u}, 0).shape().has_rank());
  CHECK(concat({constant(iota({2, 3})), constant(iota({2, 5}))}, 1).shape() == Shape{2, 8});
}

TEST_CASE("transform/concat: build-time and run-time errors") {
  Graph g;
  auto guard = g.as_default();
  Output x = placeholder(DType::float32, Shape{2, 3, 4}, "x");
  CHECK(contains(value_error([&] {
                   concat({x, zeros(Shape{2, 3})}, 0);
                 }),
                 "Shape must be rank 3 but is rank 2"));
  CHECK(contains(value_error([&] {
                   concat({x, zeros(Shape{2, 5, 4})}, 0);
                 }),
                 "Dimension 0 in both shapes must be equal, but are 3 and 5. Shapes are [3,4] and "
                 "[5,4]."));
  CHECK(contains(value_error([&] {
                   concat({x, x}, 3);
                 }),
                 "Shape must be at least rank 4 but is rank 3"));
  CHECK(contains(value_error([&] {
                   concat({x, x}, -4);
                 }),
                 "Shape must be at least rank 4 but is rank 3"));
  CHECK(contains(value_error([&] {
                   concat({constant(1.0f), constant(2.0f)}, 0);
                 }),
                 "Can't concatenate scalars (use tf.stack instead)"));
  CHECK(contains(type_error([&] {
                   concat({x, zeros(Shape{2, 3, 4}, DType::int32)}, 0);
                 }),
                 "Tensors in list passed to 'values' of 'ConcatV2' Op have types [float32, int32] "
                 "that don't all match."));
  CHECK(contains(type_error([&] {
                   concat({x, x}, 1.0f);
                 }),
                 "Value passed to parameter 'axis' has DataType float32"));

  Output q = placeholder(DType::float32, Shape::unknown(), "q");
  Output axis = placeholder(DType::int32, Shape{}, "axis");
  Output c = concat({x, q}, 0);
  Output ca = concat({x, x}, axis);
  Session sess(g);
  Value xv = iota({2, 3, 4});
  CHECK(contains(run_error([&] {
                   sess.run(c, {{x, xv}, {q, Value(DType::float32, {2, 5, 4})}});
                 }),
                 "ConcatOp : Dimension 1 in both shapes must be equal: shape[0] = [2,3,4] vs. "
                 "shape[1] = [2,5,4]"));
  CHECK(contains(run_error([&] {
                   sess.run(c, {{x, xv}, {q, Value(DType::float32, {2, 5})}});
                 }),
                 "ConcatOp : Ranks of all input tensors should match: shape[0] = [2,3,4] vs. "
                 "shape[1] = [2,5]"));
  CHECK(contains(run_error([&] {
                   sess.run(ca, {{x, xv}, {axis, Value(3)}});
                 }),
                 "ConcatOp : Expected concatenating dimensions in the range [-3, 3), but got 3"));
}

// ---- stack / unstack ------------------------------------------------------------------

TEST_CASE("transform/stack: Pack names, shapes, values and errors") {
  Graph g;
  auto guard = g.as_default();
  Output x = placeholder(DType::float32, Shape{2, 3, 4}, "x");
  Output s = stack({x, x});
  CHECK(s.name() == "stack:0");
  CHECK(s.op().type() == "Pack");
  CHECK(s.op().get_attr<std::int64_t>("N") == 2);
  CHECK(s.op().get_attr<std::int64_t>("axis") == 0);
  CHECK(s.shape() == Shape{2, 2, 3, 4});
  CHECK(stack({x, x}, -1).shape() == Shape{2, 3, 4, 2});
  Output p = stack({constant<std::int32_t>({1, 2}), constant<std::int32_t>({3, 4})}, -1);
  CHECK(run_vector<std::int32_t>(p) == std::vector<std::int32_t>{1, 3, 2, 4});
  CHECK(run_vector<bool>(stack({constant(true), constant(false)})) ==
        std::vector<bool>{true, false});
  Output u = placeholder(DType::float32);
  CHECK(stack({x, u}).shape() == Shape{2, 2, 3, 4});
  CHECK(!stack({u, u}, 5).shape().has_rank());

  CHECK(contains(value_error([&] {
                   stack({x, zeros(Shape{2, 3})});
                 }),
                 "Shapes must be equal rank, but are 3 and 2\n\tFrom merging shape 0 with other "
                 "shapes."));
  CHECK(value_error([&] { stack({x, x}, 4); }) == "Argument `axis` = 4 not in range [-4, 4)");

  Output q = placeholder(DType::float32, Shape::unknown(), "q");
  Output sq = stack({x, q});
  Session sess(g);
  CHECK(contains(
      run_error([&] {
        sess.run(sq, {{x, iota({2, 3, 4})}, {q, Value(DType::float32, {2, 5})}});
      }),
      "Shapes of all inputs must match: values[0].shape = [2,3,4] != values[1].shape = [2,5]"));
}

TEST_CASE("transform/unstack: Unpack outputs, values and errors") {
  Graph g;
  auto guard = g.as_default();
  Output x = constant(iota({2, 3, 4}), "x");
  std::vector<Output> parts = unstack(x, {}, 1);
  REQUIRE(parts.size() == 3);
  CHECK(parts[0].name() == "unstack:0");
  CHECK(parts[2].name() == "unstack:2");
  CHECK(parts[0].op().type() == "Unpack");
  CHECK(parts[0].op().get_attr<std::int64_t>("num") == 3);
  CHECK(parts[0].op().get_attr<std::int64_t>("axis") == 1);
  CHECK(parts[1].shape() == Shape{2, 4});
  CHECK(run_vector<float>(parts[2]) == std::vector<float>{8, 9, 10, 11, 20, 21, 22, 23});
  Session sess(g);
  std::vector<Value> all = sess.run({parts[0], parts[1]});
  CHECK(all[1].to_vector<float>() == std::vector<float>{4, 5, 6, 7, 16, 17, 18, 19});

  CHECK(value_error([&] { unstack(x, {}, 3); }) == "Argument `axis` = 3 not in range [-3, 3)");
  Output p = placeholder(DType::float32, Shape{-1, 2});
  CHECK(value_error([&] { unstack(p); }) == "Cannot infer argument `num` from shape (?, 2)");
  CHECK(contains(value_error([&] { unstack(x, 3, 0); }), "Dimension must be 3 but is 2"));
  std::vector<Output> un = unstack(placeholder(DType::float32), 2, 5);
  CHECK(un.size() == 2);
  CHECK(!un[0].shape().has_rank());
}

// ---- split ----------------------------------------------------------------------------

TEST_CASE("transform/split: Split and SplitV names, shapes and values") {
  Graph g;
  auto guard = g.as_default();
  Output x = constant(iota({2, 3, 4}), "x");
  std::vector<Output> s = split(x, 2, 2);
  REQUIRE(s.size() == 2);
  CHECK(s[0].name() == "split:0");
  CHECK(s[0].op().type() == "Split");
  CHECK(input_names(s[0]) == std::vector<std::string>{"split/split_dim:0", "x:0"});
  CHECK(s[0].op().get_attr<std::int64_t>("num_split") == 2);
  CHECK(s[1].shape() == Shape{2, 3, 2});
  CHECK(run_vector<float>(s[1]) == std::vector<float>{2, 3, 6, 7, 10, 11, 14, 15, 18, 19, 22, 23});

  std::vector<Output> v = split(x, Dims{1, -1}, 2);
  REQUIRE(v.size() == 2);
  CHECK(v[0].name() == "split_1:0");
  CHECK(v[0].op().type() == "SplitV");
  CHECK(input_names(v[0]) == std::vector<std::string>{"x:0", "Const:0", "split_1/split_dim:0"});
  CHECK(v[0].op().get_attr<DType>("Tlen") == DType::int32);
  CHECK(v[0].shape() == Shape{2, 3, 1});
  CHECK(v[1].shape() == Shape{2, 3, 3});
  CHECK(run_vector<float>(v[1]) ==
        std::vector<float>{1, 2, 3, 5, 6, 7, 9, 10, 11, 13, 14, 15, 17, 18, 19, 21, 22, 23});

  Output p = placeholder(DType::float32, Shape{-1, 4});
  std::vector<Output> ps = split(p, 2, 0);
  CHECK(ps[0].shape() == Shape{-1, 4});
  std::vector<Output> pv = split(p, Dims{1, -1}, 0);
  CHECK(pv[0].shape() == Shape{1, 4});
  CHECK(pv[1].shape() == Shape{-1, 4});
  CHECK(split(x, 3, -2)[0].shape() == Shape{2, 1, 4});
}

TEST_CASE("transform/split: build-time and run-time errors") {
  Graph g;
  auto guard = g.as_default();
  Output x = placeholder(DType::float32, Shape{2, 3, 4}, "x");
  CHECK(contains(value_error([&] { split(x, 2, 1); }),
                 "Dimension size must be evenly divisible by 2 but is 3\n\tNumber of ways to "
                 "split should evenly divide the split dimension"));
  CHECK(contains(value_error([&] { split(x, 2, 3); }),
                 "Dimension size, given by scalar input 3 must be in range [-3, 3)"));
  CHECK(contains(value_error([&] {
                   split(x, Dims{1, 2}, 2);
                 }),
                 "can't split axis of size 4 into pieces of size [1,2]"));
  CHECK(contains(value_error([&] {
                   split(x, Dims{-1, -1}, 2);
                 }),
                 "size_splits can only have one -1"));
  CHECK(contains(value_error([&] {
                   split(x, Dims{5, -1}, 2);
                 }),
                 "Split size at index 1 must be >= 0. Got: -1"));
  CHECK(value_error([&] { split(x, 0); }) ==
        "Attr 'num_split' of 'Split' Op passed 0 less than minimum 1.");

  Output axis = placeholder(DType::int32, Shape{}, "axis");
  Output sizes = placeholder(DType::int32, Shape{2}, "sizes");
  Output s = split(x, 2, axis)[0];
  Output v = split(x, sizes, 2)[0];
  CHECK(s.shape() == Shape{-1, -1, -1});
  CHECK(v.shape() == Shape{2, 3, -1});
  Session sess(g);
  Value xv = iota({2, 3, 4});
  CHECK(contains(run_error([&] {
                   sess.run(s, {{x, xv}, {axis, Value(1)}});
                 }),
                 "Number of ways to split should evenly divide the split dimension, but got "
                 "split_dim 1 (size = 3) and num_split 2"));
  CHECK(contains(run_error([&] {
                   sess.run(s, {{x, xv}, {axis, Value(3)}});
                 }),
                 "-input rank(-3) <= split_dim < input rank (3), but got 3"));
  CHECK(contains(run_error([&] {
                   sess.run(v, {{x, xv}, {sizes, Value({1, 2})}});
                 }),
                 "Determined shape must either match input shape along split_dim exactly if fully "
                 "specified, or be less than the size of the input along split_dim if not fully "
                 "specified.  Got: 3"));
  CHECK(contains(run_error([&] { sess.run(v, {{x, xv}, {sizes, Value({5, -1})}}); }), "Got: 5"));
  CHECK(run_vector<float>(v, {{x, xv}, {sizes, Value({3, -1})}}) ==
        std::vector<float>{0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, 16, 17, 18, 20, 21, 22});
}

// ---- slice ----------------------------------------------------------------------------

TEST_CASE("transform/slice: names, shapes, values and errors") {
  Graph g;
  auto guard = g.as_default();
  Output x = constant(iota({2, 3, 4}), "x");
  Output s = slice(x, {1, 0, 1}, {-1, 2, 2});
  CHECK(s.name() == "Slice:0");
  CHECK(input_names(s) == std::vector<std::string>{"x:0", "Slice/begin:0", "Slice/size:0"});
  CHECK(s.op().get_attr<DType>("Index") == DType::int32);
  CHECK(s.shape() == Shape{1, 2, 2});
  CHECK(run_vector<float>(s) == std::vector<float>{13, 14, 17, 18});

  Output p = placeholder(DType::float32, Shape{-1, 4, -1});
  CHECK(slice(p, {1, 1, 1}, {-1, -1, 2}).shape() == Shape{-1, 3, 2});
  CHECK(
      slice(p, placeholder(DType::int32, Shape{3}), placeholder(DType::int32, Shape{3})).shape() ==
      Shape{-1, -1, -1});

  CHECK(contains(value_error([&] {
                   slice(x, {0, 0}, {1, 1, 1});
                 }),
                 "Dimension 0 in both shapes must be equal, but are 2 and 3. Shapes are [2] and "
                 "[3]."));
  CHECK(contains(value_error([&] {
                   slice(x, {0, 0, 0}, {1, 1, -2});
                 }),
                 "Invalid value in tensor used for shape: -2"));
  CHECK(contains(value_error([&] {
                   slice(x, {{0, 0, 0}}, {1, 1, 1});
                 }),
                 "Shape must be rank 1 but is rank 2"));

  Output b = placeholder(DType::int32, Shape::unknown(), "b");
  Output r = slice(x, b, {1, 1, 2});
  Session sess(g);
  CHECK(contains(run_error([&] {
                   sess.run(r, {{b, Value({0, 0, 3})}});
                 }),
                 "Expected size[2] in [0, 1], but got 2"));
  CHECK(contains(run_error([&] {
                   sess.run(r, {{b, Value({0, 0, -1})}});
                 }),
                 "Expected begin[2] in [0, 4], but got -1"));
  CHECK(contains(run_error([&] {
                   sess.run(r, {{b, Value({0, 0})}});
                 }),
                 "Expected begin and size arguments to be 1-D tensors of size 3, but got shapes "
                 "[2] and [3] instead."));
}

// ---- strided_slice --------------------------------------------------------------------

TEST_CASE("transform/strided_slice: the specs x[...] builds, against TensorFlow") {
  Graph g;
  auto guard = g.as_default();
  Output x = constant(iota({2, 3, 4}), "x");
  // x[0, 1:, ::2]
  Output a = strided_slice(x, {0, 1, 0}, {1, 0, 0}, {1, 1, 2},
                           {.begin_mask = 4, .end_mask = 6, .shrink_axis_mask = 1});
  CHECK(a.name() == "strided_slice:0");
  CHECK(a.op().type() == "StridedSlice");
  CHECK(input_names(a) == std::vector<std::string>{"x:0", "strided_slice/stack:0",
                                                   "strided_slice/stack_1:0",
                                                   "strided_slice/stack_2:0"});
  CHECK(a.op().get_attr<std::int64_t>("shrink_axis_mask") == 1);
  CHECK(a.shape() == Shape{2, 2});
  CHECK(run_vector<float>(a) == std::vector<float>{4, 6, 8, 10});
  // x[..., tf.newaxis, 1]
  Output b = strided_slice(x, {0, 0, 1}, {0, 0, 2}, {1, 1, 1},
                           {.ellipsis_mask = 1, .new_axis_mask = 2, .shrink_axis_mask = 4});
  CHECK(b.shape() == Shape{2, 3, 1});
  CHECK(run_vector<float>(b) == std::vector<float>{1, 5, 9, 13, 17, 21});
  // x[::-1, 1]
  Output c = strided_slice(x, {0, 1}, {0, 2}, {-1, 1},
                           {.begin_mask = 1, .end_mask = 1, .shrink_axis_mask = 2});
  CHECK(c.shape() == Shape{2, 4});
  CHECK(run_vector<float>(c) == std::vector<float>{16, 17, 18, 19, 4, 5, 6, 7});
  // x[:, -1]
  Output d = strided_slice(x, {0, -1}, {0, 0}, {1, 1},
                           {.begin_mask = 1, .end_mask = 1, .shrink_axis_mask = 2});
  CHECK(run_vector<float>(d) == std::vector<float>{8, 9, 10, 11, 20, 21, 22, 23});
  // x[1, ::-2, 3:0:-2]
  Output e = strided_slice(x, {1, 0, 3}, {2, 0, 0}, {1, -2, -2},
                           {.begin_mask = 2, .end_mask = 2, .shrink_axis_mask = 1});
  CHECK(e.shape() == Shape{2, 2});
  CHECK(run_vector<float>(e) == std::vector<float>{23, 21, 15, 13});
  // x[:, 5:1] is empty
  Output f = strided_slice(x, {0, 5}, {0, 1}, {1, 1}, {.begin_mask = 1, .end_mask = 1});
  CHECK(f.shape() == Shape{2, 0, 4});
  CHECK(run_vector<float>(f).empty());
  // x[-5:10, tf.newaxis, ..., -2]
  Output h = strided_slice(x, {-5, 0, 0, -2}, {10, 0, 0, -1}, {1, 1, 1, 1},
                           {.ellipsis_mask = 4, .new_axis_mask = 2, .shrink_axis_mask = 8});
  CHECK(h.shape() == Shape{2, 1, 3});
  CHECK(run_vector<float>(h) == std::vector<float>{2, 6, 10, 14, 18, 22});
  CHECK(run_vector<float>(strided_slice(x, {1, 2}, {2, 3}, {1, 1})) ==
        std::vector<float>{20, 21, 22, 23});
}

TEST_CASE("transform/strided_slice: unknown dims and run-time specs") {
  Graph g;
  auto guard = g.as_default();
  Output p = placeholder(DType::float32, Shape{-1, 4, -1}, "p");
  // p[1:, ::2, 0] and p[:, -1]
  CHECK(strided_slice(p, {1, 0, 0}, {0, 0, 1}, {1, 2, 1},
                      {.begin_mask = 2, .end_mask = 3, .shrink_axis_mask = 4})
            .shape() == Shape{-1, 2});
  CHECK(strided_slice(p, {0, -1}, {0, 0}, {1, 1},
                      {.begin_mask = 1, .end_mask = 1, .shrink_axis_mask = 2})
            .shape() == Shape{-1, -1});
  Output b = placeholder(DType::int32, Shape{1}, "b");
  Output s = strided_slice(p, b, {6}, {1}, {.shrink_axis_mask = 1});
  CHECK(s.shape() == Shape{4, -1});
  Session sess(g);
  Value pv = iota({2, 4, 1});
  CHECK(sess.run(s, {{p, pv}, {b, Value({1})}}).to_vector<float>() ==
        std::vector<float>{4, 5, 6, 7});
  CHECK(contains(run_error([&] {
                   sess.run(s, {{p, pv}, {b, Value({5})}});
                 }),
                 "slice index 5 of dimension 0 out of bounds."));
}

TEST_CASE("transform/strided_slice: build-time errors") {
  Graph g;
  auto guard = g.as_default();
  Output x = placeholder(DType::float32, Shape{2, 3, 4}, "x");
  CHECK(contains(value_error([&] { strided_slice(x, {5}, {6}, {1}, {.shrink_axis_mask = 1}); }),
                 "slice index 5 of dimension 0 out of bounds."));
  CHECK(contains(value_error([&] { strided_slice(x, {0}, {1}, {0}); }),
                 "strides[0] must be non-zero"));
  CHECK(contains(value_error([&] {
                   strided_slice(x, {0, 0}, {0, 0}, {1, 1}, {.ellipsis_mask = 3});
                 }),
                 "Multiple ellipses in slice spec not allowed"));
  CHECK(contains(value_error([&] {
                   strided_slice(x, {0, 0}, {1}, {1});
                 }),
                 "Dimension 0 in both shapes must be equal, but are 2 and 1. Shapes are [2] and "
                 "[1]."));
  Output m = placeholder(DType::float32, Shape{2, 3});
  CHECK(contains(value_error([&] {
                   strided_slice(m, {1, 2, 3}, {2, 3, 4}, {1, 1, 1}, {.shrink_axis_mask = 7});
                 }),
                 "Index out of range using input dim 2; input has only 2 dims"));
  CHECK(contains(value_error([&] { strided_slice(m, {1}, {2}, {-1}, {.shrink_axis_mask = 1}); }),
                 "only stride 1 allowed on non-range indexing."));
}

// ---- gather ---------------------------------------------------------------------------

TEST_CASE("transform/gather: GatherV2 names, shapes and values") {
  Graph g;
  auto guard = g.as_default();
  Output x = constant(iota({2, 3, 4}), "x");
  Output a = gather(x, {0, 1, 0}, 1);
  CHECK(a.name() == "GatherV2:0");
  CHECK(input_names(a) == std::vector<std::string>{"x:0", "GatherV2/indices:0", "GatherV2/axis:0"});
  CHECK(a.op().get_attr<DType>("Tparams") == DType::float32);
  CHECK(a.op().get_attr<DType>("Tindices") == DType::int32);
  CHECK(a.op().get_attr<DType>("Taxis") == DType::int32);
  CHECK(a.op().get_attr<std::int64_t>("batch_dims") == 0);
  CHECK(a.shape() == Shape{2, 3, 4});
  CHECK(gather(x, {0, 1, 0}).shape() == Shape{3, 3, 4});
  Output b = gather(x, {{0, 2}, {1, 1}}, 1);
  CHECK(b.shape() == Shape{2, 2, 2, 4});
  CHECK(run_vector<float>(b) == std::vector<float>{0,  1,  2,  3,  8,  9,  10, 11, 4,  5,  6,
                                                   7,  4,  5,  6,  7,  12, 13, 14, 15, 20, 21,
                                                   22, 23, 16, 17, 18, 19, 16, 17, 18, 19});
  Output c = gather(x, {3, 0}, -1);
  CHECK(c.shape() == Shape{2, 3, 2});
  CHECK(run_vector<float>(c) == std::vector<float>{3, 0, 7, 4, 11, 8, 15, 12, 19, 16, 23, 20});
  CHECK(gather(constant(iota({2, 3})), 1, 1).shape() == Shape{2});
  CHECK(run_vector<std::int64_t>(gather(constant(Value::from_vector<std::int64_t>({5, 6, 7}, {3})),
                                        Value::from_vector<std::int64_t>({2, 2}, {2}))) ==
        std::vector<std::int64_t>{7, 7});
  CHECK(run_vector<bool>(gather(constant(Value({true, false})), {1, 0, 1})) ==
        std::vector<bool>{false, true, false});
  CHECK(gather(x, {0}, placeholder(DType::int32)).shape() == Shape{-1, -1, -1});
}

TEST_CASE("transform/gather: errors") {
  Graph g;
  auto guard = g.as_default();
  Output x = placeholder(DType::float32, Shape{2, 3, 4}, "x");
  CHECK(contains(value_error([&] { gather(x, {0}, 3); }),
                 "Shape must be at least rank 4 but is rank 3"));
  CHECK(contains(type_error([&] { gather(x, {0.0f}); }),
                 "Value passed to parameter 'indices' has DataType float32 not in list of allowed "
                 "values: int16, int32, int64"));
  Output i = placeholder(DType::int32, Shape::unknown(), "i");
  Output r = gather(x, i, 1);
  Session sess(g);
  Value xv = iota({2, 3, 4});
  CHECK(contains(run_error([&] {
                   sess.run(r, {{x, xv}, {i, Value({0, 3})}});
                 }),
                 "indices[1] = 3 is not in [0, 3)"));
  CHECK(contains(run_error([&] {
                   sess.run(r, {{x, xv}, {i, Value({{0, 1}, {-1, 0}})}});
                 }),
                 "indices[1,0] = -1 is not in [0, 3)"));
}

// ---- pad ------------------------------------------------------------------------------

TEST_CASE("transform/pad: Pad and PadV2 names, shapes and values") {
  Graph g;
  auto guard = g.as_default();
  Output x = constant<std::int32_t>({{1, 2}, {3, 4}}, "x");
  Output p = pad(x, {{1, 0}, {0, 2}});
  CHECK(p.name() == "Pad:0");
  CHECK(p.op().type() == "Pad");
  CHECK(input_names(p) == std::vector<std::string>{"x:0", "Pad/paddings:0"});
  CHECK(p.op().get_attr<DType>("Tpaddings") == DType::int32);
  CHECK(p.shape() == Shape{3, 4});
  CHECK(run_vector<std::int32_t>(p) ==
        std::vector<std::int32_t>{0, 0, 0, 0, 1, 2, 0, 0, 3, 4, 0, 0});

  Output f = constant<float>({{1, 2}, {3, 4}});
  Output v = pad(f, {{0, 1}, {1, 1}}, 9.0f);
  CHECK(v.name() == "PadV2:0");
  CHECK(v.op().type() == "PadV2");
  CHECK(input_names(v)[2] == "PadV2/constant_values:0");
  CHECK(run_vector<float>(v) == std::vector<float>{9, 1, 2, 9, 9, 3, 4, 9, 9, 9, 9, 9});
  // A zero constant_values builds the plain Pad.
  CHECK(pad(f, {{0, 1}, {1, 1}}, 0.0f).op().type() == "Pad");
  CHECK(run_vector<bool>(pad(constant(Value({true})), {{1, 1}}, true)) ==
        std::vector<bool>{true, true, true});
  CHECK(run_vector<std::uint8_t>(pad(constant(Value({std::uint8_t{7}})), {{1, 0}})) ==
        std::vector<std::uint8_t>{0, 7});
  CHECK(run_vector<double>(pad(constant(Value({1.5})), {{0, 1}}, 2.5)) ==
        std::vector<double>{1.5, 2.5});

  Output u = placeholder(DType::float32, Shape{-1, 4});
  CHECK(pad(u, {{1, 1}, {2, 0}}).shape() == Shape{-1, 6});
  CHECK(pad(u, placeholder(DType::int32, Shape{2, 2})).shape() == Shape{-1, -1});
}

TEST_CASE("transform/pad: errors") {
  Graph g;
  auto guard = g.as_default();
  Output x = placeholder(DType::float32, Shape{2, 3, 4}, "x");
  CHECK(contains(value_error([&] {
                   pad(x, {{0, 1}, {1, 0}});
                 }),
                 "Shape must be rank 2 but is rank 3"));
  CHECK(contains(value_error([&] {
                   pad(x, {{0, 1, 2}, {1, 0, 2}, {0, 0, 0}});
                 }),
                 "Dimension must be 2 but is 3"));
  CHECK(contains(value_error([&] {
                   pad(x, {{0, -1}, {1, 0}, {0, 0}});
                 }),
                 "Paddings must be non-negative"));
  Output p = placeholder(DType::int32, Shape::unknown(), "p");
  Output r = pad(x, p);
  Session sess(g);
  Value xv = iota({2, 3, 4});
  CHECK(contains(run_error([&] {
                   sess.run(r, {{x, xv}, {p, Value({{0, -1}, {0, 0}, {0, 0}})}});
                 }),
                 "Paddings must be non-negative: 0 -1"));
  CHECK(contains(run_error([&] {
                   sess.run(r, {{x, xv}, {p, Value({{0, 1}, {0, 0}})}});
                 }),
                 "The first dimension of paddings must be the rank of inputs[2,2] [2,3,4]"));
}

// ---- one_hot --------------------------------------------------------------------------

TEST_CASE("transform/one_hot: names, defaults, axis and values") {
  Graph g;
  auto guard = g.as_default();
  Output h = one_hot({0, 1, 2}, 4);
  CHECK(nodes(g) == std::vector<std::pair<std::string, std::string>>{{"one_hot/on_value", "Const"},
                                                                     {"one_hot/off_value", "Const"},
                                                                     {"one_hot/indices", "Const"},
                                                                     {"one_hot/depth", "Const"},
                                                                     {"one_hot", "OneHot"}});
  CHECK(h.dtype() == DType::float32);
  CHECK(h.op().get_attr<std::int64_t>("axis") == -1);
  CHECK(h.op().get_attr<DType>("TI") == DType::int32);
  CHECK(h.shape() == Shape{3, 4});

  Output a = one_hot({0, 2, -1, 5}, 3, {.axis = 0});
  CHECK(a.shape() == Shape{3, 4});
  CHECK(run_vector<float>(a) == std::vector<float>{1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0});
  Output b =
      one_hot({{0, 2}, {1, 0}}, 3, {.on_value = Value(5), .off_value = Value(-1), .axis = 1});
  CHECK(b.name() == "one_hot_2:0");
  CHECK(input_names(b)[2] == "one_hot_2/Const:0");
  CHECK(input_names(b)[3] == "one_hot_2/Const_1:0");
  CHECK(b.dtype() == DType::int32);
  CHECK(b.shape() == Shape{2, 3, 2});
  CHECK(run_vector<std::int32_t>(b) ==
        std::vector<std::int32_t>{5, -1, -1, -1, -1, 5, -1, 5, 5, -1, -1, -1});
  CHECK(run_vector<bool>(one_hot({1}, 2, {.on_value = Value(true), .off_value = Value(false)})) ==
        std::vector<bool>{false, true});
  CHECK(run_vector<double>(one_hot(Value({std::uint8_t{1}}), 2, {.dtype = DType::float64})) ==
        std::vector<double>{0, 1});
  CHECK(!one_hot(placeholder(DType::int32), 3).shape().has_rank());
  CHECK(one_hot(placeholder(DType::int32, Shape{2}), placeholder(DType::int32)).shape() ==
        Shape{2, -1});
}

TEST_CASE("transform/one_hot: errors") {
  Graph g;
  auto guard = g.as_default();
  CHECK(contains(type_error([&] { one_hot({0.0f}, 3); }),
                 "Value passed to parameter 'indices' has DataType float32 not in list of allowed "
                 "values: uint8, int8, int32, int64"));
  CHECK(contains(value_error([&] { one_hot({0, 1}, 3, {.axis = -2}); }), "axis must be >= -1"));
  CHECK(contains(value_error([&] {
                   one_hot({0, 1}, -1);
                 }),
                 "Dimension size, given by scalar input 1, must be non-negative but is -1"));
  CHECK(contains(
      type_error([&] { one_hot({0}, 2, {.on_value = Value(1.0f), .off_value = Value(0.0)}); }),
      "dtype float32 of on_value does not match dtype float64 of off_value"));
  Output d = placeholder(DType::int32, Shape{}, "d");
  Output h = one_hot({0, 1}, d);
  Output axis2 = one_hot({0, 1}, 3, {.axis = 2});
  Session sess(g);
  CHECK(contains(run_error([&] {
                   sess.run(h, {{d, Value(-1)}});
                 }),
                 "depth must be non-negative, got: -1"));
  CHECK(contains(run_error([&] { sess.run(axis2); }),
                 "Expected axis to be -1 or between [0, 2).  But received: 2"));
}

// ---- range ----------------------------------------------------------------------------

TEST_CASE("transform/range: names, dtype inference, casts and values") {
  Graph g;
  auto guard = g.as_default();
  Output r = range(5);
  CHECK(nodes(g) == std::vector<std::pair<std::string, std::string>>{{"range/start", "Const"},
                                                                     {"range/limit", "Const"},
                                                                     {"range/delta", "Const"},
                                                                     {"range", "Range"}});
  CHECK(r.op().get_attr<DType>("Tidx") == DType::int32);
  CHECK(r.shape() == Shape{5});
  CHECK(run_vector<std::int32_t>(r) == std::vector<std::int32_t>{0, 1, 2, 3, 4});
  CHECK(run_vector<std::int32_t>(range(1, 5, 2)) == std::vector<std::int32_t>{1, 3});
  CHECK(run_vector<std::int32_t>(range(10, 1, -3)) == std::vector<std::int32_t>{10, 7, 4});

  Output f = range(1.0f, 5);
  CHECK(f.name() == "range_3:0");
  CHECK(f.dtype() == DType::float32);
  CHECK(input_names(f) ==
        std::vector<std::string>{"range_3/start:0", "range_3/Cast:0", "range_3/Cast_1:0"});
  CHECK(f.shape() == Shape{4});
  // Accumulated as TensorFlow's kernel does: 0.3 * 3 comes out as 0.90000004.
  Output frac = range(0.0f, 1.0f, 0.3f);
  CHECK(frac.shape() == Shape{4});
  CHECK(run_vector<float>(frac) == std::vector<float>{0.0f, 0.3f, 0.6f, 0.90000004f});
  Output mix = range(constant(std::int64_t{1}), 2.5f, 0.5f);
  CHECK(mix.dtype() == DType::float32);
  CHECK(run_vector<float>(mix) == std::vector<float>{1.0f, 1.5f, 2.0f});
  CHECK(run_vector<std::int64_t>(range(constant(std::int64_t{3}))) ==
        std::vector<std::int64_t>{0, 1, 2});
  CHECK(range(1, 4, 1, {.dtype = DType::float64}).dtype() == DType::float64);
  CHECK(range(placeholder(DType::int32, Shape{}), 5).shape() == Shape{-1});
}

TEST_CASE("transform/range: errors") {
  Graph g;
  auto guard = g.as_default();
  CHECK(contains(value_error([&] { range(0, 5, 0); }), "Requires delta != 0"));
  CHECK(contains(value_error([&] { range(5, 1, 1); }),
                 "Requires start <= limit when delta > 0: 5/1"));
  CHECK(contains(value_error([&] { range(1, 5, -1); }),
                 "Requires start >= limit when delta < 0: 1/5"));
  CHECK(thrown<TypeError>([&] { range(constant(std::uint8_t{1}), 5); }).has_value());
  Output p = placeholder(DType::int32, Shape::unknown(), "p");
  Output d = range(0, 5, p);
  Output s = range(p, 1, 1);
  Session sess(g);
  CHECK(contains(run_error([&] { sess.run(d, {{p, Value(0)}}); }), "Requires delta != 0"));
  CHECK(contains(run_error([&] {
                   sess.run(s, {{p, Value(5)}});
                 }),
                 "Requires start <= limit when delta > 0: 5/1"));
  CHECK(sess.run(range(p, 5), {{p, Value({1})}}).to_vector<std::int32_t>() ==
        std::vector<std::int32_t>{1, 2, 3, 4});
}

// ---- unsorted_segment_sum -------------------------------------------------------------

TEST_CASE("transform/unsorted_segment_sum: values, dropped ids and errors") {
  Graph g;
  auto guard = g.as_default();
  Output data = constant<float>({{1, 2}, {3, 4}, {5, 6}});
  Output s = unsorted_segment_sum(data, {2, 0, 2}, 4);
  CHECK(s.name() == "UnsortedSegmentSum:0");
  CHECK(s.shape() == Shape{4, 2});
  CHECK(run_vector<float>(s) == std::vector<float>{3, 4, 0, 0, 6, 8, 0, 0});
  Output x = constant(iota({2, 3, 4}));
  CHECK(unsorted_segment_sum(x, {{0, 1, 1}, {0, 0, 0}}, 2).shape() == Shape{2, 4});
  std::vector<float> dropped = run_vector<float>(unsorted_segment_sum(x, {0, -1}, 2));
  CHECK(dropped.size() == 24);
  CHECK(dropped[11] == 11);
  CHECK(dropped[12] == 0);
  CHECK(contains(value_error([&] {
                   unsorted_segment_sum(x, {0, 1, 1}, 2);
                 }),
                 "Dimensions must be equal, but are 2 and 3"));
  CHECK(contains(value_error([&] {
                   unsorted_segment_sum(x, {0, 1}, {2});
                 }),
                 "Shape must be rank 0 but is rank 1"));
  CHECK(contains(type_error([&] { unsorted_segment_sum(constant(Value({true})), {0}, 1); }),
                 "Value passed to parameter 'data' has DataType bool"));
  Output ids = placeholder(DType::int32, Shape::unknown(), "ids");
  Output r = unsorted_segment_sum(x, ids, 2);
  Session sess(g);
  CHECK(contains(run_error([&] {
                   sess.run(r, {{ids, Value({0, 3})}});
                 }),
                 "segment_ids[1] = 3 is out of range [0, 2)"));
  CHECK(contains(run_error([&] {
                   sess.run(r, {{ids, Value({0, 1, 1})}});
                 }),
                 "data.shape = [2,3,4] does not start with segment_ids.shape = [3]"));
}

}  // namespace symflow_test_ops_transform_ops_test
