// The GraphDefs the seed prints (experiments 1, 10 and 19), compared with symflow's.
#include <doctest/doctest.h>

#include <symflow/symflow.hpp>

#include <sstream>
#include <vector>

#include "../test_util.hpp"

namespace symflow_test_seed_seed_graph_def_test {

namespace tf = symflow;
using symflow::test::normalise_seed_text;
using symflow::test::read_test_data;

TEST_CASE("seed/01: GraphDef of a constant and the initializer matches the seed") {
  tf::Graph g;
  auto guard = g.as_default();
  auto var = tf::constant({1, 2, 3, 4, 5, 6, 7});
  auto init = tf::global_variables_initializer();
  CHECK(init.name() == "init");
  CHECK(init.type() == "NoOp");
  CHECK(init.control_inputs().empty());
  std::string ours = to_text(g.as_graph_def());
  CHECK(normalise_seed_text(ours) ==
        normalise_seed_text(read_test_data("seed/data/01_const_graph_def.seed.txt")));

  // Running the initializer does not change the graph.
  tf::Session sess(g);
  sess.run(init);
  CHECK(to_text(g.as_graph_def()) == ours);
}

TEST_CASE("seed/10: a placeholder without a shape has unknown rank in its GraphDef") {
  tf::Graph g;
  auto guard = g.as_default();
  auto var = tf::placeholder(tf::float32);
  std::string text = "after_var_creation.graph\n" + to_text(g.as_graph_def());
  auto init = tf::global_variables_initializer();
  text += "\nafter_initializer_creation.graph\n" + to_text(g.as_graph_def());
  CHECK(normalise_seed_text(text) ==
        normalise_seed_text(read_test_data("seed/data/10_placeholder_graph_def.seed.txt")));
  CHECK(text.find("unknown_rank: true") != std::string::npos);
}

TEST_CASE("seed/19: d = a*b + c; e = d*2 gives TensorFlow's GraphDef text") {
  tf::Graph g;
  auto guard = g.as_default();
  auto a = tf::placeholder<float>();
  auto b = tf::placeholder<float>();
  auto c = tf::placeholder<float>();
  auto d = a * b + c;
  auto e = d * 2;
  CHECK(e.name() == "mul_1:0");
  std::string ours = to_text(g.as_graph_def());
  // Exactly TensorFlow's protobuf text format, indentation included.
  CHECK(ours == read_test_data("seed/data/19_graph_def.pbtxt"));
  // The seed shows three of these nodes (Placeholder, Placeholder_1, mul), annotated:
  // each of them appears in ours exactly as printed there.
  std::string excerpt =
      normalise_seed_text(read_test_data("seed/data/19_graph_def_excerpt.seed.txt"));
  std::string normalised = normalise_seed_text(ours);
  std::vector<std::string> blocks;
  std::istringstream lines(excerpt);
  std::string line, block;
  int depth = 0;
  while (std::getline(lines, line)) {
    if (depth == 0 && line != "node {") continue;
    block += line + "\n";
    if (line.ends_with("{")) ++depth;
    if (line == "}" && --depth == 0) {
      blocks.push_back(block);
      block.clear();
    }
  }
  for (const auto& b : blocks) CHECK_MESSAGE(normalised.find(b) != std::string::npos, b);
  CHECK(blocks.size() == 3);
}

}  // namespace symflow_test_seed_seed_graph_def_test
