# The CPU kernels compiled once per build, for symflow's own programs.
#
#   symflow_cpu_kernels            static library: symflow/backend/cpu/define_kernels.hpp,
#                                  i.e. every CPU kernel of the op registry, compiled once.
#   symflow_use_cpu_kernels(tgt)   tgt's sources only declare the kernels
#                                  (SYMFLOW_SEPARATE_CPU_KERNELS) and it links the library.
#
# Why: each source that includes the ops otherwise instantiates all kernels, about 15 s of
# g++ per translation unit (docs/decisions.md). Every source of one program must agree, so
# the option is per target. The installed symflow::symflow stays header-only.
include_guard(GLOBAL)

set(_source "${PROJECT_BINARY_DIR}/symflow_cpu_kernels/cpu_kernels.cpp")
file(CONFIGURE OUTPUT "${_source}"
  CONTENT "#include \"symflow/backend/cpu/define_kernels.hpp\"\n")
add_library(symflow_cpu_kernels STATIC EXCLUDE_FROM_ALL "${_source}")
target_link_libraries(symflow_cpu_kernels
  PUBLIC symflow::symflow
  PRIVATE symflow_project_options)
target_compile_definitions(symflow_cpu_kernels PUBLIC SYMFLOW_SEPARATE_CPU_KERNELS)

function(symflow_use_cpu_kernels tgt)
  target_link_libraries(${tgt} PRIVATE symflow_cpu_kernels)
endfunction()
