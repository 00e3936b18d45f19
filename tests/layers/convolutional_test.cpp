// symflow::layers::conv2d, checked against tf.compat.v1.layers.conv2d (TensorFlow 2.21 in
// TF1 graph mode, ref variables).

#include <doctest/doctest.h>

#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <symflow/layers/convolutional.hpp>
#include <symflow/symflow.hpp>

#include "../test_util.hpp"

namespace symflow_test_layers_convolutional_test {

namespace layers_conv_test {

using namespace symflow;
using namespace symflow::test;

// np.arange(32).reshape(1, 4, 4, 2) / 10 - 1
Value input_value() {
  std::vector<float> v(32);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i) / 10.0f - 1.0f;
  return Value::from_vector(v, {1, 4, 4, 2});
}
// np.arange(24).reshape(2, 2, 2, 3) / 12 - 1
Value kernel_value() {
  std::vector<float> v(24);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i) / 12.0f - 1.0f;
  return Value::from_vector(v, {2, 2, 2, 3});
}
const Value kBias = Value::from_vector<float>({0.1f, -0.2f, 0.3f}, {3});

// "name:Type" of the nodes from `from` on.
std::vector<std::string> node_list(const Graph& g, std::size_t from) {
  std::vector<std::string> out;
  auto all = nodes(g);
  for (std::size_t i = from; i < all.size(); ++i) out.push_back(all[i].first + ":" + all[i].second);
  return out;
}

template <class E, class F>
std::string message_of(F&& f) {
  auto e = thrown<E>(std::forward<F>(f));
  REQUIRE(e.has_value());
  return e->what();
}

}  // namespace layers_conv_test

using namespace layers_conv_test;

TEST_CASE("layers/conv2d: variables, node names and attrs") {
  // TF: conv2d(x, 3, 2, activation=relu) with constant initializers on x [?, 4, 4, 2]:
  //     conv2d/kernel [2, 2, 2, 3], conv2d/bias [3], then conv2d/Conv2D (VALID, strides
  //     [1, 1, 1, 1]), conv2d/BiasAdd, conv2d/Relu; shape (?, 3, 3, 3).
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<float>(Shape{-1, 4, 4, 2}, "x");
  std::size_t from = g.num_nodes();
  Output y = layers::conv2d(x, 3, {2},
                            {.activation = nn::relu,
                             .kernel_initializer = constant_initializer(kernel_value()),
                             .bias_initializer = constant_initializer(kBias)});
  CHECK(y.name() == "conv2d/Relu:0");
  CHECK(y.get_shape().to_string() == "(?, 3, 3, 3)");
  CHECK(node_list(g, from) ==
        std::vector<std::string>{
            "conv2d/kernel/Initializer/Const:Const", "conv2d/kernel:VariableV2",
            "conv2d/kernel/Assign:Assign", "conv2d/kernel/read:Identity",
            "conv2d/bias/Initializer/Const:Const", "conv2d/bias:VariableV2",
            "conv2d/bias/Assign:Assign", "conv2d/bias/read:Identity", "conv2d/Conv2D:Conv2D",
            "conv2d/BiasAdd:BiasAdd", "conv2d/Relu:Relu"});
  Operation conv = g.get_operation_by_name("conv2d/Conv2D");
  CHECK(input_names(conv) == std::vector<std::string>{"x:0", "conv2d/kernel/read:0"});
  CHECK(conv.get_attr<std::string>("padding") == "VALID");
  CHECK(conv.get_attr<IntList>("strides").items == std::vector<std::int64_t>{1, 1, 1, 1});
  CHECK(conv.get_attr<std::string>("data_format") == "NHWC");

  // TF: strides 2, padding "same", no bias: conv2d_1/Conv2D is the output, (?, 2, 2, 3);
  //     strides (1, 2) and "SAME" in a layer named "c": (?, 4, 2, 3).
  Output y1 = layers::conv2d(x, 3, {2, 2}, {.strides = {2}, .padding = "same", .use_bias = false});
  CHECK(y1.name() == "conv2d_1/Conv2D:0");
  CHECK(y1.get_shape().to_string() == "(?, 2, 2, 3)");
  CHECK(y1.op().get_attr<IntList>("strides").items == std::vector<std::int64_t>{1, 2, 2, 1});
  CHECK(y1.op().get_attr<std::string>("padding") == "SAME");
  Output y2 = layers::conv2d(x, 3, {2}, {.strides = {1, 2}, .padding = "SAME", .name = "c"});
  CHECK(y2.name() == "c/BiasAdd:0");
  CHECK(y2.get_shape().to_string() == "(?, 4, 2, 3)");
  std::vector<Variable> vars = global_variables();
  CHECK(variable_names(vars) == std::vector<std::string>{"conv2d/kernel:0", "conv2d/bias:0",
                                                         "conv2d_1/kernel:0", "c/kernel:0",
                                                         "c/bias:0"});
  for (const Variable& v : vars)
    CHECK(v.shape().to_string() == (v.name().ends_with("bias:0") ? "(3,)" : "(2, 2, 2, 3)"));
}

