#pragma once
// Defines the GPU backend's entry point (backend/thrust/probe.hpp). Include this in
// exactly one source file of a program built with SYMFLOW_THRUST: compiled by g++
// for Thrust's host systems, by nvcc for CUDA. The CMake targets do it for you.

#include <string>

#include "symflow/backend/thrust/probe.hpp"
#include "symflow/backend/thrust/thrust_backend.cuh"

namespace symflow::thrust_backend {

Probe probe(const GPUOptions& options) {
#if defined(SYMFLOW_THRUST_CUDA)
  static const std::string missing = [] {
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess)
      return std::string("no CUDA device was found (") + cudaGetErrorString(status) + ")";
    if (count == 0) return std::string("no CUDA device was found");
    return std::string();
  }();
  if (!missing.empty()) return {nullptr, missing};
#endif
  DeviceMemoryPool::instance().configure(options);
  static const ThrustBackend backend;
  return {&backend, {}};
}

}  // namespace symflow::thrust_backend
