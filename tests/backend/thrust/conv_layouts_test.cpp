// The Thrust kernels of the depthwise ops with data_format "NCHW" and of MaxPool and
// MaxPoolGrad with explicit padding, against the CPU kernels: each graph runs in a default
// session (its ops on "/device:GPU:0") and in a CPU-only session, and the results are
// compared.
//
// Tolerances (relative to 1 + |cpu value|): the depthwise forward sums its taps in the CPU's
// order, and the backprops in another (kernels_conv.cuh): 1e-5 for float32, 1e-12 for
// float64. MaxPool picks the CPU's maxima: exact. MaxPoolGrad adds in the CPU's order: exact
// on Thrust's host systems, 1e-5 / 1e-12 under CUDA (as conv_training_random_test allows
// the pooling gradients).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <symflow/symflow.hpp>

#include "../../test_util.hpp"
#include "thrust_fixture.hpp"

namespace symflow_test_backend_thrust_conv_layouts_test {

namespace tf = symflow;
using namespace tf::test::gpu;

namespace {

template <class T>
void compare(const tf::Graph& g, const tf::Output& out, double tol) {
  CAPTURE(out.op().type());
  const GpuAndCpu v = run_on_gpu_and_cpu(g, {out});
  check_near<T>(v.gpu[0], v.cpu[0], tol);
}

template <class T>
double depthwise_tol() {
  return sizeof(T) == 4 ? 1e-5 : 1e-12;
}
template <class T>
double same_formula_tol() {
  return kCuda ? depthwise_tol<T>() : 0.0;
}

// One NCHW depthwise case: the forward op and both backprops, SAME or explicit pads.
template <class T>
void check_depthwise_nchw(bool explicit_pads) {
  CAPTURE(explicit_pads);
  tf::Graph g;
  auto guard = g.as_default();
  const tf::Dims in_dims{2, 3, 7, 6}, filter_dims{3, 2, 3, 2};
  auto x = tf::constant(random_value<T>(in_dims, 1));
  auto f = tf::constant(random_value<T>(filter_dims, 2));
  tf::nn::DepthwiseConv2dNativeOptions options{.data_format = "NCHW"};
  std::string padding = "SAME";
  if (explicit_pads) {
    options.explicit_paddings = {0, 0, 0, 0, 2, 1, 0, 1};
    padding = "EXPLICIT";
  }
  const std::vector<std::int64_t> strides{1, 1, 2, 2};
  auto y = tf::nn::depthwise_conv2d_native(x, f, strides, padding, options);
  REQUIRE(y.get_shape().is_fully_defined());
  auto dy = tf::constant(random_value<T>(y.get_shape().dims(), 3));
  auto dx = tf::nn::depthwise_conv2d_native_backprop_input(int32_vector(in_dims), f, dy, strides,
                                                           padding, options);
  auto df = tf::nn::depthwise_conv2d_native_backprop_filter(x, int32_vector(filter_dims), dy,
                                                            strides, padding, options);
  compare<T>(g, y, depthwise_tol<T>());
  compare<T>(g, dx, depthwise_tol<T>());
  compare<T>(g, df, depthwise_tol<T>());
}

// MaxPool with explicit pads and its gradient, NHWC and NCHW.
template <class T>
void check_max_pool_explicit(const char* data_format) {
  CAPTURE(data_format);
  const bool nchw = std::string(data_format) == "NCHW";
  tf::Graph g;
  auto guard = g.as_default();
  const tf::Dims in_dims = nchw ? tf::Dims{2, 3, 7, 6} : tf::Dims{2, 7, 6, 3};
  auto x = tf::constant(random_value<T>(in_dims, 4));
  const std::vector<std::vector<std::int64_t>> pads =
      nchw ? std::vector<std::vector<std::int64_t>>{{0, 0}, {0, 0}, {2, 1}, {1, 0}}
           : std::vector<std::vector<std::int64_t>>{{0, 0}, {2, 1}, {1, 0}, {0, 0}};
  auto y = tf::nn::max_pool(x, {3, 2}, {2, 1}, pads, {.data_format = data_format});
  REQUIRE(y.get_shape().is_fully_defined());
  auto dy = tf::constant(random_value<T>(y.get_shape().dims(), 5));
  std::vector<std::int64_t> flat;
  for (const auto& p : pads) flat.insert(flat.end(), p.begin(), p.end());
  auto dx = tf::nn::max_pool_grad(x, y, dy, {3, 2}, {2, 1}, "EXPLICIT", {}, data_format, flat);
  compare<T>(g, y, 0.0);
  compare<T>(g, dx, same_formula_tol<T>());
}

}  // namespace

TEST_CASE("thrust/conv_layouts: depthwise NCHW, SAME and explicit pads, against the CPU") {
  check_depthwise_nchw<float>(false);
  check_depthwise_nchw<float>(true);
  check_depthwise_nchw<double>(false);
  check_depthwise_nchw<double>(true);
}

TEST_CASE("thrust/conv_layouts: MaxPool and MaxPoolGrad with explicit pads, against the CPU") {
  check_max_pool_explicit<float>("NHWC");
  check_max_pool_explicit<float>("NCHW");
  check_max_pool_explicit<double>("NHWC");
}

TEST_CASE("thrust/conv_layouts: a pad as large as the window fails on the GPU as on the CPU") {
  tf::Graph g;
  auto guard = g.as_default();
  auto y = tf::nn::max_pool(tf::constant(random_value<float>({1, 4, 5, 2}, 6)), {2, 3}, {2, 2},
                            {{0, 0}, {1, 2}, {1, 1}, {0, 0}});
  check_same_error(y, "Bottom padding 2 needs to be smaller than the window size 2");
}

}  // namespace symflow_test_backend_thrust_conv_layouts_test
