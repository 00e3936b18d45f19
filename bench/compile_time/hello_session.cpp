// A user's small program: build a graph, run it in a Session, print the result.
#include <iostream>
#include <symflow/symflow.hpp>

int main() {
  namespace tf = symflow;
  auto x = tf::placeholder<float>({3}, "x");
  auto y = tf::square(x) + 1.0f;
  tf::Session sess;
  std::cout << sess.run(y, {{x, {1, 2, 3}}}) << "\n";
}
