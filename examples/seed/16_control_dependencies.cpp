// Seed experiment 16: only ops built inside control_dependencies() wait for the
// listed ops; control_dependencies(nullptr) clears the enclosing dependencies.
#include <iostream>

#include <symflow/symflow.hpp>

namespace tf = symflow;

int main() {
  tf::Variable a_1(1);
  tf::Variable b_1(2);
  auto update_op = tf::assign(a_1, 10);
  auto add = tf::add(a_1, b_1);

  tf::Variable a_2(1);
  tf::Variable b_2(2);
  auto update_op_2 = tf::assign(a_2, 10);
  tf::Output add_with_dependencies, add_without;
  {
    tf::control_dependencies deps({update_op_2});
    add_with_dependencies = tf::add(a_2, b_2);
    {
      tf::control_dependencies none(nullptr);
      add_without = tf::add(a_1, b_1);
    }
  }

  tf::Session sess;
  sess.run(tf::global_variables_initializer());
  auto answers = sess.run({add, add_with_dependencies});
  std::cout << "Add: " << answers[0] << "\n";
  std::cout << "Add_with_dependency: " << answers[1] << "\n";
  std::cout << "control inputs inside: " << add_with_dependencies.op().control_inputs().size()
            << ", inside control_dependencies(nullptr): "
            << add_without.op().control_inputs().size() << "\n";
}
