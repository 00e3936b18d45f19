#pragma once
// IndexedSlices and Gradient: TensorFlow's sparse gradient and the value a gradient
// function passes on, which is either a tensor or such slices.
//
// A gather reads a few rows of its params, so the gradient reaching params is those rows'
// gradients and their row numbers, not a tensor of params' full size: TensorFlow's
// IndexedSlices. The optimizers update only those rows (ScatterSub, SparseApplyAdagrad,
// ...); anything that needs a tensor converts them with to_dense, as TensorFlow's
// convert_to_tensor does.

#include <cstdint>
#include <iostream>
#include <string>
#include <string_view>
#include <utility>

#include "symflow/core/errors.hpp"
#include "symflow/graph/graph.hpp"
#include "symflow/graph/tensor.hpp"
#include "symflow/ops/indexing.hpp"
#include "symflow/ops/transform_ops.hpp"

namespace symflow {

// Rows of a tensor of shape dense_shape: values[i] is its row indices[i] (a repeated
// index means the rows add up).
struct IndexedSlices {
  Output values;       // [len(indices)] + dense_shape[1:]
  Output indices;      // an int32 or int64 vector
  Output dense_shape;  // an int32 vector: the shape of the tensor the rows belong to

  DType dtype() const { return values.dtype(); }
};

// Python's repr of an IndexedSlices (what TensorFlow's warnings print).
inline std::string to_string(const IndexedSlices& s) {
  return "IndexedSlices(indices=" + to_string(s.indices) + ", values=" + to_string(s.values) +
         ", dense_shape=" + to_string(s.dense_shape) + ")";
}

namespace detail {
// TensorFlow warns when it converts slices of a tensor with at least this many elements.
inline constexpr std::int64_t kLargeSparseNumElements = 100000000;
}  // namespace detail

// The tensor the slices stand for: the rows summed into place (UnsortedSegmentSum over
// dense_shape[0] rows), as TensorFlow converts an IndexedSlices; `name` names the sum.
// Like TensorFlow, warns on stderr when the tensor has 100M elements or more, or a
// shape known only when the graph runs.
inline Output to_dense(const IndexedSlices& slices, std::string_view name = {}) {
  const Operation shape_op = slices.dense_shape.op();
  if (shape_op.type() == "Const") {
    std::int64_t elements = 1;
    for (std::int64_t d :
         shape_op.get_attr<Value>("value").astype(DType::int64).to_vector<std::int64_t>())
      elements *= d;
    if (elements >= detail::kLargeSparseNumElements)
      std::cerr << "UserWarning: Converting sparse IndexedSlices to a dense Tensor with "
                << elements << " elements. This may consume a large amount of memory.\n";
  } else {
    std::cerr << "UserWarning: Converting sparse IndexedSlices(" << to_string(slices)
              << ") to a dense Tensor of unknown shape. This may consume a large amount of "
                 "memory.\n";
  }
  const Output rows = slices.dense_shape[0];
  return unsorted_segment_sum(slices.values, slices.indices, rows, name);
}

// A gradient: a tensor, TensorFlow's IndexedSlices, or none (an invalid gradient, which
// is TensorFlow's None).
class Gradient {
 public:
  Gradient() = default;
  Gradient(Output dense) : dense_(std::move(dense)) {}  // NOLINT: implicit on purpose
  Gradient(IndexedSlices sparse)                        // NOLINT: implicit on purpose
      : sparse_(std::move(sparse)), is_sparse_(true) {}

  bool valid() const { return is_sparse_ || dense_.valid(); }
  bool is_sparse() const { return is_sparse_; }

  // The tensor; a TypeError for slices (convert them with to_dense, or use sparse()).
  const Output& dense() const {
    if (is_sparse_)
      throw TypeError("The gradient is an IndexedSlices of " + to_string(sparse_.values) +
                      ", not a tensor: call to_dense() or use sparse()");
    return dense_;
  }
  operator Output() const { return dense(); }  // NOLINT: a dense gradient is its tensor

  // The slices; a TypeError for a tensor.
  const IndexedSlices& sparse() const {
    if (!is_sparse_) throw TypeError("The gradient " + to_string(dense_) + " is not sparse");
    return sparse_;
  }

  // The values' dtype (invalid for no gradient).
  DType dtype() const {
    if (is_sparse_) return sparse_.dtype();
    return dense_.valid() ? dense_.dtype() : DType::invalid;
  }

  // The gradient as a tensor: itself, or the slices summed into place (to_dense).
  Output to_dense(std::string_view name = {}) const {
    return is_sparse_ ? symflow::to_dense(sparse_, name) : dense_;
  }

 private:
  Output dense_;
  IndexedSlices sparse_;
  bool is_sparse_ = false;
};

}  // namespace symflow
