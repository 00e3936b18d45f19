#pragma once
// The default values TensorFlow's op registry gives attrs, for the ops symflow has:
// TensorFlow leaves an attr at its default out of a GraphDef written with
// strip_default_attrs (SavedModels, `export_meta_graph(strip_default_attrs=True)`), and
// its importer puts it back. import_graph_def does the same with this table. Values as
// TensorFlow 2.21's registry states them (core/ops/*.cc); attrs no symflow kernel or
// shape function reads (MatMul's grad_a, Equal's incompatible_shape_error, Conv2D's
// explicit_paddings) are left out, so a graph symflow wrote imports unchanged.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "symflow/core/attr_value.hpp"
#include "symflow/core/dtype.hpp"
#include "symflow/core/shape.hpp"

namespace symflow {

namespace io {

// The defaults of op type `op`'s attrs, or nullptr when it has none here.
inline const AttrMap* tf_default_attrs(std::string_view op) {
  static const std::map<std::string, AttrMap, std::less<>> kDefaults = {
      {"All", {{"keep_dims", AttrValue(false)}, {"Tidx", AttrValue(DType::int32)}}},
      {"Any", {{"keep_dims", AttrValue(false)}, {"Tidx", AttrValue(DType::int32)}}},
      {"ApplyAdagrad", {{"use_locking", AttrValue(false)}, {"update_slots", AttrValue(true)}}},
      {"ApplyAdam", {{"use_locking", AttrValue(false)}, {"use_nesterov", AttrValue(false)}}},
      {"ApplyCenteredRMSProp", {{"use_locking", AttrValue(false)}}},
      {"ApplyGradientDescent", {{"use_locking", AttrValue(false)}}},
      {"ApplyMomentum", {{"use_locking", AttrValue(false)}, {"use_nesterov", AttrValue(false)}}},
      {"ApplyRMSProp", {{"use_locking", AttrValue(false)}}},
      {"AsString",
       {{"precision", AttrValue(std::int64_t{-1})},
        {"scientific", AttrValue(false)},
        {"shortest", AttrValue(false)},
        {"width", AttrValue(std::int64_t{-1})},
        {"fill", AttrValue(std::string(""))}}},
      {"ArgMax", {{"Tidx", AttrValue(DType::int32)}, {"output_type", AttrValue(DType::int64)}}},
      {"ArgMin", {{"Tidx", AttrValue(DType::int32)}, {"output_type", AttrValue(DType::int64)}}},
      {"Assign", {{"validate_shape", AttrValue(true)}, {"use_locking", AttrValue(true)}}},
      {"AssignAdd", {{"use_locking", AttrValue(false)}}},
      {"AssignSub", {{"use_locking", AttrValue(false)}}},
      {"AvgPool", {{"data_format", AttrValue(std::string("NHWC"))}}},
      {"AvgPoolGrad", {{"data_format", AttrValue(std::string("NHWC"))}}},
      {"BiasAdd", {{"data_format", AttrValue(std::string("NHWC"))}}},
      {"BiasAddGrad", {{"data_format", AttrValue(std::string("NHWC"))}}},
      {"BroadcastGradientArgs", {{"T", AttrValue(DType::int32)}}},
      {"BroadcastTo", {{"Tidx", AttrValue(DType::int32)}}},
      {"Cast", {{"Truncate", AttrValue(false)}}},
      {"ConcatOffset", {{"shape_type", AttrValue(DType::int32)}}},
      {"ConcatV2", {{"Tidx", AttrValue(DType::int32)}}},
      {"Conv2D",
       {{"use_cudnn_on_gpu", AttrValue(true)},
        {"data_format", AttrValue(std::string("NHWC"))},
        {"dilations", AttrValue(IntList{{1, 1, 1, 1}})}}},
      {"Conv2DBackpropFilter",
       {{"use_cudnn_on_gpu", AttrValue(true)},
        {"data_format", AttrValue(std::string("NHWC"))},
        {"dilations", AttrValue(IntList{{1, 1, 1, 1}})}}},
      {"Conv2DBackpropInput",
       {{"use_cudnn_on_gpu", AttrValue(true)},
        {"data_format", AttrValue(std::string("NHWC"))},
        {"dilations", AttrValue(IntList{{1, 1, 1, 1}})}}},
      {"Cumprod",
       {{"exclusive", AttrValue(false)},
        {"reverse", AttrValue(false)},
        {"Tidx", AttrValue(DType::int32)}}},
      {"Cumsum",
       {{"exclusive", AttrValue(false)},
        {"reverse", AttrValue(false)},
        {"Tidx", AttrValue(DType::int32)}}},
      {"Enter",
       {{"is_constant", AttrValue(false)}, {"parallel_iterations", AttrValue(std::int64_t{10})}}},
      {"ExpandDims", {{"Tdim", AttrValue(DType::int32)}}},
      {"Fill", {{"index_type", AttrValue(DType::int32)}}},
      {"GatherV2", {{"batch_dims", AttrValue(std::int64_t{0})}}},
      {"InvertPermutation", {{"T", AttrValue(DType::int32)}}},
      {"LeakyRelu",
       {{"alpha", AttrValue(double{0.20000000298023224})}, {"T", AttrValue(DType::float32)}}},
      {"LeakyReluGrad",
       {{"alpha", AttrValue(double{0.20000000298023224})}, {"T", AttrValue(DType::float32)}}},
      {"MatMul", {{"transpose_a", AttrValue(false)}, {"transpose_b", AttrValue(false)}}},
      {"Max", {{"keep_dims", AttrValue(false)}, {"Tidx", AttrValue(DType::int32)}}},
      {"MaxPool",
       {{"T", AttrValue(DType::float32)}, {"data_format", AttrValue(std::string("NHWC"))}}},
      {"MaxPoolGrad",
       {{"data_format", AttrValue(std::string("NHWC"))}, {"T", AttrValue(DType::float32)}}},
      {"Mean", {{"keep_dims", AttrValue(false)}, {"Tidx", AttrValue(DType::int32)}}},
      {"MergeV2Checkpoints",
       {{"delete_old_dirs", AttrValue(true)}, {"allow_missing_files", AttrValue(false)}}},
      {"Min", {{"keep_dims", AttrValue(false)}, {"Tidx", AttrValue(DType::int32)}}},
      {"OneHot", {{"axis", AttrValue(std::int64_t{-1})}, {"TI", AttrValue(DType::int64)}}},
      {"Pack", {{"axis", AttrValue(std::int64_t{0})}}},
      {"Pad", {{"Tpaddings", AttrValue(DType::int32)}}},
      {"PadV2", {{"Tpaddings", AttrValue(DType::int32)}}},
      {"Placeholder", {{"shape", AttrValue(Shape::unknown())}}},
      {"Prod", {{"keep_dims", AttrValue(false)}, {"Tidx", AttrValue(DType::int32)}}},
      {"RandomShuffle",
       {{"seed", AttrValue(std::int64_t{0})}, {"seed2", AttrValue(std::int64_t{0})}}},
      {"RandomStandardNormal",
       {{"seed", AttrValue(std::int64_t{0})}, {"seed2", AttrValue(std::int64_t{0})}}},
      {"RandomUniform",
       {{"seed", AttrValue(std::int64_t{0})}, {"seed2", AttrValue(std::int64_t{0})}}},
      {"RandomUniformInt",
       {{"seed", AttrValue(std::int64_t{0})}, {"seed2", AttrValue(std::int64_t{0})}}},
      {"Range", {{"Tidx", AttrValue(DType::int32)}}},
      {"RefEnter",
       {{"is_constant", AttrValue(false)}, {"parallel_iterations", AttrValue(std::int64_t{10})}}},
      {"Reshape", {{"Tshape", AttrValue(DType::int32)}}},
      {"ScatterAdd", {{"use_locking", AttrValue(false)}}},
      {"ScatterSub", {{"use_locking", AttrValue(false)}}},
      {"ScatterUpdate", {{"use_locking", AttrValue(true)}}},
      {"Shape", {{"out_type", AttrValue(DType::int32)}}},
      {"Size", {{"out_type", AttrValue(DType::int32)}}},
      {"SparseSoftmaxCrossEntropyWithLogits", {{"Tlabels", AttrValue(DType::int64)}}},
      {"SplitV", {{"Tlen", AttrValue(DType::int64)}}},
      {"Squeeze", {{"squeeze_dims", AttrValue(IntList{})}}},
      {"StridedSlice",
       {{"begin_mask", AttrValue(std::int64_t{0})},
        {"end_mask", AttrValue(std::int64_t{0})},
        {"ellipsis_mask", AttrValue(std::int64_t{0})},
        {"new_axis_mask", AttrValue(std::int64_t{0})},
        {"shrink_axis_mask", AttrValue(std::int64_t{0})}}},
      {"StridedSliceGrad",
       {{"begin_mask", AttrValue(std::int64_t{0})},
        {"end_mask", AttrValue(std::int64_t{0})},
        {"ellipsis_mask", AttrValue(std::int64_t{0})},
        {"new_axis_mask", AttrValue(std::int64_t{0})},
        {"shrink_axis_mask", AttrValue(std::int64_t{0})}}},
      {"StringJoin", {{"separator", AttrValue(std::string(""))}}},
      {"StringLength", {{"unit", AttrValue(std::string("BYTE"))}}},
      {"Sum", {{"keep_dims", AttrValue(false)}, {"Tidx", AttrValue(DType::int32)}}},
      {"Tile", {{"Tmultiples", AttrValue(DType::int32)}}},
      {"Transpose", {{"Tperm", AttrValue(DType::int32)}}},
      {"TruncatedNormal",
       {{"seed", AttrValue(std::int64_t{0})}, {"seed2", AttrValue(std::int64_t{0})}}},
      {"Unique", {{"out_idx", AttrValue(DType::int32)}}},
      {"Unpack", {{"axis", AttrValue(std::int64_t{0})}}},
      {"UnsortedSegmentSum", {{"Tnumsegments", AttrValue(DType::int32)}}},
      {"VariableV2",
       {{"container", AttrValue(std::string(""))}, {"shared_name", AttrValue(std::string(""))}}},
      {"Where", {{"T", AttrValue(DType::bool_)}}},
  };
  auto it = kDefaults.find(op);
  return it == kDefaults.end() ? nullptr : &it->second;
}

}  // namespace io

}  // namespace symflow
