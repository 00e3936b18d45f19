// Devices and placement with the Thrust backend built in: which device runs each node,
// TensorFlow's placement errors and soft placement, copies between memory spaces,
// variables on the device, and a training step that matches the CPU's.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <symflow/backend/cpu/cpu_backend.hpp>
#include <symflow/backend/thrust/kernel_util.cuh>
#include <symflow/backend/thrust/probe.hpp>
#include <symflow/ops/registry.hpp>
#include <symflow/symflow.hpp>
#include <symflow/train/train.hpp>

#include "thrust_fixture.hpp"

namespace symflow_test_backend_thrust_placement_test {

namespace tf = symflow;
using namespace tf::test::gpu;

namespace {

// Captures what std::clog prints while it lives.
class ClogCapture {
 public:
  ClogCapture() : old_(std::clog.rdbuf(out_.rdbuf())) {}
  ~ClogCapture() { std::clog.rdbuf(old_); }
  ClogCapture(const ClogCapture&) = delete;
  ClogCapture& operator=(const ClogCapture&) = delete;
  std::string text() const { return out_.str(); }

 private:
  std::ostringstream out_;
  std::streambuf* old_;
};

}  // namespace

TEST_CASE("thrust/placement: a session lists the CPU and the GPU") {
  tf::Graph g;
  tf::Session sess(g);
  CHECK(sess.list_devices() == std::vector<std::string>{kCpu, kGpu});
  tf::Session hidden(g, cpu_only());
  CHECK(hidden.list_devices() == std::vector<std::string>{kCpu});
}

TEST_CASE("thrust/placement: ops go to the GPU by default, and where they are asked to") {
  tf::Graph g;
  auto guard = g.as_default();
  auto a = tf::constant(tf::Value{1.0f, 2.0f}, "a");
  auto b = tf::constant(tf::Value{3.0f, 4.0f}, "b");
  tf::Output sum, pinned;
  {
    tf::device d("/cpu:0");
    pinned = tf::multiply(a, b, "pinned");
  }
  {
    tf::device d("/device:GPU:0");
    sum = tf::add(a, b, "sum");
  }
  auto both = tf::add(sum, pinned, "both");
  CHECK(sum.op().device() == "/device:GPU:0");
  CHECK(pinned.op().device() == "/device:CPU:0");
  tf::Session sess(g);
  CHECK(sess.device_of(a.op()) == kGpu);
  CHECK(sess.device_of(pinned.op()) == kCpu);
  CHECK(sess.device_of(sum.op()) == kGpu);
  // Values cross between the devices both ways, and fetches come back to the host.
  tf::Value v = sess.run(both);
  CHECK_FALSE(v.on_device());
  CHECK(v.to_vector<float>() == std::vector<float>{7.0f, 14.0f});
}

TEST_CASE("thrust/placement: the storage dtypes stay in host memory, their ops on the CPU") {
  // No Thrust kernel computes in float16 (docs/dtypes.md): the casts that make and read one
  // run on the CPU, and the arithmetic around them on the GPU.
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::constant(tf::Value{1.5f, -2.0f}, "x");
  auto half = tf::cast(x, tf::float16, "half");
  auto back = tf::cast(half, tf::float32, "back");
  auto y = tf::multiply(back, back, "y");
  tf::Session sess(g);
  CHECK(sess.device_of(x.op()) == kGpu);
  CHECK(sess.device_of(half.op()) == kCpu);
  CHECK(sess.device_of(back.op()) == kCpu);
  CHECK(sess.device_of(y.op()) == kGpu);
  CHECK(sess.run(y).to_vector<float>() == std::vector<float>{2.25f, 4.0f});
  CHECK(tf::to_string(sess.run(half)) == "[ 1.5 -2. ]");
}

TEST_CASE("thrust/placement: log_device_placement prints where each node runs") {
  tf::Graph g;
  auto guard = g.as_default();
  auto a = tf::constant(2.0f, "a");
  tf::Output pinned;
  {
    tf::device d("/cpu:0");
    pinned = tf::square(a, "pinned");
  }
  tf::ConfigProto config;
  config.log_device_placement = true;
  tf::Session sess(g, config);
  ClogCapture capture;
  CHECK(sess.run(pinned).scalar<float>() == 4.0f);
  const std::string log = capture.text();
  CHECK(log.find("a: (Const): " + kGpu + "\n") != std::string::npos);
  CHECK(log.find("pinned: (Square): " + kCpu + "\n") != std::string::npos);
  // Each node is placed once: a second run prints nothing.
  ClogCapture again;
  sess.run(pinned);
  CHECK(again.text().empty());
}

TEST_CASE("thrust/placement: a missing device is TensorFlow's error, or soft placement") {
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::constant(1.0f, "x");
  auto y = tf::constant(2.0f, "y");
  tf::Output c;
  {
    tf::device d("/gpu:1");
    c = tf::add(x, y, "c");
  }
  tf::Session strict(g);
  try {
    strict.run(c);
    FAIL("expected InvalidArgumentError");
  } catch (const tf::InvalidArgumentError& e) {
    const std::string what = e.what();
    CHECK(what.find("Cannot assign a device for operation c: {{node c}} was explicitly assigned "
                    "to /device:GPU:1 but available devices are [ " +
                    kCpu + " " + kGpu + " ].") != std::string::npos);
  }
  tf::ConfigProto soft;
  soft.allow_soft_placement = true;
  tf::Session lenient(g, soft);
  ClogCapture capture;
  CHECK(lenient.run(c).scalar<float>() == 3.0f);
  CHECK(lenient.device_of(c.op()) == kGpu);
}

TEST_CASE("thrust/placement: a hidden GPU fails explicit requests, or falls back with a log line") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Output c;
  {
    tf::device d("/gpu:0");
    c = tf::add(tf::constant(1.0f, "x"), tf::constant(2.0f, "y"), "c");
  }
  tf::Session strict(g, cpu_only());
  CHECK_THROWS_WITH_AS(strict.run(c),
                       doctest::Contains("The requested device appears to be a GPU, but the "
                                         "session's device_count hides it."),
                       tf::InvalidArgumentError);
  tf::ConfigProto soft = cpu_only();
  soft.allow_soft_placement = true;
  tf::Session lenient(g, soft);
  ClogCapture capture;
  CHECK(lenient.run(c).scalar<float>() == 3.0f);
  CHECK(lenient.device_of(c.op()) == kCpu);
  CHECK(capture.text().find("/device:GPU:0 is not available (the session's device_count hides "
                            "it); allow_soft_placement places its ops on another device") !=
        std::string::npos);
}

