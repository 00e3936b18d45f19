#pragma once
// What a kernel sees: its input buffers, its node's attrs and name (for messages),
// its output slots, the session's variables and its own state kept across runs.
// Kernels never see the graph.

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "symflow/backend/backend.hpp"
#include "symflow/backend/step_resources.hpp"
#include "symflow/backend/thread_pool.hpp"
#include "symflow/backend/variable_store.hpp"
#include "symflow/core/attr_value.hpp"
#include "symflow/core/errors.hpp"
#include "symflow/core/value.hpp"

namespace symflow {

class KernelContext {
 public:
  KernelContext(const std::string& node_name, const AttrMap& attrs, std::span<const Value> inputs,
                std::span<Value> outputs)
      : node_name_(node_name), attrs_(attrs), inputs_(inputs), outputs_(outputs) {}

  // What stateful kernels need besides buffers; without it they fail cleanly.
  struct Session {
    VariableStore* variables = nullptr;
    std::shared_ptr<void>* state = nullptr;                     // this node's state in the session
    std::span<const std::shared_ptr<VariableSlot>> ref_inputs;  // null where not a reference
    std::span<std::shared_ptr<VariableSlot>> ref_outputs;
    ThreadPool* intra_op = nullptr;    // the session's intra-op threads; null: this thread only
    const Backend* backend = nullptr;  // the node's device; null: the host
    StepResources* step = nullptr;     // this run's TensorArrays and stacks
    // The inputs again, writable, where the caller lets a kernel take a buffer it holds
    // the only handle to (the executor's arguments); empty: never.
    std::span<Value> forwardable_inputs;
  };
  KernelContext(const std::string& node_name, const AttrMap& attrs, std::span<const Value> inputs,
                std::span<Value> outputs, Session session)
      : node_name_(node_name),
        attrs_(attrs),
        inputs_(inputs),
        outputs_(outputs),
        session_(session) {}

  // The session's variables (VariableV2 finds its slot here).
  VariableStore& variables() const {
    if (!session_.variables) throw InternalError("No variable store in this context", node_name_);
    return *session_.variables;
  }
  // The variable behind reference input i (for ops that write through it).
  VariableSlot& ref_input(std::size_t i) const {
    if (i >= session_.ref_inputs.size() || !session_.ref_inputs[i])
      throw InvalidArgumentError("Input " + std::to_string(i) + " must be a variable reference",
                                 node_name_);
    return *session_.ref_inputs[i];
  }
  // Whether reference input i holds a variable (a dead input of RefMerge does not).
  bool has_ref_input(std::size_t i) const {
    return i < session_.ref_inputs.size() && session_.ref_inputs[i] != nullptr;
  }
  // Output `output` is the variable of reference input `input` (Assign's output).
  void forward_ref(std::size_t input, std::size_t output) {
    ref_input(input);
    set_ref_output(output, session_.ref_inputs[input]);
  }
  // This run's resources (TensorArrays, stacks), which handles name.
  StepResources& step_resources() const {
    if (!session_.step) throw InternalError("No run resources in this context", node_name_);
    return *session_.step;
  }
  // Output i is a reference to `slot` (VariableV2).
  void set_ref_output(std::size_t i, std::shared_ptr<VariableSlot> slot) {
    if (i >= session_.ref_outputs.size())
      throw InternalError("Output " + std::to_string(i) + " cannot be a reference", node_name_);
    session_.ref_outputs[i] = std::move(slot);
  }
  // State this node keeps from one run to the next of one session, made by `make`
  // on first use (a random op's generator).
  template <class T, class Make>
  T& state(Make make) {
    if (!session_.state) throw InternalError("No kernel state in this context", node_name_);
    if (!*session_.state) *session_.state = std::make_shared<T>(make());
    return *static_cast<T*>(session_.state->get());
  }

