// Seed experiment 5: with reuse=AUTO_REUSE, get_variable creates 'weights' the first
// time and returns that same variable the second time; it was created with
// trainable=False, so trainable_variables() is empty.
#include <iostream>
#include <string>
#include <vector>

#include <symflow/symflow.hpp>
#include <symflow/variables/get_variable.hpp>

namespace tf = symflow;

int main() {
  tf::Variable a, b;
  {
    // with tf.variable_scope('test', reuse=tf.AUTO_REUSE):
    tf::variable_scope scope("test", tf::reuse::auto_reuse);
    a = tf::get_variable("weights", {1}, {.trainable = false});
    b = tf::get_variable("weights", {1});
  }
  std::cout << a.name() << " " << b.name() << " " << (a == b ? "True" : "False") << "\n";

  tf::Session sess;
  sess.run(tf::global_variables_initializer());
  std::vector<tf::Fetch> variable_names;
  std::cout << "[";
  for (const auto& v : tf::trainable_variables()) {
    std::cout << (variable_names.empty() ? "'" : ", '") << v.name() << "'";
    variable_names.emplace_back(v.name());
  }
  std::cout << "] ";
  auto values = sess.run(variable_names);
  std::cout << values << "\n";

  std::cout << "[";
  std::string sep;
  for (const auto& v : tf::global_variables()) {
    std::cout << sep << "'" << v.name() << "'";
    sep = ", ";
  }
  std::cout << "]\n";
}
