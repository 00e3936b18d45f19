// LibTorch 1.13 (Debian's libtorch-dev, the PyTorch C++ API) as a peer of the benchmark
// suite (issue 7), written as a LibTorch user writes it, in its best honest configuration:
//
//   overhead/libtorch/10       eager dispatch of 10 adds on a 0-dim tensor (InferenceMode)
//   chain/libtorch/1M,16M      ((a*b + c)*2 - a)/(b + 1) in eager mode: six ops, five temporaries
//   matmul/libtorch/N          torch::mm of two NxN float tensors
//   conv2d/libtorch/32         torch::conv2d on channels_last tensors (oneDNN's fast path)
//   mlp_step/libtorch/64,256   torch::nn::Linear x3 + ReLU, cross_entropy, backward, optim::SGD
//   epoch/libtorch/60000       one Fashion-MNIST epoch of that model at batch 64
//
// Threads: at::set_num_threads(t) for ATen's OpenMP pool and openblas_set_num_threads(t)
// for the OpenBLAS that Debian's LibTorch calls for GEMM (at::set_num_threads does not
// reach it); bench/run.py sets OMP_WAIT_POLICY=PASSIVE so that idle OpenMP threads sleep.
#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <vector>

#include "bench_common.hpp"

extern "C" void openblas_set_num_threads(int num_threads);