  // Calls fn(begin, end) over chunks of [0, n), at least `min_chunk` long, on the
  // session's intra-op threads (or on this thread alone without a pool).
  template <class Fn>
  void parallel_for(std::int64_t n, std::int64_t min_chunk, Fn&& fn) const {
    parallel_for_chunks(
        n, min_chunk, [&](std::int64_t, std::int64_t begin, std::int64_t end) { fn(begin, end); });
  }
  // parallel_for with each chunk's index: fn(c, begin, end), c < num_chunks(n, min_chunk).
  template <class Fn>
  void parallel_for_chunks(std::int64_t n, std::int64_t min_chunk, Fn&& fn) const {
    if (session_.intra_op)
      session_.intra_op->parallel_for_chunks(n, min_chunk, std::forward<Fn>(fn));
    else if (n > 0)
      fn(std::int64_t{0}, std::int64_t{0}, n);
  }
  std::int64_t num_chunks(std::int64_t n, std::int64_t min_chunk) const {
    if (session_.intra_op) return session_.intra_op->num_chunks(n, min_chunk);
    return n > 0 ? 1 : 0;
  }
  // How many threads parallel_for may use.
  int intra_op_threads() const { return session_.intra_op ? session_.intra_op->num_threads() : 1; }

  const std::string& node_name() const { return node_name_; }
  std::size_t num_inputs() const { return inputs_.size(); }
  const Value& input(std::size_t i) const { return inputs_[i]; }
  std::size_t num_outputs() const { return outputs_.size(); }
  template <class T>
  const T& attr(std::string_view name) const {
    return get_attr<T>(attrs_, name, node_name_);
  }

  // A zero-filled output in the memory of the node's device.
  Value& allocate_output(std::size_t i, DType dtype, Dims dims) {
    outputs_[i] = session_.backend ? session_.backend->allocate(dtype, std::move(dims))
                                   : Value(dtype, std::move(dims));
    return outputs_[i];
  }
  // An output the kernel then writes entirely, left unset where the backend allows.
  Value& allocate_output_for_overwrite(std::size_t i, DType dtype, Dims dims) {
    outputs_[i] = session_.backend
                      ? session_.backend->allocate_for_overwrite(dtype, std::move(dims))
                      : Value::for_overwrite(dtype, std::move(dims));
    return outputs_[i];
  }
  // Output i in the buffer of the first of `inputs` that the kernel may write over: one of
  // `dtype` and `dims`, in host memory, aligned as a new buffer, whose only handle is the
  // kernel's argument (TensorFlow's forward_input_or_allocate_output). Else a new buffer,
  // as allocate_output_for_overwrite. An elementwise kernel then writes in place, and a
  // chain of small ops allocates nothing. A forwarded input reads as None afterwards:
  // the kernel takes what it needs of it first.
  Value& forward_input_or_allocate_output(std::initializer_list<std::size_t> inputs, std::size_t i,
                                          DType dtype, const Dims& dims) {
    for (std::size_t k : inputs) {
      if (k >= session_.forwardable_inputs.size()) continue;
      Value& in = session_.forwardable_inputs[k];
      if (in.buffer_owners() == 1 && in.dtype() == dtype &&
          in.memory_space() == MemorySpace::host &&
          reinterpret_cast<std::uintptr_t>(in.raw_data()) % kForwardAlignment == 0 &&
          in.dims() == dims) {
        outputs_[i] = std::move(in);
        return outputs_[i];
      }
    }
    return allocate_output_for_overwrite(i, dtype, dims);
  }

  // The backend of the node's device (null: the host, outside a session).
  const Backend* backend() const { return session_.backend; }
  void set_output(std::size_t i, Value v) { outputs_[i] = std::move(v); }
  Value& output(std::size_t i) { return outputs_[i]; }

  [[noreturn]] void fail(std::string message) const {
    throw InvalidArgumentError(std::move(message), node_name_);
  }

 private:
  // A new host buffer's alignment, which kernels may count on.
  static constexpr auto kForwardAlignment =
      static_cast<std::uintptr_t>(detail::BufferPool::kAlignment);

  const std::string& node_name_;
  const AttrMap& attrs_;
  std::span<const Value> inputs_;
  std::span<Value> outputs_;
  Session session_;
};

}  // namespace symflow
