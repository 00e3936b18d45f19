#pragma once
// symflow::nn::rnn_cell: TensorFlow 1.x's RNN cells (tf.nn.rnn_cell / tf.compat.v1.nn.rnn_cell):
// BasicRNNCell, BasicLSTMCell, LSTMCell and GRUCell, with TensorFlow's gate order, formulas,
// variable names and default initializers, so that a checkpoint written by TensorFlow
// restores into the variables a cell creates.
//
//   symflow::nn::rnn_cell::BasicLSTMCell cell(4);
//   auto state = cell.zero_state(2, symflow::float32);   // LSTMStateTuple{c, h}
//   auto [output, next] = cell(x, state);                // x: [batch, depth]
//
// A cell creates its variables on its first call, in a variable scope named after the cell
// ("basic_lstm_cell", "lstm_cell", "gru_cell", "basic_rnn_cell"; uniquified like
// tf.variable_scope's default_name) inside the current variable scope, and reuses them on
// every later call. Variables are always created outside any while loop or cond being built
// (symflow's Variable leaves the control-flow context, as TensorFlow's init_scope does), so a
// cell first called inside tf.while_loop's body creates them once, before the loop.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "symflow/graph/scopes.hpp"
#include "symflow/ops/array_ops.hpp"
#include "symflow/ops/const_op.hpp"
#include "symflow/ops/init_ops.hpp"
#include "symflow/ops/logic_ops.hpp"
#include "symflow/ops/math_ops.hpp"
#include "symflow/ops/nn_impl.hpp"
#include "symflow/ops/nn_ops.hpp"
#include "symflow/ops/operators.hpp"
#include "symflow/ops/shape_ops.hpp"
#include "symflow/ops/tensor_arg.hpp"
#include "symflow/ops/transform_ops.hpp"
#include "symflow/variables/get_variable.hpp"
#include "symflow/variables/variable_scope.hpp"

namespace symflow::nn::rnn_cell {

// tf.nn.rnn_cell.LSTMStateTuple: the state of an LSTM, the cell state c and the output h.
struct LSTMStateTuple {
  Output c;
  Output h;
};

// A cell's state: one tensor (BasicRNNCell, GRUCell, an LSTM with state_is_tuple=false), or
// an LSTMStateTuple. Converts implicitly from either.
class RNNState {
 public:
  RNNState() = default;
  RNNState(const Output& tensor) : parts_{tensor} {}  // NOLINT: implicit on purpose
  RNNState(const LSTMStateTuple& state)               // NOLINT: implicit on purpose
      : parts_{state.c, state.h}, is_tuple_(true) {}

  bool valid() const { return !parts_.empty(); }
  bool is_tuple() const { return is_tuple_; }
  // The tensors in order (c, h for a tuple): nest.flatten(state).
  const std::vector<Output>& flat() const { return parts_; }
  // The single tensor; TypeError for a tuple.
  const Output& tensor() const {
    if (is_tuple_ || parts_.empty())
      throw TypeError("The RNN state is " + describe() + ", not a single tensor");
    return parts_.front();
  }
  // The LSTMStateTuple; TypeError for a single tensor.
  LSTMStateTuple lstm() const {
    if (!is_tuple_) throw TypeError("The RNN state is " + describe() + ", not an LSTMStateTuple");
    return {parts_[0], parts_[1]};
  }
  const Output& c() const { return lstm_part(0); }
  const Output& h() const { return lstm_part(1); }

  // The same structure as `like`, holding `flat` (nest.pack_sequence_as).
  static RNNState pack_like(const RNNState& like, std::vector<Output> flat) {
    RNNState out;
    out.parts_ = std::move(flat);
    out.is_tuple_ = like.is_tuple_;
    return out;
  }

  // "the tensor x:0", "LSTMStateTuple(c=zeros:0, h=zeros_1:0)".
  std::string describe() const {
    if (parts_.empty()) return "empty";
    if (!is_tuple_) return "the tensor " + parts_[0].name();
    return "LSTMStateTuple(c=" + parts_[0].name() + ", h=" + parts_[1].name() + ")";
  }

