// symflow::losses (tf.compat.v1.losses), checked against TensorFlow in graph mode: the
// values of every loss with and without weights, each reduction, the nodes and names
// TensorFlow builds, the loss collections and the errors for inputs that do not fit.

#include <doctest/doctest.h>

#include <string>
#include <utility>
#include <vector>

#include <symflow/ops/losses.hpp>
#include <symflow/symflow.hpp>

#include "../test_util.hpp"

namespace symflow_test_ops_losses_test {

using namespace symflow;
using namespace symflow::test;
using losses::Reduction;

// The inputs of the TensorFlow runs: labels [[1, 0], [0, 1]], predictions
// [[0.9, 0.2], [0.3, 0.6]], logits [[2, -1], [0.5, 1.5]], weights of shape (2, 1) and
// (2, 2).
Output labels() { return constant<float>({{1, 0}, {0, 1}}); }
Output predictions() { return constant<float>({{0.9f, 0.2f}, {0.3f, 0.6f}}); }
Output logits() { return constant<float>({{2, -1}, {0.5f, 1.5f}}); }
Output column_weights() { return constant<float>({{2}, {0}}); }
Output full_weights() { return constant<float>({{2, 1}, {0, 3}}); }

float scalar_of(const Output& t) {
  Session sess(t.graph());
  return sess.run(t).to_vector<float>().at(0);
}

// The (name, type) of g's nodes from the one named `first` on.
std::vector<std::pair<std::string, std::string>> nodes_from(const Graph& g,
                                                            const std::string& first) {
  auto all = nodes(g);
  std::size_t i = 0;
  while (i < all.size() && all[i].first != first) ++i;
  return {all.begin() + static_cast<std::ptrdiff_t>(i), all.end()};
}

std::vector<std::string> control_input_names(const Graph& g, const std::string& name) {
  std::vector<std::string> out;
  for (const Operation& c : g.get_operation_by_name(name).control_inputs()) out.push_back(c.name());
  return out;
}

// A loss function of (labels, predictions) with its options left at their defaults but
// the weights.
using LossFn = std::function<Output(const Output&, const Output&, const losses::Weights&)>;

TEST_CASE("ops/losses: mean_squared_error builds TensorFlow's nodes under its scope") {
  // TF: tf.losses.mean_squared_error(labels, predictions) = 0.075, in the graph below.
  Graph g;
  auto guard = g.as_default();
  Output loss = losses::mean_squared_error(labels(), predictions());
  CHECK(loss.name() == "mean_squared_error/value:0");
  CHECK(loss.get_shape() == Shape{});
  CHECK(loss.dtype() == DType::float32);
  const std::vector<std::pair<std::string, std::string>> expected{
      {"mean_squared_error/SquaredDifference", "SquaredDifference"},
      {"mean_squared_error/assert_broadcastable/weights", "Const"},
      {"mean_squared_error/assert_broadcastable/weights/shape", "Const"},
      {"mean_squared_error/assert_broadcastable/weights/rank", "Const"},
      {"mean_squared_error/assert_broadcastable/values/shape", "Const"},
      {"mean_squared_error/assert_broadcastable/values/rank", "Const"},
      {"mean_squared_error/assert_broadcastable/static_scalar_check_success", "NoOp"},
      {"mean_squared_error/Cast/x", "Const"},
      {"mean_squared_error/Mul", "Mul"},
      {"mean_squared_error/Const", "Const"},
      {"mean_squared_error/Sum", "Sum"},
      {"mean_squared_error/num_present/Equal/y", "Const"},
      {"mean_squared_error/num_present/Equal", "Equal"},
      {"mean_squared_error/num_present/zeros_like", "Const"},
      {"mean_squared_error/num_present/ones_like/Shape/shape_as_tensor", "Const"},
      {"mean_squared_error/num_present/ones_like/Const", "Const"},
      {"mean_squared_error/num_present/ones_like", "Fill"},
      {"mean_squared_error/num_present/Select", "Select"},
      {"mean_squared_error/num_present/broadcast_weights/assert_broadcastable/weights/shape",
       "Const"},
      {"mean_squared_error/num_present/broadcast_weights/assert_broadcastable/weights/rank",
       "Const"},
      {"mean_squared_error/num_present/broadcast_weights/assert_broadcastable/values/shape",
       "Const"},
      {"mean_squared_error/num_present/broadcast_weights/assert_broadcastable/values/rank",
       "Const"},
      {"mean_squared_error/num_present/broadcast_weights/assert_broadcastable/"
       "static_scalar_check_success",
       "NoOp"},
      {"mean_squared_error/num_present/broadcast_weights/ones_like/Shape/shape_as_tensor", "Const"},
      {"mean_squared_error/num_present/broadcast_weights/ones_like/Const", "Const"},
      {"mean_squared_error/num_present/broadcast_weights/ones_like", "Fill"},
      {"mean_squared_error/num_present/broadcast_weights", "Mul"},
      {"mean_squared_error/num_present/Const", "Const"},
      {"mean_squared_error/num_present", "Sum"},
      // TF: the scalar's axes are Range(0, Rank, 1), Rank a Const (the rank is known).
      {"mean_squared_error/Rank", "Const"},
      {"mean_squared_error/range/start", "Const"},
      {"mean_squared_error/range/delta", "Const"},
      {"mean_squared_error/range", "Range"},
      {"mean_squared_error/Sum_1", "Sum"},
      {"mean_squared_error/value", "DivNoNan"},
  };
  CHECK(nodes_from(g, "mean_squared_error/SquaredDifference") == expected);
  // TF: value = DivNoNan(Sum_1, num_present).
  CHECK(input_names(loss) ==
        std::vector<std::string>{"mean_squared_error/Sum_1:0", "mean_squared_error/num_present:0"});
  // TF: the Mul reads (SquaredDifference, Cast/x); the ops built after the check depend on
  // it, but those whose inputs already do (the Mul) carry no control input.
  CHECK(input_names(g.get_operation_by_name("mean_squared_error/Mul")) ==
        std::vector<std::string>{"mean_squared_error/SquaredDifference:0",
                                 "mean_squared_error/Cast/x:0"});
  CHECK(control_input_names(g, "mean_squared_error/Cast/x") ==
        std::vector<std::string>{
            "mean_squared_error/assert_broadcastable/static_scalar_check_success"});
  CHECK(control_input_names(g, "mean_squared_error/Mul").empty());
  CHECK(
      control_input_names(g, "mean_squared_error/num_present/broadcast_weights/ones_like/Const") ==
      std::vector<std::string>{
          "mean_squared_error/assert_broadcastable/static_scalar_check_success",
          "mean_squared_error/num_present/broadcast_weights/assert_broadcastable/"
          "static_scalar_check_success"});
  CHECK(input_names(g.get_operation_by_name("mean_squared_error/Sum_1")) ==
        std::vector<std::string>{"mean_squared_error/Sum:0", "mean_squared_error/range:0"});
  CHECK(scalar_of(loss) == doctest::Approx(0.075f).epsilon(1e-6));
  CHECK(input_names(g.get_operation_by_name("mean_squared_error/range")) ==
        std::vector<std::string>{"mean_squared_error/range/start:0", "mean_squared_error/Rank:0",
                                 "mean_squared_error/range/delta:0"});
  CHECK(g.get_operation_by_name("mean_squared_error/Rank")
            .get_attr<Value>("value")
            .scalar<std::int32_t>() == 0);
  // TF: the loss is the LOSSES collection's one tensor.
  auto collected = losses::get_losses();
  REQUIRE(collected.size() == 1);
  CHECK(collected[0].name() == "mean_squared_error/value:0");
}

TEST_CASE("ops/losses: every loss's value, unweighted and weighted") {
  // TF (SUM_BY_NONZERO_WEIGHTS): default weights, weights (2, 1) [[2], [0]], weights (2, 2)
  // [[2, 1], [0, 3]], and the number 2.5:
  //   mean_squared_error   0.075       0.05        0.18        0.1875
  //   absolute_difference  0.25        0.3         0.53333330  0.625
  //   hinge_loss           0.75        1.3         0.86666662  1.875
  //   log_loss             0.29900098  0.32850379  0.65544683  0.74750245
  struct Case {
    const char* name;
    LossFn fn;
    std::vector<float> want;
  };
  const std::vector<Case> cases{
      {"mean_squared_error",
       [](const Output& l, const Output& p, const losses::Weights& w) {
         return losses::mean_squared_error(l, p, w);
       },
       {0.075f, 0.05f, 0.18f, 0.1875f}},
      {"absolute_difference",
       [](const Output& l, const Output& p, const losses::Weights& w) {
         return losses::absolute_difference(l, p, w);
       },
       {0.25f, 0.3f, 0.5333333f, 0.625f}},
      {"hinge_loss",
       [](const Output& l, const Output& p, const losses::Weights& w) {
         return losses::hinge_loss(l, p, w);
       },
       {0.75f, 1.3f, 0.86666662f, 1.875f}},
      {"log_loss",
       [](const Output& l, const Output& p, const losses::Weights& w) {
         return losses::log_loss(l, p, w);
       },
       {0.29900098f, 0.32850379f, 0.65544683f, 0.74750245f}},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    Graph g;
    auto guard = g.as_default();
    std::vector<Output> got{
        c.fn(labels(), predictions(), 1.0), c.fn(labels(), predictions(), column_weights()),
        c.fn(labels(), predictions(), full_weights()), c.fn(labels(), predictions(), 2.5)};
    CHECK(got[0].name() == std::string(c.name) + "/value:0");
    CHECK(got[1].name() == std::string(c.name) + "_1/value:0");
    CHECK(losses::get_losses().size() == 4);
    Session sess(g);
    for (std::size_t i = 0; i < got.size(); ++i) {
      CAPTURE(i);
      CHECK(sess.run(got[i]).to_vector<float>()[0] == doctest::Approx(c.want[i]).epsilon(1e-6));
    }
  }
}

TEST_CASE("ops/losses: huber, sigmoid, softmax and sparse softmax values") {
  // TF: huber_loss(labels, [[2.5, 0.2], [0.3, 0.6]]) = 0.28625, and with weights [[2], [0]]
  // and delta 0.5: 0.645.
  // sigmoid_cross_entropy(labels, logits) = 0.40392, and with weights [[2, 1], [0, 3]] and
  // label_smoothing 0.1: 0.54878592.
  // softmax_cross_entropy(labels, logits) = 0.18092449, with weights [2, 0.5] and
  // label_smoothing 0.2: 0.45190275.
  // sparse_softmax_cross_entropy([0, 1], logits) = 0.18092449, with weights [2, 0.5]:
  // 0.12690274; labels [[0], [1]] and weights [[2], [0.5]] are squeezed: 0.12690274.
  Graph g;
  auto guard = g.as_default();
  Output far = constant<float>({{2.5f, 0.2f}, {0.3f, 0.6f}});
  Output h1 = losses::huber_loss(labels(), far);
  Output h2 = losses::huber_loss(labels(), far, {.weights = column_weights(), .delta = 0.5});
  Output s1 = losses::sigmoid_cross_entropy(labels(), logits());
  Output s2 = losses::sigmoid_cross_entropy(labels(), logits(),
                                            {.weights = full_weights(), .label_smoothing = 0.1});
  Output m1 = losses::softmax_cross_entropy(labels(), logits());
  Output m2 = losses::softmax_cross_entropy(
      labels(), logits(), {.weights = constant<float>({2, 0.5f}), .label_smoothing = 0.2});
  Output p1 = losses::sparse_softmax_cross_entropy(constant<std::int32_t>({0, 1}), logits());
  Output p2 = losses::sparse_softmax_cross_entropy(constant<std::int32_t>({0, 1}), logits(),
                                                   constant<float>({2, 0.5f}));
  Output p3 = losses::sparse_softmax_cross_entropy(constant<std::int32_t>({{0}, {1}}), logits(),
                                                   constant<float>({{2}, {0.5f}}));
  CHECK(s1.name() == "sigmoid_cross_entropy_loss/value:0");
  CHECK(m1.name() == "softmax_cross_entropy_loss/value:0");
  CHECK(p1.name() == "sparse_softmax_cross_entropy_loss/value:0");
  CHECK(p3.name() == "sparse_softmax_cross_entropy_loss_2/value:0");
  // TF: the squeezes of p3: remove_squeezable_dimensions/Squeeze (labels) and Squeeze
  // (weights).
  CHECK(g.get_operation_by_name(
             "sparse_softmax_cross_entropy_loss_2/remove_squeezable_dimensions/Squeeze")
            .type() == "Squeeze");
  CHECK(g.get_operation_by_name("sparse_softmax_cross_entropy_loss_2/Squeeze").type() == "Squeeze");
  Session sess(g);
  const std::vector<std::pair<Output, float>> want{
      {h1, 0.28625f},    {h2, 0.645f},      {s1, 0.40392f},    {s2, 0.54878592f}, {m1, 0.18092449f},
      {m2, 0.45190275f}, {p1, 0.18092449f}, {p2, 0.12690274f}, {p3, 0.12690274f},
  };
  for (const auto& [loss_key, value] : want) {
    const auto& loss = loss_key;  // clang 14: no structured binding in CAPTURE
    CAPTURE(loss.name());
    CHECK(sess.run(loss).to_vector<float>()[0] == doctest::Approx(value).epsilon(1e-5));
  }
  CHECK(losses::get_losses().size() == want.size());
}

TEST_CASE("ops/losses: the nodes of hinge, huber, log, sigmoid and softmax losses") {
  // TF's nodes for each loss, from its first to the weighting (compute_weighted_loss's
  // nodes follow, as for mean_squared_error).
  Graph g;
  auto guard = g.as_default();
  Output l = labels();
  Output p = predictions();
  losses::hinge_loss(l, p);
  auto hinge = nodes(g);
  CHECK(std::vector(hinge.begin() + 2, hinge.begin() + 10) ==
        std::vector<std::pair<std::string, std::string>>{
            {"hinge_loss/ones_like/Shape/shape_as_tensor", "Const"},
            {"hinge_loss/ones_like/Const", "Const"},
            {"hinge_loss/ones_like", "Fill"},
            {"hinge_loss/mul/x", "Const"},
            {"hinge_loss/mul", "Mul"},
            {"hinge_loss/Sub", "Sub"},
            {"hinge_loss/Mul_1", "Mul"},
            {"hinge_loss/Sub_1", "Sub"},
        });
  CHECK(input_names(g.get_operation_by_name("hinge_loss/Mul_1")) ==
        std::vector<std::string>{"hinge_loss/Sub:0", "Const_1:0"});
  CHECK(g.get_operation_by_name("hinge_loss/Relu").type() == "Relu");

  losses::huber_loss(l, p, {.delta = 0.5});
  auto huber = nodes_from(g, "huber_loss/Sub");
  CHECK(std::vector(huber.begin(), huber.begin() + 10) ==
        std::vector<std::pair<std::string, std::string>>{
            {"huber_loss/Sub", "Sub"},
            {"huber_loss/Abs", "Abs"},
            {"huber_loss/Minimum/y", "Const"},
            {"huber_loss/Minimum", "Minimum"},
            {"huber_loss/Sub_1", "Sub"},
            {"huber_loss/Const", "Const"},
            {"huber_loss/Mul", "Mul"},
            {"huber_loss/Mul_1", "Mul"},
            {"huber_loss/Mul_2/x", "Const"},
            {"huber_loss/Mul_2", "Mul"},
        });
  CHECK(input_names(g.get_operation_by_name("huber_loss/Mul_1")) ==
        std::vector<std::string>{"huber_loss/Const:0", "huber_loss/Mul:0"});
  CHECK(input_names(g.get_operation_by_name("huber_loss/Add")) ==
        std::vector<std::string>{"huber_loss/Mul_1:0", "huber_loss/Mul_2:0"});
  // The weighting comes after: Mul_3 reads the losses and Cast/x.
  CHECK(input_names(g.get_operation_by_name("huber_loss/Mul_3")) ==
        std::vector<std::string>{"huber_loss/Add:0", "huber_loss/Cast/x:0"});

  losses::log_loss(l, p);
  auto log = nodes_from(g, "log_loss/add/y");
  std::vector<std::string> log_names;
  for (std::size_t i = 0; i < 15; ++i) log_names.push_back(log[i].first);
  CHECK(log_names == std::vector<std::string>{"log_loss/add/y", "log_loss/add", "log_loss/Log",
                                              "log_loss/Mul", "log_loss/Neg", "log_loss/sub/x",
                                              "log_loss/sub", "log_loss/sub_1/x", "log_loss/sub_1",
                                              "log_loss/add_1/y", "log_loss/add_1",
                                              "log_loss/Log_1", "log_loss/Mul_1", "log_loss/sub_2",
                                              "log_loss/assert_broadcastable/weights"});
  CHECK(input_names(g.get_operation_by_name("log_loss/Mul_1")) ==
        std::vector<std::string>{"log_loss/sub:0", "log_loss/Log_1:0"});

  losses::sigmoid_cross_entropy(l, p, {.label_smoothing = 0.1});
  auto sig = nodes_from(g, "sigmoid_cross_entropy_loss/mul/y");
  std::vector<std::string> sig_names;
  for (std::size_t i = 0; i < 14; ++i) sig_names.push_back(sig[i].first);
  CHECK(sig_names ==
        std::vector<std::string>{
            "sigmoid_cross_entropy_loss/mul/y", "sigmoid_cross_entropy_loss/mul",
            "sigmoid_cross_entropy_loss/add/y", "sigmoid_cross_entropy_loss/add",
            "sigmoid_cross_entropy_loss/xentropy/zeros_like",
            "sigmoid_cross_entropy_loss/xentropy/GreaterEqual",
            "sigmoid_cross_entropy_loss/xentropy/Select", "sigmoid_cross_entropy_loss/xentropy/Neg",
            "sigmoid_cross_entropy_loss/xentropy/Select_1",
            "sigmoid_cross_entropy_loss/xentropy/mul", "sigmoid_cross_entropy_loss/xentropy/sub",
            "sigmoid_cross_entropy_loss/xentropy/Exp", "sigmoid_cross_entropy_loss/xentropy/Log1p",
            "sigmoid_cross_entropy_loss/xentropy"});

  losses::softmax_cross_entropy(l, p, {.label_smoothing = 0.2});
  auto soft = nodes_from(g, "softmax_cross_entropy_loss/Shape");
  std::vector<std::string> soft_names;
  for (std::size_t i = 0; i < 12; ++i) soft_names.push_back(soft[i].first);
  CHECK(soft_names == std::vector<std::string>{
                          "softmax_cross_entropy_loss/Shape",
                          "softmax_cross_entropy_loss/strided_slice/stack",
                          "softmax_cross_entropy_loss/strided_slice/stack_1",
                          "softmax_cross_entropy_loss/strided_slice/stack_2",
                          "softmax_cross_entropy_loss/strided_slice",
                          "softmax_cross_entropy_loss/Cast",
                          "softmax_cross_entropy_loss/truediv/x",
                          "softmax_cross_entropy_loss/truediv",
                          "softmax_cross_entropy_loss/mul/y",
                          "softmax_cross_entropy_loss/mul",
                          "softmax_cross_entropy_loss/add",
                          "softmax_cross_entropy_loss/labels_stop_gradient",
                      });
  CHECK(soft[4].second == "StridedSlice");
  CHECK(soft[7].second == "RealDiv");
  CHECK(input_names(g.get_operation_by_name("softmax_cross_entropy_loss/truediv")) ==
        std::vector<std::string>{"softmax_cross_entropy_loss/truediv/x:0",
                                 "softmax_cross_entropy_loss/Cast:0"});
  CHECK(input_names(g.get_operation_by_name("softmax_cross_entropy_loss/add")) ==
        std::vector<std::string>{"softmax_cross_entropy_loss/mul:0",
                                 "softmax_cross_entropy_loss/truediv:0"});
}

TEST_CASE("ops/losses: the reductions") {
  // TF: absolute_difference(labels, predictions, weights, reduction=...), weights (2, 1)
  // [[2], [0]] and (2, 2) [[2, 1], [0, 3]]:
  //   NONE                   [[0.2, 0.4], [0, 0]]   [[0.2, 0.2], [0, 1.2]]
  //   SUM                    0.6                    1.6
  //   SUM_OVER_BATCH_SIZE    0.15                   0.4
  //   MEAN                   0.15                   0.26666665
  //   SUM_BY_NONZERO_WEIGHTS 0.3                    0.53333330 (also SUM_OVER_NONZERO_WEIGHTS)
  // and with weights 0.0, 0 (DivNoNan's 0 for 0 / 0).
  struct Case {
    Reduction reduction;
    std::vector<float> column, full;
  };
  const std::vector<Case> cases{
      {Reduction::NONE, {0.2f, 0.4f, 0, 0}, {0.2f, 0.2f, 0, 1.2f}},
      {Reduction::SUM, {0.6f}, {1.6f}},
      {Reduction::SUM_OVER_BATCH_SIZE, {0.15f}, {0.4f}},
      {Reduction::MEAN, {0.15f}, {0.26666665f}},
      {Reduction::SUM_BY_NONZERO_WEIGHTS, {0.3f}, {0.5333333f}},
      {Reduction::SUM_OVER_NONZERO_WEIGHTS, {0.3f}, {0.5333333f}},
  };
  for (const Case& c : cases) {
    CAPTURE(losses::to_string(c.reduction));
    Graph g;
    auto guard = g.as_default();
    Output a = losses::absolute_difference(labels(), predictions(),
                                           {.weights = column_weights(), .reduction = c.reduction});
    Output b = losses::absolute_difference(labels(), predictions(),
                                           {.weights = full_weights(), .reduction = c.reduction});
    CHECK(a.get_shape() == (c.reduction == Reduction::NONE ? Shape{2, 2} : Shape{}));
    check_close(run_vector<float>(a), c.column, 1e-6);
    check_close(run_vector<float>(b), c.full, 1e-6);
  }
  CHECK(losses::to_string(Reduction::SUM_OVER_NONZERO_WEIGHTS) ==
        "weighted_sum_by_nonzero_weights");
  CHECK(losses::to_string(Reduction::MEAN) == "weighted_mean");

  Graph g;
  auto guard = g.as_default();
  Output zero = losses::absolute_difference(labels(), predictions(), 0.0);
  CHECK(scalar_of(zero) == 0.0f);
}

TEST_CASE("ops/losses: the nodes of each reduction") {
  // TF: NONE ends at the weighting Mul; SUM at the Sum; SUM_OVER_BATCH_SIZE divides by
  // num_elements (a Const) cast to float; MEAN by the sum of ones_like(losses) * weights.
  Graph g;
  auto guard = g.as_default();
  Output none =
      losses::absolute_difference(labels(), predictions(), {.reduction = Reduction::NONE});
  CHECK(none.name() == "absolute_difference/Mul:0");
  CHECK(losses::get_losses()[0].name() == "absolute_difference/Mul:0");
  Output sum = losses::absolute_difference(labels(), predictions(), {.reduction = Reduction::SUM});
  CHECK(sum.name() == "absolute_difference_1/Sum:0");

  Output batch = losses::absolute_difference(labels(), predictions(),
                                             {.reduction = Reduction::SUM_OVER_BATCH_SIZE});
  auto after_sum = nodes_from(g, "absolute_difference_2/num_elements");
  CHECK(std::vector(after_sum.begin(), after_sum.begin() + 8) ==
        std::vector<std::pair<std::string, std::string>>{
            {"absolute_difference_2/num_elements", "Const"},
            {"absolute_difference_2/num_elements/Cast", "Cast"},
            {"absolute_difference_2/Rank", "Const"},
            {"absolute_difference_2/range/start", "Const"},
            {"absolute_difference_2/range/delta", "Const"},
            {"absolute_difference_2/range", "Range"},
            {"absolute_difference_2/Sum_1", "Sum"},
            {"absolute_difference_2/value", "DivNoNan"},
        });
  CHECK(batch.name() == "absolute_difference_2/value:0");

  Output mean =
      losses::absolute_difference(labels(), predictions(), {.reduction = Reduction::MEAN});
  auto mean_nodes = nodes_from(g, "absolute_difference_3/ones_like/Shape/shape_as_tensor");
  CHECK(std::vector(mean_nodes.begin(), mean_nodes.begin() + 6) ==
        std::vector<std::pair<std::string, std::string>>{
            {"absolute_difference_3/ones_like/Shape/shape_as_tensor", "Const"},
            {"absolute_difference_3/ones_like/Const", "Const"},
            {"absolute_difference_3/ones_like", "Fill"},
            {"absolute_difference_3/mul_1", "Mul"},
            {"absolute_difference_3/Const_1", "Const"},
            {"absolute_difference_3/Sum_1", "Sum"},
        });
  CHECK(input_names(g.get_operation_by_name("absolute_difference_3/mul_1")) ==
        std::vector<std::string>{"absolute_difference_3/ones_like:0",
                                 "absolute_difference_3/Cast/x:0"});
  CHECK(mean.name() == "absolute_difference_3/value:0");
  Session sess(g);
  CHECK(sess.run(sum).to_vector<float>()[0] == doctest::Approx(1.0f));
  CHECK(sess.run(batch).to_vector<float>()[0] == doctest::Approx(0.25f));
  CHECK(sess.run(mean).to_vector<float>()[0] == doctest::Approx(0.25f));
}

TEST_CASE("ops/losses: compute_weighted_loss") {
  // TF: compute_weighted_loss([1, 2, 3], weights=[1, 0, 2], reduction=MEAN) = 2.3333333
  // under "weighted_loss"; the Mul of the outside tensors depends on
  // assert_broadcastable/static_dims_check_success.
  Graph g;
  auto guard = g.as_default();
  Output x = constant<float>({1, 2, 3});
  Output w = constant<float>({1, 0, 2});
  Output loss = losses::compute_weighted_loss(x, {.weights = w, .reduction = Reduction::MEAN});
  CHECK(loss.name() == "weighted_loss/value:0");
  CHECK(nodes(g)[6] == std::pair<std::string, std::string>{
                           "weighted_loss/assert_broadcastable/static_dims_check_success", "NoOp"});
  CHECK(control_input_names(g, "weighted_loss/Mul") ==
        std::vector<std::string>{"weighted_loss/assert_broadcastable/static_dims_check_success"});
  CHECK(input_names(g.get_operation_by_name("weighted_loss/mul_1")) ==
        std::vector<std::string>{"weighted_loss/ones_like:0", "Const_1:0"});
  CHECK(input_names(g.get_operation_by_name("weighted_loss/Sum_2")) ==
        std::vector<std::string>{"weighted_loss/Sum:0", "weighted_loss/range:0"});
  CHECK(scalar_of(loss) == doctest::Approx(2.3333333f).epsilon(1e-6));

  // TF: a float64 loss is computed in float32 and cast back ("d/Cast_2", after the losses'
  // Cast and the weight's Cast_1/x) = 1.5 float64, in the collection "my_losses" alone;
  // loss_collection=None adds it nowhere (its value 2.0).
  Output d = losses::compute_weighted_loss(constant<double>({1, 2}),
                                           {.scope = "d", .loss_collection = "my_losses"});
  CHECK(d.dtype() == DType::float64);
  CHECK(d.op().type() == "Cast");
  CHECK(d.name() == "d/Cast_2:0");
  Output hidden = losses::compute_weighted_loss(x, {.loss_collection = std::nullopt});
  CHECK(losses::get_losses().size() == 1);
  REQUIRE(losses::get_losses({}, "my_losses").size() == 1);
  CHECK(losses::get_losses({}, "my_losses")[0].name() == "d/Cast_2:0");
  Session sess(g);
  CHECK(sess.run(d).to_vector<double>()[0] == doctest::Approx(1.5));
  CHECK(sess.run(hidden).to_vector<float>()[0] == doctest::Approx(2.0f));
}

TEST_CASE("ops/losses: integer and float64 inputs are cast to float32") {
  // TF: mean_squared_error([1, 2], [1, 4]) on int32 = 2.0 float32; on float64, the Casts
  // "mean_squared_error/Cast" (predictions) and "Cast_1" (labels) come first and the
  // weight is "Cast_2/x".
  Graph g;
  auto guard = g.as_default();
  Output i =
      losses::mean_squared_error(constant<std::int32_t>({1, 2}), constant<std::int32_t>({1, 4}));
  CHECK(i.dtype() == DType::float32);
  Output l = constant<double>({1, 2});
  Output p = constant<double>({1, 4});
  Output d = losses::mean_squared_error(l, p);
  CHECK(d.dtype() == DType::float32);
  CHECK(input_names(g.get_operation_by_name("mean_squared_error_1/Cast")) ==
        std::vector<std::string>{p.name()});
  CHECK(input_names(g.get_operation_by_name("mean_squared_error_1/SquaredDifference")) ==
        std::vector<std::string>{"mean_squared_error_1/Cast:0", "mean_squared_error_1/Cast_1:0"});
  CHECK(g.get_operation_by_name("mean_squared_error_1/Cast_2/x").type() == "Const");
  CHECK(scalar_of(i) == 2.0f);
  CHECK(scalar_of(d) == 2.0f);
}

TEST_CASE("ops/losses: collections, regularization and total loss") {
  // TF: mean_squared_error in LOSSES, absolute_difference with loss_collection=None, r1 =
  // 0.5 in REGULARIZATION_LOSSES: get_total_loss() = AddN "total_loss" = 0.575,
  // get_total_loss(False) = Identity "total_loss_1" = 0.075.
  Graph g;
  auto guard = g.as_default();
  Output mse = losses::mean_squared_error(labels(), predictions());
  losses::absolute_difference(labels(), predictions(), {.loss_collection = std::nullopt});
  losses::add_loss(constant(Value(0.5f), "r1"), GraphKeys::REGULARIZATION_LOSSES);
  CHECK(losses::get_losses().size() == 1);
  REQUIRE(losses::get_regularization_losses().size() == 1);
  CHECK(losses::get_regularization_losses()[0].name() == "r1:0");
  Output total = losses::get_total_loss();
  Output unregularized = losses::get_total_loss(false);
  CHECK(total.name() == "total_loss:0");
  CHECK(total.op().type() == "AddN");
  CHECK(input_names(total) == std::vector<std::string>{"mean_squared_error/value:0", "r1:0"});
  CHECK(unregularized.name() == "total_loss_1:0");
  CHECK(unregularized.op().type() == "Identity");
  Session sess(g);
  CHECK(sess.run(total).to_vector<float>()[0] == doctest::Approx(0.575f));
  CHECK(sess.run(unregularized).to_vector<float>()[0] == doctest::Approx(0.075f));
}

TEST_CASE("ops/losses: get_regularization_loss") {
  // TF: none: the Const "Const" 0.0; one: Identity "total_regularization_loss" = 0.5; two:
  // AddN "total_regularization_loss" = 0.75.
  {
    Graph g;
    auto guard = g.as_default();
    Output none = losses::get_regularization_loss();
    CHECK(none.name() == "Const:0");
    CHECK(scalar_of(none) == 0.0f);
    losses::add_loss(constant(Value(0.5f), "r1"), GraphKeys::REGULARIZATION_LOSSES);
    Output one = losses::get_regularization_loss();
    CHECK(one.name() == "total_regularization_loss:0");
    CHECK(one.op().type() == "Identity");
    CHECK(scalar_of(one) == 0.5f);
  }
  Graph g;
  auto guard = g.as_default();
  losses::add_loss(constant(Value(0.5f), "r1"), GraphKeys::REGULARIZATION_LOSSES);
  losses::add_loss(constant(Value(0.25f), "r2"), GraphKeys::REGULARIZATION_LOSSES);
  Output two = losses::get_regularization_loss();
  CHECK(two.name() == "total_regularization_loss:0");
  CHECK(two.op().type() == "AddN");
  CHECK(scalar_of(two) == 0.75f);
}

TEST_CASE("ops/losses: scopes") {
  // TF: losses under scopes "a" and "b": get_losses(scope="a") = [a/value:0];
  // get_total_loss(scope="b") = 0.25.
  Graph g;
  auto guard = g.as_default();
  losses::mean_squared_error(labels(), predictions(), {.scope = "a"});
  losses::absolute_difference(labels(), predictions(), {.scope = "b"});
  auto a = losses::get_losses("a");
  REQUIRE(a.size() == 1);
  CHECK(a[0].name() == "a/value:0");
  CHECK(scalar_of(losses::get_total_loss(true, "total_loss", "b")) == doctest::Approx(0.25f));
}

TEST_CASE("ops/losses: shapes that do not fit") {
  // TF: predictions (2, 3) for labels (2, 2): "Shapes (2, 3) and (2, 2) are incompatible",
  // for every loss; sparse labels (3,) for logits (2, 2): "`labels.shape` must equal
  // `logits.shape` except for the last dimension. Received: labels.shape=(3,) and
  // logits.shape=(2, 2)".
  Graph g;
  auto guard = g.as_default();
  Output wide = constant<float>({{0.9f, 0.2f, 1}, {0.3f, 0.6f, 1}});
  const std::vector<std::pair<const char*, std::function<void()>>> calls{
      {"mean_squared_error", [&] { losses::mean_squared_error(labels(), wide); }},
      {"absolute_difference", [&] { losses::absolute_difference(labels(), wide); }},
      {"hinge_loss", [&] { losses::hinge_loss(labels(), wide); }},
      {"log_loss", [&] { losses::log_loss(labels(), wide); }},
      {"huber_loss", [&] { losses::huber_loss(labels(), wide); }},
      {"sigmoid_cross_entropy", [&] { losses::sigmoid_cross_entropy(labels(), wide); }},
      {"softmax_cross_entropy", [&] { losses::softmax_cross_entropy(labels(), wide); }},
  };
  for (const auto& [name_key, call] : calls) {
    const auto& name = name_key;  // clang 14: no structured binding in CAPTURE
    CAPTURE(name);
    auto e = thrown<ValueError>(call);
    REQUIRE(e);
    CHECK(e->message() == "Shapes (2, 3) and (2, 2) are incompatible");
  }
  auto e = thrown<ValueError>([&] {
    losses::sparse_softmax_cross_entropy(constant<std::int32_t>({0, 1, 1}), logits());
  });
  REQUIRE(e);
  CHECK(e->message() ==
        "`labels.shape` must equal `logits.shape` except for the last dimension. Received: "
        "labels.shape=(3,) and logits.shape=(2, 2)");
  CHECK(losses::get_losses().empty());
}

TEST_CASE("ops/losses: weights that do not broadcast") {
  // TF, absolute_difference(labels, predictions, weights) with the weights "Const_2":
  //   (2,): "weights can not be broadcast to values. values.rank=2. weights.rank=1.
  //     values.shape=(2, 2). weights.shape=(2,). Received weights=Tensor("Const_2:0",
  //     shape=(2,), dtype=float32), values=Tensor("absolute_difference/Abs:0", shape=(2, 2),
  //     dtype=float32)"
  //   (1, 3): "... Mismatch at dim 1. values.shape=[2 2], weights.shape=[1 3]. Received ..."
  //   (3, 1): "... Mismatch at dim 0. values.shape=[2 2], weights.shape=[3 1]. Received ..."
  auto message = [](auto make_weights) {
    Graph g;
    auto guard = g.as_default();
    Output l = labels();
    Output p = predictions();
    Output w = make_weights();
    auto e = thrown<ValueError>([&] { losses::absolute_difference(l, p, w); });
    REQUIRE(e);
    return e->message();
  };
  CHECK(message([] {
          return constant<float>({1, 2});
        }) ==
        "weights can not be broadcast to values. values.rank=2. weights.rank=1. "
        "values.shape=(2, 2). weights.shape=(2,). Received weights=Tensor(\"Const_2:0\", "
        "shape=(2,), dtype=float32), values=Tensor(\"absolute_difference/Abs:0\", shape=(2, 2), "
        "dtype=float32)");
  CHECK(message([] {
          return constant<float>({{1, 2, 3}});
        }) ==
        "weights can not be broadcast to values. Mismatch at dim 1. values.shape=[2 2], "
        "weights.shape=[1 3]. Received weights=Tensor(\"Const_2:0\", shape=(1, 3), "
        "dtype=float32), values=Tensor(\"absolute_difference/Abs:0\", shape=(2, 2), "
        "dtype=float32)");
  CHECK(contains(message([] {
                   return constant<float>({{1}, {2}, {3}});
                 }),
                 "Mismatch at dim 0. values.shape=[2 2], weights.shape=[3 1]."));
}

TEST_CASE("ops/losses: get_total_loss with no losses") {
  // TF: get_total_loss() and get_total_loss(False) on an empty graph: ValueError "Inputs
  // must be an iterable of at least one Tensor/IndexedSlices with the same dtype and shape."
  Graph g;
  auto guard = g.as_default();
  for (bool regularized : {true, false}) {
    auto e = thrown<ValueError>([&] { losses::get_total_loss(regularized); });
    REQUIRE(e);
    CHECK(e->message() ==
          "Inputs must be an iterable of at least one Tensor/IndexedSlices with the same dtype "
          "and shape.");
  }
}

TEST_CASE("ops/losses: weights of a partly known shape") {
  // symflow leaves TensorFlow's run-time broadcast assertion out: a rank mismatch is still
  // caught when the graph is built, a wrong size when the Mul runs.
  Graph g;
  auto guard = g.as_default();
  Output w = placeholder<float>(Shape{-1, 1});
  Output loss = losses::absolute_difference(labels(), predictions(), w);
  Session sess(g);
  CHECK(sess.run(loss, {{w, Value::from_vector<float>({2, 0}, {2, 1})}}).to_vector<float>()[0] ==
        doctest::Approx(0.3f));
  CHECK(thrown<ValueError>([&] {
    losses::absolute_difference(labels(), predictions(), placeholder<float>(Shape{-1}));
  }));
  CHECK(thrown<InvalidArgumentError>([&] {
    sess.run(loss, {{w, Value::from_vector<float>({2, 0, 1}, {3, 1})}});
  }));
}

}  // namespace symflow_test_ops_losses_test
