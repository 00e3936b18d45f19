// The second source of consumer_compiled (session_main.cpp): its own graph and Session.
#include <sstream>
#include <string>

#include <symflow/symflow.hpp>

#include "mode.hpp"

std::string other_source_result() {
  namespace tf = symflow;
  tf::Graph graph;
  auto guard = graph.as_default();
  auto a = tf::constant(tf::Value{{1.0f, 2.0f}, {3.0f, 4.0f}}, "a");
  auto b = tf::constant(tf::Value{{5.0f}, {6.0f}}, "b");
  auto total = tf::reduce_sum(tf::matmul(a, b));  // 17 + 39
  tf::Session sess(graph);
  std::ostringstream out;
  out << "session_other.cpp, " SYMFLOW_CONSUMER_MODE ": " << sess.run(total);
  return out.str();
}
