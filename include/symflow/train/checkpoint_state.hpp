#pragma once
// The `checkpoint` state file of a checkpoint directory: which checkpoint is the newest
// and which ones a Saver still keeps, in TensorFlow's protobuf text form
//   model_checkpoint_path: "model.ckpt-3"
//   all_model_checkpoint_paths: "model.ckpt-2"
//   all_model_checkpoint_paths: "model.ckpt-3"
// so that TensorFlow's tools read it too. Paths inside the directory are stored
// relative to it, so a directory can be moved as a whole.

#include <charconv>
#include <cmath>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "symflow/core/errors.hpp"
#include "symflow/io/atomic_file.hpp"
#include "symflow/io/checkpoint_paths.hpp"
#include "symflow/io/graph_def_text.hpp"

namespace symflow::train {

struct CheckpointState {
  std::string model_checkpoint_path;
  std::vector<std::string> all_model_checkpoint_paths;
  friend bool operator==(const CheckpointState&, const CheckpointState&) = default;
};

namespace detail::checkpoint_state {

// Undoes protobuf's CEscape (the escapes graph_def_text.hpp writes).
inline std::string unescape(std::string_view s, const std::string& file) {
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    if (s[i] != '\\') {
      out += s[i++];
      continue;
    }
    ++i;
    if (auto error = symflow::detail::read_c_escape(s, i, out))
      throw DataLossError(file + ": " + *error + " in a string");
  }
  return out;
}

inline std::string quoted(const std::string& s) {
  return "\"" + symflow::detail::c_escape(s.data(), s.size()) + "\"";
}

// A path as the state file stores it: relative to `dir` when it lies inside it.
inline std::string relative_to(const std::string& path, const std::filesystem::path& dir) {
  std::filesystem::path p(path);
  std::filesystem::path parent = p.parent_path().empty() ? "." : p.parent_path();
  if ((parent / "").lexically_normal() == (dir / "").lexically_normal())
    return p.filename().string();
  return path;
}

}  // namespace detail::checkpoint_state

// The parsed state file of `checkpoint_dir`, or nullopt when there is none. Relative
// paths come back joined with `checkpoint_dir` ("dir/model.ckpt-3"), as TensorFlow
// returns them. DataLossError when the file is not a state file; a state file naming no
// checkpoint (an empty one, say) is TensorFlow's ValueError.
inline std::optional<CheckpointState> get_checkpoint_state(
    const std::string& checkpoint_dir, const std::string& latest_filename = "checkpoint") {
  std::filesystem::path file = std::filesystem::path(checkpoint_dir) / latest_filename;
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) return std::nullopt;
  std::string text = io::read_file(file);
  CheckpointState state;
  std::size_t line_no = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + pos, end - pos);
    pos = end + 1;
    ++line_no;
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.remove_suffix(1);
    while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
    if (line.empty()) continue;
    auto where = [&] { return file.string() + ":" + std::to_string(line_no); };
    std::size_t colon = line.find(':');
    if (colon == std::string_view::npos)
      throw DataLossError(where() + ": expected 'key: \"value\"', got '" + std::string(line) + "'");
    std::string_view key = line.substr(0, colon);
    std::string_view rest = line.substr(colon + 1);
    while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
    // TensorFlow 2 adds timestamps (seconds since the epoch); symflow needs none of them,
    // but one that is not a finite number means the file is damaged.
    if (key == "all_model_checkpoint_timestamps" || key == "last_preserved_timestamp") {
      double seconds = 0;
      auto [end, error] = std::from_chars(rest.data(), rest.data() + rest.size(), seconds);
      if (rest.empty() || error != std::errc() || end != rest.data() + rest.size() ||
          !std::isfinite(seconds))
        throw DataLossError(where() + ": field " + std::string(key) +
                            ": expected a number of seconds, got '" + std::string(rest) + "'");
      continue;
    }
    if (rest.size() < 2 || rest.front() != '"' || rest.back() != '"')
      throw DataLossError(where() + ": expected a quoted string after '" + std::string(key) + ":'");
    std::string value =
        detail::checkpoint_state::unescape(rest.substr(1, rest.size() - 2), where());
    if (key == "model_checkpoint_path") {
      state.model_checkpoint_path = std::move(value);
    } else if (key == "all_model_checkpoint_paths") {
      state.all_model_checkpoint_paths.push_back(std::move(value));
    } else {
      throw DataLossError(where() + ": unknown field '" + std::string(key) +
                          "'; expected model_checkpoint_path or all_model_checkpoint_paths");
    }
  }
  if (state.model_checkpoint_path.empty())
    throw ValueError("Invalid checkpoint state loaded from " + checkpoint_dir);
  auto in_dir = [&](std::string& path) {
    if (std::filesystem::path(path).is_relative())
      path = (std::filesystem::path(checkpoint_dir) / path).string();
  };
  in_dir(state.model_checkpoint_path);
  for (std::string& path : state.all_model_checkpoint_paths) in_dir(path);
  return state;
}

// Writes the state file of `checkpoint_dir` atomically: a reader sees the old state or
// the new one, never a mix.
inline void update_checkpoint_state(const std::string& checkpoint_dir,
                                    const std::string& model_checkpoint_path,
                                    const std::vector<std::string>& all_model_checkpoint_paths = {},
                                    const std::string& latest_filename = "checkpoint") {
  using detail::checkpoint_state::quoted;
  using detail::checkpoint_state::relative_to;
  std::filesystem::path dir(checkpoint_dir.empty() ? "." : checkpoint_dir);
  std::vector<std::string> all = all_model_checkpoint_paths;
  // The newest checkpoint is always among the kept ones, and listed last.
  if (all.empty() || all.back() != model_checkpoint_path) {
    std::erase(all, model_checkpoint_path);
    all.push_back(model_checkpoint_path);
  }
  std::string text =
      "model_checkpoint_path: " + quoted(relative_to(model_checkpoint_path, dir)) + "\n";
  for (const std::string& p : all)
    text += "all_model_checkpoint_paths: " + quoted(relative_to(p, dir)) + "\n";
  io::write_file_atomically(dir / latest_filename, text);
}

// The newest complete checkpoint of `checkpoint_dir` (TensorFlow's
// tf.train.latest_checkpoint): its prefix, to pass to Saver::restore, or nullopt when
// the directory has none. A checkpoint is complete once its index file exists, and the
// state file names it only after that, so an interrupted save is never returned.
inline std::optional<std::string> latest_checkpoint(
    const std::string& checkpoint_dir, const std::string& latest_filename = "checkpoint") {
  auto state = get_checkpoint_state(checkpoint_dir, latest_filename);
  if (!state) return std::nullopt;
  std::string prefix = state->model_checkpoint_path;  // already joined with the directory
  if (!io::bundle_exists(prefix)) return std::nullopt;
  return prefix;
}

// Whether `prefix` names a complete checkpoint (tf.train.checkpoint_exists).
inline bool checkpoint_exists(const std::string& prefix) { return io::bundle_exists(prefix); }

}  // namespace symflow::train
