// Seed experiment 20: the standard collections. Variables fill GLOBAL_VARIABLES
// and TRAINABLE_VARIABLES; trainable_variables() is get_collection of the latter.
#include <iostream>
#include <string_view>

#include <symflow/symflow.hpp>

namespace tf = symflow;

int main() {
  for (std::string_view key :
       {tf::GraphKeys::GLOBAL_VARIABLES, tf::GraphKeys::LOCAL_VARIABLES,
        tf::GraphKeys::MODEL_VARIABLES, tf::GraphKeys::TRAINABLE_VARIABLES,
        tf::GraphKeys::SUMMARIES, tf::GraphKeys::QUEUE_RUNNERS,
        tf::GraphKeys::MOVING_AVERAGE_VARIABLES, tf::GraphKeys::REGULARIZATION_LOSSES,
        tf::GraphKeys::WEIGHTS, tf::GraphKeys::BIASES, tf::GraphKeys::ACTIVATIONS})
    std::cout << key << "\n";

  tf::Variable w(tf::zeros({2, 2}), {.name = "w"});
  tf::Variable step(0, {.trainable = false, .name = "step"});
  std::cout << "global:";
  for (const auto& v : tf::global_variables()) std::cout << " " << v.name();
  std::cout << "\ntrainable:";
  for (const auto& v : tf::trainable_variables()) std::cout << " " << v.name();
  std::cout << "\nget_collection(TRAINABLE_VARIABLES): "
            << tf::get_collection(tf::GraphKeys::TRAINABLE_VARIABLES).size() << " item(s)\n";
  std::cout << "weights: " << tf::get_collection(tf::GraphKeys::WEIGHTS).size() << " item(s)\n";
}
