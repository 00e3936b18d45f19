#pragma once
// MetaGraphDef and SavedModel in TensorFlow's protobuf encodings, binary and text: the
// `.meta` files of tf.train.Saver and export_meta_graph, and the `saved_model.pb` /
// `saved_model.pbtxt` of SavedModelBuilder. Both encodings become the same message tree
// (io/protobuf_schema.hpp) and are read from it once, here.

#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "symflow/core/errors.hpp"
#include "symflow/io/graph_def_text.hpp"
#include "symflow/io/graph_io.hpp"
#include "symflow/io/protobuf_binary.hpp"
#include "symflow/io/protobuf_fields.hpp"
#include "symflow/io/protobuf_schema.hpp"
#include "symflow/io/tf_protos.hpp"
#include "symflow/train/meta_graph_def.hpp"

namespace symflow::train {

// A SavedModel: one MetaGraphDef per set of tags it was saved with.
struct SavedModel {
  std::int64_t saved_model_schema_version = 1;
  std::vector<MetaGraphDef> meta_graphs;
};

namespace detail::meta_graph_proto {

using io::proto::Field;
using io::proto::Message;

// Reads MetaGraphDef and SavedModel messages; errors name the file and the line (text)
// or byte offset (binary) of the field at fault.
struct Reader : io::proto::FieldReader {
  using FieldReader::FieldReader;
  static constexpr long long kIntMin = std::numeric_limits<int>::min();
  static constexpr long long kIntMax = std::numeric_limits<int>::max();

  TensorInfo tensor_info(const Message& m) const {
    TensorInfo t;
    for (const Field& f : m.fields) {
      if (f.name == "name") {
        t.name = string(f);
      } else if (f.name == "dtype") {
        std::string name = token(f);
        if (name.ends_with("_REF")) {
          t.is_ref = true;
          name.resize(name.size() - 4);
        }
        // A dtype symflow lacks (DT_HALF, DT_RESOURCE) stays invalid: the signature
        // still lists it, and running it reports the node.
        for (DType d : kAllDTypes)
          if (dtype_enum_name(d) == name) t.dtype = d;
      } else if (f.name == "tensor_shape") {
        t.tensor_shape = io::shape_from_message(message(f), source(), binary());
      }
    }
    return t;
  }

  // A map entry {key, value}: the key and the value's message.
  std::pair<std::string, const Message*> entry(const Field& f) const {
    std::string key;
    const Message* value = nullptr;
    for (const Field& kv : message(f).fields) {
      if (kv.name == "key") key = string(kv);
      if (kv.name == "value") value = &message(kv);
    }
    static const Message empty;
    return {key, value ? value : &empty};
  }

  CollectionDef collection(const Message& m, std::int64_t position, const std::string& key) const {
    if (m.fields.size() != 1)
      fail(position, "collection '" + key +
                         "' must hold exactly one of node_list, bytes_list, int64_list, "
                         "float_list or any_list");
    const Field& list = m.fields.front();
    const Message& items = message(list);
    if (list.name == "node_list" || list.name == "bytes_list") {
      std::vector<std::string> values;
      for (const Field& v : items.fields) values.push_back(string(v));
      if (list.name == "node_list") return NodeList{std::move(values)};
      return BytesList{std::move(values)};
    }
    if (list.name == "int64_list") {
      Int64List out;
      for (const Field& v : items.fields) out.value.push_back(integer(v));
      return out;
    }
    if (list.name == "float_list") {
      FloatList out;
      for (const Field& v : items.fields) out.value.push_back(real(v, /*as_float=*/true));
      return out;
    }
    AnyList out;
    for (const Field& v : items.fields) {
      Any any;
      for (const Field& a : message(v).fields) {
        if (a.name == "type_url") any.type_url = string(a);
        if (a.name == "value") any.value = string(a);
      }
      out.value.push_back(std::move(any));
    }
    return out;
  }

