// A consumer of symflow (tests/package, driven by cmake/SymflowPackageTest.cmake), built as
// two programs: consumer_header_only (symflow::symflow; with graph_only.cpp) and
// consumer_compiled (symflow::compiled; with session_other.cpp). In the compiled program
// both sources make a Session, so a definition that symflow::compiled's one source lacks,
// or that a consumer's source defines as well, fails the link.
#include <iostream>
#include <string>

#include <symflow/symflow.hpp>

#include "mode.hpp"

std::string other_source_result();  // graph_only.cpp or session_other.cpp

int main() {
  namespace tf = symflow;
  auto x = tf::placeholder<float>({3}, "x");
  auto y = tf::square(x) + 1;
  tf::Session sess;
  std::cout << "symflow " << tf::version() << ", " SYMFLOW_CONSUMER_DIALECT "\n";
  std::cout << "session_main.cpp, " SYMFLOW_CONSUMER_MODE ": " << sess.run(y, {{x, {1, 2, 3}}})
            << '\n';
  std::cout << other_source_result() << '\n';
  return 0;
}
