# The CPU kernels compiled once, for a program that would rather not compile them in each
# of its sources (docs/decisions.md):
#
#   symflow::cpu_kernels         link it instead of (or beside) symflow::symflow: every source
#                                of the target gets SYMFLOW_CPU_KERNELS_LINKED, so none of them
#                                compiles a kernel, and one source defines them all
#                                (symflow/backend/cpu/define_backend.hpp).
#                                In this build tree (add_subdirectory, symflow's own tests) it
#                                is a static library, built once for all of its users; from an
#                                installed symflow (find_package) it adds that one source to
#                                each target that links it, so the package stays header-only.
#   symflow_use_cpu_kernels(tgt) the same, for symflow's own programs.
#
# Every source of one program must agree: SYMFLOW_CPU_KERNELS_LINKED everywhere or nowhere.
include_guard(GLOBAL)

set(SYMFLOW_CPU_KERNELS_SOURCE "${PROJECT_SOURCE_DIR}/cmake/cpu_kernels.cpp")
add_library(symflow_cpu_kernels STATIC EXCLUDE_FROM_ALL "${SYMFLOW_CPU_KERNELS_SOURCE}")
add_library(symflow::cpu_kernels ALIAS symflow_cpu_kernels)
target_link_libraries(symflow_cpu_kernels PUBLIC symflow::symflow)
target_compile_definitions(symflow_cpu_kernels PUBLIC SYMFLOW_CPU_KERNELS_LINKED)

function(symflow_use_cpu_kernels tgt)
  target_link_libraries(${tgt} PRIVATE symflow_cpu_kernels)
endfunction()
