// Gradients of FusedBatchNorm, FusedBatchNormV2 and FusedBatchNormV3 (TensorFlow's
// _BaseFusedBatchNormGrad) and the gradient ops they build (FusedBatchNormGrad, V2, V3):
// the backward graph's nodes, values against tf.gradients in TensorFlow 2.21, the gradient
// ops' own values, shapes and errors, and numerical checks.
//
// The expected values come from TensorFlow 2.21 in graph mode (tf.compat.v1, Grappler
// off), on the inputs of fused_batch_norm_test.cpp:
//   X = np.array([((i * 7) % 11) - 5 + 0.25 * (i % 3) for i in range(24)], np.float32)
//   W = np.array([0.5 + (i % 5) * 0.25 for i in range(24)], np.float32)
//   s, o, m, v = tf.constant([1.5, -0.5]), ([0.25, 1.0]), ([0.5, -1.0]), ([2.0, 0.75])
//   y = gen_nn_ops.fused_batch_norm_v3(x, s, o, m, v, epsilon=0.001, is_training=...)[0]
//   tf.gradients(tf.reduce_sum(y * W.reshape(shape)), [x, s, o, m, v])
// printed with '%.9g' (oneDNN's kernels; TF_ENABLE_ONEDNN_OPTS=0 agrees to an ulp or two).
//
// The ops are float32 only, as TensorFlow's: the numerical checks (tests/gradient_check.hpp
// works in float64) cast their float64 inputs to float32 and y back, with inputs and a step
// that float32 holds exactly.

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include <symflow/ops/registry.hpp>
#include <symflow/symflow.hpp>
#include <symflow/train/gradients.hpp>

#include "../gradient_check.hpp"
#include "../test_util.hpp"

