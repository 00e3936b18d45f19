// symflow::ct: static shapes, expressions evaluated in constant expressions, and the same
// expressions turned into graph nodes. The expected numbers, node names and op types come
// from TensorFlow 2.21 (tensorflow.compat.v1, graph mode) running the same computations;
// TF names the "+" op AddV2 where symflow (like TF1 before 1.14) says Add, and its Div
// on integers is tf.raw_ops.Div (truncating: -7 / 2 == -3).

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <symflow/expr/ct.hpp>
#include <symflow/symflow.hpp>

#include "../test_util.hpp"

namespace symflow_test_expr_ct_test {

// Everything, test cases included, lives in one namespace so that its short names cannot
// meet another test file's in a unity build.
namespace expr_ct_test {

using namespace symflow;
using namespace symflow::test;

// ---- fixtures shared by the compile-time checks --------------------------------------------
constexpr ct::Matrix<float, 2, 3> kA{{1, 2, 3}, {4, 5, 6}};
constexpr ct::Matrix<float, 2, 2> kM{{1, -2}, {3, 4.5}};

// The tiny network of the docs: relu(x W + b) for a batch of three rows.
constexpr ct::Matrix<float, 3, 2> kX{{1, 2}, {-3, 0.5}, {0.25, -1}};
constexpr ct::Matrix<float, 2, 2> kW{{0.5, -1}, {2, 0.25}};
constexpr ct::Vector<float, 2> kB{-1, 0.5};
constexpr auto kNet = relu(matmul(kX, kW) + kB);

// Builds `e` into a fresh graph, runs it, and reads the result back as a ct::Tensor.
template <ct::Expr E>
auto run_graph(const E& e) {
  Graph g;
  Output out = ct::build(e, g);
  Session sess(g);
  return ct::from_value<decltype(ct::eval(e))>(sess.run(out));
}

TEST_CASE("expr/ct: tensors are built from nested braces and read in constant expressions") {
  static_assert(decltype(kA)::rank == 2 && decltype(kA)::size == 6);
  static_assert(decltype(kA)::shape == ct::Shape<2>{2, 3});
  static_assert(kA(0, 0) == 1 && kA(0, 2) == 3 && kA(1, 0) == 4 && kA(1, 2) == 6);
  static_assert(kA == ct::Matrix<float, 2, 3>{{1, 2, 3}, {4, 5, 6}});
  static_assert(kA != ct::Matrix<float, 2, 3>{{1, 2, 3}, {4, 5, 7}});

  constexpr ct::Tensor<std::int32_t, 2, 2, 2> cube{{{1, 2}, {3, 4}}, {{5, 6}, {7, 8}}};
  static_assert(cube(1, 0, 1) == 6 && cube.values[7] == 8);
  constexpr ct::Tensor<double> scalar{2.5};
  static_assert(scalar() == 2.5 && decltype(scalar)::rank == 0);
  constexpr ct::Matrix<float, 2, 1> column{{1}, {2}};
  static_assert(column(1, 0) == 2);
  static_assert(ct::Vector<float, 3>::filled(7) == ct::Vector<float, 3>{7, 7, 7});
  static_assert(ct::Matrix<float, 2, 2>{} == ct::Matrix<float, 2, 2>::filled(0));

  // The same types work at run time: mutable element access, and checked indices.
  ct::Matrix<float, 2, 3> t = kA;
  t(1, 2) = -1;
  CHECK(t.values == std::array<float, 6>{1, 2, 3, 4, 5, -1});
  CHECK_THROWS_AS(static_cast<void>(t(2, 0)), std::out_of_range);
  CHECK_THROWS_AS(static_cast<void>(t(0, -1)), std::out_of_range);
}

TEST_CASE("expr/ct: elementwise ops with numbers and broadcasting") {
  // TF: a * 2 + 1, 1 - a, a / 4, -a, square(a - 3), abs(3 - a), maximum(a, 2.5),
  // minimum(a, 2.5) on a = [[1, 2, 3], [4, 5, 6]].
  static_assert(ct::eval(kA * 2 + 1) == ct::Matrix<float, 2, 3>{{3, 5, 7}, {9, 11, 13}});
  static_assert(ct::eval(1 - kA) == ct::Matrix<float, 2, 3>{{0, -1, -2}, {-3, -4, -5}});
  static_assert(ct::eval(kA / 4) == ct::Matrix<float, 2, 3>{{0.25, 0.5, 0.75}, {1, 1.25, 1.5}});
  static_assert(ct::eval(-kA) == ct::Matrix<float, 2, 3>{{-1, -2, -3}, {-4, -5, -6}});
  static_assert(ct::eval(square(kA - 3)) == ct::Matrix<float, 2, 3>{{4, 1, 0}, {1, 4, 9}});
  static_assert(ct::eval(abs(3 - kA)) == ct::Matrix<float, 2, 3>{{2, 1, 0}, {1, 2, 3}});
  static_assert(ct::eval(maximum(kA, 2.5)) == ct::Matrix<float, 2, 3>{{2.5, 2.5, 3}, {4, 5, 6}});
  static_assert(ct::eval(minimum(kA, 2.5)) ==
                ct::Matrix<float, 2, 3>{{1, 2, 2.5}, {2.5, 2.5, 2.5}});
  static_assert(ct::eval(ct::add(kA, kA)) == ct::eval(kA * 2));
  static_assert(ct::eval(ct::subtract(kA, kA)) == ct::Matrix<float, 2, 3>{});
  static_assert(ct::eval(ct::multiply(kA, kA)) == ct::eval(square(kA)));
  static_assert(ct::eval(ct::divide(kA, kA)) == ct::Matrix<float, 2, 3>::filled(1));
  static_assert(ct::eval(ct::negative(kA)) == ct::eval(0 - kA));

  // TF: a + [10, 20, 30] (a bias over the last axis) and a * [[1], [-1]] (a column).
  constexpr ct::Vector<float, 3> bias{10, 20, 30};
  static_assert(ct::eval(kA + bias) == ct::Matrix<float, 2, 3>{{11, 22, 33}, {14, 25, 36}});
  static_assert(ct::eval(bias + kA) == ct::eval(kA + bias));
  constexpr ct::Matrix<float, 2, 1> sign{{1}, {-1}};
  static_assert(ct::eval(kA * sign) == ct::Matrix<float, 2, 3>{{1, 2, 3}, {-4, -5, -6}});
  // Both sides broadcast: [2, 1] + [3] -> [2, 3].
  static_assert(ct::eval(sign + bias) == ct::Matrix<float, 2, 3>{{11, 21, 31}, {9, 19, 29}});
  static_assert(decltype(sign + bias)::shape == ct::Shape<2>{2, 3});
  CHECK(ct::eval(kA + bias)(1, 2) == 36);
}

TEST_CASE("expr/ct: integer arithmetic wraps and truncates like the graph kernels") {
  constexpr std::int32_t lo = std::numeric_limits<std::int32_t>::min();
  constexpr std::int32_t hi = std::numeric_limits<std::int32_t>::max();
  constexpr ct::Matrix<std::int32_t, 2, 2> i{{-7, 7}, {hi, lo}};
  // TF: Div(i, 2) (raw Div truncates), i + 1, -i, abs(i), Div(i, -1), square(i).
  static_assert(ct::eval(i / 2) == ct::Matrix<std::int32_t, 2, 2>{{-3, 3}, {hi / 2, lo / 2}});
  static_assert(ct::eval(i + 1) == ct::Matrix<std::int32_t, 2, 2>{{-6, 8}, {lo, lo + 1}});
  static_assert(ct::eval(-i) == ct::Matrix<std::int32_t, 2, 2>{{7, -7}, {-hi, lo}});
  static_assert(ct::eval(abs(i)) == ct::Matrix<std::int32_t, 2, 2>{{7, 7}, {hi, lo}});
  static_assert(ct::eval(i / -1) == ct::eval(-i));
  static_assert(ct::eval(square(i)) == ct::Matrix<std::int32_t, 2, 2>{{49, 49}, {1, 0}});
  // TF: reduce_mean(i, 0) == [1073741820, -1073741820] (the sum wraps first), and the
  // mean of [1, 2] is 1.
  static_assert(ct::eval(ct::reduce_mean<0>(i)) ==
                ct::Vector<std::int32_t, 2>{1073741820, -1073741820});
  static_assert(ct::eval(ct::reduce_mean(ct::Vector<std::int32_t, 2>{1, 2}))() == 1);

  // Integer division by zero is an error (a compile error in a constant expression).
  CHECK_THROWS_AS(ct::eval(i / 0), std::domain_error);
}

TEST_CASE("expr/ct: NaN goes through maximum, minimum and relu") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const ct::Vector<float, 2> v{nan, -1};
  auto r = ct::eval(relu(v));
  CHECK(std::isnan(r(0)));
  CHECK(r(1) == 0);
  CHECK(std::isnan(ct::eval(maximum(1.0f, v))(0)));
  CHECK(std::isnan(ct::eval(minimum(v, 1.0f))(0)));
  CHECK(std::isnan(ct::eval(ct::reduce_max(v))()));
}

TEST_CASE("expr/ct: matmul, transpose and reductions") {
  // TF: matmul(m, a), matmul(a, m, transpose_a=True), transpose(a).
  static_assert(ct::eval(matmul(kM, kA)) == ct::Matrix<float, 2, 3>{{-7, -8, -9}, {21, 28.5, 36}});
  static_assert(ct::eval(matmul(transpose(kA), kM)) ==
                ct::Matrix<float, 3, 2>{{13, 16}, {17, 18.5}, {21, 21}});
  static_assert(ct::eval(transpose(kA)) == ct::Matrix<float, 3, 2>{{1, 4}, {2, 5}, {3, 6}});
  static_assert(ct::eval(transpose(transpose(kA))) == kA);
  static_assert(decltype(matmul(kM, kA))::shape == ct::Shape<2>{2, 3});

  // TF: reduce_sum(a), reduce_sum(a, 0), reduce_mean(a, 1), reduce_max(a, -1),
  // reduce_min(a, 0).
  static_assert(ct::eval(ct::reduce_sum(kA)) == ct::Tensor<float>{21});
  static_assert(ct::eval(ct::reduce_sum<0>(kA)) == ct::Vector<float, 3>{5, 7, 9});
  static_assert(ct::eval(ct::reduce_mean<1>(kA)) == ct::Vector<float, 2>{2, 5});
  static_assert(ct::eval(ct::reduce_max<-1>(kA)) == ct::Vector<float, 2>{3, 6});
  static_assert(ct::eval(ct::reduce_min<0>(kA)) == ct::Vector<float, 3>{1, 2, 3});
  static_assert(ct::eval(ct::reduce_max(kM))() == 4.5f);
  static_assert(ct::eval(ct::reduce_min(kM))() == -2);
  static_assert(ct::eval(ct::reduce_mean(kA))() == 3.5f);
  // The middle axis of a rank-3 tensor.
  constexpr ct::Tensor<std::int32_t, 2, 2, 2> cube{{{1, 2}, {3, 4}}, {{5, 6}, {7, 8}}};
  static_assert(ct::eval(ct::reduce_sum<1>(cube)) ==
                ct::Matrix<std::int32_t, 2, 2>{{4, 6}, {12, 14}});
  CHECK(ct::eval(ct::reduce_sum<0>(kA))(2) == 9);
}

TEST_CASE("expr/ct: the tiny network evaluates at compile time") {
  // TF: maximum(matmul(x, W) + b, 0.) == [[3.5, 0], [0, 3.625], [0, 0]].
  static_assert(ct::eval(kNet) == ct::Matrix<float, 3, 2>{{3.5, 0}, {0, 3.625}, {0, 0}});
  static_assert(decltype(kNet)::shape == ct::Shape<2>{3, 2});
  constexpr auto y = ct::eval(kNet);
  static_assert(y(1, 1) == 3.625f);
  CHECK(y(0, 0) == 3.5f);
}

TEST_CASE("expr/ct: to_graph builds the network from ordinary ops") {
  Graph g;
  Output out = ct::build(kNet, g);
  // TF: Const, Const_1, MatMul, Const_2, add (AddV2 in TF 2.x), Relu.
  CHECK(nodes(g) == std::vector<std::pair<std::string, std::string>>{{"Const", "Const"},
                                                                     {"Const_1", "Const"},
                                                                     {"MatMul", "MatMul"},
                                                                     {"Const_2", "Const"},
                                                                     {"add", "Add"},
                                                                     {"Relu", "Relu"}});
  CHECK(out.name() == "Relu:0");
  CHECK(out.shape() == Shape({3, 2}));
  CHECK(out.dtype() == DType::float32);
  CHECK(input_names(out) == std::vector<std::string>{"add:0"});
  GraphDef def = g.as_graph_def();
  REQUIRE(def.node.size() == 6);
  CHECK(def.node[2].op == "MatMul");
  CHECK(def.node[2].input == std::vector<std::string>{"Const", "Const_1"});

  Session sess(g);
  Value v = sess.run(out);
  CHECK(v.to_vector<float>() == std::vector<float>{3.5f, 0, 0, 3.625f, 0, 0});
  CHECK(ct::from_value<ct::Matrix<float, 3, 2>>(v) == ct::eval(kNet));
}

TEST_CASE("expr/ct: to_graph uses the default graph and TF's names for number operands") {
  Graph g;
  Output out;
  {
    auto guard = g.as_default();
    out = ct::to_graph(2 * kA - 1);
  }
  // TF: 2 * a - 1 gives Const, mul/x, mul, sub/y, sub.
  CHECK(nodes(g) == std::vector<std::pair<std::string, std::string>>{{"Const", "Const"},
                                                                     {"mul/x", "Const"},
                                                                     {"mul", "Mul"},
                                                                     {"sub/y", "Const"},
                                                                     {"sub", "Sub"}});
  CHECK(input_names(out) == std::vector<std::string>{"mul:0", "sub/y:0"});
  Session sess(g);
  CHECK(ct::from_value<ct::Matrix<float, 2, 3>>(sess.run(out)) == ct::eval(2 * kA - 1));
}

TEST_CASE("expr/ct: every op gives the same values in a Session as at compile time") {
  constexpr ct::Vector<float, 3> bias{10, 20, 30};
  constexpr ct::Matrix<float, 2, 1> sign{{1}, {-1}};
  CHECK(run_graph(kA * 2 + 1) == ct::eval(kA * 2 + 1));
  CHECK(run_graph(1 - kA / 4) == ct::eval(1 - kA / 4));
  CHECK(run_graph(-square(kA - 3)) == ct::eval(-square(kA - 3)));
  CHECK(run_graph(abs(3 - kA)) == ct::eval(abs(3 - kA)));
  CHECK(run_graph(maximum(kA, 2.5) + minimum(2.5, kA)) ==
        ct::eval(maximum(kA, 2.5) + minimum(2.5, kA)));
  CHECK(run_graph(maximum(kA, kA * sign) - minimum(kA, bias)) ==
        ct::eval(maximum(kA, kA * sign) - minimum(kA, bias)));
  CHECK(run_graph(ct::divide(kA, sign + bias)) == ct::eval(ct::divide(kA, sign + bias)));
  CHECK(run_graph(relu(kA - 3)) == ct::eval(relu(kA - 3)));
  CHECK(run_graph(matmul(kM, kA)) == ct::eval(matmul(kM, kA)));
  CHECK(run_graph(transpose(kA)) == ct::eval(transpose(kA)));
  CHECK(run_graph(transpose(kA * 2)) == ct::eval(transpose(kA * 2)));
  CHECK(run_graph(ct::reduce_sum(kA)) == ct::eval(ct::reduce_sum(kA)));
  CHECK(run_graph(ct::reduce_sum<0>(kA)) == ct::eval(ct::reduce_sum<0>(kA)));
  CHECK(run_graph(ct::reduce_mean<-1>(kA)) == ct::eval(ct::reduce_mean<-1>(kA)));
  CHECK(run_graph(ct::reduce_max<1>(kM)) == ct::eval(ct::reduce_max<1>(kM)));
  CHECK(run_graph(ct::reduce_min(kM)) == ct::eval(ct::reduce_min(kM)));

  constexpr ct::Matrix<std::int32_t, 2, 2> i{{-7, 7},
                                             {std::numeric_limits<std::int32_t>::max(), 3}};
  CHECK(run_graph(i / 2 + i * i) == ct::eval(i / 2 + i * i));
  CHECK(run_graph(ct::reduce_mean<0>(i)) == ct::eval(ct::reduce_mean<0>(i)));
  CHECK(run_graph(matmul(i, i)) == ct::eval(matmul(i, i)));
  constexpr ct::Vector<double, 2> d{0.5, -0.25};
  CHECK(run_graph(d / 3 - abs(d)) == ct::eval(d / 3 - abs(d)));
}

TEST_CASE("expr/ct: to_graph maps ops to the expected graph op types") {
  auto types = [](const auto& expr) {
    Graph g;
    ct::build(expr, g);
    std::vector<std::string> out;
    for (const auto& [name, type] : nodes(g)) out.push_back(type);
    return out;
  };
  using V = std::vector<std::string>;
  CHECK(types(kA / kA) == V{"Const", "Const", "RealDiv"});
  CHECK(types(ct::Vector<std::int32_t, 2>{4, 6} / 2) == V{"Const", "Const", "Div"});
  CHECK(types(-abs(square(kA))) == V{"Const", "Square", "Abs", "Neg"});
  CHECK(types(minimum(kA, kA)) == V{"Const", "Const", "Minimum"});
  CHECK(types(relu(kA)) == V{"Const", "Relu"});
  CHECK(types(ct::reduce_sum<1>(kA)) == V{"Const", "Const", "Sum"});
  CHECK(types(ct::reduce_mean(kA)) == V{"Const", "Const", "Mean"});
  CHECK(types(ct::reduce_max(kA)) == V{"Const", "Const", "Max"});
  CHECK(types(ct::reduce_min<0>(kA)) == V{"Const", "Const", "Min"});
  // A transposed matmul operand becomes the transpose_a / transpose_b attribute.
  CHECK(types(matmul(transpose(kA), transpose(kM))) == V{"Const", "Const", "MatMul"});
  // Elsewhere it is a Transpose (perm reversed, as tf.transpose's default).
  CHECK(types(transpose(kA) + 1) == V{"Const", "Const", "Transpose", "Const", "Add"});

  Graph g;
  Output mm = ct::build(matmul(transpose(kA), kM), g);
  CHECK(mm.op().get_attr<bool>("transpose_a"));
  CHECK_FALSE(mm.op().get_attr<bool>("transpose_b"));
  CHECK(mm.shape() == Shape({3, 2}));
  Output sum = ct::build(ct::reduce_sum<-1>(kA), g);
  // Axis -1 is built as axis 1; TF: reduce_sum(a, 1) reads "Sum/reduction_indices".
  CHECK(input_names(sum) == std::vector<std::string>{"Const_2:0", "Sum/reduction_indices:0"});
  CHECK(sum.shape() == Shape({2}));
}

TEST_CASE("expr/ct: from_value checks the dtype and the shape") {
  CHECK(ct::from_value<ct::Vector<float, 2>>(Value({1.5f, 2.0f})) == ct::Vector<float, 2>{1.5, 2});
  auto type_error = thrown<TypeError>([] {
    static_cast<void>(ct::from_value<ct::Vector<float, 2>>(Value({1.5, 2.0})));
  });
  REQUIRE(type_error);
  CHECK(std::string(type_error->what()) ==
        "ct::from_value: the value has dtype float64, expected float32");
  auto value_error = thrown<ValueError>([] {
    static_cast<void>(ct::from_value<ct::Matrix<float, 2, 1>>(Value({1.5f, 2.0f})));
  });
  REQUIRE(value_error);
  CHECK(std::string(value_error->what()) ==
        "ct::from_value: the value has shape [2], expected [2,1]");
  CHECK(ct::to_value(kA).dims() == Dims{2, 3});
  CHECK(ct::to_value(kA).to_vector<float>() == std::vector<float>{1, 2, 3, 4, 5, 6});
}

}  // namespace expr_ct_test

}  // namespace symflow_test_expr_ct_test