TEST_CASE("layers/conv2d: values against TensorFlow, reuse and the regularizer") {
  // TF, x = input_value(), kernel = kernel_value(), bias kBias: the values below; the
  //     reused layer ("c", reuse=True, strides 1, valid) gives conv2d's values (all
  //     positive) through c_1/... with c's weights; the kernel
  //     regularizer l2_loss adds c/kernel/Regularizer/L2Loss = 4.013889.
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<float>(Shape{-1, 4, 4, 2}, "x");
  const Initializer kernel_init = constant_initializer(kernel_value());
  const Initializer bias_init = constant_initializer(kBias);
  Output y = layers::conv2d(
      x, 3, {2},
      {.activation = nn::relu, .kernel_initializer = kernel_init, .bias_initializer = bias_init});
  Output y1 = layers::conv2d(
      x, 3, {2, 2},
      {.strides = {2}, .padding = "same", .use_bias = false, .kernel_initializer = kernel_init});
  Output y2 = layers::conv2d(x, 3, {2},
                             {.strides = {1, 2},
                              .padding = "SAME",
                              .kernel_initializer = kernel_init,
                              .bias_initializer = bias_init,
                              .kernel_regularizer = [](const Output& w) { return nn::l2_loss(w); },
                              .name = "c"});
  Output y3 = layers::conv2d(x, 3, {2}, {.name = "c", .reuse = true});
  CHECK(y3.name() == "c_1/BiasAdd:0");
  CHECK(input_names(g.get_operation_by_name("c_1/Conv2D"))[1] == "c/kernel/read:0");
  auto losses = g.get_collection(GraphKeys::REGULARIZATION_LOSSES);
  REQUIRE(losses.size() == 1);
  CHECK(std::get<Output>(losses[0]).name() == "c/kernel/Regularizer/L2Loss:0");

  Session sess(g);
  sess.run(global_variables_initializer());
  FeedDict feeds{{x, input_value()}};
  const std::vector<float> want_y{
      2.3999999f, 1.8f,       2.f,        2.1999998f,  1.7333332f, 2.0666666f, 2.f,
      1.6666665f, 2.1333332f, 1.6f,       1.5333334f,  2.2666667f, 1.4f,       1.4666667f,
      2.333333f,  1.1999999f, 1.4000001f, 2.3999996f,  0.8f,       1.2666668f, 2.5333333f,
      0.6f,       1.2000003f, 2.6f,       0.39999983f, 1.1333337f, 2.6666663f};
  check_close(sess.run(y, feeds).to_vector<float>(), want_y, 1e-5);
  check_close(sess.run(y1, feeds).to_vector<float>(),
              {2.3f, 2.f, 1.7f, 1.9000001f, 1.8666666f, 1.8333333f, 0.7f, 1.4666668f, 2.2333333f,
               0.29999983f, 1.3333337f, 2.3666663f},
              1e-5);
  const std::vector<float> want_y2{2.3999999f,  1.8f,       2.f,         2.f,        1.6666665f,
                                   2.1333332f,  1.6f,       1.5333334f,  2.2666667f, 1.1999999f,
                                   1.4000001f,  2.3999996f, 0.8f,        1.2666668f, 2.5333333f,
                                   0.39999983f, 1.1333337f, 2.6666663f,  -3.65f,     -3.4333334f,
                                   -2.4166667f, -4.65f,     -4.2999997f, -3.15f};
  check_close(sess.run(y2, feeds).to_vector<float>(), want_y2, 1e-5);
  // The reused layer has c's weights but its own strides (1) and padding (valid).
  check_close(sess.run(y3, feeds).to_vector<float>(), want_y, 1e-5);
  CHECK(sess.run(std::get<Output>(losses[0])).scalar<float>() == doctest::Approx(4.013889));
}

