// symflow's side of the benchmark suite (issue 7): every workload run the TF1 way, by a
// Session with feeds and fetches, at intra-op threads 1 and 2 (ConfigProto); inter-op
// threads 1, but for branches, which shows what they give.
//
//   overhead/symflow{,_unfused}/10   10 chained scalar adds on a fed scalar, time per run
//   chain/symflow{,_unfused}/1M,16M  ((a*b + c)*2 - a)/(b + 1) on fed float vectors
//   matmul/symflow/64..1024           tf.matmul of two fed NxN float matrices
//   conv2d/symflow/32                 tf.nn.conv2d, NHWC [32,32,32,16] * [3,3,16,32], SAME
//   branches/symflow{,_serial}/256    four independent 256x256 products (ReLU, sum), added up;
//                                     symflow_serial: inter_op_parallelism_threads = 1
//   mlp_step/symflow/64,256           one GradientDescentOptimizer step of the 784-256-128-10 MLP
//   epoch/symflow/60000               one Fashion-MNIST epoch of that MLP at batch 64
//   while_loop/symflow/100000         tf.while_loop counting i < n by i + 1, n = 100000 fed
//   frozen_sru/symflow/1,64           the real frozen SRU GraphDef at batch 1 and 64 (issue 20)
//   frozen_cnn/symflow/1,64           the frozen MobileNet-style CNN (tests/interop/mobilenet.py)
//   frozen_load/symflow/sru,cnn       read, import, Session, first run at batch 1
//
// Every run returns fresh Values, as Session::run does for its users; inputs are built
// once, outside the timed loop. The names are the keys of bench/results.json.
//
// Built against a GPU backend (SYMFLOW_THRUST: bench_symflow_thrust on Thrust-OMP,
// bench_symflow_cuda on CUDA), it registers chain and mlp_step only, as impl
// SYMFLOW_BENCH_IMPL ("symflow_thrust_omp", "symflow_cuda"): the sessions place every
// op with a GPU kernel on "/device:GPU:0". The thread count is OpenMP's there. (The
// other workloads are [[maybe_unused]] in that build.)
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <symflow/symflow.hpp>
#if defined(SYMFLOW_THRUST) && defined(_OPENMP)
#include <omp.h>
#endif

#include "bench_common.hpp"

namespace tf = symflow;

