// symflow::nn::softmax, checked against tf.nn.softmax in TensorFlow 1.x graph mode.

#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <symflow/symflow.hpp>

#include "../test_util.hpp"

namespace symflow_test_ops_nn_ops_test {

namespace ops_nn_test {

using namespace symflow;
using namespace symflow::test;

}  // namespace ops_nn_test

using namespace ops_nn_test;

TEST_CASE("ops/softmax: node, shape and values") {
  // TF: softmax([[1,2,3],[1000,1001,1002],[-1,0,1]]) = three rows of
  //     [0.09003057, 0.24472848, 0.66524094]
  Graph g;
  auto guard = g.as_default();
  auto logits = constant<float>({{1, 2, 3}, {1000, 1001, 1002}, {-1, 0, 1}});
  auto s = nn::softmax(logits);
  CHECK(s.name() == "Softmax:0");
  CHECK(s.op().type() == "Softmax");
  CHECK(s.op().get_attr<DType>("T") == DType::float32);
  CHECK(s.get_shape() == Shape{3, 3});
  CHECK(nn::softmax(logits, "probs").name() == "probs:0");

  Session sess(g);
  Value v = sess.run(s);
  CHECK(v.dims() == Dims{3, 3});
  auto p = v.to_vector<float>();
  const std::vector<float> row{0.09003057f, 0.24472848f, 0.66524094f};
  for (std::size_t r = 0; r < 3; ++r) {
    CAPTURE(r);
    check_close(std::vector<float>(p.begin() + 3 * r, p.begin() + 3 * r + 3), row, 1e-6, false);
    // Rows sum to 1, and large logits (row 1) are as stable as small ones.
    CHECK(p[3 * r] + p[3 * r + 1] + p[3 * r + 2] == doctest::Approx(1.0f).epsilon(1e-6));
    for (std::size_t j = 0; j < 3; ++j) CHECK(std::isfinite(p[3 * r + j]));
  }
}

TEST_CASE("ops/softmax: extreme logits, float64, rank 1 and rank 3") {
  // TF: softmax([[-1000, 0, 1000]]) = [[0, 0, 1]];
  //     softmax([0.5, -1, 2] float64) = [0.175290392, 0.039112573, 0.785597035];
  //     softmax([[[1, 2], [3, 5]]]) = [[[0.26894143, 0.7310586], [0.11920291, 0.880797]]]
  Graph g;
  auto guard = g.as_default();
  Session sess(g);
  CHECK(sess.run(nn::softmax(constant<float>({{-1000, 0, 1000}}))).to_vector<float>() ==
        std::vector<float>{0, 0, 1});
  auto d = nn::softmax(constant<double>({0.5, -1, 2}));
  CHECK(d.dtype() == DType::float64);
  check_close(sess.run(d).to_vector<double>(), {0.175290392, 0.039112573, 0.785597035}, 1e-8,
              false);
  auto t = nn::softmax(constant(Value::from_vector<float>({1, 2, 3, 5}, {1, 2, 2})));
  CHECK(t.get_shape() == Shape{1, 2, 2});
  check_close(sess.run(t).to_vector<float>(), {0.26894143f, 0.7310586f, 0.11920291f, 0.880797f},
              1e-6, false);
  auto p = placeholder<float>(Shape{-1, 4});
  CHECK(nn::softmax(p).get_shape().to_string() == "(?, 4)");
}

TEST_CASE("ops/softmax: wrong dtypes and ranks") {
  // TF: int32 logits: TypeError "Value passed to parameter 'logits' has DataType int32 not
  // in list of allowed values: float16, bfloat16, float32, float64";
  // a scalar: ValueError "Shape must be at least rank 1 but is rank 0"
  Graph g;
  auto guard = g.as_default();
  auto e = thrown<TypeError>([] { nn::softmax(constant<std::int32_t>({1, 2})); });
  REQUIRE(e);
  CHECK(contains(e->message(),
                 "Value passed to parameter 'logits' has DataType int32 not in "
                 "list of allowed values: float32, float64"));
  auto v = thrown<ValueError>([] { nn::softmax(constant(1.0f)); });
  REQUIRE(v);
  CHECK(contains(v->message(), "Shape must be at least rank 1 but is rank 0"));
  CHECK(contains(v->message(), "'Softmax_1'"));

  auto p = placeholder<float>();
  auto s = nn::softmax(p);
  Session sess(g);
  auto k = thrown<InvalidArgumentError>([&] { sess.run(s, {{p, 1.0f}}); });
  REQUIRE(k);
  CHECK(k->node_name() == s.op().name());
}

// ---- activations and small elementwise ops ---------------------------------------------------

namespace ops_nn_test {
// The six inputs every activation test uses, as float32 and float64.
const std::vector<float> kActIn{-2.f, -0.5f, 0.f, 0.5f, 3.f, 7.f};

template <class T>
std::vector<T> run_on(const std::function<Output(const Output&)>& f, const std::vector<T>& in) {
  Graph g;
  auto guard = g.as_default();
  return run_vector<T>(
      f(constant(Value::from_vector(in, {1, static_cast<std::int64_t>(in.size())}))));
}
std::vector<double> to_double(const std::vector<float>& v) { return {v.begin(), v.end()}; }
}  // namespace ops_nn_test

TEST_CASE("nn/activations: values of relu, relu6, leaky_relu, elu, sigmoid, tanh") {
  // TF (float32) on [-2, -0.5, 0, 0.5, 3, 7].
  struct Case {
    std::function<Output(const Output&)> f;
    std::vector<float> want;
  };
  const std::vector<Case> cases{
      {[](const Output& x) { return nn::relu(x); }, {0, 0, 0, 0.5f, 3, 7}},
      {[](const Output& x) { return nn::relu6(x); }, {0, 0, 0, 0.5f, 3, 6}},
      {[](const Output& x) { return nn::leaky_relu(x); }, {-0.4f, -0.1f, 0, 0.5f, 3, 7}},
      {[](const Output& x) { return nn::leaky_relu(x, 0.1); }, {-0.2f, -0.05f, 0, 0.5f, 3, 7}},
      {[](const Output& x) { return nn::elu(x); }, {-0.86466473f, -0.39346933f, 0, 0.5f, 3, 7}},
      {[](const Output& x) { return nn::sigmoid(x); },
       {0.11920292f, 0.37754068f, 0.5f, 0.62245935f, 0.95257413f, 0.99908894f}},
      {[](const Output& x) { return sigmoid(x); },
       {0.11920292f, 0.37754068f, 0.5f, 0.62245935f, 0.95257413f, 0.99908894f}},
      {[](const Output& x) { return nn::tanh(x); },
       {-0.9640276f, -0.46211714f, 0, 0.46211714f, 0.9950547f, 0.99999833f}},
      {[](const Output& x) { return symflow::tanh(x); },
       {-0.9640276f, -0.46211714f, 0, 0.46211714f, 0.9950547f, 0.99999833f}},
      {[](const Output& x) { return floor(x); }, {-2, -1, 0, 0, 3, 7}},
      {[](const Output& x) { return log1p(abs(x)); },
       {1.0986123f, 0.4054651f, 0, 0.4054651f, 1.3862944f, 2.0794415f}},
      {[](const Output& x) { return rsqrt(abs(x) + 1.0f); },
       {0.57735026f, 0.81649655f, 1, 0.81649655f, 0.5f, 0.35355338f}},
      {[](const Output& x) { return reciprocal(x + 10.0f); },
       {0.125f, 0.10526316f, 0.1f, 0.0952381f, 0.07692308f, 0.05882353f}},
      {[](const Output& x) { return squared_difference(x, ones_like(x)); },
       {9, 2.25f, 1, 0.25f, 4, 36}},
      {[](const Output& x) { return nn::log_softmax(x); },
       {-9.021181f, -7.5211816f, -7.0211816f, -6.5211816f, -4.0211816f, -0.02118156f}},
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    CAPTURE(i);
    check_close(run_on<float>(cases[i].f, kActIn), cases[i].want, 2e-6, false);
    check_close(run_on<double>(cases[i].f, to_double(kActIn)), to_double(cases[i].want), 2e-6,
                false);
  }
}

TEST_CASE("nn/activations: node names, types, attrs and shapes") {
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<float>(Shape{-1, 3});
  CHECK(nn::relu(x).name() == "Relu:0");
  CHECK(nn::relu6(x).name() == "Relu6:0");
  auto lr = nn::leaky_relu(x, 0.1);
  CHECK(lr.name() == "LeakyRelu:0");
  // TF stores alpha as a float attr: 0.1 reads back as 0.10000000149011612.
  CHECK(lr.op().get_attr<double>("alpha") == static_cast<double>(0.1f));
  CHECK(nn::elu(x).name() == "Elu:0");
  CHECK(nn::sigmoid(x).name() == "Sigmoid:0");
  CHECK(sigmoid(x).name() == "Sigmoid_1:0");
  CHECK(nn::tanh(x, "act").name() == "act:0");
  CHECK(floor(x).op().type() == "Floor");
  CHECK(log1p(x).op().type() == "Log1p");
  CHECK(rsqrt(x).op().type() == "Rsqrt");
  CHECK(reciprocal(x).op().type() == "Reciprocal");
  CHECK(squared_difference(x, x).op().type() == "SquaredDifference");
  auto ls = nn::log_softmax(x);
  CHECK(ls.name() == "LogSoftmax:0");
  CHECK(ls.get_shape().to_string() == "(?, 3)");
  CHECK(nn::relu(x).op().get_attr<DType>("T") == DType::float32);
  // Typed handles keep their type.
  Tensor<double> d = placeholder<double>(Shape{2});
  Tensor<double> r = nn::relu(d);
  CHECK(r.dtype() == DType::float64);
  // SquaredDifference broadcasts: (?, 3) with (3,).
  CHECK(squared_difference(x, constant<float>({1, 2, 3})).get_shape().to_string() == "(?, 3)");
}

TEST_CASE("nn/activations: integer inputs where TensorFlow allows them") {
  // TF: relu and relu6 accept int32; leaky_relu casts int32 to float32 first;
  //     reciprocal and squared_difference take int32.
  Graph g;
  auto guard = g.as_default();
  auto i = constant<std::int32_t>({-3, 2, 9});
  CHECK(run_vector<std::int32_t>(nn::relu(i)) == std::vector<std::int32_t>{0, 2, 9});
  CHECK(run_vector<std::int32_t>(nn::relu6(i)) == std::vector<std::int32_t>{0, 2, 6});
  auto lr = nn::leaky_relu(i);
  CHECK(lr.dtype() == DType::float32);
  CHECK(lr.op().inputs()[0].op().name() == "LeakyRelu/Cast");
  check_close(run_vector<float>(lr), {-0.6f, 2, 9});
  CHECK(run_vector<std::int32_t>(squared_difference(i, constant<std::int32_t>({1, 1, 1}))) ==
        std::vector<std::int32_t>{16, 1, 64});
  CHECK(run_vector<std::int32_t>(reciprocal(constant<std::int32_t>({1, -1, 2}))) ==
        std::vector<std::int32_t>{1, -1, 0});
  auto z = reciprocal(constant<std::int32_t>({1, 0}));
  auto e = thrown<InvalidArgumentError>([&] { run_vector<std::int32_t>(z); });
  REQUIRE(e);
  CHECK(contains(e->message(), "Integer division by zero"));
}

TEST_CASE("nn/activations: wrong dtypes are TypeErrors naming the parameter") {
  // TF: "Value passed to parameter 'features' has DataType bool not in list of allowed
  // values: ..." (relu), 'x' for sigmoid / tanh / floor / log1p / rsqrt, 'logits' for
  // log_softmax, 't' for l2_loss.
  Graph g;
  auto guard = g.as_default();
  auto b = constant(Value(true));
  auto i = constant<std::int32_t>({1, 2});
  auto msg = [](auto f) {
    auto e = thrown<TypeError>(f);
    return e ? e->message() : std::string("no error");
  };
  CHECK(contains(msg([&] { nn::relu(b); }),
                 "Value passed to parameter 'features' has DataType bool not in list of allowed "
                 "values: float32, float64, int32, int64, uint8"));
  CHECK(contains(msg([&] { nn::elu(i); }),
                 "parameter 'features' has DataType int32 not in list of allowed values: "
                 "float32, float64"));
  CHECK(contains(msg([&] { nn::sigmoid(i); }), "parameter 'x' has DataType int32"));
  CHECK(contains(msg([&] { nn::tanh(i); }), "parameter 'x' has DataType int32"));
  CHECK(contains(msg([&] { floor(i); }), "parameter 'x' has DataType int32"));
  CHECK(contains(msg([&] { log1p(i); }), "parameter 'x' has DataType int32"));
  CHECK(contains(msg([&] { rsqrt(i); }), "parameter 'x' has DataType int32"));
  CHECK(contains(msg([&] { nn::log_softmax(i); }), "parameter 'logits' has DataType int32"));
  CHECK(contains(msg([&] { nn::l2_loss(i); }), "parameter 't' has DataType int32"));
  CHECK(contains(msg([&] { squared_difference(b, b); }), "parameter 'x' has DataType bool"));
  // TF: "Dimensions must be equal, but are 2 and 3 for '{{node SquaredDifference_2}} ..."
  auto v = thrown<ValueError>([] {
    squared_difference(constant<float>({1, 2}), constant<float>({1, 2, 3}));
  });
  REQUIRE(v);
  CHECK(contains(v->message(), "Dimensions must be equal, but are 2 and 3"));
  // TF: "Shape must be at least rank 1 but is rank 0 for '{{node LogSoftmax_2}} ..."
  auto r = thrown<ValueError>([] { nn::log_softmax(constant(1.0f)); });
  REQUIRE(r);
  CHECK(contains(r->message(), "Shape must be at least rank 1 but is rank 0"));
}

// ---- l2_loss and bias_add ---------------------------------------------------------------------

TEST_CASE("nn/l2_loss: half the sum of squares, a scalar") {
  // TF: l2_loss([[-2, -0.5, 0, 0.5, 3, 7]]) = 31.25
  Graph g;
  auto guard = g.as_default();
  auto l = nn::l2_loss(constant(Value::from_vector(kActIn, {1, 6})));
  CHECK(l.name() == "L2Loss:0");
  CHECK(l.get_shape() == Shape{});
  CHECK(run_vector<float>(l) == std::vector<float>{31.25f});
  CHECK(run_vector<double>(nn::l2_loss(constant<double>({3, 4}))) == std::vector<double>{12.5});
}

TEST_CASE("nn/bias_add: last axis, names, attrs and errors") {
  // TF: bias_add(arange(12).reshape(2,3,2), [10, 20]) = [[[10,21],[12,23],[14,25]],
  //     [[16,27],[18,29],[20,31]]]; node "BiasAdd" with data_format "NHWC".
  Graph g;
  auto guard = g.as_default();
  std::vector<double> v(12);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i);
  auto y = nn::bias_add(constant(Value::from_vector(v, {2, 3, 2})), constant<double>({10, 20}));
  CHECK(y.name() == "BiasAdd:0");
  CHECK(y.op().get_attr<std::string>("data_format") == "NHWC");
  CHECK(y.get_shape() == Shape{2, 3, 2});
  CHECK(run_vector<double>(y) ==
        std::vector<double>{10, 21, 12, 23, 14, 25, 16, 27, 18, 29, 20, 31});
  CHECK(run_vector<std::int32_t>(
            nn::bias_add(constant<std::int32_t>({{1, 2}}), constant<std::int32_t>({3, 4}))) ==
        std::vector<std::int32_t>{4, 6});
  auto p = placeholder<float>(Shape{-1, 4});
  CHECK(nn::bias_add(p, placeholder<float>(Shape{-1})).get_shape().to_string() == "(?, 4)");

