// The Thrust kernels of the conv, training and random families against the CPU kernels:
// each graph runs in a default session (its ops on "/device:GPU:0") and in a CPU-only
// session, and the results are compared.
//
// Tolerances (relative to 1 + |cpu value|):
// - Conv2D, Conv2DBackpropInput, Conv2DBackpropFilter sum in another order than the CPU's
//   im2col + GEMM: 2e-5 for float32, 1e-12 for float64.
// - Pooling, the update ops and the random ops use the CPU's formulas in the CPU's order:
//   exact on Thrust's host systems (OMP, CPP); under CUDA, nvcc's FMA contraction and the
//   device's libm (normal samples) allow 1e-5 (float32) and 1e-12 (float64).
// - Uniform floats, random integers, shuffles and MaxPool are exact everywhere.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <symflow/symflow.hpp>
#include <symflow/train/train.hpp>

#include "../../test_util.hpp"
#include "thrust_fixture.hpp"

namespace symflow_test_backend_thrust_conv_training_random_test {

namespace tf = symflow;
using namespace tf::test::gpu;

namespace {

// The tolerance of a kernel that uses the CPU's formulas in the CPU's order.
template <class T>
double same_formula_tol() {
  if (!kCuda) return 0.0;
  return sizeof(T) == 4 ? 1e-5 : 1e-12;
}
// The tolerance of a convolution (sums in another order).
template <class T>
double conv_tol() {
  return sizeof(T) == 4 ? 2e-5 : 1e-12;
}

// Runs `out` in a default session and a CPU-only one, checks where its op ran in each,
// and compares the values.
template <class T>
void compare(const tf::Graph& g, const tf::Output& out, double tol) {
  const GpuAndCpu v = run_on_gpu_and_cpu(g, {out});
  check_near<T>(v.gpu[0], v.cpu[0], tol);
}

// ---- conv ------------------------------------------------------------------------------------

struct ConvCase {
  tf::Dims input, filter;
  std::vector<std::int64_t> strides, dilations;
  std::string padding;
};

template <class T>
void check_conv_case(const ConvCase& c) {
  CAPTURE(tf::dims_to_string(c.input));
  CAPTURE(tf::dims_to_string(c.filter));
  CAPTURE(c.padding);
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::constant(random_value<T>(c.input, 1));
  auto f = tf::constant(random_value<T>(c.filter, 2));
  auto y = tf::nn::conv2d(x, f, c.strides, c.padding, {.dilations = c.dilations});
  REQUIRE(y.get_shape().is_fully_defined());
  auto dy = tf::constant(random_value<T>(y.get_shape().dims(), 3));
  auto dx = tf::nn::conv2d_backprop_input(int32_vector(c.input), f, dy, c.strides, c.padding,
                                          {.dilations = c.dilations});
  auto df = tf::nn::conv2d_backprop_filter(x, int32_vector(c.filter), dy, c.strides, c.padding,
                                           {.dilations = c.dilations});
  compare<T>(g, y, conv_tol<T>());
  compare<T>(g, dx, conv_tol<T>());
  compare<T>(g, df, conv_tol<T>());
}

const std::vector<ConvCase> kConvCases = {
    {{2, 9, 8, 3}, {3, 3, 3, 4}, {1, 1}, {1, 1}, "SAME"},
    {{2, 10, 9, 3}, {3, 2, 3, 5}, {2, 3}, {1, 1}, "VALID"},
    {{1, 11, 10, 2}, {3, 3, 2, 3}, {1, 1}, {2, 2}, "SAME"},
    {{3, 7, 7, 4}, {2, 3, 4, 2}, {2, 2}, {1, 2}, "SAME"},
    {{2, 8, 6, 3}, {3, 2, 3, 2}, {2, 1}, {2, 1}, "VALID"},
    {{2, 5, 5, 6}, {1, 1, 6, 3}, {1, 1}, {1, 1}, "VALID"},  // pointwise
    {{1, 3, 3, 2}, {5, 5, 2, 2}, {1, 1}, {1, 1}, "SAME"},   // filter larger than the input
    {{2, 16, 16, 8}, {5, 5, 8, 16}, {2, 2}, {1, 1}, "SAME"},
};

// ---- pooling ---------------------------------------------------------------------------------

struct PoolCase {
  tf::Dims input;
  std::vector<std::int64_t> ksize, strides;
  std::string padding;
  bool ties;
};

template <class T>
void check_pool_case(const PoolCase& c) {
  CAPTURE(tf::dims_to_string(c.input));
  CAPTURE(c.padding);
  CAPTURE(c.ties);
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::constant(random_value<T>(c.input, 4, -1.0, 1.0, c.ties));
  auto mp = tf::nn::max_pool(x, c.ksize, c.strides, c.padding);
  auto ap = tf::nn::avg_pool(x, c.ksize, c.strides, c.padding);
  REQUIRE(mp.get_shape().is_fully_defined());
  auto dy = tf::constant(random_value<T>(mp.get_shape().dims(), 5));
  auto mpg = tf::nn::max_pool_grad(x, mp, dy, c.ksize, c.strides, c.padding);
  auto apg = tf::nn::avg_pool_grad(int32_vector(c.input), dy, c.ksize, c.strides, c.padding);
  compare<T>(g, mp, 0.0);
  compare<T>(g, ap, same_formula_tol<T>());
  compare<T>(g, mpg, same_formula_tol<T>());
  compare<T>(g, apg, same_formula_tol<T>());
}

const std::vector<PoolCase> kPoolCases = {
    {{2, 9, 8, 3}, {3, 3}, {1, 1}, "SAME", true},  // overlapping windows, many ties
    {{2, 9, 8, 3}, {3, 3}, {2, 2}, "SAME", true},   {{2, 9, 8, 3}, {2, 3}, {2, 1}, "VALID", true},
    {{3, 10, 7, 5}, {3, 2}, {1, 2}, "SAME", false}, {{1, 6, 6, 2}, {2, 2}, {2, 2}, "VALID", false},
    {{2, 4, 5, 3}, {5, 5}, {3, 3}, "SAME", true},  // windows larger than the input
    {{1, 12, 12, 4}, {4, 3}, {3, 2}, "SAME", true},
};

// ---- training ----------------------------------------------------------------------------------

const tf::Dims kVarDims{4, 5};

template <class T>
tf::Variable make_var(unsigned seed, const std::string& name, double lo = -1.0, double hi = 1.0) {
  return tf::Variable(random_value<T>(kVarDims, seed, lo, hi), {.name = name});
}

// Runs `step` five times in a default and a CPU-only session and compares every variable.
template <class T>
void compare_steps(const tf::Graph& g, const tf::Output& step,
                   const std::vector<tf::Variable>& vars) {
  tf::Session gpu(g);
  tf::Session cpu(g, cpu_only());
  CHECK(gpu.device_of(step.op()) == kGpu);
  CHECK(cpu.device_of(step.op()) == kCpu);
  for (const tf::Variable& v : vars) {
    CHECK(gpu.device_of(v.op()) == kGpu);
    CHECK(cpu.device_of(v.op()) == kCpu);
  }
  for (tf::Session* s : {&gpu, &cpu}) {
    s->run(tf::global_variables_initializer());
    for (int i = 0; i < 5; ++i) s->run(step);
  }
  for (const tf::Variable& v : vars) {
    CAPTURE(v.name());
    const tf::Value got = gpu.run(v.value());
    const tf::Value want = cpu.run(v.value());
    check_near<T>(got, want, same_formula_tol<T>());
    // The variable moved from its initial value.
    CHECK_FALSE(got == cpu.run(v.initial_value()));
  }
}

template <class T>
void check_update_ops() {
  {
    tf::Graph g;
    auto guard = g.as_default();
    auto var = make_var<T>(10, "var");
    auto grad = tf::constant(random_value<T>(kVarDims, 11));
    compare_steps<T>(g, tf::apply_gradient_descent(var, T(0.1), grad), {var});
  }
  for (bool nesterov : {false, true}) {
    CAPTURE(nesterov);
    tf::Graph g;
    auto guard = g.as_default();
    auto var = make_var<T>(12, "var"), accum = make_var<T>(13, "accum");
    auto grad = tf::constant(random_value<T>(kVarDims, 14));
    compare_steps<T>(g, tf::apply_momentum(var, accum, T(0.05), grad, T(0.9), false, nesterov),
                     {var, accum});
  }
  for (bool nesterov : {false, true}) {
    CAPTURE(nesterov);
    tf::Graph g;
    auto guard = g.as_default();
    auto var = make_var<T>(15, "var"), m = make_var<T>(16, "m"), v = make_var<T>(17, "v", 0.0, 1.0);
    auto grad = tf::constant(random_value<T>(kVarDims, 18));
    compare_steps<T>(g,
                     tf::apply_adam(var, m, v, T(0.729), T(0.997), T(0.01), T(0.9), T(0.999),
                                    T(1e-7), grad, false, nesterov),
                     {var, m, v});
  }
  {
    tf::Graph g;
    auto guard = g.as_default();
    auto var = make_var<T>(19, "var"), ms = make_var<T>(20, "ms", 0.0, 1.0),
         mom = make_var<T>(21, "mom");
    auto grad = tf::constant(random_value<T>(kVarDims, 22));
    compare_steps<T>(g, tf::apply_rms_prop(var, ms, mom, T(0.01), T(0.9), T(0.5), T(1e-6), grad),
                     {var, ms, mom});
  }
  {
    tf::Graph g;
    auto guard = g.as_default();
    auto var = make_var<T>(23, "var"), mg = make_var<T>(24, "mg", -0.1, 0.1),
         ms = make_var<T>(25, "ms", 0.5, 1.0), mom = make_var<T>(26, "mom");
    auto grad = tf::constant(random_value<T>(kVarDims, 27));
    compare_steps<T>(
        g, tf::apply_centered_rms_prop(var, mg, ms, mom, T(0.01), T(0.9), T(0.5), T(1e-6), grad),
        {var, mg, ms, mom});
  }
  for (bool update_slots : {true, false}) {
    CAPTURE(update_slots);
    tf::Graph g;
    auto guard = g.as_default();
    auto var = make_var<T>(28, "var"), accum = make_var<T>(29, "accum", 0.1, 1.0);
    auto grad = tf::constant(random_value<T>(kVarDims, 30));
    std::vector<tf::Variable> vars{var};
    if (update_slots) vars.push_back(accum);
    compare_steps<T>(g, tf::apply_adagrad(var, accum, T(0.1), grad, false, update_slots), vars);
  }
}

// ---- random ------------------------------------------------------------------------------------

tf::Output random_float_op(const tf::OpDef& def, const tf::Dims& dims, tf::DType dtype,
                           std::int64_t seed, std::int64_t seed2) {
  tf::Graph g = tf::get_default_graph();
  return g
      .create_op(def, {int32_vector(dims)},
                 {{"dtype", dtype}, {"seed", seed}, {"seed2", seed2}, {"T", tf::DType::int32}},
                 std::string(def.type))
      .output(0);
}

// Three runs in each session: the GPU's sequence is the CPU's, run after run.
template <class T>
void compare_runs(const tf::Graph& g, const tf::Output& out, double tol) {
  tf::Session gpu(g);
  tf::Session cpu(g, cpu_only());
  CHECK(gpu.device_of(out.op()) == kGpu);
  CHECK(cpu.device_of(out.op()) == kCpu);
  tf::Value previous;
  for (int run = 0; run < 3; ++run) {
    CAPTURE(run);
    const tf::Value got = gpu.run(out);
    check_near<T>(got, cpu.run(out), tol);
    if (got.size() > 1) CHECK_FALSE(got == previous);  // the sequence goes on
    previous = got;
  }
}

}  // namespace

TEST_CASE("thrust/conv: Conv2D and its gradients match the CPU, float32 and float64") {
  for (const ConvCase& c : kConvCases) {
    check_conv_case<float>(c);
    check_conv_case<double>(c);
  }
}

TEST_CASE("thrust/conv: pooling and its gradients match the CPU, ties routed alike") {
  for (const PoolCase& c : kPoolCases) {
    check_pool_case<float>(c);
    check_pool_case<double>(c);
  }
}

TEST_CASE("thrust/conv: MaxPool and MaxPoolGrad ignore NaNs as the CPU does") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // 4x4, one channel: the top-left 2x2 window is all NaN, another has one NaN, and
  // there are ties.
  const std::vector<float> xs{nan, nan, 1,  3,    //
                              nan, nan, 3,  nan,  //
                              2,   2,   0,  -1,   //
                              2,   -5,  -1, 0};
  for (const std::string padding : {"VALID", "SAME"}) {
    CAPTURE(padding);
    tf::Graph g;
    auto guard = g.as_default();
    auto x = tf::constant(tf::Value::from_vector(xs, {1, 4, 4, 1}));
    const std::vector<std::int64_t> ksize =
        padding == "VALID" ? std::vector<std::int64_t>{2, 2} : std::vector<std::int64_t>{3, 3};
    const std::vector<std::int64_t> strides =
        padding == "VALID" ? std::vector<std::int64_t>{2, 2} : std::vector<std::int64_t>{1, 1};
    auto mp = tf::nn::max_pool(x, ksize, strides, padding);
    auto dy = tf::constant(random_value<float>(mp.get_shape().dims(), 6));
    auto mpg = tf::nn::max_pool_grad(x, mp, dy, ksize, strides, padding);
    compare<float>(g, mp, 0.0);
    compare<float>(g, mpg, 0.0);  // sums of dy only: exact everywhere
  }
}

