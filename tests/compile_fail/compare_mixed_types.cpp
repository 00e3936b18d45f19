// expect-error: operands have different element types
// Comparing a float tensor with an int tensor must not compile, with a readable message.
#include <symflow/symflow.hpp>

int main() {
  auto a = symflow::constant({1.0f, 2.0f});
  auto b = symflow::constant({1, 2});
  auto c = a < b;
  (void)c;
}
