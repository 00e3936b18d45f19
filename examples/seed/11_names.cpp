// Seed experiment 11: what ops, tensors and variables print as, and how names are
// made unique.
#include <iostream>

#include <symflow/symflow.hpp>

namespace tf = symflow;

int main() {
  std::cout << "tf.global_variables_initializer(): " << tf::global_variables_initializer().name()
            << " " << tf::global_variables_initializer().type() << "\n";
  auto a = tf::global_variables_initializer();
  std::cout << "a: " << a.name() << " " << a.type() << "\n";
  auto b = tf::constant(1.0f);
  auto c = tf::constant(2.0f, "c");
  auto d = tf::add(b, c, "d");
  tf::Variable e(1.0f);
  auto f = tf::placeholder<float>({2, 2});

  std::cout << "b: " << b << " " << b.name() << "\n";
  std::cout << "c: " << c << " " << c.name() << "\n";
  std::cout << "d: " << d << " " << d.name() << " " << d.shape().to_string() << "\n";
  std::cout << "e: " << e << " " << e.name() << " " << e.shape().to_string() << "\n";
  std::cout << "f: " << f << " " << f.name() << " " << f.shape().to_string() << "\n";
  std::cout << "tf.constant(1.0): " << tf::constant(1.0f) << " " << tf::constant(1.0f).name()
            << "\n";
  std::cout << "tf.add(b,c): " << tf::add(b, c) << " " << tf::add(b, c, "d").name() << "\n";
}
