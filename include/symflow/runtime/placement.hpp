#pragma once
// Placement: which device runs each node, decided once per node and kept for the
// session's life (a variable's state must not move between runs).
//
// A session has the CPU (device 0) and, when a GPU backend was built in and found a
// device at run time, "/device:GPU:0" (device 1). As in TensorFlow:
// - A node with no device request runs on the GPU when there is one and it has a GPU
//   kernel there, else on the CPU.
// - A node asked onto a device runs there, or fails with TensorFlow's "Cannot assign a
//   device for operation ..." InvalidArgumentError when the device is missing or has
//   no kernel for it; with allow_soft_placement it runs on a device that can.
// - A variable and every node that writes through it or forwards its reference
//   ("v/read", Assign, ApplyAdam) are colocated: they form one group, placed together.
// - A node that reads or makes a string tensor runs on the CPU: strings live in host
//   memory (TensorFlow's GPU kernels keep them there too).

#include <algorithm>
#include <iostream>
#include <numeric>
#include <string>
#include <vector>

#include "symflow/backend/backend.hpp"
#include "symflow/backend/device_set.hpp"
#include "symflow/graph/device_spec.hpp"
#include "symflow/graph/graph_state.hpp"
#include "symflow/runtime/options.hpp"

namespace symflow::detail {

class Placer {
 public:
  Placer(const DeviceSet& devices, const ConfigProto& config)
      : devices_(devices), config_(config) {}

  // Places every node of `order` not yet placed (with its colocation group).
  // Runs under the session's exclusive lock.
  void place(const GraphState& g, const std::vector<NodeId>& order) {
    grow(g);
    for (NodeId id : order)
      if (device_[id.value] < 0) place_group(g, find(id.value));
  }

  // The device index of a placed node.
  int device_of(NodeId id) const { return device_[id.value]; }
  bool placed(NodeId id) const { return id.value < device_.size() && device_[id.value] >= 0; }

 private:
  // Extends the union-find over nodes added since the last call.
  void grow(const GraphState& g) {
    const std::size_t old = parent_.size();
    parent_.resize(g.nodes.size());
    device_.resize(g.nodes.size(), -1);
    std::iota(parent_.begin() + static_cast<std::ptrdiff_t>(old), parent_.end(),
              static_cast<std::uint32_t>(old));
    for (std::size_t i = old; i < g.nodes.size(); ++i) {
      const Node& n = g.nodes[i];
      for (std::size_t k = 0; k < n.inputs.size(); ++k) {
        const TensorRef& in = n.inputs[k];
        const bool ref_in = g.node(in.node).outputs.at(static_cast<std::size_t>(in.index)).is_ref;
        if (n.def->takes_ref(k) || (k == 0 && ref_in && n.def->forwards_ref))
          unite(static_cast<std::uint32_t>(i), in.node.value);
      }
    }
    members_.clear();  // rebuilt lazily: groups may have merged
  }

  std::uint32_t find(std::uint32_t x) {
    while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
    return x;
  }
  void unite(std::uint32_t a, std::uint32_t b) {
    a = find(a);
    b = find(b);
    if (a != b) parent_[std::max(a, b)] = std::min(a, b);
  }

