// Part 2 of the library of symflow::compiled in symflow's build tree: its two parts
// compile side by side (symflow/define_compiled.hpp says what each holds).
#define SYMFLOW_COMPILED_PART 2
#include "symflow/define_compiled.hpp"