 private:
  const Output& lstm_part(std::size_t i) const {
    if (!is_tuple_) throw TypeError("The RNN state is " + describe() + ", not an LSTMStateTuple");
    return parts_[i];
  }

  std::vector<Output> parts_;
  bool is_tuple_ = false;
};

// A cell's state_size (and the structure of its state): TensorFlow's int, or
// LSTMStateTuple(c_size, h_size).
struct StateSize {
  std::vector<std::int64_t> sizes;
  bool is_tuple = false;
};

namespace detail_rnn_cell {

inline Value int32_vector_of(std::int64_t v) {
  return Value::from_vector(
      std::vector<std::int32_t>{symflow::detail::checked_int32(v, "a batch or state size")}, {1});
}

// TensorFlow's _concat(prefix, suffix) for a batch size (a number or an int scalar tensor)
// and a size: the int32 vector [batch, size], its consts and concat named as TensorFlow's.
inline Output concat_batch(const TensorArg& batch, std::int64_t size) {
  Output prefix;
  if (const Value* b = batch.value()) {
    prefix = constant(int32_vector_of(b->astype(DType::int64).scalar<std::int64_t>()));
  } else {
    prefix = *batch.tensor();
    if (prefix.get_shape().has_rank() && prefix.get_shape().rank() == 0)
      prefix = expand_dims(prefix, 0);
  }
  const Output suffix = constant(int32_vector_of(size));
  return concat({prefix, suffix}, 0);
}

// tf.zeros(dims, dtype) for a shape tensor: Fill("zeros/Const") named "zeros".
inline Output zeros_of_shape(const Output& dims, DType dtype, const Shape& static_shape) {
  name_scope scope(graph_of({dims}), "zeros");
  const Output zero = constant(symflow::detail::scalar_of(dtype, 0.0), "Const");
  Output z = symflow::fill(dims, zero, scope.name());
  z.set_shape(static_shape);
  return z;
}

}  // namespace detail_rnn_cell

// An activation: tanh unless given (tf.nn.relu, ... wrapped in a lambda).
using Activation = std::function<Output(const Output&)>;

// tf.nn.rnn_cell.RNNCell: what dynamic_rnn calls. Cells are stateful (they remember their
// variables) and are passed by reference.
class RNNCell {
 public:
  virtual ~RNNCell() = default;
  RNNCell(const RNNCell&) = delete;
  RNNCell& operator=(const RNNCell&) = delete;

  virtual StateSize state_size() const = 0;
  virtual std::int64_t output_size() const = 0;

  // cell.zero_state(batch_size, dtype): zeros of [batch_size, s] for each state size, in
  // name scope "<ClassName>ZeroState". batch_size is a number or an int32 scalar tensor.
  RNNState zero_state(const TensorArg& batch_size, DType dtype = DType::float32) const {
    Graph g = batch_size.tensor() ? graph_of({*batch_size.tensor()}) : get_default_graph();
    name_scope scope(g, class_name() + "ZeroState");
    std::vector<Output> parts;
    for (std::int64_t size : state_size().sizes) parts.push_back(zeros_of(batch_size, size, dtype));
    RNNState like = state_size().is_tuple ? RNNState(LSTMStateTuple{}) : RNNState(Output());
    return RNNState::pack_like(like, std::move(parts));
  }

  // (output, new_state) = cell(inputs, state): inputs is [batch, depth] with depth known.
  // The first call creates the variables; later calls reuse them.
  std::pair<Output, RNNState> operator()(const Output& inputs, const RNNState& state) {
    const Shape& shape = inputs.get_shape();
    if (shape.has_rank() && shape.rank() != 2)
      throw ValueError("Input 0 of layer \"" + layer_name() +
                       "\" is incompatible with the layer: expected ndim=2, found ndim=" +
                       std::to_string(shape.rank()) +
                       ". Full shape received: " + symflow::detail::python_shape(shape));
    check_state(state);
    if (!scope_) {
      if (!shape.has_rank() || shape.dims().back() < 0)
        throw ValueError("Expected inputs.shape[-1] to be known, received shape: " +
                         symflow::detail::python_shape(shape));
      variable_scope vs("", {.default_name = base_name_});
      try {
        build(shape.dims().back(), inputs.dtype());
      } catch (...) {
        weights_.clear();  // a failed build leaves the cell unbuilt
        throw;
      }
      scope_ = vs.scope();
      return call(inputs, state);
    }
    // Later calls reuse the variables, and their ops go back into the name scope of the
    // first call ("gru_cell/add_1"), as a TensorFlow layer's do.
    variable_scope vs(*scope_, {.reuse = true, .auxiliary_name_scope = false});
    name_scope ops(get_default_graph(), scope_->original_name_scope());
    return call(inputs, state);
  }

