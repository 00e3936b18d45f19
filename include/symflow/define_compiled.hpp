#pragma once
// The definitions that a program built with SYMFLOW_COMPILED takes from one source
// (detail/config.hpp): the library of the CMake target symflow::compiled includes this
// header, and so may one source of a program built without CMake.

#if !defined(SYMFLOW_COMPILED)
#error "symflow/define_compiled.hpp is for programs built with SYMFLOW_COMPILED (detail/config.hpp)"
#endif

#include "symflow/backend/cpu/define_backend.hpp"
