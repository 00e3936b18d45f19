// Inter-op parallelism (ConfigProto::inter_op_parallelism_threads): the schedule's
// dependencies, independent branches really running side by side, and runs on several
// threads giving exactly what a run on one thread gives. The ctest tsan.concurrent_runs
// runs this file under ThreadSanitizer too.
#include <doctest/doctest.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <symflow/backend/cpu/cpu_backend.hpp>
#include <symflow/backend/cpu/fused_kernel.hpp>
#include <symflow/ops/registry.hpp>
#include <symflow/runtime/executor.hpp>
#include <symflow/symflow.hpp>
#include <symflow/train/train.hpp>

namespace symflow_test_runtime_inter_op_test {

namespace tf = symflow;

namespace {

tf::ConfigProto inter_op(int n) {
  tf::ConfigProto config;
  config.inter_op_parallelism_threads = n;
  config.intra_op_parallelism_threads = 1;
  return config;
}

tf::Value filled(tf::Dims dims, float x) { return tf::Value::filled<float>(std::move(dims), x); }

// The plan of one run signature, as the session builds it (one device). Unfused, it
// leaves each kernel to the backend it runs on, so a test can swap in its own.
tf::Plan plan_of(const tf::Graph& g, const std::vector<tf::Output>& fetches,
                 const std::vector<tf::Operation>& targets = {},
                 const std::vector<tf::Output>& feeds = {}, bool fuse = true) {
  std::vector<std::optional<tf::TensorRef>> fetch_refs;
  for (const auto& f : fetches) fetch_refs.push_back(f.ref());
  std::vector<tf::NodeId> target_ids;
  for (const auto& t : targets) target_ids.push_back(t.id());
  std::vector<tf::TensorRef> feed_refs;
  for (const auto& f : feeds) feed_refs.push_back(f.ref());
  return tf::detail::make_plan(g.state(), fetch_refs, target_ids, feed_refs,
                               fuse ? &tf::cpu::run_fused : nullptr,
                               fuse ? &tf::cpu::backend() : nullptr);
}

std::size_t step_of(const tf::Plan& plan, const tf::Operation& op) {
  for (std::size_t s = 0; s < plan.order.size(); ++s)
    if (plan.order[s] == op.id()) return s;
  FAIL("not in the plan: " << op.name());
  return 0;
}

// Whether `after` waits, directly or through others, for `before`.
bool waits_for(const tf::Plan& plan, std::size_t after, std::size_t before) {
  const tf::Schedule& s = plan.schedule;
  std::vector<bool> seen(plan.order.size(), false);
  std::vector<std::size_t> stack{before};
  while (!stack.empty()) {
    const std::size_t step = stack.back();
    stack.pop_back();
    for (std::uint32_t k = s.successor_begin[step]; k < s.successor_begin[step + 1]; ++k) {
      const std::size_t next = s.successors[k];
      if (next == after) return true;
      if (!seen[next]) {
        seen[next] = true;
        stack.push_back(next);
      }
    }
  }
  return false;
}

// A CPU backend whose Square kernel waits (up to 20 s) until a second Square is
// running too: two independent Squares can only both finish quickly if they run at
// the same time.
struct Rendezvous {
  std::mutex mutex;
  std::condition_variable cv;
  int arrived = 0;
  int met = 0;  // kernels that saw the other one
} g_rendezvous;

void meeting_square(tf::KernelContext& ctx) {
  {
    std::unique_lock lock(g_rendezvous.mutex);
    ++g_rendezvous.arrived;
    g_rendezvous.cv.notify_all();
    if (g_rendezvous.cv.wait_for(lock, std::chrono::seconds(20),
                                 [] { return g_rendezvous.arrived >= 2; }))
      ++g_rendezvous.met;
  }
  tf::cpu::backend().kernel (*tf::find_op_def("Square"))(ctx);
}

class MeetingBackend final : public tf::Backend {
 public:
  std::string_view device_type() const override { return "CPU"; }
  tf::KernelFn kernel(const tf::OpDef& def) const override {
    return def.type == "Square" ? &meeting_square : tf::cpu::backend().kernel(def);
  }
};

}  // namespace

TEST_CASE("runtime/inter_op: independent branches have no edge between them; a chain has width 1") {
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder<float>(tf::Shape{-1}, "x");
  auto left = tf::square(x, "left");
  auto right = tf::exp(x, "right");
  auto both = tf::add(left, right, "both");
  tf::Plan plan = plan_of(g, {both}, {}, {x}, /*fuse=*/false);
  const std::size_t l = step_of(plan, left.op()), r = step_of(plan, right.op()),
                    b = step_of(plan, both.op());
  CHECK_FALSE(waits_for(plan, r, l));
  CHECK_FALSE(waits_for(plan, l, r));
  CHECK(waits_for(plan, b, l));
  CHECK(waits_for(plan, b, r));
  CHECK(plan.schedule.width == 2);
  CHECK(plan.schedule.predecessor_count[b] == 2);

  auto chain = tf::exp(tf::square(tf::negative(x)));
  tf::Plan chain_plan = plan_of(g, {tf::Output(chain)}, {}, {x}, /*fuse=*/false);
  CHECK(chain_plan.schedule.width == 1);
  // Small tensors known from the graph are not worth a thread: run in order.
  auto small = tf::placeholder<float>(tf::Shape{4}, "small");
  auto small_sum = tf::add(tf::square(small), tf::exp(small));
  CHECK(plan_of(g, {small_sum}, {}, {small}, /*fuse=*/false).schedule.width == 1);
}

TEST_CASE("runtime/inter_op: ops on one variable keep their creation order; control edges count") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Variable a(tf::constant(1.0f), {.name = "a"});
  tf::Variable b(tf::constant(2.0f), {.name = "b"});
  auto add_a = tf::assign_add(a.ref(), tf::constant(1.0f), false, "add_a");
  auto add_b = tf::assign_add(b.ref(), tf::constant(1.0f), false, "add_b");
  auto read_a = tf::square(a.value(), "read_a");  // through the Identity snapshot
  auto double_a = tf::assign_add(a.ref(), tf::constant(2.0f), false, "double_a");
  auto c = tf::constant(3.0f, "c");
  auto free_op = tf::square(c, "free");
  tf::Operation gated;
  {
    auto deps = tf::control_dependencies({free_op.op()});
    gated = tf::no_op("gated");
  }
  tf::Plan plan = plan_of(g, {read_a}, {add_a.op(), add_b.op(), double_a.op(), gated});
  const std::size_t s_add_a = step_of(plan, add_a.op()), s_add_b = step_of(plan, add_b.op()),
                    s_read_a = step_of(plan, read_a.op()),
                    s_double_a = step_of(plan, double_a.op());
  // No edge joins them, yet a's reader and a's second update wait, in creation order.
  CHECK(waits_for(plan, s_read_a, s_add_a));
  CHECK(waits_for(plan, s_double_a, s_read_a));
  // Another variable's update is free to run alongside.
  CHECK_FALSE(waits_for(plan, s_add_b, s_add_a));
  CHECK_FALSE(waits_for(plan, s_read_a, s_add_b));
  CHECK(waits_for(plan, step_of(plan, gated), step_of(plan, free_op.op())));
  CHECK_FALSE(waits_for(plan, step_of(plan, free_op.op()), s_add_a));
}

