// The Thrust kernels of reductions, MatMul and the nn ops (kernels_reduce.cuh,
// kernels_matmul.cuh, kernels_nn.cuh) against the CPU kernels: each graph runs in a
// default session, where these ops are placed on the GPU (checked with device_of), and in
// a CPU-only session; the results must agree.
//
// Tolerances:
// - reductions (Sum, Mean, Max, Min, Prod, Any, All, ArgMax, ArgMin, Cumsum, Cumprod,
//   BiasAddGrad) and BiasAdd: exactly the CPU's values (the kernels combine the same
//   inputs in the same order), NaN matching NaN;
// - Softmax, LogSoftmax and the cross entropies: the CPU's formulas, but CUDA's exp and
//   log may differ from the host's by an ulp or two: |gpu - cpu| <= 1e-6 + 2e-6 |cpu| for
//   float32, 1e-14 + 1e-14 |cpu| for float64;
// - L2Loss: double sums in blocks: relative 1e-6 (float32), 1e-12 (float64);
// - MatMul: Eigen's summation order is not the GPU's: integers exact, floats within
//   2 k eps sum_p |a_ip b_pj| of each other (a bound on either's rounding error).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <symflow/symflow.hpp>

#include "thrust_fixture.hpp"

namespace symflow_test_backend_thrust_reduce_matmul_nn_test {

namespace tf = symflow;
using namespace tf::test::gpu;

namespace {

// Non-trivial, reproducible elements: sin-based floats, small signed integers (whose
// products still overflow and wrap on long axes), bools.
template <class T>
tf::Value make_value(const tf::Dims& dims, int seed, double scale = 3.0) {
  const std::int64_t n = tf::num_elements(dims);
  std::vector<T> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    const double s = std::sin(0.731 * static_cast<double>(i) + 1.3 * seed);
    if constexpr (std::is_same_v<T, bool>)
      v[static_cast<std::size_t>(i)] = s > 0.6;
    else if constexpr (std::is_floating_point_v<T>)
      v[static_cast<std::size_t>(i)] = static_cast<T>(scale * s);
    else if constexpr (std::is_same_v<T, std::uint8_t>)
      v[static_cast<std::size_t>(i)] = static_cast<T>((i * 37 + seed * 11) % 251);
    else
      v[static_cast<std::size_t>(i)] = static_cast<T>((i * 37 + seed * 11) % 19 - 9);
  }
  return tf::Value::from_vector(v, dims);
}

// Values of the same dtype and dims; floats within atol + rtol |cpu| (NaN matches NaN),
// other types equal.
void check_close(const tf::Value& gpu, const tf::Value& cpu, double rtol, double atol,
                 const std::string& what) {
  INFO(what);
  CHECK_FALSE(gpu.on_device());
  REQUIRE(gpu.dtype() == cpu.dtype());
  REQUIRE(gpu.dims() == cpu.dims());
  auto compare = [&](auto tag) {
    using T = typename decltype(tag)::type;
    const auto g = gpu.flat<T>();
    const auto c = cpu.flat<T>();
    std::int64_t bad = 0, first = -1;
    for (std::size_t i = 0; i < g.size(); ++i) {
      const double a = static_cast<double>(g[i]), b = static_cast<double>(c[i]);
      const bool ok = (std::isnan(a) && std::isnan(b)) || a == b ||
                      std::abs(a - b) <= atol + rtol * std::abs(b);
      if (!ok && bad++ == 0) first = static_cast<std::int64_t>(i);
    }
    INFO("first mismatch at flat index " << first);
    if (first >= 0)
      INFO("gpu " << static_cast<double>(g[static_cast<std::size_t>(first)]) << " cpu "
                  << static_cast<double>(c[static_cast<std::size_t>(first)]));
    CHECK(bad == 0);
  };
  if (gpu.dtype() == tf::DType::float32)
    compare(tf::type_tag<float>{});
  else if (gpu.dtype() == tf::DType::float64)
    compare(tf::type_tag<double>{});
  else
    CHECK(gpu == cpu);
}

// Fetches checked against a CPU-only session, each from an op that must run on the GPU.
class Comparison {
 public:
  explicit Comparison(tf::Graph g) : g_(std::move(g)) {}
  void add(const tf::Output& t, std::string what, double rtol = 0, double atol = 0) {
    fetches_.push_back(t);
    what_.push_back(std::move(what));
    tol_.emplace_back(rtol, atol);
  }
  // Runs both sessions and compares; returns the GPU's values.
  std::vector<tf::Value> run() {
    REQUIRE_FALSE(fetches_.empty());
    GpuAndCpu v = run_on_gpu_and_cpu(g_, fetches_);
    for (std::size_t i = 0; i < fetches_.size(); ++i)
      check_close(v.gpu[i], v.cpu[i], tol_[i].first, tol_[i].second, what_[i]);
    return std::move(v.gpu);
  }

