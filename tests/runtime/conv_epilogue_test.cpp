// A convolution followed by an inference batch norm and Relu/Relu6 runs as one kernel
// (runtime/conv_epilogue.hpp): the same bits as the three ops one by one, only where
// nothing can tell the difference, and never across what a run fetches.
#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <symflow/backend/conv_epilogue.hpp>
#include <symflow/backend/cpu/cpu_backend.hpp>
#include <symflow/runtime/plan.hpp>
#include <symflow/symflow.hpp>

namespace symflow_test_runtime_conv_epilogue_test {

namespace tf = symflow;

namespace {

const tf::ConfigProto kUnfused{.graph_options = {.optimizer_options = {.do_fusion = false}}};

tf::Value random_value(tf::Dims dims, unsigned seed, double low = -2.0, double high = 2.0) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(low, high);
  std::vector<float> v(static_cast<std::size_t>(tf::num_elements(dims)));
  for (float& x : v) x = static_cast<float>(dist(gen));
  return tf::Value::from_vector(v, std::move(dims));
}

// A frozen batch norm's four Consts for `channels` channels and its inference node.
tf::nn::FusedBatchNormResult frozen_batch_norm(const tf::Output& x, std::int64_t channels,
                                               unsigned seed, const tf::Output& scale_input = {}) {
  // A frozen variable reaches its reader through an Identity ("gamma/read").
  const tf::Output scale =
      scale_input.valid() ? scale_input
                          : tf::identity(tf::constant(random_value({channels}, seed, 0.5, 1.5)));
  return tf::nn::fused_batch_norm(
      x, scale, tf::constant(random_value({channels}, seed + 1, -0.2, 0.2)),
      tf::constant(random_value({channels}, seed + 2, -0.3, 0.3)),
      tf::constant(random_value({channels}, seed + 3, 0.5, 1.5)), {.is_training = false});
}

// The step of `op` in `plan`.
std::size_t step_of(const tf::Plan& plan, const tf::Operation& op) {
  for (std::size_t s = 0; s < plan.order.size(); ++s)
    if (plan.order[s] == op.id()) return s;
  FAIL("not in the plan: " << op.name());
  return 0;
}

// The plan a fusing CPU session makes for these fetches and feeds.
tf::Plan cpu_plan(const tf::Graph& g, const std::vector<tf::Output>& fetches,
                  const std::vector<tf::Output>& feeds) {
  std::vector<std::optional<tf::TensorRef>> fetch_refs;
  for (const tf::Output& f : fetches) fetch_refs.push_back(f.ref());
  std::vector<tf::TensorRef> feed_refs;
  for (const tf::Output& f : feeds) feed_refs.push_back(f.ref());
  const tf::Backend& cpu = tf::cpu::backend();
  return tf::detail::make_plan(g.state(), fetch_refs, {}, feed_refs, cpu.fused_kernel(), &cpu);
}

bool passes_through(const tf::Plan& plan, const tf::Operation& op) {
  return plan.steps[step_of(plan, op)].kernel == &tf::conv_epilogue::pass_through_kernel;
}
bool runs_epilogue(const tf::Plan& plan, const tf::Operation& op) {
  const tf::Backend& cpu = tf::cpu::backend();
  const tf::PlanStep& s = plan.steps[step_of(plan, op)];
  return s.kernel == cpu.conv_epilogue_kernel(*op.node().def) &&
         s.kernel != cpu.kernel(*op.node().def);
}

// The fetches, fused (default session, `threads` intra-op threads) and one op at a time:
// equal bit for bit. Returns the fused values.
std::vector<tf::Value> run_both(const tf::Graph& g, const std::vector<tf::Fetch>& fetches,
                                const tf::FeedDict& feeds, int threads = 1) {
  tf::ConfigProto fused_config;
  fused_config.intra_op_parallelism_threads = threads;
  tf::Session fused(g, fused_config);
  tf::Session unfused(g, kUnfused);
  auto a = fused.run(fetches, feeds);
  auto b = unfused.run(fetches, feeds);
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    CAPTURE(i);
    REQUIRE(a[i].dims() == b[i].dims());
    CHECK(a[i] == b[i]);
  }
  return a;
}

}  // namespace

