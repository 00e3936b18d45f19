#pragma once
// tf.train.MomentumOptimizer: accum = momentum * accum + grad, var -= lr * accum
// (or the Nesterov step), with the slot "momentum" ("w/Momentum").

#include <string>

#include "symflow/train/optimizer.hpp"

namespace symflow::train {

struct MomentumOptions {
  bool use_locking = false;
  std::string name = "Momentum";
  bool use_nesterov = false;
};

class MomentumOptimizer : public Optimizer {
 public:
  MomentumOptimizer(Hyperparameter learning_rate, Hyperparameter momentum,
                    const MomentumOptions& options = {})
      : Optimizer(options.use_locking, options.name),
        learning_rate_(std::move(learning_rate)),
        momentum_(std::move(momentum)),
        use_nesterov_(options.use_nesterov) {}

 protected:
  void create_slots(const std::vector<Variable>& var_list) override {
    for (const Variable& v : var_list) zeros_slot(v, "momentum", get_name());
  }

  void prepare(Graph& g) override {
    lr_t_ = learning_rate_.to_tensor(g, "learning_rate");
    momentum_t_ = momentum_.to_tensor(g, "momentum");
  }

  Operation apply_dense(const Output& grad, const Variable& var) override {
    Output lr = cast(lr_t_, var.dtype());  // before momentum's Cast, as in TensorFlow
    Output momentum = cast(momentum_t_, var.dtype());
    return apply_momentum(var, slot(var, "momentum"), lr, grad, momentum, use_locking(),
                          use_nesterov_)
        .op();
  }

  Operation apply_sparse(const IndexedSlices& grad, const Variable& var) override {
    Output lr = cast(lr_t_, var.dtype());
    Output momentum = cast(momentum_t_, var.dtype());
    return sparse_apply_momentum(var, slot(var, "momentum"), lr, grad.values, grad.indices,
                                 momentum, use_locking(), use_nesterov_)
        .op();
  }

 private:
  Hyperparameter learning_rate_;
  Hyperparameter momentum_;
  bool use_nesterov_ = false;
  Output lr_t_, momentum_t_;
};

}  // namespace symflow::train
