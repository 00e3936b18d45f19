// symflow::distributed's speed (issue 25), run under mpirun by hand (docs/distributed.md,
// "Measured"):
//
//   mpirun -np 2 bench_mpi --benchmark_filter=allreduce      # needs 2 processes
//   mpirun -np 1 bench_mpi --benchmark_filter=fashion_mnist  # then -np 2
//
// - allreduce: the sum over the processes of a 25 MB gradient set (10 float32 tensors of
//   2.5 MB), through symflow's MpiAllreduce node in a Session (allreduce_n: one fused node
//   and one MPI call, as DistributedOptimizer builds it) against OpenMPI's own MPI_Allreduce
//   on one 25 MB buffer; for reference, 10 MPI_Allreduce calls of 2.5 MB (no fusion), and
//   the nonblocking MPI_Iallreduce in place that symflow's engine called before it met the
//   ranks with a barrier first (OpenMPI runs it with another algorithm than the blocking
//   call's), with the copy of the gradients into the buffer that an in-place call needs.
// - fashion_mnist_mlp: one epoch of the 784-256-128-10 MLP of bench/symflow_bench.cpp's
//   epoch (60000 images, SGD), each process on its contiguous share of the shuffled
//   training set in batches of 64 (N processes: 60000 / N images and batches each, so an
//   epoch of N·64 per step); fashion_mnist_cnn: the CNN of examples/fashion_mnist on 3840
//   images the same way (a fixed amount of work: a full CNN epoch takes minutes). Every
//   session uses one thread. At one process, "plain" is the plain optimizer (no MPI in the
//   step), "distributed" the DistributedOptimizer.
//
// Each timed iteration starts at a barrier and counts the slowest process's time (manual
// time), so the figures are the job's. Iterations and repetitions are fixed: every process
// must run the same collectives, which Google Benchmark's adaptive iteration counts would
// not guarantee. Process 0 alone reports (console, or --benchmark_format=json). Names:
// "workload/impl/size/processes".

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <symflow/distributed/distributed.hpp>
#include <symflow/symflow.hpp>
#include <symflow/train/train.hpp>

#include "bench_common.hpp"

namespace tf = symflow;
namespace dist = symflow::distributed;