TEST_CASE("runtime/conv_epilogue: Conv2D, batch norm and Relu6 give the unfused bits") {
  struct Case {
    tf::Dims input, filter;
    std::int64_t stride;
    std::string padding;
  };
  // A pointwise GEMM, the direct 3x3 path, a filter too deep for it (im2col), VALID with
  // stride 2, and more channels than one register tile.
  const std::vector<Case> cases = {{{2, 7, 9, 16}, {1, 1, 16, 24}, 1, "SAME"},
                                   {{2, 9, 9, 3}, {3, 3, 3, 8}, 2, "SAME"},
                                   {{1, 8, 8, 160}, {3, 3, 160, 40}, 1, "SAME"},
                                   {{3, 11, 10, 5}, {3, 3, 5, 7}, 2, "VALID"},
                                   {{2, 6, 6, 40}, {1, 1, 40, 130}, 1, "VALID"}};
  for (const Case& c : cases) {
    CAPTURE(tf::dims_to_string(c.input));
    CAPTURE(tf::dims_to_string(c.filter));
    tf::Graph g;
    auto guard = g.as_default();
    auto x = tf::placeholder(tf::DType::float32, tf::Shape::unknown_dims(4), "x");
    auto conv = tf::nn::conv2d(x, tf::constant(random_value(c.filter, 11)),
                               {1, c.stride, c.stride, 1}, c.padding);
    auto bn = frozen_batch_norm(conv, c.filter[3], 20);
    auto y = tf::nn::relu6(bn.y);
    // Channels must be known statically; the placeholder's unknown dims leave them to
    // the filter.
    REQUIRE(conv.shape().dims()[3] == c.filter[3]);
    const tf::Plan plan = cpu_plan(g, {y}, {x});
    CHECK(runs_epilogue(plan, conv.op()));
    CHECK(passes_through(plan, bn.y.op()));
    CHECK(passes_through(plan, y.op()));
    const tf::FeedDict feeds{{x, random_value(c.input, 3)}};
    const auto fused = run_both(g, {y}, feeds);
    const auto threaded = run_both(g, {y}, feeds, 2);
    CHECK(threaded[0] == fused[0]);
    // Relu6 clipped both ways somewhere, so the activation did run.
    const float* v = fused[0].data<float>();
    bool zero = false, six = false;
    for (std::int64_t i = 0; i < fused[0].size(); ++i) {
      zero = zero || v[i] == 0.0f;
      six = six || v[i] == 6.0f;
    }
    CHECK(zero);
    if (c.filter[0] == 3) CHECK(six);
  }
}

TEST_CASE("runtime/conv_epilogue: depthwise convolutions, with Relu or no activation") {
  for (const std::int64_t depth : {8, 16, 24, 64}) {
    for (const std::int64_t stride : {1, 2}) {
      CAPTURE(depth);
      CAPTURE(stride);
      tf::Graph g;
      auto guard = g.as_default();
      auto x = tf::placeholder(tf::DType::float32, tf::Shape::unknown_dims(4), "x");
      auto conv = tf::nn::depthwise_conv2d_native(
          x, tf::constant(random_value({3, 3, depth, 1}, 5)), {1, stride, stride, 1}, "SAME");
      auto bn = frozen_batch_norm(conv, depth, 30);
      auto y = tf::nn::relu(bn.y);
      auto plain = frozen_batch_norm(
          tf::nn::depthwise_conv2d_native(x, tf::constant(random_value({3, 3, depth, 2}, 6)),
                                          {1, stride, stride, 1}, "VALID"),
          2 * depth, 40);
      const tf::Plan plan = cpu_plan(g, {y, plain.y}, {x});
      CHECK(runs_epilogue(plan, conv.op()));
      CHECK(passes_through(plan, y.op()));
      CHECK(passes_through(plan, plain.y.op()));
      run_both(g, {y, plain.y}, {{x, random_value({2, 13, 11, depth}, 7)}});
      run_both(g, {y, plain.y}, {{x, random_value({2, 13, 11, depth}, 8)}}, 2);
    }
  }
}

