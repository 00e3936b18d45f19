#pragma once
// Saver: TensorFlow 1.x's tf.train.Saver. save() writes a checkpoint (PREFIX.index and
// PREFIX.data-00000-of-00001, see io/checkpoint_bundle.hpp), the graph's MetaGraph
// (PREFIX.meta) and the directory's `checkpoint` state file, and deletes checkpoints
// beyond max_to_keep; restore() puts the saved values back into a session's variables.
// Files are symflow's, or TensorFlow's with SaverOptions::format; restore() reads both.
//
// Crash safety: every file is written under a temporary name and renamed into place,
// in the order .meta, .data, .index, `checkpoint`; old checkpoints are deleted only
// after the state file stops naming them. Killed at any point, a save leaves the
// previous checkpoint whole and still found by latest_checkpoint().
//
// train/saver_inl.hpp defines what this header declares.

#include <chrono>
#include <concepts>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "symflow/core/errors.hpp"
#include "symflow/detail/config.hpp"
#include "symflow/runtime/session.hpp"
#include "symflow/train/checkpoint_state.hpp"
#include "symflow/train/meta_graph.hpp"
#include "symflow/variables/variable.hpp"

namespace symflow::train {

struct SaverOptions {
  // How many recent checkpoints to keep; older ones are deleted. 0 keeps every file,
  // tracks none (last_checkpoints() stays empty) and the state file lists only the
  // newest, as in TensorFlow.
  int max_to_keep = 5;
  // Also keep one checkpoint per this many hours, whatever max_to_keep says.
  double keep_checkpoint_every_n_hours = 10000.0;
  // Whether a Saver with no variables is allowed (save() then writes only the `.meta`
  // and returns "", restore() does nothing).
  bool allow_empty = false;
  // The files save() writes: symflow's, or TensorFlow's V2 checkpoint and binary `.meta`
  // (which TensorFlow's tf.train.import_meta_graph and Saver.restore read).
  FileFormat format = FileFormat::symflow;
  // Write the global step with eight digits ("model-00000003"), so that the files of a
  // directory listing sort by step.
  bool pad_step_number = false;
  // restore() accepts a saved value of another shape with the same number of elements
  // and reshapes it to the variable's shape.
  bool reshape = false;
};

// The per-call options of Saver::save, TensorFlow's keyword arguments.
struct SaveOptions {
  std::string latest_filename = "checkpoint";  // the state file's name in the directory
  std::string meta_graph_suffix = "meta";
  bool write_meta_graph = true;
  bool write_state = true;  // update the state file (and so latest_checkpoint)
};

class Saver {
 public:
  using VarMap = std::map<std::string, Variable>;

  // Saves every global variable of the default graph.
  explicit Saver(const SaverOptions& options = {}) : Saver(global_variables(), options) {}
  // Saves these variables, each under its node name ("dense/kernel"). (A template so
  // that a braced list goes to the overload below and `Saver({.max_to_keep = 2})` to
  // the options: a Variable can be made from a number.)
  template <std::same_as<std::vector<Variable>> VarList>
  explicit Saver(const VarList& var_list, const SaverOptions& options = {})
      : Saver(by_name(var_list), options) {}
  // Saver({a, b}): the same for a list of variables written in place.
  explicit Saver(std::initializer_list<std::reference_wrapper<const Variable>> var_list,
                 const SaverOptions& options = {})
      : Saver(std::vector<Variable>(var_list.begin(), var_list.end()), options) {}
  // Saves each variable under the name given ("checkpoint name" -> variable).
  explicit Saver(VarMap var_list, const SaverOptions& options = {})
      : var_list_(std::move(var_list)), options_(options) {
    if (var_list_.empty() && !options_.allow_empty) throw ValueError("No variables to save");
    std::set<std::string> variables_seen;
    for (const auto& [name, v] : var_list_) {
      if (!v.valid()) throw ValueError("Saver: the variable for '" + name + "' is an empty handle");
      // Checked in name order, as TensorFlow does: the error names the later name.
      if (!variables_seen.insert(v.op().name()).second)
        throw ValueError("The same saveable will be restored with two names: " + name);
      if (graph_ && !(v.graph() == *graph_))
        throw ValueError("Saver: variable " + v.op().name() +
                         " is from another graph than the other variables");
      graph_ = v.graph();
    }
    next_keep_time_ = now() + hours(options_.keep_checkpoint_every_n_hours);
  }

