// Seed experiment 14: running an op that reads a variable before the variables are
// initialised is a FailedPreconditionError; after the initializer it runs.
#include <iostream>

#include <symflow/symflow.hpp>

namespace tf = symflow;

int main() {
  auto x = tf::constant(1.0f, tf::Shape{2, 3});
  tf::Variable kernel(tf::constant(1.0f, tf::Shape{3, 2}));
  auto y = tf::matmul(x, kernel);
  auto init = tf::global_variables_initializer();

  tf::Session sess;
  try {
    sess.run(y);
  } catch (const tf::FailedPreconditionError& e) {
    std::cout << "FailedPreconditionError: " << e.what() << "\n";
  }
  std::cout << "uninitialized: " << tf::report_uninitialized_variables(sess).size() << "\n";
  sess.run(init);
  std::cout << sess.run(y) << "\n";
  std::cout << "uninitialized: " << tf::report_uninitialized_variables(sess).size() << "\n";
}
