// expect-error: operands have different element types
// Adding a float tensor to an int tensor must not compile, with a readable message.
#include <symflow/symflow.hpp>

int main() {
  auto a = symflow::constant(1.0f);
  auto b = symflow::constant(1);
  auto c = a + b;
  (void)c;
}
