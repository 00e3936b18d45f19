// expect-error: Tensor<int>
// A typed tensor's handle cannot be given a handle of another element type. The expected text
// is the culprit's type, which both g++ ("invalid initialization of reference of type ... from
// expression of type 'symflow::Tensor<int>'") and clang ("no known conversion from
// 'Tensor<int>' to 'const Tensor<float>'") name.
#include <symflow/symflow.hpp>

void takes_float(const symflow::Tensor<float>&) {}

int main() {
  auto b = symflow::constant(1);
  takes_float(b);
}
