#pragma once
// What the tests of the CPU's raw kernels (convolutions, products, fused loops) share:
// a ThreadPool as the kernels' runner, and seeded random inputs.

#include <cstddef>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include <symflow/backend/thread_pool.hpp>

namespace symflow_test_kernel_support {

// A ThreadPool as the runner the CPU kernels take (their runners are const).
struct PoolRunner {
  symflow::ThreadPool* pool;
  template <class Fn>
  void parallel_for(std::int64_t n, std::int64_t min_chunk, Fn&& fn) const {
    pool->parallel_for(n, min_chunk, std::forward<Fn>(fn));
  }
  template <class Fn>
  void parallel_for_chunks(std::int64_t n, std::int64_t min_chunk, Fn&& fn) const {
    pool->parallel_for_chunks(n, min_chunk, std::forward<Fn>(fn));
  }
  std::int64_t num_chunks(std::int64_t n, std::int64_t min_chunk) const {
    return pool->num_chunks(n, min_chunk);
  }
  int num_threads() const { return pool->num_threads(); }
  int intra_op_threads() const { return pool->num_threads(); }
};

// n floats drawn uniformly from [low, high) by a generator seeded with `seed`.
inline std::vector<float> random_floats(std::size_t n, unsigned seed, float low = -1.0f,
                                        float high = 1.0f) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(low, high);
  std::vector<float> v(n);
  for (float& x : v) x = dist(gen);
  return v;
}

}  // namespace symflow_test_kernel_support
