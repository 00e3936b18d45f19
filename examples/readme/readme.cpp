// The snippet at the top of README.md, compiled and checked.
#include <iostream>

#include <symflow/symflow.hpp>
namespace tf = symflow;

int main() {
  auto x = tf::placeholder<float>({3}, "x");
  auto y = tf::square(x) + 1;  // nodes "Square", "add/y", "add"
  tf::Session sess;
  std::cout << sess.run(y, {{x, {1, 2, 3}}});  // [ 2.  5. 10.]
  std::cout << "\n";
  for (const auto& op : tf::get_default_graph().get_operations())
    std::cout << op.name() << " " << op.type() << "\n";
}
