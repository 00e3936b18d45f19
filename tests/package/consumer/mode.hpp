#pragma once
// What the consumer's sources were compiled as; the package tests check each line they print.

// symflow::compiled defines SYMFLOW_COMPILED for every source of the target that links it.
#if defined(SYMFLOW_COMPILED)
#define SYMFLOW_CONSUMER_MODE "compiled"
#else
#define SYMFLOW_CONSUMER_MODE "header-only"
#endif

// The C++ dialect (GCC and Clang): -std=c++20 when the consumer sets CMAKE_CXX_STANDARD 20
// without extensions, -std=gnu++20 from symflow's cxx_std_20 alone.
#if __cplusplus < 202002L
#define SYMFLOW_CONSUMER_DIALECT "before C++20"
#elif defined(__STRICT_ANSI__)
#define SYMFLOW_CONSUMER_DIALECT "c++20"
#else
#define SYMFLOW_CONSUMER_DIALECT "gnu++20"
#endif
