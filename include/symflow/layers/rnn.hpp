#pragma once
// symflow::nn::dynamic_rnn: TensorFlow 1.x's tf.nn.dynamic_rnn, built as TensorFlow builds it
// (control flow v1): the inputs transposed to time-major and unstacked into a TensorArray,
// a while_loop "rnn/while" over the time steps carrying the cell's state and an output
// TensorArray, the outputs stacked and transposed back.
//
//   symflow::nn::rnn_cell::BasicLSTMCell cell(4);
//   auto [outputs, state] = symflow::nn::dynamic_rnn(cell, x, {.dtype = symflow::float32});
//   // x: [batch, time, depth]; outputs: [batch, time, 4]; state.c(), state.h(): [batch, 4]
//
// With a sequence_length, the outputs of a sequence past its length are zeros and its state
// is carried through unchanged (Select on time >= sequence_length, TensorFlow's _rnn_step),
// and the loop stops after the longest sequence.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "symflow/graph/scopes.hpp"
#include "symflow/layers/rnn_cell.hpp"
#include "symflow/ops/array_ops.hpp"
#include "symflow/ops/const_op.hpp"
#include "symflow/ops/control_ops.hpp"
#include "symflow/ops/indexing.hpp"
#include "symflow/ops/logging_ops.hpp"
#include "symflow/ops/logic_ops.hpp"
#include "symflow/ops/math_ops.hpp"
#include "symflow/ops/nn_impl.hpp"
#include "symflow/ops/operators.hpp"
#include "symflow/ops/reduction_ops.hpp"
#include "symflow/ops/shape_ops.hpp"
#include "symflow/ops/tensor_array_ops.hpp"
#include "symflow/ops/transform_ops.hpp"
#include "symflow/ops/while_loop.hpp"
#include "symflow/variables/variable_scope.hpp"

