// Seed experiment 19: a GraphDef is the graph alone; a MetaGraph adds the collections
// and the Saver, so a program without the model's code can rebuild the model and
// train it. Importing a bare GraphDef brings back no variables; freezing turns them
// into constants, so the GraphDef alone then computes the model.
#include <iostream>
#include <string>
#include <vector>

#include <symflow/symflow.hpp>

namespace tf = symflow;

namespace {

const tf::Value kInputs = {{1.0f, 2.0f}, {2.0f, 1.0f}, {3.0f, -1.0f}, {0.5f, 0.5f}};
const tf::Value kTargets = {{5.0f}, {4.0f}, {1.0f}, {1.5f}};

// The model program: builds, trains a little, exports, and freezes.
tf::GraphDef build_and_export() {
  auto x = tf::placeholder(tf::float32, {-1, 2}, "x");
  auto y = tf::placeholder(tf::float32, {-1, 1}, "y");
  auto w = tf::get_variable("w", {2, 1}, {.initializer = tf::constant_initializer(0.1f)});
  auto b = tf::get_variable("b", {1}, {.initializer = tf::zeros_initializer()});
  auto pred = tf::identity(tf::matmul(x, w) + b, "pred");
  auto loss = tf::reduce_mean(tf::square(pred - y), tf::Axis(), false, "loss");
  auto train_op =
      tf::train::AdamOptimizer({.learning_rate = 0.1}).minimize(loss, {.name = "train"});

  // tf.add_to_collection("training_collection", pred / loss / train_op)
  tf::add_to_collection("training_collection", pred);
  tf::add_to_collection("training_collection", loss);
  tf::add_to_collection("training_collection", train_op);
  tf::add_to_collection("notes", "a string collection");
  tf::add_to_collection("notes_int", std::int64_t{7});

  tf::train::export_meta_graph("my_graph.meta");
  auto all = tf::train::export_meta_graph("", {.collection_list = {{"training_collection"}}});
  std::cout << "collections exported by default: "
            << tf::train::read_meta_graph_file("my_graph.meta").collection_def.size()
            << ", with collection_list: " << all.collection_def.size() << "\n";

  tf::Session sess;
  sess.run(tf::global_variables_initializer());
  for (int i = 0; i < 50; ++i) sess.run(train_op, {{x, kInputs}, {y, kTargets}});
  tf::Value trained = sess.run(pred, {{x, kInputs}});
  std::cout << "model program, prediction for [1, 2]: " << trained.at<float>({0, 0}) << "\n";
  return tf::graph_util::convert_variables_to_constants(
      sess, tf::get_default_graph().as_graph_def(), {"pred"});
}

}  // namespace

int main() {
  tf::GraphDef frozen = build_and_export();

  // A new program: no model code, only the file.
  tf::reset_default_graph();
  auto saver = tf::train::import_meta_graph("my_graph.meta");
  std::cout << "trainable variables after import_meta_graph:";
  for (const auto& v : tf::trainable_variables()) std::cout << " " << v.name();
  std::cout << "\nsaver: " << (saver ? "yes" : "no") << "\n";
  auto train_op = std::get<tf::Operation>(tf::get_collection("training_collection")[2]);
  auto loss = std::get<tf::Output>(tf::get_collection("training_collection")[1]);
  std::cout << "training_collection: " << train_op.name() << ", " << loss.name() << "\n";
  std::cout << "notes: " << std::get<std::string>(tf::get_collection("notes")[0]) << ", "
            << std::get<std::int64_t>(tf::get_collection("notes_int")[0]) << "\n";

  // Training restarts from the initial values: a MetaGraph holds no variable values.
  tf::Session new_sess;
  new_sess.run(tf::global_variables_initializer());  // the variables collection came back
  tf::FeedDict feeds{{"x:0", kInputs}, {"y:0", kTargets}};
  float before = new_sess.run(loss, feeds).scalar<float>();
  for (int i = 0; i < 50; ++i) new_sess.run(train_op, feeds);
  float after = new_sess.run(loss, feeds).scalar<float>();
  std::cout << "imported train op lowers the loss: " << (after < before ? "yes" : "no") << "\n";

  // A bare GraphDef: the variables come back as nodes, but in no collection.
  tf::reset_default_graph();
  {
    tf::Graph g;
    auto as_default = g.as_default();
    tf::import_graph_def(frozen, {.name = ""});
    std::cout << "frozen graph: trainable variables " << tf::trainable_variables().size();
    int variables = 0;
    for (const auto& op : g.get_operations()) variables += op.type() == "VariableV2" ? 1 : 0;
    std::cout << ", VariableV2 nodes " << variables << "\n";
    try {
      tf::train::Saver no_variables;
    } catch (const tf::ValueError& e) {
      std::cout << "Saver(): ValueError: " << e.what() << "\n";
    }
    tf::Session frozen_sess(g);
    tf::Value p = frozen_sess.run("pred:0", {{"x:0", kInputs}});
    std::cout << "frozen graph, prediction for [1, 2]: " << p.at<float>({0, 0}) << "\n";
  }
}
