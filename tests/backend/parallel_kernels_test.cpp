// The intra-op ThreadPool, and the CPU kernels that split their work over it: each
// kernel runs with no pool and with pools of 2 and 3 threads, and the results must be
// the same bit for bit (every split kernel claims that; see backend/cpu/matmul.hpp,
// conv.hpp and reduce.hpp), and close to a plain reference where one is cheap.

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <symflow/backend/cpu/cpu_backend.hpp>
#include <symflow/backend/kernel_context.hpp>
#include <symflow/backend/thread_pool.hpp>
#include <symflow/ops/registry.hpp>
#include <symflow/symflow.hpp>

namespace symflow_test_backend_parallel_kernels_test {

namespace {

using namespace symflow;

// ---- ThreadPool ------------------------------------------------------------------------

// Every index of [0, n) exactly once, in chunks of at least min_chunk (or one chunk).
void check_cover(ThreadPool& pool, std::int64_t n, std::int64_t min_chunk) {
  std::vector<std::atomic<int>> seen(static_cast<std::size_t>(n));
  std::mutex mutex;
  std::vector<std::pair<std::int64_t, std::int64_t>> chunks;
  pool.parallel_for(n, min_chunk, [&](std::int64_t b, std::int64_t e) {
    {
      std::lock_guard lock(mutex);
      chunks.emplace_back(b, e);
    }
    for (std::int64_t i = b; i < e; ++i) seen[static_cast<std::size_t>(i)]++;
  });
  for (std::int64_t i = 0; i < n; ++i) CHECK(seen[static_cast<std::size_t>(i)] == 1);
  CHECK(static_cast<int>(chunks.size()) <= pool.num_threads());
  for (auto [b, e] : chunks) {
    CHECK(b < e);
    if (chunks.size() > 1) CHECK(e - b >= min_chunk);
  }
}

TEST_CASE("ThreadPool: parallel_for covers [0, n) once, in chunks of at least min_chunk") {
  ThreadPool pool(3);
  CHECK(pool.num_threads() == 3);
  for (std::int64_t n : {1, 2, 3, 7, 100, 1001})
    for (std::int64_t min_chunk : {1, 2, 5, 40, 2000}) check_cover(pool, n, min_chunk);
  bool called = false;
  pool.parallel_for(0, 1, [&](std::int64_t, std::int64_t) { called = true; });
  CHECK_FALSE(called);
  // Several chunks do run on other threads.
  std::mutex mutex;
  std::set<std::thread::id> ids;
  for (int rep = 0; rep < 20 && ids.size() < 2; ++rep)
    pool.parallel_for(3, 1, [&](std::int64_t, std::int64_t) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      std::lock_guard lock(mutex);
      ids.insert(std::this_thread::get_id());
    });
  CHECK(ids.size() >= 2);
}

TEST_CASE("ThreadPool: parallel_for_chunks numbers its num_chunks chunks in order") {
  ThreadPool pool(3);
  for (std::int64_t n : {0, 1, 5, 100, 1001})
    for (std::int64_t min_chunk : {1, 40, 2000}) {
      CAPTURE(n);
      CAPTURE(min_chunk);
      const std::int64_t count = pool.num_chunks(n, min_chunk);
      CHECK(count ==
            (n == 0 ? 0 : std::min<std::int64_t>(3, std::max<std::int64_t>(1, n / min_chunk))));
      std::mutex mutex;
      std::map<std::int64_t, std::pair<std::int64_t, std::int64_t>> ranges;
      pool.parallel_for_chunks(n, min_chunk, [&](std::int64_t c, std::int64_t b, std::int64_t e) {
        std::lock_guard lock(mutex);
        CHECK(ranges.emplace(c, std::pair{b, e}).second);  // each index once
      });
      REQUIRE(static_cast<std::int64_t>(ranges.size()) == count);
      // Chunk c starts where chunk c - 1 ends: the index says where a chunk lies.
      std::int64_t next = 0;
      for (auto& [c, range] : ranges) {
        CHECK(c == std::distance(ranges.begin(), ranges.find(c)));
        CHECK(range.first == next);
        next = range.second;
      }
      if (count > 0) CHECK(next == n);
    }
  // A context without a pool: one chunk, numbered 0.
  const std::string name = "k";
  const AttrMap attrs;
  std::vector<Value> outs(1);
  KernelContext plain(name, attrs, {}, outs);
  CHECK(plain.num_chunks(100, 1) == 1);
  CHECK(plain.num_chunks(0, 1) == 0);
  int calls = 0;
  plain.parallel_for_chunks(100, 1, [&](std::int64_t c, std::int64_t b, std::int64_t e) {
    ++calls;
    CHECK(c == 0);
    CHECK(b == 0);
    CHECK(e == 100);
  });
  CHECK(calls == 1);
}

TEST_CASE("ThreadPool: an exception in a chunk reaches the caller after every chunk ends") {
  ThreadPool pool(3);
  std::atomic<int> finished{0};
  CHECK_THROWS_WITH_AS(
      pool.parallel_for(30, 1,
                        [&](std::int64_t b, std::int64_t) {
                          if (b == 10) throw std::runtime_error("chunk 10 fails");
                          std::this_thread::sleep_for(std::chrono::milliseconds(5));
                          ++finished;
                        }),
      "chunk 10 fails", std::runtime_error);
  CHECK(finished == 2);
  // The pool still works afterwards.
  check_cover(pool, 50, 1);
}

TEST_CASE("ThreadPool: parallel_for from 4 threads at once") {
  ThreadPool pool(3);
  std::vector<std::int64_t> sums(4, 0);
  std::vector<std::thread> callers;
  for (int t = 0; t < 4; ++t)
    callers.emplace_back([&, t] {
      for (int rep = 0; rep < 50; ++rep) {
        std::vector<std::int64_t> v(1000, 0);
        pool.parallel_for(1000, 10, [&](std::int64_t b, std::int64_t e) {
          for (std::int64_t i = b; i < e; ++i) v[static_cast<std::size_t>(i)] += i + t;
        });
        for (std::int64_t x : v) sums[static_cast<std::size_t>(t)] += x;
      }
    });
  for (auto& c : callers) c.join();
  for (int t = 0; t < 4; ++t) CHECK(sums[static_cast<std::size_t>(t)] == 50 * (499500 + 1000 * t));
}

TEST_CASE("ThreadPool: chunks that end around the idle threads' spin time all finish") {
  // Idle threads spin about 30 us before they sleep; chunks of 0-80 us, and pauses of
  // as long between calls, end on both sides of that, and on its edge.
  ThreadPool pool(3);
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> micros(0, 80);
  auto busy = [](int us) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(us);
    while (std::chrono::steady_clock::now() < until) {
    }
  };
  std::int64_t total = 0;
  for (int call = 0; call < 2000; ++call) {
    const int chunk_us = micros(rng), pause_us = micros(rng);
    std::atomic<std::int64_t> sum{0};
    pool.parallel_for(3, 1, [&](std::int64_t b, std::int64_t e) {
      busy(chunk_us * static_cast<int>(b));  // chunk 0 (the caller's) is the shortest
      for (std::int64_t i = b; i < e; ++i) sum += i + 1;
    });
    total += sum;
    busy(pause_us);
  }
  CHECK(total == 2000 * 6);
}

