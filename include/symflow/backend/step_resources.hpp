#pragma once
// The resources one Session::run makes and its ops share by handle: TensorArrays and the
// stacks of a while loop's gradient (TensorFlow's per-step resource container). A handle
// is a DType::resource scalar holding the resource's name here; the run lets go of every
// resource when it ends, so nothing outlives the run that made it.

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "symflow/core/errors.hpp"

namespace symflow {

class StepResources {
 public:
  // Adds `resource` under a name no other resource of this run has, made from `node` (the
  // op that makes it), and returns that name: what the handle holds.
  template <class T>
  std::string add(std::string_view node, std::shared_ptr<T> resource) {
    std::lock_guard lock(mutex_);
    std::string name = std::string(node) + "_" + std::to_string(next_++);
    items_.emplace(name, Entry{&kind_of<T>, std::move(resource)});
    return name;
  }
  // Adds `resource` under `name`, or returns the one already there (a gradient
  // TensorArray, which every gradient op of one source shares).
  template <class T, class Make>
  std::shared_ptr<T> find_or_add(const std::string& name, Make make, const std::string& node) {
    std::lock_guard lock(mutex_);
    auto it = items_.find(name);
    if (it == items_.end())
      it = items_.emplace(name, Entry{&kind_of<T>, std::shared_ptr<T>(make())}).first;
    return checked<T>(it->second, name, node);
  }
  // The resource a handle names; NotFoundError (naming `node`, the op that asked) when the
  // run has none of that name and kind.
  template <class T>
  std::shared_ptr<T> find(const std::string& name, const std::string& node) {
    std::lock_guard lock(mutex_);
    const auto it = items_.find(name);
    if (it == items_.end())
      throw NotFoundError("Resource " + name +
                              " does not exist in this run (was it made by an op of another run, "
                              "or closed?)",
                          node);
    return checked<T>(it->second, name, node);
  }
  // Lets go of a resource (a closed stack or TensorArray); a name not here is no error.
  void erase(const std::string& name) {
    std::lock_guard lock(mutex_);
    items_.erase(name);
  }

 private:
  struct Entry {
    const void* kind;
    std::shared_ptr<void> resource;
  };
  template <class T>
  static constexpr char kind_of = 0;

  template <class T>
  static std::shared_ptr<T> checked(const Entry& e, const std::string& name,
                                    const std::string& node) {
    if (e.kind != &kind_of<T>)
      throw InvalidArgumentError("Resource " + name + " is not of the kind this op reads", node);
    return std::static_pointer_cast<T>(e.resource);
  }

  std::mutex mutex_;
  std::unordered_map<std::string, Entry> items_;
  std::uint64_t next_ = 0;
};

}  // namespace symflow
