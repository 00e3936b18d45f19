// The device's memory pool: growth with a cache, the arena of
// per_process_gpu_memory_fraction, limits and their ResourceExhaustedError, threads,
// and sessions allocating from the process's pool.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <thrust/copy.h>
#include <thrust/fill.h>

#include <symflow/backend/thrust/device_memory.cuh>
#include <symflow/symflow.hpp>

#include "thrust_fixture.hpp"

namespace symflow_test_backend_thrust_device_memory_test {

namespace tf = symflow;
using tf::test::gpu::kGpu;
using tf::thrust_backend::DeviceMemoryPool;

namespace {

constexpr std::size_t KiB = 1024;
constexpr std::size_t MiB = 1024 * 1024;

tf::GPUOptions growth(double fraction = 0.0) {
  tf::GPUOptions o;
  o.allow_growth = true;
  o.per_process_gpu_memory_fraction = fraction;
  return o;
}

tf::GPUOptions arena(double fraction) {
  tf::GPUOptions o;
  o.allow_growth = false;
  o.per_process_gpu_memory_fraction = fraction;
  return o;
}

std::byte* bytes_of(const std::shared_ptr<void>& block) {
  return static_cast<std::byte*>(block.get());
}

// Fills `n` bytes of a device block with `value`, and counts those that hold it.
void fill(const std::shared_ptr<void>& block, std::size_t n, unsigned char value) {
  auto p = thrust::device_pointer_cast(static_cast<unsigned char*>(block.get()));
  thrust::fill_n(thrust::device, p, n, value);
}
// Counted on the host: thrust::count's reduction on the OpenMP system binds a null
// reference inside CCCL (thrust/detail/reference.h), which UBSan builds reject.
std::size_t count(const std::shared_ptr<void>& block, std::size_t n, unsigned char value) {
  auto p = thrust::device_pointer_cast(static_cast<unsigned char*>(block.get()));
  std::vector<unsigned char> host(n);
  thrust::copy_n(p, n, host.begin());
  return static_cast<std::size_t>(std::count(host.begin(), host.end(), value));
}

// The ResourceExhaustedError `allocate(bytes)` throws, or nothing when it does not.
std::optional<tf::ResourceExhaustedError> oom(DeviceMemoryPool& pool, std::size_t bytes) {
  try {
    auto block = pool.allocate(bytes);
  } catch (const tf::ResourceExhaustedError& e) {
    return e;
  }
  return std::nullopt;
}

std::string oom_message(std::size_t bytes, std::size_t in_use, std::size_t limit) {
  return "OOM when allocating tensor of " + std::to_string(bytes) + " bytes on " + kGpu + ": " +
         std::to_string(in_use) + " bytes in use, limit " + std::to_string(limit) + " bytes";
}

}  // namespace

TEST_CASE("thrust/memory: buckets are powers of two up to 1 MiB, then multiples of 1 MiB") {
  CHECK(DeviceMemoryPool::bucket_size(0) == 256);
  CHECK(DeviceMemoryPool::bucket_size(1) == 256);
  CHECK(DeviceMemoryPool::bucket_size(256) == 256);
  CHECK(DeviceMemoryPool::bucket_size(257) == 512);
  CHECK(DeviceMemoryPool::bucket_size(1000) == 1024);
  CHECK(DeviceMemoryPool::bucket_size(MiB) == MiB);
  CHECK(DeviceMemoryPool::bucket_size(MiB + 1) == 2 * MiB);
  CHECK(DeviceMemoryPool::bucket_size(3 * MiB + 1) == 4 * MiB);
  CHECK(DeviceMemoryPool::bucket_size(5 * MiB) == 5 * MiB);
}

TEST_CASE("thrust/memory: growth caches freed blocks and reuses them without the device") {
  auto pool = DeviceMemoryPool::make_for_testing(growth(), 0);
  auto s = pool.stats();
  CHECK(s.bytes_in_use == 0);
  CHECK(s.bytes_reserved == 0);  // starts empty
  CHECK(s.num_device_allocations == 0);
  CHECK(s.bytes_limit == 0);

  std::byte* first = nullptr;
  {
    auto a = pool.allocate(1000);
    REQUIRE(a);
    first = bytes_of(a);
    fill(a, 1000, 7);
    CHECK(count(a, 1000, 7) == 1000);
    s = pool.stats();
    CHECK(s.bytes_in_use == 1024);
    CHECK(s.bytes_reserved == 1024);
    CHECK(s.num_device_allocations == 1);
  }
  s = pool.stats();
  CHECK(s.bytes_in_use == 0);
  CHECK(s.bytes_reserved == 1024);  // cached, not given back
  CHECK(s.peak_bytes_in_use == 1024);

  {
    auto b = pool.allocate(700);  // the same bucket: the cached block
    CHECK(bytes_of(b) == first);
    CHECK(pool.stats().num_device_allocations == 1);
    auto c = pool.allocate(700);  // the bucket is empty now
    CHECK(bytes_of(c) != first);
    s = pool.stats();
    CHECK(s.num_device_allocations == 2);
    CHECK(s.bytes_in_use == 2048);
    CHECK(s.peak_bytes_in_use == 2048);
    auto zero = pool.allocate(0);  // a real block all the same
    CHECK(zero);
    CHECK(bytes_of(zero) != bytes_of(b));
    CHECK(pool.stats().bytes_in_use == 2048 + 256);
  }

  // A steady loop: the same sizes every step; only the first step reaches the device.
  const std::vector<std::size_t> sizes{100, 5000, 2 * MiB + 3, 5000, 64 * KiB};
  std::size_t after_first_step = 0;
  for (int step = 0; step < 5; ++step) {
    std::vector<std::shared_ptr<void>> live;
    for (std::size_t n : sizes) live.push_back(pool.allocate(n));
    live.erase(live.begin() + 1);  // free one mid-step, as an executor does
    live.push_back(pool.allocate(300));
    if (step == 0) after_first_step = pool.stats().num_device_allocations;
    CHECK(pool.stats().num_device_allocations == after_first_step);
  }
  s = pool.stats();
  CHECK(s.bytes_in_use == 0);
  CHECK(s.bytes_reserved > 0);
  CHECK(s.peak_bytes_in_use == 256 + 8192 + 3 * MiB + 8192 + 64 * KiB);

  pool.release_cache();
  s = pool.stats();
  CHECK(s.bytes_reserved == 0);
  CHECK(s.bytes_in_use == 0);
  auto again = pool.allocate(100);
  CHECK(pool.stats().num_device_allocations == after_first_step + 1);
}

TEST_CASE("thrust/memory: arena mode reserves once and carves tensors out of it") {
  // A fake device of 1 MiB, half of it for the process: a 512 KiB arena.
  auto pool = DeviceMemoryPool::make_for_testing(arena(0.5), MiB);
  auto s = pool.stats();
  CHECK(s.bytes_limit == 512 * KiB);
  CHECK(s.bytes_reserved == 512 * KiB);  // reserved up front
  CHECK(s.num_device_allocations == 1);
  CHECK(s.bytes_in_use == 0);

  {
    auto a = pool.allocate(100);
    auto b = pool.allocate(1000);
    auto c = pool.allocate(0);
    CHECK(pool.stats().bytes_in_use == 256 + 1024 + 256);
    // Distinct, 256-byte aligned within the arena (offsets from the first block).
    CHECK(bytes_of(b) != bytes_of(a));
    CHECK(bytes_of(c) != bytes_of(b));
    CHECK((bytes_of(b) - bytes_of(a)) % 256 == 0);
    CHECK((bytes_of(c) - bytes_of(a)) % 256 == 0);
    fill(a, 100, 1);
    fill(b, 1000, 2);
    fill(c, 1, 3);
    CHECK(count(a, 100, 1) == 100);
    CHECK(count(b, 1000, 2) == 1000);
  }
  CHECK(pool.stats().bytes_in_use == 0);

  // Four quarters fill the arena.
  std::vector<std::shared_ptr<void>> q;
  for (int i = 0; i < 4; ++i) q.push_back(pool.allocate(128 * KiB));
  s = pool.stats();
  CHECK(s.bytes_in_use == 512 * KiB);
  CHECK(s.peak_bytes_in_use == 512 * KiB);
  CHECK(oom(pool, 1));
  std::byte* second = bytes_of(q[1]);

  // Two free quarters that are not neighbours leave no room for a half.
  q[1].reset();
  q[3].reset();
  auto e = oom(pool, 256 * KiB);
  REQUIRE(e);
  CHECK(e->message() == oom_message(256 * KiB, 256 * KiB, 512 * KiB));
  // Freeing the quarter between them merges the three into one range.
  q[2].reset();
  auto half = pool.allocate(256 * KiB);
  CHECK(bytes_of(half) == second);
  auto quarter = pool.allocate(128 * KiB);  // what is left after the half
  CHECK(bytes_of(quarter) == second + 256 * KiB);
  CHECK(oom(pool, 1));
  // All back: the whole arena is one range again.
  q.clear();
  half.reset();
  quarter.reset();
  CHECK(pool.stats().bytes_in_use == 0);
  auto whole = pool.allocate(512 * KiB);
  CHECK(whole);
  s = pool.stats();
  CHECK(s.num_device_allocations == 1);  // never more than the arena
  CHECK(s.bytes_reserved == 512 * KiB);
}

TEST_CASE("thrust/memory: best fit picks the smallest free range that holds the tensor") {
  auto pool = DeviceMemoryPool::make_for_testing(arena(1.0), 64 * KiB);
  auto a = pool.allocate(8 * KiB);
  auto gap_big = pool.allocate(16 * KiB);
  auto b = pool.allocate(4 * KiB);
  auto gap_small = pool.allocate(4 * KiB);
  auto c = pool.allocate(4 * KiB);
  std::byte* small = bytes_of(gap_small);
  gap_big.reset();
  gap_small.reset();
  // 4 KiB fits the 4 KiB gap, the 16 KiB one and the tail; the 4 KiB gap is the best.
  auto d = pool.allocate(3 * KiB);
  CHECK(bytes_of(d) == small);
}

TEST_CASE("thrust/memory: a tensor past the limit is TensorFlow's ResourceExhaustedError") {
  SUBCASE("arena") {
    auto pool = DeviceMemoryPool::make_for_testing(arena(0.5), MiB);
    auto e = oom(pool, 600000);
    REQUIRE(e);
    CHECK(e->code() == tf::ErrorCode::resource_exhausted);
    CHECK(e->message() == oom_message(600000, 0, 512 * KiB));
    auto held = pool.allocate(300000);  // rounded up to 256 bytes: 300032
    e = oom(pool, 300000);
    REQUIRE(e);
    CHECK(e->message() == oom_message(300000, 300032, 512 * KiB));
    CHECK(std::string(e->what()).find("bytes in use") != std::string::npos);
  }
  SUBCASE("growth with a limit") {
    auto pool = DeviceMemoryPool::make_for_testing(growth(0.25), 4 * MiB);
    CHECK(pool.stats().bytes_limit == MiB);
    CHECK(pool.stats().bytes_reserved == 0);
    auto held = pool.allocate(600 * KiB);  // the 1 MiB bucket: the whole limit
    auto e = oom(pool, 1);
    REQUIRE(e);
    CHECK(e->message() == oom_message(1, MiB, MiB));
    e = oom(pool, 5 * MiB);
    REQUIRE(e);
    CHECK(e->message() == oom_message(5 * MiB, MiB, MiB));
    held.reset();
    CHECK(pool.allocate(1));  // fits once the cache is given back
  }
  SUBCASE("a request too large to round") {
    auto pool = DeviceMemoryPool::make_for_testing(growth(0.5), MiB);
    const std::size_t huge = std::numeric_limits<std::size_t>::max();
    auto e = oom(pool, huge);
    REQUIRE(e);
    CHECK(e->message() == oom_message(huge, 0, 512 * KiB));
  }
  SUBCASE("the limit is a fraction of the device's memory, rounded down to 256 bytes") {
    auto pool = DeviceMemoryPool::make_for_testing(growth(0.3), 10000);
    CHECK(pool.stats().bytes_limit == 2816);  // 3000 rounded down
  }
}

TEST_CASE("thrust/memory: a fraction outside [0, 1] is an InvalidArgumentError") {
  for (double fraction : {-0.5, 1.5, std::nan("")}) {
    CAPTURE(fraction);
    CHECK_THROWS_AS(DeviceMemoryPool::make_for_testing(growth(fraction), MiB),
                    tf::InvalidArgumentError);
    CHECK_THROWS_AS(DeviceMemoryPool::make_for_testing(arena(fraction), MiB),
                    tf::InvalidArgumentError);
  }
}

TEST_CASE("thrust/memory: configure is first-call-wins") {
  auto pool = DeviceMemoryPool::make_for_testing(growth(0.5), MiB);
  pool.configure(arena(0.25));  // ignored: the pool is configured
  CHECK(pool.options().allow_growth);
  CHECK(pool.options().per_process_gpu_memory_fraction == 0.5);
  CHECK(pool.stats().bytes_limit == 512 * KiB);
  CHECK(pool.stats().bytes_reserved == 0);
}

TEST_CASE("thrust/memory: allow_growth with a fraction gives the cache back before failing") {
  auto pool = DeviceMemoryPool::make_for_testing(growth(0.25), 4 * MiB);  // 1 MiB limit
  pool.allocate(512 * KiB).reset();                                       // cached
  pool.allocate(256 * KiB).reset();                                       // cached
  auto s = pool.stats();
  CHECK(s.bytes_reserved == 768 * KiB);
  CHECK(s.bytes_in_use == 0);
  CHECK(s.num_device_allocations == 2);

  // 128 KiB still fits beside the cache: the cache stays.
  auto small = pool.allocate(128 * KiB);
  s = pool.stats();
  CHECK(s.bytes_reserved == 896 * KiB);
  CHECK(s.num_device_allocations == 3);
  small.reset();

  // 768 KiB (the 1 MiB bucket) fits only once the cache is given back.
  auto big = pool.allocate(768 * KiB);
  s = pool.stats();
  CHECK(s.bytes_in_use == MiB);
  CHECK(s.bytes_reserved == MiB);
  CHECK(s.num_device_allocations == 4);
  // Now nothing fits, and nothing is cached to give back.
  auto e = oom(pool, 256);
  REQUIRE(e);
  CHECK(e->message() == oom_message(256, MiB, MiB));
  CHECK(pool.stats().bytes_reserved == MiB);
}

TEST_CASE("thrust/memory: a test pool may go before its blocks") {
  std::shared_ptr<void> block;
  std::shared_ptr<void> carved;
  {
    auto pool = DeviceMemoryPool::make_for_testing(growth(), 0);
    block = pool.allocate(4096);
    auto arena_pool = DeviceMemoryPool::make_for_testing(arena(1.0), 64 * KiB);
    carved = arena_pool.allocate(1024);
  }
  fill(block, 4096, 9);
  fill(carved, 1024, 5);
  CHECK(count(block, 4096, 9) == 4096);
  CHECK(count(carved, 1024, 5) == 1024);
  block.reset();  // back to a pool no one else holds: it goes with it
  carved.reset();
}

TEST_CASE("thrust/memory: threads allocate and free concurrently") {
  for (const tf::GPUOptions& options : {growth(), growth(0.5), arena(0.5)}) {
    CAPTURE(options.allow_growth);
    auto pool = DeviceMemoryPool::make_for_testing(options, 4 * MiB);
    constexpr int kThreads = 6;
    std::atomic<int> corrupted{0};
    std::atomic<int> failed{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&pool, &corrupted, &failed, t] {
        const auto mark = static_cast<unsigned char>(t + 1);
        std::vector<std::pair<std::shared_ptr<void>, std::size_t>> live;
        std::uint32_t state = 12345u + static_cast<std::uint32_t>(t);
        for (int i = 0; i < 300; ++i) {
          state = state * 1664525u + 1013904223u;
          const std::size_t n = 1 + (state >> 8) % (8 * KiB);
          try {
            live.emplace_back(pool.allocate(n), n);
            fill(live.back().first, n, mark);
          } catch (...) {
            ++failed;
          }
          if (!live.empty() && (live.size() > 4 || (state & 1u))) {
            const auto& [block, size] = live.front();
            if (count(block, size, mark) != size) ++corrupted;  // another thread wrote into it
            live.erase(live.begin());
          }
        }
        for (const auto& [block, size] : live)
          if (count(block, size, mark) != size) ++corrupted;
      });
    }
    for (std::thread& th : threads) th.join();
    CHECK(corrupted.load() == 0);
    CHECK(failed.load() == 0);
    const auto s = pool.stats();
    CHECK(s.bytes_in_use == 0);
    CHECK(s.peak_bytes_in_use > 0);
    CHECK(s.peak_bytes_in_use <= kThreads * 6 * 8 * KiB);
    if (!options.allow_growth) {
      CHECK(s.num_device_allocations == 1);
      CHECK(pool.allocate(2 * MiB));  // every range merged back into one
    } else {
      CHECK(s.bytes_reserved >= s.peak_bytes_in_use);
    }
  }
}

