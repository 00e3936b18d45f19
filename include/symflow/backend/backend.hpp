#pragma once
// The backend contract: a backend says which kernel runs an op type on its device.
// The runtime talks to this interface only; op entries carry the kernels.

#include <string_view>

#include "symflow/backend/kernel_context.hpp"
#include "symflow/graph/op_def.hpp"

namespace symflow {

class Backend {
 public:
  virtual ~Backend() = default;
  // The device type, as in "/device:CPU:0".
  virtual std::string_view device_type() const = 0;
  // The kernel for `def` on this backend, or nullptr when it has none.
  virtual KernelFn kernel(const OpDef& def) const = 0;
};

}  // namespace symflow
