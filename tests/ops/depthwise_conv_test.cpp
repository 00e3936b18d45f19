// symflow::nn::depthwise_conv2d_native, depthwise_conv2d and the depthwise backprop ops,
// checked against TensorFlow 2.21 in graph mode (tf.compat.v1.nn.depthwise_conv2d_native,
// tf.compat.v1.nn.depthwise_conv2d, tf.compat.v1.nn.depthwise_conv2d_native_backprop_input
// and _filter; the messages of its CPU kernels with TF_ENABLE_ONEDNN_OPTS=0, its reference
// kernels).
//
// The TF cases use integer-valued inputs from two fixed patterns, so every sum is exact in
// float32 and float64 (the same as tests/ops/conv_ops_test.cpp):
//   X(i) = ((7 i + 3) mod 11) - 5   (inputs, out_backprops of backprop_input)
//   W(i) = ((5 i + 1) mod 7) - 3    (filters, out_backprops of backprop_filter)
// e.g. in Python: ((np.arange(n) * 7 + 3) % 11 - 5).astype(np.float32).reshape(dims).
// Larger shapes (several channel blocks, several threads) are compared with a direct loop
// written here.

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <symflow/symflow.hpp>

// The numeric core, for the dilated windows no op kernel takes (the last case).
#include <symflow/backend/cpu/depthwise_conv.hpp>

#include "../test_util.hpp"
#include "conv_test_values.hpp"