TEST_CASE("thrust/memory: sessions allocate from the process's pool") {
  DeviceMemoryPool& pool = DeviceMemoryPool::instance();
  tf::Graph g;
  auto guard = g.as_default();
  const auto before = pool.stats();
  // Taller than the process's peak so far, so that the peak must grow.
  constexpr std::int64_t kRowBytes = 256 * sizeof(float);
  const std::int64_t rows = std::max<std::int64_t>(
      256, static_cast<std::int64_t>(before.peak_bytes_in_use) / kRowBytes + 1);
  auto x = tf::placeholder(tf::DType::float32, tf::Shape{rows, 256}, "x");
  auto on_gpu = tf::identity(x, "on_gpu");
  auto w = tf::ones(tf::Shape{256, 256}, tf::DType::float32, "w");
  auto y = tf::add(tf::matmul(on_gpu, w, false, false, "mm"), on_gpu, "y");
  tf::ConfigProto config;
  config.inter_op_parallelism_threads = 1;
  tf::Session sess(g, config);
  CHECK(sess.device_of(on_gpu.op()) == kGpu);

  const tf::Value feed = tf::Value::filled<float>({rows, 256}, 1.0f);
  tf::Value out = sess.run(y, {{x, feed}});
  REQUIRE(out.dims() == tf::Dims{rows, 256});
  CHECK(out.flat<float>()[0] == 257.0f);
  CHECK(out.flat<float>()[static_cast<std::size_t>(rows * 256 - 1)] == 257.0f);

  const auto after = pool.stats();
  CHECK(after.peak_bytes_in_use > before.peak_bytes_in_use);
  CHECK(after.peak_bytes_in_use >= static_cast<std::size_t>(rows * kRowBytes));
  CHECK(after.num_device_allocations >= 1);
  CHECK(after.bytes_reserved >= after.bytes_in_use);

  // The same step again: the pool serves it from what the first step left behind.
  sess.run(y, {{x, feed}});
  const auto second = pool.stats();
  CHECK(second.num_device_allocations == after.num_device_allocations);
  CHECK(second.peak_bytes_in_use == after.peak_bytes_in_use);
}

}  // namespace symflow_test_backend_thrust_device_memory_test
