#pragma once
// The Thrust backend compiles three ways from one source:
// - nvcc, THRUST_DEVICE_SYSTEM_CUDA (the default under nvcc): device memory is GPU
//   memory, kernels run on the GPU, matmul goes through cuBLAS;
// - g++ with THRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_OMP (-fopenmp) or _CPP: the
//   "device" is the host, through Thrust's host systems. This is how CI tests the
//   backend without a GPU: the same kernels, the same copies, the same placement.
// Kernel code must therefore stay device-safe: functors with SYMFLOW_HD operators,
// no std:: containers, no exceptions, and no extended lambda inside another lambda
// (nvcc rejects those). Errors are found on the host, before a kernel launches.

#include <cstdint>

#include <thrust/copy.h>
#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/fill.h>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/transform.h>
#include <thrust/version.h>

#include "symflow/core/host_device.hpp"

#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_CUDA
#define SYMFLOW_THRUST_CUDA 1
#include <cuda_runtime_api.h>
#endif

namespace symflow::thrust_backend {

// The name of the system the kernels run on, for messages and logs.
inline constexpr const char* kSystemName =
#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_CUDA
    "CUDA";
#elif THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_OMP
    "Thrust-OMP";
#elif THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_TBB
    "Thrust-TBB";
#else
    "Thrust-CPP";
#endif

}  // namespace symflow::thrust_backend
