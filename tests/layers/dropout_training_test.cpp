// symflow::layers::dropout with `training` a bool tensor (an is_training placeholder),
// checked against tf.compat.v1.layers.dropout(x, rate, training=t, seed) (TensorFlow 2.21,
// graph mode, control flow v1): one graph, the input unchanged when fed false, TensorFlow's
// mask when fed true (the same Philox stream for the same seeds).

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include <symflow/layers/core.hpp>
#include <symflow/symflow.hpp>

#include "../test_util.hpp"

namespace symflow_test_layers_dropout_training_test {

using namespace symflow;
using namespace symflow::test;

Value one_to(std::int64_t rows, std::int64_t cols) {
  std::vector<float> v(static_cast<std::size_t>(rows * cols));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i + 1);
  return Value::from_vector(v, {rows, cols});
}

TEST_CASE("layers/dropout_training: both feeds of one graph give TensorFlow's values") {
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<float>(Shape{-1, 5}, "x");
  auto t = placeholder<bool>(Shape{}, "t");
  Output y = layers::dropout(x, 0.4, t, {.seed = 7});
  // TF: dropout/cond/Merge, the RandomUniform in the true branch seeded (87654321, 7).
  CHECK(y.name() == "dropout/cond/Merge:0");
  Operation rnd = g.get_operation_by_name("dropout/cond/dropout/random_uniform/RandomUniform");
  CHECK(rnd.get_attr<std::int64_t>("seed") == 87654321);
  CHECK(rnd.get_attr<std::int64_t>("seed2") == 7);

  const Value xv = one_to(4, 5);
  Session sess(g);
  // TF: fed false, x itself.
  CHECK(sess.run(y, {{x, xv}, {t, Value(false)}}).to_vector<float>() == xv.to_vector<float>());
  // TF: fed true twice, two masks of the seeded stream, kept values times 1 / 0.6.
  check_close(sess.run(y, {{x, xv}, {t, Value(true)}}).to_vector<float>(), {1.6666666269302368f,
                                                                            3.3333332538604736f,
                                                                            0.0f,
                                                                            0.0f,
                                                                            8.333333015441895f,
                                                                            10.0f,
                                                                            0.0f,
                                                                            13.333333015441895f,
                                                                            15.0f,
                                                                            16.66666603088379f,
                                                                            18.333332061767578f,
                                                                            0.0f,
                                                                            21.66666603088379f,
                                                                            0.0f,
                                                                            0.0f,
                                                                            0.0f,
                                                                            28.333332061767578f,
                                                                            0.0f,
                                                                            31.66666603088379f,
                                                                            0.0f});
  check_close(sess.run(y, {{x, xv}, {t, Value(true)}}).to_vector<float>(), {0.0f,
                                                                            0.0f,
                                                                            0.0f,
                                                                            6.666666507720947f,
                                                                            8.333333015441895f,
                                                                            10.0f,
                                                                            0.0f,
                                                                            13.333333015441895f,
                                                                            0.0f,
                                                                            16.66666603088379f,
                                                                            0.0f,
                                                                            20.0f,
                                                                            21.66666603088379f,
                                                                            0.0f,
                                                                            25.0f,
                                                                            26.66666603088379f,
                                                                            0.0f,
                                                                            30.0f,
                                                                            31.66666603088379f,
                                                                            33.33333206176758f});
  // A false feed between true ones still passes x through unchanged.
  CHECK(sess.run(y, {{x, xv}, {t, Value(false)}}).to_vector<float>() == xv.to_vector<float>());
}

TEST_CASE("layers/dropout_training: fed true, about `rate` zeros and the rest scaled exactly") {
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<float>(Shape{-1, 100}, "x");
  auto t = placeholder<bool>(Shape{}, "t");
  const double rate = 0.3;
  Output y = layers::dropout(x, rate, t, {.seed = 11});
  const Value xv = one_to(100, 100);
  const std::vector<float> in = xv.to_vector<float>();
  Session sess(g);
  const std::vector<float> out = sess.run(y, {{x, xv}, {t, Value(true)}}).to_vector<float>();
  // TF multiplies by the scale as a float32 constant, then selects.
  const float scale = static_cast<float>(1.0 / (1.0 - rate));
  std::size_t zeros = 0, wrongly_scaled = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (out[i] == 0.0f)
      ++zeros;
    else if (out[i] != in[i] * scale)
      ++wrongly_scaled;
  }
  CHECK(wrongly_scaled == 0);
  // 10000 draws: the zero count's standard deviation is about 46, so 5 sigmas is 230.
  CHECK(zeros > 3000 - 230);
  CHECK(zeros < 3000 + 230);
  // TF: the same seed zeros 3018 of them.
  CHECK(zeros == 3018);
  CHECK(sess.run(y, {{x, xv}, {t, Value(false)}}).to_vector<float>() == in);
}

TEST_CASE("layers/dropout_training: a training tensor that is not bool") {
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<float>(Shape{-1, 5}, "x");
  auto t = placeholder<bool>(Shape{}, "t");
  // TF: an int32 training is refused by the cond's Switch; rate is checked first.
  auto type_error =
      thrown<TypeError>([&] { layers::dropout(x, 0.4, placeholder<std::int32_t>(Shape{})); });
  REQUIRE(type_error);
  CHECK(std::string(type_error->what()) ==
        "Input 'pred' of 'Switch' Op has type int32 that does not match expected type of bool.");
  auto rate_error = thrown<ValueError>([&] { layers::dropout(x, -0.1, t); });
  REQUIRE(rate_error);
  CHECK(std::string(rate_error->what()) ==
        "Invalid value -0.1 received for `rate`, expected a value between 0 and 1.");
}

}  // namespace symflow_test_layers_dropout_training_test
