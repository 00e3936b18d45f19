// symflow::layers::dense, flatten and dropout, checked against tf.compat.v1.layers.dense,
// flatten and dropout (TensorFlow 2.21 in TF1 graph mode, ref variables).

#include <doctest/doctest.h>

#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <symflow/layers/core.hpp>
#include <symflow/symflow.hpp>

#include "../test_util.hpp"

namespace symflow_test_layers_core_test {

namespace layers_core_test {

using namespace symflow;
using namespace symflow::test;

// The fixed weights of the value tests (TF: tf.constant_initializer of these).
const Value kKernel = Value::from_vector<float>({0.1f, -0.2f, 0.3f, 0.4f, -0.5f, 0.6f}, {3, 2});
const Value kBias = Value::from_vector<float>({0.5f, -1.0f}, {2});
const Value kX = Value::from_vector<float>({1, 2, 3, -1, 0.5f, 2}, {2, 3});
// np.arange(12).reshape(2, 2, 3) / 4 - 1
const Value kX3 = Value::from_vector<float>(
    {-1, -0.75f, -0.5f, -0.25f, 0, 0.25f, 0.5f, 0.75f, 1, 1.25f, 1.5f, 1.75f}, {2, 2, 3});

// "name:Type" of the graph's nodes, leaving out the initializers' ops.
std::vector<std::string> node_list(const Graph& g, std::size_t from = 0) {
  std::vector<std::string> out;
  auto all = nodes(g);
  for (std::size_t i = from; i < all.size(); ++i)
    if (!contains(all[i].first, "/Initializer/")) out.push_back(all[i].first + ":" + all[i].second);
  return out;
}

std::vector<std::string> tensor_names(const std::vector<CollectionValue>& items) {
  std::vector<std::string> out;
  for (const CollectionValue& item : items) out.push_back(std::get<Output>(item).name());
  return out;
}

template <class E, class F>
std::string message_of(F&& f) {
  auto e = thrown<E>(std::forward<F>(f));
  REQUIRE(e.has_value());
  return e->what();
}

}  // namespace layers_core_test

using namespace layers_core_test;

TEST_CASE("layers/dense: variables, node names and the default initializers") {
  // TF: dense(x, 2, activation=relu) on x [?, 3]: dense/kernel [3, 2] (glorot uniform:
  //     dense/kernel/Initializer/random_uniform/...), dense/bias [2] (zeros), then
  //     dense/MatMul, dense/BiasAdd, dense/Relu; a second layer is dense_1.
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<float>(Shape{-1, 3}, "x");
  Output y = layers::dense(x, 2, {.activation = nn::relu});
  CHECK(y.name() == "dense/Relu:0");
  CHECK(y.get_shape().to_string() == "(?, 2)");
  CHECK(node_list(g) ==
        std::vector<std::string>{"x:Placeholder", "dense/kernel:VariableV2",
                                 "dense/kernel/Assign:Assign", "dense/kernel/read:Identity",
                                 "dense/bias:VariableV2", "dense/bias/Assign:Assign",
                                 "dense/bias/read:Identity", "dense/MatMul:MatMul",
                                 "dense/BiasAdd:BiasAdd", "dense/Relu:Relu"});
  CHECK(input_names(g.get_operation_by_name("dense/MatMul")) ==
        std::vector<std::string>{"x:0", "dense/kernel/read:0"});
  CHECK(input_names(g.get_operation_by_name("dense/BiasAdd")) ==
        std::vector<std::string>{"dense/MatMul:0", "dense/bias/read:0"});
  // (TF 2.21's graph adds with AddV2 here; symflow's random_uniform builds TF 1.x's Add.)
  CHECK(input_names(g.get_operation_by_name("dense/kernel/Initializer/random_uniform")) ==
        std::vector<std::string>{"dense/kernel/Initializer/random_uniform/mul:0",
                                 "dense/kernel/Initializer/random_uniform/min:0"});
  CHECK(g.get_operation_by_name("dense/kernel/Initializer/random_uniform/RandomUniform").type() ==
        "RandomUniform");
  CHECK(g.get_operation_by_name("dense/bias/Initializer/zeros").type() == "Const");

  // TF: use_bias=False, sigmoid: dense_1/MatMul then dense_1/Sigmoid, no bias variable.
  Output y1 = layers::dense(x, 4, {.activation = nn::sigmoid, .use_bias = false});
  CHECK(y1.name() == "dense_1/Sigmoid:0");
  CHECK(input_names(y1) == std::vector<std::string>{"dense_1/MatMul:0"});
  // TF: float64 inputs make float64 variables.
  auto xd = placeholder<double>(Shape{-1, 3}, "xd");
  Output yd = layers::dense(xd, 2);
  CHECK(yd.name() == "dense_2/BiasAdd:0");
  CHECK(yd.dtype() == DType::float64);
  std::vector<Variable> vars = global_variables();
  CHECK(variable_names(vars) == std::vector<std::string>{"dense/kernel:0", "dense/bias:0",
                                                         "dense_1/kernel:0", "dense_2/kernel:0",
                                                         "dense_2/bias:0"});
  CHECK(vars[2].shape().to_string() == "(3, 4)");
  CHECK(vars[3].dtype() == DType::float64);
  CHECK(variable_names(trainable_variables()).size() == 5);

  // trainable=false keeps the variables out of TRAINABLE_VARIABLES; inside an enclosing
  // variable scope the layer's scope nests ("outer/dense").
  {
    variable_scope outer("outer");
    Output yo = layers::dense(x, 2, {.trainable = false});
    CHECK(yo.name() == "outer/dense/BiasAdd:0");
  }
  CHECK(variable_names(global_variables("outer")) ==
        std::vector<std::string>{"outer/dense/kernel:0", "outer/dense/bias:0"});
  CHECK(variable_names(trainable_variables()).size() == 5);
}

TEST_CASE("layers/dense: values against TensorFlow with fixed weights") {
  // TF (kernel_initializer=constant_initializer(kKernel), bias kBias, x = kX):
  //   relu: [[0, 1.4000001], [0, 0.6]]; no bias + sigmoid: [[0.3100255, 0.9168273],
  //   [0.27888483, 0.8320184]]; rank 3 (x3 = kX3, with [?, 2, 3] or [2, 2, 3]):
  //   [[[0.42499998, -1.4], [0.35, -0.8]], [[0.275, -0.19999999], [0.20000005, 0.4000001]]].
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<float>(Shape{-1, 3}, "x");
  auto x3 = placeholder<float>(Shape{-1, 2, 3}, "x3");
  auto x3f = placeholder<float>(Shape{2, 2, 3}, "x3f");
  const Initializer kernel_init = constant_initializer(kKernel);
  const Initializer bias_init = constant_initializer(kBias);
  Output y = layers::dense(
      x, 2,
      {.activation = nn::relu, .kernel_initializer = kernel_init, .bias_initializer = bias_init});
  Output y1 = layers::dense(x, 2,
                            {.activation = [](const Output& t) { return nn::sigmoid(t); },
                             .use_bias = false,
                             .kernel_initializer = kernel_init});
  Output y3 =
      layers::dense(x3, 2, {.kernel_initializer = kernel_init, .bias_initializer = bias_init});
  Output y3f =
      layers::dense(x3f, 2, {.kernel_initializer = kernel_init, .bias_initializer = bias_init});
  CHECK(y3.get_shape().to_string() == "(?, 2, 2)");
  CHECK(y3f.get_shape().to_string() == "(2, 2, 2)");
  Session sess(g);
  sess.run(global_variables_initializer());
  FeedDict feeds{{x, kX}, {x3, kX3}, {x3f, kX3}};
  check_close(sess.run(y, feeds).to_vector<float>(), {0, 1.4000001f, 0, 0.6f});
  check_close(sess.run(y1, feeds).to_vector<float>(),
              {0.3100255f, 0.9168273f, 0.27888483f, 0.8320184f});
  const std::vector<float> want3{0.42499998f, -1.4f,        0.35f,       -0.8f,
                                 0.275f,      -0.19999999f, 0.20000005f, 0.4000001f};
  check_close(sess.run(y3, feeds).to_vector<float>(), want3, 1e-5);
  check_close(sess.run(y3f, feeds).to_vector<float>(), want3, 1e-5);
  CHECK(sess.run(y3, feeds).dims() == Dims{2, 2, 2});
}

TEST_CASE("layers/dense: rank > 2 builds TensorFlow's Tensordot") {
  Graph g;
  auto guard = g.as_default();
  auto x3 = placeholder<float>(Shape{-1, 5, 3}, "x3");
  std::size_t from = g.num_nodes();
  Output y = layers::dense(x3, 2);
  CHECK(y.name() == "dense/BiasAdd:0");
  CHECK(y.get_shape().to_string() == "(?, 5, 2)");
  // TF: the op graph of dense(x3, 2) on x3 [?, 5, 3].
  CHECK(node_list(g, from) == std::vector<std::string>{"dense/kernel:VariableV2",
                                                       "dense/kernel/Assign:Assign",
                                                       "dense/kernel/read:Identity",
                                                       "dense/bias:VariableV2",
                                                       "dense/bias/Assign:Assign",
                                                       "dense/bias/read:Identity",
                                                       "dense/Tensordot/axes:Const",
                                                       "dense/Tensordot/free:Const",
                                                       "dense/Tensordot/Shape:Shape",
                                                       "dense/Tensordot/GatherV2/axis:Const",
                                                       "dense/Tensordot/GatherV2:GatherV2",
                                                       "dense/Tensordot/GatherV2_1/axis:Const",
                                                       "dense/Tensordot/GatherV2_1:GatherV2",
                                                       "dense/Tensordot/Const:Const",
                                                       "dense/Tensordot/Prod:Prod",
                                                       "dense/Tensordot/Const_1:Const",
                                                       "dense/Tensordot/Prod_1:Prod",
                                                       "dense/Tensordot/concat/axis:Const",
                                                       "dense/Tensordot/concat:ConcatV2",
                                                       "dense/Tensordot/stack:Pack",
                                                       "dense/Tensordot/transpose:Transpose",
                                                       "dense/Tensordot/Reshape:Reshape",
                                                       "dense/Tensordot/MatMul:MatMul",
                                                       "dense/Tensordot/Const_2:Const",
                                                       "dense/Tensordot/concat_1/axis:Const",
                                                       "dense/Tensordot/concat_1:ConcatV2",
                                                       "dense/Tensordot:Reshape",
                                                       "dense/BiasAdd:BiasAdd"});
  CHECK(input_names(g.get_operation_by_name("dense/Tensordot")) ==
        std::vector<std::string>{"dense/Tensordot/MatMul:0", "dense/Tensordot/concat_1:0"});
  CHECK(input_names(g.get_operation_by_name("dense/Tensordot/MatMul")) ==
        std::vector<std::string>{"dense/Tensordot/Reshape:0", "dense/kernel/read:0"});

  // TF: with a fully known shape [2, 5, 3], one Reshape of constant shape each way.
  auto xf = placeholder<float>(Shape{2, 5, 3}, "xf");
  from = g.num_nodes();
  Output yf = layers::dense(xf, 2);
  CHECK(yf.get_shape().to_string() == "(2, 5, 2)");
  CHECK(node_list(g, from) ==
        std::vector<std::string>{"dense_1/kernel:VariableV2", "dense_1/kernel/Assign:Assign",
                                 "dense_1/kernel/read:Identity", "dense_1/bias:VariableV2",
                                 "dense_1/bias/Assign:Assign", "dense_1/bias/read:Identity",
                                 "dense_1/Tensordot/Reshape/shape:Const",
                                 "dense_1/Tensordot/Reshape:Reshape",
                                 "dense_1/Tensordot/MatMul:MatMul", "dense_1/Tensordot/shape:Const",
                                 "dense_1/Tensordot:Reshape", "dense_1/BiasAdd:BiasAdd"});
}

TEST_CASE("layers/dense: reuse shares the variables, as TensorFlow's variable scopes") {
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<float>(Shape{-1, 3}, "x");
  Output y = layers::dense(x, 2,
                           {.kernel_initializer = constant_initializer(kKernel),
                            .bias_initializer = constant_initializer(kBias)});
  // TF: name="dense", reuse=True: no new variable; the ops go to a new name scope
  //     (dense_1/MatMul reads dense/kernel/read).
  Output y2 = layers::dense(x, 2, {.name = "dense", .reuse = true});
  CHECK(y2.name() == "dense_1/BiasAdd:0");
  CHECK(input_names(g.get_operation_by_name("dense_1/MatMul")) ==
        std::vector<std::string>{"x:0", "dense/kernel/read:0"});
  // TF: reuse without a name reuses the scope "dense" itself.
  Output y3 = layers::dense(x, 2, {.reuse = true});
  CHECK(y3.name() == "dense_2/BiasAdd:0");
  CHECK(input_names(y3) == std::vector<std::string>{"dense_2/MatMul:0", "dense/bias/read:0"});
  // TF: AUTO_REUSE shares an existing layer and creates a new one.
  layers::dense(x, 2, {.name = "dense", .reuse = AUTO_REUSE});
  layers::dense(x, 3, {.name = "fresh", .reuse = AUTO_REUSE});
  CHECK(
      variable_names(global_variables()) ==
      std::vector<std::string>{"dense/kernel:0", "dense/bias:0", "fresh/kernel:0", "fresh/bias:0"});
  Session sess(g);
  sess.run(global_variables_initializer());
  CHECK(sess.run(y2, {{x, kX}}).to_vector<float>() == sess.run(y, {{x, kX}}).to_vector<float>());

  // TF: the usual sharing of TF1 code: the same layers built again in a reusing scope
  //     ("net", then "net" with reuse=True) get net/dense and net/dense_1 again.
  Output a, b;
  {
    variable_scope net("net");
    a = layers::dense(layers::dense(x, 2), 2);
  }
  {
    variable_scope net("net", true);
    b = layers::dense(layers::dense(x, 2), 2);
  }
  CHECK(a.name() == "net/dense_1/BiasAdd:0");
  CHECK(b.name() == "net_1/dense_1/BiasAdd:0");
  CHECK(input_names(g.get_operation_by_name("net_1/dense/MatMul"))[1] == "net/dense/kernel/read:0");
  CHECK(input_names(g.get_operation_by_name("net_1/dense_1/MatMul"))[1] ==
        "net/dense_1/kernel/read:0");
  CHECK(variable_names(global_variables("net")) ==
        std::vector<std::string>{"net/dense/kernel:0", "net/dense/bias:0", "net/dense_1/kernel:0",
                                 "net/dense_1/bias:0"});

  // TF's ValueErrors, from get_variable.
  CHECK(message_of<ValueError>([&] { layers::dense(x, 2, {.name = "nope", .reuse = true}); }) ==
        "Variable nope/kernel does not exist, or was not created with tf.get_variable(). Did you "
        "mean to set reuse=tf.AUTO_REUSE in VarScope?");
  CHECK(message_of<ValueError>([&] { layers::dense(x, 2, {.name = "dense"}); }) ==
        "Variable dense/kernel already exists, disallowed. Did you mean to set reuse=True or "
        "reuse=tf.AUTO_REUSE in VarScope?");
  CHECK(message_of<ValueError>([&] { layers::dense(x, 3, {.name = "dense", .reuse = true}); }) ==
        "Trying to share variable dense/kernel, but specified shape (3, 3) and found shape (3, "
        "2).");
}

TEST_CASE("layers/dense: regularizers add to REGULARIZATION_LOSSES") {
  // TF: kernel_regularizer=lambda w: reduce_sum(abs(w)), bias_regularizer=l2_loss,
  //     activity_regularizer=l2_loss, name "reg": losses reg/kernel/Regularizer/Sum,
  //     reg/bias/Regularizer/L2Loss, reg/ActivityRegularizer/truediv = 2.1, 0.625,
  //     0.65312505 for x = kX; a reused layer adds nothing.
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<float>(Shape{-1, 3}, "x");
  Regularizer l1 = [](const Output& w) { return reduce_sum(abs(w)); };
  Regularizer l2 = [](const Output& t) { return nn::l2_loss(t); };
  Output y = layers::dense(x, 2,
                           {.kernel_initializer = constant_initializer(kKernel),
                            .bias_initializer = constant_initializer(kBias),
                            .kernel_regularizer = l1,
                            .bias_regularizer = l2,
                            .activity_regularizer = l2,
                            .name = "reg"});
  layers::dense(x, 2, {.kernel_regularizer = l1, .name = "reg", .reuse = true});
  auto losses = g.get_collection(GraphKeys::REGULARIZATION_LOSSES);
  CHECK(tensor_names(losses) == std::vector<std::string>{"reg/kernel/Regularizer/Sum:0",
                                                         "reg/bias/Regularizer/L2Loss:0",
                                                         "reg/ActivityRegularizer/truediv:0"});
  CHECK(input_names(g.get_operation_by_name("reg/bias/Regularizer/L2Loss")) ==
        std::vector<std::string>{"reg/bias/read:0"});
  // TF: the activity loss divides by the batch size, Shape(y)[0] cast to float.
  CHECK(node_list(g, g.get_operation_by_name("reg/ActivityRegularizer/L2Loss").id().value) ==
        std::vector<std::string>{
            "reg/ActivityRegularizer/L2Loss:L2Loss", "reg/ActivityRegularizer/Shape:Shape",
            "reg/ActivityRegularizer/strided_slice/stack:Const",
            "reg/ActivityRegularizer/strided_slice/stack_1:Const",
            "reg/ActivityRegularizer/strided_slice/stack_2:Const",
            "reg/ActivityRegularizer/strided_slice:StridedSlice",
            "reg/ActivityRegularizer/Cast:Cast", "reg/ActivityRegularizer/truediv:RealDiv",
            // the reused layer's nodes follow
            "reg_1/MatMul:MatMul", "reg_1/BiasAdd:BiasAdd"});
  Session sess(g);
  sess.run(global_variables_initializer());
  check_close(sess.run(y, {{x, kX}}).to_vector<float>(), {-0.29999995f, 1.4000001f, -0.45f, 0.6f});
  CHECK(sess.run(std::get<Output>(losses[0])).scalar<float>() == doctest::Approx(2.1));
  CHECK(sess.run(std::get<Output>(losses[1])).scalar<float>() == doctest::Approx(0.625));
  CHECK(sess.run(std::get<Output>(losses[2]), {{x, kX}}).scalar<float>() ==
        doctest::Approx(0.65312505));
}

TEST_CASE("layers/dense: bad inputs give TensorFlow's errors") {
  Graph g;
  auto guard = g.as_default();
  // TF's messages, with the layer's name.
  CHECK(message_of<ValueError>([] {
          layers::dense(placeholder<float>(Shape{-1, -1}), 2);
        }) ==
        "The last dimension of the inputs to a Dense layer should be defined. Found None. Full "
        "input shape received: (?, ?)");
  CHECK(message_of<ValueError>([] { layers::dense(placeholder<float>(), 2); }) ==
        "The last dimension of the inputs to a Dense layer should be defined. Found None. Full "
        "input shape received: <unknown>");
  CHECK(message_of<ValueError>([] { layers::dense(placeholder<float>(Shape{-1}), 2); }) ==
        "Input 0 of layer \"dense_3\" is incompatible with the layer: expected min_ndim=2, found "
        "ndim=1. Full shape received: (Dimension(None),)");
  CHECK(message_of<TypeError>([] {
          layers::dense(placeholder<std::int32_t>(Shape{-1, 3}), 2);
        }) ==
        "A Dense layer can only be built with a floating-point dtype. Received: dtype=<dtype: "
        "'int32'>");
  CHECK(message_of<ValueError>([] {
          layers::dense(placeholder<float>(Shape{-1, 3}), -1);
        }) ==
        "Received an invalid value for `units`, expected a positive integer. Received: units=-1");
}

TEST_CASE("layers/flatten: TensorFlow's graph for each kind of shape, and values") {
  Graph g;
  auto guard = g.as_default();
  // TF: [?, 2, 3]: flatten/Const ([-1, 6]) and flatten/Reshape, shape (?, 6).
  auto x = placeholder<float>(Shape{-1, 2, 3}, "x");
  std::size_t from = g.num_nodes();
  Output y = layers::flatten(x);
  CHECK(y.name() == "flatten/Reshape:0");
  CHECK(y.get_shape().to_string() == "(?, 6)");
  CHECK(node_list(g, from) ==
        std::vector<std::string>{"flatten/Const:Const", "flatten/Reshape:Reshape"});
  CHECK(
      g.get_operation_by_name("flatten/Const").get_attr<Value>("value").to_vector<std::int32_t>() ==
      std::vector<std::int32_t>{-1, 6});
  // TF: [?, ?, 3]: flatten_1/Shape, strided_slice, Reshape/shape (Pack of it and
  //     Reshape/shape/1), Reshape; shape (?, ?).
  auto x3 = placeholder<float>(Shape{-1, -1, 3}, "x3");
  from = g.num_nodes();
  Output y3 = layers::flatten(x3);
  CHECK(y3.name() == "flatten_1/Reshape:0");
  CHECK(y3.get_shape().to_string() == "(?, ?)");
  CHECK(node_list(g, from) ==
        std::vector<std::string>{
            "flatten_1/Shape:Shape", "flatten_1/strided_slice/stack:Const",
            "flatten_1/strided_slice/stack_1:Const", "flatten_1/strided_slice/stack_2:Const",
            "flatten_1/strided_slice:StridedSlice", "flatten_1/Reshape/shape/1:Const",
            "flatten_1/Reshape/shape:Pack", "flatten_1/Reshape:Reshape"});
  CHECK(g.get_operation_by_name("flatten_1/strided_slice")
            .get_attr<std::int64_t>("shrink_axis_mask") == 1);
  // TF: a vector becomes [?, 1] through ExpandDims; a known batch gives shape [4, 6];
  //     the name "fl".
  auto x4 = placeholder<float>(Shape{-1}, "x4");
  Output y4 = layers::flatten(x4);
  CHECK(y4.name() == "flatten_2/ExpandDims:0");
  CHECK(y4.get_shape().to_string() == "(?, 1)");
  Output y5 = layers::flatten(placeholder<float>(Shape{4, 2, 3}), {.name = "fl"});
  CHECK(y5.name() == "fl/Reshape:0");
  CHECK(y5.get_shape().to_string() == "(4, 6)");

  Session sess(g);
  std::vector<float> in(12);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i);
  Value v = sess.run(y3, {{x3, Value::from_vector(in, {2, 2, 3})}});
  CHECK(v.dims() == Dims{2, 6});
  CHECK(v.to_vector<float>() == in);
  CHECK(sess.run(y4, {{x4, Value::from_vector<float>({1, 2, 3}, {3})}}).dims() == Dims{3, 1});