TEST_CASE("ThreadPool: a pool of 1 thread runs the work inline, in one chunk") {
  ThreadPool pool(1);
  CHECK(pool.num_threads() == 1);
  std::vector<std::pair<std::int64_t, std::int64_t>> chunks;
  std::thread::id where;
  pool.parallel_for(1000, 1, [&](std::int64_t b, std::int64_t e) {
    chunks.emplace_back(b, e);
    where = std::this_thread::get_id();
  });
  REQUIRE(chunks.size() == 1);
  CHECK(chunks[0] == std::pair<std::int64_t, std::int64_t>{0, 1000});
  CHECK(where == std::this_thread::get_id());
  CHECK(ThreadPool(0).num_threads() >= 1);  // 0: one per core
}

TEST_CASE("KernelContext: parallel_for without a pool runs inline; intra_op_threads") {
  const std::string name = "k";
  const AttrMap attrs;
  std::vector<Value> outs(1);
  KernelContext plain(name, attrs, {}, outs);
  CHECK(plain.intra_op_threads() == 1);
  int calls = 0;
  plain.parallel_for(100, 1, [&](std::int64_t b, std::int64_t e) {
    ++calls;
    CHECK(b == 0);
    CHECK(e == 100);
  });
  CHECK(calls == 1);
  ThreadPool pool(3);
  KernelContext::Session s;
  s.intra_op = &pool;
  KernelContext threaded(name, attrs, {}, outs, s);
  CHECK(threaded.intra_op_threads() == 3);
}

