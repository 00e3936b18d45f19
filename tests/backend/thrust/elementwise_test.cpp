// The Thrust backend's elementwise kernels and fused clusters: a cluster runs on the GPU
// in one pass with the node-by-node bits, broadcasting and its errors are the CPU's, and
// one op of each group (unary, binary, comparison, logical, Cast, Select, AddN) gives the
// CPU's results.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <symflow/backend/cpu/cpu_backend.hpp>
#include <symflow/backend/thrust/fused.cuh>
#include <symflow/backend/thrust/kernel_util.cuh>
#include <symflow/backend/thrust/probe.hpp>
#include <symflow/ops/registry.hpp>
#include <symflow/symflow.hpp>

#include "../../test_util.hpp"
#include "thrust_fixture.hpp"

namespace symflow_test_backend_thrust_elementwise_test {

namespace tf = symflow;
using namespace tf::test::gpu;

namespace {

tf::ConfigProto unfused() {
  tf::ConfigProto config;
  config.graph_options.optimizer_options.do_fusion = false;
  return config;
}

template <class T>
tf::Value random_value(tf::Dims dims, unsigned seed, double lo = -3.0, double hi = 3.0) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<T> v(static_cast<std::size_t>(tf::num_elements(dims)));
  for (T& x : v) x = static_cast<T>(dist(gen));
  return tf::Value::from_vector(v, std::move(dims));
}

// The GPU's results against the CPU's: equal bits where the device is the host (Thrust's
// OpenMP and C++ systems run the very same functors); under CUDA the device's exp, tanh,
// ... may differ from the host's libm in the last bits. `approximate`: the graph has float
// Sigmoid or Tanh, which the CPU computes with Eigen's vectorised approximations, as
// TensorFlow's CPU kernels do (backend/cpu/eigen_unary.hpp), and the GPU with libm's.
void check_same_as_cpu(const tf::Value& gpu, const tf::Value& cpu, bool approximate = false) {
  REQUIRE(gpu.dtype() == cpu.dtype());
  REQUIRE(gpu.dims() == cpu.dims());
#if defined(SYMFLOW_THRUST_CUDA)
  approximate = true;
#endif
  if (approximate && gpu.dtype() == tf::DType::float32) {
    tf::test::check_close(gpu.to_vector<float>(), cpu.to_vector<float>(), 1e-5);
    return;
  }
#if defined(SYMFLOW_THRUST_CUDA)
  if (gpu.dtype() == tf::DType::float64) {
    tf::test::check_close(gpu.to_vector<double>(), cpu.to_vector<double>(), 1e-12);
    return;
  }
#endif
  CHECK(gpu == cpu);
}

// Runs `fetch` on the GPU (default placement) and on a CPU-only session, and compares.
tf::Value run_gpu_and_cpu(const tf::Graph& g, const tf::Output& fetch,
                          const tf::FeedDict& feeds = {}) {
  const GpuAndCpu v = run_on_gpu_and_cpu(g, {fetch}, feeds);
  check_same_as_cpu(v.gpu[0], v.cpu[0]);
  return v.gpu[0];
}

}  // namespace

TEST_CASE("thrust/elementwise: a cluster runs fused on the GPU with the unfused bits") {
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder<float>({-1, -1}, "x");
  auto scaled = tf::multiply(x, tf::constant(1.5f), "scaled");
  auto shifted = tf::add(scaled, tf::constant(0.25f), "shifted");
  auto squashed = tf::tanh(shifted, "squashed");
  auto gate = tf::sigmoid(x, "gate");
  auto gated = tf::multiply(squashed, gate, "gated");
  auto y = tf::nn::relu(tf::subtract(gated, tf::exp(gate, "e"), "diff"), "y");
  tf::FeedDict feeds{{x, random_value<float>({64, 128}, 1)}};

  tf::Session sess(g);
  const auto clusters = sess.fused_clusters({y}, feeds);
  REQUIRE(clusters.size() == 1);
  CHECK(clusters[0].size() == 8);
  for (const std::string& name : clusters[0]) {
    CAPTURE(name);
    CHECK(sess.device_of(g.get_operation_by_name(name)) == kGpu);
  }
  const tf::Value fused = sess.run(y, feeds);
  CHECK(fused.dims() == tf::Dims{64, 128});

  tf::Session node_by_node(g, unfused());
  CHECK(node_by_node.fused_clusters({y}, feeds).empty());
  CHECK(fused == node_by_node.run(y, feeds));  // bit for bit
  tf::Session cpu(g, cpu_only());
  check_same_as_cpu(fused, cpu.run(y, feeds), /*approximate=*/true);
  // The same again, a second run of the cached plan.
  CHECK(sess.run(y, feeds) == fused);
}