TEST_CASE("thrust/placement: an int32 shape op pinned to the GPU runs there") {
  // (A pinned op with no GPU kernel is tests/runtime/placement_test.cpp's, with a
  // stand-in backend: every op has a Thrust kernel.)
  tf::Graph g;
  auto guard = g.as_default();
  auto perm = tf::constant(tf::Value{2, 0, 1}, "perm");
  tf::Output inv;
  {
    tf::device d("/gpu:0");
    inv = tf::invert_permutation(perm, "inv");
  }
  tf::Session sess(g);
  CHECK(sess.device_of(inv.op()) == kGpu);
  CHECK(sess.run(inv).to_vector<std::int32_t>() == std::vector<std::int32_t>{1, 2, 0});
}

TEST_CASE("thrust/placement: device values refuse host reads") {
  tf::Value host{1.0f, 2.0f};
  tf::Value device = tf::thrust_backend::copy_to_device(host);
  CHECK(device.on_device());
  CHECK(device.dims() == tf::Dims{2});
  CHECK_THROWS_AS(device.data<float>(), tf::FailedPreconditionError);
  CHECK_THROWS_WITH(device.to_vector<float>(), doctest::Contains("lives in device memory"));
  CHECK(tf::thrust_backend::copy_to_host(device) == host);
}

TEST_CASE("thrust/placement: variables live on the GPU and save and restore through the host") {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / "symflow_thrust_placement_saver";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  auto build = [](tf::Graph& g) {
    auto guard = g.as_default();
    tf::Variable w(tf::constant(tf::Value{{1.0f, 2.0f}, {3.0f, 4.0f}}), {.name = "w"});
    auto bump =
        tf::assign_add(w, tf::constant(tf::Value{{1.0f, 1.0f}, {1.0f, 1.0f}}), false, "bump");
    return std::pair{w, bump};
  };
  tf::Graph g;
  auto [w, bump] = build(g);
  tf::Session gpu(g);
  {
    auto guard = g.as_default();
    gpu.run(tf::global_variables_initializer());
  }
  gpu.run(bump.op());
  CHECK(gpu.device_of(w.op()) == kGpu);
  CHECK(gpu.run(w.value()).to_vector<float>() == std::vector<float>{2, 3, 4, 5});
  tf::train::Saver saver(std::vector<tf::Variable>{w});
  const std::string path = saver.save(gpu, (dir / "model").string());

  // Restored into a CPU-only session, and back into a GPU one.
  tf::Session cpu(g, cpu_only());
  saver.restore(cpu, path);
  CHECK(cpu.device_of(w.op()) == kCpu);
  CHECK(cpu.run(w.value()).to_vector<float>() == std::vector<float>{2, 3, 4, 5});
  tf::Session gpu2(g);
  saver.restore(gpu2, path);
  gpu2.run(bump.op());
  CHECK(gpu2.run(w.value()).to_vector<float>() == std::vector<float>{3, 4, 5, 6});
  std::filesystem::remove_all(dir);
}