  // TF: "Shape must be at least rank 2 but is rank 1", "Dimensions must be equal, but are 2
  // and 3", "Shape must be rank 1 but is rank 2"; a bias of another dtype: "bias: Tensor
  // conversion requested dtype float32 for Tensor with dtype int32: ..."
  auto err = [](auto f) {
    auto e = thrown<ValueError>(f);
    return e ? e->message() : std::string("no error");
  };
  CHECK(contains(err([] {
                   nn::bias_add(constant<float>({1, 2}), constant<float>({1, 2}));
                 }),
                 "Shape must be at least rank 2 but is rank 1"));
  CHECK(contains(err([] {
                   nn::bias_add(constant<float>({{1, 2}}), constant<float>({1, 2, 3}));
                 }),
                 "Dimensions must be equal, but are 2 and 3"));
  CHECK(contains(err([] {
                   nn::bias_add(constant<float>({{1, 2}}), constant<float>({{1, 2}}));
                 }),
                 "Shape must be rank 1 but is rank 2"));
  CHECK(contains(err([] {
                   nn::bias_add(constant<float>({{1, 2}}), constant<std::int32_t>({1, 2}));
                 }),
                 "bias: Tensor conversion requested dtype float32 for Tensor with dtype int32"));
  // A mismatch only known when it runs.
  auto q = placeholder<float>(Shape{-1});
  auto yq = nn::bias_add(p, q);
  Session sess(g);
  auto e = thrown<InvalidArgumentError>([&] {
    sess.run(yq, {{p, Value::from_vector<float>({1, 2, 3, 4}, {1, 4})},
                  {q, Value::from_vector<float>({1, 2}, {2})}});
  });
  REQUIRE(e);
  CHECK(contains(e->message(), "Must provide as many biases as the last dimension"));
}

