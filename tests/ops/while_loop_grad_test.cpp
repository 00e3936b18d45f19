// Gradients through tf.while_loop, in TensorFlow 1.x's graph form: a counter in the
// forward loop, a backward loop that runs as many iterations, stacks for the forward
// values, accumulators for tensors read from outside. Values and node names are
// TensorFlow 2.21's (tf.compat.v1, control flow v1) for the same programs.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <symflow/symflow.hpp>

#include "../gradient_check.hpp"

namespace symflow_test_ops_while_loop_grad_test {

namespace tf = symflow;

// A line per node, "name type inputs ^controls", for the nodes from `first` on (sorted,
// with each node's control inputs sorted), to compare with TensorFlow's GraphDef.
std::vector<std::string> sorted_listing(std::vector<std::string> lines) {
  for (std::string& line : lines) {
    std::vector<std::string> words, controls;
    std::istringstream in(line);
    for (std::string w; in >> w;) (w[0] == '^' ? controls : words).push_back(w);
    std::sort(controls.begin(), controls.end());
    line.clear();
    for (const auto* part : {&words, &controls})
      for (const std::string& w : *part) line += (line.empty() ? "" : " ") + w;
  }
  std::sort(lines.begin(), lines.end());
  return lines;
}
std::vector<std::string> listing_from(const tf::Graph& g, const std::string& first) {
  std::vector<std::string> built;
  bool started = false;
  for (const tf::Operation& op : g.get_operations()) {
    started = started || op.name() == first;
    if (!started) continue;
    std::string line = op.name() + " " + std::string(op.type());
    for (const tf::Output& in : op.inputs())
      line += " " + (in.index() == 0 ? in.op().name() : in.name());
    for (const tf::Operation& c : op.control_inputs()) line += " ^" + c.name();
    built.push_back(line);
  }
  return sorted_listing(built);
}

TEST_CASE("ops/while_loop gradients: values and graph match TensorFlow's") {
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder<float>(tf::Shape{}, "x");
  auto w = tf::constant(3.0f, "w");
  auto i0 = tf::constant(0);
  auto [i, a] = tf::while_loop([](const tf::Output& i, const tf::Output&) { return i < 3; },
                               [&](const tf::Output& i, const tf::Output& a) {
                                 return std::tuple{i + 1, a * x + w};
                               },
                               std::tuple{i0, tf::Output(x)});
  (void)i;
  auto grads = tf::gradients(a, {x, w});
  REQUIRE(grads.size() == 2);
  CHECK(grads[0].name() == "gradients/AddN:0");
  CHECK(grads[1].name() == "gradients/while/add_1/Enter_grad/b_acc_3:0");
  tf::Session s(g);
  auto out = s.run({a, grads[0], grads[1]}, {{x, tf::Value(2.0f)}});
  CHECK(out[0].scalar<float>() == 37.0f);
  CHECK(out[1].scalar<float>() == 47.0f);
  CHECK(out[2].scalar<float>() == 7.0f);

  // The nodes TensorFlow builds for the same gradient, each with its inputs. Three
  // differ from TensorFlow 2.21 outside the loop's own structure: sums are `Add`, as
  // symflow's `+` is (TensorFlow 1.x's op; 2.x writes AddV2); the seed is
  // "gradients/Fill", as tests/train/gradients_test.cpp has it; and Mul's gradient
  // multiplies x * grad (TensorFlow's general form; 2.21 takes a shortcut for equal static
  // shapes and writes grad * x).
  const std::vector<std::string> expected = {
      "gradients/f_count Const",
      "gradients/f_count_1 Enter gradients/f_count",
      "gradients/Merge Merge gradients/f_count_1 gradients/NextIteration",
      "gradients/Switch Switch gradients/Merge while/LoopCond",
      "gradients/Add/y Const ^while/Identity",
      "gradients/Add Add gradients/Switch:1 gradients/Add/y",
      "gradients/NextIteration NextIteration gradients/Add "
      "^gradients/while/mul_grad/Mul_1/StackPushV2",
      "gradients/f_count_2 Exit gradients/Switch",
      "gradients/b_count Const",
      "gradients/b_count_1 Enter gradients/f_count_2",
      "gradients/Merge_1 Merge gradients/b_count_1 gradients/NextIteration_1",
      "gradients/GreaterEqual GreaterEqual gradients/Merge_1 gradients/GreaterEqual/Enter",
      "gradients/GreaterEqual/Enter Enter gradients/b_count",
      "gradients/b_count_2 LoopCond gradients/GreaterEqual",
      "gradients/Switch_1 Switch gradients/Merge_1 gradients/b_count_2",
      "gradients/Sub Sub gradients/Switch_1:1 gradients/GreaterEqual/Enter",
      "gradients/NextIteration_1 NextIteration gradients/Sub "
      "^gradients/while/mul_grad/Mul_1/b_sync",
      "gradients/b_count_3 Exit gradients/Switch_1",
      "gradients/while/Exit_1_grad/b_exit Enter gradients/Fill",
      "gradients/while/Switch_1_grad/b_switch Merge gradients/while/Exit_1_grad/b_exit "
      "gradients/while/Switch_1_grad_1/NextIteration",
      "gradients/while/Merge_1_grad/Switch Switch gradients/while/Switch_1_grad/b_switch "
      "gradients/b_count_2",
      "gradients/while/Enter_1_grad/Exit Exit gradients/while/Merge_1_grad/Switch",
      "gradients/while/mul_grad/Mul Mul gradients/while/Merge_1_grad/Switch:1 "
      "gradients/while/mul_grad/Mul/Enter",
      "gradients/while/mul_grad/Mul/Enter Enter x",
      "gradients/while/mul_grad/Mul_1 Mul gradients/while/mul_grad/Mul_1/StackPopV2 "
      "gradients/while/Merge_1_grad/Switch:1",
      "gradients/while/mul_grad/Mul_1/Const Const",
      "gradients/while/mul_grad/Mul_1/f_acc StackV2 gradients/while/mul_grad/Mul_1/Const",
      "gradients/while/mul_grad/Mul_1/Enter Enter gradients/while/mul_grad/Mul_1/f_acc",
      "gradients/while/mul_grad/Mul_1/StackPushV2 StackPushV2 "
      "gradients/while/mul_grad/Mul_1/Enter while/Identity_1 ^gradients/Add",
      "gradients/while/mul_grad/Mul_1/StackPopV2 StackPopV2 "
      "gradients/while/mul_grad/Mul_1/StackPopV2/Enter ^gradients/Sub",
      "gradients/while/mul_grad/Mul_1/StackPopV2/Enter Enter "
      "gradients/while/mul_grad/Mul_1/f_acc",
      "gradients/while/mul_grad/Mul_1/b_sync ControlTrigger "
      "^gradients/while/mul_grad/Mul_1/StackPopV2",
      "gradients/while/add_1/Enter_grad/b_acc Const",
      "gradients/while/add_1/Enter_grad/b_acc_1 Enter gradients/while/add_1/Enter_grad/b_acc",
      "gradients/while/add_1/Enter_grad/b_acc_2 Merge gradients/while/add_1/Enter_grad/b_acc_1 "
      "gradients/while/add_1/Enter_grad/NextIteration",
      "gradients/while/add_1/Enter_grad/Switch Switch gradients/while/add_1/Enter_grad/b_acc_2 "
      "gradients/b_count_2",
      "gradients/while/add_1/Enter_grad/Add Add gradients/while/add_1/Enter_grad/Switch:1 "
      "gradients/while/Merge_1_grad/Switch:1",
      "gradients/while/add_1/Enter_grad/NextIteration NextIteration "
      "gradients/while/add_1/Enter_grad/Add",
      "gradients/while/add_1/Enter_grad/b_acc_3 Exit gradients/while/add_1/Enter_grad/Switch",
      "gradients/while/mul/Enter_grad/b_acc Const",
      "gradients/while/mul/Enter_grad/b_acc_1 Enter gradients/while/mul/Enter_grad/b_acc",
      "gradients/while/mul/Enter_grad/b_acc_2 Merge gradients/while/mul/Enter_grad/b_acc_1 "
      "gradients/while/mul/Enter_grad/NextIteration",
      "gradients/while/mul/Enter_grad/Switch Switch gradients/while/mul/Enter_grad/b_acc_2 "
      "gradients/b_count_2",
      "gradients/while/mul/Enter_grad/Add Add gradients/while/mul/Enter_grad/Switch:1 "
      "gradients/while/mul_grad/Mul_1",
      "gradients/while/mul/Enter_grad/NextIteration NextIteration "
      "gradients/while/mul/Enter_grad/Add",
      "gradients/while/mul/Enter_grad/b_acc_3 Exit gradients/while/mul/Enter_grad/Switch",
      "gradients/while/Switch_1_grad_1/NextIteration NextIteration gradients/while/mul_grad/Mul",
      "gradients/AddN AddN gradients/while/Enter_1_grad/Exit "
      "gradients/while/mul/Enter_grad/b_acc_3",
  };
  CHECK(listing_from(g, "gradients/f_count") == sorted_listing(expected));
  // The frames: the forward loop's, and the backward loop's under the gradients' scope.
  CHECK(g.get_operation_by_name("gradients/b_count_1").get_attr<std::string>("frame_name") ==
        "gradients/while/while_context");
  CHECK(g.get_operation_by_name("gradients/while/mul_grad/Mul_1/Enter")
            .get_attr<std::string>("frame_name") == "while/while_context");
}

TEST_CASE("ops/while_loop gradients: loops TensorFlow differentiates, against its values") {
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder<float>(tf::Shape{}, "x");
  tf::Session s(g);
  // Doubling until the value reaches 10: from 3, twice.
  tf::Output doubled = tf::while_loop([](const tf::Output& v) { return v < 10.0f; },
                                      [](const tf::Output& v) { return v * 2.0f; }, tf::Output(x));
  auto dd = tf::gradients(doubled, {x});
  CHECK(dd[0].name() == "gradients/while/Enter_grad/Exit:0");
  CHECK(s.run(dd[0], {{x, tf::Value(3.0f)}}).scalar<float>() == 4.0f);
  // A loop variable whose next value does not depend on its last (b = 2x): its backward
  // loop variable is zeros after the first backward iteration.
  auto [i, a, b] = tf::while_loop(
      [](const tf::Output& i, const tf::Output&, const tf::Output&) { return i < 3; },
      [&](const tf::Output& i, const tf::Output& a, const tf::Output& b) {
        return std::tuple{i + 1, a * b, x * 2.0f};
      },
      std::tuple{tf::constant(0), tf::Output(x), tf::Output(x)});
  (void)i;
  auto ga = tf::gradients(a, {x});
  auto gb = tf::gradients(b, {x});  // a's Exit is unused: it gets zeros
  auto out = s.run({a, ga[0], gb[0]}, {{x, tf::Value(1.5f)}});
  CHECK(out[0].scalar<float>() == 20.25f);
  CHECK(out[1].scalar<float>() == 54.0f);
  CHECK(out[2].scalar<float>() == 2.0f);
  // maximum_iterations: x^4 after two squarings.
  tf::Output m = tf::while_loop([](const tf::Output& v) { return v < 1000.0f; },
                                [](const tf::Output& v) { return v * v; }, tf::Output(x),
                                {.maximum_iterations = tf::TensorArg(2)});
  auto gm = tf::gradients(m, {x});
  out = s.run({m, gm[0]}, {{x, tf::Value(1.5f)}});
  CHECK(out[0].scalar<float>() == 5.0625f);
  CHECK(out[1].scalar<float>() == 13.5f);
  // back_prop = false: no gradient flows, as TensorFlow's None.
  tf::Output frozen = tf::while_loop([](const tf::Output& v) { return v < 10.0f; },
                                     [](const tf::Output& v) { return v * 2.0f; }, tf::Output(x),
                                     {.back_prop = false});
  CHECK_FALSE(tf::gradients(frozen, {x})[0].valid());
}

TEST_CASE("ops/while_loop gradients: match central differences") {
  // An RNN-like loop: h = tanh(h W + b), four times, with W and b read from outside.
  tf::test::check_gradients(
      [](const std::vector<tf::Output>& xs) {
        auto [i, h] =
            tf::while_loop([](const tf::Output& i, const tf::Output&) { return i < 4; },
                           [&](const tf::Output& i, const tf::Output& h) {
                             return std::tuple{i + 1, tf::tanh(tf::matmul(h, xs[1]) + xs[2])};
                           },
                           std::tuple{tf::constant(0), xs[0]});
        (void)i;
        return h;
      },
      {tf::Value::from_vector(std::vector<double>{0.5, -0.25, 0.1, 0.3}, {2, 2}),
       tf::Value::from_vector(std::vector<double>{0.8, -0.3, 0.2, 0.6}, {2, 2}),
       tf::Value::from_vector(std::vector<double>{0.1, -0.2}, {2})},
      1e-5);
  // Several float loop variables feeding each other, and a loop count that depends on them.
  tf::test::check_gradients(
      [](const std::vector<tf::Output>& xs) {
        auto [a, b] = tf::while_loop(
            [](const tf::Output& a, const tf::Output&) { return tf::reduce_sum(a) < 20.0; },
            [&](const tf::Output& a, const tf::Output& b) {
              return std::tuple{a * 1.5 + b, tf::sin(b) * xs[2]};
            },
            std::tuple{xs[0], xs[1]});
        return a * b;
      },
      {tf::Value::from_vector(std::vector<double>{1.0, 2.0}, {2}),
       tf::Value::from_vector(std::vector<double>{0.5, -0.5}, {2}),
       tf::Value::from_vector(std::vector<double>{1.25, 0.75}, {2})},
      1e-5);
}

TEST_CASE("ops/while_loop gradients: through TensorArrays read and written in the loop") {
  // The dynamic_rnn pattern: the input unstacked into one array, read at t; the outputs
  // written to another and stacked after the loop. Values are TensorFlow's.
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder<float>(tf::Shape{4, 2}, "x");
  auto w = tf::placeholder<float>(tf::Shape{2}, "w");
  tf::TensorArray inputs = tf::TensorArray(tf::float32, {.size = 4}).unstack(x);
  tf::TensorArray outputs(tf::float32, {.size = 4});
  auto [t, h, written] = tf::while_loop(
      [](const tf::Output& t, const tf::Output&, const tf::TensorArray&) { return t < 4; },
      [&](const tf::Output& t, const tf::Output& h, const tf::TensorArray& o) {
        tf::Output next = tf::tanh(inputs.read(t) * w + h);
        return std::tuple{t + 1, next, o.write(t, next)};
      },
      std::tuple{tf::constant(0), tf::zeros({2}), outputs});
  (void)t;
  tf::Output y = written.stack();
  tf::Output loss = tf::reduce_sum(y * y) + tf::reduce_sum(h);
  auto grads = tf::gradients(loss, {x, w});
  tf::Session s(g);
  auto out = s.run({loss, grads[0], grads[1]},
                   {{x, tf::Value({{0.5f, -1.0f}, {0.25f, 0.75f}, {-0.5f, 1.5f}, {1.0f, 0.1f}})},
                    {w, tf::Value({0.8f, -0.6f})}});
  CHECK(out[0].scalar<float>() == doctest::Approx(2.1995509f).epsilon(1e-6));
  const std::vector<float> dx = {1.7271038f, -0.18442895f, 1.4105781f, 0.3852764f,
                                 1.104442f,  0.49239972f,  0.925906f,  0.09079602f};
  for (std::size_t k = 0; k < dx.size(); ++k)
    CHECK(out[1].to_vector<float>()[k] == doctest::Approx(dx[k]).epsilon(1e-5));
  CHECK(out[2].to_vector<float>()[0] == doctest::Approx(1.9873519f).epsilon(1e-5));
  CHECK(out[2].to_vector<float>()[1] == doctest::Approx(-2.035109f).epsilon(1e-5));
}

TEST_CASE("ops/while_loop gradients: through a cond inside the loop") {
  // Each iteration takes one branch; the backward loop pops the branch's values only in
  // the iterations that took it, switched on the predicate of the same iteration.
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder<float>(tf::Shape{}, "x");
  auto [i, a] = tf::while_loop([](const tf::Output& i, const tf::Output&) { return i < 4; },
                               [&](const tf::Output& i, const tf::Output& a) {
                                 tf::Output next = tf::cond(
                                     a > 2.0f, [&] { return a * x; }, [&] { return a + x * x; });
                                 return std::tuple{i + 1, next};
                               },
                               std::tuple{tf::constant(0), tf::Output(x)});
  (void)i;
  auto gx = tf::gradients(a, {x});
  // The stacks TensorFlow makes: the predicate's, and one for the Mul's input in the
  // true branch, popped through a Switch on the popped predicate.
  CHECK(g.get_operation_by_name("gradients/while/cond/Merge_grad/f_acc").type() == "StackV2");
  CHECK(g.get_operation_by_name("gradients/while/cond/mul_grad/Mul_1/StackPushV2")
            .inputs()
            .at(0)
            .op()
            .type() == "Switch");
  CHECK(g.get_operation_by_name("gradients/while/cond/mul_grad/Mul_1/StackPopV2")
            .inputs()
            .at(0)
            .op()
            .type() == "Switch");
  tf::Session s(g);
  // TensorFlow: 12.65625 and 38.8125 from 1.5; 1.5 and 5 from 0.5.
  auto out = s.run({a, gx[0]}, {{x, tf::Value(1.5f)}});
  CHECK(out[0].scalar<float>() == doctest::Approx(12.65625f).epsilon(1e-6));
  CHECK(out[1].scalar<float>() == doctest::Approx(38.8125f).epsilon(1e-6));
  out = s.run({a, gx[0]}, {{x, tf::Value(0.5f)}});
  CHECK(out[0].scalar<float>() == doctest::Approx(1.5f).epsilon(1e-6));
  CHECK(out[1].scalar<float>() == doctest::Approx(5.0f).epsilon(1e-6));
  // And against central differences, with both branches taken in one run.
  tf::test::check_gradients(
      [](const std::vector<tf::Output>& xs) {
        auto [j, v] = tf::while_loop([](const tf::Output& j, const tf::Output&) { return j < 5; },
                                     [&](const tf::Output& j, const tf::Output& v) {
                                       tf::Output next = tf::cond(
                                           tf::reduce_sum(v) > 1.0, [&] { return v * xs[1] - 0.5; },
                                           [&] { return tf::sin(v) + xs[1] * xs[1]; });
                                       return std::tuple{j + 1, next};
                                     },
                                     std::tuple{tf::constant(0), xs[0]});
        (void)j;
        return v;
      },
      {tf::Value::from_vector(std::vector<double>{0.3, 0.2}, {2}),
       tf::Value::from_vector(std::vector<double>{0.9, 1.1}, {2})},
      1e-5);
}

// A loop inside another: values are TensorFlow 2.21's (tf.compat.v1, control flow v1).
TEST_CASE("ops/while_loop gradients: through a loop nested in another") {
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder<float>(tf::Shape{}, "x");
  tf::Session s(g);
  auto value_and_grad = [&](const tf::Output& y, float feed) {
    auto grads = tf::gradients(y, {x});
    REQUIRE(grads[0].valid());
    auto out = s.run({y, grads[0]}, {{x, tf::Value(feed)}});
    return std::pair{out[0].scalar<float>(), out[1].scalar<float>()};
  };
  SUBCASE("x read through two constant Enters; two inner iterations per outer one") {
    auto [i, a] = tf::while_loop([](const tf::Output& i, const tf::Output&) { return i < 3; },
                                 [&](const tf::Output& i, const tf::Output& a) {
                                   auto [j, b] = tf::while_loop(
                                       [](const tf::Output& j, const tf::Output&) { return j < 2; },
                                       [&](const tf::Output& j, const tf::Output& b) {
                                         return std::tuple{j + 1, b * x};
                                       },
                                       std::tuple{tf::constant(0), a});
                                   (void)j;
                                   return std::tuple{i + 1, b + 1.0f};
                                 },
                                 std::tuple{tf::constant(0), tf::Output(x)});
    (void)i;
    auto [y, dy] = value_and_grad(a, 1.5f);
    CHECK(y == 25.3984375f);
    CHECK(dy == 96.234375f);
    // TensorFlow's nodes for the same gradient, but for the three differences of the first
    // test case (Add for AddV2, the seed, the order of Mul's inputs).
    const std::vector<std::string> expected = {
        "gradients/Shape Shape while/Exit_1",
        "gradients/grad_ys_0 Const",
        "gradients/Fill Fill gradients/Shape gradients/grad_ys_0",
        "gradients/f_count Const",
        "gradients/f_count_1 Enter gradients/f_count",
        "gradients/Merge Merge gradients/f_count_1 gradients/NextIteration",
        "gradients/Switch Switch gradients/Merge while/LoopCond",
        "gradients/Add/y Const ^while/Identity",
        "gradients/Add Add gradients/Switch:1 gradients/Add/y",
        "gradients/NextIteration NextIteration gradients/Add ^gradients/StackPushV2",
        "gradients/f_count_2 Exit gradients/Switch",
        "gradients/b_count Const",
        "gradients/b_count_1 Enter gradients/f_count_2",
        "gradients/Merge_1 Merge gradients/b_count_1 gradients/NextIteration_1",
        "gradients/GreaterEqual GreaterEqual gradients/Merge_1 gradients/GreaterEqual/Enter",
        "gradients/GreaterEqual/Enter Enter gradients/b_count",
        "gradients/b_count_2 LoopCond gradients/GreaterEqual",
        "gradients/Switch_1 Switch gradients/Merge_1 gradients/b_count_2",
        "gradients/Sub Sub gradients/Switch_1:1 gradients/GreaterEqual/Enter",
        "gradients/NextIteration_1 NextIteration gradients/Sub ^gradients/b_sync",
        "gradients/b_count_3 Exit gradients/Switch_1",
        "gradients/f_count_3 Const ^gradients/Add ^while/Identity",
        "gradients/f_count_4 Enter gradients/f_count_3",
        "gradients/Merge_2 Merge gradients/f_count_4 gradients/NextIteration_2",
        "gradients/Switch_2 Switch gradients/Merge_2 while/while/LoopCond",
        "gradients/Add_1/y Const ^while/while/Identity",
        "gradients/Add_1 Add gradients/Switch_2:1 gradients/Add_1/y",
        "gradients/NextIteration_2 NextIteration gradients/Add_1"
        " ^gradients/while/while/mul_grad/Mul_1/StackPushV2",
        "gradients/f_count_5 Exit gradients/Switch_2",
        "gradients/Const Const",
        "gradients/f_acc StackV2 gradients/Const",
        "gradients/Enter Enter gradients/f_acc",
        "gradients/StackPushV2 StackPushV2 gradients/Enter gradients/f_count_5 ^gradients/Add",
        "gradients/StackPopV2 StackPopV2 gradients/StackPopV2/Enter ^gradients/Sub",
        "gradients/StackPopV2/Enter Enter gradients/f_acc",
        "gradients/b_sync ControlTrigger ^gradients/StackPopV2 ^gradients/b_count_7",
        "gradients/b_count_4 Const ^gradients/Sub",
        "gradients/b_count_5 Enter gradients/StackPopV2",
        "gradients/Merge_3 Merge gradients/b_count_5 gradients/NextIteration_3",
        "gradients/GreaterEqual_1 GreaterEqual gradients/Merge_3 gradients/GreaterEqual_1/Enter",
        "gradients/GreaterEqual_1/Enter Enter gradients/b_count_4",
        "gradients/b_count_6 LoopCond gradients/GreaterEqual_1",
        "gradients/Switch_3 Switch gradients/Merge_3 gradients/b_count_6",
        "gradients/Sub_1 Sub gradients/Switch_3:1 gradients/GreaterEqual_1/Enter",
        "gradients/NextIteration_3 NextIteration gradients/Sub_1"
        " ^gradients/while/while/mul_grad/Mul_1/b_sync",
        "gradients/b_count_7 Exit gradients/Switch_3",
        "gradients/while/Exit_1_grad/b_exit Enter gradients/Fill",
        "gradients/while/Switch_1_grad/b_switch Merge gradients/while/Exit_1_grad/b_exit"
        " gradients/while/Switch_1_grad_1/NextIteration",
        "gradients/while/Merge_1_grad/Switch Switch gradients/while/Switch_1_grad/b_switch"
        " gradients/b_count_2",
        "gradients/while/Enter_1_grad/Exit Exit gradients/while/Merge_1_grad/Switch",
        "gradients/while/while/Exit_1_grad/b_exit Enter gradients/while/Merge_1_grad/Switch:1",
        "gradients/while/while/Switch_1_grad/b_switch Merge"
        " gradients/while/while/Exit_1_grad/b_exit "
        "gradients/while/while/Switch_1_grad_1/NextIteration",
        "gradients/while/while/Merge_1_grad/Switch Switch"
        " gradients/while/while/Switch_1_grad/b_switch gradients/b_count_6",
        "gradients/while/while/Enter_1_grad/Exit Exit gradients/while/while/Merge_1_grad/Switch",
        "gradients/while/while/mul_grad/Mul Mul gradients/while/while/Merge_1_grad/Switch:1"
        " gradients/while/while/mul_grad/Mul/Enter_1",
        "gradients/while/while/mul_grad/Mul/Enter Enter x",
        "gradients/while/while/mul_grad/Mul/Enter_1 Enter"
        " gradients/while/while/mul_grad/Mul/Enter",
        "gradients/while/while/mul_grad/Mul_1 Mul"
        " gradients/while/while/mul_grad/Mul_1/StackPopV2 "
        "gradients/while/while/Merge_1_grad/Switch:1",
        "gradients/while/while/mul_grad/Mul_1/Const Const",
        "gradients/while/while/mul_grad/Mul_1/f_acc StackV2"
        " gradients/while/while/mul_grad/Mul_1/Const",
        "gradients/while/while/mul_grad/Mul_1/Enter Enter"
        " gradients/while/while/mul_grad/Mul_1/f_acc",
        "gradients/while/while/mul_grad/Mul_1/Enter_1 Enter"
        " gradients/while/while/mul_grad/Mul_1/Enter",
        "gradients/while/while/mul_grad/Mul_1/StackPushV2 StackPushV2"
        " gradients/while/while/mul_grad/Mul_1/Enter_1 while/while/Identity_1 ^gradients/Add_1",
        "gradients/while/while/mul_grad/Mul_1/StackPopV2 StackPopV2"
        " gradients/while/while/mul_grad/Mul_1/StackPopV2/Enter_1 ^gradients/Sub_1",
        "gradients/while/while/mul_grad/Mul_1/StackPopV2/Enter Enter"
        " gradients/while/while/mul_grad/Mul_1/f_acc",
        "gradients/while/while/mul_grad/Mul_1/StackPopV2/Enter_1 Enter"
        " gradients/while/while/mul_grad/Mul_1/StackPopV2/Enter",
        "gradients/while/while/mul_grad/Mul_1/b_sync ControlTrigger"
        " ^gradients/while/while/mul_grad/Mul_1/StackPopV2",
        "gradients/while/Switch_1_grad_1/NextIteration NextIteration"
        " gradients/while/while/Enter_1_grad/Exit",
        "gradients/while/while/mul/Enter_1_grad/b_acc Const ^gradients/Sub",
        "gradients/while/while/mul/Enter_1_grad/b_acc_1 Enter"
        " gradients/while/while/mul/Enter_1_grad/b_acc",
        "gradients/while/while/mul/Enter_1_grad/b_acc_2 Merge"
        " gradients/while/while/mul/Enter_1_grad/b_acc_1 "
        "gradients/while/while/mul/Enter_1_grad/NextIteration",
        "gradients/while/while/mul/Enter_1_grad/Switch Switch"
        " gradients/while/while/mul/Enter_1_grad/b_acc_2 gradients/b_count_6",
        "gradients/while/while/mul/Enter_1_grad/Add Add"
        " gradients/while/while/mul/Enter_1_grad/Switch:1 gradients/while/while/mul_grad/Mul_1",
        "gradients/while/while/mul/Enter_1_grad/NextIteration NextIteration"
        " gradients/while/while/mul/Enter_1_grad/Add",
        "gradients/while/while/mul/Enter_1_grad/b_acc_3 Exit"
        " gradients/while/while/mul/Enter_1_grad/Switch",
        "gradients/while/while/Switch_1_grad_1/NextIteration NextIteration"
        " gradients/while/while/mul_grad/Mul",
        "gradients/while/while/mul/Enter_grad/b_acc Const",
        "gradients/while/while/mul/Enter_grad/b_acc_1 Enter"
        " gradients/while/while/mul/Enter_grad/b_acc",
        "gradients/while/while/mul/Enter_grad/b_acc_2 Merge"
        " gradients/while/while/mul/Enter_grad/b_acc_1 "
        "gradients/while/while/mul/Enter_grad/NextIteration",
        "gradients/while/while/mul/Enter_grad/Switch Switch"
        " gradients/while/while/mul/Enter_grad/b_acc_2 gradients/b_count_2",
        "gradients/while/while/mul/Enter_grad/Add Add"
        " gradients/while/while/mul/Enter_grad/Switch:1 "
        "gradients/while/while/mul/Enter_1_grad/b_acc_3",
        "gradients/while/while/mul/Enter_grad/NextIteration NextIteration"
        " gradients/while/while/mul/Enter_grad/Add",
        "gradients/while/while/mul/Enter_grad/b_acc_3 Exit"
        " gradients/while/while/mul/Enter_grad/Switch",
        "gradients/AddN AddN gradients/while/Enter_1_grad/Exit"
        " gradients/while/while/mul/Enter_grad/b_acc_3",
    };
    CHECK(listing_from(g, "gradients/grad_ys_0") == sorted_listing(expected));
    // The inner loop's counts are kept by the outer loop; its backward loop runs inside
    // the outer one's, in a frame of its own.
    CHECK(g.get_operation_by_name("gradients/f_count_4").get_attr<std::string>("frame_name") ==
          "while/while/while_context");
    const tf::Operation inner_count = g.get_operation_by_name("gradients/b_count_5");
    CHECK(inner_count.type() == "Enter");
    CHECK(inner_count.get_attr<std::string>("frame_name") == "gradients/while/while/while_context");
    CHECK(inner_count.inputs().at(0).op().type() == "StackPopV2");
  }
  SUBCASE("loops that stop on their values") {
    tf::Output a =
        tf::while_loop([](const tf::Output& v) { return v < 100.0f; },
                       [](const tf::Output& v) {
                         return tf::while_loop([](const tf::Output& u) { return u < 50.0f; },
                                               [](const tf::Output& u) { return u * 3.0f; }, v);
                       },
                       tf::Output(x));
    auto [y, dy] = value_and_grad(a, 1.5f);
    CHECK(y == 121.5f);
    CHECK(dy == 81.0f);
  }
  SUBCASE("an inner count that changes with the outer iteration, reading an outer value") {
    auto [i, a] =
        tf::while_loop([](const tf::Output& i, const tf::Output&) { return i < 4; },
                       [&](const tf::Output& i, const tf::Output& a) {
                         tf::Output y = a * x;
                         auto [j, b] = tf::while_loop(
                             [&](const tf::Output& j, const tf::Output&) { return j < i; },
                             [&](const tf::Output& j, const tf::Output& b) {
                               return std::tuple{j + 1, b * y + tf::sin(b)};
                             },
                             std::tuple{tf::constant(0), a});
                         (void)j;
                         return std::tuple{i + 1, b};
                       },
                       std::tuple{tf::constant(0), tf::Output(x)});
    (void)i;
    auto [y, dy] = value_and_grad(a, 0.7f);
    CHECK(y == doctest::Approx(5.951534748077393).epsilon(1e-6));
    CHECK(dy == doctest::Approx(104.98939514160156).epsilon(1e-5));
    auto out = s.run({a, tf::gradients(a, {x})[0]}, {{x, tf::Value(-0.4f)}});
    CHECK(out[0].scalar<float>() == doctest::Approx(-0.9134776592254639).epsilon(1e-6));
    CHECK(out[1].scalar<float>() == doctest::Approx(5.848641395568848).epsilon(1e-5));
  }
  SUBCASE("a cond inside the inner loop") {
    auto [i, a] = tf::while_loop([](const tf::Output& i, const tf::Output&) { return i < 2; },
                                 [&](const tf::Output& i, const tf::Output& a) {
                                   auto [j, b] = tf::while_loop(
                                       [](const tf::Output& j, const tf::Output&) { return j < 3; },
                                       [&](const tf::Output& j, const tf::Output& b) {
                                         tf::Output next = tf::cond(
                                             b > 1.0f, [&] { return b * 0.5f; },
                                             [&] { return b * x + 0.25f; });
                                         return std::tuple{j + 1, next};
                                       },
                                       std::tuple{tf::constant(0), a});
                                   (void)j;
                                   return std::tuple{i + 1, b * a};
                                 },
                                 std::tuple{tf::constant(0), tf::Output(x)});
    (void)i;
    auto [y, dy] = value_and_grad(a, 1.3f);
    CHECK(y == doctest::Approx(0.7216636538505554).epsilon(1e-6));
    CHECK(dy == doctest::Approx(2.996917724609375).epsilon(1e-5));
    auto out = s.run({a, tf::gradients(a, {x})[0]}, {{x, tf::Value(0.6f)}});
    CHECK(out[0].scalar<float>() == doctest::Approx(0.212014839053154).epsilon(1e-6));
    CHECK(out[1].scalar<float>() == doctest::Approx(1.3088115453720093).epsilon(1e-5));
  }
}

TEST_CASE("ops/while_loop gradients: a loop inside a cond inside a loop") {
  // The inner loop runs only in the outer iterations whose cond takes its branch: its count
  // is pushed, and popped, only in those (TensorFlow 2.21's values).
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder<float>(tf::Shape{}, "x");
  auto [i, a] =
      tf::while_loop([](const tf::Output& i, const tf::Output&) { return i < 3; },
                     [&](const tf::Output& i, const tf::Output& a) {
                       tf::Output b = tf::cond(
                           a < 2.0f,
                           [&] {
                             auto [j, inner] = tf::while_loop(
                                 [](const tf::Output& j, const tf::Output&) { return j < 2; },
                                 [&](const tf::Output& j, const tf::Output& v) {
                                   return std::tuple{j + 1, v * x};
                                 },
                                 std::tuple{tf::constant(0), a});
                             (void)j;
                             return inner;
                           },
                           [&] { return a * 0.5f; });
                       return std::tuple{i + 1, b + 0.25f};
                     },
                     std::tuple{tf::constant(0), tf::Output(x)});
  (void)i;
  auto grads = tf::gradients(a, {x});
  tf::Session s(g);
  auto out = s.run({a, grads[0]}, {{x, tf::Value(0.9f)}});  // the branch every time
  CHECK(out[0].scalar<float>() == doctest::Approx(1.0948216915130615).epsilon(1e-6));
  CHECK(out[1].scalar<float>() == doctest::Approx(4.899085998535156).epsilon(1e-5));
  out = s.run({a, grads[0]}, {{x, tf::Value(1.3f)}});  // the other branch once
  CHECK(out[0].scalar<float>() == doctest::Approx(2.7402145862579346).epsilon(1e-6));
  CHECK(out[1].scalar<float>() == doctest::Approx(8.115248680114746).epsilon(1e-5));
}

TEST_CASE("ops/while_loop gradients: taken inside another loop's body") {
  // Each outer iteration differentiates its own inner loop, p = xi^(i+1): an inner loop
  // whose gradient is built in the outer body, its stack and backward loop made anew in
  // every outer iteration. The gradient with respect to x, read from outside, passes the
  // outer loop's Enter unchanged (TensorFlow 2.21's values and nodes).
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder<float>(tf::Shape{}, "x");
  std::vector<std::string> inner_grads;
  auto [i, acc] =
      tf::while_loop([](const tf::Output& i, const tf::Output&) { return i < 3; },
                     [&](const tf::Output& i, const tf::Output& acc) {
                       tf::Output xi = x + tf::cast(i, tf::float32);
                       auto [j, p] = tf::while_loop(
                           [&](const tf::Output& j, const tf::Output&) { return j < i + 1; },
                           [&](const tf::Output& j, const tf::Output& p) {
                             return std::tuple{j + 1, p * xi};
                           },
                           std::tuple{tf::constant(0), tf::constant(1.0f)});
                       (void)j;
                       tf::Output dxi = tf::gradients(p, {xi})[0];
                       tf::Output dx = tf::gradients(p, {x})[0];
                       inner_grads = {dxi.name(), dx.name()};
                       return std::tuple{i + 1, acc + dxi + 10.0f * dx};
                     },
                     std::tuple{tf::constant(0), tf::constant(0.0f)});
  (void)i;
  CHECK(inner_grads ==
        std::vector<std::string>{"while/gradients/while/while/mul/Enter_grad/b_acc_3:0",
                                 "while/gradients_1/while/while/mul/Enter_grad/b_acc_3:0"});
  tf::Session s(g);
  // 11 * (1 + 2 xi_1 + 3 xi_2^2), xi_i = x + i.
  CHECK(s.run(acc, {{x, tf::Value(1.5f)}}).scalar<float>() == 470.25f);
  CHECK(s.run(acc, {{x, tf::Value(-0.5f)}}).scalar<float>() == 96.25f);

  // TensorFlow's nodes for the first gradient, but for the three differences of the first
  // test case.
  std::vector<std::string> built;
  for (const std::string& line : listing_from(g, "while/gradients/grad_ys_0"))
    if (line.rfind("while/gradients/", 0) == 0) built.push_back(line);
  const std::vector<std::string> expected = {
      "while/gradients/grad_ys_0 Const ^while/Identity",
      "while/gradients/Shape Shape while/while/Exit_1",
      "while/gradients/Fill Fill while/gradients/Shape while/gradients/grad_ys_0",
      "while/gradients/f_count Const ^while/Identity",
      "while/gradients/f_count_1 Enter while/gradients/f_count",
      "while/gradients/Merge Merge while/gradients/f_count_1 while/gradients/NextIteration",
      "while/gradients/Switch Switch while/gradients/Merge while/while/LoopCond",
      "while/gradients/Add/y Const ^while/while/Identity",
      "while/gradients/Add Add while/gradients/Switch:1 while/gradients/Add/y",
      "while/gradients/NextIteration NextIteration while/gradients/Add"
      " ^while/gradients/while/while/mul_grad/Mul_1/StackPushV2",
      "while/gradients/f_count_2 Exit while/gradients/Switch",
      "while/gradients/b_count Const ^while/Identity",
      "while/gradients/b_count_1 Enter while/gradients/f_count_2",
      "while/gradients/Merge_1 Merge while/gradients/b_count_1 while/gradients/NextIteration_1",
      "while/gradients/GreaterEqual/Enter Enter while/gradients/b_count",
      "while/gradients/GreaterEqual GreaterEqual while/gradients/Merge_1"
      " while/gradients/GreaterEqual/Enter",
      "while/gradients/b_count_2 LoopCond while/gradients/GreaterEqual",
      "while/gradients/Switch_1 Switch while/gradients/Merge_1 while/gradients/b_count_2",
      "while/gradients/Sub Sub while/gradients/Switch_1:1 while/gradients/GreaterEqual/Enter",
      "while/gradients/NextIteration_1 NextIteration while/gradients/Sub"
      " ^while/gradients/while/while/mul_grad/Mul_1/b_sync",
      "while/gradients/b_count_3 Exit while/gradients/Switch_1",
      "while/gradients/while/while/Exit_1_grad/b_exit Enter while/gradients/Fill",
      "while/gradients/while/while/Switch_1_grad/b_switch Merge"
      " while/gradients/while/while/Exit_1_grad/b_exit"
      " while/gradients/while/while/Switch_1_grad_1/NextIteration",
      "while/gradients/while/while/Merge_1_grad/Switch Switch"
      " while/gradients/while/while/Switch_1_grad/b_switch while/gradients/b_count_2",
      "while/gradients/while/while/Enter_1_grad/Exit Exit"
      " while/gradients/while/while/Merge_1_grad/Switch",
      "while/gradients/while/while/mul_grad/Mul/Enter Enter while/add",
      "while/gradients/while/while/mul_grad/Mul Mul"
      " while/gradients/while/while/Merge_1_grad/Switch:1"
      " while/gradients/while/while/mul_grad/Mul/Enter",
      "while/gradients/while/while/mul_grad/Mul_1/Const Const ^while/Identity",
      "while/gradients/while/while/mul_grad/Mul_1/f_acc StackV2"
      " while/gradients/while/while/mul_grad/Mul_1/Const",
      "while/gradients/while/while/mul_grad/Mul_1/Enter Enter"
      " while/gradients/while/while/mul_grad/Mul_1/f_acc",
      "while/gradients/while/while/mul_grad/Mul_1/StackPushV2 StackPushV2"
      " while/gradients/while/while/mul_grad/Mul_1/Enter while/while/Identity_1"
      " ^while/gradients/Add",
      "while/gradients/while/while/mul_grad/Mul_1/StackPopV2/Enter Enter"
      " while/gradients/while/while/mul_grad/Mul_1/f_acc",
      "while/gradients/while/while/mul_grad/Mul_1/StackPopV2 StackPopV2"
      " while/gradients/while/while/mul_grad/Mul_1/StackPopV2/Enter ^while/gradients/Sub",
      "while/gradients/while/while/mul_grad/Mul_1/b_sync ControlTrigger"
      " ^while/gradients/while/while/mul_grad/Mul_1/StackPopV2",
      "while/gradients/while/while/mul_grad/Mul_1 Mul"
      " while/gradients/while/while/mul_grad/Mul_1/StackPopV2"
      " while/gradients/while/while/Merge_1_grad/Switch:1",
      "while/gradients/while/while/mul/Enter_grad/b_acc Const ^while/Identity",
      "while/gradients/while/while/mul/Enter_grad/b_acc_1 Enter"
      " while/gradients/while/while/mul/Enter_grad/b_acc",
      "while/gradients/while/while/mul/Enter_grad/b_acc_2 Merge"
      " while/gradients/while/while/mul/Enter_grad/b_acc_1"
      " while/gradients/while/while/mul/Enter_grad/NextIteration",
      "while/gradients/while/while/mul/Enter_grad/Switch Switch"
      " while/gradients/while/while/mul/Enter_grad/b_acc_2 while/gradients/b_count_2",
      "while/gradients/while/while/mul/Enter_grad/Add Add"
      " while/gradients/while/while/mul/Enter_grad/Switch:1"
      " while/gradients/while/while/mul_grad/Mul_1",
      "while/gradients/while/while/mul/Enter_grad/NextIteration NextIteration"
      " while/gradients/while/while/mul/Enter_grad/Add",
      "while/gradients/while/while/mul/Enter_grad/b_acc_3 Exit"
      " while/gradients/while/while/mul/Enter_grad/Switch",
      "while/gradients/while/while/Switch_1_grad_1/NextIteration NextIteration"
      " while/gradients/while/while/mul_grad/Mul",
  };
  CHECK(built == sorted_listing(expected));
}

TEST_CASE("ops/while_loop gradients: taken inside a loop's body, through a cond there") {
  // The gradient reads the cond's values as they are, as ops of the body do (no Enter):
  // v <- v + d(cond(v > 0, v x, 2 x))/dx (TensorFlow 2.21's values).
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder<float>(tf::Shape{}, "x");
  auto v0 = tf::placeholder<float>(tf::Shape{}, "v0");
  auto [i, v] = tf::while_loop([](const tf::Output& i, const tf::Output&) { return i < 3; },
                               [&](const tf::Output& i, const tf::Output& v) {
                                 tf::Output y = tf::cond(
                                     v > 0.0f, [&] { return v * x; }, [&] { return x * 2.0f; });
                                 return std::tuple{i + 1, v + tf::gradients(y, {x})[0]};
                               },
                               std::tuple{tf::constant(0), tf::Output(v0)});
  (void)i;
  for (const tf::Operation& op : g.get_operations())
    if (op.name().rfind("while/gradients/", 0) == 0) CHECK_MESSAGE(op.type() != "Enter", op.name());
  tf::Session s(g);
  CHECK(s.run(v, {{x, tf::Value(1.5f)}, {v0, tf::Value(1.0f)}}).scalar<float>() == 8.0f);
  CHECK(s.run(v, {{x, tf::Value(1.5f)}, {v0, tf::Value(-3.0f)}}).scalar<float>() == 2.0f);
}

TEST_CASE("ops/while_loop gradients: not inside a loop's body through its initial value") {
  // TensorFlow's ValueError, naming the x the path goes back to.
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder<float>(tf::Shape{}, "x");
  auto run = [&] {
    tf::while_loop([](const tf::Output& i, const tf::Output&) { return i < 3; },
                   [&](const tf::Output& i, const tf::Output& v) {
                     return std::tuple{i + 1, v + tf::gradients(v * v, {x})[0]};
                   },
                   std::tuple{tf::constant(0), tf::Output(x)});
  };
  CHECK_THROWS_WITH_AS(run(),
                       "Cannot compute gradient inside while loop with respect to op 'x'. We do "
                       "not support taking the gradient wrt or through the initial value of a "
                       "loop variable. Gradients can be computed through loop invariants or wrt "
                       "the input parameters to the loop body.",
                       tf::ValueError);
}

TEST_CASE("ops/while_loop gradients: a loop variable off the path still leaves by an Exit") {
  // TensorFlow takes every loop variable's Enter into the backprop: the float one, whose
  // initial value is a constant, gets an Exit that nothing reads; the int counter, whose
  // Merge no gradient reaches, gets none.
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder<float>(tf::Shape{}, "x");
  auto [j, p] = tf::while_loop([](const tf::Output& j, const tf::Output&) { return j < 3; },
                               [&](const tf::Output& j, const tf::Output& p) {
                                 return std::tuple{j + 1, p * x};
                               },
                               std::tuple{tf::constant(0), tf::constant(1.0f)});
  (void)j;
  auto grads = tf::gradients(p, {x});
  const tf::Operation exit = g.get_operation_by_name("gradients/while/Enter_1_grad/Exit");
  CHECK(exit.type() == "Exit");
  CHECK(exit.inputs()[0].name() == "gradients/while/Merge_1_grad/Switch:0");
  CHECK_THROWS_AS(g.get_operation_by_name("gradients/while/Enter_grad/Exit"), tf::KeyError);
  tf::Session s(g);
  CHECK(s.run(grads[0], {{x, tf::Value(2.0f)}}).scalar<float>() == 12.0f);  // 3 x^2
}

TEST_CASE("ops/while_loop gradients: nested loops over shapes known only at run time") {
  // The accumulator of x and the zeros for the inner loop's unused Exit take their shapes
  // from the forward pass, through the outer loop's stacks.
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder<float>(tf::Shape{-1}, "x");
  auto [i, a] = tf::while_loop(
      [](const tf::Output& i, const tf::Output&) { return i < 3; },
      [&](const tf::Output& i, const tf::Output& a) {
        auto [j, b, c] = tf::while_loop(
            [](const tf::Output& j, const tf::Output&, const tf::Output&) { return j < 2; },
            [&](const tf::Output& j, const tf::Output& b, const tf::Output& c) {
              return std::tuple{j + 1, b * x + c, c * 2.0f};
            },
            std::tuple{tf::constant(0), a, a * 0.5f});
        (void)j;
        (void)c;
        return std::tuple{i + 1, tf::tanh(b)};
      },
      std::tuple{tf::constant(0), tf::Output(x)});
  (void)i;
  auto grads = tf::gradients(a, {x});
  tf::Session s(g);
  auto out = s.run({tf::reduce_sum(a), grads[0]}, {{x, tf::Value({0.3f, -0.6f})}});
  CHECK(out[0].scalar<float>() == doctest::Approx(-0.03943526744842529).epsilon(1e-5));
  CHECK(out[1].to_vector<float>()[0] == doctest::Approx(2.0211470127105713).epsilon(1e-5));
  CHECK(out[1].to_vector<float>()[1] == doctest::Approx(1.0948266983032227).epsilon(1e-5));
}

TEST_CASE("ops/while_loop gradients: nested loops match central differences") {
  // An outer RNN-like step whose update runs an inner loop for a number of iterations
  // that grows with the outer counter.
  tf::test::check_gradients(
      [](const std::vector<tf::Output>& xs) {
        auto [i, h] =
            tf::while_loop([](const tf::Output& i, const tf::Output&) { return i < 3; },
                           [&](const tf::Output& i, const tf::Output& h) {
                             tf::Output z = tf::matmul(h, xs[1]);
                             auto [j, u] = tf::while_loop(
                                 [&](const tf::Output& j, const tf::Output&) { return j <= i; },
                                 [&](const tf::Output& j, const tf::Output& u) {
                                   return std::tuple{j + 1, tf::tanh(u * z + xs[2])};
                                 },
                                 std::tuple{tf::constant(0), h});
                             (void)j;
                             return std::tuple{i + 1, u};
                           },
                           std::tuple{tf::constant(0), xs[0]});
        (void)i;
        return h;
      },
      {tf::Value::from_vector(std::vector<double>{0.5, -0.25, 0.1, 0.3}, {2, 2}),
       tf::Value::from_vector(std::vector<double>{0.8, -0.3, 0.2, 0.6}, {2, 2}),
       tf::Value::from_vector(std::vector<double>{0.1, -0.2}, {2})},
      1e-5);
}

}  // namespace symflow_test_ops_while_loop_grad_test
