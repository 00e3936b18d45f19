# cmake -P driver for the package.<variant> tests: build a consumer of symflow and run it.
#
#   -DMODE=find_package|add_subdirectory
#   -DSYMFLOW_SOURCE_DIR=<symflow source>  -DSYMFLOW_BINARY_DIR=<symflow build tree>
#   -DCONSUMER_DIR=<tests/package/<variant>>  -DWORK_DIR=<scratch dir, wiped first>
#   -DGENERATOR=<cmake generator>  -DCXX_COMPILER=<c++>  -DCONFIG=<build config>
#   -DEXPECTED=<version the consumer must print>
#
# find_package:     cmake --install the symflow build tree into WORK_DIR/prefix, then configure
#                   the consumer with CMAKE_PREFIX_PATH=WORK_DIR/prefix (and check that it was
#                   that copy which was found).
# add_subdirectory: configure the consumer with -DSYMFLOW_ROOT=<symflow source>.
# Then build the consumer and run it: its stdout must be EXPECTED (plus a newline).
cmake_minimum_required(VERSION 3.21)

foreach(_var MODE SYMFLOW_SOURCE_DIR SYMFLOW_BINARY_DIR CONSUMER_DIR WORK_DIR GENERATOR
             CXX_COMPILER EXPECTED)
  if(NOT DEFINED ${_var} OR "${${_var}}" STREQUAL "")
    message(FATAL_ERROR "SymflowPackageTest.cmake: -D${_var}=... is required")
  endif()
endforeach()
if(NOT CONFIG)
  set(CONFIG Release)
endif()

function(run_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " cmdline "${ARGN}")
    message(FATAL_ERROR "package.${MODE}: ${what} failed (${rc})\ncommand: ${cmdline}\n${out}")
  endif()
  message(STATUS "package.${MODE}: ${what}: ok")
endfunction()

file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
set(_prefix "${WORK_DIR}/prefix")
set(_build "${WORK_DIR}/build")

set(_configure_args
  -S "${CONSUMER_DIR}" -B "${_build}" -G "${GENERATOR}"
  "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
  "-DCMAKE_BUILD_TYPE=${CONFIG}")

if(MODE STREQUAL "find_package")
  run_step("install symflow into ${_prefix}"
    "${CMAKE_COMMAND}" --install "${SYMFLOW_BINARY_DIR}" --prefix "${_prefix}" --config "${CONFIG}")
  if(NOT EXISTS "${_prefix}/include/symflow/symflow.hpp")
    message(FATAL_ERROR "package.${MODE}: ${_prefix}/include/symflow/symflow.hpp was not installed")
  endif()
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
  list(FILTER _cache INCLUDE REGEX "^symflow_DIR:")
  string(FIND "${_cache}" "${_prefix}/" _pos)
  if(NOT _pos GREATER -1)
    message(FATAL_ERROR "package.${MODE}: symflow was not found in ${_prefix}: ${_cache}")
  endif()
else()
  list(FILTER _cache INCLUDE REGEX "^SYMFLOW_BUILD_(TESTS|EXAMPLES):BOOL=")
  if(NOT _cache MATCHES "SYMFLOW_BUILD_TESTS:BOOL=OFF"
     OR NOT _cache MATCHES "SYMFLOW_BUILD_EXAMPLES:BOOL=OFF")
    message(FATAL_ERROR
      "package.${MODE}: symflow as a subproject must not build its tests/examples: ${_cache}")
  endif()
endif()

run_step("build the consumer" "${CMAKE_COMMAND}" --build "${_build}" --config "${CONFIG}")

set(_exe "${_build}/symflow_consumer")
if(NOT EXISTS "${_exe}" AND EXISTS "${_build}/${CONFIG}/symflow_consumer")
  set(_exe "${_build}/${CONFIG}/symflow_consumer")
endif()
execute_process(COMMAND "${_exe}" RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "package.${MODE}: the consumer exited with ${_rc}\n${_out}\n${_err}")
endif()
if(NOT _out STREQUAL "${EXPECTED}\n")
  message(FATAL_ERROR
    "package.${MODE}: the consumer printed '${_out}', expected '${EXPECTED}' and a newline")
endif()
message(STATUS "package.${MODE}: the consumer printed ${EXPECTED}")