 private:
  tf::Graph g_;
  std::vector<tf::Output> fetches_;
  std::vector<std::string> what_;
  std::vector<std::pair<double, double>> tol_;
};

std::string dims_text(const tf::Dims& d) { return tf::dims_to_string(d); }

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The axis lists to reduce a tensor of rank `rank` over: none, each axis (and its
// negative), pairs, all (as a list and as "no axis").
std::vector<tf::Axis> axis_lists(std::int64_t rank) {
  std::vector<tf::Axis> out{tf::Axis(tf::Dims{})};
  for (std::int64_t a = 0; a < rank; ++a) {
    out.emplace_back(static_cast<int>(a));
    out.emplace_back(tf::Dims{a - rank});
  }
  for (std::int64_t a = 0; a < rank; ++a)
    for (std::int64_t b = a + 1; b < rank; ++b) out.emplace_back(tf::Dims{b, a});
  out.emplace_back();  // every axis
  return out;
}

std::string axis_text(const tf::Axis& a) {
  return a.axes ? dims_text(*a.axes) : std::string("(all)");
}

// A constant of `dims` from make_value, with a NaN at flat index 1 when asked.
template <class T>
tf::Output input_const(const tf::Dims& dims, int seed, bool with_nan = false) {
  tf::Value v = make_value<T>(dims, seed);
  if constexpr (std::is_floating_point_v<T>)
    if (with_nan && v.size() > 1) v.data<T>()[1] = static_cast<T>(kNaN);
  return tf::constant(v);
}

// Sum, Mean, Max, Min and Prod of one input over every axis list, kept dims or not.
template <class T>
void add_reductions(Comparison& c, const tf::Dims& dims, int seed, bool with_nan = false) {
  tf::Output x = input_const<T>(dims, seed, with_nan);
  const std::string base = std::string(tf::dtype_name(tf::dtype_v<T>)) + " " + dims_text(dims);
  for (const tf::Axis& axis : axis_lists(static_cast<std::int64_t>(dims.size())))
    for (bool keep : {false, true}) {
      const std::string w = base + " axes " + axis_text(axis) + (keep ? " keep" : "");
      c.add(tf::reduce_sum(x, axis, keep), "Sum " + w);
      c.add(tf::reduce_mean(x, axis, keep), "Mean " + w);
      c.add(tf::reduce_max(x, axis, keep), "Max " + w);
      c.add(tf::reduce_min(x, axis, keep), "Min " + w);
      c.add(tf::reduce_prod(x, axis, keep), "Prod " + w);
    }
}

}  // namespace

TEST_CASE("thrust/reduce: Sum, Mean, Max, Min, Prod over any axes give the CPU's values") {
  const std::vector<tf::Dims> shapes{{}, {7}, {2, 3, 4}, {5, 1, 6}, {1, 1}, {3, 2, 2, 3}};
  tf::Graph g;
  auto guard = g.as_default();
  Comparison c(g);
  int seed = 0;
  for (const tf::Dims& d : shapes) {
    add_reductions<float>(c, d, ++seed, true);
    add_reductions<double>(c, d, ++seed);
    add_reductions<std::int32_t>(c, d, ++seed);
    add_reductions<std::int64_t>(c, d, ++seed);
    add_reductions<std::uint8_t>(c, d, ++seed);
  }
  std::vector<tf::Value> v = c.run();
  // Spot checks that the comparison compares something: a float Sum over all of [7].
  CHECK(v.size() > 100);
}

TEST_CASE("thrust/reduce: empty dimensions give the identities (and NaN means)") {
  tf::Graph g;
  auto guard = g.as_default();
  Comparison c(g);
  int seed = 0;
  for (const tf::Dims& d : std::vector<tf::Dims>{{0}, {0, 3}, {3, 0}, {4, 0, 2}}) {
    add_reductions<float>(c, d, ++seed);
    add_reductions<std::int32_t>(c, d, ++seed);
  }
  c.run();
  tf::Session sess(g);
  auto x = tf::zeros<float>(tf::Shape{3, 0});
  CHECK(sess.run(tf::reduce_max(x, 1)).to_vector<float>() ==
        std::vector<float>(3, -std::numeric_limits<float>::infinity()));
  CHECK(std::isnan(sess.run(tf::reduce_mean(x, 1)).to_vector<float>().at(0)));
  CHECK(sess.run(tf::reduce_prod(x, 1)).to_vector<float>() == std::vector<float>(3, 1.0f));
}

TEST_CASE("thrust/reduce: large inputs take the CPU's blocked order, bit for bit") {
  // Blocked on the CPU (axis 0 reduced, every kept axis shorter than 4, >= 65536 inputs)
  // and not blocked (a long kept axis, or axis 0 kept).
  tf::Graph g;
  auto guard = g.as_default();
  Comparison c(g);
  struct Case {
    tf::Dims dims;
    tf::Axis axis;
  };
  const std::vector<Case> cases{
      {{300, 300}, {}},          {{30000, 3}, tf::Axis(0)},
      {{70000}, tf::Axis(0)},    {{2, 40000, 3}, tf::Axis(tf::Dims{0, 1})},
      {{3, 40000}, tf::Axis(1)}, {{40000, 5}, tf::Axis(0)},
      {{200, 400}, tf::Axis(1)}};
  int seed = 0;
  for (const Case& k : cases) {
    tf::Output xf = input_const<float>(k.dims, ++seed);
    tf::Output xd = input_const<double>(k.dims, ++seed);
    tf::Output xi = input_const<std::int32_t>(k.dims, ++seed);
    const std::string w = dims_text(k.dims) + " axes " + axis_text(k.axis);
    c.add(tf::reduce_sum(xf, k.axis), "Sum float " + w);
    c.add(tf::reduce_mean(xf, k.axis), "Mean float " + w);
    c.add(tf::reduce_sum(xd, k.axis), "Sum double " + w);
    c.add(tf::reduce_max(xf, k.axis), "Max float " + w);
    c.add(tf::reduce_sum(xi, k.axis), "Sum int32 " + w);
    c.add(tf::reduce_prod(xi, k.axis), "Prod int32 " + w);
  }
  c.run();
}

TEST_CASE("thrust/reduce: Any and All") {
  tf::Graph g;
  auto guard = g.as_default();
  Comparison c(g);
  int seed = 0;
  for (const tf::Dims& d :
       std::vector<tf::Dims>{{}, {5}, {3, 4}, {2, 3, 4}, {0, 3}, {3, 0}, {300, 300}}) {
    tf::Output x = input_const<bool>(d, ++seed);
    for (const tf::Axis& axis : axis_lists(static_cast<std::int64_t>(d.size())))
      for (bool keep : {false, true}) {
        const std::string w = dims_text(d) + " axes " + axis_text(axis) + (keep ? " keep" : "");
        c.add(tf::reduce_any(x, axis, keep), "Any " + w);
        c.add(tf::reduce_all(x, axis, keep), "All " + w);
      }
  }
  c.run();
}

TEST_CASE("thrust/reduce: ArgMax and ArgMin") {
  tf::Graph g;
  auto guard = g.as_default();
  Comparison c(g);
  int seed = 0;
  for (const tf::Dims& d : std::vector<tf::Dims>{{6}, {3, 5}, {2, 3, 4}, {0, 3}, {4, 1}}) {
    const std::vector<tf::Output> inputs{
        input_const<float>(d, ++seed, true), input_const<double>(d, ++seed),
        input_const<std::int32_t>(d, ++seed), input_const<std::uint8_t>(d, ++seed),
        input_const<bool>(d, ++seed)};
    for (const tf::Output& x : inputs)
      for (std::int64_t a = -static_cast<std::int64_t>(d.size());
           a < static_cast<std::int64_t>(d.size()); ++a) {
        // An empty reduced axis with outputs is an error (tested below).
        const auto axis =
            static_cast<std::size_t>(a < 0 ? a + static_cast<std::int64_t>(d.size()) : a);
        tf::Dims out = d;
        out.erase(out.begin() + static_cast<std::ptrdiff_t>(axis));
        if (d[axis] == 0 && tf::num_elements(out) > 0) continue;
        const std::string w = std::string(tf::dtype_name(x.dtype())) + " " + dims_text(d) +
                              " axis " + std::to_string(a);
        c.add(tf::argmax(x, a), "ArgMax " + w);
        c.add(tf::argmin(x, a, tf::DType::int32), "ArgMin int32 " + w);
      }
  }
  std::vector<tf::Value> v = c.run();
  // The NaN at index 1 of the float [6] input never wins.
  tf::Session sess(g);
  tf::Value x = make_value<float>({6}, 1);
  x.data<float>()[1] = static_cast<float>(kNaN);
  CHECK(sess.run(tf::argmax(tf::constant(x), 0)).to_vector<std::int64_t>() ==
        std::vector<std::int64_t>{0});  // sin(1.3) = 0.96 * 3 is the largest left
}

TEST_CASE("thrust/reduce: Cumsum and Cumprod, exclusive and reversed") {
  tf::Graph g;
  auto guard = g.as_default();
  Comparison c(g);
  int seed = 0;
  for (const tf::Dims& d : std::vector<tf::Dims>{{7}, {3, 4}, {2, 3, 4}, {0, 3}, {3, 0}}) {
    const std::vector<tf::Output> inputs{
        input_const<float>(d, ++seed), input_const<double>(d, ++seed),
        input_const<std::int32_t>(d, ++seed), input_const<std::int64_t>(d, ++seed),
        input_const<std::uint8_t>(d, ++seed)};
    for (const tf::Output& x : inputs)
      for (std::int64_t a = -static_cast<std::int64_t>(d.size());
           a < static_cast<std::int64_t>(d.size()); ++a)
        for (bool exclusive : {false, true})
          for (bool reverse : {false, true}) {
            const std::string w = std::string(tf::dtype_name(x.dtype())) + " " + dims_text(d) +
                                  " axis " + std::to_string(a) + (exclusive ? " exclusive" : "") +
                                  (reverse ? " reverse" : "");
            c.add(tf::cumsum(x, a, exclusive, reverse), "Cumsum " + w);
            c.add(tf::cumprod(x, a, exclusive, reverse), "Cumprod " + w);
          }
  }
  c.run();
}

TEST_CASE("thrust/reduce: L2Loss") {
  tf::Graph g;
  auto guard = g.as_default();
  Comparison c(g);
  int seed = 0;
  for (const tf::Dims& d : std::vector<tf::Dims>{{}, {0}, {5, 7}, {4096}, {3, 5000}}) {
    c.add(tf::nn::l2_loss(input_const<float>(d, ++seed)), "float " + dims_text(d), 1e-6);
    c.add(tf::nn::l2_loss(input_const<double>(d, ++seed)), "double " + dims_text(d), 1e-12);
  }
  std::vector<tf::Value> v = c.run();
  CHECK(v.at(4).scalar<float>() > 10.0f);  // [5, 7] of values up to 3 in size
}

// ---- MatMul ---------------------------------------------------------------------------------

namespace {

// op(a) op(b), compared with the CPU's within 2 k eps sum_p |a_ip b_pj| (floats) or
// exactly (integers).
template <class T>
void check_matmul(std::int64_t m, std::int64_t k, std::int64_t n, bool ta, bool tb, int seed) {
  INFO("MatMul " << tf::dtype_name(tf::dtype_v<T>) << " m " << m << " k " << k << " n " << n
                 << " ta " << ta << " tb " << tb);
  tf::Graph g;
  auto guard = g.as_default();
  const tf::Value av = make_value<T>(ta ? tf::Dims{k, m} : tf::Dims{m, k}, seed);
  const tf::Value bv = make_value<T>(tb ? tf::Dims{n, k} : tf::Dims{k, n}, seed + 1);
  tf::Output prod = tf::matmul(tf::constant(av), tf::constant(bv), ta, tb);
  tf::Session gpu(g);
  tf::Session cpu(g, cpu_only());
  CHECK(gpu.device_of(prod.op()) == kGpu);
  const tf::Value r = gpu.run(prod);
  const tf::Value e = cpu.run(prod);
  CHECK_FALSE(r.on_device());
  REQUIRE(r.dims() == tf::Dims{m, n});
  REQUIRE(e.dims() == tf::Dims{m, n});
  if constexpr (std::is_integral_v<T>) {
    CHECK(r == e);
  } else {
    const T* a = av.data<T>();
    const T* b = bv.data<T>();
    auto at_a = [&](std::int64_t i, std::int64_t p) { return ta ? a[p * m + i] : a[i * k + p]; };
    auto at_b = [&](std::int64_t p, std::int64_t j) { return tb ? b[j * k + p] : b[p * n + j]; };
    std::int64_t bad = 0;
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        double bound = 0;
        for (std::int64_t p = 0; p < k; ++p)
          bound += std::abs(static_cast<double>(at_a(i, p)) * static_cast<double>(at_b(p, j)));
        const double tol =
            2.0 * static_cast<double>(k + 1) * std::numeric_limits<T>::epsilon() * bound;
        const double diff = std::abs(static_cast<double>(r.data<T>()[i * n + j]) -
                                     static_cast<double>(e.data<T>()[i * n + j]));
        if (diff > tol) ++bad;
      }
    CHECK(bad == 0);
  }
}

}  // namespace