TEST_CASE("runtime/conv_epilogue: nothing is fused across what a run fetches or feeds") {
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder(tf::DType::float32, tf::Shape::unknown_dims(4), "x");
  auto conv = tf::nn::conv2d(x, tf::constant(random_value({3, 3, 4, 6}, 1)), {1, 1, 1, 1}, "SAME");
  auto bn = frozen_batch_norm(conv, 6, 2);
  auto y = tf::nn::relu6(bn.y);
  const tf::FeedDict feeds{{x, random_value({1, 5, 5, 4}, 9)}};
  SUBCASE("the convolution's output fetched: no chain") {
    const tf::Plan plan = cpu_plan(g, {y, conv}, {x});
    CHECK_FALSE(runs_epilogue(plan, conv.op()));
    CHECK_FALSE(passes_through(plan, bn.y.op()));
    CHECK_FALSE(passes_through(plan, y.op()));
    run_both(g, {y, conv}, feeds);
  }
  SUBCASE("the batch norm's output fetched: the batch norm joins, the activation does not") {
    const tf::Plan plan = cpu_plan(g, {y, bn.y}, {x});
    CHECK(runs_epilogue(plan, conv.op()));
    CHECK(passes_through(plan, bn.y.op()));
    CHECK_FALSE(passes_through(plan, y.op()));
    run_both(g, {y, bn.y}, feeds);
  }
  SUBCASE("the batch norm's mean fetched: no chain") {
    const tf::Plan plan = cpu_plan(g, {y, bn.batch_mean}, {x});
    CHECK_FALSE(runs_epilogue(plan, conv.op()));
    const auto got = run_both(g, {y, bn.batch_mean}, feeds);
    CHECK(got[1].size() == 6);
  }
  SUBCASE("the convolution's output fed: the batch norm reads the feed") {
    const tf::Plan plan = cpu_plan(g, {y}, {conv});
    bool any_passes = false;
    for (const tf::PlanStep& s : plan.steps)
      any_passes = any_passes || s.kernel == &tf::conv_epilogue::pass_through_kernel;
    CHECK_FALSE(any_passes);
    run_both(g, {y}, {{conv, random_value({1, 5, 5, 6}, 4)}});
  }
  SUBCASE("fusion off: the ops run one by one") {
    const tf::Backend& cpu = tf::cpu::backend();
    const tf::Plan plan = tf::detail::make_plan(g.state(), {y.ref()}, {}, {x.ref()}, nullptr, &cpu);
    CHECK_FALSE(runs_epilogue(plan, conv.op()));
    CHECK_FALSE(passes_through(plan, y.op()));
  }
}

TEST_CASE("runtime/conv_epilogue: batch norms that are not a frozen graph's stay ops") {
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder(tf::DType::float32, tf::Shape::unknown_dims(4), "x");
  auto filter = tf::constant(random_value({1, 1, 4, 6}, 1));
  // A scale that is fed, and a batch norm in training mode.
  auto scale = tf::placeholder(tf::DType::float32, tf::Shape{6}, "scale");
  auto conv_a = tf::nn::conv2d(x, filter, {1, 1, 1, 1}, "SAME");
  auto fed = tf::nn::relu6(frozen_batch_norm(conv_a, 6, 2, scale).y);
  auto conv_b = tf::nn::conv2d(x, filter, {1, 1, 1, 1}, "SAME");
  auto training = tf::nn::fused_batch_norm(conv_b, tf::constant(random_value({6}, 3)),
                                           tf::constant(random_value({6}, 4)));
  const tf::Plan plan = cpu_plan(g, {fed, training.y}, {x, scale});
  CHECK_FALSE(runs_epilogue(plan, conv_a.op()));
  CHECK_FALSE(runs_epilogue(plan, conv_b.op()));
  run_both(g, {fed, training.y},
           {{x, random_value({2, 4, 4, 4}, 5)}, {scale, random_value({6}, 6, 0.5, 1.5)}});
}

TEST_CASE("runtime/conv_epilogue: a bad input fails on the convolution, fused or not") {
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder(tf::DType::float32, tf::Shape::unknown_dims(4), "x");
  auto conv =
      tf::nn::conv2d(x, tf::constant(random_value({3, 3, 4, 6}, 1)), {1, 1, 1, 1}, "SAME", "conv");
  auto y = tf::nn::relu6(frozen_batch_norm(conv, 6, 2).y);
  REQUIRE(runs_epilogue(cpu_plan(g, {y}, {x}), conv.op()));
  // Three channels where the filter takes four.
  const tf::FeedDict feeds{{x, random_value({1, 5, 5, 3}, 3)}};
  std::string unfused_message;
  try {
    tf::Session(g, kUnfused).run(y, feeds);
  } catch (const tf::InvalidArgumentError& e) {
    unfused_message = e.what();
    CHECK(e.node_name() == "conv");
  }
  REQUIRE_FALSE(unfused_message.empty());
  tf::Session fused(g);
  CHECK_THROWS_WITH_AS(fused.run(y, feeds), unfused_message.c_str(), tf::InvalidArgumentError);
}

}  // namespace symflow_test_runtime_conv_epilogue_test