  SaverDef saver_def(const Message& m) const {
    // Absent fields are protobuf's zeros, not symflow's defaults: TensorFlow reads a
    // SaverDef without max_to_keep as 0, "keep every checkpoint".
    SaverDef def;
    def.max_to_keep = 0;
    def.keep_checkpoint_every_n_hours = 0;
    def.version = 0;
    for (const Field& f : m.fields) {
      if (f.name == "filename_tensor_name") def.filename_tensor_name = string(f);
      if (f.name == "save_tensor_name") def.save_tensor_name = string(f);
      if (f.name == "restore_op_name") def.restore_op_name = string(f);
      if (f.name == "max_to_keep") def.max_to_keep = static_cast<int>(integer(f, kIntMin, kIntMax));
      if (f.name == "sharded") def.sharded = boolean(f);
      if (f.name == "keep_checkpoint_every_n_hours")
        def.keep_checkpoint_every_n_hours = real(f, true);
      if (f.name == "version") {
        const std::string& v = token(f);
        const auto* known = io::tf_proto::kSaverVersion.by_name(v);
        def.version = known ? known->number : static_cast<int>(integer(f, kIntMin, kIntMax));
      }
    }
    return def;
  }

  MetaGraphDef meta_graph(const Message& root) const {
    MetaGraphDef m;
    m.meta_info_def.symflow_version.clear();
    bool has_graph = false;
    // A TF2 graph holds resource handles and function calls symflow cannot represent:
    // its nodes are not read, so that its signatures and tags still are.
    for (const Field& f : root.fields)
      if (f.name == "object_graph_def") m.has_object_graph = true;
    for (const Field& f : root.fields) {
      if (f.name == "meta_info_def") {
        MetaInfoDef& info = m.meta_info_def;
        for (const Field& i : message(f).fields) {
          if (i.name == "meta_graph_version") info.meta_graph_version = string(i);
          if (i.name == "tags") info.tags.push_back(string(i));
          if (i.name == "tensorflow_version") info.tensorflow_version = string(i);
          if (i.name == "tensorflow_git_version") info.tensorflow_git_version = string(i);
          if (i.name == "stripped_op_list")
            for (const Field& op : message(i).fields)
              if (op.name == "op")
                for (const Field& name : message(op).fields)
                  if (name.name == "name") info.stripped_op_list.push_back(string(name));
        }
      } else if (f.name == "graph_def") {
        if (!m.has_object_graph)
          m.graph_def = io::graph_def_from_message(message(f), source(), binary());
        has_graph = true;
      } else if (f.name == "saver_def") {
        m.saver_def = saver_def(message(f));
      } else if (f.name == "collection_def") {
        auto [key, value] = entry(f);
        m.collection_def[key] = collection(*value, f.position, key);
      } else if (f.name == "signature_def") {
        auto [key, value] = entry(f);
        SignatureDef& sig = m.signature_def[key];
        for (const Field& s : value->fields) {
          if (s.name == "method_name") sig.method_name = string(s);
          if (s.name == "inputs" || s.name == "outputs") {
            auto [name, info] = entry(s);
            (s.name == "inputs" ? sig.inputs : sig.outputs)[name] = tensor_info(*info);
          }
        }
      } else if (f.name == "asset_file_def") {
        AssetFileDef asset;
        for (const Field& a : message(f).fields) {
          if (a.name == "tensor_info") asset.tensor_info = tensor_info(message(a));
          if (a.name == "filename") asset.filename = string(a);
        }
        m.asset_file_def.push_back(std::move(asset));
      }
    }
    // A file cut short, or not a MetaGraphDef, can parse as one without its graph.
    if (!has_graph)
      fail(root.fields.empty() ? 0 : root.fields.front().position,
           "the MetaGraphDef has no graph_def: expected a MetaGraphDef holding a graph");
    return m;
  }
};

// Which encoding `bytes` are in: protobuf binary, symflow's JSON, or protobuf text.
enum class Encoding { binary, json, text };
inline Encoding encoding_of(std::string_view bytes) {
  if (io::looks_like_binary_protobuf(bytes)) return Encoding::binary;
  auto first = bytes.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && bytes[first] == '{') return Encoding::json;
  return Encoding::text;
}

inline Message parse(std::string_view bytes, const io::proto::MessageDesc& desc,
                     std::string_view source) {
  if (encoding_of(bytes) == Encoding::binary)
    return io::proto::decode(bytes, desc, std::string(source));
  return io::parse_text_message(bytes, source);
}

// The writing side: message trees built with the field names of io/tf_protos.hpp.
struct Builder {
  Message root;