  void place_group(const GraphState& g, std::uint32_t root) {
    if (members_.empty()) {
      members_.resize(parent_.size());
      for (std::uint32_t i = 0; i < parent_.size(); ++i) members_[find(i)].push_back(i);
    }
    const std::vector<std::uint32_t>& group = members_[root];
    // An already placed member (the group grew after a run) fixes the device.
    for (std::uint32_t placed : group) {
      if (device_[placed] < 0) continue;
      for (std::uint32_t m : group) {
        const Node& n = g.nodes[m];
        if (device_[m] < 0 && !can_run(g, m, device_[placed]))
          throw InvalidArgumentError("Cannot colocate " + n.name + " (" + std::string(n.def->type) +
                                         ") with " + g.nodes[placed].name + ", already placed on " +
                                         devices_.names[static_cast<std::size_t>(device_[placed])] +
                                         ": that device has no " + std::string(n.def->type) +
                                         " kernel. Pin the variable with symflow::device, or "
                                         "build the whole graph before its first run.",
                                     n.name);
      }
      return assign(g, group, device_[placed]);
    }

    // The first explicit request in the group, and the node that made it.
    const Node* requester = nullptr;
    DeviceSpec request;
    for (std::uint32_t m : group) {
      const Node& n = g.nodes[m];
      if (n.device.empty()) continue;
      DeviceSpec spec = DeviceSpec::parse(n.device);
      if (spec.type.empty()) continue;
      requester = &n;
      request = spec;
      break;
    }
    auto has_kernels = [&](int d) {
      for (std::uint32_t m : group)
        if (!can_run(g, m, d)) return false;
      return true;
    };
    const int gpu = devices_.gpu;
    if (!requester) {
      // TensorFlow's default: the GPU when it can run the whole group.
      return assign(g, group, gpu >= 0 && has_kernels(gpu) ? gpu : 0);
    }
    const bool wants_gpu = request.type == "GPU";
    const int index = request.index < 0 ? 0 : request.index;
    const int wanted = wants_gpu ? (index == 0 ? gpu : -1) : (index == 0 ? 0 : -1);
    if (wanted >= 0 && has_kernels(wanted)) return assign(g, group, wanted);
    if (config_.allow_soft_placement) {
      if (wanted < 0) note_soft_placement(request);
      return assign(g, group, gpu >= 0 && wanted != 0 && has_kernels(gpu) ? gpu : 0);
    }
    const std::string spec = request.to_string();
    if (wanted < 0) {
      std::string available;
      for (const std::string& name : devices_.names) available += " " + name;
      std::string message = "Cannot assign a device for operation " + requester->name +
                            ": {{node " + requester->name + "}} was explicitly assigned to " +
                            spec + " but available devices are [" + available +
                            " ]. Make sure the device specification refers to a valid device.";
      if (wants_gpu && gpu < 0)
        message += " The requested device appears to be a GPU, but " + devices_.no_gpu_reason + ".";
      throw InvalidArgumentError(message, requester->name);
    }
    for (std::uint32_t m : group) {
      const Node& n = g.nodes[m];
      if (!can_run(g, m, wanted))
        throw InvalidArgumentError(
            "Cannot assign a device for operation " + n.name +
                ": Could not satisfy explicit device specification '" + spec +
                "' because no supported kernel for " + request.type +
                " devices is available. (Op type " + std::string(n.def->type) +
                (&n == requester ? "" : ", colocated with " + requester->name) + ")",
            n.name);
    }
  }

  // Device d has a kernel for node m, and the node's tensors may live there.
  bool can_run(const GraphState& g, std::uint32_t m, int d) const {
    const Node& n = g.nodes[m];
    if (!devices_.backends[static_cast<std::size_t>(d)]->kernel(*n.def)) return false;
    if (d == 0 ||
        (!n.def->accepts_strings && !n.def->accepts_resources && !n.def->accepts_storage_dtypes))
      return true;
    // Strings, resources and the storage dtypes live in host memory only.
    auto is_string = [](const TensorSpec& t) {
      return stores_strings(t.dtype) || is_storage_dtype(t.dtype);
    };
    if (std::any_of(n.outputs.begin(), n.outputs.end(), is_string)) return false;
    return std::none_of(n.inputs.begin(), n.inputs.end(), [&](const TensorRef& in) {
      return is_string(g.node(in.node).outputs.at(static_cast<std::size_t>(in.index)));
    });
  }

  void assign(const GraphState& g, const std::vector<std::uint32_t>& group, int d) {
    for (std::uint32_t m : group) {
      if (device_[m] >= 0) continue;
      device_[m] = d;
      if (config_.log_device_placement) {
        const Node& n = g.nodes[m];
        std::clog << n.name << ": (" << n.def->type
                  << "): " << devices_.names[static_cast<std::size_t>(d)] << '\n';
      }
    }
  }

  // Once per session: say that GPU requests run elsewhere, and why.
  void note_soft_placement(const DeviceSpec& request) {
    if (noted_soft_placement_ || request.type != "GPU") return;
    noted_soft_placement_ = true;
    std::clog << "symflow: " << request.to_string() << " is not available ("
              << (devices_.gpu < 0 ? devices_.no_gpu_reason : "no such GPU")
              << "); allow_soft_placement places its ops on another device\n";
  }

  const DeviceSet& devices_;
  const ConfigProto& config_;
  std::vector<std::uint32_t> parent_;
  std::vector<int> device_;
  std::vector<std::vector<std::uint32_t>> members_;
  bool noted_soft_placement_ = false;
};

}  // namespace symflow::detail
