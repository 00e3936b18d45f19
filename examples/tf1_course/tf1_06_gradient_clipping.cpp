// TF1 course, lesson 6: gradient clipping, with minimize split into its two halves.
//
// opt.minimize(loss) is opt.compute_gradients(loss) (a list of (gradient, variable)
// pairs) followed by opt.apply_gradients(pairs). Between the two, the gradients can be
// changed: tf.clip_by_global_norm rescales them together so that their joint L2 norm is
// at most clip_norm, and returns the norm they had.
//
// The model fits y = 3x + 2 on inputs up to 9.5, so the first gradients are large (a
// norm of about 200): plain gradient descent jumps far at its first steps, the clipped
// one moves the weights by at most 0.02 * 5 per step, then runs unclipped once the
// norm falls below 5.
//
// Checked against TensorFlow: the same program in Python (tf.compat.v1, graph mode)
// prints the same norms, losses and weights to the decimals shown.
#include <cstdio>
#include <vector>

#include <symflow/symflow.hpp>

namespace tf = symflow;

int main() {
  std::vector<float> xs, ys;
  for (int i = 0; i < 20; ++i) {
    xs.push_back(0.5f * static_cast<float>(i));
    ys.push_back(3.0f * xs.back() + 2.0f);
  }
  auto x = tf::constant(tf::Value::from_vector(xs, {20}), "x");
  auto y = tf::constant(tf::Value::from_vector(ys, {20}), "y");

  tf::Variable W(tf::Value(0.0f), {.name = "W"});
  tf::Variable b(tf::Value(0.0f), {.name = "b"});
  auto loss = tf::reduce_mean(tf::square(W * x + b - y));

  tf::train::GradientDescentOptimizer opt(0.02);
  // Without clipping: train_plain = opt.minimize(loss)
  auto train_plain = opt.minimize(loss);

  // With clipping:
  //   grads_and_vars = opt.compute_gradients(loss)
  //   grads, vars = zip(*grads_and_vars)
  //   clipped, norm = tf.clip_by_global_norm(grads, 5.0)
  //   train_clipped = opt.apply_gradients(zip(clipped, vars))
  auto grads_and_vars = opt.compute_gradients(loss);
  std::vector<tf::Output> grads;
  for (const auto& [grad, var] : grads_and_vars) grads.push_back(grad);
  auto [clipped, norm] = tf::clip_by_global_norm(grads, 5.0);
  std::vector<tf::train::GradAndVar> clipped_and_vars;
  for (std::size_t i = 0; i < clipped.size(); ++i)
    clipped_and_vars.emplace_back(clipped[i], grads_and_vars[i].second);
  auto train_clipped = opt.apply_gradients(clipped_and_vars);
  auto clipped_norm = tf::global_norm(clipped);

  tf::Session sess;
  sess.run(tf::global_variables_initializer());
  std::printf("without clipping:\n");
  for (int step = 1; step <= 5; ++step) {
    sess.run(train_plain);
    std::printf("  step %d  loss %.3f\n", step, sess.run(loss).scalar<float>());
  }

  sess.run(tf::global_variables_initializer());  // start again from W = b = 0
  std::printf("with clip_by_global_norm(grads, 5.0):\n");
  for (int step = 1; step <= 300; ++step) {
    // The norm before and after clipping, both from the gradients of this step.
    auto out = sess.run({norm, clipped_norm});
    sess.run(train_clipped);
    if (step <= 3 || step % 50 == 0)
      std::printf("  step %3d  norm %.3f -> %.3f  loss %.2f\n", step, out[0].scalar<float>(),
                  out[1].scalar<float>(), sess.run(loss).scalar<float>());
  }
  std::printf("W = %.4f, b = %.4f\n", sess.run(W).scalar<float>(), sess.run(b).scalar<float>());
}