  // channels_first moves the channels last first: [?, 2, 3] -> transpose perm [0, 2, 1].
  Output yc = layers::flatten(x, {.data_format = "channels_first"});
  CHECK(input_names(yc)[0] == "flatten_3/transpose:0");
  CHECK(sess.run(yc, {{x, Value::from_vector<float>({0, 1, 2, 3, 4, 5}, {1, 2, 3})}})
            .to_vector<float>() == std::vector<float>{0, 3, 1, 4, 2, 5});

  // TF's errors: a scalar input, and a bad data_format.
  CHECK(message_of<ValueError>([] { layers::flatten(placeholder<float>(Shape{})); }) ==
        "Input 0 of layer \"flatten_5\" is incompatible with the layer: expected min_ndim=1, "
        "found ndim=0. Full shape received: ()");
  CHECK(message_of<ValueError>([&] { layers::flatten(x, {.data_format = "nhwc"}); }) ==
        "The `data_format` argument must be one of \"channels_first\", \"channels_last\". "
        "Received: nhwc");
}

TEST_CASE("layers/dropout: identity at inference, TensorFlow's dropout in training") {
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<float>(Shape{-1, 2, 3}, "x");
  // TF: training=False: dropout/Identity.
  Output y0 = layers::dropout(x);
  CHECK(y0.name() == "dropout/Identity:0");
  CHECK(y0.op().type() == "Identity");
  // TF: rate 0.3, training=True, seed 5: the graph of tf.nn.dropout (TF2's form), seeds
  //     (87654321, 5), shape (?, 2, 3).
  std::size_t from = g.num_nodes();
  Output y1 = layers::dropout(x, 0.3, true, {.seed = 5});
  CHECK(y1.name() == "dropout_1/dropout/SelectV2:0");
  CHECK(y1.get_shape().to_string() == "(?, 2, 3)");
  CHECK(node_list(g, from) ==
        std::vector<std::string>{
            "dropout_1/dropout/Const:Const", "dropout_1/dropout/Mul:Mul",
            "dropout_1/dropout/Shape:Shape",
            "dropout_1/dropout/random_uniform/RandomUniform:RandomUniform",
            "dropout_1/dropout/GreaterEqual/y:Const", "dropout_1/dropout/GreaterEqual:GreaterEqual",
            "dropout_1/dropout/Const_1:Const", "dropout_1/dropout/SelectV2:SelectV2"});
  Operation rnd = g.get_operation_by_name("dropout_1/dropout/random_uniform/RandomUniform");
  CHECK(rnd.get_attr<std::int64_t>("seed") == 87654321);
  CHECK(rnd.get_attr<std::int64_t>("seed2") == 5);
  CHECK(input_names(y1) == std::vector<std::string>{"dropout_1/dropout/GreaterEqual:0",
                                                    "dropout_1/dropout/Mul:0",
                                                    "dropout_1/dropout/Const_1:0"});
  // TF: rate 0 is an Identity even in training.
  CHECK(layers::dropout(x, 0.0, true).name() == "dropout_2/Identity:0");

  // Values: TF's mask for seed 5 (the same Philox stream): x = ones(2, 2, 3) gives
  //   [[[1.4285715, 1.4285715, 0], [1.4285715, 1.4285715, 1.4285715]],
  //    [[1.4285715, 1.4285715, 0], [1.4285715, 1.4285715, 1.4285715]]].
  Session sess(g);
  Value ones = Value::from_vector<float>(std::vector<float>(12, 1.0f), {2, 2, 3});
  std::vector<float> got = sess.run(y1, {{x, ones}}).to_vector<float>();
  const float k = 1.4285715f;
  check_close(got, {k, k, 0, k, k, k, k, k, 0, k, k, k});
  CHECK(sess.run(y0, {{x, ones}}).to_vector<float>() == std::vector<float>(12, 1.0f));
}

