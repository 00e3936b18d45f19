#pragma once

namespace symflow {

// The library's version, also exported by the CMake package config.
inline const char* version() { return "0.1.0"; }

}  // namespace symflow
