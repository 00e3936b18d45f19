# Test discovery for doctest_discover_tests(), used instead of doctest's doctestAddTests.cmake
# (tests/CMakeLists.txt points _DOCTEST_DISCOVER_TESTS_SCRIPT here). It runs POST_BUILD with the
# same -D inputs as doctest's script (TEST_TARGET TEST_EXECUTABLE TEST_EXECUTOR TEST_WORKING_DIR
# TEST_SPEC TEST_EXTRA_ARGS TEST_PROPERTIES TEST_PREFIX TEST_SUFFIX TEST_LIST CTEST_FILE) and
# writes CTEST_FILE: one add_test() per TEST_CASE. Differences from doctest 2.4.9's script:
#   - a TEST_CASE name may contain ';', '[' or ']' (doctest's script splits "a; b" into two
#     ctest tests "a" and " b" whose filters match nothing, so they pass without running);
#   - two TEST_CASEs with the same name fail the build (one ctest test would run both);
#   - ADD_LABELS and JUNIT_OUTPUT_DIR are not supported (symflow uses neither);
#   - TEST_EXTRA_ARGS (doctest filters such as --source-file) apply to the listing too, so a
#     second discovery on the same executable can register a subset under another prefix.
cmake_minimum_required(VERSION 3.21)

if(NOT EXISTS "${TEST_EXECUTABLE}")
  message(FATAL_ERROR "Specified test executable '${TEST_EXECUTABLE}' does not exist")
endif()

set(_spec "")
if(NOT "${TEST_SPEC}" STREQUAL "")
  set(_spec "--test-case=${TEST_SPEC}")
endif()

execute_process(
  COMMAND ${TEST_EXECUTOR} "${TEST_EXECUTABLE}" ${_spec} ${TEST_EXTRA_ARGS} --list-test-cases
  OUTPUT_VARIABLE _output
  ERROR_VARIABLE _errors
  RESULT_VARIABLE _result
  WORKING_DIRECTORY "${TEST_WORKING_DIR}")
if(NOT _result EQUAL 0)
  message(FATAL_ERROR
    "Error running test executable '${TEST_EXECUTABLE}':\n"
    "  Result: ${_result}\n  Output: ${_output}\n  Errors: ${_errors}\n")
endif()

# Characters with a meaning in CMake lists are replaced before splitting into lines and put
# back in each name.
string(REPLACE ";" "@SYMFLOW_SEMI@" _output "${_output}")
string(REPLACE "[" "@SYMFLOW_LBR@" _output "${_output}")
string(REPLACE "]" "@SYMFLOW_RBR@" _output "${_output}")
string(REPLACE "\n" ";" _lines "${_output}")

# A CMake bracket argument holding `value` verbatim.
function(_symflow_bracket out value)
  set(_eq "=")
  while(value MATCHES "\\]${_eq}\\]")
    string(APPEND _eq "=")
  endwhile()
  set(${out} "[${_eq}[${value}]${_eq}]" PARENT_SCOPE)
endfunction()

set(_script "")
set(_names "")
set(_all "")
set(_duplicates "")
set(_extra "")
foreach(_arg IN LISTS TEST_EXTRA_ARGS)
  _symflow_bracket(_q "${_arg}")
  string(APPEND _extra " ${_q}")
endforeach()
set(_props "")
foreach(_arg IN LISTS TEST_PROPERTIES)
  _symflow_bracket(_q "${_arg}")
  string(APPEND _props " ${_q}")
endforeach()
_symflow_bracket(_exe "${TEST_EXECUTABLE}")
_symflow_bracket(_wd "${TEST_WORKING_DIR}")
set(_executor "")
foreach(_arg IN LISTS TEST_EXECUTOR)
  _symflow_bracket(_q "${_arg}")
  string(APPEND _executor "${_q} ")
endforeach()

foreach(_line IN LISTS _lines)
  if(_line STREQUAL "" OR _line MATCHES "^@SYMFLOW_LBR@doctest@SYMFLOW_RBR@ " OR _line MATCHES "^=+$")
    continue()
  endif()
  string(REPLACE "@SYMFLOW_SEMI@" ";" _name "${_line}")
  string(REPLACE "@SYMFLOW_LBR@" "[" _name "${_name}")
  string(REPLACE "@SYMFLOW_RBR@" "]" _name "${_name}")
  if(_line IN_LIST _names)
    string(APPEND _duplicates "  \"${_name}\"\n")
    continue()
  endif()
  list(APPEND _names "${_line}")

  # doctest's --test-case takes a comma-separated list of patterns: escape the commas.
  string(REPLACE "," "\\," _filter "${_name}")
  _symflow_bracket(_test "${TEST_PREFIX}${_name}${TEST_SUFFIX}")
  _symflow_bracket(_arg "--test-case=${_filter}")
  string(APPEND _script
    "add_test(${_test} ${_executor}${_exe} ${_arg}${_extra})\n"
    "set_tests_properties(${_test} PROPERTIES WORKING_DIRECTORY ${_wd}${_props})\n")
  string(APPEND _all " ${_test}")
endforeach()

if(NOT _duplicates STREQUAL "")
  message(FATAL_ERROR
    "${TEST_TARGET}: each doctest TEST_CASE becomes one ctest test, so its name must be "
    "unique; these names are used more than once:\n${_duplicates}")
endif()

if(NOT TEST_LIST)
  set(TEST_LIST "${TEST_TARGET}_TESTS")
endif()
string(APPEND _script "set(${TEST_LIST}${_all})\n")

file(WRITE "${CTEST_FILE}" "${_script}")
