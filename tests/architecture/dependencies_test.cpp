// The dependency rule of docs/architecture.md, checked on the headers as they are: each
// folder of include/symflow/ includes only the folders its row allows, and the headers
// that build graphs reach no kernel library (Eigen, xtensor, nlohmann-json, Thrust).
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace symflow_test_architecture_dependencies_test {

namespace fs = std::filesystem;

// The rule, once: a layer and the layers it may include (itself always). A header's
// layer is its folder under include/symflow/ (backend/cpu and backend/thrust apart
// from the backend contract, ops/defs apart from the graph-building ops).
const std::map<std::string, std::set<std::string>>& allowed() {
  static const std::map<std::string, std::set<std::string>> rule = {
      {"version", {}},
      {"detail", {}},
      {"core", {"detail"}},
      {"ops/defs", {"core", "detail"}},
      {"graph", {"core", "detail", "ops/defs"}},
      {"ops", {"core", "detail", "ops/defs", "graph"}},
      {"variables", {"core", "detail", "ops/defs", "graph", "ops"}},
      {"layers", {"core", "detail", "ops/defs", "graph", "ops", "variables"}},
      {"metrics", {"core", "detail", "ops/defs", "graph", "ops", "variables"}},
      {"expr", {"core", "detail", "ops/defs", "graph", "ops"}},
      {"data", {"core", "detail"}},
      {"backend", {"core", "detail", "ops/defs"}},
      {"backend/cpu", {"core", "detail", "ops/defs", "backend"}},
      {"backend/thrust", {"core", "detail", "ops/defs", "backend", "backend/cpu"}},
      {"runtime", {"core", "detail", "ops/defs", "graph", "ops", "variables", "backend"}},
      {"io", {"core", "detail", "ops/defs", "graph", "ops", "version"}},
      {"train",
       {"core", "detail", "ops/defs", "graph", "ops", "variables", "layers", "runtime", "io",
        "version"}},
      // The MPI library (target symflow::mpi): the optimizer wrapper, and the engine it
      // installs for the collective kernels (backend/collective_engine.hpp).
      {"distributed",
       {"core", "detail", "ops/defs", "graph", "ops", "variables", "layers", "runtime", "io",
        "version", "train", "backend"}},
      {"symflow.hpp",
       {"version", "detail", "core", "ops/defs", "graph", "ops", "variables", "layers", "metrics",
        "expr", "data", "backend", "runtime", "io", "train"}},
      {"define_compiled.hpp",
       {"version", "detail", "core", "ops/defs", "graph", "ops", "variables", "layers", "metrics",
        "expr", "data", "backend", "backend/cpu", "runtime", "io", "train"}},
  };
  return rule;
}

// The headers of a layer that may reach further than their layer: the device factory
// makes the concrete backends, so that the runtime never names one; the checkpoint ops'
// kernels read and write TensorFlow's files with io/checkpoint_bundle.hpp, which the
// case below checks reaches no graph.
const std::map<std::string, std::set<std::string>>& exceptions() {
  static const std::map<std::string, std::set<std::string>> list = {
      {"backend/devices.hpp", {"backend/cpu", "backend/thrust"}},
      {"backend/cpu/kernels/io.hpp", {"io"}},
      {"backend/cpu/kernels/parsing.hpp", {"io"}},
      {"backend/cpu/kernels/summary.hpp", {"io"}},
  };
  return list;
}

std::string layer_of(const std::string& rel) {  // rel: "ops/defs/math.hpp"
  if (rel == "symflow.hpp" || rel == "define_compiled.hpp") return rel;
  if (rel == "version.hpp") return "version";
  const auto slash = rel.find('/');
  std::string top = rel.substr(0, slash);
  const auto second = rel.find('/', slash + 1);
  if ((top == "backend" || top == "ops") && second != std::string::npos) {
    const std::string sub = rel.substr(0, second);
    if (sub == "ops/defs" || top == "backend") return sub;
  }
  if (top == "expr") return "expr";  // expr/ct/ is one layer with expr/
  return top;
}

struct Header {
  std::vector<std::string> ours;    // "symflow/..." includes, relative to include/symflow/
  std::vector<std::string> others;  // <...> includes
};

std::map<std::string, Header> read_headers() {
  const fs::path root = fs::path(SYMFLOW_SOURCE_DIR) / "include" / "symflow";
  std::map<std::string, Header> headers;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file()) continue;
    const std::string rel = fs::relative(entry.path(), root).generic_string();
    std::ifstream in(entry.path());
    Header h;
    for (std::string line; std::getline(in, line);) {
      const auto at = line.find("#include ");
      if (at == std::string::npos || line.find_first_not_of(' ') != at) continue;
      const std::string target = line.substr(at + 9);
      if (target.rfind("\"symflow/", 0) == 0)
        h.ours.push_back(target.substr(9, target.find('"', 1) - 9));
      else if (target.rfind('<', 0) == 0)
        h.others.push_back(target.substr(1, target.find('>') - 1));
    }
    headers.emplace(rel, std::move(h));
  }
  return headers;
}

