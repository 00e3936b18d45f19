// expect-error: an index must be an integer
// x[0.5] must not compile (TensorFlow: TypeError "Only integers, slices (`:`), ellipsis
// (`...`), tf.newaxis (`None`) and scalar tf.int32/tf.int64 tensors are valid indices").
#include <symflow/symflow.hpp>

int main() {
  auto x = symflow::placeholder<float>({3});
  auto y = x[0.5];
  (void)y;
}
