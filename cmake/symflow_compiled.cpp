// The one source that defines what a program built with SYMFLOW_COMPILED only declares
// (the library of the target symflow::compiled).
#include "symflow/define_compiled.hpp"
