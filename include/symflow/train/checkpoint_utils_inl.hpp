#pragma once
// The checkpoint utilities' definitions (train/checkpoint_utils.hpp declares them):
// included by that header in a header-only program, and by symflow/define_compiled.hpp
// alone in a program built with SYMFLOW_COMPILED.

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "symflow/core/errors.hpp"
#include "symflow/detail/config.hpp"
#include "symflow/io/checkpoint_bundle.hpp"
#include "symflow/train/checkpoint_state.hpp"
#include "symflow/train/checkpoint_utils.hpp"

namespace symflow::train {

SYMFLOW_INLINE CheckpointReader::CheckpointReader(const std::string& prefix)
    : prefix_(prefix), bundle_(std::make_shared<const io::BundleReader>(prefix)) {}

SYMFLOW_INLINE bool CheckpointReader::has_tensor(std::string_view name) const {
  return bundle_->contains(name);
}

SYMFLOW_INLINE Value CheckpointReader::get_tensor(std::string_view name) const {
  return bundle_->read(name);
}

SYMFLOW_INLINE std::map<std::string, Dims> CheckpointReader::get_variable_to_shape_map() const {
  std::map<std::string, Dims> out;
  for (const auto& [name, entry] : bundle_->entries()) out.emplace(name, entry.shape);
  return out;
}

SYMFLOW_INLINE std::map<std::string, DType> CheckpointReader::get_variable_to_dtype_map() const {
  std::map<std::string, DType> out;
  for (const auto& [name, entry] : bundle_->entries())
    if (entry.dtype != DType::invalid) out.emplace(name, entry.dtype);
  return out;
}

SYMFLOW_INLINE std::map<std::string, std::string> CheckpointReader::get_variable_to_tf_dtype_map()
    const {
  std::map<std::string, std::string> out;
  for (const auto& [name, entry] : bundle_->entries())
    out.emplace(name, io::bundle_dtype_name(entry));
  return out;
}

namespace detail::checkpoint_utils {

// A directory's newest checkpoint, or the argument itself when it is not a directory
// (TensorFlow's _get_checkpoint_filename); ValueError for a directory without one.
inline std::string checkpoint_prefix(const std::string& ckpt_dir_or_prefix) {
  std::error_code ec;
  if (!std::filesystem::is_directory(ckpt_dir_or_prefix, ec)) return ckpt_dir_or_prefix;
  std::optional<std::string> latest = latest_checkpoint(ckpt_dir_or_prefix);
  if (!latest)
    throw ValueError("Couldn't find 'checkpoint' file or checkpoints in given directory " +
                     ckpt_dir_or_prefix);
  return *latest;
}

}  // namespace detail::checkpoint_utils

SYMFLOW_INLINE CheckpointReader load_checkpoint(const std::string& ckpt_dir_or_prefix) {
  return CheckpointReader(detail::checkpoint_utils::checkpoint_prefix(ckpt_dir_or_prefix));
}

SYMFLOW_INLINE std::vector<std::pair<std::string, Dims>> list_variables(
    const std::string& ckpt_dir_or_prefix) {
  CheckpointReader reader = load_checkpoint(ckpt_dir_or_prefix);
  std::vector<std::pair<std::string, Dims>> out;
  for (const auto& [name, entry] : reader.bundle().entries()) out.emplace_back(name, entry.shape);
  return out;  // entries() is a std::map: already in name order
}

SYMFLOW_INLINE Value load_variable(const std::string& ckpt_dir_or_prefix, std::string_view name) {
  if (name.size() > 2 && name.substr(name.size() - 2) == ":0") name.remove_suffix(2);
  return load_checkpoint(ckpt_dir_or_prefix).get_tensor(name);
}

}  // namespace symflow::train
