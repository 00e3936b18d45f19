# cmake -P driver for the example.<name> tests: run a program, compare its stdout with a file.
#
#   -DEXECUTABLE=<program>  -DEXPECTED=<name.expected>
#   -DWORK_DIR=<directory the program runs in; wiped and recreated first>
#   -DACTUAL=<file that receives the program's stdout; kept for inspection>
#
# Fails when the program exits non-zero (or dies), or when its stdout differs from EXPECTED in
# any byte. To accept a new output after checking it by eye: cp <ACTUAL> <EXPECTED>.
cmake_minimum_required(VERSION 3.21)

foreach(_var EXECUTABLE EXPECTED WORK_DIR ACTUAL)
  if(NOT DEFINED ${_var} OR "${${_var}}" STREQUAL "")
    message(FATAL_ERROR "SymflowCompareOutput.cmake: -D${_var}=... is required")
  endif()
endforeach()
if(NOT EXISTS "${EXPECTED}")
  message(FATAL_ERROR "expected-output file ${EXPECTED} does not exist")
endif()

file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
get_filename_component(_actual_dir "${ACTUAL}" DIRECTORY)
file(MAKE_DIRECTORY "${_actual_dir}")
file(REMOVE "${ACTUAL}")

execute_process(
  COMMAND "${EXECUTABLE}"
  WORKING_DIRECTORY "${WORK_DIR}"
  OUTPUT_FILE "${ACTUAL}"
  ERROR_VARIABLE _stderr
  RESULT_VARIABLE _rc)

if(NOT _rc STREQUAL "0")
  file(READ "${ACTUAL}" _stdout)
  message("---------------- stdout ----------------\n${_stdout}")
  message("---------------- stderr ----------------\n${_stderr}")
  message(FATAL_ERROR "${EXECUTABLE} failed: ${_rc}")
endif()

execute_process(
  COMMAND "${CMAKE_COMMAND}" -E compare_files "${EXPECTED}" "${ACTUAL}"
  RESULT_VARIABLE _same)
if(_same EQUAL 0)
  message(STATUS "stdout of ${EXECUTABLE} matches ${EXPECTED}")
  return()
endif()

file(READ "${EXPECTED}" _expected_text)
file(READ "${ACTUAL}" _actual_text)
file(SIZE "${EXPECTED}" _expected_size)
file(SIZE "${ACTUAL}" _actual_size)
set(_diff "")
find_program(_diff_program diff)
if(_diff_program)
  execute_process(
    COMMAND "${_diff_program}" -u --label expected --label actual "${EXPECTED}" "${ACTUAL}"
    OUTPUT_VARIABLE _diff ERROR_VARIABLE _diff)
endif()
if(_diff STREQUAL "")
  set(_diff "(no diff program; the files differ, e.g. in line endings or a trailing newline)\n")
endif()
# Plain message() prints verbatim (FATAL_ERROR would re-wrap and double-space the text).
message("---------------- diff -u expected actual ----------------\n${_diff}")
message("---------------- expected (${_expected_size} bytes) ----------------\n${_expected_text}")
message("---------------- actual (${_actual_size} bytes) ----------------\n${_actual_text}")
if(NOT _stderr STREQUAL "")
  message("---------------- stderr ----------------\n${_stderr}")
endif()
message(FATAL_ERROR
  "stdout of ${EXECUTABLE} differs from ${EXPECTED}; the actual output is kept in ${ACTUAL}")
