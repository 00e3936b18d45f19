// Seed experiment 7: counting the parameters of the trainable variables.
#include <iostream>

#include <symflow/symflow.hpp>

namespace tf = symflow;

int main() {
  tf::Variable weights1(tf::zeros({784, 256}), {.name = "weights1"});
  tf::Variable bias1(tf::zeros({256}), {.name = "bias1"});
  tf::Variable weights2(tf::zeros({256, 10}), {.name = "weights2"});
  tf::Variable bias2(tf::zeros({10}), {.name = "bias2"});
  tf::Variable step(0, {.trainable = false, .name = "step"});  // not counted

  tf::print_num_of_total_parameters(std::cout, /*output_detail=*/true);
}
