#pragma once
// How symflow's non-template code is compiled (docs/decisions.md, "Header-only or
// compiled"):
// - header-only, the default: each header carries its definitions, inline, and a
//   program compiles what its sources include;
// - compiled: a program whose sources all define SYMFLOW_COMPILED (the CMake target
//   symflow::compiled does) sees only declarations of the heavy parts (the Session and
//   its executor, the graph's core, the CPU kernels); one source of the program, the
//   library of symflow::compiled, defines them all once by including
//   symflow/define_compiled.hpp.
// Every source of one program must agree: SYMFLOW_COMPILED everywhere or nowhere.

#if defined(SYMFLOW_COMPILED)
// One definition, in the library: the functions are ordinary, not inline.
#define SYMFLOW_INLINE
#else
#define SYMFLOW_INLINE inline
#endif
