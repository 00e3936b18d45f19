// Fusion of elementwise clusters: the fused session gives the same bits as the
// node-by-node one, forms the clusters it should, and reports errors on the right node.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <symflow/backend/cpu/cpu_backend.hpp>
#include <symflow/backend/cpu/fused_kernel.hpp>
#include <symflow/runtime/executor.hpp>
#include <symflow/symflow.hpp>

#include "../test_util.hpp"

namespace symflow_test_runtime_fusion_test {

namespace tf = symflow;

namespace {

using Clusters = std::vector<std::vector<std::string>>;

const tf::ConfigProto kUnfused{.graph_options = {.optimizer_options = {.do_fusion = false}}};

template <class T>
tf::Value random_value(tf::Dims dims, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(-3.0, 3.0);
  std::vector<T> v(static_cast<std::size_t>(tf::num_elements(dims)));
  for (T& x : v) x = static_cast<T>(dist(gen));
  return tf::Value::from_vector(v, std::move(dims));
}

// Runs the fetches with and without fusion and checks that every value is equal bit
// for bit; returns the fused values.
std::vector<tf::Value> run_both(const tf::Graph& g, const std::vector<tf::Fetch>& fetches,
                                const tf::FeedDict& feeds = {}) {
  tf::Session fused(g);
  tf::Session unfused(g, kUnfused);
  auto a = fused.run(fetches, feeds);
  auto b = unfused.run(fetches, feeds);
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    CAPTURE(i);
    CHECK(a[i] == b[i]);
  }
  CHECK(unfused.fused_clusters(fetches, feeds).empty());
  return a;
}

// A matrix, a row, a column and a scalar, placeholders of the default graph: every way
// an input broadcasts inside a cluster.
struct BroadcastInputs {
  tf::Tensor<float> m = tf::placeholder<float>({-1, -1}, "m");
  tf::Tensor<float> row = tf::placeholder<float>({-1}, "row");
  tf::Tensor<float> col = tf::placeholder<float>({-1, 1}, "col");
  tf::Tensor<float> s = tf::placeholder<float>({}, "s");
  tf::FeedDict feeds(std::int64_t rows, std::int64_t cols, unsigned seed, float scalar) const {
    return {{m, random_value<float>({rows, cols}, seed)},
            {row, random_value<float>({cols}, seed + 1)},
            {col, random_value<float>({rows, 1}, seed + 2)},
            {s, tf::Value(scalar)}};
  }
};

}  // namespace

TEST_CASE("runtime/fusion: the benchmark chain is one cluster with the unfused bits") {
  tf::Graph g;
  auto guard = g.as_default();
  auto a = tf::placeholder<float>({-1}, "a");
  auto b = tf::placeholder<float>({-1}, "b");
  auto c = tf::placeholder<float>({-1}, "c");
  // ((a * b + c) * 2 - a) / (b + 1), one statement per node so the names are fixed.
  auto ab = a * b;
  auto abc = ab + c;
  auto twice = abc * 2;
  auto diff = twice - a;
  auto b1 = b + 1;
  auto y = diff / b1;
  // 1300 elements: ten full blocks of 128 and a partial one.
  tf::FeedDict feeds{{a, random_value<float>({1300}, 1)},
                     {b, random_value<float>({1300}, 2)},
                     {c, random_value<float>({1300}, 3)}};
  tf::Session sess(g);
  CHECK(sess.fused_clusters({y}, feeds) ==
        Clusters{{"mul", "add", "mul_1", "sub", "add_1", "truediv"}});
  auto got = run_both(g, {y}, feeds);
  // Spot check one element against the formula, evaluated in float as the ops are.
  const float a5 = feeds[0].value.data<float>()[5], b5 = feeds[1].value.data<float>()[5],
              c5 = feeds[2].value.data<float>()[5];
  const float mul = a5 * b5, add = mul + c5, mul_1 = add * 2.0f, sub = mul_1 - a5,
              add_1 = b5 + 1.0f;
  CHECK(got[0].data<float>()[5] == sub / add_1);
  // The plan is cached: a second run builds no new plan and gives the same bits.
  const std::size_t plans = sess.num_cached_plans();
  CHECK(sess.run(y, feeds) == got[0]);
  CHECK(sess.num_cached_plans() == plans);
}

