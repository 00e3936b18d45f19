// Seed experiment 15: a run executes only what its fetches need (update2 never
// runs), each node once, and all fetched values come from that one run.
//
// TensorFlow leaves the order of an unordered read and write of one variable to
// the platform; symflow's rule is deterministic: a variable is read when the op
// that consumes it runs, fetched values are read after the run, and ops that no
// edge orders run in the order they were built.
#include <iostream>

#include <symflow/symflow.hpp>

namespace tf = symflow;

int main() {
  tf::Variable state(0.0f);
  auto one = tf::constant(1.0f);
  auto new_val = tf::add(state, one);
  auto update = tf::assign(state, new_val);
  auto update2 = tf::assign(state, 10000);  // never fetched: never runs
  auto init = tf::global_variables_initializer();

  tf::Session sess;
  sess.run(init);
  for (int i = 0; i < 3; ++i) {
    std::cout << sess.run({update, state, new_val}) << "\n";
    std::cout << "--\n";
  }
  sess.run(init);
  std::cout << sess.run({state, new_val, update2, update}) << "\n";
  std::cout << "--\n";
}