namespace symflow::nn {

// The keyword arguments of tf.nn.dynamic_rnn.
struct DynamicRnnOptions {
  // An int vector [batch_size] (cast to int32), or none: every sequence is full length.
  Output sequence_length = {};
  // The cell's state structure; none: cell.zero_state(batch_size, dtype).
  rnn_cell::RNNState initial_state = {};
  // The state's and outputs' dtype; required without an initial_state.
  DType dtype = DType::invalid;
  std::int64_t parallel_iterations = 32;
  // Accepted for TensorFlow's signature; symflow keeps the loop's stacks in memory.
  bool swap_memory = false;
  // Inputs and outputs are [time, batch, depth] rather than [batch, time, depth].
  bool time_major = false;
  // The variable scope; empty: "rnn".
  std::string scope = {};
};

// What tf.nn.dynamic_rnn returns: (outputs, state).
struct DynamicRnnResult {
  Output outputs;
  rnn_cell::RNNState state;
};

namespace detail_rnn {

// Swaps the first two dimensions, as TensorFlow's _transpose_batch_time: transpose by
// concat(([1, 0], range(2, rank(x)))), keeping the static shape.
inline Output transpose_batch_time(const Output& x) {
  const Shape& s = x.get_shape();
  if (s.has_rank() && s.rank() < 2) return x;
  // TensorFlow's rank() and shape() are Consts when the static shape knows them.
  const Output x_rank =
      s.has_rank() ? constant(static_cast<std::int32_t>(s.rank()), "Rank") : rank(x);
  const Output rest = range(2, x_rank);
  Output perm;
  {
    // concat(([1, 0], rest), 0): the list becomes "concat/values_0".
    name_scope scope(graph_of({x}), "concat");
    const Output swap =
        constant(Value::from_vector(std::vector<std::int32_t>{1, 0}, {2}), "values_0");
    perm = concat({swap, rest}, 0, scope.name());
  }
  Output y = transpose(x, perm);
  if (s.has_rank()) {
    Dims dims = s.dims();
    std::swap(dims[0], dims[1]);
    y.set_shape(Shape(std::move(dims)));
  }
  return y;
}

// A static shape as TensorFlow's folded int32 shape; a dim past int32 is a ValueError.
inline Value int32_dims(const Dims& dims) { return symflow::detail::int32_vector(dims); }

// The batch or time size as an int32 (TensorFlow would wrap a larger one and fail on the
// negative size): a ValueError naming it.
inline std::int32_t int32_size(std::int64_t size, std::string_view what) {
  return symflow::detail::checked_int32(size, what);
}

// str(tensor) in TensorFlow 2.21's graph mode: Tensor("x:0", shape=(2, None), dtype=float32).
inline std::string tensor_str(const Output& t) {
  return "Tensor(\"" + t.name() + "\", shape=" + symflow::detail::python_shape(t.get_shape()) +
         ", dtype=" + std::string(dtype_name(t.dtype())) + ")";
}

inline Dims tail(const Shape& s, std::size_t from) {
  Dims out;
  for (std::size_t d = from; d < s.dims().size(); ++d) out.push_back(s.dims()[d]);
  return out;
}

}  // namespace detail_rnn

// tf.nn.dynamic_rnn(cell, inputs, sequence_length, initial_state, dtype, parallel_iterations,
// swap_memory, time_major, scope): runs `cell` over the time steps of `inputs`
// ([batch, time, depth], or [time, batch, depth] with time_major; depth known statically).
// Returns the outputs ([batch, time, output_size], or time-major) and the final state, in
// the structure of the cell's state. Variables are created by the cell in variable scope
// "rnn" (or `scope`): "rnn/basic_lstm_cell/kernel", ...
inline DynamicRnnResult dynamic_rnn(rnn_cell::RNNCell& cell, const Output& inputs,
                                    const DynamicRnnOptions& options = {}) {
  if (!inputs.valid()) throw ValueError("dynamic_rnn: inputs is an empty tensor handle");
  Graph g = graph_of({inputs});
  variable_scope varscope(options.scope.empty() ? std::string("rnn") : options.scope);

  const Output x = options.time_major ? inputs : detail_rnn::transpose_batch_time(inputs);
  const std::int64_t parallel_iterations =
      options.parallel_iterations > 0 ? options.parallel_iterations : 32;

  Output sequence_length;
  if (options.sequence_length.valid()) {
    sequence_length = options.sequence_length;
    if (sequence_length.dtype() != DType::int32)
      sequence_length = cast(sequence_length, DType::int32);
    const Shape& s = sequence_length.get_shape();
    if (s.has_rank() && s.rank() != 1)
      throw ValueError(
          "Argument sequence_length must be a vector of length batch_size. Received "
          "sequence_length=" +
          detail_rnn::tensor_str(sequence_length) +
          " of shape: " + symflow::detail::python_shape(s));
    sequence_length = identity(sequence_length, "sequence_length");
  }

  // The batch size: static when known, else shape(x)[1] (_best_effort_input_batch_size).
  const Shape& x_shape = x.get_shape();
  if (x_shape.has_rank() && x_shape.rank() < 2)
    throw ValueError("Input tensor should have rank >= 2. Received input=" +
                     detail_rnn::tensor_str(x) + " of rank " + std::to_string(x_shape.rank()));
  const std::int64_t const_batch = x_shape.has_rank() ? x_shape.dims()[1] : unknown_dim;
  const Output batch_tensor = const_batch >= 0 ? Output() : symflow::shape(x)[1];

  rnn_cell::RNNState state = options.initial_state;
  if (!state.valid()) {
    if (options.dtype == DType::invalid)
      throw ValueError("If no initial_state is provided, argument `dtype` must be specified");
    state =
        const_batch >= 0
            ? cell.zero_state(detail_rnn::int32_size(const_batch, "the batch size"), options.dtype)
            : cell.zero_state(batch_tensor, options.dtype);
  }
  cell.check_state(state);
  const DType state_dtype =
      options.dtype != DType::invalid ? options.dtype : state.flat().front().dtype();
  for (const Output& part : state.flat())
    if (part.dtype() != state_dtype)
      throw ValueError("Argument state=" + state.describe() +
                       " has tensors of different inferred dtypes. Unable to infer a single "
                       "representative dtype.");

  if (sequence_length.valid()) {
    // The run-time check that sequence_length has batch_size elements.
    const Shape& seq_static = sequence_length.get_shape();
    const Output seq_shape = seq_static.is_fully_defined()
                                 ? constant(detail_rnn::int32_dims(seq_static.dims()), "Shape")
                                 : symflow::shape(sequence_length);
    const Output expected =
        const_batch >= 0
            ? constant(Value::from_vector(std::vector<std::int32_t>{detail_rnn::int32_size(
                                              const_batch, "the batch size")},
                                          {1}),
                       "stack")
            : stack({batch_tensor});
    const Output same = reduce_all(equal(seq_shape, expected));
    const std::string message = "Expected shape for Tensor " + sequence_length.name() + " is ";
    const Operation check =
        Assert(same, {std::string_view(message), expected, " but saw shape: ", seq_shape});
    control_dependencies deps({check});
    sequence_length = identity(sequence_length, "CheckSeqLen");
  }

  // _dynamic_rnn_loop.
  const Output input_shape = x_shape.is_fully_defined()
                                 ? constant(detail_rnn::int32_dims(x_shape.dims()), "Shape")
                                 : symflow::shape(x);
  const Output time_steps = input_shape[0];
  if (x_shape.has_rank() && x_shape.rank() < 3)
    throw ValueError("Shape " + symflow::detail::python_shape(x_shape) +
                     " must have rank at least 3");
  const Dims element_dims = detail_rnn::tail(x_shape, 1);
  if (!x_shape.has_rank() || !Shape(detail_rnn::tail(x_shape, 2)).is_fully_defined())
    throw ValueError(
        "Input size (depth of inputs) must be accessible via shape inference, but saw value "
        "None for input=" +
        detail_rnn::tensor_str(x) + ".");
  const std::int64_t const_time = x_shape.dims()[0];
  const std::int64_t output_size = cell.output_size();

  // TensorFlow's _create_zero_arrays: zeros of _concat(batch_size, output_size).
  const TensorArg batch_arg = const_batch >= 0
                                  ? TensorArg(detail_rnn::int32_size(const_batch, "the batch size"))
                                  : TensorArg(batch_tensor);
  const Output zero_output = rnn_cell::detail_rnn_cell::zeros_of_shape(
      rnn_cell::detail_rnn_cell::concat_batch(batch_arg, output_size), state_dtype,
      Shape{const_batch, output_size});
  Output min_sequence_length, max_sequence_length = time_steps;
  if (sequence_length.valid()) {
    min_sequence_length = reduce_min(sequence_length);
    max_sequence_length = reduce_max(sequence_length);
  }
  const Output time = constant(0, "time");

  std::string base_name;
  {
    name_scope dynamic(g, "dynamic_rnn");
    base_name = dynamic.name();
  }
  TensorArray output_ta(state_dtype, {.size = time_steps,
                                      .tensor_array_name = base_name + "output_0",
                                      .element_shape = Shape{const_batch, output_size}});
  const TensorArray input_ta = TensorArray(x.dtype(), {.size = time_steps,
                                                       .tensor_array_name = base_name + "input_0",
                                                       .element_shape = Shape(element_dims)})
                                   .unstack(x);

  const Output loop_bound = minimum(time_steps, maximum(1, max_sequence_length));

  const std::size_t num_state = state.flat().size();
  auto cond = [&](const std::vector<Output>& vars) -> Output { return vars[0] < loop_bound; };
  auto body = [&](const std::vector<Output>& vars) -> std::vector<Output> {
    const Output& t = vars[0];
    const TensorArray output_ta_t = TensorArray::from_flow(vars[1]);
    const rnn_cell::RNNState state_t =
        rnn_cell::RNNState::pack_like(state, std::vector<Output>(vars.begin() + 2, vars.end()));
    const Output input_t = input_ta.read(t);
    input_t.set_shape(Shape(element_dims));

    Output output;
    std::vector<Output> new_state;
    if (sequence_length.valid()) {
      // _rnn_step: past a sequence's end, zeros out and the state copied through.
      const Output copy_cond = greater_equal(t, sequence_length);
      auto [new_output, next] = cell(input_t, state_t);
      if (next.flat().size() != num_state || next.is_tuple() != state.is_tuple())
        throw ValueError("The cell returned a state " + next.describe() +
                         " whose structure differs from its input state " + state_t.describe());
      output = where(copy_cond, zero_output, new_output);
      output.set_shape(zero_output.get_shape());
      for (std::size_t k = 0; k < num_state; ++k) {
        const Output& old_part = state_t.flat()[k];
        const Output& new_part = next.flat()[k];
        if (old_part.get_shape().has_rank() && old_part.get_shape().rank() == 0) {
          new_state.push_back(new_part);
          continue;
        }
        Output kept = where(copy_cond, old_part, new_part);
        kept.set_shape(old_part.get_shape());
        new_state.push_back(kept);
      }
    } else {
      auto [new_output, next] = cell(input_t, state_t);
      if (next.flat().size() != num_state || next.is_tuple() != state.is_tuple())
        throw ValueError("The cell returned a state " + next.describe() +
                         " whose structure differs from its input state " + state_t.describe());
      output = new_output;
      new_state = next.flat();
    }
    const TensorArray written = output_ta_t.write(t, output);
    std::vector<Output> out{t + 1, written.flow()};
    out.insert(out.end(), new_state.begin(), new_state.end());
    return out;
  };

  std::vector<Output> loop_vars{time, output_ta.flow()};
  loop_vars.insert(loop_vars.end(), state.flat().begin(), state.flat().end());
  const std::vector<Output> exits =
      while_loop(cond, body, loop_vars,
                 {.parallel_iterations = parallel_iterations, .maximum_iterations = time_steps});

  Output outputs = TensorArray::from_flow(exits[1]).stack();
  // TensorFlow's _concat([time, batch], output_size, static=True) makes two unused Consts.
  if (const_time >= 0 && const_batch >= 0)
    constant(Value::from_vector(
        std::vector<std::int32_t>{detail_rnn::int32_size(const_time, "the number of time steps"),
                                  detail_rnn::int32_size(const_batch, "the batch size")},
        {2}));
  constant(rnn_cell::detail_rnn_cell::int32_vector_of(output_size));
  outputs.set_shape(Shape{const_time, const_batch, output_size});
  rnn_cell::RNNState final_state =
      rnn_cell::RNNState::pack_like(state, std::vector<Output>(exits.begin() + 2, exits.end()));
  if (!options.time_major) outputs = detail_rnn::transpose_batch_time(outputs);
  return {outputs, final_state};
}

}  // namespace symflow::nn