TEST_CASE("runtime/fusion: scalars, row vectors and columns broadcast inside a cluster") {
  tf::Graph g;
  auto guard = g.as_default();
  const BroadcastInputs in;
  const auto& [m, row, col, s] = in;
  auto y = tf::maximum((m * row + s) - tf::exp(row), col) / tf::abs(col + 1.5f);
  auto z = tf::sqrt(tf::abs(row * s)) - tf::square(col);  // intermediates of shape [C] and [R, 1]
  const tf::FeedDict feeds = in.feeds(37, 53, 4, 0.75f);
  tf::Session sess(g);
  auto clusters = sess.fused_clusters({y, z}, feeds);
  REQUIRE(clusters.size() == 2);
  CHECK(clusters[0].size() == 8);  // mul, add, Exp, sub, Maximum, add_1, Abs, truediv
  CHECK(clusters[1].size() == 5);  // mul_1, Abs_1, Sqrt, Square, sub_1
  auto got = run_both(g, {y, z}, feeds);
  CHECK(got[0].dims() == tf::Dims{37, 53});
  CHECK(got[1].dims() == tf::Dims{37, 53});

  // Shapes the fused kernel does not take ([R, 1, C] against [R, K, C]) and a scalar
  // against a scalar still give the unfused result.
  auto p = tf::placeholder<double>({-1, -1, -1}, "p");
  auto q = tf::placeholder<double>({-1, -1, -1}, "q");
  auto w = (p * q + 1.0) * q;
  run_both(g, {w},
           {{p, random_value<double>({4, 1, 9}, 7)}, {q, random_value<double>({4, 5, 9}, 8)}});
  run_both(g, {w},
           {{p, random_value<double>({1, 1, 1}, 9)}, {q, random_value<double>({1, 1, 1}, 10)}});
  run_both(g, {w},
           {{p, random_value<double>({0, 3, 2}, 9)}, {q, random_value<double>({0, 3, 2}, 10)}});
}

TEST_CASE("runtime/fusion: a large cluster split over intra-op threads keeps the unfused bits") {
  tf::Graph g;
  auto guard = g.as_default();
  const BroadcastInputs in;
  const auto& [m, row, col, s] = in;
  auto t = m * row + s;  // fetched: an output of the cluster as well as an intermediate
  auto y = tf::maximum(t - tf::exp(row), col) / tf::abs(col + 1.5f);
  // 601 x 517: 2428 blocks of 128, the last one partial, far above one thread's share.
  const tf::FeedDict feeds = in.feeds(601, 517, 11, -0.25f);
  tf::Session unfused(g, kUnfused);
  const auto want = unfused.run({t, y}, feeds);
  for (int threads : {1, 2, 3}) {
    CAPTURE(threads);
    tf::Session fused(g, tf::ConfigProto{.intra_op_parallelism_threads = threads});
    REQUIRE(fused.fused_clusters({t, y}, feeds).size() == 1);
    for (int run = 0; run < 3; ++run) {
      const auto got = fused.run({t, y}, feeds);
      CHECK(got[0] == want[0]);
      CHECK(got[1] == want[1]);
    }
  }
}

TEST_CASE("runtime/fusion: a fetched intermediate is materialised by the cluster") {
  tf::Graph g;
  auto guard = g.as_default();
  auto a = tf::placeholder<float>({-1}, "a");
  auto b = tf::placeholder<float>({-1}, "b");
  auto t = a * b;
  auto u = t + a;
  auto v = u * u - t;
  tf::FeedDict feeds{{a, tf::Value{1.0f, 2.0f, -3.0f}}, {b, tf::Value{4.0f, 0.5f, 2.0f}}};
  tf::Session sess(g);
  CHECK(sess.fused_clusters({t, v}, feeds) == Clusters{{"mul", "add", "mul_1", "sub"}});
  auto got = run_both(g, {t, v}, feeds);
  CHECK(got[0].to_vector<float>() == std::vector<float>{4, 1, -6});
  CHECK(got[1].to_vector<float>() == std::vector<float>{21, 8, 87});
  // Fetching only the end of the chain gives the same values.
  CHECK(sess.run(v, feeds) == got[1]);
}