namespace {

void set_threads(int threads) {
  at::set_num_threads(threads);
  openblas_set_num_threads(threads);
}

torch::Tensor from_vector(const std::vector<float>& v, std::vector<std::int64_t> dims) {
  return torch::from_blob(const_cast<float*>(v.data()), dims, torch::kFloat32).clone();
}

void overhead(benchmark::State& state, int threads) {
  set_threads(threads);
  c10::InferenceMode guard;
  torch::Tensor x = torch::tensor(1.0f);
  for (auto _ : state) {
    torch::Tensor y = x;
    for (int i = 0; i < bench::kOverheadAdds; ++i) y = y + 1;
    benchmark::DoNotOptimize(y.data_ptr());
  }
  state.counters["per_node_ns"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * bench::kOverheadAdds,
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void chain(benchmark::State& state, std::int64_t n, int threads) {
  set_threads(threads);
  c10::InferenceMode guard;
  auto a = from_vector(bench::random_floats(n, 1), {n});
  auto b = from_vector(bench::random_floats(n, 2), {n});
  auto c = from_vector(bench::random_floats(n, 3), {n});
  for (auto _ : state) {
    torch::Tensor y = ((a * b + c) * 2 - a) / (b + 1);
    benchmark::DoNotOptimize(y.data_ptr());
  }
  state.SetBytesProcessed(state.iterations() * n * 4 * std::int64_t{sizeof(float)});
}

void matmul(benchmark::State& state, std::int64_t n, int threads) {
  set_threads(threads);
  c10::InferenceMode guard;
  auto a = from_vector(bench::random_floats(n * n, 1), {n, n});
  auto b = from_vector(bench::random_floats(n * n, 2), {n, n});
  for (auto _ : state) {
    torch::Tensor c = torch::mm(a, b);
    benchmark::DoNotOptimize(c.data_ptr());
  }
  state.counters["GFLOPS"] = benchmark::Counter(
      2.0 * double(n) * double(n) * double(n) * double(state.iterations()) * 1e-9,
      benchmark::Counter::kIsRate);
}

void conv2d(benchmark::State& state, int threads) {
  set_threads(threads);
  c10::InferenceMode guard;
  constexpr auto s = bench::kConv;
  // NCHW sizes with channels_last strides: the same NHWC bytes as symflow's input.
  auto x = from_vector(bench::random_floats(s.batch * s.height * s.width * s.in_channels, 1),
                       {s.batch, s.in_channels, s.height, s.width})
               .contiguous(torch::MemoryFormat::ChannelsLast);
  auto w = from_vector(bench::random_floats(s.kernel * s.kernel * s.in_channels * s.out_channels, 2,
                                            -0.1f, 0.1f),
                       {s.out_channels, s.in_channels, s.kernel, s.kernel})
               .contiguous(torch::MemoryFormat::ChannelsLast);
  for (auto _ : state) {
    torch::Tensor y = torch::conv2d(x, w, {}, 1, s.kernel / 2);
    benchmark::DoNotOptimize(y.data_ptr());
  }
}

torch::nn::Sequential make_mlp() {
  torch::manual_seed(1);
  return torch::nn::Sequential(torch::nn::Linear(bench::kMlpIn, bench::kMlpH1), torch::nn::ReLU(),
                               torch::nn::Linear(bench::kMlpH1, bench::kMlpH2), torch::nn::ReLU(),
                               torch::nn::Linear(bench::kMlpH2, bench::kMlpOut));
}

float train_step(torch::nn::Sequential& model, torch::optim::SGD& opt, const torch::Tensor& x,
                 const torch::Tensor& labels) {
  opt.zero_grad();
  torch::Tensor loss = torch::nn::functional::cross_entropy(model->forward(x), labels);
  loss.backward();
  opt.step();
  return loss.item<float>();
}

void mlp_step(benchmark::State& state, std::int64_t batch, int threads) {
  set_threads(threads);
  auto model = make_mlp();
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(bench::kLearningRate));
  auto x = from_vector(bench::random_floats(batch * bench::kMlpIn, 1), {batch, bench::kMlpIn});
  const auto l = bench::random_labels(batch, 2);
  auto labels = torch::tensor(std::vector<std::int64_t>(l.begin(), l.end()), torch::kInt64);
  float loss = 0;
  for (auto _ : state) loss = train_step(model, opt, x, labels);
  state.counters["last_loss"] = loss;
}

void epoch(benchmark::State& state, int threads) {
  set_threads(threads);
  const bench::Dataset& data = bench::fashion_mnist_train();
  // The whole set as two tensors (no copy of the images; int64 labels, as cross_entropy
  // wants them): each batch is a view, as a LibTorch data loader over memory would give.
  auto images = torch::from_blob(const_cast<float*>(data.images.data()), {data.size, bench::kMlpIn},
                                 torch::kFloat32);
  auto labels = torch::tensor(std::vector<std::int64_t>(data.labels.begin(), data.labels.end()),
                              torch::kInt64);
  auto model = make_mlp();
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(bench::kLearningRate));
  float loss = 0;
  for (auto _ : state) {
    bench::for_each_batch(data.size, [&](std::int64_t b, std::int64_t e) {
      loss = train_step(model, opt, images.slice(0, b, e), labels.slice(0, b, e));
    });
  }
  state.counters["last_loss"] = loss;
}

void register_all() {
  for (int t : bench::kThreads) {
    bench::add("overhead", "libtorch", "10", t, [t](auto& s) { overhead(s, t); });
    for (const auto& [n, label] : bench::kChainSizes)
      bench::add("chain", "libtorch", label, t, [n = n, t](auto& s) { chain(s, n, t); });
    for (std::int64_t n : bench::kMatmulSizes)
      bench::add("matmul", "libtorch", std::to_string(n), t, [n, t](auto& s) { matmul(s, n, t); });
    bench::add("conv2d", "libtorch", "32", t, [t](auto& s) { conv2d(s, t); });
    for (std::int64_t b : bench::kMlpBatches)
      bench::add("mlp_step", "libtorch", std::to_string(b), t,
                 [b, t](auto& s) { mlp_step(s, b, t); });
    bench::add("epoch", "libtorch", "60000", t, [t](auto& s) { epoch(s, t); })
        ->Iterations(1)
        ->Repetitions(bench::kEpochRepetitions)
        ->Unit(benchmark::kMillisecond);
  }
}

}  // namespace

int main(int argc, char** argv) {
  register_all();
  benchmark::AddCustomContext("libtorch_mkldnn", torch::hasMKLDNN() ? "yes" : "no");
  benchmark::AddCustomContext("libtorch_parallel_info", at::get_parallel_info());
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
