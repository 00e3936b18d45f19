# cmake -P driver for one compile_fail.<stem> test.
#
#   -DCOMPILER=<c++>  -DSOURCE=<file.cpp>  -DSTD_FLAG=-std=c++20
#   -DINCLUDES=<dir|dir|...>  -DDEFINES=<NAME[=VALUE]|...>
#   -DPROJECT_INCLUDE=<symflow's include dir>  -DIMPLICIT=<compiler's implicit include dirs>
#
# The first line of SOURCE must be "// expect-error: <text>". The test passes only when the
# compiler rejects SOURCE and its output (under LC_ALL=C) contains <text> (plain substring,
# case-sensitive).
cmake_minimum_required(VERSION 3.21)

foreach(_var COMPILER SOURCE STD_FLAG)
  if(NOT DEFINED ${_var} OR "${${_var}}" STREQUAL "")
    message(FATAL_ERROR "SymflowCompileFail.cmake: -D${_var}=... is required")
  endif()
endforeach()

file(STRINGS "${SOURCE}" _first LIMIT_COUNT 1)
if(NOT _first MATCHES "^[ \t]*//[ \t]*expect-error:[ \t]*(.*[^ \t\r])[ \t\r]*$")
  message(FATAL_ERROR
    "${SOURCE}: the first line must be '// expect-error: <text the compiler must print>', "
    "got: '${_first}'")
endif()
set(_expected "${CMAKE_MATCH_1}")

set(_args "${STD_FLAG}" -fsyntax-only -fdiagnostics-color=never)
# symflow's own headers with -I (their warnings are ours); dependencies with -isystem; the
# compiler's implicit directories (e.g. /usr/include) not at all, as in a normal CMake build.
string(REPLACE "|" ";" _includes "${INCLUDES}")
list(REMOVE_DUPLICATES _includes)
foreach(_dir IN LISTS _includes)
  if(_dir STREQUAL "" OR _dir IN_LIST IMPLICIT)
    continue()
  elseif(_dir STREQUAL "${PROJECT_INCLUDE}")
    list(APPEND _args "-I${_dir}")
  else()
    list(APPEND _args -isystem "${_dir}")
  endif()
endforeach()
string(REPLACE "|" ";" _defines "${DEFINES}")
foreach(_def IN LISTS _defines)
  if(NOT _def STREQUAL "")
    list(APPEND _args "-D${_def}")
  endif()
endforeach()
list(APPEND _args "${SOURCE}")

# LC_ALL=C: GCC quotes with ASCII '...' instead of the locale's typographic quotes, so the
# expected text does not depend on the environment ctest runs in.
execute_process(
  COMMAND "${CMAKE_COMMAND}" -E env LC_ALL=C LANG=C "${COMPILER}" ${_args}
  RESULT_VARIABLE _rc
  OUTPUT_VARIABLE _out
  ERROR_VARIABLE _out)

string(REPLACE ";" " " _cmdline "${COMPILER};${_args}")
if(_rc EQUAL 0)
  message("command: ${_cmdline}\n${_out}")
  message(FATAL_ERROR "${SOURCE} COMPILED, but it must not (expected an error containing "
    "'${_expected}')")
endif()

string(FIND "${_out}" "${_expected}" _pos)
if(_pos EQUAL -1)
  message("command: ${_cmdline}\n---------------- compiler output ----------------\n${_out}")
  message(FATAL_ERROR "${SOURCE} failed to compile, but its errors do not contain "
    "'${_expected}'")
endif()

message(STATUS "compile_fail: ${SOURCE} is rejected with '${_expected}' as expected")
