// The near-the-limit references of the benchmark suite (issue 7), written by hand:
//
//   chain/eigen/1M,16M     ((a*b + c)*2 - a)/(b + 1) as one Eigen array expression (one
//                          pass, no temporaries) into a reused buffer; at 2 threads each
//                          OpenMP thread evaluates its half
//   chain/stream/1M,16M    the STREAM triad a = b + s*c over the same number of floats: what
//                          the memory system moves at best (3 arrays, the chain moves 4)
//   matmul/eigen/N         Eigen::MatrixXf product with noalias(), Eigen::setNbThreads(t)
//   matmul/openblas/N      cblas_sgemm, openblas_set_num_threads(t)
//   conv2d/eigen/32        im2col into a reused patch matrix + one Eigen GEMM (NHWC)
//   mlp_step/eigen/64,256  forward, backward and SGD update of the 784-256-128-10 MLP,
//                          every buffer allocated once
//
// Built with OpenMP (Eigen's GEMM threads only with it) and OMP_WAIT_POLICY=PASSIVE set by
// bench/run.py, so that no OpenMP thread spins on a core another thread needs.
#include <cblas.h>
#include <omp.h>

#include <Eigen/Core>
#include <cstdint>
#include <string>
#include <vector>

#include "bench_common.hpp"

extern "C" void openblas_set_num_threads(int num_threads);

namespace {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using RowVector = Eigen::Matrix<float, 1, Eigen::Dynamic>;
using ArrayMap = Eigen::Map<Eigen::ArrayXf, Eigen::Aligned64>;
using ConstArrayMap = Eigen::Map<const Eigen::ArrayXf, Eigen::Unaligned>;

void set_threads(int threads) {
  Eigen::setNbThreads(threads);
  omp_set_num_threads(threads);
  openblas_set_num_threads(threads);
}

// Splits [0, n) into `threads` contiguous ranges, one per OpenMP thread (static, as STREAM).
template <class F>
void split(std::int64_t n, int threads, F&& f) {
#pragma omp parallel num_threads(threads)
  {
    const std::int64_t t = omp_get_thread_num(), k = omp_get_num_threads();
    // Ranges aligned to 16 floats, so each thread starts on a cache line.
    const std::int64_t chunk = ((n + k - 1) / k + 15) / 16 * 16;
    const std::int64_t b = std::min(n, t * chunk), e = std::min(n, b + chunk);
    if (b < e) f(b, e);
  }
}

void chain_eigen(benchmark::State& state, std::int64_t n, int threads) {
  set_threads(threads);
  const auto a = bench::random_floats(n, 1), b = bench::random_floats(n, 2),
             c = bench::random_floats(n, 3);
  Eigen::ArrayXf out(n);
  // Touch the output's pages before timing, by the threads that will write them.
  split(n, threads, [&](std::int64_t lo, std::int64_t hi) { out.segment(lo, hi - lo).setZero(); });
  for (auto _ : state) {
    split(n, threads, [&](std::int64_t lo, std::int64_t hi) {
      ConstArrayMap av(a.data() + lo, hi - lo), bv(b.data() + lo, hi - lo),
          cv(c.data() + lo, hi - lo);
      out.segment(lo, hi - lo) = ((av * bv + cv) * 2.0f - av) / (bv + 1.0f);
    });
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * n * 4 * std::int64_t{sizeof(float)});
}

void stream_triad(benchmark::State& state, std::int64_t n, int threads) {
  set_threads(threads);
  std::vector<float> a(static_cast<std::size_t>(n));
  const auto b = bench::random_floats(n, 2), c = bench::random_floats(n, 3);
  const float s = 3.0f;
  // First touch by the threads that will use the pages, as STREAM does.
  split(n, threads, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t i = lo; i < hi; ++i) a[static_cast<std::size_t>(i)] = 0.0f;
  });
  for (auto _ : state) {
    split(n, threads, [&](std::int64_t lo, std::int64_t hi) {
      float* __restrict ap = a.data();
      const float* __restrict bp = b.data();
      const float* __restrict cp = c.data();
#pragma omp simd
      for (std::int64_t i = lo; i < hi; ++i) ap[i] = bp[i] + s * cp[i];
    });
    benchmark::DoNotOptimize(a.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * n * 3 * std::int64_t{sizeof(float)});
}

