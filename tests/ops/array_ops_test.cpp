// Const, Placeholder, Identity, Reshape, Fill and zeros/ones, checked against
// TensorFlow 1.x graph mode (tensorflow.compat.v1 with eager execution disabled):
// node names, op types, static shapes, values and errors.

#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <symflow/symflow.hpp>

#include "../test_util.hpp"

namespace symflow_test_ops_array_ops_test {

namespace ops_array_test {

using namespace symflow;
using namespace symflow::test;

// (name, type) of every node, in creation order.

}  // namespace ops_array_test

using namespace ops_array_test;

// ---- constant -------------------------------------------------------------------------

TEST_CASE("ops/constant: scalars of every dtype") {
  Graph g;
  auto guard = g.as_default();
  Tensor<float> f = constant(1.5f);
  Tensor<double> d = constant(2.25);
  Tensor<std::int32_t> i = constant(std::int32_t{-7});
  Tensor<std::int64_t> l = constant(std::int64_t{1} << 40);
  Tensor<std::uint8_t> u = constant(std::uint8_t{200});
  Tensor<bool> b = constant(true);

  CHECK(f.name() == "Const:0");
  CHECK(d.name() == "Const_1:0");
  CHECK(b.name() == "Const_5:0");
  CHECK(f.op().type() == "Const");
  CHECK(f.dtype() == DType::float32);
  CHECK(d.dtype() == DType::float64);
  CHECK(i.dtype() == DType::int32);
  CHECK(l.dtype() == DType::int64);
  CHECK(u.dtype() == DType::uint8);
  CHECK(b.dtype() == DType::bool_);
  CHECK(f.get_shape() == Shape{});
  CHECK(f.get_shape().to_string() == "()");
  CHECK(f.op().get_attr<DType>("dtype") == DType::float32);
  CHECK(f.op().num_inputs() == 0);

  Session sess(g);
  CHECK(sess.run(f).scalar<float>() == 1.5f);
  CHECK(sess.run(d).scalar<double>() == 2.25);
  CHECK(sess.run(i).scalar<std::int32_t>() == -7);
  CHECK(sess.run(l).scalar<std::int64_t>() == 1099511627776);
  CHECK(sess.run(u).scalar<std::uint8_t>() == 200);
  CHECK(sess.run(b).scalar<bool>() == true);
}

TEST_CASE("ops/constant: nested lists give the shape") {
  Graph g;
  auto guard = g.as_default();
  auto v = constant<float>({1, 2, 3});
  auto m = constant<std::int32_t>({{1, 2, 3}, {4, 5, 6}});
  // A rank-3 value (core's 3-level initializer_list constructor does not compile yet).
  Output t = constant(Value::from_vector<double>({1, 2, 3, 4}, {2, 1, 2}));
  CHECK(v.get_shape() == Shape{3});
  CHECK(v.get_shape().to_string() == "(3,)");
  CHECK(m.get_shape() == Shape{2, 3});
  CHECK(t.get_shape() == Shape{2, 1, 2});

  Session sess(g);
  Value mv = sess.run(m);
  CHECK(mv.dims() == Dims{2, 3});
  CHECK(mv.to_vector<std::int32_t>() == std::vector<std::int32_t>{1, 2, 3, 4, 5, 6});
  CHECK(mv.at<std::int32_t>({1, 0}) == 4);
  CHECK(sess.run(t).to_vector<double>() == std::vector<double>{1, 2, 3, 4});
  CHECK_THROWS_AS(constant<float>({{1, 2}, {3}}), ValueError);  // ragged
}

TEST_CASE("ops/constant: value and shape, the last element fills the rest") {
  // tf.constant([1, 2], shape=[2, 3]) -> [[1 2 2] [2 2 2]]
  // tf.constant(7., shape=[2, 2])     -> [[7. 7.] [7. 7.]]
  // tf.constant([1..6], shape=[3, 2]) -> [[1 2] [3 4] [5 6]]
  Graph g;
  auto guard = g.as_default();
  auto a = constant<std::int32_t>({1, 2}, Shape{2, 3});
  auto b = constant(7.0f, Shape{2, 2});
  auto c = constant<std::int32_t>({1, 2, 3, 4, 5, 6}, Shape{3, 2});
  CHECK(a.get_shape() == Shape{2, 3});
  CHECK(b.get_shape() == Shape{2, 2});
  CHECK(c.get_shape() == Shape{3, 2});
  CHECK(run_vector<std::int32_t>(a) == std::vector<std::int32_t>{1, 2, 2, 2, 2, 2});
  CHECK(run_vector<float>(b) == std::vector<float>{7, 7, 7, 7});
  CHECK(run_vector<std::int32_t>(c) == std::vector<std::int32_t>{1, 2, 3, 4, 5, 6});
}

TEST_CASE("ops/constant: too many elements for the shape is a ValueError") {
  Graph g;
  auto guard = g.as_default();
  auto e = thrown<ValueError>([] { constant<std::int32_t>({1, 2, 3}, Shape{2}); });
  REQUIRE(e);
  CHECK(e->message() == "Too many elements provided. Needed at most 2, but received 3");
  CHECK(g.num_nodes() == 0);
  CHECK_THROWS_AS(constant(1.0f, Shape{-1, 2}), ValueError);  // not fully defined
}

TEST_CASE("ops/constant: names are uniquified and scoped") {
  // TF: ['Const:0', 'c:0', 'c_1:0', 'scope/Const:0']
  Graph g;
  auto guard = g.as_default();
  auto a = constant(1.0f);
  auto b = constant(2.0f, "c");
  auto c = constant(3.0f, "c");
  Output d;
  {
    name_scope scope("scope");
    d = constant(4.0f);
  }
  CHECK(a.name() == "Const:0");
  CHECK(b.name() == "c:0");
  CHECK(c.name() == "c_1:0");
  CHECK(d.name() == "scope/Const:0");
}

// ---- placeholder ----------------------------------------------------------------------

TEST_CASE("ops/placeholder: shapes, names and feeding") {
  Graph g;
  auto guard = g.as_default();
  Output p = placeholder(DType::float32);
  auto q = placeholder<float>(Shape{-1, 3});
  auto r = placeholder<std::int32_t>(Shape{2}, "r");
  CHECK(p.name() == "Placeholder:0");
  CHECK(q.name() == "Placeholder_1:0");
  CHECK(r.name() == "r:0");
  CHECK(p.op().type() == "Placeholder");
  CHECK_FALSE(p.get_shape().has_rank());
  CHECK(p.get_shape().to_string() == "<unknown>");
  CHECK(q.get_shape().to_string() == "(?, 3)");
  CHECK(q.op().get_attr<Shape>("shape") == Shape{-1, 3});
  CHECK(q.op().get_attr<DType>("dtype") == DType::float32);

  Session sess(g);
  auto out = sess.run({q, r}, {{q, {{1, 2, 3}}}, {r, {4, 5}}});
  CHECK(out[0].dims() == Dims{1, 3});
  CHECK(out[0].to_vector<float>() == std::vector<float>{1, 2, 3});
  CHECK(out[1].to_vector<std::int32_t>() == std::vector<std::int32_t>{4, 5});
}

TEST_CASE("ops/placeholder: running it unfed is an InvalidArgumentError naming it") {
  // TF: "You must feed a value for placeholder tensor 'Placeholder' with dtype float and
  // shape [?,3]"; no shape is printed for unknown-rank and scalar placeholders.
  Graph g;
  auto guard = g.as_default();
  auto q = placeholder<float>(Shape{-1, 3});
  auto i = placeholder<std::int32_t>();
  auto s = placeholder<double>(Shape{});
  Session sess(g);
  auto e = thrown<InvalidArgumentError>([&] { sess.run(q); });
  REQUIRE(e);
  CHECK(e->message() ==
        "You must feed a value for placeholder tensor 'Placeholder' with dtype float and shape "
        "[?,3]");
  CHECK(e->node_name() == "Placeholder");
  e = thrown<InvalidArgumentError>([&] { sess.run(i); });
  REQUIRE(e);
  CHECK(e->message() ==
        "You must feed a value for placeholder tensor 'Placeholder_1' with dtype int32");
  e = thrown<InvalidArgumentError>([&] { sess.run(s); });
  REQUIRE(e);
  CHECK(e->message() ==
        "You must feed a value for placeholder tensor 'Placeholder_2' with dtype double");
}

// ---- identity -------------------------------------------------------------------------

TEST_CASE("ops/identity: passes its input through") {
  Graph g;
  auto guard = g.as_default();
  auto x = constant<std::int32_t>({{1, 2}, {3, 4}});
  auto y = identity(x);
  Output z = identity(Output(x), "z");
  CHECK(y.name() == "Identity:0");
  CHECK(z.name() == "z:0");
  CHECK(y.op().type() == "Identity");
  CHECK(y.op().get_attr<DType>("T") == DType::int32);
  REQUIRE(y.op().num_inputs() == 1);
  CHECK(y.op().inputs()[0] == Output(x));
  CHECK(y.get_shape() == Shape{2, 2});
  CHECK(run_vector<std::int32_t>(y) == std::vector<std::int32_t>{1, 2, 3, 4});

  auto p = placeholder<float>(Shape{-1});
  auto q = identity(p);
  CHECK(q.get_shape().to_string() == "(?,)");
  CHECK(run_vector<float>(q, {{p, {5, 6, 7}}}) == std::vector<float>{5, 6, 7});
}

// ---- reshape --------------------------------------------------------------------------

TEST_CASE("ops/reshape: nodes, -1 and values") {
  // TF: Const, Reshape/shape (Const, int32 [2,-1]), Reshape; shape (2, 2)
  Graph g;
  auto guard = g.as_default();
  auto x = constant<std::int32_t>({1, 2, 3, 4, 5, 6});
  auto r = reshape(x, {2, -1});
  CHECK(nodes(g) == std::vector<std::pair<std::string, std::string>>{
                        {"Const", "Const"}, {"Reshape/shape", "Const"}, {"Reshape", "Reshape"}});
  CHECK(r.get_shape() == Shape{2, 3});
  CHECK(r.op().get_attr<DType>("T") == DType::int32);
  CHECK(r.op().get_attr<DType>("Tshape") == DType::int32);
  Value target = g.get_operation_by_name("Reshape/shape").get_attr<Value>("value");
  CHECK(target.dtype() == DType::int32);
  CHECK(target.to_vector<std::int32_t>() == std::vector<std::int32_t>{2, -1});

  auto flat = reshape(r, {-1});
  auto cube = reshape(x, {1, -1, 2}, "cube");
  auto same = reshape(x, {3, 2});
  CHECK(flat.name() == "Reshape_1:0");
  CHECK(cube.name() == "cube:0");
  CHECK(g.get_operation_by_name("cube/shape").type() == "Const");
  CHECK(flat.get_shape() == Shape{6});
  CHECK(cube.get_shape() == Shape{1, 3, 2});
  CHECK(same.get_shape() == Shape{3, 2});

  Session sess(g);
  Value v = sess.run(r);
  CHECK(v.dims() == Dims{2, 3});
  CHECK(v.at<std::int32_t>({1, 0}) == 4);
  CHECK(sess.run(cube).dims() == Dims{1, 3, 2});
  CHECK(sess.run(flat).to_vector<std::int32_t>() == std::vector<std::int32_t>{1, 2, 3, 4, 5, 6});
}

TEST_CASE("ops/reshape: impossible shapes known at build time are ValueErrors") {
  Graph g;
  auto guard = g.as_default();
  auto x = constant(0.0f, Shape{2, 3});

  auto two = thrown<ValueError>([&] { reshape(x, {-1, -1}); });
  REQUIRE(two);
  CHECK(contains(two->message(), "Only one input size may be -1, not both 0 and 1"));
  CHECK(contains(two->message(), "'Reshape'"));

  // TF: "Cannot reshape a tensor with 6 elements to shape [4,2] (8 elements) for
  // '{{node Reshape_1}} = Reshape[...]' with input shapes: [2,3], [2] ..."
  auto size = thrown<ValueError>([&] { reshape(x, {4, 2}); });
  REQUIRE(size);
  CHECK(contains(size->message(),
                 "Cannot reshape a tensor with 6 elements to shape [4,2] (8 elements)"));
  CHECK(contains(size->message(), "'Reshape_1'"));
  CHECK(contains(size->message(), "[2,3], [2]"));

  // TF: "Dimension size must be evenly divisible by 4 but is 6"
  auto divisible = thrown<ValueError>([&] { reshape(x, {4, -1}); });
  REQUIRE(divisible);
  CHECK(contains(divisible->message(), "Dimension size must be evenly divisible by 4 but is 6"));

  CHECK_THROWS_AS(reshape(x, {-2, 3}), ValueError);
}

TEST_CASE("ops/reshape: unknown input shapes are checked at run time") {
  Graph g;
  auto guard = g.as_default();
  auto p = placeholder<float>();
  auto r = reshape(p, {4, 2});
  auto w = reshape(p, {4, -1});
  auto k = reshape(p, {-1, 3});
  auto m = reshape(placeholder<float>(Shape{-1, 3}), {-1});
  CHECK(r.get_shape() == Shape{4, 2});
  CHECK(w.get_shape().to_string() == "(4, ?)");
  CHECK(k.get_shape().to_string() == "(?, 3)");
  CHECK(m.get_shape().to_string() == "(?,)");

  Session sess(g);
  Value six = Value::filled<float>({2, 3}, 1.0f);
  auto e = thrown<InvalidArgumentError>([&] { sess.run(r, {{p, six}}); });
  REQUIRE(e);
  CHECK(e->message() ==
        "Input to reshape is a tensor with 6 values, but the requested shape has 8");
  CHECK(e->node_name() == "Reshape");
  CHECK(contains(e->what(), "Reshape"));

  e = thrown<InvalidArgumentError>([&] { sess.run(w, {{p, six}}); });
  REQUIRE(e);
  CHECK(e->message() ==
        "Input to reshape is a tensor with 6 values, but the requested shape requires a multiple "
        "of 4");
  CHECK(e->node_name() == "Reshape_1");

  Value ok = sess.run(k, {{p, six}});
  CHECK(ok.dims() == Dims{2, 3});
  CHECK(sess.run(r, {{p, Value::filled<float>({8}, 2.0f)}}).dims() == Dims{4, 2});
}

// ---- fill, zeros, ones ----------------------------------------------------------------

TEST_CASE("ops/fill: nodes and values") {
  // TF: Fill/dims (Const), Fill/value (Const), Fill (Fill); shape (2, 3)
  Graph g;
  auto guard = g.as_default();
  Output f = fill(Shape{2, 3}, Value(7.0f));
  CHECK(nodes(g) == std::vector<std::pair<std::string, std::string>>{
                        {"Fill/dims", "Const"}, {"Fill/value", "Const"}, {"Fill", "Fill"}});
  CHECK(f.dtype() == DType::float32);
  CHECK(f.get_shape() == Shape{2, 3});
  CHECK(f.op().get_attr<DType>("T") == DType::float32);
  CHECK(f.op().get_attr<DType>("index_type") == DType::int32);
  CHECK(g.get_operation_by_name("Fill/dims").get_attr<Value>("value").to_vector<std::int32_t>() ==
        std::vector<std::int32_t>{2, 3});
  CHECK(run_vector<float>(f) == std::vector<float>(6, 7.0f));

  Output i = fill(Shape{3}, Value(std::int32_t{3}), "i");
  CHECK(i.name() == "i:0");
  CHECK(run_vector<std::int32_t>(i) == std::vector<std::int32_t>{3, 3, 3});

  // TF: "Shape must be rank 0 but is rank 1"
  auto e = thrown<ValueError>([] { fill(Shape{2}, Value{1.0f, 2.0f}); });
  REQUIRE(e);
  CHECK(contains(e->message(), "Shape must be rank 0 but is rank 1"));
  CHECK_THROWS_AS(fill(Shape{-1, 2}, Value(1.0f)), ValueError);
}

TEST_CASE("ops/fill: dims computed at run time of a known length give a known rank") {
  // TF: tf.fill(tf.shape(p), 1.0) with p of shape (?, 1) has rank 2; a dims tensor of
  // unknown length gives an unknown rank.
  Graph g;
  auto guard = g.as_default();
  auto p = placeholder<float>({-1, 1}, "p");
  Output f = fill(shape(p), constant(1.0f));
  CHECK(f.get_shape().has_rank());
  CHECK(f.get_shape().rank() == 2);
  auto d = placeholder<std::int32_t>({-1}, "d");
  CHECK(!fill(d, constant(1.0f)).get_shape().has_rank());
  Session sess(g);
  CHECK(sess.run(f, {{p, {{1.0f}, {2.0f}, {3.0f}}}}).dims() == Dims{3, 1});
}

TEST_CASE("ops/zeros: a Const below 1000 elements") {
  // TF: tf.zeros([2,3]) is one Const named "zeros"; tf.ones([2,3]) one Const "ones".
  Graph g;
  auto guard = g.as_default();
  Output z = zeros(Shape{2, 3});
  Output o = ones(Shape{2, 3});
  auto zi = zeros<std::int32_t>(Shape{2, 2}, "z");
  auto ob = ones<bool>(Shape{2});
  Output e = zeros(Shape{0, 3});
  CHECK(nodes(g) == std::vector<std::pair<std::string, std::string>>{{"zeros", "Const"},
                                                                     {"ones", "Const"},
                                                                     {"z", "Const"},
                                                                     {"ones_1", "Const"},
                                                                     {"zeros_1", "Const"}});
  CHECK(z.dtype() == DType::float32);
  CHECK(z.get_shape() == Shape{2, 3});
  CHECK(e.get_shape() == Shape{0, 3});
  CHECK(run_vector<float>(z) == std::vector<float>(6, 0.0f));
  CHECK(run_vector<float>(o) == std::vector<float>(6, 1.0f));
  CHECK(run_vector<std::int32_t>(zi) == std::vector<std::int32_t>(4, 0));
  CHECK(run_vector<bool>(ob) == std::vector<bool>{true, true});
  CHECK(run_vector<float>(e).empty());
}

TEST_CASE("ops/zeros: a Fill from 1000 elements") {
  // TF: zeros/shape_as_tensor (Const), zeros/Const (Const), zeros (Fill); ones likewise.
  Graph g;
  auto guard = g.as_default();
  Output z = zeros(Shape{10, 100});
  auto o = ones<std::int32_t>(Shape{10, 100});
  Output n = ones(Shape{1000}, DType::float64, "big");
  CHECK(nodes(g) ==
        std::vector<std::pair<std::string, std::string>>{{"zeros/shape_as_tensor", "Const"},
                                                         {"zeros/Const", "Const"},
                                                         {"zeros", "Fill"},
                                                         {"ones/shape_as_tensor", "Const"},
                                                         {"ones/Const", "Const"},
                                                         {"ones", "Fill"},
                                                         {"big/shape_as_tensor", "Const"},
                                                         {"big/Const", "Const"},
                                                         {"big", "Fill"}});
  CHECK(z.get_shape() == Shape{10, 100});
  CHECK(o.dtype() == DType::int32);
  CHECK(n.get_shape() == Shape{1000});
  CHECK(run_vector<float>(z) == std::vector<float>(1000, 0.0f));
  CHECK(run_vector<std::int32_t>(o) == std::vector<std::int32_t>(1000, 1));
  CHECK(run_vector<double>(n) == std::vector<double>(1000, 1.0));
  CHECK_THROWS_AS(zeros(Shape{-1, 3}), ValueError);
}

}  // namespace symflow_test_ops_array_ops_test
