// The doctest runner of symflow_tests; the test cases live in the other tests/**/*.cpp files.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