TEST_CASE("thrust/matmul: every transpose, dtype and shape, empty ones included") {
  struct Mkn {
    std::int64_t m, k, n;
  };
  const std::vector<Mkn> shapes{{3, 4, 5}, {1, 7, 1}, {17, 33, 9}, {64, 70, 40},
                                {0, 3, 4}, {3, 0, 4}, {3, 4, 0},   {1, 1, 1}};
  int seed = 0;
  for (const Mkn& s : shapes)
    for (bool ta : {false, true})
      for (bool tb : {false, true}) {
        check_matmul<float>(s.m, s.k, s.n, ta, tb, ++seed);
        check_matmul<double>(s.m, s.k, s.n, ta, tb, ++seed);
        check_matmul<std::int32_t>(s.m, s.k, s.n, ta, tb, ++seed);
        check_matmul<std::int64_t>(s.m, s.k, s.n, ta, tb, ++seed);
      }
  // An empty sum is zero.
  tf::Graph g;
  auto guard = g.as_default();
  tf::Session sess(g);
  CHECK(sess.run(tf::matmul(tf::zeros<float>(tf::Shape{2, 0}), tf::zeros<float>(tf::Shape{0, 3})))
            .to_vector<float>() == std::vector<float>(6, 0.0f));
  // A known product: [[1, 2], [3, 4]] [[5, 6], [7, 8]] = [[19, 22], [43, 50]].
  CHECK(sess.run(tf::matmul(tf::constant<float>({{1, 2}, {3, 4}}),
                            tf::constant<float>({{5, 6}, {7, 8}})))
            .to_vector<float>() == std::vector<float>{19, 22, 43, 50});
}

