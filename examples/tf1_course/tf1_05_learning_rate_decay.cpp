// TF1 course, lesson 5: a decaying learning rate with tf.train.exponential_decay over the
// global step.
//
// The schedule is a tensor computed from the global-step variable; minimize(...,
// global_step=...) increments that variable after each update, so the rate falls as
// training goes on: 0.2 * 0.5^floor(step / 50) with staircase=True (halved every 50
// steps). The model fits y = 2x^2 - x + 0.5 on 21 points of [-1, 1] with three weights.
//
// Checked against TensorFlow: the same program in Python (tf.compat.v1, graph mode)
// prints the same rates, losses and weights to 4 decimals.
#include <cstdio>
#include <vector>

#include <symflow/symflow.hpp>

namespace tf = symflow;

int main() {
  std::vector<float> xs, ys;
  for (int i = 0; i <= 20; ++i) {
    float x = -1.0f + 0.1f * static_cast<float>(i);
    xs.push_back(x);
    ys.push_back(2.0f * x * x - x + 0.5f);
  }
  auto x = tf::constant(tf::Value::from_vector(xs, {21}), "x");
  auto y = tf::constant(tf::Value::from_vector(ys, {21}), "y");

  // y_hat = a * x^2 + b * x + c, all weights starting at 0.
  tf::Variable a(tf::Value(0.0f), {.name = "a"});
  tf::Variable b(tf::Value(0.0f), {.name = "b"});
  tf::Variable c(tf::Value(0.0f), {.name = "c"});
  auto loss = tf::reduce_mean(tf::square(a * x * x + b * x + c - y));

  // global_step = tf.train.get_or_create_global_step()
  // lr = tf.train.exponential_decay(0.2, global_step, 50, 0.5, staircase=True)
  auto global_step = tf::train::get_or_create_global_step();
  auto lr = tf::train::exponential_decay(0.2, global_step, 50, 0.5, {.staircase = true});
  auto train_op =
      tf::train::GradientDescentOptimizer(lr).minimize(loss, {.global_step = global_step});

  tf::Session sess;
  sess.run(tf::global_variables_initializer());
  for (int i = 0; i < 200; ++i) {
    // The rate of this step is read before the update increments the step.
    auto out = sess.run({global_step, lr, loss});
    sess.run(train_op);
    if (i % 20 == 0)
      std::printf("step %3lld  lr %.4f  loss %.4f\n",
                  static_cast<long long>(out[0].scalar<std::int64_t>()), out[1].scalar<float>(),
                  out[2].scalar<float>());
  }
  std::printf("global_step %lld\n",
              static_cast<long long>(sess.run(global_step).scalar<std::int64_t>()));
  std::printf("a = %.4f, b = %.4f, c = %.4f\n", sess.run(a).scalar<float>(),
              sess.run(b).scalar<float>(), sess.run(c).scalar<float>());
}
