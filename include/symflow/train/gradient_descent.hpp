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

  // TensorFlow subtracts the scaled rows with ScatterSub, duplicates and all.
  Operation apply_sparse_duplicate_indices(const IndexedSlices& grad,
                                           const Variable& var) override {
    Output delta = grad.values * cast(lr_t_, var.dtype());
    return scatter_sub(var.ref(), grad.indices, delta, use_locking()).op();
  }

 private:
  Hyperparameter learning_rate_;
  Output lr_t_;
};

}  // namespace symflow::train
