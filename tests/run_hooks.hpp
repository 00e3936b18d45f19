#pragma once
// Checks that run once after all selected test cases, in the same process (the doctest
// runner in main.cpp calls them). A hook returns non-zero to fail the run.

#include <vector>

namespace symflow::test {

using AfterRunHook = int (*)();

inline std::vector<AfterRunHook>& after_run_hooks() {
  static std::vector<AfterRunHook> hooks;
  return hooks;
}

}  // namespace symflow::test
