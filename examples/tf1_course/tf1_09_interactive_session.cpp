// TF1 course, lesson 9: tf.InteractiveSession, for trying things out step by step.
//
// An InteractiveSession makes itself the default session while it lives, so t.eval()
// and op.run() need no session argument, as in a Python shell or notebook. The values
// print as print(t.eval()) prints them in Python (NumPy's format), and shapes as
// print(t.get_shape()) does; Python's indexing t[0], t[:, 1], t[1:, ::2] builds the same
// StridedSlice nodes as x[0], x[{slice(), 1}], x[{slice(1, {}), slice({}, {}, 2)}].
//
// Checked against TensorFlow: the same session in Python (tf.compat.v1, graph mode)
// prints the same lines; shapes print with None for an unknown dimension, as
// TensorFlow 2's TensorShape does (TensorFlow 1.x wrote "?"), and the last error's
// advice is spelled for C++ ("auto guard = sess.as_default();", "eval(sess)").
#include <iostream>

#include <symflow/symflow.hpp>

namespace tf = symflow;
using tf::slice;

int main() {
  // sess = tf.InteractiveSession()
  tf::InteractiveSession sess;

  auto x = tf::constant<float>({{1, 2, 3}, {4, 5, 6}}, "x");
  std::cout << "x:\n" << x.eval() << "\n";
  std::cout << "x.get_shape(): " << x.get_shape() << "\n";

  // Indexing builds slices, evaluated like any tensor.
  std::cout << "x[0]: " << x[0].eval() << "\n";
  std::cout << "x[:, 1]: " << x[{slice(), 1}].eval() << "\n";
  std::cout << "x[1:, ::2]: " << x[{slice(1, {}), slice({}, {}, 2)}].eval() << "\n";
  std::cout << "x[-1, -1]: " << x[{-1, -1}].eval() << "\n";
  std::cout << "shape of x[:, 1]: " << x[{slice(), 1}].get_shape() << "\n";

  // Operators and reductions.
  std::cout << "x * 2 - 1:\n" << (x * 2.0f - 1.0f).eval() << "\n";
  std::cout << "reduce_sum(x, 0): " << tf::reduce_sum(x, 0).eval() << "\n";
  std::cout << "x . x^T:\n" << tf::matmul(x, x, false, true).eval() << "\n";

  // A variable: run its initializer, then read and update it.
  tf::Variable v(tf::Value{0.5f, 1.5f}, {.name = "v"});
  v.initializer().run();
  std::cout << "v: " << v.eval() << "\n";
  v.assign_add(tf::constant({1.0f, 1.0f})).op().run();
  std::cout << "v after assign_add: " << v.eval() << "\n";

  // A placeholder of unknown batch size: the static shape has None, the value does not.
  auto p = tf::placeholder<float>({-1, 2}, "p");
  auto row_sums = tf::reduce_sum(p, 1);
  std::cout << "p.get_shape(): " << p.get_shape()
            << ", row_sums.get_shape(): " << row_sums.get_shape() << "\n";
  std::cout << "row_sums: " << row_sums.eval({{p, {{1, 2}, {3, 4}, {5, 6}}}}) << "\n";

  // sess.close(): from here on, eval() has no default session.
  sess.close();
  try {
    x.eval();
  } catch (const tf::ValueError& e) {
    std::cout << "ValueError: " << e.what() << "\n";
  }
}