TEST_CASE("thrust/conv: the GPU kernels fail as the CPU's do") {
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::constant(random_value<float>({1, 4, 4, 2}, 7));
  auto f = tf::constant(random_value<float>({2, 2, 2, 3}, 8));
  auto dy = tf::placeholder(tf::DType::float32);
  // out_backprop of the wrong shape, found when the kernel runs.
  auto dx = tf::nn::conv2d_backprop_input(int32_vector({1, 4, 4, 2}), f, dy, {1, 1}, "VALID");
  auto orig = tf::placeholder(tf::DType::int32);
  auto apg = tf::nn::avg_pool_grad(orig, dy, {2, 2}, {2, 2}, "VALID");
  tf::Session gpu(g);
  tf::Session cpu(g, cpu_only());
  CHECK(gpu.device_of(dx.op()) == kGpu);
  CHECK(gpu.device_of(apg.op()) == kGpu);
  const tf::Value bad_dy = random_value<float>({1, 2, 2, 3}, 9);
  auto gpu_error = tf::test::thrown<tf::InvalidArgumentError>([&] { gpu.run(dx, {{dy, bad_dy}}); });
  auto cpu_error = tf::test::thrown<tf::InvalidArgumentError>([&] { cpu.run(dx, {{dy, bad_dy}}); });
  REQUIRE(gpu_error);
  REQUIRE(cpu_error);
  CHECK(gpu_error->message() == cpu_error->message());
  CHECK(gpu_error->message().find("out_backprop has shape [1,2,2,3]") != std::string::npos);
  // orig_input_shape not a 4-vector, read on the host from device memory.
  const tf::FeedDict feeds{{orig, tf::Value({1, 4, 4})},
                           {dy, random_value<float>({1, 2, 2, 2}, 9)}};
  auto gpu_sizes = tf::test::thrown<tf::InvalidArgumentError>([&] { gpu.run(apg, feeds); });
  auto cpu_sizes = tf::test::thrown<tf::InvalidArgumentError>([&] { cpu.run(apg, feeds); });
  REQUIRE(gpu_sizes);
  REQUIRE(cpu_sizes);
  CHECK(gpu_sizes->message() == cpu_sizes->message());
  // And with good sizes both run.
  const tf::FeedDict good{{orig, tf::Value({1, 4, 4, 2})},
                          {dy, random_value<float>({1, 2, 2, 2}, 9)}};
  check_near<float>(gpu.run(apg, good), cpu.run(apg, good), same_formula_tol<float>());
}

