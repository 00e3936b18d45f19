# Build settings for symflow's own executables (tests, examples, benchmarks).
#
#   symflow_project_options   INTERFACE target (not installed, not exported) carrying warnings,
#                             -Werror, -O2 for Release and the sanitizer flags.
#   symflow_setup_target(tgt) links tgt to symflow::symflow + symflow_project_options and defines
#                             SYMFLOW_SOURCE_DIR / SYMFLOW_SHARED_DIR (string literals).
include_guard(GLOBAL)

# Where the shared seeds / fixtures live: ../shared next to the checkout; a copy that carries
# shared/ inside the repository root is accepted too.
if(EXISTS "${PROJECT_SOURCE_DIR}/../shared")
  cmake_path(SET _symflow_shared_default NORMALIZE "${PROJECT_SOURCE_DIR}/../shared")
elseif(EXISTS "${PROJECT_SOURCE_DIR}/shared")
  set(_symflow_shared_default "${PROJECT_SOURCE_DIR}/shared")
else()
  cmake_path(SET _symflow_shared_default NORMALIZE "${PROJECT_SOURCE_DIR}/../shared")
endif()
set(SYMFLOW_SHARED_DIR "${_symflow_shared_default}" CACHE PATH
  "Directory with the shared seeds and fixtures (SYMFLOW_SHARED_DIR in tests and examples)")

add_library(symflow_project_options INTERFACE)

# CMake writes "#pragma GCC system_header" at the top of the generated cmake_pch.hxx, which makes
# every header in a precompiled header (our own included) a system header: no warnings from
# symflow's headers in PCH builds, not even for templates instantiated by the tests. Our PCHs
# must not hide our warnings, so drop that prologue (third-party headers stay quiet through
# -isystem). CMake reads this variable per directory, here and in tests/ and examples/.
set(CMAKE_PCH_PROLOGUE "")

if(MSVC)
  target_compile_options(symflow_project_options INTERFACE
    /W4 /permissive- $<$<BOOL:${SYMFLOW_WERROR}>:/WX>)
else()
  target_compile_options(symflow_project_options INTERFACE
    -Wall -Wextra -Wpedantic
    $<$<BOOL:${SYMFLOW_WERROR}>:-Werror>
    # CMake's default Release flags say -O3; -O2 compiles the template-heavy tests faster.
    # Target options come after CMAKE_CXX_FLAGS_RELEASE on the command line, so this wins.
    # A target whose own code need not be fast (the unit tests: the kernels they run are in
    # symflow::compiled's library) may ask for less with its SYMFLOW_RELEASE_OPTIMIZATION.
    $<$<CONFIG:Release>:$<IF:$<BOOL:$<TARGET_PROPERTY:SYMFLOW_RELEASE_OPTIMIZATION>>,$<TARGET_PROPERTY:SYMFLOW_RELEASE_OPTIMIZATION>,-O2>>)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_GREATER_EQUAL 12)
    # GCC 12's middle-end warnings fire on libstdc++ code inlined into ours (e.g. -Warray-bounds
    # on `std::string(s) + "literal"` at -O2, GCC PR 105329 / 105651): false positives that
    # depend on inlining decisions, so they cannot be -Werror. -Wmaybe-uninitialized stays on
    # as a warning (it has true positives too) but does not fail the build.
    target_compile_options(symflow_project_options INTERFACE
      -Wno-array-bounds -Wno-stringop-overflow -Wno-stringop-overread -Wno-restrict
      -Wno-error=maybe-uninitialized)
  endif()
endif()

if(SYMFLOW_SANITIZE)
  string(REPLACE ";" "," _symflow_san "${SYMFLOW_SANITIZE}")
  string(REPLACE " " "" _symflow_san "${_symflow_san}")
  set(_symflow_san_flags -fsanitize=${_symflow_san} -fno-omit-frame-pointer)
  if(_symflow_san MATCHES "undefined")
    # Make UBSan findings fail the test instead of only printing a message.
    list(APPEND _symflow_san_flags -fno-sanitize-recover=all)
  endif()
  target_compile_options(symflow_project_options INTERFACE ${_symflow_san_flags})
  target_link_options(symflow_project_options INTERFACE ${_symflow_san_flags})
  message(STATUS "symflow: sanitizers for tests/examples: ${_symflow_san}")
endif()

function(symflow_setup_target tgt)
  target_link_libraries(${tgt} PRIVATE symflow::symflow symflow_project_options)
  target_compile_definitions(${tgt} PRIVATE
    SYMFLOW_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    SYMFLOW_SHARED_DIR="${SYMFLOW_SHARED_DIR}")
endfunction()
