#pragma once
// Session options, shaped like TensorFlow's ConfigProto.

namespace symflow {

struct GPUOptions {
  bool allow_growth = false;                     // grow the device pool on demand
  double per_process_gpu_memory_fraction = 0.0;  // reserve this fraction up front (0: off)
};

// TensorFlow's OptimizerOptions holds the graph optimizer's switches; symflow has one.
struct OptimizerOptions {
  // Run each cluster of connected elementwise nodes (Add, Mul, Exp, ... on float32
  // and float64) as one fused kernel: one pass over memory, no intermediate
  // buffers, the same results bit for bit. Off: every node runs its own kernel.
  bool do_fusion = true;
};

struct GraphOptions {
  OptimizerOptions optimizer_options{};
};

struct ConfigProto {
  bool allow_soft_placement = false;     // fall back to another device when one is missing
  bool log_device_placement = false;     // print where each node runs
  int intra_op_parallelism_threads = 0;  // 0: let the runtime choose
  int inter_op_parallelism_threads = 0;
  // `{}`: designated initializers may leave these out without a warning.
  GPUOptions gpu_options{};
  GraphOptions graph_options{};  // ConfigProto{.graph_options = {.optimizer_options = {...}}}
};

}  // namespace symflow
