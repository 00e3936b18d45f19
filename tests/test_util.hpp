#pragma once
// Helpers shared by the test files.

#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include <symflow/symflow.hpp>

namespace symflow::test {

// What reading damaged files gave, over many tries (the integrity tests): each damage is
// expected to give a DataLossError naming the file, or, where the format cannot see it,
// exactly what was saved; never something else, never another exception type.
struct DamageOutcomes {
  int tries = 0;
  int identical = 0;           // read back exactly what was saved (no harm done)
  int data_loss = 0;           // DataLossError naming the damaged file: the expected answer
  int unnamed_data_loss = 0;   // DataLossError that does not name the damaged file
  int accepted_different = 0;  // read as something else: the damage went unnoticed
  int other_error = 0;         // any other exception type
  std::vector<std::string> examples;

  void note(const std::string& what) {
    if (examples.size() < 5) examples.push_back(what);
  }

  // Runs `read` on the damaged `file` (it returns whether it read back what was saved) and
  // sorts the outcome.
  template <class Read>
  void attempt(const std::string& file, const std::string& damage, Read&& read) {
    ++tries;
    try {
      if (read()) {
        ++identical;
      } else {
        ++accepted_different;
        note(damage + ": read as something else");
      }
    } catch (const DataLossError& e) {
      if (e.message().find(file) != std::string::npos) {
        ++data_loss;
      } else {
        ++unnamed_data_loss;
        note(damage + ": " + e.message());
      }
    } catch (const std::exception& e) {
      ++other_error;
      note(damage + ": " + e.what());
    }
  }

  void check() const {
    std::string shown;
    for (const std::string& example : examples) shown += "\n  " + example;
    INFO("tries " << tries << ", identical " << identical << ", DataLossError " << data_loss
                  << shown);
    CHECK(accepted_different == 0);
    CHECK(other_error == 0);
    CHECK(unnamed_data_loss == 0);
    CHECK(data_loss + identical == tries);
  }
};

// A fresh, empty folder `folder` under the working directory, for one test case: ctest runs
// cases side by side, so each case names its own.
inline std::filesystem::path fresh_dir(const std::string& folder) {
  std::filesystem::path dir = std::filesystem::current_path() / folder;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

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

// (name, type) of every node of `g`, in creation order.
inline std::vector<std::pair<std::string, std::string>> nodes(const Graph& g) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const Operation& op : g.get_operations()) out.emplace_back(op.name(), op.type());
  return out;
}

// The names ("v:0") of some variables, in order.
inline std::vector<std::string> variable_names(const std::vector<Variable>& vars) {
  std::vector<std::string> out;
  for (const auto& v : vars) out.push_back(v.name());
  return out;
}

// The names of the tensors an op (or a tensor's op) reads.
inline std::vector<std::string> input_names(const Operation& op) {
  std::vector<std::string> out;
  for (const Output& in : op.inputs()) out.push_back(in.name());
  return out;
}
inline std::vector<std::string> input_names(const Output& t) { return input_names(t.op()); }

// Runs `t` in a fresh session of its graph and returns its elements.
template <Element T>
std::vector<T> run_vector(const Output& t, const FeedDict& feeds = {}) {
  Session sess(t.graph());
  return sess.run(t, feeds).to_vector<T>();
}

// The exception of type E that f throws, or nullopt when it throws nothing.
template <class E, class F>
std::optional<E> thrown(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e;
  }
  return std::nullopt;
}

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Element-wise closeness: relative when `relative`, else doctest's Approx default.
template <class T>
void check_close(const std::vector<T>& got, const std::vector<T>& want, double eps = 1e-6,
                 bool relative = true) {
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    CAPTURE(i);
    if (got[i] == want[i]) continue;  // exact, even at zero where a relative test fails
    if (relative)
      CHECK(got[i] == doctest::Approx(want[i]).epsilon(eps).scale(0));
    else
      CHECK(got[i] == doctest::Approx(want[i]).epsilon(eps));
  }
}

// A fresh directory for one test case (its tag and the process id in the name, since
// ctest runs cases side by side), removed with everything in it afterwards.
class TempDir {
 public:
  explicit TempDir(const std::string& tag)
      : path_(std::filesystem::temp_directory_path() /
              ("symflow_" + tag + "_" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

// Values in [-1, 1) from a fixed sequence (float64), so a wrong sum over elements shows.
inline Value sequence_value(const Dims& dims, std::uint32_t state) {
  std::int64_t n = 1;
  for (std::int64_t d : dims) n *= d;
  std::vector<double> v(static_cast<std::size_t>(n));
  for (double& x : v) {
    state = state * 1664525u + 1013904223u;
    x = static_cast<double>(state >> 8) / static_cast<double>(1u << 23) - 1.0;
  }
  return Value::from_vector(v, dims);
}

// The ops of a graph's UPDATE_OPS collection (tf.get_collection(tf.GraphKeys.UPDATE_OPS)).
inline std::vector<Operation> update_ops(const Graph& g) {
  std::vector<Operation> out;
  for (const CollectionValue& item : g.get_collection(GraphKeys::UPDATE_OPS))
    out.push_back(std::get<Operation>(item));
  return out;
}

}  // namespace symflow::test
