// expect-error: matmul(x, {{...}}) needs x's element type
// A nested list next to an untyped handle has no element type to take: the message says
// what to write instead.
#include <symflow/symflow.hpp>

int main() {
  symflow::Output x = symflow::placeholder<float>({2, 2});
  auto y = symflow::matmul(x, {{1.0f, 2.0f}, {3.0f, 4.0f}});
  (void)y;
}
