// symflow::nn::conv2d, max_pool, avg_pool and their backprop ops, checked against
// TensorFlow 1.x graph mode (tf.nn.conv2d, tf.nn.max_pool, tf.nn.avg_pool,
// gen_nn_ops.conv2d_backprop_input/_filter, max_pool_grad, avg_pool_grad).
//
// The TF cases use integer-valued inputs from two fixed patterns, so every sum is
// exact in float32 and float64:
//   X(i) = ((7 i + 3) mod 11) - 5   (inputs, out_backprops of bi)
//   W(i) = ((5 i + 1) mod 7) - 3    (filters, out_backprops of bf and pool grads)
// Larger shapes (several chunks of the im2col buffer, several threads) are compared
// with a direct loop implementation written here.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <symflow/symflow.hpp>

#include "../test_util.hpp"
#include "conv_test_values.hpp"

namespace symflow_test_ops_conv_ops_test {

namespace ops_conv_test {

using namespace symflow;
using namespace symflow::test;

using namespace symflow::test::conv_values;

// Direct convolution, straight from the definition (TensorFlow's SAME/VALID rules).
struct RefConv {
  std::int64_t n, h, w, c, kh, kw, o, sh, sw, dh, dw, oh, ow, pt, pl;
  RefConv(const Dims& x, const Dims& f, std::int64_t sh_, std::int64_t sw_, std::int64_t dh_,
          std::int64_t dw_, bool same)
      : n(x[0]),
        h(x[1]),
        w(x[2]),
        c(x[3]),
        kh(f[0]),
        kw(f[1]),
        o(f[3]),
        sh(sh_),
        sw(sw_),
        dh(dh_),
        dw(dw_) {
    reference_window(h, kh, sh, dh, same, oh, pt);
    reference_window(w, kw, sw, dw, same, ow, pl);
  }
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
                for (std::int64_t co = 0; co < o; ++co)
                  f(((b * h + r) * w + q) * c + ci, ((i * kw + j) * c + ci) * o + co,
                    ((b * oh + y) * ow + xo) * o + co);
            }
  }
};

}  // namespace ops_conv_test

using namespace ops_conv_test;

TEST_CASE("nn/conv2d: node, attrs, shape and values (SAME)") {
  // TF: conv2d(X[1,4,4,2], W[3,3,2,2], [1,1,1,1], "SAME")
  const std::vector<double> want{-35, 17, -34, 19, 15, -8, 2,   -18, 7,  -7,  37,
                                 -33, 3,  -38, 15, 16, 3,  15,  22,  2,  -12, -3,
                                 -24, 32, 20,  -1, -9, -1, -23, -14, 18, -31};
  Graph g;
  auto guard = g.as_default();
  auto x = constant(xpat({1, 4, 4, 2}));
  auto w = constant(wpat({3, 3, 2, 2}));
  auto y = nn::conv2d(x, w, {1, 1, 1, 1}, "SAME");
  CHECK(y.name() == "Conv2D:0");
  CHECK(y.op().type() == "Conv2D");
  CHECK(input_names(y) == std::vector<std::string>{"Const:0", "Const_1:0"});
  CHECK(y.get_shape() == Shape{1, 4, 4, 2});
  CHECK(y.dtype() == DType::float32);
  // TF 1.x (before explicit_paddings) attrs.
  CHECK(y.op().get_attr<DType>("T") == DType::float32);
  CHECK(y.op().get_attr<std::string>("data_format") == "NHWC");
  CHECK(y.op().get_attr<std::string>("padding") == "SAME");
  CHECK(y.op().get_attr<IntList>("strides").items == std::vector<std::int64_t>{1, 1, 1, 1});
  CHECK(y.op().get_attr<IntList>("dilations").items == std::vector<std::int64_t>{1, 1, 1, 1});
  CHECK(y.op().get_attr<bool>("use_cudnn_on_gpu"));
  CHECK(nn::conv2d(x, w, {1}, "SAME", "conv").name() == "conv:0");
  CHECK(nn::conv2d(x, w, {1, 1}, "SAME").name() == "Conv2D_1:0");

  Session sess(g);
  Value v = sess.run(y);
  CHECK(v.dims() == Dims{1, 4, 4, 2});
  CHECK(v.to_vector<float>() == as<float>(want));

  // float64, and the typed handle overload.
  auto xd = constant(xpat<double>({1, 4, 4, 2}));
  auto wd = constant(wpat<double>({3, 3, 2, 2}));
  auto yd = nn::conv2d(Tensor<double>(xd), Tensor<double>(wd), {1, 1, 1, 1}, "SAME");
  CHECK(yd.dtype() == DType::float64);
  CHECK(sess.run(yd).to_vector<double>() == want);
  Tensor<double> named = nn::conv2d(Tensor<double>(xd), Tensor<double>(wd), {1}, "SAME", "typed");
  CHECK(named.name() == "typed:0");
}