  static Field& add(Message& m, std::string_view name) {
    Field& f = m.fields.emplace_back();
    f.name = std::string(name);
    return f;
  }
  static void string(Message& m, std::string_view name, const std::string& value) {
    Field& f = add(m, name);
    f.is_string = true;
    f.scalar = value;
  }
  static void token(Message& m, std::string_view name, std::string value) {
    add(m, name).scalar = std::move(value);
  }
  static Message& message(Message& m, std::string_view name) {
    Field& f = add(m, name);
    f.is_message = true;
    f.message = std::make_shared<Message>();
    return *f.message;
  }
  static void message(Message& m, std::string_view name, Message value) {
    message(m, name) = std::move(value);
  }

  static Message shape(const Shape& s) {
    Message out;
    if (!s.has_rank()) {
      token(out, "unknown_rank", "true");
      return out;
    }
    for (auto d : s.dims()) token(message(out, "dim"), "size", std::to_string(d));
    return out;
  }
  static Message tensor_info(const TensorInfo& t) {
    Message out;
    string(out, "name", t.name);
    std::string dtype(dtype_enum_name(t.dtype));
    token(out, "dtype", t.is_ref ? dtype + "_REF" : dtype);
    message(out, "tensor_shape", shape(t.tensor_shape));
    return out;
  }
  static Message collection(const CollectionDef& def) {
    Message out;
    std::visit(
        [&](const auto& list) {
          using L = std::decay_t<decltype(list)>;
          const char* kind = std::is_same_v<L, NodeList>    ? "node_list"
                             : std::is_same_v<L, BytesList> ? "bytes_list"
                             : std::is_same_v<L, Int64List> ? "int64_list"
                             : std::is_same_v<L, FloatList> ? "float_list"
                                                            : "any_list";
          Message& items = message(out, kind);
          for (const auto& v : list.value) {
            if constexpr (std::is_same_v<L, NodeList> || std::is_same_v<L, BytesList>) {
              string(items, "value", v);
            } else if constexpr (std::is_same_v<L, AnyList>) {
              Message& any = message(items, "value");
              string(any, "type_url", v.type_url);
              string(any, "value", v.value);
            } else if constexpr (std::is_same_v<L, FloatList>) {
              std::ostringstream os;
              os.precision(9);
              os << static_cast<float>(v);
              token(items, "value", os.str());
            } else {
              token(items, "value", std::to_string(v));
            }
          }
        },
        def);
    return out;
  }

