// expect-error: symflow::ct: elementwise operands have incompatible shapes
// [2, 3] + [2] must not compile: aligned from the last axis, 3 and 2 do not broadcast.
#include <symflow/expr/ct.hpp>

int main() {
  constexpr symflow::ct::Matrix<float, 2, 3> a{{1, 2, 3}, {4, 5, 6}};
  constexpr symflow::ct::Vector<float, 2> b{1, 2};
  constexpr auto sum = a + b;
  static_cast<void>(sum);
}
