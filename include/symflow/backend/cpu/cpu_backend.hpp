#pragma once
// The CPU backend, as the rest of symflow sees it: one object per program, found by
// cpu::backend(). Its kernels are defined by backend/cpu/define_backend.hpp, in one of
// two ways (docs/decisions.md):
// - header-only (the default): this header includes the definitions, inline, so every
//   source that makes a Session compiles them;
// - compiled once: a program whose sources all define SYMFLOW_CPU_KERNELS_LINKED (the
//   CMake target symflow::cpu_kernels does) gets them from one source that includes
//   define_backend.hpp (that target's library); its other sources compile none.

#include "symflow/backend/backend.hpp"

#if defined(SYMFLOW_CPU_KERNELS_LINKED)
#define SYMFLOW_CPU_BACKEND_LINKAGE
#else
#define SYMFLOW_CPU_BACKEND_LINKAGE inline
#endif

namespace symflow::cpu {

// The CPU device: a kernel for every op of the registry, the fused kernel, host memory.
SYMFLOW_CPU_BACKEND_LINKAGE const Backend& backend();

}  // namespace symflow::cpu

#if !defined(SYMFLOW_CPU_KERNELS_LINKED)
#include "symflow/backend/cpu/define_backend.hpp"
#endif