namespace symflow_test_ops_depthwise_conv_test {

namespace ops_depthwise_conv_test {

using namespace symflow;
using namespace symflow::test;

using namespace symflow::test::conv_values;

// Depthwise convolution straight from its definition (TensorFlow's SAME/VALID rules):
// output channel c * multiplier + m reads input channel c through filter[:, :, c, m].
struct RefDepthwise {
  std::int64_t n, h, w, c, kh, kw, mult, sh, sw, dh, dw, oh, ow, pt, pl;
  RefDepthwise(const Dims& x, const Dims& f, std::int64_t sh_, std::int64_t sw_, std::int64_t dh_,
               std::int64_t dw_, bool same)
      : n(x[0]),
        h(x[1]),
        w(x[2]),
        c(x[3]),
        kh(f[0]),
        kw(f[1]),
        mult(f[3]),
        sh(sh_),
        sw(sw_),
        dh(dh_),
        dw(dw_) {
    reference_window(h, kh, sh, dh, same, oh, pt);
    reference_window(w, kw, sw, dw, same, ow, pl);
  }
  Dims out_dims() const { return {n, oh, ow, c * mult}; }
  // Calls f(x_index, w_index, y_index) for every multiply-add of the convolution.
  template <class F>
  void each(F&& f) const {
    for (std::int64_t b = 0; b < n; ++b)
      for (std::int64_t y = 0; y < oh; ++y)
        for (std::int64_t xo = 0; xo < ow; ++xo)
          for (std::int64_t i = 0; i < kh; ++i)
            for (std::int64_t j = 0; j < kw; ++j) {
              const std::int64_t r = y * sh - pt + i * dh, q = xo * sw - pl + j * dw;
              if (r < 0 || r >= h || q < 0 || q >= w) continue;
              for (std::int64_t ci = 0; ci < c; ++ci)
                for (std::int64_t m = 0; m < mult; ++m)
                  f(((b * h + r) * w + q) * c + ci, ((i * kw + j) * c + ci) * mult + m,
                    ((b * oh + y) * ow + xo) * c * mult + ci * mult + m);
            }
  }
};

Output sizes_of(const Dims& d) { return constant(detail::int32_vector(d)); }

}  // namespace ops_depthwise_conv_test

using namespace ops_depthwise_conv_test;

TEST_CASE("nn/depthwise_conv2d_native: node, attrs, shape and values (SAME, multiplier 2)") {
  // TF: depthwise_conv2d_native(X[1,5,5,2], W[3,3,2,2], [1,1,1,1], "SAME")
  const std::vector<double> want{
      -21, 16, -26, 7,   -6,  -6,  -4,  0,  7,   -20, 21,  -2,  -2,  21,  -20, 7,  -15,
      10,  0,  0,   27,  -34, 14,  -16, 28, 12,  27,  2,   -31, 27,  -25, 4,   -2, -2,
      0,   6,  18,  -41, 17,  -10, 0,   19, 3,   19,  -58, 32,  -46, 1,   -7,  3,  1,
      3,   22, -26, 26,  5,   -2,  19,  -9, 16,  17,  -16, 3,   -34, 32,  -58, 24, -33,
      28,  12, 27,  2,   -31, 27,  -25, 4,  -11, 13,  -2,  -2,  12,  7,   11,  16, 12,
      15,  5,  12,  -40, 13,  -34, 1,   -4, 0,   4,   12,  12,  -13, 10,  -5};
  Graph g;
  auto guard = g.as_default();
  auto x = constant(xpat({1, 5, 5, 2}));
  auto w = constant(wpat({3, 3, 2, 2}));
  auto y = nn::depthwise_conv2d_native(x, w, {1, 1, 1, 1}, "SAME");
  CHECK(y.name() == "DepthwiseConv2dNative:0");
  CHECK(y.op().type() == "DepthwiseConv2dNative");
  CHECK(input_names(y) == std::vector<std::string>{"Const:0", "Const_1:0"});
  CHECK(y.get_shape() == Shape{1, 5, 5, 4});
  CHECK(y.dtype() == DType::float32);
  // TF 1.x's attrs (TF 2.x adds explicit_paddings = [], which symflow leaves out as for Conv2D).
  CHECK(y.op().get_attr<DType>("T") == DType::float32);
  CHECK(y.op().get_attr<std::string>("data_format") == "NHWC");
  CHECK(y.op().get_attr<std::string>("padding") == "SAME");
  CHECK(y.op().get_attr<IntList>("strides").items == std::vector<std::int64_t>{1, 1, 1, 1});
  CHECK(y.op().get_attr<IntList>("dilations").items == std::vector<std::int64_t>{1, 1, 1, 1});
  CHECK(y.op().node_def().attr.size() == 5);
  CHECK(nn::depthwise_conv2d_native(x, w, {1, 1, 1, 1}, "SAME", {.name = "dw"}).name() == "dw:0");
  CHECK(nn::depthwise_conv2d_native(x, w, {1, 1, 1, 1}, "SAME").name() ==
        "DepthwiseConv2dNative_1:0");

  Session sess(g);
  Value v = sess.run(y);
  CHECK(v.dims() == Dims{1, 5, 5, 4});
  CHECK(v.to_vector<float>() == as<float>(want));

  // float64, through the typed handle overload.
  auto yd = nn::depthwise_conv2d_native(Tensor<double>(constant(xpat<double>({1, 5, 5, 2}))),
                                        Tensor<double>(constant(wpat<double>({3, 3, 2, 2}))),
                                        {1, 1, 1, 1}, "SAME");
  CHECK(yd.dtype() == DType::float64);
  CHECK(sess.run(yd).to_vector<double>() == want);
}

TEST_CASE("nn/depthwise_conv2d_native: VALID, strides 2, multipliers and odd sizes against TF") {
  struct Case {
    Dims x, w;
    std::vector<std::int64_t> strides;
    const char* padding;
    Dims out;
    std::vector<double> want;
  };
  // Every expected value comes from TF's depthwise_conv2d_native on the same patterns (float32
  // and float64 alike).
  const std::vector<Case> cases{
      // Multiplier 1, SAME.
      {{1, 4, 4, 2},
       {3, 3, 2, 1},
       {1, 1, 1, 1},
       "SAME",
       {1, 4, 4, 2},
       {-3, 1,  -2, -20, 7,  -4, 4,   15,  -7,  -21, -17, 18,  46,  -9, -27, 14,
        -8, -9, -7, -13, 12, 4,  -25, -15, -10, -1,  34,  -10, -16, 23, 5,   -10}},
      // Stride 2, VALID, multiplier 2, a 3x2 filter, a batch of 2.
      {{2, 5, 7, 3},
       {3, 2, 3, 2},
       {1, 2, 2, 1},
       "VALID",
       {2, 2, 3, 6},
       {15, 12,  22, 1,   18, 1,   10,  -19, 20,  -5, 22,  1,  -6,  -6, -4,  0,  4,   12,
        13, -40, 19, -30, 24, -21, -3,  -5,  -5,  -3, 6,   12, -30, 19, -40, 13, -34, 1,
        10, -19, 20, -5,  22, 1,   -6,  -6,  -4,  0,  4,   12, 0,   -4, -6,  -6, -3,  -21,
        -3, -5,  -5, -3,  6,  12,  -30, 19,  -40, 13, -34, 1,  -2,  21, -20, 7,  -30, 1}},
      // Stride 2, SAME, an odd total padding (more after).
      {{1, 5, 6, 3}, {3, 3, 3, 1}, {1, 2, 2, 1}, "SAME", {1, 3, 3, 3}, {-34, -1,  11, -1,  -5, 17,
                                                                        20,  4,   18, -42, 6,  31,
                                                                        19,  -27, 36, 26,  -8, 26,
                                                                        -4,  9,   32, 23,  -9, 32,
                                                                        14,  4,   6}},
      // A 1x1 filter, multiplier 3: each channel scaled three ways.
      {{1, 3, 3, 2},
       {1, 1, 2, 3},
       {1, 1, 1, 1},
       "VALID",
       {1, 3, 3, 6},
       {4,   -6,  -2, -5, -15, 10, -2, 3,  1,  3,  9,   -6,  -8, 12, 4, 0, 0,  0,
        8,   -12, -4, -3, -9,  6,  2,  -3, -1, 5,  15,  -10, -4, 6,  2, 2, 6,  -4,
        -10, 15,  5,  -1, -3,  2,  6,  -9, -3, -4, -12, 8,   0,  0,  0, 4, 12, -8}},
      // Stride 3, SAME, a 2x4 filter over a single channel, multiplier 2.
      {{1, 4, 6, 1},
       {2, 4, 1, 2},
       {1, 3, 3, 1},
       "SAME",
       {1, 2, 2, 2},
       {-1, -31, -11, -24, 8, -4, -21, 18}},
  };
  for (const Case& k : cases) {
    CAPTURE(dims_to_string(k.x));
    CAPTURE(dims_to_string(k.w));
    CAPTURE(k.padding);
    Graph g;
    auto guard = g.as_default();
    auto y =
        nn::depthwise_conv2d_native(constant(xpat(k.x)), constant(wpat(k.w)), k.strides, k.padding);
    auto yd = nn::depthwise_conv2d_native(constant(xpat<double>(k.x)), constant(wpat<double>(k.w)),
                                          k.strides, k.padding);
    CHECK(y.get_shape() == Shape(k.out));
    Session sess(g);
    Value v = sess.run(y);
    CHECK(v.dims() == k.out);
    CHECK(v.to_vector<float>() == as<float>(k.want));
    CHECK(sess.run(yd).to_vector<double>() == k.want);
  }
}

TEST_CASE("nn/depthwise_conv2d: the graph TensorFlow builds for rate 1") {
  // TF: tf.compat.v1.nn.depthwise_conv2d(x, w, [1,1,1,1], "SAME") builds, in a name scope,
  //   depthwise/Shape (Const, the filter's shape), depthwise/dilation_rate (Const [1 1]) and
  //   depthwise (DepthwiseConv2dNative, dilations [1,1,1,1]); name="dw" gives dw/Shape, ...;
  //   a second call depthwise_1/...; an unknown filter shape makes depthwise/Shape a Shape op.
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<float>(Shape{1, 5, 5, 2}, "x");
  auto w = placeholder<float>(Shape{3, 3, 2, 2}, "w");
  auto y = nn::depthwise_conv2d(x, w, {1, 1, 1, 1}, "SAME");
  CHECK(y.name() == "depthwise:0");
  CHECK(y.op().type() == "DepthwiseConv2dNative");
  CHECK(input_names(y) == std::vector<std::string>{"x:0", "w:0"});
  CHECK(y.get_shape() == Shape{1, 5, 5, 4});
  CHECK(y.op().get_attr<IntList>("dilations").items == std::vector<std::int64_t>{1, 1, 1, 1});
  CHECK(nodes(g) ==
        std::vector<std::pair<std::string, std::string>>{{"x", "Placeholder"},
                                                         {"w", "Placeholder"},
                                                         {"depthwise/Shape", "Const"},
                                                         {"depthwise/dilation_rate", "Const"},
                                                         {"depthwise", "DepthwiseConv2dNative"}});
  Session sess(g);
  CHECK(sess.run(g.get_operation_by_name("depthwise/Shape").output(0)).to_vector<std::int32_t>() ==
        std::vector<std::int32_t>{3, 3, 2, 2});
  CHECK(sess.run(g.get_operation_by_name("depthwise/dilation_rate").output(0))
            .to_vector<std::int32_t>() == std::vector<std::int32_t>{1, 1});
  CHECK(nn::depthwise_conv2d(x, w, {1, 1, 1, 1}, "SAME").name() == "depthwise_1:0");
  auto named = nn::depthwise_conv2d(x, w, {1, 1, 1, 1}, "VALID", {.rate = {1, 1}, .name = "dw"});
  CHECK(named.name() == "dw:0");
  CHECK(named.get_shape() == Shape{1, 3, 3, 4});
  CHECK(g.get_operation_by_name("dw/dilation_rate").type() == "Const");
  auto loose = nn::depthwise_conv2d(x, placeholder<float>(Shape{3, 3, -1, 2}), {1, 1, 1, 1}, "SAME",
                                    {.name = "loose"});
  CHECK(g.get_operation_by_name("loose/Shape").type() == "Shape");
  CHECK(loose.get_shape() == Shape{1, 5, 5, 4});

  // The same values as depthwise_conv2d_native.
  Value xv = xpat({1, 5, 5, 2}), wv = wpat({3, 3, 2, 2});
  auto native = nn::depthwise_conv2d_native(x, w, {1, 1, 1, 1}, "SAME");
  auto both = sess.run({y, native}, {{x, xv}, {w, wv}});
  CHECK(both[0].to_vector<float>() == both[1].to_vector<float>());
  // float64 through the typed overload.
  Tensor<double> yd = nn::depthwise_conv2d(Tensor<double>(constant(xpat<double>({1, 5, 5, 2}))),
                                           Tensor<double>(constant(wpat<double>({3, 3, 2, 2}))),
                                           {1, 1, 1, 1}, "SAME");
  CHECK(yd.dtype() == DType::float64);
  const std::vector<float> native_values = both[1].to_vector<float>();
  CHECK(sess.run(yd).to_vector<double>() ==
        std::vector<double>(native_values.begin(), native_values.end()));

  // TF: ValueError "`dilation_rate` must be positive. Received: dilation_rate=[0 1]".
  auto e = thrown<ValueError>([&] {
    nn::depthwise_conv2d(x, w, {1, 1, 1, 1}, "SAME", {.rate = {0, 1}});
  });
  REQUIRE(e);
  CHECK(std::string(e->message()) ==
        "`dilation_rate` must be positive. Received: dilation_rate=[0 1]");
  // TF: the op's padding check, after the scope's two Consts.
  auto p = thrown<ValueError>([&] { nn::depthwise_conv2d(x, w, {1, 1, 1, 1}, "FOO"); });
  REQUIRE(p);
  CHECK(std::string(p->message()) ==
        "Attr 'padding' of 'DepthwiseConv2dNative' Op passed string 'FOO' not in: \"SAME\", "
        "\"VALID\", \"EXPLICIT\".");
  // Its strides go to the op as they are: TF's shape function wants 4 values.
  auto s = thrown<ValueError>([&] { nn::depthwise_conv2d(x, w, {2, 2}, "SAME"); });
  REQUIRE(s);
  CHECK(contains(s->message(),
                 "DepthwiseConv2D requires the stride attribute to contain 4 values, but got: 2"));
}

// np.arange(60).reshape(1, 5, 6, 2) * 0.1 - 2 and np.arange(16).reshape(2, 2, 2, 2) * 0.1
// - 0.7, in float32 (the oracle's inputs for the dilated cases).
inline Value dilated_input() {
  std::vector<float> v(60);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i) * 0.1f - 2.0f;
  return Value::from_vector(v, {1, 5, 6, 2});
}
inline Value dilated_filter() {
  std::vector<float> v(16);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i) * 0.1f - 0.7f;
  return Value::from_vector(v, {2, 2, 2, 2});
}

