// symflow::layers::batch_normalization, checked against tf.layers.batch_normalization
// (TensorFlow 1.x graph mode, the non-fused form).

#include <doctest/doctest.h>

#include <string>
#include <variant>
#include <vector>

#include <symflow/layers/batch_normalization.hpp>
#include <symflow/symflow.hpp>
#include <symflow/train/gradients.hpp>

#include "../test_util.hpp"

namespace symflow_test_layers_batch_normalization_test {

namespace layers_bn_test {

using namespace symflow;
using namespace symflow::test;

// TF's test input: 4 rows, 3 channels.
const Value kX = Value::from_vector<float>({1, 2, 3, 4, 0, -1, 2, 2, 2, 0.5f, 1, 8}, {4, 3});

}  // namespace layers_bn_test

using namespace layers_bn_test;

TEST_CASE("layers/batch_normalization: variables, nodes and update ops") {
  // TF: variables batch_normalization/{gamma, beta, moving_mean, moving_variance}, the last
  //     two not trainable; output "batch_normalization/batchnorm/add_1:0"; UPDATE_OPS holds
  //     batch_normalization/AssignMovingAvg and AssignMovingAvg_1 (AssignSub), whose
  //     decay / sub / mul are colocated with the moving variable.
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<float>(Shape{-1, 3});
  auto y = layers::batch_normalization(x, true);
  CHECK(y.name() == "batch_normalization/batchnorm/add_1:0");
  CHECK(y.get_shape().to_string() == "(?, 3)");
  CHECK(variable_names(trainable_variables()) ==
        std::vector<std::string>{"batch_normalization/gamma:0", "batch_normalization/beta:0"});
  CHECK(variable_names(global_variables()) ==
        std::vector<std::string>{"batch_normalization/gamma:0", "batch_normalization/beta:0",
                                 "batch_normalization/moving_mean:0",
                                 "batch_normalization/moving_variance:0"});
  auto updates = update_ops(g);
  REQUIRE(updates.size() == 2);
  CHECK(updates[0].name() == "batch_normalization/AssignMovingAvg");
  CHECK(updates[0].type() == "AssignSub");
  CHECK(updates[0].get_attr<bool>("use_locking") == false);
  CHECK(updates[1].name() == "batch_normalization/AssignMovingAvg_1");
  CHECK(input_names(updates[0]) ==
        std::vector<std::string>{"batch_normalization/moving_mean:0",
                                 "batch_normalization/AssignMovingAvg/mul:0"});
  CHECK(input_names(g.get_operation_by_name("batch_normalization/AssignMovingAvg/sub")) ==
        std::vector<std::string>{"batch_normalization/moving_mean/read:0",
                                 "batch_normalization/moments/Squeeze:0"});
  CHECK(g.get_operation_by_name("batch_normalization/AssignMovingAvg/decay")
            .get_attr<StringList>("_class")
            .items == std::vector<std::string>{"loc:@batch_normalization/moving_mean"});
  CHECK(g.get_operation_by_name("batch_normalization/moments/mean").type() == "Mean");
  CHECK(input_names(g.get_operation_by_name("batch_normalization/batchnorm/mul")) ==
        std::vector<std::string>{"batch_normalization/batchnorm/Rsqrt:0",
                                 "batch_normalization/gamma/read:0"});

  // TF: a second layer is batch_normalization_1; in inference mode it reads the moving
  //     statistics and adds no update ops.
  auto y2 = layers::batch_normalization(x, false);
  CHECK(y2.name() == "batch_normalization_1/batchnorm/add_1:0");
  CHECK(input_names(g.get_operation_by_name("batch_normalization_1/batchnorm/add")) ==
        std::vector<std::string>{"batch_normalization_1/moving_variance/read:0",
                                 "batch_normalization_1/batchnorm/add/y:0"});
  CHECK(update_ops(g).size() == 2);

  // TF: inside variable_scope("bn3") with name "my_bn", center and scale off:
  //     "bn3/my_bn/batchnorm/add_1:0", variables bn3/my_bn/moving_mean and moving_variance.
  variable_scope vs("bn3");
  auto y3 = layers::batch_normalization(
      x, true,
      {.momentum = 0.9, .epsilon = 0.01, .center = false, .scale = false, .name = "my_bn"});
  CHECK(y3.name() == "bn3/my_bn/batchnorm/add_1:0");
  CHECK(variable_names(global_variables("bn3")) ==
        std::vector<std::string>{"bn3/my_bn/moving_mean:0", "bn3/my_bn/moving_variance:0"});
}

TEST_CASE("layers/batch_normalization: values and moving averages against TensorFlow") {
  // TF, x = kX: training output [[-0.6525718, 0.9038769, 0], [1.5848172, -1.5064615,
  //     -1.234368], [0.09322453, 0.9038769, -0.30859202], [-1.02547, -0.3012923, 1.5429599]];
  //     after one run of the updates: moving_mean [0.01875, 0.0125, 0.03], moving_variance
  //     [1.0079688, 0.996875, 1.095]; with momentum 0.9, epsilon 0.01, no center/scale:
  //     output [[-0.6509446, 0.89802647, 0], [1.5808654, -1.4967108, -1.2338394],
  //     [0.09299207, 0.89802647, -0.30845982], [-1.022913, -0.29934216, 1.5422993]] and
  //     moving_mean [0.1875, 0.125, 0.3], moving_variance [1.0796875, 0.96875, 1.95].
  //     An inference layer: x / sqrt(1 + 0.001).
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<float>(Shape{-1, 3});
  auto y = layers::batch_normalization(x, true);
  auto y2 = layers::batch_normalization(x, false);
  auto y3 = layers::batch_normalization(
      x, true,
      {.momentum = 0.9, .epsilon = 0.01, .center = false, .scale = false, .name = "my_bn"});
  Session sess(g);
  sess.run(global_variables_initializer());
  check_close(sess.run(y, {{x, kX}}).to_vector<float>(),
              {-0.6525718f, 0.9038769f, 0, 1.5848172f, -1.5064615f, -1.234368f, 0.09322453f,
               0.9038769f, -0.30859202f, -1.02547f, -0.3012923f, 1.5429599f},
              2e-6, false);
  check_close(sess.run(y3, {{x, kX}}).to_vector<float>(),
              {-0.6509446f, 0.89802647f, 0, 1.5808654f, -1.4967108f, -1.2338394f, 0.09299207f,
               0.89802647f, -0.30845982f, -1.022913f, -0.29934216f, 1.5422993f},
              2e-6, false);
  auto value = [&](const std::string& name) {
    return sess.run(g.get_tensor_by_name(name)).to_vector<float>();
  };
  // Running the layer alone leaves the moving statistics where they were.
  CHECK(value("batch_normalization/moving_mean:0") == std::vector<float>{0, 0, 0});
  std::vector<Operation> updates = update_ops(g);
  REQUIRE(updates.size() == 4);
  sess.run(std::vector<Fetch>(updates.begin(), updates.end()), {{x, kX}});
  check_close(value("batch_normalization/moving_mean:0"), {0.01875f, 0.0125f, 0.03f});
  check_close(value("batch_normalization/moving_variance:0"), {1.0079688f, 0.996875f, 1.095f});
  check_close(value("my_bn/moving_mean:0"), {0.1875f, 0.125f, 0.3f});
  check_close(value("my_bn/moving_variance:0"), {1.0796875f, 0.96875f, 1.95f});
  check_close(sess.run(y2, {{x, kX}}).to_vector<float>(),
              {0.9995004f, 1.9990008f, 2.9985013f, 3.9980016f, 0, -0.9995004f, 1.9990008f,
               1.9990008f, 1.9990008f, 0.4997502f, 0.9995004f, 7.996003f},
              2e-6, false);
}

TEST_CASE("layers/batch_normalization: update ops run with the train op") {
  // The seed's pattern: with control_dependencies(UPDATE_OPS) around the train op, each
  // training step also moves the moving statistics; other fetches leave them alone.
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<float>(Shape{-1, 3});
  auto y = layers::batch_normalization(x, true);
  auto loss = reduce_sum(square(y));
  Operation train_op;
  {
    control_dependencies deps(update_ops(g));
    train_op = no_op("train");
  }
  Session sess(g);
  sess.run(global_variables_initializer());
  auto moving_mean = [&] {
    return sess.run(g.get_tensor_by_name("batch_normalization/moving_mean:0")).to_vector<float>();
  };
  sess.run(loss, {{x, kX}});
  CHECK(moving_mean() == std::vector<float>{0, 0, 0});
  sess.run(train_op, {{x, kX}});
  check_close(moving_mean(), {0.01875f, 0.0125f, 0.03f});
  sess.run(train_op, {{x, kX}});
  // m <- m - (m - mean) * 0.01, twice: 0.01875 + (1.875 - 0.01875) * 0.01.
  check_close(moving_mean(), {0.0373125f, 0.024875f, 0.0597f}, 1e-5);
  sess.run(loss, {{x, kX}});
  check_close(moving_mean(), {0.0373125f, 0.024875f, 0.0597f}, 1e-5);

  // Gradients reach gamma, beta and x in training mode.
  auto vars = trainable_variables();
  auto grads = gradients(loss, {vars[0].value(), vars[1].value(), x});
  for (const auto& gr : grads) CHECK(gr.valid());
}

TEST_CASE("layers/batch_normalization: float64, rank 4, errors") {
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<double>(Shape{-1, 2, 2, 3});
  auto y = layers::batch_normalization(x, true);
  CHECK(y.dtype() == DType::float64);
  CHECK(y.get_shape().to_string() == "(?, 2, 2, 3)");
  // Moments over every axis but the last.
  CHECK(input_names(g.get_operation_by_name("batch_normalization/moments/mean"))[1] ==
        "batch_normalization/moments/mean/reduction_indices:0");
  Session sess(g);
  sess.run(global_variables_initializer());
  std::vector<double> in(24);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<double>(i % 7);
  auto out = sess.run(y, {{x, Value::from_vector(in, {2, 2, 2, 3})}}).to_vector<double>();
  // Each channel comes out with mean 0.
  for (std::size_t c = 0; c < 3; ++c) {
    double sum = 0;
    for (std::size_t i = c; i < out.size(); i += 3) sum += out[i];
    CHECK(sum == doctest::Approx(0).epsilon(1e-9));
  }
  // TF: "Input has undefined `axis` dimension." and "Input has undefined rank."
  CHECK(thrown<ValueError>([] { layers::batch_normalization(placeholder<float>(Shape{2, -1})); }));
  CHECK(thrown<ValueError>([] { layers::batch_normalization(placeholder<float>()); }));
}

}  // namespace symflow_test_layers_batch_normalization_test