TEST_CASE("thrust/training: every update op steps its variables as the CPU does") {
  check_update_ops<float>();
  check_update_ops<double>();
}

TEST_CASE("thrust/training: a value read before the update keeps what it read") {
  tf::Graph g;
  auto guard = g.as_default();
  auto var = make_var<float>(31, "var");
  auto grad = tf::constant(random_value<float>(kVarDims, 32));
  auto step = tf::apply_gradient_descent(var, 0.5f, grad);
  tf::Session gpu(g);
  gpu.run(var.initializer());
  const tf::Value before = gpu.run(var.value());
  const tf::Value after = gpu.run(step);
  CHECK(gpu.device_of(step.op()) == kGpu);
  CHECK_FALSE(before == after);
  CHECK(gpu.run(var.value()) == after);
  // var -= 0.5 * grad, element by element.
  const std::vector<float> b = before.to_vector<float>(), a = after.to_vector<float>(),
                           d = random_value<float>(kVarDims, 32).to_vector<float>();
  for (std::size_t i = 0; i < a.size(); ++i) CHECK(a[i] == doctest::Approx(b[i] - d[i] * 0.5f));
}

TEST_CASE("thrust/training: update errors are the CPU's") {
  tf::Graph g;
  auto guard = g.as_default();
  auto var = make_var<float>(33, "var");
  auto grad = tf::placeholder(tf::DType::float32);
  auto step = tf::apply_gradient_descent(var, 0.5f, grad);
  tf::Session gpu(g);
  tf::Session cpu(g, cpu_only());
  CHECK(gpu.device_of(step.op()) == kGpu);
  const tf::FeedDict good{{grad, random_value<float>(kVarDims, 34)}};
  auto gpu_uninit = tf::test::thrown<tf::FailedPreconditionError>([&] { gpu.run(step, good); });
  auto cpu_uninit = tf::test::thrown<tf::FailedPreconditionError>([&] { cpu.run(step, good); });
  REQUIRE(gpu_uninit);
  REQUIRE(cpu_uninit);
  CHECK(gpu_uninit->message() == cpu_uninit->message());
  CHECK(gpu_uninit->message() == "Attempting to use uninitialized value var");
  gpu.run(var.initializer());
  cpu.run(var.initializer());
  const tf::FeedDict bad{{grad, random_value<float>({3}, 34)}};
  auto gpu_shape = tf::test::thrown<tf::InvalidArgumentError>([&] { gpu.run(step, bad); });
  auto cpu_shape = tf::test::thrown<tf::InvalidArgumentError>([&] { cpu.run(step, bad); });
  REQUIRE(gpu_shape);
  REQUIRE(cpu_shape);
  CHECK(gpu_shape->message() == cpu_shape->message());
  CHECK(gpu_shape->message().find("var and delta do not have the same shape") != std::string::npos);
  check_near<float>(gpu.run(step, good), cpu.run(step, good), same_formula_tol<float>());
}