// ---- running kernels with and without threads --------------------------------------------

// Runs the CPU kernel of `type` on `inputs`: with no pool when threads is 0.
std::vector<Value> run_kernel(std::string_view type, const AttrMap& attrs,
                              const std::vector<Value>& inputs, std::size_t num_outputs,
                              int threads) {
  const OpDef* def = find_op_def(type);
  REQUIRE(def != nullptr);
  const std::string name(type);
  std::vector<Value> outputs(num_outputs);
  if (threads == 0) {
    KernelContext ctx(name, attrs, inputs, outputs);
    cpu::backend().kernel (*def)(ctx);
  } else {
    ThreadPool pool(threads);
    KernelContext::Session s;
    s.intra_op = &pool;
    KernelContext ctx(name, attrs, inputs, outputs, s);
    cpu::backend().kernel (*def)(ctx);
  }
  return outputs;
}

bool same_bits(const Value& a, const Value& b) {
  return a.dtype() == b.dtype() && a.dims() == b.dims() &&
         std::memcmp(a.raw_data(), b.raw_data(), static_cast<std::size_t>(a.nbytes())) == 0;
}

// The kernel's outputs with 2 and 3 threads equal, bit for bit, those with none.
std::vector<Value> check_thread_invariant(std::string_view type, const AttrMap& attrs,
                                          const std::vector<Value>& inputs,
                                          std::size_t num_outputs = 1) {
  std::vector<Value> one = run_kernel(type, attrs, inputs, num_outputs, 0);
  for (int threads : {1, 2, 3}) {
    std::vector<Value> many = run_kernel(type, attrs, inputs, num_outputs, threads);
    for (std::size_t i = 0; i < num_outputs; ++i) {
      INFO(type << " output " << i << " with " << threads << " threads");
      CHECK(same_bits(one[i], many[i]));
    }
  }
  return one;
}

template <class T>
Value random_value(Dims dims, unsigned seed, double lo = -1, double hi = 1) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  Value v(dtype_v<T>, std::move(dims));
  for (T& x : v.template flat<T>()) x = static_cast<T>(u(rng));
  return v;
}

template <class T>
double max_abs_diff(const Value& a, const std::vector<double>& ref) {
  double worst = 0;
  const T* p = a.data<T>();
  for (std::size_t i = 0; i < ref.size(); ++i)
    worst = std::max(worst, std::abs(static_cast<double>(p[i]) - ref[i]));
  return worst;
}

template <class T>
void check_matmul(std::int64_t m, std::int64_t k, std::int64_t n) {
  for (int t = 0; t < 4; ++t) {
    const bool ta = t & 1, tb = t & 2;
    INFO("m " << m << " k " << k << " n " << n << " ta " << ta << " tb " << tb << " "
              << dtype_name(dtype_v<T>));
    Value a = random_value<T>(ta ? Dims{k, m} : Dims{m, k}, unsigned(m + k));
    Value b = random_value<T>(tb ? Dims{n, k} : Dims{k, n}, unsigned(n * 3 + k));
    const AttrMap attrs{{"T", dtype_v<T>}, {"transpose_a", ta}, {"transpose_b", tb}};
    std::vector<Value> out = check_thread_invariant("MatMul", attrs, {a, b});
    REQUIRE(out[0].dims() == Dims{m, n});
    // A few entries against a double-precision dot product.
    const T* pa = a.data<T>();
    const T* pb = b.data<T>();
    const T* po = out[0].data<T>();
    for (std::int64_t i : {std::int64_t{0}, m / 2, m - 1})
      for (std::int64_t j : {std::int64_t{0}, n / 3, n - 1}) {
        double want = 0;
        for (std::int64_t q = 0; q < k; ++q)
          want += double(ta ? pa[q * m + i] : pa[i * k + q]) *
                  double(tb ? pb[j * k + q] : pb[q * n + j]);
        CHECK(std::abs(double(po[i * n + j]) - want) <= 1e-4 * double(k));
      }
  }
}

