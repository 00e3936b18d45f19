// make interop's symflow side of "a training graph symflow builds runs in TensorFlow":
// builds a small regression model and its GradientDescent step with symflow's own
// gradients and optimizer (TensorFlow's GATE_OP tuples included), saves it as
// TensorFlow's files (a V2 checkpoint and a binary .meta) at PREFIX, runs the step 3
// times (writing summaries to PREFIX_logs), and saves the weights it reached at
// PREFIX_after. tests/interop/interop.py has
// TensorFlow import PREFIX.meta, restore PREFIX, run the graph's train op 3 times (5
// times over, with default threading) and compare with PREFIX_after.
//
//   symflow_interop_training_graph PREFIX
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include <symflow/io/summary_writer.hpp>  // summary::FileWriter: not in the umbrella
#include <symflow/symflow.hpp>

namespace tf = symflow;

// The same numbers interop.py feeds: x = arange(24).reshape(6, 4) / 10 - 1,
// y = arange(6).reshape(6, 1) / 6.
tf::Value feed_x() {
  std::vector<float> x(24);
  for (int i = 0; i < 24; ++i)
    x[static_cast<std::size_t>(i)] = static_cast<float>(i) / 10.0f - 1.0f;
  return tf::Value::from_vector(x, {6, 4});
}
tf::Value feed_y() {
  std::vector<float> y(6);
  for (int i = 0; i < 6; ++i) y[static_cast<std::size_t>(i)] = static_cast<float>(i) / 6.0f;
  return tf::Value::from_vector(y, {6, 1});
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s PREFIX\n", argv[0]);
    return 2;
  }
  const std::string prefix = argv[1];
  try {
    tf::Graph g;
    auto guard = g.as_default();
    auto x = tf::placeholder(tf::float32, tf::Shape({-1, 4}), "x");
    auto y = tf::placeholder(tf::float32, tf::Shape({-1, 1}), "y");
    tf::Variable w1(tf::random_normal({4, 8}, {.stddev = 0.5, .seed = 7}), {.name = "w1"});
    tf::Variable b1(tf::zeros({8}), {.name = "b1"});
    tf::Variable w2(tf::random_normal({8, 1}, {.stddev = 0.5, .seed = 11}), {.name = "w2"});
    tf::Variable b2(tf::zeros({1}), {.name = "b2"});
    auto h = tf::tanh(tf::matmul(x, w1) + b1);
    auto pred = tf::identity(tf::matmul(h, w2) + b2, "pred");
    auto loss = tf::identity(tf::reduce_mean(tf::square(pred - y)), "loss");
    tf::Operation train = tf::train::GradientDescentOptimizer(0.1).minimize(loss);
    tf::Session sess(g);
    sess.run(tf::global_variables_initializer());
    tf::train::Saver saver({.format = tf::train::FileFormat::tensorflow});
    saver.save(sess, prefix);
    // Summaries, built after the .meta was written so that TensorFlow's import is the
    // model alone: the loss per step and w1's histogram, in PREFIX_logs for TensorFlow's
    // summary_iterator; the losses also go to stdout ("loss STEP VALUE").
    tf::summary::scalar("train_loss", loss);
    tf::summary::histogram("w1_weights", w1.value());
    auto merged = *tf::summary::merge_all();
    tf::summary::FileWriter writer(prefix + "_logs", g);
    for (int i = 0; i < 3; ++i) {
      auto got = sess.run({tf::Fetch(merged), tf::Fetch(loss), tf::Fetch(train)},
                          {{x, feed_x()}, {y, feed_y()}});
      writer.add_summary(got[0], i);
      std::printf("loss %d %.9g\n", i, static_cast<double>(got[1].to_vector<float>()[0]));
    }
    writer.close();
    saver.save(sess, prefix + "_after", {.write_meta_graph = false});
    std::printf("wrote %s and %s_after (train op %s)\n", prefix.c_str(), prefix.c_str(),
                train.name().c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "symflow_interop_training_graph: %s\n", e.what());
    return 1;
  }
}