TEST_CASE("runtime/fusion: an intermediate read outside the cluster") {
  tf::Graph g;
  auto guard = g.as_default();
  auto a = tf::placeholder<float>({-1}, "a");
  auto b = tf::placeholder<float>({-1}, "b");
  auto t = a * b;
  auto u = t + b;
  auto total = tf::reduce_sum(t);  // not elementwise: t must be materialised
  auto w = u * total;              // comes after Sum, which reads the cluster: it cannot join
  tf::FeedDict feeds{{a, tf::Value{1.0f, 2.0f, 3.0f}}, {b, tf::Value{2.0f, 2.0f, -1.0f}}};
  tf::Session sess(g);
  CHECK(sess.fused_clusters({w}, feeds) == Clusters{{"mul", "add"}});
  auto got = run_both(g, {w, t}, feeds);
  CHECK(got[0].to_vector<float>() == std::vector<float>{12, 18, -12});

  // Two clusters that each read the other through a reduction: joining either
  // one's second node would make a cycle, so neither does.
  auto x1 = a * b;
  auto y1 = a - b;
  auto sx = tf::reduce_sum(x1);
  auto sy = tf::reduce_sum(y1);
  auto x2 = x1 + sy;
  auto y2 = y1 * sx;
  auto both = run_both(g, {x2, y2}, feeds);
  CHECK(both[0].to_vector<float>() == std::vector<float>{5, 7, 0});
  CHECK(both[1].to_vector<float>() == std::vector<float>{-3, 0, 12});
}

TEST_CASE("runtime/fusion: float64 chains fuse, integer chains run node by node") {
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder<double>({-1}, "x");
  auto y = tf::log(tf::square(x) + 1.0) * tf::sign(x) - tf::minimum(x, tf::negative(x));
  auto xv = random_value<double>({2049}, 11);
  tf::Session sess(g);
  CHECK(sess.fused_clusters({y}, {{x, xv}}).size() == 1);
  CHECK(sess.fused_clusters({y}, {{x, xv}})[0].size() == 8);
  run_both(g, {y}, {{x, xv}});

  auto i = tf::placeholder<std::int32_t>({-1}, "i");
  auto j = (i * i + 3) / 2 - i;
  tf::FeedDict ifeeds{{i, tf::Value{1, -2, 7}}};
  CHECK(sess.fused_clusters({j}, ifeeds).empty());
  CHECK(run_both(g, {j}, ifeeds)[0].to_vector<std::int32_t>() ==
        std::vector<std::int32_t>{1, 5, 19});
}

TEST_CASE("runtime/fusion: a shape error inside a cluster names its node") {
  tf::Graph g;
  auto guard = g.as_default();
  auto a = tf::placeholder<float>(tf::Shape::unknown(), "a");
  auto b = tf::placeholder<float>(tf::Shape::unknown(), "b");
  auto t = a * 2.0f;
  auto u = t + b;
  auto v = u * u;
  tf::FeedDict feeds{{a, tf::Value{1.0f, 2.0f, 3.0f}}, {b, tf::Value{1.0f, 2.0f, 3.0f, 4.0f}}};
  tf::Session fused(g);
  tf::Session unfused(g, kUnfused);
  CHECK(fused.fused_clusters({v}, feeds) == Clusters{{"mul", "add", "mul_1"}});
  auto e1 = symflow::test::thrown<tf::InvalidArgumentError>([&] { fused.run(v, feeds); });
  auto e2 = symflow::test::thrown<tf::InvalidArgumentError>([&] { unfused.run(v, feeds); });
  REQUIRE(e1);
  REQUIRE(e2);
  CHECK(e1->node_name() == "add");
  CHECK(e1->message() == "Incompatible shapes: [3] vs. [4]");
  CHECK(std::string(e1->what()) == e2->what());
  // The session stays usable, and the same plan fuses again with good shapes.
  tf::FeedDict good{{a, tf::Value{1.0f, 2.0f}}, {b, tf::Value{0.5f}}};
  CHECK(fused.run(v, good).to_vector<float>() == std::vector<float>{6.25f, 20.25f});
}

