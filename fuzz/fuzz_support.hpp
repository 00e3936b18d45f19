#pragma once
// What the fuzz targets share. Each target is written once, as
//
//   SYMFLOW_FUZZ_TARGET(graph_def) { ... data, size ... return 0; }
//
// and built two ways: as a libFuzzer program (SYMFLOW_FUZZ_LIBFUZZER, clang's
// -fsanitize=fuzzer; `make fuzz`), and into symflow_fuzz_replay, which runs every file
// of a corpus through it under ctest. A finding aborts, so both report it with its input.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

#include <symflow/core/buffer_pool.hpp>
#include <symflow/core/errors.hpp>

namespace symflow::fuzz {

using Target = int (*)(const std::uint8_t* data, std::size_t size);

inline std::map<std::string, Target>& targets() {
  static std::map<std::string, Target> all;
  return all;
}

inline bool register_target(const char* name, Target target) {
  targets().emplace(name, target);
  return true;
}

// The largest tensor a fuzzed input may make: a file may ask for a constant of any size
// from a few bytes (a short value list repeats its last value), and a program that reads
// untrusted files sets such a limit (ConfigProto::memory_limit_bytes does it for a
// session). Past it, reading is a ResourceExhaustedError, an accepted answer.
inline constexpr std::int64_t kAllocationLimit = std::int64_t{256} << 20;

// Runs one input through a target's body under kAllocationLimit.
inline int run_limited(Target body, const std::uint8_t* data, std::size_t size) {
  symflow::detail::AllocationLimitScope limit(kAllocationLimit);
  try {
    return body(data, size);
  } catch (const symflow::ResourceExhaustedError&) {
    return 0;
  }
}

inline void require(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "fuzz finding: %s failed\n", what);
  std::abort();
}

}  // namespace symflow::fuzz

#if defined(SYMFLOW_FUZZ_LIBFUZZER)
#define SYMFLOW_FUZZ_TARGET(name)                                                     \
  static int symflow_fuzz_##name(const std::uint8_t* data, std::size_t size);         \
  extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) { \
    return symflow::fuzz::run_limited(symflow_fuzz_##name, data, size);               \
  }                                                                                   \
  static int symflow_fuzz_##name(const std::uint8_t* data, std::size_t size)
#else
#define SYMFLOW_FUZZ_TARGET(name)                                                      \
  static int symflow_fuzz_##name(const std::uint8_t* data, std::size_t size);          \
  static int symflow_fuzz_limited_##name(const std::uint8_t* data, std::size_t size) { \
    return symflow::fuzz::run_limited(symflow_fuzz_##name, data, size);                \
  }                                                                                    \
  [[maybe_unused]] static const bool symflow_fuzz_registered_##name =                  \
      symflow::fuzz::register_target(#name, symflow_fuzz_limited_##name);              \
  static int symflow_fuzz_##name(const std::uint8_t* data, std::size_t size)
#endif