TEST_CASE("MatMul: the same bits with 1, 2 and 3 threads, all transposes") {
  // Shapes big enough to be split (>= 2M multiply-adds), by rows and by columns, with
  // sizes that do not divide the block alignment (Eigen's nr rows, mr columns).
  const std::int64_t shapes[][3] = {{64, 784, 256},  {257, 129, 255}, {100, 300, 200},
                                    {37, 1500, 530}, {2, 3000, 600},  {3, 1000, 1000},
                                    {500, 3000, 2},  {17, 2000, 97},  {16, 4096, 49}};
  for (auto& s : shapes) {
    check_matmul<float>(s[0], s[1], s[2]);
    check_matmul<double>(s[0], s[1], s[2]);
  }
  // Too small to split, and degenerate shapes.
  check_matmul<float>(8, 8, 8);
  check_matmul<float>(1, 5000, 700);
  check_matmul<float>(700, 5000, 1);
  std::vector<Value> empty_k = check_thread_invariant(
      "MatMul", {{"T", DType::float32}, {"transpose_a", false}, {"transpose_b", false}},
      {Value(DType::float32, {300, 0}), Value(DType::float32, {0, 400})});
  CHECK(empty_k[0].dims() == Dims{300, 400});
  for (float x : empty_k[0].flat<float>()) CHECK(x == 0.0f);
}

TEST_CASE("Conv2D and its backprops: the same bits with 1, 2 and 3 threads") {
  struct Case {
    Dims input, filter;
    std::vector<std::int64_t> strides, dilations;
    const char* padding;
  };
  const Case cases[] = {
      {{16, 28, 28, 8}, {3, 3, 8, 16}, {1, 1, 1, 1}, {1, 1, 1, 1}, "SAME"},
      {{8, 20, 20, 64}, {1, 1, 64, 96}, {1, 1, 1, 1}, {1, 1, 1, 1}, "VALID"},  // pointwise
      {{6, 33, 31, 5}, {5, 4, 5, 7}, {1, 2, 3, 1}, {1, 1, 1, 1}, "VALID"},
      {{5, 30, 29, 6}, {3, 3, 6, 9}, {1, 1, 1, 1}, {1, 2, 2, 1}, "SAME"},
      {{64, 7, 7, 32}, {3, 3, 32, 32}, {1, 1, 1, 1}, {1, 1, 1, 1}, "SAME"},  // small planes
  };
  unsigned seed = 1;
  for (const Case& c : cases) {
    INFO("input " << dims_to_string(c.input) << " filter " << dims_to_string(c.filter));
    const AttrMap attrs =
        detail::conv::conv_attr_map(DType::float32, c.strides, c.padding, c.dilations);
    Value x = random_value<float>(c.input, seed++);
    Value w = random_value<float>(c.filter, seed++);
    std::vector<Value> y = check_thread_invariant("Conv2D", attrs, {x, w});
    Value dy = random_value<float>(y[0].dims(), seed++);
    auto int_dims = [](const Dims& d) {
      std::vector<std::int32_t> v(d.begin(), d.end());
      return Value::from_vector(v, {4});
    };
    std::vector<Value> dx =
        check_thread_invariant("Conv2DBackpropInput", attrs, {int_dims(c.input), w, dy});
    std::vector<Value> dw =
        check_thread_invariant("Conv2DBackpropFilter", attrs, {x, int_dims(c.filter), dy});
    CHECK(dx[0].dims() == c.input);
    CHECK(dw[0].dims() == c.filter);
    // sum(dy * conv(x, w)) is linear in each: <dy, y> == <dx, x> == <dw, w>.
    auto dot = [](const Value& a, const Value& b) {
      double s = 0;
      for (std::int64_t i = 0; i < a.size(); ++i)
        s += double(a.data<float>()[i]) * double(b.data<float>()[i]);
      return s;
    };
    const double ref = dot(dy, y[0]);
    CHECK(dot(dx[0], x) == doctest::Approx(ref).epsilon(1e-4));
    CHECK(dot(dw[0], w) == doctest::Approx(ref).epsilon(1e-4));
  }
}

