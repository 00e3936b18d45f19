# cmake -P driver for the package.<mode>[.cxx20] tests: build the consumer project
# tests/package/consumer/ against symflow and check what its two programs print.
#
#   -DMODE=find_package|add_subdirectory  -DCXX20=ON|OFF (the consumer sets CMAKE_CXX_STANDARD
#                                         20, required, no extensions, before it pulls symflow in)
#   -DSYMFLOW_SOURCE_DIR=<symflow source>  -DSYMFLOW_BINARY_DIR=<symflow build tree>
#   -DCONSUMER_DIR=<tests/package/consumer>  -DWORK_DIR=<scratch dir, wiped first>
#   -DGENERATOR=<cmake generator>  -DCXX_COMPILER=<c++>  -DCONFIG=<symflow's build config>
#   -DVERSION=<symflow's version>
#   -DCONSUMER_BUILD_TYPE=<the consumer's CMAKE_BUILD_TYPE; default empty: no optimization>
#   -DBUILD=ON|OFF (default ON; OFF: configure the consumer and check what it found, no build)
#
# find_package:     cmake --install the symflow build tree into WORK_DIR/prefix, then configure
#                   the consumer with CMAKE_PREFIX_PATH=WORK_DIR/prefix (and check that it was
#                   that copy which was found, and that it holds symflow::compiled's source).
# add_subdirectory: configure the consumer with -DSYMFLOW_ROOT=<symflow source>; symflow must
#                   not build its tests or examples there, nor enable CUDA.
# Then build the consumer's two programs (with CXX20 the compiled one only) and run them:
#   consumer_header_only (symflow::symflow)  must print header_only.expected
#   consumer_compiled    (symflow::compiled) must print compiled.expected
# where @SYMFLOW_VERSION@ is VERSION and @DIALECT@ is c++20 with CXX20, gnu++20 without
# (GCC and Clang). The consumer is built without optimization by default: these tests check
# targets, definitions, sources and links, and -O0 about halves the compile of the two
# sources that compile symflow's heavy parts.
cmake_minimum_required(VERSION 3.21)

foreach(_var MODE SYMFLOW_SOURCE_DIR SYMFLOW_BINARY_DIR CONSUMER_DIR WORK_DIR GENERATOR
             CXX_COMPILER VERSION)
  if(NOT DEFINED ${_var} OR "${${_var}}" STREQUAL "")
    message(FATAL_ERROR "SymflowPackageTest.cmake: -D${_var}=... is required")
  endif()
endforeach()
if(NOT CONFIG)
  set(CONFIG Release)
endif()
if(CXX20)
  set(CXX20 ON)
  set(_name "package.${MODE}.cxx20")
  set(_dialect "c++20")
else()
  set(CXX20 OFF)
  set(_name "package.${MODE}")
  set(_dialect "gnu++20")
endif()

