#pragma once
// The CPU backend, as the rest of symflow sees it: one object per program, found by
// cpu::backend(). Its kernels are defined by backend/cpu/define_backend.hpp, in one of
// two ways (docs/decisions.md):
// - header-only (the default): this header includes the definitions, inline, so every
//   source that makes a Session compiles them;
// - compiled: a program built with SYMFLOW_COMPILED (detail/config.hpp) gets them from
//   the one source that includes symflow/define_compiled.hpp; its other sources compile
//   none.

#include "symflow/backend/backend.hpp"
#include "symflow/detail/config.hpp"

namespace symflow::cpu {

// The CPU device: a kernel for every op of the registry, the fused kernel, host memory.
SYMFLOW_INLINE const Backend& backend();

}  // namespace symflow::cpu

#if !defined(SYMFLOW_COMPILED)
#include "symflow/backend/cpu/define_backend.hpp"
#endif
