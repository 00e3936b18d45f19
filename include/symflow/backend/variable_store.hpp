#pragma once
// The state a session owns: one slot per variable, holding its current value.
// Kernels reach slots through their context (VariableV2 looks its slot up by name;
// Assign and friends receive it as a reference input), never through the graph.

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "symflow/core/value.hpp"

namespace symflow {

struct VariableSlot {
  explicit VariableSlot(std::string slot_name) : name(std::move(slot_name)) {}
  std::string name;  // the variable's node name, for messages
  Value value;       // replaced whole by every write: earlier reads stay snapshots
  bool initialized = false;
  std::mutex mutex;  // held while a kernel reads-modifies-writes the slot
};

class VariableStore {
 public:
  // Where a variable lives: its container, and its shared_name or else its node name.
  static std::string key(const std::string& container, const std::string& shared_name,
                         const std::string& node_name) {
    return container + "/" + (shared_name.empty() ? node_name : shared_name);
  }

  // The slot for `key` (container/shared_name, or the node name), created empty.
  std::shared_ptr<VariableSlot> slot(const std::string& key, const std::string& node_name) {
    std::lock_guard lock(mutex_);
    auto& s = slots_[key];
    if (!s) s = std::make_shared<VariableSlot>(node_name);
    return s;
  }
  // The slot for `key` if it exists, else nullptr.
  std::shared_ptr<VariableSlot> find(const std::string& key) const {
    std::lock_guard lock(mutex_);
    auto it = slots_.find(key);
    return it == slots_.end() ? nullptr : it->second;
  }
  void clear() {
    std::lock_guard lock(mutex_);
    slots_.clear();
  }

 private:
  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<VariableSlot>> slots_;
};

}  // namespace symflow
