// expect-error: symflow::ct::matmul: inner dimensions do not match
// A [2, 3] matrix times a [4, 5] matrix must not compile: the static shapes disagree.
#include <symflow/expr/ct.hpp>

int main() {
  constexpr symflow::ct::Tensor<float, 2, 3> a{};
  constexpr symflow::ct::Tensor<float, 4, 5> b{};
  constexpr auto product = symflow::ct::matmul(a, b);
  static_cast<void>(product);
}