TEST_CASE("layers/conv2d: a dilation rate above 1, as TensorFlow 1.x builds and computes it") {
  // TF 2.21's legacy layer (TF_USE_LEGACY_KERAS=1) goes through tf.nn.convolution:
  // SpaceToBatchND -> Conv2D ("VALID", named conv2d/Conv2D) -> BatchToSpaceND in the
  // scope conv2d/Conv2D, not one Conv2D with a dilations attr.
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<float>(Shape{-1, 4, 4, 2}, "x");
  const Initializer kernel_init = constant_initializer(kernel_value());
  std::size_t from = g.num_nodes();
  Output y = layers::conv2d(x, 3, {2},
                            {.padding = "same",
                             .dilation_rate = {2},
                             .kernel_initializer = kernel_init,
                             .bias_initializer = constant_initializer(kBias)});
  Output y1 = layers::conv2d(x, 3, {2},
                             {.dilation_rate = {1, 2},
                              .activation = nn::relu,
                              .use_bias = false,
                              .kernel_initializer = kernel_init});
  CHECK(y.get_shape().to_string() == "(?, 4, 4, 3)");
  CHECK(y1.get_shape().to_string() == "(?, 3, 2, 3)");
  CHECK(node_list(g, from) ==
        std::vector<std::string>{
            "conv2d/kernel/Initializer/Const:Const",
            "conv2d/kernel:VariableV2",
            "conv2d/kernel/Assign:Assign",
            "conv2d/kernel/read:Identity",
            "conv2d/bias/Initializer/Const:Const",
            "conv2d/bias:VariableV2",
            "conv2d/bias/Assign:Assign",
            "conv2d/bias/read:Identity",
            "conv2d/Conv2D/dilation_rate:Const",
            "conv2d/Conv2D/filter_shape:Const",
            "conv2d/Conv2D/stack:Const",
            "conv2d/Conv2D/required_space_to_batch_paddings/input_shape:Const",
            "conv2d/Conv2D/required_space_to_batch_paddings/paddings:Const",
            "conv2d/Conv2D/required_space_to_batch_paddings/crops:Const",
            "conv2d/Conv2D/SpaceToBatchND/block_shape:Const",
            "conv2d/Conv2D/SpaceToBatchND/paddings:Const",
            "conv2d/Conv2D/SpaceToBatchND:SpaceToBatchND",
            "conv2d/Conv2D:Conv2D",
            "conv2d/Conv2D/BatchToSpaceND/block_shape:Const",
            "conv2d/Conv2D/BatchToSpaceND/crops:Const",
            "conv2d/Conv2D/BatchToSpaceND:BatchToSpaceND",
            "conv2d/BiasAdd:BiasAdd",
            "conv2d_1/kernel/Initializer/Const:Const",
            "conv2d_1/kernel:VariableV2",
            "conv2d_1/kernel/Assign:Assign",
            "conv2d_1/kernel/read:Identity",
            "conv2d_1/Conv2D/dilation_rate:Const",
            "conv2d_1/Conv2D/required_space_to_batch_paddings/input_shape:Const",
            "conv2d_1/Conv2D/required_space_to_batch_paddings/base_paddings:Const",
            "conv2d_1/Conv2D/required_space_to_batch_paddings/paddings:Const",
            "conv2d_1/Conv2D/required_space_to_batch_paddings/crops:Const",
            "conv2d_1/Conv2D/SpaceToBatchND/block_shape:Const",
            "conv2d_1/Conv2D/SpaceToBatchND/paddings:Const",
            "conv2d_1/Conv2D/SpaceToBatchND:SpaceToBatchND",
            "conv2d_1/Conv2D:Conv2D",
            "conv2d_1/Conv2D/BatchToSpaceND/block_shape:Const",
            "conv2d_1/Conv2D/BatchToSpaceND/crops:Const",
            "conv2d_1/Conv2D/BatchToSpaceND:BatchToSpaceND",
            "conv2d_1/Relu:Relu"});
  CHECK(input_names(g.get_operation_by_name("conv2d/Conv2D")) ==
        std::vector<std::string>{"conv2d/Conv2D/SpaceToBatchND:0", "conv2d/kernel/read:0"});

  Session sess(g);
  sess.run(global_variables_initializer());
  FeedDict feeds{{x, input_value()}};
  check_close(sess.run(y, feeds).to_vector<float>(),
              {0.17500001f,  -0.11666664f, 0.39166671f,   0.39999998f, 0.11666666f,   0.63333333f,
               0.70000005f,  0.48333341f,  1.0666666f,    0.17499998f, -0.083333328f, 0.45833331f,
               1.75f,        1.4666667f,   1.9833331f,    3.6999998f,  3.4333334f,    3.9666665f,
               3.5f,         3.3666666f,   4.0333333f,    1.35f,       1.1333333f,    1.7166665f,
               2.1499999f,   2.1333334f,   2.9166665f,    2.9000001f,  3.166667f,     4.2333331f,
               2.6999998f,   3.1000001f,   4.2999997f,    0.15000001f, 0.20000018f,   1.05f,
               -0.52499998f, -0.68333334f, -0.041666597f, -1.8f,       -1.8166668f,   -1.0333333f,
               -2.3f,        -2.25f,       -1.3999999f,   -1.7249999f, -1.8499999f,   -1.175f},
              1e-5, false);
  check_close(sess.run(y1, feeds).to_vector<float>(),
              {2.3999996f, 2.1666667f, 1.9333334f, 2.2f, 2.0999999f, 2.f, 1.5999999f, 1.9000001f,
               2.1999998f, 1.4f, 1.8333335f, 2.2666664f, 0.80000007f, 1.6333336f, 2.4666667f,
               0.60000002f, 1.566667f, 2.5333331f},
              1e-5, false);
}