  // The Saver a SaverDef describes, over the variables of `graph` it names
  // (import_meta_graph's way; `prefix` is the import scope, "" or "scope/").
  // A SaverDef TensorFlow wrote names its ops instead of variables: the Saver runs them,
  // as TensorFlow's does, feeding the checkpoint prefix to its filename tensor.
  static Saver from_saver_def(const SaverDef& def, const Graph& graph,
                              const std::string& prefix = {}) {
    if (def.var_list.empty() && !def.restore_op_name.empty()) {
      Saver saver(VarMap{}, {.max_to_keep = def.max_to_keep,
                             .keep_checkpoint_every_n_hours = def.keep_checkpoint_every_n_hours,
                             .allow_empty = true});
      saver.graph_ = graph;
      saver.graph_ops_ = def;
      for (std::string* name :
           {&saver.graph_ops_.filename_tensor_name, &saver.graph_ops_.save_tensor_name,
            &saver.graph_ops_.restore_op_name}) {
        *name = prefix + *name;
        const std::string node = name->substr(0, name->find(':'));
        if (!graph.state().find(node))
          throw NotFoundError("SaverDef names '" + *name + "', which is not in the graph");
      }
      return saver;
    }
    VarMap vars;
    for (const auto& [name, node] : def.var_list) {
      auto id = graph.state().find(prefix + node);
      if (!id)
        throw NotFoundError("SaverDef names the variable '" + prefix + node +
                            "', which is not in the graph");
      vars.emplace(name, Variable::from_op(Operation(graph.state_ptr(), *id)));
    }
    return Saver(std::move(vars),
                 {.max_to_keep = def.max_to_keep,
                  .keep_checkpoint_every_n_hours = def.keep_checkpoint_every_n_hours,
                  .allow_empty = true});
  }

  // Writes a checkpoint of the session's variables at `save_path` (a path prefix such
  // as "ckpt/model") and returns its prefix. A Saver with no variables (allow_empty)
  // writes only the `.meta` and returns "" (TensorFlow's None). A `save_path` whose
  // file name is the state file's is a ValueError.
  std::string save(Session& sess, const std::string& save_path, const SaveOptions& options = {}) {
    check_latest_filename(options);
    if (std::filesystem::path(save_path).filename() == options.latest_filename)
      throw ValueError("'latest_filename' collides with 'save_path': '" + options.latest_filename +
                       "' and '" + save_path + "'");
    return save_at(sess, save_path, save_path, options);
  }
  // The same at "<save_path>-<global_step>" (the step with eight digits under
  // pad_step_number).
  std::string save(Session& sess, const std::string& save_path, std::int64_t global_step,
                   const SaveOptions& options = {}) {
    check_latest_filename(options);
    return save_at(sess, save_path, save_path + "-" + step_suffix(global_step), options);
  }
  // The same with the step read from a scalar integer tensor (the global step variable).
  std::string save(Session& sess, const std::string& save_path, const Output& global_step,
                   const SaveOptions& options = {}) {
    Value step = sess.run(global_step);
    if (step.rank() != 0 || !is_integer(step.dtype()))
      throw TypeError("global_step must be an integer scalar, got " + to_string(global_step));
    std::int64_t n =
        step.dtype() == DType::int64 ? step.scalar<std::int64_t>() : step.scalar<std::int32_t>();
    return save(sess, save_path, n, options);
  }

  // Puts the values saved at `save_path` into the session's variables. Every value is
  // read and checked before the first variable changes: a failed restore changes none.
  // A saved shape that differs from the variable's is TensorFlow's InvalidArgumentError
  // "Assign requires shapes of both tensors to match" (unless SaverOptions::reshape);
  // an empty Saver restores nothing.
  void restore(Session& sess, const std::string& save_path) const;

  // The checkpoints this Saver keeps, oldest first.
  std::vector<std::string> last_checkpoints() const {
    std::vector<std::string> out;
    for (const auto& [path, time] : last_checkpoints_) out.push_back(path);
    return out;
  }
  // Takes over checkpoints written by an earlier Saver (after a restart), so that
  // max_to_keep counts them; the ones that no longer exist are dropped.
  void recover_last_checkpoints(const std::vector<std::string>& paths);

  SaverDef as_saver_def() const {
    SaverDef def = graph_ops_;
    for (const auto& [name, v] : var_list_) def.var_list.emplace(name, v.op().name());
    def.max_to_keep = options_.max_to_keep;
    def.keep_checkpoint_every_n_hours = options_.keep_checkpoint_every_n_hours;
    return def;
  }

  // Exports the MetaGraph of the Saver's graph, with this Saver in it.
  MetaGraphDef export_meta_graph(const std::string& filename = {},
                                 ExportMetaGraphOptions options = {}) const {
    if (!options.graph) options.graph = graph();
    if (!options.saver_def) options.saver_def = as_saver_def();
    // A Saver running TensorFlow's ops, or asked to, writes TensorFlow's MetaGraphDef.
    if (runs_graph_ops() || options_.format == FileFormat::tensorflow)
      options.format = FileFormat::tensorflow;
    return train::export_meta_graph(filename, options);
  }

