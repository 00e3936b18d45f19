#pragma once
// The devices of one session, by index: what placement chooses among and the executor
// runs on (backend/devices.hpp makes them).

#include <string>
#include <string_view>
#include <vector>

#include "symflow/backend/backend.hpp"

namespace symflow::detail {

inline constexpr std::string_view kLocalDevicePrefix = "/job:localhost/replica:0/task:0";

// The devices one session can place nodes on.
struct DeviceSet {
  std::vector<const Backend*> backends;  // by device index; 0 is the CPU
  std::vector<std::string> names;        // full names, "/job:localhost/.../device:CPU:0"
  int gpu = -1;                          // the GPU's index, or -1
  // Why there is no GPU ("this build has no GPU backend", "no CUDA device found").
  std::string no_gpu_reason;
  // Where device-memory values are copied back to the host (the GPU's backend), or null.
  const Backend* device_memory() const { return gpu >= 0 ? backends[gpu] : nullptr; }
};

}  // namespace symflow::detail
