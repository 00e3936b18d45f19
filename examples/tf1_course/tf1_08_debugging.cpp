// TF1 course, lesson 8: finding NaNs and broken assumptions with tf.check_numerics,
// tf.add_check_numerics_ops, tf.Print and tf.debugging.assert_positive.
//
// Each check is an op in the graph: it does nothing until a run reaches it, and then
// fails the run with an InvalidArgumentError (Python's tf.errors.InvalidArgumentError)
// whose message says what went wrong and whose node_name says where.
//
// Checked against TensorFlow: the same program in Python (tf.compat.v1, graph mode)
// prints the same values and the same error messages and node names. tf.Print writes to
// standard error, which the example's test does not compare; the values it shows are
// printed to standard output as well. One node name differs on purpose: TensorFlow wraps
// an Assert whose data are not all int32 or strings in a cond, so its failing node is
// ".../Assert/AssertGuard/Assert"; symflow builds the Assert directly (".../Assert/Assert").
#include <cstdio>
#include <iostream>
#include <string>

#include <symflow/ops/check_ops.hpp>
#include <symflow/ops/logging_ops.hpp>
#include <symflow/symflow.hpp>

namespace tf = symflow;

namespace {

// A float tensor's elements as "[a, b, ...]" with 4 decimals.
std::string show(const tf::Value& v) {
  std::string out = "[";
  char buf[32];
  for (float f : v.to_vector<float>()) {
    std::snprintf(buf, sizeof buf, "%s%.4f", out.size() > 1 ? ", " : "", f);
    out += buf;
  }
  return out + "]";
}

}  // namespace

int main() {
  // 1. check_numerics: log of a negative number is NaN.
  auto x = tf::placeholder<float>({-1}, "x");
  auto log_x = tf::check_numerics(tf::log(x), "log of x");
  auto nan_mask = tf::is_nan(tf::log(x));  // to look without failing: tf.is_nan
  {
    tf::Session sess;
    std::cout << "is_nan(log([1, -1])) = " << sess.run(nan_mask, {{x, {1.0f, -1.0f}}}) << "\n";
    std::printf("log([1, 100]) = %s\n", show(sess.run(log_x, {{x, {1.0f, 100.0f}}})).c_str());
    try {
      sess.run(log_x, {{x, {1.0f, -1.0f}}});
    } catch (const tf::InvalidArgumentError& e) {
      std::cout << "InvalidArgumentError at " << e.node_name() << ": " << e.message() << "\n";
    }
  }

  // 2. add_check_numerics_ops: one CheckNumerics for every float tensor of the graph, run
  //    together with the fetches. Here log(0) is -inf (and 0 * log(0) would be NaN); the
  //    first check to fail names the tensor "Log:0".
  tf::reset_default_graph();
  {
    auto p = tf::placeholder<float>({-1}, "p");
    auto entropy = -tf::reduce_sum(p * tf::log(p), {}, false, "entropy");
    auto check_all = tf::add_check_numerics_ops();
    tf::Session sess;
    auto out = sess.run({entropy}, {{p, {0.5f, 0.5f}}}, {check_all});
    std::printf("entropy([0.5, 0.5]) = %.4f\n", out[0].scalar<float>());
    try {
      sess.run({entropy}, {{p, {0.0f, 1.0f}}}, {check_all});
    } catch (const tf::InvalidArgumentError& e) {
      std::cout << "InvalidArgumentError at " << e.node_name() << ": " << e.message() << "\n";
    }
  }

  // 3. Print: passes its input on, and writes the data tensors to standard error on
  //    every run ("x, 2x: [1 2 3][2 4 6]").
  tf::reset_default_graph();
  {
    auto v = tf::placeholder<float>({-1}, "v");
    auto doubled = v * 2.0f;
    auto shown = tf::Print(doubled, {v, doubled}, "x, 2x: ");
    tf::Session sess;
    std::printf("result = %s\n", show(sess.run(shown, {{v, {1.0f, 2.0f, 3.0f}}})).c_str());
  }

  // 4. assert_positive guards sqrt: the Assert runs first through a control dependency.
  tf::reset_default_graph();
  {
    auto q = tf::placeholder<float>({-1}, "q");
    auto positive = tf::debugging::assert_positive(q, {.message = "q must be positive"});
    tf::Output root;
    {
      tf::control_dependencies after({positive});
      root = tf::sqrt(q);
    }
    tf::Session sess;
    std::printf("sqrt([4, 9]) = %s\n", show(sess.run(root, {{q, {4.0f, 9.0f}}})).c_str());
    try {
      sess.run(root, {{q, {4.0f, -9.0f}}});
    } catch (const tf::InvalidArgumentError& e) {
      std::cout << "InvalidArgumentError at " << e.node_name() << ": " << e.message() << "\n";
    }
  }
}