void gflops(benchmark::State& state, std::int64_t n) {
  state.counters["GFLOPS"] = benchmark::Counter(
      2.0 * double(n) * double(n) * double(n) * double(state.iterations()) * 1e-9,
      benchmark::Counter::kIsRate);
}

void matmul_eigen(benchmark::State& state, std::int64_t n, int threads) {
  set_threads(threads);
  const auto av = bench::random_floats(n * n, 1), bv = bench::random_floats(n * n, 2);
  Eigen::MatrixXf a = Eigen::Map<const Eigen::MatrixXf>(av.data(), n, n);
  Eigen::MatrixXf b = Eigen::Map<const Eigen::MatrixXf>(bv.data(), n, n);
  Eigen::MatrixXf c(n, n);
  for (auto _ : state) {
    c.noalias() = a * b;
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  gflops(state, n);
}

void matmul_openblas(benchmark::State& state, std::int64_t n, int threads) {
  set_threads(threads);
  const auto a = bench::random_floats(n * n, 1), b = bench::random_floats(n * n, 2);
  std::vector<float> c(static_cast<std::size_t>(n * n));
  const int ni = static_cast<int>(n);
  for (auto _ : state) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, ni, ni, ni, 1.0f, a.data(), ni, b.data(),
                ni, 0.0f, c.data(), ni);
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  gflops(state, n);
}

