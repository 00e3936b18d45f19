// symflow::metrics, checked against tf.compat.v1.metrics (TensorFlow graph mode with ref
// variables): variable and node names, values after each batch, resets and errors.

#include <doctest/doctest.h>

#include <functional>
#include <string>
#include <vector>

#include <symflow/metrics/metrics.hpp>
#include <symflow/symflow.hpp>

#include "../test_util.hpp"

namespace symflow_test_metrics_metrics_test {

namespace metrics_test {

using namespace symflow;
using namespace symflow::test;

struct Batch {
  std::vector<std::int32_t> labels;
  std::vector<std::int64_t> predictions;
  std::vector<float> weights;
  std::vector<float> scores;  // float predictions, for mean and auc
};

// Three batches of 5, 2 and 3 examples.
const std::vector<Batch> kBatches = {
    {{1, 0, 1, 1, 0}, {1, 1, 0, 1, 0}, {1, 0.5f, 2, 1, 0}, {0.9f, 0.4f, 0.35f, 0.8f, 0.1f}},
    {{0, 1}, {1, 1}, {3, 1}, {0.6f, 0.2f}},
    {{2, 0, 0}, {2, 0, 1}, {1, 1, 1}, {0.5f, 0.0f, 1.0f}},
};

// Placeholders of unknown length, as TF's test feeds them.
struct Inputs {
  Tensor<std::int32_t> labels = placeholder<std::int32_t>(Shape{-1});
  Tensor<std::int64_t> predictions = placeholder<std::int64_t>(Shape{-1});
  Tensor<float> weights = placeholder<float>(Shape{-1});
  Tensor<float> scores = placeholder<float>(Shape{-1});

