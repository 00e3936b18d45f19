// The fused kernel's pair loops compiled for this machine (-march=native) with GNU
// extensions, the flags of symflow's benchmarks: where the CPU has FMA, g++ would turn
// a product and a sum into one FMA unless the loop forbids it (backend/cpu/fused_pairs.hpp),
// and fused results would no longer equal the node-by-node ones.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include <symflow/symflow.hpp>

namespace symflow_test_native_fused_pairs_native_test {

namespace tf = symflow;

namespace {

std::vector<float> random_floats(std::size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-3.0f, 3.0f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(gen);
  return v;
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

  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder<float>({-1}, "x");
  auto y = tf::placeholder<float>({-1}, "y");
  auto z = tf::placeholder<float>({-1}, "z");
  auto out = x * y + z;
  const tf::Dims dims{static_cast<std::int64_t>(n)};
  const tf::FeedDict feeds{{x, tf::Value::from_vector(a, dims)},
                           {y, tf::Value::from_vector(b, dims)},
                           {z, tf::Value::from_vector(c, dims)}};
  tf::Session sess(g);
  REQUIRE(sess.fused_clusters({out}, feeds).size() == 1);
  const std::vector<float> got = sess.run(out, feeds).to_vector<float>();
  REQUIRE(got.size() == n);
  std::size_t mismatches = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (got[i] != mul_then_add(a[i], b[i], c[i])) ++mismatches;
  CHECK(mismatches == 0);
}

}  // namespace symflow_test_native_fused_pairs_native_test