TEST_CASE("nn/depthwise_conv2d: a rate above 1, as TensorFlow builds and computes it") {
  Graph g;
  auto guard = g.as_default();
  Output x = constant(dilated_input(), "x");
  Output w = constant(dilated_filter(), "w");
  Output same = nn::depthwise_conv2d(x, w, {1, 1, 1, 1}, "SAME", {.rate = {2, 2}});
  Output valid = nn::depthwise_conv2d(x, w, {1, 1, 1, 1}, "VALID", {.rate = {1, 2}});
  // TF: the op runs "VALID" between SpaceToBatchND and BatchToSpaceND, named after the
  // scope; a rate of 1 in one dim still takes that path (block [1, 2]).
  std::vector<std::string> built;
  for (const auto& [name, type] : nodes(g))
    if (name.starts_with("depthwise_1")) built.push_back(name + ":" + type);
  CHECK(built ==
        std::vector<std::string>{
            "depthwise_1/Shape:Const", "depthwise_1/dilation_rate:Const",
            "depthwise_1/required_space_to_batch_paddings/input_shape:Const",
            "depthwise_1/required_space_to_batch_paddings/base_paddings:Const",
            "depthwise_1/required_space_to_batch_paddings/paddings:Const",
            "depthwise_1/required_space_to_batch_paddings/crops:Const",
            "depthwise_1/SpaceToBatchND/block_shape:Const",
            "depthwise_1/SpaceToBatchND/paddings:Const",
            "depthwise_1/SpaceToBatchND:SpaceToBatchND", "depthwise_1:DepthwiseConv2dNative",
            "depthwise_1/BatchToSpaceND/block_shape:Const",
            "depthwise_1/BatchToSpaceND/crops:Const", "depthwise_1/BatchToSpaceND:BatchToSpaceND"});
  CHECK(g.get_operation_by_name("depthwise/stack").type() == "Const");
  const Operation op = g.get_operation_by_name("depthwise");
  CHECK(op.type() == "DepthwiseConv2dNative");
  CHECK(input_names(op) == std::vector<std::string>{"depthwise/SpaceToBatchND:0", "w:0"});
  CHECK(op.get_attr<std::string>("padding") == "VALID");
  CHECK(same.name() == "depthwise/BatchToSpaceND:0");
  CHECK(same.get_shape() == Shape{1, 5, 6, 4});
  CHECK(valid.get_shape() == Shape{1, 4, 4, 4});
  Session sess(g);
  auto ints = [&](const std::string& name) {
    return sess.run(g.get_operation_by_name(name).output(0)).to_vector<std::int32_t>();
  };
  using V = std::vector<std::int32_t>;
  CHECK(ints("depthwise/stack") == V{1, 1, 1, 1});
  CHECK(ints("depthwise/SpaceToBatchND/paddings") == V{1, 2, 1, 1});
  CHECK(ints("depthwise/BatchToSpaceND/crops") == V{0, 1, 0, 0});
  CHECK(ints("depthwise_1/SpaceToBatchND/block_shape") == V{1, 2});
  CHECK(ints("depthwise_1/SpaceToBatchND/paddings") == V{0, 0, 0, 0});
  // TF's values (float32).
  check_close(
      sess.run(same).to_vector<float>(),
      {-0.3f,  -0.36f, -0.35f, -0.4f,  -0.28f, -0.4f,  -0.42f, -0.52f, -0.16f, -0.24f, -0.22f,
       -0.28f, -0.04f, -0.08f, -0.02f, -0.04f, 0.08f,  0.08f,  0.18f,  0.2f,   0.0f,   0.0f,
       0.03f,  0.04f,  0.84f,  0.72f,  0.66f,  0.56f,  2.32f,  2.08f,  1.88f,  1.68f,  2.24f,
       2.08f,  1.96f,  1.84f,  2.16f,  2.08f,  2.04f,  2.0f,   2.08f,  2.08f,  2.12f,  2.16f,
       0.96f,  0.96f,  0.94f,  0.96f,  1.08f,  1.2f,   1.38f,  1.52f,  1.84f,  2.08f,  2.36f,
       2.64f,  1.76f,  2.08f,  2.44f,  2.8f,   1.68f,  2.08f,  2.52f,  2.96f,  1.6f,   2.08f,
       2.6f,   3.12f,  0.24f,  0.48f,  0.7f,   0.96f,  1.32f,  1.68f,  2.1f,   2.48f,  1.36f,
       2.08f,  2.84f,  3.6f,   1.28f,  2.08f,  2.92f,  3.76f,  1.2f,   2.08f,  3.0f,   3.92f,
       1.12f,  2.08f,  3.08f,  4.08f,  -0.48f, 0.0f,   0.46f,  0.96f,  -0.54f, -0.36f, -0.19f,
       0.0f,   -1.72f, -1.36f, -1.06f, -0.68f, -1.92f, -1.52f, -1.18f, -0.76f, -2.12f, -1.68f,
       -1.3f,  -0.84f, -2.32f, -1.84f, -1.42f, -0.92f, -1.68f, -1.44f, -1.25f, -1.0f},
      1e-5, false);
  check_close(
      sess.run(valid).to_vector<float>(),
      {1.6f,  1.12f, 0.68f, 0.24f, 1.52f, 1.12f, 0.76f, 0.4f,  1.44f,  1.12f, 0.84f, 0.56f, 1.36f,
       1.12f, 0.92f, 0.72f, 1.12f, 1.12f, 1.16f, 1.2f,  1.04f, 1.12f,  1.24f, 1.36f, 0.96f, 1.12f,
       1.32f, 1.52f, 0.88f, 1.12f, 1.4f,  1.68f, 0.64f, 1.12f, 1.64f,  2.16f, 0.56f, 1.12f, 1.72f,
       2.32f, 0.48f, 1.12f, 1.8f,  2.48f, 0.4f,  1.12f, 1.88f, 2.64f,  0.16f, 1.12f, 2.12f, 3.12f,
       0.08f, 1.12f, 2.2f,  3.28f, 0.0f,  1.12f, 2.28f, 3.44f, -0.08f, 1.12f, 2.36f, 3.6f},
      1e-5, false);

  // TF only warns about strides with a rate above 1 and passes them on: (1, 3, 4, 4).
  CHECK(nn::depthwise_conv2d(x, w, {1, 2, 2, 1}, "SAME", {.rate = {2, 2}}).get_shape() ==
        Shape{1, 3, 4, 4});
  // TF's _WithSpaceToBatch padding check (after the scope's Consts).
  auto p = thrown<ValueError>([&] {
    nn::depthwise_conv2d(x, w, {1, 1, 1, 1}, "FOO", {.rate = {2, 2}});
  });
  REQUIRE(p);
  CHECK(std::string(p->message()) ==
        "`padding` must be one of 'SAME' or 'VALID'. Received: padding=FOO");
  // Unknown spatial dims: TF computes the paddings with ops; symflow does not build that.
  CHECK(thrown<UnimplementedError>([&] {
    nn::depthwise_conv2d(placeholder<float>(Shape{1, -1, 6, 2}), w, {1, 1, 1, 1}, "SAME",
                         {.rate = {2, 2}});
  }));
}