  static Message meta_graph(const MetaGraphDef& m) {
    Message out;
    Message& info = message(out, "meta_info_def");
    if (!m.meta_info_def.meta_graph_version.empty())
      string(info, "meta_graph_version", m.meta_info_def.meta_graph_version);
    Message& ops = message(info, "stripped_op_list");
    for (const std::string& op : m.meta_info_def.stripped_op_list)
      string(message(ops, "op"), "name", op);
    for (const std::string& tag : m.meta_info_def.tags) string(info, "tags", tag);
    if (!m.meta_info_def.tensorflow_version.empty())
      string(info, "tensorflow_version", m.meta_info_def.tensorflow_version);
    if (!m.meta_info_def.tensorflow_git_version.empty())
      string(info, "tensorflow_git_version", m.meta_info_def.tensorflow_git_version);
    message(out, "graph_def", io::graph_def_to_message(m.graph_def));
    // Only a SaverDef naming ops in the graph means something to TensorFlow; without
    // one, its import_meta_graph builds a Saver over the variables collection.
    if (m.saver_def && !m.saver_def->restore_op_name.empty()) {
      const SaverDef& d = *m.saver_def;
      Message& saver = message(out, "saver_def");
      string(saver, "filename_tensor_name", d.filename_tensor_name);
      string(saver, "save_tensor_name", d.save_tensor_name);
      string(saver, "restore_op_name", d.restore_op_name);
      token(saver, "max_to_keep", std::to_string(d.max_to_keep));
      token(saver, "sharded", d.sharded ? "true" : "false");
      std::ostringstream hours;
      hours.precision(9);
      hours << d.keep_checkpoint_every_n_hours;
      token(saver, "keep_checkpoint_every_n_hours", hours.str());
      const auto* version = io::tf_proto::kSaverVersion.by_number(d.version);
      token(saver, "version", version ? std::string(version->name) : std::to_string(d.version));
    }
    for (const auto& [key, def] : m.collection_def) {
      Message& entry = message(out, "collection_def");
      string(entry, "key", key);
      message(entry, "value", collection(def));
    }
    for (const auto& [key, sig] : m.signature_def) {
      Message& entry = message(out, "signature_def");
      string(entry, "key", key);
      Message& value = message(entry, "value");
      for (const auto& [name, info] : sig.inputs) {
        Message& e = message(value, "inputs");
        string(e, "key", name);
        message(e, "value", tensor_info(info));
      }
      for (const auto& [name, info] : sig.outputs) {
        Message& e = message(value, "outputs");
        string(e, "key", name);
        message(e, "value", tensor_info(info));
      }
      string(value, "method_name", sig.method_name);
    }
    for (const AssetFileDef& a : m.asset_file_def) {
      Message& asset = message(out, "asset_file_def");
      message(asset, "tensor_info", tensor_info(a.tensor_info));
      string(asset, "filename", a.filename);
    }
    return out;
  }
};

// A message tree in protobuf's text format, fields in the order they are held.
inline void print_text(symflow::detail::TextWriter& w, const Message& m) {
  for (const Field& f : m.fields) {
    if (f.is_message) {
      w.open(f.name);
      print_text(w, *f.message);
      w.close();
    } else if (f.is_string) {
      w.string_field(f.name, f.scalar);
    } else {
      w.field(f.name, f.scalar);
    }
  }
}

}  // namespace detail::meta_graph_proto

// A MetaGraphDef as TensorFlow's protobuf: binary (a `.meta` file) or, `as_text`,
// protobuf's text format. A SaverDef is written only when it names TensorFlow Saver ops.
inline std::string serialize_tf_meta_graph(const MetaGraphDef& m, bool as_text = false) {
  namespace mp = detail::meta_graph_proto;
  const io::proto::Message message = mp::Builder::meta_graph(m);
  if (!as_text) return io::proto::encode(message, io::tf_proto::meta_graph_def());
  std::ostringstream os;
  symflow::detail::TextWriter w(os);
  mp::print_text(w, message);
  return os.str();
}

// A MetaGraphDef TensorFlow wrote, binary (`.meta`) or text; errors are DataLossErrors
// naming `source` and where in it.
inline MetaGraphDef parse_tf_meta_graph(std::string_view bytes, std::string_view source) {
  namespace mp = detail::meta_graph_proto;
  const mp::Reader reader(std::string(source), mp::encoding_of(bytes) == mp::Encoding::binary);
  return reader.meta_graph(mp::parse(bytes, io::tf_proto::meta_graph_def(), source));
}

// A SavedModel's `saved_model.pb` (binary) or `saved_model.pbtxt` (text).
inline SavedModel parse_saved_model(std::string_view bytes, std::string_view source) {
  namespace mp = detail::meta_graph_proto;
  const mp::Reader reader(std::string(source), mp::encoding_of(bytes) == mp::Encoding::binary);
  SavedModel model;
  model.saved_model_schema_version = 0;
  for (const io::proto::Field& f : mp::parse(bytes, io::tf_proto::saved_model(), source).fields) {
    if (f.name == "saved_model_schema_version")
      model.saved_model_schema_version =
          reader.integer(f, 0, std::numeric_limits<long long>::max());
    if (f.name == "meta_graphs") model.meta_graphs.push_back(reader.meta_graph(reader.message(f)));
  }
  if (model.meta_graphs.empty())
    reader.fail(0, "the SavedModel holds no MetaGraphDef: expected one per tag-set");
  return model;
}

}  // namespace symflow::train
