// symflow::nn::softmax, checked against tf.nn.softmax in TensorFlow 1.x graph mode.

#include <doctest/doctest.h>

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include <symflow/symflow.hpp>

#include "../test_util.hpp"

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
