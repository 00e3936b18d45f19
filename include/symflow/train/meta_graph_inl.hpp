#pragma once
// export_meta_graph's and read_meta_graph_file's definitions (train/meta_graph.hpp
// declares them): included by that header in a header-only program, and by
// symflow/define_compiled.hpp alone in a program built with SYMFLOW_COMPILED.

#include <algorithm>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "symflow/detail/config.hpp"
#include "symflow/io/atomic_file.hpp"
#include "symflow/io/protobuf_binary.hpp"
#include "symflow/io/tf_protos.hpp"
#include "symflow/train/meta_graph.hpp"
#include "symflow/train/meta_graph_json.hpp"
#include "symflow/train/meta_graph_proto.hpp"
#include "symflow/variables/variable.hpp"

namespace symflow::train {

namespace detail::meta_graph {

// `name` without the leading "scope/" (or "scope//"), also after a "^" or a "loc:@" --
// the first such place only, as TensorFlow's strip_name_scope. An empty scope changes
// nothing.
inline std::string strip_name_scope(const std::string& name, std::string_view scope) {
  if (scope.ends_with('/')) scope.remove_suffix(1);
  if (scope.empty()) return name;
  auto scope_at = [&](std::size_t at) -> std::size_t {  // end of "scope/+", or npos
    if (name.compare(at, scope.size(), scope) != 0) return std::string::npos;
    std::size_t end = at + scope.size();
    if (end >= name.size() || name[end] != '/') return std::string::npos;
    while (end < name.size() && name[end] == '/') ++end;
    return end;
  };
  for (std::size_t p = 0; p < name.size(); ++p) {
    std::size_t after = std::string::npos;
    if (name[p] == '^')
      after = p + 1;
    else if (name.compare(p, 5, "loc:@") == 0)
      after = p + 5;
    if (after != std::string::npos) {
      const std::size_t end = scope_at(after);
      if (end != std::string::npos) return name.substr(0, after) + name.substr(end);
    }
    if (p == 0) {
      const std::size_t end = scope_at(0);
      if (end != std::string::npos) return name.substr(end);
    }
  }
  return name;
}

// TensorFlow keeps a node when its name starts with the scope: a plain string prefix,
// so the scope "s" keeps "s/x" and also "save/x".
inline bool in_scope(std::string_view name, std::string_view scope) {
  return scope.empty() || name.starts_with(scope) || name.starts_with(kUnboundInputPrefix);
}

// A node of the exported scope: names stripped of the scope; an input from outside it
// is marked unbound and recorded in `unbound`.
inline NodeDef scoped_node(NodeDef node, std::string_view scope,
                           std::vector<std::string>& unbound) {
  node.name = strip_name_scope(node.name, scope);
  for (std::string& input : node.input) {
    const bool control = input.starts_with('^');
    if (std::string_view(input).substr(control ? 1 : 0).starts_with(scope)) {
      input = strip_name_scope(input, scope);
    } else {
      input = (control ? "^" : "") + std::string(kUnboundInputPrefix) + input.substr(control);
      unbound.push_back(input);
    }
  }
  auto colocation = node.attr.find("_class");
  if (colocation != node.attr.end())
    if (auto* list = std::get_if<StringList>(&colocation->second))
      for (std::string& item : list->items) item = strip_name_scope(item, scope);
  return node;
}

// A variables collection as TensorFlow writes it: one serialized VariableDef per
// variable of the scope, naming its ref, initializer, snapshot and initial value.
inline BytesList variable_defs(const Graph& graph, const std::string& key, std::string_view scope) {
  std::set<std::string> trainable;
  for (const Variable& v : variables_in(GraphKeys::TRAINABLE_VARIABLES, graph))
    trainable.insert(v.op().name());
  BytesList out;
  for (const Variable& v : variables_in(key, graph)) {
    if (!in_scope(v.name(), scope)) continue;
    io::proto::Message def;
    auto add = [&](std::string_view name, std::string value, bool is_string) {
      io::proto::Field& f = def.fields.emplace_back();
      f.name = std::string(name);
      f.is_string = is_string;
      f.scalar = std::move(value);
    };
    add("variable_name", strip_name_scope(v.name(), scope), true);
    add("initializer_name", strip_name_scope(v.initializer().name(), scope), true);
    add("snapshot_name", strip_name_scope(v.value().name(), scope), true);
    add("initial_value_name", strip_name_scope(v.initial_value().name(), scope), true);
    add("trainable", trainable.count(v.op().name()) ? "true" : "false", false);
    out.value.push_back(io::proto::encode(def, io::tf_proto::variable_def()));
  }
  return out;
}

// A Saver of the SAVERS collection as exported under `scope`: its names stripped, or
// nullopt when it saves something outside the scope (TensorFlow's Saver.to_proto).
inline std::optional<std::string> scoped_saver_def(const std::string& bytes,
                                                   std::string_view scope) {
  if (scope.empty()) return bytes;
  SaverDef def = parse_saver_def(bytes);
  if (def.var_list.empty()) {
    for (std::string* name :
         {&def.filename_tensor_name, &def.save_tensor_name, &def.restore_op_name}) {
      if (!name->starts_with(scope)) return std::nullopt;
      *name = strip_name_scope(*name, scope);
    }
  } else {
    for (auto& [checkpoint_name, node] : def.var_list) {
      if (!node.starts_with(scope)) return std::nullopt;
      node = strip_name_scope(node, scope);
    }
  }
  return serialize_saver_def(def);
}

// The CollectionDef of `key` under `scope`, or nullopt when it has nothing to write
// there. A collection with no CollectionDef form is skipped with TensorFlow's warning,
// and the rest of the MetaGraph is written.
inline std::optional<CollectionDef> scoped_collection_def(const Graph& graph,
                                                          const std::string& key,
                                                          std::string_view scope) {
  try {
    std::vector<CollectionValue> items;
    for (CollectionValue& item : graph.get_collection(key)) {
      // Only names are matched against the scope; numbers always stay.
      if (const auto* op = std::get_if<Operation>(&item)) {
        if (!in_scope(op->name(), scope)) continue;
      } else if (const auto* tensor = std::get_if<Output>(&item)) {
        if (!in_scope(tensor->name(), scope)) continue;
      } else if (auto* text = std::get_if<std::string>(&item)) {
        // A Saver (its serialized SaverDef) is kept when it saves inside the scope; any
        // other string is matched as a name, as TensorFlow does.
        if (key == GraphKeys::SAVERS) {
          std::optional<std::string> def = scoped_saver_def(*text, scope);
          if (!def) continue;
          *text = std::move(*def);
        } else if (!in_scope(*text, scope)) {
          continue;
        }
      }
      items.push_back(std::move(item));
    }
    // An empty collection is not written, as in TensorFlow.
    if (items.empty()) return std::nullopt;
    return collection_to_def(
        key, items, [&](const std::string& name) { return strip_name_scope(name, scope); });
  } catch (const Error& e) {
    std::cerr << "WARNING: Issue encountered when serializing " << key
              << ".\nType is unsupported, or the types of the items don't match field type in "
                 "CollectionDef. Note this is a warning and probably safe to ignore.\n"
              << e.message() << "\n";
    return std::nullopt;
  }
}

}  // namespace detail::meta_graph

// Builds the MetaGraphDef of a graph and, when `filename` is not empty, writes it
// there atomically (tf.train.export_meta_graph).
SYMFLOW_INLINE MetaGraphDef export_meta_graph(const std::string& filename,
                                              const ExportMetaGraphOptions& options) {
  namespace mg = detail::meta_graph;
  Graph graph = options.graph ? *options.graph : get_default_graph();
  // Matched as a plain prefix, as TensorFlow does: "s" also takes "save/x" and "s_1/x",
  // "s/" only "s/x".
  const std::string& scope = options.export_scope;
  MetaGraphDef m;
  std::vector<std::string> unbound;
  if (scope.empty()) {
    m.graph_def = graph.as_graph_def();
  } else {
    GraphDef all = graph.as_graph_def();
    m.graph_def.producer = all.producer;
    for (NodeDef& node : all.node)
      if (node.name.starts_with(scope))
        m.graph_def.node.push_back(mg::scoped_node(std::move(node), scope, unbound));
  }
  std::set<std::string> ops;
  for (NodeDef& node : m.graph_def.node) {
    ops.insert(node.op);
    if (options.clear_devices) node.device.clear();
  }
  m.meta_info_def.stripped_op_list.assign(ops.begin(), ops.end());
  // TensorFlow writes the given SaverDef as it is; symflow's own var_list names nodes,
  // which move with the scope (a variable outside it is left out).
  m.saver_def = options.saver_def;
  if (m.saver_def && !scope.empty()) {
    std::map<std::string, std::string> kept;
    for (const auto& [checkpoint_name, node] : m.saver_def->var_list)
      if (node.starts_with(scope)) kept.emplace(checkpoint_name, mg::strip_name_scope(node, scope));
    m.saver_def->var_list = std::move(kept);
  }
  std::vector<std::string> existing = graph.get_all_collection_keys();
  std::vector<std::string> keys = existing;
  if (options.collection_list) {
    keys.clear();
    for (const CollectionKey& k : *options.collection_list) keys.push_back(k.name);
  }
  // The inputs read from outside the scope, which an importer must be given.
  const bool wants_unbound =
      std::find(keys.begin(), keys.end(), mg::kUnboundInputsKey) != keys.end() ||
      !options.collection_list;
  for (const std::string& key : keys) {
    // Names of absent collections are skipped, as TensorFlow does.
    if (std::find(existing.begin(), existing.end(), key) == existing.end()) continue;
    if (!scope.empty() && key == mg::kUnboundInputsKey) continue;  // rewritten below
    if (auto def = mg::scoped_collection_def(graph, key, scope)) m.collection_def[key] = *def;
  }
  // Its items are matched against the scope too: a control input ("^$unbound_inputs_x")
  // is left out of the list, as TensorFlow leaves it.
  std::erase_if(unbound, [&](const std::string& name) { return !mg::in_scope(name, scope); });
  if (!unbound.empty() && wants_unbound)
    m.collection_def[std::string(mg::kUnboundInputsKey)] = BytesList{unbound};
  if (options.format == FileFormat::tensorflow) {
    // TensorFlow keeps its variables collections as VariableDefs, not node names.
    for (auto& [key, def] : m.collection_def)
      if (detail::meta_graph::holds_variable_defs(key))
        def = detail::meta_graph::variable_defs(graph, key, scope);
    if (!filename.empty())
      io::write_file_atomically(filename, serialize_tf_meta_graph(m, options.as_text));
    return m;
  }
  if (!filename.empty())
    io::write_file_atomically(filename, serialize_meta_graph_json(m, options.as_text));
  return m;
}

namespace detail::meta_graph {

// tensorflow.SaverDef with symflow's var_list as field 100 (checkpoint name -> node).
inline constexpr io::proto::FieldDesc kVarListEntryFields[] = {
    {1, "key", io::proto::Kind::string},
    {2, "value", io::proto::Kind::string},
};
inline const io::proto::MessageDesc& var_list_entry() {
  static constexpr io::proto::MessageDesc d{"symflow.SaverDef.VarListEntry", kVarListEntryFields};
  return d;
}
inline constexpr io::proto::FieldDesc kSaverDefFields[] = {
    {1, "filename_tensor_name", io::proto::Kind::string},
    {2, "save_tensor_name", io::proto::Kind::string},
    {3, "restore_op_name", io::proto::Kind::string},
    {4, "max_to_keep", io::proto::Kind::int32},
    {5, "sharded", io::proto::Kind::boolean},
    {6, "keep_checkpoint_every_n_hours", io::proto::Kind::float32},
    {7, "version", io::proto::Kind::enumeration, false, nullptr, &io::tf_proto::kSaverVersion},
    {100, "var_list", io::proto::Kind::message, true, &var_list_entry},
};
inline const io::proto::MessageDesc& saver_def_with_var_list() {
  static constexpr io::proto::MessageDesc d{"tensorflow.SaverDef", kSaverDefFields};
  return d;
}

}  // namespace detail::meta_graph

SYMFLOW_INLINE std::string serialize_saver_def(const SaverDef& def) {
  io::proto::Message m;
  auto add = [&](io::proto::Message& to, std::string_view name, std::string value, bool is_string) {
    io::proto::Field& f = to.fields.emplace_back();
    f.name = std::string(name);
    f.is_string = is_string;
    f.scalar = std::move(value);
  };
  add(m, "filename_tensor_name", def.filename_tensor_name, true);
  add(m, "save_tensor_name", def.save_tensor_name, true);
  add(m, "restore_op_name", def.restore_op_name, true);
  add(m, "max_to_keep", std::to_string(def.max_to_keep), false);
  add(m, "sharded", def.sharded ? "true" : "false", false);
  std::ostringstream hours;
  hours << std::setprecision(9) << def.keep_checkpoint_every_n_hours;
  add(m, "keep_checkpoint_every_n_hours", hours.str(), false);
  const auto* version = io::tf_proto::kSaverVersion.by_number(def.version);
  add(m, "version", version ? std::string(version->name) : std::to_string(def.version), false);
  for (const auto& [checkpoint_name, node] : def.var_list) {
    io::proto::Field& entry = m.fields.emplace_back();
    entry.name = "var_list";
    entry.is_message = true;
    entry.message = std::make_shared<io::proto::Message>();
    add(*entry.message, "key", checkpoint_name, true);
    add(*entry.message, "value", node, true);
  }
  return io::proto::encode(m, detail::meta_graph::saver_def_with_var_list());
}

SYMFLOW_INLINE SaverDef parse_saver_def(std::string_view bytes) {
  const io::proto::Message m =
      io::proto::decode(bytes, detail::meta_graph::saver_def_with_var_list(), "a SaverDef");
  // Absent fields are protobuf's zeros, as TensorFlow reads them.
  SaverDef def;
  def.max_to_keep = 0;
  def.keep_checkpoint_every_n_hours = 0;
  def.version = 0;
  auto number = [](const io::proto::Field& f) {
    try {
      return std::stod(f.scalar);
    } catch (const std::exception&) {
      throw DataLossError("a SaverDef's " + f.name + " is not a number: '" + f.scalar + "'");
    }
  };
  for (const io::proto::Field& f : m.fields) {
    if (f.name == "filename_tensor_name") def.filename_tensor_name = f.scalar;
    if (f.name == "save_tensor_name") def.save_tensor_name = f.scalar;
    if (f.name == "restore_op_name") def.restore_op_name = f.scalar;
    if (f.name == "max_to_keep") def.max_to_keep = static_cast<int>(number(f));
    if (f.name == "sharded") def.sharded = f.scalar == "true" || f.scalar == "1";
    if (f.name == "keep_checkpoint_every_n_hours") def.keep_checkpoint_every_n_hours = number(f);
    if (f.name == "version") {
      const auto* known = io::tf_proto::kSaverVersion.by_name(f.scalar);
      def.version = known ? known->number : static_cast<int>(number(f));
    }
    if (f.name == "var_list" && f.message) {
      std::string key, value;
      for (const io::proto::Field& e : f.message->fields) {
        if (e.name == "key") key = e.scalar;
        if (e.name == "value") value = e.scalar;
      }
      def.var_list.emplace(std::move(key), std::move(value));
    }
  }
  return def;
}

// Reads a MetaGraphDef file in any encoding: symflow's JSON, or TensorFlow's protobuf
// binary or text. NotFoundError when it is missing, DataLossError when it is not a
// MetaGraphDef.
SYMFLOW_INLINE MetaGraphDef read_meta_graph_file(const std::string& filename) {
  // TensorFlow's IOError texts: "File does not exist. ..." and "Cannot parse file ...".
  std::error_code ec;
  if (!std::filesystem::exists(filename, ec))
    throw NotFoundError("File does not exist. Received: " + filename + ".");
  return parse_meta_graph(io::read_file(filename), filename);
}

SYMFLOW_INLINE MetaGraphDef parse_meta_graph(std::string_view bytes, const std::string& source) {
  try {
    namespace mp = detail::meta_graph_proto;
    if (mp::encoding_of(bytes) != mp::Encoding::json) return parse_tf_meta_graph(bytes, source);
    return parse_meta_graph_json(bytes, source);
  } catch (const DataLossError& e) {
    throw DataLossError("Cannot parse file " + source + ": " + e.message());
  }
}

}  // namespace symflow::train
