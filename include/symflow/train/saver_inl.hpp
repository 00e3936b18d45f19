#pragma once
// Saver's checkpoint reading and writing (train/saver.hpp declares them): included by that
// header in a header-only program, and by symflow/define_compiled.hpp alone in a program
// built with SYMFLOW_COMPILED.

#include <chrono>
#include <concepts>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "symflow/detail/config.hpp"
#include "symflow/io/checkpoint_bundle.hpp"
#include "symflow/train/saver.hpp"

namespace symflow::train {

namespace detail::saver {

// A shape as TensorFlow's kernels print it: "[3,2]", "[]".
inline std::string kernel_shape_string(const Dims& dims) {
  std::string out = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (i) out += ",";
    out += dims[i] < 0 ? std::string("?") : std::to_string(dims[i]);
  }
  return out + "]";
}

}  // namespace detail::saver

SYMFLOW_INLINE void Saver::restore(Session& sess, const std::string& save_path) const {
  check_session(sess);
  if (is_empty()) return;  // nothing to restore, whatever the path names
  if (!io::bundle_exists(save_path))
    throw ValueError("The passed save_path is not a valid checkpoint: " + save_path);
  if (runs_graph_ops()) {
    sess.run({Fetch(graph_ops_.restore_op_name)},
             {{graph_ops_.filename_tensor_name, Value(save_path)}});
    return;
  }
  io::BundleReader reader(save_path);
  std::vector<std::pair<const Variable*, Value>> values;
  for (const auto& [name, v] : var_list_) {
    auto it = reader.entries().find(name);
    if (it == reader.entries().end())
      throw NotFoundError("Key " + name + " not found in checkpoint " + save_path);
    const io::BundleEntry& e = it->second;
    if (e.dtype != v.dtype())
      throw InvalidArgumentError("tensor_name = " + name + "; expected dtype " +
                                 std::string(dtype_name(v.dtype())) +
                                 " does not equal original dtype " +
                                 (e.dtype == DType::invalid ? io::bundle_dtype_name(e)
                                                            : std::string(dtype_name(e.dtype))) +
                                 " in checkpoint " + save_path);
    const Shape& shape = v.shape();
    if (options_.reshape && shape.is_fully_defined() && !shape.is_compatible_with(e.shape)) {
      // TensorFlow reshapes the saved tensor before assigning it.
      if (symflow::num_elements(e.shape) != shape.num_elements())
        throw InvalidArgumentError(
            "Input to reshape is a tensor with " + std::to_string(symflow::num_elements(e.shape)) +
                " values, but the requested shape has " + std::to_string(shape.num_elements()) +
                " (restoring '" + name + "' from checkpoint " + save_path + ")",
            v.op().name());
      values.emplace_back(&v, reader.read(name).reshaped(shape.dims()));
      continue;
    }
    if (!shape.is_compatible_with(e.shape))
      throw InvalidArgumentError(
          "Restoring from checkpoint failed. This is most likely due to a mismatch between "
          "the current graph and the graph from the checkpoint. Please ensure that you have "
          "not altered the graph expected based on the checkpoint. Original error:\n\n"
          "Assign requires shapes of both tensors to match. lhs shape= " +
              detail::saver::kernel_shape_string(shape.dims()) +
              " rhs shape= " + detail::saver::kernel_shape_string(e.shape) + " (variable " +
              v.op().name() + ", key '" + name + "' of checkpoint " + save_path + ")",
          v.op().name());
    values.emplace_back(&v, reader.read(name));
  }
  for (auto& [v, value] : values) sess.load_variable(v->op(), value);
}

SYMFLOW_INLINE void Saver::recover_last_checkpoints(const std::vector<std::string>& paths) {
  last_checkpoints_.clear();
  for (const std::string& p : paths)
    if (io::bundle_exists(p)) last_checkpoints_.emplace_back(p, now());
}

SYMFLOW_INLINE std::string Saver::save_at(Session& sess, const std::string& save_path,
                                          const std::string& prefix, const SaveOptions& options) {
  check_session(sess);
  namespace fs = std::filesystem;
  fs::path parent = fs::path(prefix).parent_path();
  std::error_code ec;
  if (!parent.empty() && !fs::is_directory(parent, ec))
    throw NotFoundError("Parent directory of " + save_path + " doesn't exist, can't save.");

  // An empty Saver writes the MetaGraph alone, no checkpoint and no state.
  if (is_empty()) {
    if (options.write_meta_graph) export_meta_graph(prefix + "." + options.meta_graph_suffix);
    return {};
  }

  // The .meta first and the index last: whatever exists after a crash, the state
  // file never names a checkpoint with a missing part.
  if (runs_graph_ops()) {
    // TensorFlow's save op writes the index last too (SaveV2, then MergeV2Checkpoints).
    if (options.write_meta_graph) export_meta_graph(prefix + "." + options.meta_graph_suffix);
    sess.run({Fetch(graph_ops_.save_tensor_name)},
             {{graph_ops_.filename_tensor_name, Value(prefix)}});
  } else {
    std::vector<Fetch> fetches;
    for (const auto& [name, v] : var_list_) fetches.emplace_back(v.ref());
    std::vector<Value> values = fetches.empty() ? std::vector<Value>{} : sess.run(fetches);
    std::vector<std::pair<std::string, Value>> tensors;
    std::size_t i = 0;
    for (const auto& [name, v] : var_list_) tensors.emplace_back(name, std::move(values[i++]));
    if (options.write_meta_graph) export_meta_graph(prefix + "." + options.meta_graph_suffix);
    if (options_.format == FileFormat::tensorflow)
      io::write_tf_bundle(prefix, tensors);
    else
      io::write_bundle(prefix, tensors);
  }

  std::vector<std::string> to_delete = record(prefix);
  if (options.write_state) {
    std::string dir = parent.empty() ? std::string(".") : parent.string();
    std::vector<std::string> kept = last_checkpoints();
    if (options_.max_to_keep <= 0) kept = {prefix};
    update_checkpoint_state(dir, prefix, kept, options.latest_filename);
  }
  for (const std::string& old : to_delete) delete_checkpoint(old, options.meta_graph_suffix);
  return prefix;
}

SYMFLOW_INLINE void Saver::delete_checkpoint(const std::string& prefix,
                                             const std::string& meta_suffix) {
  io::remove_file_if_exists(io::index_path(prefix));
  io::remove_file_if_exists(io::data_path(prefix));
  io::remove_file_if_exists(prefix + "." + meta_suffix);
}

}  // namespace symflow::train
