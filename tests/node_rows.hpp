#pragma once
// A graph's nodes as rows "name type [inputs] class", for tests that compare a builder's
// graph with TensorFlow's node by node.

#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <variant>
#include <vector>

#include <symflow/symflow.hpp>

namespace symflow::test {

// Every node made since `first`: inputs as the NodeDef writes them ("^x" for a control
// input), class the _class attr's first entry.
inline std::vector<std::string> rows_since(const Graph& g, std::size_t first) {
  std::vector<std::string> rows;
  auto ops = g.get_operations();
  for (std::size_t i = first; i < ops.size(); ++i) {
    NodeDef def = ops[i].node_def();
    std::string inputs;
    for (const auto& in : def.input) inputs += (inputs.empty() ? "" : ",") + in;
    std::string cls;
    if (auto it = def.attr.find("_class"); it != def.attr.end())
      cls = std::get<StringList>(it->second).items.at(0);
    rows.push_back(def.name + " " + def.op + " [" + inputs + "] " + cls);
  }
  return rows;
}

// Row by row, so that a failure names the first row that differs.
inline void check_rows(const std::vector<std::string>& got, const std::vector<std::string>& want) {
  CHECK(got.size() == want.size());
  for (std::size_t i = 0; i < std::min(got.size(), want.size()); ++i) {
    CAPTURE(i);
    CHECK(got[i] == want[i]);
  }
}

}  // namespace symflow::test
