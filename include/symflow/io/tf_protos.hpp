#pragma once
// TensorFlow's messages as symflow reads and writes them: names, field numbers and types,
// from tensorflow/core/framework/*.proto. A field left out here is one symflow does not
// use; the binary decoder skips it, as protobuf does with fields it does not know.

#include <cstdint>

#include "symflow/io/protobuf_schema.hpp"

namespace symflow {

namespace io::tf_proto {

using proto::EnumDesc;
using proto::EnumValue;
using proto::FieldDesc;
using proto::Kind;
using proto::MessageDesc;

// types.proto: DataType. The _REF types are the same numbers plus 100.
inline constexpr EnumValue kDataTypeValues[] = {
    {"DT_INVALID", 0},       {"DT_FLOAT", 1},           {"DT_DOUBLE", 2},
    {"DT_INT32", 3},         {"DT_UINT8", 4},           {"DT_INT16", 5},
    {"DT_INT8", 6},          {"DT_STRING", 7},          {"DT_COMPLEX64", 8},
    {"DT_INT64", 9},         {"DT_BOOL", 10},           {"DT_QINT8", 11},
    {"DT_QUINT8", 12},       {"DT_QINT32", 13},         {"DT_BFLOAT16", 14},
    {"DT_QINT16", 15},       {"DT_QUINT16", 16},        {"DT_UINT16", 17},
    {"DT_COMPLEX128", 18},   {"DT_HALF", 19},           {"DT_RESOURCE", 20},
    {"DT_VARIANT", 21},      {"DT_UINT32", 22},         {"DT_UINT64", 23},
    {"DT_FLOAT_REF", 101},   {"DT_DOUBLE_REF", 102},    {"DT_INT32_REF", 103},
    {"DT_UINT8_REF", 104},   {"DT_INT16_REF", 105},     {"DT_INT8_REF", 106},
    {"DT_STRING_REF", 107},  {"DT_COMPLEX64_REF", 108}, {"DT_INT64_REF", 109},
    {"DT_BOOL_REF", 110},    {"DT_QINT8_REF", 111},     {"DT_QUINT8_REF", 112},
    {"DT_QINT32_REF", 113},  {"DT_BFLOAT16_REF", 114},  {"DT_QINT16_REF", 115},
    {"DT_QUINT16_REF", 116}, {"DT_UINT16_REF", 117},    {"DT_COMPLEX128_REF", 118},
    {"DT_HALF_REF", 119},    {"DT_RESOURCE_REF", 120},  {"DT_VARIANT_REF", 121},
    {"DT_UINT32_REF", 122},  {"DT_UINT64_REF", 123},
};
inline constexpr EnumDesc kDataType{"tensorflow.DataType", kDataTypeValues};

inline const MessageDesc& graph_def();
inline const MessageDesc& node_def();
inline const MessageDesc& attr_entry();
inline const MessageDesc& attr_value();
inline const MessageDesc& list_value();
inline const MessageDesc& name_attr_list();
inline const MessageDesc& tensor();
inline const MessageDesc& tensor_shape();
inline const MessageDesc& dim();
inline const MessageDesc& version_def();

// graph.proto
inline constexpr FieldDesc kGraphDefFields[] = {
    {1, "node", Kind::message, true, &node_def},
    {3, "version", Kind::int32},  // deprecated, before versions existed
    {4, "versions", Kind::message, false, &version_def},
};
// versions.proto
inline constexpr FieldDesc kVersionDefFields[] = {
    {1, "producer", Kind::int32},
    {2, "min_consumer", Kind::int32},
    {3, "bad_consumers", Kind::int32, true},
};
// node_def.proto; attr is a map<string, AttrValue>, on the wire a repeated entry.
inline constexpr FieldDesc kNodeDefFields[] = {
    {1, "name", Kind::string},
    {2, "op", Kind::string},
    {3, "input", Kind::string, true},
    {4, "device", Kind::string},
    {5, "attr", Kind::message, true, &attr_entry},
};
inline constexpr FieldDesc kAttrEntryFields[] = {
    {1, "key", Kind::string},
    {2, "value", Kind::message, false, &attr_value},
};
// attr_value.proto
// Every field is a member of the oneof `value`.
inline constexpr FieldDesc kAttrValueFields[] = {
    {1, "list", Kind::message, false, &list_value, nullptr, true},
    {2, "s", Kind::bytes, false, nullptr, nullptr, true},
    {3, "i", Kind::int64, false, nullptr, nullptr, true},
    {4, "f", Kind::float32, false, nullptr, nullptr, true},
    {5, "b", Kind::boolean, false, nullptr, nullptr, true},
    {6, "type", Kind::enumeration, false, nullptr, &kDataType, true},
    {7, "shape", Kind::message, false, &tensor_shape, nullptr, true},
    {8, "tensor", Kind::message, false, &tensor, nullptr, true},
    {9, "placeholder", Kind::string, false, nullptr, nullptr, true},
    {10, "func", Kind::message, false, &name_attr_list, nullptr, true},
};
inline constexpr FieldDesc kListValueFields[] = {
    {2, "s", Kind::bytes, true},
    {3, "i", Kind::int64, true},
    {4, "f", Kind::float32, true},
    {5, "b", Kind::boolean, true},
    {6, "type", Kind::enumeration, true, nullptr, &kDataType},
    {7, "shape", Kind::message, true, &tensor_shape},
    {8, "tensor", Kind::message, true, &tensor},
    {9, "func", Kind::message, true, &name_attr_list},
};
inline constexpr FieldDesc kNameAttrListFields[] = {
    {1, "name", Kind::string},
    {2, "attr", Kind::message, true, &attr_entry},
};
// tensor.proto
inline constexpr FieldDesc kTensorFields[] = {
    {1, "dtype", Kind::enumeration, false, nullptr, &kDataType},
    {2, "tensor_shape", Kind::message, false, &tensor_shape},
    {3, "version_number", Kind::int32},
    {4, "tensor_content", Kind::bytes},
    {5, "float_val", Kind::float32, true},
    {6, "double_val", Kind::float64, true},
    {7, "int_val", Kind::int32, true},
    {8, "string_val", Kind::bytes, true},
    {9, "scomplex_val", Kind::float32, true},
    {10, "int64_val", Kind::int64, true},
    {11, "bool_val", Kind::boolean, true},
    {12, "dcomplex_val", Kind::float64, true},
    {13, "half_val", Kind::int32, true},
    {16, "uint32_val", Kind::uint32, true},
    {17, "uint64_val", Kind::uint64, true},
};
// tensor_shape.proto
inline constexpr FieldDesc kTensorShapeFields[] = {
    {2, "dim", Kind::message, true, &dim},
    {3, "unknown_rank", Kind::boolean},
};
inline constexpr FieldDesc kDimFields[] = {
    {1, "size", Kind::int64},
    {2, "name", Kind::string},
};

inline const MessageDesc& graph_def() {
  static constexpr MessageDesc d{"tensorflow.GraphDef", kGraphDefFields};
  return d;
}
inline const MessageDesc& version_def() {
  static constexpr MessageDesc d{"tensorflow.VersionDef", kVersionDefFields};
  return d;
}
inline const MessageDesc& node_def() {
  static constexpr MessageDesc d{"tensorflow.NodeDef", kNodeDefFields};
  return d;
}
inline const MessageDesc& attr_entry() {
  static constexpr MessageDesc d{"tensorflow.NodeDef.AttrEntry", kAttrEntryFields};
  return d;
}
inline const MessageDesc& attr_value() {
  static constexpr MessageDesc d{"tensorflow.AttrValue", kAttrValueFields};
  return d;
}
inline const MessageDesc& list_value() {
  static constexpr MessageDesc d{"tensorflow.AttrValue.ListValue", kListValueFields};
  return d;
}
inline const MessageDesc& name_attr_list() {
  static constexpr MessageDesc d{"tensorflow.NameAttrList", kNameAttrListFields};
  return d;
}
inline const MessageDesc& tensor() {
  static constexpr MessageDesc d{"tensorflow.TensorProto", kTensorFields};
  return d;
}
inline const MessageDesc& tensor_shape() {
  static constexpr MessageDesc d{"tensorflow.TensorShapeProto", kTensorShapeFields};
  return d;
}
inline const MessageDesc& dim() {
  static constexpr MessageDesc d{"tensorflow.TensorShapeProto.Dim", kDimFields};
  return d;
}

}  // namespace io::tf_proto

}  // namespace symflow
