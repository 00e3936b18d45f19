// make interop's symflow side of "TensorBoard reads symflow's log directory": trains a
// tiny linear model for 5 steps and writes LOGDIR with summary::FileWriter: the graph, the
// loss per step (tag "train/loss"), the weights' histogram per step ("train/weights"), an
// image of 8x8 RGB pixels ("train/pattern/image/0"), and an audio clip
// ("train/tone/audio/0"). It prints what it wrote, for tests/interop/tensorboard_check.py
// to compare with what TensorBoard loads and serves:
//   loss STEP VALUE       (the scalar at each step, %.9g)
//   node NAME             (every node of the graph)
// The image's pixels are (row * 32 + column * 4 + channel * 80) % 256, as uint8; the
// clip is 0.25 * sin(2 pi 440 t) at 8000 Hz for 400 frames.
//
//   symflow_interop_write_summaries LOGDIR
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <numbers>
#include <string>
#include <vector>

#include <symflow/io/summary_writer.hpp>  // summary::FileWriter: not in the umbrella
#include <symflow/ops/summary_ops.hpp>
#include <symflow/symflow.hpp>

namespace tf = symflow;

tf::Value pattern_image() {
  std::vector<std::uint8_t> pixels;
  for (int row = 0; row < 8; ++row)
    for (int column = 0; column < 8; ++column)
      for (int channel = 0; channel < 3; ++channel)
        pixels.push_back(static_cast<std::uint8_t>((row * 32 + column * 4 + channel * 80) % 256));
  return tf::Value::from_vector(pixels, {1, 8, 8, 3});
}

tf::Value tone() {
  std::vector<float> samples(400);
  for (std::size_t i = 0; i < samples.size(); ++i)
    samples[i] = 0.25f * static_cast<float>(std::sin(2.0 * std::numbers::pi * 440.0 *
                                                     static_cast<double>(i) / 8000.0));
  return tf::Value::from_vector(samples, {1, 400});
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s LOGDIR\n", argv[0]);
    return 2;
  }
  try {
    tf::Graph g;
    auto guard = g.as_default();
    auto x = tf::placeholder(tf::float32, tf::Shape({-1, 2}), "x");
    auto y = tf::placeholder(tf::float32, tf::Shape({-1, 1}), "y");
    tf::Variable w(tf::constant<float>({{0.5f}, {-0.25f}}), {.name = "w"});
    auto loss = tf::identity(tf::reduce_mean(tf::square(tf::matmul(x, w) - y)), "loss");
    tf::Operation train = tf::train::GradientDescentOptimizer(0.1).minimize(loss);
    {
      tf::name_scope scope("train");
      tf::summary::scalar("loss", loss);
      tf::summary::histogram("weights", w.value());
      tf::summary::image("pattern", tf::constant(pattern_image()));
      tf::summary::audio("tone", tf::constant(tone()), 8000.0f);
    }
    auto merged = *tf::summary::merge_all();
    tf::Session sess(g);
    sess.run(tf::global_variables_initializer());
    const auto xs = tf::Value::from_vector<float>({1, 2, 3, 4, -1, 0.5f}, {3, 2});
    const auto ys = tf::Value::from_vector<float>({1, 0, 2}, {3, 1});
    {
      tf::summary::FileWriter writer(argv[1], g);
      for (int step = 0; step < 5; ++step) {
        auto got =
            sess.run({tf::Fetch(merged), tf::Fetch(loss), tf::Fetch(train)}, {{x, xs}, {y, ys}});
        writer.add_summary(got[0], step);
        std::printf("loss %d %.9g\n", step, static_cast<double>(got[1].to_vector<float>()[0]));
      }
    }  // the destructor writes every event
    for (const tf::Operation& op : g.get_operations()) std::printf("node %s\n", op.name().c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "symflow_interop_write_summaries: %s\n", e.what());
    return 1;
  }
}