// ---- nn -------------------------------------------------------------------------------------

namespace {
constexpr double kRtol32 = 2e-6, kAtol32 = 1e-6, kTol64 = 1e-14;
double rtol_of(tf::DType d) { return d == tf::DType::float32 ? kRtol32 : kTol64; }
double atol_of(tf::DType d) { return d == tf::DType::float32 ? kAtol32 : kTol64; }
}  // namespace

TEST_CASE("thrust/nn: Softmax and LogSoftmax over the last axis") {
  tf::Graph g;
  auto guard = g.as_default();
  Comparison c(g);
  int seed = 0;
  for (const tf::Dims& d :
       std::vector<tf::Dims>{{6}, {4, 7}, {2, 3, 5}, {0, 4}, {3, 0}, {1, 1}, {8, 300}}) {
    for (const tf::Output& x : {input_const<float>(d, ++seed), input_const<double>(d, ++seed)}) {
      const std::string w = std::string(tf::dtype_name(x.dtype())) + " " + dims_text(d);
      c.add(tf::nn::softmax(x), "Softmax " + w, rtol_of(x.dtype()), atol_of(x.dtype()));
      c.add(tf::nn::log_softmax(x), "LogSoftmax " + w, rtol_of(x.dtype()), atol_of(x.dtype()));
    }
    // Large logits: the max shift keeps them finite.
    tf::Output big = tf::constant(make_value<float>(d, ++seed, 80.0));
    c.add(tf::nn::softmax(big), "Softmax large " + dims_text(d), kRtol32, kAtol32);
    c.add(tf::nn::log_softmax(big), "LogSoftmax large " + dims_text(d), kRtol32, kAtol32);
  }
  std::vector<tf::Value> v = c.run();
  // A row sums to 1.
  const std::vector<float> row = v.at(0).to_vector<float>();
  float sum = 0;
  for (float p : row) sum += p;
  CHECK(sum == doctest::Approx(1.0f).epsilon(1e-5));
}

