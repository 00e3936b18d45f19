// reduce_prod, reduce_any, reduce_all, cumsum and cumprod: node names, attrs, shapes,
// values and errors, checked against TensorFlow 1.x.

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <symflow/symflow.hpp>

#include "../test_util.hpp"

namespace symflow_test_ops_reduction_ops_test {

namespace ops_reduction_test {

using namespace symflow;
using namespace symflow::test;

inline std::vector<int> bits(const Output& t) {
  std::vector<int> out;
  for (bool b : run_vector<bool>(t)) out.push_back(b ? 1 : 0);
  return out;
}

inline std::vector<std::string> attr_names(const Output& t) {
  std::vector<std::string> out;
  for (const auto& [k, v] : t.op().attrs()) out.push_back(k);
  return out;
}

}  // namespace ops_reduction_test

using namespace ops_reduction_test;

TEST_CASE("ops/reduction: reduce_prod") {
  // TF: x = [[1,5,3],[4,2,6]]: reduce_prod(x) = 720 (Prod, its axes a Const built outside
  // the scope, attrs T, Tidx, keep_dims); reduce_prod(x, 1, keepdims=True) = [[15], [48]]
  // with Prod_1/reduction_indices; int [[2,3],[4,5]] over 0 = [8, 15]; over an empty axis
  // the product is 1.
  Graph g;
  auto guard = g.as_default();
  auto x = constant<float>({{1, 5, 3}, {4, 2, 6}});
  auto p = reduce_prod(x);
  static_assert(std::is_same_v<decltype(p), Tensor<float>>);
  CHECK(p.name() == "Prod:0");
  CHECK(input_names(p) == std::vector<std::string>{"Const:0", "Const_1:0"});
  CHECK(attr_names(p) == std::vector<std::string>{"T", "Tidx", "keep_dims"});
  CHECK(p.get_shape() == Shape{});
  CHECK(run_vector<float>(p) == std::vector<float>{720});
  auto p1 = reduce_prod(x, 1, true);
  CHECK(input_names(p1) == std::vector<std::string>{"Const:0", "Prod_1/reduction_indices:0"});
  CHECK(p1.get_shape() == Shape{2, 1});
  CHECK(run_vector<float>(p1) == std::vector<float>{15, 48});
  CHECK(run_vector<std::int32_t>(reduce_prod(constant<std::int32_t>({{2, 3}, {4, 5}}), 0)) ==
        std::vector<std::int32_t>{8, 15});
  CHECK(run_vector<float>(reduce_prod(zeros<float>(Shape{0, 2}), 0)) == std::vector<float>{1, 1});
  CHECK(run_vector<double>(reduce_prod(constant<double>({{1, 2}, {3, 4}}), {0, 1})) ==
        std::vector<double>{24});
  // TF: "Value passed to parameter 'input' has DataType bool not in list of allowed
  // values: ..."
  auto e = thrown<TypeError>([&] { (void)reduce_prod(constant<bool>({true})); });
  REQUIRE(e);
  CHECK(contains(e->message(),
                 "Value passed to parameter 'input' has DataType bool not in list of allowed "
                 "values"));
  auto v = thrown<ValueError>([&] { (void)reduce_prod(x, 2); });
  REQUIRE(v);
  CHECK(contains(v->message(), "Invalid reduction dimension 2 for input with 2 dimensions."));
}

TEST_CASE("ops/reduction: reduce_any and reduce_all") {
  // TF: b = [[T,F,T],[T,T,T]]: reduce_any(b, 0) = [T,T,T] (Any, attrs Tidx and keep_dims
  // only, input Any/reduction_indices); reduce_all(b) = False; reduce_all(b, [0, 1],
  // keepdims=True) = [[False]]; over an empty axis Any is False and All is True.
  Graph g;
  auto guard = g.as_default();
  auto b = constant<bool>({{true, false, true}, {true, true, true}});
  auto a = reduce_any(b, 0);
  CHECK(a.name() == "Any:0");
  CHECK(input_names(a) == std::vector<std::string>{"Const:0", "Any/reduction_indices:0"});
  CHECK(attr_names(a) == std::vector<std::string>{"Tidx", "keep_dims"});
  CHECK(a.get_shape() == Shape{3});
  CHECK(bits(a) == std::vector<int>{1, 1, 1});
  auto al = reduce_all(b);
  CHECK(al.name() == "All:0");
  CHECK(input_names(al) == std::vector<std::string>{"Const:0", "Const_1:0"});
  CHECK(al.get_shape() == Shape{});
  CHECK(bits(al) == std::vector<int>{0});
  auto al1 = reduce_all(b, {0, 1}, true);
  CHECK(al1.get_shape() == Shape{1, 1});
  CHECK(bits(al1) == std::vector<int>{0});
  CHECK(bits(reduce_all(b, 1)) == std::vector<int>{0, 1});
  CHECK(bits(reduce_any(constant<bool>({{false, false}, {false, true}}), -1)) ==
        std::vector<int>{0, 1});
  Value empty(DType::bool_, {0, 2});
  CHECK(bits(reduce_any(constant(empty), 0)) == std::vector<int>{0, 0});
  CHECK(bits(reduce_all(constant(empty), 0)) == std::vector<int>{1, 1});

  // TF: "Input 'input' of 'Any' Op has type float32 that does not match expected type of
  // bool."; "Invalid reduction dimension 2 for input with 2 dimensions."
  auto e = thrown<TypeError>([&] { (void)reduce_any(constant<float>({1, 2})); });
  REQUIRE(e);
  CHECK(contains(e->message(),
                 "Input 'input' of 'Any' Op has type float32 that does not match expected type "
                 "of bool."));
  auto v = thrown<ValueError>([&] { (void)reduce_all(b, 2); });
  REQUIRE(v);
  CHECK(contains(v->message(), "Invalid reduction dimension 2 for input with 2 dimensions."));
  CHECK(contains(v->message(), "(op: 'All')"));
}

TEST_CASE("ops/reduction: cumsum and cumprod") {
  // TF: x = [[1,5,3],[4,2,6]]: cumsum(x) = [[1,5,3],[5,7,9]] (Cumsum, input Cumsum/axis,
  // attrs T, Tidx, exclusive, reverse); cumsum(x, 1, exclusive) = [[0,1,6],[0,4,6]];
  // cumsum(x, 1, reverse) = [[9,8,3],[12,8,6]]; cumsum(x, -1, exclusive, reverse) =
  // [[8,3,0],[8,6,0]]; cumsum([1,2,3,4], exclusive, reverse) = [9,7,4,0];
  // cumprod(x, 1, exclusive) = [[1,1,5],[1,4,8]].
  Graph g;
  auto guard = g.as_default();
  auto x = constant<float>({{1, 5, 3}, {4, 2, 6}});
  auto c = cumsum(x);
  static_assert(std::is_same_v<decltype(c), Tensor<float>>);
  CHECK(c.name() == "Cumsum:0");
  CHECK(input_names(c) == std::vector<std::string>{"Const:0", "Cumsum/axis:0"});
  CHECK(attr_names(c) == std::vector<std::string>{"T", "Tidx", "exclusive", "reverse"});
  CHECK(c.op().get_attr<bool>("exclusive") == false);
  CHECK(c.get_shape() == Shape{2, 3});
  CHECK(run_vector<float>(c) == std::vector<float>{1, 5, 3, 5, 7, 9});
  CHECK(run_vector<float>(cumsum(x, 1, true)) == std::vector<float>{0, 1, 6, 0, 4, 6});
  CHECK(run_vector<float>(cumsum(x, 1, false, true)) == std::vector<float>{9, 8, 3, 12, 8, 6});
  CHECK(run_vector<float>(cumsum(x, -1, true, true)) == std::vector<float>{8, 3, 0, 8, 6, 0});
  CHECK(run_vector<std::int32_t>(cumsum(constant<std::int32_t>({1, 2, 3, 4}), 0, true, true)) ==
        std::vector<std::int32_t>{9, 7, 4, 0});
  auto cp = cumprod(x, 1, true);
  CHECK(cp.name() == "Cumprod:0");
  CHECK(input_names(cp) == std::vector<std::string>{"Const:0", "Cumprod/axis:0"});
  CHECK(run_vector<float>(cp) == std::vector<float>{1, 1, 5, 1, 4, 8});
  CHECK(run_vector<float>(cumprod(x, 0, false, true)) == std::vector<float>{4, 10, 18, 4, 2, 6});
  // The axis as a tensor (int64 here), as the gradients pass it.
  Output axis64 = constant(std::int64_t{1});
  auto c64 = cumsum(x, axis64);
  CHECK(c64.op().get_attr<DType>("Tidx") == DType::int64);
  CHECK(run_vector<float>(c64) == std::vector<float>{1, 6, 9, 4, 6, 12});

  // TF: "Value passed to parameter 'x' has DataType bool not in list of allowed values"
  auto e = thrown<TypeError>([&] { (void)cumsum(constant<bool>({true})); });
  REQUIRE(e);
  CHECK(contains(e->message(),
                 "Value passed to parameter 'x' has DataType bool not in list of allowed "
                 "values"));
  // Run-time axis checks (TF's ScanOp messages); the shape function accepts any axis.
  auto p = placeholder(DType::float32);
  auto pa = placeholder(DType::int32);
  auto cs = cumsum(p, pa);
  CHECK(cumsum(x, 2).get_shape() == Shape{2, 3});
  Session sess(g);
  auto err = thrown<InvalidArgumentError>([&] {
    sess.run(cs, {{p, Value({1.0f, 2.0f})}, {pa, Value(std::int32_t{1})}});
  });
  REQUIRE(err);
  CHECK(err->message() == "ScanOp: Expected scan axis in the range [-1, 1), but got 1");
  err = thrown<InvalidArgumentError>([&] {
    sess.run(cs, {{p, Value({1.0f, 2.0f})}, {pa, Value({std::int32_t{0}})}});
  });
  REQUIRE(err);
  CHECK(err->message() == "ScanOp: axis must be a scalar, not [1]");
  err = thrown<InvalidArgumentError>([&] { sess.run(cumsum(constant(3.0f))); });
  REQUIRE(err);
  CHECK(err->message() == "ScanOp: Expected scan axis in the range [0, 0), but got 0");
  // An empty scan axis gives an empty result.
  CHECK(sess.run(cs, {{p, Value(DType::float32, {0, 3})}, {pa, Value(std::int32_t{0})}}).dims() ==
        Dims{0, 3});
}

TEST_CASE("ops/reduce_mean: integers are summed wide, as TensorFlow sums them") {
  // TF 2.21: reduce_mean(256 x uint8 3) = 3; [2^30, 2^30] int32 -> 2^30;
  //          [2^62, 2^62] int64 -> -2^62 (int64 wraps); [[250,10],[250,20]] axis 0 -> [250, 15];
  //          [-3, -4] int32 -> -3 (truncated).
  Graph g;
  auto guard = g.as_default();
  auto bytes = constant(Value::filled<std::uint8_t>({256}, 3));
  auto big = constant(Value{std::int32_t{1} << 30, std::int32_t{1} << 30});
  auto huge = constant(Value{std::int64_t{1} << 62, std::int64_t{1} << 62});
  auto grid =
      constant(Value{{std::uint8_t{250}, std::uint8_t{10}}, {std::uint8_t{250}, std::uint8_t{20}}});
  auto negative = constant(Value{std::int32_t{-3}, std::int32_t{-4}});
  Session sess(g);
  CHECK(sess.run(reduce_mean(bytes)).scalar<std::uint8_t>() == 3);
  CHECK(sess.run(reduce_mean(big)).scalar<std::int32_t>() == std::int32_t{1} << 30);
  CHECK(sess.run(reduce_mean(huge)).scalar<std::int64_t>() == -(std::int64_t{1} << 62));
  CHECK(sess.run(reduce_mean(grid, Axis(0))).to_vector<std::uint8_t>() ==
        std::vector<std::uint8_t>{250, 15});
  CHECK(sess.run(reduce_mean(negative)).scalar<std::int32_t>() == -3);
}

}  // namespace symflow_test_ops_reduction_ops_test
