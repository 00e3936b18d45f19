// Seed experiment 12: tensors are handles; their values come from a session, one
// at a time with eval() inside a default session, or together from run().
#include <iostream>
#include <vector>

#include <symflow/symflow.hpp>

namespace tf = symflow;

int main() {
  auto a = tf::constant(1.0f);
  auto b = tf::constant(2.0f);
  auto c = tf::add(a, b);

  std::cout << "[" << tf::repr(a) << ",\n" << tf::repr(b) << ",\n" << tf::repr(c) << "]\n";

  tf::Session sess;
  auto as_default = sess.as_default();
  std::cout << c.eval() << "\n";
  std::cout << sess.run({a, b, c}) << "\n";
}