TEST_CASE("thrust/nn: SoftmaxCrossEntropyWithLogits, loss and backprop") {
  tf::Graph g;
  auto guard = g.as_default();
  Comparison c(g);
  int seed = 0;
  for (const tf::Dims& d : std::vector<tf::Dims>{{5, 7}, {1, 1}, {0, 3}, {3, 0}, {16, 100}}) {
    for (tf::DType dt : {tf::DType::float32, tf::DType::float64}) {
      tf::Value logits =
          dt == tf::DType::float32 ? make_value<float>(d, ++seed) : make_value<double>(d, ++seed);
      tf::Value labels = dt == tf::DType::float32 ? make_value<float>(d, ++seed, 1.0)
                                                  : make_value<double>(d, ++seed, 1.0);
      tf::Output loss =
          tf::nn::softmax_cross_entropy_with_logits_v2(tf::constant(labels), tf::constant(logits));
      REQUIRE(loss.op().type() == "SoftmaxCrossEntropyWithLogits");
      const std::string w = std::string(tf::dtype_name(dt)) + " " + dims_text(d);
      c.add(loss, "loss " + w, rtol_of(dt), atol_of(dt));
      c.add(loss.op().output(1), "backprop " + w, rtol_of(dt), atol_of(dt));
    }
  }
  c.run();
}

