// Seed experiment 1: the GraphDef of a constant, before and after the initializer
// is created and run. Constants need no initialisation: `init` has no inputs.
#include <iostream>
#include <string>

#include <symflow/symflow.hpp>

namespace tf = symflow;

void dump_graph(const tf::Graph& g, const std::string& filename) {
  std::cout << filename << "\n" << g.as_graph_def();
}

int main() {
  tf::Graph g = tf::get_default_graph();
  auto var = tf::constant({1, 2, 3, 4, 5, 6, 7});
  dump_graph(g, "after_var_creation.graph");

  auto init = tf::global_variables_initializer();
  dump_graph(g, "after_initializer_creation.graph");

  tf::Session sess;
  sess.run(init);
  dump_graph(g, "after_initializer_run.graph");
}