TEST_CASE(
    "thrust/elementwise: fused clusters broadcast, materialise several outputs, and fall back") {
  tf::Graph g;
  auto guard = g.as_default();
  auto m = tf::placeholder<double>({-1, -1}, "m");
  auto row = tf::placeholder<double>({-1}, "row");
  auto col = tf::placeholder<double>({-1, 1}, "col");
  auto s = tf::placeholder<double>({}, "s");
  auto mid = tf::maximum(m * row + s, col);  // fetched and read on
  auto y = tf::sqrt(tf::abs(mid)) / tf::square(col + 1.5) - tf::nn::elu(row);
  tf::FeedDict feeds{{m, random_value<double>({37, 53}, 2)},
                     {row, random_value<double>({53}, 3)},
                     {col, random_value<double>({37, 1}, 4)},
                     {s, tf::Value(0.75)}};
  tf::Session sess(g);
  const auto clusters = sess.fused_clusters({mid, y}, feeds);
  REQUIRE(clusters.size() == 1);
  const auto fused = sess.run({mid, y}, feeds);
  tf::Session node_by_node(g, unfused());
  const auto plain = node_by_node.run({mid, y}, feeds);
  CHECK(fused[0] == plain[0]);
  CHECK(fused[1] == plain[1]);
  tf::Session cpu(g, cpu_only());
  const auto on_cpu = cpu.run({mid, y}, feeds);
  check_same_as_cpu(fused[0], on_cpu[0]);
  check_same_as_cpu(fused[1], on_cpu[1]);

  // [R, 1, C] against [R, K, C]: the general strided read.
  auto p = tf::placeholder<float>({-1, -1, -1}, "p");
  auto q = tf::placeholder<float>({-1, -1, -1}, "q");
  auto w = tf::tanh(p * q + 1.0f) * q;
  tf::FeedDict pq{{p, random_value<float>({40, 1, 90}, 5)},
                  {q, random_value<float>({40, 5, 90}, 6)}};
  REQUIRE(sess.fused_clusters({w}, pq).size() == 1);
  CHECK(sess.run(w, pq) == node_by_node.run(w, pq));

  // A cluster of more steps than the device program takes runs node by node, same bits.
  tf::Output chain = p;
  for (int i = 0; i < 40; ++i) chain = tf::nn::relu(chain * 1.01f - 0.01f);
  tf::FeedDict big{{p, random_value<float>({16, 16, 32}, 7)}};
  const auto long_clusters = sess.fused_clusters({chain}, big);
  REQUIRE(long_clusters.size() == 1);
  CHECK(long_clusters[0].size() > 32);
  CHECK(sess.run(chain, big) == node_by_node.run(chain, big));
}

TEST_CASE("thrust/elementwise: broadcasting and its errors are the CPU's") {
  tf::Graph g;
  auto guard = g.as_default();
  auto a = tf::placeholder<float>(tf::Shape::unknown(), "a");
  auto b = tf::placeholder<float>(tf::Shape::unknown(), "b");
  auto sum = tf::add(a, b, "sum");
  const tf::Value col{{1.0f}, {2.0f}, {3.0f}};
  const tf::Value row{{10.0f, 20.0f, 30.0f, 40.0f}};
  tf::Value got = run_gpu_and_cpu(g, sum, {{a, col}, {b, row}});
  CHECK(got.dims() == tf::Dims{3, 4});
  CHECK(got.to_vector<float>() ==
        std::vector<float>{11, 21, 31, 41, 12, 22, 32, 42, 13, 23, 33, 43});
  // Long layouts (more axes than a kernel carries by value) and scalars.
  run_gpu_and_cpu(g, sum,
                  {{a, random_value<float>({2, 1, 2, 1, 2, 1, 2, 1, 2, 1}, 8)},
                   {b, random_value<float>({1, 2, 1, 2, 1, 2, 1, 2, 1, 2}, 9)}});
  run_gpu_and_cpu(g, sum, {{a, tf::Value(2.0f)}, {b, random_value<float>({5, 7}, 10)}});
  run_gpu_and_cpu(g, sum,
                  {{a, random_value<float>({0, 3}, 11)}, {b, random_value<float>({3}, 12)}});

  check_same_error(sum, "Incompatible shapes: [2,3] vs. [4]",
                   {{a, random_value<float>({2, 3}, 13)}, {b, random_value<float>({4}, 14)}});
  // The same-shape "XxxGrad" ops refuse broadcasting.
  auto grad = tf::Output(tf::detail::OpBuilder(g, "relu_grad", "ReluGrad")
                             .build(tf::detail::kReluGradOp, {a, b}, {{"T", tf::DType::float32}})
                             .output(0));
  check_same_error(grad, "Incompatible shapes: [3,1] vs. [1,4]", {{a, col}, {b, row}});
  // Integer division by zero, checked on a host copy of y.
  auto i = tf::placeholder<std::int32_t>(tf::Shape::unknown(), "i");
  auto j = tf::placeholder<std::int32_t>(tf::Shape::unknown(), "j");
  auto quotient = tf::divide(i, j);
  check_same_error(quotient, "Integer division by zero",
                   {{i, tf::Value{7, 8, 9}}, {j, tf::Value{1, 0, 2}}});
  tf::Value q = run_gpu_and_cpu(g, quotient, {{i, tf::Value{7, -8, 9}}, {j, tf::Value{2, -1, -4}}});
  CHECK(q.to_vector<std::int32_t>() == std::vector<std::int32_t>{3, 8, -2});
}

