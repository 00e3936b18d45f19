// While loops written by real TensorFlow (tests/data/tf_while/make_graph.py, TF 2.21,
// control flow v1): a loop with two variables, a nested loop, a cond inside a loop, a
// loop inside a cond and maximum_iterations, imported and run with the values the script
// printed.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <symflow/backend/cpu/cpu_backend.hpp>
#include <symflow/runtime/plan.hpp>
#include <symflow/symflow.hpp>

namespace symflow_test_io_tf_while_import_test {

namespace tf = symflow;

struct Expected {
  int n;
  bool p;
  std::vector<float> acc;
  int pairs, alternating;
  std::vector<float> chosen;
  int capped;
};

TEST_CASE("io/tf files: while loops written by TensorFlow import and run") {
  const tf::GraphDef def =
      tf::read_graph(std::string(SYMFLOW_SOURCE_DIR) + "/tests/data/tf_while/graph.pbtxt");
  tf::Graph g;
  tf::import_graph_def(def, {.name = ""}, g);
  CHECK(g.get_operation_by_name("power/NextIteration").type() == "NextIteration");
  CHECK(g.get_operation_by_name("outer/inner/LoopCond").type() == "LoopCond");
  // The back edge: the Merge reads the NextIteration created after it.
  CHECK(g.get_operation_by_name("power/Merge").inputs().at(1).name() == "power/NextIteration:0");

  tf::Session s(g);
  const tf::Output x = g.get_tensor_by_name("x:0");
  const tf::Output n = g.get_tensor_by_name("n:0");
  const tf::Output p = g.get_tensor_by_name("p:0");
  std::vector<tf::Fetch> fetches;
  for (const char* name : {"acc:0", "pairs:0", "alternating:0", "chosen:0", "capped_value:0"})
    fetches.push_back(g.get_tensor_by_name(name));
  // What TensorFlow printed.
  const Expected expected[] = {
      {4, true, {31.0f, 1.9375f}, 6, -2, {96.0f, 48.0f}, 13},
      {0, false, {1.0f, 1.0f}, 0, 0, {1.0f, -0.5f}, 1},
      {7, true, {255.0f, 1.9921875f}, 21, 3, {96.0f, 48.0f}, 22},
  };
  const tf::Value xv = tf::Value::from_vector(std::vector<float>{2.0f, 0.5f}, {2});
  for (const Expected& e : expected) {
    CAPTURE(e.n);
    auto r = s.run(fetches, {{x, xv}, {n, tf::Value(e.n)}, {p, tf::Value(e.p)}});
    for (std::size_t i = 0; i < 2; ++i) {
      CHECK(r[0].data<float>()[i] == doctest::Approx(e.acc[i]));
      CHECK(r[3].data<float>()[i] == doctest::Approx(e.chosen[i]));
    }
    CHECK(r[1].scalar<std::int32_t>() == e.pairs);
    CHECK(r[2].scalar<std::int32_t>() == e.alternating);
    CHECK(r[4].scalar<std::int32_t>() == e.capped);
  }

  // The loop with a cond inside runs in the plain form, only the cond's steps checking for
  // dead inputs (runtime/plan.hpp).
  const tf::Plan alternate =
      tf::detail::make_plan(g.state(), {g.get_tensor_by_name("alternating:0").ref()}, {}, {n.ref()},
                            nullptr, &tf::cpu::backend());
  REQUIRE(alternate.frames.size() == 1);
  CHECK(alternate.frames[0].name == "alternate/while_context");
  CHECK(!alternate.frames[0].plain.empty());
  CHECK(alternate.frames[0].checks);

  // On two inter-op threads the loops run as on one, with the same values.
  tf::ConfigProto config;
  config.inter_op_parallelism_threads = 2;
  tf::Session threaded(g, config);
  auto r = threaded.run(fetches, {{x, xv}, {n, tf::Value(4)}, {p, tf::Value(true)}});
  CHECK(r[1].scalar<std::int32_t>() == 6);
  CHECK(r[4].scalar<std::int32_t>() == 13);

  // The same GraphDef with its nodes in reverse order: the importer orders them again,
  // and the loops' nodes need not be together among the node ids.
  tf::GraphDef reversed = def;
  std::reverse(reversed.node.begin(), reversed.node.end());
  tf::Graph h;
  tf::import_graph_def(reversed, {.name = ""}, h);
  tf::Session hs(h);
  std::vector<tf::Fetch> h_fetches;
  for (const char* name : {"acc:0", "pairs:0", "alternating:0", "chosen:0", "capped_value:0"})
    h_fetches.push_back(h.get_tensor_by_name(name));
  r = hs.run(h_fetches, {{h.get_tensor_by_name("x:0"), xv},
                         {h.get_tensor_by_name("n:0"), tf::Value(7)},
                         {h.get_tensor_by_name("p:0"), tf::Value(true)}});
  CHECK(r[0].data<float>()[1] == doctest::Approx(1.9921875f));
  CHECK(r[1].scalar<std::int32_t>() == 21);
  CHECK(r[2].scalar<std::int32_t>() == 3);
  CHECK(r[4].scalar<std::int32_t>() == 22);

  // A tensor inside a loop cannot be fetched.
  CHECK_THROWS_AS(s.run(g.get_tensor_by_name("power/add:0"), {{n, tf::Value(1)}}), tf::ValueError);
}

}  // namespace symflow_test_io_tf_while_import_test
