// Gradients of nn::nce_loss and nn::sampled_softmax_loss with respect to the weights, the
// biases and the inputs: values against tf.gradients in TensorFlow 2.21 graph mode (the
// weights' IndexedSlices made dense), and numerical checks in float64
// (tests/gradient_check.hpp). The samples are constants, so the losses are smooth.

#include <doctest/doctest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <symflow/ops/sampled_losses.hpp>
#include <symflow/symflow.hpp>
#include <symflow/train/gradients.hpp>

#include "../gradient_check.hpp"
#include "../test_util.hpp"

namespace symflow_test_ops_sampled_losses_grad_test {

using namespace symflow;
using namespace symflow::test;

namespace {

const std::vector<double> kWeights{0.1, -0.2, 0.3,  0.4,  0.5,  -0.6, -0.7, 0.8,
                                   0.9, 1.0,  -1.1, 0.2,  0.3,  0.2,  -0.1, -0.5,
                                   0.6, 0.7,  0.8,  -0.9, 0.05, 0.15, 0.25, -0.35};
const std::vector<double> kBiases{0.01, -0.02, 0.03, -0.04, 0.05, -0.06, 0.07, -0.08};
const std::vector<double> kInputs{0.5, -1.0, 0.25, 1.5, 0.25, -0.75, -0.5, 2.0, 1.0};

template <class T>
Value values_of(const std::vector<double>& v, Dims dims) {
  return Value::from_vector(std::vector<T>(v.begin(), v.end()), std::move(dims));
}

// Labels [[1],[4],[2]] (or [[1,3],[4,0],[2,5]]) and the samples [0, 4, 6, 7] with their
// expected counts, as constants of dtype T.
template <class T>
nn::CandidateSamples samples(std::int64_t num_true) {
  const std::vector<double> true_expected =
      num_true == 1 ? std::vector<double>{0.3, 0.2, 0.1}
                    : std::vector<double>{0.3, 0.25, 0.2, 0.5, 0.1, 0.05};
  return {constant(Value::from_vector<std::int64_t>({0, 4, 6, 7}, {4})),
          constant(values_of<T>(true_expected, {3, num_true})),
          constant(values_of<T>({0.5, 0.2, 0.1, 0.15}, {4}))};
}
Output labels(std::int64_t num_true) {
  return num_true == 1 ? constant(Value::from_vector<std::int64_t>({1, 4, 2}, {3, 1}))
                       : constant(Value::from_vector<std::int64_t>({1, 3, 4, 0, 2, 5}, {3, 2}));
}

// d sum(loss) / d (weights, biases, inputs), run.
std::vector<std::vector<float>> loss_gradients(
    const std::function<Output(const Output&, const Output&, const Output&)>& loss_of) {
  Graph g;
  auto guard = g.as_default();
  const Output w = constant(values_of<float>(kWeights, {8, 3}));
  const Output b = constant(values_of<float>(kBiases, {8}));
  const Output x = constant(values_of<float>(kInputs, {3, 3}));
  const std::vector<Output> grads = gradients(reduce_sum(loss_of(w, b, x)), {w, b, x});
  REQUIRE(grads.size() == 3);
  for (const Output& d : grads) REQUIRE(d.valid());
  Session sess(g);
  std::vector<std::vector<float>> out;
  for (const Output& d : grads) out.push_back(sess.run(d).to_vector<float>());
  return out;
}

}  // namespace

TEST_CASE("sampled_losses/grad: nce_loss against TensorFlow") {
  // TF: tf.gradients(reduce_sum(nce_loss(w, b, [[1],[4],[2]], x, 4, 8, sampled_values)),
  //     [w, b, x]); the rows of w no id names (3, 5) get nothing.
  const auto grads = loss_gradients([](const Output& w, const Output& b, const Output& x) {
    return nn::nce_loss(w, b, labels(1), x, 4, 8, {.sampled_values = samples<float>(1)});
  });
  check_close(grads[0],
              {1.011807f,
               0.6933345f,
               0.3385238f,
               -0.16216177f,
               0.32432353f,
               -0.081080884f,
               0.002791077f,
               -0.011164308f,
               -0.005582154f,
               0,
               0,
               0,
               1.1951683f,
               1.0904056f,
               0.46180245f,
               0,
               0,
               0,
               1.6572106f,
               0.3765092f,
               0.07571754f,
               1.3497195f,
               1.1409855f,
               0.38967797f},
              1e-5, false);
  check_close(grads[1],
              {2.012063f, -0.32432353f, -0.005582154f, 0, 2.4957256f, 0, 2.4957101f, 2.6088624f},
              1e-5, false);
  check_close(grads[2],
              {1.0971284f, -0.81507903f, 0.09240086f, 1.2150053f, -0.60653275f, -0.16022886f,
               0.89986587f, -0.24220659f, -0.17687179f},
              1e-5, false);
}

TEST_CASE("sampled_losses/grad: nce_loss with num_true 2 against TensorFlow") {
  const auto grads = loss_gradients([](const Output& w, const Output& b, const Output& x) {
    return nn::nce_loss(w, b, labels(2), x, 4, 8,
                        {.num_true = 2, .sampled_values = samples<float>(2)});
  });
  check_close(grads[0],
              {1.2227684f,   0.72849476f, 0.23304307f, 0.08783823f,  -0.17567647f, 0.043919116f,
               -0.24720892f, 0.9888357f,  0.49441785f, 0.22620323f,  -0.45240647f, 0.11310162f,
               1.9451683f,   1.2154056f,  0.08680245f, -0.24692681f, 0.98770726f,  0.49385363f,
               1.6572106f,   0.3765092f,  0.07571754f, 1.3497195f,   1.1409855f,   0.38967797f},
              1e-5, false);
  check_close(grads[1],
              {2.152704f, 0.17567647f, 0.49441785f, 0.45240647f, 2.9957256f, 0.49385363f,
               2.4957101f, 2.6088624f},
              1e-5, false);
  check_close(grads[2],
              {1.7495348f, -1.0627261f, -0.11711786f, 1.3790693f, -0.534661f, -0.16803658f,
               0.30293906f, 0.45410562f, 0.6188258f},
              1e-5, false);
}

TEST_CASE("sampled_losses/grad: sampled_softmax_loss against TensorFlow") {
  // TF: remove_accidental_hits=False; the targets do not depend on w, b or x.
  const auto grads = loss_gradients([](const Output& w, const Output& b, const Output& x) {
    return nn::sampled_softmax_loss(
        w, b, labels(1), x, 4, 8,
        {.sampled_values = samples<float>(1), .remove_accidental_hits = false});
  });
  check_close(grads[0],
              {6.6938773e-02f,
               -2.5901075e-02f,
               -1.0161204e-03f,
               -4.8082966e-01f,
               9.6165931e-01f,
               -2.4041483e-01f,
               4.0564239e-02f,
               -1.6225696e-01f,
               -8.1128478e-02f,
               0,
               0,
               0,
               -9.9199784e-01f,
               -1.9693139e-01f,
               5.6449693e-01f,
               0,
               0,
               0,
               1.0654647e+00f,
               -6.0346115e-01f,
               -1.6122389e-01f,
               2.9985982e-01f,
               2.6891135e-02f,
               -8.0713764e-02f},
              1e-5, false);
  check_close(grads[1],
              {0.09088634f, -0.9616593f, -0.08112848f, 0, -0.5595012f, 0, 1.2078024f, 0.30359995f},
              1e-5, false);
  check_close(grads[2],
              {0.24715242f, -1.11141f, 0.5896367f, 0.2005696f, -0.5178801f, 0.03681787f,
               0.077424414f, -0.057642072f, -0.085128404f},
              1e-5, false);
}

TEST_CASE("sampled_losses/grad: sampled_softmax_loss removing accidental hits") {
  // TF: the default remove_accidental_hits=True; class 4, sampled second, is row 1's label,
  //     so that sampled logit gets -FLT_MAX and sends back nothing.
  const auto grads = loss_gradients([](const Output& w, const Output& b, const Output& x) {
    return nn::sampled_softmax_loss(w, b, labels(1), x, 4, 8,
                                    {.sampled_values = samples<float>(1)});
  });
  check_close(grads[0],
              {0.075618595f,
               -0.024454437f,
               -0.005356032f,
               -0.48082966f,
               0.9616593f,
               -0.24041483f,
               0.04056424f,
               -0.16225696f,
               -0.08112848f,
               0,
               0,
               0,
               -1.1859568f,
               -0.22925788f,
               0.6614764f,
               0,
               0,
               0,
               1.1988097f,
               -0.581237f,
               -0.22789638f,
               0.3517939f,
               0.03554681f,
               -0.10668079f},
              1e-5, false);
  check_close(grads[1],
              {0.096672885f, -0.9616593f, -0.08112848f, 0, -0.6888071f, 0, 1.296699f, 0.33822265f},
              1e-5, false);
  check_close(grads[2],
              {0.24715242f, -1.11141f, 0.5896367f, 0.23866723f, -0.6162498f, 0.043811318f,
               0.077424414f, -0.057642072f, -0.085128404f},
              1e-5, false);
}

TEST_CASE("sampled_losses/grad: nce_loss of sharded weights against TensorFlow") {
  // TF: the weights as 3 "mod" shards: each shard's gradient is the rows of the single
  //     table's gradient that it holds (rows 0,3,6 / 1,4,7 / 2,5).
  Graph g;
  auto guard = g.as_default();
  std::vector<Output> shards;
  for (int s = 0; s < 3; ++s) {
    std::vector<double> rows;
    for (int r = s; r < 8; r += 3) rows.insert(rows.end(), &kWeights[r * 3], &kWeights[r * 3 + 3]);
    shards.push_back(
        constant(values_of<float>(rows, {static_cast<std::int64_t>(rows.size() / 3), 3})));
  }
  const Output b = constant(values_of<float>(kBiases, {8}));
  const Output x = constant(values_of<float>(kInputs, {3, 3}));
  const Output loss =
      nn::nce_loss(shards, b, labels(1), x, 4, 8, {.sampled_values = samples<float>(1)});
  const std::vector<Output> grads = gradients(reduce_sum(loss), shards);
  Session sess(g);
  check_close(sess.run(grads[0]).to_vector<float>(),
              {1.011807f, 0.6933345f, 0.3385238f, 0, 0, 0, 1.6572106f, 0.3765092f, 0.07571754f},
              1e-5, false);
  check_close(sess.run(grads[1]).to_vector<float>(),
              {-0.16216177f, 0.32432353f, -0.081080884f, 1.1951683f, 1.0904056f, 0.46180245f,
               1.3497195f, 1.1409855f, 0.38967797f},
              1e-5, false);
  check_close(sess.run(grads[2]).to_vector<float>(),
              {0.002791077f, -0.011164308f, -0.005582154f, 0, 0, 0}, 1e-5, false);
}

TEST_CASE("sampled_losses/grad: numerically") {
  const Value w = values_of<double>(kWeights, {8, 3});
  const Value b = values_of<double>(kBiases, {8});
  const Value x = values_of<double>(kInputs, {3, 3});
  for (std::int64_t num_true : {1, 2}) {
    CAPTURE(num_true);
    check_gradients(
        [num_true](const auto& in) {
          return nn::nce_loss(in[0], in[1], labels(num_true), in[2], 4, 8,
                              {.num_true = num_true, .sampled_values = samples<double>(num_true)});
        },
        {w, b, x});
    check_gradients(
        [num_true](const auto& in) {
          return nn::sampled_softmax_loss(in[0], in[1], labels(num_true), in[2], 4, 8,
                                          {.num_true = num_true,
                                           .sampled_values = samples<double>(num_true),
                                           .remove_accidental_hits = false});
        },
        {w, b, x});
    // With the hits removed: a logit of -FLT_MAX, whose softmax weight is 0.
    check_gradients(
        [num_true](const auto& in) {
          return nn::sampled_softmax_loss(
              in[0], in[1], labels(num_true), in[2], 4, 8,
              {.num_true = num_true, .sampled_values = samples<double>(num_true)});
        },
        {w, b, x});
  }
}

}  // namespace symflow_test_ops_sampled_losses_grad_test