function(run_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " cmdline "${ARGN}")
    message(FATAL_ERROR "${_name}: ${what} failed (${rc})\ncommand: ${cmdline}\n${out}")
  endif()
  message(STATUS "${_name}: ${what}: ok")
endfunction()

file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
set(_prefix "${WORK_DIR}/prefix")
set(_build "${WORK_DIR}/build")

set(_configure_args
  -S "${CONSUMER_DIR}" -B "${_build}" -G "${GENERATOR}"
  "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
  "-DCMAKE_BUILD_TYPE=${CONSUMER_BUILD_TYPE}"
  "-DSYMFLOW_CONSUMER_MODE=${MODE}"
  "-DSYMFLOW_CONSUMER_CXX20=${CXX20}")

if(MODE STREQUAL "find_package")
  run_step("install symflow into ${_prefix}"
    "${CMAKE_COMMAND}" --install "${SYMFLOW_BINARY_DIR}" --prefix "${_prefix}" --config "${CONFIG}")
  if(NOT EXISTS "${_prefix}/include/symflow/symflow.hpp")
    message(FATAL_ERROR "${_name}: ${_prefix}/include/symflow/symflow.hpp was not installed")
  endif()
  foreach(_source IN ITEMS symflow_compiled.cpp symflow_compiled_part1.cpp
                           symflow_compiled_part2.cpp)
    file(GLOB_RECURSE _compiled_source "${_prefix}/*/${_source}")
    if(NOT _compiled_source)
      message(FATAL_ERROR "${_name}: symflow::compiled's source ${_source} was not "
                          "installed under ${_prefix}")
    endif()
  endforeach()
  list(APPEND _configure_args "-DCMAKE_PREFIX_PATH=${_prefix}")
elseif(MODE STREQUAL "add_subdirectory")
  list(APPEND _configure_args "-DSYMFLOW_ROOT=${SYMFLOW_SOURCE_DIR}")
else()
  message(FATAL_ERROR "SymflowPackageTest.cmake: unknown MODE '${MODE}'")
endif()

run_step("configure the consumer" "${CMAKE_COMMAND}" ${_configure_args})

# Make sure the consumer saw what we meant it to see.
file(STRINGS "${_build}/CMakeCache.txt" _cache)
if(MODE STREQUAL "find_package")
  set(_dir "${_cache}")
  list(FILTER _dir INCLUDE REGEX "^symflow_DIR:")
  string(FIND "${_dir}" "${_prefix}/" _pos)
  if(NOT _pos GREATER -1)
    message(FATAL_ERROR "${_name}: symflow was not found in ${_prefix}: ${_dir}")
  endif()
else()
  set(_builds "${_cache}")
  list(FILTER _builds INCLUDE REGEX "^SYMFLOW_BUILD_(TESTS|EXAMPLES):BOOL=")
  if(NOT _builds MATCHES "SYMFLOW_BUILD_TESTS:BOOL=OFF"
     OR NOT _builds MATCHES "SYMFLOW_BUILD_EXAMPLES:BOOL=OFF")
    message(FATAL_ERROR
      "${_name}: symflow as a subproject must not build its tests/examples: ${_builds}")
  endif()
  # CUDA is enabled only where asked for (cmake/SymflowThrust.cmake): a CPU-only consumer on a
  # machine with nvcc must not get CUDA, nor symflow_cuda_backend and its C++ level.
  set(_cuda "${_cache}")
  list(FILTER _cuda INCLUDE REGEX "^(CMAKE_CUDA_COMPILER|SYMFLOW_CUDA):")
  if(NOT _cuda MATCHES "SYMFLOW_CUDA:BOOL=OFF" OR _cuda MATCHES "CMAKE_CUDA_COMPILER:")
    message(FATAL_ERROR "${_name}: symflow as a subproject must not enable CUDA: ${_cuda}")
  endif()
endif()

if(DEFINED BUILD AND NOT BUILD)
  message(STATUS "${_name}: configure only")
  return()
endif()

# Two jobs: the test reserves two processors (tests/CMakeLists.txt), and a Makefile
# generator would otherwise build one source at a time.
set(_build_args --build "${_build}" --parallel 2)
if(CONSUMER_BUILD_TYPE)
  list(APPEND _build_args --config "${CONSUMER_BUILD_TYPE}")
endif()
# With the consumer's CMAKE_CXX_STANDARD only the compiled program: it compiles every heavy
# part in the library and the headers in two sources, and the header-only program would
# compile the same code again (CI time; the plain runs build both).
set(_programs header_only compiled)
if(CXX20)
  set(_programs compiled)
  list(APPEND _build_args --target consumer_compiled)
endif()
run_step("build the consumer" "${CMAKE_COMMAND}" ${_build_args})

foreach(_program IN LISTS _programs)
  set(_exe "${_build}/consumer_${_program}")
  if(NOT EXISTS "${_exe}")
    file(GLOB _exe "${_build}/*/consumer_${_program}" "${_build}/*/consumer_${_program}.exe"
                   "${_build}/consumer_${_program}.exe")
  endif()
  if(NOT _exe)
    message(FATAL_ERROR "${_name}: consumer_${_program} was not built in ${_build}")
  endif()
  list(GET _exe 0 _exe)
  execute_process(COMMAND "${_exe}" RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "${_name}: consumer_${_program} exited with ${_rc}\n${_out}\n${_err}")
  endif()
  file(READ "${CONSUMER_DIR}/${_program}.expected" _expected)
  string(REPLACE "@SYMFLOW_VERSION@" "${VERSION}" _expected "${_expected}")
  string(REPLACE "@DIALECT@" "${_dialect}" _expected "${_expected}")
  string(REPLACE "\r\n" "\n" _out "${_out}")
  if(NOT _out STREQUAL _expected)
    message("---------------- expected (${_program}.expected) ----------------\n${_expected}")
    message("---------------- consumer_${_program} printed ----------------\n${_out}")
    message(FATAL_ERROR "${_name}: consumer_${_program} printed something else than "
                        "${CONSUMER_DIR}/${_program}.expected")
  endif()
  message(STATUS "${_name}: consumer_${_program} printed ${_program}.expected")
endforeach()