  // The state's structure must be the cell's: TypeError for a single tensor where an
  // LSTMStateTuple is expected, ValueError for a tuple where one tensor is (TensorFlow packs
  // the tuple into one tensor of the wrong rank).
  void check_state(const RNNState& state) const {
    if (!state.valid()) throw ValueError("The state given to " + layer_name() + " is empty");
    const StateSize sizes = state_size();
    if (sizes.is_tuple && !state.is_tuple())
      throw TypeError(layer_name() + " expects its state to be an LSTMStateTuple (c, h), got " +
                      state.describe());
    if (!sizes.is_tuple && state.is_tuple())
      throw ValueError(layer_name() + " expects its state to be one tensor of shape [batch, " +
                       std::to_string(sizes.sizes.front()) + "], got " + state.describe());
  }

  // Whether the variables exist (the cell was called once).
  bool built() const { return scope_.has_value(); }
  // The variables the cell created, in creation order (kernel, bias, ...).
  const std::vector<Variable>& variables() const { return weights_; }
  // The variable scope the cell's variables live in ("rnn/basic_lstm_cell").
  std::string scope_name() const { return scope_ ? scope_->name() : std::string(); }

 protected:
  explicit RNNCell(std::string base_name) : base_name_(std::move(base_name)) {}

  // TensorFlow's class name: "BasicLSTMCell" (the zero state's name scope).
  virtual std::string class_name() const = 0;
  // Creates the variables (add_weight) for inputs of `input_depth` columns.
  virtual void build(std::int64_t input_depth, DType dtype) = 0;
  // One step, inside the cell's variable scope; the state has the right structure.
  virtual std::pair<Output, RNNState> call(const Output& inputs, const RNNState& state) = 0;

  // get_variable(name, shape) in the cell's scope, remembered in variables().
  Variable add_weight(const std::string& name, const Shape& shape, DType dtype,
                      InitializerOrValue initializer = {}) {
    Variable v = get_variable(name, shape, {.dtype = dtype, .initializer = std::move(initializer)});
    weights_.push_back(v);
    return v;
  }

  static Activation default_activation(Activation a) {
    if (a) return a;
    return [](const Output& x) { return symflow::tanh(x); };
  }

 private:
  std::string layer_name() const {
    if (!scope_) return base_name_;
    const std::string& full = scope_->name();
    return full.substr(full.rfind('/') + 1);
  }

  // TensorFlow's _zero_state_tensors: zeros of _concat(batch, size), then the static shape
  // from _concat(batch, size, static=True), which makes two more (unused) Consts.
  static Output zeros_of(const TensorArg& batch_size, std::int64_t size, DType dtype) {
    const Value* b = batch_size.value();
    const std::int64_t batch = b ? b->astype(DType::int64).scalar<std::int64_t>() : unknown_dim;
    const Output z = detail_rnn_cell::zeros_of_shape(
        detail_rnn_cell::concat_batch(batch_size, size), dtype, Shape{batch, size});
    if (b) constant(detail_rnn_cell::int32_vector_of(batch));
    constant(detail_rnn_cell::int32_vector_of(size));
    return z;
  }

  std::string base_name_;
  std::optional<VariableScope> scope_;
  std::vector<Variable> weights_;
};

// tf.nn.rnn_cell.BasicRNNCell(num_units, activation): output = new_state =
// activation([x, h] kernel + bias). Variables: kernel [depth + units, units] (the scope's
// initializer, else glorot_uniform), bias [units] (zeros).
struct BasicRNNCellOptions {
  Activation activation = {};  // tanh
};

class BasicRNNCell : public RNNCell {
 public:
  explicit BasicRNNCell(std::int64_t num_units, BasicRNNCellOptions options = {})
      : RNNCell("basic_rnn_cell"),
        num_units_(num_units),
        activation_(default_activation(std::move(options.activation))) {}