  FeedDict feed(const Batch& b) const {
    const auto n = static_cast<std::int64_t>(b.labels.size());
    return {{labels, Value::from_vector(b.labels, {n})},
            {predictions, Value::from_vector(b.predictions, {n})},
            {weights, Value::from_vector(b.weights, {n})},
            {scores, Value::from_vector(b.scores, {n})}};
  }
};

// Runs every update op on each batch; after each, the updates' results and then the values
// must be TensorFlow's (expected[batch][metric]).
void check_batches(Session& sess, const Inputs& in, const std::vector<metrics::Metric>& ms,
                   const std::vector<std::vector<float>>& expected, double eps = 1e-6) {
  std::vector<Fetch> updates, values;
  for (const auto& m : ms) {
    updates.emplace_back(m.update_op);
    values.emplace_back(m.value);
  }
  for (std::size_t b = 0; b < kBatches.size(); ++b) {
    CAPTURE(b);
    std::vector<float> got_updates, got_values;
    for (const Value& v : sess.run(updates, in.feed(kBatches[b])))
      got_updates.push_back(v.scalar<float>());
    for (const Value& v : sess.run(values)) got_values.push_back(v.scalar<float>());
    check_close(got_updates, expected[b], eps);
    check_close(got_values, expected[b], eps);
  }
}

std::vector<float> run_values(Session& sess, const std::vector<metrics::Metric>& ms) {
  std::vector<Fetch> values;
  for (const auto& m : ms) values.emplace_back(m.value);
  std::vector<float> out;
  for (const Value& v : sess.run(values)) out.push_back(v.scalar<float>());
  return out;
}

std::vector<std::string> collection_names(const Graph& g, std::string_view key) {
  std::vector<std::string> out;
  for (const CollectionValue& item : g.get_collection(key)) {
    if (const auto* op = std::get_if<Operation>(&item)) out.push_back(op->name());
    if (const auto* t = std::get_if<Output>(&item)) out.push_back(t->name());
  }
  return out;
}

}  // namespace metrics_test

using namespace metrics_test;

TEST_CASE("metrics/accuracy and mean: values after each batch, against TensorFlow") {
  // TF: accuracy(l, p), accuracy(l, p, w), mean(scores, w) over kBatches: after batch 1
  //     0.6, 0.44444445, 0.57777774; after 2: 0.5714286, 0.3529412, 0.54117644; after 3:
  //     0.6, 0.4347826, 0.5304348 (update_op returns the same as value afterwards).
  Graph g;
  auto guard = g.as_default();
  Inputs in;
  std::vector<metrics::Metric> ms = {
      metrics::accuracy(in.labels, in.predictions),
      metrics::accuracy(in.labels, in.predictions, in.weights),
      metrics::mean(in.scores, in.weights),
  };
  Session sess(g);
  sess.run(local_variables_initializer());
  CHECK(run_values(sess, ms) == std::vector<float>{0, 0, 0});  // 0 before any batch
  check_batches(sess, in, ms,
                {{0.6f, 0.44444445f, 0.57777774f},
                 {0.5714286f, 0.3529412f, 0.54117644f},
                 {0.6f, 0.4347826f, 0.5304348f}});
  // TF: local_variables_initializer() sets every count back to 0.
  sess.run(local_variables_initializer());
  CHECK(run_values(sess, ms) == std::vector<float>{0, 0, 0});
  check_batches(sess, in, {ms[0]}, {{0.6f}, {0.5714286f}, {0.6f}});
}

TEST_CASE("metrics/true_positives, false_positives, false_negatives, precision, recall") {
  // TF over kBatches: tp 2, 3, 4; fp 1, 2, 3; fn 1, 1, 1; precision 0.6666667, 0.6, 0.5714286;
  //     recall 0.6666667, 0.75, 0.8; weighted precision 0.8, 0.46153846, 0.47058824.
  Graph g;
  auto guard = g.as_default();
  Inputs in;
  std::vector<metrics::Metric> ms = {
      metrics::true_positives(in.labels, in.predictions),
      metrics::false_positives(in.labels, in.predictions),
      metrics::false_negatives(in.labels, in.predictions),
      metrics::precision(in.labels, in.predictions),
      metrics::recall(in.labels, in.predictions),
      metrics::precision(in.labels, in.predictions, in.weights),
  };
  Session sess(g);
  sess.run(local_variables_initializer());
  check_batches(sess, in, ms,
                {{2, 1, 1, 0.6666667f, 0.6666667f, 0.8f},
                 {3, 2, 1, 0.6f, 0.75f, 0.46153846f},
                 {4, 3, 1, 0.5714286f, 0.8f, 0.47058824f}});
  sess.run(local_variables_initializer());
  CHECK(run_values(sess, ms) == std::vector<float>{0, 0, 0, 0, 0, 0});
}

TEST_CASE("metrics/auc: ROC, PR, minoring and weights against TensorFlow") {
  // TF over kBatches (scores as predictions): auc(num_thresholds=5) 0.91666627, 0.6666665,
  //     0.59999996; auc() (200 thresholds) 0.833333, 0.66666657, 0.59999996;
  //     auc(num_thresholds=7, curve='PR') 0.958333, 0.81666654, 0.60059524;
  //     auc(num_thresholds=5, summation_method='minoring') 0.833333, 0.58333325, 0.48;
  //     auc(weights, num_thresholds=5) 0.7499985, 0.4285714, 0.4318182.
  Graph g;
  auto guard = g.as_default();
  Inputs in;
  std::vector<metrics::Metric> ms = {
      metrics::auc(in.labels, in.scores, {}, {.num_thresholds = 5}),
      metrics::auc(in.labels, in.scores),
      metrics::auc(in.labels, in.scores, {}, {.num_thresholds = 7, .curve = metrics::Curve::PR}),
      metrics::auc(in.labels, in.scores, {},
                   {.num_thresholds = 5, .summation_method = metrics::SummationMethod::minoring}),
      metrics::auc(in.labels, in.scores, in.weights, {.num_thresholds = 5}),
  };
  Session sess(g);
  sess.run(local_variables_initializer());
  check_batches(sess, in, ms,
                {{0.91666627f, 0.833333f, 0.958333f, 0.833333f, 0.7499985f},
                 {0.6666665f, 0.66666657f, 0.81666654f, 0.58333325f, 0.4285714f},
                 {0.59999996f, 0.59999996f, 0.60059524f, 0.48f, 0.4318182f}},
                2e-6);
  sess.run(local_variables_initializer());
  CHECK(run_values(sess, ms) == std::vector<float>{0, 0, 0, 0, 0});
}

TEST_CASE("metrics/mean_iou: confusion matrix and values against TensorFlow") {
  // TF: mean_iou(l, p, 3) and mean_iou(l, p, 3, w) over three batches: the update ops return
  //     the confusion matrices [[1,0,0],[0,1,1],[0,0,1]] / [[1,0,0],[0,1,2],[0,0,0.5]], then
  //     [[2,0,0],[0,1,1],[1,0,2]] / [[4,0,0],[0,1,2],[1,0,1.5]], then [[2,0,0],[0,2,1],
  //     [1,0,2]] / [[4,0,0],[0,3,2],[1,0,1.5]]; the values 0.6666667 / 0.51111114,
  //     0.5555556 / 0.4888889, 0.6111111 / 0.5777778.
  Graph g;
  auto guard = g.as_default();
  auto labels = placeholder<std::int32_t>(Shape{-1});
  auto predictions = placeholder<std::int32_t>(Shape{-1});
  auto weights = placeholder<float>(Shape{-1});
  auto [iou, iou_update] = metrics::mean_iou(labels, predictions, 3);
  auto [weighted, weighted_update] = metrics::mean_iou(labels, predictions, 3, weights);
  CHECK(iou_update.name() == "mean_iou/AssignAdd:0");
  CHECK(iou_update.dtype() == DType::float64);
  CHECK(g.get_operation_by_name("mean_iou/confusion_matrix/ScatterNd").type() == "ScatterNd");
  CHECK(variable_names(local_variables()) ==
        std::vector<std::string>{"mean_iou/total_confusion_matrix:0",
                                 "mean_iou_1/total_confusion_matrix:0"});
  Session sess(g);
  sess.run(local_variables_initializer());
  struct IouBatch {
    std::vector<std::int32_t> l, p;
    std::vector<float> w;
    std::vector<double> cm, weighted_cm;
    float value, weighted_value;
  };
  const std::vector<IouBatch> batches = {
      {{0, 1, 2, 1},
       {0, 2, 2, 1},
       {1, 2, 0.5f, 1},
       {1, 0, 0, 0, 1, 1, 0, 0, 1},
       {1, 0, 0, 0, 1, 2, 0, 0, 0.5},
       0.6666667f,
       0.51111114f},
      {{2, 2, 0},
       {2, 0, 0},
       {1, 1, 3},
       {2, 0, 0, 0, 1, 1, 1, 0, 2},
       {4, 0, 0, 0, 1, 2, 1, 0, 1.5},
       0.5555556f,
       0.4888889f},
      {{1},
       {1},
       {2},
       {2, 0, 0, 0, 2, 1, 1, 0, 2},
       {4, 0, 0, 0, 3, 2, 1, 0, 1.5},
       0.6111111f,
       0.5777778f},
  };
  for (const IouBatch& b : batches) {
    const auto n = static_cast<std::int64_t>(b.l.size());
    auto out = sess.run({iou_update, weighted_update}, {{labels, Value::from_vector(b.l, {n})},
                                                        {predictions, Value::from_vector(b.p, {n})},
                                                        {weights, Value::from_vector(b.w, {n})}});
    CHECK(out[0].to_vector<double>() == b.cm);
    CHECK(out[1].to_vector<double>() == b.weighted_cm);
    auto values = sess.run({iou, weighted});
    CHECK(values[0].scalar<float>() == doctest::Approx(b.value).epsilon(1e-6));
    CHECK(values[1].scalar<float>() == doctest::Approx(b.weighted_value).epsilon(1e-6));
  }
  sess.run(local_variables_initializer());
  CHECK(sess.run(iou).scalar<float>() == 0);
  // A class id outside [0, num_classes) is an error when the update runs (TensorFlow's
  // assertion says "`labels` out of bound"; here ScatterNd rejects the index).
  // An init-capture: clang 14 cannot capture the structured binding itself.
  CHECK(thrown<InvalidArgumentError>([&, &iou_update = iou_update] {
    sess.run(iou_update, {{labels, Value::from_vector<std::int32_t>({0, 5}, {2})},
                          {predictions, Value::from_vector<std::int32_t>({0, 1}, {2})}});
  }));
}

TEST_CASE("metrics/variables, collections and node names as TensorFlow builds them") {
  Graph g;
  auto guard = g.as_default();
  Inputs in;
  // TF: accuracy's variables accuracy/total and accuracy/count, in LOCAL_VARIABLES and
  //     METRIC_VARIABLES (not GLOBAL or TRAINABLE); value "accuracy/value:0" and update
  //     "accuracy/update_op:0"; the comparison's Cast / Equal / Cast_1 outside the scope;
  //     count's AssignAdd "accuracy/AssignAdd_1" waits for "Cast_1".
  auto [acc, acc_update] = metrics::accuracy(in.labels, in.predictions);
  CHECK(acc.name() == "accuracy/value:0");
  CHECK(acc_update.name() == "accuracy/update_op:0");
  CHECK(g.get_operation_by_name("Equal").type() == "Equal");
  CHECK(input_names(g.get_operation_by_name("accuracy/AssignAdd")) ==
        std::vector<std::string>{"accuracy/total:0", "accuracy/Sum:0"});
  CHECK(g.get_operation_by_name("accuracy/AssignAdd_1").control_inputs().at(0).name() == "Cast_1");
  CHECK(g.get_operation_by_name("accuracy/total/Initializer/zeros").type() == "Const");
  // TF: value = DivNoNan(total/read, Maximum) and update_op = DivNoNan(AssignAdd, Maximum_1).
  CHECK(acc.op().type() == "DivNoNan");
  CHECK(acc_update.op().type() == "DivNoNan");
  CHECK(input_names(acc) ==
        std::vector<std::string>{"accuracy/total/read:0", "accuracy/Maximum:0"});
  CHECK(input_names(acc_update) ==
        std::vector<std::string>{"accuracy/AssignAdd:0", "accuracy/Maximum_1:0"});
  CHECK(g.get_operation_by_name("accuracy/Maximum_1/y").type() == "Const");
  // TF: precision nests true_positives and false_positives; value precision/value (Select
  //     of precision/Greater, precision/truediv, precision/value/e); tp's value is an
  //     Identity of its count, its update the count's AssignAdd.
  auto [prec, prec_update] = metrics::precision(in.labels, in.predictions);
  CHECK(prec.name() == "precision/value:0");
  CHECK(prec.op().type() == "Select");
  CHECK(input_names(prec.op()) == std::vector<std::string>{"precision/Greater:0",
                                                           "precision/truediv:0",
                                                           "precision/value/e:0"});
  CHECK(input_names(g.get_operation_by_name("precision/add")) ==
        std::vector<std::string>{"precision/true_positives/Identity:0",
                                 "precision/false_positives/Identity:0"});
  CHECK(g.get_operation_by_name("precision/add").type() == "AddV2");
  CHECK(input_names(g.get_operation_by_name("precision/true_positives/LogicalAnd")) ==
        std::vector<std::string>{"precision/true_positives/Equal:0",
                                 "precision/true_positives/Equal_1:0"});
  CHECK(input_names(g.get_operation_by_name("precision/true_positives/Equal")) ==
        std::vector<std::string>{"precision/Cast_1:0", "precision/true_positives/Equal/y:0"});
  auto [tp, tp_update] = metrics::true_positives(in.labels, in.predictions, in.weights);
  CHECK(tp.name() == "true_positives/Identity:0");
  CHECK(tp_update.name() == "true_positives/AssignAdd:0");
  CHECK(g.get_operation_by_name("true_positives/Mul").control_inputs().at(0).name() ==
        "true_positives/assert_rank_in/static_checks_determined_all_ok");
  // TF: auc(num_thresholds=5) keeps auc/true_positives, false_negatives, true_negatives and
  //     false_positives, each of shape (5,); value "auc/value:0" (Sum), update
  //     "auc/update_op:0"; the thresholds tiled by "auc/stack" (Pack of "auc/stack/0" and the
  //     dynamic length "auc/strided_slice").
  auto [area, area_update] = metrics::auc(in.labels, in.scores, {}, {.num_thresholds = 5});
  CHECK(area.name() == "auc/value:0");
  CHECK(area.op().type() == "Sum");
  CHECK(area_update.name() == "auc/update_op:0");
  CHECK(input_names(g.get_operation_by_name("auc/stack")) ==
        std::vector<std::string>{"auc/stack/0:0", "auc/strided_slice:0"});
  CHECK(input_names(g.get_operation_by_name("auc/truediv")) ==
        std::vector<std::string>{"auc/add:0", "auc/add_2:0"});
  CHECK(input_names(g.get_operation_by_name("auc/sub")) ==
        std::vector<std::string>{"auc/strided_slice_1:0", "auc/strided_slice_2:0"});
  auto metric_vars = variables_in(GraphKeys::METRIC_VARIABLES);
  CHECK(variable_names(metric_vars) ==
        std::vector<std::string>{
            "accuracy/total:0", "accuracy/count:0", "precision/true_positives/count:0",
            "precision/false_positives/count:0", "true_positives/count:0", "auc/true_positives:0",
            "auc/false_negatives:0", "auc/true_negatives:0", "auc/false_positives:0"});
  CHECK(variable_names(local_variables()) == variable_names(metric_vars));
  CHECK(metric_vars[5].shape().to_string() == "(5,)");
  CHECK(global_variables().empty());
  CHECK(trainable_variables().empty());
  // No collections unless asked; with them, the value and the update op are added.
  CHECK(g.get_collection("my_metrics").empty());
  auto [m, m_update] =
      metrics::mean(in.scores, {},
                    {.metrics_collections = {"my_metrics"}, .updates_collections = {"my_updates"}});
  CHECK(collection_names(g, "my_metrics") == std::vector<std::string>{"mean/value:0"});
  CHECK(collection_names(g, "my_updates") == std::vector<std::string>{"mean/update_op:0"});
  // TF: a name replaces the default scope; a second accuracy is accuracy_1.
  auto [named, named_update] = metrics::accuracy(in.labels, in.predictions, {}, {.name = "acc"});
  CHECK(named.name() == "acc/value:0");
  CHECK(metrics::accuracy(in.labels, in.predictions).value.name() == "accuracy_1/value:0");
  // TF: labels [?, 1] against predictions [?] are squeezed first
  //     ("remove_squeezable_dimensions_<k>/Squeeze").
  auto column = placeholder<std::int32_t>(Shape{-1, 1});
  auto squeezed = metrics::accuracy(column, in.predictions, {}, {.name = "sq"});
  CHECK(squeezed.value.get_shape().to_string() == "()");
  CHECK(g.get_operation_by_name("Equal_3").inputs().at(1).op().type() == "Squeeze");
}

TEST_CASE("metrics/errors as TensorFlow reports them") {
  Graph g;
  auto guard = g.as_default();
  auto labels3 = placeholder<std::int32_t>(Shape{3});
  auto predictions4 = placeholder<std::int32_t>(Shape{4});
  // TF: "Shapes (4,) and (3,) are incompatible" (predictions first) for accuracy, precision,
  //     auc and mean_iou.
  for (auto build : std::vector<std::function<void()>>{
           [&] { metrics::accuracy(labels3, predictions4); },
           [&] { metrics::precision(labels3, predictions4); },
           [&] { metrics::recall(labels3, predictions4); },
           [&] { metrics::auc(labels3, cast(predictions4, DType::float32)); },
           [&] { metrics::mean_iou(labels3, predictions4, 3); }}) {
    auto e = thrown<ValueError>(build);
    REQUIRE(e);
    CHECK(std::string(e->what()) == "Shapes (4,) and (3,) are incompatible");
  }
  // TF: labels (2, 3) against predictions (2,): "Shapes (2,) and (2, 3) are incompatible".
  auto e = thrown<ValueError>([&] {
    metrics::accuracy(placeholder<std::int32_t>(Shape{2, 3}), placeholder<std::int32_t>(Shape{2}));
  });
  REQUIRE(e);
  CHECK(std::string(e->what()) == "Shapes (2,) and (2, 3) are incompatible");
  // TF: weights that cannot broadcast to the values.
  auto values = placeholder<float>(Shape{2, 3}, "values");
  auto weights = placeholder<float>(Shape{4, 1}, "weights");
  e = thrown<ValueError>([&] { metrics::mean(values, weights); });
  REQUIRE(e);
  CHECK(std::string(e->what()) ==
        "weights can not be broadcast to values. Mismatch at dim 0. values.shape=[2 3], "
        "weights.shape=[4 1]. Received weights=Tensor(\"weights:0\", shape=(4, 1), "
        "dtype=float32), values=Tensor(\"values:0\", shape=(2, 3), dtype=float32)");
  // TF: weights of rank 3 for rank-1 conditions.
  auto w3 = placeholder<float>(Shape{-1, -1, -1}, "w3");
  e = thrown<ValueError>([&] {
    metrics::true_positives(placeholder<std::int32_t>(Shape{-1}),
                            placeholder<std::int32_t>(Shape{-1}), w3);
  });
  REQUIRE(e);
  CHECK(std::string(e->what()) ==
        "Tensor w3:0 must have rank in (0, 1).  Received rank 3, shape (None, None, None)");
}

TEST_CASE("metrics/auc with fewer than two thresholds, as TensorFlow allows") {
  // TF does not check num_thresholds: with 1 or 0 it still counts at -1e-7 and 1 + 1e-7, and
  //     auc([0, 1], [0.2, 0.7]) is 0.0 with num_thresholds=1 and 0.5 with num_thresholds=0.
  Graph g;
  auto guard = g.as_default();
  auto labels = constant(Value::from_vector<std::int32_t>({0, 1}, {2}));
  auto scores = constant(Value::from_vector<float>({0.2f, 0.7f}, {2}));
  auto one = metrics::auc(labels, scores, {}, {.num_thresholds = 1});
  auto zero = metrics::auc(labels, scores, {}, {.num_thresholds = 0});
  CHECK(local_variables()[0].shape().to_string() == "(2,)");
  Session sess(g);
  sess.run(local_variables_initializer());
  CHECK(sess.run(one.update_op).scalar<float>() == 0.0f);
  CHECK(sess.run(zero.update_op).scalar<float>() == doctest::Approx(0.5f).epsilon(1e-6));
}

TEST_CASE("metrics/mean: weights that broadcast build TensorFlow's weights_broadcast_ops graph") {
  // TF 2.21: tf.metrics.mean([[1,2,3],[4,5,6]], weights=[[1,0,2]]) ->
  // mean/broadcast_weights/assert_broadcastable/{weights,values}/{shape,rank} (Consts),
  // .../static_dims_check_success (NoOp), ones_like (Fill), broadcast_weights (Mul); 23/6.
  symflow::Graph g;
  auto guard = g.as_default();
  auto values = symflow::constant(symflow::Value{{1.0f, 2.0f, 3.0f}, {4.0f, 5.0f, 6.0f}});
  auto weights = symflow::constant(symflow::Value{{1.0f, 0.0f, 2.0f}});
  auto m = symflow::metrics::mean(values, weights);
  std::vector<std::string> built;
  for (const auto& [name, type] : symflow::test::nodes(g))
    if (name.find("broadcast") != std::string::npos) built.push_back(name + ":" + type);
  CHECK(built == std::vector<std::string>{
                     "mean/broadcast_weights/assert_broadcastable/weights/shape:Const",
                     "mean/broadcast_weights/assert_broadcastable/weights/rank:Const",
                     "mean/broadcast_weights/assert_broadcastable/values/shape:Const",
                     "mean/broadcast_weights/assert_broadcastable/values/rank:Const",
                     "mean/broadcast_weights/assert_broadcastable/static_dims_check_success:NoOp",
                     "mean/broadcast_weights/ones_like/Shape/shape_as_tensor:Const",
                     "mean/broadcast_weights/ones_like/Const:Const",
                     "mean/broadcast_weights/ones_like:Fill", "mean/broadcast_weights:Mul"});
  symflow::Session sess(g);
  sess.run(symflow::local_variables_initializer());
  CHECK(sess.run(m.update_op).scalar<float>() == doctest::Approx(23.0f / 6.0f));
}

}  // namespace symflow_test_metrics_metrics_test
