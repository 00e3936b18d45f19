// Collections and GraphKeys (seed experiment 20).
#include <doctest/doctest.h>

#include <symflow/symflow.hpp>

namespace symflow_test_graph_collections_test {

namespace tf = symflow;

TEST_CASE("graph/collections: ops, tensors and plain values round-trip") {
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::constant(1.0f, "x");
  auto train = tf::no_op("train");
  tf::add_to_collection("training_collection", train);
  tf::add_to_collection("training_collection", x);
  g.add_to_collection("names", "hello");
  g.add_to_collection("steps", std::int64_t{7});
  g.add_to_collection("rates", 0.5);

  auto items = tf::get_collection("training_collection");
  REQUIRE(items.size() == 2);
  CHECK(std::get<tf::Operation>(items[0]) == train);
  CHECK(std::get<tf::Output>(items[1]) == x);
  CHECK(std::get<std::string>(g.get_collection("names").at(0)) == "hello");
  CHECK(std::get<std::int64_t>(g.get_collection("steps").at(0)) == 7);
  CHECK(std::get<double>(g.get_collection("rates").at(0)) == 0.5);
  CHECK(tf::get_collection("missing").empty());
  CHECK(g.get_all_collection_keys() ==
        std::vector<std::string>{"names", "rates", "steps", "training_collection"});
}

TEST_CASE("graph/collections: scope filters by name prefix; get_collection_ref edits in place") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Output a, b;
  {
    tf::name_scope s("layer1");
    a = tf::constant(1.0f);
  }
  b = tf::constant(2.0f);
  g.add_to_collection("c", a);
  g.add_to_collection("c", b);
  CHECK(g.get_collection("c", "layer1").size() == 1);
  CHECK(g.get_collection("c").size() == 2);
  auto& ref = tf::get_collection_ref("c");
  ref.pop_back();
  CHECK(g.get_collection("c").size() == 1);
  g.clear_collection("c");
  CHECK(g.get_collection("c").empty());
}

TEST_CASE("graph/collections: items from another graph are refused") {
  tf::Graph g1, g2;
  tf::Output x;
  {
    auto guard = g1.as_default();
    x = tf::constant(1.0f);
  }
  CHECK_THROWS_WITH_AS(g2.add_to_collection("c", x), doctest::Contains("collection 'c'"),
                       tf::ValueError);
}

TEST_CASE("graph/collections: GraphKeys carry TensorFlow's collection names") {
  CHECK(tf::GraphKeys::GLOBAL_VARIABLES == "variables");
  CHECK(tf::GraphKeys::LOCAL_VARIABLES == "local_variables");
  CHECK(tf::GraphKeys::MODEL_VARIABLES == "model_variables");
  CHECK(tf::GraphKeys::TRAINABLE_VARIABLES == "trainable_variables");
  CHECK(tf::GraphKeys::SUMMARIES == "summaries");
  CHECK(tf::GraphKeys::QUEUE_RUNNERS == "queue_runners");
  CHECK(tf::GraphKeys::MOVING_AVERAGE_VARIABLES == "moving_average_variables");
  CHECK(tf::GraphKeys::REGULARIZATION_LOSSES == "regularization_losses");
  CHECK(tf::GraphKeys::UPDATE_OPS == "update_ops");
  CHECK(tf::GraphKeys::WEIGHTS == "weights");
  CHECK(tf::GraphKeys::BIASES == "biases");
  CHECK(tf::GraphKeys::ACTIVATIONS == "activations");
}

}  // namespace symflow_test_graph_collections_test
