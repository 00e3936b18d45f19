// Gradients through layers::batch_normalization with `training` a bool tensor: through
// the conds that pick the batch's moments or the moving statistics, against central
// differences in float64 and against TensorFlow's tf.gradients (float32).

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <symflow/layers/batch_normalization.hpp>
#include <symflow/symflow.hpp>
#include <symflow/train/gradients.hpp>

#include "../gradient_check.hpp"
#include "../test_util.hpp"

namespace symflow_test_layers_batch_normalization_training_grad_test {

using namespace symflow;
using namespace symflow::test;

// d sum(y * w) / d (x, gamma, beta) against central differences, with `training` fed
// `on`. gamma and beta are fed through their read tensors; the moving statistics are
// initialised, since the untaken branch's Switch still reads them.
void check_training_feed(bool on, const Dims& dims) {
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<double>(Shape(dims), "x");
  auto t = placeholder<bool>(Shape{}, "t");
  Output y = layers::batch_normalization(x, t);
  for (const Operation& op : g.get_operations()) gradient_checked_ops().insert(op.type());
  const std::int64_t channels = dims.back();
  Output gamma = g.get_tensor_by_name("batch_normalization/gamma/read:0");
  Output beta = g.get_tensor_by_name("batch_normalization/beta/read:0");
  Session sess(g);
  sess.run(global_variables_initializer());
  Output weights = constant(sequence_value(dims, 777), "weights");
  Output loss = reduce_sum(multiply(y, weights));
  FeedDict feeds = {{x, sequence_value(dims, 11)},
                    {gamma, sequence_value({channels}, 23)},
                    {beta, sequence_value({channels}, 37)},
                    {t, Value(on)}};
  check_against_differences(sess, loss, feeds, {0, 1, 2}, 1e-6, 1e-6);
}

TEST_CASE("layers/batch_normalization_training grad: fed true, through the batch's moments") {
  check_training_feed(true, {5, 3});
  check_training_feed(true, {2, 2, 2, 3});
}

TEST_CASE("layers/batch_normalization_training grad: fed false, through the moving statistics") {
  check_training_feed(false, {5, 3});
}

TEST_CASE("layers/batch_normalization_training grad: TensorFlow's gradients for both feeds") {
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<float>(Shape{4, 3}, "x");
  auto t = placeholder<bool>(Shape{}, "t");
  Output y = layers::batch_normalization(x, t);
  std::vector<float> w(12);
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(i + 1) / 10;
  Output loss = reduce_sum(y * constant(Value::from_vector(w, {4, 3})));
  std::vector<Variable> trainable = trainable_variables();
  std::vector<Output> grads =
      gradients(loss, {x, Output(trainable.at(0)), Output(trainable.at(1))});
  const Value xv = Value::from_vector<float>({1, 2, 3, 4, 0, -1, 2, 2, 2, 0.5f, 1, 8}, {4, 3});
  Session sess(g);
  sess.run(global_variables_initializer());
  // TF: tf.gradients(reduce_sum(y * w), [x, gamma, beta]), w = (1..12) / 10.
  std::vector<Value> on = sess.run(grads, {{x, xv}, {t, Value(true)}});
  check_close(
      on[0].to_vector<float>(),
      {-0.383247971534729f, -0.4930953085422516f, -0.1388663947582245f, 0.003826737403869629f,
       -0.26282668113708496f, 0.0330558717250824f, 0.11867508292198181f, 0.2300061583518982f,
       0.06612494587898254f, 0.2607460916042328f, 0.5259159207344055f, 0.03968554735183716f},
      1e-4);
  check_close(on[1].to_vector<float>(),
              {-0.3915431499481201f, -0.1807754933834076f, 0.833198606967926f}, 1e-5);
  check_close(on[2].to_vector<float>(), {2.2f, 2.6f, 3.0f});
  std::vector<Value> off = sess.run(grads, {{x, xv}, {t, Value(false)}});
  check_close(off[0].to_vector<float>(),
              {0.09995003789663315f, 0.1999000757932663f, 0.29985013604164124f, 0.3998001515865326f,
               0.49975019693374634f, 0.5997002720832825f, 0.6996502876281738f, 0.7996003031730652f,
               0.8995503187179565f, 0.9995003938674927f, 1.0994504690170288f, 1.199400544166565f});
  check_close(off[1].to_vector<float>(),
              {3.598201274871826f, 3.0984511375427246f, 11.6941556930542f}, 1e-5);
  check_close(off[2].to_vector<float>(), {2.2f, 2.6f, 3.0f});
}

}  // namespace symflow_test_layers_batch_normalization_training_grad_test