TEST_CASE("thrust/placement: an MLP training step on the GPU matches the CPU's") {
  // 8 inputs -> 16 ReLU -> 4 logits, softmax cross-entropy, SGD; batch 32, 5 steps.
  auto train = [](const tf::ConfigProto& config) {
    tf::Graph g;
    auto guard = g.as_default();
    tf::set_random_seed(7);
    auto x = tf::placeholder<float>({-1, 8}, "x");
    auto labels = tf::placeholder<std::int32_t>({-1}, "labels");
    tf::Variable w1(tf::random_normal({8, 16}, {.stddev = 0.5, .seed = 1}), {.name = "w1"});
    tf::Variable b1(tf::zeros({16}), {.name = "b1"});
    tf::Variable w2(tf::random_normal({16, 4}, {.stddev = 0.5, .seed = 2}), {.name = "w2"});
    tf::Variable b2(tf::zeros({4}), {.name = "b2"});
    auto hidden = tf::nn::relu(tf::nn::bias_add(tf::matmul(x, w1), b1));
    auto logits = tf::nn::bias_add(tf::matmul(hidden, w2), b2);
    auto loss = tf::reduce_mean(tf::nn::sparse_softmax_cross_entropy_with_logits(labels, logits));
    tf::train::GradientDescentOptimizer opt(0.5);
    tf::Operation step = opt.minimize(loss);
    tf::Session sess(g, config);
    sess.run(tf::global_variables_initializer());
    std::vector<float> xs(32 * 8);
    std::vector<std::int32_t> ys(32);
    for (std::size_t i = 0; i < xs.size(); ++i)
      xs[i] = static_cast<float>(std::sin(0.37 * static_cast<double>(i)));
    for (std::size_t i = 0; i < ys.size(); ++i) ys[i] = static_cast<std::int32_t>((i * 7) % 4);
    const tf::FeedDict feeds{{x, tf::Value::from_vector(xs, {32, 8})},
                             {labels, tf::Value::from_vector(ys, {32})}};
    std::vector<float> losses;
    for (int i = 0; i < 5; ++i) {
      losses.push_back(sess.run(loss, feeds).scalar<float>());
      sess.run(step, feeds);
    }
    std::vector<float> weights = sess.run(w2.value()).to_vector<float>();
    weights.insert(weights.end(), losses.begin(), losses.end());
    std::set<std::string> devices;
    for (const tf::Operation& op : g.get_operations()) devices.insert(sess.device_of(op));
    return std::pair{weights, devices};
  };
  auto [cpu, cpu_devices] = train(cpu_only());
  auto [gpu, gpu_devices] = train(tf::ConfigProto{});
  CHECK(cpu_devices == std::set<std::string>{kCpu});
  CHECK(gpu_devices.count(kGpu) == 1);
  REQUIRE(cpu.size() == gpu.size());
  // Sums may be taken in another order on the device: agree to 1e-5, relative.
  for (std::size_t i = 0; i < cpu.size(); ++i) {
    CAPTURE(i);
    CHECK(gpu[i] == doctest::Approx(cpu[i]).epsilon(1e-5));
  }
  CHECK(gpu.back() < gpu[gpu.size() - 5]);  // the loss went down
}