// ---- cross entropy -------------------------------------------------------------------------

TEST_CASE("nn/softmax_cross_entropy_with_logits: values, outputs and names") {
  // TF: logits [[1,2,3],[1,-1,0.5]], labels [[0,0,1],[0.3,0.3,0.4]]:
  //     loss [0.40760595, 1.354957], backprop [[0.09003057, 0.24472848, -0.33475906],
  //     [0.27409697, -0.22230443, -0.05179259]]
  Graph g;
  auto guard = g.as_default();
  auto logits = constant<float>({{1, 2, 3}, {1, -1, 0.5}});
  auto labels = constant<float>({{0, 0, 1}, {0.3f, 0.3f, 0.4f}});
  auto loss = nn::softmax_cross_entropy_with_logits_v2(labels, logits);
  CHECK(loss.name() == "softmax_cross_entropy_with_logits:0");
  CHECK(loss.op().type() == "SoftmaxCrossEntropyWithLogits");
  CHECK(loss.get_shape() == Shape{2});
  CHECK(loss.op().output(1).get_shape() == Shape{2, 3});
  check_close(run_vector<float>(loss), {0.40760595f, 1.354957f}, 1e-6, false);
  check_close(run_vector<float>(loss.op().output(1)),
              {0.09003057f, 0.24472848f, -0.33475906f, 0.27409697f, -0.22230443f, -0.05179259f},
              1e-6, false);
  // TF1's first version stops the gradient into the labels.
  auto sg = nn::softmax_cross_entropy_with_logits(labels, logits);
  CHECK(sg.name() == "softmax_cross_entropy_with_logits_sg:0");
  CHECK(input_names(sg)[1] == "softmax_cross_entropy_with_logits_sg/labels_stop_gradient:0");
  check_close(run_vector<float>(sg), {0.40760595f, 1.354957f}, 1e-6, false);
}

