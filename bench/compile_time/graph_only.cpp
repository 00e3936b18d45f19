// A TU that only builds graphs: the graph-building headers, no Session.
#include <iostream>
#include <symflow/graph/graph.hpp>
#include <symflow/ops/array_ops.hpp>
#include <symflow/ops/math_ops.hpp>
#include <symflow/ops/nn_ops.hpp>
#include <symflow/ops/operators.hpp>
#include <symflow/ops/state_ops.hpp>

int main() {
  namespace tf = symflow;
  auto x = tf::placeholder<float>({2, 3}, "x");
  auto w = tf::constant<float>({{1, 2}, {3, 4}, {5, 6}}, "w");
  auto y = tf::nn::relu(tf::matmul(x, w) + 1.0f);
  std::cout << y.name() << "\n";
}
