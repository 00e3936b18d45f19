// symflow_fuzz_replay TARGET PATH...: runs every file under the PATHs (files or folders,
// recursively, in sorted order) through the fuzz target TARGET, as libFuzzer would run
// one input. ctest runs it over each target's regression corpus (fuzz/corpus/TARGET:
// every input that ever found a bug, plus seeds) and the real files it reads. A finding
// aborts; finding no input at all is an error too, so a corpus that moved cannot pass.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz_support.hpp"

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s TARGET PATH...\n", argv[0]);
    return 2;
  }
  auto& targets = symflow::fuzz::targets();
  auto target = targets.find(argv[1]);
  if (target == targets.end()) {
    std::fprintf(stderr, "unknown fuzz target '%s'; known:", argv[1]);
    for (const auto& [name, fn] : targets) std::fprintf(stderr, " %s", name.c_str());
    std::fprintf(stderr, "\n");
    return 2;
  }
  std::vector<fs::path> inputs;
  for (int i = 2; i < argc; ++i) {
    const fs::path path(argv[i]);
    if (fs::is_directory(path)) {
      for (const auto& entry : fs::recursive_directory_iterator(path))
        if (entry.is_regular_file()) inputs.push_back(entry.path());
    } else if (fs::is_regular_file(path)) {
      inputs.push_back(path);
    } else {
      std::fprintf(stderr, "no such file or folder: %s\n", argv[i]);
      return 2;
    }
  }
  std::sort(inputs.begin(), inputs.end());
  if (inputs.empty()) {
    std::fprintf(stderr, "no inputs for fuzz target '%s'\n", argv[1]);
    return 2;
  }
  for (const fs::path& path : inputs) {
    std::ifstream in(path, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::fprintf(stderr, "%s\n", path.c_str());
    target->second(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  }
  std::printf("%s: %zu inputs, no finding\n", argv[1], inputs.size());
  return 0;
}
