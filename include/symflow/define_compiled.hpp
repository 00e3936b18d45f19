#pragma once
// The definitions that a program built with SYMFLOW_COMPILED takes from one source
// (detail/config.hpp): the library of the CMake target symflow::compiled includes this
// header, and so may one source of a program built without CMake.

#if !defined(SYMFLOW_COMPILED)
#error "symflow/define_compiled.hpp is for programs built with SYMFLOW_COMPILED (detail/config.hpp)"
#endif

// Its two parts may also be compiled apart, side by side (the CMake library does:
// cmake/symflow_compiled_part{1,2}.cpp), with SYMFLOW_COMPILED_PART set to
//   1: the OpDefs, the registry's checks of them, and the CPU kernels (about 60% of it);
//   2: everything else (the graph's core, the Session, files, gradients, training).
#if !defined(SYMFLOW_COMPILED_PART) || SYMFLOW_COMPILED_PART == 1
// Here, and only here, the OpDefs are defined too (ops/defs/op_def.hpp).
#define SYMFLOW_DEFINING_COMPILED
#include "symflow/backend/cpu/define_backend.hpp"
#include "symflow/ops/defs/array.hpp"
#include "symflow/ops/defs/const.hpp"
#include "symflow/ops/defs/control.hpp"
#include "symflow/ops/defs/conv.hpp"
#include "symflow/ops/defs/data_flow.hpp"
#include "symflow/ops/defs/io.hpp"
#include "symflow/ops/defs/logging.hpp"
#include "symflow/ops/defs/logic.hpp"
#include "symflow/ops/defs/math.hpp"
#include "symflow/ops/defs/nn.hpp"
#include "symflow/ops/defs/op_def.hpp"
#include "symflow/ops/defs/parsing.hpp"
#include "symflow/ops/defs/random.hpp"
#include "symflow/ops/defs/reduction.hpp"
#include "symflow/ops/defs/shape.hpp"
#include "symflow/ops/defs/shape_fn.hpp"
#include "symflow/ops/defs/sparse.hpp"
#include "symflow/ops/defs/stack.hpp"
#include "symflow/ops/defs/state.hpp"
#include "symflow/ops/defs/string.hpp"
#include "symflow/ops/defs/summary.hpp"
#include "symflow/ops/defs/tensor_array.hpp"
#include "symflow/ops/defs/training.hpp"
#include "symflow/ops/defs/transform.hpp"
#include "symflow/ops/defs/window.hpp"
#include "symflow/ops/registry.hpp"
#endif

#if !defined(SYMFLOW_COMPILED_PART) || SYMFLOW_COMPILED_PART == 2
#include "symflow/core/dtype_cast_inl.hpp"
#include "symflow/core/value_print_inl.hpp"
#include "symflow/graph/graph_inl.hpp"
#include "symflow/graph/scopes_inl.hpp"
#include "symflow/io/graph_io_inl.hpp"
#include "symflow/io/importer_inl.hpp"
#include "symflow/ops/array_ops_inl.hpp"
#include "symflow/ops/const_op_inl.hpp"
#include "symflow/ops/math_ops_inl.hpp"
#include "symflow/ops/operators_inl.hpp"
#include "symflow/ops/registry.hpp"
#include "symflow/runtime/session_inl.hpp"
#include "symflow/train/checkpoint_utils_inl.hpp"
#include "symflow/train/gradients_inl.hpp"
#include "symflow/train/meta_graph_inl.hpp"
#include "symflow/train/saver_inl.hpp"
#endif
