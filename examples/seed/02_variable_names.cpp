// Seed experiment 2: variables are named "Variable" by default, and a name
// already in use gets a _N suffix.
#include <iostream>

#include <symflow/symflow.hpp>

namespace tf = symflow;

int main() {
  tf::Variable var(1);
  tf::Variable var1(2);
  tf::Variable var2(3, {.name = "foo"});
  tf::Variable var3(4, {.name = "foo"});
  // seed makes every run give the same numbers (TensorFlow's own numbers).
  tf::Variable var4(tf::random_normal({2, 3}, {.stddev = 1, .seed = 1}));
  std::cout << "var is named as \"" << var.op().name() << "\", var1 is named as \""
            << var1.op().name() << "\", var2 is named as \"" << var2.op().name()
            << "\", var3 is named as \"" << var3.op().name() << "\"\n";
  for (const auto& v : tf::global_variables()) std::cout << v << "\n";
  tf::Session sess;
  sess.run(tf::global_variables_initializer());
  std::cout << sess.run(var4) << "\n";
}