TEST_CASE("nn/softmax_cross_entropy_with_logits: rank 3 and rank 1 are flattened") {
  // TF (float64): logits arange(24).reshape(2,3,4)/5, labels softmax(arange(24)[::-1]/7)
  //     -> loss [[0.77790168, 0.89736015, 1.03516326, 1.1941281]] * 2 rows, for axis=1.
  // Here with the last axis: labels uniform 1/4 give mean(lse - x) per row.
  Graph g;
  auto guard = g.as_default();
  std::vector<double> x(24);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<double>(i) / 5;
  auto logits = constant(Value::from_vector(x, {2, 3, 4}));
  auto labels = constant(Value::from_vector(std::vector<double>(24, 0.25), {2, 3, 4}));
  auto loss = nn::softmax_cross_entropy_with_logits_v2(labels, logits);
  CHECK(loss.get_shape() == Shape{2, 3});
  // Every row is [k, k+0.2, k+0.4, k+0.6]: loss = log(sum(exp(0.2 j))) - 0.3 for j < 4.
  const double row = std::log(1 + std::exp(0.2) + std::exp(0.4) + std::exp(0.6)) - 0.3;
  check_close(run_vector<double>(loss), std::vector<double>(6, row), 1e-12, false);
  auto one =
      nn::softmax_cross_entropy_with_logits_v2(constant<double>({0, 1}), constant<double>({0, 0}));
  CHECK(one.get_shape() == Shape{});
  check_close(run_vector<double>(one), {std::log(2.0)}, 1e-12, false);
  // An unknown batch dimension stays unknown.
  auto p = placeholder<double>(Shape{-1, 3, 4});
  CHECK(nn::softmax_cross_entropy_with_logits_v2(p, p).get_shape().to_string() == "(?, 3)");
}