TEST_CASE("thrust/training: Adam trains a small conv net on the GPU as on the CPU") {
  // conv 3x3 (SAME) -> max pool 2x2 -> squared error against a target; Adam, 6 steps.
  auto train = [](const tf::ConfigProto& config) {
    tf::Graph g;
    auto guard = g.as_default();
    auto x = tf::constant(random_value<float>({2, 8, 8, 3}, 40));
    auto target = tf::constant(random_value<float>({2, 4, 4, 4}, 41));
    tf::Variable w(random_value<float>({3, 3, 3, 4}, 42, -0.5, 0.5), {.name = "w"});
    auto y = tf::nn::max_pool(tf::nn::conv2d(x, w, {1, 1}, "SAME"), {2, 2}, {2, 2}, "VALID");
    auto loss = tf::reduce_sum(tf::square(tf::subtract(y, target)));
    tf::train::AdamOptimizer opt({.learning_rate = 0.05});
    tf::Operation step = opt.minimize(loss);
    tf::Session sess(g, config);
    sess.run(tf::global_variables_initializer());
    std::vector<float> losses;
    for (int i = 0; i < 6; ++i) {
      losses.push_back(sess.run(loss).scalar<float>());
      sess.run(step);
    }
    std::vector<float> out = sess.run(w.value()).to_vector<float>();
    out.insert(out.end(), losses.begin(), losses.end());
    // Where the variable, its update and the conv ops ran.
    std::set<std::string> devices;
    for (const tf::Operation& op : g.get_operations())
      if (op.type() == "ApplyAdam" || op.type() == "VariableV2" || op.type() == "Conv2D" ||
          op.type() == "Conv2DBackpropFilter" || op.type() == "MaxPool" ||
          op.type() == "MaxPoolGrad")
        devices.insert(op.type() + " " + sess.device_of(op));
    return std::pair{out, devices};
  };
  auto [cpu, cpu_devices] = train(cpu_only());
  auto [gpu, gpu_devices] = train(tf::ConfigProto{});
  // One VariableV2 per Adam slot too: all on the GPU with their ApplyAdam.
  CHECK(gpu_devices == std::set<std::string>{"ApplyAdam " + kGpu, "Conv2D " + kGpu,
                                             "Conv2DBackpropFilter " + kGpu, "MaxPool " + kGpu,
                                             "MaxPoolGrad " + kGpu, "VariableV2 " + kGpu});
  CHECK(cpu_devices.size() == 6);
  REQUIRE(cpu.size() == gpu.size());
  // Conv sums differ in order: agree to 1e-4, relative.
  for (std::size_t i = 0; i < cpu.size(); ++i) {
    CAPTURE(i);
    CHECK(gpu[i] == doctest::Approx(cpu[i]).epsilon(1e-4));
  }
  CHECK(gpu.back() < gpu[gpu.size() - 6]);  // the loss went down
}