TEST_CASE("nn/depthwise_conv2d_native: static shapes with unknown dims") {
  // TF (filter [3,3,3,2] unless said, strides 2, SAME): [?,?,7,3] -> (?, ?, 4, 6); unknown
  // input rank -> (?, ?, ?, 6); unknown filter -> (2, 4, 4, ?); [2,8,8,?] * [3,3,?,2] ->
  // (2, 4, 4, ?); [2,8,8,?] * [3,3,4,2] and [2,8,8,4] * [3,3,?,2] -> (2, 4, 4, 8);
  // [2,8,8,4] * [3,3,4,?] -> (2, 4, 4, ?); a filter of unknown rows: (2, 4, 4, 8) for SAME,
  // (2, ?, 6, 8) for VALID stride 1; dilation 2, stride 2 on 7x7 VALID -> (1, 2, 2, 3).
  Graph g;
  auto guard = g.as_default();
  auto w = placeholder<float>(Shape{3, 3, 3, 2});
  const std::vector<std::int64_t> s2{1, 2, 2, 1}, s1{1, 1, 1, 1};
  auto shape_of = [](const Output& y) { return y.get_shape().to_string(); };
  CHECK(shape_of(nn::depthwise_conv2d_native(placeholder<float>(Shape{-1, -1, 7, 3}), w, s2,
                                             "SAME")) == "(?, ?, 4, 6)");
  CHECK(shape_of(nn::depthwise_conv2d_native(placeholder<float>(), w, s2, "SAME")) ==
        "(?, ?, ?, 6)");
  CHECK(shape_of(nn::depthwise_conv2d_native(placeholder<float>(Shape{2, 8, 8, 3}),
                                             placeholder<float>(), s2, "SAME")) == "(2, 4, 4, ?)");
  CHECK(shape_of(nn::depthwise_conv2d_native(placeholder<float>(Shape{2, 8, 8, -1}),
                                             placeholder<float>(Shape{3, 3, -1, 2}), s2, "SAME")) ==
        "(2, 4, 4, ?)");
  CHECK(nn::depthwise_conv2d_native(placeholder<float>(Shape{2, 8, 8, -1}),
                                    placeholder<float>(Shape{3, 3, 4, 2}), s2, "SAME")
            .get_shape() == Shape{2, 4, 4, 8});
  CHECK(nn::depthwise_conv2d_native(placeholder<float>(Shape{2, 8, 8, 4}),
                                    placeholder<float>(Shape{3, 3, -1, 2}), s2, "SAME")
            .get_shape() == Shape{2, 4, 4, 8});
  CHECK(shape_of(nn::depthwise_conv2d_native(placeholder<float>(Shape{2, 8, 8, 4}),
                                             placeholder<float>(Shape{3, 3, 4, -1}), s2, "SAME")) ==
        "(2, 4, 4, ?)");
  CHECK(nn::depthwise_conv2d_native(placeholder<float>(Shape{2, 8, 8, 4}),
                                    placeholder<float>(Shape{-1, 3, 4, 2}), s2, "SAME")
            .get_shape() == Shape{2, 4, 4, 8});
  CHECK(shape_of(nn::depthwise_conv2d_native(placeholder<float>(Shape{2, 8, 8, 4}),
                                             placeholder<float>(Shape{-1, 3, 4, 2}), s1,
                                             "VALID")) == "(2, ?, 6, 8)");
  CHECK(nn::depthwise_conv2d_native(placeholder<float>(Shape{1, 7, 7, 3}),
                                    placeholder<float>(Shape{3, 3, 3, 1}), s2, "VALID",
                                    {.dilations = {1, 2, 2, 1}})
            .get_shape() == Shape{1, 2, 2, 3});
  // TF accepts unequal and batch strides here; its kernels refuse them (next cases).
  CHECK(nn::depthwise_conv2d_native(placeholder<float>(Shape{1, 5, 5, 3}), w, {1, 1, 2, 1}, "SAME")
            .get_shape() == Shape{1, 5, 3, 6});
}

