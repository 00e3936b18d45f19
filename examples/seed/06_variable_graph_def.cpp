// Seed experiment 6: a variable is a subgraph (initial value, VariableV2, Assign,
// read). The initializer adds `init`, whose control input is the Assign; running
// it does not change the graph.
#include <iostream>
#include <string>

#include <symflow/symflow.hpp>

namespace tf = symflow;

void dump_graph(const tf::Graph& g, const std::string& filename) {
  std::cout << filename << "\n" << g.as_graph_def();
}

int main() {
  tf::Graph g = tf::get_default_graph();
  tf::Variable var(2);
  dump_graph(g, "after_var_creation.graph");

  auto init = tf::global_variables_initializer();
  dump_graph(g, "after_initializer_creation.graph");

  tf::Session sess;
  sess.run(init);
  dump_graph(g, "after_initializer_run.graph");
  std::cout << "value after init: " << sess.run(var) << "\n";
}
