// Precompiled for the test executable: the library and doctest.
#include <doctest/doctest.h>

#include <symflow/symflow.hpp>
