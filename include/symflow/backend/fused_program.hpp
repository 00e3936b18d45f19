#pragma once
// A fused elementwise cluster as plain data (runtime/fusion.hpp finds the clusters;
// each backend has its own kernel that runs one in a single pass).

#include <cstdint>
#include <span>
#include <vector>

#include "symflow/core/value.hpp"
#include "symflow/ops/defs/op_def.hpp"

namespace symflow {

// How an elementwise op computes a block of elements, for the fused clusters of
// runtime/fusion.hpp: out[k] = op(in[0][k], ..., in[arity - 1][k]) for k < n. `out`
// never aliases an input. A backend that fuses gives one per op it can fuse
// (Backend::elementwise).
struct ElementwiseDef {
  int arity = 0;
  // False for ops whose kernel requires equal input shapes (ReluGrad, ...): a cluster
  // then runs them fused only when the shapes are equal, so errors stay the kernel's.
  bool broadcasts = true;
  void (*block_f32)(const float* const* in, float* out, std::int64_t n) = nullptr;
  void (*block_f64)(const double* const* in, double* out, std::int64_t n) = nullptr;
};

// One step of a fused program: result = def(operands...). An operand below the
// program's num_inputs is an external input; operand num_inputs + j is step j's result.
struct FusedStep {
  const ElementwiseDef* def = nullptr;
  std::vector<int> args;
  int scratch = -1;  // block buffer that holds the result, or -1 when it is an output
  int output = -1;   // index among the program's outputs when the result is materialised
};

// A fused cluster as plain data: the backend never sees the graph it came from.
struct FusedProgram {
  DType dtype = DType::invalid;
  int num_inputs = 0;
  int num_outputs = 0;
  int num_scratch = 0;  // block buffers the steps need at most at once
  std::vector<FusedStep> steps;
};

class ThreadPool;

// Runs `program` over inputs broadcast to `dims` and allocates `outputs` (one per
// materialised step, all of shape `dims`), on `pool`'s threads where it has some (the
// session's intra-op threads; may be null). Returns false, touching nothing, when it
// cannot run these input shapes; the caller then runs the nodes one by one.
using FusedKernelFn = bool (*)(const FusedProgram& program, std::span<const Value> inputs,
                               const Dims& dims, std::span<Value> outputs, ThreadPool* pool);

}  // namespace symflow
