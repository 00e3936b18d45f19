// The placer on its own, with a stand-in GPU backend that lacks some kernels: default
// placement, explicit requests, soft placement, colocation with variables, and the
// errors TensorFlow gives when a request cannot be met.
#include <doctest/doctest.h>

#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <symflow/backend/cpu/cpu_backend.hpp>
#include <symflow/backend/devices.hpp>
#include <symflow/runtime/placement.hpp>
#include <symflow/symflow.hpp>

namespace symflow_test_runtime_placement_test {

namespace tf = symflow;

namespace {

// A "GPU" that has the CPU's kernels except for the op types it is told to lack.
class PartialGpu final : public tf::Backend {
 public:
  explicit PartialGpu(std::set<std::string_view> missing) : missing_(std::move(missing)) {}
  std::string_view device_type() const override { return "GPU"; }
  tf::KernelFn kernel(const tf::OpDef& def) const override {
    return missing_.count(def.type) ? nullptr : tf::cpu::backend().kernel(def);
  }

 private:
  std::set<std::string_view> missing_;
};

const std::string kCpu = "/job:localhost/replica:0/task:0/device:CPU:0";
const std::string kGpu = "/job:localhost/replica:0/task:0/device:GPU:0";

struct Devices {
  const tf::Backend& cpu = tf::cpu::backend();
  PartialGpu gpu;
  tf::detail::DeviceSet set;
  explicit Devices(std::set<std::string_view> missing, bool with_gpu = true)
      : gpu(std::move(missing)) {
    set.backends = {&cpu};
    set.names = {kCpu};
    set.no_gpu_reason = "no GPU in this test";
    if (with_gpu) {
      set.gpu = 1;
      set.backends.push_back(&gpu);
      set.names.push_back(kGpu);
    }
  }
};

// Places every node of `g` and returns the device name of each, by node name.
std::vector<std::pair<std::string, std::string>> place_all(const tf::Graph& g,
                                                           const Devices& devices,
                                                           const tf::ConfigProto& config) {
  tf::detail::Placer placer(devices.set, config);
  std::vector<tf::NodeId> order;
  for (std::uint32_t i = 0; i < g.state().nodes.size(); ++i) order.push_back(tf::NodeId{i});
  placer.place(g.state(), order);
  std::vector<std::pair<std::string, std::string>> out;
  for (tf::NodeId id : order)
    out.emplace_back(g.state().node(id).name,
                     devices.set.names[static_cast<std::size_t>(placer.device_of(id))]);
  return out;
}

std::string device_of(const std::vector<std::pair<std::string, std::string>>& placed,
                      const std::string& name) {
  for (const auto& [n, d] : placed)
    if (n == name) return d;
  return "(not placed)";
}

}  // namespace

TEST_CASE("runtime/placement: unplaced ops prefer the GPU when it has their kernel") {
  tf::Graph g;
  auto guard = g.as_default();
  auto a = tf::constant(tf::Value{1.0f, 2.0f}, "a");
  auto s = tf::square(a, "s");
  auto e = tf::exp(s, "e");
  Devices devices({"Exp"});
  auto placed = place_all(g, devices, {});
  CHECK(device_of(placed, "a") == kGpu);
  CHECK(device_of(placed, "s") == kGpu);
  CHECK(device_of(placed, "e") == kCpu);  // no GPU kernel: the CPU, without complaint
}

TEST_CASE("runtime/placement: a pinned op without a kernel there is TensorFlow's error") {
  tf::Graph g;
  auto guard = g.as_default();
  auto a = tf::constant(tf::Value{1.0f, 2.0f}, "a");
  {
    tf::device d("/gpu:0");
    tf::exp(a, "e");
  }
  Devices devices({"Exp"});
  CHECK_THROWS_WITH_AS(
      place_all(g, devices, {}),
      doctest::Contains("Cannot assign a device for operation e: Could not satisfy explicit device "
                        "specification '/device:GPU:0' because no supported kernel for GPU devices "
                        "is available. (Op type Exp)"),
      tf::InvalidArgumentError);
  tf::ConfigProto soft;
  soft.allow_soft_placement = true;
  auto placed = place_all(g, devices, soft);
  CHECK(device_of(placed, "e") == kCpu);
}

TEST_CASE("runtime/placement: a request for a missing GPU names the devices there are") {
  tf::Graph g;
  auto guard = g.as_default();
  auto a = tf::constant(1.0f, "a");
  {
    tf::device d("/device:GPU:0");
    tf::square(a, "s");
  }
  Devices cpu_only({}, false);
  CHECK_THROWS_WITH_AS(
      place_all(g, cpu_only, {}),
      doctest::Contains(("Cannot assign a device for operation s: {{node s}} was explicitly "
                         "assigned to /device:GPU:0 but available devices are [ " +
                         kCpu +
                         " ]. Make sure the device specification refers to a valid device. The "
                         "requested device appears to be a GPU, but no GPU in this test.")
                            .c_str()),
      tf::InvalidArgumentError);
  tf::ConfigProto soft;
  soft.allow_soft_placement = true;
  std::ostringstream log;
  std::streambuf* old = std::clog.rdbuf(log.rdbuf());
  auto placed = place_all(g, cpu_only, soft);
  std::clog.rdbuf(old);
  CHECK(device_of(placed, "s") == kCpu);
  CHECK(log.str() ==
        "symflow: /device:GPU:0 is not available (no GPU in this test); allow_soft_placement "
        "places its ops on another device\n");
}

TEST_CASE("runtime/placement: a variable and the ops that write through it stay together") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Variable v(tf::constant(tf::Value{1.0f, 2.0f}), {.name = "v"});
  tf::assign_add(v, tf::constant(tf::Value{1.0f, 1.0f}), false, "bump");
  {
    Devices devices({});
    auto placed = place_all(g, devices, {});
    CHECK(device_of(placed, "v") == kGpu);
    CHECK(device_of(placed, "v/read") == kGpu);
    CHECK(device_of(placed, "bump") == kGpu);
  }
  {
    // One member without a GPU kernel keeps the whole group on the CPU.
    Devices devices({"AssignAdd"});
    auto placed = place_all(g, devices, {});
    CHECK(device_of(placed, "v") == kCpu);
    CHECK(device_of(placed, "v/Assign") == kCpu);
    CHECK(device_of(placed, "bump") == kCpu);
  }
}

