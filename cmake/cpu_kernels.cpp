// The one source of a program that defines the CPU backend and its kernels
// (the target symflow::cpu_kernels compiles it with SYMFLOW_CPU_KERNELS_LINKED).
#include "symflow/backend/cpu/define_backend.hpp"
