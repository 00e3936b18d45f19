#pragma once
// What the Thrust backend's tests share: the two devices' names, a session
// configuration that hides the GPU, a graph's values computed with and without the GPU,
// the check that a failing op fails on the GPU as on the CPU, random inputs, and the
// comparison of a GPU value with the CPU's.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <symflow/symflow.hpp>

namespace symflow::test::gpu {

inline const std::string kCpu = "/job:localhost/replica:0/task:0/device:CPU:0";
inline const std::string kGpu = "/job:localhost/replica:0/task:0/device:GPU:0";

// Whether the GPU is a CUDA device (symflow_cuda_tests, which nvcc compiles) rather than
// Thrust's OpenMP or C++ system on the host.
#if defined(__CUDACC__)
inline constexpr bool kCuda = true;
#else
inline constexpr bool kCuda = false;
#endif

// A session configuration without the GPU: every op runs on the CPU.
inline ConfigProto cpu_only() {
  ConfigProto config;
  config.device_count = {{"GPU", 0}};
  return config;
}

// The values of `fetches` in a default session, where each fetched op must run on the
// GPU (its values come back to the host), and in a CPU-only session.
struct GpuAndCpu {
  std::vector<Value> gpu, cpu;
};

inline GpuAndCpu run_on_gpu_and_cpu(const Graph& g, const std::vector<Output>& fetches,
                                    const FeedDict& feeds = {}) {
  Session gpu(g);
  Session cpu(g, cpu_only());
  for (const Output& o : fetches) {
    INFO("fetch " << o.op().name() << " (" << o.op().type() << ")");
    CHECK(gpu.device_of(o.op()) == kGpu);
    CHECK(cpu.device_of(o.op()) == kCpu);
  }
  GpuAndCpu out;
  out.gpu = gpu.run(std::vector<Fetch>(fetches.begin(), fetches.end()), feeds);
  REQUIRE(out.gpu.size() == fetches.size());
  for (const Value& v : out.gpu) CHECK_FALSE(v.on_device());
  // The CPU's values one run each: a CPU run that fetches two views of one buffer (two
  // reshapes of a Const) returns the first view's dims for both (executor.hpp's copy of
  // shared fetched buffers), which is not what is under test here.
  for (const Output& o : fetches) out.cpu.push_back(cpu.run(o, feeds));
  return out;
}

// The text (what(): the message and the node) of the InvalidArgumentError that running
// `fetch` in `sess` raises; fails the test when there is none.
inline std::string run_error(Session& sess, const Output& fetch, const FeedDict& feeds) {
  try {
    sess.run(fetch, feeds);
  } catch (const InvalidArgumentError& e) {
    return e.what();
  }
  FAIL("no InvalidArgumentError");
  return {};
}

// `fetch`, whose op runs on the GPU, fails there with the CPU's InvalidArgumentError,
// whose message contains `expected`.
inline void check_same_error(const Output& fetch, const std::string& expected,
                             const FeedDict& feeds = {}) {
  Session gpu(fetch.graph());
  Session cpu(fetch.graph(), cpu_only());
  CHECK(gpu.device_of(fetch.op()) == kGpu);
  const std::string on_gpu = run_error(gpu, fetch, feeds);
  const std::string on_cpu = run_error(cpu, fetch, feeds);
  CHECK(on_gpu == on_cpu);
  CHECK(on_gpu.find(expected) != std::string::npos);
}

// Uniform values in [lo, hi), or multiples of 0.5 in [0, 2) (many ties) when `ties`.
template <class T>
Value random_value(const Dims& dims, unsigned seed, double lo = -1.0, double hi = 1.0,
                   bool ties = false) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<T> v(static_cast<std::size_t>(num_elements(dims)));
  for (T& x : v)
    x = ties ? static_cast<T>(static_cast<int>(gen() % 4) * 0.5) : static_cast<T>(u(gen));
  return Value::from_vector(v, dims);
}

Output int32_vector(const Dims& dims) {
  std::vector<std::int32_t> v(dims.begin(), dims.end());
  return constant(Value::from_vector(v, {static_cast<std::int64_t>(v.size())}));
}

// GPU value `got` against CPU value `want`: exact when tol is 0 (same bytes), else
// |got - want| <= tol * (1 + |want|) everywhere.
template <class T>
void check_near(const Value& got, const Value& want, double tol) {
  REQUIRE(got.dtype() == want.dtype());
  REQUIRE(got.dims() == want.dims());
  if (tol == 0.0) {
    CHECK(got == want);
    return;
  }
  const std::vector<T> a = got.to_vector<T>(), b = want.to_vector<T>();
  std::size_t bad = 0, first_bad = a.size();
  double worst = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double err = std::abs(static_cast<double>(a[i]) - static_cast<double>(b[i])) /
                       (1.0 + std::abs(static_cast<double>(b[i])));
    if (!(err <= tol)) {
      ++bad;
      if (first_bad == a.size()) first_bad = i;
    }
    worst = std::max(worst, err);
  }
  CAPTURE(first_bad);
  CAPTURE(worst);
  CHECK(bad == 0);
}

}  // namespace symflow::test::gpu
