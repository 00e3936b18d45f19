#pragma once
// Session options, shaped like TensorFlow's ConfigProto.

#include <cstdint>
#include <map>
#include <string>

#include "symflow/backend/gpu_options.hpp"

namespace symflow {

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
  // The most bytes one host tensor a kernel makes may take (0: no limit). A larger
  // output fails its node with TensorFlow's ResourceExhaustedError ("OOM when allocating
  // tensor with shape[...] ...") before the system is asked for the memory. It bounds
  // each allocation, not the sum of the live ones.
  std::int64_t memory_limit_bytes = 0;
  // `{}`: designated initializers may leave these out without a warning.
  GPUOptions gpu_options{};
  GraphOptions graph_options{};  // ConfigProto{.graph_options = {.optimizer_options = {...}}}
};

}  // namespace symflow
