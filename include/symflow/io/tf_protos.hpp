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
inline const MessageDesc& meta_graph_def();
inline const MessageDesc& saved_model();

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

// CheckpointFormatVersion, saver.proto.
inline constexpr EnumValue kSaverVersionValues[] = {{"LEGACY", 0}, {"V1", 1}, {"V2", 2}};
inline constexpr EnumDesc kSaverVersion{"tensorflow.SaverDef.CheckpointFormatVersion",
                                        kSaverVersionValues};

inline const MessageDesc& meta_info_def();
inline const MessageDesc& saver_def();
inline const MessageDesc& collection_entry();
inline const MessageDesc& collection_def();
inline const MessageDesc& string_list();
inline const MessageDesc& int64_list();
inline const MessageDesc& float_list();
inline const MessageDesc& any_list();
inline const MessageDesc& any();
inline const MessageDesc& signature_entry();
inline const MessageDesc& signature_def();
inline const MessageDesc& tensor_info_entry();
inline const MessageDesc& tensor_info();
inline const MessageDesc& asset_file_def();
inline const MessageDesc& variable_def();
inline const MessageDesc& op_list();
inline const MessageDesc& op_def();

// meta_graph.proto. Of stripped_op_list symflow reads the op names; TF2's
// object_graph_def is kept as bytes: symflow reads only whether it is there.
inline constexpr FieldDesc kMetaGraphDefFields[] = {
    {1, "meta_info_def", Kind::message, false, &meta_info_def},
    {2, "graph_def", Kind::message, false, &graph_def},
    {3, "saver_def", Kind::message, false, &saver_def},
    {4, "collection_def", Kind::message, true, &collection_entry},
    {5, "signature_def", Kind::message, true, &signature_entry},
    {6, "asset_file_def", Kind::message, true, &asset_file_def},
    {7, "object_graph_def", Kind::bytes},
};
inline constexpr FieldDesc kMetaInfoDefFields[] = {
    {1, "meta_graph_version", Kind::string},
    {2, "stripped_op_list", Kind::message, false, &op_list},
    {4, "tags", Kind::string, true},
    {5, "tensorflow_version", Kind::string},
    {6, "tensorflow_git_version", Kind::string},
    {7, "stripped_default_attrs", Kind::boolean},
};
// op_def.proto: only the names.
inline constexpr FieldDesc kOpListFields[] = {{1, "op", Kind::message, true, &op_def}};
inline constexpr FieldDesc kOpDefFields[] = {{1, "name", Kind::string}};
// saver.proto
inline constexpr FieldDesc kSaverDefFields[] = {
    {1, "filename_tensor_name", Kind::string},
    {2, "save_tensor_name", Kind::string},
    {3, "restore_op_name", Kind::string},
    {4, "max_to_keep", Kind::int32},
    {5, "sharded", Kind::boolean},
    {6, "keep_checkpoint_every_n_hours", Kind::float32},
    {7, "version", Kind::enumeration, false, nullptr, &kSaverVersion},
};
// collection_def is a map<string, CollectionDef>: on the wire, repeated entries.
inline constexpr FieldDesc kCollectionEntryFields[] = {
    {1, "key", Kind::string},
    {2, "value", Kind::message, false, &collection_def},
};
inline constexpr FieldDesc kCollectionDefFields[] = {
    {1, "node_list", Kind::message, false, &string_list, nullptr, true},
    {2, "bytes_list", Kind::message, false, &string_list, nullptr, true},
    {3, "int64_list", Kind::message, false, &int64_list, nullptr, true},
    {4, "float_list", Kind::message, false, &float_list, nullptr, true},
    {5, "any_list", Kind::message, false, &any_list, nullptr, true},
};
// NodeList's strings and BytesList's bytes are the same on the wire.
inline constexpr FieldDesc kStringListFields[] = {{1, "value", Kind::bytes, true}};
inline constexpr FieldDesc kInt64ListFields[] = {{1, "value", Kind::int64, true}};
inline constexpr FieldDesc kFloatListFields[] = {{1, "value", Kind::float32, true}};
inline constexpr FieldDesc kAnyListFields[] = {{1, "value", Kind::message, true, &any}};
// google/protobuf/any.proto
inline constexpr FieldDesc kAnyFields[] = {
    {1, "type_url", Kind::string},
    {2, "value", Kind::bytes},
};
inline constexpr FieldDesc kSignatureEntryFields[] = {
    {1, "key", Kind::string},
    {2, "value", Kind::message, false, &signature_def},
};
inline constexpr FieldDesc kSignatureDefFields[] = {
    {1, "inputs", Kind::message, true, &tensor_info_entry},
    {2, "outputs", Kind::message, true, &tensor_info_entry},
    {3, "method_name", Kind::string},
};
inline constexpr FieldDesc kTensorInfoEntryFields[] = {
    {1, "key", Kind::string},
    {2, "value", Kind::message, false, &tensor_info},
};
// TensorInfo's encoding is a oneof: a name, or a sparse or composite tensor (kept as
// bytes: symflow has neither).
inline constexpr FieldDesc kTensorInfoFields[] = {
    {1, "name", Kind::string, false, nullptr, nullptr, true},
    {2, "dtype", Kind::enumeration, false, nullptr, &kDataType},
    {3, "tensor_shape", Kind::message, false, &tensor_shape},
    {4, "coo_sparse", Kind::bytes, false, nullptr, nullptr, true},
    {5, "composite_tensor", Kind::bytes, false, nullptr, nullptr, true},
};
inline constexpr FieldDesc kAssetFileDefFields[] = {
    {1, "tensor_info", Kind::message, false, &tensor_info},
    {2, "filename", Kind::string},
};
// variable.proto: what the `variables` collections hold, one serialized VariableDef
// per bytes_list item.
inline constexpr FieldDesc kVariableDefFields[] = {
    {1, "variable_name", Kind::string}, {2, "initializer_name", Kind::string},
    {3, "snapshot_name", Kind::string}, {4, "save_slice_info_def", Kind::bytes},
    {5, "is_resource", Kind::boolean},  {6, "initial_value_name", Kind::string},
    {7, "trainable", Kind::boolean},
};
// saved_model.proto
inline constexpr FieldDesc kSavedModelFields[] = {
    {1, "saved_model_schema_version", Kind::int64},
    {2, "meta_graphs", Kind::message, true, &meta_graph_def},
};

