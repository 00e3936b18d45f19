#pragma once
// A MetaGraphDef as JSON (docs/formats.md): what export_meta_graph writes and
// read_meta_graph_file reads.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "symflow/core/errors.hpp"
#include "symflow/graph/collections.hpp"
#include "symflow/graph/graph.hpp"
#include "symflow/io/graph_def_json.hpp"
#include "symflow/io/json_numbers.hpp"
#include "symflow/train/meta_graph_def.hpp"
#include "symflow/version.hpp"

namespace symflow::train {

namespace detail::meta_graph {

// Non-finite doubles have no JSON spelling: they are written as strings.
inline nlohmann::json number_to_json(double x) {
  if (std::isnan(x)) return "NaN";
  if (std::isinf(x)) return x > 0 ? "Infinity" : "-Infinity";
  return x;
}
inline double number_from_json(const nlohmann::json& j) {
  if (j.is_string()) {
    const auto& s = j.get_ref<const std::string&>();
    if (s == "NaN") return std::nan("");
    if (s == "Infinity") return HUGE_VAL;
    if (s == "-Infinity") return -HUGE_VAL;
  }
  // get<double>() would also take a boolean as 0 or 1: only numbers are numbers here.
  if (!j.is_number())
    throw DataLossError("expected a number or one of \"NaN\", \"Infinity\", \"-Infinity\", got " +
                        io::describe_json(j));
  return j.get<double>();
}

// Bytes that are not UTF-8 (a serialized proto) have no JSON string: they are written as
// {"base64": "..."}; text stays a plain string, as older files have it.
inline nlohmann::json bytes_to_json(const std::string& bytes) {
  if (symflow::detail::graph_json::is_valid_utf8(bytes)) return bytes;
  return {{"base64", symflow::detail::graph_json::base64_encode(bytes.data(), bytes.size())}};
}
inline std::string bytes_from_json(const nlohmann::json& j) {
  if (j.is_string()) return j.get<std::string>();
  bool ok = false;
  std::string bytes =
      symflow::detail::graph_json::base64_decode(j.at("base64").get<std::string>(), ok);
  if (!ok) throw DataLossError("a bytes_list item's \"base64\" is not valid base64");
  return bytes;
}

template <class List>
nlohmann::json list_to_json(const List& list) {
  nlohmann::json values = nlohmann::json::array();
  for (const auto& v : list.value) {
    if constexpr (std::is_same_v<List, FloatList>)
      values.push_back(number_to_json(v));
    else if constexpr (std::is_same_v<List, AnyList>)
      values.push_back(
          {{"type_url", v.type_url},
           {"value", symflow::detail::graph_json::base64_encode(v.value.data(), v.value.size())}});
    else if constexpr (std::is_same_v<List, BytesList>)
      values.push_back(bytes_to_json(v));
    else
      values.push_back(v);
  }
  return {{"value", values}};
}

inline nlohmann::json tensor_info_to_json(const TensorInfo& t) {
  return {{"name", t.name},
          {"dtype", std::string(dtype_enum_name(t.dtype))},
          {"is_ref", t.is_ref},
          {"tensor_shape", symflow::detail::graph_json::shape_to_json(t.tensor_shape)}};
}
inline TensorInfo tensor_info_from_json(const nlohmann::json& j) {
  TensorInfo t;
  t.name = j.at("name").get<std::string>();
  const std::string dtype = j.value("dtype", std::string("DT_INVALID"));
  for (DType d : kAllDTypes)
    if (dtype_enum_name(d) == dtype) t.dtype = d;
  if (t.dtype == DType::invalid && dtype != "DT_INVALID")
    throw DataLossError("a TensorInfo has the unknown dtype '" + dtype + "'");
  t.is_ref = j.value("is_ref", false);
  if (j.contains("tensor_shape"))
    t.tensor_shape =
        symflow::detail::graph_json::shape_from_json(j.at("tensor_shape"), "TensorInfo");
  return t;
}

// The items of the collection `key` as a CollectionDef, each graph element written
// under the name `name_of` gives it. A variable outside the variables collections
// (add_to_collection(key, variable)) is written as TensorFlow writes a tf.Variable
// there: its tensor's name, "v:0". A collection mixing graph elements with plain
// values, or strings with numbers, has no CollectionDef form: a ValueError.
template <class NameOf>
CollectionDef collection_to_def(const std::string& key, const std::vector<CollectionValue>& items,
                                const NameOf& name_of) {
  std::optional<CollectionDef> def;
  auto mixed = [&] {
    return ValueError("Collection '" + key +
                      "' cannot be exported: it mixes kinds of items. A collection holds "
                      "operations and tensors, or strings, or integers, or floats.");
  };
  for (const CollectionValue& item : items) {
    std::visit(
        [&](const auto& x) {
          using X = std::decay_t<decltype(x)>;
          using List = std::conditional_t<
              std::is_same_v<X, Operation> || std::is_same_v<X, Output>, NodeList,
              std::conditional_t<
                  std::is_same_v<X, std::string>, BytesList,
                  std::conditional_t<std::is_same_v<X, std::int64_t>, Int64List, FloatList>>>;
          if (!def) def = List{};
          auto* list = std::get_if<List>(&*def);
          if (!list) throw mixed();
          if constexpr (std::is_same_v<X, Operation>)
            list->value.push_back(name_of(x.type() == "VariableV2" && !holds_variable_defs(key)
                                              ? x.name() + ":0"
                                              : x.name()));
          else if constexpr (std::is_same_v<X, Output>)
            list->value.push_back(name_of(x.name()));
          else
            list->value.push_back(x);
        },
        item);
  }
  return def ? *def : CollectionDef{NodeList{}};
}
inline CollectionDef collection_to_def(const Graph& graph, const std::string& key) {
  return collection_to_def(key, graph.get_collection(key), [](std::string name) { return name; });
}

}  // namespace detail::meta_graph

inline nlohmann::json meta_graph_to_json(const MetaGraphDef& m) {
  using namespace detail::meta_graph;
  nlohmann::json j;
  j["format"] = kMetaGraphFormat;
  j["version"] = kMetaGraphFormatVersion;
  j["meta_info_def"] = {{"meta_graph_version", m.meta_info_def.meta_graph_version},
                        {"tags", m.meta_info_def.tags},
                        {"stripped_op_list", m.meta_info_def.stripped_op_list},
                        {"symflow_version", m.meta_info_def.symflow_version}};
  if (!m.meta_info_def.tensorflow_version.empty())
    j["meta_info_def"]["tensorflow_version"] = m.meta_info_def.tensorflow_version;
  if (!m.meta_info_def.tensorflow_git_version.empty())
    j["meta_info_def"]["tensorflow_git_version"] = m.meta_info_def.tensorflow_git_version;
  j["graph_def"] = io::graph_def_to_json(m.graph_def);
  if (m.saver_def) {
    const SaverDef& s = *m.saver_def;
    j["saver_def"] = {
        {"var_list", s.var_list},
        {"max_to_keep", s.max_to_keep},
        {"keep_checkpoint_every_n_hours", number_to_json(s.keep_checkpoint_every_n_hours)},
        {"sharded", s.sharded},
        {"version", s.version}};
    if (!s.restore_op_name.empty()) {
      j["saver_def"]["filename_tensor_name"] = s.filename_tensor_name;
      j["saver_def"]["save_tensor_name"] = s.save_tensor_name;
      j["saver_def"]["restore_op_name"] = s.restore_op_name;
    }
  }
  nlohmann::json collections = nlohmann::json::object();
  for (const auto& [key, def] : m.collection_def) {
    collections[key] = std::visit(
        [](const auto& list) -> nlohmann::json {
          using L = std::decay_t<decltype(list)>;
          std::string_view kind = std::is_same_v<L, NodeList>    ? "node_list"
                                  : std::is_same_v<L, BytesList> ? "bytes_list"
                                  : std::is_same_v<L, Int64List> ? "int64_list"
                                  : std::is_same_v<L, FloatList> ? "float_list"
                                                                 : "any_list";
          return {{std::string(kind), list_to_json(list)}};
        },
        def);
  }
  j["collection_def"] = collections;
  if (!m.signature_def.empty()) {
    nlohmann::json signatures = nlohmann::json::object();
    for (const auto& [key, sig] : m.signature_def) {
      nlohmann::json inputs = nlohmann::json::object(), outputs = nlohmann::json::object();
      for (const auto& [k, t] : sig.inputs) inputs[k] = tensor_info_to_json(t);
      for (const auto& [k, t] : sig.outputs) outputs[k] = tensor_info_to_json(t);
      signatures[key] = {
          {"inputs", inputs}, {"outputs", outputs}, {"method_name", sig.method_name}};
    }
    j["signature_def"] = signatures;
  }
  if (!m.asset_file_def.empty()) {
    nlohmann::json assets = nlohmann::json::array();
    for (const AssetFileDef& a : m.asset_file_def)
      assets.push_back(
          {{"tensor_info", tensor_info_to_json(a.tensor_info)}, {"filename", a.filename}});
    j["asset_file_def"] = assets;
  }
  return j;
}

// Parses a MetaGraphDef; anything that is not one is a DataLossError naming `source`.
inline MetaGraphDef meta_graph_from_json(const nlohmann::json& j, std::string_view source) {
  using namespace detail::meta_graph;
  std::string where(source);
  std::string field;
  try {
    if (!j.is_object())
      throw DataLossError(where + ": expected a JSON object holding a MetaGraphDef");
    field = "format";
    if (j.at("format").get<std::string>() != kMetaGraphFormat)
      throw DataLossError(where + ": \"format\" is " + j.at("format").dump() + ", expected \"" +
                          std::string(kMetaGraphFormat) + "\"");
    field = "version";
    const int v =
        io::json_integer(j.at("version"), 0, std::numeric_limits<int>::max(), where, "\"version\"");
    if (v != kMetaGraphFormatVersion)
      throw DataLossError(where + ": MetaGraph format version " + std::to_string(v) +
                          " is not supported; this symflow reads version " +
                          std::to_string(kMetaGraphFormatVersion));
    MetaGraphDef m;
    field = "meta_info_def";
    if (j.contains("meta_info_def")) {
      const auto& info = j.at("meta_info_def");
      m.meta_info_def.meta_graph_version = info.value("meta_graph_version", std::string());
      m.meta_info_def.tags = info.value("tags", std::vector<std::string>{});
      m.meta_info_def.stripped_op_list = info.value("stripped_op_list", std::vector<std::string>{});
      m.meta_info_def.symflow_version = info.value("symflow_version", std::string());
      m.meta_info_def.tensorflow_version = info.value("tensorflow_version", std::string());
      m.meta_info_def.tensorflow_git_version = info.value("tensorflow_git_version", std::string());
    }
    field = "graph_def";
    m.graph_def = io::graph_def_from_json(j.at("graph_def"));
    if (j.contains("saver_def")) {
      field = "saver_def";
      const auto& s = j.at("saver_def");
      SaverDef def;
      def.var_list = s.at("var_list").get<std::map<std::string, std::string>>();
      // Saver's counts and enums, in the ranges TensorFlow's SaverDef gives them: max_to_keep
      // is a non-negative int32 (0 keeps every checkpoint), version is LEGACY, V1 or V2.
      def.max_to_keep =
          io::json_integer_field(s, "max_to_keep", 5, 0, std::numeric_limits<int>::max(), where,
                                 "\"saver_def.max_to_keep\"");
      def.keep_checkpoint_every_n_hours =
          s.contains("keep_checkpoint_every_n_hours")
              ? number_from_json(s.at("keep_checkpoint_every_n_hours"))
              : 10000.0;
      def.sharded = io::json_bool_field(s, "sharded", false, where, "\"saver_def.sharded\"");
      def.version = io::json_integer_field(s, "version", 2, 0, 2, where, "\"saver_def.version\"");
      def.filename_tensor_name = s.value("filename_tensor_name", std::string());
      def.save_tensor_name = s.value("save_tensor_name", std::string());
      def.restore_op_name = s.value("restore_op_name", std::string());
      m.saver_def = std::move(def);
    }
    if (j.contains("collection_def")) {
      for (const auto& [key, value] : j.at("collection_def").items()) {
        field = "collection_def." + key;
        if (!value.is_object() || value.size() != 1)
          throw DataLossError(where + ": collection '" + key +
                              "' must hold exactly one of node_list, bytes_list, int64_list, "
                              "float_list");
        auto only = value.begin();
        const std::string& kind = only.key();
        const nlohmann::json& list = only.value();
        const auto& items = list.at("value");
        if (kind == "node_list") {
          m.collection_def[key] = NodeList{items.get<std::vector<std::string>>()};
        } else if (kind == "bytes_list") {
          BytesList bytes;
          for (const auto& x : items) bytes.value.push_back(bytes_from_json(x));
          m.collection_def[key] = std::move(bytes);
        } else if (kind == "int64_list") {
          if (!items.is_array())
            throw DataLossError(where + ": collection '" + key +
                                "' has an int64_list whose \"value\" is not an array");
          Int64List ints;
          for (std::size_t i = 0; i < items.size(); ++i)
            ints.value.push_back(io::json_integer(
                items[i], std::numeric_limits<std::int64_t>::min(),
                std::numeric_limits<std::int64_t>::max(), where,
                "\"collection_def." + key + ".int64_list.value[" + std::to_string(i) + "]\""));
          m.collection_def[key] = std::move(ints);
        } else if (kind == "float_list") {
          FloatList floats;
          for (const auto& x : items) floats.value.push_back(number_from_json(x));
          m.collection_def[key] = std::move(floats);
        } else if (kind == "any_list") {
          AnyList any;
          for (const auto& x : items) {
            bool ok = false;
            std::string bytes =
                symflow::detail::graph_json::base64_decode(x.at("value").get<std::string>(), ok);
            if (!ok)
              throw DataLossError(where + ": collection '" + key +
                                  "' holds an any_list value that is not valid base64");
            any.value.push_back({x.at("type_url").get<std::string>(), std::move(bytes)});
          }
          m.collection_def[key] = std::move(any);
        } else {
          throw DataLossError(where + ": collection '" + key + "' has the unknown kind '" + kind +
                              "'; expected node_list, bytes_list, int64_list, float_list or "
                              "any_list");
        }
      }
    }
    if (j.contains("signature_def")) {
      for (const auto& [key, sig] : j.at("signature_def").items()) {
        field = "signature_def." + key;
        SignatureDef def;
        for (const auto& [k, t] : sig.at("inputs").items())
          def.inputs[k] = tensor_info_from_json(t);
        for (const auto& [k, t] : sig.at("outputs").items())
          def.outputs[k] = tensor_info_from_json(t);
        def.method_name = sig.value("method_name", std::string());
        m.signature_def[key] = std::move(def);
      }
    }
    if (j.contains("asset_file_def")) {
      field = "asset_file_def";
      for (const auto& a : j.at("asset_file_def"))
        m.asset_file_def.push_back(
            {tensor_info_from_json(a.at("tensor_info")), a.at("filename").get<std::string>()});
    }
    return m;
  } catch (const nlohmann::json::exception& e) {
    throw DataLossError(where + ": malformed MetaGraphDef at \"" + field + "\": " + e.what());
  } catch (const DataLossError& e) {
    // Bytes and dtypes report what is wrong; this adds the file and the field.
    if (e.message().starts_with(where)) throw;
    throw DataLossError(where + ": malformed MetaGraphDef at \"" + field + "\": " + e.message());
  }
}

// The text of a symflow .meta file: the JSON of `m` with its checksum (docs/formats.md),
// indented by one space when `as_text`, else on one line.
inline std::string serialize_meta_graph_json(const MetaGraphDef& m, bool as_text) {
  nlohmann::json j = meta_graph_to_json(m);
  io::add_json_checksum(j);
  return j.dump(as_text ? 1 : -1);
}

// Parses the text of a symflow .meta file: JSON that is not valid, a checksum that does not
// match and content that is not a MetaGraphDef are each a DataLossError naming `source`. A
// file without a checksum (written before files had one) is read as it is.
inline MetaGraphDef parse_meta_graph_json(std::string_view text, std::string_view source) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded())
    throw DataLossError(std::string(source) +
                        ": not valid JSON; expected a MetaGraphDef written by "
                        "export_meta_graph or Saver::save, or TensorFlow's binary or text "
                        "MetaGraphDef");
  io::verify_json_checksum(j, source);
  return meta_graph_from_json(j, source);
}

}  // namespace symflow::train