TEST_CASE("nn/softmax_cross_entropy_with_logits: build-time errors") {
  // TF: int32 features: "Value passed to parameter 'features' has DataType int32 not in list
  // of allowed values: float16, bfloat16, float32, float64"; mismatched classes:
  // "Dimensions must be equal, but are 3 and 4".
  Graph g;
  auto guard = g.as_default();
  auto logits = constant<float>({{1, 2, 3}, {1, -1, 0.5}});
  auto t = thrown<TypeError>([] {
    nn::softmax_cross_entropy_with_logits_v2(constant<std::int32_t>({{1, 2}}),
                                             constant<std::int32_t>({{1, 2}}));
  });
  REQUIRE(t);
  CHECK(contains(t->message(), "parameter 'features' has DataType int32"));
  auto v = thrown<ValueError>([&] {
    nn::softmax_cross_entropy_with_logits_v2(constant<float>({{1, 2, 3, 4}, {1, 2, 3, 4}}), logits);
  });
  REQUIRE(v);
  CHECK(contains(v->message(), "Dimensions must be equal, but are 3 and 4"));
  auto m = thrown<TypeError>([&] {
    nn::softmax_cross_entropy_with_logits_v2(constant<double>({{1, 2, 3}}), logits);
  });
  REQUIRE(m);
  CHECK(contains(m->message(),
                 "Input 'labels' of 'SoftmaxCrossEntropyWithLogits' Op has type "
                 "float64 that does not match type float32"));
}