TEST_CASE("thrust/nn: SparseSoftmaxCrossEntropyWithLogits, and its label check") {
  tf::Graph g;
  auto guard = g.as_default();
  Comparison c(g);
  int seed = 0;
  for (const tf::Dims& d : std::vector<tf::Dims>{{6, 5}, {1, 1}, {0, 4}, {12, 100}}) {
    std::vector<std::int32_t> l32;
    std::vector<std::int64_t> l64;
    for (std::int64_t r = 0; r < d[0]; ++r) {
      l32.push_back(static_cast<std::int32_t>((r * 7 + 3) % d[1]));
      l64.push_back((r * 5 + 1) % d[1]);
    }
    for (tf::DType dt : {tf::DType::float32, tf::DType::float64})
      for (bool wide : {false, true}) {
        tf::Value logits =
            dt == tf::DType::float32 ? make_value<float>(d, ++seed) : make_value<double>(d, ++seed);
        tf::Value labels =
            wide ? tf::Value::from_vector(l64, {d[0]}) : tf::Value::from_vector(l32, {d[0]});
        tf::Output loss = tf::nn::sparse_softmax_cross_entropy_with_logits(tf::constant(labels),
                                                                           tf::constant(logits));
        REQUIRE(loss.op().type() == "SparseSoftmaxCrossEntropyWithLogits");
        const std::string w =
            std::string(tf::dtype_name(dt)) + (wide ? " int64 " : " int32 ") + dims_text(d);
        c.add(loss, "loss " + w, rtol_of(dt), atol_of(dt));
        c.add(loss.op().output(1), "backprop " + w, rtol_of(dt), atol_of(dt));
      }
  }
  c.run();

  tf::Graph bad;
  auto bad_guard = bad.as_default();
  auto labels = tf::placeholder(tf::DType::int32, tf::Shape{3});
  auto loss = tf::nn::sparse_softmax_cross_entropy_with_logits(
      labels, tf::constant(make_value<float>({3, 4}, 1)));
  check_same_error(loss,
                   "Received a label value of 4 which is outside the valid range of [0, 4).  "
                   "Label values: 1 4 2",
                   {{labels, tf::Value{1, 4, 2}}});
  check_same_error(loss, "label value of -1", {{labels, tf::Value{-1, 0, 0}}});
}