TEST_CASE("runtime/inter_op: a reader of a fused cluster's output waits for its last member") {
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder<float>(tf::Shape{-1}, "x");
  auto first = tf::multiply(x, x, "first");   // member 0, and an output of the cluster
  auto second = tf::add(first, x, "second");  // the cluster's last member
  auto reader = tf::reduce_sum(first, {}, false, "reader");
  tf::Plan plan = plan_of(g, {second, reader}, {}, {x});
  REQUIRE(plan.fusion.clusters.size() == 1);
  const tf::FusedCluster& cluster = plan.fusion.clusters[0];
  REQUIRE(cluster.steps.size() == 2);
  CHECK(waits_for(plan, step_of(plan, reader.op()), cluster.steps.back()));
  CHECK(waits_for(plan, cluster.steps[1], cluster.steps[0]));
}

TEST_CASE("runtime/inter_op: with two threads, two independent branches run at the same time") {
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder<float>(tf::Shape{-1}, "x");
  auto left = tf::square(x + 1.0f, "left");
  auto right = tf::square(x - 1.0f, "right");
  auto both = left + right;
  tf::Plan plan = plan_of(g, {both}, {}, {x}, /*fuse=*/false);
  tf::detail::attach_scratch(plan);
  tf::ThreadPool intra(1), inter(2);
  tf::detail::SessionState state;
  state.intra_op = &intra;
  state.inter_op = &inter;
  MeetingBackend backend;
  std::vector<tf::Value> got = tf::detail::execute(
      plan, g.state(), backend, {tf::Value::from_vector<float>({0, 1, 2}, {3})}, state);
  CHECK(g_rendezvous.met == 2);  // each Square saw the other one running
  REQUIRE(got.size() == 1);
  CHECK(got[0].to_vector<float>() == std::vector<float>{2, 4, 10});
}

