// Seed experiment 13: name_scope prefixes the names of the variables built inside it.
// Building the same code again in the same graph gives new scopes (conv1_1, conv2_1);
// after reset_default_graph() the graph is new and the names are the first ones again.
#include <iostream>

#include <symflow/symflow.hpp>

namespace tf = symflow;

void build() {
  tf::Variable weights1, bias1, weights2, bias2;
  {
    tf::name_scope scope("conv1");
    weights1 = tf::Variable({1.0f, 2.0f}, {.name = "weights"});
    bias1 = tf::Variable({0.3f}, {.name = "bias"});
  }
  // Variables defined in another name scope
  {
    tf::name_scope scope("conv2");
    weights2 = tf::Variable({4.0f, 2.0f}, {.name = "weights"});
    bias2 = tf::Variable({0.33f}, {.name = "bias"});
  }
  // weights1 and weights2 are different variables: their names do not clash
  std::cout << weights1.name() << "\n"
            << weights2.name() << "\n"
            << bias1.name() << "\n"
            << bias2.name() << "\n";
}

int main() {
  // demo1, without reset_default_graph(): each run adds new nodes to the graph.
  std::cout << "# demo1, first run\n";
  build();
  std::cout << "# demo1, second run\n";
  build();

  // demo2, with reset_default_graph(): every run starts from an empty graph.
  for (int run = 1; run <= 3; ++run) {
    std::cout << "# demo2, run " << run << "\n";
    tf::reset_default_graph();
    build();
  }
}