TEST_CASE("runtime/placement: log_device_placement prints TensorFlow's lines") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::square(tf::constant(2.0f, "a"), "s");
  Devices devices({"Square"});
  tf::ConfigProto config;
  config.log_device_placement = true;
  std::ostringstream log;
  std::streambuf* old = std::clog.rdbuf(log.rdbuf());
  place_all(g, devices, config);
  std::clog.rdbuf(old);
  CHECK(log.str() == "a: (Const): " + kGpu + "\ns: (Square): " + kCpu + "\n");
}

TEST_CASE("runtime/placement: device names parse, canonicalise and merge as TensorFlow's") {
  CHECK(tf::canonical_device("/gpu:0") == "/device:GPU:0");
  CHECK(tf::canonical_device("/CPU:1") == "/device:CPU:1");
  CHECK(tf::canonical_device("/job:localhost/replica:0/task:0/device:gpu:0") ==
        "/job:localhost/replica:0/task:0/device:GPU:0");
  CHECK(tf::canonical_device("/device:GPU:*") == "/device:GPU:*");
  CHECK(tf::canonical_device("") == "");
  CHECK_THROWS_WITH_AS(tf::canonical_device("/tpu:0"),
                       "Cannot parse device specification '/tpu:0': part 'tpu:0' names device "
                       "type tpu; symflow knows CPU and GPU",
                       tf::ValueError);
  CHECK_THROWS_AS(tf::canonical_device("/gpu:x"), tf::ValueError);
  CHECK_THROWS_AS(tf::canonical_device("gpu:0"), tf::ValueError);
  tf::Graph g;
  auto guard = g.as_default();
  tf::device outer("/job:worker/task:1");
  tf::device inner("/gpu:0");
  CHECK(tf::constant(1.0f).op().device() == "/job:worker/task:1/device:GPU:0");
}

}  // namespace symflow_test_runtime_placement_test