TEST_CASE("nn/sparse_softmax_cross_entropy_with_logits: values, names, rank 3") {
  // TF: logits [[1,2,3],[1,-1,0.5]], labels [2, 0]: loss [0.40760595, 0.554957]; backprop
  //     [[0.09003057, 0.24472848, -0.33475906], [-0.42590302, 0.07769558, 0.3482074]]; nodes
  //     "SparseSoftmaxCrossEntropyWithLogits/Shape" (Const) and
  //     "SparseSoftmaxCrossEntropyWithLogits/SparseSoftmaxCrossEntropyWithLogits".
  Graph g;
  auto guard = g.as_default();
  auto logits = constant<float>({{1, 2, 3}, {1, -1, 0.5}});
  auto loss = nn::sparse_softmax_cross_entropy_with_logits(constant<std::int32_t>({2, 0}), logits);
  CHECK(loss.name() == "SparseSoftmaxCrossEntropyWithLogits/SparseSoftmaxCrossEntropyWithLogits:0");
  CHECK(loss.op().get_attr<DType>("Tlabels") == DType::int32);
  CHECK(g.get_operation_by_name("SparseSoftmaxCrossEntropyWithLogits/Shape").type() == "Const");
  check_close(run_vector<float>(loss), {0.40760595f, 0.554957f}, 1e-6, false);
  check_close(run_vector<float>(loss.op().output(1)),
              {0.09003057f, 0.24472848f, -0.33475906f, -0.42590302f, 0.07769558f, 0.3482074f}, 1e-6,
              false);
  auto l64 = nn::sparse_softmax_cross_entropy_with_logits(constant<std::int64_t>({2, 0}), logits);
  check_close(run_vector<float>(l64), {0.40760595f, 0.554957f}, 1e-6, false);

  // TF: logits arange(12).reshape(2,2,3)/4, labels [[0,2],[1,1]]:
  //     [[1.369338, 0.86933804], [1.119338, 1.119338]]
  std::vector<float> x(12);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i) / 4;
  auto l3 = nn::sparse_softmax_cross_entropy_with_logits(
      constant<std::int32_t>({{0, 2}, {1, 1}}), constant(Value::from_vector(x, {2, 2, 3})));
  CHECK(l3.get_shape() == Shape{2, 2});
  check_close(run_vector<float>(l3), {1.369338f, 0.86933804f, 1.119338f, 1.119338f}, 1e-6, false);
  // Unknown batch: the loss takes the labels' dynamic shape.
  auto p = placeholder<float>(Shape{-1, -1, 3});
  auto lp = placeholder<std::int32_t>(Shape{-1, -1});
  auto ld = nn::sparse_softmax_cross_entropy_with_logits(lp, p);
  Session sess(g);
  Value got = sess.run(ld, {{p, Value::from_vector(x, {2, 2, 3})},
                            {lp, Value::from_vector<std::int32_t>({0, 2, 1, 1}, {2, 2})}});
  CHECK(got.dims() == Dims{2, 2});
  check_close(got.to_vector<float>(), {1.369338f, 0.86933804f, 1.119338f, 1.119338f}, 1e-6, false);
}

TEST_CASE("nn/sparse_softmax_cross_entropy_with_logits: errors") {
  // TF: "Received a label value of 5 which is outside the valid range of [0, 3).  Label
  //     values: 0 5"; "Must have at least one class, but got logits shape [2,0]";
  //     "`labels.shape` must equal `logits.shape` except for the last dimension. Received:
  //     labels.shape=(3,) and logits.shape=(2, 3)"; float labels: "Value passed to parameter
  //     'labels' has DataType float32 not in list of allowed values: int32, int64";
  //     "`labels.shape.rank` must equal `logits.shape.rank - 1`. Received: labels.shape=(1, 2)
  //     of rank 2 and logits.shape=(2, 3) of rank 2"
  Graph g;
  auto guard = g.as_default();
  auto logits = constant<float>({{1, 2, 3}, {1, -1, 0.5}});
  auto bad = nn::sparse_softmax_cross_entropy_with_logits(constant<std::int64_t>({0, 5}), logits);
  auto neg = nn::sparse_softmax_cross_entropy_with_logits(constant<std::int32_t>({3, -1}), logits);
  Session sess(g);
  auto e = thrown<InvalidArgumentError>([&] { sess.run(bad); });
  REQUIRE(e);
  CHECK(e->message() ==
        "Received a label value of 5 which is outside the valid range of [0, 3).  Label values: "
        "0 5");
  CHECK(e->node_name() == bad.op().name());
  auto e2 = thrown<InvalidArgumentError>([&] { sess.run(neg); });
  REQUIRE(e2);
  CHECK(contains(e2->message(), "Received a label value of 3 which is outside the valid range"));
  auto empty = nn::sparse_softmax_cross_entropy_with_logits(
      constant<std::int32_t>({0, 0}), constant(Value::from_vector<float>({}, {2, 0})));
  auto e3 = thrown<InvalidArgumentError>([&] { sess.run(empty); });
  REQUIRE(e3);
  CHECK(e3->message() == "Must have at least one class, but got logits shape [2,0]");

  auto v = thrown<ValueError>([&] {
    nn::sparse_softmax_cross_entropy_with_logits(constant<std::int32_t>({1, 2, 0}), logits);
  });
  REQUIRE(v);
  CHECK(v->message() ==
        "`labels.shape` must equal `logits.shape` except for the last dimension. Received: "
        "labels.shape=(3,) and logits.shape=(2, 3)");
  auto r = thrown<ValueError>([&] {
    nn::sparse_softmax_cross_entropy_with_logits(constant<std::int32_t>({{1, 2}}), logits);
  });
  REQUIRE(r);
  CHECK(r->message() ==
        "`labels.shape.rank` must equal `logits.shape.rank - 1`. Received: labels.shape=(1, 2) "
        "of rank 2 and logits.shape=(2, 3) of rank 2");
  auto t = thrown<TypeError>([&] {
    nn::sparse_softmax_cross_entropy_with_logits(constant<float>({1, 2}), logits);
  });
  REQUIRE(t);
  CHECK(contains(t->message(),
                 "Value passed to parameter 'labels' has DataType float32 not in "
                 "list of allowed values: int32, int64"));
  // A batch mismatch known only at run time (TF: "logits and labels must have the same first
  // dimension, got logits shape [2,3] and labels shape [3]").
  auto pl = placeholder<std::int32_t>(Shape{-1});
  auto pf = placeholder<float>(Shape{-1, 3});
  auto dyn = nn::sparse_softmax_cross_entropy_with_logits(pl, pf);
  auto e4 = thrown<InvalidArgumentError>([&] {
    sess.run(dyn, {{pf, Value::from_vector<float>(std::vector<float>(6, 1), {2, 3})},
                   {pl, Value::from_vector<std::int32_t>({1, 2, 0}, {3})}});
  });
  REQUIRE(e4);
  CHECK(e4->message() ==
        "logits and labels must have the same first dimension, got logits shape [2,3] and "
        "labels shape [3]");
}

