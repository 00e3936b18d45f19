#pragma once
// Helpers shared by the test files.

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace symflow::test {

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open test data file " + path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A file under tests/ of the source tree.
inline std::string read_test_data(const std::string& relative) {
  return read_file(std::string(SYMFLOW_SOURCE_DIR) + "/tests/" + relative);
}

// The seed prints GraphDefs without indentation and with its own producer number:
// drop leading spaces, "# comments" and trailing blank lines, and normalise the
// producer.
inline std::string normalise_seed_text(const std::string& text) {
  std::istringstream in(text);
  std::string line, out;
  while (std::getline(in, line)) {
    auto first = line.find_first_not_of(' ');
    line = first == std::string::npos ? "" : line.substr(first);
    auto comment = line.find(" #");
    if (comment != std::string::npos) line = line.substr(0, comment);
    if (line.rfind("producer: ", 0) == 0) line = "producer: N";
    out += line + "\n";
  }
  while (out.size() >= 2 && out.ends_with("\n\n")) out.pop_back();
  return out;
}

}  // namespace symflow::test