  StateSize state_size() const override { return {{num_units_}, false}; }
  std::int64_t output_size() const override { return num_units_; }

 protected:
  std::string class_name() const override { return "BasicRNNCell"; }
  void build(std::int64_t depth, DType dtype) override {
    kernel_ = add_weight("kernel", Shape{depth + num_units_, num_units_}, dtype);
    bias_ = add_weight("bias", Shape{num_units_}, dtype, zeros_initializer());
  }
  std::pair<Output, RNNState> call(const Output& inputs, const RNNState& state) override {
    const Output concat_inputs = concat({inputs, state.tensor()}, 1);
    const Output gate_inputs = bias_add(matmul(concat_inputs, kernel_), bias_);
    const Output output = activation_(gate_inputs);
    return {output, RNNState(output)};
  }

 private:
  std::int64_t num_units_;
  Activation activation_;
  Variable kernel_, bias_;
};

// tf.nn.rnn_cell.BasicLSTMCell(num_units, forget_bias, state_is_tuple, activation).
// i, j, f, o = split([x, h] kernel + bias, 4); c' = c sigmoid(f + forget_bias) +
// sigmoid(i) activation(j); h' = activation(c') sigmoid(o). Variables: kernel
// [depth + units, 4 units], bias [4 units] (zeros).
struct BasicLSTMCellOptions {
  double forget_bias = 1.0;
  bool state_is_tuple = true;  // false: the state is concat([c, h], 1)
  Activation activation = {};  // tanh
};

class BasicLSTMCell : public RNNCell {
 public:
  explicit BasicLSTMCell(std::int64_t num_units, BasicLSTMCellOptions options = {})
      : RNNCell("basic_lstm_cell"),
        num_units_(num_units),
        forget_bias_(options.forget_bias),
        state_is_tuple_(options.state_is_tuple),
        activation_(default_activation(std::move(options.activation))) {}

  StateSize state_size() const override {
    if (state_is_tuple_) return {{num_units_, num_units_}, true};
    return {{2 * num_units_}, false};
  }
  std::int64_t output_size() const override { return num_units_; }

 protected:
  std::string class_name() const override { return "BasicLSTMCell"; }
  void build(std::int64_t depth, DType dtype) override {
    kernel_ = add_weight("kernel", Shape{depth + num_units_, 4 * num_units_}, dtype);
    bias_ = add_weight("bias", Shape{4 * num_units_}, dtype, zeros_initializer());
  }
  std::pair<Output, RNNState> call(const Output& inputs, const RNNState& state) override {
    const Output one = constant(1);
    Output c, h;
    if (state_is_tuple_) {
      c = state.c();
      h = state.h();
    } else {
      const std::vector<Output> halves = split(state.tensor(), 2, one);
      c = halves[0];
      h = halves[1];
    }
    const Output gate_inputs = bias_add(matmul(concat({inputs, h}, 1), kernel_), bias_);
    const std::vector<Output> gates = split(gate_inputs, 4, one);  // i, j, f, o
    const Output forget_bias = constant(symflow::detail::scalar_of(gates[2].dtype(), forget_bias_));
    // One statement per op, so that the ops are made (and named) in TensorFlow's order.
    const Output forget = sigmoid(add(gates[2], forget_bias));
    const Output kept = multiply(c, forget);
    const Output input_gate = sigmoid(gates[0]);
    const Output candidate = activation_(gates[1]);
    const Output new_c = add(kept, multiply(input_gate, candidate));
    const Output squashed = activation_(new_c);
    const Output new_h = multiply(squashed, sigmoid(gates[3]));
    if (state_is_tuple_) return {new_h, RNNState(LSTMStateTuple{new_c, new_h})};
    return {new_h, RNNState(concat({new_c, new_h}, 1))};
  }

