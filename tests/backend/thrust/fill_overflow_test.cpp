// The Thrust backend's Fill checks its dims as the CPU kernel does: a negative dim, or an
// element count past int64 (multiplied left to right, as TensorFlow's TensorShape does), is
// the CPU's InvalidArgumentError, with TensorFlow 2.21's messages, raised before anything
// is allocated on the device.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include <symflow/symflow.hpp>

#include "thrust_fixture.hpp"

namespace symflow_test_backend_thrust_fill_overflow_test {

namespace tf = symflow;
using namespace tf::test::gpu;

namespace {

constexpr std::int64_t k2to40 = std::int64_t{1} << 40;
constexpr std::int64_t k2to62 = std::int64_t{1} << 62;

tf::Value int64_dims(const std::vector<std::int64_t>& dims) {
  return tf::Value::from_vector(dims, {static_cast<std::int64_t>(dims.size())});
}

}  // namespace

TEST_CASE("thrust/fill: an element count past int64 fails on the GPU with the CPU's error") {
  tf::Graph g;
  auto guard = g.as_default();
  auto dims = tf::placeholder(tf::DType::int64, tf::Shape{-1}, "dims");
  auto filled = tf::fill(dims, tf::constant(1.5f), "filled");
  // tf.fill(dims, 1.5) fed [2**40, 2**40], [2**40, 2**40, 0] and [3, 2**62].
  check_same_error(filled,
                   "Shape [1099511627776,1099511627776] would have more than 2**63 - 1 elements",
                   {{dims, int64_dims({k2to40, k2to40})}});
  check_same_error(filled,
                   "Shape [1099511627776,1099511627776,0] would have more than 2**63 - 1 elements",
                   {{dims, int64_dims({k2to40, k2to40, 0})}});
  check_same_error(filled, "Shape [3,4611686018427387904] would have more than 2**63 - 1 elements",
                   {{dims, int64_dims({3, k2to62})}});
  // A negative dim: TensorFlow's words, no longer the backend's own.
  check_same_error(filled, "Dimension -1 must be >= 0", {{dims, int64_dims({-1, 2})}});
}

TEST_CASE("thrust/fill: dims that fit still fill on the GPU as on the CPU") {
  tf::Graph g;
  auto guard = g.as_default();
  auto dims = tf::placeholder(tf::DType::int64, tf::Shape{-1}, "dims");
  auto filled = tf::fill(dims, tf::constant(1.5f), "filled");
  for (const std::vector<std::int64_t>& d :
       {std::vector<std::int64_t>{2, 3}, std::vector<std::int64_t>{0, k2to40}}) {
    const GpuAndCpu v = run_on_gpu_and_cpu(g, {filled}, {{dims, int64_dims(d)}});
    CHECK(v.gpu[0].dims() == tf::Dims(d.begin(), d.end()));
    CHECK(v.gpu[0] == v.cpu[0]);
  }
}

}  // namespace symflow_test_backend_thrust_fill_overflow_test