TEST_CASE("thrust/elementwise: one op of each group gives the CPU's results") {
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder<float>({-1, -1}, "x");
  auto y = tf::placeholder<float>({-1}, "y");
  tf::FeedDict feeds{{x, random_value<float>({9, 11}, 20)}, {y, random_value<float>({11}, 21)}};
  // Unary, on a non-fused path (a single node).
  run_gpu_and_cpu(g, tf::log1p(tf::abs(x)), feeds);
  run_gpu_and_cpu(g, tf::nn::leaky_relu(x, 0.3f), feeds);
  // Binary with a row broadcast; integer wrap-around.
  run_gpu_and_cpu(g, tf::pow(tf::abs(x), y), feeds);
  auto n = tf::placeholder<std::int32_t>({-1}, "n");
  tf::Value big = run_gpu_and_cpu(g, tf::multiply(n, n), {{n, tf::Value{65536, -3, 46341}}});
  CHECK(big.to_vector<std::int32_t>()[1] == 9);
  // Comparison: bool output, broadcast.
  tf::Value less = run_gpu_and_cpu(g, tf::less(x, y), feeds);
  CHECK(less.dtype() == tf::DType::bool_);
  // Logical.
  auto p = tf::placeholder<bool>({-1}, "p");
  auto q = tf::placeholder<bool>({-1}, "q");
  tf::FeedDict bools{{p, tf::Value{true, true, false, false}},
                     {q, tf::Value{true, false, true, false}}};
  tf::Value xored = run_gpu_and_cpu(g, tf::logical_xor(p, q), bools);
  CHECK(xored.to_vector<bool>() == std::vector<bool>{false, true, true, false});
  // Cast: float to int truncates, NaN and out of range give the lowest value.
  auto f = tf::placeholder<float>({-1}, "f");
  tf::Value ints =
      run_gpu_and_cpu(g, tf::cast(f, tf::DType::int32), {{f, tf::Value{1.7f, -2.9f, NAN, 3e9f}}});
  CHECK(ints.to_vector<std::int32_t>() == std::vector<std::int32_t>{1, -2, INT32_MIN, INT32_MIN});
  run_gpu_and_cpu(g, tf::cast(x, tf::DType::uint8), feeds);
  run_gpu_and_cpu(g, tf::cast(p, tf::DType::float64), bools);
  // Select: a condition of x's shape, and a vector over the first axis.
  auto cond = tf::placeholder<bool>({-1, -1}, "cond");
  auto e = tf::placeholder<float>({-1, -1}, "e");
  auto t = tf::placeholder<float>({-1, -1}, "t");
  tf::FeedDict sel{{cond, tf::Value{{true, false, true}, {false, false, true}}},
                   {t, tf::Value{{1.0f, 2.0f, 3.0f}, {4.0f, 5.0f, 6.0f}}},
                   {e, tf::Value{{-1.0f, -2.0f, -3.0f}, {-4.0f, -5.0f, -6.0f}}}};
  tf::Value chosen = run_gpu_and_cpu(g, tf::where(cond, t, e), sel);
  CHECK(chosen.to_vector<float>() == std::vector<float>{1, -2, 3, -4, -5, 6});
  auto rows = tf::placeholder<bool>({-1}, "rows");
  tf::Value by_row =
      run_gpu_and_cpu(g, tf::where(rows, t, e), {{rows, tf::Value{false, true}}, sel[1], sel[2]});
  CHECK(by_row.to_vector<float>() == std::vector<float>{-1, -2, -3, 4, 5, 6});
  // AddN over more inputs than one device pass takes.
  std::vector<tf::Output> terms;
  for (int k = 0; k < 11; ++k) terms.push_back(x * static_cast<float>(k + 1));
  run_gpu_and_cpu(g, tf::add_n(terms), feeds);
  // Fill, ZerosLike and OnesLike.
  tf::Value filled = run_gpu_and_cpu(g, tf::fill(tf::constant(tf::Value{2, 3}), tf::constant(7)));
  CHECK(filled.to_vector<std::int32_t>() == std::vector<std::int32_t>(6, 7));
  tf::Value ones = run_gpu_and_cpu(g, tf::ones_like(x), feeds);
  CHECK(ones.to_vector<float>() == std::vector<float>(99, 1.0f));
  run_gpu_and_cpu(g, tf::zeros_like(p), bools);
}

