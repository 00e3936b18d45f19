// Seed experiment 10: placeholders are fed at run time; a missing feed or a feed of
// the wrong shape is an error; a placeholder without a shape has unknown rank.
#include <iostream>

#include <symflow/symflow.hpp>

namespace tf = symflow;

int main() {
  {
    auto a = tf::placeholder<float>({3});
    auto b = tf::constant<float>({5, 5, 5});
    auto c = a + b;
    tf::Session sess;
    std::cout << sess.run(c, {{a, {1, 2, 3}}}) << "\n";
  }

  tf::reset_default_graph();
  {
    auto x = tf::placeholder<float>({3});
    auto y = tf::square(x);
    tf::Session sess;
    std::cout << sess.run(y, {{x, {1.0f, 2.0f, 3.0f}}}) << "\n";
    std::cout << sess.run(y, {{x, {0.0f, 0.0f, 5.0f}}}) << "\n";
    try {
      sess.run(y);
    } catch (const tf::InvalidArgumentError& e) {
      std::cout << "InvalidArgumentError: " << e.what() << "\n";
    }
    try {
      sess.run(y, {{x, 37.0f}});
    } catch (const tf::ValueError& e) {
      std::cout << "ValueError: " << e.what() << "\n";
    }
  }

  tf::reset_default_graph();
  {
    tf::Graph g = tf::get_default_graph();
    auto var = tf::placeholder(tf::float32);
    std::cout << "after_var_creation.graph\n" << g.as_graph_def();
    auto init = tf::global_variables_initializer();
    std::cout << "after_initializer_creation.graph\n" << g.as_graph_def();
  }
}