TEST_CASE("thrust/placement: every op with a CPU kernel has a Thrust kernel, host-only ops none") {
  const tf::Backend& cpu = tf::cpu::backend();
  const tf::Backend& gpu = *tf::thrust_backend::probe({}).backend;
  std::vector<std::string> missing, host_only;
  for (const auto& entry : tf::kAllOps) {
    if (entry.def->host_only) {
      host_only.emplace_back(entry.def->type);
      CHECK_MESSAGE(!gpu.kernel(*entry.def), entry.def->type);
    } else if (cpu.kernel(*entry.def) && !gpu.kernel(*entry.def)) {
      missing.emplace_back(entry.def->type);
    }
  }
  CHECK(missing == std::vector<std::string>{});
  // The sparse optimizer updates (CPU only in TensorFlow), the string and checkpoint ops,
  // as TensorFlow has them on the CPU only, the data-flow
  // ops, whose output sizes hang on their indices' values, ParseExample, Print and Assert
  // (host ops in TensorFlow too), ScatterNd (no GPU kernel yet), the summary ops and the
  // candidate samplers (CPU only in TensorFlow), and the collective ops (their engine moves
  // host memory).
  CHECK(host_only == std::vector<std::string>{"ControlTrigger",
                                              "SparseApplyMomentum",
                                              "SparseApplyAdagrad",
                                              "SparseApplyRMSProp",
                                              "SparseApplyCenteredRMSProp",
                                              "StringJoin",
                                              "StringLength",
                                              "AsString",
                                              "RegexFullMatch",
                                              "StaticRegexFullMatch",
                                              "SaveV2",
                                              "RestoreV2",
                                              "ShardedFilename",
                                              "MergeV2Checkpoints",
                                              "DynamicStitch",
                                              "ParallelDynamicStitch",
                                              "DynamicPartition",
                                              "Unique",
                                              "ParseExample",
                                              "Print",
                                              "Assert",
                                              "ScatterNd",
                                              "SparseToDense",
                                              "ScalarSummary",
                                              "HistogramSummary",
                                              "TensorSummaryV2",
                                              "ImageSummary",
                                              "AudioSummaryV2",
                                              "MergeSummary",
                                              "UniformCandidateSampler",
                                              "LogUniformCandidateSampler",
                                              "LearnedUnigramCandidateSampler",
                                              "FixedUnigramCandidateSampler",
                                              "AllCandidateSampler",
                                              "ComputeAccidentalHits",
                                              "StackV2",
                                              "StackPushV2",
                                              "StackPopV2",
                                              "StackCloseV2",
                                              "TensorArrayV3",
                                              "TensorArrayWriteV3",
                                              "TensorArrayReadV3",
                                              "TensorArrayGatherV3",
                                              "TensorArrayScatterV3",
                                              "TensorArrayConcatV3",
                                              "TensorArraySplitV3",
                                              "TensorArraySizeV3",
                                              "TensorArrayCloseV3",
                                              "TensorArrayGradV3",
                                              "MpiAllreduce",
                                              "MpiAllgather",
                                              "MpiBroadcast",
                                              "MpiSize",
                                              "MpiRank"});
}

TEST_CASE("thrust/placement: nodes that read or make strings run on the CPU") {
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::constant({1.5f, 2.5f}) * 2.0f;
  auto text = tf::as_string(x);
  auto id = tf::identity(text);
  auto n = tf::strings::length(id);
  auto back = tf::cast(n, tf::float32) + x;
  tf::Session sess(g);
  CHECK(sess.run(back).to_vector<float>() == std::vector<float>{11.0f, 13.0f});
  CHECK(sess.device_of(x.op()) == kGpu);
  CHECK(sess.device_of(text.op()) == kCpu);
  CHECK(sess.device_of(id.op()) == kCpu);  // Identity has a GPU kernel, but not for strings
  CHECK(sess.device_of(n.op()) == kCpu);
}

// Runs where no GPU can be seen (tests/CMakeLists.txt): in the Thrust-OMP build with
// CUDA_VISIBLE_DEVICES empty, and in the CUDA build on a machine without one, where
// the probe itself finds no device.
TEST_CASE("without a GPU: explicit requests fail naming the device, or fall back with a log line") {
#if defined(SYMFLOW_THRUST_CUDA)
  const std::string reason = "no CUDA device was found";
#else
  const std::string reason = "CUDA_VISIBLE_DEVICES hides it";
#endif
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::constant(1.0f, "x");
  auto y = tf::constant(2.0f, "y");
  tf::Output c;
  {
    tf::device d("/gpu:0");
    c = tf::add(x, y, "c");
  }
  tf::Session strict(g);
  REQUIRE(strict.list_devices() == std::vector<std::string>{kCpu});
  const std::string expected =
      "Cannot assign a device for operation c: {{node c}} was "
      "explicitly assigned to /device:GPU:0 but available devices are [ " +
      kCpu +
      " ]. Make sure the device specification refers to a valid device. "
      "The requested device appears to be a GPU, but " +
      reason;
  CHECK_THROWS_WITH_AS(strict.run(c), doctest::Contains(expected.c_str()),
                       tf::InvalidArgumentError);
  tf::ConfigProto soft;
  soft.allow_soft_placement = true;
  tf::Session lenient(g, soft);
  ClogCapture capture;
  CHECK(lenient.run(c).scalar<float>() == 3.0f);
  CHECK(lenient.device_of(c.op()) == kCpu);
  CHECK(capture.text().find("/device:GPU:0 is not available (" + reason) != std::string::npos);
}

}  // namespace symflow_test_backend_thrust_placement_test