TEST_CASE("architecture: every include follows the layers of docs/architecture.md") {
  const auto headers = read_headers();
  REQUIRE(headers.size() > 100);
  std::vector<std::string> forbidden;
  for (const auto& [file, header] : headers) {
    const std::string from = layer_of(file);
    const auto row = allowed().find(from);
    if (row == allowed().end()) {
      forbidden.push_back(file + ": its folder has no row in the rule");
      continue;
    }
    const auto extra = exceptions().find(file);
    for (const std::string& target : header.ours) {
      if (!headers.count(target)) {
        forbidden.push_back(file + " -> " + target + " (no such header)");
        continue;
      }
      const std::string to = layer_of(target);
      if (to == from || row->second.count(to)) continue;
      if (extra != exceptions().end() && extra->second.count(to)) continue;
      forbidden.push_back(file + " -> " + target + " (" + from + " may not include " + to + ")");
    }
  }
  std::string list;
  for (const std::string& f : forbidden) list += "\n  " + f;
  INFO("forbidden includes:" << list);
  CHECK(forbidden.empty());
}

TEST_CASE("architecture: building a graph reaches no kernel library") {
  const auto headers = read_headers();
  const std::vector<std::string> kernel_libraries = {"Eigen/", "unsupported/Eigen", "xtensor/",
                                                     "xtl/",   "nlohmann/",         "thrust/"};
  std::vector<std::string> found;
  for (const auto& [file, header] : headers) {
    const std::string layer = layer_of(file);
    if (layer != "ops/defs" && layer != "graph" && layer != "ops" && layer != "variables" &&
        layer != "layers" && layer != "metrics")
      continue;
    // Everything `file` reaches through our headers.
    std::set<std::string> seen{file};
    std::vector<std::string> todo{file};
    while (!todo.empty()) {
      const std::string at = todo.back();
      todo.pop_back();
      const auto it = headers.find(at);
      if (it == headers.end()) continue;
      for (const std::string& lib : it->second.others)
        for (const std::string& prefix : kernel_libraries)
          if (lib.rfind(prefix, 0) == 0) found.push_back(file + " reaches <" + lib + "> in " + at);
      for (const std::string& next : it->second.ours)
        if (seen.insert(next).second) todo.push_back(next);
    }
  }
  std::string list;
  for (const std::string& f : found) list += "\n  " + f;
  INFO("kernel libraries reached:" << list);
  CHECK(found.empty());
}

// Definitions kept out of a SYMFLOW_COMPILED source: each `*_inl.hpp`, and the CPU
// backend's definition, which their own headers include under #if !defined(SYMFLOW_COMPILED).
bool defined_apart(const std::string& rel) {
  return rel.ends_with("_inl.hpp") || rel == "backend/cpu/define_backend.hpp";
}

TEST_CASE(
    "architecture: each definitions header is reached only by its header and define_compiled") {
  const auto headers = read_headers();
  const Header& library = headers.at("define_compiled.hpp");
  std::vector<std::string> wrong;
  for (const auto& [file, header] : headers) {
    if (defined_apart(file) &&
        std::find(library.ours.begin(), library.ours.end(), file) == library.ours.end())
      wrong.push_back(file + " is not included by define_compiled.hpp");
    for (const std::string& target : header.ours) {
      if (!defined_apart(target) || file == "define_compiled.hpp") continue;
      // Its own header: "graph/graph_inl.hpp" belongs to "graph/graph.hpp".
      const std::string own = target.ends_with("_inl.hpp")
                                  ? target.substr(0, target.size() - 8) + ".hpp"
                                  : "backend/cpu/cpu_backend.hpp";
      if (file != own) wrong.push_back(file + " includes " + target);
    }
  }
  std::string list;
  for (const std::string& w : wrong) list += "\n  " + w;
  INFO("definitions reached the wrong way:" << list);
  CHECK(wrong.empty());
}