inline const MessageDesc& meta_graph_def() {
  static constexpr MessageDesc d{"tensorflow.MetaGraphDef", kMetaGraphDefFields};
  return d;
}
inline const MessageDesc& meta_info_def() {
  static constexpr MessageDesc d{"tensorflow.MetaGraphDef.MetaInfoDef", kMetaInfoDefFields};
  return d;
}
inline const MessageDesc& saver_def() {
  static constexpr MessageDesc d{"tensorflow.SaverDef", kSaverDefFields};
  return d;
}
inline const MessageDesc& collection_entry() {
  static constexpr MessageDesc d{"tensorflow.MetaGraphDef.CollectionDefEntry",
                                 kCollectionEntryFields};
  return d;
}
inline const MessageDesc& collection_def() {
  static constexpr MessageDesc d{"tensorflow.CollectionDef", kCollectionDefFields};
  return d;
}
inline const MessageDesc& string_list() {
  static constexpr MessageDesc d{"tensorflow.CollectionDef.BytesList", kStringListFields};
  return d;
}
inline const MessageDesc& int64_list() {
  static constexpr MessageDesc d{"tensorflow.CollectionDef.Int64List", kInt64ListFields};
  return d;
}
inline const MessageDesc& float_list() {
  static constexpr MessageDesc d{"tensorflow.CollectionDef.FloatList", kFloatListFields};
  return d;
}
inline const MessageDesc& any_list() {
  static constexpr MessageDesc d{"tensorflow.CollectionDef.AnyList", kAnyListFields};
  return d;
}
inline const MessageDesc& any() {
  static constexpr MessageDesc d{"google.protobuf.Any", kAnyFields};
  return d;
}
inline const MessageDesc& signature_entry() {
  static constexpr MessageDesc d{"tensorflow.MetaGraphDef.SignatureDefEntry",
                                 kSignatureEntryFields};
  return d;
}
inline const MessageDesc& signature_def() {
  static constexpr MessageDesc d{"tensorflow.SignatureDef", kSignatureDefFields};
  return d;
}
inline const MessageDesc& tensor_info_entry() {
  static constexpr MessageDesc d{"tensorflow.SignatureDef.InputsEntry", kTensorInfoEntryFields};
  return d;
}
inline const MessageDesc& tensor_info() {
  static constexpr MessageDesc d{"tensorflow.TensorInfo", kTensorInfoFields};
  return d;
}
inline const MessageDesc& asset_file_def() {
  static constexpr MessageDesc d{"tensorflow.AssetFileDef", kAssetFileDefFields};
  return d;
}
inline const MessageDesc& variable_def() {
  static constexpr MessageDesc d{"tensorflow.VariableDef", kVariableDefFields};
  return d;
}
inline const MessageDesc& op_list() {
  static constexpr MessageDesc d{"tensorflow.OpList", kOpListFields};
  return d;
}
inline const MessageDesc& op_def() {
  static constexpr MessageDesc d{"tensorflow.OpDef", kOpDefFields};
  return d;
}
inline const MessageDesc& saved_model() {
  static constexpr MessageDesc d{"tensorflow.SavedModel", kSavedModelFields};
  return d;
}

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
