// Session::run from several threads at once on one session: every run gets its own
// answer, new plans may be built while others run, variables updated with locking
// count every update, the intra-op pool is shared safely, and the graph may grow while
// runs are in flight. The ctest tsan.concurrent_runs runs this file under
// ThreadSanitizer too.
#include <doctest/doctest.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <thread>
#include <vector>

#include <symflow/symflow.hpp>

namespace symflow_test_runtime_concurrent_run_test {

namespace tf = symflow;

namespace {

constexpr int kThreads = 4;

template <class F>
void in_threads(F body) {
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(body, t);
  for (auto& th : threads) th.join();
}

tf::Value filled(tf::Dims dims, float x) { return tf::Value::filled<float>(std::move(dims), x); }

}  // namespace

TEST_CASE("runtime/concurrency: concurrent runs of one session each get their own result") {
  tf::Graph g;
  auto guard = g.as_default();
  // Small ops (run node by node), a large elementwise chain (fused, with the shared
  // buffer cache) and a large matmul (split over the intra-op pool).
  auto x = tf::placeholder<float>({-1, 64}, "x");
  auto w = tf::constant(filled({64, 64}, 0.5f));
  auto small = tf::reduce_sum(tf::nn::relu(tf::matmul(x, w)));
  auto big = tf::placeholder<float>({-1}, "big");
  auto chain = ((big * big + big) * 2.0f - big) / (big + 1.0f);
  auto chain_sum = tf::reduce_sum(chain);
  auto m = tf::placeholder<float>({256, 256}, "m");
  auto mm = tf::reduce_sum(tf::matmul(m, m));

  tf::Session sess(g, tf::ConfigProto{.intra_op_parallelism_threads = 2});
  CHECK(sess.intra_op_threads() == 2);
  std::atomic<int> wrong{0};
  in_threads([&](int t) {
    for (int i = 0; i < 30; ++i) {
      const float v = static_cast<float>(t + 1);
      // Different signatures on different threads: plans are built while others run.
      if ((i + t) % 3 == 0) {
        float got = sess.run(small, {{x, filled({8, 64}, v)}}).scalar<float>();
        if (got != 8.0f * 64.0f * 64.0f * 0.5f * v) ++wrong;
      } else if ((i + t) % 3 == 1) {
        float got = sess.run(chain_sum, {{big, filled({20000}, v)}}).scalar<float>();
        float one = ((v * v + v) * 2.0f - v) / (v + 1.0f);
        if (std::abs(got - 20000.0f * one) > 1e-3f * 20000.0f * one) ++wrong;
      } else {
        float got = sess.run(mm, {{m, filled({256, 256}, v / 16.0f)}}).scalar<float>();
        float expect = 256.0f * 256.0f * 256.0f * (v / 16.0f) * (v / 16.0f);
        if (std::abs(got - expect) > 1e-4f * expect) ++wrong;
      }
    }
  });
  CHECK(wrong.load() == 0);
  CHECK(sess.num_cached_plans() == 3);
}

TEST_CASE("runtime/concurrency: locked variable updates from several threads all count") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Variable counter(tf::Value(std::int64_t{0}), {.name = "counter"});
  auto add_one = tf::assign_add(counter, tf::constant(std::int64_t{1}), /*use_locking=*/true);
  auto noise = tf::random_uniform(tf::Shape{16}, {.seed = 7});
  tf::Session sess(g);
  sess.run(counter.initializer());
  std::atomic<int> wrong{0};
  in_threads([&](int) {
    for (int i = 0; i < 100; ++i) {
      sess.run(add_one);
      auto r = sess.run(noise);  // a stateful kernel: its generator is shared
      if (r.size() != 16) ++wrong;
    }
  });
  CHECK(wrong.load() == 0);
  CHECK(sess.run(counter.value()).scalar<std::int64_t>() == kThreads * 100);
}

TEST_CASE("runtime/concurrency: a closed session refuses runs from every thread") {
  tf::Graph g;
  auto guard = g.as_default();
  auto c = tf::constant(1.0f);
  tf::Session sess(g);
  CHECK(sess.run(c).scalar<float>() == 1.0f);
  sess.close();
  std::atomic<int> refused{0};
  in_threads([&](int) {
    try {
      sess.run(c);
    } catch (const tf::FailedPreconditionError&) {
      ++refused;
    }
  });
  CHECK(refused.load() == kThreads);
}

TEST_CASE("runtime/concurrency: ops added to the graph while another thread runs it") {
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder<float>({-1}, "x");
  // Small ops with constants, a variable read, and a large chain that fuses.
  tf::Variable w(tf::Value(2.0f), {.name = "w"});
  auto small = tf::reduce_sum(x * w.value() + 1.0f);
  auto big = tf::placeholder<float>({-1}, "big");
  auto chain = tf::reduce_sum(((big * big + big) * 2.0f - big) / (big + 1.0f));
  tf::Session sess(g);
  sess.run(w.initializer());
  const tf::FeedDict feeds{{x, filled({4}, 1.0f)}, {big, filled({20000}, 1.0f)}};
  const float want_chain = 20000.0f * ((1.0f + 1.0f) * 2.0f - 1.0f) / 2.0f;
  auto ok = [&](const std::vector<tf::Value>& got) {
    return got.size() == 2 && got[0].scalar<float>() == 4.0f * 3.0f &&
           std::abs(got[1].scalar<float>() - want_chain) <= 1e-4f * want_chain;
  };
  // Both signatures are planned before the growth: planning reads the graph.
  const tf::FeedDict small_feeds{{x, filled({4}, 1.0f)}, {big, filled({1}, 0.0f)}};
  REQUIRE(ok(sess.run({small, chain}, feeds)));
  REQUIRE(sess.run(small, small_feeds).scalar<float>() == 12.0f);

  std::atomic<bool> adding{true};
  std::atomic<int> runs{0}, wrong{0};
  std::thread runner([&] {
    while (adding.load() || runs.load() < 20) {
      if (!ok(sess.run({small, chain}, feeds))) ++wrong;
      if (sess.run(small, small_feeds).scalar<float>() != 12.0f) ++wrong;
      ++runs;
    }
  });
  // Enough ops that the graph's node storage moves several times under the runs.
  while (runs.load() == 0) std::this_thread::yield();
  tf::Output last = x;
  for (int i = 0; i < 3000; ++i) last = tf::add(last, tf::constant(1.0f));
  adding = false;
  runner.join();
  CHECK(wrong.load() == 0);
  CHECK(runs.load() >= 20);
  // The new ops run too, in a plan of their own.
  CHECK(sess.run(last, {{x, filled({2}, 0.5f)}}).to_vector<float>() ==
        std::vector<float>{3000.5f, 3000.5f});
}

}  // namespace symflow_test_runtime_concurrent_run_test
