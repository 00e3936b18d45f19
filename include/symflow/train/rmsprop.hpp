#pragma once
// tf.train.RMSPropOptimizer: slots "rms" (the mean square, initialised to ones as
// TensorFlow 1.x does: "w/RMSProp"), "mg" when centered (the mean gradient), and
// "momentum" ("w/RMSProp_1", or "w/RMSProp_2" when centered).

#include <string>

#include "symflow/train/optimizer.hpp"

namespace symflow::train {

struct RMSPropOptions {
  Hyperparameter decay = 0.9;
  Hyperparameter momentum = 0.0;
  Hyperparameter epsilon = 1e-10;
  bool use_locking = false;
  // Divide by the gradient's estimated variance rather than its mean square
  // (ApplyCenteredRMSProp).
  bool centered = false;
  std::string name = "RMSProp";
};

class RMSPropOptimizer : public Optimizer {
 public:
  explicit RMSPropOptimizer(Hyperparameter learning_rate, const RMSPropOptions& options = {})
      : Optimizer(options.use_locking, options.name),
        learning_rate_(std::move(learning_rate)),
        o_(options) {}

 protected:
  void create_slots(const std::vector<Variable>& var_list) override {
    for (const Variable& v : var_list) {
      get_or_make_slot_with_initializer(v, ones_initializer(), v.shape(), v.dtype(), "rms",
                                        get_name());
      if (o_.centered) zeros_slot(v, "mg", get_name());
      zeros_slot(v, "momentum", get_name());
    }
  }

  void prepare(Graph& g) override {
    lr_t_ = learning_rate_.to_tensor(g, "learning_rate");
    decay_t_ = o_.decay.to_tensor(g, "decay");
    momentum_t_ = o_.momentum.to_tensor(g, "momentum");
    epsilon_t_ = o_.epsilon.to_tensor(g, "epsilon");
  }

  Operation apply_dense(const Output& grad, const Variable& var) override {
    const Hyperparameters h = hyperparameters(var.dtype());
    if (o_.centered)
      return apply_centered_rms_prop(var, slot(var, "mg"), slot(var, "rms"), slot(var, "momentum"),
                                     h.lr, h.decay, h.momentum, h.epsilon, grad, use_locking())
          .op();
    return apply_rms_prop(var, slot(var, "rms"), slot(var, "momentum"), h.lr, h.decay, h.momentum,
                          h.epsilon, grad, use_locking())
        .op();
  }

  Operation apply_sparse(const IndexedSlices& grad, const Variable& var) override {
    const Hyperparameters h = hyperparameters(var.dtype());
    if (o_.centered)
      return sparse_apply_centered_rms_prop(var, slot(var, "mg"), slot(var, "rms"),
                                            slot(var, "momentum"), h.lr, h.decay, h.momentum,
                                            h.epsilon, grad.values, grad.indices, use_locking())
          .op();
    return sparse_apply_rms_prop(var, slot(var, "rms"), slot(var, "momentum"), h.lr, h.decay,
                                 h.momentum, h.epsilon, grad.values, grad.indices, use_locking())
        .op();
  }

 private:
  struct Hyperparameters {
    Output lr, decay, momentum, epsilon;
  };
  // The hyperparameters as the variable's dtype, one statement each: the Casts are
  // numbered in TensorFlow's order.
  Hyperparameters hyperparameters(DType t) const {
    Hyperparameters h;
    h.lr = cast(lr_t_, t);
    h.decay = cast(decay_t_, t);
    h.momentum = cast(momentum_t_, t);
    h.epsilon = cast(epsilon_t_, t);
    return h;
  }

  Hyperparameter learning_rate_;
  RMSPropOptions o_;
  Output lr_t_, decay_t_, momentum_t_, epsilon_t_;
};

}  // namespace symflow::train
