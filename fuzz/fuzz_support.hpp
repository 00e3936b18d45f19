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

inline void require(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "fuzz finding: %s failed\n", what);
  std::abort();
}

}  // namespace symflow::fuzz

#if defined(SYMFLOW_FUZZ_LIBFUZZER)
#define SYMFLOW_FUZZ_TARGET(name) \
  extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
#else
#define SYMFLOW_FUZZ_TARGET(name)                                             \
  static int symflow_fuzz_##name(const std::uint8_t* data, std::size_t size); \
  [[maybe_unused]] static const bool symflow_fuzz_registered_##name =         \
      symflow::fuzz::register_target(#name, symflow_fuzz_##name);             \
  static int symflow_fuzz_##name(const std::uint8_t* data, std::size_t size)
#endif