TEST_CASE("nn/sigmoid_cross_entropy_with_logits: stable values and names") {
  // TF: logits [[-3,-0.5,0],[0.7,2,40]], labels [[0,1,0.5],[1,0.2,0]]:
  //     [[0.048587352, 0.974077, 0.6931472], [0.40318605, 1.726928, 40]]; named "logistic_loss".
  Graph g;
  auto guard = g.as_default();
  auto logits = constant<float>({{-3, -0.5f, 0}, {0.7f, 2, 40}});
  auto labels = constant<float>({{0, 1, 0.5f}, {1, 0.2f, 0}});
  auto l = nn::sigmoid_cross_entropy_with_logits(labels, logits);
  CHECK(l.name() == "logistic_loss:0");
  CHECK(l.get_shape() == Shape{2, 3});
  check_close(run_vector<float>(l),
              {0.048587352f, 0.974077f, 0.6931472f, 0.40318605f, 1.726928f, 40}, 2e-6, false);
  // TF: "`logits` and `labels` must have the same shape, received ((2, 3) vs (2,))."
  auto e = thrown<ValueError>([&] {
    nn::sigmoid_cross_entropy_with_logits(constant<float>({1, 2}), logits);
  });
  REQUIRE(e);
  CHECK(e->message() ==
        "`logits` and `labels` must have the same shape, received ((2, 3) vs (2,)).");
}

// ---- moments, batch_normalization, dropout -----------------------------------------------------

TEST_CASE("nn/moments: mean and variance, names, keep_dims") {
  // TF: moments([[1,2,4],[3,-1,0.5]], [0]) = mean [2, 0.5, 2.25], variance [1, 2.25, 3.0625]
  //     named "moments/Squeeze:0" and "moments/Squeeze_1:0"; over [0, 1] with keep_dims:
  //     [[1.5833334]] and [[2.701389]], "moments_1/mean:0" and "moments_1/variance:0".
  Graph g;
  auto guard = g.as_default();
  auto x = constant<float>({{1, 2, 4}, {3, -1, 0.5f}});
  auto [m, v] = nn::moments(x, {0});
  CHECK(m.name() == "moments/Squeeze:0");
  CHECK(v.name() == "moments/Squeeze_1:0");
  CHECK(m.get_shape() == Shape{3});
  CHECK(g.get_operation_by_name("moments/StopGradient").type() == "StopGradient");
  CHECK(g.get_operation_by_name("moments/SquaredDifference").type() == "SquaredDifference");
  check_close(run_vector<float>(m), {2, 0.5f, 2.25f});
  check_close(run_vector<float>(v), {1, 2.25f, 3.0625f});
  auto [m2, v2] = nn::moments(x, {0, 1}, true);
  CHECK(m2.name() == "moments_1/mean:0");
  CHECK(v2.name() == "moments_1/variance:0");
  CHECK(m2.get_shape() == Shape{1, 1});
  check_close(run_vector<float>(m2), {1.5833334f});
  check_close(run_vector<float>(v2), {2.701389f});
}