TEST_CASE("nn/depthwise_conv2d_native: build-time errors") {
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<float>(Shape{1, 5, 5, 3});
  auto w = placeholder<float>(Shape{3, 3, 3, 1});
  const std::vector<std::int64_t> s1{1, 1, 1, 1};
  auto value_error = [](auto f) {
    auto e = thrown<ValueError>(f);
    REQUIRE(e);
    return std::string(e->message());
  };
  // TF: "Shape must be rank 4 but is rank 3 for '{{node DepthwiseConv2dNative}} = ...' with
  // input shapes: [1,5,5], [3,3,3,1]."
  std::string m = value_error([&] {
    nn::depthwise_conv2d_native(placeholder<float>(Shape{1, 5, 5}), w, s1, "SAME");
  });
  CHECK(contains(m,
                 "Shape must be rank 4 but is rank 3 for 'DepthwiseConv2dNative' (op: "
                 "'DepthwiseConv2dNative')"));
  CHECK(contains(m, "with input shapes: [1,5,5], [3,3,3,1]."));
  m = value_error([&] {
    nn::depthwise_conv2d_native(x, placeholder<float>(Shape{3, 3, 3}), s1, "SAME");
  });
  CHECK(contains(m, "Shape must be rank 4 but is rank 3"));
  // TF: "Dimensions must be equal, but are 3 and 2" (input channels vs the filter's).
  m = value_error([&] {
    nn::depthwise_conv2d_native(x, placeholder<float>(Shape{3, 3, 2, 1}), s1, "SAME");
  });
  CHECK(contains(m, "Dimensions must be equal, but are 3 and 2"));
  CHECK(contains(m, "with input shapes: [1,5,5,3], [3,3,2,1]."));
  // TF 1.x: Attr 'padding' ... not in: "SAME", "VALID". (TF 2.x adds "EXPLICIT", with
  // explicit_paddings, which symflow leaves out as for Conv2D.) The name is used up.
  {
    Graph h;
    auto hg = h.as_default();
    auto hx = placeholder<float>(Shape{1, 5, 5, 3});
    auto hw = placeholder<float>(Shape{3, 3, 3, 1});
    m = value_error([&] { nn::depthwise_conv2d_native(hx, hw, s1, "FOO"); });
    CHECK(m ==
          "Attr 'padding' of 'DepthwiseConv2dNative' Op passed string 'FOO' not in: \"SAME\", "
          "\"VALID\", \"EXPLICIT\".");
    CHECK(nn::depthwise_conv2d_native(hx, hw, s1, "SAME").name() == "DepthwiseConv2dNative_1:0");
  }
  // TF: "DepthwiseConv2D requires the stride attribute to contain 4 values, but got: 3",
  // the same for dilations; "Stride must be > 0, but got 0"; "Dilation rate must be >= 1".
  m = value_error([&] { nn::depthwise_conv2d_native(x, w, {1, 1, 1}, "SAME"); });
  CHECK(
      contains(m, "DepthwiseConv2D requires the stride attribute to contain 4 values, but got: 3"));
  m = value_error([&] { nn::depthwise_conv2d_native(x, w, s1, "SAME", {.dilations = {1, 1, 1}}); });
  CHECK(contains(
      m, "DepthwiseConv2D requires the dilations attribute to contain 4 values, but got: 3"));
  m = value_error([&] { nn::depthwise_conv2d_native(x, w, {1, 0, 1, 1}, "SAME"); });
  CHECK(contains(m, "Stride must be > 0, but got 0"));
  m = value_error([&] {
    nn::depthwise_conv2d_native(x, w, s1, "SAME", {.dilations = {1, 0, 1, 1}});
  });
  CHECK(contains(m, "Dilation rate must be >= 1, but got 0"));
  // TF: "Negative dimension size caused by subtracting 3 from 2", and with dilation 4:
  // "subtracting 9 from 7".
  m = value_error([&] {
    nn::depthwise_conv2d_native(placeholder<float>(Shape{1, 2, 2, 3}), w, s1, "VALID");
  });
  CHECK(contains(m, "Negative dimension size caused by subtracting 3 from 2"));
  m = value_error([&] {
    nn::depthwise_conv2d_native(placeholder<float>(Shape{1, 7, 7, 3}), w, s1, "VALID",
                                {.dilations = {1, 4, 1, 1}});
  });
  CHECK(contains(m, "Negative dimension size caused by subtracting 9 from 7"));
  // NCHW: the depth is dim 1 (TF: (1, 3, 5, 5); tests/ops/conv_depthwise_nchw_test.cpp has
  // the values).
  CHECK(nn::depthwise_conv2d_native(placeholder<float>(Shape{1, 3, 5, 5}), w, s1, "SAME",
                                    {.data_format = "NCHW"})
            .get_shape() == Shape{1, 3, 5, 5});
  // TF: TypeError "Input 'filter' of 'DepthwiseConv2dNative' Op has type float64 that does
  // not match type float32 of argument 'input'."; int32 is not an allowed T.
  auto t = thrown<TypeError>([&] {
    nn::depthwise_conv2d_native(x, placeholder<double>(Shape{3, 3, 3, 1}), s1, "SAME");
  });
  REQUIRE(t);
  CHECK(contains(t->message(),
                 "Input 'filter' of 'DepthwiseConv2dNative' Op has type float64 that does not "
                 "match type float32 of argument 'input'."));
  t = thrown<TypeError>([&] {
    nn::depthwise_conv2d_native(placeholder<std::int32_t>(Shape{1, 5, 5, 3}),
                                placeholder<std::int32_t>(Shape{3, 3, 3, 1}), s1, "SAME");
  });
  REQUIRE(t);
  CHECK(contains(t->message(),
                 "Value passed to parameter 'input' has DataType int32 not in list of allowed "
                 "values: float32, float64"));
}

TEST_CASE("nn/depthwise_conv2d_native: run-time errors, as TensorFlow's kernels") {
  Graph g;
  auto guard = g.as_default();
  auto x = constant(Value::filled<float>({1, 7, 7, 3}, 1.0f));
  auto w = constant(Value::filled<float>({3, 3, 3, 2}, 1.0f));
  const std::vector<std::int64_t> s1{1, 1, 1, 1};
  Session sess(g);
  // TF's CPU kernel: Unimplemented "Current kernel implementation does not support
  // dilations, received [1 2 2 1]" (the shape function accepts them).
  auto d = nn::depthwise_conv2d_native(x, w, s1, "VALID", {.dilations = {1, 2, 2, 1}});
  CHECK(d.get_shape() == Shape{1, 3, 3, 6});
  auto u = thrown<UnimplementedError>([&] { sess.run(d); });
  REQUIRE(u);
  CHECK(u->message() ==
        "Current kernel implementation does not support dilations, received [1 2 2 1]");
  CHECK(u->node_name() == d.op().name());
  // InvalidArgument "Current implementation does not yet support strides in the batch and
  // depth dimensions." / "... only supports equal length strides in the row and column
  // dimensions."
  auto batch_stride = nn::depthwise_conv2d_native(x, w, {2, 1, 1, 1}, "SAME");
  auto e = thrown<InvalidArgumentError>([&] { sess.run(batch_stride); });
  REQUIRE(e);
  CHECK(contains(e->message(), "does not yet support strides in the batch and depth dimensions"));
  auto uneven = nn::depthwise_conv2d_native(x, w, {1, 1, 2, 1}, "SAME");
  e = thrown<InvalidArgumentError>([&] { sess.run(uneven); });
  REQUIRE(e);
  CHECK(contains(e->message(),
                 "only supports equal length strides in the row and column dimensions"));
  // A placeholder of unknown shape fed the wrong depth or rank: TF's "input and filter must
  // have the same depth: 2 vs 3", "input must be 4-dimensional[7,7,3]".
  auto p = placeholder<float>();
  auto c = nn::depthwise_conv2d_native(p, w, s1, "SAME");
  e = thrown<InvalidArgumentError>([&] {
    sess.run(c, {{p, Value::filled<float>({1, 4, 4, 2}, 1.0f)}});
  });
  REQUIRE(e);
  CHECK(e->message() == "input and filter must have the same depth: 2 vs 3");
  e = thrown<InvalidArgumentError>([&] {
    sess.run(c, {{p, Value::filled<float>({7, 7, 3}, 1.0f)}});
  });
  REQUIRE(e);
  CHECK(e->message() == "input must be 4-dimensional[7,7,3]");
  // Empty batches and channels are fine (TF: (0, 5, 5, 6) and (1, 5, 5, 0)).
  CHECK(sess.run(c, {{p, Value(DType::float32, {0, 5, 5, 3})}}).dims() == Dims{0, 5, 5, 6});
  auto none =
      nn::depthwise_conv2d_native(constant(Value(DType::float32, {1, 5, 5, 0})),
                                  constant(Value(DType::float32, {3, 3, 0, 2})), s1, "SAME");
  CHECK(sess.run(none).dims() == Dims{1, 5, 5, 0});
}

