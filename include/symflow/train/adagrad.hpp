#pragma once
// tf.train.AdagradOptimizer: accum += grad^2, var -= lr * grad / sqrt(accum), with the
// slot "accumulator" ("w/Adagrad") starting at initial_accumulator_value.

#include <string>

#include "symflow/detail/float_repr.hpp"
#include "symflow/train/optimizer.hpp"

namespace symflow::train {

struct AdagradOptions {
  double initial_accumulator_value = 0.1;
  bool use_locking = false;
  std::string name = "Adagrad";
};

class AdagradOptimizer : public Optimizer {
 public:
  explicit AdagradOptimizer(Hyperparameter learning_rate, const AdagradOptions& options = {})
      : Optimizer(options.use_locking, options.name),
        learning_rate_(std::move(learning_rate)),
        initial_accumulator_value_(options.initial_accumulator_value) {
    if (!(initial_accumulator_value_ > 0.0))
      throw ValueError("initial_accumulator_value must be positive: " +
                       symflow::detail::python_float_repr(initial_accumulator_value_));
  }

 protected:
  void create_slots(const std::vector<Variable>& var_list) override {
    for (const Variable& v : var_list)
      get_or_make_slot_with_initializer(v, constant_initializer(Value(initial_accumulator_value_)),
                                        v.shape(), v.dtype(), "accumulator", get_name());
  }

  void prepare(Graph& g) override { lr_t_ = learning_rate_.to_tensor(g, "learning_rate"); }

  Operation apply_dense(const Output& grad, const Variable& var) override {
    return apply_adagrad(var, slot(var, "accumulator"), cast(lr_t_, var.dtype()), grad,
                         use_locking())
        .op();
  }

  Operation apply_sparse(const IndexedSlices& grad, const Variable& var) override {
    return sparse_apply_adagrad(var, slot(var, "accumulator"), cast(lr_t_, var.dtype()),
                                grad.values, grad.indices, use_locking())
        .op();
  }

 private:
  Hyperparameter learning_rate_;
  double initial_accumulator_value_;
  Output lr_t_;
};

}  // namespace symflow::train