TEST_CASE("layers/dropout: a bool tensor for training builds a cond") {
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<float>(Shape{-1, 2, 3}, "x");
  auto training = placeholder<bool>(Shape{}, "t");
  std::size_t from = g.num_nodes();
  // TF: rate 0.25, noise_shape [1, 2, 1], training a placeholder: dropout/cond/..., the
  //     dropped branch under cond/dropout, the other cond/Identity, joined by cond/Merge.
  //     (TF's GraphDef lists each "<op>/Switch" after the op that reads it; symflow's cond
  //     makes it first. Names and inputs are the same.)
  Output y =
      layers::dropout(x, 0.25, training, {.noise_shape = std::vector<std::int64_t>{1, 2, 1}});
  CHECK(y.name() == "dropout/cond/Merge:0");
  CHECK(y.get_shape().to_string() == "(?, 2, 3)");
  CHECK(node_list(g, from) ==
        std::vector<std::string>{
            "dropout/cond/Switch:Switch", "dropout/cond/switch_t:Identity",
            "dropout/cond/switch_f:Identity", "dropout/cond/pred_id:Identity",
            "dropout/cond/Shape/Switch:Switch", "dropout/cond/Shape:Shape",
            "dropout/cond/Const:Const", "dropout/cond/dropout/Const:Const",
            "dropout/cond/dropout/Mul:Mul",
            "dropout/cond/dropout/random_uniform/RandomUniform:RandomUniform",
            "dropout/cond/dropout/GreaterEqual/y:Const",
            "dropout/cond/dropout/GreaterEqual:GreaterEqual", "dropout/cond/dropout/Const_1:Const",
            "dropout/cond/dropout/SelectV2:SelectV2", "dropout/cond/Identity/Switch:Switch",
            "dropout/cond/Identity:Identity", "dropout/cond/Merge:Merge"});
  CHECK(input_names(g.get_operation_by_name("dropout/cond/dropout/Mul")) ==
        std::vector<std::string>{"dropout/cond/Shape/Switch:1", "dropout/cond/dropout/Const:0"});
  CHECK(input_names(g.get_operation_by_name("dropout/cond/dropout/random_uniform/RandomUniform")) ==
        std::vector<std::string>{"dropout/cond/Const:0"});
  CHECK(input_names(y) ==
        std::vector<std::string>{"dropout/cond/Identity:0", "dropout/cond/dropout/SelectV2:0"});

  // Fed false: x itself; fed true: each mask entry covers a whole row of 3 (noise shape
  // [1, 2, 1]), so each row is all 0 or all x / 0.75.
  Session sess(g);
  std::vector<float> in(12);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i + 1);
  Value xv = Value::from_vector(in, {2, 2, 3});
  CHECK(sess.run(y, {{x, xv}, {training, Value(false)}}).to_vector<float>() == in);
  std::vector<float> got = sess.run(y, {{x, xv}, {training, Value(true)}}).to_vector<float>();
  for (std::size_t row = 0; row < 4; ++row) {
    const bool kept = got[row * 3] != 0;
    // The mask is shared by the two batch entries: row r and r + 2 agree.
    CHECK(kept == (got[((row + 2) % 4) * 3] != 0));
    for (std::size_t c = 0; c < 3; ++c)
      CHECK(got[row * 3 + c] == doctest::Approx(kept ? in[row * 3 + c] / 0.75f : 0.0f));
  }

  // A constant `training` decides when the graph is built (TF's smart_cond).
  Output yc = layers::dropout(x, 0.5, constant(Value(false)));
  CHECK(yc.op().type() == "Identity");

  // TF: noise_shape [None, 2, 1] takes the batch from Shape(x)[0] and packs the list as
  //     "packed" ("packed/1", "packed/2" for the numbers); with seed 3 and x = ones(2, 2, 3)
  //     the output is [[[a, a, a], [a, a, a]], [[a, a, a], [0, 0, 0]]], a = 1.3333334.
  from = g.num_nodes();
  Output yn = layers::dropout(x, 0.25, true,
                              {.noise_shape = std::vector<std::int64_t>{-1, 2, 1}, .seed = 3});
  CHECK(node_list(g, from) ==
        std::vector<std::string>{
            "dropout_2/Shape:Shape", "dropout_2/strided_slice/stack:Const",
            "dropout_2/strided_slice/stack_1:Const", "dropout_2/strided_slice/stack_2:Const",
            "dropout_2/strided_slice:StridedSlice", "dropout_2/packed/1:Const",
            "dropout_2/packed/2:Const", "dropout_2/packed:Pack", "dropout_2/dropout/Const:Const",
            "dropout_2/dropout/Mul:Mul",
            "dropout_2/dropout/random_uniform/RandomUniform:RandomUniform",
            "dropout_2/dropout/GreaterEqual/y:Const", "dropout_2/dropout/GreaterEqual:GreaterEqual",
            "dropout_2/dropout/Const_1:Const", "dropout_2/dropout/SelectV2:SelectV2"});
  Value ones = Value::from_vector<float>(std::vector<float>(12, 1.0f), {2, 2, 3});
  const float a = 1.3333334f;
  check_close(sess.run(yn, {{x, ones}}).to_vector<float>(), {a, a, a, a, a, a, a, a, a, 0, 0, 0});
}

TEST_CASE("layers/dropout: bad arguments give TensorFlow's errors") {
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<float>(Shape{-1, 2, 3}, "x");
  CHECK(message_of<ValueError>([&] { layers::dropout(x, 1.5, true); }) ==
        "Invalid value 1.5 received for `rate`, expected a value between 0 and 1.");
  CHECK(message_of<ValueError>([&] { layers::dropout(x, -0.5, true); }) ==
        "Invalid value -0.5 received for `rate`, expected a value between 0 and 1.");
  CHECK(message_of<ValueError>([&] { layers::dropout(x, 1.0, true); }) ==
        "`rate` must be a scalar tensor or a float in the range [0, 1). Received: rate=1.0");
  CHECK(message_of<ValueError>(
            [] { layers::dropout(placeholder<std::int32_t>(Shape{2}), 0.5, true); }) ==
        "`x.dtype` must be a floating point tensor as `x` will be scaled. Received: "
        "x_dtype=<dtype: 'int32'>");
  CHECK(message_of<TypeError>([&] { layers::dropout(x, 0.5, placeholder<float>(Shape{})); }) ==
        "Input 'pred' of 'Switch' Op has type float32 that does not match expected type "
        "of bool.");
}

}  // namespace symflow_test_layers_core_test
