// Seed experiment 8: scatter_update replaces whole rows of a variable by index;
// the variable read before the update still shows zeros.
#include <iostream>

#include <symflow/symflow.hpp>

namespace tf = symflow;

int main() {
  {
    tf::Graph g;
    auto guard = g.as_default();
    tf::Variable a(tf::Value{{0, 0, 0, 0}, {0, 0, 0, 0}});
    auto b = tf::scatter_update(a, {0, 1}, {{1, 1, 0, 0}, {1, 0, 4, 0}});
    tf::Session sess(g);
    sess.run(tf::global_variables_initializer());
    std::cout << sess.run(a) << "\n";
    std::cout << sess.run(b) << "\n";
  }
  {
    tf::Graph g;
    auto guard = g.as_default();
    tf::Variable a(tf::Value{{0, 0, 0, 0}, {0, 0, 0, 0}});
    auto b = tf::scatter_update(a, {1}, {{1, 0, 4, 0}});
    tf::Session sess(g);
    sess.run(tf::global_variables_initializer());
    std::cout << sess.run(a) << "\n";
    std::cout << sess.run(b) << "\n";
  }
}
