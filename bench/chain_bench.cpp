// ((a * b + c) * 2 - a) / (b + 1) over n floats, four ways:
//   symflow_fused    a Session (fusion on, the default): one fused kernel for six nodes
//   symflow_unfused  a Session with do_fusion = false: six kernels, five temporaries
//   eigen_loop       the same expression on Eigen arrays into a reused buffer
//   eigen_new        the same, into a new buffer each time (as Session::run returns one)
//   plain_loop       a hand-written C++ loop into a reused buffer
// Inputs are fed through placeholders; each run returns a fresh Value. Times are
// medians of 5 repetitions, in real time.
#include <benchmark/benchmark.h>

#include <Eigen/Core>
#include <cstdint>
#include <map>
#include <random>
#include <vector>

#include <symflow/symflow.hpp>

namespace tf = symflow;

namespace {

struct Inputs {
  tf::Value a, b, c;
};

tf::Value random_floats(std::int64_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(0.0f, 1.0f);
  tf::Value v(tf::DType::float32, {n});
  for (float& x : v.flat<float>()) x = dist(gen);
  return v;
}

const Inputs& inputs(std::int64_t n) {
  static std::map<std::int64_t, Inputs> cache;
  auto it = cache.find(n);
  if (it == cache.end())
    it = cache.emplace(n, Inputs{random_floats(n, 1), random_floats(n, 2), random_floats(n, 3)})
             .first;
  return it->second;
}

// Bytes the expression must move at least: three inputs read, one output written.
void set_counters(benchmark::State& state, std::int64_t n) {
  state.SetBytesProcessed(state.iterations() * n * 4 * static_cast<std::int64_t>(sizeof(float)));
}

void symflow_chain(benchmark::State& state, bool fusion) {
  const std::int64_t n = state.range(0);
  const Inputs& in = inputs(n);
  tf::Graph g;
  auto guard = g.as_default();
  auto a = tf::placeholder<float>({-1}, "a");
  auto b = tf::placeholder<float>({-1}, "b");
  auto c = tf::placeholder<float>({-1}, "c");
  auto y = ((a * b + c) * 2 - a) / (b + 1);
  tf::ConfigProto config;
  config.graph_options.optimizer_options.do_fusion = fusion;
  tf::Session sess(g, config);
  tf::FeedDict feeds{{a, in.a}, {b, in.b}, {c, in.c}};
  if (sess.fused_clusters({y}, feeds).size() != (fusion ? 1u : 0u))
    state.SkipWithError("unexpected clusters");
  for (auto _ : state) {
    tf::Value out = sess.run(y, feeds);
    benchmark::DoNotOptimize(out.raw_data());
  }
  set_counters(state, n);
}

void symflow_fused(benchmark::State& state) { symflow_chain(state, true); }
void symflow_unfused(benchmark::State& state) { symflow_chain(state, false); }

using ConstMap = Eigen::Map<const Eigen::ArrayXf, Eigen::Aligned64>;

void eigen_loop(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  const Inputs& in = inputs(n);
  ConstMap a(in.a.data<float>(), n), b(in.b.data<float>(), n), c(in.c.data<float>(), n);
  Eigen::ArrayXf out(n);
  for (auto _ : state) {
    out = ((a * b + c) * 2.0f - a) / (b + 1.0f);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  set_counters(state, n);
}

void eigen_new(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  const Inputs& in = inputs(n);
  ConstMap a(in.a.data<float>(), n), b(in.b.data<float>(), n), c(in.c.data<float>(), n);
  for (auto _ : state) {
    Eigen::ArrayXf out = ((a * b + c) * 2.0f - a) / (b + 1.0f);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  set_counters(state, n);
}

void plain_loop(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  const Inputs& in = inputs(n);
  const float* a = in.a.data<float>();
  const float* b = in.b.data<float>();
  const float* c = in.c.data<float>();
  std::vector<float> out(static_cast<std::size_t>(n));
  for (auto _ : state) {
    float* o = out.data();
    for (std::int64_t i = 0; i < n; ++i)
      o[i] = ((a[i] * b[i] + c[i]) * 2.0f - a[i]) / (b[i] + 1.0f);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  set_counters(state, n);
}

void sizes(benchmark::internal::Benchmark* b) {
  b->Arg(std::int64_t{1} << 20)
      ->Arg(std::int64_t{1} << 24)
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime()
      ->Repetitions(5)
      ->ReportAggregatesOnly(true);
}

}  // namespace

BENCHMARK(symflow_fused)->Apply(sizes);
BENCHMARK(symflow_unfused)->Apply(sizes);
BENCHMARK(eigen_loop)->Apply(sizes);
BENCHMARK(eigen_new)->Apply(sizes);
BENCHMARK(plain_loop)->Apply(sizes);

BENCHMARK_MAIN();
