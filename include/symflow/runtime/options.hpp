#pragma once
// Session options, shaped like TensorFlow's ConfigProto.

#include <map>
#include <string>

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
  // How many devices of a type the session may use: {{"GPU", 0}} hides the GPU.
  std::map<std::string, int> device_count{};
  bool allow_soft_placement = false;     // fall back to another device when one is missing
  bool log_device_placement = false;     // print where each node runs
  int intra_op_parallelism_threads = 0;  // 0: one per core
  // More than 1: up to this many threads run a run's independent nodes side by side
  // (branches no edge orders). 0 or 1: the calling thread runs the nodes in order, the
  // cheapest way for graphs of small nodes; TensorFlow's 0 means one thread per core.
  // Either way, nodes that touch variables keep their order, so results are the same.
  int inter_op_parallelism_threads = 0;
  // `{}`: designated initializers may leave these out without a warning.
  GPUOptions gpu_options{};
  GraphOptions graph_options{};  // ConfigProto{.graph_options = {.optimizer_options = {...}}}
};

}  // namespace symflow
