#pragma once
// symflow::layers::conv2d: tf.layers.conv2d (TensorFlow 1.x's functional layer,
// tf.compat.v1.layers.conv2d), built as TensorFlow builds it in graph mode.
//
//   Output h = layers::conv2d(images, 32, {3, 3}, {.padding = "same", .activation = nn::relu});
//   // variables conv2d/kernel [3, 3, in_channels, 32] and conv2d/bias [32]
//
// The layer's variable scope and name follow layers/core.hpp: "conv2d", "conv2d_1", ...
// or `name`, shared with an earlier layer through `reuse`.
//
// channels_last (NHWC) or channels_first (NCHW: Conv2D and BiasAdd with data_format "NCHW",
// as TensorFlow builds them). A dilation rate above 1 builds what TensorFlow 1.x builds:
// SpaceToBatchND -> Conv2D -> BatchToSpaceND (the inputs' spatial dims must be known then).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "symflow/layers/core.hpp"
#include "symflow/ops/conv_ops.hpp"
#include "symflow/ops/nn_ops.hpp"
#include "symflow/variables/get_variable.hpp"
#include "symflow/variables/variable_scope.hpp"

namespace symflow::layers {

// The keyword arguments of tf.layers.conv2d beyond filters and kernel_size.
struct Conv2DOptions {
  std::vector<std::int64_t> strides = {1, 1};  // one value or (rows, cols)
  std::string padding = "valid";               // "valid" or "same", in any case
  std::string data_format = "channels_last";   // or "channels_first" (NCHW), in any case
  std::vector<std::int64_t> dilation_rate = {1, 1};
  Activation activation = {};
  bool use_bias = true;
  // Empty: the variable scope's initializer, else glorot_uniform_initializer().
  Initializer kernel_initializer = {};
  Initializer bias_initializer = {};  // empty: zeros_initializer()
  Regularizer kernel_regularizer = {};
  Regularizer bias_regularizer = {};
  Regularizer activity_regularizer = {};
  bool trainable = true;
  std::string name = {};  // "conv2d" (made unique) when empty
  Reuse reuse = {};       // true or reuse::auto_reuse: share the layer `name`'s variables
};

// tf.layers.conv2d(inputs, filters, kernel_size, ...): a 2-D convolution of the NHWC (or,
// channels_first, NCHW) `inputs` with a kernel [rows, cols, in_channels, filters], plus bias,
// then the activation. kernel_size has one value or two (rows, cols).
inline Output conv2d(const Output& inputs, std::int64_t filters,
                     const std::vector<std::int64_t>& kernel_size,
                     const Conv2DOptions& options = {}) {
  // The arguments are checked when TensorFlow makes the layer, before any scope opens.
  if (filters <= 0)
    throw ValueError(
        "Invalid value for argument `filters`. Expected a strictly positive value. Received "
        "filters=" +
        std::to_string(filters) + ".");
  const std::vector<std::int64_t> kernel = detail::normalize_pair(kernel_size, "kernel_size");
  const std::vector<std::int64_t> strides =
      detail::normalize_pair(options.strides, "strides", true);
  if (strides[0] == 0 || strides[1] == 0)
    throw ValueError("The argument `strides` cannot contains 0(s). Received: (" +
                     std::to_string(strides[0]) + ", " + std::to_string(strides[1]) + ")");
  const std::string padding = detail::normalize_padding(options.padding);
  const std::string data_format = detail::normalize_data_format(options.data_format);
  const std::vector<std::int64_t> dilation =
      detail::normalize_pair(options.dilation_rate, "dilation_rate");
  const bool strided = strides[0] != 1 || strides[1] != 1;
  const bool dilated = dilation[0] != 1 || dilation[1] != 1;
  if (strided && dilated)
    throw ValueError(
        "`strides > 1` not supported in conjunction with `dilation_rate > 1`. "
        "Received: strides=(" +
        std::to_string(strides[0]) + ", " + std::to_string(strides[1]) + ") and dilation_rate=(" +
        std::to_string(dilation[0]) + ", " + std::to_string(dilation[1]) + ")");
  const bool channels_first = data_format == "channels_first";
  const std::string_view op_format = channels_first ? "NCHW" : "NHWC";

  Graph g = graph_of({inputs});
  std::optional<variable_scope> scope;
  detail::open_layer_scope(scope, options.name, "conv2d", options.reuse, inputs);
  const Shape& s = inputs.get_shape();
  detail::check_input_rank(s, detail::layer_name(*scope, options.name, "conv2d"), 4, true);
  if (s.has_rank() && s.rank() > 4)
    throw ValueError(
        "conv2d: symflow's Conv2D layer takes rank-4 inputs [batch, rows, cols, "
        "channels] (or channels first), got shape " +
        s.to_string());
  const DType dtype = inputs.dtype();
  if (!is_floating(dtype))
    throw TypeError("conv2d: symflow's Conv2D computes float32 and float64 only, got " +
                    std::string(dtype_name(dtype)) + " inputs");
  // Keras names the channel axis from the end: -1, or -3 for channels_first.
  const std::int64_t channels = !s.has_rank() ? -1 : channels_first ? s.dims()[1] : s.dims().back();
  if (channels < 0)
    throw ValueError(
        "The channel dimension of the inputs should be defined. The input_shape received is " +
        (s.has_rank() ? s.to_string() : std::string("<unknown>")) + ", where axis " +
        (channels_first ? "-3" : "-1") +
        " (0-based) is the channel dimension, which found to be `None`.");

  Variable kernel_var =
      detail::add_weight(g, "kernel", Shape{kernel[0], kernel[1], channels, filters}, dtype,
                         options.kernel_initializer, options.kernel_regularizer, options.trainable);
  Variable bias;
  if (options.use_bias)
    bias = detail::add_weight(
        g, "bias", Shape{filters}, dtype,
        options.bias_initializer ? options.bias_initializer : zeros_initializer(),
        options.bias_regularizer, options.trainable);

  // A dilated kernel runs as TensorFlow 1.x's layer runs it (through tf.nn.convolution):
  // SpaceToBatchND -> Conv2D -> BatchToSpaceND in the scope "Conv2D".
  Output outputs =
      dilated
          ? symflow::detail::conv::dilated_conv2d(inputs, kernel_var.value(), dilation, padding, {},
                                                  "Conv2D", op_format)
          : nn::conv2d(inputs, kernel_var.value(), strides, padding, {.data_format = op_format});
  if (options.use_bias) outputs = nn::bias_add(outputs, bias.value(), {.data_format = op_format});
  if (options.activation) outputs = options.activation(outputs);
  if (options.activity_regularizer)
    detail::add_activity_loss(g, outputs, options.activity_regularizer);
  return outputs;
}

}  // namespace symflow::layers
