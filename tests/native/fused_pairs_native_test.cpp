// The fused kernel's pair loops compiled for this machine (-march=native) with GNU
// extensions, the flags of symflow's benchmarks: where the CPU has FMA, g++ would turn
// a product and a sum into one FMA unless the loop forbids it (backend/cpu/fused_pairs.hpp),
// and fused results would no longer equal the node-by-node ones.
//
// It runs the CPU's fused kernel directly on a program of Mul and Add, as the planner
// would fuse x * y + z, without a Session: a header-only Session would compile every CPU
// kernel for this machine (minutes on CI), and this test checks the pair loops only.
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include <symflow/backend/cpu/fused.hpp>
#include <symflow/backend/cpu/fused_kernel.hpp>
#include <symflow/ops/defs/math.hpp>

#include "../backend/kernel_test_support.hpp"

namespace symflow_test_native_fused_pairs_native_test {

namespace tf = symflow;

namespace {

// Inputs in [-3, 3).
std::vector<float> random_floats(std::size_t n, unsigned seed) {
  return symflow_test_kernel_support::random_floats(n, seed, -3.0f, 3.0f);
}

// x * y rounded, then + z rounded: what Mul and Add do one node at a time. The
// volatile store keeps the compiler from contracting the two here.
float mul_then_add(float x, float y, float z) {
  volatile float product = x * y;
  return product + z;
}

}  // namespace

TEST_CASE("native/fusion: a product and a sum in one pair loop are rounded one by one") {
  const std::size_t n = 1000;  // seven full blocks and a partial one
  const std::vector<float> a = random_floats(n, 1), b = random_floats(n, 2),
                           c = random_floats(n, 3);
  // The data tells the two roundings apart: for some elements one FMA gives other bits.
  std::size_t differ = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (std::fma(a[i], b[i], c[i]) != mul_then_add(a[i], b[i], c[i])) ++differ;
  REQUIRE(differ > 0);

  // Mul(x, y) -> Add(product, z): a pair the kernel runs as one loop.
  tf::FusedProgram program{.dtype = tf::DType::float32,
                           .num_inputs = 3,
                           .num_outputs = 1,
                           .num_scratch = 1,
                           .steps = {}};
  program.steps.push_back(
      {.def = &tf::cpu::elementwise_def<tf::detail::MulFn, 2>, .args = {0, 1}, .scratch = 0});
  program.steps.push_back(
      {.def = &tf::cpu::elementwise_def<tf::detail::AddFn, 2>, .args = {3, 2}, .output = 0});
  const tf::Dims dims{static_cast<std::int64_t>(n)};
  const std::array<tf::Value, 3> inputs{tf::Value::from_vector(a, dims),
                                        tf::Value::from_vector(b, dims),
                                        tf::Value::from_vector(c, dims)};
  std::array<tf::Value, 1> outputs;
  REQUIRE(tf::cpu::run_fused(program, inputs, dims, outputs));
  const std::vector<float> got = outputs[0].to_vector<float>();
  REQUIRE(got.size() == n);
  std::size_t mismatches = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (got[i] != mul_then_add(a[i], b[i], c[i])) ++mismatches;
  CHECK(mismatches == 0);
}

}  // namespace symflow_test_native_fused_pairs_native_test
