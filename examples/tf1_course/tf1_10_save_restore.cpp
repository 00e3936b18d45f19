// TF1 course, lesson 10: saving a trained model with tf.train.Saver and restoring it.
//
// saver.save(sess, "./model.ckpt", global_step=step) writes a checkpoint in
// TensorFlow's format: the variables' values (model.ckpt-40.index and .data-...), the
// graph (.meta) and the directory's "checkpoint" file, which tf.train.latest_checkpoint
// reads. saver.restore(sess, path) loads the values into another session, which then
// needs no initializer. The model is lesson 1's: y = W*x + b fitted to y = 3x + 2.
//
// Checked against TensorFlow: the same program in Python (tf.compat.v1, graph mode)
// prints the same numbers, paths and file names.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <symflow/symflow.hpp>

namespace tf = symflow;

int main() {
  std::vector<float> xs, ys;
  for (int i = 0; i < 10; ++i) {
    xs.push_back(0.1f * static_cast<float>(i));
    ys.push_back(3.0f * xs.back() + 2.0f);
  }
  auto X = tf::placeholder<float>({-1}, "X");
  auto Y = tf::placeholder<float>({-1}, "Y");
  tf::Variable W(tf::Value(0.0f), {.name = "weight"});
  tf::Variable b(tf::Value(0.0f), {.name = "bias"});
  auto pred = W * X + b;
  auto loss = tf::reduce_mean(tf::square(pred - Y));
  auto train_op = tf::train::GradientDescentOptimizer(0.5).minimize(loss);

  // saver = tf.train.Saver(): saves every global variable (W and b here).
  tf::train::Saver saver;
  const tf::FeedDict new_inputs{{X, {1.0f, 2.0f}}};

  {
    tf::Session sess;
    sess.run(tf::global_variables_initializer());
    tf::FeedDict feed{{X, tf::Value::from_vector(xs, {10})}, {Y, tf::Value::from_vector(ys, {10})}};
    for (int step = 0; step < 40; ++step) sess.run(train_op, feed);
    auto p = sess.run(pred, new_inputs).to_vector<float>();
    std::printf("trained:  W = %.4f, b = %.4f, predictions [%.4f, %.4f]\n",
                sess.run(W).scalar<float>(), sess.run(b).scalar<float>(), p[0], p[1]);
    std::printf("saved to %s\n", saver.save(sess, "./model.ckpt", 40).c_str());
  }

  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator("."))
    files.push_back(entry.path().filename().string());
  std::sort(files.begin(), files.end());
  for (const auto& name : files) std::printf("  %s\n", name.c_str());

  // A fresh session: its variables are uninitialized until restore fills them in.
  tf::Session sess;
  try {
    sess.run(W);
  } catch (const tf::FailedPreconditionError& e) {
    std::printf("before restore: FailedPreconditionError: %s\n", e.message().c_str());
  }
  auto latest = tf::train::latest_checkpoint(".");
  std::printf("latest_checkpoint: %s\n", latest.value_or("(none)").c_str());
  saver.restore(sess, *latest);
  auto p = sess.run(pred, new_inputs).to_vector<float>();
  std::printf("restored: W = %.4f, b = %.4f, predictions [%.4f, %.4f]\n",
              sess.run(W).scalar<float>(), sess.run(b).scalar<float>(), p[0], p[1]);
}
