# cmake -P driver for example.fashion_mnist.distributed (label "mpi"): fashion_mnist
# --distributed under mpirun -np 2, a short run that saves, checked for what data-parallel
# training promises:
#   - one process prints (one header, one final accuracy line, one "saved" line);
#   - each process takes half of the TRAIN_LIMIT examples and a step covers both processes'
#     batches: TRAIN_LIMIT / 2 / 64 steps, where one process would take twice as many;
#   - process 0 alone writes the checkpoint, which latest_checkpoint's state file names;
#   - the model learned (test accuracy 0.4 or more, where chance is 0.1; this run reaches about
#     0.63).
#
#   -DMPIEXEC=<mpirun> -DNP_FLAG=<-n> -DEXECUTABLE=<fashion_mnist> -DWORK_DIR=<wiped first>
#   [-DPREFLAGS=<mpirun flags, a ;-list>] [-DTRAIN_LIMIT=1024]
cmake_minimum_required(VERSION 3.21)

foreach(_var MPIEXEC NP_FLAG EXECUTABLE WORK_DIR)
  if(NOT DEFINED ${_var} OR "${${_var}}" STREQUAL "")
    message(FATAL_ERROR "fashion_mnist_distributed.cmake: -D${_var}=... is required")
  endif()
endforeach()
if(NOT DEFINED TRAIN_LIMIT)
  set(TRAIN_LIMIT 1024)
endif()
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

execute_process(
  COMMAND "${MPIEXEC}" ${NP_FLAG} 2 ${PREFLAGS} "${EXECUTABLE}" --distributed --model mlp
          --epochs 1 --train-limit ${TRAIN_LIMIT} --save "${WORK_DIR}/ckpt"
  WORKING_DIRECTORY "${WORK_DIR}"
  OUTPUT_VARIABLE _out ERROR_VARIABLE _err RESULT_VARIABLE _rc)
message(STATUS "fashion_mnist --distributed, 2 processes:\n${_out}")
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "mpirun failed (${_rc}):\n${_err}")
endif()

# `pattern` must match exactly `expected` lines of the output.
function(_expect_lines pattern expected)
  string(REGEX MATCHALL "(^|\n)${pattern}" _found "${_out}")
  list(LENGTH _found _n)
  if(NOT _n EQUAL expected)
    message(FATAL_ERROR "expected ${expected} line(s) matching '${pattern}', found ${_n}")
  endif()
endfunction()

math(EXPR _per_process "${TRAIN_LIMIT} / 2")
math(EXPR _steps "(${_per_process} + 63) / 64")
_expect_lines("fashion_mnist: model mlp, ${TRAIN_LIMIT} training and 10000 test images" 1)
_expect_lines(
  "distributed: 2 processes of ${_per_process} training images, batch 64 per process \\(128 per step\\)\n"
  1)
_expect_lines("epoch 1: loss [0-9.]+, test accuracy" 1)
_expect_lines("saved [^\n]*/model\\.ckpt-${_steps}\n" 1)
_expect_lines("global step: ${_steps}\n" 1)
_expect_lines("test accuracy: " 1)
if(NOT _out MATCHES "\ntest accuracy: 0\\.[4-9][0-9][0-9][0-9]\n$")
  message(FATAL_ERROR "the last line is not a test accuracy of 0.4 or more")
endif()

# One checkpoint, process 0's, named by the state file latest_checkpoint reads.
file(GLOB _index_files "${WORK_DIR}/ckpt/*.index")
list(LENGTH _index_files _n)
if(NOT _n EQUAL 1 OR NOT EXISTS "${WORK_DIR}/ckpt/model.ckpt-${_steps}.index")
  message(FATAL_ERROR "expected the one checkpoint model.ckpt-${_steps}, found: ${_index_files}")
endif()
file(READ "${WORK_DIR}/ckpt/checkpoint" _state)
if(NOT _state MATCHES "model_checkpoint_path: \"[^\"]*model\\.ckpt-${_steps}\"")
  message(FATAL_ERROR "the checkpoint state file does not name model.ckpt-${_steps}:\n${_state}")
endif()
message(STATUS "fashion_mnist --distributed: one process printed and saved, ${_steps} steps")
