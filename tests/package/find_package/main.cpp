#include <iostream>

#include <symflow/symflow.hpp>

int main() {
  std::cout << symflow::version() << '\n';
  return 0;
}