namespace symflow_test_ops_fused_batch_norm_grad_test {

namespace ops_fused_batch_norm_grad_test {

using namespace symflow;
using namespace symflow::test;

// x[i] = ((i * 7) % 11) - 5 + 0.25 * (i % 3), i < 24, in the layout `dims` says.
Value x_value(const Dims& dims) {
  std::vector<float> v(24);
  for (int i = 0; i < 24; ++i)
    v[static_cast<std::size_t>(i)] = static_cast<float>((i * 7) % 11 - 5) + 0.25f * (i % 3);
  return Value::from_vector(v, dims);
}
// The loss weights w[i] = 0.5 + (i % 5) * 0.25 (minus `shift`).
Value weights(const Dims& dims, float shift = 0) {
  std::vector<float> v(24);
  for (int i = 0; i < 24; ++i) v[static_cast<std::size_t>(i)] = 0.5f + 0.25f * (i % 5) - shift;
  return Value::from_vector(v, dims);
}
const std::vector<float> kScale{1.5f, -0.5f}, kOffset{0.25f, 1.0f}, kMean{0.5f, -1.0f},
    kVariance{2.0f, 0.75f};

Output vector_const(const std::vector<float>& v) {
  return constant(Value::from_vector(v, {static_cast<std::int64_t>(v.size())}));
}

void check_values(const Value& got, const std::vector<float>& want) {
  check_close(got.to_vector<float>(), want, 2e-6, false);
}

// TF: d/dx, d/dscale, d/doffset of sum(y * W) in training, NHWC [2, 2, 3, 2], epsilon
// 0.001 (V1, V2 and V3 agree).
const std::vector<float> kTrainingDx{
    -0.15346612,    0.0487479158,    0.0331427492, -0.0231742561, 0.227871016,   0.0712579042,
    -0.138649061,   -0.000664255233, 0.167044088,  -0.0725864097, -0.199475974,  0.0218457468,
    -0.00474770414, -0.0500764064,   0.181861147,  0.0852071792,  -0.0655746087, 0.016274143,
    0.129153654,    -0.0994885638,   -0.245485812, 0.0357950181,  0.0683267489,  -0.0331380069};
const std::vector<float> kTrainingDscale{0.966594219f, 0.870264232f};
const std::vector<float> kDoffset{11.5f, 12};
// ... and in inference, with mean and variance.
const std::vector<float> kInferenceDx{
    0.530197561, -0.432724297, 1.06039512,  -0.721207201, 1.59059262,  -0.288482875,
    0.795296311, -0.576965749, 1.32549393,  -0.865448594, 0.530197561, -0.432724297,
    1.06039512,  -0.721207201, 1.59059262,  -0.288482875, 0.795296311, -0.576965749,
    1.32549393,  -0.865448594, 0.530197561, -0.432724297, 1.06039512,  -0.721207201};
const std::vector<float> kInferenceDscale{-3.13700223f, 22.6459064f};

// The forward op of `version` (1, 2, 3) on (x, scale, offset, mean, variance).
raw_ops::FusedBatchNormOutputs forward(int version, const std::vector<Output>& in,
                                       const raw_ops::FusedBatchNormAttrs& attrs) {
  if (version == 1) return raw_ops::fused_batch_norm(in[0], in[1], in[2], in[3], in[4], attrs);
  if (version == 2) return raw_ops::fused_batch_norm_v2(in[0], in[1], in[2], in[3], in[4], attrs);
  return raw_ops::fused_batch_norm_v3(in[0], in[1], in[2], in[3], in[4], attrs);
}

// Float64 values that float32 holds exactly: multiples of 1/8.
Value eighths(const Dims& dims, int multiplier, int modulus, int offset) {
  std::vector<double> v(static_cast<std::size_t>(num_elements(dims)));
  for (std::size_t i = 0; i < v.size(); ++i)
    v[i] = static_cast<double>((static_cast<int>(i) * multiplier) % modulus - offset) / 8;
  return Value::from_vector(v, dims);
}

}  // namespace ops_fused_batch_norm_grad_test

using namespace ops_fused_batch_norm_grad_test;

TEST_CASE("nn/fused_batch_norm grad: the gradient graph has TensorFlow's nodes") {
  // TF: gradients(reduce_sum(tf1.nn.fused_batch_norm(x, s, o)[0] * W), [x, s, o, m, v])
  //   builds gradients/FusedBatchNormV3_grad/FusedBatchNormGradV3 reading (y's gradient,
  //   Placeholder:0, Const:0, FusedBatchNormV3:3, FusedBatchNormV3:4, FusedBatchNormV3:5)
  //   with epsilon 0.001, data_format NHWC, is_training true, T = U = float; its outputs
  //   have shapes (2, 2, 3, 2), (2,), (2,), (0,), (0,); x, scale and offset take outputs 0,
  //   1, 2, and the mean and variance (the empty Consts) get no gradient.
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<float>(Shape{2, 2, 3, 2});
  auto scale = vector_const(kScale);
  auto offset = vector_const(kOffset);
  auto r = nn::fused_batch_norm(x, scale, offset);
  const Operation forward_op = r.y.op();
  auto loss = reduce_sum(r.y * constant(weights({2, 2, 3, 2})));
  auto grads = gradients(loss, {x, scale, offset, forward_op.inputs()[3], forward_op.inputs()[4]});
  REQUIRE(grads.size() == 5);
  CHECK(grads[0].name() == "gradients/FusedBatchNormV3_grad/FusedBatchNormGradV3:0");
  CHECK(grads[1].name() == "gradients/FusedBatchNormV3_grad/FusedBatchNormGradV3:1");
  CHECK(grads[2].name() == "gradients/FusedBatchNormV3_grad/FusedBatchNormGradV3:2");
  CHECK(!grads[3].valid());
  CHECK(!grads[4].valid());
  const Operation grad_op = grads[0].op();
  CHECK(grad_op.type() == "FusedBatchNormGradV3");
  const std::vector<std::string> inputs = input_names(grad_op);
  REQUIRE(inputs.size() == 6);
  CHECK(inputs[1] == "Placeholder:0");
  CHECK(inputs[2] == "Const:0");
  CHECK(inputs[3] == "FusedBatchNormV3:3");
  CHECK(inputs[4] == "FusedBatchNormV3:4");
  CHECK(inputs[5] == "FusedBatchNormV3:5");
  CHECK(grad_op.get_attr<double>("epsilon") == static_cast<double>(0.001f));
  CHECK(grad_op.get_attr<std::string>("data_format") == "NHWC");
  CHECK(grad_op.get_attr<bool>("is_training"));
  CHECK(grad_op.get_attr<DType>("T") == DType::float32);
  CHECK(grad_op.get_attr<DType>("U") == DType::float32);
  std::vector<std::string> shapes;
  for (const Output& t : grad_op.outputs()) shapes.push_back(t.get_shape().to_string());
  CHECK(shapes == std::vector<std::string>{"(2, 2, 3, 2)", "(2,)", "(2,)", "(0,)", "(0,)"});

  Session sess(g);
  auto out = sess.run({grads[0], grads[1], grads[2]}, {{x, x_value({2, 2, 3, 2})}});
  check_values(out[0], kTrainingDx);
  check_values(out[1], kTrainingDscale);
  check_values(out[2], kDoffset);
}

TEST_CASE("nn/fused_batch_norm grad: V1, V2 and V3 in training and inference") {
  // TF: as above with _fused_batch_norm, fused_batch_norm_v2 and fused_batch_norm_v3,
  //   epsilon 0.001, is_training True and False (the gradient then is
  //   FusedBatchNormGrad{,V2,V3} with is_training false, reading the population mean and
  //   variance). Mean and variance get no gradient in either mode.
  for (int version : {1, 2, 3}) {
    for (bool is_training : {true, false}) {
      CAPTURE(version);
      CAPTURE(is_training);
      Graph g;
      auto guard = g.as_default();
      auto x = placeholder<float>(Shape{2, 2, 3, 2});
      std::vector<Output> in{x, vector_const(kScale), vector_const(kOffset), vector_const(kMean),
                             vector_const(kVariance)};
      auto y = forward(version, in, {.epsilon = 0.001, .is_training = is_training}).y;
      auto grads = gradients(reduce_sum(y * constant(weights({2, 2, 3, 2}))), in);
      REQUIRE(grads.size() == 5);
      const std::string grad_type =
          version == 1 ? "FusedBatchNormGrad" : "FusedBatchNormGradV" + std::to_string(version);
      CHECK(grads[0].op().type() == grad_type);
      CHECK(grads[0].op().get_attr<bool>("is_training") == is_training);
      CHECK(grads[0].op().attrs().count("U") == (version == 1 ? 0u : 1u));
      CHECK(!grads[3].valid());
      CHECK(!grads[4].valid());
      if (!is_training) {
        CHECK(input_names(grads[0].op())[3] == in[3].name());
        CHECK(input_names(grads[0].op())[4] == in[4].name());
      }
      Session sess(g);
      auto out = sess.run({grads[0], grads[1], grads[2]}, {{x, x_value({2, 2, 3, 2})}});
      check_values(out[0], is_training ? kTrainingDx : kInferenceDx);
      check_values(out[1], is_training ? kTrainingDscale : kInferenceDscale);
      check_values(out[2], kDoffset);
    }
  }
}

TEST_CASE("nn/fused_batch_norm grad: NCHW inference transposes to NHWC, as TensorFlow does") {
  // TF: fused_batch_norm_v3(x [2, 2, 2, 3], s, o, m, v, epsilon=0.001,
  //   is_training=False, data_format='NCHW') differentiated builds, under
  //   gradients/FusedBatchNormV3_grad/: transpose (x, perm [0, 2, 3, 1]), transpose_1
  //   (y's gradient), FusedBatchNormGradV3 (transpose_1:0, transpose:0, Const:0, Const_2:0,
  //   Const_3:0, FusedBatchNormV3:5) in NHWC, and transpose_2 back (perm [0, 3, 1, 2]).
  //   In training the gradient op reads NCHW directly.
  const std::vector<float> inference_dx{
      0.530197561,  0.795296311,  1.06039512,   1.32549393,   1.59059262,   0.530197561,
      -0.432724297, -0.576965749, -0.721207201, -0.865448594, -0.288482875, -0.432724297,
      1.06039512,   1.32549393,   1.59059262,   0.530197561,  0.795296311,  1.06039512,
      -0.721207201, -0.865448594, -0.288482875, -0.432724297, -0.576965749, -0.721207201};
  const std::vector<float> training_dx{
      -0.0477064475, -0.142435938,   0.0821983591,  0.00924370252, 0.233877987,  -0.120289125,
      0.0304205734,  -0.00157927186, -0.0335791185, -0.0898602903, 0.0825561434, 0.0505563132,
      -0.0194173381, 0.205216929,    0.110487469,   -0.221904844,  0.0027294152, -0.0920000151,
      -0.0418703035, -0.0738701448,  0.0724882856,  0.0422651172,  0.0102652814, -0.0477925725};
  for (bool is_training : {false, true}) {
    CAPTURE(is_training);
    Graph g;
    auto guard = g.as_default();
    auto x = placeholder<float>(Shape{2, 2, 2, 3});
    std::vector<Output> in{x, vector_const(kScale), vector_const(kOffset), vector_const(kMean),
                           vector_const(kVariance)};
    auto y =
        forward(3, in, {.epsilon = 0.001, .data_format = "NCHW", .is_training = is_training}).y;
    auto grads = gradients(reduce_sum(y * constant(weights({2, 2, 2, 3}))), in);
    CHECK(grads[0].get_shape() == Shape{2, 2, 2, 3});
    if (!is_training) {
      const std::string scope = "gradients/FusedBatchNormV3_grad/";
      CHECK(grads[0].name() == scope + "transpose_2:0");
      CHECK(g.get_operation_by_name(scope + "transpose").type() == "Transpose");
      CHECK(input_names(g.get_operation_by_name(scope + "transpose"))[0] == "Placeholder:0");
      CHECK(run_vector<std::int32_t>(g.get_operation_by_name(scope + "transpose/perm").output(0)) ==
            std::vector<std::int32_t>{0, 2, 3, 1});
      CHECK(
          run_vector<std::int32_t>(g.get_operation_by_name(scope + "transpose_2/perm").output(0)) ==
          std::vector<std::int32_t>{0, 3, 1, 2});
      const Operation grad_op = g.get_operation_by_name(scope + "FusedBatchNormGradV3");
      CHECK(input_names(grad_op) ==
            std::vector<std::string>{scope + "transpose_1:0", scope + "transpose:0", "Const:0",
                                     "Const_2:0", "Const_3:0", "FusedBatchNormV3:5"});
      CHECK(grad_op.get_attr<std::string>("data_format") == "NHWC");
      CHECK(!grad_op.get_attr<bool>("is_training"));
      CHECK(grads[1].name() == scope + "FusedBatchNormGradV3:1");
    } else {
      CHECK(grads[0].op().get_attr<std::string>("data_format") == "NCHW");
    }
    Session sess(g);
    auto out = sess.run({grads[0], grads[1], grads[2]}, {{x, x_value({2, 2, 2, 3})}});
    check_values(out[0], is_training ? training_dx : inference_dx);
    check_values(out[1], is_training ? std::vector<float>{2.437397f, -0.531482339f}
                                     : std::vector<float>{6.93675184f, 6.20238161f});
    check_values(out[2], kDoffset);
  }
}

TEST_CASE("nn/fused_batch_norm grad: the gradient ops' values") {
  // TF: fused_batch_norm_grad{,_v2,_v3}(dy = W - 1, X [2, 2, 3, 2], scale,
  //   reserve_space_1 = [0.5, -1], reserve_space_2 = [2, 0.75] (, reserve_space_3 =
  //   zeros([0])), epsilon=0.001): the reserve spaces are taken as given (not recomputed
  //   from x). offset_backprop [-0.5, 0] and scale_backprop [2.51843858, 3.02907014] in both
  //   modes; x_backprop as below; the last two outputs are empty vectors.
  const std::vector<float> training_dx{
      0.379266232,  0.690428555,  0.358830631,  0.864104092, 0.456387877,  0.0363964848,
      -0.771548748, 0.210071981,  0.938576937,  0.383747458, -0.289359719, -0.44396016,
      -0.191802517, -0.270284623, -0.212238103, 0.624598026, 0.290386587,  0.924316823,
      0.387943774,  -0.750641286, -0.957985759, 0.144241437, 0.870132923,  0.44396016};
  const std::vector<float> inference_dx{-0.530197561, 0.144241437, 0,  -0.144241437, 0.530197561,
                                        0.288482875,  -0.26509878, -0, 0.26509878,   -0.288482875,
                                        -0.530197561, 0.144241437, 0,  -0.144241437, 0.530197561,
                                        0.288482875,  -0.26509878, -0, 0.26509878,   -0.288482875,
                                        -0.530197561, 0.144241437, 0,  -0.144241437};
  Graph g;
  auto guard = g.as_default();
  auto dy = constant(weights({2, 2, 3, 2}, 1));
  auto x = constant(x_value({2, 2, 3, 2}));
  auto scale = vector_const(kScale);
  auto mean = vector_const(kMean), variance = vector_const(kVariance);
  auto none = constant(Value(DType::float32, {0}));
  Session sess(g);
  for (bool is_training : {true, false}) {
    const raw_ops::FusedBatchNormGradAttrs attrs{.epsilon = 0.001, .is_training = is_training};
    for (const auto& o :
         {raw_ops::fused_batch_norm_grad(dy, x, scale, mean, variance, attrs),
          raw_ops::fused_batch_norm_grad_v2(dy, x, scale, mean, variance, attrs),
          raw_ops::fused_batch_norm_grad_v3(dy, x, scale, mean, variance, none, attrs)}) {
      CAPTURE(o.x_backprop.op().type());
      CAPTURE(is_training);
      auto out = sess.run({o.x_backprop, o.scale_backprop, o.offset_backprop, o.reserve_spaces[0],
                           o.reserve_spaces[1]});
      check_values(out[0], is_training ? training_dx : inference_dx);
      check_values(out[1], {2.51843858f, 3.02907014f});
      check_values(out[2], {-0.5f, 0});
      CHECK(out[3].dims() == Dims{0});
      CHECK(out[4].dims() == Dims{0});
    }
  }
  // TF: an empty batch gives zero scale_backprop and offset_backprop.
  auto empty = constant(Value(DType::float32, {0, 3, 4, 2}));
  auto e = raw_ops::fused_batch_norm_grad_v3(empty, empty, scale, mean, variance, none);
  auto out = sess.run({e.x_backprop, e.scale_backprop, e.offset_backprop});
  CHECK(out[0].dims() == Dims{0, 3, 4, 2});
  CHECK(out[1].to_vector<float>() == std::vector<float>{0, 0});
  CHECK(out[2].to_vector<float>() == std::vector<float>{0, 0});
}

TEST_CASE("nn/fused_batch_norm grad: the gradient ops' shapes and errors") {
  // TF (graph mode):
  //   fused_batch_norm_grad{,_v2,_v3}(dy (2, 4, 5, ?), x (?, ?, ?, ?), scale (?),
  //     reserve_space_1 (3), reserve_space_2 (?)): (2, 4, 5, 3), (3,), (3,), (0,), (0,)
  //   x of rank 3: "Shape must be rank 4 but is rank 3"
  //   x with 2 channels, dy 3: "Dimensions must be equal, but are 3 and 2"
  //   reserve_space_1 (2): "Dimensions must be equal, but are 3 and 2"
  //   float64 dy (Grad): TypeError "Value passed to parameter 'y_backprop' has DataType
  //     float64 not in list of allowed values: float32"; (GradV3) "...: float16, bfloat16,
  //     float32"
  //   float64 x (Grad): "Input 'x' of 'FusedBatchNormGrad' Op has type float64 that does
  //     not match type float32 of argument 'y_backprop'."
  //   float64 scale (GradV2): "Input 'scale' of 'FusedBatchNormGradV2' Op has type float64
  //     that does not match expected type of float32."
  //   float64 reserve_space_1 (GradV2): "Value passed to parameter 'reserve_space_1' has
  //     DataType float64 not in list of allowed values: float32"
  //   float64 reserve_space_3 (GradV3): "Input 'reserve_space_3' of 'FusedBatchNormGradV3'
  //     Op has type float64 that does not match type float32 of argument 'reserve_space_1'."
  //   Run time (TF's kernels): "x and y_backprop must have same shape, but x has shape
  //     [2,3,5,3] and y_backprop has shape [2,3,4,3]", "reserve_space_2 must have the same
  //     number of elements as the channels of x, got 4 and 3", "saved mean must be
  //     1-dimensional[3,1]".
  Graph g;
  auto guard = g.as_default();
  auto dy = placeholder<float>(Shape{2, 4, 5, -1});
  auto unknown4 = placeholder<float>(Shape{-1, -1, -1, -1});
  auto vec = placeholder<float>(Shape{-1});
  auto three = placeholder<float>(Shape{3});
  auto shapes = [](const raw_ops::FusedBatchNormGradOutputs& o) {
    std::vector<std::string> s;
    for (const Output& t : o.x_backprop.op().outputs()) s.push_back(t.get_shape().to_string());
    return s;
  };
  const std::vector<std::string> want{"(2, 4, 5, 3)", "(3,)", "(3,)", "(0,)", "(0,)"};
  CHECK(shapes(raw_ops::fused_batch_norm_grad(dy, unknown4, vec, three, vec)) == want);
  CHECK(shapes(raw_ops::fused_batch_norm_grad_v2(dy, unknown4, vec, three, vec)) == want);
  CHECK(shapes(raw_ops::fused_batch_norm_grad_v3(dy, unknown4, vec, three, vec,
                                                 placeholder<float>())) == want);

  auto message = [](auto f) {
    try {
      f();
    } catch (const Error& e) {
      return e.message();
    }
    return std::string("no error");
  };
  auto x = placeholder<float>(Shape{2, 4, 5, 3});
  auto x64 = placeholder<double>(Shape{2, 4, 5, 3});
  auto three64 = placeholder<double>(Shape{3});
  CHECK(contains(
      message([&] {
        raw_ops::fused_batch_norm_grad(x, placeholder<float>(Shape{2, 4, 5}), three, three, three);
      }),
      "Shape must be rank 4 but is rank 3"));
  CHECK(contains(message([&] {
                   raw_ops::fused_batch_norm_grad_v2(x, placeholder<float>(Shape{2, 4, 5, 2}),
                                                     three, three, three);
                 }),
                 "Dimensions must be equal, but are 3 and 2"));
  CHECK(contains(message([&] {
                   raw_ops::fused_batch_norm_grad_v2(x, x, three, placeholder<float>(Shape{2}),
                                                     three, {.name = "g2"});
                 }),
                 "Dimensions must be equal, but are 3 and 2 for 'g2' (op: "
                 "'FusedBatchNormGradV2')"));
  CHECK(contains(message([&] { raw_ops::fused_batch_norm_grad(x64, x64, three, three, three); }),
                 "Value passed to parameter 'y_backprop' has DataType float64 not in list of "
                 "allowed values: float32"));
  CHECK(contains(
      message([&] { raw_ops::fused_batch_norm_grad_v3(x64, x64, three, three, three, three); }),
      "Value passed to parameter 'y_backprop' has DataType float64 not in list of allowed "
      "values: float16, bfloat16, float32"));
  CHECK(contains(message([&] { raw_ops::fused_batch_norm_grad(x, x64, three, three, three); }),
                 "Input 'x' of 'FusedBatchNormGrad' Op has type float64 that does not match "
                 "type float32 of argument 'y_backprop'."));
  CHECK(contains(message([&] { raw_ops::fused_batch_norm_grad_v2(x, x, three64, three, three); }),
                 "Input 'scale' of 'FusedBatchNormGradV2' Op has type float64 that does not "
                 "match expected type of float32."));
  CHECK(contains(message([&] { raw_ops::fused_batch_norm_grad_v2(x, x, three, three64, three); }),
                 "Value passed to parameter 'reserve_space_1' has DataType float64 not in list "
                 "of allowed values: float32"));
  CHECK(contains(
      message([&] { raw_ops::fused_batch_norm_grad_v3(x, x, three, three, three, three64); }),
      "Input 'reserve_space_3' of 'FusedBatchNormGradV3' Op has type float64 that does not "
      "match type float32 of argument 'reserve_space_1'."));
  CHECK(message([&] {
          raw_ops::fused_batch_norm_grad(x, x, three, three, three, {.data_format = "NDHWC"});
        }) ==
        "Attr 'data_format' of 'FusedBatchNormGrad' Op passed string 'NDHWC' not in: "
        "\"NHWC\", \"NCHW\".");

  auto any_dy = placeholder<float>(), any_x = placeholder<float>(), any_v = placeholder<float>();
  auto grad = raw_ops::fused_batch_norm_grad_v3(any_dy, any_x, three, any_v, three, three,
                                                {.name = "bn_grad"});
  Session sess(g);
  auto failure = [&](Dims dy_dims, Dims x_dims, Dims v_dims) {
    auto e = thrown<InvalidArgumentError>([&] {
      sess.run(grad.x_backprop, {{any_dy, Value(DType::float32, dy_dims)},
                                 {any_x, Value(DType::float32, x_dims)},
                                 {any_v, Value(DType::float32, v_dims)},
                                 {three, Value(DType::float32, {3})}});
    });
    return e ? e->node_name() + ": " + e->message() : std::string("no error");
  };
  CHECK(contains(failure({2, 3, 4, 3}, {2, 3, 5, 3}, {3}),
                 "bn_grad: x and y_backprop must have same shape, but x has shape [2,3,5,3] and "
                 "y_backprop has shape [2,3,4,3]"));
  CHECK(contains(failure({2, 3, 4, 3}, {2, 3, 4, 3}, {4}),
                 "bn_grad: reserve_space_1 must have the same number of elements as the "
                 "channels of x, got 4 and 3"));
  CHECK(contains(failure({2, 3, 4, 3}, {2, 3, 4, 3}, {3, 1}),
                 "bn_grad: saved mean must be 1-dimensional[3,1]"));
  CHECK(contains(failure({2, 3, 3}, {2, 3, 4, 3}, {3}), "bn_grad: input must be 4-dimensional"));
  CHECK(failure({2, 3, 4, 3}, {2, 3, 4, 3}, {3}) == "no error");
}

TEST_CASE("nn/fused_batch_norm grad: the gradient ops have no gradient of their own") {
  for (std::string_view type :
       {"FusedBatchNormGrad", "FusedBatchNormGradV2", "FusedBatchNormGradV3"}) {
    CAPTURE(type);
    const OpEntry* e = find_op_entry(type);
    REQUIRE(e != nullptr);
    CHECK(static_cast<bool>(e->grad == nullptr));
  }
  for (std::string_view type : {"FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"}) {
    CAPTURE(type);
    const OpEntry* e = find_op_entry(type);
    REQUIRE(e != nullptr);
    CHECK(static_cast<bool>(e->grad != nullptr));
  }
}

TEST_CASE("nn/fused_batch_norm grad: numerical gradients") {
  // d/dx, d/dscale, d/doffset of sum(y * w) against central differences, through Casts to
  // float32 and back. The inputs and the step (1/128) are exact in float32, so the
  // differences are float32's rounding of y only: 1e-3 covers them (2e-4 does too).
  struct Case {
    int version;
    bool is_training;
    const char* format;
    Dims x;
    double exponential_avg_factor;
  };
  const std::vector<Case> cases{
      {1, true, "NHWC", {2, 2, 3, 3}, 1.0},     {1, false, "NHWC", {2, 2, 3, 3}, 1.0},
      {2, true, "NHWC", {2, 3, 2, 3}, 1.0},     {2, false, "NCHW", {2, 3, 2, 3}, 1.0},
      {3, true, "NHWC", {3, 2, 2, 3}, 0.5},     {3, false, "NHWC", {3, 2, 2, 3}, 1.0},
      {3, true, "NCHW", {2, 3, 3, 2}, 1.0},     {3, false, "NCHW", {2, 3, 3, 2}, 1.0},
      {3, true, "NDHWC", {2, 2, 1, 2, 3}, 1.0}, {3, false, "NCDHW", {2, 3, 2, 1, 2}, 1.0},
  };
  const std::vector<float> mean{0.25f, -0.5f, 0.125f}, variance{1.5f, 0.5f, 2.0f};
  for (const Case& k : cases) {
    CAPTURE(k.version);
    CAPTURE(k.is_training);
    CAPTURE(k.format);
    check_gradients(
        [&](const std::vector<Output>& in) {
          std::vector<Output> args;
          for (const Output& t : in) args.push_back(cast(t, DType::float32));
          args.push_back(vector_const(mean));
          args.push_back(vector_const(variance));
          const raw_ops::FusedBatchNormAttrs attrs{
              .epsilon = 0.001,
              .exponential_avg_factor = k.exponential_avg_factor,
              .data_format = k.format,
              .is_training = k.is_training};
          return cast(forward(k.version, args, attrs).y, DType::float64);
        },
        {eighths(k.x, 5, 13, 6), Value::from_vector<double>({1.25, -0.5, 0.75}, {3}),
         Value::from_vector<double>({0.5, -0.25, 0}, {3})},
        1e-3, 1.0 / 128);
  }
  // tf.compat.v1.nn.fused_batch_norm itself, mean and variance left out.
  check_gradients(
      [](const std::vector<Output>& in) {
        auto r = nn::fused_batch_norm(cast(in[0], DType::float32), cast(in[1], DType::float32),
                                      cast(in[2], DType::float32));
        return cast(r.y, DType::float64);
      },
      {eighths({2, 2, 2, 3}, 7, 11, 5), Value::from_vector<double>({0.75, 1.5, -1}, {3}),
       Value::from_vector<double>({0, 0.5, 0.25}, {3})},
      1e-3, 1.0 / 128);
}

}  // namespace symflow_test_ops_fused_batch_norm_grad_test