  const VarMap& var_list() const { return var_list_; }
  // Whether this Saver runs TensorFlow's save and restore ops (from_saver_def).
  bool runs_graph_ops() const { return !graph_ops_.restore_op_name.empty(); }
  // The graph of the variables (the default graph for an empty Saver).
  Graph graph() const { return graph_ ? *graph_ : get_default_graph(); }

 private:
  using Clock = std::chrono::system_clock;
  static Clock::time_point now() { return Clock::now(); }
  static Clock::duration hours(double h) {
    // Clamped: the default 10000 hours must not overflow the clock.
    double seconds = std::min(h * 3600.0, 1e12);
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  }

  static VarMap by_name(const std::vector<Variable>& vars) {
    VarMap map;
    for (const Variable& v : vars) {
      if (!v.valid()) throw ValueError("Saver: var_list holds an empty variable handle");
      if (!map.emplace(v.op().name(), v).second)
        throw ValueError("At least two variables have the same name: " + v.op().name());
    }
    return map;
  }

  static void check_latest_filename(const SaveOptions& options) {
    if (std::filesystem::path(options.latest_filename).has_parent_path())
      throw ValueError("'latest_filename' must not contain path components");
  }

  std::string step_suffix(std::int64_t global_step) const {
    if (!options_.pad_step_number) return std::to_string(global_step);
    // Python's "{:08d}": the sign counts toward the eight characters.
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%08lld", static_cast<long long>(global_step));
    return buffer;
  }

  // A Saver with nothing to save or restore (allow_empty, and no TensorFlow ops to run).
  bool is_empty() const { return var_list_.empty() && !runs_graph_ops(); }

  void check_session(const Session& sess) const {
    if (graph_ && !(sess.graph() == *graph_))
      throw ValueError("Saver: the session runs another graph than the one of the variables");
  }

  std::string save_at(Session& sess, const std::string& save_path, const std::string& prefix,
                      const SaveOptions& options);

  // Adds `prefix` as the newest checkpoint and returns those that fall out of the
  // max_to_keep window (minus the ones kept by keep_checkpoint_every_n_hours).
  std::vector<std::string> record(const std::string& prefix) {
    std::vector<std::string> out;
    if (options_.max_to_keep <= 0) return out;  // keeps every file and tracks none
    std::erase_if(last_checkpoints_, [&](const auto& p) { return p.first == prefix; });
    last_checkpoints_.emplace_back(prefix, now());
    while (last_checkpoints_.size() > static_cast<std::size_t>(options_.max_to_keep)) {
      auto [path, time] = last_checkpoints_.front();
      last_checkpoints_.erase(last_checkpoints_.begin());
      if (time >= next_keep_time_) {
        next_keep_time_ += hours(options_.keep_checkpoint_every_n_hours);
        continue;  // preserved for good
      }
      out.push_back(path);
    }
    return out;
  }

  static void delete_checkpoint(const std::string& prefix, const std::string& meta_suffix);

  VarMap var_list_;
  SaverDef graph_ops_;  // only the op names, for a TensorFlow SaverDef
  SaverOptions options_;
  std::optional<Graph> graph_;
  std::vector<std::pair<std::string, Clock::time_point>> last_checkpoints_;
  Clock::time_point next_keep_time_;
};

// The Savers of a collection of the default graph (or of `graph`): TensorFlow's
// get_collection(GraphKeys.SAVERS). The collection keeps each Saver as its serialized
// SaverDef (add_to_collection below); an item that is not one is a TypeError.
inline std::vector<Saver> savers_in(std::string_view key = GraphKeys::SAVERS,
                                    const Graph& graph = get_default_graph()) {
  std::vector<Saver> out;
  for (const CollectionValue& item : graph.get_collection(key)) {
    const auto* bytes = std::get_if<std::string>(&item);
    if (!bytes)
      throw TypeError("Collection '" + std::string(key) + "' holds an item that is not a Saver");
    out.push_back(Saver::from_saver_def(parse_saver_def(*bytes), graph));
  }
  return out;
}

}  // namespace symflow::train

namespace symflow {

// tf.add_to_collection(key, saver): the collection keeps the Saver's SaverDef, which
// export_meta_graph writes as TensorFlow does (a bytes_list of SaverDefs) and
// train::savers_in turns back into Savers, after import_meta_graph too.
inline void add_to_collection(std::string_view key, const train::Saver& saver) {
  get_default_graph().add_to_collection(key, train::serialize_saver_def(saver.as_saver_def()));
}

}  // namespace symflow

#if !defined(SYMFLOW_COMPILED)
#include "symflow/train/saver_inl.hpp"
#endif