TEST_CASE("Pooling and its gradients: the same bits with 1, 2 and 3 threads") {
  const AttrMap attrs =
      detail::conv::pool_attr_map(DType::float32, {1, 3, 3, 1}, {1, 2, 2, 1}, "SAME");
  Value x = random_value<float>({16, 32, 32, 16}, 7);
  std::vector<Value> mp = check_thread_invariant("MaxPool", attrs, {x});
  std::vector<Value> ap = check_thread_invariant("AvgPool", attrs, {x});
  Value dy = random_value<float>(mp[0].dims(), 8);
  check_thread_invariant("MaxPoolGrad", attrs, {x, mp[0], dy});
  check_thread_invariant("AvgPoolGrad", attrs,
                         {Value::from_vector(std::vector<std::int32_t>{16, 32, 32, 16}, {4}), dy});
}

TEST_CASE("Softmax family and cross entropy: the same bits with 1, 2 and 3 threads") {
  Value logits = random_value<float>({512, 100}, 11, -5, 5);
  check_thread_invariant("Softmax", {{"T", DType::float32}}, {logits});
  check_thread_invariant("LogSoftmax", {{"T", DType::float32}}, {logits});
  std::vector<Value> sm = run_kernel("Softmax", {{"T", DType::float32}}, {logits}, 1, 0);
  std::vector<Value> xent = check_thread_invariant("SoftmaxCrossEntropyWithLogits",
                                                   {{"T", DType::float32}}, {logits, sm[0]}, 2);
  CHECK(xent[0].dims() == Dims{512});
  std::vector<std::int64_t> labels(512);
  for (std::size_t i = 0; i < labels.size(); ++i)
    labels[i] = static_cast<std::int64_t>(i * 7 % 100);
  std::vector<Value> sparse = check_thread_invariant(
      "SparseSoftmaxCrossEntropyWithLogits", {{"T", DType::float32}, {"Tlabels", DType::int64}},
      {logits, Value::from_vector(labels, {512})}, 2);
  // backprop = softmax - onehot: each row sums to 0.
  for (std::int64_t r = 0; r < 512; r += 97) {
    double s = 0;
    for (std::int64_t j = 0; j < 100; ++j) s += sparse[1].data<float>()[r * 100 + j];
    CHECK(std::abs(s) < 1e-5);
  }
}

TEST_CASE("BiasAdd and BiasAddGrad: the same bits with 1, 2 and 3 threads") {
  const AttrMap attrs{{"T", DType::float32}, {"data_format", std::string("NHWC")}};
  Value x = random_value<float>({4096, 64}, 21);
  Value b = random_value<float>({64}, 22);
  check_thread_invariant("BiasAdd", attrs, {x, b});
  for (const Dims& d : {Dims{4096, 64}, Dims{100000, 3}, Dims{64, 28, 28, 32}, Dims{7, 5}}) {
    INFO(dims_to_string(d));
    Value g = random_value<float>(d, 23);
    std::vector<Value> out = check_thread_invariant("BiasAddGrad", attrs, {g});
    const std::int64_t c = d.back();
    std::vector<double> ref(static_cast<std::size_t>(c), 0.0);
    for (std::int64_t i = 0; i < g.size(); ++i)
      ref[static_cast<std::size_t>(i % c)] += g.data<float>()[i];
    CHECK(max_abs_diff<float>(out[0], ref) < 1e-5 * double(g.size() / c));
  }
  // Below the split threshold BiasAddGrad adds rows in order, as before.
  Value small = Value::from_vector(std::vector<float>{1e8f, 1, -1e8f, 1}, {4, 1});
  std::vector<Value> s = run_kernel("BiasAddGrad", attrs, {small}, 1, 0);
  CHECK(s[0].data<float>()[0] == 1.0f);  // ((1e8 + 1) - 1e8) + 1 in float
}

