#pragma once
// The descriptions of the summary ops (ScalarSummary, HistogramSummary, TensorSummaryV2,
// ImageSummary, AudioSummaryV2, MergeSummary): their shape functions and OpDefs. Each outputs a
// string scalar, a serialized Summary proto for TensorBoard. They run on the host only, as
// TensorFlow's do; their kernels are in backend/cpu/kernels/summary.hpp, tf.summary's functions in
// ops/summary_ops.hpp.

#include <cstdint>
#include <string>
#include <vector>

#include "symflow/core/dtype.hpp"
#include "symflow/core/errors.hpp"
#include "symflow/core/shape.hpp"
#include "symflow/ops/defs/op_def.hpp"
#include "symflow/ops/defs/shape_fn.hpp"
#include "symflow/ops/defs/string.hpp"

namespace symflow::detail {

// The summaries' `values` take TensorFlow's real number types, which symflow's numeric
// dtypes all are; the message lists TensorFlow's whole set.
inline void require_summary_number(const InferContext& c, std::size_t i) {
  const DType d = c.dtype(i);
  if (d == DType::string || d == DType::bool_ || d == DType::invalid)
    throw TypeError("Value passed to parameter 'values' has DataType " +
                    std::string(dtype_name(d)) +
                    " not in list of allowed values: float32, float64, int32, uint8, int16, "
                    "int8, int64, bfloat16, uint16, float16, uint32, uint64");
}

// ScalarSummary(tags, values): one Summary.Value per element, tag and value side by
// side; the shapes are checked when it runs.
inline std::vector<TensorSpec> infer_scalar_summary(const InferContext& c) {
  require_string(c, 0, "tags");
  require_summary_number(c, 1);
  return {{DType::string, Shape{}}};
}
SYMFLOW_OP_DEF(kScalarSummaryOp, OpDef{.type = "ScalarSummary",
                                       .num_inputs = 2,
                                       .infer = infer_scalar_summary,
                                       .accepts_strings = true,
                                       .host_only = true});

// HistogramSummary(tag, values): a histogram of every element under the scalar tag.
inline std::vector<TensorSpec> infer_histogram_summary(const InferContext& c) {
  require_string(c, 0, "tag");
  require_summary_number(c, 1);
  return {{DType::string, Shape{}}};
}
SYMFLOW_OP_DEF(kHistogramSummaryOp, OpDef{.type = "HistogramSummary",
                                          .num_inputs = 2,
                                          .infer = infer_histogram_summary,
                                          .accepts_strings = true,
                                          .host_only = true});

// TensorSummaryV2(tag, tensor, serialized_summary_metadata): the tensor itself (any
// dtype, strings too) as a TensorProto under the tag, with the SummaryMetadata bytes.
inline std::vector<TensorSpec> infer_tensor_summary_v2(const InferContext& c) {
  require_string(c, 0, "tag");
  require_string(c, 2, "serialized_summary_metadata");
  return {{DType::string, Shape{}}};
}
SYMFLOW_OP_DEF(kTensorSummaryV2Op, OpDef{.type = "TensorSummaryV2",
                                         .num_inputs = 3,
                                         .infer = infer_tensor_summary_v2,
                                         .accepts_strings = true,
                                         .host_only = true});

// An `int >= 1` attr such as max_images, as TensorFlow's op builder checks it.
inline void require_positive_attr(const InferContext& c, std::string_view attr,
                                  std::string_view op) {
  const auto value = c.attr<std::int64_t>(attr);
  if (value < 1)
    throw ValueError("Attr '" + std::string(attr) + "' of '" + std::string(op) + "' Op passed " +
                     std::to_string(value) + " less than minimum 1.");
}

// ImageSummary(tag, tensor; max_images, bad_color, T): up to max_images PNG images of a
// [batch, height, width, channels] tensor of uint8 or floats. The rank and channels are
// checked when it runs, as TensorFlow does.
inline std::vector<TensorSpec> infer_image_summary(const InferContext& c) {
  require_string(c, 0, "tag");
  const DType d = c.dtype(1);
  if (d != DType::uint8 && d != DType::float32 && d != DType::float64)
    throw TypeError("Value passed to parameter 'tensor' has DataType " +
                    std::string(dtype_name(d)) +
                    " not in list of allowed values: uint8, float32, float16, float64");
  require_positive_attr(c, "max_images", "ImageSummary");
  return {{DType::string, Shape{}}};
}
SYMFLOW_OP_DEF(kImageSummaryOp, OpDef{.type = "ImageSummary",
                                      .num_inputs = 2,
                                      .infer = infer_image_summary,
                                      .accepts_strings = true,
                                      .host_only = true});

// AudioSummaryV2(tag, tensor, sample_rate; max_outputs): up to max_outputs WAV clips of a
// float32 [batch, frames] or [batch, frames, channels] tensor.
inline std::vector<TensorSpec> infer_audio_summary_v2(const InferContext& c) {
  require_string(c, 0, "tag");
  for (const auto& [index, input] : {std::pair<std::size_t, const char*>{1, "tensor"},
                                     std::pair<std::size_t, const char*>{2, "sample_rate"}})
    if (c.dtype(index) != DType::float32)
      throw TypeError("Input '" + std::string(input) + "' of 'AudioSummaryV2' Op has type " +
                      std::string(dtype_name(c.dtype(index))) +
                      " that does not match expected type of float32.");
  require_positive_attr(c, "max_outputs", "AudioSummaryV2");
  return {{DType::string, Shape{}}};
}
SYMFLOW_OP_DEF(kAudioSummaryV2Op, OpDef{.type = "AudioSummaryV2",
                                        .num_inputs = 3,
                                        .infer = infer_audio_summary_v2,
                                        .accepts_strings = true,
                                        .host_only = true});

// MergeSummary(inputs..., N): the values of every serialized Summary among the inputs
// (string tensors of any shape), in order, in one Summary.
inline std::vector<TensorSpec> infer_merge_summary(const InferContext& c) {
  if (c.inputs.empty())
    throw ValueError(
        "List argument 'inputs' to 'MergeSummary' Op with length 0 shorter than minimum "
        "length 1.");
  bool all_strings = true;
  std::string types;
  for (std::size_t i = 0; i < c.inputs.size(); ++i) {
    all_strings = all_strings && c.dtype(i) == DType::string;
    types += (i ? ", " : "") + std::string(dtype_name(c.dtype(i)));
  }
  if (!all_strings)
    throw TypeError("Tensors in list passed to 'inputs' of 'MergeSummary' Op have types [" + types +
                    "] that do not match expected type string.");
  return {{DType::string, Shape{}}};
}
SYMFLOW_OP_DEF(kMergeSummaryOp, OpDef{.type = "MergeSummary",
                                      .num_inputs = -1,
                                      .infer = infer_merge_summary,
                                      .accepts_strings = true,
                                      .host_only = true});

}  // namespace symflow::detail