TEST_CASE("thrust/random: float samples are the CPU's, run after run") {
  const std::vector<tf::Dims> shapes{{1001}, {3, 7}, {1}, {0}};
  for (const tf::Dims& dims : shapes) {
    CAPTURE(tf::dims_to_string(dims));
    for (tf::DType dtype : {tf::DType::float32, tf::DType::float64}) {
      CAPTURE(tf::dtype_name(dtype));
      tf::Graph g;
      auto guard = g.as_default();
      auto uniform = random_float_op(tf::detail::kRandomUniformOp, dims, dtype, 87654321, 7);
      auto normal = random_float_op(tf::detail::kRandomStandardNormalOp, dims, dtype, 5, 9);
      auto truncated = random_float_op(tf::detail::kTruncatedNormalOp, dims, dtype, 1, 2);
      if (dtype == tf::DType::float32) {
        compare_runs<float>(g, uniform, 0.0);
        compare_runs<float>(g, normal, same_formula_tol<float>());
        compare_runs<float>(g, truncated, same_formula_tol<float>());
      } else {
        compare_runs<double>(g, uniform, 0.0);
        compare_runs<double>(g, normal, same_formula_tol<double>());
        compare_runs<double>(g, truncated, same_formula_tol<double>());
      }
    }
  }
}

