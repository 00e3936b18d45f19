#pragma once
// What a kernel sees: its input buffers, its node's attrs and name (for messages),
// and its output slots. Kernels never see the graph.

#include <span>
#include <string>
#include <string_view>

#include "symflow/core/attr_value.hpp"
#include "symflow/core/errors.hpp"
#include "symflow/core/value.hpp"

namespace symflow {

class KernelContext {
 public:
  KernelContext(const std::string& node_name, const AttrMap& attrs, std::span<const Value> inputs,
                std::span<Value> outputs)
      : node_name_(node_name), attrs_(attrs), inputs_(inputs), outputs_(outputs) {}

  const std::string& node_name() const { return node_name_; }
  std::size_t num_inputs() const { return inputs_.size(); }
  const Value& input(std::size_t i) const { return inputs_[i]; }
  template <class T>
  const T& attr(std::string_view name) const {
    return get_attr<T>(attrs_, name, node_name_);
  }

  Value& allocate_output(std::size_t i, DType dtype, Dims dims) {
    outputs_[i] = Value(dtype, std::move(dims));
    return outputs_[i];
  }
  void set_output(std::size_t i, Value v) { outputs_[i] = std::move(v); }

  [[noreturn]] void fail(std::string message) const {
    throw InvalidArgumentError(std::move(message), node_name_);
  }

 private:
  const std::string& node_name_;
  const AttrMap& attrs_;
  std::span<const Value> inputs_;
  std::span<Value> outputs_;
};

}  // namespace symflow
