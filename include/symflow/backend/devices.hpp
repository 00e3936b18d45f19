#pragma once
// The devices a new session gets, made here so that the runtime never names a concrete
// backend: always the CPU, and the GPU when this build has a GPU backend
// (SYMFLOW_THRUST: Thrust on CUDA, or on a host system for testing) and it finds a
// device at run time. The whole program must agree on SYMFLOW_THRUST, and one of its
// files defines the backend (backend/thrust/define_backend.cuh): the CMake targets
// symflow::thrust_omp, symflow::thrust_cpp and symflow::cuda do both.

#include <cctype>
#include <cstdlib>
#include <string>

#include "symflow/backend/backend.hpp"
#include "symflow/backend/cpu/cpu_backend.hpp"
#include "symflow/backend/device_set.hpp"
#include "symflow/backend/gpu_options.hpp"

#if defined(SYMFLOW_THRUST)
#include "symflow/backend/thrust/probe.hpp"
#endif

namespace symflow::detail {

// Whether CUDA_VISIBLE_DEVICES hides every GPU ("" or "-1"). CUDA's runtime honours it by
// itself; the Thrust host-system builds honour it the same way, so that one test binary can
// run its cases on either backend.
inline bool visible_devices_hide_gpu() {
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  return visible && !std::isdigit(static_cast<unsigned char>(visible[0]));
}

// `gpu_hidden`: the session's ConfigProto allows no GPU (device_count {"GPU": 0}).
inline DeviceSet make_device_set(bool gpu_hidden, [[maybe_unused]] const GPUOptions& gpu_options) {
  DeviceSet set;
  set.backends.push_back(&cpu::backend());
  set.names.push_back(std::string(kLocalDevicePrefix) + "/device:CPU:0");
#if defined(SYMFLOW_THRUST)
  // Probed only when visible: the first probe configures the process's memory pool.
  if (gpu_hidden) {
    set.no_gpu_reason = "the session's device_count hides it";
  } else if (visible_devices_hide_gpu()) {
    set.no_gpu_reason = "CUDA_VISIBLE_DEVICES hides it";
  } else if (const thrust_backend::Probe probe = thrust_backend::probe(gpu_options);
             !probe.backend) {
    set.no_gpu_reason = probe.reason;
  } else {
    set.gpu = static_cast<int>(set.backends.size());
    set.backends.push_back(probe.backend);
    set.names.push_back(std::string(kLocalDevicePrefix) + "/device:GPU:0");
  }
#else
  set.no_gpu_reason = gpu_hidden ? "the session's device_count hides it"
                                 : "symflow was built without a GPU backend (see docs/devices.md)";
#endif
  return set;
}

}  // namespace symflow::detail