 private:
  std::int64_t num_units_;
  double forget_bias_;
  bool state_is_tuple_;
  Activation activation_;
  Variable kernel_, bias_;
};

// tf.nn.rnn_cell.LSTMCell(num_units, use_peepholes, cell_clip, initializer, num_proj,
// proj_clip, forget_bias, state_is_tuple, activation): the LSTM of BasicLSTMCell with
// optional peepholes (w_f_diag, w_i_diag, w_o_diag), a clipped cell state and a projection
// of the output (projection/kernel [units, num_proj]). Variables: kernel [depth + h_size,
// 4 units] and the peepholes and projection (`initializer`, else the scope's, else
// glorot_uniform), bias [4 units] (zeros). state_size (units, num_proj or units).
struct LSTMCellOptions {
  bool use_peepholes = false;
  std::optional<double> cell_clip = {};
  InitializerOrValue initializer = {};
  std::optional<std::int64_t> num_proj = {};
  std::optional<double> proj_clip = {};
  double forget_bias = 1.0;
  bool state_is_tuple = true;
  Activation activation = {};  // tanh
};

class LSTMCell : public RNNCell {
 public:
  explicit LSTMCell(std::int64_t num_units, LSTMCellOptions options = {})
      : RNNCell("lstm_cell"), num_units_(num_units), o_(std::move(options)) {
    o_.activation = default_activation(std::move(o_.activation));
  }

  StateSize state_size() const override {
    if (o_.state_is_tuple) return {{num_units_, proj_size()}, true};
    return {{num_units_ + proj_size()}, false};
  }
  std::int64_t output_size() const override { return proj_size(); }

 protected:
  std::string class_name() const override { return "LSTMCell"; }
  void build(std::int64_t depth, DType dtype) override {
    kernel_ =
        add_weight("kernel", Shape{depth + proj_size(), 4 * num_units_}, dtype, o_.initializer);
    bias_ = add_weight("bias", Shape{4 * num_units_}, dtype, zeros_initializer());
    if (o_.use_peepholes) {
      w_f_diag_ = add_weight("w_f_diag", Shape{num_units_}, dtype, o_.initializer);
      w_i_diag_ = add_weight("w_i_diag", Shape{num_units_}, dtype, o_.initializer);
      w_o_diag_ = add_weight("w_o_diag", Shape{num_units_}, dtype, o_.initializer);
    }
    if (o_.num_proj)
      proj_kernel_ =
          add_weight("projection/kernel", Shape{num_units_, *o_.num_proj}, dtype, o_.initializer);
  }
  std::pair<Output, RNNState> call(const Output& inputs, const RNNState& state) override {
    Output c_prev, m_prev;
    if (o_.state_is_tuple) {
      c_prev = state.c();
      m_prev = state.h();
    } else {
      c_prev = slice(state.tensor(), pair(0, 0), pair(-1, num_units_));
      m_prev = slice(state.tensor(), pair(0, num_units_), pair(-1, proj_size()));
    }
    const Output lstm_matrix = bias_add(matmul(concat({inputs, m_prev}, 1), kernel_), bias_);
    const std::vector<Output> gates = split(lstm_matrix, 4, 1);  // i, j, f, o
    const Output &i = gates[0], &j = gates[1], &f = gates[2], &o = gates[3];
    // One statement per op, in TensorFlow's order (the names follow it).
    Output c;
    if (o_.use_peepholes) {
      const Output f_biased = f + o_.forget_bias;
      const Output f_peep = f_biased + Output(w_f_diag_) * c_prev;
      const Output kept = sigmoid(f_peep) * c_prev;
      const Output i_peep = i + Output(w_i_diag_) * c_prev;
      const Output input_gate = sigmoid(i_peep);
      const Output candidate = o_.activation(j);
      c = kept + input_gate * candidate;
    } else {
      const Output forget = sigmoid(f + o_.forget_bias);
      const Output kept = forget * c_prev;
      const Output input_gate = sigmoid(i);
      const Output candidate = o_.activation(j);
      c = kept + input_gate * candidate;
    }
    if (o_.cell_clip) c = clip_by_value(c, -*o_.cell_clip, *o_.cell_clip);
    Output m;
    if (o_.use_peepholes) {
      const Output o_peep = o + Output(w_o_diag_) * c;
      const Output output_gate = sigmoid(o_peep);
      m = output_gate * o_.activation(c);
    } else {
      const Output output_gate = sigmoid(o);
      m = output_gate * o_.activation(c);
    }
    if (o_.num_proj) {
      m = matmul(m, proj_kernel_);
      if (o_.proj_clip) m = clip_by_value(m, -*o_.proj_clip, *o_.proj_clip);
    }
    if (o_.state_is_tuple) return {m, RNNState(LSTMStateTuple{c, m})};
    return {m, RNNState(concat({c, m}, 1))};
  }