TEST_CASE("layers/conv2d: bad arguments and inputs give TensorFlow's errors") {
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<float>(Shape{-1, 4, 4, 2}, "x");
  layers::conv2d(x, 3, {2});
  layers::conv2d(x, 3, {2});
  // TF's messages (the layer's name as Keras counts it).
  CHECK(message_of<ValueError>([] {
          layers::conv2d(placeholder<float>(Shape{4, 4, 2}), 3, {2});
        }) ==
        "Input 0 of layer \"conv2d_3\" is incompatible with the layer: expected min_ndim=4, found "
        "ndim=3. Full shape received: (Dimension(4), Dimension(4), Dimension(2))");
  CHECK(message_of<ValueError>([&] { layers::conv2d(x, 3, {3}, {.padding = "full"}); }) ==
        "The `padding` argument must be a list/tuple or one of \"valid\", \"same\" (or \"causal\", "
        "only for `Conv1D). Received: full");
  CHECK(message_of<ValueError>([&] { layers::conv2d(x, 3, {3}, {.padding = "causal"}); }) ==
        "Causal padding is only supported for `Conv1D`and `SeparableConv1D`.");
  CHECK(message_of<ValueError>([] {
          layers::conv2d(placeholder<float>(Shape{-1, 5, 5, -1}), 3, {3});
        }) ==
        "The channel dimension of the inputs should be defined. The input_shape received is "
        "(?, 5, 5, ?), where axis -1 (0-based) is the channel dimension, which found to be "
        "`None`.");
  CHECK(message_of<ValueError>([&] {
          layers::conv2d(x, 3, {1, 2, 3});
        }) == "The `kernel_size` argument must be a tuple of 2 integers. Received: [1, 2, 3]");
  CHECK(message_of<ValueError>([&] {
          layers::conv2d(x, 2, {3, 0});
        }) ==
        "The `kernel_size` argument must be a tuple of 2 integers. Received: [3, 0] including {0} "
        "that does not satisfy the requirement `> 0`.");
  CHECK(message_of<ValueError>([&] { layers::conv2d(x, 2, {3}, {.strides = {0}}); }) ==
        "The argument `strides` cannot contains 0(s). Received: (0, 0)");
  CHECK(message_of<ValueError>([&] { layers::conv2d(x, 0, {3}); }) ==
        "Invalid value for argument `filters`. Expected a strictly positive value. Received "
        "filters=0.");
  CHECK(message_of<ValueError>(
            [&] { layers::conv2d(x, 3, {3}, {.data_format = "channels_middle"}); }) ==
        "The `data_format` argument must be one of \"channels_first\", \"channels_last\". "
        "Received: channels_middle");
  CHECK(message_of<ValueError>(
            [&] { layers::conv2d(x, 3, {3}, {.strides = {2}, .dilation_rate = {2}}); }) ==
        "`strides > 1` not supported in conjunction with `dilation_rate > 1`. Received: "
        "strides=(2, 2) and dilation_rate=(2, 2)");
  // channels_first takes the channels from axis 1, so the 3x3 kernel does not fit the 4x2
  // spatial dims: TF's ValueError "Negative dimension size caused by subtracting 3 from 2"
  // (tests/layers/conv_channels_first_test.cpp has the layout's values).
  CHECK(contains(
      message_of<ValueError>([&] { layers::conv2d(x, 3, {3}, {.data_format = "channels_first"}); }),
      "Negative dimension size caused by subtracting 3 from 2"));
  // What symflow does not build yet: dilation of inputs whose spatial dims are unknown (TF
  // computes the SpaceToBatchND paddings with ops then).
  CHECK(thrown<UnimplementedError>([&] {
    layers::conv2d(placeholder<float>(Shape{-1, -1, -1, 2}), 3, {2}, {.dilation_rate = {2}});
  }));
  // A kernel larger than the input: the Conv2D shape function's ValueError.
  CHECK(thrown<ValueError>([&] { layers::conv2d(x, 3, {6}); }));
}

}  // namespace symflow_test_layers_convolutional_test
