# cmake -P driver for example.fashion_mnist.save_restore: the save-and-restore story across
# three processes (docs/saving.md).
#
#   -DTRAIN=<fashion_mnist>  -DRESTORE=<fashion_mnist_restore>  -DWORK_DIR=<wiped first>
#
# 1. TRAIN trains briefly and saves a checkpoint per epoch into WORK_DIR/ckpt;
# 2. RESTORE, which has no model code, restores the newest one from its MetaGraph and
#    writes the frozen GraphDef;
# 3. RESTORE evaluates the frozen GraphDef.
# All three must exit 0 and print the same "test predictions crc32c" and "test accuracy".
cmake_minimum_required(VERSION 3.21)

foreach(_var TRAIN RESTORE WORK_DIR)
  if(NOT DEFINED ${_var} OR "${${_var}}" STREQUAL "")
    message(FATAL_ERROR "SymflowSaveRestore.cmake: -D${_var}=... is required")
  endif()
endforeach()
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

function(_run name)
  execute_process(COMMAND ${ARGN} WORKING_DIRECTORY "${WORK_DIR}"
    OUTPUT_VARIABLE _out ERROR_VARIABLE _err RESULT_VARIABLE _rc)
  message(STATUS "${name}:\n${_out}")
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "${name} failed (${_rc}):\n${_err}")
  endif()
  # The last of each line the programs must agree on.
  foreach(_key "test predictions crc32c" "test accuracy")
    string(REGEX MATCHALL "${_key}: [^\n]*" _lines "${_out}")
    list(LENGTH _lines _n)
    if(_n EQUAL 0)
      message(FATAL_ERROR "${name} printed no '${_key}' line")
    endif()
    list(GET _lines -1 _line)
    string(REPLACE " " "_" _var "${_key}")
    set(${name}_${_var} "${_line}" PARENT_SCOPE)
  endforeach()
  set(${name}_output "${_out}" PARENT_SCOPE)
endfunction()

_run(train "${TRAIN}" --model mlp --epochs 2 --train-limit 1024 --save ckpt)
_run(restore "${RESTORE}" --checkpoint-dir ckpt --freeze frozen.json)
_run(frozen "${RESTORE}" --frozen frozen.json)

foreach(_file ckpt/checkpoint ckpt/model.ckpt-16.index ckpt/model.ckpt-32.index
              ckpt/model.ckpt-32.data-00000-of-00001 ckpt/model.ckpt-32.meta frozen.json)
  if(NOT EXISTS "${WORK_DIR}/${_file}")
    message(FATAL_ERROR "expected ${_file} in ${WORK_DIR}")
  endif()
endforeach()
if(NOT restore_output MATCHES "restored model\\.ckpt-32 \\(global step 32\\)")
  message(FATAL_ERROR "the restore program did not restore the newest checkpoint, model.ckpt-32")
endif()
if(NOT frozen_output MATCHES ", 0 variables\n")
  message(FATAL_ERROR "the frozen graph still has variables")
endif()
foreach(_key test_predictions_crc32c test_accuracy)
  foreach(_other restore frozen)
    if(NOT "${train_${_key}}" STREQUAL "${${_other}_${_key}}")
      message(FATAL_ERROR "${_other} differs from the training program: "
                          "'${${_other}_${_key}}' vs '${train_${_key}}'")
    endif()
  endforeach()
endforeach()
message(STATUS "all three programs agree: ${train_test_predictions_crc32c}, ${train_test_accuracy}")
