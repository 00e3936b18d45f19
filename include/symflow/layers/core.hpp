#pragma once
// symflow::layers::dense, flatten and dropout: tf.layers.dense, tf.layers.flatten and
// tf.layers.dropout (TensorFlow 1.x's functional layers, tf.compat.v1.layers), built as
// TensorFlow builds them in graph mode.
//
//   Output h = layers::dense(x, 64, {.activation = nn::relu});   // dense/kernel, dense/bias
//   Output y = layers::dense(h, 10, {.name = "logits"});          // logits/kernel, ...
//   Output d = layers::dropout(h, 0.5, is_training);              // a bool or a bool tensor
//   Output f = layers::flatten(conv_out);                         // [batch, everything else]
//
// Each call opens the layer's variable scope: `name`, or the layer's default name made
// unique ("dense", "dense_1", ...), and its ops are named under the scope's name scope.
// With `reuse`, the layer shares the variables of an earlier layer of the same name.
//
// The helpers in layers::detail (scope, weights, argument checks) serve
// convolutional.hpp and pooling.hpp too.

#include <concepts>
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "symflow/detail/float_repr.hpp"
#include "symflow/graph/collections.hpp"
#include "symflow/graph/scopes.hpp"
#include "symflow/ops/array_ops.hpp"
#include "symflow/ops/cond.hpp"
#include "symflow/ops/const_op.hpp"
#include "symflow/ops/init_ops.hpp"
#include "symflow/ops/logic_ops.hpp"
#include "symflow/ops/math_ops.hpp"
#include "symflow/ops/nn_impl.hpp"
#include "symflow/ops/nn_ops.hpp"
#include "symflow/ops/random_ops.hpp"
#include "symflow/ops/reduction_ops.hpp"
#include "symflow/ops/shape_ops.hpp"
#include "symflow/ops/transform_ops.hpp"
#include "symflow/variables/get_variable.hpp"
#include "symflow/variables/variable_scope.hpp"

namespace symflow::layers {

// A layer's activation: any function of one tensor, or one of symflow's one-tensor op
// functions by name (nn::relu, nn::sigmoid, nn::softmax, ...), whose second parameter
// is the op's name. Empty: no activation (TensorFlow's activation=None).
class Activation {
 public:
  Activation() = default;
  template <class F>
  requires(!std::same_as<std::decay_t<F>, Activation> &&
           std::is_invocable_r_v<Output, F&, const Output&>) Activation(F fn)  // NOLINT: implicit
      : fn_(std::move(fn)) {}
  Activation(Output (*op_function)(const Output&, std::string_view))  // NOLINT: implicit
      : fn_([op_function](const Output& x) { return op_function(x, {}); }) {}

  explicit operator bool() const { return static_cast<bool>(fn_); }
  Output operator()(const Output& x) const { return fn_(x); }

 private:
  std::function<Output(const Output&)> fn_;
};

// dropout's `training`: a C++ bool, or a bool scalar tensor (a placeholder fed at run
// time), as tf.layers.dropout takes a Python bool or a tensor.
class Training {
 public:
  template <class B>
  requires std::same_as<B, bool> Training(B on) : on_(on) {}  // NOLINT: implicit
  template <class T>
  requires std::convertible_to<T, Output> Training(const T& tensor)  // NOLINT: implicit
      : tensor_(static_cast<Output>(tensor)) {}

  // The tensor, when one was given.
  const Output* tensor() const { return tensor_.valid() ? &tensor_ : nullptr; }
  bool value() const { return on_; }