TEST_CASE("thrust/nn: BiasAdd and BiasAddGrad") {
  tf::Graph g;
  auto guard = g.as_default();
  Comparison c(g);
  int seed = 0;
  for (const tf::Dims& d :
       std::vector<tf::Dims>{{4, 3}, {2, 3, 5}, {0, 4}, {3, 0}, {2, 2, 2, 6}, {30000, 3}}) {
    const tf::Dims bias_dims{d.back()};
    auto add_both = [&](auto tag) {
      using T = typename decltype(tag)::type;
      tf::Output value = input_const<T>(d, ++seed);
      tf::Output bias = input_const<T>(bias_dims, ++seed);
      const std::string w = std::string(tf::dtype_name(tf::dtype_v<T>)) + " " + dims_text(d);
      c.add(tf::nn::bias_add(value, bias), "BiasAdd " + w);
      c.add(tf::detail::bias_add_grad(value), "BiasAddGrad " + w);
    };
    add_both(tf::type_tag<float>{});
    add_both(tf::type_tag<double>{});
    add_both(tf::type_tag<std::int32_t>{});
    add_both(tf::type_tag<std::uint8_t>{});  // wraps around
  }
  c.run();
}

// ---- errors -----------------------------------------------------------------------------------

TEST_CASE("thrust/reduce: errors found when the kernels run are the CPU's") {
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::constant(make_value<float>({2, 3}, 1));
  auto axes = tf::placeholder(tf::DType::int32, tf::Shape::unknown());
  check_same_error(tf::reduce_sum(x, tf::Axis(axes)), "Axes contains duplicate dimension: 1",
                   {{axes, tf::Value{1, -1}}});
  check_same_error(tf::reduce_max(x, tf::Axis(axes)),
                   "Invalid reduction dimension 2 for input with 2 dimensions.",
                   {{axes, tf::Value{2}}});
  check_same_error(tf::reduce_prod(x, tf::Axis(axes)), "duplicate dimension: 0",
                   {{axes, tf::Value{0, 0}}});
  auto flags = tf::constant(make_value<bool>({2, 3}, 1));
  check_same_error(tf::reduce_any(flags, tf::Axis(axes)), "Invalid reduction dimension -3",
                   {{axes, tf::Value{-3}}});

  // ArgMax's dimension and empty axis, Cumsum's axis.
  auto dim = tf::placeholder(tf::DType::int32, tf::Shape{});
  tf::detail::OpBuilder b(g, {}, "ArgMax");
  tf::Output am = b.build(tf::detail::kArgMaxOp, {x, dim},
                          {{"T", tf::DType::float32},
                           {"Tidx", tf::DType::int32},
                           {"output_type", tf::DType::int64}})
                      .output(0);
  check_same_error(am, "Expected dimension in the range [-2, 2), but got 2",
                   {{dim, tf::Value(std::int32_t{2})}});
  tf::detail::OpBuilder b2(g, {}, "ArgMax");
  tf::Output am_empty = b2.build(tf::detail::kArgMaxOp, {tf::zeros<float>(tf::Shape{3, 0}), dim},
                                 {{"T", tf::DType::float32},
                                  {"Tidx", tf::DType::int32},
                                  {"output_type", tf::DType::int64}})
                            .output(0);
  check_same_error(am_empty, "Reduction axis 1 is empty in shape [3,0]",
                   {{dim, tf::Value(std::int32_t{1})}});
  check_same_error(tf::cumsum(x, tf::Output(dim)),
                   "ScanOp: Expected scan axis in the range [-2, 2), but got -3",
                   {{dim, tf::Value(std::int32_t{-3})}});
}

TEST_CASE("thrust/matmul: errors found when the kernel runs are the CPU's") {
  tf::Graph g;
  auto guard = g.as_default();
  auto a = tf::placeholder(tf::DType::float32);
  auto b = tf::placeholder(tf::DType::float32);
  auto prod = tf::matmul(a, b);
  check_same_error(prod, "Matrix size-incompatible: In[0]: [2,3], In[1]: [4,2]",
                   {{a, make_value<float>({2, 3}, 1)}, {b, make_value<float>({4, 2}, 2)}});
  check_same_error(prod, "In[0] is not a matrix. Instead it has shape [2,3,1]",
                   {{a, make_value<float>({2, 3, 1}, 1)}, {b, make_value<float>({3, 2}, 2)}});
}

}  // namespace symflow_test_backend_thrust_reduce_matmul_nn_test
