// Seed experiment 9: Saver.save writes a checkpoint as TensorFlow's four files (the
// values in .index + .data, the graph in .meta, the directory's `checkpoint` state
// file); Saver.restore, in a graph built again from the same code, brings the values
// back without running any initializer.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include <symflow/symflow.hpp>

namespace tf = symflow;

int main() {
  namespace fs = std::filesystem;
  {
    // a = tf.get_variable('a', []); b = tf.get_variable('b', [])
    auto a = tf::get_variable("a", {}, {.initializer = tf::constant_initializer(1.5f)});
    auto b = tf::get_variable("b", {}, {.initializer = tf::constant_initializer(-2.0f)});
    auto init = tf::global_variables_initializer();
    auto double_a = a.assign(a * 2.0f);

    tf::train::Saver saver;
    tf::Session sess;
    sess.run(init);
    sess.run(double_a);
    std::cout << "saved: " << sess.run({a, b}) << "\n";
    std::cout << saver.save(sess, "./tftcp.model") << "\n";
  }

  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator("."))
    files.push_back(entry.path().filename().string());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) std::cout << f << "\n";

  // Loading a model: the same code builds the graph again, in a fresh default graph.
  tf::reset_default_graph();
  auto a = tf::get_variable("a", {});
  auto b = tf::get_variable("b", {});
  tf::train::Saver saver;
  tf::Session sess;
  saver.restore(sess, "./tftcp.model");
  std::cout << "restored: " << sess.run({a, b}) << "\n";
}