TEST_CASE("Sum, Mean, Max, Min: the same bits with 1, 2 and 3 threads") {
  struct Case {
    Dims dims;
    std::vector<std::int32_t> axes;
  };
  const Case cases[] = {{{300, 400}, {0}},          {{300, 400}, {1}},   {{300, 400}, {0, 1}},
                        {{64, 50, 40}, {0, 2}},     {{64, 50, 40}, {1}}, {{200000}, {0}},
                        {{2, 100000}, {1}},         {{100000, 2}, {0}},  {{3, 40000, 3}, {0, 1}},
                        {{50, 1, 2000}, {0, 1, 2}}, {{10, 20}, {1}}};
  unsigned seed = 31;
  for (const Case& c : cases) {
    for (bool keep : {false, true}) {
      INFO(dims_to_string(c.dims) << " keep_dims " << keep);
      Value x = random_value<float>(c.dims, seed++);
      Value axes = Value::from_vector(c.axes, {static_cast<std::int64_t>(c.axes.size())});
      const AttrMap attrs{{"T", DType::float32}, {"Tidx", DType::int32}, {"keep_dims", keep}};
      std::vector<Value> sum = check_thread_invariant("Sum", attrs, {x, axes});
      check_thread_invariant("Mean", attrs, {x, axes});
      std::vector<Value> mx = check_thread_invariant("Max", attrs, {x, axes});
      check_thread_invariant("Min", attrs, {x, axes});
      // Against a double-precision sum, and the exact max.
      std::vector<double> ref(static_cast<std::size_t>(sum[0].size()), 0.0);
      std::vector<double> ref_max(ref.size(), -1e300);
      std::vector<bool> reduced(c.dims.size(), false);
      for (auto a : c.axes) reduced[static_cast<std::size_t>(a)] = true;
      std::vector<std::int64_t> index(c.dims.size(), 0);
      for (std::int64_t i = 0; i < x.size(); ++i) {
        std::int64_t o = 0;
        for (std::size_t a = 0; a < c.dims.size(); ++a)
          if (!reduced[a]) o = o * c.dims[a] + index[a];
        const double v = x.data<float>()[i];
        ref[static_cast<std::size_t>(o)] += v;
        ref_max[static_cast<std::size_t>(o)] = std::max(ref_max[static_cast<std::size_t>(o)], v);
        for (std::size_t a = c.dims.size(); a-- > 0;)
          if (++index[a] < c.dims[a])
            break;
          else
            index[a] = 0;
      }
      CHECK(max_abs_diff<float>(sum[0], ref) < 1e-6 * double(x.size()));
      CHECK(max_abs_diff<float>(mx[0], ref_max) == 0.0);
    }
  }
  // Integer sums are exact whichever way they are split.
  Value ints(DType::int32, {300000});
  for (std::int64_t i = 0; i < ints.size(); ++i)
    ints.data<std::int32_t>()[i] = static_cast<std::int32_t>(i % 1000);
  const AttrMap attrs{{"T", DType::int32}, {"Tidx", DType::int32}, {"keep_dims", false}};
  std::vector<Value> s = check_thread_invariant(
      "Sum", attrs, {ints, Value::from_vector(std::vector<std::int32_t>{0}, {1})});
  CHECK(s[0].data<std::int32_t>()[0] == 300 * 499500);
}

}  // namespace

}  // namespace symflow_test_backend_parallel_kernels_test
