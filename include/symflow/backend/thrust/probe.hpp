#pragma once
// The GPU backend's entry point, as the rest of symflow sees it: no Thrust here, so
// that only one source file of a program compiles the backend's kernels (which
// dominate its build time, and under CUDA need nvcc). That file includes
// symflow/backend/thrust/define_backend.cuh; the CMake targets symflow::thrust_omp,
// symflow::thrust_cpp and symflow::cuda link one already built.

#include <string>

#include "symflow/backend/backend.hpp"
#include "symflow/backend/gpu_options.hpp"

namespace symflow::thrust_backend {

// Whether this process has a device, and the backend when it does.
struct Probe {
  const Backend* backend = nullptr;
  std::string reason;  // why there is none
};

// The first call configures the process's device memory pool with `options`.
Probe probe(const GPUOptions& options);

}  // namespace symflow::thrust_backend