TEST_CASE("runtime/fusion: variables are read at each member's own step") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Variable v(tf::Value{1.0f, 2.0f}, {.name = "v"});
  auto y = v * 3.0f;
  auto update = v.assign(tf::Value{10.0f, 20.0f});  // runs after y's Mul, before z's Add
  auto z = (y + 1.0f) * v;
  for (const tf::ConfigProto& config : {tf::ConfigProto{}, kUnfused}) {
    tf::Session sess(g, config);
    sess.run(v.initializer());
    auto got = sess.run({z, update});
    // Mul reads v = [1, 2]; the creation order puts Assign before Add and mul_2.
    CHECK(got[0].to_vector<float>() == std::vector<float>{40, 140});
  }
}

TEST_CASE("runtime/fusion: long chains and shared intermediates reuse block buffers") {
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder<float>({-1}, "x");
  tf::Output acc = x;
  for (int k = 0; k < 20; ++k) {
    auto sq = acc * acc;
    acc = tf::sqrt(tf::abs(sq + acc)) * 0.5f - x;  // acc is read twice, x by every step
  }
  auto feeds = tf::FeedDict{{x, random_value<float>({5000}, 12)}};
  tf::Session sess(g);
  auto clusters = sess.fused_clusters({acc}, feeds);
  REQUIRE(clusters.size() == 1);
  CHECK(clusters[0].size() == 120);
  run_both(g, {acc}, feeds);
}

namespace {

int fused_calls = 0;
bool counting_kernel(const tf::FusedProgram& program, std::span<const tf::Value> inputs,
                     const tf::Dims& dims, std::span<tf::Value> outputs, tf::ThreadPool* pool) {
  ++fused_calls;
  return tf::cpu::run_fused(program, inputs, dims, outputs, pool);
}

}  // namespace

TEST_CASE("runtime/fusion: the executor calls the fused kernel once per cluster and run") {
  tf::Graph g;
  auto guard = g.as_default();
  auto a = tf::placeholder<float>({-1}, "a");
  auto b = tf::placeholder<float>({-1}, "b");
  auto t = a * b;
  auto y = tf::exp(t) - a;
  const auto& state = g.state();
  tf::Plan plan = tf::detail::make_plan(state, {y.ref()}, {}, {a.ref(), b.ref()}, counting_kernel,
                                        &tf::cpu::backend());
  REQUIRE(plan.fusion.clusters.size() == 1);
  const tf::FusedProgram& program = plan.fusion.clusters[0].program;
  CHECK(program.num_inputs == 2);
  CHECK(program.num_outputs == 1);  // only `sub`: mul and Exp stay in block buffers
  CHECK(program.num_scratch == 2);  // Exp cannot write over the buffer it reads
  tf::detail::SessionState session;
  const tf::Backend& cpu = tf::cpu::backend();
  fused_calls = 0;
  auto got = tf::detail::execute(plan, state, cpu, {tf::Value{1.0f, 2.0f}, tf::Value{0.0f, 0.5f}},
                                 session);
  CHECK(fused_calls == 1);
  CHECK(got[0].to_vector<float>() == std::vector<float>{0.0f, std::exp(1.0f) - 2.0f});
  // Inputs the kernel declines ([2, 1, 3] against [2, 4, 3]): it is asked, says no,
  // and the nodes run one by one.
  fused_calls = 0;
  auto declined = tf::detail::execute(
      plan, state, cpu,
      {tf::Value::filled<float>({2, 1, 3}, 1.0f), tf::Value::filled<float>({2, 4, 3}, 2.0f)},
      session);
  CHECK(fused_calls == 1);
  CHECK(declined[0] == tf::Value::filled<float>({2, 4, 3}, std::exp(2.0f) - 1.0f));
}