TEST_CASE("nn/depthwise_conv2d_native_backprop_input and _filter: values against TF") {
  struct Case {
    Dims x, w, dy;
    std::vector<std::int64_t> strides;
    const char* padding;
    std::vector<double> input_grad;   // backprop_input(x dims, W(w), X(dy))
    std::vector<double> filter_grad;  // backprop_filter(X(x), w dims, W(dy))
  };
  const std::vector<Case> cases{
      {{1, 4, 4, 2},
       {3, 3, 2, 2},
       {1, 4, 4, 4},
       {1, 1, 1, 1},
       "SAME",
       {9,   3,   -4, 2,  9,   -10, 32, 27,  17,  6,  39, 12, -38, -22, 9,  7,
        -40, -27, 17, 19, -38, -4,  11, -25, -17, 12, 22, -9, 9,   15,  10, -16},
       {6,   6,  6,   13, 31, -49, -45, 15,  17,  15, 12, 1,  9,  14, -21, 0,  9,  -50,
        -10, 25, -43, 6,  0,  7,   33,  -19, -18, 28, 14, 16, 13, 9,  -49, 30, 20, -36}},
      {{2, 5, 5, 3},
       {2, 2, 3, 1},
       {2, 2, 2, 3},
       {1, 2, 2, 1},
       "VALID",
       {4,  15, 1,  2,   -15, 2,  6,  12, 0,   3,  -12, 0,  0,  0,  0,  0,   -10, 3,   -2,
        -5, -3, 0,  -8,  0,   -3, -4, 0,  0,   0,  0,   8,  9,  -1, 4,  -9,  -2,  10,  6,
        -2, 5,  -6, -4,  0,   0,  0,  0,  -6,  -3, -4,  -3, 3,  0,  -4, -6,  -5,  -2,  6,
        0,  0,  0,  0,   0,   0,  0,  0,  0,   0,  0,   0,  0,  0,  0,  0,   0,   0,   -10,
        3,  -3, -5, -3,  -6,  -8, 0,  -4, -4,  0,  -8,  0,  0,  0,  0,  -2,  -9,  5,   -1,
        9,  0,  0,  -12, 4,   0,  12, 0,  0,   0,  -6,  -3, -5, -3, 3,  -10, -4,  -6,  5,
        -2, 6,  10, 0,   0,   0,  0,  2,  -15, 3,  1,   15, 0,  4,  15, 2,   2,   -15, 0,
        0,  0,  0,  0,   0,   0,  0,  0,  0,   0,  0,   0,  0,  0,  0,  0,   0},
       {9, 21, 10, 33, -4, 9, -14, -16, 5, -12, -8, -29}},
      {{1, 5, 4, 2},
       {3, 3, 2, 3},
       {1, 3, 2, 6},
       {1, 2, 2, 1},
       "SAME",
       {16, 18, -11, -8, 8,  8, -7, -10, -12, 5,   9, 7, -13, 42, 3,  -16, -13, -12, -14, -12,
        2,  11, -10, 19, 12, 6, 8,  -17, -15, -12, 2, 4, -9,  -9, 16, 17,  -15, 14,  20,  -7},
       {-22, 11,  16, -11, 4,  -9, 8, -17, 7,   -24, 10,  16,  14,  12, -18, 3, -5, 8,
        14,  -27, 23, -13, -9, 2,  5, -8,  -7,  -15, 18,  2,   -15, 21, 8,   6, -6, 10,
        16,  -21, 12, -9,  20, -7, 7, 10,  -15, 16,  -13, -21, -18, 15, 13,  8, 0,  -1}},
  };
  for (const Case& k : cases) {
    CAPTURE(dims_to_string(k.x));
    Graph g;
    auto guard = g.as_default();
    auto di = nn::depthwise_conv2d_native_backprop_input(
        sizes_of(k.x), constant(wpat(k.w)), constant(xpat(k.dy)), k.strides, k.padding);
    auto df = nn::depthwise_conv2d_native_backprop_filter(
        constant(xpat(k.x)), sizes_of(k.w), constant(wpat(k.dy)), k.strides, k.padding);
    auto did = nn::depthwise_conv2d_native_backprop_input(
        sizes_of(k.x), constant(wpat<double>(k.w)), constant(xpat<double>(k.dy)), k.strides,
        k.padding);
    auto dfd = nn::depthwise_conv2d_native_backprop_filter(
        constant(xpat<double>(k.x)), sizes_of(k.w), constant(wpat<double>(k.dy)), k.strides,
        k.padding);
    CHECK(di.op().type() == "DepthwiseConv2dNativeBackpropInput");
    CHECK(df.op().type() == "DepthwiseConv2dNativeBackpropFilter");
    // Constant sizes give the full static shape.
    CHECK(di.get_shape() == Shape(k.x));
    CHECK(df.get_shape() == Shape(k.w));
    Session sess(g);
    CHECK(sess.run(di).to_vector<float>() == as<float>(k.input_grad));
    CHECK(sess.run(df).to_vector<float>() == as<float>(k.filter_grad));
    CHECK(sess.run(did).to_vector<double>() == k.input_grad);
    CHECK(sess.run(dfd).to_vector<double>() == k.filter_grad);
  }
}