TEST_CASE("nn/batch_normalization: TensorFlow's formula and node names") {
  // TF: x [[1,2,4],[3,-1,0.5]] with its moments, offset [0.5,0,-1], scale [2,1,0.5], 1e-3:
  //     [[-1.4990008, 0.99977785, -0.50008154], [2.499001, -0.99977785, -1.4999183]];
  //     without offset and scale: [[-0.9995004, 0.99977785, 0.9998368], [0.9995005,
  //     -0.99977785, -0.9998368]]. Nodes batchnorm/{add/y, add, Rsqrt, mul, mul_1, mul_2, sub,
  //     add_1} and batchnorm_1/{add/y, add, Rsqrt, mul, Neg, mul_1, add_1}.
  Graph g;
  auto guard = g.as_default();
  auto x = constant<float>({{1, 2, 4}, {3, -1, 0.5f}});
  auto [m, v] = nn::moments(x, {0});
  auto offset = constant<float>({0.5f, 0, -1});
  auto scale = constant<float>({2, 1, 0.5f});
  const std::size_t before = g.num_nodes();
  auto y = nn::batch_normalization(x, m, v, offset, scale, 1e-3);
  CHECK(y.name() == "batchnorm/add_1:0");
  std::vector<std::string> names;
  for (const auto& [name, type] : nodes(g)) names.push_back(name);
  const std::vector<std::string> want{"batchnorm/add/y", "batchnorm/add",   "batchnorm/Rsqrt",
                                      "batchnorm/mul",   "batchnorm/mul_1", "batchnorm/mul_2",
                                      "batchnorm/sub",   "batchnorm/add_1"};
  CHECK(std::vector<std::string>(names.begin() + static_cast<std::ptrdiff_t>(before),
                                 names.end()) == want);
  check_close(run_vector<float>(y),
              {-1.4990008f, 0.99977785f, -0.50008154f, 2.499001f, -0.99977785f, -1.4999183f}, 2e-6,
              false);
  auto y2 = nn::batch_normalization(x, m, v, Output{}, Output{}, 1e-3);
  CHECK(y2.name() == "batchnorm_1/add_1:0");
  CHECK(g.get_operation_by_name("batchnorm_1/Neg").type() == "Neg");
  check_close(run_vector<float>(y2),
              {-0.9995004f, 0.99977785f, 0.9998368f, 0.9995005f, -0.99977785f, -0.9998368f}, 2e-6,
              false);
}

TEST_CASE("nn/dropout: TensorFlow's mask for a seed, scaling and names") {
  // TF (seed 7, keep_prob 0.6, ones [3, 5]), first and second run of one session:
  //   [[k,k,0,0,k],[k,0,k,k,k],[k,0,k,0,0]] and [[k,k,k,k,0],[0,k,0,k,k],[k,k,k,k,0]],
  //   k = 1.6666666; float64, seed 3, keep_prob 0.5, ones [4]: [0, 2, 0, 2].
  Graph g;
  auto guard = g.as_default();
  auto d = nn::dropout(ones({3, 5}), 0.6, {.seed = 7});
  CHECK(d.name() == "dropout/mul:0");
  CHECK(d.get_shape() == Shape{3, 5});
  for (const char* n :
       {"dropout/keep_prob", "dropout/Shape", "dropout/random_uniform/RandomUniform", "dropout/add",
        "dropout/Floor", "dropout/div"})
    CHECK(g.get_operation_by_name(n).valid());
  Session sess(g);
  const float k = 1 / 0.6f;
  CHECK(sess.run(d).to_vector<float>() ==
        std::vector<float>{k, k, 0, 0, k, k, 0, k, k, k, k, 0, k, 0, 0});
  CHECK(sess.run(d).to_vector<float>() ==
        std::vector<float>{k, k, k, k, 0, 0, k, 0, k, k, k, k, k, k, 0});
  auto d64 = nn::dropout(ones({4}, DType::float64), 0.5, {.seed = 3});
  CHECK(sess.run(d64).to_vector<double>() == std::vector<double>{0, 2, 0, 2});
  // keep_prob 1 is x itself; a placeholder keep_prob fed 1 keeps everything.
  auto x = constant<float>({1, 2, 3});
  CHECK(nn::dropout(x, 1.0) == x);
  auto kp = placeholder<float>(Shape{});
  auto dp = nn::dropout(x, kp, {.seed = 1});
  CHECK(sess.run(dp, {{kp, 1.0f}}).to_vector<float>() == std::vector<float>{1, 2, 3});
  // noise_shape [3, 1]: whole rows are kept or dropped.
  auto rows = sess.run(nn::dropout(ones({3, 4}), 0.5, {.noise_shape = Dims{3, 1}, .seed = 5}))
                  .to_vector<float>();
  for (std::size_t r = 0; r < 3; ++r)
    for (std::size_t c = 1; c < 4; ++c) CHECK(rows[r * 4 + c] == rows[r * 4]);
  // An unknown batch dimension uses the Shape op.
  auto p = placeholder<float>(Shape{-1, 2});
  auto dd = nn::dropout(p, 0.5, {.seed = 2});
  CHECK(dd.get_shape().to_string() == "(?, 2)");
  CHECK(sess.run(dd, {{p, Value::from_vector<float>({1, 1, 1, 1, 1, 1}, {3, 2})}}).dims() ==
        Dims{3, 2});

  // TF1: "keep_prob must be a scalar tensor or a float in the range (0, 1], got 1.5".
  auto e = thrown<ValueError>([&] { nn::dropout(x, 1.5); });
  REQUIRE(e);
  CHECK(e->message() ==
        "keep_prob must be a scalar tensor or a float in the range (0, 1], got 1.5");
  CHECK(thrown<ValueError>([&] { nn::dropout(constant<std::int32_t>({1}), 0.5); }));
}

}  // namespace symflow_test_ops_nn_ops_test
