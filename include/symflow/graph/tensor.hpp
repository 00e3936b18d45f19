#pragma once
// Output: an untyped handle to one output of one node, named "node:index".
// Tensor<T>: the same handle with its element type in the C++ type.

#include <initializer_list>
#include <ostream>
#include <string>
#include <vector>

#include "symflow/core/dtype.hpp"
#include "symflow/core/shape.hpp"
#include "symflow/core/value.hpp"
#include "symflow/graph/operation.hpp"

namespace symflow {

class Index;  // ops/indexing.hpp

template <Element T>
class Tensor;

class Output {
 public:
  Output() = default;
  Output(Operation op, int index) : op_(std::move(op)), index_(index) {}

  bool valid() const { return op_.valid(); }
  const Operation& op() const { return op_; }
  int index() const { return index_; }
  TensorRef ref() const { return {op_.id(), index_}; }
  Graph graph() const;
  std::string name() const { return op_.name() + ":" + std::to_string(index_); }
  DType dtype() const { return spec().dtype; }
  // A reference to a variable's state (dtype printed as "float32_ref").
  bool is_ref() const { return spec().is_ref; }
  const Shape& get_shape() const { return spec().shape; }
  const Shape& shape() const { return spec().shape; }
  // Refines the static shape; ValueError when `shape` contradicts what is known.
  void set_shape(const Shape& shape) const {
    auto& slot = op_.graph_state()->node(op_.id()).outputs.at(static_cast<std::size_t>(index_));
    try {
      slot.shape = slot.shape.merge_with(shape);
    } catch (const ValueError&) {
      throw ValueError("Tensor " + name() + " has shape " + slot.shape.to_string() +
                       ", which is not compatible with " + shape.to_string());
    }
  }
  // The operations that take this tensor as an input.
  std::vector<Operation> consumers() const {
    std::vector<Operation> out;
    const auto& state = *op_.graph_state();
    for (std::uint32_t i = 0; i < state.nodes.size(); ++i)
      for (const TensorRef& in : state.nodes[i].inputs)
        if (in.node == op_.id() && in.index == index_) {
          out.emplace_back(op_.graph_state(), NodeId{i});
          break;
        }
    return out;
  }

  // Runs the default session (see Session::as_default) and returns this tensor's value.
  Value eval(const FeedDict& feeds) const;
  Value eval() const;
  Value eval(Evaluator& session, const FeedDict& feeds) const;
  Value eval(Evaluator& session) const;

  // Python's t[...]: one StridedSlice (ops/indexing.hpp, which defines these).
  Output operator[](const Index& index) const;
  Output operator[](std::initializer_list<Index> spec) const;

  // Checked view with a C++ element type; TypeError when the dtype differs.
  template <Element T>
  Tensor<T> as() const;

  friend bool operator==(const Output& a, const Output& b) {
    return a.op_ == b.op_ && a.index_ == b.index_;
  }

 private:
  const TensorSpec& spec() const { return op_.node().outputs.at(static_cast<std::size_t>(index_)); }

  Operation op_;
  int index_ = 0;
};

// TensorFlow's repr: Tensor("Const:0", shape=(), dtype=float32)
inline std::string dtype_repr(const Output& t) {
  return std::string(dtype_name(t.dtype())) + (t.is_ref() ? "_ref" : "");
}
inline std::string to_string(const Output& t) {
  return "Tensor(\"" + t.name() + "\", shape=" + t.get_shape().to_string() +
         ", dtype=" + dtype_repr(t) + ")";
}
inline std::ostream& operator<<(std::ostream& os, const Output& t) { return os << to_string(t); }

// TensorFlow's repr, as a Python list of tensors shows it:
// <tf.Tensor 'Const:0' shape=() dtype=float32>
inline std::string repr(const Output& t) {
  return "<tf.Tensor '" + t.name() + "' shape=" + t.get_shape().to_string() +
         " dtype=" + dtype_repr(t) + ">";
}

template <Element T>
class Tensor : public Output {
 public:
  using value_type = T;

  Tensor() = default;
  // Checked conversion from an untyped handle.
  explicit Tensor(const Output& output) : Output(output) {
    if (output.dtype() != dtype_v<T>)
      throw TypeError("Tensor " + output.name() + " has dtype " +
                      std::string(dtype_name(output.dtype())) + ", expected " +
                      std::string(dtype_name(dtype_v<T>)));
  }

  // Python's t[...], keeping the element type (ops/indexing.hpp).
  Tensor operator[](const Index& index) const;
  Tensor operator[](std::initializer_list<Index> spec) const;
};

template <Element T>
Tensor<T> Output::as() const {
  return Tensor<T>(*this);
}

}  // namespace symflow
