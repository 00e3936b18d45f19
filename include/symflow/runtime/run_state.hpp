#pragma once
// What a run works with besides its plan: the session's state that outlives runs
// (variables, the kernels' own state), the run's devices and the copies between their
// memories, and the tensors the run produces (values and variable references by slot).

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <new>
#include <span>
#include <string>
#include <vector>

#include "symflow/backend/backend.hpp"
#include "symflow/backend/thread_pool.hpp"
#include "symflow/backend/variable_store.hpp"
#include "symflow/core/errors.hpp"
#include "symflow/core/value.hpp"

namespace symflow::detail {

// What a session keeps between runs: its variables and its kernels' own state.
// `node_state` grows (under the session's exclusive lock) before a plan that needs
// it runs; a deque, so growing it moves nothing that a running kernel holds.
struct NodeStateSlot {
  std::mutex mutex;  // held while a stateful kernel runs: concurrent runs take turns
  std::shared_ptr<void> state;
};
struct SessionState {
  VariableStore variables;
  std::deque<NodeStateSlot> node_state;  // by node id
  ThreadPool* intra_op = nullptr;        // the session's intra-op threads, if any
  ThreadPool* inter_op = nullptr;        // threads that run independent steps; null: none
  std::int64_t memory_limit_bytes = 0;   // ConfigProto::memory_limit_bytes (0: none)
  void reserve_nodes(std::size_t n) {
    if (node_state.size() < n) node_state.resize(n);
  }
};

// The value of a variable, read by `reader`; reading an uninitialised variable is
// TensorFlow's FailedPreconditionError, reported on the node that reads it.
inline Value read_variable(VariableSlot& variable, const std::string& reader) {
  std::lock_guard lock(variable.mutex);
  if (!variable.initialized)
    throw FailedPreconditionError("Attempting to use uninitialized value " + variable.name, reader);
  return variable.value;
}

// Empties `v`, letting go of its buffer, without the temporary of `v = Value()`.
// Default-initialised (no parentheses): value-initialising would zero every byte first.
inline void release(Value& v) noexcept {
  std::destroy_at(&v);
  ::new (static_cast<void*>(&v)) Value;
}

// The produced tensors of one run, by slot (Plan::output_slot): a value, or a
// reference to a variable. Two arrays, so that a kernel writes its outputs (and its
// reference outputs) straight into its slots.
struct TensorSlots {
  std::vector<Value> values;
  std::vector<std::shared_ptr<VariableSlot>> refs;
  std::vector<std::uint8_t> dead;  // 1: the slot's tensor is dead in this run (Plan::dead_tensors)

  void resize(std::size_t n) {
    values.resize(n);
    refs.resize(n);
    dead.resize(n);
  }
  // The value behind slot `s`, read by `reader` (a variable's value for a reference).
  Value read(std::size_t s, const std::string& reader) const {
    if (!refs[s]) return values[s];
    return read_variable(*refs[s], reader);
  }
  // The same into `to`, taking the value out of the slot: its last reader.
  void take(std::size_t s, const std::string& reader, Value& to) {
    if (!refs[s])
      to = std::move(values[s]);
    else
      to = read_variable(*refs[s], reader);
  }
  void clear(std::size_t s) {
    if (!values[s].is_none()) release(values[s]);
    if (refs[s]) refs[s].reset();
  }
  void clear_all() {
    for (std::size_t s = 0; s < values.size(); ++s) clear(s);
  }
};

// The devices a run's steps use, by plan device index, and the copies between their
// memories.
class RunDevices {
 public:
  static constexpr std::size_t kMaxDevices = 64;

  explicit RunDevices(std::span<const Backend* const> backends) {
    if (backends.size() > kMaxDevices)
      throw InternalError("A session with more than " + std::to_string(kMaxDevices) + " devices");
    count_ = backends.size();
    for (std::size_t d = 0; d < count_; ++d) {
      backends_[d] = backends[d];
      host_[d] = backends[d]->memory_space() == MemorySpace::host;
      if (!host_[d]) device_memory_ = backends[d];
    }
  }

  const Backend& backend(std::size_t device) const { return *backends_[device]; }
  // Whether the device's kernels read and write host memory.
  bool host(std::size_t device) const { return host_[device]; }
  MemorySpace memory_space(std::size_t device) const {
    return host_[device] ? MemorySpace::host : MemorySpace::device;
  }

  // `v` in the memory of `device` (itself when it is there already).
  Value moved_to(Value v, std::size_t device) const {
    if (v.is_none() || v.memory_space() == memory_space(device)) return v;
    if (!host_[device]) return backends_[device]->from_host(v);
    return to_host(v);
  }
  // A device value copied to the host: a fresh host buffer.
  Value to_host(const Value& v) const {
    if (!device_memory_) throw InternalError("A device value, and no device backend to copy it");
    return device_memory_->to_host(v);
  }

 private:
  const Backend* backends_[kMaxDevices];  // the first count_ are set
  bool host_[kMaxDevices];
  std::size_t count_ = 0;
  const Backend* device_memory_ = nullptr;  // the backend that copies device values out
};

}  // namespace symflow::detail
