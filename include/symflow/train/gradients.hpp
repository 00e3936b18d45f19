#pragma once
// symflow::gradients: builds the backward graph as tf.gradients does. Every op between
// the xs and the ys contributes its registered gradient function, called inside
// "gradients/<op name>_grad/"; gradients reaching one tensor along several paths are
// summed with AddN. A gather's params get TensorFlow's IndexedSlices (its rows' gradients
// only): gradients_with_slices returns them as they are, gradients as tensors.
// train/gradients_inl.hpp defines what this header declares.

#include <string>
#include <string_view>
#include <vector>

#include "symflow/detail/config.hpp"
#include "symflow/graph/graph.hpp"
#include "symflow/graph/scopes.hpp"
#include "symflow/ops/indexed_slices.hpp"

namespace symflow {

// How gradients reaching one tensor along several paths are summed (tf.AggregationMethod):
// ADD_N, one AddN of all of them; EXPERIMENTAL_TREE and EXPERIMENTAL_ACCUMULATE_N (the same
// in TensorFlow 2.x), a chain of two-input AddNs in "<op>_gradient_sum/", which can free
// each gradient sooner. Slices are concatenated either way.
enum class AggregationMethod { ADD_N = 0, EXPERIMENTAL_TREE = 1, EXPERIMENTAL_ACCUMULATE_N = 2 };

struct GradientsOptions {
  std::string_view name = "gradients";  // the name scope of every gradient node
  // Tensors treated as constants: no gradient flows through them (tf.gradients'
  // stop_gradients).
  std::vector<Output> stop_gradients = {};
  // Gate each op's input gradients with a tuple (tf.gradients' gate_gradients; the
  // optimizers' GATE_OP): all of them are computed before any is used, so an update
  // reading one cannot run before the others have read the variables they need.
  bool gate_gradients = false;
  AggregationMethod aggregation_method = AggregationMethod::ADD_N;
};

// d(sum of ys)/d(x) for each x in xs, weighted by grad_ys (ones by default). An x that
// no y depends on gets an invalid Output (TensorFlow's None). LookupError when an op on
// the way has no gradient.
SYMFLOW_INLINE std::vector<Output> gradients(const std::vector<Output>& ys,
                                             const std::vector<Output>& xs,
                                             const std::vector<Output>& grad_ys = {},
                                             const GradientsOptions& options = {});

// tf.gradients exactly: as gradients, but a gradient that is TensorFlow's IndexedSlices
// (a gather's params, and what only passes Identity ops from there) stays one; several
// reaching one tensor are concatenated (values and indices), or summed as tensors with
// AddN when some are tensors, the slices converted inside the AddN's scope as
// "inputs_<i>". gradients() converts the slices it would return with to_dense.
SYMFLOW_INLINE std::vector<Gradient> gradients_with_slices(const std::vector<Output>& ys,
                                                           const std::vector<Output>& xs,
                                                           const std::vector<Output>& grad_ys = {},
                                                           const GradientsOptions& options = {});

// One y.
inline std::vector<Output> gradients(const Output& y, const std::vector<Output>& xs,
                                     const std::vector<Output>& grad_ys = {},
                                     const GradientsOptions& options = {}) {
  return gradients(std::vector<Output>{y}, xs, grad_ys, options);
}

}  // namespace symflow

#if !defined(SYMFLOW_COMPILED)
#include "symflow/train/gradients_inl.hpp"
#endif