 private:
  static Value pair(std::int64_t a, std::int64_t b) {
    return Value::from_vector(
        std::vector<std::int32_t>{symflow::detail::checked_int32(a, "a slice of the LSTM state"),
                                  symflow::detail::checked_int32(b, "a slice of the LSTM state")},
        {2});
  }
  std::int64_t proj_size() const { return o_.num_proj ? *o_.num_proj : num_units_; }

  std::int64_t num_units_;
  LSTMCellOptions o_;
  Variable kernel_, bias_, w_f_diag_, w_i_diag_, w_o_diag_, proj_kernel_;
};

// tf.nn.rnn_cell.GRUCell(num_units, activation, kernel_initializer, bias_initializer):
// r, u = split(sigmoid([x, h] gates/kernel + gates/bias), 2); c = activation([x, r h]
// candidate/kernel + candidate/bias); h' = u h + (1 - u) c. Variables: gates/kernel
// [depth + units, 2 units], gates/bias (ones), candidate/kernel [depth + units, units],
// candidate/bias (zeros); kernels from kernel_initializer, else the scope's, else
// glorot_uniform.
struct GRUCellOptions {
  Activation activation = {};  // tanh
  InitializerOrValue kernel_initializer = {};
  InitializerOrValue bias_initializer = {};  // both biases, when given
};

class GRUCell : public RNNCell {
 public:
  explicit GRUCell(std::int64_t num_units, GRUCellOptions options = {})
      : RNNCell("gru_cell"), num_units_(num_units), o_(std::move(options)) {
    o_.activation = default_activation(std::move(o_.activation));
  }

  StateSize state_size() const override { return {{num_units_}, false}; }
  std::int64_t output_size() const override { return num_units_; }

 protected:
  std::string class_name() const override { return "GRUCell"; }
  void build(std::int64_t depth, DType dtype) override {
    const bool own_bias = !o_.bias_initializer.empty();
    gate_kernel_ = add_weight("gates/kernel", Shape{depth + num_units_, 2 * num_units_}, dtype,
                              o_.kernel_initializer);
    gate_bias_ =
        add_weight("gates/bias", Shape{2 * num_units_}, dtype,
                   own_bias ? o_.bias_initializer : InitializerOrValue(constant_initializer(1.0)));
    candidate_kernel_ = add_weight("candidate/kernel", Shape{depth + num_units_, num_units_}, dtype,
                                   o_.kernel_initializer);
    candidate_bias_ =
        add_weight("candidate/bias", Shape{num_units_}, dtype,
                   own_bias ? o_.bias_initializer : InitializerOrValue(zeros_initializer()));
  }
  std::pair<Output, RNNState> call(const Output& inputs, const RNNState& state) override {
    const Output& h = state.tensor();
    const Output gate_inputs = bias_add(matmul(concat({inputs, h}, 1), gate_kernel_), gate_bias_);
    const Output value = sigmoid(gate_inputs);
    const std::vector<Output> ru = split(value, 2, 1);
    const Output r_state = ru[0] * h;
    const Output candidate =
        bias_add(matmul(concat({inputs, r_state}, 1), candidate_kernel_), candidate_bias_);
    const Output c = o_.activation(candidate);
    const Output kept = ru[1] * h;
    const Output one_minus_u = 1 - ru[1];
    const Output new_h = kept + one_minus_u * c;
    return {new_h, RNNState(new_h)};
  }

 private:
  std::int64_t num_units_;
  GRUCellOptions o_;
  Variable gate_kernel_, gate_bias_, candidate_kernel_, candidate_bias_;
};

}  // namespace symflow::nn::rnn_cell