TEST_CASE("nn/depthwise_conv2d_native_backprop_input and _filter: shapes and errors") {
  Graph g;
  auto guard = g.as_default();
  auto w = placeholder<float>(Shape{3, 3, 3, 2});
  auto dy = placeholder<float>(Shape{1, 5, 5, 6});
  const std::vector<std::int64_t> s1{1, 1, 1, 1};
  auto di = nn::depthwise_conv2d_native_backprop_input(sizes_of({1, 5, 5, 3}), w, dy, s1, "SAME");
  CHECK(di.name() == "DepthwiseConv2dNativeBackpropInput:0");
  CHECK(di.get_shape() == Shape{1, 5, 5, 3});
  CHECK(di.op().get_attr<std::string>("padding") == "SAME");
  CHECK(di.op().get_attr<IntList>("dilations").items == s1);
  // TF: sizes known only at run time give (?, ?, ?, ?): unlike Conv2D's backprops, nothing
  // comes from the other inputs.
  auto sizes = placeholder<std::int32_t>(Shape{4});
  CHECK(nn::depthwise_conv2d_native_backprop_input(sizes, w, dy, s1, "SAME")
            .get_shape()
            .to_string() == "(?, ?, ?, ?)");
  CHECK(nn::depthwise_conv2d_native_backprop_filter(placeholder<float>(Shape{1, 5, 5, 3}), sizes,
                                                    dy, s1, "SAME")
            .get_shape()
            .to_string() == "(?, ?, ?, ?)");
  CHECK(nn::depthwise_conv2d_native_backprop_filter(placeholder<float>(), sizes_of({3, 3, 3, 2}),
                                                    placeholder<float>(), s1, "SAME")
            .get_shape() == Shape{3, 3, 3, 2});
  // TF: "Shape must be rank 1 but is rank 2" for [[1,5,5,3]], "Shape must be rank 4 but is
  // rank 3" for 3 sizes; TypeErrors for mixed T and for int64 sizes.
  auto e = thrown<ValueError>([&] {
    nn::depthwise_conv2d_native_backprop_input(constant<std::int32_t>({{1, 5, 5, 3}}), w, dy, s1,
                                               "SAME");
  });
  REQUIRE(e);
  CHECK(contains(e->message(), "Shape must be rank 1 but is rank 2"));
  e = thrown<ValueError>([&] {
    nn::depthwise_conv2d_native_backprop_filter(placeholder<float>(Shape{1, 5, 5, 3}),
                                                constant<std::int32_t>({3, 3, 3}), dy, s1, "SAME");
  });
  REQUIRE(e);
  CHECK(contains(e->message(), "Shape must be rank 4 but is rank 3 for "));
  CHECK(contains(e->message(),
                 "(op: 'DepthwiseConv2dNativeBackpropFilter') with input shapes: "
                 "[1,5,5,3], [3], [1,5,5,6]."));
  auto t = thrown<TypeError>([&] {
    nn::depthwise_conv2d_native_backprop_input(sizes, w, placeholder<double>(Shape{1, 5, 5, 6}), s1,
                                               "SAME");
  });
  REQUIRE(t);
  CHECK(contains(t->message(),
                 "Input 'out_backprop' of 'DepthwiseConv2dNativeBackpropInput' Op has type "
                 "float64 that does not match type float32 of argument 'filter'."));
  t = thrown<TypeError>([&] {
    nn::depthwise_conv2d_native_backprop_input(constant<std::int64_t>({1, 5, 5, 3}), w, dy, s1,
                                               "SAME");
  });
  REQUIRE(t);
  CHECK(contains(t->message(),
                 "Input 'input_sizes' of 'DepthwiseConv2dNativeBackpropInput' Op has type int64 "
                 "that does not match expected type of int32."));

  // Run time, TF's kernels' messages.
  Session sess(g);
  auto filled = [](const Dims& d) { return constant(Value::filled<float>(d, 1.0f)); };
  auto run_input_error = [&](const Dims& in, const Dims& f, const Dims& out,
                             std::vector<std::int64_t> strides = {1, 1, 1, 1}) {
    auto op = nn::depthwise_conv2d_native_backprop_input(sizes_of(in), filled(f), filled(out),
                                                         strides, "SAME");
    auto k = thrown<InvalidArgumentError>([&] { sess.run(op); });
    REQUIRE(k);
    CHECK(k->node_name() == op.op().name());
    return std::string(k->message());
  };
  auto run_filter_error = [&](const Dims& in, const Dims& f, const Dims& out) {
    auto op = nn::depthwise_conv2d_native_backprop_filter(filled(in), sizes_of(f), filled(out), s1,
                                                          "SAME");
    auto k = thrown<InvalidArgumentError>([&] { sess.run(op); });
    REQUIRE(k);
    return std::string(k->message());
  };
  CHECK(run_input_error({1, 5, 5, 3}, {3, 3, 3, 2}, {1, 4, 5, 6}) ==
        "DepthwiseConv2DBackpropInput: Number of rows of out_backprop doesn't match computed: "
        "actual = 4, computed = 5");
  CHECK(run_input_error({1, 5, 5, 3}, {3, 3, 3, 2}, {1, 5, 5, 5}) ==
        "DepthwiseConv2DBackpropInput: depth_multiplier * in_depth not equal to out_depth");
  CHECK(run_input_error({1, 5, 5, 4}, {3, 3, 3, 2}, {1, 5, 5, 6}) ==
        "DepthwiseConv2DBackpropInput: input and filter must have the same in_depth");
  CHECK(run_input_error({1, 5, 5, 3}, {3, 3, 3, 2}, {2, 5, 5, 6}) ==
        "DepthwiseConv2DBackpropInput: input and out_backprop must have the same batch size");
  CHECK(run_input_error({1, 5, 5, 3}, {3, 3, 3}, {1, 5, 5, 6}) ==
        "DepthwiseConv2DBackpropInput: filter must be 4-dimensional");
  CHECK(run_input_error({1, 5, 5, 3}, {3, 3, 3, 2}, {1, 5, 3, 6}, {1, 1, 2, 1}) ==
        "Current implementation only supports equal length strides in the row and column "
        "dimensions.");
  CHECK(run_filter_error({1, 5, 5, 3}, {3, 3, 3, 2}, {1, 5, 4, 6}) ==
        "DepthwiseConv2DBackpropFilter: Number of cols of out_backprop doesn't match computed: "
        "actual = 4, computed = 5");
  CHECK(run_filter_error({1, 5, 5, 3}, {3, 3, 2, 2}, {1, 5, 5, 6}) ==
        "DepthwiseConv2DBackpropFilter: input and filter must have the same in_depth");
  CHECK(run_filter_error({1, 5, 5}, {3, 3, 3, 2}, {1, 5, 5, 6}) ==
        "DepthwiseConv2DBackpropFilter: input must be 4-dimensional");
  // Sizes fed at run time: TF's "input must be 4-dimensional" for 3 of them, "Dimension 1 of
  // input_sizes must be >= 0" for a negative one.
  auto any_sizes = placeholder<std::int32_t>();
  auto fed = nn::depthwise_conv2d_native_backprop_input(any_sizes, filled({3, 3, 3, 2}),
                                                        filled({1, 5, 5, 6}), s1, "SAME");
  auto k = thrown<InvalidArgumentError>([&] {
    sess.run(fed, {{any_sizes, Value::from_vector(std::vector<std::int32_t>{1, 5, 5}, {3})}});
  });
  REQUIRE(k);
  CHECK(k->message() == "DepthwiseConv2DBackpropInput: input must be 4-dimensional");
  k = thrown<InvalidArgumentError>([&] {
    sess.run(fed, {{any_sizes, Value::from_vector(std::vector<std::int32_t>{1, -5, 5, 3}, {4})}});
  });
  REQUIRE(k);
  CHECK(k->message() == "Dimension 1 of input_sizes must be >= 0");
  CHECK(sess.run(fed, {{any_sizes, Value::from_vector(std::vector<std::int32_t>{1, 5, 5, 3}, {4})}})
            .dims() == Dims{1, 5, 5, 3});
  // Dilations: TF's backprop kernels ignore them (and compute the undilated gradient);
  // symflow refuses them as its forward kernel does.
  auto dilated = nn::depthwise_conv2d_native_backprop_filter(
      filled({1, 7, 7, 3}), sizes_of({3, 3, 3, 2}), filled({1, 3, 3, 6}), s1, "VALID",
      {.dilations = {1, 2, 2, 1}});
  auto u = thrown<UnimplementedError>([&] { sess.run(dilated); });
  REQUIRE(u);
  CHECK(contains(u->message(), "does not support dilations, received [1 2 2 1]"));
}

