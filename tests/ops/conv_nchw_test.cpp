// The ops that take data_format "NCHW" (Conv2D and its backprops, MaxPool, AvgPool, their
// gradient ops, BiasAdd and BiasAddGrad), checked against TensorFlow 2.21's tf.compat.v1
// graph mode: values, attrs, the gradient graph and messages; and a GraphDef TensorFlow
// wrote with NCHW and explicit padding (tests/data/conv_explicit_nchw/make.py), imported
// and run.
//
// Inputs are integer patterns (conv_test_values.hpp), so the sums are exact:
//   X(i) = ((7 i + 3) mod 11) - 5   (inputs)
//   W(i) = ((5 i + 1) mod 7) - 3    (filters)
//   G(i) = ((3 i + 2) mod 5) - 2    (the gradient fed back, grad_ys)

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include <symflow/symflow.hpp>
#include <symflow/train/gradients.hpp>

#include "../test_util.hpp"
#include "conv_test_values.hpp"

namespace symflow_test_ops_conv_nchw_test {

namespace ops_conv_nchw_test {

using namespace symflow;
using namespace symflow::test;
using namespace symflow::test::conv_values;

}  // namespace ops_conv_nchw_test

using namespace ops_conv_nchw_test;

TEST_CASE("nn/conv nchw: conv2d, bias_add, max_pool, avg_pool and their gradients") {
  // TF: x = X[2,3,4,5], w = W[3,2,3,2], b = [0.5, -1.5];
  //   c = tf.nn.conv2d(x, w, [1,1,2,1], "SAME", data_format="NCHW")
  //   ba = tf.nn.bias_add(c, b, data_format="NCHW")
  //   m = tf.nn.max_pool(ba, [1,1,2,2], [1,1,1,2], "SAME", data_format="NCHW")
  //   a = tf.nn.avg_pool(m, [1,1,2,3], [1,1,1,1], "SAME", data_format="NCHW")
  //   tf.gradients(a, [x, w, b], grad_ys=G[2,2,2,3])
  Graph g;
  auto guard = g.as_default();
  auto x = constant(xpat({2, 3, 4, 5}));
  auto w = constant(wpat({3, 2, 3, 2}));
  auto b = constant(Value::from_vector(std::vector<float>{0.5f, -1.5f}, {2}));
  auto c = nn::conv2d(x, w, {1, 1, 2, 1}, "SAME", {.data_format = "NCHW"});
  auto ba = nn::bias_add(c, b, {.data_format = "NCHW"});
  auto m = nn::max_pool(ba, {1, 1, 2, 2}, {1, 1, 1, 2}, "SAME", {.data_format = "NCHW"});
  auto a = nn::avg_pool(m, {1, 1, 2, 3}, {1, 1, 1, 1}, "SAME", {.data_format = "NCHW"});
  CHECK(c.get_shape() == Shape{2, 2, 2, 5});
  CHECK(ba.get_shape() == Shape{2, 2, 2, 5});
  CHECK(m.get_shape() == Shape{2, 2, 2, 3});
  CHECK(a.get_shape() == Shape{2, 2, 2, 3});
  for (const Output& t : {c, ba, m, a})
    CHECK(t.op().get_attr<std::string>("data_format") == "NCHW");
  CHECK(ints(c, "strides") == std::vector<std::int64_t>{1, 1, 2, 1});

  auto grads = gradients({a}, {x, w, b}, {constant(gpat({2, 2, 2, 3}))});
  REQUIRE(grads.size() == 3);
  CHECK(grads[0].name() == "gradients/Conv2D_grad/Conv2DBackpropInput:0");
  CHECK(grads[1].name() == "gradients/Conv2D_grad/Conv2DBackpropFilter:0");
  CHECK(grads[2].name() == "gradients/BiasAdd_grad/BiasAddGrad:0");
  for (const Output& d : grads) CHECK(d.op().get_attr<std::string>("data_format") == "NCHW");
  CHECK(g.get_operation_by_name("gradients/AvgPool_grad/AvgPoolGrad")
            .get_attr<std::string>("data_format") == "NCHW");
  CHECK(g.get_operation_by_name("gradients/MaxPool_grad/MaxPoolGrad")
            .get_attr<std::string>("data_format") == "NCHW");

  Session sess(g);
  const auto v = sess.run({c, ba, m, a, grads[0], grads[1], grads[2]});
  CHECK(v[0].to_vector<float>() ==
        std::vector<float>{40,  -54, 50,  22, -8, 8,   23, -39, 42,  15,  -61, 52,  0,  -52,
                           31,  5,   -29, 36, 13, -26, 21, -29, -13, 25,  -16, -49, 10, 3,
                           -26, -13, -2,  1,  15, -26, 10, 0,   32,  -24, -3,  8});
  CHECK(v[1].to_vector<float>() ==
        std::vector<float>{40.5,  -53.5, 50.5,  22.5,  -7.5,  8.5,   23.5,  -38.5, 42.5,  15.5,
                           -62.5, 50.5,  -1.5,  -53.5, 29.5,  3.5,   -30.5, 34.5,  11.5,  -27.5,
                           21.5,  -28.5, -12.5, 25.5,  -15.5, -48.5, 10.5,  3.5,   -25.5, -12.5,
                           -3.5,  -0.5,  13.5,  -27.5, 8.5,   -1.5,  30.5,  -25.5, -4.5,  6.5});
  CHECK(v[2].to_vector<float>() == std::vector<float>{40.5, 50.5, 15.5,  23.5, 42.5, 15.5,
                                                      50.5, 34.5, 29.5,  3.5,  34.5, -27.5,
                                                      21.5, 25.5, -12.5, 10.5, 3.5,  -12.5,
                                                      30.5, 13.5, 8.5,   30.5, -4.5, 6.5});
  check_close(
      v[3].to_vector<float>(),
      std::vector<float>{39.25, 31.333334f, 31,  33,    27.166666f, 29, 30.75, 20.833334f, 17.75,
                         19,    3.5,        3.5, 15.25, 6,          1,  7,     0.5,        -4.5,
                         17.5,  14.166667f, 6,   13,    10.833333f, 1},
      1e-6);
  check_close(v[4].to_vector<float>(),
              std::vector<float>{0.666666687f,
                                 -0.99999994f,
                                 0.833333313f,
                                 0,
                                 -0.249999985f,
                                 -0.666666687f,
                                 1,
                                 -0.833333313f,
                                 0.25000003f,
                                 0,
                                 2.33333325f,
                                 -0.333333492f,
                                 -3.08333302f,
                                 2.08333302f,
                                 -4,
                                 0,
                                 1,
                                 0.49999997f,
                                 -2.16666627f,
                                 0.749999881f,
                                 -0.333333343f,
                                 -0.666666687f,
                                 -0.416666657f,
                                 -0.25000003f,
                                 0.0833333284f,
                                 0.666666687f,
                                 -0.99999994f,
                                 0.833333313f,
                                 0,
                                 -0.249999985f,
                                 -1.33333337f,
                                 1.50000012f,
                                 -0.166666806f,
                                 -0.833333135f,
                                 1.83333349f,
                                 2,
                                 -1,
                                 -3.49999952f,
                                 2.16666627f,
                                 -4.25,
                                 1,
                                 -0.333333284f,
                                 1.25,
                                 0.0833333433f,
                                 -0.166666657f,
                                 -0.333333343f,
                                 -0.666666687f,
                                 -0.416666657f,
                                 -0.25000003f,
                                 0.0833333284f,
                                 2,
                                 -2.5,
                                 -1.33333302f,
                                 3.24999952f,
                                 -4,
                                 -0.666666687f,
                                 0.5,
                                 0.666666508f,
                                 -1.08333313f,
                                 1.83333349f,
                                 -0.166666657f,
                                 0,
                                 0.25000003f,
                                 -1.33333325f,
                                 1,
                                 0.166666657f,
                                 -0.249999985f,
                                 0,
                                 1.33333325f,
                                 -1.75,
                                 -0.0833333284f,
                                 -0.249999836f,
                                 -0.0833331943f,
                                 -3.91666627f,
                                 1.24999988f,
                                 0,
                                 -1.16666675f,
                                 1.58333325f,
                                 -1.24999976f,
                                 -1.16666663f,
                                 0.0833333284f,
                                 0.249999985f,
                                 -0.0833333433f,
                                 0.666666627f,
                                 1.41666663f,
                                 -0.166666657f,
                                 0,
                                 0.25000003f,
                                 -1.33333325f,
                                 1,
                                 0.166666657f,
                                 -0.333333373f,
                                 -1.83333349f,
                                 3.66666651f,
                                 -2.5,
                                 0,
                                 -0.333333164f,
                                 0.166666806f,
                                 -3.24999976f,
                                 1.66666675f,
                                 -0.249999985f,
                                 -0.0833333284f,
                                 0.166666687f,
                                 -2,
                                 0.0833333731f,
                                 0.0833333284f,
                                 0.249999985f,
                                 -0.0833333433f,
                                 0.666666627f,
                                 1.41666663f,
                                 -0.166666657f,
                                 0.750000179f,
                                 1.08333349f,
                                 -3.91666627f,
                                 3.08333349f,
                                 0,
                                 -0.0833334029f,
                                 -1.83333349f,
                                 2.33333302f,
                                 -0.75},
              1e-5, false);
  check_close(
      v[5].to_vector<float>(),
      std::vector<float>{-3.24999952f,    -8.08333206f, 3.83333325f,   -7.33333302f,  1.74999928f,
                         -2.00000048f,    -2.16666675f, 0.166666627f,  -1.25000012f,  1.66666603f,
                         -1.24999976f,    4.99999905f,  -1.24999976f,  3.33333254f,   -4.24999952f,
                         -1.41666543f,    -2.66666651f, -4.33333397f,  3.33333302f,   -4.49999905f,
                         4.25f,           2.49999952f,  -1.25f,        11.333333f,    0.999999881f,
                         0.249999911f,    0.249999985f, 0.249999881f,  -0.499999821f, 0.250000119f,
                         5.96046448e-08f, -1.41666651f, -0.749999762f, -0.666666627f, 2.16666675f,
                         0.0833332837f},
      1e-5, false);
  check_close(v[6].to_vector<float>(), std::vector<float>{0.999999762f, -2.99999952f}, 1e-5, false);
}

TEST_CASE("nn/conv nchw: the same numbers as NHWC, transposed") {
  // Every op on NCHW data equals the NHWC op on the transposed data, transposed back.
  Graph g;
  auto guard = g.as_default();
  auto x_nhwc = constant(random_value<double>({2, 6, 7, 3}, 5));
  auto x_nchw = transpose(x_nhwc, {0, 3, 1, 2});
  auto w = constant(random_value<double>({3, 2, 3, 4}, 6));
  auto b = constant(random_value<double>({3}, 7));
  auto to_nchw = [](const Output& t) { return transpose(t, {0, 3, 1, 2}); };
  const nn::PoolOptions nchw{.data_format = "NCHW"};
  const std::vector<std::pair<Output, Output>> pairs{
      {to_nchw(nn::conv2d(x_nhwc, w, {2, 1}, "SAME")),
       nn::conv2d(x_nchw, w, {2, 1}, "SAME", {.data_format = "NCHW"})},
      {to_nchw(nn::conv2d(x_nhwc, w, {1}, {{0, 0}, {2, 1}, {0, 3}, {0, 0}}, {.dilations = {1, 2}})),
       nn::conv2d(x_nchw, w, {1}, {{0, 0}, {0, 0}, {2, 1}, {0, 3}},
                  {.dilations = {1, 2}, .data_format = "NCHW"})},
      {to_nchw(nn::max_pool(x_nhwc, {3, 2}, {2, 2}, "SAME")),
       nn::max_pool(x_nchw, {3, 2}, {2, 2}, "SAME", nchw)},
      {to_nchw(nn::avg_pool(x_nhwc, {2, 3}, {1, 2}, "VALID")),
       nn::avg_pool(x_nchw, {2, 3}, {1, 2}, "VALID", nchw)},
      {to_nchw(nn::bias_add(x_nhwc, b)), nn::bias_add(x_nchw, b, {.data_format = "NCHW"})},
  };
  Session sess(g);
  for (const auto& pair : pairs) {
    const Output& want = pair.first;  // clang 14: no structured binding in CAPTURE
    const Output& got = pair.second;
    CAPTURE(got.op().type());
    CHECK(got.get_shape() == want.get_shape());
    const auto v = sess.run({want, got});
    check_close(v[1].to_vector<double>(), v[0].to_vector<double>(), 1e-12);
  }
  // One- and two-value strides and ksizes go to the spatial dims, which NCHW has last.
  CHECK(ints(pairs[0].second, "strides") == std::vector<std::int64_t>{1, 1, 2, 1});
  CHECK(ints(pairs[1].second, "dilations") == std::vector<std::int64_t>{1, 1, 1, 2});
  CHECK(ints(pairs[2].second, "ksize") == std::vector<std::int64_t>{1, 1, 3, 2});
}

TEST_CASE("nn/conv nchw: bad formats and shapes are TensorFlow's errors") {
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<float>(Shape{1, 2, 4, 5});
  auto w = placeholder<float>(Shape{2, 2, 2, 3});
  CHECK(error_of<ValueError>([&] { nn::conv2d(x, w, {1}, "VALID", {.data_format = "NCWH"}); }) ==
        "Attr 'data_format' of 'Conv2D' Op passed string 'NCWH' not in: \"NHWC\", \"NCHW\".");
  CHECK(
      error_of<ValueError>([&] { nn::max_pool(x, {2}, {2}, "VALID", {.data_format = "NCWH"}); }) ==
      "Attr 'data_format' of 'MaxPool' Op passed string 'NCWH' not in: \"NHWC\", \"NCHW\", "
      "\"NCHW_VECT_C\".");
  // NCHW conv: the depth is dim 1, so the filter's in_depth must match it.
  std::string m = error_of<ValueError>([&] {
    nn::conv2d(placeholder<float>(Shape{1, 3, 4, 5}), w, {1}, "VALID", {.data_format = "NCHW"});
  });
  CHECK(contains(m, "Depth of input (3) is not a multiple of input depth of filter (2)"));
  // NCHW explicit padding: the pairs are in NCHW order, so a row pad in slot 1 pads depth.
  m = error_of<ValueError>([&] {
    nn::conv2d(x, w, {1}, {{0, 0}, {1, 0}, {3, 4}, {0, 0}}, {.data_format = "NCHW"});
  });
  CHECK(contains(m, "Nonzero explicit padding in the batch or depth dimensions is not supported"));
  // BiasAdd NCHW: TF's shape function wants rank 3 and the bias along dim 1.
  m = error_of<ValueError>([&] {
    nn::bias_add(placeholder<float>(Shape{3, 2}), placeholder<float>(Shape{2}),
                 {.data_format = "NCHW"});
  });
  CHECK(contains(m, "Shape must be at least rank 3 but is rank 2"));
  m = error_of<ValueError>(
      [&] { nn::bias_add(x, placeholder<float>(Shape{5}), {.data_format = "NCHW"}); });
  CHECK(contains(m, "Dimensions must be equal, but are 2 and 5"));
  // The kernel's checks, reached with shapes unknown at build time; TF's kernel also runs a
  // rank-2 NCHW value (the channels are then its last dim), which its shape function refuses.
  {
    Graph h;
    auto inner = h.as_default();
    auto value = placeholder<float>(Shape::unknown());
    auto bias = placeholder<float>(Shape::unknown());
    auto sum = nn::bias_add(value, bias, {.data_format = "NCHW"});
    Session sess(h);
    m = error_of<InvalidArgumentError>([&] {
      sess.run(sum, {{value, Value::from_vector(std::vector<float>(40, 0.f), {1, 2, 4, 5})},
                     {bias, Value::from_vector(std::vector<float>(5, 0.f), {5})}});
    });
    CHECK(contains(m,
                   "Must provide as many biases as the last dimension of the input tensor: [5] vs. "
                   "[1,2,4,5]"));
    const Value rank2 =
        sess.run(sum, {{value, Value::from_vector(std::vector<float>{1, 2, 3, 4, 5, 6}, {3, 2})},
                       {bias, Value::from_vector(std::vector<float>{10, 20}, {2})}});
    CHECK(rank2.to_vector<float>() == std::vector<float>{11, 22, 13, 24, 15, 26});
  }
  // TF's kernel refuses a stride along the channels (dim 1 in NCHW).
  auto strided = nn::conv2d(constant(xpat({1, 2, 4, 5})), constant(wpat({2, 2, 2, 3})),
                            {1, 2, 1, 1}, "VALID", {.data_format = "NCHW"});
  m = error_of<UnimplementedError>([&] { run_vector<float>(strided); });
  CHECK(contains(m,
                 "Current implementation does not yet support strides in the batch and depth "
                 "dimensions."));
}

TEST_CASE("nn/conv nchw: a TensorFlow GraphDef with NCHW and explicit padding imports and runs") {
  // tests/data/conv_explicit_nchw/make.py: conv (explicit pads [[0,0],[0,0],[1,0],[2,1]],
  // strides [1,1,1,2], NCHW) -> biased -> pooled (MaxPool) -> out (AvgPool); the gradients
  // d_biased and d_b of out, and d_x, a Conv2DBackpropInput with the conv's padding.
  const GraphDef def =
      read_graph(std::string(SYMFLOW_SOURCE_DIR) + "/tests/data/conv_explicit_nchw/graph.pbtxt");
  Graph g;
  import_graph_def(def, {.name = ""}, g);
  const Operation conv = g.get_operation_by_name("conv");
  CHECK(conv.get_attr<std::string>("padding") == "EXPLICIT");
  CHECK(conv.get_attr<IntList>("explicit_paddings").items ==
        std::vector<std::int64_t>{0, 0, 0, 0, 1, 0, 2, 1});
  CHECK(conv.get_attr<std::string>("data_format") == "NCHW");
  CHECK(g.get_tensor_by_name("conv:0").get_shape() == Shape{1, 3, 4, 4});
  CHECK(g.get_operation_by_name("gradients/pooled_grad/MaxPoolGrad").type() == "MaxPoolGrad");
  CHECK(g.get_operation_by_name("gradients/biased_grad/BiasAddGrad").type() == "BiasAddGrad");

  Session s(g);
  const auto r = s.run({g.get_tensor_by_name("biased:0"), g.get_tensor_by_name("out:0"),
                        g.get_tensor_by_name("d_b:0"), g.get_tensor_by_name("d_x:0")},
                       {{g.get_tensor_by_name("x:0"), xpat({1, 2, 5, 6})}});
  CHECK(r[0].to_vector<float>() ==
        std::vector<float>{0.5, 3.5,  9.5,   15.5, 0.5, -33.5, 32.5, -0.5, 0.5, -0.5, -22.5, 10.5,
                           0.5, 10.5, -22.5, -0.5, -1,  8,     -3,   -3,   -1,  0,    -9,    -7,
                           -1,  -27,  52,    -12,  -1,  23,    -30,  16,   2,   -32,  17,    11,
                           2,   31,   -32,   26,   2,   7,     -23,  -9,   2,   5,    30,    -33});
  CHECK(r[1].dims() == Dims{1, 3, 1, 1});
  CHECK(r[1].to_vector<float>() == std::vector<float>{14.25, 20, 23.5});
  CHECK(r[2].to_vector<float>() == std::vector<float>{1, 1, 1});
  // TensorFlow's CPU refuses this node (explicit padding with NCHW); the values are its
  // NHWC op's, transposed.
  CHECK(r[3].to_vector<float>() ==
        std::vector<float>{0.75,  0.5,   -0.5,  0.5,   0.25, 0.75,  -1.25, 0.75,  0.5,  -1.5,
                           -1,    0,     0.25,  -1.25, 0,    1.5,   1,     -1.5,  1,    -1,
                           -1.25, -0.25, -0.25, 0.25,  -1,   0,     0.5,   -0.75, 0,    0,
                           1.5,   -0.5,  0,     1,     0.5,  -0.75, -0.25, 0,     -0.5, -0.75,
                           -0.5,  0.5,   -0.5,  -0.25, 0.75, 0.5,   1.5,   -1,    1.75, -0.25,
                           -0.75, 0.25,  0,     0.5,   -0.5, 0.5,   0.75,  -0.5,  0,    0});
}

}  // namespace symflow_test_ops_conv_nchw_test
