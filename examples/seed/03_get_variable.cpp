// Seed experiment 3: get_variable names a variable after its first argument alone (the
// name is required: it is how the variable is found again) and builds its initial
// value with an initializer, under "<name>/Initializer/".
#include <iostream>

#include <symflow/symflow.hpp>
#include <symflow/variables/get_variable.hpp>

namespace tf = symflow;

int main() {
  // var = tf.get_variable('var', [1])  # the second argument is the shape
  // var1 = tf.get_variable('var1', [1], initializer=tf.constant_initializer(1.0))
  auto var = tf::get_variable("var", {1});
  auto var1 = tf::get_variable("var1", {1}, {.initializer = tf::constant_initializer(1.0f)});

  std::cout << var << "\n" << var1 << "\n";
  std::cout << var.initial_value().name() << "\n" << var1.initial_value().name() << "\n";

  tf::Session sess;
  sess.run(tf::global_variables_initializer());
  std::cout << sess.run(var1) << "\n";
}