TEST_CASE("nn/depthwise_conv2d_native and its backprops: larger shapes match a direct loop") {
  struct Case {
    Dims x, w;
    std::int64_t stride;
    bool same;
  };
  // Several channel blocks and their tails (40 channels: a 32-float block and 8 more), both
  // threads, strides, multipliers, a filter larger than the input.
  const std::vector<Case> cases{
      {{2, 9, 9, 8}, {3, 3, 8, 1}, 1, true},    {{2, 9, 9, 8}, {3, 3, 8, 1}, 2, false},
      {{3, 11, 10, 5}, {3, 3, 5, 2}, 2, false}, {{2, 17, 17, 40}, {3, 3, 40, 1}, 2, true},
      {{1, 8, 8, 3}, {5, 5, 3, 3}, 1, true},    {{4, 28, 28, 64}, {3, 3, 64, 1}, 1, true},
      {{1, 6, 6, 16}, {7, 7, 16, 1}, 1, true},  {{2, 12, 12, 33}, {3, 3, 33, 2}, 1, true},
  };
  unsigned seed = 1;
  for (const Case& k : cases) {
    CAPTURE(dims_to_string(k.x));
    CAPTURE(dims_to_string(k.w));
    CAPTURE(k.stride);
    const RefDepthwise ref(k.x, k.w, k.stride, k.stride, 1, 1, k.same);
    const Dims ydims = ref.out_dims();
    Value xd = random_value<double>(k.x, seed++), wd = random_value<double>(k.w, seed++);
    Value dyd = random_value<double>(ydims, seed++);
    std::vector<double> want_y(static_cast<std::size_t>(num_elements(ydims)), 0.0);
    std::vector<double> want_dx(static_cast<std::size_t>(xd.size()), 0.0);
    std::vector<double> want_dw(static_cast<std::size_t>(wd.size()), 0.0);
    const double* xp = xd.data<double>();
    const double* wp = wd.data<double>();
    const double* dyp = dyd.data<double>();
    ref.each([&](std::int64_t xi, std::int64_t wi, std::int64_t yi) {
      want_y[static_cast<std::size_t>(yi)] += xp[xi] * wp[wi];
      want_dx[static_cast<std::size_t>(xi)] += wp[wi] * dyp[yi];
      want_dw[static_cast<std::size_t>(wi)] += xp[xi] * dyp[yi];
    });
    Graph g;
    auto guard = g.as_default();
    const std::vector<std::int64_t> strides{1, k.stride, k.stride, 1};
    const char* padding = k.same ? "SAME" : "VALID";
    auto y = nn::depthwise_conv2d_native(constant(xd), constant(wd), strides, padding);
    auto yf = nn::depthwise_conv2d_native(cast(constant(xd), DType::float32),
                                          cast(constant(wd), DType::float32), strides, padding);
    auto dx = nn::depthwise_conv2d_native_backprop_input(sizes_of(k.x), constant(wd), constant(dyd),
                                                         strides, padding);
    auto dw = nn::depthwise_conv2d_native_backprop_filter(constant(xd), sizes_of(k.w),
                                                          constant(dyd), strides, padding);
    auto dwf = nn::depthwise_conv2d_native_backprop_filter(
        cast(constant(xd), DType::float32), sizes_of(k.w), cast(constant(dyd), DType::float32),
        strides, padding);
    CHECK(y.get_shape() == Shape(ydims));
    Session sess(g);
    check_close(sess.run(y).to_vector<double>(), want_y, 1e-9, false);
    check_close(sess.run(yf).to_vector<float>(), as<float>(want_y), 1e-4, false);
    check_close(sess.run(dx).to_vector<double>(), want_dx, 1e-9, false);
    check_close(sess.run(dw).to_vector<double>(), want_dw, 1e-9, false);
    check_close(sess.run(dwf).to_vector<float>(), as<float>(want_dw), 1e-3, false);
  }
}

TEST_CASE("nn/depthwise_conv2d_native and its backprops: the same bits with 1 and 3 threads") {
  // Large enough to be split over threads (and, for the filter gradient, into 16 groups).
  const Dims xdims{8, 24, 24, 48}, wdims{3, 3, 48, 1};
  Value x = random_value<float>(xdims, 7), w = random_value<float>(wdims, 8);
  Value dy = random_value<float>({8, 12, 12, 48}, 9);
  Graph g;
  auto guard = g.as_default();
  const std::vector<std::int64_t> s2{1, 2, 2, 1};
  auto y = nn::depthwise_conv2d_native(constant(x), constant(w), s2, "SAME");
  auto dx = nn::depthwise_conv2d_native_backprop_input(sizes_of(xdims), constant(w), constant(dy),
                                                       s2, "SAME");
  auto dw = nn::depthwise_conv2d_native_backprop_filter(constant(x), sizes_of(wdims), constant(dy),
                                                        s2, "SAME");
  Session one(g, ConfigProto{.intra_op_parallelism_threads = 1});
  Session three(g, ConfigProto{.intra_op_parallelism_threads = 3});
  const std::vector<Value> a = one.run({y, dx, dw});
  const std::vector<Value> b = three.run({y, dx, dw});
  for (std::size_t i = 0; i < a.size(); ++i) {
    CAPTURE(i);
    CHECK(a[i].to_vector<float>() == b[i].to_vector<float>());
  }
}

TEST_CASE("cpu depthwise core: dilations, which the ops' kernels refuse as TensorFlow's do") {
  // The numeric core takes dilated windows (the Thrust kernels too); only the kernels' attr
  // checks keep them out, so this calls it directly, against the direct loop.
  const Dims xdims{2, 9, 8, 3}, wdims{3, 2, 3, 2};
  for (bool same : {true, false}) {
    CAPTURE(same);
    const RefDepthwise ref(xdims, wdims, 1, 2, 2, 3, same);
    Value x = random_value<double>(xdims, 21), w = random_value<double>(wdims, 22);
    Value dy = random_value<double>(ref.out_dims(), 23);
    std::vector<double> want_y(static_cast<std::size_t>(num_elements(ref.out_dims())), 0.0);
    std::vector<double> want_dx(static_cast<std::size_t>(x.size()), 0.0);
    std::vector<double> want_dw(static_cast<std::size_t>(w.size()), 0.0);
    ref.each([&](std::int64_t xi, std::int64_t wi, std::int64_t yi) {
      want_y[static_cast<std::size_t>(yi)] += x.data<double>()[xi] * w.data<double>()[wi];
      want_dx[static_cast<std::size_t>(xi)] += w.data<double>()[wi] * dy.data<double>()[yi];
      want_dw[static_cast<std::size_t>(wi)] += x.data<double>()[xi] * dy.data<double>()[yi];
    });
    const std::int64_t in4[4] = {xdims[0], xdims[1], xdims[2], xdims[3]};
    const std::int64_t f4[4] = {wdims[0], wdims[1], wdims[2], wdims[3]};
    const cpu::DepthwiseConv2DGeometry geo = cpu::depthwise_conv2d_geometry(
        in4, f4, 1, 2, 2, 3, same ? cpu::Padding::same : cpu::Padding::valid);
    REQUIRE(Dims{geo.batch, geo.out_rows, geo.out_cols, geo.out_depth()} == ref.out_dims());
    std::vector<double> y(want_y.size()), dx(want_dx.size()), dw(want_dw.size());
    cpu::depthwise_conv2d_forward<double>(geo, x.data<double>(), w.data<double>(), y.data());
    cpu::depthwise_conv2d_backprop_input<double>(geo, w.data<double>(), dy.data<double>(),
                                                 dx.data());
    cpu::depthwise_conv2d_backprop_filter<double>(geo, x.data<double>(), dy.data<double>(),
                                                  dw.data());
    check_close(y, want_y, 1e-12, false);
    check_close(dx, want_dx, 1e-12, false);
    check_close(dw, want_dw, 1e-12, false);
  }
}

}  // namespace symflow_test_ops_depthwise_conv_test