TEST_CASE("nn/conv2d: NodeDef text as TensorFlow 1.x prints it") {
  // TF's text_format of the node, without explicit_paddings (added in TF 1.14; symflow
  // writes the attrs of the TF 1.x the seed uses, as for Add vs AddV2).
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<float>(Shape{1, 5, 5, 3}, "x");
  auto w = placeholder<float>(Shape{3, 3, 3, 4}, "w");
  auto c = nn::conv2d(x, w, {1, 2, 2, 1}, "SAME");
  auto m = nn::max_pool(c, {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID");
  CHECK(to_text(c.op().node_def()) == R"(name: "Conv2D"
op: "Conv2D"
input: "x"
input: "w"
attr {
  key: "T"
  value {
    type: DT_FLOAT
  }
}
attr {
  key: "data_format"
  value {
    s: "NHWC"
  }
}
attr {
  key: "dilations"
  value {
    list {
      i: 1
      i: 1
      i: 1
      i: 1
    }
  }
}
attr {
  key: "padding"
  value {
    s: "SAME"
  }
}
attr {
  key: "strides"
  value {
    list {
      i: 1
      i: 2
      i: 2
      i: 1
    }
  }
}
attr {
  key: "use_cudnn_on_gpu"
  value {
    b: true
  }
}
)");
  CHECK(to_text(m.op().node_def()) == R"(name: "MaxPool"
op: "MaxPool"
input: "Conv2D"
attr {
  key: "T"
  value {
    type: DT_FLOAT
  }
}
attr {
  key: "data_format"
  value {
    s: "NHWC"
  }
}
attr {
  key: "ksize"
  value {
    list {
      i: 1
      i: 2
      i: 2
      i: 1
    }
  }
}
attr {
  key: "padding"
  value {
    s: "VALID"
  }
}
attr {
  key: "strides"
  value {
    list {
      i: 1
      i: 2
      i: 2
      i: 1
    }
  }
}
)");
}

TEST_CASE("nn/conv2d: VALID, strides, dilations, odd sizes and batches against TF") {
  struct Case {
    Dims x, w;
    std::vector<std::int64_t> strides;
    const char* padding;
    std::vector<std::int64_t> dilations;
    Dims out;
    std::vector<double> want;
  };
  // Every expected value comes from TF's conv2d on the same patterns.
  const std::vector<Case> cases{
      {{2, 5, 7, 2},
       {3, 2, 2, 3},
       {1, 2, 2, 1},
       "VALID",
       {1, 1, 1, 1},
       {2, 2, 3, 3},
       {3,  -21, 32,  14, 5, -39, 14, 9,  11, -8,  -15, 41, -19, 11,  -8, 25,  -18, 9,
        14, 5,   -39, 14, 9, 11,  3,  13, -5, -19, 11,  -8, 25,  -18, 9,  -19, 30,  -40}},
      {{1, 5, 5, 1},
       {3, 3, 1, 2},
       {1, 2, 2, 1},
       "SAME",
       {1, 1, 1, 1},
       {1, 3, 3, 2},
       {-15, -13, -9, 10, 20, -5, 12, 12, 39, -26, -4, -6, -13, -15, -24, -11, -4, 1}},
      {{1, 6, 6, 1},
       {2, 2, 1, 1},
       {1, 1, 1, 1},
       "VALID",
       {1, 2, 2, 1},
       {1, 4, 4, 1},
       {15, -22, 7, 14, 13, -24, 5, 1, -22, 7, 14, -23, -24, 5, 1, 8}},
      {{1, 5, 5, 2},
       {3, 3, 2, 1},
       {1, 1, 1, 1},
       "SAME",
       {1, 2, 2, 1},
       {1, 5, 5, 1},
       {15,  18,  -10, -15, 11, -14, 11, -6,  16,  -2, -40, 37, 36,
        -37, -19, 5,   -9,  10, -4,  16, -21, -24, 35, 19,  -16}},
      // Rows and columns with different strides; an odd total padding (more after).
      {{1, 4, 5, 1},
       {2, 3, 1, 1},
       {1, 1, 2, 1},
       "SAME",
       {1, 1, 1, 1},
       {1, 4, 3, 1},
       {-9, -17, 34, -14, 5, -5, -8, 38, -11, 12, -9, -9}},
      // A 1x1 filter: a plain matrix product, no patches.
      {{2, 3, 3, 3},
       {1, 1, 3, 2},
       {1, 1, 1, 1},
       "VALID",
       {1, 1, 1, 1},
       {2, 3, 3, 2},
       {6,   -9, 10, -13, 14, -17, 18, -21, 0,  8,   4,  4,   8, 0, -21, 18, -17, 14,
        -13, 10, -9, 6,   6,  -9,  10, -13, 14, -17, 18, -21, 0, 8, 4,   4,  8,   0}},
  };
  for (const Case& k : cases) {
    CAPTURE(dims_to_string(k.x));
    CAPTURE(dims_to_string(k.w));
    CAPTURE(k.padding);
    Graph g;
    auto guard = g.as_default();
    auto y = nn::conv2d(constant(xpat(k.x)), constant(wpat(k.w)), k.strides, k.padding,
                        {.dilations = k.dilations});
    CHECK(y.get_shape() == Shape(k.out));
    auto yd = nn::conv2d(constant(xpat<double>(k.x)), constant(wpat<double>(k.w)), k.strides,
                         k.padding, {.dilations = k.dilations});
    Session sess(g);
    Value v = sess.run(y);
    CHECK(v.dims() == k.out);
    CHECK(v.to_vector<float>() == as<float>(k.want));
    CHECK(sess.run(yd).to_vector<double>() == k.want);
  }
}

TEST_CASE("nn/conv2d: static shapes with unknown dims") {
  // TF: [?, ?, 7, 3] * [3,3,3,4], strides 2, SAME -> (?, ?, 4, 4); unknown input rank
  // -> (?, ?, ?, 4); unknown filter -> (2, 4, 4, ?); unknown depths still give (2, 4, 4, 5).
  Graph g;
  auto guard = g.as_default();
  auto w = placeholder<float>(Shape{3, 3, 3, 4});
  CHECK(nn::conv2d(placeholder<float>(Shape{-1, -1, 7, 3}), w, {1, 2, 2, 1}, "SAME")
            .get_shape()
            .to_string() == "(?, ?, 4, 4)");
  CHECK(nn::conv2d(placeholder<float>(), w, {2}, "SAME").get_shape().to_string() == "(?, ?, ?, 4)");
  CHECK(nn::conv2d(placeholder<float>(Shape{2, 8, 8, 3}), placeholder<float>(), {2, 2}, "SAME")
            .get_shape()
            .to_string() == "(2, 4, 4, ?)");
  CHECK(nn::conv2d(placeholder<float>(Shape{2, 8, 8, -1}), placeholder<float>(Shape{3, 3, -1, 5}),
                   {1, 2, 2, 1}, "SAME")
            .get_shape() == Shape{2, 4, 4, 5});
  // TF: dilation 2 and stride 2 on 7x7 VALID -> (1, 2, 2, 4).
  CHECK(nn::conv2d(placeholder<float>(Shape{1, 7, 7, 3}), w, {1, 2, 2, 1}, "VALID",
                   {.dilations = {1, 2, 2, 1}})
            .get_shape() == Shape{1, 2, 2, 4});
}

TEST_CASE("nn/conv2d: build-time errors") {
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<float>(Shape{1, 5, 5, 3});
  auto w = placeholder<float>(Shape{3, 3, 3, 4});
  auto value_error = [](auto f) {
    auto e = thrown<ValueError>(f);
    REQUIRE(e);
    return std::string(e->message());
  };
  // TF: "Shape must be rank 4 but is rank 3 for 'Conv2D' ... with input shapes: [1,2,3],
  // [3,3,1,1]."
  std::string m = value_error([&] {
    nn::conv2d(placeholder<float>(Shape{1, 2, 3}), w, {1, 1, 1, 1}, "SAME");
  });
  CHECK(contains(m, "Shape must be rank 4 but is rank 3 for 'Conv2D' (op: 'Conv2D')"));
  CHECK(contains(m, "with input shapes: [1,2,3], [3,3,3,4]."));
  m = value_error([&] { nn::conv2d(x, placeholder<float>(Shape{3, 3, 3}), {1}, "SAME"); });
  CHECK(contains(m, "Shape must be rank 4 but is rank 3"));
  // TF: "Depth of input (3) is not a multiple of input depth of filter (2)".
  m = value_error([&] { nn::conv2d(x, placeholder<float>(Shape{3, 3, 2, 4}), {1}, "SAME"); });
  CHECK(contains(m, "Depth of input (3) is not a multiple of input depth of filter (2)"));
  // No grouped convolution: TF 1.x's "Dimensions must be equal".
  m = value_error([&] {
    nn::conv2d(placeholder<float>(Shape{1, 5, 5, 4}), placeholder<float>(Shape{3, 3, 2, 4}), {1},
               "SAME");
  });
  CHECK(contains(m, "Dimensions must be equal, but are 4 and 2"));
  // TF 1.x: Attr 'padding' of 'Conv2D' Op passed string 'FOO' not in: "SAME", "VALID".
  // (no node in the message), and the name is used up as in TF: the next is Conv2D_n+1.
  {
    Graph h;
    auto hg = h.as_default();
    auto hx = placeholder<float>(Shape{1, 5, 5, 3});
    auto hw = placeholder<float>(Shape{3, 3, 3, 4});
    m = value_error([&] { nn::conv2d(hx, hw, {1}, "FOO"); });
    CHECK(m ==
          "Attr 'padding' of 'Conv2D' Op passed string 'FOO' not in: \"SAME\", \"VALID\", "
          "\"EXPLICIT\".");
    CHECK(nn::conv2d(hx, hw, {1}, "SAME").name() == "Conv2D_1:0");
  }
  // TF: "strides should be of length 1, 2 or 4. Received: strides=[1, 1, 1] of length 3".
  m = value_error([&] { nn::conv2d(x, w, {1, 1, 1}, "SAME"); });
  CHECK(m == "strides should be of length 1, 2 or 4. Received: strides=[1, 1, 1] of length 3");
  m = value_error([&] { nn::conv2d(x, w, {1}, "SAME", {.dilations = {1, 1, 1}}); });
  CHECK(contains(m, "dilations should be of length 1, 2 or 4"));
  // TF: "Stride must be > 0, but got 0", "Dilation rate must be >= 1, but got 0".
  m = value_error([&] { nn::conv2d(x, w, {1, 0, 1, 1}, "SAME"); });
  CHECK(contains(m, "Stride must be > 0, but got 0 for 'Conv2D"));
  m = value_error([&] { nn::conv2d(x, w, {1}, "VALID", {.dilations = {1, 0, 2, 1}}); });
  CHECK(contains(m, "Dilation rate must be >= 1, but got 0"));
  // TF: "Negative dimension size caused by subtracting 3 from 2" (VALID), and the
  // dilated size: "subtracting 9 from 7".
  m = value_error([&] { nn::conv2d(placeholder<float>(Shape{1, 2, 2, 3}), w, {1}, "VALID"); });
  CHECK(contains(m, "Negative dimension size caused by subtracting 3 from 2"));
  m = value_error([&] {
    nn::conv2d(placeholder<float>(Shape{1, 7, 7, 3}), w, {1}, "VALID", {.dilations = {1, 4, 1, 1}});
  });
  CHECK(contains(m, "Negative dimension size caused by subtracting 9 from 7"));
  // TF: TypeError "Input 'filter' of 'Conv2D' Op has type float64 that does not match
  // type float32 of argument 'input'."; int inputs are not in the allowed list.
  auto t = thrown<TypeError>([&] {
    nn::conv2d(x, placeholder<double>(Shape{3, 3, 3, 4}), {1}, "SAME");
  });
  REQUIRE(t);
  CHECK(contains(t->message(),
                 "Input 'filter' of 'Conv2D' Op has type float64 that does not "
                 "match type float32 of argument 'input'."));
  t = thrown<TypeError>([&] {
    nn::conv2d(placeholder<std::int64_t>(Shape{1, 7, 7, 3}),
               placeholder<std::int64_t>(Shape{3, 3, 3, 4}), {1}, "SAME");
  });
  REQUIRE(t);
  CHECK(contains(t->message(),
                 "Value passed to parameter 'input' has DataType int64 not in list "
                 "of allowed values: float32, float64"));
}

TEST_CASE("nn/conv2d: run-time errors") {
  Graph g;
  auto guard = g.as_default();
  auto x = constant(Value::filled<float>({1, 7, 7, 3}, 1.0f));
  auto w = constant(Value::filled<float>({3, 3, 3, 4}, 1.0f));
  Session sess(g);
  // TF builds these and fails when they run:
  // Unimplemented "Current implementation does not yet support strides in the batch and
  // depth dimensions." / InvalidArgument "... dilations in the batch and depth dimensions."
  auto s = nn::conv2d(x, w, {2, 1, 1, 1}, "VALID");
  CHECK(s.get_shape() == Shape{1, 5, 5, 4});
  auto u = thrown<UnimplementedError>([&] { sess.run(s); });
  REQUIRE(u);
  CHECK(contains(u->message(), "does not yet support strides in the batch and depth dimensions"));
  CHECK(u->node_name() == s.op().name());
  auto d = nn::conv2d(x, w, {1}, "VALID", {.dilations = {2, 1, 1, 1}});
  auto e = thrown<InvalidArgumentError>([&] { sess.run(d); });
  REQUIRE(e);
  CHECK(contains(e->message(), "does not yet support dilations in the batch and depth dimensions"));
  // A placeholder of unknown shape fed the wrong depth.
  auto p = placeholder<float>();
  auto c = nn::conv2d(p, w, {1}, "SAME");
  e = thrown<InvalidArgumentError>([&] {
    sess.run(c, {{p, Value::filled<float>({1, 4, 4, 2}, 1.0f)}});
  });
  REQUIRE(e);
  CHECK(contains(e->message(), "input and filter must have the same depth: 2 vs 3"));
  e = thrown<InvalidArgumentError>([&] {
    sess.run(c, {{p, Value::filled<float>({4, 4, 2}, 1.0f)}});
  });
  REQUIRE(e);
  CHECK(contains(e->message(), "input must be 4-dimensional"));
  // An empty batch is fine.
  CHECK(sess.run(c, {{p, Value(DType::float32, {0, 4, 4, 3})}}).dims() == Dims{0, 4, 4, 4});
}

TEST_CASE("nn/conv2d: larger shapes match a direct convolution") {
  struct Case {
    Dims x, w;
    std::int64_t sh, sw, dh, dw;
    bool same;
  };
  // Several im2col chunks, both threads, 1x1 filters, dilations, strides and paddings.
  const std::vector<Case> cases{
      {{8, 32, 32, 8}, {3, 3, 8, 16}, 1, 1, 1, 1, true},
      {{4, 24, 24, 5}, {3, 3, 5, 4}, 1, 1, 1, 1, false},
      {{3, 17, 19, 3}, {5, 4, 3, 6}, 2, 3, 1, 1, true},
      {{2, 13, 11, 2}, {3, 3, 2, 3}, 1, 2, 2, 3, true},
      {{2, 13, 11, 2}, {3, 2, 2, 3}, 3, 1, 2, 1, false},
      {{16, 16, 16, 16}, {1, 1, 16, 32}, 1, 1, 1, 1, true},
      {{2, 9, 9, 4}, {1, 1, 4, 3}, 2, 2, 1, 1, false},
      {{1, 6, 6, 1}, {7, 7, 1, 2}, 1, 1, 1, 1, true},
  };
  unsigned seed = 1;
  for (const Case& k : cases) {
    CAPTURE(dims_to_string(k.x));
    CAPTURE(dims_to_string(k.w));
    CAPTURE(k.same);
    const RefConv ref(k.x, k.w, k.sh, k.sw, k.dh, k.dw, k.same);
    Value xd = random_value<double>(k.x, seed++), wd = random_value<double>(k.w, seed++);
    std::vector<double> want(static_cast<std::size_t>(ref.n * ref.oh * ref.ow * ref.o), 0.0);
    ref.each([&](std::int64_t xi, std::int64_t wi, std::int64_t yi) {
      want[static_cast<std::size_t>(yi)] += xd.data<double>()[xi] * wd.data<double>()[wi];
    });
    Graph g;
    auto guard = g.as_default();
    const std::vector<std::int64_t> strides{1, k.sh, k.sw, 1};
    const nn::Conv2DOptions opt{.dilations = {1, k.dh, k.dw, 1}};
    const char* padding = k.same ? "SAME" : "VALID";
    auto yd = nn::conv2d(constant(xd), constant(wd), strides, padding, opt);
    auto yf = nn::conv2d(cast(constant(xd), DType::float32), cast(constant(wd), DType::float32),
                         strides, padding, opt);
    CHECK(yd.get_shape() == Shape{ref.n, ref.oh, ref.ow, ref.o});
    Session sess(g);
    check_close(sess.run(yd).to_vector<double>(), want, 1e-9, false);
    check_close(sess.run(yf).to_vector<float>(), as<float>(want), 1e-4, false);
  }
}

TEST_CASE("nn/conv2d_backprop_input and _filter: values against TF") {
  struct Case {
    Dims x, w, dy;
    std::vector<std::int64_t> strides;
    const char* padding;
    std::vector<std::int64_t> dilations;
    std::vector<double> input_grad;   // backprop_input(x dims, W(w), X(dy))
    std::vector<double> filter_grad;  // backprop_filter(X(x), w dims, W(dy))
  };
  const std::vector<Case> cases{
      {{1, 5, 5, 1},
       {3, 3, 1, 2},
       {1, 3, 3, 2},
       {1, 2, 2, 1},
       "SAME",
       {1, 1, 1, 1},
       {-1, -7, 0,  8,  12,  12, 0,  -7, -5,  -4, -9, 5, -8,
        20, 4,  21, -4, -20, 13, -6, 16, -16, -5, -1, -4},
       {-8, -4, 29, 7, -9, 16, 8, -15, 6, 4, -16, 38, -4, -7, 7, -22, 16, -8}},
      {{1, 4, 5, 2},
       {2, 3, 2, 1},
       {1, 3, 2, 1},
       {1, 1, 2, 1},
       "VALID",
       {1, 1, 1, 1},
       {4,  -6, -2, 2,  -4,  11, 5,  -5, -15, 10, -2, 7,  -5, -3, 5,  -11, 12, 8, 4, -21,
        -8, 10, 7,  -3, -13, 11, -9, -3, 3,   9,  0,  -8, 12, 4,  -4, -12, 0,  0, 0, 0},
       {38, -28, 5, 5, -28, 5, -6, 38, -28, 5, 5, -28}},
      {{1, 5, 5, 1},
       {2, 2, 1, 1},
       {1, 5, 5, 1},
       {1, 1, 1, 1},
       "SAME",
       {1, 2, 2, 1},
       {8,   -6, -10, 19, -3, 9,   -1, -16, 24, 6, -4, 23, -3,
        -18, 10, -6,  -8, -1, -16, 14, 0,   -8, 3, 3,  -3},
       {-40, 44, 7, 20}},
  };
  for (const Case& k : cases) {
    CAPTURE(dims_to_string(k.x));
    Graph g;
    auto guard = g.as_default();
    const nn::Conv2DOptions opt{.dilations = k.dilations};
    auto di = nn::conv2d_backprop_input(constant(detail::int32_vector(k.x)), constant(wpat(k.w)),
                                        constant(xpat(k.dy)), k.strides, k.padding, opt);
    auto df = nn::conv2d_backprop_filter(constant(xpat(k.x)), constant(detail::int32_vector(k.w)),
                                         constant(wpat(k.dy)), k.strides, k.padding, opt);
    auto did =
        nn::conv2d_backprop_input(constant(detail::int32_vector(k.x)), constant(wpat<double>(k.w)),
                                  constant(xpat<double>(k.dy)), k.strides, k.padding, opt);
    auto dfd =
        nn::conv2d_backprop_filter(constant(xpat<double>(k.x)), constant(detail::int32_vector(k.w)),
                                   constant(wpat<double>(k.dy)), k.strides, k.padding, opt);
    CHECK(di.op().type() == "Conv2DBackpropInput");
    CHECK(df.op().type() == "Conv2DBackpropFilter");
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

TEST_CASE("nn/conv2d_backprop_input and _filter: shapes and errors") {
  Graph g;
  auto guard = g.as_default();
  auto w = placeholder<float>(Shape{3, 3, 3, 4});
  auto dy = placeholder<float>(Shape{1, 5, 5, 4});
  auto di = nn::conv2d_backprop_input(constant<std::int32_t>({1, 5, 5, 3}), w, dy, {1}, "SAME");
  CHECK(di.name() == "Conv2DBackpropInput:0");
  CHECK(di.get_shape() == Shape{1, 5, 5, 3});
  CHECK(di.op().get_attr<std::string>("padding") == "SAME");
  CHECK(di.op().get_attr<IntList>("strides").items == std::vector<std::int64_t>{1, 1, 1, 1});
  // Sizes known only at run time: the batch and depths the other inputs give.
  auto sizes = placeholder<std::int32_t>(Shape{4});
  CHECK(nn::conv2d_backprop_input(sizes, w, dy, {1}, "SAME").get_shape().to_string() ==
        "(1, ?, ?, 3)");
  CHECK(nn::conv2d_backprop_filter(placeholder<float>(Shape{1, 5, 5, 3}), sizes, dy, {1}, "SAME")
            .get_shape()
            .to_string() == "(?, ?, 3, 4)");
  // TF: "Shape must be rank 1 but is rank 2", "Conv2DBackpropInput requires input_sizes to
  // contain 4 values or 2 values, but got: 3", TypeError for mixed dtypes.
  auto e = thrown<ValueError>([&] {
    nn::conv2d_backprop_input(constant<std::int32_t>({{1, 2, 3, 4}}), w, dy, {1}, "SAME");
  });
  REQUIRE(e);
  CHECK(contains(e->message(), "Shape must be rank 1 but is rank 2"));
  e = thrown<ValueError>([&] {
    nn::conv2d_backprop_input(constant<std::int32_t>({1, 2, 3}), w, dy, {1}, "SAME");
  });
  REQUIRE(e);
  CHECK(contains(e->message(), "Conv2DBackpropInput requires input_sizes to contain 4 values"));
  auto t = thrown<TypeError>([&] {
    nn::conv2d_backprop_input(sizes, w, placeholder<double>(Shape{1, 5, 5, 4}), {1}, "SAME");
  });
  REQUIRE(t);
  CHECK(contains(t->message(),
                 "Input 'out_backprop' of 'Conv2DBackpropInput' Op has type "
                 "float64 that does not match type float32 of argument 'filter'."));
  // Run time: out_backprop of the wrong size for the input (TF fails too).
  Session sess(g);
  auto bad = nn::conv2d_backprop_input(
      constant<std::int32_t>({1, 5, 5, 3}), constant(Value::filled<float>({3, 3, 3, 4}, 1.0f)),
      constant(Value::filled<float>({1, 4, 5, 4}, 1.0f)), {1}, "SAME");
  auto k = thrown<InvalidArgumentError>([&] { sess.run(bad); });
  REQUIRE(k);
  CHECK(contains(k->message(), "out_backprop has shape [1,4,5,4]"));
  auto badf = nn::conv2d_backprop_filter(
      constant(Value::filled<float>({1, 5, 5, 3}, 1.0f)), constant<std::int32_t>({3, 3, 3, 4}),
      constant(Value::filled<float>({1, 5, 5, 5}, 1.0f)), {1}, "SAME");
  k = thrown<InvalidArgumentError>([&] { sess.run(badf); });
  REQUIRE(k);
  CHECK(k->node_name() == badf.op().name());
}

TEST_CASE("nn/conv2d_backprop_input and _filter: larger shapes match direct sums") {
  struct Case {
    Dims x, w;
    std::int64_t sh, sw, dh, dw;
    bool same;
  };
  const std::vector<Case> cases{
      {{8, 32, 32, 8}, {3, 3, 8, 16}, 1, 1, 1, 1, true},
      {{3, 17, 19, 3}, {5, 4, 3, 6}, 2, 3, 1, 1, true},
      {{2, 13, 11, 2}, {3, 2, 2, 3}, 3, 1, 2, 1, false},
      {{16, 16, 16, 16}, {1, 1, 16, 32}, 1, 1, 1, 1, false},
      {{2, 9, 9, 4}, {1, 1, 4, 3}, 2, 2, 1, 1, true},
  };
  unsigned seed = 100;
  for (const Case& k : cases) {
    CAPTURE(dims_to_string(k.x));
    CAPTURE(dims_to_string(k.w));
    const RefConv ref(k.x, k.w, k.sh, k.sw, k.dh, k.dw, k.same);
    const Dims ydims{ref.n, ref.oh, ref.ow, ref.o};
    Value xd = random_value<double>(k.x, seed++), wd = random_value<double>(k.w, seed++);
    Value dyd = random_value<double>(ydims, seed++);
    std::vector<double> want_dx(static_cast<std::size_t>(xd.size()), 0.0);
    std::vector<double> want_dw(static_cast<std::size_t>(wd.size()), 0.0);
    ref.each([&](std::int64_t xi, std::int64_t wi, std::int64_t yi) {
      want_dx[static_cast<std::size_t>(xi)] += wd.data<double>()[wi] * dyd.data<double>()[yi];
      want_dw[static_cast<std::size_t>(wi)] += xd.data<double>()[xi] * dyd.data<double>()[yi];
    });
    Graph g;
    auto guard = g.as_default();
    const std::vector<std::int64_t> strides{1, k.sh, k.sw, 1};
    const nn::Conv2DOptions opt{.dilations = {1, k.dh, k.dw, 1}};
    const char* padding = k.same ? "SAME" : "VALID";
    auto dx = nn::conv2d_backprop_input(constant(detail::int32_vector(k.x)), constant(wd),
                                        constant(dyd), strides, padding, opt);
    auto dw = nn::conv2d_backprop_filter(constant(xd), constant(detail::int32_vector(k.w)),
                                         constant(dyd), strides, padding, opt);
    auto dwf = nn::conv2d_backprop_filter(
        cast(constant(xd), DType::float32), constant(detail::int32_vector(k.w)),
        cast(constant(dyd), DType::float32), strides, padding, opt);
    Session sess(g);
    check_close(sess.run(dx).to_vector<double>(), want_dx, 1e-9, false);
    check_close(sess.run(dw).to_vector<double>(), want_dw, 1e-9, false);
    check_close(sess.run(dwf).to_vector<float>(), as<float>(want_dw), 1e-3, false);
  }
}

TEST_CASE("nn/max_pool and avg_pool: nodes, attrs and values against TF") {
  struct Case {
    Dims x;
    std::vector<std::int64_t> ksize, strides;
    const char* padding;
    Dims out;
    std::vector<double> max, avg;
  };
  const std::vector<Case> cases{
      {{1, 4, 4, 2},
       {1, 3, 3, 1},
       {1, 2, 2, 1},
       "SAME",
       {1, 2, 2, 2},
       {5, 5, 5, 5, 4, 3, -1, 5},
       {7.0 / 9, -7.0 / 9, -5.0 / 6, 2.5, -1.0 / 6, -0.5, -3, 1.25}},
      {{2, 5, 5, 1},
       {1, 2, 2, 1},
       {1, 2, 2, 1},
       "VALID",
       {2, 2, 2, 1},
       {5, 3, 4, 5, 4, 2, 3, 4},
       {-0.25, 0, 1, 1.25, -1.25, -1, 0, 0.25}},
      // SAME with the padding after: the edge windows average fewer inputs.
      {{1, 3, 3, 1},
       {2},
       {1},
       "SAME",
       {1, 3, 3, 1},
       {5, 5, 1, 4, 4, 0, 3, 3, -1},
       {1, 2.5, 0.5, 0, 1.5, -0.5, -0.5, 1, -1}},
  };
  for (const Case& k : cases) {
    CAPTURE(dims_to_string(k.x));
    Graph g;
    auto guard = g.as_default();
    auto x = constant(xpat(k.x));
    auto m = nn::max_pool(x, k.ksize, k.strides, k.padding);
    auto a = nn::avg_pool(x, k.ksize, k.strides, k.padding);
    CHECK(m.name() == "MaxPool:0");
    CHECK(a.name() == "AvgPool:0");
    CHECK(m.get_shape() == Shape(k.out));
    CHECK(a.get_shape() == Shape(k.out));
    auto md = nn::max_pool(Tensor<double>(constant(xpat<double>(k.x))), k.ksize, k.strides,
                           k.padding, "mp");
    auto ad = nn::avg_pool(Tensor<double>(constant(xpat<double>(k.x))), k.ksize, k.strides,
                           k.padding, "ap");
    CHECK(md.name() == "mp:0");
    Session sess(g);
    CHECK(sess.run(m).to_vector<float>() == as<float>(k.max));
    check_close(sess.run(a).to_vector<float>(), as<float>(k.avg), 1e-6, false);
    CHECK(sess.run(md).to_vector<double>() == k.max);
    check_close(sess.run(ad).to_vector<double>(), k.avg, 1e-12, false);
  }
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<float>(Shape{1, 5, 5, 3});
  auto m = nn::max_pool(x, {2}, {2}, "SAME");
  CHECK(m.op().get_attr<IntList>("ksize").items == std::vector<std::int64_t>{1, 2, 2, 1});
  CHECK(m.op().get_attr<IntList>("strides").items == std::vector<std::int64_t>{1, 2, 2, 1});
  CHECK(m.op().get_attr<std::string>("padding") == "SAME");
  CHECK(m.op().get_attr<std::string>("data_format") == "NHWC");
  CHECK(m.op().get_attr<DType>("T") == DType::float32);
  auto a = nn::avg_pool(x, {1, 3}, {1, 2}, "VALID");
  CHECK(a.op().get_attr<IntList>("ksize").items == std::vector<std::int64_t>{1, 1, 3, 1});
  CHECK(a.get_shape() == Shape{1, 5, 2, 3});
}

TEST_CASE("nn/max_pool and avg_pool: static shapes and build-time errors") {
  Graph g;
  auto guard = g.as_default();
  // TF: (?, 4, ?, 3) and (?, ?, ?, ?).
  CHECK(nn::max_pool(placeholder<float>(Shape{-1, 7, -1, 3}), {3}, {2}, "SAME")
            .get_shape()
            .to_string() == "(?, 4, ?, 3)");
  CHECK(nn::avg_pool(placeholder<float>(), {2}, {2}, "VALID").get_shape().to_string() ==
        "(?, ?, ?, ?)");
  // TF: a window larger than the input is fine with SAME.
  CHECK(nn::max_pool(placeholder<float>(Shape{1, 2, 2, 3}), {3}, {1}, "SAME").get_shape() ==
        Shape{1, 2, 2, 3});
  auto x = placeholder<float>(Shape{1, 5, 5, 4});
  auto value_error = [](auto f) {
    auto e = thrown<ValueError>(f);
    REQUIRE(e);
    return std::string(e->message());
  };
  std::string m;
  {
    Graph fresh;
    auto fg = fresh.as_default();
    m = value_error([&] { nn::max_pool(placeholder<float>(Shape{1, 2, 3}), {2}, {2}, "SAME"); });
    CHECK(contains(m,
                   "Shape must be rank 4 but is rank 3 for 'MaxPool' (op: 'MaxPool') with "
                   "input shapes: [1,2,3]."));
    m = value_error([&] { nn::avg_pool(placeholder<float>(Shape{1, 2, 3}), {2}, {2}, "SAME"); });
    CHECK(contains(m, "Shape must be rank 4 but is rank 3 for 'AvgPool' (op: 'AvgPool')"));
  }
  m = value_error([&] { nn::max_pool(x, {1, 2, 2}, {2}, "VALID"); });
  CHECK(m == "ksize should be of length 1, 2 or 4. Received: ksize=[1, 2, 2] of length 3");
  m = value_error([&] { nn::avg_pool(x, {2}, {1, 2, 2}, "VALID"); });
  CHECK(m == "strides should be of length 1, 2 or 4. Received: strides=[1, 2, 2] of length 3");
  m = value_error([&] { nn::max_pool(x, {1, 0, 2, 1}, {2}, "VALID"); });
  CHECK(m == "`ksize` cannot be zero. Received: ksize=[1, 0, 2, 1]");
  m = value_error([&] { nn::max_pool(x, {2}, {1, 0, 2, 1}, "VALID"); });
  CHECK(contains(m, "Stride must be > 0, but got 0 for 'MaxPool"));
  m = value_error([&] { nn::avg_pool(x, {2}, {2}, "FOO"); });
  CHECK(m == "Attr 'padding' of 'AvgPool' Op passed string 'FOO' not in: \"SAME\", \"VALID\".");
  m = value_error([&] { nn::max_pool(x, {2}, {2}, "same"); });
  CHECK(m ==
        "Attr 'padding' of 'MaxPool' Op passed string 'same' not in: \"SAME\", \"VALID\", "
        "\"EXPLICIT\".");
  m = value_error([&] { nn::max_pool(placeholder<float>(Shape{1, 1, 5, 4}), {2}, {2}, "VALID"); });
  CHECK(contains(m, "Negative dimension size caused by subtracting 2 from 1"));
  // TF: AvgPool takes 'value' (float types only).
  auto t = thrown<TypeError>([&] {
    nn::avg_pool(placeholder<std::int32_t>(Shape{1, 4, 5, 4}), {2}, {2}, "VALID");
  });
  REQUIRE(t);
  CHECK(contains(t->message(), "Value passed to parameter 'value' has DataType int32"));
}

TEST_CASE("nn/max_pool and avg_pool: run-time errors for batch and depth windows") {
  // TF builds these and fails at run time: Unimplemented "Pooling is not yet supported on
  // the batch dimension." / "MaxPooling supports exactly one of pooling across depth or
  // pooling across width/height."
  Graph g;
  auto guard = g.as_default();
  auto x = constant(Value::filled<float>({2, 7, 7, 4}, 1.0f));
  auto mb = nn::max_pool(x, {2, 2, 2, 1}, {1}, "VALID");
  CHECK(mb.get_shape() == Shape{2, 6, 6, 4});
  auto ad = nn::avg_pool(x, {1, 2, 2, 2}, {1}, "VALID");
  CHECK(ad.get_shape() == Shape{2, 6, 6, 4});
  // TF's MaxPool shape windows the depth too: (2, 6, 6, 3).
  CHECK(nn::max_pool(x, {1, 2, 2, 2}, {1}, "VALID").get_shape() == Shape{2, 6, 6, 3});
  Session sess(g);
  auto e = thrown<UnimplementedError>([&] { sess.run(mb); });
  REQUIRE(e);
  CHECK(e->message() == "Pooling is not yet supported on the batch dimension.");
  e = thrown<UnimplementedError>([&] { sess.run(ad); });
  REQUIRE(e);
  CHECK(contains(e->message(), "pooling across depth"));
}

TEST_CASE("nn/max_pool_grad and avg_pool_grad: values against TF") {
  struct Case {
    Dims x;
    std::vector<std::int64_t> ksize, strides;
    const char* padding;
    std::vector<double> max_grad, avg_grad;  // of grad = W(pooled dims)
  };
  const std::vector<Case> cases{
      {{1, 4, 4, 2},
       {1, 3, 3, 1},
       {1, 2, 2, 1},
       "SAME",
       {0, 3, 0, 0, 0, 0, 0, 0,  0, 0, 0,  0, -1, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0, -3, 0, 0, -3, 0, 0,  2, 0, 0},
       {-2.0 / 9,   1.0 / 3, -2.0 / 9,   1.0 / 3, -1.0 / 18, 1.0 / 6,  1.0 / 6, -1.0 / 6,
        -2.0 / 9,   1.0 / 3, -2.0 / 9,   1.0 / 3, -1.0 / 18, 1.0 / 6,  1.0 / 6, -1.0 / 6,
        -13.0 / 18, 2.0 / 3, -13.0 / 18, 2.0 / 3, -5.0 / 9,  0,        1.0 / 6, -2.0 / 3,
        -0.5,       1.0 / 3, -0.5,       1.0 / 3, -0.5,      -1.0 / 6, 0,       -0.5}},
      {{1, 3, 3, 1},
       {2},
       {1},
       "SAME",
       {0, 1, 1, 0, -4, 2, 0, -2, 3},
       {-0.5, 0.25, 1.25, -0.75, -0.75, 1.5, -0.25, -2, 2.25}},
  };
  for (const Case& k : cases) {
    CAPTURE(dims_to_string(k.x));
    Graph g;
    auto guard = g.as_default();
    auto x = constant(xpat<double>(k.x));
    auto m = nn::max_pool(x, k.ksize, k.strides, k.padding);
    auto dy = constant(wpat<double>(m.get_shape().dims()));
    auto mg = nn::max_pool_grad(x, m, dy, k.ksize, k.strides, k.padding);
    auto ag =
        nn::avg_pool_grad(constant(detail::int32_vector(k.x)), dy, k.ksize, k.strides, k.padding);
    CHECK(mg.name() == "MaxPoolGrad:0");
    CHECK(ag.name() == "AvgPoolGrad:0");
    CHECK(mg.get_shape() == Shape(k.x));
    CHECK(ag.get_shape() == Shape(k.x));
    Session sess(g);
    CHECK(sess.run(mg).to_vector<double>() == k.max_grad);
    check_close(sess.run(ag).to_vector<double>(), k.avg_grad, 1e-12, false);
  }
  // Ties go to the first maximum of each window, row by row (TF: [12, 9, 0, 15, 9, 0, 0,
  // 0, 0] for ones(3x3), 3x3 SAME windows, grads 1..9; [0, 11, 0, 0, 1100, 0, 0, 0, 0]).
  Graph g;
  auto guard = g.as_default();
  Session sess(g);
  auto ones = constant(Value::filled<float>({1, 3, 3, 1}, 1.0f));
  auto m = nn::max_pool(ones, {3}, {1}, "SAME");
  auto grads = constant(Value::from_vector<float>({1, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 3, 3, 1}));
  CHECK(sess.run(nn::max_pool_grad(ones, m, grads, {3}, {1}, "SAME")).to_vector<float>() ==
        std::vector<float>{12, 9, 0, 15, 9, 0, 0, 0, 0});
  auto x2 = constant(Value::from_vector<float>({1, 2, 2, 1, 2, 2, 0, 0, 0}, {1, 3, 3, 1}));
  auto m2 = nn::max_pool(x2, {2}, {1}, "VALID");
  auto g2 = constant(Value::from_vector<float>({1, 10, 100, 1000}, {1, 2, 2, 1}));
  CHECK(sess.run(nn::max_pool_grad(x2, m2, g2, {2}, {1}, "VALID")).to_vector<float>() ==
        std::vector<float>{0, 11, 0, 0, 1100, 0, 0, 0, 0});
  // TF: "Expected grad shape to be [1,3,3,3], but got [1,2,3,3]"; AvgPoolGrad's shape from
  // a size vector fed at run time is unknown: (?, ?, ?, ?).
  auto z = constant(Value(DType::float32, {1, 5, 5, 3}));
  auto bad = nn::max_pool_grad(z, constant(Value(DType::float32, {1, 3, 3, 3})),
                               constant(Value(DType::float32, {1, 2, 3, 3})), {2}, {2}, "SAME");
  auto e = thrown<InvalidArgumentError>([&] { sess.run(bad); });
  REQUIRE(e);
  CHECK(e->message() == "Expected grad shape to be [1,3,3,3], but got [1,2,3,3]");
  CHECK(nn::avg_pool_grad(placeholder<std::int32_t>(Shape{4}),
                          placeholder<float>(Shape{1, 3, 3, 3}), {2}, {2}, "SAME")
            .get_shape()
            .to_string() == "(?, ?, ?, ?)");
  auto v = thrown<ValueError>([&] {
    nn::max_pool_grad(placeholder<float>(Shape{1, 5, 5}), placeholder<float>(Shape{1, 3, 3, 3}),
                      placeholder<float>(Shape{1, 3, 3, 3}), {2}, {2}, "SAME");
  });
  REQUIRE(v);
  CHECK(contains(v->message(), "Shape must be rank 4 but is rank 3"));
}

TEST_CASE("nn/max_pool and avg_pool: larger shapes match direct loops") {
  struct Case {
    Dims x;
    std::int64_t kh, kw, sh, sw;
    bool same;
  };
  const std::vector<Case> cases{
      {{4, 64, 64, 32}, 3, 3, 1, 1, true},
      {{3, 11, 13, 5}, 3, 2, 2, 3, true},
      {{3, 11, 13, 5}, 2, 4, 3, 2, false},
      {{2, 28, 28, 32}, 2, 2, 2, 2, true},
  };
  unsigned seed = 7;
  for (const Case& k : cases) {
    CAPTURE(dims_to_string(k.x));
    const RefConv ref({k.x[0], k.x[1], k.x[2], 1}, {k.kh, k.kw, 1, 1}, k.sh, k.sw, 1, 1, k.same);
    const std::int64_t c = k.x[3];
    const Dims ydims{ref.n, ref.oh, ref.ow, c};
    Value x = random_value<double>(k.x, seed++);
    Value dy = random_value<double>(ydims, seed++);
    const double* xv = x.data<double>();
    const double* dyv = dy.data<double>();
    const auto ny = static_cast<std::size_t>(num_elements(ydims));
    std::vector<double> mx(ny, -std::numeric_limits<double>::infinity()), avg(ny, 0.0),
        cnt(ny, 0.0);
    std::vector<std::int64_t> arg(ny, -1);
    // The reference walks windows in row-major order, so ">" keeps the first maximum.
    ref.each([&](std::int64_t xi, std::int64_t, std::int64_t yi0) {
      for (std::int64_t ch = 0; ch < c; ++ch) {
        const auto yi = static_cast<std::size_t>(yi0 * c + ch);
        const double v = xv[xi * c + ch];
        if (v > mx[yi]) {
          mx[yi] = v;
          arg[yi] = xi * c + ch;
        }
        avg[yi] += v;
        cnt[yi] += 1;
      }
    });
    std::vector<double> dmax(static_cast<std::size_t>(x.size()), 0.0), davg(dmax);
    for (std::size_t i = 0; i < ny; ++i) {
      avg[i] /= cnt[i];
      dmax[static_cast<std::size_t>(arg[i])] += dyv[i];
    }
    ref.each([&](std::int64_t xi, std::int64_t, std::int64_t yi0) {
      for (std::int64_t ch = 0; ch < c; ++ch) {
        const auto yi = static_cast<std::size_t>(yi0 * c + ch);
        davg[static_cast<std::size_t>(xi * c + ch)] += dyv[yi] / cnt[yi];
      }
    });
    Graph g;
    auto guard = g.as_default();
    const std::vector<std::int64_t> ksize{1, k.kh, k.kw, 1}, strides{1, k.sh, k.sw, 1};
    const char* padding = k.same ? "SAME" : "VALID";
    auto xc = constant(x);
    auto m = nn::max_pool(xc, ksize, strides, padding);
    auto a = nn::avg_pool(xc, ksize, strides, padding);
    auto mg = nn::max_pool_grad(xc, m, constant(dy), ksize, strides, padding);
    auto ag = nn::avg_pool_grad(constant(detail::int32_vector(k.x)), constant(dy), ksize, strides,
                                padding);
    CHECK(m.get_shape() == Shape(ydims));
    Session sess(g);
    CHECK(sess.run(m).to_vector<double>() == mx);
    check_close(sess.run(a).to_vector<double>(), avg, 1e-12, false);
    CHECK(sess.run(mg).to_vector<double>() == dmax);
    check_close(sess.run(ag).to_vector<double>(), davg, 1e-12, false);
  }
}

// ---- atrous_conv2d ---------------------------------------------------------------------

// np.arange(60).reshape(1, 5, 6, 2) * 0.1 - 2 and np.arange(18).reshape(3, 3, 2, 1) * 0.05
// - 0.3, in float32 (the oracle's inputs for atrous_conv2d).
inline Value atrous_input() {
  std::vector<float> v(60);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i) * 0.1f - 2.0f;
  return Value::from_vector(v, {1, 5, 6, 2});
}
inline Value atrous_filter() {
  std::vector<float> v(18);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i) * 0.05f - 0.3f;
  return Value::from_vector(v, {3, 3, 2, 1});
}

TEST_CASE("nn/atrous_conv2d: the graph TensorFlow 1.x builds, and its constants") {
  Graph g;
  auto guard = g.as_default();
  Output x = placeholder(DType::float32, Shape{2, 7, 7, 3}, "x");
  Output f = constant(Value(DType::float32, {3, 3, 3, 2}), "f");
  Output same = nn::atrous_conv2d(x, f, 2, "SAME");
  Output valid = nn::atrous_conv2d(x, f, 2, "VALID");
  Output plain = nn::atrous_conv2d(x, f, 1, "SAME");
  std::vector<std::string> built;
  for (const auto& [name, type] : nodes(g))
    if (name != "x" && name != "f") built.push_back(name + ":" + type);
  // TF (tf.nn.atrous_conv2d through tf.nn.convolution's _WithSpaceToBatch):
  CHECK(built == std::vector<std::string>{
                     "convolution/dilation_rate:Const",
                     "convolution/filter_shape:Const",
                     "convolution/stack:Const",
                     "convolution/required_space_to_batch_paddings/input_shape:Const",
                     "convolution/required_space_to_batch_paddings/paddings:Const",
                     "convolution/required_space_to_batch_paddings/crops:Const",
                     "convolution/SpaceToBatchND/block_shape:Const",
                     "convolution/SpaceToBatchND/paddings:Const",
                     "convolution/SpaceToBatchND:SpaceToBatchND",
                     "convolution:Conv2D",
                     "convolution/BatchToSpaceND/block_shape:Const",
                     "convolution/BatchToSpaceND/crops:Const",
                     "convolution/BatchToSpaceND:BatchToSpaceND",
                     "convolution_1/dilation_rate:Const",
                     "convolution_1/required_space_to_batch_paddings/input_shape:Const",
                     "convolution_1/required_space_to_batch_paddings/base_paddings:Const",
                     "convolution_1/required_space_to_batch_paddings/paddings:Const",
                     "convolution_1/required_space_to_batch_paddings/crops:Const",
                     "convolution_1/SpaceToBatchND/block_shape:Const",
                     "convolution_1/SpaceToBatchND/paddings:Const",
                     "convolution_1/SpaceToBatchND:SpaceToBatchND",
                     "convolution_1:Conv2D",
                     "convolution_1/BatchToSpaceND/block_shape:Const",
                     "convolution_1/BatchToSpaceND/crops:Const",
                     "convolution_1/BatchToSpaceND:BatchToSpaceND",
                     "convolution_2:Conv2D"});
  CHECK(same.shape() == Shape{2, 7, 7, 2});
  CHECK(valid.shape() == Shape{2, 3, 3, 2});
  CHECK(plain.shape() == Shape{2, 7, 7, 2});
  const Operation conv = g.get_operation_by_name("convolution");
  CHECK(input_names(conv) == std::vector<std::string>{"convolution/SpaceToBatchND:0", "f:0"});
  CHECK(conv.get_attr<std::string>("padding") == "VALID");
  CHECK(conv.get_attr<IntList>("strides").items == std::vector<std::int64_t>{1, 1, 1, 1});
  CHECK(conv.get_attr<IntList>("dilations").items == std::vector<std::int64_t>{1, 1, 1, 1});
  CHECK(plain.op().get_attr<std::string>("padding") == "SAME");
  Session sess(g);
  auto ints = [&](const std::string& name) {
    return sess.run(g.get_operation_by_name(name).output(0)).to_vector<std::int32_t>();
  };
  using V = std::vector<std::int32_t>;
  // TF: stack [[2, 2], [2, 2]]; paddings [[2, 3], [2, 3]]; crops [[0, 1], [0, 1]].
  CHECK(ints("convolution/dilation_rate") == V{2, 2});
  CHECK(ints("convolution/filter_shape") == V{3, 3, 3, 2});
  CHECK(ints("convolution/stack") == V{2, 2, 2, 2});
  CHECK(ints("convolution/required_space_to_batch_paddings/input_shape") == V{7, 7});
  CHECK(ints("convolution/SpaceToBatchND/paddings") == V{2, 3, 2, 3});
  CHECK(ints("convolution/BatchToSpaceND/crops") == V{0, 1, 0, 1});
  CHECK(ints("convolution_1/required_space_to_batch_paddings/base_paddings") == V{0, 0, 0, 0});
  CHECK(ints("convolution_1/SpaceToBatchND/paddings") == V{0, 1, 0, 1});
  CHECK(ints("convolution_1/BatchToSpaceND/crops") == V{0, 1, 0, 1});
}

TEST_CASE("nn/atrous_conv2d: values against TF") {
  Graph g;
  auto guard = g.as_default();
  Output x = constant(atrous_input(), "x");
  Output f = constant(atrous_filter(), "f");
  Output same = nn::atrous_conv2d(x, f, 2, "SAME");
  Output valid = nn::atrous_conv2d(x, f, 2, "VALID");
  Output three = nn::atrous_conv2d(x, f, 3, "SAME", "rate3");
  CHECK(three.op().name() == "rate3/BatchToSpaceND");
  Tensor<float> typed = nn::atrous_conv2d(Tensor<float>(x), Tensor<float>(f), 2, "SAME");
  CHECK(same.shape() == Shape{1, 5, 6, 1});
  CHECK(valid.shape() == Shape{1, 1, 2, 1});
  CHECK(three.shape() == Shape{1, 5, 6, 1});
  Session sess(g);
  // TF's values (float32).
  check_close(sess.run(same).to_vector<float>(),
              {0.1f,  0.62f, 1.34f, 2.0f,  1.26f,   1.62f,   3.22f, 3.74f, 5.3f,  5.96f,
               3.42f, 3.78f, 7.26f, 7.68f, 11.055f, 11.505f, 6.84f, 7.02f, 1.66f, 1.7f,
               2.24f, 2.18f, 0.9f,  0.78f, 1.9f,    1.94f,   1.88f, 1.82f, 0.18f, 0.06f},
              1e-5, false);
  check_close(sess.run(valid).to_vector<float>(), {11.055f, 11.505f}, 1e-5, false);
  CHECK(sess.run(Output(typed)).to_vector<float>() == sess.run(same).to_vector<float>());
  check_close(sess.run(three).to_vector<float>(),
              {2.68f, 3.2f,  3.72f, 2.56f, 2.92f, 3.28f, 5.8f,  6.32f, 6.84f, 4.72f,
               5.08f, 5.44f, 0.59f, 0.73f, 0.87f, 0.29f, 0.35f, 0.41f, 2.32f, 2.36f,
               2.4f,  2.2f,  2.08f, 1.96f, 2.56f, 2.6f,  2.64f, 1.48f, 1.36f, 1.24f},
              1e-5, false);
  // The paddings TF computed for rate 3: [[3, 4], [3, 3]], crops [[0, 1], [0, 0]].
  CHECK(sess.run(g.get_operation_by_name("rate3/SpaceToBatchND/paddings").output(0))
            .to_vector<std::int32_t>() == std::vector<std::int32_t>{3, 4, 3, 3});
  CHECK(sess.run(g.get_operation_by_name("rate3/BatchToSpaceND/crops").output(0))
            .to_vector<std::int32_t>() == std::vector<std::int32_t>{0, 1, 0, 0});
}

TEST_CASE("nn/atrous_conv2d: bad arguments give TensorFlow's errors") {
  Graph g;
  auto guard = g.as_default();
  Output x = placeholder(DType::float32, Shape{1, 5, 6, 2}, "x");
  Output f = placeholder(DType::float32, Shape{3, 3, 2, 1}, "f");
  auto message = [](auto&& fn) {
    auto e = thrown<ValueError>(fn);
    REQUIRE(e.has_value());
    return std::string(e->what());
  };
  CHECK(message([&] { nn::atrous_conv2d(x, f, 0, "SAME"); }) ==
        "all values of `dilation_rate` must be positive. Received: dilation_rate=[0 0]");
  CHECK(message([&] { nn::atrous_conv2d(x, f, 2, "FOO"); }) ==
        "`padding` must be one of 'SAME' or 'VALID'. Received: padding=FOO");
  CHECK(message([&] {
          nn::atrous_conv2d(x, placeholder(DType::float32, Shape{3, 3, 4, 1}), 2, "SAME");
        }) ==
        "The number of input channels is not divisible by the corresponding number of output "
        "filters. Received: input.shape=(1, 5, 6, 2) with 2 channels and filters.shape=(3, 3, 4, "
        "1) with 4 output filters.");
  CHECK(message([&] {
          nn::atrous_conv2d(placeholder(DType::float32, Shape{5, 6, 2}), f, 2, "SAME");
        }) ==
        "`input.shape.rank` must be >= than `num_spatial_dims + 2`. Received: input.shape=(5, 6, "
        "2) of rank 3 and num_spatial_dims=2");
  // TF computes the paddings with ops when the spatial dims are unknown; symflow does not.
  CHECK(thrown<UnimplementedError>([&] {
    nn::atrous_conv2d(placeholder(DType::float32, Shape{-1, -1, -1, 2}), f, 2, "SAME");
  }));
}

}  // namespace symflow_test_ops_conv_ops_test
