#pragma once
// Numerical gradient checking: symflow::gradients against central differences, in float64.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include <symflow/ops/registry.hpp>
#include <symflow/symflow.hpp>
#include <symflow/train/gradients.hpp>

#include "run_hooks.hpp"

namespace symflow::test {

using GraphFn = std::function<Output(const std::vector<Output>&)>;

// The op types of every graph check_gradients has differentiated in this process.
inline std::set<std::string>& gradient_checked_ops() {
  static std::set<std::string> ops;
  return ops;
}

// With SYMFLOW_GRADIENT_COVERAGE set (the ctest test gradients.coverage runs every
// gradient test case in one process): fails when a registered op with a gradient
// function was never part of a checked graph.
inline int report_gradient_coverage() {
  if (std::getenv("SYMFLOW_GRADIENT_COVERAGE") == nullptr) return 0;
  int differentiable = 0;
  std::string missing;
  for (const OpEntry& entry : kAllOps) {
    // A variable reference carried through a loop's frame has none (an UnimplementedError).
    if (entry.grad == nullptr || entry.grad == not_differentiable ||
        entry.grad == detail::ref_frame_grad)
      continue;
    ++differentiable;
    if (!gradient_checked_ops().count(std::string(entry.def->type)))
      missing += " " + std::string(entry.def->type);
  }
  if (!missing.empty()) {
    std::printf("gradient coverage: no numerical check reached:%s\n", missing.c_str());
    return 1;
  }
  std::printf("gradient coverage: all %d ops with a gradient are checked numerically\n",
              differentiable);
  return 0;
}
inline const bool kGradientCoverageHook =
    (after_run_hooks().push_back(&report_gradient_coverage), true);

// Checks d loss / d feeds[i].tensor, for each i of `which` (float64 values), against
// central differences with step `step`: the analytic gradient (symflow::gradients) of
// every element, and loss run with that element moved by -step and +step. A mismatch
// fails with the input, element and both values.
inline void check_against_differences(Session& sess, const Output& loss, const FeedDict& feeds,
                                      const std::vector<std::size_t>& which, double tolerance,
                                      double step) {
  std::vector<Output> differentiated;
  for (std::size_t i : which) differentiated.push_back(std::get<Output>(feeds[i].tensor));
  std::vector<Output> grads = gradients(loss, differentiated);
  REQUIRE(grads.size() == differentiated.size());
  for (std::size_t k = 0; k < which.size(); ++k) {
    const std::size_t i = which[k];
    const Value& value = feeds[i].value;
    CAPTURE(i);
    CAPTURE(differentiated[k].name());
    REQUIRE_MESSAGE(grads[k].valid(), "no gradient reached input ", i);
    Value analytic = sess.run(grads[k], feeds);
    REQUIRE(analytic.dims() == value.dims());
    for (std::int64_t e = 0; e < value.size(); ++e) {
      auto loss_at = [&](double delta) {
        FeedDict moved = feeds;
        Value x = value.clone();
        x.data<double>()[e] += delta;
        moved[i] = {differentiated[k], x};
        return sess.run(loss, moved).data<double>()[0];
      };
      const double numeric = (loss_at(step) - loss_at(-step)) / (2 * step);
      const double got = analytic.data<double>()[e];
      CAPTURE(e);
      CAPTURE(numeric);
      CAPTURE(got);
      CHECK(std::abs(got - numeric) <= tolerance * std::max(1.0, std::abs(numeric)));
    }
  }
}

// Feeds `inputs` through placeholders (with their static shapes), builds f, and checks
// d/dx_i of sum(f(x) * w), w fixed pseudo-random weights, against central differences
// with step `step`, for every float64 input. Other inputs (indices, labels) are fed
// but not differentiated. A mismatch fails with the input, element and both values.
inline void check_gradients(const GraphFn& f, const std::vector<Value>& inputs,
                            double tolerance = 1e-6, double step = 1e-6) {
  Graph g;
  auto guard = g.as_default();
  std::vector<Output> xs;
  for (std::size_t i = 0; i < inputs.size(); ++i)
    xs.push_back(placeholder(inputs[i].dtype(), Shape(inputs[i].dims()), "x" + std::to_string(i)));
  Output y = f(xs);
  REQUIRE(y.valid());
  for (const Operation& op : g.get_operations()) gradient_checked_ops().insert(op.type());
  REQUIRE(y.dtype() == DType::float64);

  Session sess(g);
  FeedDict feeds;
  for (std::size_t i = 0; i < inputs.size(); ++i) feeds.push_back({xs[i], inputs[i]});
  Value y_value = sess.run(y, feeds);

  // Weights in [0.5, 1.5) from a fixed sequence, so a wrong sum over outputs shows.
  std::vector<double> w(static_cast<std::size_t>(y_value.size()));
  std::uint32_t state = 12345;
  for (double& v : w) {
    state = state * 1664525u + 1013904223u;
    v = 0.5 + static_cast<double>(state >> 8) / static_cast<double>(1u << 24);
  }
  Output weights = constant(Value::from_vector(w, y_value.dims()), "weights");
  Output loss = reduce_sum(multiply(y, weights), Axis(), false, "loss");

  std::vector<std::size_t> which;
  for (std::size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].dtype() == DType::float64) which.push_back(i);
  check_against_differences(sess, loss, feeds, which, tolerance, step);
}

}  // namespace symflow::test