TEST_CASE("thrust/elementwise: run_fused runs a program in one pass, or declines it untouched") {
  namespace tb = tf::thrust_backend;
  namespace sd = tf::detail;
  // The steps' defs are the GPU backend's, as the fusion planner gives them.
  const tf::Backend* gpu = tb::probe({}).backend;
  REQUIRE(gpu != nullptr);
  // out0 = (x + y) * exp(x), out1 = tanh(out0), x [4, 5] and y [5] broadcast to [4, 5].
  tf::FusedProgram program;
  program.dtype = tf::DType::float32;
  program.num_inputs = 2;
  program.num_outputs = 2;
  program.num_scratch = 2;
  program.steps = {{gpu->elementwise(sd::kAddOp), {0, 1}, 0, -1},
                   {gpu->elementwise(sd::kExpOp), {0}, 1, -1},
                   {gpu->elementwise(sd::kMulOp), {2, 3}, -1, 0},
                   {gpu->elementwise(sd::kTanhOp), {4}, -1, 1}};
  for (const tf::FusedStep& step : program.steps) REQUIRE(step.def != nullptr);
  const tf::Value x = random_value<float>({4, 5}, 30);
  const tf::Value y = random_value<float>({5}, 31);
  const std::vector<tf::Value> inputs{tb::copy_to_device(x), tb::copy_to_device(y)};
  const tf::Dims dims{4, 5};
  std::vector<tf::Value> outputs(2);
  REQUIRE(tb::run_fused(program, inputs, dims, outputs));
  REQUIRE(outputs[0].on_device());
  REQUIRE(outputs[1].on_device());
  tf::Value want0(tf::DType::float32, dims), want1(tf::DType::float32, dims);
  for (std::int64_t i = 0; i < 20; ++i) {
    const float a = x.data<float>()[i], b = y.data<float>()[i % 5];
    want0.data<float>()[i] = sd::MulFn{}(sd::AddFn{}(a, b), sd::ExpFn{}(a));
    want1.data<float>()[i] = sd::TanhFn{}(want0.data<float>()[i]);
  }
  check_same_as_cpu(tb::copy_to_host(outputs[0]), want0);
  check_same_as_cpu(tb::copy_to_host(outputs[1]), want1);

  // Declined, with the outputs left as they were: inputs that do not broadcast to the
  // output shape, another dtype, an op the device has no code for, too many steps.
  auto declined = [&](const tf::FusedProgram& p, const std::vector<tf::Value>& in) {
    std::vector<tf::Value> out(static_cast<std::size_t>(p.num_outputs));
    const bool ran = tb::run_fused(p, in, dims, out);
    for (const tf::Value& v : out) CHECK(v.is_none());
    return !ran;
  };
  CHECK(declined(program, {inputs[0], tb::copy_to_device(random_value<float>({4}, 32))}));
  CHECK(declined(program, {inputs[0], tb::copy_to_device(tf::Value{1.0, 2.0, 3.0, 4.0, 5.0})}));
  tf::FusedProgram unknown = program;
  const tf::ElementwiseDef other{.arity = 1};
  unknown.steps[1].def = &other;
  CHECK(declined(unknown, inputs));
  tf::FusedProgram longer = program;
  for (int k = 0; k < 30; ++k)
    longer.steps.push_back(
        {gpu->elementwise(sd::kNegOp), {static_cast<int>(longer.steps.size()) + 1}, -1, -1});
  CHECK(longer.steps.size() > 32);
  CHECK(declined(longer, inputs));
}

TEST_CASE("thrust/elementwise: every fusible op has a device op code, a kernel and the CPU's def") {
  namespace tb = tf::thrust_backend;
  const tf::Backend& cpu = tf::cpu::backend();
  const tf::Backend& gpu = *tb::probe({}).backend;
  int fusible = 0;
  for (const auto& entry : tf::kAllOps) {
    CAPTURE(entry.def->type);
    const tf::ElementwiseDef* def = cpu.elementwise(*entry.def);
    // The GPU gives each op the very ElementwiseDef the CPU gives it (fused.cuh knows a
    // step's op by that pointer): today it fuses every op the CPU fuses, and no other.
    CHECK(gpu.elementwise(*entry.def) == def);
    if (!def) continue;
    ++fusible;
    tb::fused_detail::OpInfo info{};
    CHECK(tb::fused_detail::op_info(def, info));
    CHECK(info.arity == def->arity);
    CHECK(static_cast<bool>(gpu.kernel(*entry.def)));
  }
  CHECK(fusible == 41);
}

}  // namespace symflow_test_backend_thrust_elementwise_test
