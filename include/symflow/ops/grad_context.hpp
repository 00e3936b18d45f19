#pragma once
// The contract between an op's registry entry and symflow::gradients: a gradient
// function receives the forward operation and the gradient of each of its outputs,
// and builds the gradient of each input as ordinary graph nodes.

#include <vector>

#include "symflow/graph/graph.hpp"
#include "symflow/graph/tensor.hpp"

namespace symflow {

class Gradient;  // ops/indexed_slices.hpp

struct GradContext {
  Operation op;  // the forward operation
  // d(loss)/d(output i), one per output. Floating outputs that no path reaches get
  // zeros (as TensorFlow fills them); other outputs stay invalid.
  std::vector<Output> grads;

  Output input(int i) const { return op.inputs().at(static_cast<std::size_t>(i)); }
  Output output(int i) const { return op.output(i); }
  const Output& grad(int i = 0) const { return grads.at(static_cast<std::size_t>(i)); }
  Graph graph() const { return op.graph(); }
};

// Returns one gradient per input of `c.op`; an invalid Output (or a shorter vector)
// means no gradient flows to that input (TensorFlow's None).
using GradFn = std::vector<Output> (*)(const GradContext&);

// The gradient of ops that are not differentiable (Shape, ArgMax, Equal, ...):
// nothing flows back, as tf.no_gradient / ops.NotDifferentiable.
inline std::vector<Output> not_differentiable(const GradContext&) { return {}; }

// A gradient function that may return TensorFlow's IndexedSlices for an input (GatherV2's,
// for its params); symflow::gradients prefers it to the op's GradFn.
using SparseGradFn = std::vector<Gradient> (*)(const GradContext&);

// One registry entry: the op (shape function, kernels) and its gradient.
// grad == nullptr: no gradient is defined, and symflow::gradients raises LookupError
// when a path needs one.
struct OpEntry {
  const OpDef* def = nullptr;
  GradFn grad = nullptr;
  SparseGradFn sparse_grad = nullptr;
};

}  // namespace symflow