TEST_CASE("thrust/random: TensorFlow's numbers on the GPU, and a new session starts over") {
  tf::Graph g;
  auto guard = g.as_default();
  // The same op as ops/random_ops_test.cpp: tf.random_uniform([7], seed=7), second run.
  tf::Tensor<float> u = tf::random_uniform<float>({7}, {.seed = 7});
  tf::Tensor<float> t = tf::truncated_normal<float>({2, 3}, {.seed = 7});
  tf::Session gpu(g);
  const tf::Operation op = g.get_operation_by_name("random_uniform/RandomUniform");
  CHECK(gpu.device_of(op) == kGpu);
  CHECK(gpu.device_of(g.get_operation_by_name("truncated_normal/TruncatedNormal")) == kGpu);
  const std::vector<float> first = gpu.run(u).to_vector<float>();
  tf::test::check_close(
      gpu.run(u).to_vector<float>(),
      {0.6494907f, 0.7774228f, 0.56091046f, 0.6347549f, 0.8317703f, 0.99999213f, 0.3522669f});
  tf::test::check_close(gpu.run(t).to_vector<float>(), {-0.046945684f, -1.2039024f, 1.1668352f,
                                                        1.1706204f, 0.7166261f, 0.5711335f});
  tf::Session fresh(g);
  CHECK(fresh.run(u).to_vector<float>() == first);
}

