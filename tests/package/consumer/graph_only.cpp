// The second source of consumer_header_only (session_main.cpp): it builds a graph and makes
// no Session, but includes all of symflow, so a header's definition that is not inline
// would be defined twice in the program and fail its link.
#include <string>

#include <symflow/symflow.hpp>

#include "mode.hpp"

std::string other_source_result() {
  namespace tf = symflow;
  tf::Graph graph;
  auto guard = graph.as_default();
  auto a = tf::placeholder<float>({tf::unknown_dim, 3}, "a");
  auto product = tf::matmul(a, tf::ones({3, 4}), false, false, "product");
  return "graph_only.cpp, " SYMFLOW_CONSUMER_MODE ": " + product.name() + " has shape " +
         product.shape().to_string();
}
