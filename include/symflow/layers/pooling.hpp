#pragma once
// symflow::layers::max_pooling2d and average_pooling2d: tf.layers.max_pooling2d and
// tf.layers.average_pooling2d (TensorFlow 1.x's functional layers), built as TensorFlow
// builds them: one MaxPool / AvgPool node in the layer's scope
// ("max_pooling2d/MaxPool", "average_pooling2d_1/AvgPool", or "<name>/MaxPool").
//
//   Output p = layers::max_pooling2d(h, {2, 2}, {2, 2});
//
// channels_last (NHWC) or channels_first (NCHW: the ops' data_format "NCHW", as TensorFlow
// builds them).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "symflow/layers/core.hpp"
#include "symflow/ops/conv_ops.hpp"
#include "symflow/variables/variable_scope.hpp"

namespace symflow::layers {

// The keyword arguments of tf.layers.max_pooling2d / average_pooling2d beyond pool_size
// and strides.
struct Pooling2DOptions {
  std::string padding = "valid";              // "valid" or "same", in any case
  std::string data_format = "channels_last";  // or "channels_first" (NCHW), in any case
  std::string name = {};  // "max_pooling2d" / "average_pooling2d" (made unique) when empty
};

namespace detail {

enum class PoolKind { max, average };

inline Output pooling2d(PoolKind kind, const Output& inputs,
                        const std::vector<std::int64_t>& pool_size,
                        const std::vector<std::int64_t>& strides, const Pooling2DOptions& options) {
  const std::vector<std::int64_t> pool = normalize_pair(pool_size, "pool_size");
  const std::vector<std::int64_t> stride = normalize_pair(strides, "strides", true);
  const std::string padding = normalize_padding(options.padding);
  const std::string data_format = normalize_data_format(options.data_format);
  const nn::PoolOptions pool_options{.data_format =
                                         data_format == "channels_first" ? "NCHW" : "NHWC"};
  const std::string_view default_name =
      kind == PoolKind::max ? "max_pooling2d" : "average_pooling2d";
  std::optional<variable_scope> scope;
  open_layer_scope(scope, options.name, default_name, Reuse(), inputs);
  check_input_rank(inputs.get_shape(), layer_name(*scope, options.name, default_name), 4, false);
  return kind == PoolKind::max ? nn::max_pool(inputs, pool, stride, padding, pool_options)
                               : nn::avg_pool(inputs, pool, stride, padding, pool_options);
}

}  // namespace detail

// tf.layers.max_pooling2d(inputs, pool_size, strides, padding): the maximum of each
// pool_size window of the NHWC (or, channels_first, NCHW) `inputs`, every `strides`. pool_size and
// strides have one value or two (rows, cols).
inline Output max_pooling2d(const Output& inputs, const std::vector<std::int64_t>& pool_size,
                            const std::vector<std::int64_t>& strides,
                            const Pooling2DOptions& options = {}) {
  return detail::pooling2d(detail::PoolKind::max, inputs, pool_size, strides, options);
}

// tf.layers.average_pooling2d(inputs, pool_size, strides, padding): the mean of each
// window, over the inputs it covers (SAME padding does not count).
inline Output average_pooling2d(const Output& inputs, const std::vector<std::int64_t>& pool_size,
                                const std::vector<std::int64_t>& strides,
                                const Pooling2DOptions& options = {}) {
  return detail::pooling2d(detail::PoolKind::average, inputs, pool_size, strides, options);
}

}  // namespace symflow::layers
