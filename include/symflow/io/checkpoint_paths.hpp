#pragma once
// The files of a checkpoint bundle (io/checkpoint_bundle.hpp), by its path prefix:
// what a program needs to find checkpoints without reading one.

#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

namespace symflow::io {

inline std::string index_path(std::string_view prefix) { return std::string(prefix) + ".index"; }
inline std::string data_path(std::string_view prefix) {
  return std::string(prefix) + ".data-00000-of-00001";
}

// Whether a complete bundle exists at `prefix`: its index file does.
inline bool bundle_exists(std::string_view prefix) {
  std::error_code ec;
  return std::filesystem::is_regular_file(index_path(prefix), ec);
}

}  // namespace symflow::io
