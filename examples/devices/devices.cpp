// Devices: where ops run, and a training loop on the GPU.
//
// Built against symflow::thrust_cpp, symflow::thrust_omp or symflow::cuda, every session
// has a "/device:GPU:0". Ops go there by default when the GPU backend has a kernel for them;
// symflow::device pins them; allow_soft_placement moves requests for missing devices.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include <symflow/symflow.hpp>
#include <symflow/train/train.hpp>

namespace tf = symflow;

int main() {
  tf::Graph g;
  auto guard = g.as_default();
  tf::set_random_seed(3);

  // y = sin(x0) + x1 / 2, fitted by a 2-32-1 network.
  auto x = tf::placeholder<float>({-1, 2}, "x");
  auto y = tf::placeholder<float>({-1, 1}, "y");
  tf::Variable w1(tf::random_normal({2, 32}, {.stddev = 0.5, .seed = 1}), {.name = "w1"});
  tf::Variable b1(tf::zeros({32}), {.name = "b1"});
  tf::Variable w2(tf::random_normal({32, 1}, {.stddev = 0.5, .seed = 2}), {.name = "w2"});
  tf::Variable b2(tf::zeros({1}), {.name = "b2"});
  auto hidden = tf::nn::relu(tf::matmul(x, w1) + b1, "hidden");
  auto prediction = tf::add(tf::matmul(hidden, w2), b2, "prediction");
  auto loss = tf::reduce_mean(tf::square(prediction - y), {}, false, "loss");
  tf::Operation train = tf::train::GradientDescentOptimizer(0.1).minimize(loss);

  // A summary pinned to the CPU, and one asked onto a GPU this machine does not have.
  tf::Output report, elsewhere;
  {
    tf::device cpu("/cpu:0");
    report = tf::reduce_max(tf::abs(prediction - y), {}, false, "report");
  }
  {
    tf::device second_gpu("/gpu:1");
    elsewhere = tf::multiply(loss, tf::constant(100.0f), "elsewhere");
  }

  std::vector<float> xs, ys;
  for (int i = 0; i < 64; ++i) {
    const float a = static_cast<float>(i % 8) / 4.0f - 1.0f;
    const float b = static_cast<float>(i / 8) / 4.0f - 1.0f;
    xs.insert(xs.end(), {a, b});
    ys.push_back(std::sin(a) + b / 2.0f);
  }
  const tf::FeedDict feeds{{x, tf::Value::from_vector(xs, {64, 2})},
                           {y, tf::Value::from_vector(ys, {64, 1})}};

  tf::ConfigProto config;
  config.allow_soft_placement = true;  // "/gpu:1" runs on "/gpu:0" instead
  tf::Session sess(g, config);
  sess.run(tf::global_variables_initializer());
  std::printf("devices:");
  for (const std::string& d : sess.list_devices()) std::printf(" %s", d.c_str());
  std::printf("\n");
  for (int step = 0; step <= 300; ++step) {
    if (step % 100 == 0)
      std::printf("step %3d  loss %.4f\n", step, sess.run(loss, feeds).scalar<float>());
    sess.run(train, feeds);
  }
  auto [worst, scaled] = [&] {
    auto v = sess.run({report, elsewhere}, feeds);
    return std::pair{v[0].scalar<float>(), v[1].scalar<float>()};
  }();
  std::printf("largest error %.3f, loss x 100 = %.2f\n", worst, scaled);
  for (const tf::Operation& op : {w1.op(), hidden.op(), report.op(), elsewhere.op()})
    std::printf("%-10s runs on %s\n", op.name().c_str(), sess.device_of(op).c_str());
  return 0;
}