namespace {

// 10 tensors of 2.5 MB: 25 MB of float32 gradients.
constexpr std::int64_t kGradientTensors = 10, kTensorFloats = 625'000;
constexpr std::int64_t kGradientFloats = kGradientTensors * kTensorFloats;
constexpr std::int64_t kGradientBytes = kGradientFloats * 4;
constexpr std::int64_t kCnnImages = 3840;  // 60 batches of 64 at one process

int rank() { return dist::rank(); }
int processes() { return dist::size(); }

// Runs `work` on every process from a barrier on; the slowest process's seconds.
template <class F>
double job_seconds(F&& work) {
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  work();
  double seconds = MPI_Wtime() - start;
  MPI_Allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return seconds;
}

// What every process gives: rank + 1 everywhere; the sum is 1 + 2 + ... + N.
float expected_sum() { return static_cast<float>(processes() * (processes() + 1) / 2); }

// How the raw MPI baseline calls MPI.
enum class Raw {
  fused,       // one MPI_Allreduce of the 25 MB
  per_tensor,  // one MPI_Allreduce per 2.5 MB tensor
  nonblocking  // one MPI_Iallreduce in place, then MPI_Wait: the call symflow's engine makes
};

void allreduce_raw_mpi(benchmark::State& state, Raw how) {
  std::vector<float> send(kGradientFloats, static_cast<float>(rank() + 1)), sum(kGradientFloats);
  for (auto _ : state)
    state.SetIterationTime(job_seconds([&] {
      if (how == Raw::nonblocking) {
        std::copy(send.begin(), send.end(), sum.begin());  // in place: the sum overwrites
        MPI_Request request;
        MPI_Iallreduce(MPI_IN_PLACE, sum.data(), static_cast<int>(kGradientFloats), MPI_FLOAT,
                       MPI_SUM, MPI_COMM_WORLD, &request);
        MPI_Wait(&request, MPI_STATUS_IGNORE);
      } else if (how == Raw::fused) {
        MPI_Allreduce(send.data(), sum.data(), static_cast<int>(kGradientFloats), MPI_FLOAT,
                      MPI_SUM, MPI_COMM_WORLD);
      } else {
        for (std::int64_t t = 0; t < kGradientTensors; ++t)
          MPI_Allreduce(send.data() + t * kTensorFloats, sum.data() + t * kTensorFloats,
                        static_cast<int>(kTensorFloats), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      }
    }));
  if (sum.front() != expected_sum() || sum.back() != expected_sum())
    state.SkipWithError("raw MPI_Allreduce: wrong sum");
  state.SetBytesProcessed(state.iterations() * kGradientBytes);
}

void allreduce_symflow(benchmark::State& state) {
  tf::Graph g;
  auto guard = g.as_default();
  std::vector<tf::Output> gradients;
  for (std::int64_t t = 0; t < kGradientTensors; ++t) {
    tf::Value v(tf::DType::float32, {kTensorFloats});
    std::fill_n(v.data<float>(), kTensorFloats, static_cast<float>(rank() + 1));
    gradients.push_back(tf::constant(v));
  }
  std::vector<tf::Output> sums = dist::allreduce_n(gradients);
  tf::Session sess(g, [] {
    tf::ConfigProto c;
    c.intra_op_parallelism_threads = 1;
    c.inter_op_parallelism_threads = 1;
    return c;
  }());
  // Planned once before timing, and checked.
  const tf::Value first = sess.run(sums.back());
  if (first.data<float>()[0] != expected_sum()) state.SkipWithError("MpiAllreduce: wrong sum");
  const tf::Operation node = sums.front().op();
  for (auto _ : state) state.SetIterationTime(job_seconds([&] { sess.run(node); }));
  state.SetBytesProcessed(state.iterations() * kGradientBytes);
}

tf::Output dense(const tf::Output& x, std::int64_t units, const std::string& name) {
  tf::variable_scope scope(name);
  const std::int64_t in = x.get_shape().dims().back();
  auto w = tf::get_variable("kernel", tf::Shape{in, units},
                            {.initializer = tf::glorot_uniform_initializer()});
  auto b = tf::get_variable("bias", tf::Shape{units}, {.initializer = tf::zeros_initializer()});
  return tf::add(tf::matmul(x, w), b);
}

tf::Output conv(const tf::Output& x, std::int64_t filters, const std::string& name) {
  tf::variable_scope scope(name);
  const std::int64_t in = x.get_shape().dims().back();
  auto w = tf::get_variable("kernel", tf::Shape{3, 3, in, filters},
                            {.initializer = tf::glorot_uniform_initializer()});
  auto b = tf::get_variable("bias", tf::Shape{filters}, {.initializer = tf::zeros_initializer()});
  return tf::nn::relu(tf::nn::bias_add(tf::nn::conv2d(x, w, {1, 1, 1, 1}, "SAME"), b));
}

tf::Output logits_of(const tf::Output& images, bool cnn) {
  if (!cnn) {
    auto h1 = tf::nn::relu(dense(images, bench::kMlpH1, "dense"));
    auto h2 = tf::nn::relu(dense(h1, bench::kMlpH2, "dense_1"));
    return dense(h2, bench::kMlpOut, "dense_2");
  }
  auto x = tf::reshape(images, {-1, 28, 28, 1});
  auto c1 = tf::nn::max_pool(conv(x, 32, "conv2d"), {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID");
  auto c2 = tf::nn::max_pool(conv(c1, 64, "conv2d_1"), {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID");
  auto h = tf::nn::relu(dense(tf::reshape(c2, {-1, 7 * 7 * 64}), 128, "dense"));
  return dense(h, 10, "dense_1");
}

// `images` images of the shuffled training set, shared among the processes, in batches of 64.
void fashion_mnist(benchmark::State& state, bool cnn, bool distributed, std::int64_t images) {
  const bench::Dataset& data = bench::fashion_mnist_train();
  const std::int64_t share = images / processes(), first = rank() * share;
  tf::Graph g;
  auto guard = g.as_default();
  tf::set_random_seed(1);
  auto x = tf::placeholder<float>(tf::Shape{-1, bench::kMlpIn}, "images");
  auto y = tf::placeholder<std::int32_t>(tf::Shape{-1}, "labels");
  auto loss =
      tf::reduce_mean(tf::nn::sparse_softmax_cross_entropy_with_logits(y, logits_of(x, cnn)));
  tf::train::GradientDescentOptimizer sgd(bench::kLearningRate);
  tf::Operation train =
      distributed ? dist::DistributedOptimizer(sgd).minimize(loss) : sgd.minimize(loss);
  std::optional<tf::Operation> sync;
  if (distributed) sync = dist::broadcast_global_variables(0);
  tf::ConfigProto config;
  config.intra_op_parallelism_threads = 1;
  config.inter_op_parallelism_threads = 1;
  tf::Session sess(g, config);
  sess.run(tf::global_variables_initializer());
  if (sync) sess.run(*sync);
  auto step = [&](std::int64_t b, std::int64_t e) {
    tf::Value batch_images(tf::DType::float32, {e - b, bench::kMlpIn});
    std::copy(data.images.begin() + b * bench::kMlpIn, data.images.begin() + e * bench::kMlpIn,
              batch_images.data<float>());
    tf::Value batch_labels(tf::DType::int32, {e - b});
    std::copy(data.labels.begin() + b, data.labels.begin() + e, batch_labels.data<std::int32_t>());
    return sess.run({loss}, {{x, batch_images}, {y, batch_labels}}, {train})[0].scalar<float>();
  };
  step(first, first + bench::kEpochBatch);  // the graph's planning, before timing
  float last_loss = 0;
  for (auto _ : state)
    state.SetIterationTime(job_seconds([&] {
      bench::for_each_batch(
          share, [&](std::int64_t b, std::int64_t e) { last_loss = step(first + b, first + e); });
    }));
  state.SetItemsProcessed(state.iterations() * share * processes());
  state.counters["last_loss"] = last_loss;
}

std::string key(const std::string& workload, const std::string& impl, const std::string& size) {
  return workload + "/" + impl + "/" + size + "/" + std::to_string(processes());
}

void register_all() {
  auto add = [](const std::string& name, int iterations, int repetitions,
                std::function<void(benchmark::State&)> fn) {
    benchmark::RegisterBenchmark(name.c_str(), [fn = std::move(fn)](benchmark::State& s) { fn(s); })
        ->UseManualTime()
        ->Iterations(iterations)
        ->Repetitions(repetitions)
        ->Unit(benchmark::kMillisecond);
  };
  add(key("allreduce", "raw_mpi", "25MB"), 20, 7,
      [](benchmark::State& s) { allreduce_raw_mpi(s, Raw::fused); });
  add(key("allreduce", "raw_mpi_per_tensor", "25MB"), 20, 7,
      [](benchmark::State& s) { allreduce_raw_mpi(s, Raw::per_tensor); });
  add(key("allreduce", "raw_mpi_nonblocking", "25MB"), 20, 7,
      [](benchmark::State& s) { allreduce_raw_mpi(s, Raw::nonblocking); });
  add(key("allreduce", "symflow", "25MB"), 20, 7, allreduce_symflow);
  const std::int64_t epoch = bench::fashion_mnist_train().size;
  for (bool distributed : {false, true}) {
    if (!distributed && processes() > 1) continue;  // N plain processes would not cooperate
    const std::string impl = distributed ? "distributed" : "plain";
    add(key("fashion_mnist_mlp", impl, std::to_string(epoch)), 1, 5,
        [=](benchmark::State& s) { fashion_mnist(s, false, distributed, epoch); });
    add(key("fashion_mnist_cnn", impl, std::to_string(kCnnImages)), 1, 5,
        [=](benchmark::State& s) { fashion_mnist(s, true, distributed, kCnnImages); });
  }
}

// Ranks other than 0 run the same benchmarks and report nothing.
class SilentReporter : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>&) override {}
};

}  // namespace

int main(int argc, char** argv) {
  dist::init();
  // Only process 0 writes --benchmark_out's file (the others would truncate it).
  std::vector<char*> args(argv, argv + argc);
  if (rank() != 0)
    std::erase_if(args,
                  [](const char* a) { return std::string_view(a).starts_with("--benchmark_out"); });
  int count = static_cast<int>(args.size());
  args.push_back(nullptr);
  register_all();
  benchmark::Initialize(&count, args.data());
  if (benchmark::ReportUnrecognizedArguments(count, args.data())) return 1;
  if (rank() == 0) {
    benchmark::RunSpecifiedBenchmarks();
  } else {
    SilentReporter silent;
    benchmark::RunSpecifiedBenchmarks(&silent);
  }
  benchmark::Shutdown();
  dist::shutdown();
  return 0;
}