// SAME padding, stride 1: patches [batch*h*w, k*k*cin] (row-major, zeros outside the
// image) times the filter [k*k*cin, cout] gives the NHWC output [batch*h*w, cout].
void conv2d_eigen(benchmark::State& state, int threads) {
  set_threads(threads);
  constexpr auto s = bench::kConv;
  const std::int64_t pixels = s.batch * s.height * s.width;
  const std::int64_t depth = s.kernel * s.kernel * s.in_channels;
  const auto x = bench::random_floats(pixels * s.in_channels, 1);
  const auto wv = bench::random_floats(depth * s.out_channels, 2, -0.1f, 0.1f);
  const Eigen::Map<const RowMatrix> w(wv.data(), depth, s.out_channels);
  RowMatrix patches = RowMatrix::Zero(pixels, depth), out = RowMatrix::Zero(pixels, s.out_channels);
  const std::int64_t pad = s.kernel / 2;
  for (auto _ : state) {
    split(s.batch * s.height, threads, [&](std::int64_t lo, std::int64_t hi) {
      for (std::int64_t row = lo; row < hi; ++row) {
        const std::int64_t n = row / s.height, y = row % s.height;
        for (std::int64_t xo = 0; xo < s.width; ++xo) {
          float* p = patches.data() + ((row * s.width) + xo) * depth;
          for (std::int64_t ky = 0; ky < s.kernel; ++ky) {
            const std::int64_t iy = y + ky - pad;
            for (std::int64_t kx = 0; kx < s.kernel; ++kx, p += s.in_channels) {
              const std::int64_t ix = xo + kx - pad;
              if (iy < 0 || iy >= s.height || ix < 0 || ix >= s.width) {
                std::fill_n(p, s.in_channels, 0.0f);
              } else {
                const float* src = x.data() + ((n * s.height + iy) * s.width + ix) * s.in_channels;
                std::copy_n(src, s.in_channels, p);
              }
            }
          }
        }
      }
    });
    out.noalias() = patches * w;
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
}

// The MLP step by hand: every activation and gradient buffer lives across steps.
struct EigenMlp {
  RowMatrix w1, w2, w3;
  RowVector b1, b2, b3;
  RowMatrix z1, z2, logits, dz1, dz2, dlogits, dw1, dw2, dw3;
  RowVector db1, db2, db3;

  EigenMlp(std::int64_t batch)
      : w1(Eigen::Map<const RowMatrix>(bench::glorot(bench::kMlpIn, bench::kMlpH1, 11).data(),
                                       bench::kMlpIn, bench::kMlpH1)),
        w2(Eigen::Map<const RowMatrix>(bench::glorot(bench::kMlpH1, bench::kMlpH2, 12).data(),
                                       bench::kMlpH1, bench::kMlpH2)),
        w3(Eigen::Map<const RowMatrix>(bench::glorot(bench::kMlpH2, bench::kMlpOut, 13).data(),
                                       bench::kMlpH2, bench::kMlpOut)),
        b1(RowVector::Zero(bench::kMlpH1)),
        b2(RowVector::Zero(bench::kMlpH2)),
        b3(RowVector::Zero(bench::kMlpOut)),
        z1(batch, bench::kMlpH1),
        z2(batch, bench::kMlpH2),
        logits(batch, bench::kMlpOut),
        dz1(batch, bench::kMlpH1),
        dz2(batch, bench::kMlpH2),
        dlogits(batch, bench::kMlpOut),
        dw1(bench::kMlpIn, bench::kMlpH1),
        dw2(bench::kMlpH1, bench::kMlpH2),
        dw3(bench::kMlpH2, bench::kMlpOut) {}

  // One SGD step on images x [batch, 784]; returns the mean cross-entropy.
  float step(const Eigen::Map<const RowMatrix>& x, const std::int32_t* labels) {
    const auto batch = x.rows();
    // Forward; z1 and z2 hold the activations after ReLU.
    z1.noalias() = x * w1;
    z1 = (z1.rowwise() + b1).cwiseMax(0.0f);
    z2.noalias() = z1 * w2;
    z2 = (z2.rowwise() + b2).cwiseMax(0.0f);
    logits.noalias() = z2 * w3;
    logits.rowwise() += b3;
    // Softmax cross-entropy and its gradient, (softmax - onehot) / batch.
    float loss = 0;
    for (Eigen::Index i = 0; i < batch; ++i) {
      auto row = logits.row(i).array();
      const float m = row.maxCoeff();
      auto e = (row - m).exp();
      const float sum = e.sum();
      loss += std::log(sum) - (row(labels[i]) - m);
      dlogits.row(i) = (e / sum).matrix();
      dlogits(i, labels[i]) -= 1.0f;
    }
    dlogits /= static_cast<float>(batch);
    // Backward.
    dw3.noalias() = z2.transpose() * dlogits;
    db3 = dlogits.colwise().sum();
    dz2.noalias() = dlogits * w3.transpose();
    dz2 = (z2.array() > 0.0f).select(dz2, 0.0f);
    dw2.noalias() = z1.transpose() * dz2;
    db2 = dz2.colwise().sum();
    dz1.noalias() = dz2 * w2.transpose();
    dz1 = (z1.array() > 0.0f).select(dz1, 0.0f);
    dw1.noalias() = x.transpose() * dz1;
    db1 = dz1.colwise().sum();
    // SGD.
    w1 -= bench::kLearningRate * dw1;
    w2 -= bench::kLearningRate * dw2;
    w3 -= bench::kLearningRate * dw3;
    b1 -= bench::kLearningRate * db1;
    b2 -= bench::kLearningRate * db2;
    b3 -= bench::kLearningRate * db3;
    return loss / static_cast<float>(batch);
  }
};

void mlp_step_eigen(benchmark::State& state, std::int64_t batch, int threads) {
  set_threads(threads);
  const auto xv = bench::random_floats(batch * bench::kMlpIn, 1);
  const auto labels = bench::random_labels(batch, 2);
  const Eigen::Map<const RowMatrix> x(xv.data(), batch, bench::kMlpIn);
  EigenMlp mlp(batch);
  float loss = 0;
  for (auto _ : state) {
    loss = mlp.step(x, labels.data());
    benchmark::DoNotOptimize(loss);
  }
  state.counters["last_loss"] = loss;
}

void register_all() {
  for (int t : bench::kThreads) {
    for (const auto& [n, label] : bench::kChainSizes) {
      bench::add("chain", "eigen", label, t, [n = n, t](auto& s) { chain_eigen(s, n, t); });
      bench::add("chain", "stream", label, t, [n = n, t](auto& s) { stream_triad(s, n, t); });
    }
    for (std::int64_t n : bench::kMatmulSizes) {
      bench::add("matmul", "eigen", std::to_string(n), t,
                 [n, t](auto& s) { matmul_eigen(s, n, t); });
      bench::add("matmul", "openblas", std::to_string(n), t,
                 [n, t](auto& s) { matmul_openblas(s, n, t); });
    }
    bench::add("conv2d", "eigen", "32", t, [t](auto& s) { conv2d_eigen(s, t); });
    for (std::int64_t b : bench::kMlpBatches)
      bench::add("mlp_step", "eigen", std::to_string(b), t,
                 [b, t](auto& s) { mlp_step_eigen(s, b, t); });
  }
}

}  // namespace

int main(int argc, char** argv) {
  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