TEST_CASE("architecture: with SYMFLOW_COMPILED the umbrella reaches no kernel library") {
  const auto headers = read_headers();
  const std::vector<std::string> kernel_libraries = {"Eigen/", "unsupported/Eigen", "xtensor/",
                                                     "xtl/",   "nlohmann/",         "thrust/"};
  std::vector<std::string> found;
  std::set<std::string> seen{"symflow.hpp"};
  std::vector<std::string> todo{"symflow.hpp"};
  while (!todo.empty()) {
    const std::string at = todo.back();
    todo.pop_back();
    const Header& header = headers.at(at);
    for (const std::string& lib : header.others)
      for (const std::string& prefix : kernel_libraries)
        if (lib.rfind(prefix, 0) == 0) found.push_back("<" + lib + "> in " + at);
    for (const std::string& next : header.ours)
      if (!defined_apart(next) && seen.insert(next).second) todo.push_back(next);
  }
  std::string list;
  for (const std::string& f : found) list += "\n  " + f;
  INFO("kernel libraries reached:" << list);
  CHECK(found.empty());
  CHECK(seen.count("runtime/session.hpp") == 1);  // the walk did reach the Session
  // ... and every graph builder a user may call: the umbrella is the whole API.
  std::vector<std::string> missing;
  for (const auto& [file, header] : headers) {
    const std::string layer = layer_of(file);
    const bool builder = (layer == "ops" && !file.ends_with("_grad.hpp") &&
                          file != "ops/registry.hpp" && file != "ops/grad_context.hpp") ||
                         layer == "variables" || layer == "layers" || layer == "metrics";
    if (builder && !defined_apart(file) && !seen.count(file)) missing.push_back(file);
  }
  std::string absent;
  for (const std::string& m : missing) absent += "\n  " + m;
  INFO("graph builders the umbrella misses:" << absent);
  CHECK(missing.empty());
}

TEST_CASE("architecture: the checkpoint and Example-parsing kernels reach io/ but no graph") {
  const auto headers = read_headers();
  std::set<std::string> seen{"backend/cpu/kernels/io.hpp", "backend/cpu/kernels/parsing.hpp"};
  std::vector<std::string> todo{"backend/cpu/kernels/io.hpp", "backend/cpu/kernels/parsing.hpp"};
  std::vector<std::string> graph_side;
  while (!todo.empty()) {
    const std::string at = todo.back();
    todo.pop_back();
    for (const std::string& next : headers.at(at).ours) {
      const std::string layer = layer_of(next);
      if (layer == "graph" || layer == "ops" || layer == "variables" || layer == "runtime")
        graph_side.push_back(at + " includes " + next);
      if (seen.insert(next).second) todo.push_back(next);
    }
  }
  std::string list;
  for (const std::string& g : graph_side) list += "\n  " + g;
  INFO("graph headers reached:" << list);
  CHECK(graph_side.empty());
  CHECK(seen.count("io/checkpoint_bundle.hpp") == 1);
}

TEST_CASE("architecture: the rule's layer names are the folders' own") {
  CHECK(layer_of("ops/defs/math.hpp") == "ops/defs");
  CHECK(layer_of("ops/math_ops.hpp") == "ops");
  CHECK(layer_of("backend/cpu/kernels/math.hpp") == "backend/cpu");
  CHECK(layer_of("backend/backend.hpp") == "backend");
  CHECK(layer_of("expr/ct/expr.hpp") == "expr");
  CHECK(layer_of("symflow.hpp") == "symflow.hpp");
  for (const auto& [layer_name, targets] : allowed()) {
    // A named reference: clang 14 cannot capture a structured binding in CAPTURE's lambda.
    const std::string& layer = layer_name;
    for (const std::string& t : targets) {
      CAPTURE(layer);
      CHECK(allowed().count(t) == 1);
    }
  }
}

}  // namespace symflow_test_architecture_dependencies_test
