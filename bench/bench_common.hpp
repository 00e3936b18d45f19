#pragma once
// What every benchmark executable of bench/ shares: the workload names and sizes, the
// thread counts, the MLP's shape, random inputs, and a Fashion-MNIST reader. Nothing
// here includes symflow, Eigen or LibTorch, so each executable pays only for its own peer.
//
// Every benchmark is registered under the name "workload/impl/size/threads" (the key of
// bench/results.json); bench/run.py strips Google Benchmark's suffixes ("/real_time").

#include <benchmark/benchmark.h>
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace bench {

// Both thread counts of the issue; each benchmark sets its own count before it times.
inline constexpr int kThreads[] = {1, 2};

// chain sizes and their labels.
inline const std::vector<std::pair<std::int64_t, std::string>> kChainSizes = {
    {std::int64_t{1} << 20, "1M"}, {std::int64_t{1} << 24, "16M"}};
inline constexpr std::int64_t kMatmulSizes[] = {64, 256, 512, 1024};
inline constexpr std::int64_t kMlpBatches[] = {64, 256};
// branches: kBranches independent kBranchSize x kBranchSize products.
inline constexpr int kBranches = 4;
inline constexpr std::int64_t kBranchSize = 256;
inline constexpr int kOverheadAdds = 10;
inline constexpr std::int32_t kLoopIterations = 100000;  // while_loop's n
// while_rnn: h = tanh(h W + b), [1, kRnnHidden] by [kRnnHidden, kRnnHidden], kRnnSteps times.
inline constexpr std::int32_t kRnnSteps = 1000;
inline constexpr std::int64_t kRnnHidden = 32;

// conv2d: batch 32, NHWC 32x32x16 -> 32 channels, 3x3 filter, SAME padding, stride 1.
struct ConvShape {
  std::int64_t batch = 32, height = 32, width = 32, in_channels = 16, out_channels = 32, kernel = 3;
};
inline constexpr ConvShape kConv{};

// The MLP of mlp_step and epoch: 784-256-128-10, ReLU, softmax cross-entropy, SGD.
inline constexpr std::int64_t kMlpIn = 784, kMlpH1 = 256, kMlpH2 = 128, kMlpOut = 10;
inline constexpr float kLearningRate = 0.01f;
inline constexpr std::int64_t kEpochBatch = 64;

inline std::string key(const std::string& workload, const std::string& impl,
                       const std::string& size, int threads) {
  return workload + "/" + impl + "/" + size + "/" + std::to_string(threads);
}

// Registers fn under key(...), timed in real time (wall clock: what a user waits for,
// and the only honest clock once several threads work).
inline benchmark::internal::Benchmark* add(const std::string& workload, const std::string& impl,
                                           const std::string& size, int threads,
                                           std::function<void(benchmark::State&)> fn) {
  return benchmark::RegisterBenchmark(key(workload, impl, size, threads).c_str(),
                                      [fn = std::move(fn)](benchmark::State& s) { fn(s); })
      ->UseRealTime();
}

inline std::vector<float> random_floats(std::int64_t n, unsigned seed, float lo = 0.0f,
                                        float hi = 1.0f) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(static_cast<std::size_t>(n));
  for (float& x : v) x = dist(gen);
  return v;
}

inline std::vector<std::int32_t> random_labels(std::int64_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<std::int32_t> dist(0, static_cast<std::int32_t>(kMlpOut) - 1);
  std::vector<std::int32_t> v(static_cast<std::size_t>(n));
  for (auto& x : v) x = dist(gen);
  return v;
}

// Glorot-uniform weights [fan_in, fan_out], as tf.layers.dense initialises them.
inline std::vector<float> glorot(std::int64_t fan_in, std::int64_t fan_out, unsigned seed) {
  const float limit = std::sqrt(6.0f / static_cast<float>(fan_in + fan_out));
  return random_floats(fan_in * fan_out, seed, -limit, limit);
}

// Fashion-MNIST's training set as floats in [0, 1] ([n, 784], row-major) and int32 labels,
// shuffled once with a fixed seed so that every impl sees the same batches in the same order.
struct Dataset {
  std::vector<float> images;
  std::vector<std::int32_t> labels;
  std::int64_t size = 0;
};

inline std::string fashion_mnist_dir() {
  const char* env = std::getenv("SYMFLOW_BENCH_DATA");
  return env != nullptr ? env : "/usr/share/datasets/fashion-mnist";
}

inline std::vector<unsigned char> read_gzip(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (f == nullptr) throw std::runtime_error("cannot open " + path);
  std::vector<unsigned char> out;
  unsigned char buf[1 << 16];
  int got = 0;
  while ((got = gzread(f, buf, sizeof buf)) > 0) out.insert(out.end(), buf, buf + got);
  gzclose(f);
  if (got < 0) throw std::runtime_error("cannot decompress " + path);
  return out;
}

inline std::uint32_t big_endian(const unsigned char* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) |
         std::uint32_t{p[3]};
}

inline const Dataset& fashion_mnist_train() {
  static const Dataset data = [] {
    const std::string dir = fashion_mnist_dir();
    auto img = read_gzip(dir + "/train-images-idx3-ubyte.gz");
    auto lab = read_gzip(dir + "/train-labels-idx1-ubyte.gz");
    if (img.size() < 16 || big_endian(img.data()) != 0x803 || lab.size() < 8 ||
        big_endian(lab.data()) != 0x801)
      throw std::runtime_error("not Fashion-MNIST IDX files in " + dir);
    const std::int64_t n = big_endian(img.data() + 4);
    const std::int64_t pixels =
        std::int64_t{big_endian(img.data() + 8)} * big_endian(img.data() + 12);
    if (pixels != kMlpIn || big_endian(lab.data() + 4) != n ||
        static_cast<std::int64_t>(img.size()) != 16 + n * pixels ||
        static_cast<std::int64_t>(lab.size()) != 8 + n)
      throw std::runtime_error("unexpected Fashion-MNIST shapes in " + dir);
    std::vector<std::int64_t> order(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) order[static_cast<std::size_t>(i)] = i;
    std::shuffle(order.begin(), order.end(), std::mt19937_64(1));
    Dataset d;
    d.size = n;
    d.images.resize(static_cast<std::size_t>(n * pixels));
    d.labels.resize(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) {
      const std::int64_t src = order[static_cast<std::size_t>(i)];
      const unsigned char* p = img.data() + 16 + src * pixels;
      float* q = d.images.data() + i * pixels;
      for (std::int64_t j = 0; j < pixels; ++j) q[j] = static_cast<float>(p[j]) / 255.0f;
      d.labels[static_cast<std::size_t>(i)] = lab[static_cast<std::size_t>(8 + src)];
    }
    return d;
  }();
  return data;
}

// One epoch: the batches [begin, end) of kEpochBatch rows, the last one short.
template <class F>
void for_each_batch(std::int64_t n, F&& f) {
  for (std::int64_t b = 0; b < n; b += kEpochBatch) f(b, std::min(n, b + kEpochBatch));
}

// An epoch runs once per repetition (seconds each), a few repetitions.
inline constexpr int kEpochRepetitions = 3;

}  // namespace bench
