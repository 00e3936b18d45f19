// nn::nce_loss, nn::sampled_softmax_loss and nn::compute_sampled_logits against TensorFlow
// 2.21 (tf.compat.v1, graph mode): their losses, their nodes under the function's name
// scope, and their build-time errors. The samples are given as constants (TensorFlow's
// sampled_values), except in the cases that run the default log-uniform sampler.

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include <symflow/ops/sampled_losses.hpp>
#include <symflow/symflow.hpp>

#include "../test_util.hpp"

namespace symflow_test_ops_sampled_losses_test {

using namespace symflow;
using namespace symflow::test;

namespace {

// 8 classes of dimension 3, a batch of 3, 4 sampled classes.
const std::vector<double> kWeights{0.1, -0.2, 0.3,  0.4,  0.5,  -0.6, -0.7, 0.8,
                                   0.9, 1.0,  -1.1, 0.2,  0.3,  0.2,  -0.1, -0.5,
                                   0.6, 0.7,  0.8,  -0.9, 0.05, 0.15, 0.25, -0.35};
const std::vector<double> kBiases{0.01, -0.02, 0.03, -0.04, 0.05, -0.06, 0.07, -0.08};
const std::vector<double> kInputs{0.5, -1.0, 0.25, 1.5, 0.25, -0.75, -0.5, 2.0, 1.0};

template <class T>
Value values_of(const std::vector<double>& v, Dims dims) {
  return Value::from_vector(std::vector<T>(v.begin(), v.end()), std::move(dims));
}

// The constants of one case, built in the default graph as TensorFlow's script builds
// them: weights (one tensor, or `shards` shards split "mod"), biases, inputs, labels and
// the samples (ids [0, 4, 6, 7] with their expected counts).
struct Case {
  std::vector<Output> weights;
  Output biases, inputs, labels;
  nn::CandidateSamples samples;
};

template <class T = float>
Case make_case(const std::vector<std::vector<std::int64_t>>& labels, int shards = 1,
               DType label_type = DType::int64) {
  Case c;
  if (shards == 1) {
    c.weights.push_back(constant(values_of<T>(kWeights, {8, 3}), "w"));
  } else {
    for (int s = 0; s < shards; ++s) {
      std::vector<double> rows;
      for (int r = s; r < 8; r += shards)
        rows.insert(rows.end(), &kWeights[r * 3], &kWeights[r * 3 + 3]);
      c.weights.push_back(
          constant(values_of<T>(rows, {static_cast<std::int64_t>(rows.size() / 3), 3}),
                   "w" + std::to_string(s)));
    }
  }
  c.biases = constant(values_of<T>(kBiases, {8}), "b");
  c.inputs = constant(values_of<T>(kInputs, {3, 3}), "x");
  std::vector<std::int64_t> flat;
  for (const auto& row : labels) flat.insert(flat.end(), row.begin(), row.end());
  const auto num_true = static_cast<std::int64_t>(labels[0].size());
  c.labels = constant(Value::from_vector(flat, {static_cast<std::int64_t>(labels.size()), num_true})
                          .astype(label_type),
                      "labels");
  const std::vector<double> true_expected =
      num_true == 1 ? std::vector<double>{0.3, 0.2, 0.1}
                    : std::vector<double>{0.3, 0.25, 0.2, 0.5, 0.1, 0.05};
  c.samples = {constant(Value::from_vector<std::int64_t>({0, 4, 6, 7}, {4}), "sampled"),
               constant(values_of<T>(true_expected, {3, num_true}), "true_expected"),
               constant(values_of<T>({0.5, 0.2, 0.1, 0.15}, {4}), "sampled_expected")};
  return c;
}

// "name type" of every node made since the first `first` nodes.
std::vector<std::string> nodes_since(const Graph& g, std::size_t first) {
  std::vector<std::string> out;
  const auto ops = g.get_operations();
  for (std::size_t i = first; i < ops.size(); ++i)
    out.push_back(ops[i].name() + " " + ops[i].type());
  return out;
}

// The rows one after the other, so that a failure names the first that differs.
void check_nodes(const std::vector<std::string>& got, const std::vector<std::string>& want) {
  CHECK(got.size() == want.size());
  for (std::size_t i = 0; i < std::min(got.size(), want.size()); ++i) {
    CAPTURE(i);
    CHECK(got[i] == want[i]);
  }
}

// TensorFlow's nodes of _compute_sampled_logits under `scope` for one weights tensor, up
// to the logits' sums and biases ("add", "add_1"), the same with and without hits.
std::vector<std::string> logits_head(const std::string& scope) {
  std::vector<std::string> rows{"Reshape/shape Const",
                                "Reshape Reshape",
                                "StopGradient StopGradient",
                                "StopGradient_1 StopGradient",
                                "StopGradient_2 StopGradient",
                                "concat/axis Const",
                                "concat ConcatV2",
                                "embedding_lookup/axis Const",
                                "embedding_lookup GatherV2",
                                "embedding_lookup/Identity Identity",
                                "Shape Const",
                                "strided_slice/stack Const",
                                "strided_slice/stack_1 Const",
                                "strided_slice/stack_2 Const",
                                "strided_slice StridedSlice",
                                "stack/1 Const",
                                "stack Pack",
                                "Slice/begin Const",
                                "Slice Slice",
                                "Shape_1 Const",
                                "strided_slice_1/stack Const",
                                "strided_slice_1/stack_1 Const",
                                "strided_slice_1/stack_2 Const",
                                "strided_slice_1 StridedSlice",
                                "stack_1/1 Const",
                                "stack_1 Pack",
                                "Slice_1/size Const",
                                "Slice_1 Slice",
                                "MatMul MatMul",
                                "embedding_lookup_1/axis Const",
                                "embedding_lookup_1 GatherV2",
                                "embedding_lookup_1/Identity Identity",
                                "Shape_2 Const",
                                "Slice_2/begin Const",
                                "Slice_2 Slice",
                                "Shape_3 Const",
                                "Slice_3/size Const",
                                "Slice_3 Slice",
                                "Shape_4 Const",
                                "strided_slice_2/stack Const",
                                "strided_slice_2/stack_1 Const",
                                "strided_slice_2/stack_2 Const",
                                "strided_slice_2 StridedSlice",
                                "concat_1/values_0 Const",
                                "concat_1/axis Const",
                                "concat_1 ConcatV2",
                                "ExpandDims/dim Const",
                                "ExpandDims ExpandDims",
                                "Reshape_1 Reshape",
                                "Mul Mul",
                                "concat_2/values_0 Const",
                                "concat_2/axis Const",
                                "concat_2 ConcatV2",
                                "Reshape_2 Reshape",
                                "Shape_5 Const",
                                "strided_slice_3/stack Const",
                                "strided_slice_3/stack_1 Const",
                                "strided_slice_3/stack_2 Const",
                                "strided_slice_3 StridedSlice",
                                "stack_2/1 Const",
                                "stack_2 Pack",
                                "ones/Const Const",
                                "ones Fill",
                                "MatMul_1 MatMul",
                                "Reshape_3/shape Const",
                                "Reshape_3 Reshape",
                                "Reshape_4/shape Const",
                                "Reshape_4 Reshape",
                                "Reshape_5/shape Const",
                                "Reshape_5 Reshape",
                                "add Add",
                                "add_1 Add"};
  for (auto& r : rows) r = scope + "/" + r;
  return rows;
}

// The nodes after the hits (if any): log(Q) subtracted, the logits and their targets.
std::vector<std::string> logits_tail(const std::string& scope, int concat) {
  const std::string a = "concat_" + std::to_string(concat),
                    b = "concat_" + std::to_string(concat + 1);
  std::vector<std::string> rows{"Log Log",
                                "sub Sub",
                                "Log_1 Log",
                                "sub_1 Sub",
                                a + "/axis Const",
                                a + " ConcatV2",
                                "ones_like/Shape/shape_as_tensor Const",
                                "ones_like/Const Const",
                                "ones_like Fill",
                                "truediv/y Const",
                                "truediv RealDiv",
                                "zeros_like Const",
                                b + "/axis Const",
                                b + " ConcatV2"};
  for (auto& r : rows) r = scope + "/" + r;
  return rows;
}

// ComputeAccidentalHits and the SparseToDense that adds its weights to the logits.
std::vector<std::string> hit_rows(const std::string& scope) {
  std::vector<std::string> rows{"ComputeAccidentalHits ComputeAccidentalHits",
                                "Reshape_6/shape Const",
                                "Reshape_6 Reshape",
                                "Cast Cast",
                                "Reshape_7/shape Const",
                                "Reshape_7 Reshape",
                                "sparse_indices/axis Const",
                                "sparse_indices ConcatV2",
                                "Shape_6 Const",
                                "strided_slice_4/stack Const",
                                "strided_slice_4/stack_1 Const",
                                "strided_slice_4/stack_2 Const",
                                "strided_slice_4 StridedSlice",
                                "ExpandDims_1/input Const",
                                "ExpandDims_1/dim Const",
                                "ExpandDims_1 ExpandDims",
                                "concat_3/axis Const",
                                "concat_3 ConcatV2",
                                "SparseToDense/default_value Const",
                                "SparseToDense SparseToDense",
                                "add_2 Add"};
  for (auto& r : rows) r = scope + "/" + r;
  return rows;
}

// nce_loss's nodes after the logits: the logistic loss, then _sum_rows in the outer scope.
// TensorFlow folds sigmoid_cross_entropy_with_logits's zeros_like of a known shape into a
// Const; symflow's nn::sigmoid_cross_entropy_with_logits builds a ZerosLike node there.
const std::vector<std::string> kNceOuter{"sampled_losses/zeros_like ZerosLike",
                                         "sampled_losses/GreaterEqual GreaterEqual",
                                         "sampled_losses/Select Select",
                                         "sampled_losses/Neg Neg",
                                         "sampled_losses/Select_1 Select",
                                         "sampled_losses/mul Mul",
                                         "sampled_losses/sub Sub",
                                         "sampled_losses/Exp Exp",
                                         "sampled_losses/Log1p Log1p",
                                         "sampled_losses Add",
                                         "Shape Const",
                                         "strided_slice/stack Const",
                                         "strided_slice/stack_1 Const",
                                         "strided_slice/stack_2 Const",
                                         "strided_slice StridedSlice",
                                         "stack/1 Const",
                                         "stack Pack",
                                         "ones/Const Const",
                                         "ones Fill",
                                         "MatMul MatMul",
                                         "Reshape/shape Const",
                                         "Reshape Reshape"};

std::vector<std::string> joined(std::initializer_list<std::vector<std::string>> parts) {
  std::vector<std::string> out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

}  // namespace

TEST_CASE("sampled_losses: nce_loss with num_true 1 against TensorFlow") {
  // TF: tf.nn.nce_loss(w, b, labels=[[1],[4],[2]], x, num_sampled=4, num_classes=8,
  //     sampled_values=([0,4,6,7], [[.3],[.2],[.1]], [.5,.2,.1,.15])) = [8.953087, 9.263953,
  //     5.817325], and the nodes below.
  Graph g;
  auto guard = g.as_default();
  const Case c = make_case({{1}, {4}, {2}});
  const std::size_t first = g.get_operations().size();
  const Output loss =
      nn::nce_loss(c.weights[0], c.biases, c.labels, c.inputs, 4, 8, {.sampled_values = c.samples});
  CHECK(loss.name() == "Reshape:0");
  CHECK(loss.get_shape() == Shape{3});
  check_nodes(nodes_since(g, first),
              joined({logits_head("nce_loss"), logits_tail("nce_loss", 3), kNceOuter}));
  // The static shapes TensorFlow infers for the logits and their targets.
  CHECK(g.get_operation_by_name("nce_loss/concat_3").output(0).get_shape() == Shape{3, 5});
  CHECK(g.get_operation_by_name("nce_loss/concat_4").output(0).get_shape() == Shape{3, 5});
  check_close(run_vector<float>(loss), {8.953087f, 9.263953f, 5.817325f});
}

TEST_CASE("sampled_losses: nce_loss with num_true 2 against TensorFlow") {
  // TF: labels [[1,3],[4,0],[2,5]], true expected counts [[.3,.25],[.2,.5],[.1,.05]]:
  //     [10.866984, 11.115532, 10.957649]; the graph is num_true 1's with other constants.
  Graph g;
  auto guard = g.as_default();
  const Case c = make_case({{1, 3}, {4, 0}, {2, 5}});
  const std::size_t first = g.get_operations().size();
  const Output loss = nn::nce_loss(c.weights[0], c.biases, c.labels, c.inputs, 4, 8,
                                   {.num_true = 2, .sampled_values = c.samples});
  check_nodes(nodes_since(g, first),
              joined({logits_head("nce_loss"), logits_tail("nce_loss", 3), kNceOuter}));
  CHECK(g.get_operation_by_name("nce_loss/concat_3").output(0).get_shape() == Shape{3, 6});
  // Each true class's target is 1 / num_true.
  Session sess(g);
  const auto targets = sess.run(g.get_operation_by_name("nce_loss/concat_4").output(0));
  CHECK(targets.to_vector<float>() ==
        std::vector<float>{0.5f, 0.5f, 0, 0, 0, 0, 0.5f, 0.5f, 0, 0, 0, 0, 0.5f, 0.5f, 0, 0, 0, 0});
  check_close(sess.run(loss).to_vector<float>(), {10.866984f, 11.115532f, 10.957649f});
}

TEST_CASE("sampled_losses: nce_loss with int32 labels in float64 against TensorFlow") {
  // TF: the labels first go through Cast ("nce_loss/Cast") to int64; float64 weights give
  //     [8.953086679, 9.263952771, 5.817324824].
  Graph g;
  auto guard = g.as_default();
  const Case c = make_case<double>({{1}, {4}, {2}}, 1, DType::int32);
  const std::size_t first = g.get_operations().size();
  const Output loss =
      nn::nce_loss(c.weights[0], c.biases, c.labels, c.inputs, 4, 8, {.sampled_values = c.samples});
  check_nodes(nodes_since(g, first), joined({{"nce_loss/Cast Cast"},
                                             logits_head("nce_loss"),
                                             logits_tail("nce_loss", 3),
                                             kNceOuter}));
  CHECK(loss.dtype() == DType::float64);
  check_close(run_vector<double>(loss), {8.953086679, 9.263952771, 5.817324824}, 1e-9);
}

TEST_CASE("sampled_losses: nce_loss of sharded weights against TensorFlow") {
  // TF: the same weights as 3 shards (rows 0,3,6 / 1,4,7 / 2,5), partition_strategy "mod":
  //     the same losses [8.953087, 9.263953, 5.817325]; the weights' lookup is the sharded
  //     embedding_lookup, the biases' the single one.
  Graph g;
  auto guard = g.as_default();
  const Case c = make_case({{1}, {4}, {2}}, 3);
  const std::size_t first = g.get_operations().size();
  const Output loss =
      nn::nce_loss(c.weights, c.biases, c.labels, c.inputs, 4, 8, {.sampled_values = c.samples});
  const std::vector<std::string> got = nodes_since(g, first);
  const std::vector<std::string> sharded_lookup{
      "nce_loss/embedding_lookup/Reshape/shape Const",
      "nce_loss/embedding_lookup/Reshape Reshape",
      "nce_loss/embedding_lookup/Size Const",
      "nce_loss/embedding_lookup/range/start Const",
      "nce_loss/embedding_lookup/range/delta Const",
      "nce_loss/embedding_lookup/range Range",
      "nce_loss/embedding_lookup/mod/y Const",
      "nce_loss/embedding_lookup/mod FloorMod",
      "nce_loss/embedding_lookup/floordiv/y Const",
      "nce_loss/embedding_lookup/floordiv FloorDiv",
      "nce_loss/embedding_lookup/Cast Cast",
      "nce_loss/embedding_lookup/DynamicPartition DynamicPartition",
      "nce_loss/embedding_lookup/DynamicPartition_1 DynamicPartition",
      "nce_loss/embedding_lookup/GatherV2/axis Const",
      "nce_loss/embedding_lookup/GatherV2 GatherV2",
      "nce_loss/embedding_lookup/GatherV2_1/axis Const",
      "nce_loss/embedding_lookup/GatherV2_1 GatherV2",
      "nce_loss/embedding_lookup/GatherV2_2/axis Const",
      "nce_loss/embedding_lookup/GatherV2_2 GatherV2",
      "nce_loss/embedding_lookup ParallelDynamicStitch",
      "nce_loss/embedding_lookup/Shape Const",
      "nce_loss/embedding_lookup/concat/values_1 Const",
      "nce_loss/embedding_lookup/concat/axis Const",
      "nce_loss/embedding_lookup/concat ConcatV2",
      "nce_loss/embedding_lookup/Reshape_1 Reshape"};
  std::vector<std::string> want = logits_head("nce_loss");
  // The single lookup's three rows give way to the sharded one.
  want.erase(want.begin() + 7, want.begin() + 10);
  want.insert(want.begin() + 7, sharded_lookup.begin(), sharded_lookup.end());
  check_nodes(got, joined({want, logits_tail("nce_loss", 3), kNceOuter}));
  check_close(run_vector<float>(loss), {8.953087f, 9.263953f, 5.817325f});
}

TEST_CASE("sampled_losses: sampled_softmax_loss without hits against TensorFlow") {
  // TF: tf.nn.sampled_softmax_loss(..., remove_accidental_hits=False) =
  //     [3.2612433, 1.8349184, 0.08460895]; the targets' StopGradient "labels_stop_gradient"
  //     and the cross entropy follow in the outer scope. (TensorFlow 2.21 flattens rank-2
  //     logits with Reshapes before SoftmaxCrossEntropyWithLogits; symflow's
  //     softmax_cross_entropy_with_logits_v2 builds the one node.)
  Graph g;
  auto guard = g.as_default();
  const Case c = make_case({{1}, {4}, {2}});
  const std::size_t first = g.get_operations().size();
  const Output loss =
      nn::sampled_softmax_loss(c.weights[0], c.biases, c.labels, c.inputs, 4, 8,
                               {.sampled_values = c.samples, .remove_accidental_hits = false});
  const std::vector<std::string> got = nodes_since(g, first);
  const std::vector<std::string> want =
      joined({logits_head("sampled_softmax_loss"),
              logits_tail("sampled_softmax_loss", 3),
              {"labels_stop_gradient StopGradient",
               "softmax_cross_entropy_with_logits SoftmaxCrossEntropyWithLogits"}});
  check_nodes(got, want);
  CHECK(loss.get_shape() == Shape{3});
  check_close(run_vector<float>(loss), {3.2612433f, 1.8349184f, 0.08460895f});
}

TEST_CASE("sampled_losses: nce_loss removing accidental hits against TensorFlow") {
  // TF: remove_accidental_hits=True: class 4, sampled second, is row 1's label, so that
  //     logit gets -FLT_MAX and row 1's loss drops: [8.953087, 6.9278145, 5.817325]. With
  //     num_true 2 (row 1's labels 4 and 0 are both sampled): [10.866983, 7.7559595,
  //     10.957649].
  Graph g;
  auto guard = g.as_default();
  const Case c = make_case({{1}, {4}, {2}});
  const std::size_t first = g.get_operations().size();
  const Output loss = nn::nce_loss(c.weights[0], c.biases, c.labels, c.inputs, 4, 8,
                                   {.sampled_values = c.samples, .remove_accidental_hits = true});
  check_nodes(nodes_since(g, first), joined({logits_head("nce_loss"), hit_rows("nce_loss"),
                                             logits_tail("nce_loss", 4), kNceOuter}));
  CHECK(g.get_operation_by_name("nce_loss/SparseToDense").output(0).get_shape() == Shape{3, 4});
  check_close(run_vector<float>(loss), {8.953087f, 6.9278145f, 5.817325f});

  const Case c2 = make_case({{1, 3}, {4, 0}, {2, 5}});
  const Output loss2 =
      nn::nce_loss(c2.weights[0], c2.biases, c2.labels, c2.inputs, 4, 8,
                   {.num_true = 2, .sampled_values = c2.samples, .remove_accidental_hits = true});
  check_close(run_vector<float>(loss2), {10.866983f, 7.7559595f, 10.957649f});
}

TEST_CASE("sampled_losses: sampled_softmax_loss removes accidental hits by default") {
  // TF: tf.nn.sampled_softmax_loss(w, b, [[1],[4],[2]], x, 4, 8, sampled_values) =
  //     [3.2612433, 1.6610096, 0.08460895]; num_true 2: [2.443634, 2.4891548, 0.73956203].
  Graph g;
  auto guard = g.as_default();
  const Case c = make_case({{1}, {4}, {2}});
  const std::size_t first = g.get_operations().size();
  const Output loss = nn::sampled_softmax_loss(c.weights[0], c.biases, c.labels, c.inputs, 4, 8,
                                               {.sampled_values = c.samples});
  check_nodes(nodes_since(g, first),
              joined({logits_head("sampled_softmax_loss"),
                      hit_rows("sampled_softmax_loss"),
                      logits_tail("sampled_softmax_loss", 4),
                      {"labels_stop_gradient StopGradient",
                       "softmax_cross_entropy_with_logits SoftmaxCrossEntropyWithLogits"}}));
  check_close(run_vector<float>(loss), {3.2612433f, 1.6610096f, 0.08460895f});

  const Case c2 = make_case({{1, 3}, {4, 0}, {2, 5}});
  const Output loss2 = nn::sampled_softmax_loss(c2.weights[0], c2.biases, c2.labels, c2.inputs, 4,
                                                8, {.num_true = 2, .sampled_values = c2.samples});
  check_close(run_vector<float>(loss2), {2.443634f, 2.4891548f, 0.73956203f});
}

TEST_CASE("sampled_losses: the default log-uniform sampler against TensorFlow") {
  // Without sampled_values, the losses sample with log_uniform_candidate_sampler(labels,
  // num_true, num_sampled, unique=True, range_max=num_classes) inside their scope, right
  // after the labels' Reshape. Each run draws a new sample.
  SUBCASE("nce_loss under a graph seed") {
    // tf.set_random_seed(42): TensorFlow 1.x's op seed is the graph's op count (6 here,
    // symflow's rule, random_ops.hpp); TensorFlow 2.21 numbers its unseeded ops instead
    // (0), so the oracle gave the sampler seed=6 explicitly: seeds (42, 6), samples
    // [3, 5, 1, 0], losses [5.724248, 5.1731863, 5.0892706], then [5.8202744, 4.753538,
    // 5.0123305] in a second run.
    Graph g;
    auto guard = g.as_default();
    set_random_seed(42);
    const Output w = constant(values_of<float>(kWeights, {8, 3}), "w");
    const Output b = constant(values_of<float>(kBiases, {8}), "b");
    const Output x = constant(values_of<float>(kInputs, {3, 3}), "x");
    const Output l = constant(Value::from_vector<std::int64_t>({1, 4, 2}, {3, 1}), "labels");
    const std::size_t first = g.get_operations().size() - 1;  // from the labels
    const Output loss = nn::nce_loss(w, b, l, x, 4, 8);
    const std::vector<std::string> got = nodes_since(g, first);
    REQUIRE(got.size() > 6);
    CHECK(std::vector<std::string>(got.begin(), got.begin() + 6) ==
          std::vector<std::string>{
              "labels Const", "nce_loss/Reshape/shape Const", "nce_loss/Reshape Reshape",
              "nce_loss/LogUniformCandidateSampler LogUniformCandidateSampler",
              "nce_loss/StopGradient StopGradient", "nce_loss/StopGradient_1 StopGradient"});
    const Operation sampler = g.get_operation_by_name("nce_loss/LogUniformCandidateSampler");
    CHECK(std::get<std::int64_t>(sampler.attrs().at("seed")) == 42);
    CHECK(std::get<std::int64_t>(sampler.attrs().at("seed2")) == 6);
    CHECK(std::get<std::int64_t>(sampler.attrs().at("range_max")) == 8);
    CHECK(std::get<bool>(sampler.attrs().at("unique")) == true);
    Session sess(g);
    const auto out = sess.run({loss, sampler.output(0)});
    CHECK(out[1].to_vector<std::int64_t>() == std::vector<std::int64_t>{3, 5, 1, 0});
    check_close(out[0].to_vector<float>(), {5.724248f, 5.1731863f, 5.0892706f}, 1e-5);
    check_close(sess.run(loss).to_vector<float>(), {5.8202744f, 4.753538f, 5.0123305f}, 1e-5);
  }
  SUBCASE("sampled_softmax_loss with an op seed") {
    // TF: seed=5 and no graph seed: seeds (87654321, 5), samples [0, 2, 3, 6] (2 is row
    //     2's label: an accidental hit), losses [3.3273215, 1.5055473, 0.05047636], then
    //     [2.7188888, 1.3519081, 0.5745022].
    Graph g;
    auto guard = g.as_default();
    const Case c = make_case({{1}, {4}, {2}});
    const Output loss =
        nn::sampled_softmax_loss(c.weights[0], c.biases, c.labels, c.inputs, 4, 8, {.seed = 5});
    const Operation sampler =
        g.get_operation_by_name("sampled_softmax_loss/LogUniformCandidateSampler");
    CHECK(std::get<std::int64_t>(sampler.attrs().at("seed")) == 87654321);
    CHECK(std::get<std::int64_t>(sampler.attrs().at("seed2")) == 5);
    Session sess(g);
    const auto out = sess.run({loss, sampler.output(0)});
    CHECK(out[1].to_vector<std::int64_t>() == std::vector<std::int64_t>{0, 2, 3, 6});
    check_close(out[0].to_vector<float>(), {3.3273215f, 1.5055473f, 0.05047636f}, 1e-5);
    check_close(sess.run(loss).to_vector<float>(), {2.7188888f, 1.3519081f, 0.5745022f}, 1e-5);
  }
}

TEST_CASE("sampled_losses: a name scope per call, and compute_sampled_logits") {
  // TF: a second nce_loss goes under "nce_loss_1/", its logistic loss "sampled_losses_1";
  //     _compute_sampled_logits's default scope is "compute_sampled_logits".
  Graph g;
  auto guard = g.as_default();
  const Case c = make_case({{1}, {4}, {2}});
  (void)nn::nce_loss(c.weights[0], c.biases, c.labels, c.inputs, 4, 8,
                     {.sampled_values = c.samples});
  const Output second =
      nn::nce_loss(c.weights[0], c.biases, c.labels, c.inputs, 4, 8, {.sampled_values = c.samples});
  CHECK(second.name() == "Reshape_1:0");
  CHECK(g.get_operation_by_name("nce_loss_1/concat_4").type() == "ConcatV2");
  CHECK(g.get_operation_by_name("sampled_losses_1").type() == "Add");
  const nn::SampledLogits logits =
      nn::compute_sampled_logits(c.weights[0], c.biases, c.labels, c.inputs, 4, 8,
                                 {.sampled_values = c.samples, .subtract_log_q = false});
  CHECK(logits.logits.name() == "compute_sampled_logits/concat_3:0");
  CHECK(logits.labels.name() == "compute_sampled_logits/concat_4:0");
  // TF, without log(Q): the dot products plus biases, true class first.
  Session sess(g);
  check_close(sess.run(logits.logits).to_vector<float>(),
              {-0.47000003f, 0.33499998f, -0.024999995f, 1.3825f, -0.34249997f, 0.625f, -0.115f,
               0.625f, 1.0075f, 0.47000003f, 2.8799999f, -0.14f, 0.2f, -2.0800002f, -0.00499998f},
              1e-5);
}

TEST_CASE("sampled_losses: SparseToDense, which removes the accidental hits") {
  // TF: gen_sparse_ops.sparse_to_dense(indices, output_shape, values, default_value,
  //     validate_indices=False), as _compute_sampled_logits calls it.
  Graph g;
  auto guard = g.as_default();
  auto dense = [&](const Value& indices, const Value& shape, const Value& values, float fill) {
    Graph graph = get_default_graph();
    detail::OpBuilder b(graph, {}, "SparseToDense");
    const Output out =
        b.build(detail::sparse::kSparseToDenseOp,
                {constant(indices), constant(shape), constant(values), constant(Value(fill))},
                {{"T", DType::float32}, {"Tindices", DType::int32}, {"validate_indices", false}})
            .output(0);
    return out;
  };
  // [[2,1],[0,2]] into [3,3]: [[0,0,6],[0,0,0],[0,5,0]] (unsorted indices are fine).
  const Output a = dense(Value({{2, 1}, {0, 2}}), Value({3, 3}), Value({5.0f, 6.0f}), 0);
  CHECK(a.get_shape() == Shape{3, 3});
  CHECK(run_vector<float>(a) == std::vector<float>{0, 0, 6, 0, 0, 0, 0, 5, 0});
  // A scalar value and a default of 1: [[1,1,7],[1,1,1],[1,7,1]].
  const Output b = dense(Value({{2, 1}, {0, 2}}), Value({3, 3}), Value(7.0f), 1);
  CHECK(run_vector<float>(b) == std::vector<float>{1, 1, 7, 1, 1, 1, 1, 7, 1});
  // 1-D indices into a vector: [-1, 5, -1, -1, 6, -1].
  const Output c = dense(Value({1, 4}), Value({6}), Value({5.0f, 6.0f}), -1);
  CHECK(run_vector<float>(c) == std::vector<float>{-1, 5, -1, -1, 6, -1});
  // TF: "Indices are not valid (out of bounds).  Shape: [3,3]"; "sparse_values has
  //     incorrect shape [3], should be [] or [2]".
  Session sess(g);
  const Output outside = dense(Value({{0, 1}, {3, 2}}), Value({3, 3}), Value({5.0f, 6.0f}), 0);
  auto bounds = thrown<InvalidArgumentError>([&] { sess.run(outside); });
  REQUIRE(bounds);
  CHECK(contains(bounds->what(), "Indices are not valid (out of bounds).  Shape: [3,3]"));
  const Output too_many =
      dense(Value({{0, 1}, {2, 2}}), Value({3, 3}), Value({5.0f, 6.0f, 7.0f}), 0);
  auto values = thrown<InvalidArgumentError>([&] { sess.run(too_many); });
  REQUIRE(values);
  CHECK(contains(values->what(), "sparse_values has incorrect shape [3], should be [] or [2]"));
}

TEST_CASE("sampled_losses: bad arguments, with TensorFlow's messages") {
  Graph g;
  auto guard = g.as_default();
  const Case c1 = make_case({{1}, {4}, {2}});
  const Case c2 = make_case({{1, 3}, {4, 0}, {2, 5}});
  // TF: labels of 2 columns with num_true 1: "Dimensions must be equal, but are 3 and 6 for
  //     '{{node nce_loss/Mul}} = Mul[T=DT_FLOAT](...)' with input shapes: [3,1,2], [6,1,2]."
  auto mul_error = thrown<ValueError>([&] {
    nn::nce_loss(c1.weights[0], c1.biases, c2.labels, c1.inputs, 4, 8,
                 {.sampled_values = c1.samples});
  });
  REQUIRE(mul_error);
  CHECK(contains(mul_error->what(), "Dimensions must be equal, but are 3 and 6"));
  CHECK(contains(mul_error->what(), "'nce_loss/Mul'"));
  CHECK(contains(mul_error->what(), "[3,1,3], [6,1,3]"));
  // TF: labels of 1 column with num_true 2: "Dimension size must be evenly divisible by 6
  //     but is 9 for '{{node nce_loss_1/Reshape_1}} = Reshape[...]' with input shapes:
  //     [3,3], [3] and with input tensors computed as partial shapes: input[1] = [?,2,3].""
  auto reshape_error = thrown<ValueError>([&] {
    nn::nce_loss(c1.weights[0], c1.biases, c1.labels, c1.inputs, 4, 8,
                 {.num_true = 2, .sampled_values = c1.samples});
  });
  REQUIRE(reshape_error);
  CHECK(contains(reshape_error->what(), "Dimension size must be evenly divisible by 6 but is 9"));
  CHECK(contains(reshape_error->what(), "'nce_loss_1/Reshape_1'"));
  CHECK(contains(reshape_error->what(), "[3,3], [3]"));
  // TF: num_true 0: "Cannot reshape a tensor with 9 elements to shape [?,0,3] (0 elements)
  //     for '{{node nce_loss/Reshape_1}} = ...' with input shapes: [3,3], [3] ..."
  auto zero_error = thrown<ValueError>([&] {
    nn::nce_loss(c1.weights[0], c1.biases, c1.labels, c1.inputs, 4, 8,
                 {.num_true = 0, .sampled_values = c1.samples});
  });
  REQUIRE(zero_error);
  CHECK(contains(zero_error->what(),
                 "Cannot reshape a tensor with 9 elements to shape [?,0,3] (0 elements) for "
                 "'nce_loss_2/Reshape_1' (op: 'Reshape') with input shapes: [3,3], [3]."));
  // TF: inputs of dimension 2 against weights of dimension 3, in the sampled logits'
  //     MatMul: "Dimensions must be equal, but are 2 and 3 for '{{node nce_loss_3/MatMul}} =
  //     MatMul[...]' with input shapes: [3,2], [4,3]."
  const Output narrow = constant(Value::from_vector<float>({1, 2, 3, 4, 5, 6}, {3, 2}));
  auto matmul_error = thrown<ValueError>([&] {
    nn::nce_loss(c1.weights[0], c1.biases, c1.labels, narrow, 4, 8, {.sampled_values = c1.samples});
  });
  REQUIRE(matmul_error);
  CHECK(contains(matmul_error->what(), "Dimensions must be equal, but are 2 and 3"));
  CHECK(contains(matmul_error->what(), "'nce_loss_3/MatMul'"));
  CHECK(contains(matmul_error->what(), "[3,2], [4,3]"));
  // TF: with shards, embedding_lookup's "Unrecognized partition strategy: range.Must be
  //     one of either `mod` or `div`."
  const Case sharded = make_case({{1}, {4}, {2}}, 2);
  auto strategy_error = thrown<ValueError>([&] {
    nn::sampled_softmax_loss(sharded.weights, c1.biases, c1.labels, c1.inputs, 4, 8,
                             {.sampled_values = c1.samples, .partition_strategy = "range"});
  });
  REQUIRE(strategy_error);
  CHECK(std::string(strategy_error->what()) ==
        "Unrecognized partition strategy: range.Must be one of either `mod` or `div`.");
  // TF: 1-D labels are one true class per example to nce_loss ([8.953087, 9.263953,
  //     5.817325], as [[1],[4],[2]]), but ComputeAccidentalHits needs them 2-D: "Shape must
  //     be rank 2 but is rank 1 for '{{node sampled_softmax_loss/ComputeAccidentalHits}} =
  //     ...' with input shapes: [3], [4]."
  const Output flat_labels = constant(Value::from_vector<std::int64_t>({1, 4, 2}, {3}));
  check_close(run_vector<float>(nn::nce_loss(c1.weights[0], c1.biases, flat_labels, c1.inputs, 4, 8,
                                             {.sampled_values = c1.samples})),
              {8.953087f, 9.263953f, 5.817325f});
  auto rank_error = thrown<ValueError>([&] {
    nn::sampled_softmax_loss(c1.weights[0], c1.biases, flat_labels, c1.inputs, 4, 8,
                             {.sampled_values = c1.samples});
  });
  REQUIRE(rank_error);
  CHECK(contains(rank_error->what(), "Shape must be rank 2 but is rank 1"));
  CHECK(contains(rank_error->what(), "'sampled_softmax_loss_1/ComputeAccidentalHits'"));
  CHECK(contains(rank_error->what(), "[3], [4]"));
  // String labels: TensorFlow builds the Cast and fails when it runs ("Cast string to
  // int64 is not supported"); symflow's Cast refuses them when it is built.
  const Output words = constant(Value::from_vector<std::string>({"a", "b", "c"}, {3, 1}));
  CHECK_THROWS_AS(nn::nce_loss(c1.weights[0], c1.biases, words, c1.inputs, 4, 8,
                               {.sampled_values = c1.samples}),
                  TypeError);
}

}  // namespace symflow_test_ops_sampled_losses_test