TEST_CASE("runtime/inter_op: a session sizes the inter-op threads from its ConfigProto") {
  tf::Graph g;
  CHECK(tf::Session(g, inter_op(2)).inter_op_threads() == 2);
  CHECK(tf::Session(g, inter_op(1)).inter_op_threads() == 1);
  CHECK(tf::Session(g).inter_op_threads() == 1);
}

TEST_CASE("runtime/inter_op: training on two threads gives the same numbers as on one") {
  std::vector<std::vector<float>> results;
  for (int threads : {1, 2, 4}) {
    CAPTURE(threads);
    tf::Graph g;
    auto guard = g.as_default();
    g.set_seed(7);
    auto x = tf::placeholder<float>(tf::Shape{-1, 16}, "x");
    auto labels = tf::placeholder<std::int32_t>(tf::Shape{-1}, "labels");
    // Two towers side by side, joined at the logits, and a noise branch that reads
    // the random op's state: plenty for the threads to run at once.
    tf::Variable w1(tf::random_normal({16, 32}, {.stddev = 0.3}), {.name = "w1"});
    tf::Variable w2(tf::random_normal({16, 32}, {.stddev = 0.3}), {.name = "w2"});
    tf::Variable head(tf::random_normal({32, 4}, {.stddev = 0.3}), {.name = "head"});
    auto noisy = x + tf::random_normal({8, 16}, {.stddev = 0.01});
    auto t1 = tf::nn::relu(tf::matmul(noisy, w1));
    auto t2 = tf::tanh(tf::matmul(x, w2)) * 0.5f + 0.25f;
    auto logits = tf::matmul(t1 + t2, head);
    auto loss = tf::reduce_mean(tf::nn::sparse_softmax_cross_entropy_with_logits(labels, logits));
    tf::Operation train = tf::train::AdamOptimizer({.learning_rate = 0.01}).minimize(loss);
    tf::Variable counter(tf::constant(0.0f), {.name = "counter"});
    tf::Operation count;
    {
      auto deps = tf::control_dependencies({train});
      count = tf::assign_add(counter.ref(), tf::constant(1.0f)).op();
    }
    tf::Session sess(g, inter_op(threads));
    sess.run(tf::global_variables_initializer());
    std::vector<float> xs(8 * 16);
    for (std::size_t i = 0; i < xs.size(); ++i) xs[i] = static_cast<float>(i % 7) * 0.1f - 0.3f;
    std::vector<std::int32_t> ys{0, 1, 2, 3, 0, 1, 2, 3};
    const tf::FeedDict feeds{{x, tf::Value::from_vector<float>(xs, {8, 16})},
                             {labels, tf::Value::from_vector<std::int32_t>(ys, {8})}};
    std::vector<float> trace;
    for (int step = 0; step < 20; ++step)
      trace.push_back(sess.run({tf::Output(loss), count}, feeds)[0].scalar<float>());
    for (const tf::Variable* v : {&w1, &w2, &head}) {
      auto values = sess.run(v->value()).to_vector<float>();
      trace.insert(trace.end(), values.begin(), values.end());
    }
    trace.push_back(sess.run(counter.value()).scalar<float>());
    CHECK(trace.back() == 20.0f);
    CHECK(trace[19] < trace[0]);
    results.push_back(trace);
  }
  CHECK(results[1] == results[0]);  // bit for bit
  CHECK(results[2] == results[0]);
}