 private:
  bool on_ = false;
  Output tensor_;
};

namespace detail {

// The layer's variable scope, opened as TensorFlow 1.x's layers open it: with reuse, the
// scope named `name` (or the default name itself, not made unique); without, `name` or
// the default name made unique. The name scope it opens names the layer's ops.
inline void open_layer_scope(std::optional<variable_scope>& scope, const std::string& name,
                             std::string_view default_name, Reuse reuse, const Output& inputs) {
  if (reuse)
    scope.emplace(name.empty() ? std::string(default_name) : name,
                  VariableScopeOptions{.values = {inputs}, .reuse = reuse});
  else
    scope.emplace(
        name, VariableScopeOptions{.default_name = std::string(default_name), .values = {inputs}});
}

// The layer's name in TensorFlow's messages: `name`, or Keras's name for an unnamed
// layer, "<default>_<n>" for the n-th of its kind (counted from 1). symflow counts them
// by the layer's variable scope ("dense" is the first, "dense_1" the second), which
// agrees with Keras's count unless variable scopes of that name were opened otherwise.
inline std::string layer_name(const variable_scope& scope, const std::string& name,
                              std::string_view default_name) {
  if (!name.empty()) return name;
  const std::string& full = scope.name();
  const std::string last = full.substr(full.rfind('/') + 1);
  const std::string base(default_name);
  std::int64_t index = 0;
  if (last.size() > base.size() + 1 && last.starts_with(base + "_"))
    index = std::stoll(last.substr(base.size() + 1));
  return base + "_" + std::to_string(index + 1);
}

// A TensorShape as TensorFlow 1.x prints its dims in Keras's messages:
// "(Dimension(None), Dimension(4))", "(Dimension(3),)", "()".
inline std::string dimension_tuple(const Shape& s) {
  std::string out = "(";
  for (std::size_t i = 0; i < s.dims().size(); ++i) {
    std::int64_t d = s.dims()[i];
    out += (i ? ", " : "") + std::string("Dimension(") + (d < 0 ? "None" : std::to_string(d)) + ")";
  }
  return out + (s.dims().size() == 1 ? ",)" : ")");
}

// Keras's InputSpec check of the input's rank (an unknown rank passes).
inline void check_input_rank(const Shape& s, const std::string& layer, std::int64_t rank,
                             bool at_least) {
  if (!s.has_rank()) return;
  if (at_least ? s.rank() >= rank : s.rank() == rank) return;
  throw ValueError("Input 0 of layer \"" + layer + "\" is incompatible with the layer: expected " +
                   (at_least ? "min_ndim=" : "ndim=") + std::to_string(rank) + ", found ndim=" +
                   std::to_string(s.rank()) + ". Full shape received: " + dimension_tuple(s));
}

// A variable of the layer (Keras's add_weight in a tf.layers layer): get_variable in the
// layer's scope; a regularizer runs once, when the variable is created, under
// "<layer>/<name>/Regularizer", and its result goes to REGULARIZATION_LOSSES.
inline Variable add_weight(Graph& g, std::string_view name, const Shape& shape, DType dtype,
                           const Initializer& initializer, const Regularizer& regularizer,
                           bool trainable) {
  const std::string& scope_name = symflow::detail::variable_scope_state(g).current.name();
  const std::string full_name =
      scope_name.empty() ? std::string(name) : scope_name + "/" + std::string(name);
  const bool existed = symflow::detail::variable_scope_state(g).store.contains(full_name);
  Variable v = get_variable(name, shape,
                            {.dtype = dtype, .initializer = initializer, .trainable = trainable});
  if (regularizer && !existed) {
    name_scope scope(g, std::string(name) + "/Regularizer");
    Output loss = regularizer(v.value());
    if (loss.valid())
      g.get_collection_ref(GraphKeys::REGULARIZATION_LOSSES)
          .emplace_back(std::in_place_type<TensorRef>, loss.ref());
  }
  return v;
}

// Keras's activity regularization: regularizer(outputs) / batch size, under
// "<layer>/ActivityRegularizer", added to REGULARIZATION_LOSSES.
inline void add_activity_loss(Graph& g, const Output& outputs, const Regularizer& regularizer) {
  name_scope scope(g, "ActivityRegularizer");
  Output loss = regularizer(outputs);
  if (!loss.valid()) return;
  const Shape& s = outputs.get_shape();
  Output dynamic_shape = s.is_fully_defined()
                             ? constant(symflow::detail::int32_vector(s.dims()), "Shape")
                             : shape(outputs);
  Output batch = strided_slice(dynamic_shape, {0}, {1}, {1}, {.shrink_axis_mask = 1});
  Output mean_loss = loss / cast(batch, loss.dtype());
  g.get_collection_ref(GraphKeys::REGULARIZATION_LOSSES)
      .emplace_back(std::in_place_type<TensorRef>, mean_loss.ref());
}

// Python's repr of what the caller passed for a Keras tuple argument: an int for one
// value, a list for several.
inline std::string python_arg_text(const std::vector<std::int64_t>& v) {
  if (v.size() == 1) return std::to_string(v[0]);
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

// Keras's conv_utils.normalize_tuple for 2-D layers: one value or two, each > 0 (or
// >= 0 where zero is allowed, as for strides, which have their own message then).
inline std::vector<std::int64_t> normalize_pair(const std::vector<std::int64_t>& v,
                                                std::string_view arg, bool allow_zero = false) {
  const std::string prefix =
      "The `" + std::string(arg) + "` argument must be a tuple of 2 integers. Received: ";
  if (v.size() != 1 && v.size() != 2) throw ValueError(prefix + python_arg_text(v));
  std::vector<std::int64_t> pair = v.size() == 1 ? std::vector<std::int64_t>{v[0], v[0]} : v;
  std::set<std::int64_t> bad;
  for (std::int64_t x : pair)
    if (allow_zero ? x < 0 : x <= 0) bad.insert(x);
  if (!bad.empty()) {
    std::string set_text = "{";
    for (auto it = bad.begin(); it != bad.end(); ++it)
      set_text += (it == bad.begin() ? "" : ", ") + std::to_string(*it);
    set_text += "}";
    throw ValueError(prefix + python_arg_text(v) + " including " + set_text +
                     (bad.size() == 1 ? " that does" : " that do") +
                     " not satisfy the requirement `" + (allow_zero ? ">= 0" : "> 0") + "`.");
  }
  return pair;
}

// Keras's normalize_padding: "valid" or "same" in any case, as the op's "VALID"/"SAME".
inline std::string normalize_padding(std::string_view padding) {
  std::string lower = symflow::detail::to_lower(std::string(padding));
  if (lower == "valid") return "VALID";
  if (lower == "same") return "SAME";
  if (lower == "causal")
    throw ValueError("Causal padding is only supported for `Conv1D`and `SeparableConv1D`.");
  throw ValueError(
      "The `padding` argument must be a list/tuple or one of \"valid\", \"same\" (or \"causal\", "
      "only for `Conv1D). Received: " +
      std::string(padding));
}

// Keras's normalize_data_format: "channels_last" or "channels_first" in any case.
inline std::string normalize_data_format(std::string_view data_format) {
  std::string lower = symflow::detail::to_lower(std::string(data_format));
  if (lower != "channels_last" && lower != "channels_first")
    throw ValueError(
        "The `data_format` argument must be one of \"channels_first\", \"channels_last\". "
        "Received: " +
        std::string(data_format));
  return lower;
}

// tf.tensordot(inputs, kernel, [[rank - 1], [0]]) as TensorFlow builds it under
// "Tensordot" for a Dense layer's input of rank > 2: one Reshape of constant shape when
// the input's shape is fully known, else the shape computed from Shape / GatherV2 / Prod.
inline Output tensordot_last_axis(Graph& g, const Output& inputs, const Output& kernel,
                                  std::int64_t units) {
  name_scope scope(g, "Tensordot");
  const Dims& d = inputs.get_shape().dims();
  const std::int64_t rank = static_cast<std::int64_t>(d.size());
  Dims out_dims(d.begin(), d.end() - 1);
  out_dims.push_back(units);
  if (inputs.get_shape().is_fully_defined()) {
    std::int64_t rows = 1;
    for (std::int64_t i = 0; i + 1 < rank; ++i) rows *= d[static_cast<std::size_t>(i)];
    Output flat = reshape(inputs, Dims{rows, d.back()});
    return reshape(matmul(flat, kernel), out_dims, scope.name());
  }
  auto int32_const = [](const Dims& v, std::string_view name) {
    return constant(symflow::detail::int32_vector(v), name);
  };
  Dims free_axes;
  for (std::int64_t i = 0; i + 1 < rank; ++i) free_axes.push_back(i);
  Output axes = int32_const(Dims{rank - 1}, "axes");
  Output free = int32_const(free_axes, "free");
  Output shape_a = shape(inputs);
  Output free_dims = gather(shape_a, free, 0);
  Output axes_dims = gather(shape_a, axes, 0);
  Output prod_free = reduce_prod(free_dims, Axis(int32_const(Dims{0}, "Const")));
  Output prod_axes = reduce_prod(axes_dims, Axis(int32_const(Dims{0}, "Const_1")));
  Output perm = concat({free, axes}, 0);
  Output new_shape = stack({prod_free, prod_axes});
  Output flat = reshape(transpose(inputs, perm), new_shape);
  Output product = matmul(flat, kernel);
  Output kernel_free = int32_const(Dims{units}, "Const_2");
  Output out = reshape(product, concat({free_dims, kernel_free}, 0), scope.name());
  out.set_shape(Shape(out_dims));
  return out;
}

}  // namespace detail

// The keyword arguments of tf.layers.dense.
struct DenseOptions {
  Activation activation = {};  // none when empty
  bool use_bias = true;
  // Empty: the variable scope's initializer, else glorot_uniform_initializer().
  Initializer kernel_initializer = {};
  Initializer bias_initializer = {};  // empty: zeros_initializer()
  Regularizer kernel_regularizer = {};
  Regularizer bias_regularizer = {};
  // Applied to the layer's output; its result divided by the batch size is the loss.
  Regularizer activity_regularizer = {};
  bool trainable = true;
  std::string name = {};  // "dense" (made unique) when empty
  // true or reuse::auto_reuse: share the variables of the layer named `name`.
  Reuse reuse = {};
};

// tf.layers.dense(inputs, units, ...): activation(inputs . kernel + bias), kernel
// [last dim of inputs, units]. Rank-2 inputs give MatMul; higher ranks multiply along
// the last axis (Tensordot). The input's last dimension must be known.
inline Output dense(const Output& inputs, std::int64_t units, const DenseOptions& options = {}) {
  if (units < 0)
    throw ValueError(
        "Received an invalid value for `units`, expected a positive integer. Received: units=" +
        std::to_string(units));
  Graph g = graph_of({inputs});
  std::optional<variable_scope> scope;
  detail::open_layer_scope(scope, options.name, "dense", options.reuse, inputs);
  const Shape& s = inputs.get_shape();
  detail::check_input_rank(s, detail::layer_name(*scope, options.name, "dense"), 2, true);
  const DType dtype = inputs.dtype();
  if (!is_floating(dtype))
    throw TypeError(
        "A Dense layer can only be built with a floating-point dtype. Received: dtype=<dtype: '" +
        std::string(dtype_name(dtype)) + "'>");
  if (!s.has_rank() || s.dims().back() < 0)
    throw ValueError(
        "The last dimension of the inputs to a Dense layer should be defined. Found None. Full "
        "input shape received: " +
        (s.has_rank() ? s.to_string() : std::string("<unknown>")));

  Variable kernel =
      detail::add_weight(g, "kernel", Shape{s.dims().back(), units}, dtype,
                         options.kernel_initializer, options.kernel_regularizer, options.trainable);
  Variable bias;
  if (options.use_bias)
    bias = detail::add_weight(
        g, "bias", Shape{units}, dtype,
        options.bias_initializer ? options.bias_initializer : zeros_initializer(),
        options.bias_regularizer, options.trainable);

  Output outputs = s.rank() == 2 ? matmul(inputs, kernel.value())
                                 : detail::tensordot_last_axis(g, inputs, kernel.value(), units);
  if (options.use_bias) outputs = nn::bias_add(outputs, bias.value());
  if (options.activation) outputs = options.activation(outputs);
  if (options.activity_regularizer)
    detail::add_activity_loss(g, outputs, options.activity_regularizer);
  return outputs;
}

// The keyword arguments of tf.layers.flatten.
struct FlattenOptions {
  std::string name = {};                      // "flatten" (made unique) when empty
  std::string data_format = "channels_last";  // channels_first: moved last first
};

// tf.layers.flatten(inputs): [batch, product of the other dims]; a vector becomes
// [batch, 1]. Built as TensorFlow does: a constant shape [-1, n] when the other dims are
// known, [batch, -1] when only the batch is, else [Shape(inputs)[0], -1].
inline Output flatten(const Output& inputs, const FlattenOptions& options = {}) {
  const std::string data_format = detail::normalize_data_format(options.data_format);
  Graph g = graph_of({inputs});
  std::optional<variable_scope> scope;
  detail::open_layer_scope(scope, options.name, "flatten", Reuse(), inputs);
  detail::check_input_rank(inputs.get_shape(), detail::layer_name(*scope, options.name, "flatten"),
                           1, true);
  Output x = inputs;
  const Shape& s = inputs.get_shape();
  if (data_format == "channels_first" && s.has_rank() && s.rank() > 1) {
    Dims perm{0};
    for (std::int64_t i = 2; i < s.rank(); ++i) perm.push_back(i);
    perm.push_back(1);
    x = transpose(x, Value(symflow::detail::int32_vector(perm)));
  }
  const Shape& xs = x.get_shape();
  if (xs.has_rank() && xs.rank() == 1) return expand_dims(x, 1);
  const std::int64_t batch = xs.has_rank() ? xs.dims()[0] : -1;
  bool rest_known = xs.has_rank();
  std::int64_t rest = 1;
  for (std::size_t i = 1; rest_known && i < xs.dims().size(); ++i) {
    if (xs.dims()[i] < 0) rest_known = false;
    rest *= xs.dims()[i];
  }
  if (rest_known) return reshape(x, constant(symflow::detail::int32_vector(Dims{-1, rest})));
  if (batch >= 0) return reshape(x, constant(symflow::detail::int32_vector(Dims{batch, -1})));
  Output first = strided_slice(shape(x), {0}, {1}, {1}, {.shrink_axis_mask = 1});
  // The list [first, -1] becomes "Reshape/shape" (a Pack of it and "Reshape/shape/1").
  name_scope reshape_scope(g, "Reshape");
  Output packed;
  {
    name_scope shape_scope(g, "shape");
    Output minus_one = constant(Value(std::int32_t{-1}), "1");
    packed = stack({first, minus_one}, 0, shape_scope.name());
  }
  Output out = reshape(x, packed, reshape_scope.name());
  out.set_shape(Shape{-1, -1});  // TF's shape function reads the rank off the Pack
  return out;
}

// The keyword arguments of tf.layers.dropout beyond rate and training.
struct DropoutOptions {
  // The shape of the keep/drop mask (broadcast over the input); -1 takes the input's
  // dimension (TensorFlow's None). Unset: the input's shape.
  std::optional<std::vector<std::int64_t>> noise_shape = std::nullopt;
  std::optional<std::int64_t> seed = std::nullopt;
  std::string name = {};  // "dropout" (made unique) when empty
};

namespace detail {

// The dropped branch of a Dropout layer: the noise shape Keras computes, then
// tf.nn.dropout (TensorFlow 2's form, which tf.compat.v1.layers uses): x * 1/(1 - rate)
// where U[0, 1) >= rate, else 0.
inline Output dropped_inputs(Graph& g, const Output& x, double rate,
                             const layers::DropoutOptions& options) {
  auto dynamic_shape = [&] {
    const Shape& s = x.get_shape();
    return s.is_fully_defined() ? constant(symflow::detail::int32_vector(s.dims()), "Shape")
                                : shape(x);
  };
  Output noise_shape;
  if (options.noise_shape) {
    const std::vector<std::int64_t>& ns = *options.noise_shape;
    Output concrete = dynamic_shape();
    bool all_known = true;
    for (std::int64_t v : ns) all_known = all_known && v >= 0;
    if (all_known) {
      // A list of Python ints converts to int32, or to int64 when one does not fit.
      const Dims known(ns.begin(), ns.end());
      noise_shape = constant(symflow::detail::fits_int32(known)
                                 ? symflow::detail::int32_vector(known)
                                 : Value::from_vector(ns, {static_cast<std::int64_t>(ns.size())}));
    } else {
      std::vector<Output> parts;
      std::vector<std::size_t> known_at;
      for (std::size_t i = 0; i < ns.size(); ++i) {
        if (ns[i] >= 0) {
          parts.emplace_back();
          known_at.push_back(i);
        } else {
          const auto at = static_cast<std::int32_t>(i);
          parts.push_back(strided_slice(concrete, {at}, {at + 1}, {1}, {.shrink_axis_mask = 1}));
        }
      }
      // The list converts as TensorFlow packs one: "packed", its numbers "packed/<i>",
      // int32 as the shape's slices (TensorFlow wraps a number past int32 there).
      name_scope packed_scope(g, "packed");
      for (std::size_t i : known_at)
        parts[i] = constant(Value(symflow::detail::checked_int32(ns[i], "a noise_shape dim")),
                            std::to_string(i));
      noise_shape = stack(parts, 0, packed_scope.name());
    }
  }
  name_scope scope(g, "dropout");
  if (rate >= 1)
    throw ValueError(
        "`rate` must be a scalar tensor or a float in the range [0, 1). Received: rate=" +
        symflow::detail::python_float_repr(rate));
  if (!is_floating(x.dtype()))
    throw ValueError(
        "`x.dtype` must be a floating point tensor as `x` will be scaled. Received: "
        "x_dtype=<dtype: '" +
        std::string(dtype_name(x.dtype())) + "'>");
  Output scale = constant(symflow::detail::scalar_of(x.dtype(), 1.0 / (1.0 - rate)), "Const");
  Output scaled = symflow::detail::binary(symflow::detail::kMulOp, x, scale, {}, "Mul");
  if (!noise_shape.valid()) noise_shape = dynamic_shape();
  Output random;
  {
    name_scope uniform_scope(g, "random_uniform");
    symflow::detail::SeedAttrs seeds = symflow::detail::seed_attrs(g, options.seed);
    random = g.create_op(symflow::detail::kRandomUniformOp, {noise_shape},
                         {{"dtype", x.dtype()},
                          {"seed", seeds.seed},
                          {"seed2", seeds.seed2},
                          {"T", noise_shape.dtype()}},
                         "RandomUniform")
                 .output(0);
  }
  Output keep = greater_equal(random, rate);
  Output zero = constant(symflow::detail::scalar_of(x.dtype(), 0.0), "Const");
  Output out = where_v2(keep, scaled, zero);
  out.set_shape(x.get_shape());
  return out;
}

// What smart_cond knows of `pred` when the graph is built: a Const's value.
inline std::optional<bool> static_bool(const Output& pred) {
  if (pred.op().type() != "Const") return std::nullopt;
  const Value& v = pred.op().get_attr<Value>("value");
  if (v.dtype() != DType::bool_ || v.size() != 1) return std::nullopt;
  return v.flat<bool>()[0];
}

}  // namespace detail

// tf.layers.dropout(inputs, rate, noise_shape, seed, training): in training, each
// element is zeroed with probability `rate` and the others scaled by 1 / (1 - rate);
// otherwise the input through an Identity. `training` may be a bool tensor: the layer
// then builds a tf.cond choosing between the two at run time ("dropout/cond/...").
inline Output dropout(const Output& inputs, double rate = 0.5, Training training = false,
                      const DropoutOptions& options = {}) {
  if (!(rate >= 0 && rate <= 1))
    throw ValueError("Invalid value " + symflow::detail::python_float_repr(rate) +
                     " received for `rate`, expected a value between 0 and 1.");
  Graph g = graph_of({inputs});
  std::optional<variable_scope> scope;
  detail::open_layer_scope(scope, options.name, "dropout", Reuse(), inputs);
  if (rate == 0) return identity(inputs);
  std::optional<bool> on = training.value();
  if (const Output* t = training.tensor()) {
    if (t->dtype() != DType::bool_)
      throw TypeError("Input 'pred' of 'Switch' Op has type " +
                      std::string(dtype_name(t->dtype())) +
                      " that does not match expected type of bool.");
    on = detail::static_bool(*t);
  }
  if (on) return *on ? detail::dropped_inputs(g, inputs, rate, options) : identity(inputs);
  return cond(
      *training.tensor(), [&] { return detail::dropped_inputs(g, inputs, rate, options); },
      [&] { return identity(inputs); });
}

}  // namespace symflow::layers
