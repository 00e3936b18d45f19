// FusedBatchNorm, FusedBatchNormV2, FusedBatchNormV3 and tf.compat.v1.nn.fused_batch_norm:
// values, outputs, static shapes and errors, checked against TensorFlow 2.21.
//
// The expected values come from TensorFlow 2.21 in graph mode (tf.compat.v1, Grappler off
// so that no node is folded away), on the inputs of kX / kScale / ... below:
//   X = np.array([((i * 7) % 11) - 5 + 0.25 * (i % 3) for i in range(24)], np.float32)
//   y, m, v = tf1.nn.fused_batch_norm(X.reshape(2, 2, 3, 2), [1.5, -0.5], [0.25, 1.0])
//   outs = gen_nn_ops.fused_batch_norm_v3(x, scale, offset, mean, variance, ...)
// printed with '%.9g'. TensorFlow's default CPU kernel there is oneDNN's; with
// TF_ENABLE_ONEDNN_OPTS=0 (its own Eigen kernel) the values agree to an ulp or two.
// The gradients are in fused_batch_norm_grad_test.cpp.

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <symflow/symflow.hpp>

#include "../test_util.hpp"

namespace symflow_test_ops_fused_batch_norm_test {

namespace ops_fused_batch_norm_test {

using namespace symflow;
using namespace symflow::test;

// x[i] = ((i * 7) % 11) - 5 + 0.25 * (i % 3), i < 24, in whatever layout `dims` says.
Value x_value(const Dims& dims) {
  std::vector<float> v(24);
  for (int i = 0; i < 24; ++i)
    v[static_cast<std::size_t>(i)] = static_cast<float>((i * 7) % 11 - 5) + 0.25f * (i % 3);
  return Value::from_vector(v, dims);
}
const std::vector<float> kScale{1.5f, -0.5f}, kOffset{0.25f, 1.0f}, kMean{0.5f, -1.0f},
    kVariance{2.0f, 0.75f};

Output vector_const(const std::vector<float>& v) {
  return constant(Value::from_vector(v, {static_cast<std::int64_t>(v.size())}));
}

// TF: y of training, epsilon 0.001, NHWC [2, 2, 3, 2] (V1, V2 and V3 agree).
const std::vector<float> kTrainingY{
    -1.92016029, 0.696098268, -0.34866488, 0.24024564,  0.886081398,   1.4834801,
    2.12082767,  1.02762747,  -1.24666214, 0.57177484,  -0.0119158626, 1.81500912,
    1.22283053,  1.35915661,  2.79432559,  0.903303981, -0.909913182,  0.323127925,
    0.324833095, 1.69068575,  1.89632845,  1.23483312,  -1.80791068,   0.654657125};
const std::vector<float> kBatchMean{-0.166666672f, 0.416666657f};
// The Bessel-corrected variance (n = 12): 11.1597242 * 12 / 11, 9.09722233 * 12 / 11.
const std::vector<float> kBatchVariance{12.1742449f, 9.92424297f};
const std::vector<float> kBiasedVariance{11.1597242f, 9.09722233f};

// TF: y of inference, epsilon 0.001, NHWC, with kMean and kVariance.
const std::vector<float> kInferenceY{
    -5.58217335, -0.87513864,  -1.87079024, -2.46179438, 1.04529631,   1.86544859, 3.96138287,
    0.278792799, -3.99158049,  -1.307863,   -1.07549393, 3.01938009,   1.84059262, 1.43272424,
    5.55197573,  -0.153931499, -3.19628406, -2.17331171, -0.280197561, 2.58665586, 3.43118525,
    1,           -5.3170743,   -1.01938009};

// Float32 results agree with TensorFlow's to about an ulp (doctest's Approx with scale 1:
// relative to max(1, |value|)).
void check_values(const Value& got, const std::vector<float>& want) {
  check_close(got.to_vector<float>(), want, 2e-6, false);
}

template <class E, class F>
std::string message_of(F&& f) {
  auto e = thrown<E>(std::forward<F>(f));
  return e ? e->message() : std::string("no error");
}

}  // namespace ops_fused_batch_norm_test

using namespace ops_fused_batch_norm_test;

TEST_CASE("nn/fused_batch_norm: training builds FusedBatchNormV3 with TensorFlow's nodes") {
  // TF: tf1.nn.fused_batch_norm(x, scale, offset) builds Const and Const_1 (empty float32
  // vectors for mean and variance) and FusedBatchNormV3 reading them, with T = U = float,
  // epsilon 0.001, exponential_avg_factor 1, data_format "NHWC", is_training true; it
  // returns outputs 0, 1, 2. Under name_scope "bn" with name "fbn": bn/Const, bn/fbn.
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<float>(Shape{2, 2, 3, 2});
  auto scale = vector_const(kScale);
  auto offset = vector_const(kOffset);
  auto [y, batch_mean, batch_variance] = nn::fused_batch_norm(x, scale, offset);
  CHECK(y.name() == "FusedBatchNormV3:0");
  CHECK(batch_mean.name() == "FusedBatchNormV3:1");
  CHECK(batch_variance.name() == "FusedBatchNormV3:2");
  const Operation op = y.op();
  CHECK(op.type() == "FusedBatchNormV3");
  CHECK(input_names(op) == std::vector<std::string>{"Placeholder:0", "Const:0", "Const_1:0",
                                                    "Const_2:0", "Const_3:0"});
  CHECK(g.get_operation_by_name("Const_2").output(0).get_shape() == Shape{0});
  CHECK(op.get_attr<DType>("T") == DType::float32);
  CHECK(op.get_attr<DType>("U") == DType::float32);
  CHECK(op.get_attr<double>("epsilon") == static_cast<double>(0.001f));
  CHECK(op.get_attr<double>("exponential_avg_factor") == 1.0);
  CHECK(op.get_attr<std::string>("data_format") == "NHWC");
  CHECK(op.get_attr<bool>("is_training"));
  CHECK(op.outputs().size() == 6);
  CHECK(y.get_shape() == Shape{2, 2, 3, 2});
  CHECK(batch_mean.get_shape() == Shape{2});
  CHECK(batch_variance.get_shape() == Shape{2});
  CHECK(!op.output(5).get_shape().has_rank());

  Session sess(g);
  auto out = sess.run({y, batch_mean, batch_variance}, {{x, x_value({2, 2, 3, 2})}});
  check_values(out[0], kTrainingY);
  check_values(out[1], kBatchMean);
  check_values(out[2], kBatchVariance);

  {
    name_scope scope(g, "bn");
    auto named = nn::fused_batch_norm(x, scale, offset, {}, {}, {.name = "fbn"});
    CHECK(named.y.name() == "bn/fbn:0");
    CHECK(input_names(named.y.op())[3] == "bn/Const:0");
    CHECK(input_names(named.y.op())[4] == "bn/Const_1:0");
  }
}

TEST_CASE("nn/fused_batch_norm: V1, V2 and V3 in training give every output") {
  // TF: gen_nn_ops.fused_batch_norm_v3(x, scale, offset, mean, variance) (epsilon 1e-4):
  //   y as below; batch_mean [-0.166666672, 0.416666657]; batch_variance [12.1742449,
  //   9.92424297] (Bessel-corrected); reserve_space_1 the batch mean; reserve_space_2
  //   [11.1597242, 9.09722233] (biased); reserve_space_3: TensorFlow's Eigen CPU kernel
  //   gives a zero scalar (oneDNN's an empty vector). _fused_batch_norm and
  //   fused_batch_norm_v2 give the same five outputs.
  const std::vector<float> y_eps_1e4{
      -1.92024779, 0.696083188, -0.348689079, 0.240208089, 0.886107087,   1.48350394,
      2.12090302,  1.02762878,  -1.24672258,  0.571753621, -0.0119264424, 1.81504941,
      1.22286975,  1.35917437,  2.79442835,   0.903299212, -0.909960032,  0.323094428,
      0.324836135, 1.69071984,  1.89639485,   1.2348448,   -1.80799365,   0.654640079};
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<float>(Shape{2, 2, 3, 2});
  auto scale = vector_const(kScale), offset = vector_const(kOffset);
  auto mean = vector_const(kMean), variance = vector_const(kVariance);
  const auto v1 = raw_ops::fused_batch_norm(x, scale, offset, mean, variance);
  const auto v2 = raw_ops::fused_batch_norm_v2(x, scale, offset, mean, variance);
  const auto v3 = raw_ops::fused_batch_norm_v3(x, scale, offset, mean, variance);
  CHECK(v1.y.op().type() == "FusedBatchNorm");
  CHECK(v2.y.op().type() == "FusedBatchNormV2");
  CHECK(v3.y.name() == "FusedBatchNormV3:0");
  CHECK(v1.y.op().outputs().size() == 5);
  CHECK(v2.y.op().outputs().size() == 5);
  CHECK(!v1.reserve_space_3.valid());
  CHECK(v3.reserve_space_3.name() == "FusedBatchNormV3:5");
  CHECK(v1.y.op().get_attr<double>("epsilon") == static_cast<double>(1e-4f));
  CHECK(v1.y.op().get_attr<double>("exponential_avg_factor") == 1.0);
  CHECK(v1.y.op().attrs().count("U") == 0);
  CHECK(v2.y.op().get_attr<DType>("U") == DType::float32);

  Session sess(g);
  for (const auto* o : {&v1, &v2, &v3}) {
    CAPTURE(o->y.op().type());
    auto out =
        sess.run({o->y, o->batch_mean, o->batch_variance, o->reserve_space_1, o->reserve_space_2},
                 {{x, x_value({2, 2, 3, 2})}});
    check_values(out[0], y_eps_1e4);
    check_values(out[1], kBatchMean);
    check_values(out[2], kBatchVariance);
    check_values(out[3], kBatchMean);
    check_values(out[4], kBiasedVariance);
  }
  Value r3 = sess.run(v3.reserve_space_3, {{x, x_value({2, 2, 3, 2})}});
  CHECK(r3.dims() == Dims{});
  CHECK(r3.to_vector<float>() == std::vector<float>{0});
}

TEST_CASE("nn/fused_batch_norm: exponential_avg_factor blends the running moments") {
  // TF: fused_batch_norm_v3(x, scale, offset, mean=[0.5, -1], variance=[2, 0.75],
  //   epsilon=0.001, exponential_avg_factor=0.25): y as in training; batch_mean
  //   [0.333333343, -0.645833313] = 0.75 * mean + 0.25 * batch mean; batch_variance
  //   [4.54356098, 3.04356074] = 0.75 * variance + 0.25 * Bessel-corrected batch variance;
  //   the reserve spaces keep the batch's own moments.
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<float>(Shape{2, 2, 3, 2});
  auto scale = vector_const(kScale), offset = vector_const(kOffset);
  auto mean = vector_const(kMean), variance = vector_const(kVariance);
  auto r = nn::fused_batch_norm(x, scale, offset, mean, variance, {.exponential_avg_factor = 0.25});
  CHECK(r.y.op().get_attr<double>("exponential_avg_factor") == 0.25);
  Session sess(g);
  auto out = sess.run({r.y, r.batch_mean, r.batch_variance, r.y.op().output(3), r.y.op().output(4)},
                      {{x, x_value({2, 2, 3, 2})}});
  check_values(out[0], kTrainingY);
  check_values(out[1], {0.333333343f, -0.645833313f});
  check_values(out[2], {4.54356098f, 3.04356074f});
  check_values(out[3], kBatchMean);
  check_values(out[4], kBiasedVariance);
}

TEST_CASE("nn/fused_batch_norm: inference normalises with the given mean and variance") {
  // TF: tf1.nn.fused_batch_norm(x, scale, offset, mean, variance, is_training=False) (and
  //   the same with exponential_avg_factor=0.25, which inference ignores): y as kInferenceY,
  //   batch_mean [0.5, -1], batch_variance [2, 0.75]. oneDNN's kernel also gives the given
  //   mean and variance as reserve_space_1 and _2 (the Eigen kernel leaves them unset);
  //   symflow gives them too. V1 and V2 agree.
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<float>(Shape{2, 2, 3, 2});
  auto scale = vector_const(kScale), offset = vector_const(kOffset);
  auto mean = vector_const(kMean), variance = vector_const(kVariance);
  const raw_ops::FusedBatchNormAttrs inference{.epsilon = 0.001, .is_training = false};
  const auto v1 = raw_ops::fused_batch_norm(x, scale, offset, mean, variance, inference);
  const auto v2 = raw_ops::fused_batch_norm_v2(x, scale, offset, mean, variance, inference);
  const auto v3 = raw_ops::fused_batch_norm_v3(
      x, scale, offset, mean, variance,
      {.epsilon = 0.001, .exponential_avg_factor = 0.25, .is_training = false});
  const auto wrapped =
      nn::fused_batch_norm(x, scale, offset, mean, variance, {.is_training = false});
  CHECK(!wrapped.y.op().get_attr<bool>("is_training"));
  Session sess(g);
  for (const auto* o : {&v1, &v2, &v3}) {
    CAPTURE(o->y.op().type());
    auto out =
        sess.run({o->y, o->batch_mean, o->batch_variance, o->reserve_space_1, o->reserve_space_2},
                 {{x, x_value({2, 2, 3, 2})}});
    check_values(out[0], kInferenceY);
    CHECK(out[1].to_vector<float>() == kMean);
    CHECK(out[2].to_vector<float>() == kVariance);
    CHECK(out[3].to_vector<float>() == kMean);
    CHECK(out[4].to_vector<float>() == kVariance);
  }
  auto out = sess.run({wrapped.y, wrapped.batch_mean, wrapped.batch_variance},
                      {{x, x_value({2, 2, 3, 2})}});
  check_values(out[0], kInferenceY);
  CHECK(out[1].to_vector<float>() == kMean);
  CHECK(out[2].to_vector<float>() == kVariance);
}

TEST_CASE("nn/fused_batch_norm: NCHW, NCDHW and NDHWC") {
  // TF: tf1.nn.fused_batch_norm on X reshaped to [2, 2, 2, 3] NCHW (training, and
  //   inference with mean/variance), [1, 2, 2, 2, 3] NCDHW and [1, 2, 2, 3, 2] NDHWC
  //   (training), epsilon 0.001. NDHWC has NHWC's channels, so its values are kTrainingY.
  struct Case {
    Dims dims;
    const char* format;
    bool is_training;
    std::vector<float> y, mean, variance;
  };
  const std::vector<Case> cases{
      {{2, 2, 2, 3},
       "NCHW",
       true,
       {-2.3738997,  0.983148396,  -0.753255844, 2.25651169,  0.520107329, -1.21629691,
        0.277729154, 0.890977979,  1.50422692,   0.441262126, 1.05451107,  1.6677599,
        0.867388129, -0.869016051, 2.4880321,    0.404347032, -1.33205724, 2.02499104,
        0.931861222, 1.54511011,   0.35949564,   1.09539425,  1.7086432,   0.523028612},
       {0.666666687f, -0.416666657f},
       {11.4469709f, 10.19697f}},
      {{2, 2, 2, 3},
       "NCHW",
       false,
       {-5.58217335, 2.10569143,  -1.87079024, 5.02177811,  1.04529631,  -2.93118525,
        -1.88482881, 0.278792799, 2.44241428,  -1.307863,   0.855758548, 3.01938009,
        1.84059262,  -2.13588905, 5.55197573,  0.780197561, -3.19628406, 4.49158049,
        0.423034251, 2.58665586,  -1.5963459,  1,           3.16362166,  -1.01938009},
       kMean,
       kVariance},
      {{1, 2, 2, 2, 3},
       "NCDHW",
       true,
       {-2.0151763,  1.38258815,  -0.374876201, 2.67139506,  0.913930953,   -0.843533278,
        2.20273805,  0.445273817, -1.31219041,  1.73408091,  -0.0233833194, -1.78084755,
        0.749839187, 1.34232533,  0.196852148,  0.907835484, 1.50032163,    0.354848444,
        1.06583178,  1.6583178,   0.512844801,  1.22382808,  1.81631422,    0.670841098},
       {-0.166666672f, 0.416666687f},
       {11.1742449f, 10.924243f}},
      {{1, 2, 2, 3, 2}, "NDHWC", true, kTrainingY, kBatchMean, kBatchVariance},
  };
  for (const Case& k : cases) {
    CAPTURE(k.format);
    CAPTURE(k.is_training);
    Graph g;
    auto guard = g.as_default();
    auto x = placeholder<float>(Shape(k.dims));
    auto scale = vector_const(kScale), offset = vector_const(kOffset);
    auto mean = vector_const(kMean), variance = vector_const(kVariance);
    auto r = nn::fused_batch_norm(x, scale, offset, mean, variance,
                                  {.data_format = k.format, .is_training = k.is_training});
    CHECK(r.y.get_shape() == Shape(k.dims));
    CHECK(r.batch_mean.get_shape() == Shape{2});
    Session sess(g);
    auto out = sess.run({r.y, r.batch_mean, r.batch_variance}, {{x, x_value(k.dims)}});
    check_values(out[0], k.y);
    check_values(out[1], k.mean);
    check_values(out[2], k.variance);
  }
}

TEST_CASE("nn/fused_batch_norm: an empty batch and a batch of one") {
  // TF (Eigen and oneDNN kernels): x of shape [0, 2, 3, 2] gives an empty y, NaN
  //   batch_mean and batch_variance (training, even with exponential_avg_factor 0.25, and
  //   inference alike), zero reserve spaces in training. x of shape [1, 1, 1, 2] = [-5,
  //   2.25] in training gives y = offset and a batch variance of 0 (n / max(n - 1, 1) keeps
  //   it finite); with exponential_avg_factor 0.25, batch_mean [-0.875, -0.1875] and
  //   batch_variance [1.5, 0.5625].
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<float>(Shape{-1, -1, -1, 2});
  auto scale = vector_const(kScale), offset = vector_const(kOffset);
  auto mean = vector_const(kMean), variance = vector_const(kVariance);
  const auto blended = raw_ops::fused_batch_norm_v3(x, scale, offset, mean, variance,
                                                    {.exponential_avg_factor = 0.25});
  const auto inference =
      raw_ops::fused_batch_norm_v3(x, scale, offset, mean, variance, {.is_training = false});
  Session sess(g);
  const Value empty(DType::float32, {0, 2, 3, 2});
  for (const auto* o : {&blended, &inference}) {
    auto out =
        sess.run({o->y, o->batch_mean, o->batch_variance, o->reserve_space_1, o->reserve_space_2},
                 {{x, empty}});
    CHECK(out[0].dims() == Dims{0, 2, 3, 2});
    for (int i : {1, 2})
      for (float v : out[static_cast<std::size_t>(i)].to_vector<float>()) CHECK(std::isnan(v));
    if (o == &blended) {
      CHECK(out[3].to_vector<float>() == std::vector<float>{0, 0});
      CHECK(out[4].to_vector<float>() == std::vector<float>{0, 0});
    }
  }
  auto out = sess.run({blended.y, blended.batch_mean, blended.batch_variance},
                      {{x, Value::from_vector<float>({-5, 2.25}, {1, 1, 1, 2})}});
  CHECK(out[0].to_vector<float>() == kOffset);
  CHECK(out[1].to_vector<float>() == std::vector<float>{-0.875f, -0.1875f});
  CHECK(out[2].to_vector<float>() == std::vector<float>{1.5f, 0.5625f});
}

TEST_CASE("nn/fused_batch_norm: static shapes, with unknown dims") {
  // TF (graph mode, gen_nn_ops.fused_batch_norm_v3 unless said):
  //   x (?, 4, 5, 3), scale (?), offset (3), mean/variance (0), training:
  //     (?, 4, 5, 3), (3,) x 4, <unknown> (mean and variance are not read)
  //   x unknown, scale..variance (?): (?, ?, ?, ?), (?,) x 4, <unknown>
  //   x (2, 4, 5, ?), mean (3), inference: (2, 4, 5, 3), (3,) x 4
  //   x (2, 4, 5, ?), mean (3), exponential_avg_factor 0.5: the same
  //   _fused_batch_norm NCHW x (2, 3, 5, 7): (2, 3, 5, 7), (3,) x 4 (five outputs)
  //   NDHWC x (2, 3, 5, 7, 4): (2, 3, 5, 7, 4), (4,) x 4, <unknown>
  Graph g;
  auto guard = g.as_default();
  auto unknown_vector = placeholder<float>(Shape{-1});
  auto three = placeholder<float>(Shape{3});
  auto empty = placeholder<float>(Shape{0});
  auto shapes = [](const raw_ops::FusedBatchNormOutputs& o) {
    std::vector<std::string> s;
    for (const Output& t : o.y.op().outputs()) s.push_back(t.get_shape().to_string());
    return s;
  };
  using Strings = std::vector<std::string>;
  CHECK(shapes(raw_ops::fused_batch_norm_v3(placeholder<float>(Shape{-1, 4, 5, 3}), unknown_vector,
                                            three, empty, empty)) ==
        Strings{"(?, 4, 5, 3)", "(3,)", "(3,)", "(3,)", "(3,)", "<unknown>"});
  CHECK(shapes(raw_ops::fused_batch_norm_v3(placeholder<float>(), unknown_vector, unknown_vector,
                                            unknown_vector, unknown_vector)) ==
        Strings{"(?, ?, ?, ?)", "(?,)", "(?,)", "(?,)", "(?,)", "<unknown>"});
  auto partial = placeholder<float>(Shape{2, 4, 5, -1});
  CHECK(shapes(raw_ops::fused_batch_norm_v3(partial, unknown_vector, unknown_vector, three,
                                            unknown_vector, {.is_training = false})) ==
        Strings{"(2, 4, 5, 3)", "(3,)", "(3,)", "(3,)", "(3,)", "<unknown>"});
  CHECK(shapes(raw_ops::fused_batch_norm_v3(partial, unknown_vector, unknown_vector, three,
                                            unknown_vector, {.exponential_avg_factor = 0.5})) ==
        Strings{"(2, 4, 5, 3)", "(3,)", "(3,)", "(3,)", "(3,)", "<unknown>"});
  CHECK(shapes(raw_ops::fused_batch_norm(placeholder<float>(Shape{2, 3, 5, 7}), unknown_vector,
                                         unknown_vector, unknown_vector, unknown_vector,
                                         {.data_format = "NCHW"})) ==
        Strings{"(2, 3, 5, 7)", "(3,)", "(3,)", "(3,)", "(3,)"});
  CHECK(shapes(raw_ops::fused_batch_norm_v3(placeholder<float>(Shape{2, 3, 5, 7, 4}),
                                            unknown_vector, unknown_vector, unknown_vector,
                                            unknown_vector, {.data_format = "NDHWC"})) ==
        Strings{"(2, 3, 5, 7, 4)", "(4,)", "(4,)", "(4,)", "(4,)", "<unknown>"});
}

TEST_CASE("nn/fused_batch_norm: build-time errors name the node and what was expected") {
  // TF (graph mode):
  //   x of rank 3: ValueError "Shape must be rank 4 but is rank 3 for '{{node
  //     FusedBatchNormV3_7}} = FusedBatchNormV3[...]' with input shapes: [2,3,4], ..."
  //   scale [4] for 3 channels: "Dimensions must be equal, but are 3 and 4"
  //   offset [3, 1]: "Shape must be rank 1 but is rank 2"
  //   inference with mean [0]: "Dimensions must be equal, but are 3 and 0"
  //   exponential_avg_factor 0.5 with variance [2]: "Dimensions must be equal, but are 3 and 2"
  //   data_format NCDHW with a 4-D x (V3): "Shape must be rank 5 but is rank 4"
  //   data_format NCDHW (V1): "Attr 'data_format' of 'FusedBatchNorm' Op passed string
  //     'NCDHW' not in: "NHWC", "NCHW"."; HWCN (V3): ... not in: "NHWC", "NCHW", "NDHWC",
  //     "NCDHW".
  //   float64 x: TypeError "Value passed to parameter 'x' has DataType float64 not in list
  //     of allowed values: float32" (V1), "...: float16, bfloat16, float32" (V2, V3)
  //   float64 scale (V3): "Value passed to parameter 'scale' has DataType float64 not in
  //     list of allowed values: bfloat16, float32"
  //   float64 mean: "Input 'mean' of 'FusedBatchNorm' Op has type float64 that does not
  //     match type float32 of argument 'x'." (V1), "... of 'FusedBatchNormV3' ... of
  //     argument 'scale'." (V3)
  //   tf1.nn.fused_batch_norm without mean in inference: ValueError "Both `mean` and
  //     `variance` must be a 1D tensor when `is_training` is False or
  //     `exponential_avg_factor` != 1.0. Received: `mean` None and `variance` None"
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<float>(Shape{-1, 4, 5, 3}, "x");
  auto three = placeholder<float>(Shape{3});
  auto empty = placeholder<float>(Shape{0});
  auto v3 = [&](const Output& in, const Output& scale, const Output& offset, const Output& mean,
                const Output& variance, raw_ops::FusedBatchNormAttrs a = {}) {
    return [=] { raw_ops::fused_batch_norm_v3(in, scale, offset, mean, variance, a); };
  };
  std::string m = message_of<ValueError>(
      v3(placeholder<float>(Shape{2, 3, 4}), three, three, empty, empty, {.name = "bad_rank"}));
  CHECK(contains(m, "Shape must be rank 4 but is rank 3"));
  CHECK(contains(m, "'bad_rank' (op: 'FusedBatchNormV3')"));
  CHECK(contains(m, "[2,3,4], [3], [3], [0], [0]"));
  CHECK(contains(message_of<ValueError>(v3(x, placeholder<float>(Shape{4}), three, empty, empty)),
                 "Dimensions must be equal, but are 3 and 4"));
  CHECK(
      contains(message_of<ValueError>(v3(x, three, placeholder<float>(Shape{3, 1}), empty, empty)),
               "Shape must be rank 1 but is rank 2"));
  CHECK(contains(message_of<ValueError>(v3(x, three, three, empty, empty, {.is_training = false})),
                 "Dimensions must be equal, but are 3 and 0"));
  CHECK(contains(message_of<ValueError>(v3(x, three, three, three, placeholder<float>(Shape{2}),
                                           {.exponential_avg_factor = 0.5})),
                 "Dimensions must be equal, but are 3 and 2"));
  CHECK(
      contains(message_of<ValueError>(v3(x, three, three, empty, empty, {.data_format = "NCDHW"})),
               "Shape must be rank 5 but is rank 4"));
  CHECK(message_of<ValueError>([&] {
          raw_ops::fused_batch_norm(x, three, three, empty, empty, {.data_format = "NCDHW"});
        }) ==
        "Attr 'data_format' of 'FusedBatchNorm' Op passed string 'NCDHW' not in: "
        "\"NHWC\", \"NCHW\".");
  CHECK(message_of<ValueError>(v3(x, three, three, empty, empty, {.data_format = "HWCN"})) ==
        "Attr 'data_format' of 'FusedBatchNormV3' Op passed string 'HWCN' not in: \"NHWC\", "
        "\"NCHW\", \"NDHWC\", \"NCDHW\".");

  auto x64 = placeholder<double>(Shape{2, 4, 5, 3});
  auto three64 = placeholder<double>(Shape{3});
  CHECK(contains(message_of<TypeError>(
                     [&] { raw_ops::fused_batch_norm(x64, three64, three64, three64, three64); }),
                 "Value passed to parameter 'x' has DataType float64 not in list of allowed "
                 "values: float32"));
  CHECK(contains(
      message_of<TypeError>([&] { raw_ops::fused_batch_norm_v2(x64, three, three, three, three); }),
      "Value passed to parameter 'x' has DataType float64 not in list of allowed "
      "values: float16, bfloat16, float32"));
  CHECK(contains(message_of<TypeError>(v3(x, three64, three64, three64, three64)),
                 "Value passed to parameter 'scale' has DataType float64 not in list of "
                 "allowed values: bfloat16, float32"));
  CHECK(contains(
      message_of<TypeError>([&] { raw_ops::fused_batch_norm(x, three, three, three64, three); }),
      "Input 'mean' of 'FusedBatchNorm' Op has type float64 that does not match "
      "type float32 of argument 'x'."));
  CHECK(contains(message_of<TypeError>(v3(x, three, three, three64, three)),
                 "Input 'mean' of 'FusedBatchNormV3' Op has type float64 that does not match "
                 "type float32 of argument 'scale'."));
  CHECK(contains(message_of<TypeError>([&] {
                   nn::fused_batch_norm(placeholder<std::int32_t>(Shape{2, 4, 5, 3}), three, three);
                 }),
                 "Value passed to parameter 'x' has DataType int32 not in list of allowed "
                 "values: float16, bfloat16, float32"));

  CHECK(message_of<ValueError>(
            [&] { nn::fused_batch_norm(x, three, three, {}, {}, {.is_training = false}); }) ==
        "Both `mean` and `variance` must be a 1D tensor when `is_training` is False or "
        "`exponential_avg_factor` != 1.0. Received: `mean` None and `variance` None");
  CHECK(contains(message_of<ValueError>([&] {
                   nn::fused_batch_norm(x, three, three, three, {},
                                        {.exponential_avg_factor = 0.5});
                 }),
                 "Received: `mean` <tf.Tensor '" + three.name() +
                     "' shape=(3,) dtype=float32> and `variance` None"));
}

TEST_CASE("nn/fused_batch_norm: run-time errors name the node") {
  // TF's kernels (eager, TF_ENABLE_ONEDNN_OPTS=0 and 1), InvalidArgumentError:
  //   "input must be 4-dimensional[2,3,4]" (Eigen: "4 or 5-dimensional")
  //   "scale must have the same number of elements as the channels of x, got 4 and 3"
  //   "estimated_mean must be 1-dimensional[3,1]"
  //   "When is_training=false, mean must have the same number of elements as the channels
  //    of x, got 2 and 3"
  //   "When exponential_avg_factor != 1, variance must have the same number of elements as
  //    the channels of x, got 0 and 3"
  //   training reads neither: a mean of 7 elements passes.
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<float>();
  auto scale = placeholder<float>();
  auto mean = placeholder<float>();
  auto training = raw_ops::fused_batch_norm_v3(x, scale, scale, mean, mean, {.name = "bn"});
  auto inference = raw_ops::fused_batch_norm_v3(x, scale, scale, mean, mean,
                                                {.is_training = false, .name = "frozen"});
  auto blended = raw_ops::fused_batch_norm_v3(x, scale, scale, mean, mean,
                                              {.exponential_avg_factor = 0.5, .name = "avg"});
  Session sess(g);
  auto failure = [&](const Output& t, Dims x_dims, Dims scale_dims, Dims mean_dims) {
    auto e = thrown<InvalidArgumentError>([&] {
      sess.run(t, {{x, Value(DType::float32, x_dims)},
                   {scale, Value(DType::float32, scale_dims)},
                   {mean, Value(DType::float32, mean_dims)}});
    });
    return e ? e->node_name() + ": " + e->message() : std::string("no error");
  };
  CHECK(
      contains(failure(training.y, {2, 3, 4}, {4}, {4}), "bn: input must be 4-dimensional[2,3,4]"));
  CHECK(contains(failure(training.y, {2, 3, 4, 3}, {4}, {3}),
                 "bn: scale must have the same number of elements as the channels of x, got 4 "
                 "and 3"));
  CHECK(contains(failure(training.y, {2, 3, 4, 3}, {3}, {3, 1}),
                 "bn: estimated_mean must be 1-dimensional[3,1]"));
  CHECK(contains(failure(inference.y, {2, 3, 4, 3}, {3}, {2}),
                 "frozen: When is_training=false, mean must have the same number of elements as "
                 "the channels of x, got 2 and 3"));
  CHECK(contains(failure(blended.y, {2, 3, 4, 3}, {3}, {0}),
                 "avg: When exponential_avg_factor != 1, mean must have the same number of "
                 "elements as the channels of x, got 0 and 3"));
  CHECK(failure(training.y, {2, 3, 4, 3}, {3}, {7}) == "no error");
}

}  // namespace symflow_test_ops_fused_batch_norm_test