TEST_CASE("runtime/inter_op: reads and writes that no edge orders happen in creation order") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Variable v(tf::constant(tf::Value::filled<float>({8192}, 1.0f)), {.name = "v"});
  auto before = tf::reduce_sum(v.value() * 2.0f);  // created before the update
  auto bump = tf::assign_add(v.ref(), tf::fill(tf::Shape{8192}, tf::Value(1.0f)));
  auto after = tf::reduce_sum(tf::square(v.value()));  // created after it
  for (int threads : {1, 2}) {
    CAPTURE(threads);
    tf::Session sess(g, inter_op(threads));
    for (int run = 0; run < 20; ++run) {
      sess.run(tf::global_variables_initializer());
      auto got = sess.run({tf::Output(before), tf::Output(after), bump});
      CHECK(got[0].scalar<float>() == 16384.0f);  // v was still 1
      CHECK(got[1].scalar<float>() == 32768.0f);  // v is 2
    }
  }
}

TEST_CASE("runtime/inter_op: a failing branch fails the run with its node's error") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Variable v(tf::constant(filled({8192}, 1.0f)), {.name = "v"});
  auto x = tf::placeholder<float>(tf::Shape{-1}, "x");
  auto fine = tf::reduce_sum(tf::square(x));
  auto needs_v = tf::reduce_sum(tf::multiply(x, v.value(), "reads_v"));
  tf::Session sess(g, inter_op(2));
  const tf::FeedDict feeds{{x, filled({8192}, 2.0f)}};
  for (int attempt = 0; attempt < 3; ++attempt) {
    try {
      sess.run({tf::Output(fine), tf::Output(needs_v)}, feeds);
      FAIL("the run should fail");
    } catch (const tf::FailedPreconditionError& e) {
      CHECK(std::string(e.what()).find("Attempting to use uninitialized value v") !=
            std::string::npos);
    }
  }
  sess.run(tf::global_variables_initializer());  // the session is still usable
  auto got = sess.run({tf::Output(fine), tf::Output(needs_v)}, feeds);
  CHECK(got[0].scalar<float>() == 32768.0f);
  CHECK(got[1].scalar<float>() == 16384.0f);
}

TEST_CASE("runtime/inter_op: runs from several threads on an inter-op session") {
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder<float>(tf::Shape{-1}, "x");
  auto a = tf::reduce_sum(tf::square(x));
  auto b = tf::reduce_sum(tf::exp(x * 0.0f));
  auto c = tf::reduce_sum(x + 1.0f);
  auto total = a + b + c;
  tf::Session sess(g, inter_op(2));
  std::vector<int> wrong(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 25; ++i) {
        const float v = static_cast<float>(t + 1);
        const float got = sess.run(total, {{x, filled({100}, v)}}).scalar<float>();
        if (got != 100.0f * v * v + 100.0f + 100.0f * (v + 1.0f))
          ++wrong[static_cast<std::size_t>(t)];
      }
    });
  for (auto& th : threads) th.join();
  CHECK(wrong == std::vector<int>(4, 0));
}

}  // namespace symflow_test_runtime_inter_op_test
