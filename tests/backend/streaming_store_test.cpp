// Streaming stores for outputs larger than the caches (backend/cpu/streaming_store.hpp):
// the copy is exact at every length, and the fused kernel that streams its outputs gives
// the same bits as the node-by-node kernels.
#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include <symflow/backend/cpu/cpu_backend.hpp>
#include <symflow/backend/cpu/fused_kernel.hpp>
#include <symflow/backend/kernel_context.hpp>
#include <symflow/runtime/executor.hpp>
#include <symflow/symflow.hpp>

namespace symflow_test_backend_streaming_store_test {

namespace tf = symflow;

namespace {

template <class T>
tf::Value random_value(tf::Dims dims, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(-3.0, 3.0);
  std::vector<T> v(static_cast<std::size_t>(tf::num_elements(dims)));
  for (T& x : v) x = static_cast<T>(dist(gen));
  return tf::Value::from_vector(v, std::move(dims));
}

int streaming_calls = 0;

// The CPU's fused kernel with streaming forced on, however small the run.
bool always_streaming(const tf::FusedProgram& program, std::span<const tf::Value> inputs,
                      const tf::Dims& dims, std::span<tf::Value> outputs, tf::ThreadPool* pool) {
  ++streaming_calls;
  return tf::cpu::fused_detail::run_fused_streaming_from(program, inputs, dims, outputs, pool, 0);
}

}  // namespace

TEST_CASE("backend/streaming_store: stream_copy copies every length exactly") {
  alignas(64) float src[67];
  alignas(64) float dst[70];
  for (int i = 0; i < 67; ++i) src[i] = static_cast<float>(i) * 1.5f - 7.0f;
  for (std::int64_t n : {0, 1, 3, 4, 5, 16, 63, 67}) {
    CAPTURE(n);
    for (float& x : dst) x = -1.0f;
    REQUIRE(tf::cpu::streamable(dst));
    tf::cpu::stream_copy(src, dst, n);
    tf::cpu::streaming_fence();
    for (std::int64_t i = 0; i < n; ++i) CHECK(dst[i] == src[i]);
    for (std::int64_t i = n; i < 70; ++i) CHECK(dst[i] == -1.0f);  // nothing past the end
  }
  alignas(64) double wide[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  alignas(64) double copy[9] = {};
  tf::cpu::stream_copy(wide, copy, 9);  // four 16-byte pieces and a plain tail
  tf::cpu::streaming_fence();
  for (int i = 0; i < 9; ++i) CHECK(copy[i] == wide[i]);
  CHECK_FALSE(tf::cpu::streamable(reinterpret_cast<char*>(copy) + 4));
}

TEST_CASE("backend/streaming_store: cache sizes as Linux writes them") {
  using tf::cpu::streaming_detail::parse_cache_size;
  CHECK(parse_cache_size("32768K") == std::size_t{32} << 20);
  CHECK(parse_cache_size("1M") == std::size_t{1} << 20);
  CHECK(parse_cache_size("512") == 512);
  CHECK(parse_cache_size("") == 0);
  CHECK(parse_cache_size("K") == 0);
  // Whatever this machine reports, it is at least one cache's worth (32 KiB).
  CHECK(tf::cpu::last_level_cache_bytes() >= std::size_t{32} << 10);
}

TEST_CASE("backend/streaming_store: the fused kernel streams large outputs with the same bits") {
  tf::Graph g;
  auto guard = g.as_default();
  auto m = tf::placeholder<float>({-1, -1}, "m");
  auto row = tf::placeholder<float>({-1}, "row");
  auto col = tf::placeholder<float>({-1, 1}, "col");
  auto t = m * row + 0.5f;  // fetched and read by later steps: streamed, then read in L1
  auto y = (t - col) / (t + 2.0f);
  const tf::ConfigProto unfused_config{
      .graph_options = {.optimizer_options = {.do_fusion = false}}};
  tf::Session unfused(g, unfused_config);
  const auto& state = g.state();
  tf::Plan plan =
      tf::detail::make_plan(state, {t.ref(), y.ref()}, {}, {m.ref(), row.ref(), col.ref()},
                            always_streaming, &tf::cpu::backend());
  REQUIRE(plan.fusion.clusters.size() == 1);
  tf::Plan usual =
      tf::detail::make_plan(state, {t.ref(), y.ref()}, {}, {m.ref(), row.ref(), col.ref()},
                            tf::cpu::run_fused, &tf::cpu::backend());
  tf::ThreadPool pool(2);
  const tf::Backend& cpu = tf::cpu::backend();
  // 3 x 7: one partial block of 21 floats, no multiple of 16 bytes; 601 x 517: 2428
  // blocks, split over two threads when there are two.
  for (const auto& shape : {std::pair<std::int64_t, std::int64_t>{3, 7}, {601, 517}}) {
    // Plain locals, no structured binding: clang 14 cannot capture one in CAPTURE's lambda.
    const std::int64_t rows = shape.first;
    const std::int64_t cols = shape.second;
    for (tf::ThreadPool* intra_op : {static_cast<tf::ThreadPool*>(nullptr), &pool}) {
      CAPTURE(rows);
      CAPTURE(intra_op != nullptr);
      const std::vector<tf::Value> in{random_value<float>({rows, cols}, 1),
                                      random_value<float>({cols}, 2),
                                      random_value<float>({rows, 1}, 3)};
      const auto want = unfused.run({t, y}, {{m, in[0]}, {row, in[1]}, {col, in[2]}});
      tf::detail::SessionState session;
      session.intra_op = intra_op;
      streaming_calls = 0;
      const auto got = tf::detail::execute(plan, state, cpu, in, session);
      CHECK(streaming_calls == 1);
      REQUIRE(got.size() == 2);
      CHECK(got[0] == want[0]);
      CHECK(got[1] == want[1]);
      // The program that ran on this thread streamed both outputs where the CPU can.
      int staged = 0;
      for (const auto& op : tf::cpu::fused_detail::workspace<float>().ops)
        staged += op.output >= 0 && op.stage >= 0;
      CHECK(staged == (tf::cpu::kHasStreamingStores ? 2 : 0));
      // The usual threshold (the last-level cache) leaves runs this small in the caches.
      const auto cached = tf::detail::execute(usual, state, cpu, in, session);
      CHECK(cached[1] == want[1]);
      for (const auto& op : tf::cpu::fused_detail::workspace<float>().ops) CHECK(op.stage < 0);
    }
  }

  // float64, and an output no step reads after.
  auto p = tf::placeholder<double>({-1}, "p");
  auto q = (p * p + 1.0) * p - 3.0;
  tf::Plan wide =
      tf::detail::make_plan(state, {q.ref()}, {}, {p.ref()}, always_streaming, &tf::cpu::backend());
  REQUIRE(wide.fusion.clusters.size() == 1);
  const tf::Value pv = random_value<double>({1001}, 4);
  tf::detail::SessionState session;
  const auto got = tf::detail::execute(wide, state, cpu, {pv}, session);
  CHECK(got[0] == unfused.run(q, {{p, pv}}));
}

}  // namespace symflow_test_backend_streaming_store_test