TEST_CASE("runtime/fusion: large outputs are recycled only once nothing holds them") {
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder<float>({-1}, "x");
  auto y = (x + 1.0f) * 2.0f;
  const std::int64_t n = 400000;  // 1.6 MB: the fused kernel keeps such blocks for reuse
  tf::Session sess(g);
  tf::Value first = sess.run(y, {{x, tf::Value::filled<float>({n}, 1.0f)}});
  tf::Value second = sess.run(y, {{x, tf::Value::filled<float>({n}, 2.0f)}});
  CHECK_FALSE(first.shares_buffer_with(second));
  CHECK(first == tf::Value::filled<float>({n}, 4.0f));
  CHECK(second == tf::Value::filled<float>({n}, 6.0f));
  first = tf::Value();  // its block goes back to the cache and serves the next run
  tf::Value third = sess.run(y, {{x, tf::Value::filled<float>({n}, 3.0f)}});
  CHECK(third == tf::Value::filled<float>({n}, 8.0f));
  CHECK(second == tf::Value::filled<float>({n}, 6.0f));
}

TEST_CASE("runtime/fusion: every pair of arithmetic steps keeps the unfused bits") {
  // outer(inner(x, y), z) and outer(z, inner(x, y)) for the four ops that pair
  // (backend/cpu/fused_pairs.hpp), over full blocks and a partial one.
  using Op = std::function<tf::Output(tf::Output, tf::Output)>;
  const std::vector<std::pair<std::string, Op>> ops{
      {"add", [](tf::Output a, tf::Output b) { return a + b; }},
      {"sub", [](tf::Output a, tf::Output b) { return a - b; }},
      {"mul", [](tf::Output a, tf::Output b) { return a * b; }},
      {"div", [](tf::Output a, tf::Output b) { return a / b; }}};
  for (const auto& [outer_key, outer] : ops) {
    for (const auto& [inner_key, inner] : ops) {
      // Named references: clang 14 cannot capture a structured binding in CAPTURE's lambda.
      const auto& outer_name = outer_key;
      const auto& inner_name = inner_key;
      for (int pos : {0, 1}) {
        CAPTURE(outer_name);
        CAPTURE(inner_name);
        CAPTURE(pos);
        tf::Graph g;
        auto guard = g.as_default();
        auto x = tf::placeholder<float>({-1}, "x");
        auto y = tf::placeholder<float>({-1}, "y");
        auto z = tf::placeholder<float>({-1}, "z");
        const tf::Output t = inner(x, y);
        const tf::Output out = pos == 0 ? outer(t, z) : outer(z, t);
        const tf::FeedDict feeds{{x, random_value<float>({300}, 21)},
                                 {y, random_value<float>({300}, 22)},
                                 {z, random_value<float>({300}, 23)}};
        tf::Session sess(g);
        REQUIRE(sess.fused_clusters({out}, feeds).size() == 1);
        run_both(g, {out}, feeds);
      }
    }
  }
}

namespace {

// The loops the CPU's fused kernel runs for the first cluster of `fetches`.
std::vector<tf::cpu::fused_detail::BlockOp<float>> block_program(
    const tf::Graph& g, const std::vector<std::optional<tf::TensorRef>>& fetches,
    const std::vector<tf::TensorRef>& feeds, int* buffers = nullptr) {
  tf::Plan plan =
      tf::detail::make_plan(g.state(), fetches, {}, feeds, tf::cpu::run_fused, &tf::cpu::backend());
  REQUIRE(plan.fusion.clusters.size() == 1);
  tf::cpu::fused_detail::Workspace<float> w;
  const int n = tf::cpu::fused_detail::plan_block_program(plan.fusion.clusters[0].program, w);
  if (buffers) *buffers = n;
  return w.ops;
}

}  // namespace

