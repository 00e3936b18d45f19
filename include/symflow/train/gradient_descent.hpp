#pragma once
// tf.train.GradientDescentOptimizer: var -= learning_rate * grad.

#include <string>

#include "symflow/train/optimizer.hpp"

namespace symflow::train {

struct GradientDescentOptions {
  bool use_locking = false;
  std::string name = "GradientDescent";
};

class GradientDescentOptimizer : public Optimizer {
 public:
  explicit GradientDescentOptimizer(Hyperparameter learning_rate,
                                    const GradientDescentOptions& options = {})
      : Optimizer(options.use_locking, options.name), learning_rate_(std::move(learning_rate)) {}

 protected:
  void prepare(Graph& g) override { lr_t_ = learning_rate_.to_tensor(g, "learning_rate"); }

  Operation apply_dense(const Output& grad, const Variable& var) override {
    return apply_gradient_descent(var, cast(lr_t_, var.dtype()), grad, use_locking()).op();
  }

 private:
  Hyperparameter learning_rate_;
  Output lr_t_;
};

}  // namespace symflow::train
