// A tf.cond and its gradient written by real TensorFlow (tests/data/tf_cond/make_graph.py,
// TF 2.21, control flow v1): imported and run, with the values the script printed.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <symflow/symflow.hpp>

namespace symflow_test_io_tf_cond_import_test {

namespace tf = symflow;

TEST_CASE("io/tf files: a cond and its gradient written by TensorFlow import and run") {
  const tf::GraphDef def =
      tf::read_graph(std::string(SYMFLOW_SOURCE_DIR) + "/tests/data/tf_cond/graph.pbtxt");
  tf::Graph g;
  tf::import_graph_def(def, {.name = ""}, g);
  CHECK(g.get_operation_by_name("branch/Merge").type() == "Merge");
  CHECK(g.get_operation_by_name("gradients/branch/Merge_grad/cond_grad").type() == "Switch");

  tf::Session s(g);
  const tf::Output x = g.get_tensor_by_name("x:0");
  const tf::Output p = g.get_tensor_by_name("p:0");
  const tf::Value xv = tf::Value::from_vector(std::vector<float>{1.5f, -2.0f}, {2});
  // TF: p=True -> z [6.75, 12], dz [9, -12]; p=False -> z [7.5, 3], dz [3, 0].
  const std::vector<std::vector<float>> expected[2] = {{{6.75f, 12.0f}, {9.0f, -12.0f}},
                                                       {{7.5f, 3.0f}, {3.0f, 0.0f}}};
  for (int c = 0; c < 2; ++c) {
    const bool pv = c == 0;
    CAPTURE(pv);
    auto r = s.run({g.get_tensor_by_name("z:0"), g.get_tensor_by_name("dz:0")},
                   {{x, xv}, {p, tf::Value(pv)}});
    for (int k = 0; k < 2; ++k)
      for (std::size_t i = 0; i < 2; ++i)
        CHECK(r[static_cast<std::size_t>(k)].data<float>()[i] ==
              doctest::Approx(expected[c][static_cast<std::size_t>(k)][i]));
  }

  // Differentiated again in symflow, where the graph carries no cond contexts: Merge's
  // gradient then switches on its value_index, and gives TF's values too.
  tf::Output y = g.get_tensor_by_name("branch/Merge:0");
  tf::Output dy;
  {
    auto guard = g.as_default();
    dy = tf::gradients(y, {x})[0];
  }
  REQUIRE(dy.valid());
  for (int c = 0; c < 2; ++c) {
    const bool pv = c == 0;
    auto r = s.run(dy, {{x, xv}, {p, tf::Value(pv)}});
    for (std::size_t i = 0; i < 2; ++i)
      CHECK(r.data<float>()[i] == doctest::Approx(expected[c][1][i] / 3.0f));
  }
}

}  // namespace symflow_test_io_tf_cond_import_test