TEST_CASE("runtime/fusion: the CPU kernel runs a step read once with its reader") {
  tf::Graph g;
  auto guard = g.as_default();
  auto a = tf::placeholder<float>({-1}, "a");
  auto b = tf::placeholder<float>({-1}, "b");
  auto c = tf::placeholder<float>({-1}, "c");
  // The benchmark chain: mul into add, mul_1 into sub, and add_1 into truediv, which
  // reads sub too: three loops, none of them leaving a value in a block buffer.
  auto y = ((a * b + c) * 2 - a) / (b + 1);
  int buffers = -1;
  auto ops = block_program(g, {y.ref()}, {a.ref(), b.ref(), c.ref()}, &buffers);
  CHECK(ops.size() == 3);
  for (const auto& op : ops) CHECK(op.num_args == 3);
  CHECK(buffers == 2);  // add's and sub's results; truediv writes the output

  // A result read twice (t * t) stays a step of its own, and so does a fetched one.
  auto t = a - b;
  auto sq = t * t + c;
  ops = block_program(g, {sq.ref()}, {a.ref(), b.ref(), c.ref()});
  REQUIRE(ops.size() == 2);
  CHECK(ops[0].num_args == 2);  // t
  CHECK(ops[1].num_args == 3);  // t * t, then + c
  auto u = a * c;
  auto v = u + b;
  CHECK(block_program(g, {v.ref()}, {a.ref(), b.ref(), c.ref()}).size() == 1);
  CHECK(block_program(g, {u.ref(), v.ref()}, {a.ref(), b.ref(), c.ref()}).size() == 2);

  // The ops that pair are found by their ElementwiseDefs, and no others are.
  using tf::cpu::pair_detail::pairing_index;
  CHECK(pairing_index(tf::cpu::backend().elementwise(tf::detail::kAddOp)) == 0);
  CHECK(pairing_index(tf::cpu::backend().elementwise(tf::detail::kRealDivOp)) == 3);
  CHECK(pairing_index(tf::cpu::backend().elementwise(tf::detail::kMaximumOp)) == -1);
  CHECK(pairing_index(tf::cpu::backend().elementwise(tf::detail::kExpOp)) == -1);
  CHECK(pairing_index(nullptr) == -1);

  // An op that does not pair (Maximum) runs alone, and so does a unary one.
  auto m = tf::maximum(a * b, c) + tf::exp(c);
  ops = block_program(g, {m.ref()}, {a.ref(), b.ref(), c.ref()});
  CHECK(ops.size() == 4);  // a * b, Maximum, Exp, the sum
  run_both(g, {y, sq, m, u, v},
           {{a, random_value<float>({1000}, 31)},
            {b, random_value<float>({1000}, 32)},
            {c, random_value<float>({1000}, 33)}});
}

TEST_CASE("runtime/fusion: an op that needs equal shapes keeps its error inside a cluster") {
  // ReluGrad fuses, but unlike Add its kernel does not broadcast: [2, 3] against [3]
  // is an error fused or not.
  tf::Graph g;
  auto guard = g.as_default();
  auto a = tf::placeholder<float>(tf::Shape::unknown(), "a");
  auto b = tf::placeholder<float>(tf::Shape::unknown(), "b");
  auto r = tf::detail::grad_op(tf::detail::kReluGradOp, a * 2.0f, b * 2.0f);
  auto out = r + 1.0f;
  tf::FeedDict mismatched{{a, random_value<float>({2, 3}, 1)}, {b, random_value<float>({3}, 2)}};
  tf::Session fused(g);
  tf::Session unfused(g, kUnfused);
  auto e1 = symflow::test::thrown<tf::InvalidArgumentError>([&] { fused.run(out, mismatched); });
  auto e2 = symflow::test::thrown<tf::InvalidArgumentError>([&] { unfused.run(out, mismatched); });
  REQUIRE(e1);
  REQUIRE(e2);
  CHECK(std::string(e1->what()) == e2->what());
  CHECK(e1->node_name() == r.op().name());
  tf::FeedDict equal{{a, random_value<float>({2, 3}, 1)}, {b, random_value<float>({2, 3}, 2)}};
  CHECK(fused.fused_clusters({out}, equal).size() == 1);
  run_both(g, {out}, equal);
}

}  // namespace symflow_test_runtime_fusion_test
