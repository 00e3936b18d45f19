#pragma once
// tf.train.AdamOptimizer (Kingma & Ba): slots "m" and "v" ("w/Adam", "w/Adam_1") and
// two variables of the optimizer, beta1_power and beta2_power (beta^t), colocated
// with the first variable by name and multiplied by beta1 and beta2 after each step.

#include <string>
#include <utility>

#include "symflow/ops/operators.hpp"
#include "symflow/train/optimizer.hpp"

namespace symflow::train {

struct AdamOptions {
  Hyperparameter learning_rate = 0.001;
  Hyperparameter beta1 = 0.9;
  Hyperparameter beta2 = 0.999;
  Hyperparameter epsilon = 1e-8;
  bool use_locking = false;
  std::string name = "Adam";
};

class AdamOptimizer : public Optimizer {
 public:
  explicit AdamOptimizer(const AdamOptions& options = {})
      : Optimizer(options.use_locking, options.name), o_(options) {}
  // The learning rate first, as TensorFlow's AdamOptimizer(0.01) takes it (a number or a
  // tensor such as a learning-rate schedule); it replaces options.learning_rate.
  explicit AdamOptimizer(Hyperparameter learning_rate, const AdamOptions& options = {})
      : AdamOptimizer(with_learning_rate(options, std::move(learning_rate))) {}

 protected:
  void create_slots(const std::vector<Variable>& var_list) override {
    const Variable& first =
        *std::min_element(var_list.begin(), var_list.end(),
                          [](const Variable& a, const Variable& b) { return a.name() < b.name(); });
    create_non_slot_variable(o_.beta1, "beta1_power", first);
    create_non_slot_variable(o_.beta2, "beta2_power", first);
    for (const Variable& v : var_list) {
      zeros_slot(v, "m", get_name());
      zeros_slot(v, "v", get_name());
    }
  }

  void prepare(Graph& g) override {
    lr_t_ = o_.learning_rate.to_tensor(g, "learning_rate");
    beta1_t_ = o_.beta1.to_tensor(g, "beta1");
    beta2_t_ = o_.beta2.to_tensor(g, "beta2");
    epsilon_t_ = o_.epsilon.to_tensor(g, "epsilon");
  }

  Operation apply_dense(const Output& grad, const Variable& var) override {
    const Hyperparameters h = hyperparameters(var);
    return apply_adam(var, slot(var, "m"), slot(var, "v"), h.beta1_power, h.beta2_power, h.lr,
                      h.beta1, h.beta2, h.epsilon, grad, use_locking())
        .op();
  }

  // TensorFlow's _apply_sparse_shared: m and v decay in full (Assign), the rows' new
  // terms are added with ScatterAdd, and var moves by lr_t * m / (sqrt(v) + epsilon)
  // with lr_t = lr * sqrt(1 - beta2^t) / (1 - beta1^t), all as graph ops; then a group.
  Operation apply_sparse(const IndexedSlices& grad, const Variable& var) override {
    const Hyperparameters h = hyperparameters(var);
    // One node per statement: the operands of an operator have no set order of evaluation,
    // and TensorFlow numbers the nodes in the order its Python builds them.
    Output one_minus_beta2_power = 1.0 - h.beta2_power;
    Output root = sqrt(one_minus_beta2_power);
    Output scaled_lr = h.lr * root;
    Output one_minus_beta1_power = 1.0 - h.beta1_power;
    Output lr = scaled_lr / one_minus_beta1_power;
    Variable m = slot(var, "m");
    Output one_minus_beta1 = 1.0 - h.beta1;
    Output m_scaled = grad.values * one_minus_beta1;
    Output m_decay = m.value() * h.beta1;
    Output m_decayed = assign(m.ref(), m_decay, true, use_locking());
    Output m_t;
    {
      control_dependencies after({m_decayed.op()});
      m_t = scatter_add(m.ref(), grad.indices, m_scaled, use_locking());
    }
    Variable v = slot(var, "v");
    Output grad_squared = grad.values * grad.values;
    Output one_minus_beta2 = 1.0 - h.beta2;
    Output v_scaled = grad_squared * one_minus_beta2;
    Output v_decay = v.value() * h.beta2;
    Output v_decayed = assign(v.ref(), v_decay, true, use_locking());
    Output v_t;
    {
      control_dependencies after({v_decayed.op()});
      v_t = scatter_add(v.ref(), grad.indices, v_scaled, use_locking());
    }
    Output v_sqrt = sqrt(v_t);
    Output step = lr * m_t;
    Output denominator = v_sqrt + h.epsilon;
    Output delta = step / denominator;
    Output var_update = assign_sub(var.ref(), delta, use_locking());
    return group({var_update.op(), m_t.op(), v_t.op()});
  }

  // After the updates: beta1_power *= beta1 and beta2_power *= beta2.
  Operation finish(const std::vector<Operation>& update_ops, std::string_view name) override {
    Graph g = update_ops.front().graph();
    // Named references, no structured binding: the lambda below captures them, which
    // clang before 16 refuses for a structured binding.
    const auto accumulators = beta_accumulators(g);
    const Variable& beta1_power = accumulators.first;
    const Variable& beta2_power = accumulators.second;
    std::vector<Operation> all = update_ops;
    {
      control_dependencies after(update_ops);
      detail::colocated(g, beta1_power.op(), [&] {
        all.push_back(
            assign(beta1_power.ref(), beta1_power.value() * beta1_t_, true, use_locking()).op());
        all.push_back(
            assign(beta2_power.ref(), beta2_power.value() * beta2_t_, true, use_locking()).op());
      });
    }
    return group(all, name);
  }

 private:
  struct Hyperparameters {
    Output beta1_power, beta2_power, lr, beta1, beta2, epsilon;
  };
  // beta1^t, beta2^t and the hyperparameters as var's dtype, one statement each: the
  // Casts are numbered in TensorFlow's order.
  Hyperparameters hyperparameters(const Variable& var) const {
    auto [beta1_power, beta2_power] = beta_accumulators(var.graph());
    const DType t = var.dtype();
    Hyperparameters h;
    h.beta1_power = cast(beta1_power.value(), t);
    h.beta2_power = cast(beta2_power.value(), t);
    h.lr = cast(lr_t_, t);
    h.beta1 = cast(beta1_t_, t);
    h.beta2 = cast(beta2_t_, t);
    h.epsilon = cast(epsilon_t_, t);
    return h;
  }

  static AdamOptions with_learning_rate(AdamOptions options, Hyperparameter learning_rate) {
    options.learning_rate = std::move(learning_rate);
    return options;
  }

  std::pair<Variable, Variable> beta_accumulators(const Graph& g) const {
    return {non_slot_variable("beta1_power", g), non_slot_variable("beta2_power", g)};
  }

  AdamOptions o_;
  Output lr_t_, beta1_t_, beta2_t_, epsilon_t_;
};

}  // namespace symflow::train
