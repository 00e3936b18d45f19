// expect-error: invalid initialization of reference of type
// A typed tensor's handle cannot be given a handle of another element type.
#include <symflow/symflow.hpp>

void takes_float(const symflow::Tensor<float>&) {}

int main() {
  auto b = symflow::constant(1);
  takes_float(b);
}
