#pragma once
// Session options, shaped like TensorFlow's ConfigProto.

namespace symflow {

struct GPUOptions {
  bool allow_growth = false;                     // grow the device pool on demand
  double per_process_gpu_memory_fraction = 0.0;  // reserve this fraction up front (0: off)
};

struct ConfigProto {
  bool allow_soft_placement = false;     // fall back to another device when one is missing
  bool log_device_placement = false;     // print where each node runs
  int intra_op_parallelism_threads = 0;  // 0: let the runtime choose
  int inter_op_parallelism_threads = 0;
  GPUOptions gpu_options;
};

}  // namespace symflow
