// The doctest runner of symflow_tests; the test cases live in the other tests/**/*.cpp files.
// After the selected cases it runs the hooks of run_hooks.hpp (the gradient coverage check).
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include "run_hooks.hpp"

int main(int argc, char** argv) {
  doctest::Context context(argc, argv);
  int result = context.run();
  if (context.shouldExit()) return result;
  for (auto hook : symflow::test::after_run_hooks()) result |= hook();
  return result;
}
