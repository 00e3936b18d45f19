# symflow compiled once, for a program that would rather not compile its heavy parts (the
# Session and its executor, the graph's core, the CPU kernels) in each of its sources
# (docs/decisions.md, "Header-only or compiled"):
#
#   symflow::compiled         link it instead of (or beside) symflow::symflow: every source
#                             of the target gets SYMFLOW_COMPILED, so each sees declarations
#                             only, and one source defines them all
#                             (symflow/define_compiled.hpp).
#                             In this build tree (add_subdirectory, symflow's own tests) it
#                             is a static library, built once for all of its users; from an
#                             installed symflow (find_package) it adds that one source to
#                             each target that links it, so the package stays header-only.
#   symflow_use_compiled(tgt) the same, for symflow's own programs.
#
# Every source of one program must agree: SYMFLOW_COMPILED everywhere or nowhere.
include_guard(GLOBAL)

# The definitions in one source (for a build by hand), and as two sources that compile side by
# side (about 90 s and 60 s of one core at -O2, where the one source takes 150 s): the build
# tree's library and an installed package's consumers use the two.
set(SYMFLOW_COMPILED_SOURCE "${PROJECT_SOURCE_DIR}/cmake/symflow_compiled.cpp")
set(SYMFLOW_COMPILED_PART_SOURCES
  "${PROJECT_SOURCE_DIR}/cmake/symflow_compiled_part1.cpp"
  "${PROJECT_SOURCE_DIR}/cmake/symflow_compiled_part2.cpp")
add_library(symflow_compiled STATIC EXCLUDE_FROM_ALL ${SYMFLOW_COMPILED_PART_SOURCES})
add_library(symflow::compiled ALIAS symflow_compiled)
target_link_libraries(symflow_compiled PUBLIC symflow::symflow)
target_compile_definitions(symflow_compiled PUBLIC SYMFLOW_COMPILED)

function(symflow_use_compiled tgt)
  target_link_libraries(${tgt} PRIVATE symflow_compiled)
  # The library's objects go first on the link line. An inline function or template that
  # both the library and the program instantiate is kept once, from the first object that
  # has it; the tests and examples compile at -O0, and after them the library's -O2 copies
  # (JSON parsing, Value's accessors, ...) lost to theirs: one test ran 70 s instead of 6.
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang" AND CMAKE_SYSTEM_NAME STREQUAL "Linux")
    target_link_options(${tgt} PRIVATE
      "LINKER:--whole-archive" "$<TARGET_FILE:symflow_compiled>" "LINKER:--no-whole-archive")
  endif()
endfunction()