namespace {

// inter_op_threads: 1 (the default's schedule, every node in order) except where a
// benchmark asks for more (branches).
tf::ConfigProto config_for(int threads, bool fusion = true, int inter_op_threads = 1) {
#if defined(SYMFLOW_THRUST) && defined(_OPENMP)
  omp_set_num_threads(threads);  // the Thrust-OMP kernels' threads
#endif
  tf::ConfigProto c;
  c.intra_op_parallelism_threads = threads;
  c.inter_op_parallelism_threads = inter_op_threads;
  c.graph_options.optimizer_options.do_fusion = fusion;
  return c;
}

tf::Value to_value(const std::vector<float>& v, tf::Dims dims) {
  tf::Value out(tf::DType::float32, std::move(dims));
  std::copy(v.begin(), v.end(), out.data<float>());
  return out;
}

// overhead: x + 1 + 1 ... (10 Add nodes) on a fed scalar. Scalars are too small to fuse
// (runtime/fusion.hpp, kSmallClusterElements), so with fusion on or off the run is ten
// Add kernels and ten Consts: both report the executor's per-node cost.
[[maybe_unused]] void overhead(benchmark::State& state, int threads, bool fusion) {
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder<float>(tf::Shape{}, "x");
  tf::Output y = x;
  for (int i = 0; i < bench::kOverheadAdds; ++i) y = tf::add(y, tf::constant(1.0f));
  tf::Session sess(g, config_for(threads, fusion));
  tf::FeedDict feeds{{x, tf::Value(1.0f)}};
  if (sess.run(y, feeds).data<float>()[0] != 1.0f + bench::kOverheadAdds)
    state.SkipWithError("overhead: wrong result");
  for (auto _ : state) {
    tf::Value out = sess.run(y, feeds);
    benchmark::DoNotOptimize(out.raw_data());
  }
  state.counters["per_node_ns"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * bench::kOverheadAdds,
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// while_loop: i = 0; while (i < n) i = i + 1, with n fed: the executor's cost per
// iteration of a loop (docs/control-flow.md), besides the Less and the Add.
[[maybe_unused]] void while_counter(benchmark::State& state, int threads) {
  tf::Graph g;
  auto guard = g.as_default();
  auto n = tf::placeholder<std::int32_t>(tf::Shape{}, "n");
  tf::Output r = tf::while_loop([&](const tf::Output& i) { return i < n; },
                                [](const tf::Output& i) { return i + 1; }, tf::constant(0));
  tf::Session sess(g, config_for(threads, true));
  tf::FeedDict feeds{{n, tf::Value(bench::kLoopIterations)}};
  if (sess.run(r, feeds).scalar<std::int32_t>() != bench::kLoopIterations)
    state.SkipWithError("while_loop: wrong result");
  for (auto _ : state) {
    tf::Value out = sess.run(r, feeds);
    benchmark::DoNotOptimize(out.raw_data());
  }
  state.counters["per_iteration_ns"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * bench::kLoopIterations,
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// A small RNN in a while loop: h = tanh(h W + b), kRnnSteps iterations on a fed h0.
struct RnnWeights {
  tf::Output w, b;
};
RnnWeights rnn_weights() {
  const std::int64_t n = bench::kRnnHidden;
  return {tf::constant(to_value(bench::random_floats(n * n, 7, -0.3f, 0.3f), {n, n}), "W"),
          tf::constant(to_value(bench::random_floats(n, 8, -0.1f, 0.1f), {n}), "b")};
}
[[maybe_unused]] void while_rnn(benchmark::State& state, int threads) {
  tf::Graph g;
  auto guard = g.as_default();
  const RnnWeights rnn = rnn_weights();
  auto h0 = tf::placeholder<float>(tf::Shape{1, bench::kRnnHidden}, "h0");
  auto [i, h] =
      tf::while_loop([](const tf::Output& i, const tf::Output&) { return i < bench::kRnnSteps; },
                     [&](const tf::Output& i, const tf::Output& h) {
                       return std::tuple{i + 1, tf::tanh(tf::matmul(h, rnn.w) + rnn.b)};
                     },
                     std::tuple{tf::constant(0), tf::Output(h0)});
  tf::Session sess(g, config_for(threads, true));
  tf::FeedDict feeds{
      {h0, to_value(bench::random_floats(bench::kRnnHidden, 9), {1, bench::kRnnHidden})}};
  if (sess.run(i, feeds).scalar<std::int32_t>() != bench::kRnnSteps)
    state.SkipWithError("while_rnn: wrong iteration count");
  for (auto _ : state) {
    tf::Value out = sess.run(h, feeds);
    benchmark::DoNotOptimize(out.raw_data());
  }
  state.counters["per_iteration_ns"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * bench::kRnnSteps,
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
// The loop's step in a straight line: one run of tanh(h W + b).
[[maybe_unused]] void rnn_step(benchmark::State& state, int threads) {
  tf::Graph g;
  auto guard = g.as_default();
  const RnnWeights rnn = rnn_weights();
  auto h = tf::placeholder<float>(tf::Shape{1, bench::kRnnHidden}, "h");
  tf::Output next = tf::tanh(tf::matmul(h, rnn.w) + rnn.b);
  tf::Session sess(g, config_for(threads, true));
  tf::FeedDict feeds{
      {h, to_value(bench::random_floats(bench::kRnnHidden, 9), {1, bench::kRnnHidden})}};
  for (auto _ : state) {
    tf::Value out = sess.run(next, feeds);
    benchmark::DoNotOptimize(out.raw_data());
  }
}

void chain(benchmark::State& state, std::int64_t n, int threads, bool fusion) {
  tf::Graph g;
  auto guard = g.as_default();
  auto a = tf::placeholder<float>(tf::Shape{-1}, "a");
  auto b = tf::placeholder<float>(tf::Shape{-1}, "b");
  auto c = tf::placeholder<float>(tf::Shape{-1}, "c");
  auto y = ((a * b + c) * 2 - a) / (b + 1);
  tf::Session sess(g, config_for(threads, fusion));
  tf::FeedDict feeds{{a, to_value(bench::random_floats(n, 1), {n})},
                     {b, to_value(bench::random_floats(n, 2), {n})},
                     {c, to_value(bench::random_floats(n, 3), {n})}};
  if (sess.fused_clusters({y}, feeds).size() != (fusion ? 1u : 0u))
    state.SkipWithError("chain: unexpected fusion clusters");
  for (auto _ : state) {
    tf::Value out = sess.run(y, feeds);
    benchmark::DoNotOptimize(out.raw_data());
  }
  state.SetBytesProcessed(state.iterations() * n * 4 * std::int64_t{sizeof(float)});
}

[[maybe_unused]] void matmul(benchmark::State& state, std::int64_t n, int threads) {
  tf::Graph g;
  auto guard = g.as_default();
  auto a = tf::placeholder<float>(tf::Shape{n, n}, "a");
  auto b = tf::placeholder<float>(tf::Shape{n, n}, "b");
  auto y = tf::matmul(a, b);
  tf::Session sess(g, config_for(threads));
  tf::FeedDict feeds{{a, to_value(bench::random_floats(n * n, 1), {n, n})},
                     {b, to_value(bench::random_floats(n * n, 2), {n, n})}};
  for (auto _ : state) {
    tf::Value out = sess.run(y, feeds);
    benchmark::DoNotOptimize(out.raw_data());
  }
  state.counters["GFLOPS"] = benchmark::Counter(
      2.0 * double(n) * double(n) * double(n) * double(state.iterations()) * 1e-9,
      benchmark::Counter::kIsRate);
}

// branches: x [n, n] fed; four constant weights; sum(relu(x @ w_k)) added up. The four
// products depend on nothing but x: the inter-op threads may run them side by side.
[[maybe_unused]] void branches(benchmark::State& state, std::int64_t n, int threads,
                               int inter_op_threads) {
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder<float>(tf::Shape{n, n}, "x");
  tf::Output total;
  for (int k = 0; k < bench::kBranches; ++k) {
    auto w = tf::constant(to_value(bench::random_floats(n * n, 10 + k, -0.1f, 0.1f), {n, n}));
    auto y = tf::reduce_sum(tf::nn::relu(tf::matmul(x, w)));
    total = k == 0 ? y : tf::add(total, y);
  }
  tf::Session sess(g, config_for(threads, true, inter_op_threads));
  tf::FeedDict feeds{{x, to_value(bench::random_floats(n * n, 1), {n, n})}};
  for (auto _ : state) {
    tf::Value out = sess.run(total, feeds);
    benchmark::DoNotOptimize(out.raw_data());
  }
}

[[maybe_unused]] void conv2d(benchmark::State& state, int threads) {
  constexpr auto s = bench::kConv;
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder<float>(tf::Shape{s.batch, s.height, s.width, s.in_channels}, "x");
  auto w =
      tf::placeholder<float>(tf::Shape{s.kernel, s.kernel, s.in_channels, s.out_channels}, "w");
  auto y = tf::nn::conv2d(x, w, {1, 1, 1, 1}, "SAME");
  tf::Session sess(g, config_for(threads));
  tf::FeedDict feeds{
      {x, to_value(bench::random_floats(s.batch * s.height * s.width * s.in_channels, 1),
                   {s.batch, s.height, s.width, s.in_channels})},
      {w, to_value(bench::random_floats(s.kernel * s.kernel * s.in_channels * s.out_channels, 2,
                                        -0.1f, 0.1f),
                   {s.kernel, s.kernel, s.in_channels, s.out_channels})}};
  for (auto _ : state) {
    tf::Value out = sess.run(y, feeds);
    benchmark::DoNotOptimize(out.raw_data());
  }
}

// The MLP of mlp_step and epoch, built as a TF1 user builds it (tf.layers.dense's way).
struct Mlp {
  tf::Tensor<float> images;
  tf::Tensor<std::int32_t> labels;
  tf::Output loss;
  tf::Operation train_op;
};

tf::Output dense(const tf::Output& x, std::int64_t units, const std::string& name) {
  tf::variable_scope scope(name);
  const std::int64_t in = x.get_shape().dims().back();
  auto w = tf::get_variable("kernel", tf::Shape{in, units},
                            {.initializer = tf::glorot_uniform_initializer()});
  auto b = tf::get_variable("bias", tf::Shape{units}, {.initializer = tf::zeros_initializer()});
  return tf::add(tf::matmul(x, w), b);
}

Mlp build_mlp() {
  tf::set_random_seed(1);
  Mlp m;
  m.images = tf::placeholder<float>(tf::Shape{-1, bench::kMlpIn}, "images");
  m.labels = tf::placeholder<std::int32_t>(tf::Shape{-1}, "labels");
  auto h1 = tf::nn::relu(dense(m.images, bench::kMlpH1, "dense"));
  auto h2 = tf::nn::relu(dense(h1, bench::kMlpH2, "dense_1"));
  auto logits = dense(h2, bench::kMlpOut, "dense_2");
  m.loss = tf::reduce_mean(tf::nn::sparse_softmax_cross_entropy_with_logits(m.labels, logits));
  m.train_op = tf::train::GradientDescentOptimizer(bench::kLearningRate).minimize(m.loss);
  return m;
}

tf::Value labels_value(const std::int32_t* src, std::int64_t n) {
  tf::Value v(tf::DType::int32, {n});
  std::copy(src, src + n, v.data<std::int32_t>());
  return v;
}

void mlp_step(benchmark::State& state, std::int64_t batch, int threads) {
  tf::Graph g;
  auto guard = g.as_default();
  Mlp m = build_mlp();
  tf::Session sess(g, config_for(threads));
  sess.run(tf::global_variables_initializer());
  const auto labels = bench::random_labels(batch, 2);
  tf::FeedDict feeds{
      {m.images, to_value(bench::random_floats(batch * bench::kMlpIn, 1), {batch, bench::kMlpIn})},
      {m.labels, labels_value(labels.data(), batch)}};
  for (auto _ : state) sess.run(m.train_op, feeds);
}

// One epoch over the shuffled training set; each batch is copied into fresh Values (as a
// TF1 program feeds numpy slices) and the loss is fetched with the train op.
[[maybe_unused]] void epoch(benchmark::State& state, int threads) {
  const bench::Dataset& data = bench::fashion_mnist_train();
  tf::Graph g;
  auto guard = g.as_default();
  Mlp m = build_mlp();
  tf::Session sess(g, config_for(threads));
  sess.run(tf::global_variables_initializer());
  double loss = 0;
  for (auto _ : state) {
    bench::for_each_batch(data.size, [&](std::int64_t b, std::int64_t e) {
      tf::Value images(tf::DType::float32, {e - b, bench::kMlpIn});
      std::copy(data.images.begin() + b * bench::kMlpIn, data.images.begin() + e * bench::kMlpIn,
                images.data<float>());
      auto out = sess.run(
          {m.loss}, {{m.images, images}, {m.labels, labels_value(data.labels.data() + b, e - b)}},
          {m.train_op});
      loss = out[0].data<float>()[0];
    });
  }
  state.counters["last_loss"] = loss;
}

// The frozen GraphDefs of frozen_sru, frozen_cnn and frozen_load (issue 20), named by
// bench/run.py: SYMFLOW_BENCH_SRU (the fixture) and SYMFLOW_BENCH_CNN
// (tests/interop/mobilenet.py, written with TensorFlow). A model whose variable is not
// set is not registered.
struct FrozenModel {
  std::string path, input, output;
  std::function<tf::Value(std::int64_t)> inputs;  // a batch of this size
};

// The input hello_tf_c_api feeds the SRU fixture ([1, 5, 12]); a batch repeats it.
constexpr float kSruInput[60] = {
    -0.4809832f, -0.3770838f, 0.1743573f,  0.7720509f,  -0.4064746f, 0.0116595f,  0.0051413f,
    0.9135732f,  0.7197526f,  -0.0400658f, 0.1180671f,  -0.6829428f, -0.4810135f, -0.3772099f,
    0.1745346f,  0.7719303f,  -0.4066443f, 0.0114614f,  0.0051195f,  0.9135003f,  0.7196983f,
    -0.0400035f, 0.1178188f,  -0.6830465f, -0.4809143f, -0.3773398f, 0.1746384f,  0.7719052f,
    -0.4067171f, 0.0111654f,  0.0054433f,  0.9134697f,  0.7192584f,  -0.0399981f, 0.1177435f,
    -0.6835230f, -0.4808300f, -0.3774327f, 0.1748246f,  0.7718700f,  -0.4070232f, 0.0109549f,
    0.0059128f,  0.9133330f,  0.7188759f,  -0.0398740f, 0.1181437f,  -0.6838635f, -0.4807833f,
    -0.3775733f, 0.1748378f,  0.7718275f,  -0.4073670f, 0.0107582f,  0.0062978f,  0.9131795f,
    0.7187147f,  -0.0394935f, 0.1184392f,  -0.6840039f};

[[maybe_unused]] std::vector<std::pair<std::string, FrozenModel>> frozen_models() {
  std::vector<std::pair<std::string, FrozenModel>> out;
  if (const char* sru = std::getenv("SYMFLOW_BENCH_SRU"))
    out.push_back({"sru", {sru, "input_4:0", "output_node0:0", [](std::int64_t batch) {
                             tf::Value v(tf::DType::float32, {batch, 5, 12});
                             for (std::int64_t b = 0; b < batch; ++b)
                               std::copy(std::begin(kSruInput), std::end(kSruInput),
                                         v.data<float>() + b * 60);
                             return v;
                           }}});
  if (const char* cnn = std::getenv("SYMFLOW_BENCH_CNN"))
    out.push_back({"cnn", {cnn, "images:0", "probabilities:0", [](std::int64_t batch) {
                             // tests/interop/mobilenet.py's images(): ((i * 7919) % 1000) / 500 - 1
                             tf::Value v(tf::DType::float32, {batch, 96, 96, 3});
                             float* p = v.data<float>();
                             for (std::int64_t i = 0; i < v.size(); ++i)
                               p[i] = static_cast<float>(
                                   static_cast<double>((i * 7919) % 1000) / 500.0 - 1.0);
                             return v;
                           }}});
  return out;
}

// Batch-N latency of one Session.run of a frozen model, imported once.
[[maybe_unused]] void frozen_run(benchmark::State& state, const FrozenModel& m, std::int64_t batch,
                                 int threads) {
  tf::Graph g;
  tf::import_graph_def(tf::read_graph(m.path), {.name = ""}, g);
  tf::Session sess(g, config_for(threads));
  const tf::Output out = g.get_tensor_by_name(m.output);
  tf::FeedDict feeds{{g.get_tensor_by_name(m.input), m.inputs(batch)}};
  const tf::Value first = sess.run(out, feeds);
  // The SRU fixture's README gives its output for this input.
  if (m.input == "input_4:0" && std::abs(first.data<float>()[0] - -0.40978357f) > 1e-4f)
    state.SkipWithError("frozen_sru: wrong result");
  for (auto _ : state) {
    tf::Value v = sess.run(out, feeds);
    benchmark::DoNotOptimize(v.raw_data());
  }
}

// A program's first answer: read the file, import it, make a Session, run batch 1.
[[maybe_unused]] void frozen_load(benchmark::State& state, const FrozenModel& m, int threads) {
  const tf::Value input = m.inputs(1);
  for (auto _ : state) {
    tf::Graph g;
    tf::import_graph_def(tf::read_graph(m.path), {.name = ""}, g);
    tf::Session sess(g, config_for(threads));
    tf::Value v =
        sess.run(g.get_tensor_by_name(m.output), {{g.get_tensor_by_name(m.input), input}});
    benchmark::DoNotOptimize(v.raw_data());
  }
}

#if defined(SYMFLOW_THRUST)
void register_all() {
  for (int t : bench::kThreads) {
    for (const auto& [n, label] : bench::kChainSizes)
      bench::add("chain", SYMFLOW_BENCH_IMPL, label, t,
                 [n = n, t](auto& s) { chain(s, n, t, true); });
    for (std::int64_t b : bench::kMlpBatches)
      bench::add("mlp_step", SYMFLOW_BENCH_IMPL, std::to_string(b), t,
                 [b, t](auto& s) { mlp_step(s, b, t); });
  }
}
#else
void register_all() {
  for (int t : bench::kThreads) {
    bench::add("overhead", "symflow", "10", t, [t](auto& s) { overhead(s, t, true); });
    bench::add("overhead", "symflow_unfused", "10", t, [t](auto& s) { overhead(s, t, false); });
    bench::add("while_loop", "symflow", std::to_string(bench::kLoopIterations), t,
               [t](auto& s) { while_counter(s, t); });
    bench::add("while_rnn", "symflow", std::to_string(bench::kRnnSteps), t,
               [t](auto& s) { while_rnn(s, t); });
    bench::add("rnn_step", "symflow", std::to_string(bench::kRnnHidden), t,
               [t](auto& s) { rnn_step(s, t); });
    for (const auto& [n, label] : bench::kChainSizes) {
      bench::add("chain", "symflow", label, t, [n = n, t](auto& s) { chain(s, n, t, true); });
      bench::add("chain", "symflow_unfused", label, t,
                 [n = n, t](auto& s) { chain(s, n, t, false); });
    }
    for (std::int64_t n : bench::kMatmulSizes)
      bench::add("matmul", "symflow", std::to_string(n), t, [n, t](auto& s) { matmul(s, n, t); });
    bench::add("conv2d", "symflow", "32", t, [t](auto& s) { conv2d(s, t); });
    bench::add("branches", "symflow", std::to_string(bench::kBranchSize), t,
               [t](auto& s) { branches(s, bench::kBranchSize, t, t); });
    bench::add("branches", "symflow_serial", std::to_string(bench::kBranchSize), t,
               [t](auto& s) { branches(s, bench::kBranchSize, t, 1); });
    for (std::int64_t b : bench::kMlpBatches)
      bench::add("mlp_step", "symflow", std::to_string(b), t,
                 [b, t](auto& s) { mlp_step(s, b, t); });
    for (const auto& [name, model] : frozen_models()) {
      for (std::int64_t b : {1, 64})
        bench::add("frozen_" + name, "symflow", std::to_string(b), t,
                   [m = model, b, t](auto& s) { frozen_run(s, m, b, t); });
      bench::add("frozen_load", "symflow", name, t,
                 [m = model, t](auto& s) { frozen_load(s, m, t); });
    }
    bench::add("epoch", "symflow", "60000", t, [t](auto& s) { epoch(s, t); })
        ->Iterations(1)
        ->Repetitions(bench::kEpochRepetitions)
        ->Unit(benchmark::kMillisecond);
  }
}
#endif

}  // namespace

int main(int argc, char** argv) {
  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