TEST_CASE("thrust/random: RandomUniformInt is the CPU's, int32 and int64") {
  tf::Graph g;
  auto guard = g.as_default();
  auto small =
      tf::random_uniform({1001}, tf::DType::int32, {.minval = -5, .maxval = 10, .seed = 3});
  auto wide = tf::random_uniform({3, 5}, tf::DType::int32,
                                 {.minval = -2000000000, .maxval = 2000000000, .seed = 4});
  auto big = tf::random_uniform(
      {1001}, tf::DType::int64,
      {.minval = -(std::int64_t{1} << 62), .maxval = std::int64_t{1} << 62, .seed = 5});
  auto odd =
      tf::random_uniform({7}, tf::DType::int64, {.maxval = std::int64_t{1} << 40, .seed = 7});
  compare_runs<std::int32_t>(g, small, 0.0);
  compare_runs<std::int32_t>(g, wide, 0.0);
  compare_runs<std::int64_t>(g, big, 0.0);
  compare_runs<std::int64_t>(g, odd, 0.0);
  // TensorFlow's numbers (ops/random_ops_test.cpp), on the GPU.
  tf::Graph g2;
  auto guard2 = g2.as_default();
  auto i = tf::random_uniform({6}, tf::DType::int32, {.minval = -5, .maxval = 10, .seed = 7});
  tf::Session gpu(g2);
  CHECK(gpu.device_of(i.op()) == kGpu);
  CHECK(gpu.run(i).to_vector<std::int32_t>() == std::vector<std::int32_t>{7, 2, 5, -1, 5, 3});
  // The CPU's error, only when there is something to draw.
  auto bad = tf::random_uniform({2}, tf::DType::int32, {.minval = 5, .maxval = 3});
  auto empty = tf::random_uniform({0}, tf::DType::int32, {.minval = 5, .maxval = 3});
  CHECK(gpu.device_of(bad.op()) == kGpu);
  auto e = tf::test::thrown<tf::InvalidArgumentError>([&] { gpu.run(bad); });
  REQUIRE(e);
  CHECK(e->message() == "Need minval < maxval, got 5 >= 3");
  CHECK(gpu.run(empty).dims() == tf::Dims{0});
}

TEST_CASE("thrust/random: RandomShuffle permutes rows as the CPU does, any dtype") {
  tf::Graph g;
  auto guard = g.as_default();
  std::vector<std::int32_t> range(1000);
  for (std::size_t i = 0; i < range.size(); ++i) range[i] = static_cast<std::int32_t>(i);
  auto ints = tf::random_shuffle(tf::constant(tf::Value::from_vector(range, {1000})), {.seed = 7});
  auto rows = tf::random_shuffle(tf::constant(random_value<float>({50, 3}, 50)), {.seed = 8});
  auto doubles =
      tf::random_shuffle(tf::constant(random_value<double>({20, 2, 2}, 51)), {.seed = 9});
  std::vector<std::int64_t> longs(33);
  for (std::size_t i = 0; i < longs.size(); ++i) longs[i] = static_cast<std::int64_t>(i) << 35;
  auto wide =
      tf::random_shuffle(tf::constant(tf::Value::from_vector(longs, {11, 3})), {.seed = 10});
  std::vector<std::uint8_t> bytes(40);
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::uint8_t>(i);
  auto small = tf::random_shuffle(tf::constant(tf::Value::from_vector(bytes, {40})), {.seed = 11});
  auto bools =
      tf::random_shuffle(tf::constant(tf::Value({true, false, false, true, false})), {.seed = 12});
  auto one_row = tf::random_shuffle(tf::constant(random_value<float>({1, 4}, 52)), {.seed = 13});
  compare_runs<std::int32_t>(g, ints, 0.0);
  compare_runs<float>(g, rows, 0.0);
  compare_runs<double>(g, doubles, 0.0);
  compare_runs<std::int64_t>(g, wide, 0.0);
  compare_runs<std::uint8_t>(g, small, 0.0);
  // Five bools repeat a permutation by chance: compare values only.
  tf::Session gpu(g);
  tf::Session cpu(g, cpu_only());
  CHECK(gpu.device_of(bools.op()) == kGpu);
  for (int run = 0; run < 3; ++run) {
    CHECK(gpu.run(bools) == cpu.run(bools));
    CHECK(gpu.run(one_row) == cpu.run(one_row));
  }
  // TensorFlow's permutation (ops/random_ops_test.cpp).
  tf::Graph g2;
  auto guard2 = g2.as_default();
  std::vector<std::int32_t> ten(10);
  for (std::size_t i = 0; i < ten.size(); ++i) ten[i] = static_cast<std::int32_t>(i);
  auto s = tf::random_shuffle(tf::constant(tf::Value::from_vector(ten, {10})), {.seed = 7});
  tf::Session sess(g2);
  CHECK(sess.device_of(s.op()) == kGpu);
  CHECK(sess.run(s).to_vector<std::int32_t>() ==
        std::vector<std::int32_t>{7, 2, 0, 9, 8, 4, 5, 1, 6, 3});
}

}  // namespace symflow_test_backend_thrust_conv_training_random_test
