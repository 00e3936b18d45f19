#pragma once
// The options of a GPU device (TensorFlow's GPUOptions), which a session passes on when it
// probes for the device. Plain data: no Thrust here.

namespace symflow {

// The GPU's memory pool is one per process, as in TensorFlow: the first session that
// uses the GPU sets it up with its options; later sessions share it.
struct GPUOptions {
  // On: the pool starts empty and takes memory from the device as tensors need it,
  // up to per_process_gpu_memory_fraction when that is set. Freed blocks stay in the
  // pool, cached by size, for the next tensors: a steady training loop allocates from
  // the device only in its first step.
  // Off (the default) with a fraction > 0: the pool reserves that fraction of the
  // device up front, as TensorFlow does, and serves every tensor from it; it never grows.
  // Off with no fraction (the defaults): as on, with no limit. TensorFlow instead
  // reserves nearly all of the device up front.
  bool allow_growth = false;
  // The most the process may hold, as a fraction in [0, 1] of the device's total
  // memory (0: no limit; outside [0, 1]: InvalidArgumentError). The device's memory
  // is the GPU's under CUDA, the machine's physical memory on the host systems
  // (Thrust-OMP/CPP). A tensor past it is a ResourceExhaustedError naming its size,
  // the bytes in use and the limit.
  double per_process_gpu_memory_fraction = 0.0;
};

}  // namespace symflow
