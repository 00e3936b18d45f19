#pragma once
// What the Thrust backend's tests share: the two devices' names, a session
// configuration that hides the GPU, a graph's values computed with and without the GPU,
// and the check that a failing op fails on the GPU as on the CPU.

#include <doctest/doctest.h>

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

}  // namespace symflow::test::gpu
